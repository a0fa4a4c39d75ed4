"""Subcommands of ``python -m twelveways.report`` (also ``twelveways report``).

* ``execute NAME --output X.ipynb [paths]`` — one notebook (used by the workflow's rules);
* ``render --output reports/report.html --notebook NAME=PATH ...`` — the report;
* ``rebuild --from DIR --output DIR`` — a reader's command: every notebook and the report from
  a stored result set (``data/reference``), no benchmark run; the family notebooks write their
  derived results to ``DIR/derived/<family>.nc`` as in the workflow, the checklist re-audits the
  raw and derived results, and the same outputs as ``make report`` are written (report.html,
  checklist.json/.md, artifact-description.md, artifact-appendix.md);
* ``snapshot --results results --output data/reference`` — refresh that set from a real run
  (with its Snakemake benchmark logs and a manifest.json of the schema and analysis versions);
* ``appendix`` — the artifact-evaluation appendix (twelveways.report.appendix);
* ``archive`` — a dated tarball of code, results and reports with SHA256SUMS (twelveways.report.archive);
* ``citation`` — CITATION.cff's authors from the git history and .zenodo.json (twelveways.report.citation).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Mapping
from pathlib import Path

from .. import cliargs, families, inputs
from ..errors import ResultsError
from ..inputs import brief
from . import archive, citation
from . import notebooks as nb


def stage_file(name: str) -> str:
    """The results file that makes a benchmark family's notebook worth running (its family's main file)."""
    return families.by_notebook(name).results_file


def default_parameters(name: str) -> dict[str, str]:
    """The paths a notebook reads and writes in the normal workflow (relative to the root)."""
    return nb.workflow_paths(name)


def _path_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results-dir", dest="results_dir", help="folder of results/*.nc (default results)")
    parser.add_argument("--figures-dir", dest="figures_dir", help="where figures are saved (default results/figures/NAME)")
    cliargs.add_environment(parser, dest="environment_json")
    cliargs.add_config(parser, dest="config_json")
    parser.add_argument("--checklist", dest="checklist_json", help="checklist (default reports/checklist.json)")
    parser.add_argument("--derived", dest="derived_path",
                        help="derived results a family's notebook writes (default results/derived/FAMILY.nc)")


def _setting_options(parser: argparse.ArgumentParser) -> None:
    """The statistics settings, checked against the schema's bounds while parsing: a bad value is one line
    before a Jupyter kernel starts, never a failing cell minutes later."""
    parser.add_argument("--confidence", type=cliargs.proportion, help="confidence of every interval, 0 < c < 1 "
                        "(default: the config's measurement.confidence)")
    parser.add_argument("--ci-target", dest="ci_target", type=cliargs.share,
                        help="CI target, a fraction of the median (default: the config's measurement.ci_target)")


def _check_execute(args) -> tuple[Path, str]:
    """(notebook source, name), after refusing what ``execute`` can refuse before it starts a kernel: an unknown
    notebook, a missing (or FIFO) source, an output that is a folder or one of the files the notebook reads."""
    prog = "twelveways report execute"
    if args.notebook.endswith(".py"):
        source, name = Path(args.notebook), Path(args.notebook).stem
    elif args.notebook in nb.NOTEBOOKS:
        source, name = nb.notebook_source(args.notebook), args.notebook
    else:
        raise cliargs.UsageError(f"{prog}: unknown notebook {brief(args.notebook)} (known: {', '.join(nb.NOTEBOOKS)}; "
                                 "or a jupytext .py file)")
    inputs.require_regular_file(source, "notebook source", cliargs.UsageError)
    if Path(args.output).is_dir():
        raise cliargs.UsageError(f"{prog}: --output {args.output} is a folder; name the executed .ipynb to write")
    read = [source, *(nb.resolve(getattr(args, key)) for key in ("environment_json", "config_json", "checklist_json")
                      if getattr(args, key, None))]
    cliargs.refuse_output_over_input([args.output], read, cliargs.UsageError, prog)
    return source, name


def _execute(args) -> int:
    source, name = _check_execute(args)
    params = default_parameters(name)
    params.update(own_outputs(name, args))
    params.update({k: getattr(args, k) for k in nb.PARAMETERS if getattr(args, k, None)})
    params.update({k: getattr(args, k) for k in nb.SETTINGS if getattr(args, k, None) is not None})
    nb.resolve(params["figures_dir"]).mkdir(parents=True, exist_ok=True)  # a declared output, even if empty
    started = time.monotonic()
    nb.execute(source, args.output, params)
    print(f"{source.name} -> {args.output} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    if not args.figures_dir:
        print(f"figures{' and derived results' if params.get('derived_path') else ''} of this run: "
              f"{nb.resolve(params['figures_dir']).parent} (results/ and reports/ untouched)", file=sys.stderr)
    return 0


def own_outputs(name: str, args) -> dict[str, str]:
    """Where a notebook run by hand writes when no folder is named: ``<output>-outputs/`` beside its
    executed copy (figures/, derived/), never the workflow's results/figures or results/derived, so
    re-running a notebook at another confidence cannot overwrite the run the report and archive show."""
    if args.figures_dir:  # the workflow names its folders (workflow/rules/analysis.smk)
        return {}
    folder = nb.resolve(args.output).with_name(nb.resolve(args.output).stem + "-outputs")
    own = {"figures_dir": str(folder / "figures")}
    if nb.derived_file(name) and not args.derived_path:
        own["derived_path"] = str(folder / nb.derived_file(name))
    return own


def _render(args) -> int:
    from . import render as rd

    pairs = []
    for item in args.notebooks:
        name, sep, path = item.partition("=")
        pairs.append((name, path) if sep else (Path(item).stem, item))
    out = rd.render(pairs, args.output, checklist_json=args.checklist_json, config_json=args.config_json,
                    environment_json=args.environment_json, title=args.title, reproduction_json=args.reproduction)
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
            if not (layout["results_dir"] / stage_file(name)).is_file():
                notes.append(f"{name}: no {stage_file(name)} in {layout['results_dir']}")
                continue
        if not nb.notebook_source(name).is_file():
            notes.append(f"{name}: notebooks/{filename} does not exist yet")
            continue
        chosen.append(name)
    return layout, chosen, notes


def _run_notebook(name: str, layout: Mapping, output: Path, checklist_json: Path | None) -> tuple[str, Path]:
    """Execute one notebook on the stored set, writing figures and derived results under ``output``."""
    params = {key: str(value) for key, value in layout.items() if value is not None}
    params["figures_dir"] = str(output / "figures" / name)
    if checklist_json is not None:
        params["checklist_json"] = str(checklist_json)
    if nb.derived_file(name):
        params["derived_path"] = str(output / nb.derived_file(name))
    started = time.monotonic()
    path = nb.execute(nb.notebook_source(name), output / "notebooks" / f"{name}.ipynb", params)
    print(f"  {name}: {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    return name, path


def reaudit(layout: Mapping, derived_dir: Path, output: Path) -> Path:
    """Audit the stored raw results and the freshly derived ones, as the workflow's checklist rule does;
    write ``output/checklist.json`` and ``.md`` and return the JSON's path."""
    from .. import atomic, resultset
    from ..checklist import audit
    from ..checklist import render as checklist_render
    from . import appendix

    raw = sorted(Path(layout["results_dir"]).glob("*.nc"))
    data = resultset.load([*raw, *sorted(derived_dir.glob("*.nc"))], environment=layout["environment_json"],
                          config=layout["config_json"])
    report = audit.run(data, appendix.claims_named(layout["config_json"]) if layout["config_json"] else None)
    for fmt in ("json", "md"):
        atomic.write_text(output / f"checklist.{fmt}", checklist_render.RENDERERS[fmt](report), "checklist",
                          make_parents=True)
    print("  checklist: " + "; ".join(checklist_render.summary_lines(report)[:1]), file=sys.stderr, flush=True)
    return output / "checklist.json"


