"""``twelveways ab`` of the working tree against a copy whose kernels report a known amount more time.

Why (issue 41): the power and the coverage of an A/B procedure are only known against a known
effect.  Two kinds of copy of ``kernels/`` (patched in a temporary folder; the checkout is never
changed), each against BASE = the same kind of copy with EXTRA = 0, so both sides run the same code
laid out alike and differ only in the constant:

* ``scaled`` (the Done-when figures): every timed iteration's measured time is multiplied by
  1 + EXTRA where it is recorded (C: every ``times[iter] = prk_now() - t0`` of kernels/c; Python:
  both timing loops of kernels/python/_prk_common.py).  The programs run exactly as before, on the
  machine's real noise, so the true ratio NEW/BASE is 1 + EXTRA for every configuration by
  construction: the coverage of the CIs is measured against a ratio that is known.
* ``work`` (``--full``): inside every timed iteration the copy busy-waits EXTRA times that
  iteration's own measured time: real extra work.  Its true ratio is 1 + EXTRA only where nothing
  else changes: on this 2-core VM, 2-thread and 2-rank configurations measured 1.06-1.10 in two
  separate runs (a longer gap between parallel regions lets OpenMP's workers fall asleep, and the
  ranks of a halo exchange wait for each other's waits), so its coverage of 1 + EXTRA is nominal;
  its share found slower is what a real slowdown gives.

Figures per copy and EXTRA: the share found slower (target at least 80 % at +5 %), the share whose
CI covers 1 + EXTRA (target at least 90 %), how many are called faster (target none), the rounds and
the time taken, and ab's whole procedure rerun on the recorded rounds (bench/ab_aa.py).  Quick
(``make bench``): scaled +5 %; ``--full`` adds work +5 % and scaled +3 %;
``TWELVEWAYS_BENCH_AB_COPIES="work:0.05"`` runs the trials it lists.  The knobs of bench/ab_aa.py
apply.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
C_TIMED = "times[iter] = prk_now() - t0;"
C_PATCHED = "times[iter] = prk_extra_work(t0);"
C_SCALED = "times[iter] = (prk_now() - t0) * %r;"
PY_SCALED = ("        times.append((time.perf_counter_ns() - start) * 1e-9 * %r)\n",
             "        times.append((wtime() - start) * %r)\n")
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


def _copy(root: Path, target: Path) -> None:
    shutil.copytree(root / "kernels", target / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    (target / "envs").mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "envs" / "requirements.lock", target / "envs" / "requirements.lock")


def scaled_copy(root: Path, target: Path, extra: float) -> Path:
    """A copy of ``root``'s kernels/ (and the lock it declares) whose timed iterations are recorded (1 + extra) times
    as long as measured (module docstring: the true ratio is known by construction)."""
    _copy(root, target)
    factor = 1.0 + extra
    for source in sorted((target / "kernels" / "c").glob("*.c")):
        text = source.read_text()
        if C_TIMED in text:
            source.write_text(text.replace(C_TIMED, C_SCALED % factor))
    common = target / "kernels" / "python" / "_prk_common.py"
    text = common.read_text()
    for loop, scaled in zip(PY_LOOPS, PY_SCALED):
        text = _replace(text, loop, loop.replace(loop.splitlines(keepends=True)[1], scaled % factor), common)
    common.write_text(text)
    return target


def patched_copy(root: Path, target: Path, extra: float) -> Path:
    """A copy of ``root``'s kernels/ (and the lock it declares) whose timed iterations take (1 + extra) times as long."""
    _copy(root, target)
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


COPIES = {"scaled": (scaled_copy, "time recorded x{factor:g} per timed iteration"),
          "work": (patched_copy, "+{extra:.0%} busy-wait per timed iteration")}


def run(quick: bool = True) -> dict:
    aa = _aa()
    found = {}
    trials = [("scaled", 0.05)] if quick else [("scaled", 0.05), ("work", 0.05), ("scaled", 0.03)]
    chosen = os.environ.get("TWELVEWAYS_BENCH_AB_COPIES")  # e.g. "work:0.05,scaled:0.03": these trials only
    if chosen:
        trials = [(kind, float(extra)) for kind, extra in (item.split(":") for item in chosen.split(","))]
    with aa.workspace() as tmp:
        for kind, extra in trials:
            make, words = COPIES[kind]
            base = make(aa.ROOT, Path(tmp) / f"{kind}-0.00", 0.0)
            copy = make(aa.ROOT, Path(tmp) / f"{kind}-{extra:.2f}", extra)
            label = f"working tree, {words.format(factor=1 + extra, extra=extra)} (bench copy)"
            record = aa.run_ab(copy, label, Path(tmp), f"effect-{kind}-{extra:.2f}",
                               base=(base, f"working tree, {words.format(factor=1.0, extra=0.0)} (bench copy)"))
            found[f"{kind}_{extra:.2f}"] = aa.figures(record, 1.0 + extra)
    return found | {"selection": os.environ.get("TWELVEWAYS_BENCH_AB_ONLY") or "quick profile, all",
                    "targets": {"found_slower_share at +5%": ">= 0.80", "ci_covers_true_share": ">= 0.90",
                                "called_faster": 0},
                    "note": "scaled: each timed iteration's measured time recorded x (1 + EXTRA), the true ratio "
                            "1 + EXTRA by construction; work: a busy-wait of EXTRA x the iteration's own time inside "
                            "the timed region (real extra work; its true ratio is nominal where threads or ranks wait "
                            "for each other)"}
