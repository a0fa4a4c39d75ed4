"""Read results as people publish them, into the results schema (docs/formats.md).

:func:`read_paths` takes files and directory trees, recognizes each file by its content
(:mod:`.detect`) and hands it to its reader: twelveways NetCDF (:func:`twelveways.results.open`),
MLPerf Training logs (:mod:`.mlperf_training`), MLPerf Inference LoadGen logs (:mod:`.loadgen`),
pyperf JSON (:mod:`.pyperf_json`), Google Benchmark JSON (:mod:`.gbench`), hyperfine JSON
(:mod:`.hyperfine`), the HPC benchmarks' outputs (OSU, HPL, HPCG, STREAM, IOR: :mod:`.sniff_hpc`)
and CSV (``twelveways.checklist.importcsv``, with an optional column map).
Every problem is an :class:`~twelveways.errors.AuditInputError` of one line naming the file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from .. import inputs, results
from ..errors import AuditInputError, ResultsError
from . import detect, sniff_sw
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


def read_paths(paths, *, csv_metadata=None, mapping: dict | None = None, constants: dict | None = None,
               skipped: list | None = None, convert: Callable | None = None) -> list:
    """Every result in ``paths`` (files or directory trees) as schema Datasets (:class:`Loaded`), in input order.

    A file given by name must be in a known format; in a tree, files of no known format (notes, a
    report) and FIFOs, sockets or devices are passed over and added to ``skipped`` as (path, why).
    ``convert`` (a module-level function of one :class:`Loaded`) is applied to each result where it
    was read, in the reader workers too, so what comes back is what the caller keeps."""
    singles: list[tuple[Path, str]] = []
    training: dict[Path, list[Path]] = defaultdict(list)
    loadgen: dict[Path, dict[str, Path]] = defaultdict(dict)
    skipped = [] if skipped is None else skipped
    criterion: dict[Path, list[Path]] = defaultdict(list)
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            inputs.require_regular_file(path, "results file", AuditInputError)
        found = 0
        for file in detect.walk(path, skipped):
            fmt = _classify(file, explicit=not path.is_dir())
            if fmt in sniff_sw.COMPANIONS:  # e.g. asv's machine.json: read with the results beside it
                _companion(file, explicit=not path.is_dir())
                continue
            found += fmt is not None
            if fmt is None:
                skipped.append((file, f"not a format twelveways reads ({detect.looks_like(file)})"))
            elif fmt in sniff_sw.CRITERION:
                criterion[file.parent].append(file)
            elif fmt == detect.TRAINING:
                training[file.parent].append(file)
            elif fmt in LOADGEN_NAMES:
                _add_loadgen(loadgen[file.parent], LOADGEN_NAMES[fmt], file)
            elif fmt is not None:
                singles.append((file, fmt))
        if not found:
            raise AuditInputError(f"{path}: no results in a format twelveways reads (formats read: {FORMATS_READ})")
    from .parallel import read_each

    jobs = [(file, fmt, csv_metadata, mapping, constants, convert) for file, fmt in singles]
    loaded = [item for items in read_each(_read_single, jobs) for item in items]
    grouped: list[Loaded] = []
    from . import loadgen as loadgen_reader
    from . import mlperf_training

    for folder in training:
        grouped.extend(mlperf_training.read(sorted(training[folder])))
    for folder in loadgen:
        grouped.extend(loadgen_reader.read(loadgen[folder]))
    if criterion:
        from . import criterion as criterion_reader

        grouped.extend(item for folder in criterion for item in criterion_reader.read(folder, criterion[folder]))
    return loaded + ([convert(item) for item in grouped] if convert else grouped)


def _companion(file: Path, explicit: bool) -> None:
    if explicit:
        raise AuditInputError(f"{file}: asv's machine description, not results: name the results files beside it "
                              f"(results/<machine>/<commit>-<env>.json), which are read with it")
    return None


def _add_loadgen(group: dict, name: str, file: Path) -> None:
    if name in group:
        raise ReaderError(file, f"a second LoadGen {name} in {file.parent} (one run per directory; "
                                f"the first is {group[name].name})")
    group[name] = file


def _read_single(file: Path, fmt: str, csv_metadata, mapping, constants, convert=None) -> list:
    items = _read_format(file, fmt, csv_metadata, mapping, constants)
    return [convert(item) for item in items] if convert else items


def _read_format(file: Path, fmt: str, csv_metadata, mapping, constants) -> list[Loaded]:
    if fmt == detect.NETCDF:
        try:
            return [Loaded(str(file), fmt, results.open(file))]
        except ResultsError as exc:
            raise AuditInputError(exc.one_line()) from exc
    if fmt == detect.CSV:
        from ..checklist import importcsv

        return [Loaded(str(file), fmt, importcsv.read_csv(file, csv_metadata, mapping, constants))]
    if fmt in sniff_sw.READERS:
        import importlib

        return importlib.import_module(f".{sniff_sw.READERS[fmt]}", __name__).read(file)
    from . import gbench, hyperfine, pyperf_json, sniff_hpc

    if fmt in sniff_hpc.READERS:
        return sniff_hpc.read(file, fmt)

    reader = {detect.PYPERF: pyperf_json, detect.GBENCH: gbench, detect.HYPERFINE: hyperfine}[fmt]
    return reader.read(file)
