"""MLPerf Training result logs (``:::MLLOG`` lines, one ``result_*.txt`` per seeded run).

Each ``:::MLLOG`` line is read in bounded pieces and checked against the MLPerf logging format (a
JSON object with a string ``key``, a finite ``time_ms``, an object ``metadata``) before it becomes
``mlperf_logging``'s own ``LogLine`` (its parser's per-line regex is quadratic in a line's length,
and it raises KeyError or TypeError on lines without a key or that are not objects); the
runs of one folder (one benchmark of one system) are read together because MLPerf scores them
together: time to train = ``run_stop`` − ``run_start`` of each run, and the score is the olympic
mean computed by ``mlperf_logging``'s result summarizer (``_compute_olympic_average``: the
fastest and slowest ``max_dropped`` runs dropped — 1, or 4 for unet3d — where a run that did
not reach the target counts as one dropped from the slow end; more such runs than ``max_dropped``
means no score).  The rules' number of runs per benchmark comes from
``mlperf_logging.benchmark_meta``.  When the compliance checker is installed its verdict on each
log is kept as attr ``compliance``.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from pathlib import Path

from . import decode
from .head import Head
from .registry import CERTAIN, Format, Group
from .common import ReaderError, build, mapping, number, row, text_lines

FORMAT = "mlperf-training"
SUBMISSION_KEYS = ("submission_benchmark", "submission_org", "submission_division", "submission_status",
                   "submission_platform", "submission_poc_name", "submission_poc_email")
TARGET_KEYS = ("target_accuracy", "quality_target", "target_quality", "eval_target", "target_loss")
#: Keys that are bookkeeping, not hyperparameters.
NOT_HYPERPARAMETERS = {"seed", "cache_clear", "init_start", "init_stop", "run_start", "run_stop", *SUBMISSION_KEYS,
                       *TARGET_KEYS}


TOKEN = ":::MLLOG "
#: Largest epoch number accepted (BERT logs samples seen as epoch_num: millions; 1e30 is damage).
MAX_EPOCH = 1e12


def _lines(path: Path) -> list:
    """The log's ``:::MLLOG`` lines as mlperf_logging ``LogLine`` records, each checked first."""
    from mlperf_logging.compliance_checker.mlp_parser.ruleset_610 import LogLine

    out = []
    for number_, text in text_lines(path, FORMAT):
        at = text.rfind(TOKEN)  # what mlperf_logging keeps of a line: the text after the last token
        if at < 0:
            continue
        entry = _entry(path, number_, text[at + len(TOKEN):])
        out.append(LogLine(TOKEN + text[at + len(TOKEN):], entry["time_ms"], entry["key"],
                           {"value": entry.get("value"), "metadata": entry["metadata"]}, number_))
    return out


def _entry(path: Path, line: int, text: str) -> dict:
    """One MLLOG line's JSON, checked for the fields every line must have."""
    where = f"{FORMAT}: line {line}"
    if not text.lstrip().startswith("{"):  # not an object: its type is all the error line needs
        try:
            mapping(path, where, json.loads(text))
        except (ValueError, RecursionError) as exc:
            raise ReaderError(path, f"{where} is not valid JSON after {TOKEN.strip()}") from exc
    try:  # the input layer's decoder: integers within 64 bits, nesting bounded
        entry = decode.decode_json_text(text, str(path))
    except ValueError as exc:
        raise ReaderError(path, f"{where} after {TOKEN.strip()}: {exc}") from exc
    mapping(path, where, entry)
    if not isinstance(entry.get("key"), str) or not entry["key"]:
        raise ReaderError(path, f"{where} has no 'key' (every MLLOG line names its key)")
    entry["time_ms"] = number(path, f"{where} ({entry['key']}) time_ms", entry.get("time_ms"))
    entry["metadata"] = mapping(path, f"{where} ({entry['key']}) metadata", entry.get("metadata") or {})
    return entry


def _value(line):
    return line.value.get("value") if isinstance(line.value, dict) else None


def _metadata(line) -> dict:
    meta = line.value.get("metadata") if isinstance(line.value, dict) else None
    return meta if isinstance(meta, dict) else {}


def _epoch(path: Path, line) -> float | None:
    """An eval line's ``epoch_num`` (None when not logged), checked: a finite count, not negative."""
    value = _metadata(line).get("epoch_num")
    if value is None:
        return None
    return number(path, f"{FORMAT}: line {line.lineno} ({line.key}) metadata epoch_num", value, high=MAX_EPOCH)


