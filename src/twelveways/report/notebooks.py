"""Run the analysis notebooks: jupytext ``.py`` (what git holds) -> ``.ipynb`` -> papermill.

The notebooks live in ``notebooks/`` as jupytext percent-format files so that diffs stay
readable; papermill needs an ``.ipynb``, so each run converts first.  Every notebook runs
on the ``twelveways`` kernelspec (the project's .venv), never on whatever ``python3`` kernel
a user happens to have, so the analysis sees the same package versions as the benchmarks.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import families, quickimport
from ..cliargs import CONFIG_JSON, ENVIRONMENT_JSON
from ..errors import TwelveWaysError
from ..evidence import settings as resolver

KERNEL_NAME = "twelveways"
KERNEL_DISPLAY_NAME = "Python (twelveways)"
KERNEL_FIX = (f'python -m ipykernel install --sys-prefix --name {KERNEL_NAME} '
              f'--display-name "{KERNEL_DISPLAY_NAME}"')

#: The notebook after the families': every check and claim in detail (reads reports/checklist.json).
CHECKLIST_NOTEBOOK = "checklist"


class _NotebookIndex(Mapping):
    """name -> (jupytext source under notebooks/, stage that enables it or None), in report order.

    Read from the family declarations (:mod:`twelveways.families`) at each use, so a family
    registered there is in the report's index without an edit here; the checklist's notebook comes last.
    """

    def _items(self) -> dict[str, tuple[str, str | None]]:
        index = {family.notebook: (family.source, family.stage) for family in families.FAMILIES.values()}
        index[CHECKLIST_NOTEBOOK] = (f"{CHECKLIST_NOTEBOOK}.py", None)
        return index

    def __getitem__(self, name: str) -> tuple[str, str | None]:
        return self._items()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return f"NOTEBOOKS({self._items()!r})"


NOTEBOOKS: Mapping[str, tuple[str, str | None]] = _NotebookIndex()

#: The parameters every notebook's ``parameters`` cell declares (paths, relative to the root or absolute);
#: ``derived_path`` only in the notebooks of a benchmark family (where their derived results go).
PARAMETERS = ("results_dir", "figures_dir", "environment_json", "config_json", "checklist_json", "derived_path")
#: Statistics parameters of the notebooks that use them (None: the run's config decides, see :func:`settings`).
SETTINGS = ("confidence", "ci_target")
#: The stored result set a fresh clone's notebooks read when results/ holds nothing (data/reference/README.md).
REFERENCE = "data/reference"


def needs(name: str) -> tuple[str, str | None]:
    """The file a notebook cannot do without: (path parameter, file in that folder or None: the path itself).

    A benchmark family's notebook needs its main results file; the environment's and the
    checklist's notebooks their JSON input.
    """
    family = families.by_notebook(name)
    if family is not None and family.stage:
        return "results_dir", family.results_file
    return ("checklist_json", None) if name == CHECKLIST_NOTEBOOK else ("environment_json", None)


class NotebookError(TwelveWaysError):
    """A notebook could not be prepared or executed (missing kernel, failing cell, bad path)."""


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The repository root: the first folder at or above ``start`` (default: cwd) holding a Snakefile.

    Notebooks call this so they run the same from the repository root, from ``notebooks/``
    (JupyterLab) or under papermill.  Outside a checkout, falls back to the installed
    package's checkout (editable install).
    """
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "Snakefile").is_file():
            return folder
    fallback = Path(__file__).resolve().parents[3]
    if (fallback / "Snakefile").is_file():
        return fallback
    raise NotebookError(f"no Snakefile found at or above {here}; start the notebook inside the Twelve Ways checkout")


def resolve(path: str | os.PathLike, root: str | os.PathLike | None = None) -> Path:
    """``path`` itself when absolute, else relative to the repository root."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else project_root(root) / path


def check_kernelspec(name: str = KERNEL_NAME) -> Path:
    """The folder of the kernelspec ``name``; a one-line error naming the fix when it is missing."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        return Path(KernelSpecManager().get_kernel_spec(name).resource_dir)
    except NoSuchKernel as exc:
        raise NotebookError(f"Jupyter kernel '{name}' is not installed; fix: {KERNEL_FIX} "
                            "(or run make, which does it)", cause=None) from exc


