"""pyperf JSON, loaded by pyperf itself behind the input layer: the publishers' files (tests/corpus/pyperf), type
swaps, 400-digit integers, NaN and infinity, launcher lines, property-based generation and mutation."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pyperf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import results
from twelveways.errors import AuditInputError
from twelveways.readers import pyperf_json, read_paths

CORPUS = Path(__file__).parent / "corpus" / "pyperf"
PROPS = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TELCO = json.loads((CORPUS / "telco.json").read_text())


def frame_of(path: Path):
    (loaded,) = pyperf_json.read(path)
    return results.to_frame(loaded.ds)


def write(tmp_path: Path, doc, prefix: str = "") -> Path:
    path = tmp_path / "bench.json"
    path.write_text(prefix + json.dumps(doc))
    return path


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json*")), ids=lambda p: p.name)
def test_values_are_pyperfs_own(path):
    (loaded,) = read_paths([path])
    frame = results.to_frame(loaded.ds)
    values = frame[~frame["warmup"].astype(bool)]
    for bench in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks():
        assert values.loc[values["workload"] == bench.get_name(), "value"].mean() == pytest.approx(bench.mean(),
                                                                                                    rel=1e-12)


def test_launcher_lines_before_the_json(tmp_path):
    frame = frame_of(write(tmp_path, TELCO, prefix="[0] MPI startup(): Intel(R) MPI Library\n"))
    assert frame.loc[~frame["warmup"].astype(bool), "value"].mean() == pytest.approx(0.02253074578743508, rel=1e-12)


def _at(doc, *path):
    for key in path[:-1]:
        doc = doc[key]
    return doc, path[-1]


@pytest.mark.parametrize("path, value, needle", [
    (("benchmarks", 0, "runs", 1, "values", 0), float("nan"), "values"),
    (("benchmarks", 0, "runs", 1, "values", 0), float("inf"), "not a finite number"),
    (("benchmarks", 0, "runs", 1, "values", 0), 10 ** 400, "digits"),
    (("benchmarks", 0, "runs", 1, "values", 0), -1.0, "values"),
    (("benchmarks", 0, "runs", 1, "warmups"), [[1, float("nan")]], "not a finite number"),
    (("benchmarks", 0, "runs"), {}, "runs"),
    (("benchmarks", 0, "runs", 1, "metadata"), [], "metadata"),
    (("benchmarks", 0, "runs", 1, "warmups"), [5], "warmups"),
    (("version",), 1.0, "version"),
    (("metadata",), "abc", "metadata"),
])
def test_damage_is_one_line(tmp_path, path, value, needle):
    doc = copy.deepcopy(TELCO)
    where, key = _at(doc, *path)
    where[key] = value
    with pytest.raises(AuditInputError) as caught:
        read_paths([write(tmp_path, doc)])
    line = caught.value.one_line()
    assert needle in line and "\n" not in line and "bench.json" in line


@PROPS
@given(values=st.lists(st.lists(st.floats(min_value=1e-9, max_value=1e3), min_size=1, max_size=4), min_size=1,
                       max_size=5))
def test_generated_suites_read_back(tmp_path, values):
    runs = [pyperf.Run(v, metadata={"name": "gen", "loops": 1}, collect_metadata=False) for v in values]
    path = tmp_path / "gen.json"
    pyperf.BenchmarkSuite([pyperf.Benchmark(runs)]).dump(str(path), replace=True)
    frame = frame_of(path)
    assert frame["value"].tolist() == [x for v in values for x in v]
    assert frame["invocation"].tolist() == [i for i, v in enumerate(values) for _ in v]


@PROPS
@given(data=st.data())
def test_mutations_end_in_rows_or_one_error_line(tmp_path, data):
    text = (CORPUS / "mult_list_py38.json").read_text()
    mutated = data.draw(st.one_of(
        st.integers(0, len(text)).map(lambda n: text[:n]),
        st.sampled_from(["NaN", "-1e308", "1e308", "9" * 400, '"x"', "[]", "{}", "null", "true"]).map(
            lambda v: text.replace('"values": [', f'"values": [{v}, ', 1)),
        st.integers(1, 200_000).map(lambda d: '{"version": "1.0", "benchmarks": ' + "[" * d + "]" * d + "}"),
        st.just("srun: x\n" + text), st.just(text.replace('"loops"', '"' + "l" * 1_000_000 + '"', 1))))
    path = tmp_path / "m.json"
    path.write_text(mutated)
    try:
        assert all(math.isfinite(v) for v in frame_of(path)["value"])
    except AuditInputError as exc:
        assert "\n" not in exc.one_line()


def test_manifest_ground_truth():
    import yaml

    entries = yaml.safe_load((CORPUS.parent / "manifest.yaml").read_text())["entries"]
    for entry in entries:
        for name, means in entry.get("ground_truth", {}).get("pyperf_means", {}).items():
            frame = frame_of(CORPUS / name)
            values = frame[~frame["warmup"].astype(bool)]
            for bench, mean in means.items():
                assert values.loc[values["workload"] == bench, "value"].mean() == pytest.approx(mean, rel=1e-12)


def test_three_publishers():
    readme = (CORPUS.parent / "README.md").read_text()
    for repo in ("psf/pyperf", "python/pyperformance", "faster-cpython/ideas"):
        assert f"github.com/{repo}" in readme
