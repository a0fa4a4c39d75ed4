"""MLPerf Training logs (mlperf-logging behind the input layer): hostile lines end in one error line naming the
line, never a traceback; the publishers' folders are read by tests/test_corpus.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways.errors import AuditInputError
from twelveways.readers import mlperf_training

PROPS = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def line(key, value=None, time_ms=1000.0, **meta) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": time_ms, "event_type": "POINT_IN_TIME", "key": key,
                                     "value": value, "metadata": {"file": "x.py", "lineno": 1, **meta}})


def log(extra: str = "") -> str:
    lines = [line("submission_benchmark", "bert"), line("submission_org", "Org"), line("seed", 7),
             line("run_start", time_ms=1000.0), line("eval_accuracy", 0.72, 2000.0, epoch_num=1),
             line("run_stop", time_ms=61000.0, status="success")]
    return "\n".join(lines[:3] + ([extra] if extra else []) + lines[3:]) + "\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "result_0.txt"
    path.write_text(text)
    return path


def test_a_good_log_reads(tmp_path):
    (loaded,) = mlperf_training.read([write(tmp_path, log())])
    assert float(loaded.ds["value"].values[0]) == 60.0


@pytest.mark.parametrize("extra, needle", [
    (":::MLLOG {not json", "line 4"), (":::MLLOG [1, 2]", "line 4"), (":::MLLOG {\"time_ms\": 1}", "line 4"),
    (line("x", time_ms=float("nan")), "time_ms"), (line("x", time_ms=-5.0), "time_ms"),
    (":::MLLOG " + json.dumps({"key": "x", "time_ms": 10 ** 400, "metadata": {}}), "digits"),
    (":::MLLOG {\"key\": \"x\", \"time_ms\": 1, \"metadata\": " + "[" * 100_000 + "]" * 100_000 + "}", "line 4"),
    (":::MLLOG " + json.dumps({"key": "x", "time_ms": 1.0, "metadata": "m"}), "metadata"),
    (":::MLLOG " + "x" * 200_000, "line 4"),
])
def test_hostile_lines_are_one_error_line(tmp_path, extra, needle):
    with pytest.raises(AuditInputError) as caught:
        mlperf_training.read([write(tmp_path, log(extra))])
    assert needle in caught.value.one_line() and "\n" not in caught.value.one_line()


@PROPS
@given(data=st.data())
def test_mutations_end_in_a_result_or_one_error_line(tmp_path, data):
    text = log()
    mutated = data.draw(st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.sampled_from(["NaN", "-1e308", "1e308", "9" * 400, '"x"', "[]", "{}", "null", "true"]).map(
            lambda v: text.replace("61000.0", v, 1)),
        st.sampled_from(["NaN", "9" * 400, '"seven"', "[]", "-1"]).map(lambda v: text.replace('"value": 7', f'"value": {v}'))))
    try:
        mlperf_training.read([write(tmp_path, mutated)])
    except AuditInputError as exc:
        assert "\n" not in exc.one_line()


CORPUS = Path(__file__).parent / "corpus"


def _training_entries() -> list[dict]:
    import yaml

    entries = yaml.safe_load((CORPUS / "manifest.yaml").read_text())["entries"]
    return [e for e in entries if "mlperf_score_min" in e.get("ground_truth", {})]


def test_the_corpus_holds_three_independent_submitters():
    """Issue 38: real logs of at least three publishers (the submitter folder of the results tree), each read
    with the submitter its own logs name."""
    from twelveways.readers import read_paths

    submitters = {}
    for entry in _training_entries():
        (path,) = entry["paths"]
        folder = Path(path).parts[2]  # mlperf_training/<round>/<submitter>/results/<system>/<benchmark>
        (loaded,) = read_paths([CORPUS / path])
        submitters[folder] = json.loads(loaded.ds.attrs["submission"])["submission_org"]
    assert {"Google", "Intel-HabanaLabs", "NVIDIA"} <= set(submitters)
    assert submitters["NVIDIA"] == "NVIDIA" and submitters["Google"] == "Google"


def test_per_run_times_are_the_summarizers():
    """Each run's time to train is run_stop - run_start, as mlperf_logging's result summarizer takes it."""
    from twelveways import results
    from twelveways.readers import read_paths

    checked = 0
    for entry in _training_entries():
        minutes = entry["ground_truth"].get("run_minutes", {})
        if not minutes:
            continue
        checked += len(minutes)
        (loaded,) = read_paths([CORPUS / p for p in entry["paths"]])
        frame = results.to_frame(loaded.ds)
        times = frame[frame["metric"] == "time_to_train"].set_index("run_id")["value"]
        for run_id, expected in minutes.items():
            assert times[run_id] / 60 == pytest.approx(expected, rel=1e-12)
    assert checked >= 3
