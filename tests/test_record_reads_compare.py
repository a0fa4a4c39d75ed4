"""The comparison record (compare, reproduce, ab) and the plan's prediction are typed records, read by field.

What counts as a record here: what ``twelveways compare``, ``reproduce`` and ``ab`` build and write as JSON
(:mod:`twelveways.compare.record`: the comparison, its rows, the environment diff and each difference, the
noise floor, the claims, the machines, the headline rows, the ``ab`` section and each invocation) and what
``twelveways plan`` predicts for a whole profile (:class:`twelveways.plan_stages.Prediction` and its stages).
Their keys are the fields of these models (under their JSON names).

What is not such a record, so the scan does not target it: the configuration key of a row (``row.key``: the
results table's naming columns, data named by the results schema); mappings keyed by data (a side's label, a
configuration's label, a verdict: ``counts``, ``machine_load``, ``placement``, a dict of sides); HTML elements
(BeautifulSoup's ``cell["class"]``); pandas frames (``frame["seconds"]``); third-party structures (a claims
YAML entry, CITATION.cff); and the records other modules type (checks, claims, summaries, attributes: their own
tests scan for them).

(a) A record built by ``compare`` dumps to the JSON it always wrote and loads back equal; a wrong type fails on
load with one line naming the field.  (b) An AST scan of the consumer modules finds no literal read of a record
key: ``x["key"]`` or ``x.get("key")`` where ``x`` holds a record — a name the modules give these records
(:data:`RECORD_NAMES`), a parameter annotated with a record model, or anything assigned from, taken out of or
iterated over one — or where the key is one only these records use (a field name with an underscore, such as
``summary_base`` or ``recorded_s``), read from anything.  A crafted snippet proves the scan sees each form and
leaves the structures above alone.
"""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pytest

from twelveways import plan_stages
from twelveways.compare import build, record, render, sides
from twelveways.errors import AuditInputError

SRC = Path(record.__file__).resolve().parents[1]
ROOT = SRC.parents[1]
REFERENCE = ROOT / "data" / "reference" / "results"

#: Every model of the comparison, A/B and plan records (nested ones included).
MODELS = (record.Comparison, record.Reproduction, record.AbRecord, record.Row, record.HeadlineRow, record.ClaimRow,
          record.Environment, record.Difference, record.NoiseFloor, record.Machines, record.AbSection,
          record.Invocation, plan_stages.Prediction, plan_stages.StagePrediction)
MODEL_NAMES = {model.__name__ for model in MODELS}
#: The JSON keys of these records.
RECORD_KEYS = {info.alias or name for model in MODELS for name, info in model.model_fields.items()}
#: Keys no other structure of the consumer modules uses: read from anything, they are a read of these records.
OWN_KEYS = {key for key in RECORD_KEYS if "_" in key.strip("_")}
#: Names the consumer modules give these records (a variable or a parameter).
RECORD_NAMES = {"record", "comparison", "reproduction", "compared", "predicted", "prediction"}
#: Modules that judge, claim, compare or report.
CONSUMERS = ("checklist/*.py", "claims.py", "compare/*.py", "report/*.py", "key_results.py", "cireport.py",
             "stability.py")


@pytest.fixture(scope="module")
def reference_comparison(tmp_path_factory) -> record.Comparison:
    """The reference PRK run against itself with another compiler flag: rows, verdicts and an environment diff."""
    env = json.loads((REFERENCE.parent / "environment.json").read_text())
    folders = {side: tmp_path_factory.mktemp(side) for side in ("base", "new")}
    for side, folder in folders.items():
        env["compilers"]["used"]["cflags"] = "-O3" if side == "base" else "-O2"
        (folder / "environment.json").write_text(json.dumps(env))
        (folder / "prk.nc").write_bytes((REFERENCE / "prk.nc").read_bytes())
    return build.build(sides.load([str(folders["base"])], "base"), sides.load([str(folders["new"])], "new"))


# --------------------------------------------------------------------- (a) typed, round-trips, one line


