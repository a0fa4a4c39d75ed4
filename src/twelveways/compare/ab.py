"""``twelveways ab``: is NEW faster than BASE?  Two versions run interleaved in randomized rounds on one machine.

Two separate runs (``twelveways compare``) carry the between-run variance of the machine; here the
two sides alternate within one run (RMIT, Abedi & Brecht 2017; duet benchmarking, Bulej et al.
2020), so drift and a busy neighbour hit both, and the analysis pairs them within a round
(:mod:`.ab_analysis`: model, stopping rule, verdicts).  A side is a git ref checked out as a
worktree, or the working tree, with a config (:mod:`.ab_sides`); the rounds run through the sweep's
machinery (:mod:`.ab_run`).  The record has ``compare``'s layout (environment diff, rows with
verdicts, counts; rendered by :mod:`.render`) plus what only an A/B run knows: rounds, the order
seed, each configuration's stop reason, the stopping rule, the load of every invocation.

Outputs: ``OUTPUT.md``, ``OUTPUT.html``, ``OUTPUT.json`` and every sample of each side in the
results schema (``OUTPUT.base.nc``, ``OUTPUT.new.nc``); ``--format junit`` adds ``OUTPUT.junit.xml`` and
``--format github`` ``OUTPUT.github.md`` (a job summary) with annotations on stderr (docs/ci.md).
Exit codes: 0 written; 2 a usage problem (an argument, a ref, a config, a selection); 1 a failure
while building or running the kernels.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .. import atomic, contention, envdiff, resultset, results, stability
from ..cliargs import UsageError, refuse_output_over_input
from ..errors import TwelveWaysError
from ..prk import sweep
from . import ab_analysis, ab_placement, ab_run, ab_sides, explain, record as record_mod, render, verdicts
from .ab_options import CI_FORMATS, DEFAULT_INVOCATION_SECONDS, DEFAULT_MAX_SECONDS

FORMAT = record_mod.AB_FORMAT
NOISE_TEXT = ("paired within rounds: both sides run in the same rounds on one machine, so the between-run level "
              "that compare needs an A/A run for does not enter; each round's invocations are the noise")


def plan_of(args: argparse.Namespace) -> ab_analysis.Plan:
    """The stopping rule the arguments ask for; an effect inside the margin could never be found."""
    if args.rounds is None and args.effect <= args.margin:
        raise UsageError(f"twelveways ab: --effect {args.effect:g} is not beyond the ±{args.margin:g} margin: a "
                         "verdict needs the whole CI beyond the margin, so the planned effect must exceed it")
    return ab_analysis.Plan(confidence=args.confidence, margin=args.margin, effect=args.effect, rounds=args.rounds,
                            pilot=args.pilot)


def outputs(base: str, ci_formats: Sequence[str] = ()) -> dict[str, Path]:
    """Every file an A/B run writes: the report in three formats, each side's samples, and each CI format asked for."""
    suffixes = ("md", "html", "json", "base.nc", "new.nc", *(CI_FORMATS[fmt] for fmt in dict.fromkeys(ci_formats)))
    return {suffix: Path(f"{base}.{suffix}") for suffix in suffixes}


def texts(record: record_mod.AbRecord) -> dict:
    """Every text an A/B run can write, by suffix, each rendered only when written."""
    title = "twelveways ab: is NEW faster than BASE?"
    return {"md": lambda: markdown(record), "html": lambda: html_page(record), "json": lambda: render.to_json(record),
            "junit.xml": lambda: render.to_junit(record, "twelveways ab"),
            "github.md": lambda: render.to_github(record, title, lead_lines(record))}


def _side(label: str, ref: str | None, found: tuple[Path, str], config: str | Path | None) -> ab_sides.Side:
    root, commit = found
    path = Path(config) if config else root / ab_sides.CONFIG_IN_TREE
    shown = path if config else Path(ab_sides.CONFIG_IN_TREE.as_posix() + f" of {ref or ab_sides.WORKING_TREE}")
    side = ab_sides.Side(label, ref or ab_sides.WORKING_TREE, commit, root, {}, shown)
    side.config = ab_sides.load_config(path, label)
    ab_sides.python_dir_ok(side)
    return side


