"""Read results as people publish them, into the results schema (docs/formats.md).

:func:`read_paths` takes files and directory trees, recognizes each file by its content
(:mod:`.detect`) and hands it to its reader: twelveways NetCDF (:func:`twelveways.results.open`),
MLPerf Training logs (:mod:`.mlperf_training`), MLPerf Inference LoadGen logs (:mod:`.loadgen`),
pyperf JSON (:mod:`.pyperf_json`), Google Benchmark JSON (:mod:`.gbench`), hyperfine JSON
(:mod:`.hyperfine`) and CSV (``twelveways.checklist.importcsv``, with an optional column map).
Every problem is an :class:`~twelveways.errors.AuditInputError` of one line naming the file.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .. import results
from ..errors import AuditInputError, ResultsError
from . import detect
from .common import Loaded, ReaderError

__all__ = ["Loaded", "ReaderError", "read_paths", "FORMATS_READ"]
FORMATS_READ = detect.FORMATS_READ
LOADGEN_NAMES = {detect.LOADGEN_SUMMARY: "mlperf_log_summary.txt", detect.LOADGEN_DETAIL: "mlperf_log_detail.txt",
                 detect.LOADGEN_ACCURACY: "mlperf_log_accuracy.json"}


def _classify(path: Path, explicit: bool) -> str | None:
    fmt = detect.sniff(path)
    if fmt is None and explicit:
        raise AuditInputError(f"{path}: not a format twelveways reads: it looks like {detect.looks_like(path)} "
                              f"(formats read: {FORMATS_READ})")
    return fmt


def read_paths(paths, *, csv_metadata=None, mapping: dict | None = None, constants: dict | None = None) -> list[Loaded]:
    """Every result in ``paths`` (files or directory trees) as schema Datasets, in input order."""
    singles: list[tuple[Path, str]] = []
    training: dict[Path, list[Path]] = defaultdict(list)
    loadgen: dict[Path, dict[str, Path]] = defaultdict(dict)
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise AuditInputError(f"results file not found: {path}")
        found = 0
        for file in detect.walk(path):
            fmt = _classify(file, explicit=not path.is_dir())
            found += fmt is not None
            if fmt == detect.TRAINING:
                training[file.parent].append(file)
            elif fmt in LOADGEN_NAMES:
                _add_loadgen(loadgen[file.parent], LOADGEN_NAMES[fmt], file)
            elif fmt is not None:
                singles.append((file, fmt))
        if not found:
            raise AuditInputError(f"{path}: no results in a format twelveways reads (formats read: {FORMATS_READ})")
    from .parallel import read_each

    jobs = [(file, fmt, csv_metadata, mapping, constants) for file, fmt in singles]
    loaded = [item for items in read_each(_read_single, jobs) for item in items]
    from . import loadgen as loadgen_reader
    from . import mlperf_training

    for folder in training:
        loaded.extend(mlperf_training.read(sorted(training[folder])))
    for folder in loadgen:
        loaded.extend(loadgen_reader.read(loadgen[folder]))
    return loaded


def _add_loadgen(group: dict, name: str, file: Path) -> None:
    if name in group:
        raise ReaderError(file, f"a second LoadGen {name} in {file.parent} (one run per directory; "
                                f"the first is {group[name].name})")
    group[name] = file


def _read_single(file: Path, fmt: str, csv_metadata, mapping, constants) -> list[Loaded]:
    if fmt == detect.NETCDF:
        try:
            return [Loaded(str(file), fmt, results.open(file))]
        except ResultsError as exc:
            raise AuditInputError(exc.one_line()) from exc
    if fmt == detect.CSV:
        from ..checklist import importcsv

        return [Loaded(str(file), fmt, importcsv.read_csv(file, csv_metadata, mapping, constants))]
    from . import gbench, hyperfine, pyperf_json

    reader = {detect.PYPERF: pyperf_json, detect.GBENCH: gbench, detect.HYPERFINE: hyperfine}[fmt]
    return reader.read(file)