def _seed(path: Path, line) -> int:
    """The run's ``seed`` line: an integer of at most 64 bits (-1 when the log states none)."""
    if line is None or _value(line) is None:
        return -1
    return number(path, f"{FORMAT}: line {line.lineno} (seed) value", _value(line), low=-(2.0 ** 63), high=2.0 ** 63 - 1,
                  integer=True)


def read_run(path: Path) -> dict:
    """One run's facts: submission metadata, seed, start/stop, status, quality, epochs, hyperparameters."""
    lines = _lines(path)
    first, last = {}, {}
    for line in lines:
        first.setdefault(line.key, line)
        last[line.key] = line
    for key in ("run_start", "run_stop"):
        if key not in first:
            raise ReaderError(path, f"{FORMAT}: no {key} line (truncated log?)")
    start, stop = float(first["run_start"].timestamp), float(first["run_stop"].timestamp)
    if stop < start:
        raise ReaderError(path, f"{FORMAT}: run_stop ({stop} ms) before run_start ({start} ms)")
    evals = [line for line in lines if line.key == "eval_accuracy"]
    epochs = [_epoch(path, line) for line in evals]
    hyper = {line.key: _value(line) for line in lines
             if line.key not in NOT_HYPERPARAMETERS and line.timestamp <= start and _value(line) is not None
             and not line.key.startswith(("init_", "submission_"))}
    return {
        "path": path, "run_id": path.stem, "start_ms": start, "stop_ms": stop,
        "status": str(_metadata(first["run_stop"]).get("status", "")).lower(),
        "seed": _seed(path, first.get("seed")),
        "submission": {k: _value(first[k]) for k in SUBMISSION_KEYS if k in first},
        "target": next((_value(first[k]) for k in TARGET_KEYS if k in first), None),
        "quality": _value(evals[-1]) if evals else None,
        "epochs": next((e for e in reversed(epochs) if e is not None), None),
        "hyperparameters": hyper,
    }


def checker_ruleset(benchmark: str, division: str) -> str | None:
    """The newest training ruleset of the installed checker that has this benchmark's rules."""
    from mlperf_logging import compliance_checker

    root = Path(compliance_checker.__file__).parent
    found = [d.name.split("_", 1)[1] for d in root.glob("training_*")
             if (d / f"{division or 'closed'}_{benchmark}.yaml").is_file() and d.name.count("_") == 1]
    return max(found, key=lambda v: tuple(int(x) for x in v.split("."))) if found else None


def compliance(path: Path, benchmark: str, division: str, ruleset: str | None = None) -> dict | None:
    """``mlperf_logging.compliance_checker`` on one log under ``ruleset`` (default: the newest with the
    benchmark's rules), or None if the checker is absent."""
    try:
        from mlperf_logging.compliance_checker import mlp_compliance
    except ImportError:
        return None
    from ..train.mllog_io import _Collect

    ruleset = ruleset or checker_ruleset(benchmark, division)
    if ruleset is None:
        return {"passed": None, "ruleset": "", "messages": [f"the installed checker has no rules for {benchmark!r}"]}
    collect, root = _Collect(), logging.getLogger()
    root.addHandler(collect)
    try:
        checker = mlp_compliance.make_checker("training", ruleset, quiet=True, werror=False)
        passed, *_ = mlp_compliance.main(str(path), f"training_{ruleset}/common.yaml", checker)
    except Exception as exc:  # the checker raises bare exceptions on logs it cannot follow
        passed, collect.messages = False, collect.messages + [f"checker stopped: {type(exc).__name__}: {exc}"]
    finally:
        root.removeHandler(collect)
        mlp_compliance.enqueued_configs.clear()
    return {"passed": bool(passed), "ruleset": ruleset,
            "messages": [" ".join(m.split())[:300] for m in collect.messages[:5]]}


