"""MLPerf Inference LoadGen: runs of several publishers (tests/corpus/mlperf_inference), runs whose folders name no
model (read with the model the logs state, else the SUT name: never refused), folders that only look like a
submission tree, and mutated summaries (one error line or rows)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import loadgen, read_paths

CORPUS = Path(__file__).parent / "corpus"
MANIFEST = {e["id"]: e for e in yaml.safe_load((CORPUS / "manifest.yaml").read_text())["entries"]}
BARE = CORPUS / "mlperf_inference" / "bare"
ASUS = CORPUS / "mlperf_inference/v4.1/closed/ASUSTeK/results/ESC4000A_E12_4XH100_TRT/resnet50/Offline/performance/run_1"
PROPS = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def frame_of(folder: Path):
    (loaded,) = read_paths([folder])
    return results.to_frame(loaded.ds)


@pytest.mark.parametrize("entry_id", [k for k, e in MANIFEST.items() if "loadgen" in e.get("ground_truth", {})])
def test_publishers_numbers(entry_id):
    stated = MANIFEST[entry_id]["ground_truth"]["loadgen"]
    frame = frame_of(CORPUS / MANIFEST[entry_id]["paths"][0])
    row = frame[frame["metric"] == stated["metric"]]
    assert row["value"].tolist() == [pytest.approx(stated["value"], rel=1e-9)]
    assert row["unit"].iloc[0] == stated["unit"] and row["workload"].iloc[0] == stated["workload"]
    assert bool(row["valid"].iloc[0]) is (stated["result"] == "VALID")


def test_several_publishers():
    readme = (CORPUS / "README.md").read_text()
    for repo in ("mlcommons/inference_results_v4.1", "mlcommons/inference_results_v3.1", "thien-lm/MlPerfLogExample",
                 "sgrad20Delft/inference"):
        assert f"github.com/{repo}" in readme


def test_a_run_kept_in_any_folder_names_no_model_by_its_folders(tmp_path):
    """``~/runs/performance/run_1`` is no submission tree: 'runs' is not taken for a model (nor its parent for a
    system); the run is read, never refused."""
    folder = tmp_path / "home" / "runs" / "performance" / "run_1"
    shutil.copytree(ASUS, folder)
    frame = frame_of(folder)
    assert set(frame["workload"]) == {"LWIS_Server"} and "runs" not in set(frame["implementation"])
    assert frame.loc[frame["metric"] == "samples_per_second", "value"].tolist() == [270891]


def test_the_model_the_logs_state_is_the_workload(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(BARE / "cm_sdxl_offline", folder)
    detail = folder / "mlperf_log_detail.txt"
    detail.write_text(':::MLLOG {"key": "model_name", "value": "stable-diffusion-xl", "time_ms": 0.1, '
                      '"namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {}}\n'
                      + detail.read_text())
    assert set(frame_of(folder)["workload"]) == {"stable-diffusion-xl"}


def test_a_summary_alone_in_a_folder_is_read(tmp_path):
    shutil.copy(BARE / "sgrad20delft_singlestream" / "mlperf_log_summary.txt", tmp_path / "mlperf_log_summary.txt")
    frame = frame_of(tmp_path / "mlperf_log_summary.txt")
    assert frame.loc[frame["metric"] == "qps_w_o_loadgen_overhead", "value"].tolist() == [20.89]


@PROPS
@given(data=st.data())
def test_mutated_summaries_end_in_rows_or_one_error_line(tmp_path, data):
    text = (BARE / "sgrad20delft_singlestream" / "mlperf_log_summary.txt").read_text()
    mutated = data.draw(st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.sampled_from(["nan", "-1", "1e308", "9" * 400, "x", "inf", ""]).map(
            lambda v: text.replace("20.89", v, 1)),
        st.just("[0] MPI startup(): x\n" + text), st.just(text.replace("PySUT", "P" * 1_000_000))))
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    (folder / "mlperf_log_summary.txt").write_text(mutated)
    try:
        frame = results.to_frame(loadgen.read({"mlperf_log_summary.txt": folder / "mlperf_log_summary.txt"})[0].ds)
        assert len(frame) > 0
    except AuditInputError as exc:
        assert "\n" not in exc.one_line()


def test_an_accuracy_run_outside_a_submission_tree_is_read(tmp_path):
    source = CORPUS / "mlperf_inference/v4.1/closed/ASUSTeK/results/ESC4000A_E12_4XH100_TRT/resnet50/Offline/accuracy"
    folder = tmp_path / "my_runs" / "acc"
    shutil.copytree(source, folder)
    frame = frame_of(folder)
    assert frame.loc[frame["metric"] == "accuracy", "value"].tolist() == [76.078]
    assert set(frame["workload"]) == {"LWIS_Server"}  # the SUT LoadGen logged: no folder names a model here


@pytest.mark.parametrize("text, expected", [
    ("accuracy=76.078%, good=38039, total=50000\n", {"accuracy": (76.078, "%"), "good": (38039.0, "1")}),
    ('{"exact_match": 83.6, "f1": 90.8}\n', {"exact_match": (83.6, "1"), "f1": (90.8, "1")}),
    ("a" * 2_000_000 + "\n" + "=:" * 500_000 + "\n", {}),  # one long line: linear, nothing found
])
def test_accuracy_txt_pairs(tmp_path, text, expected):
    (tmp_path / "accuracy.txt").write_text(text)
    found = loadgen.accuracy_values(tmp_path)
    assert {k: found[k] for k in expected} == expected and (expected or not found)


def test_a_summary_line_of_spaces_is_read_in_linear_time(tmp_path):
    """LoadGen's summary parser once matched each line with a backtracking pattern (2,000 spaces: 40 s)."""
    text = (BARE / "sgrad20delft_singlestream" / "mlperf_log_summary.txt").read_text()
    (tmp_path / "mlperf_log_summary.txt").write_text(text.replace("No warnings", " " * 30_000 + "x" + " " * 30_000
                                                                  + "\nNo warnings"))
    frame = results.to_frame(loadgen.read({"mlperf_log_summary.txt": tmp_path / "mlperf_log_summary.txt"})[0].ds)
    assert frame.loc[frame["metric"] == "latency_p90", "value"].tolist() == [50798000]


def test_a_detail_line_nested_too_deep_is_passed_over(tmp_path):
    shutil.copytree(BARE / "cm_sdxl_offline", tmp_path / "run")
    detail = tmp_path / "run" / "mlperf_log_detail.txt"
    detail.write_text(detail.read_text() + ":::MLLOG " + "[" * 30_000 + "]" * 30_000 + "\n")
    assert len(frame_of(tmp_path / "run")) > 0
