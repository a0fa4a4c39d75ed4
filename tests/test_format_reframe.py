"""ReFrame perflogs: three publishers' real logs (truth.yaml), site-configured ReFrame 3 formats, ReFrame 4
headers in any column subset and order, and property-based generation and mutation."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import read_paths, reframe

DATA = Path(__file__).parent / "data" / "formats" / "reframe"
TRUTH = yaml.safe_load((DATA / "truth.yaml").read_text())["files"]
PROPS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def frame_of(path: Path, *, policy: bool = False):
    """The Dataset of one log: through read_paths (the error policy) or the reader alone (fast, and strict:
    an exception other than the one error line fails the test)."""
    (loaded,) = read_paths([path]) if policy else reframe.read(path)
    return results.to_frame(loaded.ds), loaded.ds


def outcome(path: Path):
    """Rows, or the one error line a file named on the command line gives."""
    try:
        return frame_of(path)[0]
    except AuditInputError as exc:
        line = exc.one_line()
        assert "\n" not in line and str(path.name) in line
        return line


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_publishers_numbers_are_read(name):
    truth = TRUTH[name]
    frame, _ = frame_of(DATA / name, policy=True)
    assert len(frame) == truth["rows"]
    assert dict(zip(frame["metric"], frame["unit"])) == truth["metrics"]
    for metric, values in truth["values"].items():
        assert sorted(frame.loc[frame["metric"] == metric, "value"]) == sorted(values)
    assert set(frame["system"]) == {truth["system"]} and set(frame["partition"]) == {truth["partition"]}
    if "environ" in truth:
        assert set(frame["implementation"]) == {truth["environ"]}


def test_three_publishers():
    readme = (DATA / "README.md").read_text()
    for repo in ("reframe-hpc/reframe", "stackhpc/hpc-tests", "ukri-excalibur/excalibur-tests"):
        assert f"github.com/{repo}" in readme
    assert set(TRUTH) == {p.name for p in DATA.glob("*.log")}


V3 = "2024-03-01T10:00:00|reframe 3.12.0|Stream @daint:gpu+gnu|jobid=42"


@pytest.mark.parametrize("line, metric, value, unit", [
    (f"{V3}|Copy=24672.4|ref=25200 (l=-0.05, u=0.05)|MB/s", "Copy", 24672.4, "MB/s"),     # default
    (f"{V3}|Copy=24672.4|MB/s|ref=25200 (l=-0.05, u=0.05)", "Copy", 24672.4, "MB/s"),     # unit after value
    (f"{V3}|Copy=24672.4|MB/s", "Copy", 24672.4, "MB/s"),                                 # no reference
    (f"{V3}|num_tasks=4|Copy=24672.4|MB/s", "Copy", 24672.4, "MB/s"),                     # extra attribute
    (f"{V3}|Copy=24672.4 MB/s|num_tasks=4", "Copy", 24672.4, "MB/s"),                     # unit inside the field
    ("2024-03-01T10:00:00|reframe 3.5|Stream on daint:gpu using gnu|jobid=42|Copy=1.5|ref=0 (l=null, u=null)|"
     "GB/s|fast,stream", "Copy", 1.5, "GB/s"),                                            # tags after the unit
])
def test_reframe_3_site_formats(tmp_path, line, metric, value, unit):
    path = tmp_path / "Stream.log"
    path.write_text(line + "\n")
    frame, _ = frame_of(path)
    assert list(frame["metric"]) == [metric] and list(frame["value"]) == [value] and list(frame["unit"]) == [unit]
    assert list(frame["system"]) == ["daint"] and list(frame["partition"]) == ["gpu"]
    assert list(frame["implementation"]) == ["gnu"] and list(frame["run_id"]) == ["42"]


def test_tab_separated_perfvalues_several_per_line(tmp_path):
    """A site's ReFrame 4 ``format_perfvars`` ``var=value unit`` with tabs and no header: every variable read."""
    path = tmp_path / "Stream.log"
    path.write_text("2024-03-01T10:00:00+01:00\tdaint:gpu\tStream\tab12cd34\tgnu\t\t77\t1\t4\t4\tnull\t"
                    "copy=10.5 GB/s\ttriad=9.25 GB/s\t\n")
    frame, _ = frame_of(path)
    assert dict(zip(frame["metric"], frame["value"])) == {"copy": 10.5, "triad": 9.25}
    assert set(frame["unit"]) == {"GB/s"} and set(frame["system"]) == {"daint"} and set(frame["workload"]) == {"Stream"}


def test_site_header_naming_no_columns_and_tab_lines_are_recognized_and_read(tmp_path):
    """A tab-separated site format whose header writes ``perf_var=perf_value perf_unit``: recognized, the header
    passed over, the lines read by meaning."""
    path = tmp_path / "Stream.log"
    path.write_text("job_completion_time\tsystem:partition\tshort_name\tjobid\tperf_var=perf_value perf_unit\t\n"
                    "2024-03-01T10:00:00+01:00\tdaint:gpu\tStream\t77\tcopy=10.5 GB/s\ttriad=None GB/s\t\n")
    frame, ds = frame_of(path, policy=True)
    assert frame["value"].tolist() == [10.5] and frame["unit"].tolist() == ["GB/s"]
    assert results.attr_json(ds, "not_measured")[0]["metric"] == "triad"


