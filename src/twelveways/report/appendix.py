"""The artifact-evaluation appendix: ``reports/artifact-appendix.md``.

A committee member evaluating the artifact in one sitting needs the chain contributions and
claims -> experiments (Snakemake rules, config sections) -> figures and tables -> expected results
with tolerances -> runtime -> hardware and software.  Every link here is read from what the run
wrote: the claims from ``config/claims.yaml`` and their outcome from ``checklist.json``, the
tolerances from the measured confidence intervals (claims and derived summaries), the runtimes
from Snakemake's benchmark logs (``logs/bench/<rule>.tsv``), the requirements from the
environment capture.  Nothing is typed in by hand; a missing input is said, not guessed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import families
from ..checklist.model import AuditReport
from ..claim_record import ClaimResult
from ..claims import BOUNDS, Claim, parse_lenient
from ..plan_stages import RANGE_TEXT, duration, rule_costs
from ..env.capture_model import Capture
from ..env.capture_model import load as load_capture
from ..errors import ResultsError
from ..escape import markdown_text as md
from . import notebooks as nb


@dataclass(frozen=True)
class Experiment:
    """One benchmark family as the workflow runs it."""

    title: str
    rules: tuple[str, ...]
    config: str
    notebook: str
    outputs: tuple[str, ...]
    needs: str = ""


#: Claims name their experiment by the ``benchmark`` filter (the results schema's family column); each is
#: the family's own declaration (twelveways.families).
EXPERIMENTS = {f.name: Experiment(f.title, f.rules, f.stage, f.notebook, f.outputs, f.needs) for f in families.staged()}
#: Rules every profile runs whatever the experiments (capture, audit, report).
SHARED_RULES = ("config_dump", "environment", "environment_end", "notebook_environment", "checklist",
                "notebook_checklist", "report", "appendix")
#: The figure that shows a claim's metric, in order of preference (names as the notebooks save them).
FIGURES_BY_METRIC = {
    "time": ("time-ci", "scaling-strong", "distributions"),
    "test_accuracy": ("f5-precision", "f3-train-val-test"),
    "time_to_train": ("f5-precision", "f1-batch-size", "f2-per-iteration-vs-end-to-end"),
    "accuracy": ("pareto",),
    "latency": ("latency_cdf", "latency_vs_load"),
}


@dataclass(frozen=True)
class Sources:
    """Where the appendix reads each input; ``report_dir`` is where it is written (links are relative to it)."""

    claims: Path | None
    checklist: Path
    derived: Path | None
    config: Path | None
    environment: Path | None
    bench: Path | None
    figures: Path | None
    report_dir: Path

    @classmethod
    def for_workflow(cls, root: str | os.PathLike | None = None) -> "Sources":
        """The workflow's own layout (results/, reports/, logs/bench/)."""
        base = nb.project_root(root)
        return cls(claims_named(base / "results" / "config.json"), base / "reports" / "checklist.json",
                   base / "results" / "derived", base / "results" / "config.json",
                   base / "results" / "environment.json", base / "logs" / "bench", base / "results" / "figures",
                   base / "reports")

    @classmethod
    def for_rebuild(cls, source: Path, output: Path) -> "Sources":
        """A rebuild from a stored set: inputs from ``source``, everything re-made under ``output``."""
        config = source / "config.json"
        return cls(claims_named(config), output / "checklist.json", output / "derived",
                   config if config.is_file() else None, source / "environment.json", source / "logs" / "bench",
                   output / "figures", output)


def claims_named(config_json: Path) -> Path | None:
    """The claims file the run's config names (``report.claims``), in this checkout."""
    try:
        named = str((json.loads(config_json.read_text()).get("report") or {}).get("claims") or "").strip()
    except (OSError, ValueError, AttributeError):
        named = "config/claims.yaml"
    return nb.resolve(named) if named and nb.resolve(named).is_file() else None


def shown(path: Path | None) -> str:
    """A path as a reader of this checkout names it: relative to the root when inside it."""
    if path is None:
        return "none"
    try:
        return Path(path).resolve().relative_to(nb.project_root()).as_posix()
    except (ValueError, nb.NotebookError):
        return str(path)


def _json(path: Path | None, what: str) -> dict:
    if path is None or not Path(path).is_file():
        return {}
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{what} is not valid JSON: {path}", cause=exc) from exc
    return data if isinstance(data, dict) else {}


