"""Did a re-run reproduce a stored result set?  Per claim and per headline number, with reasons.

Why: a committee re-runs the artifact and must answer "did I get the same results, and if not,
why?".  Each claim is checked on both sides: the same outcome (supported on both, within its
stated tolerance) is Reproduced, another outcome Not reproduced, an inconclusive side
Inconclusive.  Each headline number of the new run (one key configuration per workload or
scenario, as the report's first screen shows it) is compared with the same configuration of the
reference: its whole CI within the practical-equivalence margin is Reproduced, faster or
slower beyond it Not reproduced (with the size of the difference and at most three plausible
causes: a busy machine, then the environment differences this kind of kernel depends on),
anything else Inconclusive with what would decide it.  Which numbers are compared depends on the
machines (:mod:`machines`): on different hardware, absolute values are "Not comparable" and
only claims and portable quantities are judged.  The record leads with "N of M claims
reproduced" and one hyperfine-style line per claim.
"""

from __future__ import annotations

from pathlib import Path

from .. import claims as claims_mod
from .. import resultset, stats
from ..evidence.settings import resolve_confidence
from ..evidence.summary import StatedSummary
from .. import key_results
from . import build, explain, machines, noise, record as record_mod, sides, table, verdicts

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "Reproduced", "Not reproduced", "Inconclusive"


def _claim_line(result) -> str:
    """hyperfine's style for a claim: the estimate with its interval, or why there is none."""
    numbers = result.numbers
    if numbers.interval:
        low, high = numbers.interval
        return f"{numbers.estimate:.3g} [{low:.3g}, {high:.3g}]"
    return "no interval"


def _claim_reason(old, now, outcome: str) -> str:
    if outcome == REPRODUCED:
        return f"{now.verdict.value.replace('_', ' ')} in both runs"
    if outcome == NOT_REPRODUCED:
        return (f"reference {old.verdict.value.replace('_', ' ')}, this run {now.verdict.value.replace('_', ' ')}: "
                f"{now.message}")
    undecided = now if now.verdict.value == "inconclusive" else old
    side = "this run" if undecided is now else "the reference"
    return f"inconclusive in {side}: {undecided.message}"


def claim_rows(reference: sides.Side, new: sides.Side, claims_file: str | Path | None
               ) -> tuple[record_mod.ClaimRow, ...]:
    """Each claim's outcome on both sides, whether the new run reproduces it, and why."""
    if not claims_file:
        return ()
    claims = claims_mod.load_claims(claims_file)
    before = claims_mod.check_all(claims, reference.data.frame, reference.data.busy_machine(), reference.data.config)
    after = claims_mod.check_all(claims, new.data.frame, new.data.busy_machine(), new.data.config)
    rows = []
    for old, now in zip(before, after):
        if "inconclusive" in (old.verdict.value, now.verdict.value):
            outcome = INCONCLUSIVE
        else:
            outcome = REPRODUCED if old.verdict == now.verdict else NOT_REPRODUCED
        reason = _claim_reason(old, now, outcome)
        rows.append(record_mod.ClaimRow(
            id=now.id, statement=now.statement, reference=old.verdict.value.replace("_", " "),
            new=now.verdict.value.replace("_", " "), outcome=outcome, reason=reason,
            line=f"{now.id}: {_claim_line(now)} in this run, {_claim_line(old)} in the reference: {outcome} ({reason})",
            reference_message=old.message, new_message=now.message))
    return tuple(rows)


def _headline_samples(side: sides.Side, summaries: list[tuple[str, StatedSummary]]) -> dict:
    """{key: Samples} of the rows behind each headline summary, on one side."""
    found = {}
    for family, summary in summaries:
        filters = {k: v for k, v in summary.filters.items() if k != "iteration"}
        rows = resultset.select(side.data.frame, summary.metric, filters)
        values = rows["value"].to_numpy(dtype=float) if len(rows) else None
        if values is None or values.size == 0:
            continue
        key = (("family", family), ("configuration", key_results.short_configuration(family, summary.filters)),
               ("metric", summary.metric))
        kind = side.data.kinds.loc[rows.index].iloc[0]
        groups = tuple(g.to_numpy(dtype=float) for _, g in rows.groupby("run_id", sort=True)["value"])
        found[key] = table.Samples(key, str(kind), values, int(rows["run_id"].nunique()), groups)
    return found