def olympic(benchmark: str, runs: list[dict]) -> dict:
    """The MLPerf score of the runs, as the result summarizer computes it (times in s)."""
    from mlperf_logging.benchmark_meta import get_result_file_counts
    from mlperf_logging.result_summarizer.result_summarizer import _compute_olympic_average

    required = get_result_file_counts("training").get(benchmark)
    max_dropped = 4 if benchmark == "unet3d" else 1
    converged = [r["time_s"] for r in runs if r["reached"]]
    dropped = len(runs) - len(converged)
    value = None
    if dropped <= max_dropped:
        value = _compute_olympic_average(list(converged), dropped, max_dropped)
    why = (f"{dropped} of {len(runs)} runs did not reach the target (at most {max_dropped} may)" if value is None
           else f"{len(runs)} runs ({'rules require ' + str(required) if required else 'run count not in the rules'}), "
                f"{max_dropped} dropped at each end; {dropped} non-converged run(s) count as dropped from the slow end")
    return {"value": value, "runs_required": required, "trim_each_side": max_dropped, "n_invalid": dropped,
            "n": len(runs), "note": f"MLPerf Training score (olympic mean of time to train): {why}"}


def _records(run: dict, benchmark: str, implementation: str) -> list[dict]:
    common = dict(benchmark="train", workload=benchmark, implementation=implementation, run_id=run["run_id"],
                  seed=int(run["seed"]) if isinstance(run["seed"], (int, float)) else -1, status=run["status"],
                  reached_target=run["reached"], epoch=run["epochs"] if run["epochs"] is not None else float("nan"))
    out = [row(**common, metric="time_to_train", value=run["time_s"], unit="s", valid=run["reached"])]
    if run["epochs"] is not None:
        out.append(row(**common, metric="epochs_to_target", value=float(run["epochs"]), unit="epochs",
                       valid=run["reached"]))
    if isinstance(run["quality"], (int, float)):
        out.append(row(**common, metric="eval_accuracy", value=float(run["quality"]), unit="1"))
    return out


def read(paths: list[Path]) -> list:
    """The runs of one benchmark folder (``result_*.txt`` files) as one Dataset with its MLPerf score."""
    runs = sorted((read_run(p) for p in paths), key=lambda r: str(r["path"]))
    for run in runs:
        run["time_s"] = (run["stop_ms"] - run["start_ms"]) / 1e3
        run["reached"] = run["status"] == "success"
    submission = {k: v for r in runs for k, v in r["submission"].items()}
    benchmark = str(submission.get("submission_benchmark") or paths[0].parent.name)
    implementation = "/".join(str(submission[k]) for k in ("submission_org", "submission_platform") if k in submission)
    score = olympic(benchmark, runs)
    filters = {"workload": benchmark, "implementation": implementation}
    summary = {"metric": "time_to_train", "statistic": "olympic_mean", "kind": "cost", "unit": "s",
               "filters": filters, "stated_by": "reader", **score}
    division = str(submission.get("submission_division", "closed"))
    rules = round_ruleset(paths, runs, benchmark, division)
    checked = {r["run_id"]: compliance(r["path"], benchmark, division, rules["ruleset"]) for r in runs}
    attrs = {
        "summaries": [summary],
        "mlperf_score": mlperf_score(paths[0].parent, score["value"]),
        "factors": [],
        "submission": submission,
        "hyperparameters": {r["run_id"]: r["hyperparameters"] for r in runs},
        "quality_target": next((r["target"] for r in runs if r["target"] is not None), "not stated in the logs"),
        "reached_target_rule": "run_stop metadata status == success",
        "metric_kinds": {"epochs_to_target": "count"},
        "ci_notes": {"time_to_train": "MLPerf Training: the rules' fixed number of seeded runs, scored by the olympic mean"},
        "runs": {r["run_id"]: {"file": r["path"].name, "status": r["status"], "seed": r["seed"],
                               "run_start_ms": r["start_ms"], "run_stop_ms": r["stop_ms"]} for r in runs},
    }
    if all(v is not None for v in checked.values()):
        attrs["compliance"] = {"checker": f"mlperf_logging.compliance_checker (training_{rules['ruleset']}: "
                                          f"{rules['basis']})", "round": rules["round"], "runs": checked,
                               "passed": all(v["passed"] for v in checked.values())}
    records = [rec for run in runs for rec in _records(run, benchmark, implementation)]
    shared = _shared(r["hyperparameters"] for r in runs)
    folder = paths[0].parent
    return [build(folder if len(paths) > 1 else paths[0], FORMAT, "train", records,
                  environment={k: v for k, v in submission.items() if k in ("submission_org", "submission_platform")},
                  config={"benchmark": benchmark, "division": submission.get("submission_division", ""),
                          "hyperparameters": shared}, attrs=attrs)]