def _chosen(sides_: dict[str, ab_sides.Side], only: dict[str, set[str]]) -> tuple[list[tuple], list[str], list[str]]:
    points = {label: ab_run.select(sweep.expand(side.prk)[0], only) for label, side in sides_.items()}
    pairs, only_base, only_new = ab_run.pair_points(points["base"], points["new"])
    if not pairs:
        chosen = " chosen by --only " + " ".join(k + "=" + ",".join(sorted(v)) for k, v in only.items()) if only else ""
        raise UsageError(f"twelveways ab: no PRK configuration{chosen} on both sides "
                         f"({len(points['base'])} on base, {len(points['new'])} on new)")
    return pairs, only_base, only_new


def _write_samples(outcome: ab_run.Outcome, sides_: dict[str, ab_sides.Side], paths: dict[str, Path]) -> None:
    """Every sample of each side in the results schema (``compare`` and ``audit`` read them as any results)."""
    for label, side in sides_.items():
        rows = [row for pair in outcome.pairs for row in getattr(pair, label).rows]
        attrs = results.provenance(side.facts, side.config)
        attrs.update({"git_commit": side.commit.removesuffix("+dirty"), "git_dirty": int(side.commit.endswith("+dirty")),
                      "contention": outcome.load, "prk_interleaved": True, "ab_side": label,
                      "ab_order_seed": outcome.seed, "ab_rounds": outcome.rounds, "prk_config": dict(side.prk.section)})
        paths[f"{label}.nc"].parent.mkdir(parents=True, exist_ok=True)
        results.write(results.from_records(rows, family="prk", attrs=attrs), paths[f"{label}.nc"])


def _stability(paths: dict[str, Path]) -> dict[str, list[str]]:
    found = {}
    for label in ("base", "new"):
        try:
            found[label] = stability.lines(resultset.load([str(paths[f"{label}.nc"])]))
        except TwelveWaysError as exc:
            found[label] = [f"not checked: {exc.one_line()}"]
    return found


