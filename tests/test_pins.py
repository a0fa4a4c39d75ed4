"""pyproject.toml's ranges, the lock, environment.yml and envs/*.yaml agree (twelveways.pins)."""

import shutil

import pytest

from twelveways import pins

#: What only the artifact needs: never a dependency of the package itself (issue 42).
ARTIFACT_ONLY = {"torch", "snakemake", "snakemake-executor-plugin-slurm", "jupyterlab", "papermill", "nbconvert",
                 "jupytext", "ipykernel", "seaborn", "mpi4py", "mpich", "mlcommons-loadgen", "scikit-learn"}


def test_pins_agree():
    assert pins.disagreements() == []


def test_the_package_needs_none_of_the_artifact():
    layers = pins.project_requirements()
    core = {req.name.lower() for req in layers["core"]}
    artifact = {req.name.lower() for req in layers["artifact"]}
    assert not core & ARTIFACT_ONLY, core & ARTIFACT_ONLY
    assert ARTIFACT_ONLY <= artifact, ARTIFACT_ONLY - artifact


def test_torch_locked_to_the_local_cpu_wheel():
    assert pins.lock_pins()["torch"] == "2.13.0"
    assert "torch==2.13.0+cpu" in (pins.PROJECT_ROOT / pins.LOCK).read_text().splitlines()


@pytest.fixture
def project(tmp_path, root):
    """A copy of the files twelveways.pins reads, to be broken one at a time."""
    for rel in ("pyproject.toml", pins.LOCK, *pins.CONDA_FILES):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / rel, tmp_path / rel)
    assert pins.disagreements(tmp_path) == []
    return tmp_path


def _replace(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, problem", [
    ('"numpy>=2.4"', '"numpy==2.4.6"', "numpy==2.4.6 is an exact pin"),
    ('"numpy>=2.4"', '"numpy"', "numpy has no lower bound"),
    ('"numpy>=2.4"', '"numpy>=2.5"', "numpy==2.4.6 is outside pyproject.toml's numpy>=2.5 (core)"),
    ('"torch>=2.13"', '"torch>=2.13,<2.13"', "torch==2.13.0 is outside"),
    ('"pyperf>=2.10"', '"pyperf>=2.10", "not-locked>=1"', "not-locked is missing"),
])
def test_a_range_that_the_lock_does_not_satisfy_is_named(project, old, new, problem):
    _replace(project / "pyproject.toml", old, new)
    found = pins.disagreements(project)
    assert any(problem in line for line in found), found


def test_a_conda_file_that_leaves_the_lock_is_named(project):
    _replace(project / "environment.yml", "scipy==1.17.1", "scipy==1.16.0")
    assert pins.disagreements(project) == ["environment.yml: scipy==1.16.0 but envs/requirements.lock says 1.17.1"]


def test_the_conda_files_are_what_make_envs_writes(root):
    for rel in pins.CONDA_FILES:
        assert (root / rel).read_text() == pins.render_conda(root=root), rel


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
