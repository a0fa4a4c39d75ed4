"""Run the analysis notebooks: jupytext ``.py`` (what git holds) -> ``.ipynb`` -> papermill.

The notebooks live in ``notebooks/`` as jupytext percent-format files so that diffs stay
readable; papermill needs an ``.ipynb``, so each run converts first.  Every notebook runs
on the ``twelveways`` kernelspec (the project's .venv), never on whatever ``python3`` kernel
a user happens to have, so the analysis sees the same package versions as the benchmarks.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..errors import TwelveWaysError

KERNEL_NAME = "twelveways"
KERNEL_DISPLAY_NAME = "Python (twelveways)"
KERNEL_FIX = (f'python -m ipykernel install --sys-prefix --name {KERNEL_NAME} '
              f'--display-name "{KERNEL_DISPLAY_NAME}"')

#: Report order of the notebooks: name -> (jupytext source under notebooks/, stage that enables it or None).
NOTEBOOKS: dict[str, tuple[str, str | None]] = {
    "environment": ("environment.py", None),
    "prk": ("prk.py", "prk"),
    "train": ("train.py", "train"),
    "inference": ("inference.py", "infer"),
    "checklist": ("checklist.py", None),
}

#: The parameters every notebook's ``parameters`` cell declares (paths, relative to the root or absolute);
#: ``derived_path`` only in the notebooks of a benchmark family (where their derived results go).
PARAMETERS = ("results_dir", "figures_dir", "environment_json", "config_json", "checklist_json", "derived_path")


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


def execute(source: str | os.PathLike, output: str | os.PathLike, parameters: Mapping[str, object] | None = None,
            *, cwd: str | os.PathLike | None = None, timeout_s: int = 600) -> Path:
    """Execute one notebook with papermill into ``output`` (.ipynb); raise NotebookError on a failing cell.

    Path parameters are made absolute first, so the result does not depend on the kernel's
    working directory (by default the notebook's own folder, as in JupyterLab).
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    check_kernelspec()
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
    stage = NOTEBOOKS.get(name, (None, None))[1]
    return f"derived/{stage}.nc" if stage else None


def notebook_source(name: str, root: str | os.PathLike | None = None) -> Path:
    """``notebooks/<file>.py`` of a notebook named in :data:`NOTEBOOKS`."""
    if name not in NOTEBOOKS:
        raise NotebookError(f"unknown notebook {name!r} (known: {', '.join(NOTEBOOKS)})")
    return project_root(root) / "notebooks" / NOTEBOOKS[name][0]