def test_attribute_beside_the_reference_is_not_the_variable(tmp_path):
    path = tmp_path / "Stream.log"
    path.write_text(f"{V3}|Copy=3.5|num_tasks=4|ref=0 (l=null, u=null)|MB/s\n")
    frame, _ = frame_of(path)
    assert frame["metric"].tolist() == ["Copy"] and frame["value"].tolist() == [3.5]


def test_reframe_4_columns_by_name_in_any_order(tmp_path):
    header = "system|bw_unit|jobid|bw_value|display_name|partition|environ|job_completion_time|bw_ref"
    path = tmp_path / "x.log"
    path.write_text(header + "\nclu|GB/s|7|90.5|Stream %n=1|cpu|gnu|2024-01-01T10:00:00|0\n")
    frame, _ = frame_of(path)
    assert list(frame["value"]) == [90.5] and list(frame["unit"]) == ["GB/s"] and list(frame["workload"]) == [
        "Stream %n=1"]
    assert list(frame["system"]) == ["clu"] and list(frame["run_id"]) == ["7"]


def test_value_reframe_logged_as_none_is_excluded_with_its_reason(tmp_path):
    header = "job_completion_time|version|display_name|system|partition|environ|jobid|a_value|a_unit|b_value|b_unit"
    path = tmp_path / "x.log"
    path.write_text(header + "\n2024-01-01T10:00:00|4.5.0|T|s|p|e|1|None|s|2.5|s\n")
    frame, ds = frame_of(path)
    assert list(frame["metric"]) == ["b"]
    missing = results.attr_json(ds, "not_measured")
    assert missing[0]["metric"] == "a" and "None" in missing[0]["not_measured"]


@pytest.mark.parametrize("text, needles", [
    (f"{V3}|Copy=fast|ref=1 (l=-0.1, u=0.1)|MB/s\n", ["line 1", "Copy", "fast"]),
    (f"{V3}|Copy=1.0|ref=1 (l=-0.1, u=0.1)|MB/s\n{V3}|just words|here\n", ["line 2", "no performance variable"]),
    ("job_completion_time|system|x_value|x_unit\n2024-01-01|s|1.0\n", ["line 2", "header has 4"]),
    (f"{V3}|Copy=1.0|ref=1 (broken|MB/s\n", ["line 1", "reference"]),
])
def test_a_line_that_cannot_be_read_names_its_number(tmp_path, text, needles):
    path = tmp_path / "bad.log"
    path.write_text(text)
    line = outcome(path)
    assert isinstance(line, str)
    for needle in needles:
        assert needle in line, line


NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(lambda n: not reframe._attribute(n))
VALUES = st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda v: float(f"{v:.6g}"))


@PROPS
@given(rows=st.lists(st.tuples(NAMES, VALUES, st.sampled_from(["MB/s", "s", "Gflop/s"])), min_size=1, max_size=6),
       layout=st.sampled_from(["default", "unit-first", "no-ref", "inline", "v4"]))
def test_generated_logs_read_back_to_their_numbers(tmp_path, rows, layout):
    lines = []
    if layout == "v4":
        lines.append("job_completion_time|version|display_name|system|partition|environ|jobid|"
                     "perf_value|perf_unit|perf_ref|perf_lower_thres|perf_upper_thres")
    for job, (name, value, unit) in enumerate(rows):
        head = f"2024-03-01T10:00:00|reframe 3.12.0|{name} @sys:part+env|jobid={job}"
        lines.append({"default": f"{head}|{name}={value!r}|ref=0 (l=null, u=null)|{unit}",
                      "unit-first": f"{head}|{name}={value!r}|{unit}|ref=0 (l=null, u=null)",
                      "no-ref": f"{head}|{name}={value!r}|{unit}",
                      "inline": f"{head}|{name}={value!r} {unit}",
                      "v4": f"2024-03-01T10:00:00|4.5.0|{name}|sys|part|env|{job}|{value!r}|{unit}|0|None|None"}[layout])
    path = tmp_path / "gen.log"
    path.write_text("\n".join(lines) + "\n")
    frame, _ = frame_of(path)
    assert list(frame["value"]) == [v for _, v, _ in rows] and list(frame["unit"]) == [u for _, _, u in rows]
    assert list(frame["run_id"]) == [str(i) for i in range(len(rows))]


MUTATIONS = st.sampled_from(["truncate", "nan", "negative", "huge", "long", "latin1", "noise", "swap", "drop"])


@PROPS
@given(kind=MUTATIONS, at=st.integers(min_value=0, max_value=10_000))
def test_mutated_logs_end_in_rows_or_one_error_line(tmp_path, kind, at):
    text = (DATA / "StreamWithRefTest.log").read_text()
    cut = at % max(len(text), 1)
    mutated = {"truncate": text[:cut], "nan": text.replace("24672.4", "nan"),
               "negative": text.replace("24672.4", "-24672.4"), "huge": text.replace("24672.4", "9" * 400),
               "long": text.replace("Copy", "C" * 1_000_000, 1), "noise": "[0] MPI startup(): x\n" + text,
               "swap": text.replace("|ref=", "|MB/s|ref=", 1).replace("|MB/s\n", "|1.5\n", 1),
               "drop": text.replace("|", "", 3), "latin1": None}[kind]
    path = tmp_path / "m.log"
    if kind == "latin1":
        path.write_bytes(text.encode() + "caf\u00e9|x=1\n".encode("latin-1"))
    else:
        path.write_text(mutated)
    got = outcome(path)
    assert isinstance(got, str) or len(got) >= 0