def _shared(dicts) -> dict:
    """Hyperparameters every run logged with the same value (the configuration, not the seed)."""
    dicts = list(dicts)
    if not dicts:
        return {}
    return {k: v for k, v in dicts[0].items() if all(d.get(k) == v for d in dicts[1:])}


#: MLPerf Training rounds and the last day of their submission window (the round a log belongs to
#: when no folder names it: the first round whose window closes on or after the run's date).
ROUND_CLOSES = (("1.0", "2021-05-31"), ("1.1", "2021-11-30"), ("2.0", "2022-05-31"), ("2.1", "2022-10-31"),
                ("3.0", "2023-05-31"), ("3.1", "2023-10-31"), ("4.0", "2024-05-31"), ("4.1", "2024-10-31"),
                ("5.0", "2025-05-31"), ("5.1", "2025-10-31"), ("6.0", "2026-05-31"), ("6.1", "2026-10-31"))
ROUND_IN_PATH = re.compile(r"(?:^|[_/-])v(\d+\.\d+)(?:$|[_/-])")


def submission_round(paths: list[Path], runs: list[dict]) -> tuple[str | None, str]:
    """(round, how it was known): from a folder named for the round (training_results_v4.0, v4.0),
    else from the date of the first run_start."""
    for part in reversed(Path(paths[0]).resolve().parent.parts):
        match = ROUND_IN_PATH.search(part)
        if match:
            return match.group(1), f"round {match.group(1)} from the folder name {part!r}"
    started = min(r["start_ms"] for r in runs)
    day = datetime.datetime.fromtimestamp(started / 1e3, tz=datetime.timezone.utc).date().isoformat()
    for name, closes in ROUND_CLOSES:
        if day <= closes:
            return name, f"round {name} from the run date {day} (its submission window closes {closes})"
    return None, f"no round known for the run date {day}"


def round_ruleset(paths: list[Path], runs: list[dict], benchmark: str, division: str) -> dict:
    """The checker ruleset of the logs' round (e.g. 4.0.0 for round 4.0), else the newest with the benchmark."""
    name, basis = submission_round(paths, runs)
    try:
        from mlperf_logging import compliance_checker
    except ImportError:
        return {"round": name, "ruleset": None, "basis": basis}
    root = Path(compliance_checker.__file__).parent
    wanted = f"{name}.0" if name else None
    if wanted and (root / f"training_{wanted}" / f"{division or 'closed'}_{benchmark}.yaml").is_file():
        return {"round": name, "ruleset": wanted, "basis": basis}
    newest = checker_ruleset(benchmark, division)
    return {"round": name, "ruleset": newest,
            "basis": f"{basis}; the installed checker has no training_{wanted} rules for {benchmark}, so the newest "
                     f"ruleset with them ({newest})"}


def mlperf_score(folder: Path, olympic_s: float | None) -> dict:
    """MLPerf's score as its result summarizer computes it: the olympic mean times the submission's
    scaling.json factor when the folder has one (both named), in minutes as MLPerf's tables state it."""
    factor, source = 1.0, "no scaling.json in the folder (factor 1)"
    scaling = Path(folder) / "scaling.json"
    if scaling.is_file():
        document = decode.load_json(scaling, f"{FORMAT} scaling.json")
        value = document.get("scaling_factor") if isinstance(document, dict) else None
        factor = number(scaling, f"{FORMAT}: scaling.json scaling_factor", value)
        if factor <= 0:
            raise ReaderError(scaling, f"{FORMAT}: scaling.json scaling_factor is {factor:g}, not above 0")
        source = f"scaling.json scaling_factor {factor:.6g}"
    value = None if olympic_s is None else olympic_s * factor / 60.0
    return {"value_min": value, "olympic_mean_s": olympic_s, "scaling_factor": factor, "scaling_source": source,
            "stated_by": "reader", "note": "MLPerf Training score = olympic mean of the times to train x the "
                                           "submission's scaling factor, in minutes (mlperf_logging result_summarizer)"}


def _recognize(head: Head) -> int:
    return CERTAIN - 1 if ":::MLLOG" in head.text else 0  # LoadGen's detail log (MLLOG too) scores higher


READER = Format(name=FORMAT, title="MLPerf Training logs (:::MLLOG)",
                reads="MLPerf Training rounds 1.0 to 5.x result_*.txt, with scaling.json where published",
                recognize=_recognize, group=Group(FORMAT, lambda files: read(sorted(files[FORMAT]))))
