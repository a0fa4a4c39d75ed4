"""Time to first report: a cold ``make report`` in a fresh clone, per stage, against the targets.

Why: a committee's first contact with the artifact is this wait.  The clone (``git clone`` of the
committed tree, no ``.venv``, no results) runs ``make report`` exactly as the README says, its first
step (installing the lock into ``.venv``, the target ``make report`` depends on) timed apart as
``venv_s``; the per-rule wall times come from each rule's Snakemake ``benchmark:`` file
(``logs/bench/<rule>.tsv``, column ``s``).  The checklist's verdicts of that run are set beside
the committed reference set's, so a faster run that lost evidence shows.  The package download
cache (uv's, pip's) is as this machine has it: say so when quoting the figure.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import pressure  # noqa: E402
#: stage -> (rule-name prefixes, target seconds on 2 cores or None, where the target comes from); every rule of
#: the workflow belongs to one stage, so the stages add up to the rules' total (rules no stage names: "other").
STAGES = {
    "environment": (("config_dump", "environment"), None, "capture at the start and the end (environment_end)"),
    "prk": (("prk_build", "prk_bounds", "prk_run"), 180, "PRK stage of the quick profile <= 3 min"),
    "placebo": (("prk_placebo", "noise_floor"), None, "the A/A sweep (2 configurations per kernel) and its noise floor"),
    "train": (("train_",), 240, "training stage of the quick profile <= 4 min"),
    "infer": (("infer",), 90, "inference stage bounded by its probe caps (well under the old 227 s)"),
    "notebooks": (("notebook_",), None, "the five analysis notebooks, two at a time where the DAG allows"),
    "checklist": (("checklist",), None, "audit of raw and derived results and the claims"),
    "report": (("report", "appendix"), None, "report.html and the artifact appendix"),
}
WORKFLOW_TARGET_S = 240  # the whole quick workflow on 2 cores (issue 43)
COLD_TARGET_S = 240  # fresh clone, .venv included (issue 43: a committee's first contact)
#: What `make report` builds first on a fresh clone: the lock installed (not `make venv`, which also
#: compiles every package's bytecode for the test tiers).
INSTALL_TARGET = ".venv/.twelveways-installed"


def _rule_times(project: Path) -> dict[str, dict[str, float]]:
    """{rule: {"s": wall seconds, "cpu_time": CPU seconds}} from the last row of each benchmark file."""
    times = {}
    for path in sorted((project / "logs" / "bench").glob("*.tsv")):
        with path.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if rows:
            times[path.stem] = {key: float(rows[-1][key]) for key in ("s", "cpu_time") if _number(rows[-1].get(key))}
    return times


def _number(text) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def stage_times(rules: dict[str, dict[str, float]]) -> dict[str, dict]:
    """Wall and CPU seconds per stage (sums over its rules' benchmark files), each with its rules and target."""
    stages, claimed = {}, set()
    for stage, (prefixes, target, source) in STAGES.items():
        names = sorted(rule for rule in rules if rule.startswith(prefixes) and rule not in claimed)
        claimed.update(names)
        stages[stage] = _stage(names, rules, target, source)
    others = sorted(set(rules) - claimed)
    if others:
        stages["other"] = _stage(others, rules, None, "rules no stage names")
    return stages


def _stage(names: list[str], rules: dict, target: float | None, source: str) -> dict:
    seconds = sum(rules[name].get("s", 0.0) for name in names)
    entry = {"seconds": round(seconds, 1), "cpu_seconds": round(sum(rules[n].get("cpu_time", 0.0) for n in names), 1),
             "rules": names, "what": source}
    if target is not None:
        entry.update({"target_s": target, "meets_target": seconds <= target})
    return entry


def _claims(path: Path) -> dict:
    """{claim id: verdict} of a checklist JSON (empty when it is missing)."""
    if not path.is_file():
        return {}
    return {c["id"]: c["verdict"] for c in json.loads(path.read_text()).get("claims", [])}


def _verdicts(path: Path) -> dict:
    """{check id: status} of a checklist JSON (empty when it is missing)."""
    if not path.is_file():
        return {}
    return {c["id"]: c["status"] for c in json.loads(path.read_text()).get("checks", [])}


def _timed(command: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def _clean_env() -> dict:
    """This environment without the project's own venv, as a new shell on a fresh machine has it."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env


def run(quick: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="twelveways-cold-") as tmp:
        project = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(project)], check=True)
        env = _clean_env()
        stalls_before = pressure.totals()
        venv_s, venv = _timed(["make", INSTALL_TARGET], project, env)
        if venv.returncode != 0:
            return {"error": "installing .venv failed", "stderr_tail": venv.stderr[-3000:]}
        report_s, report = _timed(["make", "report"], project, env)
        if report.returncode != 0:
            return {"error": "make report failed", "stderr_tail": report.stderr[-3000:]}
        stalls = pressure.stalled(stalls_before, pressure.totals(), venv_s + report_s)
        rules = _rule_times(project)
        verdicts = _verdicts(project / "reports" / "checklist.json")
        claims = _claims(project / "reports" / "checklist.json")
        verdict = json.loads((project / "reports" / "checklist.json").read_text()).get("verdict")
    reference_path = ROOT / "data" / "reference" / "checklist.json"
    reference, reference_claims = _verdicts(reference_path), _claims(reference_path)
    changed = {k: [reference.get(k), v] for k, v in verdicts.items() if reference and reference.get(k) != v}
    claims_changed = {k: [reference_claims.get(k), v] for k, v in claims.items()
                      if reference_claims and reference_claims.get(k) != v}
    rule_total = sum(times.get("s", 0.0) for times in rules.values())
    return {
        "what": "fresh git clone of the committed tree: `make report` (quick profile), its install step timed apart, one run",
        "venv_s": round(venv_s, 1), "workflow_s": round(report_s, 1), "cold_total_s": round(venv_s + report_s, 1),
        "workflow_target_s": WORKFLOW_TARGET_S, "workflow_meets_target": report_s <= WORKFLOW_TARGET_S,
        "cold_target_s": COLD_TARGET_S, "cold_meets_target": venv_s + report_s <= COLD_TARGET_S,
        "stages": stage_times(rules), "rules_total_s": round(rule_total, 1),
        "overlap_s": round(rule_total - report_s, 1),
        "overlap_note": "the rules' seconds summed minus the workflow's wall time: what light jobs side by side saved "
                        "(negative: Snakemake's own start and the gaps between jobs)",
        "rules_s": {k: round(v.get("s", 0.0), 2) for k, v in rules.items()},
        "stalled": stalls, "stalled_note": "seconds some task waited on each resource during the install and the "
                                            "workflow (Linux PSI); a large io share means the disk, not the code, set the time",
        "verdict": verdict, "checklist": verdicts, "checklist_changed_vs_reference": changed,
        "claims": claims, "claims_changed_vs_reference": claims_changed,
        "note": "single run on this machine, package caches as it has them; compare runs taken on one machine",
    }