def test_a_built_comparison_round_trips_through_its_json(reference_comparison, tmp_path):
    text = render.to_json(reference_comparison)
    again = record.from_dict(json.loads(text), "cmp.json")
    assert type(again) is record.Comparison and again == reference_comparison
    assert render.to_json(again) == text  # what is read back writes the same bytes
    assert "claims" not in json.loads(text)  # a section not asked for is not written
    assert isinstance(again.rows[0], record.Row) and again.rows[0].n_base >= 1
    assert [(d.field, d.class_) for d in again.environment.differences] == [("compilers.used.cflags", "toolchain")]
    assert pickle.loads(pickle.dumps(again)) == again


def test_the_report_reads_a_reproduction_back_typed_and_refuses_a_plain_comparison(reference_comparison, tmp_path):
    from twelveways.report import render as report_render

    path = tmp_path / "comparison.json"
    path.write_text(render.to_json(reference_comparison))
    with pytest.raises(report_render.RenderError, match="a comparison, not a reproduction record"):
        report_render.reproduction_section(path)
    path.write_text(json.dumps({**json.loads(path.read_text()), "headline": []}))
    with pytest.raises(AuditInputError, match=r"comparison.json: comparison record: machines is missing$"):
        report_render.reproduction_section(path)


def test_whole_numbers_stay_whole_and_floats_stay_floats():
    row = record.Row.model_validate({"configuration": "c", "kind": "cost", "n_base": 3, "n_new": 3, "ratio": 1,
                                     "summary_base": 2.0, "verdict": "same", "reason": "r"})
    assert json.dumps(row.to_dict(), sort_keys=True) == (
        '{"configuration": "c", "kind": "cost", "n_base": 3, "n_new": 3, "ratio": 1, "reason": "r", '
        '"summary_base": 2.0, "verdict": "same"}')


def _comparison(**changes) -> dict:
    row = {"configuration": "stencil: time [s]", "key": {"unit": "s"}, "kind": "cost", "n_base": 3, "n_new": 3,
           "ratio": 1.0, "ci": [0.99, 1.01], "verdict": "same", "reason": "within the margin"}
    found = {"format": record.COMPARISON_FORMAT, "confidence": 0.95, "alpha": 0.05, "base": "a", "new": "b",
             "environment": {"differences": [{"field": "cpu", "class": "hardware", "a": "x", "b": "y"}],
                             "compared": True, "by_class": {"hardware": ["cpu"]}},
             "noise_floor": {"margin": 0.02, "margin_text": "±2%", "measured": False, "text": "no A/A run"},
             "method": "m", "counts": {"same": 1}, "rows": [row], "stability": {}, "only_base": [], "only_new": []}
    return found | changes


@pytest.mark.parametrize("changes, line", [
    ({"confidence": "high"}, "cmp.json: comparison record: confidence is 'high'"),
    ({"counts": {"same": "one"}}, "cmp.json: comparison record: counts.same is 'one'"),
    ({"rows": [{"configuration": "c", "kind": "cost", "n_base": "3", "n_new": 3, "verdict": "same",
                "reason": ""}]}, "cmp.json: comparison record: rows[0].n_base is '3'"),
    ({"format": "twelveways-plan/1"}, "cmp.json: comparison record: format is 'twelveways-plan/1'"),
    ({"ab": {"rounds": 3}}, "cmp.json: comparison record: ab.order_seed is missing"),
    ({"headline": [{"configuration": "c"}]}, "cmp.json: comparison record: machines is missing"),
])
def test_a_wrong_type_fails_on_load_with_one_line_naming_the_field(changes, line):
    assert record.from_dict(_comparison(), "cmp.json").environment.differences[0].class_ == "hardware"
    with pytest.raises(AuditInputError) as caught:
        record.from_dict(_comparison(**changes), "cmp.json")
    text = caught.value.one_line() if hasattr(caught.value, "one_line") else str(caught.value)
    assert text.startswith(line) and "\n" not in text, text


def test_not_an_object_is_one_line_and_a_record_is_immutable():
    with pytest.raises(AuditInputError, match=r"^x.json: comparison record: not a JSON object$"):
        record.from_dict([1, 2], "x.json")
    typed = record.from_dict(_comparison(), "cmp.json")
    with pytest.raises(Exception, match="frozen"):
        typed.base = "c"


