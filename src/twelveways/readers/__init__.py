"""Read results as people publish them, into the results schema (docs/formats.md).

:func:`read_paths` takes files and directory trees, recognizes each file by its content (the
registry of formats, :mod:`.registry`: every reader module declares its format once) and hands it
to its reader, or, for results that span a folder (criterion, LoadGen, MLPerf Training), the
folder's files to its group's reader.  The error policy is applied here, once, for every reader:

* a file named on the command line that cannot be used: :class:`~twelveways.errors.AuditInputError`
  of one line naming the file (the CLI prints ``error: <file>: <problem>`` and exits 2);
* the same file inside a tree: skipped and listed (:class:`Skipped`, ``unreadable``), the rest read;
* a file of no format read (notes, a README) inside a tree: passed over and listed.
"""

from __future__ import annotations

import csv
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from .. import inputs
from ..errors import AuditInputError, TwelveWaysError
from . import registry
from .common import Loaded, ReaderError
from .head import Head
from .walk import Skipped, looks_like, walk

__all__ = ["Loaded", "ReaderError", "ReadOptions", "Skipped", "read_paths", "formats_read"]

#: What a reader may raise on input it did not foresee: still one line about that file, never a traceback.
#: MemoryError too: a read that asks for more memory than the process may have is refused with its file named
#: (the allocation that failed is given back), not a traceback.
#: OSError, EOFError, zlib's, csv's and YAML's errors: a reader that opens, decompresses or parses a file
#: (or a companion) by itself and meets a damaged one.
READER_FAULTS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, ZeroDivisionError,
                 RecursionError, UnicodeError, LookupError, ArithmeticError, MemoryError, OSError, EOFError,
                 zlib.error, csv.Error, yaml.YAMLError)

#: Longest error line about one file (characters): what a terminal and a report's table can show.
MAX_PROBLEM = 1000


@dataclass(frozen=True)
class ReadOptions:
    """What CSV reading takes besides the file (the other readers need nothing)."""

    csv_metadata: str | Path | None = None
    mapping: dict | None = None
    constants: dict | None = None


def formats_read() -> str:
    return registry.formats_read()


def recognize(path: Path, explicit: bool) -> registry.Format | None:
    """The file's format; a file named on the command line that no reader knows is one error line."""
    fmt = registry.recognize(Head.of(path))
    if fmt is None and explicit:
        folder = _folder_format(path)
        if folder is not None:
            raise AuditInputError(f"{path}: not results on its own: it looks like {looks_like(path)}, beside "
                                  f"files of {folder.title} that are read together: name the folder {path.parent}")
        raise AuditInputError(f"{path}: not a format twelveways reads: it looks like {looks_like(path)} "
                              f"(formats read: {formats_read()})")
    return fmt


def _folder_format(path: Path) -> registry.Format | None:
    """The folder format of ``path``'s neighbours (criterion's tukey.json beside its sample.json, a LoadGen
    accuracy run's accuracy.txt beside its detail log), so the refusal can say what to name instead."""
    for sibling in sorted(p for p in path.parent.iterdir() if p.is_file() and p != path):
        try:
            fmt = registry.recognize(Head.of(sibling))
        except ReaderError:
            continue
        if fmt is not None and fmt.group is not None:
            return fmt
    return None


def read_paths(paths, *, csv_metadata=None, mapping: dict | None = None, constants: dict | None = None,
               skipped: list | None = None, convert: Callable | None = None) -> list:
    """Every result in ``paths`` (files or directory trees) as schema Datasets (:class:`Loaded`), in input order.

    ``skipped`` collects :class:`Skipped` entries (files of the trees passed over, and why).
    ``convert`` (a module-level function of one :class:`Loaded`) is applied to each result where it
    was read, in the reader workers too, so what comes back is what the caller keeps."""
    skipped = [] if skipped is None else skipped
    options = ReadOptions(csv_metadata, mapping, constants)
    singles, groups = _sort_files(paths, skipped)
    from .parallel import read_each

    jobs = [(str(file), fmt_name, explicit, options, convert) for file, fmt_name, explicit in singles]
    jobs += [(folder, group_name, explicit, files, convert) for (group_name, folder), (files, explicit) in groups.items()]
    loaded = []
    for outcome in read_each(_read_job, jobs):
        if isinstance(outcome, Skipped):
            skipped.append(outcome)
        else:
            loaded.extend(outcome)
    if not loaded and not any(s.unreadable for s in skipped):
        raise AuditInputError(f"{', '.join(map(str, paths))[:300]}: no results in a format twelveways reads "
                              f"(formats read: {formats_read()})")
    if not loaded:
        unreadable = [s for s in skipped if s.unreadable]
        raise AuditInputError(f"no results could be read: {unreadable[0].path}: {unreadable[0].why}"
                              + (f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""))
    return loaded


