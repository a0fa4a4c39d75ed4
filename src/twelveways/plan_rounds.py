"""How many rounds ``twelveways ab`` needs to find an effect on each configuration, and how long they take.

Why (issue 41): a researcher should know before starting ``ab`` whether a 2 % change is within
reach in an afternoon.  ``ab`` pairs one invocation of each side per round and fixes its rounds at
the end of a pilot from the pilot's spread of the per-round log ratio d = log(NEW/BASE) (the
trimmed mean's standard error times sqrt(rounds); the two-stage plan,
:class:`twelveways.compare.ab_analysis.Plan`).  This module feeds that same plan a recorded spread
instead of a pilot's:

* from a previous ``ab`` record (``--ab-record``): the trimmed spread of its rounds' log ratios,
  per configuration (its recorded invocations, paired by round);
* else from the finished run's own invocations: the two invocations of a round are independent
  draws of one configuration's within-run noise, so var(d) = 2 var(log invocation summary) (the
  run's within-run spread; the between-run level cancels within a round, as it does in ``ab``),
  the sd standing in for the trimmed spread (the two agree for normal noise; heavy tails make the
  sd the larger, so the plan errs long).

Rounds = ``Plan.rounds_for_sd(spread, pilot's trimmed df)``: what ``ab`` fixes when its pilot shows this sd (a
pilot that already decides stops earlier).  Time = rounds x (one invocation of each side, the run's
recorded cost per invocation; from an ab record, its seconds per program run), plus building the
two sides (the run's ``prk_build`` benchmark file, twice) where recorded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import SimpleNamespace

import numpy as np

from .compare import ab_analysis, ab_run
from .compare import record as compare_record
from .compare.record import Invocation
from .errors import AuditInputError


def _as_point(key: Mapping) -> SimpleNamespace:
    """A plan row or an ab record's key as ``ab --only`` selects on it."""
    return SimpleNamespace(kernel=str(key.get("workload")), implementation=str(key.get("implementation")),
                           ranks=key.get("ranks"), threads=key.get("threads"), scaling=str(key.get("scaling")),
                           size=key.get("size"))


def _selected(key: Mapping, only: Mapping[str, set[str]]) -> bool:
    point = _as_point(key)
    return all(ab_run.SELECTABLE[name](point) in values for name, values in only.items())


def _label(key: Mapping) -> str:
    return (f"{key.get('workload')} {key.get('implementation')} {key.get('ranks')}x{key.get('threads')} "
            f"size {key.get('size')} {key.get('scaling')}")


def spreads_from_run(rows: Sequence[Mapping], only: Mapping[str, set[str]]) -> list[dict]:
    """Per selected configuration of a finished run: sd of d (module docstring) and seconds per invocation."""
    found = []
    for row in rows:
        if not _selected(row, only):
            continue
        variance = row.get("variance")
        found.append({"configuration": _label(row), "sd": math.sqrt(2.0 * variance) if variance is not None else None,
                      "cost_s": float(row["cost_s"]), "source": f"{row['invocations']} invocations of this run"})
    return found


def round_log_ratios(invocations: Sequence[Invocation]) -> np.ndarray:
    """log(NEW/BASE) of every round that has both sides' invocation summaries."""
    sides: dict[int, dict[str, float]] = {}
    for item in invocations:
        sides.setdefault(item.round, {})[item.side] = float(item.mean_s)
    pairs = [(s["base"], s["new"]) for s in sides.values() if s.get("base", 0) > 0 and s.get("new", 0) > 0]
    return np.array([math.log(new / base) for base, new in pairs], dtype=float)


