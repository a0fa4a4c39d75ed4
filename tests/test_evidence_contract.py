"""The evidence contract's pieces: what a number is, who stated it, which machine, damaged inputs guarded."""

from __future__ import annotations

import ast

import pytest

from twelveways.evidence.kinds import MetricKind, StatedBy, kind_of, rate_kind
from twelveways.evidence.summary import StatedSummary
from twelveways.evidence.machine import MachineIdentity
from twelveways.report import render


@pytest.mark.parametrize("unit, kind", [("MFlop/s", MetricKind.OP_RATE), ("Gop/s", MetricKind.OP_RATE),
                                        ("ops per second", MetricKind.OP_RATE), ("MB/s", MetricKind.BYTE_RATE),
                                        ("GiB/s", MetricKind.BYTE_RATE), ("samples/s", MetricKind.ITEM_RATE),
                                        ("queries/s", MetricKind.ITEM_RATE), ("qps", MetricKind.ITEM_RATE),
                                        ("tokens/s", MetricKind.ITEM_RATE), ("s", None), ("ops", None)])
def test_rate_kinds_follow_the_unit(unit, kind):
    assert rate_kind(unit) is kind


def test_kinds_and_statements():
    assert kind_of("latency_p99", "ns") is MetricKind.LATENCY and kind_of("time", "s") is MetricKind.TIME
    assert StatedSummary.model_validate({"metric": "time", "stated_by": "reader"}).stated_by is StatedBy.READER
    assert StatedSummary(metric="time").stated_by is StatedBy.PUBLISHER


def test_one_machine_is_host_boot_and_cpu_not_the_software():
    a = MachineIdentity.of({"hostname": "apu", "boot_time": "2020-10-05 19:26:58", "cpu_model_name": "i7", "cpu_count": 8,
                            "platform": "Linux-5.8-with-fedora-32"})
    b = MachineIdentity.of({"hostname": "apu", "boot_time": "2020-10-05 19:26:58", "cpu_model_name": "i7", "cpu_count": 8,
                            "platform": "Linux-5.8-with-glibc2.2.5"})
    assert a.same_machine(b)
    assert not a.same_machine(MachineIdentity.of({"hostname": "apu", "boot_time": "2021-01-01", "cpu_model_name": "i7"}))
    assert not MachineIdentity.of({"hostname": "x"}).same_machine(MachineIdentity.of({"hostname": "x"}))


def test_a_damaged_config_dump_is_one_line(tmp_path):
    assert render._read_optional_json(tmp_path / "absent.json") == {}
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    with pytest.raises(render.RenderError, match="config.json"):
        render._read_optional_json(bad)


#: Settings whose only default is the config schema's (measurement.confidence, measurement.ci_target).
SCHEMA_SETTINGS = ("confidence", "ci_target")


