"""hyperfine JSON: the publishers' exports (tests/corpus/hyperfine), exports with and without times, exit codes
(null = killed by a signal), parameters, launcher lines before the JSON, property-based generation and mutation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import hyperfine, read_paths

CORPUS = Path(__file__).parent / "corpus" / "hyperfine"
PROPS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def command(times=(0.1, 0.2, 0.3), **extra) -> dict:
    out = {"command": "sleep 0.1", "mean": float(np.mean(times)) if times else 0.2, "stddev": None,
           "median": float(np.median(times)) if times else 0.2, "user": 0.01, "system": 0.02,
           "min": min(times) if times else 0.1, "max": max(times) if times else 0.3, "times": list(times),
           "exit_codes": [0] * len(times)}
    out.update(extra)
    return out


def write(tmp_path: Path, entries: list, prefix: str = "") -> Path:
    path = tmp_path / "hf.json"
    path.write_text(prefix + json.dumps({"results": entries}))
    return path


def frame_of(path: Path):
    (loaded,) = hyperfine.read(path)
    return results.to_frame(loaded.ds), loaded.ds


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.json")), ids=lambda p: p.name)
def test_publishers_numbers_are_read(path):
    data = json.loads(path.read_text())
    (loaded,) = read_paths([path])
    frame = results.to_frame(loaded.ds)
    for item in data["results"]:
        rows = frame[frame["implementation"] == item["command"]]
        if item.get("times"):
            assert list(rows["value"]) == item["times"]
            assert np.mean(rows["value"]) == pytest.approx(item["mean"], rel=1e-9)
        else:
            assert rows.loc[rows["metric"] == "time_mean", "value"].tolist() == [item["mean"]]


def test_export_without_times_states_its_statistics_as_rows(tmp_path):
    stated = {k: v for k, v in command(stddev=0.01).items() if k not in ("times", "exit_codes")}
    frame, ds = frame_of(write(tmp_path, [stated]))
    assert dict(zip(frame["metric"], frame["value"]))["time_mean"] == pytest.approx(0.2)
    assert "time_mean" in results.attr_json(ds, "derived_metrics")


def test_exit_codes_null_and_nonzero_are_invalid_rows_with_a_reason(tmp_path):
    frame, _ = frame_of(write(tmp_path, [command(exit_codes=[0, None, 3])]))
    assert frame["valid"].tolist() == [True, False, False]
    assert "signal" in frame["status"].iloc[1] and "exit code 3" in frame["status"].iloc[2]


def test_parameters_are_factors(tmp_path):
    frame, ds = frame_of(write(tmp_path, [command(parameters={"threads": 4, "mode": "fast"}),
                                          command(command="sleep 0.2", parameters={"threads": 8, "mode": "fast"})]))
    assert sorted(set(frame["param_threads"])) == ["4", "8"] and "param_threads" in results.attr_json(ds, "factors")


def test_launcher_lines_before_the_json(tmp_path):
    (loaded,) = read_paths([write(tmp_path, [command()], prefix="srun: job 5 queued\nsrun: job 5 allocated\n")])
    assert results.to_frame(loaded.ds)["value"].tolist() == [0.1, 0.2, 0.3]


@pytest.mark.parametrize("change, needle", [
    ({"times": [0.1, -0.2, 0.1]}, "times[1]"), ({"exit_codes": ["0", 0, 0]}, "exit_codes[0]"),
    ({"parameters": ["threads", 1]}, "parameters"), ({"times": [0.1, float("nan"), 0.1]}, "times[1]"),
    ({"exit_codes": [0, 0]}, "exit codes"), ({"mean": -1.0}, "mean"), ({"command": 7}, "command"),
])
def test_damage_is_one_line_naming_the_field(tmp_path, change, needle):
    with pytest.raises(AuditInputError) as caught:
        read_paths([write(tmp_path, [command(**change)])])
    assert needle in caught.value.one_line() and "\n" not in caught.value.one_line()


@PROPS
@given(times=st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=10),
       codes=st.lists(st.one_of(st.none(), st.integers(-255, 255)), min_size=10, max_size=10))
def test_generated_exports_read_back(tmp_path, times, codes):
    frame, _ = frame_of(write(tmp_path, [command(times=times, exit_codes=codes[:len(times)])]))
    assert frame["value"].tolist() == times
    assert frame["valid"].tolist() == [c == 0 for c in codes[:len(times)]]


@PROPS
@given(data=st.data())
def test_mutations_end_in_rows_or_one_error_line(tmp_path, data):
    text = json.dumps({"results": [command()]})
    mutated = data.draw(st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.sampled_from(["NaN", "-1e308", "1e308", "9" * 400, '"x"', "[]", "{}", "null", "true"]).map(
            lambda v: text.replace("0.2", v, 1)),
        st.integers(1, 200_000).map(lambda d: '{"results": ' + "[" * d + "]" * d + "}"),
        st.just("[0] MPI startup(): x\n" + text), st.just(text.replace("sleep", "s" * 1_000_000))))
    path = tmp_path / "m.json"
    path.write_bytes(mutated.encode("utf-8") if data.draw(st.booleans()) else mutated.encode("latin-1", "replace"))
    try:
        frame, _ = frame_of(path)
        assert all(math.isfinite(v) for v in frame["value"])
    except AuditInputError as exc:
        assert "\n" not in exc.one_line()


def test_manifest_ground_truth():
    import yaml

    entries = yaml.safe_load((CORPUS.parent / "manifest.yaml").read_text())["entries"]
    for entry in (e for e in entries if isinstance(e.get("ground_truth", {}).get("hyperfine_means"), dict)):
        frames = [frame_of(CORPUS.parent / p)[0] for p in entry["paths"]]
        for command_, mean in entry["ground_truth"]["hyperfine_means"].items():
            values = [v for f in frames for v in f.loc[f["implementation"] == command_, "value"]]
            assert np.mean(values) == pytest.approx(mean, rel=1e-12)


def test_three_publishers():
    readme = (CORPUS.parent / "README.md").read_text()
    assert sum(f"github.com/{repo}" in readme for repo in (
        "three-em/3em", "bencherdev/bencher", "zeroows/1brc", "dandavison/misc")) >= 3
