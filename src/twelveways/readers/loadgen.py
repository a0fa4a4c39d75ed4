"""MLPerf Inference LoadGen logs: one run per directory (summary, detail, accuracy log where present).

Parsed by ``twelveways.infer.parse`` (the same code that reads our own LoadGen runs).  LoadGen
publishes summaries, not samples: every row is a per-run statistic LoadGen computed (its
percentiles, early-stopping estimates, QPS), so the file says so (attr
``per_query_latency_source = loadgen_summary``, every metric in ``derived_metrics``) and the
checklist treats the percentiles as stated, not recomputable.  A run LoadGen judged INVALID has
``valid`` false on every row and its reason (the unmet criteria, LoadGen's errors) in ``status``.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path

from ..errors import MeasurementError
from ..infer import parse
from .head import Head
from .registry import CERTAIN, Format, Group
from . import decode
from .common import GZIP_MAGIC, ReaderError, build, number, read_bytes, row, text_lines

FORMAT = "mlperf-loadgen"
FILES = (parse.SUMMARY, parse.DETAIL, parse.ACCURACY)
RATE_UNITS = (("tokens per second", "tokens/s"), ("samples per second", "samples/s"), ("qps", "queries/s"),
              ("queries per second", "queries/s"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "_", text.lower()).strip("_")


def _staged(files: dict[str, Path], tmp: Path) -> Path:
    """A folder holding the logs under LoadGen's names, as plain text (files are recognized by content, not
    name, and may be gzipped): the run's own folder when it already is one, else copies in ``tmp``."""
    folders = {p.parent for p in files.values()}
    if len(folders) == 1 and all(p.name == name and not _gzipped(p) for name, p in files.items()):
        return folders.pop()
    for name, path in files.items():
        (tmp / name).write_bytes(read_bytes(path, FORMAT))  # bounded, gunzipped
    return tmp


