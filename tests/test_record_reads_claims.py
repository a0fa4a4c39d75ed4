"""Claims, their numbers and the check results are typed records that round-trip, and consumers read fields.

(a) Every claim design's numbers and a whole audit JSON load and dump back byte for byte (each design writes its
keys in its own order, which the record keeps); a wrong type, or a derived key that disagrees with the checks,
fails with one line naming the field.  (b) The consumer modules read no claim or check-result key as a string
literal (an AST check that a crafted snippet proves can fail); modules not migrated yet are listed with their
count of reads, and the list only shrinks.
"""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from test_checklist_claims import TIMES, accuracy_claim, claim, frame_of, runs_frame, runs_of_iterations
from test_paired_accuracy import _claim as items_claim
from test_paired_accuracy import _frame as items_frame
from test_paired_accuracy import _outcomes
from twelveways import claim_record
from twelveways.checklist import model, render
from twelveways.checklist.model import AuditReport
from twelveways.claim_record import ClaimNumbers, ClaimResult
from twelveways.claims import check_all, check_claim
from twelveways.errors import AuditInputError

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "twelveways"
REFERENCE = ROOT / "data" / "reference" / "checklist.json"


def _seeded_runs() -> list[dict]:
    base = 0.9 + 0.05 * np.random.default_rng(3).random(8)
    return [{"precision": "fp32", "seed": 100 + s, "value": v} for s, v in enumerate(base)] + \
        [{"precision": "bf16", "seed": 100 + s, "value": v * 0.995} for s, v in enumerate(base)]


def every_design() -> dict[str, ClaimResult]:
    """One claim result per design and per way a claim ends without an interval."""
    spans = [{"precision": "bf16", "seed": s, "value": 0.95, "lr": 0.05} for s in range(8)]
    spans += [{"precision": "fp32", "seed": s, "value": 0.95, "lr": (0.05, 0.01)[s % 2]} for s in range(8)]
    few = frame_of({("c-mpi", "time", "s"): [1.00, 1.01, 1.02], ("mpi4py", "time", "s"): [3.00, 3.01, 3.02]})
    found = {
        "independent": check_claim(claim(), TIMES),
        "ratio": check_claim(claim(kind="ratio", metric="rate", at_most=3.0, at_least=None), TIMES),
        "one sample": check_claim(claim(kind="value", metric="test_accuracy", a={"implementation": "fp32"}, b=None,
                                        at_least=0.9), TIMES),
        "paired": check_claim(accuracy_claim(), runs_frame(_seeded_runs())),
        "replicates": check_claim(claim(), runs_of_iterations({"c-mpi": (1.0, [1.0, 1.01, 0.99]),
                                                               "mpi4py": (2.5, [1.0, 0.99, 1.01])})),
        "one run per side": check_claim(claim(), runs_of_iterations({"c-mpi": (1.0, [1.0]), "mpi4py": (2.5, [1.0])})),
        "too few": check_claim(claim(at_least=1.0), few),
        "spans": check_claim(accuracy_claim(), runs_frame(spans)),
        "no samples": check_claim(claim(a={"implementation": "c-openmp"}), TIMES),
        "paired items": check_claim(items_claim(0.97), items_frame(_outcomes())),
        "test set": check_claim(items_claim(0.95), items_frame(_outcomes(), items=False)),
    }
    held = check_all([claim(id="one"), claim(id="two", at_least=3.0)], TIMES, {})
    return found | {"after Holm": held[0], "not in the family": check_all([claim(a={"implementation": "x"})], TIMES)[0]}


DESIGNS = every_design()


# --- (a) round trip ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(DESIGNS))
def test_every_designs_numbers_load_and_dump_back_identical(name):
    result = DESIGNS[name]
    written = json.dumps(result.to_dict(), indent=2)
    again = ClaimResult.from_dict(json.loads(written))
    assert json.dumps(again.to_dict(), indent=2) == written  # the same keys in the same order
    assert again == ClaimResult.from_dict(result.to_dict()) and pickle.loads(pickle.dumps(again)) == again
    with pytest.raises(ValidationError, match="frozen"):
        again.numbers.estimate = 1.0