def _number(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _literal_defaults(source: str) -> list[tuple[int, str]]:
    """(line, what) of every numeric literal standing in for a schema setting: a parameter or dataclass field
    named ``confidence``/``ci_target`` with a number as its default, ``.get("confidence", <number>)``, and an
    argparse ``--confidence``/``--ci-target`` option with a number as its default."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
            found += [(default.lineno, f"parameter {arg.arg}={default.value}") for arg, default in pairs
                      if arg.arg in SCHEMA_SETTINGS and _number(default)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _number(node.value) \
                and node.target.id in SCHEMA_SETTINGS:
            found.append((node.lineno, f"field {node.target.id} = {node.value.value}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            if node.func.attr == "get" and key in SCHEMA_SETTINGS and len(node.args) == 2 and _number(node.args[1]):
                found.append((node.lineno, f".get({key!r}, {node.args[1].value})"))
            option = str(key).lstrip("-").replace("-", "_")
            if node.func.attr == "add_argument" and option in SCHEMA_SETTINGS:
                found += [(node.lineno, f"option {key} default={kw.value.value}") for kw in node.keywords
                          if kw.arg == "default" and _number(kw.value)]
    return sorted(found)


def test_the_literal_default_finder_sees_each_form():
    source = ("def f(a, confidence=0.95, *, ci_target=0.05, alpha=0.05): pass\n"
              "class C:\n    confidence: float = 0.9\n"
              "x = item.get('confidence', 0.95) or item.get('confidence') or item.get('other', 1)\n"
              "parser.add_argument('--ci-target', type=float, default=0.05)\n"
              "def g(confidence=None, target=settings.default_confidence()): pass\n")
    assert [line for line, _ in _literal_defaults(source)] == [1, 1, 3, 4, 5]


def test_no_literal_confidence_default_outside_the_schema():
    """The confidence level and CI target come from the config schema (twelveways.evidence.settings) alone: every
    ``confidence``/``ci_target`` in the package defaults to None and is resolved there."""
    from pathlib import Path

    from twelveways.evidence.settings import default_ci_target, default_confidence

    package = Path(render.__file__).resolve().parents[1]
    found = [f"{path.relative_to(package.parent)}:{line}: {what}" for path in sorted(package.rglob("*.py"))
             for line, what in _literal_defaults(path.read_text())]
    assert not found, found
    assert (default_confidence(), default_ci_target()) == (0.95, 0.05)  # the schema's defaults


def test_evidence_docs_are_generated_from_the_registry():
    from pathlib import Path

    from twelveways.evidence import registry

    docs = Path(render.__file__).resolve().parents[3] / "docs" / "evidence.md"
    assert docs.read_text() == registry.render(), \
        "docs/evidence.md is stale: run `python -m twelveways.evidence.registry > docs/evidence.md`"


def _written_attributes(tmp_path) -> dict[str, str]:
    """attribute -> a file that carries it: the reference results, every reader on the corpus and the
    published files of tests/data/formats, the crafted set."""
    import sys
    from pathlib import Path

    import xarray as xr

    from twelveways.readers import read_paths

    root = Path(render.__file__).resolve().parents[3]
    sys.path.insert(0, str(root / "tests" / "data" / "good_results"))
    import make_results

    files = sorted((root / "data" / "reference" / "results").glob("*.nc"))
    files += [Path(p) for p in make_results.build(tmp_path)["results"]]
    found = {}
    for path in files:
        with xr.open_dataset(path) as ds:
            found.update({key: str(path) for key in ds.attrs})
    for item in read_paths([root / "tests" / "corpus", root / "tests" / "data" / "formats"]):
        found.update({key: item.path for key in item.ds.attrs})
    return found


def test_every_attribute_a_producer_or_reader_writes_is_declared(tmp_path):
    from twelveways.evidence import registry

    undeclared = {k: v for k, v in _written_attributes(tmp_path).items() if registry.lookup(k) is None}
    assert not undeclared, f"declare these in twelveways.evidence.registry: {undeclared}"


def test_aliases_name_one_idea():
    from twelveways.evidence import registry

    assert registry.names("rank_summary") == ("rank_summary", "time_summary", "prk_time_summary")
    assert registry.lookup("prk_time_summary") is registry.lookup("time_summary") is registry.lookup("rank_summary")
    with pytest.raises(KeyError, match="not declared"):
        registry.names("no_such_attribute")


def test_google_benchmark_counters_keep_per_second_units(tmp_path):
    """Counters as the Google Benchmark docs describe them (user counters beside the built-in rate counters)."""
    import json

    from twelveways import results
    from twelveways.readers import read_paths

    entry = {"name": "BM_Queue", "run_name": "BM_Queue", "run_type": "iteration", "repetitions": 1,
             "repetition_index": 0, "threads": 1, "iterations": 1000, "real_time": 12.5, "cpu_time": 12.4,
             "time_unit": "ns", "bytes_per_second": 8e8, "items_per_second": 8e7, "ops per second": 4e7,
             "cache_misses": 12.0}
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"context": {"num_cpus": 2, "library_build_type": "release"}, "benchmarks": [entry]}))
    frame = results.to_frame(read_paths([path])[0].ds).set_index("metric")
    assert frame.loc["bytes_per_second", "unit"] == "B/s" and frame.loc["items_per_second", "unit"] == "items/s"
    assert frame.loc["ops per second", "unit"] == "ops/s" and frame.loc["cache_misses", "unit"] == "1"
    assert rate_kind(frame.loc["ops per second", "unit"]) is MetricKind.OP_RATE


def test_the_checker_ruleset_follows_the_round_of_the_run_date(tmp_path):
    """Without a folder naming the round, the first run_start's date places the logs in their round."""
    import shutil
    from pathlib import Path

    from twelveways.readers import mlperf_training

    source = Path(__file__).parent / "corpus" / "mlperf_training" / "v4.0" / "Intel-HabanaLabs" / "results" / \
        "HLS-Gaudi2-PT" / "llama2_70b_lora"
    folder = tmp_path / "box" / "llama2_70b_lora"
    shutil.copytree(source, folder)
    paths = sorted(folder.glob("result_*.txt"))
    runs = [mlperf_training.read_run(p) for p in paths[:2]]
    name, basis = mlperf_training.submission_round(paths, runs)
    assert name == "4.0" and "2024-05-09" in basis


def test_replicates_are_counted_at_the_outermost_level():
    """pyperf: 20 processes x 3 values is n = 20 processes; one Google Benchmark process is one replicate."""
    from pathlib import Path

    from twelveways import results
    from twelveways.evidence.levels import replicates
    from twelveways.readers import read_paths

    corpus = Path(__file__).parent / "corpus"
    (pyperf,) = read_paths([corpus / "pyperf" / "telco.json"])
    frame = results.to_frame(pyperf.ds)
    values = frame[~frame["warmup"].astype(bool)]
    found = replicates(values, {"nesting": results.attr_json(pyperf.ds, "nesting")})
    assert found.outer == "invocation" and found.n == values["invocation"].nunique() < len(values)
    assert "iteration" in found.inner
    (gbench,) = read_paths([corpus / "gbench" / "github_action_benchmark_googlecpp_output.json"])
    rows = results.to_frame(gbench.ds)
    assert replicates(rows[rows["workload"] == "fib_10"]).n == 1