def to_ipynb(source: str | os.PathLike, destination: str | os.PathLike) -> Path:
    """Convert a jupytext percent ``.py`` notebook to ``.ipynb`` bound to the project kernel."""
    quickimport.jsonschema()  # before jupytext's nbformat imports it with grammars no notebook needs
    import jupytext

    source, destination = Path(source), Path(destination)
    if not source.is_file():
        raise NotebookError(f"notebook source not found: {source}")
    try:
        notebook = jupytext.read(source)
    except Exception as exc:  # jupytext raises several types for a malformed file
        raise NotebookError(f"cannot read notebook {source}", cause=exc) from exc
    notebook.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": KERNEL_DISPLAY_NAME, "language": "python"}
    notebook.metadata.pop("jupytext", None)  # the .ipynb is a build product, not a paired file
    if not any("parameters" in cell.get("metadata", {}).get("tags", []) for cell in notebook.cells):
        raise NotebookError(f"{source} has no cell tagged 'parameters' (papermill needs one)")
    destination.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(notebook, destination, fmt="ipynb")
    return destination


def _plain_parameters() -> None:
    """Papermill writes the injected parameters cell as plain assignments, never through Black.

    Papermill formats that cell with whatever ``black`` is importable; Black 24+ dropped the
    ``FileMode`` papermill calls, so every run printed "Black encountered an error".  The cell
    is a few assignments: unformatted, it reads the same.
    """
    from papermill.translators import PythonTranslator, Translator, papermill_translators

    class PlainPythonTranslator(PythonTranslator):
        @classmethod
        def codify(cls, parameters, comment="Parameters"):
            return Translator.codify.__func__(cls, parameters, comment)

    papermill_translators.register("python", PlainPythonTranslator)