def headline_rows(reference: sides.Side, new: sides.Side, derived_dir: Path, chosen: verdicts.Noise,
                  differences: tuple[record_mod.Difference, ...], confidence: float, hardware: tuple[str, str]
                  ) -> tuple[record_mod.HeadlineRow, ...]:
    """The new run's headline numbers against the reference's same configurations; absolute values on
    different hardware are not comparable (the relation says why)."""
    summaries = key_results.key_rows(key_results.load_summaries(derived_dir, strict=True))
    before = _headline_samples(reference, summaries)
    after = _headline_samples(new, summaries)
    busy = sides.busy_causes(reference) + sides.busy_causes(new)
    rows = []
    for row in verdicts.compare_tables(before, after, chosen, confidence=confidence):
        family, config, metric = (row.key[c] for c in ("family", "configuration", "metric"))
        outcome = {"same": REPRODUCED, "inconclusive": INCONCLUSIVE}.get(row.verdict, NOT_REPRODUCED)
        filters = next((s.filters for f, s in summaries
                        if f == family and key_results.short_configuration(f, s.filters) == config), {})
        item = row.to_dict() | {"outcome": outcome, "configuration": f"{family}: {config} ({metric})"}
        item["candidates"] = explain.candidates(filters | {"benchmark": family}, differences, busy) \
            if outcome == NOT_REPRODUCED else busy[:explain.MAX_CAUSES] if outcome == INCONCLUSIVE else []
        if hardware[0] == machines.OTHER_HARDWARE and row.kind in machines.ABSOLUTE_KINDS:
            item |= {"outcome": machines.not_comparable(hardware[1]), "candidates": [],
                     "reason": f"an absolute {metric} on {hardware[1]}; claims and ratios carry across machines"}
        rows.append(item)
    missing = sorted(f"{dict(k)['family']}: {dict(k)['configuration']} ({dict(k)['metric']})"
                     for k in set(after) ^ set(before))
    rows += [{"configuration": m, "outcome": INCONCLUSIVE, "reason": "on one side only"} for m in missing]
    return tuple(record_mod.HeadlineRow.model_validate(row) for row in rows)


def _absolute_not_comparable(compared: record_mod.Comparison, why: str) -> dict:
    """Different hardware: the full comparison's absolute rows keep their numbers, not their verdicts (the rows
    and the counts that replace the comparison's)."""
    rows = [row.model_copy(update={"verdict": "not comparable", "candidates": (),
                                   "reason": f"absolute value on {why}: {row.reason}"})
            if row.kind in machines.ABSOLUTE_KINDS else row for row in compared.rows]
    found = [row.verdict for row in rows]
    return {"rows": tuple(rows), "counts": {v: found.count(v) for v in dict.fromkeys(found)}}


def reproduction(reference: str | Path, results_dir: str | Path, *, claims_file: str | Path | None,
                 confidence: float | None = None, floor_given: float | None = None,
                 margin: float = verdicts.DEFAULT_MARGIN) -> record_mod.Reproduction:
    """The whole reproduction record: claims, headline numbers, the full comparison, the noise floor
    (``confidence`` None: the schema's)."""
    confidence = stats.check_confidence(resolve_confidence(confidence))
    ref = sides.load([str(reference)], "reference")
    new = sides.load([str(results_dir)], "this run")
    compared = build.build(ref, new, confidence=confidence, floor_given=floor_given, margin=margin)
    chosen = noise.choose([ref.noise_floor, new.noise_floor], floor_given, margin=margin)
    hardware = machines.relation(ref.environment, new.environment)
    replaced = _absolute_not_comparable(compared, hardware[1]) if hardware[0] == machines.OTHER_HARDWARE else {}
    claims = claim_rows(ref, new, claims_file)
    headline = headline_rows(ref, new, Path(results_dir) / "derived", chosen, compared.environment.differences,
                             confidence, hardware)
    reproduced = sum(r.outcome == REPRODUCED for r in claims)
    outcomes = [r.outcome for r in (*claims, *headline)]
    return record_mod.Reproduction.model_validate({
        **compared.set_fields(), **replaced, "machines": {"relation": hardware[0], "why": hardware[1]}, "claims": claims,
        "headline": headline, "claims_summary": f"{reproduced} of {len(claims)} claims reproduced",
        "outcomes": {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}})
