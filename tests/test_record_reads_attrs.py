"""A results file's attributes are one typed record (evidence.attributes), and consumers read its fields.

(a) every attribute the evidence registry declares is parsed by the model: a value of its declared type
(as netCDF stores it: containers as JSON text) comes back typed under the canonical name, also from an
alias; a value of another type is one line naming the file and the attribute.  (b) no check, claim, compare
or report module reads a declared attribute by its name as a string (an AST scan; a crafted snippet
proves the scan sees each form)."""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest

from twelveways import contention
from twelveways.errors import SettingError
from twelveways.evidence import attributes, registry
from twelveways.resultset import ResultSet, ResultSource

SRC = Path(attributes.__file__).resolve().parents[1]

#: One value of each JSON type, and its type as the registry names it.
SAMPLES = {"string": "a text", "integer": 3, "number": 2.5, "object": {"k": [1, 2]}, "array": [1, "two"]}


def _stored(value):
    """A value as a netCDF attribute holds it: containers as JSON text."""
    return json.dumps(value) if isinstance(value, (dict, list)) else value


def _types(attribute: registry.Attribute) -> list[str]:
    return attribute.type.split("|")


def _wrong_value(attribute: registry.Attribute):
    """A value of a JSON type the attribute does not declare (an integer counts as a number)."""
    declared = set(_types(attribute)) | ({"integer"} if "number" in _types(attribute) else set())
    return next(SAMPLES[kind] for kind in ("integer", "string", "array", "object") if kind not in declared)


def test_the_model_has_one_field_per_registry_attribute():
    assert set(attributes.Attributes.model_fields) == set(registry.BY_NAME)


@pytest.mark.parametrize("attribute", registry.ATTRIBUTES, ids=lambda a: a.name)
def test_a_value_of_the_declared_type_is_parsed_typed(attribute):
    if attribute.name == "contention":
        record = {"stage": "PRK stage", "cpus": 2, "load_mean": 4.9, "others_share": 0.2, "steal_share": None}
        parsed = attributes.from_attrs({"contention": json.dumps(record)}, "run/prk.nc").contention
        assert isinstance(parsed, attributes.Contention) and (parsed.cpus, parsed.load_mean) == (2, 4.9)
        return
    for kind in _types(attribute):
        value = SAMPLES[kind]
        for key in (attribute.name, *attribute.aliases):
            parsed = getattr(attributes.from_attrs({key: _stored(value)}, "run/prk.nc"), attribute.name)
            assert parsed == value and type(parsed) is type(value), (key, parsed)


@pytest.mark.parametrize("attribute", [a for a in registry.ATTRIBUTES
                                       if a.name not in attributes.RESOLVED + attributes.PER_ENTRY],
                         ids=lambda a: a.name)
def test_a_value_of_another_type_is_one_line_naming_the_file_and_the_attribute(attribute):
    wrong = _wrong_value(attribute)
    with pytest.raises(attributes.AttributeTypeError) as caught:
        attributes.from_attrs({attribute.name: _stored(wrong)}, "run/prk.nc")
    line = caught.value.one_line()
    assert line.startswith(f"run/prk.nc: attribute {attribute.name} is ") and "\n" not in str(caught.value), line
    assert "registry" in line, line


@pytest.mark.parametrize("name", attributes.RESOLVED)
def test_a_setting_of_the_wrong_type_is_named_where_it_is_resolved(name):
    """confidence/ci_target are kept as stated: R5 needs a human naming the value, the other checks run
    (tests/test_settings_resolver.py audits such a file end to end)."""
    source = ResultSource("run/prk.nc", {name: "high"}, pd.DataFrame())
    assert getattr(source.attributes, name) == "high"
    with pytest.raises(SettingError, match=f"got 'high' \\(results file run/prk.nc attribute {name}\\)"):
        ResultSet([source], config={}).measurement_setting(source, name)


def test_a_source_refuses_a_wrong_type_on_load_and_the_empty_text_is_unset():
    with pytest.raises(attributes.AttributeTypeError, match=r"^x.nc: attribute levels_available is 'a text', "
                                                            r"not an object \(twelveways.evidence.registry\)$"):
        ResultSource("x.nc", {"levels_available": "a text"}, pd.DataFrame())
    with pytest.raises(attributes.AttributeTypeError, match="attribute factors is .*not a list"):
        ResultSource("x.nc", {"factors": "[not json"}, pd.DataFrame())
    stated = ResultSource("x.nc", {"git_dirty": "", "timer": "", "derived": True}, pd.DataFrame()).attributes
    assert (stated.git_dirty, stated.timer, stated.derived) == (None, "", 1)


