"""Did a re-run reproduce a stored result set?  Per claim and per headline number, with reasons.

Why: a committee re-runs the artifact and must answer "did I get the same results, and if not,
why?".  Each claim is checked on both sides: the same outcome (supported on both, within its
stated tolerance) is Reproduced, another outcome Not reproduced, an inconclusive side
Inconclusive.  Each headline number of the new run (one key configuration per workload or
scenario, as the report's first screen shows it) is compared with the same configuration of the
reference: statistically indistinguishable within the noise floor is Reproduced, faster or
slower beyond it Not reproduced (with the size of the difference and the environment
differences that could explain it), anything else Inconclusive with what would decide it.
"""

from __future__ import annotations

from pathlib import Path

from ..checklist import claims as claims_mod
from ..checklist import evidence
from ..report import headline
from . import build, explain, noise, sides, table, verdicts

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "Reproduced", "Not reproduced", "Inconclusive"


def claim_rows(reference: sides.Side, new: sides.Side, claims_file: str | Path | None) -> list[dict]:
    """Each claim's outcome on both sides and whether the new run reproduces it."""
    if not claims_file:
        return []
    claims = claims_mod.load_claims(claims_file)
    before = claims_mod.check_all(claims, reference.data.frame)
    after = claims_mod.check_all(claims, new.data.frame)
    rows = []
    for old, now in zip(before, after):
        if "inconclusive" in (old.verdict.value, now.verdict.value):
            outcome = INCONCLUSIVE
        else:
            outcome = REPRODUCED if old.verdict == now.verdict else NOT_REPRODUCED
        rows.append({"id": now.id, "statement": now.statement, "reference": old.verdict.value.replace("_", " "),
                     "new": now.verdict.value.replace("_", " "), "outcome": outcome,
                     "reference_message": old.message, "new_message": now.message})
    return rows


def _headline_samples(side: sides.Side, summaries: list[tuple[str, dict]]) -> dict:
    """{key: Samples} of the rows behind each headline summary, on one side."""
    found = {}
    for family, summary in summaries:
        filters = {k: v for k, v in (summary.get("filters") or {}).items() if k != "iteration"}
        rows = evidence.select(side.data.frame, str(summary.get("metric", "")), filters)
        values = rows["value"].to_numpy(dtype=float) if len(rows) else None
        if values is None or values.size == 0:
            continue
        key = (("family", family), ("configuration", headline.short_configuration(family, summary.get("filters") or {})),
               ("metric", str(summary.get("metric"))))
        kind = side.data.kinds.loc[rows.index].iloc[0]
        groups = tuple(g.to_numpy(dtype=float) for _, g in rows.groupby("run_id", sort=True)["value"])
        found[key] = table.Samples(key, str(kind), values, int(rows["run_id"].nunique()), groups)
    return found


def headline_rows(reference: sides.Side, new: sides.Side, derived_dir: Path, chosen: verdicts.Noise,
                  differences: list[dict] | None, confidence: float) -> list[dict]:
    """The new run's headline numbers against the reference's same configurations."""
    summaries = headline.key_rows(headline.load_summaries(derived_dir))
    before = _headline_samples(reference, summaries)
    after = _headline_samples(new, summaries)
    rows = []
    for row in verdicts.compare_tables(before, after, chosen, confidence=confidence):
        family, config, metric = (row.key[c] for c in ("family", "configuration", "metric"))
        outcome = {"same": REPRODUCED, "inconclusive": INCONCLUSIVE}.get(row.verdict, NOT_REPRODUCED)
        filters = next((s.get("filters") or {} for f, s in summaries
                        if f == family and headline.short_configuration(f, s.get("filters") or {}) == config), {})
        item = row.to_dict() | {"outcome": outcome, "configuration": f"{family}: {config} ({metric})"}
        item["candidates"] = explain.candidates(filters | {"benchmark": family}, differences) \
            if outcome == NOT_REPRODUCED else []
        rows.append(item)
    missing = sorted(f"{dict(k)['family']}: {dict(k)['configuration']} ({dict(k)['metric']})"
                     for k in set(after) ^ set(before))
    rows += [{"configuration": m, "outcome": INCONCLUSIVE, "reason": "on one side only"} for m in missing]
    return rows


def reproduction(reference: str | Path, results_dir: str | Path, *, claims_file: str | Path | None,
                 confidence: float = 0.95, floor_given: float | None = None) -> dict:
    """The whole reproduction record: claims, headline numbers, the full comparison, the noise floor."""
    ref = sides.load([str(reference)], "reference")
    new = sides.load([str(results_dir)], "this run")
    record = build.build(ref, new, confidence=confidence, floor_given=floor_given)
    chosen = noise.choose([ref.noise_floor, new.noise_floor], floor_given)
    derived = Path(results_dir) / "derived"
    record["claims"] = claim_rows(ref, new, claims_file)
    record["headline"] = headline_rows(ref, new, derived, chosen, record["environment"]["differences"], confidence)
    outcomes = [r["outcome"] for r in record["claims"] + record["headline"]]
    record["outcomes"] = {o: outcomes.count(o) for o in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE) if o in outcomes}
    return record