def execute(source: str | os.PathLike, output: str | os.PathLike, parameters: Mapping[str, object] | None = None,
            *, cwd: str | os.PathLike | None = None, timeout_s: int = 600) -> Path:
    """Execute one notebook with papermill into ``output`` (.ipynb); raise NotebookError on a failing cell.

    Path parameters are made absolute first, so the result does not depend on the kernel's
    working directory (by default the notebook's own folder, as in JupyterLab).
    """
    quickimport.jsonschema()  # before papermill's nbformat imports it with grammars no notebook needs
    import papermill
    from papermill.exceptions import PapermillExecutionError

    check_kernelspec()
    _plain_parameters()
    source, output = Path(source).resolve(), Path(output).resolve()
    params = {}
    for key, value in dict(parameters or {}).items():
        params[key] = str(resolve(value)) if key in PARAMETERS and value not in (None, "") else value
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="twelveways-nb-") as tmp:
        prepared = to_ipynb(source, Path(tmp) / f"{source.stem}.ipynb")
        try:
            papermill.execute_notebook(
                str(prepared), str(output), parameters=params, kernel_name=KERNEL_NAME,
                cwd=str(cwd or source.parent), progress_bar=False, log_output=False,
                request_save_on_cell_execute=False, execution_timeout=timeout_s,
                # the kernel's own chatter (a loopback TCP notice, an interrupt at shutdown) is not news in a log
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
        except PapermillExecutionError as exc:
            last = (exc.evalue or exc.ename or "").strip().splitlines()
            detail = f"{exc.ename}: {last[-1] if last else ''}".strip(": ")
            raise NotebookError(f"notebook {source.name} failed in cell {exc.exec_count}: {detail} "
                                f"(executed copy with the traceback: {output})") from exc
        except (RuntimeError, TimeoutError) as exc:
            raise NotebookError(f"notebook {source.name} could not run", cause=exc) from exc
    return output


def derived_file(name: str) -> str | None:
    """``derived/<family>.nc`` written by a family's notebook (family = its stage); None for the others."""
    family = families.by_notebook(name)
    return family.derived_file if family is not None else None


def notebook_source(name: str, root: str | os.PathLike | None = None) -> Path:
    """``notebooks/<file>.py`` of a notebook named in :data:`NOTEBOOKS`."""
    if name not in NOTEBOOKS:
        raise NotebookError(f"unknown notebook {name!r} (known: {', '.join(NOTEBOOKS)})")
    return project_root(root) / "notebooks" / NOTEBOOKS[name][0]


def workflow_paths(name: str) -> dict[str, str]:
    """The paths a notebook reads and writes in the workflow (relative to the root): its parameters' defaults."""
    params = {"results_dir": "results", "figures_dir": f"results/figures/{name}",
              "environment_json": ENVIRONMENT_JSON, "config_json": CONFIG_JSON,
              "checklist_json": "reports/checklist.json", "derived_path": ""}
    if derived_file(name):
        params["derived_path"] = f"results/{derived_file(name)}"
    return params


def reader_paths(name: str, reference: str = REFERENCE) -> dict[str, str]:
    """Where a notebook reads the stored result set and writes its outputs, as ``make reader-report`` does."""
    params = {"results_dir": f"{reference}/results", "figures_dir": f"reports/figures/{name}",
              "environment_json": f"{reference}/environment.json", "config_json": f"{reference}/config.json",
              "checklist_json": f"{reference}/checklist.json", "derived_path": ""}
    if derived_file(name):
        params["derived_path"] = f"reports/{derived_file(name)}"
    return params


@dataclass(frozen=True)
class Inputs:
    """The paths a notebook uses after the fresh-clone fallback, and the sentence saying which set it reads."""

    results_dir: str
    figures_dir: str
    environment_json: str
    config_json: str
    checklist_json: str
    derived_path: str
    note: str

    def paths(self) -> tuple[str, str, str, str, str, str]:
        """The six path parameters in the order of every notebook's parameters cell."""
        return (self.results_dir, self.figures_dir, self.environment_json, self.config_json,
                self.checklist_json, self.derived_path)


def _needed_file(name: str, params: Mapping[str, str], root) -> Path:
    key, filename = needs(name)
    path = resolve(params[key], root)
    return path / filename if filename else path


def inputs(name: str, results_dir: str, figures_dir: str, environment_json: str, config_json: str,
           checklist_json: str, derived_path: str = "", *, root: str | os.PathLike | None = None) -> Inputs:
    """The notebook's paths; the stored reference set when the workflow's results are absent.

    Only the workflow's default paths fall back (a fresh clone opened in JupyterLab): paths a caller
    set (papermill, the workflow, ``rebuild``) are used as given, so a run never reads the reference
    set by accident.  The note says which set the notebook reads.
    """
    given = {"results_dir": results_dir, "figures_dir": figures_dir, "environment_json": environment_json,
             "config_json": config_json, "checklist_json": checklist_json, "derived_path": derived_path or ""}
    defaults = workflow_paths(name)
    needed = _needed_file(name, given, root)
    at_defaults = all(str(given[key]) == defaults[key] for key in ("results_dir", "environment_json", "config_json"))
    fallback = reader_paths(name)
    if needed.exists() or not at_defaults or not _needed_file(name, fallback, root).exists():
        return Inputs(**given, note="")  # as given: a missing file fails in the cell that reads it, naming it
    if not given["derived_path"]:
        fallback["derived_path"] = ""
    note = (f"{os.path.relpath(needed, project_root(root))} is absent (no workflow run here, e.g. a fresh clone): "
            f"this notebook reads the stored reference "
            f"set {REFERENCE}/ ({reference_origin(root)}) and writes its figures and derived results under "
            "reports/, as `make reader-report` does.")
    return Inputs(**fallback, note=note)


def reference_origin(root: str | os.PathLike | None = None, reference: str = REFERENCE) -> str:
    """One phrase naming the commit and versions the reference set was made with (its manifest.json)."""
    manifest = resolve(reference, root) / "manifest.json"
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return "no manifest.json: origin unknown"
    return (f"made at commit {str(data.get('git_commit') or '?')[:12]}, results schema "
            f"{data.get('schema_version')}, analysis version {data.get('analysis_version')}")


@dataclass(frozen=True)
class Settings:
    """Statistics settings of one notebook run and where each came from."""

    confidence: float
    ci_target: float
    origin: Mapping[str, str]

    def sentence(self) -> str:
        """What the notebook states at its top: the confidence and CI target in force, and their origin."""
        return (f"Confidence of every interval: {percent(self.confidence)} ({self.origin['confidence']}); "
                f"CI target: ±{percent(self.ci_target)} of the estimate ({self.origin['ci_target']}).")


def percent(fraction: float) -> str:
    """0.95 -> '95%', 0.975 -> '97.5%' (never rounded to a level the run did not use)."""
    return f"{100 * float(fraction):.6g}%"


def settings(config_json: str | os.PathLike | None, confidence=None, ci_target=None) -> Settings:
    """``confidence`` and ``ci_target``: the notebook's parameter when set (papermill ``-p``), else the run's
    config (``measurement.*``), else the config schema's default (``twelveways.evidence.settings``).  Set but
    unusable (out of the schema's bounds, not a number): NotebookError naming where it was set."""
    measurement = {}
    path = resolve(config_json) if config_json else None
    if path is not None and path.is_file():
        try:
            measurement = dict(json.loads(path.read_text()).get("measurement") or {})
        except (OSError, ValueError, AttributeError) as exc:
            raise NotebookError(f"config dump unreadable: {path}", cause=exc) from exc
    found = {key: resolver.resolve(key, {resolver.NOTEBOOK_PARAMETER: given, resolver.RUN_CONFIG: measurement.get(key)},
                                   error=NotebookError)
             for key, given in (("confidence", confidence), ("ci_target", ci_target))}
    return Settings(found["confidence"].value, found["ci_target"].value,
                    {key: setting.origin for key, setting in found.items()})
