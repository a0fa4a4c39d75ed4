"""Reading and writing captures (atomically), and reading the config a capture describes."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..cliargs import ENVIRONMENT_JSON
from ..errors import ConfigError, ResultsError
from .capture_model import FORMAT, from_dict
DEFAULT_OUTPUT = ENVIRONMENT_JSON


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_atomically(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` via a temporary file in the same folder, then ``os.replace``."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise ResultsError(f"cannot write {path}", cause=exc) from exc
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the usual permissions
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ResultsError(f"cannot write {path}", cause=exc) from exc
        raise
    return path


def to_json(capture: Mapping) -> str:
    """The capture as stored and printed: indented, keys sorted, one trailing newline."""
    return json.dumps(capture, indent=2, sort_keys=True, default=str) + "\n"


def write(capture: Mapping, path: str | os.PathLike = DEFAULT_OUTPUT) -> Path:
    """Write atomically (temporary file in the same folder, then ``os.replace``)."""
    return write_text_atomically(path, to_json(capture))


def read(path: str | os.PathLike) -> dict:
    """Read a capture written by :func:`write`, its fields checked (:func:`.capture_model.from_dict`)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ResultsError(f"cannot read environment capture {path}", cause=exc) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or "hash" not in data:
        raise ResultsError(f"{path} is not a twelveways environment capture ({FORMAT})")
    return from_dict(data, str(path)).to_dict()


def load_config(path: str) -> dict:
    """The validated config from results/config.json (already validated) or a YAML file."""
    if path.endswith((".yaml", ".yml")):
        from ..config import load

        return load(path)
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read config {path}", cause=exc) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
    return data
