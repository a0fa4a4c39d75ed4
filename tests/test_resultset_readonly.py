"""A result set is read-only: an audit keeps its claims, their results and its caches in its own AuditRun.

Why it matters: compare reads one ResultSet per side and the report re-audits what it loaded; an audit that
appended the embedded claims to the set it was given made a second audit of the same set check every claim
twice (and Holm over twice the family).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
import sys
from pathlib import Path

import pandas as pd
import pytest

from twelveways import resultset
from twelveways.checklist import audit, render
from twelveways.checklist.model import AuditRun

sys.path.insert(0, str(Path(__file__).parent / "data" / "good_results"))
import make_results  # noqa: E402


def fingerprint(results: resultset.ResultSet) -> str:
    """sha256 of everything the set holds: each source's path, attributes and rows (the values: a text column's
    categories may be widened when the sources' rows are merged), the environment, the config, the skipped files."""
    digest = hashlib.sha256()
    for source in results.sources:
        digest.update(json.dumps([source.path, source.attrs], sort_keys=True, default=str).encode())
        for name, column in source.frame.items():
            kind = "text" if isinstance(column.dtype, pd.CategoricalDtype) else str(column.dtype)
            digest.update(pickle.dumps((name, kind, column.astype(object).tolist())))
    environment = results.environment.model_dump_json() if results.environment is not None else None
    digest.update(json.dumps([environment, results.environment_path, results.config, results.config_path,
                              results.skipped], sort_keys=True, default=str).encode())
    return digest.hexdigest()


@pytest.fixture
def crafted(tmp_path) -> resultset.ResultSet:
    paths = make_results.build(tmp_path / "set")
    return resultset.load(paths["results"], environment=paths["environment"], config=paths["config"])


def test_an_audit_leaves_the_result_set_it_reads_unchanged(crafted, tmp_path):
    before = fingerprint(crafted)
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text("claims:\n- {id: c-mpi-rate, statement: s, kind: speedup, metric: rate, "
                           "a: {implementation: c-mpi}, b: {implementation: c-serial}, at_least: 1.0}\n")
    first = audit.run(crafted, claims_file)
    assert {c.id for c in first.claims} >= {"topk-iterations", "c-mpi-rate"}  # embedded in train.nc, and the file's
    assert fingerprint(crafted) == before
    again = audit.run(crafted, claims_file)  # each claim once, not appended to the set a second time
    assert render.to_json(again) == render.to_json(first)
    assert fingerprint(crafted) == before


def test_the_fingerprint_sees_a_changed_row(crafted):
    """The check above can fail: one value changed in place changes the fingerprint."""
    before = fingerprint(crafted)
    frame = crafted.sources[0].frame
    frame.loc[frame.index[0], "value"] += 1.0
    assert fingerprint(crafted) != before


def test_a_result_set_is_frozen_and_holds_no_audit_state(crafted):
    with pytest.raises(dataclasses.FrozenInstanceError):
        crafted.config = {}  # type: ignore[misc]
    assert isinstance(crafted.sources, tuple) and isinstance(crafted.skipped, tuple)
    run = audit.start(crafted)
    assert isinstance(run, AuditRun) and run.results is crafted
    assert [c.id for c in run.claims] == ["topk-iterations"] and len(run.claim_results) == 1
    assert not {"claims", "claim_results", "claim_problems"} & {f.name for f in dataclasses.fields(crafted)}
