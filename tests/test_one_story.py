"""One statistical story on the committed reference set: a PRK configuration's number, interval and n are the
same in the per-configuration table (and so the headline and figure, which read it) and in the claims.

The claims count invocations (runs) as replicates; the analysis must too, never the pooled iterations.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from twelveways import claims, resultset
from twelveways.prk import analysis as pa

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference" / "results"


@pytest.fixture(scope="module")
def prk_story():
    samples, _, _ = pa.load(REFERENCE)
    summary = pa.summarize(pa.iteration_times(samples), 0.95)
    data = resultset.load([str(REFERENCE / "prk.nc")], config=None)
    asked = [c for c in claims.load_claims(ROOT / "config" / "claims.yaml") if c.a.get("benchmark") == "prk"]
    return summary, claims.check_all(asked, data.frame)


def _row(summary, filters):
    mask = summary["workload"] == filters["workload"]
    for column in ("implementation", "ranks", "threads", "size"):
        mask &= summary[column] == filters[column]
    if "scaling" in filters and "scaling" in summary.columns:
        mask &= summary["scaling"] == filters["scaling"]
    found = summary[mask]
    assert len(found) == 1, f"{filters} selects {len(found)} configurations of the table"
    return found.iloc[0]


def test_the_claims_and_the_table_count_the_same_invocations_and_show_the_same_interval(prk_story):
    summary, results = prk_story
    assert results, "config/claims.yaml states PRK claims"
    for result in results:
        for side in ("a", "b"):
            stated = result.to_dict()["numbers"][side]
            row = _row(summary, stated["filters"])
            assert stated["n"] == stated["runs"] == row["n"], result.claim_id
            assert stated["values"] == row["iterations"] and row["iterations"] > row["n"]
            if row["statistic"] == "geometric mean":  # else restated distribution-free (R6)
                assert stated["summary"] == pytest.approx(row["time_s"], rel=1e-12)
                assert tuple(stated["ci"]) == pytest.approx((row["ci_low_s"], row["ci_high_s"]), rel=1e-12)


def test_no_configuration_counts_iterations_as_replicates(prk_story):
    summary, _ = prk_story
    runs = pa.iteration_times(pa.load(REFERENCE)[0]).groupby(pa.config_columns(summary)[:6] + ["scaling"],
                                                              observed=True)["run_id"].nunique()
    assert sorted(summary["n"]) == sorted(runs) and (summary["iterations"] >= summary["n"]).all()
