"""Stated summaries are one typed record: every key is a field checked on load, and consumers read fields.

(a) Every key the registry names for attr ``summaries`` and every key a reader or the analysis writes into a
summary is a declared field of :class:`StatedSummary`; a wrong type fails with one line naming the field, and a
bad entry leaves that summary out (named by R3), never the file.  (b) The consumer modules read no summary key
as a string literal (an AST check that a crafted snippet proves can fail).
"""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError

from twelveways import resultset, results
from twelveways.checklist import Status, audit
from twelveways.evidence import registry
from twelveways.evidence.summary import FIELDS, StatedSummary, load, parse

SRC = Path(__file__).resolve().parents[1] / "src" / "twelveways"
#: Modules that write summaries: every reader, the analysis stage's summaries and the training sweeps' scores
#: (the other dicts with a ``statistic`` key, in claims.py and stats/, are other records).
WRITERS = [*sorted((SRC / "readers").glob("*.py")), SRC / "derived.py", *sorted(SRC.glob("*/analysis.py")),
           SRC / "train" / "sweeps.py"]
CONSUMERS = [*sorted((SRC / "checklist").glob("*.py")), SRC / "claims.py", *sorted((SRC / "compare").glob("*.py")),
             *sorted((SRC / "report").glob("*.py")), SRC / "key_results.py", SRC / "cireport.py", SRC / "stability.py"]
#: Consumer modules still reading summaries as dicts, with how many reads: this list only shrinks.
NOT_YET_MIGRATED: dict[str, int] = {}
#: A value of the wrong type for each field (an object for all but ``filters``, which is one).
WRONG = {"filters": 5}


