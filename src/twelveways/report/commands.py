"""Subcommands of ``python -m twelveways.report`` (also ``twelveways report``).

* ``execute NAME --output X.ipynb [paths]`` — one notebook (used by the workflow's rules);
* ``render --output reports/report.html --notebook NAME=PATH ...`` — the report;
* ``rebuild --from DIR --output DIR`` — a reader's command: every notebook and the report from
  a stored result set (``data/reference``), no benchmark run; the family notebooks write their
  derived results to ``DIR/derived/<family>.nc`` as in the workflow;
* ``snapshot --results results --output data/reference`` — refresh that set from a real run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import ResultsError
from . import notebooks as nb
from . import render as rd

#: Results file that makes a stage's notebook worth running.
STAGE_FILES = {"prk": "prk.nc", "train": "train.nc", "inference": "inference.nc"}


def default_parameters(name: str) -> dict[str, str]:
    """The paths a notebook reads and writes in the normal workflow (relative to the root)."""
    params = {"results_dir": "results", "figures_dir": f"results/figures/{name}",
              "environment_json": "results/environment.json", "config_json": "results/config.json",
              "checklist_json": "reports/checklist.json"}
    if nb.derived_file(name):
        params["derived_path"] = f"results/{nb.derived_file(name)}"
    return params


def _path_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results-dir", dest="results_dir", help="folder of results/*.nc (default results)")
    parser.add_argument("--figures-dir", dest="figures_dir", help="where figures are saved (default results/figures/NAME)")
    parser.add_argument("--environment", dest="environment_json", help="environment capture (default results/environment.json)")
    parser.add_argument("--config", dest="config_json", help="validated config dump (default results/config.json)")
    parser.add_argument("--checklist", dest="checklist_json", help="checklist (default reports/checklist.json)")
    parser.add_argument("--derived", dest="derived_path",
                        help="derived results a family's notebook writes (default results/derived/FAMILY.nc)")


def _execute(args) -> int:
    source = Path(args.notebook) if args.notebook.endswith(".py") else nb.notebook_source(args.notebook)
    name = source.stem if args.notebook.endswith(".py") else args.notebook
    params = default_parameters(name)
    params.update({k: getattr(args, k) for k in nb.PARAMETERS if getattr(args, k, None)})
    nb.resolve(params["figures_dir"]).mkdir(parents=True, exist_ok=True)  # a declared output, even if empty
    started = time.monotonic()
    nb.execute(source, args.output, params)
    print(f"{source.name} -> {args.output} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


def _render(args) -> int:
    pairs = []
    for item in args.notebooks:
        name, sep, path = item.partition("=")
        pairs.append((name, path) if sep else (Path(item).stem, item))
    out = rd.render(pairs, args.output, checklist_json=args.checklist_json, config_json=args.config_json,
                    environment_json=args.environment_json, title=args.title)
    print(out)
    return 0


def _first(*candidates: Path) -> Path | None:
    return next((path for path in candidates if path.is_file()), None)


def reference_layout(source: Path) -> dict[str, Path | None]:
    """Where a stored result set keeps its files: ``DIR/results/*.nc`` (or ``DIR/*.nc``) and the
    JSON files at ``DIR/`` or beside the results."""
    if not source.is_dir():
        raise ResultsError(f"result set not found: {source} (expected a folder like data/reference)")
    results_dir = source / "results" if (source / "results").is_dir() else source
    return {
        "results_dir": results_dir,
        "environment_json": _first(source / "environment.json", results_dir / "environment.json"),
        "config_json": _first(source / "config.json", results_dir / "config.json"),
        "checklist_json": _first(source / "checklist.json", source / "reports" / "checklist.json",
                                 results_dir / "checklist.json"),
    }


def plan(source: Path) -> tuple[dict[str, Path | None], list[str], list[str]]:
    """(layout, notebooks to run in report order, notes on what was left out and why)."""
    layout = reference_layout(source)
    config = {}
    if layout["config_json"]:
        try:
            config = json.loads(layout["config_json"].read_text())
        except ValueError as exc:
            raise ResultsError(f"config dump is not valid JSON: {layout['config_json']}", cause=exc) from exc
    stages = config.get("stages", {}) if isinstance(config, dict) else {}
    chosen, notes = [], []
    if layout["environment_json"] is None:
        raise ResultsError(f"{source} holds no environment.json: every report starts from the environment capture")
    for name, (filename, stage) in nb.NOTEBOOKS.items():
        if stage is not None:
            if stages.get(stage, True) is False:
                notes.append(f"{name}: stage '{stage}' was off in that run")
                continue
            if not (layout["results_dir"] / STAGE_FILES[name]).is_file():
                notes.append(f"{name}: no {STAGE_FILES[name]} in {layout['results_dir']}")
                continue
        if name == "checklist" and layout["checklist_json"] is None:
            notes.append("checklist: no checklist.json in the result set")
            continue
        if not nb.notebook_source(name).is_file():
            notes.append(f"{name}: notebooks/{filename} does not exist yet")
            continue
        chosen.append(name)
    return layout, chosen, notes


def rebuild(source: str | Path, output: str | Path, jobs: int = 2) -> Path:
    """Execute every applicable notebook on a stored result set and render the report."""
    source, output = nb.resolve(source), nb.resolve(output)
    nb.check_kernelspec()
    layout, chosen, notes = plan(source)
    executed = output / "notebooks"

    def run(name: str) -> tuple[str, Path]:
        params = {key: str(value) for key, value in layout.items() if value is not None}
        params["figures_dir"] = str(output / "figures" / name)
        params.setdefault("checklist_json", str(source / "checklist.json"))
        if nb.derived_file(name):
            params["derived_path"] = str(output / nb.derived_file(name))
        started = time.monotonic()
        path = nb.execute(nb.notebook_source(name), executed / f"{name}.ipynb", params)
        print(f"  {name}: {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        return name, path

    started = time.monotonic()
    print(f"re-rendering {', '.join(chosen)} from {source} (no benchmark runs)", file=sys.stderr, flush=True)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = dict(pool.map(run, chosen))
    note = f"re-rendered from the stored result set {source.name}/ without running any benchmark"
    if notes:
        note += "; left out: " + "; ".join(notes)
    report = rd.render([(name, done[name]) for name in chosen], output / "report.html",
                       checklist_json=layout["checklist_json"], config_json=layout["config_json"],
                       environment_json=layout["environment_json"], note=note)
    print(f"report: {report} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return report


#: The committed reference set must stay small (issue 4).
SNAPSHOT_LIMIT_BYTES = 4 * 2**20  # small enough to commit, large enough for every family


def snapshot(results_dir: str | Path, checklist: str | Path | None, output: str | Path,
             limit: int = SNAPSHOT_LIMIT_BYTES) -> list[Path]:
    """Copy a real run's results into a reference set (``DIR/results/*.nc``, ``DIR/*.json``).

    Results files are re-written by ``results.write`` (compressed; same content, validated on the way);
    the set must stay under ``limit`` bytes.  Files of ``output`` that snapshot does not write
    (README.md, run-config.yaml) are kept.  Used once per release to refresh data/reference.
    """
    import shutil
    import tempfile

    from .. import results

    results_dir, output = nb.resolve(results_dir), nb.resolve(output)
    env, config = results_dir / "environment.json", results_dir / "config.json"
    for needed in (env, config):
        if not needed.is_file():
            raise ResultsError(f"{needed} is missing: run the workflow first (snakemake --cores all)")
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".snapshot-", dir=output.parent))  # same file system: renames
    try:
        (staging / "results").mkdir()
        written = [Path(shutil.copy2(env, staging / "environment.json")), Path(shutil.copy2(config, staging / "config.json"))]
        if (results_dir / "environment-end.json").is_file():  # load at the end, changes during the run
            written.append(Path(shutil.copy2(results_dir / "environment-end.json", staging / "environment-end.json")))
        if checklist and nb.resolve(checklist).is_file():
            written.append(Path(shutil.copy2(nb.resolve(checklist), staging / "checklist.json")))
        for path in sorted(results_dir.glob("*.nc")):
            results.write(results.open(path), staging / "results" / path.name)  # compressed, atomic
            results.open(staging / "results" / path.name)  # what readers will load must validate
            written.append(staging / "results" / path.name)
        total = sum(path.stat().st_size for path in written)
        if total > limit:
            raise ResultsError(f"the reference set would take {total / 2**20:.1f} MiB, over the {limit / 2**20:.0f} MiB "
                               "budget: run a smaller profile for it")
        for path in [staging, staging / "results", *written]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # for readers (mkdtemp/mkstemp make them private)
        # swap in what snapshot manages; anything else there (README.md, run-config.yaml) stays
        output.mkdir(parents=True, exist_ok=True)
        output.chmod(0o755)
        for name in ("environment.json", "environment-end.json", "config.json", "checklist.json", "results"):
            old = output / name
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()
            if (staging / name).exists():
                (staging / name).rename(old)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(p for p in output.rglob("*") if p.is_file())


def _snapshot(args) -> int:
    for path in snapshot(args.results, args.checklist, args.output):
        print(f"{path} ({path.stat().st_size / 1024:.0f} KiB)")
    return 0


def _rebuild(args) -> int:
    print(rebuild(args.source, args.output, args.jobs))
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="twelveways report", description="Execute analysis notebooks and render the report.")
    sub = top.add_subparsers(dest="command", required=True)
    p = sub.add_parser("rebuild", help="re-render all notebooks and the report from stored results (no benchmark)")
    p.add_argument("--from", dest="source", default="data/reference", help="result set folder (default data/reference)")
    p.add_argument("--output", default="reports/", help="output folder (default reports/)")
    p.add_argument("--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    p.set_defaults(func=_rebuild)
    p = sub.add_parser("snapshot", help="copy a real run's results into a small reference set (data/reference)")
    p.add_argument("--results", default="results", help="results folder of a finished run (default results)")
    p.add_argument("--checklist", default="reports/checklist.json", help="its checklist (default reports/checklist.json)")
    p.add_argument("--output", default="data/reference", help="reference folder to (re)write (default data/reference)")
    p.set_defaults(func=_snapshot)
    p = sub.add_parser("execute", help="execute one notebook with papermill")
    p.add_argument("notebook", help=f"notebook name ({', '.join(nb.NOTEBOOKS)}) or a jupytext .py file")
    p.add_argument("--output", required=True, help="executed .ipynb to write")
    _path_options(p)
    p.set_defaults(func=_execute)
    p = sub.add_parser("render", help="assemble reports/report.html from executed notebooks")
    p.add_argument("--output", required=True, help="HTML file to write")
    p.add_argument("notebooks", nargs="*", metavar="[NAME=]PATH",
                   help="executed notebooks in report order (NAME defaults to the file's stem)")
    p.add_argument("--title", help="report title (default: config report.title)")
    _path_options(p)
    p.set_defaults(func=_render)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["rebuild", *argv]  # `twelveways report [--from DIR]` is the reader's rebuild
    args = parser().parse_args(argv)
    return int(args.func(args) or 0)