def artifact_description(layout: Mapping, output: Path) -> Path:
    """``output/artifact-description.md`` from the stored environment capture and config."""
    from ..env.capture_model import load as load_capture
    from ..env.render import write_artifact_description

    config = inputs.read_json_object(layout["config_json"], "config dump", ResultsError) if layout["config_json"] \
        else None
    capture = load_capture(layout["environment_json"], "environment capture", ResultsError)
    return write_artifact_description(capture.to_dict(), output / "artifact-description.md", config)


def rebuild(source: str | Path, output: str | Path, jobs: int = 2) -> Path:
    """Every output of ``make report`` from a stored result set, with no benchmark run: the notebooks,
    a fresh audit of raw + derived results, the artifact description, the report and the appendix."""
    from . import appendix
    from . import render as rd

    source, output = nb.resolve(source), nb.resolve(output)
    nb.check_kernelspec()
    layout, chosen, notes = plan(source)
    started = time.monotonic()
    print(f"re-rendering {', '.join(chosen)} from {source} (no benchmark runs)", file=sys.stderr, flush=True)
    first = [name for name in chosen if name != "checklist"]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = dict(pool.map(lambda name: _run_notebook(name, layout, output, None), first))
    checklist_json = reaudit(layout, output / "derived", output)
    if "checklist" in chosen:
        done.update([_run_notebook("checklist", layout, output, checklist_json)])
    artifact_description(layout, output)
    note = f"re-rendered and re-audited from the stored result set {source.name}/ without running any benchmark"
    if notes:
        note += "; left out: " + "; ".join(notes)
    report = rd.render([(name, done[name]) for name in chosen], output / "report.html",
                       checklist_json=checklist_json, config_json=layout["config_json"],
                       environment_json=layout["environment_json"], note=note, derived_dir=output / "derived",
                       made_by="rebuild")
    appendix.write(output / "artifact-appendix.md", appendix.Sources.for_rebuild(source, output))
    print(f"report: {report} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return report


#: The committed reference set must stay small.
SNAPSHOT_LIMIT_BYTES = 4 * 2**20  # small enough to commit, large enough for every family


#: What a reference set records about the code that made it (``DIR/manifest.json``).
MANIFEST = "manifest.json"


def manifest(results_dir: Path) -> dict:
    """Schema and analysis versions, commit and profile of a finished run (for ``DIR/manifest.json``).

    The analysis version is read from the run's derived results (``results/derived/*.nc``): a run
    without them did not finish its analysis and makes no reference set.
    """
    from datetime import datetime, timezone

    from .. import results
    from ..evidence import attributes

    raw = [attributes.from_attrs(results.open(path).attrs, str(path)) for path in sorted(results_dir.glob("*.nc"))]
    derived = [attributes.from_attrs(results.open(path).attrs, str(path))
               for path in sorted((results_dir / "derived").glob("*.nc"))]
    if not raw or not derived:
        raise ResultsError(f"{results_dir} holds no results/*.nc or no derived/*.nc: run the whole workflow first")
    versions = {str(a.analysis_version) for a in derived}
    schemas = {str(a.schema_version) for a in raw}
    if len(versions) > 1 or len(schemas) > 1:
        raise ResultsError(f"mixed versions in {results_dir} (schema {sorted(schemas)}, analysis {sorted(versions)}): "
                           "rerun the workflow from scratch")
    config = inputs.read_json_object(results_dir / "config.json", "config dump", ResultsError)
    return {"schema_version": schemas.pop(), "analysis_version": versions.pop(),
            "git_commit": _text(raw[0].git_commit), "git_dirty": _text(raw[0].git_dirty),
            "profile": config.get("profile"), "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def _text(value) -> str:
    """An attribute as the manifest states it: its text, "" when unset."""
    return "" if value is None else str(value)


def _stage_extras(results_dir: Path, bench_dir: Path | None, staging: Path) -> list[Path]:
    """The manifest and the run's Snakemake benchmark logs (``logs/bench/*.tsv``: measured runtimes)."""
    import shutil

    written = [staging / MANIFEST]
    written[0].write_text(json.dumps(manifest(results_dir), indent=2, sort_keys=True) + "\n")
    if bench_dir is not None and bench_dir.is_dir():
        (staging / "logs" / "bench").mkdir(parents=True)
        written += [Path(shutil.copy2(tsv, staging / "logs" / "bench" / tsv.name)) for tsv in sorted(bench_dir.glob("*.tsv"))]
    return written


def snapshot(results_dir: str | Path, checklist: str | Path | None, output: str | Path,
             limit: int = SNAPSHOT_LIMIT_BYTES, bench_dir: str | Path | None = "logs/bench") -> list[Path]:
    """Copy a real run's results into a reference set (``DIR/results/*.nc``, ``DIR/*.json``,
    ``DIR/logs/bench/*.tsv``, ``DIR/manifest.json``).

    Results files are re-written by ``results.write`` (compressed; same content, validated on the way);
    the set must stay under ``limit`` bytes.  Each file snapshot writes replaces its namesake; files of
    ``output`` that it does not write (README.md, run-config.yaml, the reference's A/A record
    ``noise_floor.json`` when this run measured none) are kept, never deleted.  Run after every change of
    the results schema or the analysis (tests/test_reader_path.py fails on a stale set).
    """
    import shutil
    import tempfile

    from .. import results

    results_dir, output = nb.resolve(results_dir), nb.resolve(output)
    if output.exists() and not output.is_dir():
        raise ResultsError(f"snapshot --output {output} is a file, not a folder (the reference set is a folder)")
    env, config = results_dir / "environment.json", results_dir / "config.json"
    for needed in (env, config):
        if not needed.is_file():
            raise ResultsError(f"{needed} is missing: run the workflow first (snakemake --cores all)")
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".snapshot-", dir=output.parent))  # same file system: renames
    try:
        (staging / "results").mkdir()
        written = [Path(shutil.copy2(env, staging / "environment.json")), Path(shutil.copy2(config, staging / "config.json"))]
        for extra in ("environment-end.json", "noise_floor.json"):  # load at the end; the A/A noise floor
            if (results_dir / extra).is_file():
                written.append(Path(shutil.copy2(results_dir / extra, staging / extra)))
        if checklist and nb.resolve(checklist).is_file():
            written.append(Path(shutil.copy2(nb.resolve(checklist), staging / "checklist.json")))
        for path in sorted(results_dir.glob("*.nc")):
            results.write(results.open(path), staging / "results" / path.name)  # compressed, atomic
            results.open(staging / "results" / path.name)  # what readers will load must validate
            written.append(staging / "results" / path.name)
        written += _stage_extras(results_dir, nb.resolve(bench_dir) if bench_dir else None, staging)
        total = sum(path.stat().st_size for path in written)
        if total > limit:
            raise ResultsError(f"the reference set would take {total / 2**20:.1f} MiB, over the {limit / 2**20:.0f} MiB "
                               "budget: run a smaller profile for it")
        for path in [staging, *(p for p in staging.rglob("*") if p.is_dir()), *written]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # for readers (mkdtemp/mkstemp make them private)
        _swap_in(staging, written, output)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(p for p in output.rglob("*") if p.is_file())