def measure(roots: dict[str, tuple[Path, str, str | None]], configs: dict[str, str | Path | None],
            plan: ab_analysis.Plan, only: dict[str, set[str]], *, work: Path, output: str, seed: int | None = None,
            max_seconds: float = DEFAULT_MAX_SECONDS, ci_formats: Sequence[str] = (), bind: str = "cores",
            invocation_seconds: float = DEFAULT_INVOCATION_SECONDS) -> record_mod.AbRecord:
    """Build, run and judge two prepared sides and write every output; the record.  ``roots``: {label: (checkout
    holding kernels/, commit, ref or None for the working tree)}; ``configs``: {label: config file or None};
    ``ci_formats``: the ``--format`` choices (:data:`CI_FORMATS`)."""
    paths = outputs(output, ci_formats)
    sides_ = {label: _side(label, roots[label][2], roots[label][:2], configs[label]) for label in ("base", "new")}
    pairs, only_base, only_new = _chosen(sides_, only)
    for side in sides_.values():
        print(f"ab: building {side.label}: {side.describe()}", file=sys.stderr)
        ab_sides.build(side, [b if side.label == "base" else n for b, n in pairs], work)
    seed = seed if seed is not None else sides_["base"].prk.seed
    print(f"ab: {len(pairs)} configuration(s), order seed {seed}; {plan.text()}", file=sys.stderr)
    outcome = ab_run.run_rounds(pairs, sides_, plan, seed=seed, max_seconds=max_seconds, bind=bind,
                                invocation_seconds=invocation_seconds)
    _write_samples(outcome, sides_, paths)
    record = build(outcome, sides_, plan, only_base, only_new, _stability(paths), max_seconds)
    for suffix, text in texts(record).items():
        if suffix in paths:
            atomic.write_text(paths[suffix], text(), "A/B report", make_parents=True)
    print(f"ab: {summary_line(record)}; wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    annotations = render.github_annotations(record) if "github" in ci_formats else []
    if annotations:  # stderr: the runner reads workflow commands from both streams
        print("\n".join(annotations), file=sys.stderr)
    return record


def run(args: argparse.Namespace, plan: ab_analysis.Plan, only: dict[str, set[str]]) -> None:
    refuse_output_over_input(outputs(args.output, args.format).values(), [args.base_config, args.new_config],
                             UsageError, "twelveways ab")
    refs = {"base": args.base, "new": args.new}
    with tempfile.TemporaryDirectory(prefix="twelveways-ab-") as tmp, ab_sides.checkouts(refs, Path(tmp)) as roots:
        measure({label: (*roots[label], refs[label]) for label in refs},
                {"base": args.base_config, "new": args.new_config}, plan, only, work=Path(tmp), output=args.output,
                seed=args.seed, max_seconds=args.max_seconds, ci_formats=args.format, bind=args.bind,
                invocation_seconds=args.invocation_seconds)


# ------------------------------------------------------------------------------------------------ the record


def _stop_summary(outcome: ab_run.Outcome, budget: float) -> str:
    reasons = [pair.reason for pair in outcome.pairs]
    tally = ", ".join(f"{reasons.count(r)} {r}" for r in dict.fromkeys(reasons))
    cut = f"; the time budget ({budget:g} s) ended before every plan was complete" if ab_analysis.STOP_TIME in reasons \
        else ""
    failed = "; invalid: a side failed its own validation (its rows are kept, flagged)" \
        if ab_analysis.STOP_INVALID in reasons else ""
    return f"{tally}{cut}{failed}"


def _rounds_detail(outcome: ab_run.Outcome, paired: list[ab_analysis.PairedRounds]) -> dict:
    """Per configuration, every invocation in the order it ran: round, side, position, mean seconds, load."""
    return {rounds.configuration: [item.model_copy(update={"mean_s": float(f"{item.mean_s:.6g}")})
                                   for item in pair.invocations]
            for pair, rounds in zip(outcome.pairs, paired)}


def build(outcome: ab_run.Outcome, sides_: dict[str, ab_sides.Side], plan: ab_analysis.Plan, only_base: list[str],
          only_new: list[str], stable: dict[str, list[str]], budget: float) -> record_mod.AbRecord:
    """The whole A/B record: ``compare``'s layout (module docstring) plus the ``ab`` section."""
    paired = ab_run.paired_rounds(outcome, sides_)
    rows = ab_analysis.analyse(paired, plan)
    differences = envdiff.diff(sides_["base"].facts, sides_["new"].facts)
    environment = record_mod.Environment.model_validate({"differences": differences, "compared": True, "missing": [],
                                                         "by_class": envdiff.by_class(differences)})
    shown = [{**row.to_dict(), "candidates": explain.candidates(row.key, environment.differences) if row.differs
              else []} for row in rows]
    return record_mod.AbRecord.model_validate({
        "format": FORMAT, "confidence": plan.confidence, "alpha": plan.alpha,
        "base": sides_["base"].describe(), "new": sides_["new"].describe(), "environment": environment,
        "machine_load": {"both sides (interleaved)": [contention.describe(outcome.load)]},
        "noise_floor": {"margin": plan.margin, "margin_text": f"±{plan.margin:.0%} practical-equivalence margin",
                        "measured": False, "text": NOISE_TEXT, "false_positive_rate": None},
        "load_rule": ab_analysis.LOAD_RULE,
        "method": f"{ab_analysis.MODEL}; iterations: {ab_run.iterations_rule(outcome.invocation_seconds)}; "
                  f"stopping rule: {plan.text()}",
        "counts": verdicts.counts(rows), "rows": shown, "stability": stable,
        "only_base": only_base, "only_new": only_new, "ab": _ab_section(outcome, paired, plan, budget),
    })


def _ab_section(outcome: ab_run.Outcome, paired: list[ab_analysis.PairedRounds], plan: ab_analysis.Plan,
                budget: float) -> dict:
    """What only an A/B run knows (:class:`.record.AbSection`): rounds, seed, stops, placement, every invocation."""
    by_configuration = list(zip(outcome.pairs, paired))
    return {"order_seed": outcome.seed, "rounds": outcome.rounds, "program_runs": outcome.program_runs,
            "seconds": outcome.seconds, "stop": _stop_summary(outcome, budget),
            "stop_reasons": {r.configuration: pair.reason for pair, r in by_configuration},
            "planned_rounds": {r.configuration: pair.progress.planned for pair, r in by_configuration},
            "stopping_rule": plan.text(), "model": ab_analysis.MODEL, "load": outcome.load,
            "busy_rounds": sum(int(r.busy.sum()) for r in paired), "paired_rounds": sum(r.base.size for r in paired),
            "placement": {r.configuration: pair.placement.text() for pair, r in by_configuration},
            "placement_rule": ab_placement.RULE, "invocations": _rounds_detail(outcome, paired),
            "iterations": {r.configuration: pair.iterations_text for pair, r in by_configuration}}


def summary_line(record: record_mod.AbRecord) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in record.counts.items()) or "no configuration judged"
    return f"{counts} after {record.ab.rounds} round(s) in {record.ab.seconds:.1f} s"