def _sort_files(paths, skipped: list) -> tuple[list, dict]:
    """Single files (path, format, named on the command line?) and folder groups {(group, folder): ({format: files},
    named?)}, in input order; files no reader knows in a tree are listed in ``skipped``."""
    singles: list = []
    groups: dict = {}
    for raw in paths:
        path = Path(raw)
        explicit = not path.is_dir()
        if explicit:
            inputs.require_regular_file(path, "results file", AuditInputError)
        for file in walk(path, skipped):
            try:
                fmt = recognize(file, explicit)
            except ReaderError as exc:  # a file whose head cannot be read
                if explicit:
                    raise
                skipped.append(Skipped(file, exc.one_line().removeprefix(f"{file}: "), True))
                continue
            if fmt is None:
                skipped.append(Skipped(file, f"not a format twelveways reads ({looks_like(file)})"))
            elif fmt.companion:
                _companion(fmt, file, explicit)
            elif fmt.group is not None:
                _add_to_group(groups, fmt, file, explicit)
            else:
                singles.append((file, fmt.name, explicit))
    return singles, groups


def _add_to_group(groups: dict, fmt: registry.Format, file: Path, explicit: bool) -> None:
    """File joins its folder's group; a file named alone brings the group's other files of its folder with it
    (criterion's ``benchmark.json`` named alone is read with the ``sample.json`` beside it, as the folder would be)."""
    key = (fmt.group.name, str(file.parent))
    files, named = groups.setdefault(key, (defaultdict(list), False))
    if str(file) not in files[fmt.name]:
        files[fmt.name].append(str(file))
    groups[key] = (files, named or explicit)
    if not explicit:
        return
    for sibling in sorted(p for p in file.parent.iterdir() if p.is_file() and p != file):
        try:
            other = recognize(sibling, False)
        except ReaderError:
            continue
        if other is not None and other.group is not None and other.group.name == fmt.group.name \
                and str(sibling) not in files[other.name]:
            files[other.name].append(str(sibling))


def _companion(fmt: registry.Format, file: Path, explicit: bool) -> None:
    if explicit:
        raise AuditInputError(f"{file}: {fmt.title}, not results: {fmt.companion}")


def _read_job(target: str, name: str, explicit: bool, extra, convert) -> list | Skipped:
    """One file (or one folder group) read under the error policy: a problem in a tree becomes a :class:`Skipped`."""
    try:
        items = _read(target, name, extra)
        return [convert(item) for item in items] if convert else items
    except TwelveWaysError as exc:
        problem = exc.one_line()
    except MemoryError:
        problem = f"{target}: {name} needs more memory than this process may use to read it (damaged, or too large?)"
    except READER_FAULTS as exc:
        problem = f"{target}: {name} could not be read ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
    if target not in problem:  # every line names its file, whatever the reader's message said
        problem = f"{target}: {problem}"
    if len(problem) > MAX_PROBLEM:  # a value quoted whole (a 1 MB line) must not become a 1 MB error line
        problem = problem[:MAX_PROBLEM - 1] + "…"
    if explicit:
        raise AuditInputError(problem)
    return Skipped(Path(target), problem.removeprefix(f"{target}: "), True)


def _read(target: str, name: str, extra) -> list:
    group = next((f.group for f in registry.formats() if f.group is not None and f.group.name == name), None)
    if group is not None:
        return group.read({fmt: sorted(Path(f) for f in files) for fmt, files in extra.items()})
    fmt = registry.by_name(name)
    return fmt.read(Path(target), extra) if fmt.takes_options else fmt.read(Path(target))