def _swap_in(staging: Path, written: list[Path], output: Path) -> None:
    """Move each staged file onto its place in ``output`` (same file system: atomic renames); delete nothing."""
    import os

    output.mkdir(parents=True, exist_ok=True)
    output.chmod(0o755)
    for path in written:
        target = output / path.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir():
            raise ResultsError(f"cannot write {target}: a folder is in the way (move it aside)")
        os.replace(path, target)


def reference_problems(reference: str | Path = nb.REFERENCE) -> list[str]:
    """Why a stored reference set is stale for this code (results schema or analysis version); empty when current."""
    from .. import derived, results
    from ..evidence import attributes

    folder = nb.resolve(reference)
    try:
        data = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return [f"{folder / MANIFEST} is missing or unreadable"]
    problems = [f"{key} {data.get(key)!r} != this code's {want!r}"
                for key, want in (("schema_version", results.SCHEMA_VERSION), ("analysis_version", derived.ANALYSIS_VERSION))
                if str(data.get(key)) != str(want)]
    versions = {path: attributes.from_attrs(results.open(path).attrs, str(path)).schema_version
                for path in sorted((folder / "results").glob("*.nc"))}
    problems += [f"{path.name}: schema {version!r} != {results.SCHEMA_VERSION!r}"
                 for path, version in versions.items() if str(version) != results.SCHEMA_VERSION]
    return problems


