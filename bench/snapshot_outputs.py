"""Write the audit and compare outputs of every fixture, the corpus and data/reference into one folder.

Why: a refactoring that must not change behaviour (typed records, a layout by stage) shows it by two
snapshots that are byte-identical: ``python bench/snapshot_outputs.py /tmp/before`` on the old tree,
the same into ``/tmp/after`` on the new one, then ``diff -r /tmp/before /tmp/after``.  Each input is
audited as JSON and markdown; each pair of files of one format, and data/reference against itself
and against the good-results fixture, is compared as JSON.  Outputs that depend on the time of day
(``generated_utc``-like keys) are blanked and the checkout's path is named alike, so two snapshots
compare byte for byte (the Markdown shortens long paths, so keep both checkouts' paths equally long).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"README.md", "truth.yaml", "manifest.yaml", "LICENSE", "NOTICE"}
VOLATILE = re.compile(r'("(?:generated_utc|created_utc|audited_utc|compared_utc|generated)"\s*:\s*)"[^"]*"')


def inputs() -> list[Path]:
    """Every results file of the format fixtures and the corpus, and the reference run's results folder."""
    found = []
    for top in ("tests/data/formats", "tests/corpus", "tests/data/compare"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.name not in SKIP and path.suffix not in {".py", ".pyc", ".md"}:
                found.append(path)
    return [*found, ROOT / "data/reference/results"]


def _cli(argv: list[str]) -> tuple[int, str]:
    """Run one twelveways command in this process; (exit code, stderr)."""
    from twelveways import cli

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return int(code or 0), err.getvalue()


def _name(path: Path) -> str:
    """A flat file name for ``path``; a long one keeps its end and a hash of the whole (file names end at 255 bytes)."""
    name = str(path.relative_to(ROOT)).replace("/", "__")
    return name if len(name) <= 100 else f"{hashlib.sha256(name.encode()).hexdigest()[:12]}_{name[-80:]}"


def _blank(folder: Path) -> None:
    """Time stamps blanked, this checkout's and the output folder's paths named alike, so snapshots of two
    checkouts compare byte for byte."""
    for path in folder.iterdir():
        if path.suffix in {".json", ".md", ".txt"}:
            text = VOLATILE.sub(r'\1""', path.read_text())
            path.write_text(text.replace(str(folder), "<OUTPUT>").replace(str(ROOT), "<CHECKOUT>"))


def snapshot(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    files = inputs()
    status = []
    for path in files:
        stem = out / f"audit__{_name(path)}"
        code, err = _cli(["audit", str(path), "--output", f"{stem}.json", "--output", f"{stem}.md"])
        status.append(f"audit {_name(path)}: exit {code} {err.strip().splitlines()[-1] if err.strip() else ''}")
    by_folder: dict[Path, list[Path]] = {}
    for path in files[:-1]:
        by_folder.setdefault(path.parent, []).append(path)
    pairs = [(group[i], group[i + 1]) for group in by_folder.values() for i in range(len(group) - 1)]
    reference = ROOT / "data/reference/results"
    pairs += [(reference, reference), (ROOT / "tests/data/good_results", reference)]
    for base, new in pairs:
        stem = out / f"compare__{_name(base)}__vs__{_name(new)}"
        code, err = _cli(["compare", str(base), str(new), "--output", f"{stem}.json"])
        status.append(f"compare {_name(base)} {_name(new)}: exit {code} "
                      f"{err.strip().splitlines()[-1] if err.strip() else ''}")
    (out / "exit_codes.txt").write_text("\n".join(status) + "\n")
    _blank(out)
    print(f"{len(files)} audits, {len(pairs)} compares written to {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/snapshot_outputs.py OUTPUT_DIR")
    sys.exit(snapshot(Path(sys.argv[1])))
