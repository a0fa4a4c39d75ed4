"""The environment capture is one typed record: loaded once, round-tripped exactly, read by fields.

(a) The capture of this machine (``twelveways env --json``) and the stored reference captures load into
:class:`~twelveways.env.capture_model.Capture` and come back identical (so their content hash is the
file's); a wrong type in a field is one error line naming the field path and the file.
(b) The consumers (checklist, compare, report, envdiff, plan) read no key of a capture as a string literal:
they ask the model.  A crafted snippet that reads a raw key proves the scan catches one.
"""

from __future__ import annotations

import ast
import copy
import json
import pickle
import sys
from pathlib import Path

import pytest

from twelveways.env import capture_model
from twelveways.env.capture_model import Capture, StatedEnvironment
from twelveways.env.hashing import environment_hash
from twelveways.errors import AuditInputError, ResultsError
from twelveways.results import canonical_hash

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"
SOURCE = ROOT / "src" / "twelveways"


def _round_trips(data: dict) -> None:
    """Loaded and given back: the same dict, the same stored JSON, the same hashes."""
    model = capture_model.from_dict(data, "test")
    assert model.to_dict() == data
    assert json.dumps(model.to_dict(), sort_keys=True) == json.dumps(data, sort_keys=True)
    assert environment_hash(model.to_dict()) == environment_hash(data)
    assert canonical_hash(model.to_dict()) == canonical_hash(data)
    assert pickle.loads(pickle.dumps(model)) == model  # crosses process boundaries in parallel reading


@pytest.mark.parametrize("name", ["environment.json", "environment-end.json"])
def test_reference_captures_load_and_round_trip(name):
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"no {path}")
    capture = capture_model.load(path)
    assert capture.cpu_model == "AMD EPYC" and capture.logical_cpus == 2 and capture.last_level_cache_bytes == 2 ** 25
    assert capture.git_commit and capture.git_commit == json.loads(path.read_text())["git"]["commit"]
    _round_trips(json.loads(path.read_text()))


def test_the_good_results_fixture_capture_round_trips(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "data" / "good_results"))
    try:
        import make_results
    finally:
        sys.path.pop(0)
    paths = make_results.build(tmp_path)
    data = json.loads(Path(paths["environment"]).read_text())
    _round_trips(data)
    assert capture_model.load(paths["environment"]).hash == make_results.ENV_HASH


def test_the_capture_of_this_machine_loads_and_round_trips(machine_capture):
    data = copy.deepcopy(machine_capture.capture)  # `twelveways env --json` on this machine (tests/conftest.py)
    _round_trips(data)
    capture = capture_model.from_dict(data, "this machine")
    assert capture.hash == data["hash"] == environment_hash(capture.to_dict())
    assert capture.logical_cpus is None or capture.logical_cpus >= 1


WRONG = [
    ("hardware.cpu.logical_cpus", "2", "hardware.cpu.logical_cpus is '2', not a whole number"),
    ("hardware.cpu.logical_cpus", 0, "hardware.cpu.logical_cpus is 0, below its minimum 1"),
    ("hardware.caches.L2.size_bytes", -1, "hardware.caches.L2.size_bytes is -1, below its minimum 0"),
    ("hardware.frequency.max_mhz", float("nan"), "hardware.frequency.max_mhz is nan, not a finite number"),
    ("hardware.frequency.max_mhz", True, "hardware.frequency.max_mhz is true, not a number"),
    ("host.hostname", 3, "host.hostname is 3, not a text"),
    ("hardware.caches", [1], "hardware.caches is a list of 1, not an object"),
    ("gpus.count", 1.5, "gpus.count is 1.5, not a whole number"),
    ("git.dirty", 1, "git.dirty is 1, not true or false"),
    ("hardware.frequency.max_mhz", {"unavailable": 3}, "hardware.frequency.max_mhz.unavailable is 3, not a text"),
]


@pytest.mark.parametrize("field, value, words", WRONG, ids=[f"{w[0]}={w[1]!r}" for w in WRONG])
def test_a_wrong_type_is_one_line_naming_the_field_and_the_file(tmp_path, field, value, words):
    data = json.loads((REFERENCE / "environment.json").read_text())
    node = data
    *parents, last = field.split(".")
    for key in parents:
        node = node[key]
    node[last] = value
    path = tmp_path / "environment.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AuditInputError) as caught:
        capture_model.load(path, "environment capture", AuditInputError)
    message = str(caught.value)
    assert "\n" not in message and message == f"{path}: environment capture: {words}"


def test_twelveways_env_compare_reads_an_earlier_capture_through_the_model(tmp_path):
    from twelveways.env import store

    data = json.loads((REFERENCE / "environment.json").read_text())
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(data))
    assert store.read(path) == data
    data["gpus"]["count"] = -1
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"earlier.json: environment capture: gpus.count is -1, below its minimum 0$"):
        store.read(path)


def test_a_capture_that_is_not_an_object_is_refused(tmp_path):
    path = tmp_path / "environment.json"
    path.write_text("[1, 2]")
    with pytest.raises(ResultsError, match="environment capture must be a JSON object"):
        capture_model.load(path)