def _snapshot(args) -> int:
    for path in snapshot(args.results, args.checklist, args.output, bench_dir=args.bench):
        print(f"{path} ({path.stat().st_size / 1024:.0f} KiB)")
    return 0


def _rebuild(args) -> int:
    print(rebuild(args.source, args.output, args.jobs))
    return 0


def _appendix_parser(sub) -> None:
    """The ``appendix`` subcommand; the appendix (and the plan it quotes) loads only when it runs."""
    p = sub.add_parser("appendix", help="write the artifact-evaluation appendix (reports/artifact-appendix.md)")
    p.add_argument("--output", default="reports/artifact-appendix.md", help="Markdown file to write")
    p.add_argument("--checklist", default="reports/checklist.json", help="audited checklist with the claims' numbers")
    p.add_argument("--claims", help="claims file (default: the one the config names, report.claims)")
    p.add_argument("--derived", default="results/derived", help="derived results (headline numbers and CIs)")
    cliargs.add_config(p)
    cliargs.add_environment(p)
    p.add_argument("--bench", default="logs/bench", help="Snakemake benchmark logs (runtimes)")
    p.add_argument("--figures", default="results/figures", help="figures folder (one subfolder per notebook)")
    p.set_defaults(func=_appendix_main)


def _appendix_main(args: argparse.Namespace) -> int:
    from . import appendix

    return appendix.command(args)


