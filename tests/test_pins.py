"""pyproject.toml, the lock, environment.yml and envs/*.yaml state the same versions."""

from twelveways import pins


def test_pins_agree():
    assert pins.disagreements() == []


def test_torch_pinned_to_the_local_wheel():
    assert pins.project_pins()["torch"] == "2.13.0"


def test_docs_tools_locked_within_the_docs_extra(root):
    """The docs extra states ranges; the lock and the conda files pin one version inside them, the same one."""
    import tomllib

    from packaging.requirements import Requirement

    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]
    locked = pins.lock_pins(root)
    for requirement in map(Requirement, extra):
        name = requirement.name.lower()
        assert locked.get(name) and requirement.specifier.contains(locked[name]), (name, locked.get(name))
        for conda_file in pins.CONDA_FILES:
            assert pins.conda_pins(root / conda_file).get(name) == locked[name], (conda_file, name)


def test_the_conda_files_are_what_make_envs_writes(root):
    """`make envs` regenerates them: it must keep every pin they hold, the docs tools included."""
    for conda_file in pins.CONDA_FILES:
        assert (root / conda_file).read_text() == pins.render_conda(), conda_file