def _capture(path: Path | None) -> Capture | None:
    """The run's environment capture, None where the result set has none."""
    if path is None or not Path(path).is_file():
        return None
    return load_capture(path, "environment capture", ResultsError)


def rule_runtimes(bench_dir: Path | None) -> dict[str, float]:
    """Seconds per rule from Snakemake's ``benchmark:`` files (mean of a file's repeats; column ``s``)."""
    return {rule: float(seconds.mean()) for rule, seconds in rule_costs(bench_dir).items()}


def experiment_runtime(experiment: Experiment, runtimes: Mapping[str, float]) -> tuple[float | None, list[str]]:
    """(seconds summed over the experiment's rules, rules without a benchmark file)."""
    found = [runtimes[rule] for rule in experiment.rules if rule in runtimes]
    return (sum(found) if found else None), [rule for rule in experiment.rules if rule not in runtimes]


def experiment_of(claim: Claim) -> tuple[str, Experiment] | None:
    """The experiment a claim's rows come from (its sides' ``benchmark`` filter)."""
    family = str(next((side[BENCHMARK] for side in (claim.a, claim.b or {}) if side.get(BENCHMARK)), ""))
    return (family, EXPERIMENTS[family]) if family in EXPERIMENTS else None


def figure_for(metric: str, experiment: Experiment, figures: Path | None, report_dir: Path) -> tuple[str, str] | None:
    """(figure, its CSV) relative to the appendix, of the figure that shows ``metric``; None when none was drawn."""
    folder = figures / experiment.notebook if figures else None
    if folder is None or not folder.is_dir():
        return None
    names = [*FIGURES_BY_METRIC.get(metric, ()), *sorted(p.stem for p in folder.glob("*.png"))]
    for name in names:
        png = folder / f"{name}.png"
        if png.is_file():
            csv = png.with_suffix(".csv")
            return (os.path.relpath(png, report_dir), os.path.relpath(csv, report_dir) if csv.is_file() else "")
    return None


def tolerance(estimate, interval) -> str:
    """The interval as a tolerance around the estimate: '−12.3% / +8.1%'; '' without a finite interval."""
    try:
        est, low, high = float(estimate), float(interval[0]), float(interval[1])
    except (TypeError, ValueError, IndexError):
        return ""
    if not all(map(math.isfinite, (est, low, high))) or est == 0:
        return ""
    return f"−{100 * (est - low) / abs(est):.3g}% / +{100 * (high - est) / abs(est):.3g}%"


#: The column a claim's side names its benchmark family by.
BENCHMARK = "benchmark"


def threshold_text(claim: Claim) -> str:
    """The claim's own threshold in words: '≥ 2', '≤ 1.1', '≥ 0.95 and ≤ 1.05'."""
    parts = [f"{sign} {bound:g}" for bound, sign in ((claim.at_least, "≥"), (claim.at_most, "≤")) if bound is not None]
    return " and ".join(parts) or "no threshold"


def margin(claim: Claim, interval) -> str:
    """How far this run's interval stays from the claim's threshold, as a fraction of the threshold.

    The tolerance that holds on other hardware: a re-run keeps the verdict while its interval stays on
    the same side of the threshold, however far its estimate moves with the machine.
    """
    try:
        low, high = float(interval[0]), float(interval[1])
    except (TypeError, ValueError, IndexError):
        return "none: no interval at this n"
    room = []
    if claim.at_least is not None and claim.at_least != 0:
        room.append(f"lower end {100 * (low / claim.at_least - 1):+.3g}% from {claim.at_least:g}")
    if claim.at_most is not None and claim.at_most != 0:
        room.append(f"upper end {100 * (high / claim.at_most - 1):+.3g}% from {claim.at_most:g}")
    return "; ".join(room) or "none: no threshold"


