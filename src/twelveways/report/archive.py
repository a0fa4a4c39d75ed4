"""``make archive``: one dated tarball of code, results and reports, with SHA-256 checksums.

What a DOI service (Zenodo, figshare) takes as an artifact: the code exactly as git tracks it
(``git ls-files``: no virtual environment, no caches; CITATION.cff and .zenodo.json among it), the
outputs of ONE run -- the run that rendered ``reports/report.html`` -- and a ``SHA256SUMS`` file
inside (``sha256sum -c`` format) so a reader can check every file after download; the tarball's
own checksum is written beside it.

Which run: the report names it (``<meta name="twelveways-run">``).  A workflow run's outputs are
``results/``, ``logs/`` (``logs/bench/*.tsv``: the runtimes the appendix quotes) and the files of
``reports/``, without the folders a reader's rebuild writes there (``derived/``, ``figures/``,
``notebooks/``), which belong to another run.  A rebuild's outputs are all of ``reports/``; its
inputs (data/reference) are tracked code, and a workflow's ``results/`` and ``logs/`` left on disk
are another run's.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import tarfile
from datetime import date as Date
from pathlib import Path

from ..errors import ResultsError
from . import notebooks as nb

#: Folders of a workflow run's outputs (absent ones are skipped) and what a rebuild writes into reports/.
WORKFLOW_FOLDERS = ("results", "logs", "reports")
REBUILD_FOLDERS = ("reports/derived", "reports/figures", "reports/notebooks")
#: Never run outputs: the browser test's screenshots.
NOT_OUTPUTS = ("reports/screenshot",)
CHECKSUMS = "SHA256SUMS"


def tracked_files(root: Path) -> list[str]:
    """The files git tracks (``git ls-files``), those present on disk, as POSIX paths."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise ResultsError(f"cannot list the code: {root} is not a git checkout (git ls-files failed)", cause=exc) from exc
    names = [name for name in listed.decode().split("\0") if name]
    return [name for name in names if (root / name).is_file() and not (root / name).is_symlink()]


def made_by(root: Path) -> str:
    """Which run rendered ``reports/report.html``: ``workflow`` or ``rebuild`` (its ``<meta>``); workflow when unsaid."""
    from .render import RUN_META

    try:
        head = (root / "reports" / "report.html").read_text(errors="replace")[:4000]
    except OSError:
        return "workflow"
    found = re.search(rf"<meta name=['\"]{RUN_META}['\"] content=['\"]([^'\"]+)", head)
    return found.group(1) if found else "workflow"


def run_files(root: Path, kind: str | None = None) -> list[str]:
    """Every regular file of the run that rendered the report (:func:`made_by`), as POSIX paths."""
    kind = kind or made_by(root)
    folders = ("reports",) if kind == "rebuild" else WORKFLOW_FOLDERS
    found = []
    for folder in folders:
        base = root / folder
        if base.is_dir():
            found += [p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file() and not p.is_symlink()]
    other_run = REBUILD_FOLDERS if kind != "rebuild" else ()
    return [name for name in found if not name.startswith(tuple(f"{f}/" for f in other_run))
            and not name.startswith(NOT_OUTPUTS)]


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def _add(tar: tarfile.TarFile, name: str, data: bytes | None = None, path: Path | None = None) -> None:
    """One member, owned by nobody in particular (uid/gid 0, no user names), readable by all."""
    info = tar.gettarinfo(str(path), arcname=name) if path is not None else tarfile.TarInfo(name)
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if path is not None and os.access(path, os.X_OK) else 0o644
    if data is not None:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    else:
        with open(path, "rb") as handle:
            tar.addfile(info, handle)


def archive(output_dir: str | os.PathLike = "dist", root: str | os.PathLike | None = None,
            day: Date | None = None) -> Path:
    """Write ``<output_dir>/twelveways-<YYYY-MM-DD>.tar.gz`` (+ ``.sha256``) and return its path.

    Members sit under ``twelveways-<date>/``; ``SHA256SUMS`` lists every other member.
    """
    root = Path(root).resolve() if root else nb.project_root()
    output_dir = nb.resolve(output_dir, root)
    stem = f"twelveways-{(day or Date.today()).isoformat()}"
    names = sorted(set(tracked_files(root)) | set(run_files(root)))
    names = [n for n in names if not (root / n).resolve().is_relative_to(output_dir.resolve())]
    sums = "".join(f"{sha256(root / name)}  {name}\n" for name in names).encode()
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / f"{stem}.tar.gz"
    partial = target.with_name(f".{target.name}.partial")
    try:
        with tarfile.open(partial, "w:gz") as tar:
            _add(tar, f"{stem}/{CHECKSUMS}", data=sums)
            for name in names:
                _add(tar, f"{stem}/{name}", path=root / name)
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ResultsError(f"cannot write {target}", cause=exc) from exc
    target.with_name(target.name + ".sha256").write_text(f"{sha256(target)}  {target.name}\n")
    return target


def verify(tarball: str | os.PathLike) -> list[str]:
    """Members whose content does not match ``SHA256SUMS`` (or that it lacks); empty when all match."""
    problems = []
    with tarfile.open(tarball, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        sums_name = next((n for n in members if n.endswith(f"/{CHECKSUMS}")), None)
        if sums_name is None:
            return [f"no {CHECKSUMS} in {tarball}"]
        prefix = sums_name[: -len(CHECKSUMS)]
        listed = dict(reversed(line.split("  ", 1)) for line in tar.extractfile(sums_name).read().decode().splitlines())
        for name, member in members.items():
            if name == sums_name:
                continue
            expected = listed.pop(name[len(prefix):], None)
            actual = hashlib.sha256(tar.extractfile(member).read()).hexdigest()
            if expected != actual:
                problems.append(f"{name}: {'not listed' if expected is None else 'checksum differs'}")
        problems += [f"{name}: listed but not in the archive" for name in listed]
    return problems


def add_parser(sub) -> None:
    """The ``archive`` subcommand of ``python -m twelveways.report``."""
    p = sub.add_parser("archive", help="dated tarball of code (git ls-files) and the outputs of the run the report "
                                       "shows (results, logs, reports) with SHA256SUMS")
    p.add_argument("--output", default="dist", help="folder for twelveways-YYYY-MM-DD.tar.gz (default dist)")
    p.set_defaults(func=lambda args: print(archive(args.output)) or 0)