def spreads_from_ab(record: Mapping, only: Mapping[str, set[str]], source: str) -> list[dict]:
    """Per selected configuration of a previous ``ab`` record (parsed JSON, checked on load as
    :class:`twelveways.compare.record.AbRecord`): trimmed spread of its rounds' log ratios, and the record's seconds per
    program run."""
    typed = compare_record.from_dict(record, source)
    if not isinstance(typed, compare_record.AbRecord):
        raise AuditInputError(f"{source}: not a twelveways ab record (no ab section: a comparison of two runs)")
    ab = typed.ab
    per_run = float(ab.seconds) / ab.program_runs if ab.program_runs else math.nan
    found = []
    for row in typed.rows:
        if not _selected(row.key, only):
            continue
        d = round_log_ratios(ab.invocations.get(row.configuration, ()))
        found.append({"configuration": _label(row.key), "sd": ab_analysis.spread(d) if d.size > 1 else None,
                      "cost_s": per_run, "source": f"{d.size} rounds of {source}"})
    return found


def check_effects(effects: Sequence[float], margin: float) -> None:
    """Each effect must lie beyond the margin, as ``ab --effect`` must (checked before anything is read)."""
    for effect in effects:
        if effect <= margin:
            raise AuditInputError(f"twelveways plan: --ab-effect {effect:g} is not beyond the ±{margin:g} margin: ab "
                                  f"calls a change only when its whole CI lies beyond the margin; pass --ab-margin "
                                  f"below {effect:g} to plan for it")


def rounds(spreads: Sequence[Mapping], effects: Sequence[float], *, confidence: float, margin: float, pilot: int,
           build_s: float | None) -> dict:
    """Rounds per configuration for each effect, and the predicted time of ab's rounds (module docstring)."""
    check_effects(effects, margin)
    if not spreads:
        raise AuditInputError("twelveways plan: no configuration chosen by --only to plan ab's rounds for")
    answers = []
    for effect in effects:
        stein = ab_analysis.Plan(confidence=confidence, margin=margin, effect=effect, pilot=pilot)
        per = [{**s, "rounds": stein.rounds_for_sd(s["sd"], stein.pilot_df) if s["sd"] is not None else None}
               for s in spreads]
        seconds = sum(2 * p["rounds"] * p["cost_s"] for p in per if p["rounds"] is not None and math.isfinite(p["cost_s"]))
        answers.append({"effect": effect, "configurations": per, "stopping_rule": stein.text(),
                        "rounds_seconds": seconds, "build_s": 2 * build_s if build_s is not None else None,
                        "capped": sum(p["rounds"] == stein.most for p in per if p["rounds"] is not None),
                        "unknown": sum(p["rounds"] is None for p in per)})
    return {"margin": margin, "confidence": confidence, "pilot": pilot, "answers": answers}


def text(answer: Mapping, duration) -> str:
    """The ab-rounds answer in words: per effect, its total time, then each configuration's rounds."""
    lines = []
    for found in answer["answers"]:
        per = found["configurations"]
        build = f" plus {duration(found['build_s'])} to build both sides" if found["build_s"] is not None else ""
        lines.append(f"ab rounds for a {found['effect']:.3g} effect ({found['effect'] * 100:.3g}%) beyond the "
                     f"±{answer['margin'] * 100:.3g}% margin on {len(per)} configuration(s): "
                     f"{duration(found['rounds_seconds'])} of rounds{build}; "
                     f"{found['capped']} reach ab's most rounds ({ab_analysis.MAX_ROUNDS}: the effect is out of reach there), "
                     f"{found['unknown']} have no spread to plan from.")
        for p in sorted(per, key=lambda p: -(p["rounds"] or 10 ** 6)):
            sd = f"spread of the per-round log ratio {p['sd']:.2%}" if p["sd"] is not None else "no spread (one invocation)"
            need = p["rounds"] if p["rounds"] is not None else "unknown"
            cost = f"{p['cost_s']:.3g} s per invocation" if math.isfinite(p["cost_s"]) else "cost per invocation unknown"
            lines.append(f"  {p['configuration']}: {need} rounds ({sd}, {p['source']}; {cost})")
    lines.append(f"Rounds as ab fixes them at the end of its {answer['pilot']}-round pilot were the pilot's spread the "
                 f"recorded one (ab's two-stage plan, {ab_analysis.PLAN_POWER:.0%} power, confidence "
                 f"{answer['confidence']:.3g}); a pilot that already decides stops after {answer['pilot']} rounds.")
    return "\n".join(lines) + "\n"