def expected_claim(claim: Claim, outcome: ClaimResult | None) -> tuple[str, str, str]:
    """(expected result from the claim's own threshold, what this run measured, margin to the threshold)."""
    expected = f"verdict supported: {_definition(outcome)} {threshold_text(claim)}"
    if not outcome:
        return expected, "not checked in this checklist", "none: the claim was not audited"
    numbers = outcome.numbers
    estimate, interval = numbers.estimate, numbers.interval
    verdict = outcome.verdict.value.replace("_", " ")
    if estimate is None:
        return expected, f"verdict {verdict}; no estimate ({outcome.message})", "none: no estimate"
    measured = f"{float(estimate):.4g}"
    if interval:
        level = f"{100 * float(numbers.coverage):.3g}% " if numbers.coverage is not None else ""
        measured += f" ({level}interval [{float(interval[0]):.4g}, {float(interval[1]):.4g}])"
    return expected, f"{measured}; verdict {verdict}", margin(claim, interval) if interval else \
        f"none measurable: no interval at this n ({outcome.message})"


def _definition(outcome: ClaimResult | None) -> str:
    return (outcome.numbers.estimate_definition if outcome else None) or "the estimate"


def _table(header: Sequence[str], rows: Sequence[Sequence]) -> list[str]:
    """A Markdown table, every cell escaped (claims and machine text may hold Markdown)."""
    lines = ["| " + " | ".join(md(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md(cell) if cell not in (None, "") else "—" for cell in row) + " |" for row in rows]
    return lines + [""]


def _link(path: str, text: str | None = None) -> str:
    """A Markdown link to a relative path (text escaped; the path written as is, without spaces)."""
    return f"[{md(text or path)}]({path.replace(' ', '%20')})"


def load_claims(path: Path | None) -> list[Claim]:
    """The claims as written in the claims file (their configuration: sides, threshold); one the audit could not
    parse is left out here too (the checklist names it)."""
    if path is None:
        return []
    from ..inputs import read_yaml

    return parse_lenient(read_yaml(path, "claims file", ResultsError), str(path))[0]


def claims_of(outcomes: Mapping[str, ClaimResult]) -> list[Claim]:
    """Without the claims file: each audited claim as its numbers state it (metric and threshold; its sides are
    left unnamed, so no experiment is named for it, as the appendix has always done without the file)."""
    return [Claim(key, "", "", found.numbers.metric, {}, None, found.numbers.at_least, found.numbers.at_most)
            for key, found in outcomes.items()]


def claim_rows(claims: Sequence[Claim], outcomes: Mapping[str, ClaimResult], sources: Sources,
               runtimes: Mapping[str, float]) -> list[list[str]]:
    """One row per claim: id, experiment, figure, expected result, this run, margin to the threshold, runtime."""
    rows = []
    for claim in claims:
        found = experiment_of(claim)
        family, experiment = found if found else ("?", None)
        figure = figure_for(claim.metric, experiment, sources.figures, sources.report_dir) if experiment else None
        seconds = experiment_runtime(experiment, runtimes)[0] if experiment else None
        expected, measured, room = expected_claim(claim, outcomes.get(claim.id))
        rows.append([claim.id,
                     f"{family}: rules {', '.join(experiment.rules)}; config section {experiment.config}"
                     if experiment else "no experiment: the claim names no known benchmark",
                     figure[0] if figure else "no figure of this experiment in this run",
                     expected, measured, room, duration(seconds)])
    return rows


def claims_section(claims: Sequence[Claim], outcomes: Mapping[str, ClaimResult], sources: Sources,
                   runtimes: Mapping[str, float]) -> list[str]:
    """Contributions and claims, then each claim's chain to experiment, figure, expectation and runtime."""
    lines = ["## 1. Contributions and claims", "",
             f"Claims from `{md(shown(sources.claims))}`, "
             "checked against this run's data by the checklist (verdict after Holm over all claims).", ""]
    lines += _table(["claim", "statement", "threshold", "verdict"],
                    [[c.id, c.statement,
                      " and ".join(f"{key.replace('_', ' ')} {bound}" for key, bound in zip(BOUNDS, (c.at_least, c.at_most))
                                   if bound is not None),
                      (outcomes[c.id].verdict.value if c.id in outcomes else "not checked").replace("_", " ")]
                     for c in claims])
    lines += ["## 2. Claims to experiments, figures, expected results and runtime", "",
              "Expected result: the claim's own threshold on its own fixed configurations (config/claims.yaml "
              "names every factor of both sides). Tolerance: a re-run on other hardware reproduces the claim when "
              "its interval lands on the same side of the threshold; its estimate may move with the machine (this "
              "run's estimate and interval are given for comparison, not as a target). Margin: how far this run's "
              "interval stays from the threshold. Runtime: the experiment's Snakemake rules as measured in this run.",
              ""]
    lines += _table(["claim", "experiment", "figure", "expected result (tolerance)", "this run", "margin",
                     "runtime"],
                    claim_rows(claims, outcomes, sources, runtimes))
    return lines


def _shown_unit(unit: str) -> tuple[float, str]:
    """(scale, unit) a value is shown in: every time in ms (one unit down the column), a fraction bare."""
    from .headline import TIME_UNITS

    if unit in TIME_UNITS:
        return TIME_UNITS[unit] / TIME_UNITS["ms"], "ms"
    return 1.0, "" if unit == "1" else unit


def findings_section(outcomes: Mapping[str, ClaimResult]) -> list[str]:
    """The fixed configurations the claims compare (both sides), measured on this machine with their CIs.

    Keyed on the claims' configurations, not on whichever configuration was fastest here (which
    changes from machine to machine); absolute values move with the hardware, so they are expected
    within their CI on the same machine type only (``twelveways reproduce`` compares two runs).
    """
    rows = []
    for claim_id, outcome in outcomes.items():
        numbers = outcome.numbers
        for side, found in (("a", numbers.a), ("b", numbers.b)):
            if found is None:
                continue
            value = found.median if found.median is not None else found.summary  # over runs: each run's summary
            if value is None:
                continue
            ci, (scale, unit) = found.ci, _shown_unit(numbers.unit)
            rows.append([claim_id, side, found.configuration or "",
                         f"{float(value) * scale:.4g} {unit}".strip(),
                         f"[{ci[0] * scale:.4g}, {ci[1] * scale:.4g}] ({tolerance(value, ci)})" if ci else
                         "none: no interval at this n", str(found.test_set_items or (found.n if found.n is not None else ""))])
    lines = ["## 4. Measurements of the claims' configurations on this machine", "",
             "Both sides of every claim, each a fixed configuration, with the median (for a claim over runs: the "
             "geometric mean of the run summaries; or accuracy) and its interval. "
             "Absolute values depend on the hardware: expect them within their interval on the same machine type "
             "only (`twelveways reproduce` compares a run with this one); on other hardware the claims' verdicts "
             "(section 2) are what is expected to hold.", ""]
    return lines + (_table(["claim", "side", "configuration", "value", "interval (tolerance)",
                            "n (runs, seeds or test items)"], rows)
                    if rows else ["No claim was measured in this run.", ""])


def figures_section(sources: Sources) -> list[str]:
    """Every figure of every notebook with the CSV behind it."""
    folder = sources.figures
    rows = []
    for png in sorted(folder.glob("*/*.png")) if folder and folder.is_dir() else []:
        csv = png.with_suffix(".csv")
        rows.append([png.parent.name, _link(os.path.relpath(png, sources.report_dir), png.stem),
                     _link(os.path.relpath(csv, sources.report_dir), csv.name) if csv.is_file() else "no CSV"])
    lines = ["## 3. Figures and tables", "",
             "Each figure appears in `report.html` (section of its notebook) beside its tables; its data is the CSV.", ""]
    if not rows:
        return lines + ["No figures in this run.", ""]
    table = ["| notebook | figure | data |", "|---|---|---|"]
    return lines + table + [f"| {md(a)} | {b} | {c if c == 'no CSV' else c} |" for a, b, c in rows] + [""]


def runtime_section(runtimes: Mapping[str, float], config: Mapping, bench: Path | None) -> list[str]:
    """Measured runtime of each experiment (rule by rule) and of the whole profile."""
    profile = str(config.get("profile", "?"))
    lines = ["## 5. Runtime", ""]
    if not runtimes:
        return lines + [f"Not measured: no Snakemake benchmark files (`logs/bench/*.tsv`) beside this result set "
                        f"({bench or 'no folder'}). A workflow run writes them; `python -m twelveways.report snapshot` "
                        "keeps them in a reference set.", ""]
    rows = []
    for family, experiment in EXPERIMENTS.items():
        seconds, missing = experiment_runtime(experiment, runtimes)
        detail = ", ".join(f"{rule} {duration(runtimes[rule])}" for rule in experiment.rules if rule in runtimes)
        rows.append([family, experiment.title, duration(seconds), detail + (f"; no benchmark file: {', '.join(missing)}"
                                                                          if missing else ""), experiment.needs])
    shared = [rule for rule in runtimes if not any(rule in e.rules for e in EXPERIMENTS.values())]
    rows.append(["shared", "capture, audit, report", duration(sum(runtimes[r] for r in shared)),
                 ", ".join(f"{r} {duration(runtimes[r])}" for r in shared), ""])
    lines += _table(["experiment", "what", "runtime", "rules (seconds each, Snakemake benchmark)", "needs"], rows)
    total = sum(runtimes.values())
    lines += [f"**Profile `{md(profile)}`: {duration(total)} in total** (the sum over {len(runtimes)} rules' benchmark "
              "files; with jobs in parallel the wall time can be shorter).", _other_profile(profile, config), ""]
    return lines


def _other_profile(profile: str, config: Mapping) -> str:
    """The sentence on the profile this set did not run (``full`` for a quick run, and back); the PRK part's
    prediction follows from ``twelveways plan`` (:func:`prediction_section`)."""
    other = "quick" if profile == "full" else "full"
    return (f"Profile `{other}`: not measured in this set; its runtime is written to `logs/bench/` when it runs "
            "(`make report CONFIGFILE=config/full.yaml` for the paper-grade `full` profile) and this appendix then "
            "states it; where this set recorded its costs, the `full` profile's prediction follows.")


def prediction_section(sources: Sources) -> list[str]:
    """The full profile's predicted runtime, stage by stage with 95 % ranges (``twelveways plan`` from this run's
    recorded costs: the results beside the derived folder, or a stored set's beside its benchmark files, as a
    rebuild from data/reference has them); nothing where this set lacks what it scales from."""
    candidates = [Path(sources.derived).parent] if sources.derived else []
    candidates += [Path(sources.bench).parent.parent / "results"] if sources.bench else []  # a stored set's results
    found = next((folder for folder in candidates if (folder / "prk.nc").is_file()), None)
    from .. import plan  # here: plan's statistics are slow to import, and only the appendix's runtime table needs them

    predicted = plan.full_profile_prediction(found, sources.bench) if found else None
    if predicted is None:
        return []
    low, high = predicted.range
    rows = [[md(r.title), duration(r.seconds), f"{duration(r.range[0])} to {duration(r.range[1])}",
             duration(r.recorded_s), md(r.how)] for r in predicted.stages]
    return [f"**Profile `full` (predicted by `twelveways plan` from this run's recorded costs): "
            f"{duration(predicted.seconds)} in total, 95% range {duration(low)} to {duration(high)}** (the sum over "
            "its rules). By stage:", ""] + \
        _table(["stage", "predicted", "95% range", "this run", "how"], rows) + \
        [f"Ranges: {md(RANGE_TEXT)}.", ""]


#: What ``make venv`` writes when it has installed the lock: ``install_seconds=N`` (Makefile).
INSTALL_STAMP = ".venv/.twelveways-installed"
#: Folders whose size a committee needs free (relative to the root): environment, builds, data, outputs.
DISK_FOLDERS = (".venv", "build", "data", "results", "logs", "reports")


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (links not followed); 0 when absent.

    One ``lstat`` per file through ``os.scandir``'s entries: the checkout's .venv holds tens of thousands
    of files, and a Path, an ``is_symlink`` and a ``stat`` for each made the appendix take seconds."""
    total, pending = 0, [os.fspath(folder)]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                total += _entry_bytes(entry, pending)
    return total


def _entry_bytes(entry: os.DirEntry, pending: list[str]) -> int:
    """A regular file's size; a real folder (not a link to one) is queued for :func:`folder_bytes`."""
    try:
        if entry.is_symlink():
            return 0
        if entry.is_dir():
            pending.append(entry.path)
            return 0
        return entry.stat(follow_symlinks=False).st_size
    except OSError:
        return 0


def install_seconds(root: Path) -> float | None:
    """How long ``make venv`` took on this machine (its stamp), None when unrecorded."""
    try:
        text = (root / INSTALL_STAMP).read_text()
    except OSError:
        return None
    found = [line.split("=", 1)[1] for line in text.splitlines() if line.startswith("install_seconds=")]
    try:
        return float(found[0]) if found else None
    except ValueError:
        return None


def install_section(root: Path | None = None) -> list[str]:
    """Install time (make venv, as measured here) and the disk space each part of the artifact takes."""
    root = Path(root) if root else nb.project_root()
    seconds = install_seconds(root)
    sizes = {folder: folder_bytes(root / folder) for folder in DISK_FOLDERS if (root / folder).exists()}
    rows = [[folder, f"{size / 2**20:,.0f} MiB"] for folder, size in sizes.items()]
    total = sum(sizes.values())
    lines = ["## 7. Install time and disk space", "",
             f"`make venv` (the pinned lock, uv when it can be had): {duration(seconds)} on this machine"
             + ("" if seconds is not None else " (no install stamp: the environment was not made by `make venv`)")
             + ". Disk space in use by this checkout after the run, by folder:", ""]
    return lines + _table(["folder", "size"], rows) + [
        f"In all {total / 2**30:.2f} GiB; leave at least twice that free for a run of another profile.", ""]


def requirements_section(environment: Capture | None) -> list[str]:
    """Hardware and software of the machine that made these results (the environment capture)."""
    from ..env.render import summary_rows

    lines = ["## 6. Hardware and software requirements", "",
             "The machine and software that produced these results, as captured at the start of the run; a run "
             "elsewhere needs the same software (`envs/requirements.lock`, `make venv`) and comparable hardware to "
             "reproduce the numbers within the tolerances above. No GPU is needed.", ""]
    if environment is None or not environment.to_dict():
        return lines + ["No environment capture in this result set.", ""]
    keep = ("CPU", "Topology", "Usable CPUs", "Caches", "NUMA nodes", "Memory", "Virtualization", "OS",
            "C compiler (used)", "MPI library", "BLAS/OpenMP", "Python", "numpy", "torch", "LoadGen", "GPUs", "Timer")
    rows = [[label, value] for label, value in summary_rows(environment.to_dict()) if label in keep]
    return lines + _table(["", "value"], rows)


def header(config: Mapping, environment: Capture | None, sources: Sources) -> list[str]:
    """Title, what the artifact is, where the appendix read its inputs, how to reproduce."""
    commit = str((environment.git_commit if environment else None) or "unknown")
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ["# Artifact appendix: Twelve Ways", "",
            f"Generated {generated} from the results of commit `{md(commit[:12])}`, profile "
            f"`{md(config.get('profile', '?'))}` (checklist: `{md(shown(sources.checklist))}`).", "",
            "Reproduce: `make report` runs every experiment and writes `reports/` (this appendix included); "
            "`make reader-report` re-analyses and re-audits the stored reference set `data/reference` without "
            "running a benchmark; `make archive` packs code, results and reports with SHA-256 checksums.", ""]


def render(sources: Sources) -> str:
    """The whole appendix as Markdown."""
    checklist = _json(sources.checklist, "checklist")
    if not checklist:
        raise ResultsError(f"no checklist at {sources.checklist}: audit the results first")
    config, environment = _json(sources.config, "config dump"), _capture(sources.environment)
    outcomes = {c.id: c for c in AuditReport.from_dict(checklist, str(sources.checklist)).claims}
    claims = load_claims(sources.claims) or claims_of(outcomes)
    runtimes = rule_runtimes(sources.bench)
    lines = header(config, environment, sources)
    lines += claims_section(claims, outcomes, sources, runtimes)
    lines += figures_section(sources) + findings_section(outcomes)
    lines += runtime_section(runtimes, config, sources.bench) + prediction_section(sources) \
        + requirements_section(environment) + install_section()
    return "\n".join(lines).rstrip() + "\n"


def write(path: str | os.PathLike, sources: Sources) -> Path:
    """Render and write the appendix atomically."""
    from .. import atomic

    return atomic.write_text(path, render(sources), "artifact appendix", make_parents=True)



def command(args: argparse.Namespace) -> int:
    output = nb.resolve(args.output)
    config = nb.resolve(args.config)
    sources = Sources(nb.resolve(args.claims) if args.claims else claims_named(config), nb.resolve(args.checklist),
                      nb.resolve(args.derived), config, nb.resolve(args.environment), nb.resolve(args.bench),
                      nb.resolve(args.figures), output.parent)
    print(write(output, sources))
    return 0
