"""MLPerf Inference LoadGen logs: one run per directory (summary, detail, accuracy log where present).

Parsed by ``twelveways.infer.parse`` (the same code that reads our own LoadGen runs).  LoadGen
publishes summaries, not samples: every row is a per-run statistic LoadGen computed (its
percentiles, early-stopping estimates, QPS), so the file says so (attr
``per_query_latency_source = loadgen_summary``, every metric in ``derived_metrics``) and the
checklist treats the percentiles as stated, not recomputable.  A run LoadGen judged INVALID has
``valid`` false on every row and its reason (the unmet criteria, LoadGen's errors) in ``status``.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from ..errors import MeasurementError
from ..infer import parse
from .head import Head
from .registry import CERTAIN, Format, Group
from .common import ReaderError, build, number, parse_json_bytes, read_bytes, row, text_lines

FORMAT = "mlperf-loadgen"
FILES = (parse.SUMMARY, parse.DETAIL, parse.ACCURACY)
RATE_UNITS = (("tokens per second", "tokens/s"), ("samples per second", "samples/s"), ("qps", "queries/s"),
              ("queries per second", "queries/s"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "_", text.lower()).strip("_")


def _staged(files: dict[str, Path], tmp: Path) -> Path:
    """A folder holding the logs under LoadGen's names (files are recognized by content, not name)."""
    folders = {p.parent for p in files.values()}
    if len(folders) == 1 and all(p.name == name for name, p in files.items()):
        return folders.pop()
    for name, path in files.items():
        shutil.copyfile(path, tmp / name)
    return tmp


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


def _where(folder: Path, summary: dict) -> tuple[str, str]:
    """(workload, implementation): a submission tree names them (<system>/<model>/<scenario>/performance/run_1)."""
    place = submission_place(folder)
    if place:
        return place["workload"], place["implementation"]
    return str(summary["values"].get("SUT name", folder.name)), str(summary["values"].get("SUT name", ""))


def _accuracy(path: Path) -> dict:
    entries = parse_json_bytes(path, f"{FORMAT} accuracy log", read_bytes(path, FORMAT))
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
    workload, implementation = _where(folder, summary)
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


def submission_place(folder: Path) -> dict | None:
    """Where a run sits in an MLPerf submission tree: <system>/<model>/<scenario>/performance/run_1,
    .../<scenario>/accuracy, or a compliance test .../<scenario>/TEST01/performance/run_1 (the
    test is evidence about the benchmark it sits under, not a model of its own)."""
    parts = folder.resolve().parts
    for marker in ("performance", "accuracy"):
        if marker not in parts:
            continue
        at = len(parts) - 1 - parts[::-1].index(marker)
        test = parts[at - 1] if at >= 1 and COMPLIANCE_TEST.fullmatch(parts[at - 1]) else ""
        scenario_at = at - 2 if test else at - 1
        if scenario_at >= 2:
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
            text = found[0].read_text(errors="replace")
            verdicts[name] = "PASS" if re.search(r"TEST\s*PASS", text) else "FAIL" if "FAIL" in text else "not stated"
    return {"compliance_test": {"test": test, "benchmark": place["workload"], "scenario": place["scenario"],
                                "system": place["implementation"], "verdicts": verdicts,
                                "note": "MLPerf Inference compliance (audit) test of the benchmark above it"}}


def accuracy_mode(folder: Path, detail: dict) -> bool:
    """An accuracy-mode run: LoadGen's detail log says AccuracyOnly (its summary states no performance)."""
    return str(detail["values"].get("effective_test_mode", "")).lower().startswith("accuracy") or \
        folder.name == "accuracy"


ACCURACY_PAIR = re.compile(r"[\"']?([A-Za-z_][\w .-]*?)[\"']?\s*[=:]\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(%?)")


def accuracy_values(folder: Path) -> dict:
    """name -> (value, unit) of the numbers the accuracy script wrote in accuracy.txt (e.g. accuracy=76.078%)."""
    path = folder / "accuracy.txt"
    if not path.is_file():
        return {}
    found = {}
    for name, figure, percent in ACCURACY_PAIR.findall(path.read_text(errors="replace")):
        if name.strip().lower() != "hash":
            found.setdefault(name.strip(), (float(figure), "%" if percent else "1"))
    return found


def read_accuracy_run(folder: Path, detail: dict):
    """An accuracy-mode folder: the accuracy script's result (accuracy.txt) as rows, LoadGen's settings beside."""
    values = accuracy_values(folder)
    if not values:
        raise ReaderError(folder, f"{FORMAT}: accuracy-mode run without an accuracy.txt stating its result")
    place = submission_place(folder) or {"workload": folder.name, "implementation": "", "scenario": ""}
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
