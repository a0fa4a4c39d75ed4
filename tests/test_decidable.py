"""Profiles that decide their claims: the replicates each claim's test needs, derived and checked against the
profiles that are said to provide them (config/claims.yaml, config/config.yaml, config/full.yaml)."""

from __future__ import annotations

import re

from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup
from scipy import stats as sps

from twelveways import claims, config, decidable, plan
from twelveways.checklist.model import AuditReport
from twelveways.errors import ClaimError
from twelveways.report import headline

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = claims.load_claims(ROOT / "config" / "claims.yaml")


@pytest.mark.parametrize("family, seeds", [(1, 5), (7, 8), (8, 8), (20, 9)])
def test_seed_pairs_needed_follow_from_the_smallest_signed_rank_p(family, seeds):
    assert decidable.seeds_needed(0.05, family) == seeds
    for n, reachable in ((seeds, True), (seeds - 1, False)):
        smallest = sps.wilcoxon(np.arange(1.0, n + 1), alternative="greater", method="exact").pvalue
        assert smallest == pytest.approx(2.0 ** -n)
        assert bool(smallest < 0.05 / family) is reachable


def test_every_claim_states_what_its_test_needs_as_derived():
    for claim in CLAIMS:
        if claim.kind == "accuracy_relative" and claim.a.get("benchmark") == "infer":
            assert not claim.needs, f"{claim.id}: one evaluation on the test set has no repetitions to need"
            continue
        assert claim.needs, f"{claim.id} states no needs"
        (unit, count), = claim.needs.items()
        assert count == decidable.needed(unit, 1 - claims.confidence_setting(claim).value, len(CLAIMS)), claim.id


@pytest.mark.parametrize("profile", decidable.PROFILE_NAMES)
def test_the_profiles_a_claim_names_provide_its_needs_and_the_others_do_not(profile):
    settings = config.load(plan.PROFILES[profile])
    for claim in [c for c in CLAIMS if c.needs]:
        (unit, count), = claim.needs.items()
        have = decidable.provided(unit, claim.a, settings)
        assert have is not None, f"{claim.id}: the {profile} profile does not say how many {unit} it makes"
        # a profile named for a claim provides it; one left out does not (else the marking is stale)
        assert (have >= count) is (profile in claim.profiles), (claim.id, profile, have, count)


def test_needs_and_profiles_are_checked_when_a_claims_file_is_read():
    base = {"id": "x", "statement": "s", "kind": "speedup", "metric": "time", "a": {"w": 1}, "b": {"w": 2},
            "at_least": 1.1}
    assert claims.parse_claim({**base, "needs": {"seeds": 8}, "profiles": ["full"]}, "f", 0).profiles == ("full",)
    for bad in ({"needs": {"seeds": 0}}, {"needs": {"hours": 3}}, {"needs": 8}, {"profiles": ["paper"]}):
        with pytest.raises(ClaimError, match="needs|profiles"):
            claims.parse_claim({**base, **bad}, "f", 0)


def _quick_result(claim_id: str) -> claims.ClaimResult:
    claim = next(c for c in CLAIMS if c.id == claim_id)
    result = claims.ClaimResult(id=claim.id, statement=claim.statement, verdict=claims.ClaimVerdict.INCONCLUSIVE,
                                numbers=claims.ClaimNumbers(metric=claim.metric, unit="1", confidence=0.95),
                                message="p=0.03 after Holm")
    return decidable.annotate([result], CLAIMS, config.load(plan.PROFILES["quick"]))[0]


def test_an_undecided_claim_says_which_profile_decides_it_in_the_checklist_and_the_headline():
    result = _quick_result("bf16-training-accuracy")
    assert result.numbers.decidable.to_dict() == {"unit": "seeds", "needs": 8, "provided": 5, "profile": "quick",
                                           "decided_by": ["full"]}
    assert result.message.startswith("not decidable in this profile (needs 8 seeds per side, the quick profile "
                                     "runs 5: decided by the full profile); p=0.03")
    page = headline.undecided_html(AuditReport(claims=[result]), ROOT / "data" / "reference" / "results")
    text = BeautifulSoup(page, "html.parser").get_text(" ", strip=True)
    assert "Claims the quick profile is not sized to decide" in text and "bf16-training-accuracy" in text
    assert re.search(r"Predicted for the full profile: \d+ h \d+ min in all \(95% range \d+ h \d+ min to \d+ h \d+ "
                     r"min, every stage scaled from this run's recorded costs by twelveways plan\)", text)


def test_a_claim_the_profile_provides_is_not_annotated():
    result = _quick_result("stencil-c-mpi-vs-mpi4py")
    assert result.numbers.decidable is None and result.message == "p=0.03 after Holm"
    assert headline.undecided_html(AuditReport(claims=[result]), None) == ""