def test_the_designs_cover_every_field_of_the_numbers():
    """Each declared field is written by some design (a field no design writes would be a stale declaration)."""
    written = set().union(*(r.to_dict()["numbers"] for r in DESIGNS.values()))
    unwritten = set(ClaimNumbers.model_fields) - written - {"busy_machine", "decidable"}  # audit-level annotations
    assert not unwritten, unwritten
    designs = {r.numbers.design for r in DESIGNS.values()}
    assert {"independent", "paired", "one sample", "replicates", "paired items", "test set", None} <= designs


def test_a_whole_audit_json_loads_and_dumps_back_byte_identical():
    text = REFERENCE.read_text()
    report = AuditReport.from_dict(json.loads(text), str(REFERENCE))
    assert render.to_json(report) == text
    assert report.claims and all(isinstance(c.numbers, ClaimNumbers) for c in report.claims)
    assert pickle.loads(pickle.dumps(report)) == report  # records cross process boundaries (forkmap)


def _reference() -> dict:
    return json.loads(REFERENCE.read_text())


def _with(path: str, value) -> dict:
    """The reference audit with the value at ``path`` (dotted; numbers are list indexes) replaced."""
    data = _reference()
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    holder = data
    for part in parents:
        holder = holder[part]
    holder[last] = value
    return data


@pytest.mark.parametrize("path, value, words", [
    ("claims.0.numbers.estimate", "1.2", "checklist.claims[0].numbers.estimate is '1.2': not a number"),
    ("claims.0.numbers.a.n", 2.5, "checklist.claims[0].numbers.a.n is 2.5"),
    ("claims.0.numbers.test.significant", "yes", "checklist.claims[0].numbers.test.significant is 'yes'"),
    ("claims.0.numbers.holm.family_size", True, "checklist.claims[0].numbers.holm.family_size is true"),
    ("claims.0.numbers.per_claim_verdict", "maybe", "checklist.claims[0].numbers.per_claim_verdict is 'maybe'"),
    ("claims.0.numbers.surprise", 1, "checklist.claims[0].numbers.surprise is 1"),
    ("claims.0.verdict", "maybe", "checklist.claims[0].verdict is 'maybe'"),
    ("checks.0.status", "great", "checklist.checks[0].status is 'great'"),
    ("checks.0.evidence.0.source.fields", [3], "checklist.checks[0].evidence[0].source.fields[0] is 3"),
    ("checks.0.satisfied", "Maybe", "satisfied 'Maybe' does not match status"),
    ("skipped", [{"path": "x", "why": "y", "unreadable": "no"}], "checklist.skipped[0].unreadable is 'no'"),
    ("verdict", "VALID?", "checklist.verdict is 'VALID?', but the checks and claims give 'VALID'"),
    ("counts", {"pass": 99}, "checklist.counts is {'pass': 99}, but the checks and claims give"),
])
def test_a_wrong_type_fails_with_one_line_naming_the_field(path, value, words):
    with pytest.raises(AuditInputError) as caught:
        AuditReport.from_dict(_with(path, value), "checklist")
    line = caught.value.one_line()
    assert words in line and "\n" not in line, line


# --- (b) consumers read fields -------------------------------------------------------------------------------------

#: Keys of the claim and check records (field names, and what the JSON derives from them).
RECORD_KEYS = set().union(*(m.model_fields for m in (
    claim_record.ClaimResult, claim_record.ClaimNumbers, claim_record.Side, claim_record.Pairs, claim_record.TestPart,
    claim_record.ClaimTest, claim_record.Holm, claim_record.PairedItems, claim_record.Decidable,
    claim_record.EffectSize, model.CheckResult, model.Evidence, model.EvidenceSource, model.AuditReport, model.Skipped,
    model.ExclusionLine))) | {"satisfied", *model.DERIVED}