def _gzipped(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def _checked(path: Path, metrics: list[tuple[str, float, str]]) -> list[tuple[str, float, str]]:
    """Every statistic LoadGen states (latencies, QPS, counts) is finite and not negative."""
    for metric, value, _ in metrics:
        number(path, f"{FORMAT}: {metric}", value)
    return metrics


def _metrics(summary: dict) -> list[tuple[str, float, str]]:
    """(metric, value, unit) of every number LoadGen states in its summary."""
    out = []
    for fraction, ns in sorted(summary["percentiles"].items()):
        out.append((parse.PERCENTILES.get(fraction, f"latency_p{fraction * 100:g}"), float(ns), "ns"))
    for fraction, ns in sorted(summary["early_stopping"].items()):
        out.append((f"early_stopping_latency_p{fraction * 100:g}", float(ns), "ns"))
    for key, value in summary["values"].items():
        if key.startswith("param:") or not isinstance(value, (int, float)) or "percentile latency" in key:
            continue
        lowered = key.lower()
        if "(ns)" in lowered:
            out.append((_slug("latency_" + lowered.replace("(ns)", "").replace("latency", "")), float(value), "ns"))
            continue
        unit = next((u for token, u in RATE_UNITS if token in lowered), "1")
        out.append((_slug(key), float(value), unit))
    return out


def _reason(summary: dict, detail: dict) -> str:
    unmet = [name for name, ok in summary["criteria"].items() if not ok]
    text = "; ".join([f"{name} not satisfied" for name in unmet] + detail.get("errors", [])[:3])
    return f"INVALID: {text or 'LoadGen says INVALID'}"


#: Keys a harness may log beside LoadGen's own naming the model (LoadGen itself names only the SUT and QSL).
MODEL_KEYS = ("model", "model_name", "mlperf_model", "benchmark", "benchmark_name")


def _where(folder: Path, summary: dict, detail: dict) -> tuple[str, str]:
    """(workload, implementation): a submission tree names them (<system>/<model>/<scenario>/performance/run_1);
    a bare run folder takes the model its logs state, else the SUT name LoadGen logged (never refused)."""
    place = submission_place(folder)
    if place:
        return place["workload"], place["implementation"]
    sut = str(summary["values"].get("SUT name") or detail["values"].get("sut_name") or "")
    model = next((str(detail["values"][k]) for k in MODEL_KEYS if str(detail["values"].get(k) or "").strip()), "")
    return model or sut or "unnamed", sut


def _accuracy(path: Path) -> dict:
    entries = decode.load_json(path, f"{FORMAT} accuracy log")
    if not isinstance(entries, list) or any(not isinstance(e, dict) or "qsl_idx" not in e for e in entries):
        raise ReaderError(path, f"{FORMAT}: accuracy log must be a list of {{qsl_idx, data}} entries")
    return {"responses": len(entries), "distinct_samples": len({e["qsl_idx"] for e in entries})}


def read(files: dict[str, Path]) -> list:
    """One LoadGen run (its directory's logs) as a Dataset of LoadGen's own statistics."""
    anchor = files.get(parse.SUMMARY) or files.get(parse.DETAIL) or files[parse.ACCURACY]
    folder = anchor.parent
    for name in (parse.SUMMARY, parse.DETAIL):
        if name in files:
            for _ in text_lines(files[name], FORMAT):  # line length and UTF-8, before the parser reads it whole
                pass
    with tempfile.TemporaryDirectory() as tmp:
        staged = _staged(files, Path(tmp))
        try:
            summary = parse.summary(staged) if parse.SUMMARY in files else None
            detail = parse.detail(staged) if parse.DETAIL in files else {"values": {}, "errors": [], "warnings": []}
        except MeasurementError as exc:
            raise ReaderError(anchor, f"{FORMAT}: {exc.one_line()}") from exc
    if summary is None and accuracy_mode(folder, detail):
        return [read_accuracy_run(folder, detail)]
    if summary is None:
        raise ReaderError(anchor, f"{FORMAT}: no {parse.SUMMARY} beside it (the run's statistics are in the summary)")
    values = detail["values"]
    result = str(summary.get("result") or values.get("result_validity") or "")
    valid = result.upper() == "VALID"
    scenario = str(summary.get("scenario") or values.get("effective_scenario", ""))
    workload, implementation = _where(folder, summary, detail)
    status = "VALID" if valid else _reason(summary, detail)
    run_id = "/".join(filter(None, ((submission_place(folder) or {}).get("compliance_test"), folder.name)))
    records = [row(benchmark="infer", workload=workload, implementation=implementation, run_id=run_id, metric=m,
                   value=v, unit=u, valid=valid, scenario=scenario, loadgen_valid=valid, status=status)
               for m, v, u in _checked(files[parse.SUMMARY], _metrics(summary))]
    if not records:
        raise ReaderError(anchor, f"{FORMAT}: the summary states no numbers (mode {summary.get('mode', '?')})")
    settings = {k: v for k, v in values.items() if k.startswith("effective_")} or \
        {k[6:]: v for k, v in summary["values"].items() if k.startswith("param:")}
    metrics = sorted({r["metric"] for r in records})
    attrs = {
        "factors": ["scenario"],
        "per_query_latency_source": "loadgen_summary",
        "percentiles_recomputable": 0,
        "derived_metrics": metrics,
        "tail_metrics": [m for m in metrics if "latency" in m],
        "loadgen_result": {"result": result or "not stated", "mode": summary.get("mode", ""),
                           "criteria": summary["criteria"], "reason": "" if valid else status,
                           "errors": detail["errors"], "warnings": detail["warnings"]},
        "requested_settings": {k: v for k, v in values.items() if k.startswith("requested_")},
        "min_duration_ms": settings.get("effective_min_duration_ms", summary["values"].get("param:min_duration (ms)")),
        "min_query_count": settings.get("effective_min_query_count", summary["values"].get("param:min_query_count")),
        "summaries": [] if not valid else [
            {"metric": "latency", "statistic": f"p{fraction * 100:g}", "kind": "cost", "unit": "ns", "value": ns,
             "filters": {"run_id": run_id, "scenario": scenario}, "recomputable": 0,
             "note": "stated by LoadGen (mlperf_log_summary.txt); per-query latencies are not in the logs"}
            for fraction, ns in sorted(summary["percentiles"].items())],
    }
    if parse.ACCURACY in files:
        attrs["accuracy_log"] = _accuracy(files[parse.ACCURACY])
    attrs.update(compliance_attrs(folder))
    environment = {k: v for k, v in values.items() if k.startswith("loadgen_") and "date" not in k}
    return [build(folder, FORMAT, "infer", records, environment=environment, config=settings, attrs=attrs)]


COMPLIANCE_TEST = re.compile(r"TEST\d+")


#: LoadGen's scenarios, as submission trees name their folders (case aside).
SCENARIOS = {"offline", "server", "singlestream", "multistream", "interactive"}


def submission_place(folder: Path) -> dict | None:
    """Where a run sits in an MLPerf submission tree: <system>/<model>/<scenario>/performance/run_1,
    .../<scenario>/accuracy, or a compliance test .../<scenario>/TEST01/performance/run_1 (the
    test is evidence about the benchmark it sits under, not a model of its own).  Only a folder named
    for a LoadGen scenario makes the two above it system and model: a run kept in any other folder
    (``~/runs/performance/run_1``) names no model by where it is."""
    parts = folder.resolve().parts
    for marker in ("performance", "accuracy"):
        if marker not in parts:
            continue
        at = len(parts) - 1 - parts[::-1].index(marker)
        test = parts[at - 1] if at >= 1 and COMPLIANCE_TEST.fullmatch(parts[at - 1]) else ""
        scenario_at = at - 2 if test else at - 1
        if scenario_at >= 2 and parts[scenario_at].lower() in SCENARIOS:
            return {"workload": parts[scenario_at - 1], "implementation": parts[scenario_at - 2],
                    "scenario": parts[scenario_at], "compliance_test": test}
    return None


def compliance_attrs(folder: Path) -> dict:
    """A compliance test run's attributes: which test, of which benchmark, and its verdict file when present."""
    place = submission_place(folder) or {}
    test = place.get("compliance_test")
    if not test:
        return {}
    verdicts = {}
    for name in ("verify_performance.txt", "verify_accuracy.txt"):
        found = [p / name for p in (folder, *folder.parents[:3]) if (p / name).is_file()]
        if found:
            text = read_bytes(found[0], FORMAT).decode("utf-8", "replace")
            verdicts[name] = "PASS" if re.search(r"TEST\s*PASS", text) else "FAIL" if "FAIL" in text else "not stated"
    return {"compliance_test": {"test": test, "benchmark": place["workload"], "scenario": place["scenario"],
                                "system": place["implementation"], "verdicts": verdicts,
                                "note": "MLPerf Inference compliance (audit) test of the benchmark above it"}}


def accuracy_mode(folder: Path, detail: dict) -> bool:
    """An accuracy-mode run: LoadGen's detail log says AccuracyOnly (its summary states no performance)."""
    return str(detail["values"].get("effective_test_mode", "")).lower().startswith("accuracy") or \
        folder.name == "accuracy"


#: Characters around the pairs an accuracy script prints (``{'mAP': 37.5}``, ``accuracy=76.078%, good=38039``).
_PUNCTUATION = str.maketrans({c: " " for c in "{}()[],;'\""})


def _accuracy_pairs(text: str):
    """(name, value, unit) of every ``name=number`` / ``name: number`` the accuracy script printed; tokens split
    with str.split (linear in the text, no pattern to backtrack over a long line)."""
    for line in text.splitlines():
        tokens = line.translate(_PUNCTUATION).split()
        for at, token in enumerate(tokens):
            name, sep, value = token.partition("=") if "=" in token else token.partition(":")
            if not sep:
                continue
            name = name or (tokens[at - 1] if at else "")
            value = value or (tokens[at + 1] if at + 1 < len(tokens) else "")
            figure = value.removesuffix("%")
            try:
                number_ = float(figure)
            except ValueError:
                continue
            if name[:1].isalpha() or name[:1] == "_":
                yield name, number_, "%" if value.endswith("%") else "1"


def accuracy_values(folder: Path) -> dict:
    """name -> (value, unit) of the numbers the accuracy script wrote in accuracy.txt (e.g. accuracy=76.078%)."""
    path = folder / "accuracy.txt"
    if not path.is_file():
        return {}
    found = {}
    for name, value, unit in _accuracy_pairs(read_bytes(path, FORMAT).decode("utf-8", "replace")):
        if name.lower() != "hash" and math.isfinite(value):
            found.setdefault(name, (value, unit))
    return found


def read_accuracy_run(folder: Path, detail: dict):
    """An accuracy-mode folder: the accuracy script's result (accuracy.txt) as rows, LoadGen's settings beside."""
    values = accuracy_values(folder)
    if not values:
        raise ReaderError(folder, f"{FORMAT}: accuracy-mode run without an accuracy.txt stating its result")
    place = submission_place(folder) or {"workload": _where(folder, {"values": {}}, detail)[0], "implementation": "",
                                         "scenario": ""}
    scenario = str(detail["values"].get("effective_scenario", place["scenario"]))
    records = [row(benchmark="infer", workload=place["workload"], implementation=place["implementation"],
                   run_id="accuracy", metric="accuracy" if name.lower() == "accuracy" else f"accuracy_{name}",
                   value=value, unit=unit, scenario=scenario, status="accuracy mode")
               for name, (value, unit) in values.items()]
    attrs = {"factors": ["scenario"], "mode": "AccuracyOnly",
             "metric_kinds": {r["metric"]: "quality" for r in records},
             "loadgen_result": {"result": "accuracy mode (LoadGen judges no performance)", "mode": "AccuracyOnly",
                                "criteria": {}, "reason": "", "errors": detail["errors"], "warnings": detail["warnings"]}}
    settings = {k: v for k, v in detail["values"].items() if k.startswith("effective_")}
    environment = {k: v for k, v in detail["values"].items() if k.startswith("loadgen_") and "date" not in k}
    return build(folder, FORMAT, "infer", records, environment=environment, config=settings, attrs=attrs)


#: Keys only LoadGen's detail log writes (an MLPerf Training log has ``:::MLLOG`` lines too).
LOADGEN_KEYS = ('"loadgen_version"', '"effective_scenario"', '"requested_scenario"', '"result_validity"')


def _kind(head: Head) -> str | None:
    """Which of a run's three logs ``head`` is: summary, detail (MLLOG with LoadGen's keys) or accuracy log."""
    value = head.document
    if isinstance(value, list) and all(isinstance(e, dict) and "qsl_idx" in e for e in value) and value:
        return parse.ACCURACY
    if value is None and head.window.startswith("[") and head.json_keys("qsl_idx"):
        return parse.ACCURACY
    text = head.text
    if ":::MLLOG" in text and any(key in text for key in LOADGEN_KEYS):
        return parse.DETAIL
    return parse.SUMMARY if "MLPerf Results Summary" in text else None


def _recognize(head: Head) -> int:
    return CERTAIN if _kind(head) else 0


def _read_run(files: dict[str, list[Path]]) -> list:
    """One folder's logs: each named by its kind (a second log of one kind in a folder is an error)."""
    by_kind: dict[str, Path] = {}
    for file in files[FORMAT]:
        kind = _kind(Head.of(file))
        if kind in by_kind:
            raise ReaderError(file, f"a second LoadGen {kind} in {file.parent} (one run per directory; "
                                    f"the first is {by_kind[kind].name})")
        by_kind[kind] = file
    return read(by_kind)


READER = Format(name=FORMAT, title="MLPerf Inference LoadGen logs",
                reads="LoadGen 1.x to 6.x: mlperf_log_summary.txt, mlperf_log_detail.txt, mlperf_log_accuracy.json",
                recognize=_recognize, group=Group(FORMAT, _read_run))