def test_an_alias_is_read_under_the_canonical_name_and_the_canonical_key_wins():
    stated = attributes.from_attrs({"time_summary": "max over ranks"}, "x.nc")
    assert stated.rank_summary == "max over ranks"
    both = attributes.from_attrs({"rank_summary": "mean", "prk_time_summary": "max"}, "x.nc")
    assert both.rank_summary == "mean"


def test_the_contention_record_is_typed_and_checked_field_by_field():
    busy = {"stage": "PRK stage", "cpus": 2, "load_mean": 4.9, "others_share": None, "steal_share": None}
    source = ResultSource("run/prk.nc", {"contention": json.dumps(busy)}, pd.DataFrame())
    assert source.busy_reason() == "load 4.9 on 2 cores during the PRK stage: rerun on an idle machine"
    assert contention.describe(source.attributes.contention) == contention.describe(busy)
    assert contention.describe({}) == contention.UNKNOWN == contention.describe(None)
    with pytest.raises(attributes.AttributeTypeError, match=r"^run/prk.nc: attribute contention.cpus is '2'"):
        ResultSource("run/prk.nc", {"contention": json.dumps({**busy, "cpus": "2"})}, pd.DataFrame())
    with pytest.raises(attributes.AttributeTypeError, match="attribute contention.others_share is 1.5"):
        ResultSource("run/prk.nc", {"contention": json.dumps({**busy, "others_share": 1.5})}, pd.DataFrame())


def test_a_source_with_its_attributes_crosses_a_process_boundary():
    source = ResultSource("x.nc", {"timer": "perf_counter", "metric_kinds": '{"t": "cost"}'}, pd.DataFrame({"a": [1]}))
    copy = pickle.loads(pickle.dumps(source))
    assert copy.attributes == source.attributes and copy.kind_overrides == {"t": "cost"}


# --------------------------------------------------------------------- (b) consumers read fields

#: Modules that judge, claim, compare or report: they read fields of ``source.attributes``.
CONSUMERS = ("checklist/*.py", "claims.py", "compare/*.py", "report/*.py", "key_results.py", "cireport.py",
             "stability.py")
#: Methods that read an attribute by its name.
READERS = {"attr", "declared", "has", "records", "attrs", "attr_json"}
#: (module, attribute) reads that remain, each owned by a record another change types.  Shrink it, never grow it.
ALLOWED: set[tuple[str, str]] = set()
DECLARED = set(registry.BY_NAME) | set(registry.BY_ALIAS)


def _receiver(node: ast.AST) -> str:
    """The last name of an expression: ``attrs`` of ``ds.attrs`` and of ``attrs``."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def attribute_reads(source: str) -> list[tuple[int, str]]:
    """(line, attribute) of every read of a declared attribute by its name: ``x.attr("timer")``, ``.declared``,
    ``.has``, ``.records``, ``data.attrs("…")``, ``results.attr_json(ds, "…")``, ``attrs["…"]`` and
    ``attrs.get("…")`` (``ds.attrs`` too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in READERS:
                names = [_text(arg) for arg in node.args[:2]]
            elif node.func.attr == "get" and _receiver(node.func.value) == "attrs" and node.args:
                names = [_text(node.args[0])]
        elif isinstance(node, ast.Subscript) and _receiver(node.value) == "attrs":
            names = [_text(node.slice)]
        found += [(node.lineno, name) for name in names if name in DECLARED]
    return found


def test_the_scan_sees_each_way_of_reading_an_attribute_by_name():
    snippet = "\n".join([
        'src.attr("timer")', 'src.declared("rank_summary", "")', 'src.has("environment")',
        'data.records("figures")', 'data.attrs("tuning")', 'results.attr_json(ds, "contention", None)',
        'attrs["ci_level"]', 'ds.attrs.get("schema_version")', 'attrs.get("time_summary")',
        'summary.get("metric")', 'src.attributes.timer', 'row["unit"]'])
    assert [name for _, name in attribute_reads(snippet)] == [
        "timer", "rank_summary", "environment", "figures", "tuning", "contention", "ci_level", "schema_version",
        "time_summary"]


def test_consumers_read_attribute_fields_not_attribute_names():
    found = []
    for pattern in CONSUMERS:
        for path in sorted(SRC.glob(pattern)):
            module = str(path.relative_to(SRC))
            found += [f"{module}:{line}: {name}" for line, name in attribute_reads(path.read_text())
                      if (module, name) not in ALLOWED]
    assert not found, "read source.attributes.<field> instead: " + "; ".join(found)