#: Keys other records name too (summaries, the run config, compare rows, file and path records): a literal read of
#: one of them is not taken for a read of a claim or a check (the helpers typing those records check them).
SHARED = {"metric", "unit", "value", "filters", "ci", "n", "statistic", "confidence", "id", "title", "name", "profile",
          "configuration", "source", "file", "path", "why", "line", "count", "reason", "format", "inputs", "runs",
          "values", "summary", "level", "ci_method", "a", "b", "test", "items", "parts", "method", "needs", "provided",
          "what", "fields", "range", "correct", "both", "neither", "magnitude", "a12", "counts", "valid", "excluded",
          "status", "checks", "claims", "message", "origin", "statement", "verdict", "evidence", "coverage",
          "hypothesis"}
OWN_KEYS = RECORD_KEYS - SHARED
#: Names that hold a whole claim result, its numbers, a check result or an audit as a dict: ANY literal key read
#: from them is a raw read, shared key or not.
HOLDERS = {"numbers", "outcome", "checklist", "audit_json"}
CONSUMERS = [*sorted((SRC / "report").glob("*.py")), SRC / "checklist" / "render.py", SRC / "cireport.py",
             SRC / "compare" / "reproduce.py", SRC / "key_results.py", SRC / "claims.py"]
#: Consumer modules still reading claim or check keys as literals, with how many reads: this list only shrinks.
NOT_YET_MIGRATED: dict[str, int] = {}


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _holder(node) -> bool:
    """``numbers``, ``outcome`` ... or ``x["numbers"]`` / ``x.get("numbers")``: a raw claim or check record."""
    if isinstance(node, ast.Name):
        return node.id in HOLDERS
    if isinstance(node, ast.Subscript):
        return _literal(node.slice) == "numbers"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and _literal(node.args[0]) == "numbers"
    if isinstance(node, ast.BoolOp):  # (x.get("numbers") or {})
        return any(_holder(value) for value in node.values)
    return False


def literal_reads(source: str) -> list[tuple[int, str]]:
    """(line, key) of every read of a record key written as a literal: ``x["key"]``, ``x.get("key")``,
    ``"key" in x`` for a key only these records have, and any literal key read from a :data:`HOLDERS` name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key, held = None, None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key, held = _literal(node.slice), node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop") \
                and node.args:
            key, held = _literal(node.args[0]), node.func.value
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            key, held = _literal(node.left), node.comparators[0]
        if key is not None and (key in OWN_KEYS or (key in RECORD_KEYS and _holder(held))):
            found.append((node.lineno, key))
    return sorted(found)


def test_the_check_catches_a_raw_read():
    crafted = ("def shown(claim, outcome):\n"
               "    low, high = claim['numbers']['interval']\n"
               "    if 'p_adjusted' in claim.get('numbers', {}).get('holm', {}):\n"
               "        return outcome.get('verdict'), (claim.get('numbers') or {}).get('unit')\n")
    assert literal_reads(crafted) == [(2, "interval"), (2, "numbers"), (3, "holm"), (3, "numbers"), (3, "p_adjusted"),
                                      (4, "numbers"), (4, "unit"), (4, "verdict")]
    typed = ("def shown(claim):\n"
             "    low, high = claim.numbers.interval\n"
             "    return claim.verdict.value, summary['unit'], row['configuration']\n")
    assert literal_reads(typed) == []  # fields, and keys other records share


def test_consumers_read_claim_and_check_fields_not_keys():
    found = {}
    for path in CONSUMERS:
        reads = literal_reads(path.read_text())
        if reads:
            found[str(path.relative_to(SRC))] = len(reads)
    assert found == NOT_YET_MIGRATED, {p: literal_reads((SRC / p).read_text()) for p in found}