def test_partial_captures_and_unavailable_fields_load():
    partial = {"hardware": {"caches": {"L2": {"size_bytes": 2 ** 20}, "L3": {"size_bytes": 2 ** 25}}}}
    assert capture_model.from_dict(partial, "test").last_level_cache_bytes == 2 ** 25
    why = {"hardware": {"unavailable": "lscpu failed"}, "host": {"hostname": {"unavailable": "no name"}}}
    capture = capture_model.from_dict(why, "test")
    assert capture.hardware.unavailable == "lscpu failed" and capture.hostname is None and capture.cpu_model is None
    assert capture.to_dict() == why


def test_stated_facts_of_other_formats_name_the_machine_by_their_own_keys():
    stated = capture_model.description_of({"hostname": "apu", "num_cpus": 8, "cpu": "Intel i7"}, "test")
    assert isinstance(stated, StatedEnvironment)
    assert (stated.hostname, stated.logical_cpus, stated.cpu_model, stated.hash) == ("apu", 8, "Intel i7", None)
    reference = json.loads((REFERENCE / "environment.json").read_text())
    assert isinstance(capture_model.description_of(reference, "test"), Capture)
    assert capture_model.description_of({}, "test") is None


# --- (b) consumers read fields, not keys ----------------------------------------------------------

def _field_names(model, seen=None) -> set[str]:
    """Every field name of ``model`` and the models nested in it."""
    seen = set() if seen is None else seen
    if model in seen:
        return set()
    seen.add(model)
    names = set()
    for name, info in model.model_fields.items():
        names.add(name)
        for kind in _models_in(info.annotation):
            names |= _field_names(kind, seen)
    return names - {"kind"}


def _models_in(annotation) -> list:
    from typing import get_args

    from pydantic import BaseModel

    found = [annotation] if isinstance(annotation, type) and issubclass(annotation, BaseModel) else []
    for arg in get_args(annotation):
        found += _models_in(arg)
    return found


#: Names so common in other records (a claim's name, a summary's count) that a read counts only on a receiver
#: whose own text says it is an environment description.
GENERIC = {"format", "hash", "name", "count", "model", "version", "time", "load", "commit", "dirty", "os", "python",
           "devices", "git", "timer", "cpu", "memory", "packages", "unavailable", "vendor", "architecture", "ways",
           "governor", "mpi", "torch", "scheduler", "compilers"}
ENVIRONMENT_WORDS = ("env", "capture", "described", "description", "machine")
CAPTURE_KEYS = _field_names(Capture) | set(capture_model.STATED_KEYS)
SECTIONS = set(Capture.model_fields) - {"kind"}

CONSUMERS = sorted([*(SOURCE / "checklist").glob("*.py"), *(SOURCE / "compare").glob("*.py"),
                    *(SOURCE / "report").glob("*.py"), SOURCE / "envdiff.py", *SOURCE.glob("plan*.py")])
#: Modules still reading capture keys as literals, each with what is left (this list only shrinks).
ALLOWED: dict[str, str] = {}
#: Modules whose reads match a capture's key but read another record, and which one.
NOT_A_CAPTURE = {"compare/ab_run.py": "overhead_ns of measure.timer_properties(): the timer measured now"}


def _is_capture_key(key: str, receiver: str) -> bool:
    if key in CAPTURE_KEYS - GENERIC:
        return True
    return key in CAPTURE_KEYS and any(word in receiver.lower() for word in ENVIRONMENT_WORDS)


def _is_capture_path(text: str) -> bool:
    """A dotted path into a capture (``hardware.cpu.model``), as a literal to look up."""
    parts = text.split(".")
    return len(parts) > 1 and parts[0] in SECTIONS and all(part.isidentifier() for part in parts)


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def raw_reads(source: str) -> list[str]:
    """``line: key`` of every capture key a module reads by a literal: ``x["key"]``, ``x.get("key")``, or a
    dotted path into a capture anywhere (an argument, a tuple of keys to try)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and _literal(node.slice):
            if _is_capture_key(node.slice.value, ast.unparse(node.value)):
                found.append(f"{node.lineno}: {node.slice.value}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = _literal(node.args[0]) if node.args else None
            if key and _is_capture_key(key, ast.unparse(node.func.value)):
                found.append(f"{node.lineno}: {key}")
        elif _literal(node) and _is_capture_path(node.value):
            found.append(f"{node.lineno}: {node.value}")
    return found


def test_the_scan_catches_a_raw_read_of_a_capture():
    crafted = ("def f(data, env, row):\n"
               "    a = env['hardware']['cpu']['model']\n"
               "    b = (data.environment or {}).get('hash')\n"
               "    c = lookup(env, 'host.hostname')\n"
               "    d = row['name'] + row.get('count')\n"  # other records' keys: not capture reads
               "    return [leaves[k] for k in ('hardware.cpu.model', 'cpu_model')]\n")
    assert sorted(raw_reads(crafted)) == ["2: cpu", "2: hardware", "2: model", "3: hash", "4: host.hostname",
                                          "6: hardware.cpu.model"]


@pytest.mark.parametrize("path", CONSUMERS, ids=[str(p.relative_to(SOURCE)) for p in CONSUMERS])
def test_consumers_read_no_capture_key_as_a_literal(path):
    found = raw_reads(path.read_text())
    name = str(path.relative_to(SOURCE))
    if name in NOT_A_CAPTURE:
        assert found, f"{name} no longer reads {NOT_A_CAPTURE[name]}: remove it from NOT_A_CAPTURE"
        return
    if name in ALLOWED:
        assert found, f"{name} reads no capture key any more: remove it from ALLOWED"
        return
    assert not found, f"{name} reads capture keys as literals (use env.capture_model's fields): {found}"
