"""``twelveways ab`` of the working tree against a copy whose kernels do a known amount of extra work.

Why (issue 41): the power and the coverage of an A/B procedure are only known against a known
effect.  The copy (``kernels/`` of this checkout, patched in a temporary folder; the checkout is
never changed) busy-waits, inside every timed iteration, for EXTRA times that iteration's own
measured time (C: every ``times[iter] = prk_now() - t0`` of kernels/c; Python: both timing loops
of kernels/python/_prk_common.py).  BASE is the same patched copy with EXTRA = 0, so both sides run
the same code, laid out alike, and differ only in the constant (against the unpatched kernels, five
configurations measured ratios of 1.07-1.11 with CIs excluding 1.05: the patch's own code changes
the kernels' timing there, so the stated true ratio did not hold).  Each timed iteration thus takes exactly (1 + EXTRA) times as
long, whatever the kernel, its threads or ranks (MPI: each rank waits its own share, so the
maximum over ranks grows by the same factor): the true ratio NEW/BASE is 1 + EXTRA.  Figures per
EXTRA: the share found slower (target at least 80 % at +5 %), the share whose CI covers 1 + EXTRA
(target at least 90 %), how many are called faster (target none), the rounds and the time taken.
Quick (``make bench``): +5 %; ``--full`` adds +3 %.  The knobs of bench/ab_aa.py apply.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
C_TIMED = "times[iter] = prk_now() - t0;"
C_PATCHED = "times[iter] = prk_extra_work(t0);"
C_END = "#endif /* PRK_COMMON_H */"
C_HELPER = """/* bench/ab_effect.py: wait EXTRA x the iteration's own time inside the timed region */
PRK_FN double prk_extra_work(double t0)
{
    double body = prk_now() - t0;
    double until = prk_now() + %r * body;
    while (prk_now() < until) {
    }
    return prk_now() - t0;
}

"""
PY_LOOPS = ("        step(k)\n        times.append((time.perf_counter_ns() - start) * 1e-9)\n",
            "        step(k)\n        times.append(wtime() - start)\n")
PY_HELPER = '''

def _extra_work(now, start) -> None:
    """bench/ab_effect.py: wait EXTRA x the iteration's own time inside the timed region."""
    until = now() + %r * (now() - start)
    while now() < until:
        pass
'''


def _aa():
    spec = importlib.util.spec_from_file_location("bench_ab_aa", HERE / "ab_aa.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _replace(text: str, old: str, new: str, where: Path, at_least: int = 1) -> str:
    """``text`` with every ``old`` replaced; a source that no longer holds the pattern stops the bench, named."""
    if text.count(old) < at_least:
        raise RuntimeError(f"{where}: the timing line {old.strip()!r} was not found: update bench/ab_effect.py")
    return text.replace(old, new)


def patched_copy(root: Path, target: Path, extra: float) -> Path:
    """A copy of ``root``'s kernels/ (and the lock it declares) whose timed iterations take (1 + extra) times as long."""
    shutil.copytree(root / "kernels", target / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    (target / "envs").mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "envs" / "requirements.lock", target / "envs" / "requirements.lock")
    for source in sorted((target / "kernels" / "c").glob("*.c")):
        text = source.read_text()
        if C_TIMED in text:
            source.write_text(text.replace(C_TIMED, C_PATCHED))
    header = target / "kernels" / "c" / "prk_common.h"
    header.write_text(_replace(header.read_text(), C_END, C_HELPER % extra + C_END, header))
    common = target / "kernels" / "python" / "_prk_common.py"
    text = common.read_text()
    for loop, now in zip(PY_LOOPS, ("time.perf_counter_ns", "wtime")):
        text = _replace(text, loop, loop.replace("        step(k)\n", f"        step(k)\n        _extra_work({now}, start)\n"),
                        common)
    common.write_text(text + PY_HELPER % extra)
    return target


def run(quick: bool = True) -> dict:
    aa = _aa()
    found = {}
    with aa.workspace() as tmp:
        base = patched_copy(aa.ROOT, Path(tmp) / "copy-0.00", 0.0)
        for extra in (0.05,) if quick else (0.05, 0.03):
            copy = patched_copy(aa.ROOT, Path(tmp) / f"copy-{extra:.2f}", extra)
            record = aa.run_ab(copy, f"working tree with +{extra:.0%} work per timed iteration (bench copy)",
                               Path(tmp), f"effect-{extra:.2f}",
                               base=(base, "working tree with +0% work per timed iteration (bench copy)"))
            found[f"extra_{extra:.2f}"] = aa.figures(record, 1.0 + extra)
    return found | {"selection": os.environ.get("TWELVEWAYS_BENCH_AB_ONLY") or "quick profile, all",
                    "targets": {"found_slower_share at +5%": ">= 0.80", "ci_covers_true_share": ">= 0.90",
                                "called_faster": 0},
                    "note": "busy-wait of EXTRA x each timed iteration's own time inside the timed region of a "
                            "patched copy of the kernels: the true ratio is 1 + EXTRA for every configuration"}