def parser() -> argparse.ArgumentParser:
    top = cliargs.OneLineParser(prog="twelveways report", description="Execute analysis notebooks and render the "
                                "report.")  # its subcommands' parsers are of its class: usage problems are one line
    sub = top.add_subparsers(dest="command", required=True)
    p = sub.add_parser("rebuild", help="re-render all notebooks and the report from stored results (no benchmark)")
    p.add_argument("--from", dest="source", default="data/reference", help="result set folder (default data/reference)")
    p.add_argument("--output", default="reports/", help="output folder (default reports/)")
    p.add_argument("--jobs", type=cliargs.workers, default=2, help="notebooks executed at once (default 2)")
    p.set_defaults(func=_rebuild)
    p = sub.add_parser("snapshot", help="copy a real run's results into a small reference set (data/reference)")
    p.add_argument("--results", default="results", help="results folder of a finished run (default results)")
    p.add_argument("--checklist", default="reports/checklist.json", help="its checklist (default reports/checklist.json)")
    p.add_argument("--output", default="data/reference", help="reference folder to (re)write (default data/reference)")
    p.add_argument("--bench", default="logs/bench", help="Snakemake benchmark logs of that run (default logs/bench)")
    p.set_defaults(func=_snapshot)
    p = sub.add_parser("execute", help="execute one notebook with papermill")
    p.add_argument("notebook", help=f"notebook name ({', '.join(nb.NOTEBOOKS)}) or a jupytext .py file")
    p.add_argument("--output", required=True, help="executed .ipynb to write")
    _path_options(p)
    _setting_options(p)
    p.set_defaults(func=_execute)
    _appendix_parser(sub)
    archive.add_parser(sub)
    citation.add_parser(sub)
    p = sub.add_parser("render", help="assemble reports/report.html from executed notebooks")
    p.add_argument("--output", required=True, help="HTML file to write")
    p.add_argument("notebooks", nargs="*", metavar="[NAME=]PATH",
                   help="executed notebooks in report order (NAME defaults to the file's stem)")
    p.add_argument("--title", help="report title (default: config report.title)")
    p.add_argument("--reproduction", help="twelveways reproduce's JSON: adds the Reproduction section")
    _path_options(p)
    p.set_defaults(func=_render)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["rebuild", *argv]  # `twelveways report [--from DIR]` is the reader's rebuild
    args = parser().parse_args(argv)
    return int(args.func(args) or 0)
