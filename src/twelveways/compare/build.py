"""A whole comparison of two sides as one JSON-ready record (what every renderer shows).

Order of the record is the order a reader needs: the environment diff first (is this even the
same machine and software?), the noise floor, then each configuration's verdict with the
environment differences that could explain it, then what only one side has (never dropped).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .. import stability, stats
from ..evidence.settings import resolve_confidence
from . import explain, noise, record, sides, stated, table, verdicts

FORMAT = record.COMPARISON_FORMAT


def _environment(base: sides.Side, new: sides.Side) -> record.Environment:
    differences = explain.environment_diff(base.environment, new.environment)
    missing = [s.label for s in (base, new) if s.environment is None]
    return record.Environment.model_validate({
        "differences": differences or [], "compared": differences is not None, "missing": missing,
        "by_class": explain.envdiff.by_class(differences or []),
        "sources": {s.label: s.environment_path for s in (base, new) if s.environment is not None}})


#: Verdicts a machine's load can produce: the busy side slower, or a difference the load could hide.
LOAD_RULE = ("a busy side is never called slower, and no configuration is called the same while a side was busy: "
             "contention slows a kernel by no bounded factor (a 2-thread kernel whose second core is taken waits at "
             "every barrier), so only a busy side measured faster stands")


def load_explained(row: verdicts.Row, busy_base: list[str], busy_new: list[str]) -> verdicts.Row:
    """``row`` with its verdict withdrawn where the recorded load can explain it (:data:`LOAD_RULE`): "inconclusive",
    the reason naming the load, so a busy machine never reads as a finding about the code."""
    if row.kind == "quality" or row.verdict not in ("faster", "slower", "same"):
        return row
    new_slower = row.verdict == "slower"
    explaining = (busy_new if new_slower else []) + (busy_base if row.verdict == "faster" else []) + \
        (busy_base + busy_new if row.verdict == "same" else [])
    if not explaining:
        return row
    return dataclasses.replace(row, verdict="inconclusive", reason=f"not decidable: {'; '.join(explaining)} "
                                                                  f"(measured {row.verdict}: {row.reason})")


def build(base: sides.Side, new: sides.Side, *, confidence: float | None = None, floor_given: float | None = None,
          margin: float = verdicts.DEFAULT_MARGIN, claims: Sequence[record.ClaimRow] | None = None
          ) -> record.Comparison:
    """Compare every configuration both sides hold (see the package docstring); ``confidence`` None: the schema's;
    ``claims``: each claim checked on both sides (``compare --claims``), None: not asked for (no section)."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    columns = table.family_columns(base.data, new.data)
    a, b = table.samples(base.data, columns), table.samples(new.data, columns)
    said_a, said_b = stated.table(base.data, columns, a), stated.table(new.data, columns, b)
    varying = table.varying([*a, *b, *said_a, *said_b])
    chosen = noise.choose([base.noise_floor, new.noise_floor], floor_given, margin=margin)
    from_stated, covered = stated.compare(a, b, said_a, said_b, chosen, {k: table.label(k, varying) for k in
                                                                          {*said_a, *said_b}}, confidence=confidence)
    rows = [load_explained(row, sides.busy_causes(base, row.key.get("family")), sides.busy_causes(new, row.key.get("family")))
            for row in [*verdicts.compare_tables(a, b, chosen, confidence=confidence), *from_stated]]
    environment = _environment(base, new)
    busy = sides.busy_causes(base) + sides.busy_causes(new)
    shown = []
    for row in rows:
        item = row.to_dict()
        item["candidates"] = explain.candidates(row.key, environment.differences, busy) if row.differs \
            else busy[:explain.MAX_CAUSES] if row.verdict == "inconclusive" else []
        shown.append(item)
    return record.Comparison.model_validate({
        "format": FORMAT, "confidence": confidence, "alpha": round(1 - confidence, 12),
        "base": sides.describe(base), "new": sides.describe(new), "environment": environment,
        "machine_load": {side.label: sides.load_lines(side) for side in (base, new)},
        "noise_floor": {"margin": chosen.margin, "margin_text": chosen.margin_text, "measured": chosen.measured,
                        "text": chosen.text, "false_positive_rate": chosen.false_positive_rate},
        "load_rule": LOAD_RULE,
        "method": (f"ratio NEW/BASE from the {stats.REPLICATE_METHOD}; n counts invocations; A/A between-run "
                   f"variance added where measured; Benjamini-Hochberg over {len(rows)} configurations (false "
                   f"discovery rate {1 - confidence:.0%}); a verdict needs the whole {confidence:.0%} CI beyond "
                   f"the {chosen.margin_text}, \"same\" the whole CI within it; 80% power for the smallest "
                   "detectable ratio and the invocations that would decide"),
        "stated_method": stated.METHOD if from_stated else "",
        "counts": verdicts.counts(rows), "rows": shown,
        "stability": {side.label: stability.lines(side.data) for side in (base, new)},
        "only_base": sorted(table.label(k, varying) for k in stated.only(a, b, said_a, said_b, covered)),
        "only_new": sorted(table.label(k, varying) for k in stated.only(b, a, said_b, said_a, covered)),
        **({} if claims is None else {"claims": tuple(claims)}),
    })
