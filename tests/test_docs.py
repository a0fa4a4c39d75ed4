"""The documentation cannot drift: config keys come from the schema, results columns from the code."""

from twelveways import configdocs, results


def test_config_readme_is_generated_from_the_schema(root):
    assert (root / "config" / "README.md").read_text() == configdocs.render(), \
        "config/README.md is stale: run `twelveways config-docs --output config/README.md`"


def test_readme_embeds_every_config_key(root):
    assert configdocs.table() in (root / "README.md").read_text(), \
        "README.md's key table is stale: run `twelveways config-docs --readme README.md --output config/README.md`"


def test_readme_documents_commands_and_results_format(root):
    readme = (root / "README.md").read_text()
    for command in ("make report", "make test", "snakemake --cores all", "twelveways audit", "make reader-report",
                    "make bench", "make lab", "make test-slurm", "twelveways import-csv", "twelveways env"):
        assert command in readme, command
    for column in list(results.COLUMNS) + list(results.ATTRS):
        assert f"`{column}`" in readme, column