def lead_lines(record: record_mod.AbRecord) -> list[str]:
    """What an A/B report says first: the verdicts, the rounds and how they stopped, the busy rounds (the model,
    the stopping rule and the machine's load follow in compare's sections)."""
    ab = record.ab
    return [f"Verdicts: {summary_line(record)} ({ab.program_runs} program runs; each round one invocation of each "
            f"side, in an order drawn from seed {ab.order_seed} and recorded in the JSON).",
            f"Stop: {ab.stop}.",
            f"Placement: {placement_summary(ab.placement)} ({ab.placement_rule}).",
            f"Iterations per invocation: {iterations_summary(ab.iterations)}.",
            f"Busy rounds: {ab.busy_rounds} of {ab.paired_rounds} paired rounds ran on a busy machine (an "
            "invocation during which other processes or the hypervisor took a busy share of the CPU, or one too short "
            "to measure while the run as a whole was busy; the rule is stated below)."]


def iterations_summary(chosen: dict[str, str]) -> str:
    """How many configurations ran calibrated iterations, and the reasons of those that did not."""
    texts = list(chosen.values())
    calibrated = sum(" on both sides " in t for t in texts)
    others = sorted({t.split(" ", 1)[1] for t in texts if " on both sides " not in t and " " in t})
    return (f"{calibrated} of {len(texts)} configuration(s) calibrated to about the same timed work on both sides"
            + (f"; the others {'; '.join(others)}" if others else ""))


def placement_summary(placed: dict[str, str]) -> str:
    """How many configurations ran bound, and the reasons of those that did not."""
    texts = list(placed.values())
    bound = sum(t.startswith("bound") for t in texts)
    unbound = sorted({t for t in texts if not t.startswith("bound")})
    return f"{bound} of {len(texts)} configuration(s) bound" + (f"; {'; '.join(unbound)}" if unbound else "")


def markdown(record: record_mod.AbRecord) -> str:
    """The A/B report as Markdown: the lead, then compare's sections one level down."""
    from .. import escape

    body = render.markdown(record, "Configurations compared").replace("\n## ", "\n### ").replace("# ", "## ", 1)
    lead = "\n".join(f"- {escape.markdown_text(line)}" for line in lead_lines(record))
    return f"# A/B comparison: is NEW faster than BASE?\n\n{lead}\n\n{body}"


def html_page(record: record_mod.AbRecord) -> str:
    """The A/B report as a standalone HTML page (same content as the Markdown)."""
    import html

    lead = "".join(f"<li>{html.escape(line)}</li>" for line in lead_lines(record))
    page = render.html_page(record, "Configurations compared")
    page = page.replace("<title>Configurations compared</title>", "<title>A/B comparison</title>", 1)
    return page.replace("<body>", f"<body><h1>A/B comparison: is NEW faster than BASE?</h1><ul>{lead}</ul>", 1) \
        .replace("<h1>Configurations compared</h1>", "<h2>Configurations compared</h2>", 1)