def test_the_plan_prediction_is_typed_and_dumps_as_before():
    stage = plan_stages.StagePrediction(stage="prk", title="PRK", seconds=10.0, range=(8.0, 12.0), recorded_s=0,
                                        how="scaled")
    whole = plan_stages.Prediction(seconds=10.0, range=(8.0, 12.0), stages=(stage,))
    assert whole.to_dict() == {"seconds": 10.0, "range": [8.0, 12.0], "stages": [
        {"stage": "prk", "title": "PRK", "seconds": 10.0, "range": [8.0, 12.0], "recorded_s": 0, "how": "scaled"}]}
    with pytest.raises(ValueError, match="seconds"):
        plan_stages.StagePrediction.model_validate({**stage.to_dict(), "seconds": "ten"})


# --------------------------------------------------------------------- (b) consumers read fields


def _constant(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _holds_record(node: ast.AST, held: set[str]) -> bool:
    """Whether an expression is (part of) a record: a held name, or an attribute, subscript, call of one."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in held


def _held_names(function: ast.AST) -> set[str]:
    """Names that hold a record in one function (or module): record names, parameters annotated with a record
    model, and what is assigned from or iterated over one (to a fixed point)."""
    held = set(RECORD_NAMES)
    for arg in (a for a in ast.walk(function) if isinstance(a, ast.arg)):
        if arg.annotation is not None and _names(arg.annotation) & MODEL_NAMES \
                or isinstance(arg.annotation, ast.Constant) and str(arg.annotation.value) in MODEL_NAMES:
            held.add(arg.arg)
    while True:
        before = len(held)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and _holds_record(node.value, held):
                held |= {n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.For, ast.comprehension)) and _holds_record(node.iter, held):
                held |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if len(held) == before:
            return held


def _read_key(node: ast.AST) -> tuple[ast.AST, str] | None:
    """(receiver, key) of ``x["key"]`` (a read) or ``x.get("key", ...)``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _constant(node.slice) is not None:
        return node.value, _constant(node.slice)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and _constant(node.args[0]) is not None:
        return node.func.value, _constant(node.args[0])
    return None


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """Each function (a closure with the function it is in), and the module's own statements."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    top = ast.Module(body=[n for n in tree.body if not isinstance(n, functions)], type_ignores=[])
    return [top, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def record_reads(source: str) -> list[tuple[int, str]]:
    """(line, key) of every literal read of a record key in ``source`` (module docstring)."""
    scopes = _scopes(ast.parse(source))
    found = set()
    for scope in scopes:
        held = _held_names(scope)
        for node in ast.walk(scope):
            read = _read_key(node)
            if read and read[1] in RECORD_KEYS and (read[1] in OWN_KEYS or _holds_record(read[0], held)):
                found.add((node.lineno, read[1]))
    return sorted(found)


def test_the_scan_sees_each_way_of_reading_a_record_key_and_leaves_other_structures_alone():
    snippet = "\n".join([
        'record["rows"]',                                              # 1: the record by its name
        'def f(r: Comparison):\n    return r.get("counts")',           # 2-3: a parameter annotated with the model
        'def g(r: "HeadlineRow"):\n    return r["outcome"]',          # 4-5: a string annotation
        'env = record.environment\nenv["differences"]',                # 6-7: taken out of one
        'for row in record.rows:\n    row["verdict"]',                 # 8-9: iterated over one
        'def h(item):\n    return item["summary_base"]',               # 10-11: a key only these records use
        'x = [s["title"] for s in predicted.stages]',                  # 12: a comprehension over the prediction
        'rows = record["rows"]\nrows[0]["ratio"]',                     # 13-14: a raw record in steps
        'row.key.get("unit")',                                         # 15: the configuration key: data
        'cell["class"] = [*cell.get("class", []), "n"]',               # 16: an HTML element
        'item.get("id")\nframe["seconds"]\nsides_["base"]',            # 17-19: a claims entry, a frame, sides
        'record.rows[0].ratio',                                        # 20: a field read
    ])
    assert record_reads(snippet) == [(1, "rows"), (3, "counts"), (5, "outcome"), (7, "differences"), (9, "verdict"),
                                     (11, "summary_base"), (12, "title"), (13, "rows"), (14, "ratio")]


def test_consumers_read_record_fields_not_record_keys():
    found = []
    for pattern in CONSUMERS:
        for path in sorted(SRC.glob(pattern)):
            module = str(path.relative_to(SRC))
            found += [f"{module}:{line}: {key}" for line, key in record_reads(path.read_text())]
    assert not found, "read the typed record's fields (twelveways.compare.record) instead: " + "; ".join(found)
