"""twelveways' own results files (NetCDF4/HDF5, the results schema): read by :func:`twelveways.results.open`."""

from __future__ import annotations

from pathlib import Path

from .. import results
from ..errors import AuditInputError, ResultsError
from .common import Loaded
from .head import Head
from .registry import CERTAIN, Format

FORMAT = "twelveways-netcdf"


def _recognize(head: Head) -> int:
    return CERTAIN if head.raw.startswith(b"\x89HDF") or head.raw.startswith(b"CDF") else 0


def read(path: Path) -> list:
    try:
        return [Loaded(str(path), FORMAT, results.open(path))]
    except ResultsError as exc:
        raise AuditInputError(exc.one_line()) from exc


READER = Format(name=FORMAT, title="twelveways NetCDF results", reads="results schema versions this package opens",
                recognize=_recognize, read=read)
