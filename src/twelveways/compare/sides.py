"""One side of a comparison: results files or a results folder, with what was recorded beside them.

Why: a committee compares "their run" with "our run", each a folder as the workflow or a reader
left it.  A side gathers the samples (any format ``twelveways audit`` reads), the environment
capture and the measured noise floor, so the comparison never has to guess where they are.

A folder in the workflow's layout (``results/`` or a stored set such as ``data/reference`` with
``results/*.nc``) contributes its top-level ``*.nc`` only: the LoadGen logs, MLPerf logs and
placebo runs beside them are already in those files, or are another measurement.  Any other
folder is read as a tree of foreign results.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import resultset
from ..env.capture_model import Description, description_of
from ..env.capture_model import load as load_capture
from ..errors import AuditInputError
from ..evidence.attributes import Contention
from ..readers.sw_fields import common_items
from .noise_record import AARecord, OldFloorRecord, load_record
from .table import source_family

ENVIRONMENT_NAMES = ("environment.json",)
NOISE_FLOOR_NAME = "noise_floor.json"


@dataclass
class Side:
    """The samples of one side and the facts recorded with them."""

    label: str
    inputs: list[str]
    data: resultset.ResultSet
    environment: Description | None = None
    environment_path: str | None = None
    noise_floor: AARecord | OldFloorRecord | None = None
    noise_floor_path: str | None = None
    folders: list[Path] = field(default_factory=list)


def _result_folder(folder: Path) -> Path:
    """``DIR/results`` for a stored set (data/reference), else the folder itself."""
    return folder / "results" if (folder / "results").is_dir() else folder


def expand(spec: Sequence[str]) -> tuple[list[str], list[Path]]:
    """(result paths to read, folders to look in for the environment and noise floor)."""
    paths, folders = [], []
    for raw in spec:
        path = Path(raw)
        if not path.exists():
            raise AuditInputError(f"results not found: {path}")
        if path.is_dir():
            inner = _result_folder(path)
            own = sorted(inner.glob("*.nc"))
            paths.extend(str(p) for p in own) if own else paths.append(str(path))
            folders.extend([path, inner] if inner != path else [path])
        else:
            paths.append(str(path))
            folders.append(path.parent)
    return paths, folders


def _first_file(folders: Sequence[Path], name: str) -> Path | None:
    return next((folder / name for folder in folders if (folder / name).is_file()), None)


def read_beside(spec: Sequence[str], names: Sequence[str] = (*ENVIRONMENT_NAMES, NOISE_FLOOR_NAME)) -> list[Path]:
    """The environment captures and noise floors (``names``) a side reads beside its results files (:func:`load`):
    inputs too, so an output must not replace them (a folder given as a side is an input folder as a whole)."""
    folders = {Path(raw).parent for raw in spec if raw and not Path(raw).is_dir()}
    return [folder / name for folder in sorted(folders) for name in names if (folder / name).is_file()]


def load(spec: Sequence[str], label: str, *, environment: str | None = None) -> Side:
    """Read one side: its samples, its environment capture (given, or ``environment.json`` in its
    folder) and its measured noise floor (``noise_floor.json`` in its folder), when present."""
    if not spec:
        raise AuditInputError(f"{label}: no results given")
    paths, folders = expand(spec)
    data = resultset.load(paths)
    env_path = Path(environment) if environment else _first_file(folders, ENVIRONMENT_NAMES[0])
    side = Side(label, paths, data, folders=folders)
    if env_path is not None:
        side.environment = load_capture(env_path, f"{label} environment capture", AuditInputError)
        side.environment_path = str(env_path)
    else:
        side.environment, side.environment_path = stated_environment(data)
    floor_path = _first_file(folders, NOISE_FLOOR_NAME)
    if floor_path is not None:
        side.noise_floor, side.noise_floor_path = load_record(floor_path, label), str(floor_path)
    return side


def stated_environment(data: resultset.ResultSet) -> tuple[Description | None, str | None]:
    """The environment the results files themselves state (asv's machine.json and params, LoadGen's detail log,
    pyperf metadata, JMH's JVM, Google Benchmark's context, pytest-benchmark's machine_info: attr
    ``environment`` as each reader keeps it), and where it came from; (None, None) when no file states one.

    Facts the side's files disagree on are left out: the side's own files differ there, so no single value
    describes the side."""
    stated = [(source, source.attributes.environment) for source in data.raw_sources]
    stated = [(source, env) for source, env in stated if env]
    if not stated:
        return None, None
    formats = sorted({str(source.attributes.source_format or source_family(source)) for source, _ in stated})
    shared = common_items([env for _, env in stated])
    if not shared:
        return None, None
    where = f"stated in the results files ({', '.join(formats)}: {len(stated)} file(s))"
    return description_of(shared, where, AuditInputError), where


def contention_records(side: Side, family: str | None = None) -> list[Contention]:
    """The machine-load records (attr ``contention``) of a side's files (of one results ``family`` when given);
    empty where none was recorded."""
    found = [source.attributes.contention for source in side.data.raw_sources
             if family is None or source_family(source) == family]
    return [record for record in found if record is not None]


def load_lines(side: Side) -> list[str]:
    """Each recorded stage's load in words, or that the load is unknown."""
    from .. import contention

    return [contention.describe(record) for record in contention_records(side)] or [contention.UNKNOWN]


def busy_causes(side: Side, family: str | None = None) -> list[str]:
    """"<side>: load 4.9 on 2 cores during the PRK stage: rerun on an idle machine" per busy stage (of one results
    ``family`` when given)."""
    from .. import contention

    reasons = (contention.busy_reason(record) for record in contention_records(side, family))
    return [f"busy machine on the {side.label} side: {reason}" for reason in reasons if reason]


def describe(side: Side) -> str:
    """One line naming a side's inputs for the report (at most three names, then a count)."""
    names = [Path(p).name if Path(p).parent.name in ("results", "") else str(p) for p in side.inputs]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    folder = f" in {side.folders[0]}" if side.folders else ""
    return f"{side.label}: {shown}{folder}"


def dumps(value) -> str:
    """Stable JSON text (for the noise floor file and the comparison's JSON output)."""
    return json.dumps(value, indent=2, sort_keys=True, allow_nan=False) + "\n"