def _keys(node: ast.AST) -> set[str]:
    return {k.value for k in getattr(node, "keys", []) if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def _module_written_keys(tree: ast.AST) -> set[str]:
    """Keys a module writes into summaries: dict literals with a ``statistic`` key, what is added to them
    (``x.update(k=...)``, ``x["k"] = ...``, ``**f(...)`` of a function of the module returning a dict literal),
    and the keywords of calls to the analysis' ``*_summary`` builders."""
    returns = {f.name: set().union(*(_keys(r.value) for r in ast.walk(f) if isinstance(r, ast.Return)), set())
               for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    assigned = {n.targets[0].id: n.value for n in ast.walk(tree)
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    keys, holders = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and "statistic" in _keys(node):
            keys |= _keys(node)
            for spread in (v for k, v in zip(node.keys, node.values) if k is None and isinstance(v, ast.Name)):
                call = assigned.get(spread.id)
                keys |= returns.get(getattr(getattr(call, "func", None), "id", ""), set())
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and "statistic" in _keys(node.value):
            holders |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")).endswith("_summary"):
            keys |= {k.arg for k in node.keywords if k.arg}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                and getattr(node.func.value, "id", "") in holders:
            keys |= {k.arg for k in node.keywords if k.arg}
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and getattr(node.value, "id", "") \
                in holders and isinstance(node.slice, ast.Constant):
            keys.add(node.slice.value)
    return keys


def test_every_key_the_registry_and_the_writers_declare_is_a_field():
    described = registry.lookup("summaries").meaning.lower()
    for key in ("metric", "statistic", "value", "filters", "ci", "n", "stated_by"):
        assert key in described and key in FIELDS, key
    written = set().union(*(_module_written_keys(ast.parse(path.read_text())) for path in WRITERS))
    assert {"trim_each_side", "n_invalid", "rate_intervals", "confidence", "recomputable", "rank_reduction"} <= written
    assert written <= set(FIELDS), sorted(written - set(FIELDS))


@pytest.mark.parametrize("field", [f for f in FIELDS if f != "metric"])
def test_a_wrong_type_fails_with_one_line_naming_the_field(field):
    with pytest.raises(ValueError) as caught:
        parse({"metric": "time", field: WRONG.get(field, {"an": "object"})}, "run/x.nc: summaries[2]")
    line = str(caught.value)
    assert line.startswith(f"run/x.nc: summaries[2].{field}") and "\n" not in line, line


@pytest.mark.parametrize("entry, words", [
    ({"metric": "time", "confidence": 1.5}, "summaries[0].confidence is 1.5"),
    ({"metric": "time", "confidence": "99%"}, "summaries[0].confidence is '99%': not a number"),
    ({"metric": "time", "value": float("inf")}, "summaries[0].value is inf: not a finite number"),
    ({"metric": "time", "value": 1.0, "n": 0}, "n is 0, but a value is stated"),
    ({"metric": "time", "n": 2.5}, "summaries[0].n is 2.5: not a whole number"),
    ({"metric": "time", "ci": [2.0, 1.0]}, "ci is [2, 1]: its low bound is above its high bound"),
    ({"statistic": "median", "value": 1.0}, "summaries[0].metric is missing"),
    ("median 1.0", "summaries[0] is not an object"),
])
def test_a_value_outside_its_domain_is_named(entry, words):
    kept, left_out = load([entry], "run/x.nc")
    assert kept == () and len(left_out) == 1 and words in left_out[0] and left_out[0].startswith("run/x.nc: ")


def test_what_publishers_write_for_no_number_is_none_and_numbers_keep_their_type():
    summary = parse({"metric": "score", "statistic": "mean", "value": "NaN", "ci": [1, 2.5], "confidence": "",
                     "n": 4.0, "recomputable": 0, "includes_invalid": "yes", "vendor_key": [1]}, "x")
    assert (summary.value, summary.ci, summary.confidence, summary.n) == (None, (1, 2.5), None, 4)
    assert isinstance(summary.ci_low, int) and not summary.restatable and summary.includes_invalid is True
    assert summary.model_extra == {"vendor_key": [1]}  # a publisher's own key is kept, not refused
    with pytest.raises(ValidationError, match="frozen"):
        summary.value = 3.0


def test_a_bad_entry_leaves_that_summary_out_and_r3_names_it(tmp_path):
    rows = [{"benchmark": "mine", "workload": "k", "implementation": "c", "ranks": 1, "threads": 1, "size": 10,
             "precision": "fp64", "seed": 1, "run_id": f"r{i}", "iteration": -1, "rank": -1, "metric": "time",
             "value": float(v), "unit": "s", "valid": True} for i, v in enumerate([1.0, 1.2, 1.4])]
    good = {"metric": "time", "statistic": "median", "value": 1.2, "filters": {"workload": "k"}}
    bad = {**good, "ci": [1.3, 1.1], "ci_method": "order_statistics"}
    ds = results.from_records(rows, "mine", attrs={"summaries": json.dumps([good, bad])})
    path = results.write(ds, tmp_path / "mine.nc")
    data = resultset.load([str(path)])
    source = data.sources[0]
    assert source.summaries() == (StatedSummary.model_validate(good),)
    assert source.summaries_left_out() == (f"{path}: summaries[1]: ci is [1.3, 1.1]: its low bound is above its "
                                           "high bound",)
    r3 = next(c for c in audit.run(data).checks if c.id == "R3")
    assert r3.status is Status.WARN and "summaries[1]: ci is [1.3, 1.1]" in json.dumps(
        [e.to_dict() for e in r3.evidence])
    again = pickle.loads(pickle.dumps(source))  # sources cross process boundaries (forkmap)
    assert again.summaries() == source.summaries() and again.summaries_left_out() == source.summaries_left_out()


def test_a_summaries_attribute_that_is_no_list_is_one_line():
    source = resultset.ResultSource("run/x.nc", {"summaries": '{"metric": "time"}'}, pd.DataFrame())
    assert source.summaries() == () and source.summaries_left_out() == (
        "run/x.nc: attribute summaries is not a list",)


# --- (b) consumers read fields ----------------------------------------------------------------------

def _summary_names(tree: ast.AST) -> set[str]:
    """Names that hold a summary: a parameter or loop variable named ``summary``, or a loop over summaries."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found |= {a.arg for a in node.args.args + node.args.kwonlyargs if a.arg == "summary"}
        if isinstance(node, (ast.For, ast.comprehension)):
            targets = {t.id for t in ast.walk(node.target) if isinstance(t, ast.Name)}
            found |= targets if "summaries" in ast.unparse(node.iter) else targets & {"summary"}
    return found


def literal_reads(source: str) -> list[tuple[int, str]]:
    """(line, key) of every ``summary.get("key")``, ``summary["key"]`` and ``{**summary, "key": ...}``."""
    tree = ast.parse(source)
    held, found = _summary_names(tree), []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(node.func.value, ast.Name) and node.func.value.id in held and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value))
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in held
              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            found.append((node.lineno, node.slice.value))
        elif isinstance(node, ast.Dict) and any(k is None and isinstance(v, ast.Name) and v.id in held
                                                for k, v in zip(node.keys, node.values)):
            found.append((node.lineno, "**"))
    return sorted(found)


def test_the_check_catches_a_raw_read():
    crafted = ("def r(src, summary):\n"
               "    for s in src.summaries():\n"
               "        low = s.get('ci')\n"
               "    return summary['value'], {**summary, 'statistic': 'median'}\n")
    assert literal_reads(crafted) == [(3, "ci"), (4, "**"), (4, "value")]
    assert literal_reads("def r(src):\n    return [s.ci_low for s in src.summaries()]\n") == []


def test_consumers_read_summary_fields_not_keys():
    found = {}
    for path in CONSUMERS:
        reads = literal_reads(path.read_text())
        if reads:
            found[str(path.relative_to(SRC))] = len(reads)
    assert found == NOT_YET_MIGRATED, {p: literal_reads((SRC / p).read_text()) for p in found}
