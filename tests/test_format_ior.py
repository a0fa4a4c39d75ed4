"""IOR output (JSON summary and text): real files of three publishers, launcher lines, domain errors, properties.

Ground truth is the numbers IOR printed (tests/data/formats/ior/truth.yaml).  JSON goes through the
input layer (readers/decode.py): a 400-digit integer, ``nodes: "two"``, nesting 100,000 deep, a NaN
or negative rate, a block of 1e308 KiB: each one error line naming the field path and the value.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from hpc_truth import DATA, LAUNCHER_AFTER, LAUNCHER_BEFORE, MUTATIONS, check_truth, mutated, outcome, read_one, \
    truth_cases
from twelveways.errors import AuditInputError

CASES = truth_cases("ior")
LAPTOP = (DATA / "ior" / "ior_posix_laptop.json").read_text()
AKRR = (DATA / "ior" / "ior_posix_akrr_stampede2.txt").read_text()


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_publishers_numbers(case):
    check_truth("ior", case)


def test_three_independent_publishers_and_launcher_lines():
    assert len({c["publisher"].split()[0] for c in CASES}) >= 3
    assert any("launcher" in c and "added" not in c["publisher"] for c in CASES)  # a real capture with ibrun lines


@pytest.mark.parametrize("name", ["ior_posix_laptop.json", "ior_posix_akrr_stampede2.txt"])
def test_launcher_lines_around_the_output_change_nothing(tmp_path, name):
    noisy = tmp_path / name
    noisy.write_text(LAUNCHER_BEFORE + (DATA / "ior" / name).read_text() + "\n" + LAUNCHER_AFTER)
    _, want, _ = read_one(DATA / "ior" / name)
    _, got, _ = read_one(noisy)
    assert list(got["value"]) == list(want["value"])


def _json_with(change) -> str:
    doc = json.loads(LAPTOP)
    change(doc)
    return json.dumps(doc)


PARAMS, RESULTS = "tests[0].Parameters", "tests[0].Results"


@pytest.mark.parametrize("change, needle", [
    (lambda d: d["tests"][0]["Parameters"].update(nodes="two"), f"{PARAMS}.nodes is 'two', not a whole number"),
    (lambda d: d["tests"][0]["Parameters"].update(tasksPerNode=2.5), f"{PARAMS}.tasksPerNode is 2.5, not a whole"),
    (lambda d: d["tests"][0]["Results"][0].update(bwMiB=-1.5), f"{RESULTS}[0].bwMiB is -1.5, below its minimum 0"),
    (lambda d: d["tests"][0]["Results"][0].update(bwMiB=float("nan")), f"{RESULTS}[0].bwMiB is nan, not a finite"),
    (lambda d: d["tests"][0]["Results"][1].update(latency="fast"), f"{RESULTS}[1].latency"),
    (lambda d: d["tests"][0]["Results"][0].update(blockKiB=1e308), "block size (KiB) is 1e+308, beyond 64 bits"),
    (lambda d: d["summary"][0].update(bwMeanMIB=-3), "summary[0].bwMeanMIB is -3"),
    (lambda d: d.update(tests="none"), "no 'tests' list"),
])
def test_damaged_json_is_one_error_naming_the_field(tmp_path, change, needle):
    path = tmp_path / "ior.json"
    path.write_text(_json_with(change))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line(), error.value.one_line()


def test_huge_integer_and_deep_nesting_are_one_line(tmp_path):
    path = tmp_path / "ior.json"
    path.write_text(LAPTOP.replace('"nodes": 1', '"nodes": ' + "9" * 400, 1))
    with pytest.raises(AuditInputError, match="an integer of 400 digits"):
        read_one(path)
    path.write_text(LAPTOP.replace('"nodes": 1', '"nodes": ' + "[" * 100_000 + "]" * 100_000, 1))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert "nested" in error.value.one_line()


@pytest.mark.parametrize("old, new, needle", [
    ("write     426.77", "write     -426.77", "write bw(MiB/s) is '-426.77', below its minimum 0"),
    ("write     426.77", "write     nan", "write bw(MiB/s) is 'nan', not a finite number"),
    ("20480      0.001392   0.935444   0.037859   0.937271   0", "20480      0.001392   0.935444   0.037859   0.937271   "
     "2.5", "iter is '2.5', not a whole number"),
    ("tasks               : 2", "tasks               : 2.5", "tasks is '2.5', not a whole number"),
    ("204800     20480      0.001392", "1e308     20480      0.001392", "block size (KiB) is 1e+308, beyond 64 bits"),
    ("write     426.77     21.38 ", "write     426.77 ", "10 fields under a header of 11"),
])
def test_damaged_text_is_one_error_naming_field_and_value(tmp_path, old, new, needle):
    path = tmp_path / "ior.txt"
    assert old in AKRR
    path.write_text(AKRR.replace(old, new, 1))
    with pytest.raises(AuditInputError) as error:
        read_one(path)
    assert needle in error.value.one_line(), error.value.one_line()


def test_long_whitespace_line_in_text_is_one_error(tmp_path):
    path = tmp_path / "ior.txt"
    path.write_text(AKRR.replace("api                 :", "api" + " " * 200_000 + ":", 1))
    with pytest.raises(AuditInputError, match="is longer than 65,536 characters"):
        read_one(path)


ENTRY = st.fixed_dictionaries({"bwMiB": st.floats(0, 1e7), "iops": st.floats(0, 1e7), "latency": st.floats(0, 100),
                               "totalTime": st.floats(0, 1e4), "blockKiB": st.integers(0, 2 ** 40).map(float),
                               "xferKiB": st.integers(1, 2 ** 20).map(float)})


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(ENTRY, ENTRY), min_size=1, max_size=6), st.integers(1, 64), st.integers(1, 128))
def test_generated_json_reads_back(repetitions, nodes, per_node):
    """IOR 3.3's layout: Results holds one list per repetition, each with its write and its read."""
    results = [[{"access": "write", **w}, {"access": "read", **r}] for w, r in repetitions]
    doc = {"Version": "3.3.0", "Command line": "ior -w -r", "tests": [
        {"TestID": 0, "Parameters": {"api": "POSIX", "nodes": nodes, "tasksPerNode": per_node}, "Results": results}],
        "summary": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ior.json"
        path.write_text(json.dumps(doc, indent=2))
        _, frame, _ = read_one(path)
    bandwidth = frame[frame["metric"] == "bandwidth"]
    assert list(bandwidth["value"]) == [e["bwMiB"] for pair in repetitions for e in pair]
    assert list(bandwidth["repetition"]) == [i for i in range(len(repetitions)) for _ in (0, 1)]
    assert set(frame["ranks"]) == {nodes * per_node}
    assert list(bandwidth["size"]) == [int(e["blockKiB"] * 1024) for pair in repetitions for e in pair]


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(sorted(MUTATIONS)), st.floats(0, 0.999),
       st.sampled_from(["ior_posix_laptop.json", "ior_mpiio_5reps.json", "ior_posix_akrr_stampede2.txt",
                        "io500_ior_easy_write_sc21.txt"]))
def test_any_damage_ends_in_rows_or_one_error_line(mutation, pos, name):
    with tempfile.TemporaryDirectory() as tmp:
        outcome(mutated(Path(tmp), name, (DATA / "ior" / name).read_text(), mutation, pos))
