"""The documentation cannot drift: config keys come from the schema, results columns from the code, every
command and make target is documented on the site, and the README stays a short entry point."""

import re
import subprocess

from twelveways import cli, config, configdocs, results


def test_config_readme_is_generated_from_the_schema(root):
    assert (root / "config" / "README.md").read_text() == configdocs.render(), \
        "config/README.md is stale: run `twelveways config-docs --output config/README.md`"


def schema_keys(schema: dict, prefix: str = ""):
    for name, sub in schema.get("properties", {}).items():
        yield prefix + name
        yield from schema_keys(sub, f"{prefix}{name}.")


def test_the_configuration_page_documents_every_config_key(root):
    page = (root / "docs" / "configuration.md").read_text()
    assert configdocs.table() in page, "docs/configuration.md is stale: run `python -m twelveways.docsite` (make docs)"
    keys = list(schema_keys(config.load_schema()))
    assert len(keys) > 50
    for key in keys:
        assert f"| `{key}` |" in page, key


def make_targets(root) -> list[str]:
    """The targets `make help` lists: what a user is told the Makefile offers."""
    out = subprocess.run(["make", "-s", "help"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [line.split()[1] for line in out.splitlines() if line.startswith("make ")]


def test_every_command_and_make_target_is_documented_on_the_site(root):
    commands = (root / "docs" / "commands.md").read_text()
    for command in [*cli.DELEGATED, *cli.LOCAL]:
        assert f"## `twelveways {command}`" in commands, command
    targets = (root / "docs" / "getting-started.md").read_text()
    listed = make_targets(root)
    assert {"report", "test", "test-fast", "docs", "bench"} <= set(listed)
    for target in listed:
        assert f"| `make {target}" in targets, f"make {target} is missing from docs/getting-started.md"
    assert "snakemake --cores all" in (root / "docs" / "workflow.md").read_text()


def test_the_results_schema_page_documents_every_column_and_attribute(root):
    page = (root / "docs" / "results-schema.md").read_text()
    for column in list(results.COLUMNS) + list(results.ATTRS):
        assert f"| `{column}` |" in page, column


def test_the_readme_names_the_two_commands_and_where_to_read_on(root):
    readme = (root / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) < 120, f"README.md has {len(lines)} lines"
    long = [n for n, line in enumerate(lines, 1) if len(line) > 160]
    assert not long, f"README.md lines over 160 characters: {long}"
    blocks = re.findall(r"```\n(.*?)```", readme, re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines() if line.startswith("make")]
    assert commands == ["make report", "make test"]
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (root / link).is_file(), link


def test_no_schema_description_is_cut_at_a_comma(root):
    """In a YAML flow mapping an unquoted comma ends the description and makes the rest a key with no value:
    the documented meaning stops mid-sentence."""
    import yaml

    def stray(node, path=()):
        if isinstance(node, dict):
            for key, value in node.items():
                if value is None and path[-1:] != ("default",) and key != "default":
                    yield ".".join(map(str, path)) + f": {key!r}"
                yield from stray(value, (*path, key))
        elif isinstance(node, list):
            for item in node:
                yield from stray(item, path)

    for schema in sorted((root / "workflow" / "schemas").glob("*.yaml")):
        assert list(stray(yaml.safe_load(schema.read_text()))) == [], schema.name
