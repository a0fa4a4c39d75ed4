"""Which profile can decide a claim: the replicates its test needs, and what each profile provides.

Why: a claim whose test cannot reach significance with the replicates a profile makes is
"inconclusive" by construction, run after run, and a reader cannot tell that from a real tie.
Each claim in ``config/claims.yaml`` states what it needs (``needs: {seeds: 8}``) and which
profiles provide it (``profiles: [full]``); a test derives the need from the claim's test and
checks both against ``config/config.yaml`` (quick) and ``config/full.yaml`` (full), so the file
cannot drift.  In a run, a claim its profile does not provide is named in the headline with the
profile that decides it.

The needs, per replicate unit (Holm over the claims of one file: in the worst case a claim's p
must fall below α/m, with m claims):

* ``seeds`` — paired by seed, one-sided exact Wilcoxon signed-rank: with n pairs the smallest
  attainable p is 2^-n, so n is the least with 2^-n < α/m (8 claims at α = 0.05: 2^-8 = 1/256
  < 1/160, while 7 pairs give 1/128);
* ``invocations`` (PRK) and ``loadgen_runs`` (inference) — Welch t on the log run summaries: any
  p is attainable from two runs per side, but the claims ask for :data:`MIN_RUNS_PER_SIDE` (with
  two, one degree of freedom puts the 95 % t quantile at 12.7: no interval decides anything).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .errors import ClaimError

#: The fewest runs per side the replicates design asks for before it states an interval.
MIN_RUNS_PER_SIDE = 3
UNITS = ("seeds", "invocations", "loadgen_runs")
UNIT_WORDS = {"seeds": "seeds", "invocations": "invocations", "loadgen_runs": "LoadGen runs"}
PROFILE_NAMES = ("quick", "full")
#: LoadGen's scenario names -> the keys of infer.performance_runs / min_queries.
SCENARIO_KEYS = {"SingleStream": "single_stream", "MultiStream": "multi_stream", "Offline": "offline",
                 "Server": "server"}


def seeds_needed(alpha: float, family_size: int) -> int:
    """The fewest seed pairs whose one-sided exact signed-rank test can reach p < alpha / family_size."""
    if not 0 < alpha < 1 or family_size < 1:
        raise ClaimError(f"alpha must lie in (0, 1) and the family hold a claim (got {alpha}, {family_size})")
    return math.floor(math.log2(family_size / alpha)) + 1


def needed(unit: str, alpha: float, family_size: int) -> int:
    """Replicates of ``unit`` a claim needs to be decidable after Holm over ``family_size`` claims."""
    if unit == "seeds":
        return seeds_needed(alpha, family_size)
    if unit in ("invocations", "loadgen_runs"):
        return MIN_RUNS_PER_SIDE
    raise ClaimError(f"needs: unknown replicate unit {unit!r} (one of {', '.join(UNITS)})")


def parse_needs(value, where: str) -> dict[str, int]:
    """A claim's ``needs`` mapping: one replicate unit and a positive whole count."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or len(value) != 1:
        raise ClaimError(f"{where}: needs must map one replicate unit ({', '.join(UNITS)}) to a count")
    (unit, count), = value.items()
    if unit not in UNITS or isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ClaimError(f"{where}: needs {unit!r}: {count!r} is not a unit of {', '.join(UNITS)} with a count >= 1")
    return {str(unit): int(count)}


def parse_profiles(value, where: str) -> tuple[str, ...]:
    """A claim's ``profiles``: the profiles whose replicates decide it (default: every profile)."""
    if value is None:
        return PROFILE_NAMES
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(n in PROFILE_NAMES for n in names):
        raise ClaimError(f"{where}: profiles must list some of {', '.join(PROFILE_NAMES)}, got {value!r}")
    return tuple(names)


def provided(unit: str, side: Mapping, config: Mapping) -> int | None:
    """How many replicates of ``unit`` a profile's config makes for one side of a claim (None: not stated)."""
    section = config.get({"seeds": "train", "invocations": "prk", "loadgen_runs": "infer"}[unit]) or {}
    if unit == "seeds":
        return _whole(section.get("seeds"))
    if unit == "invocations":
        return _whole(section.get("min_invocations"))
    runs = section.get("performance_runs") or {}
    key = SCENARIO_KEYS.get(str(side.get("scenario")), "")
    return _whole(runs.get(key, 1)) if isinstance(runs, Mapping) else None


def _whole(value) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def shortfall(claim, config: Mapping) -> dict | None:
    """What the run's profile lacks to decide ``claim`` ({unit, needs, provided, profile, decided_by}), or None
    when it provides the stated need or the claim states none."""
    needs = getattr(claim, "needs", None) or {}
    if not needs or not config:
        return None
    (unit, count), = needs.items()
    have = provided(unit, claim.a, config)
    profile = str(config.get("profile") or "unknown")
    if have is not None and have >= count and profile in claim.profiles:
        return None
    return {"unit": unit, "needs": count, "provided": have, "profile": profile,
            "decided_by": [p for p in claim.profiles if p != profile] or list(claim.profiles)}


def shortfall_text(gap: Mapping) -> str:
    """'needs 8 seeds, the quick profile runs 5: decided by the full profile'."""
    unit = UNIT_WORDS.get(gap["unit"], gap["unit"])
    have = "does not say" if gap["provided"] is None else f"runs {gap['provided']}"
    by = " or ".join(gap["decided_by"])
    return f"needs {gap['needs']} {unit} per side, the {gap['profile']} profile {have}: decided by the {by} profile"


def annotate(results: Sequence, claims: Sequence, config: Mapping | None) -> list:
    """Each claim result with what its run's profile lacks to decide it (its numbers' ``decidable``); an
    inconclusive verdict says so first, so it never reads as a tie."""
    by_id = {claim.id: claim for claim in claims}
    out = []
    for result in results:
        claim = by_id.get(result.id)
        gap = shortfall(claim, config or {}) if claim is not None else None
        if gap is not None:
            message = (f"not decidable in this profile ({shortfall_text(gap)}); {result.message}"
                       if result.verdict.value == "inconclusive" else result.message)
            result = result.replaced(numbers=result.numbers.replaced(decidable=gap), message=message)
        out.append(result)
    return out
