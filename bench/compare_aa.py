"""Compare on identical code: two quick PRK runs on one machine (A/A), then injected slowdowns.

Why (issue 31): a comparison is only worth its false calls and its power.  Sweep A runs the quick
profile's PRK stage with its placebo subset (the workflow's A/A run, written to A's
``noise_floor.json``), then sweep B runs the same configurations as an independent second run.
Figures over PRK time configurations:

* A/A: the share B is called different from A (target at most 5 %);
* B's times multiplied by 1.10 and 1.20 through the results API (rates divided): the share found
  ``slower`` (targets 80 % and 95 %), none ``faster``, and how often the CI covers the injected
  ratio (target 90 %; the same as the A/A CI covering 1, since the CI scales with the data).

Run on a quiet machine: ``python bench/run.py --only compare_aa``; the machine's load during each
sweep is recorded beside the figures.  ``TWELVEWAYS_BENCH_KEEP=DIR`` keeps the sweeps in DIR.
``TWELVEWAYS_BENCH_BUSY_B=N`` (issue 41, a busy side) runs N busy processes beside sweep B only: the A/A
comparison must then call no configuration slower without naming the load (``not decidable: ...``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INJECTED = (1.10, 1.20)


def _scaled(src: Path, out: Path, factor: float) -> Path:
    """A copy of a PRK results file with every time multiplied and every rate divided by ``factor``."""
    from twelveways import results

    ds = results.open(src).load()
    ds["value"] = ds["value"].where(ds["metric"] != "time", ds["value"] * factor)
    ds["value"] = ds["value"].where(ds["metric"] != "rate", ds["value"] / factor)
    out.parent.mkdir(parents=True, exist_ok=True)
    return results.write(ds, out)


def _time_rows(record) -> list:
    """The time rows of a comparison (:class:`twelveways.compare.record.Comparison`) that have a ratio."""
    return [r for r in record.rows if r.key.get("metric") == "time" and r.ratio is not None]


def _figures(record, injected: float | None) -> dict:
    rows = _time_rows(record)
    n = len(rows)
    called = [r for r in rows if r.verdict not in ("same", "inconclusive")]
    found = {"configurations": n, "called_different": len(called),
             "called_share": round(len(called) / n, 3) if n else None,
             "verdicts": {v: sum(r.verdict == v for r in rows) for v in {r.verdict for r in rows}}}
    found["not_decidable_load"] = sum(r.reason.startswith("not decidable") for r in rows)
    found["slower_without_naming_the_load"] = sum(r.verdict == "slower" for r in rows)
    if injected:
        covered = [r for r in rows if r.ci and r.ci[0] <= injected <= r.ci[1]]
        found |= {"injected_ratio": injected,
                  "found_slower_share": round(sum(r.verdict == "slower" for r in rows) / n, 3) if n else None,
                  "called_faster": sum(r.verdict == "faster" for r in rows),
                  "ci_covers_injected_share": round(len(covered) / n, 3) if n else None}
    return found


@contextlib.contextmanager
def _busy(processes: int):
    """``processes`` busy loops beside the block (a second tenant on the machine), stopped after it."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def _sweeps(work: Path) -> tuple[Path, Path, dict]:
    from twelveways import config as config_module
    from twelveways.compare import noise, sides
    from twelveways.prk import build as prk_build
    from twelveways.prk import sweep

    cfg = config_module.load(ROOT / "config" / "config.yaml")
    kernels = work / "kernels"
    prk_build.build_kernels(kernels)
    env = work / "environment.json"
    env.write_text(json.dumps({"hash": "bench-compare-aa"}))
    load = {}
    busy_b = int(os.environ.get("TWELVEWAYS_BENCH_BUSY_B", "0") or 0)
    for name, placebo in (("a", None), ("a_placebo", cfg["measurement"]["placebo_configurations"]), ("b", None)):
        with _busy(busy_b if name == "b" else 0):
            sweep.sweep(cfg, kernels_dir=kernels, output=work / name / "prk.nc", environment=env, progress=False,
                        placebo=placebo)
            load[name] = round(os.getloadavg()[0], 2)
    floor = noise.measure(sides.load([str(work / "a")], "a"), sides.load([str(work / "a_placebo")], "placebo"))
    (work / "a" / "noise_floor.json").write_text(sides.dumps(floor))
    return work / "a", work / "b", load


def run(quick: bool = True) -> dict:
    from twelveways.compare import build, sides

    keep = os.environ.get("TWELVEWAYS_BENCH_KEEP")  # a folder to keep the sweeps in, for a look afterwards
    with tempfile.TemporaryDirectory(prefix="bench-compare-aa-") as tmp:
        work = Path(keep) if keep else Path(tmp)
        a, b, load = _sweeps(work)
        base = sides.load([str(a)], "A")
        figures = {"aa": _figures(build.build(base, sides.load([str(b)], "B")), None)}
        for factor in INJECTED:
            scaled = _scaled(b / "prk.nc", work / f"b{factor}" / "prk.nc", factor)
            record = build.build(base, sides.load([str(scaled.parent)], f"B x {factor}"))
            figures[f"injected_{factor:.2f}"] = _figures(record, factor)
    return figures | {
        "load_1min_after_each_sweep": load, "cpu_count": os.cpu_count(),
        "targets": {"aa_called_share": "<= 0.05", "found_slower_share at 1.10": ">= 0.80",
                    "found_slower_share at 1.20": ">= 0.95", "ci_covers_injected_share": ">= 0.90",
                    "called_faster": 0},
        "busy_processes_beside_b": int(os.environ.get("TWELVEWAYS_BENCH_BUSY_B", "0") or 0),
        "note": "quick profile's PRK stage run three times (A, A's placebo subset, B) on this machine; "
                "quote with the machine's load",
    }
