"""What ``twelveways ab`` and ``twelveways plan --ab-effect`` accept, without the machinery that runs the rounds.

Why a module of its own: the command lines (their ``--help`` among them) need the selection keys and the
plan's limits, and must answer before NumPy, SciPy and the sweep are imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..cliargs import UsageError

if TYPE_CHECKING:
    from ..families.prk_points import Point

#: Rounds of the pilot: after trimming 20 % per end, a spread with 7 degrees of freedom for the plan.
PILOT_ROUNDS = 12
#: Most rounds a plan asks for (a configuration whose noise needs more is stopped there and said so).
MAX_ROUNDS = 200
#: Time budget of the rounds unless --max-seconds says otherwise.
DEFAULT_MAX_SECONDS = 1800.0
#: Timed work an invocation aims at unless ``--invocation-seconds`` says otherwise (ab_run's docstring says why).
DEFAULT_INVOCATION_SECONDS = 0.1
#: Most iterations a calibrated invocation runs (a kernel whose iteration takes microseconds stops there).
MOST_ITERATIONS = 1000
#: ``--bind`` choices: threads and ranks bound one per CPU (the default), or run as the sweep runs them.
BIND_CORES, BIND_NONE = "cores", "none"
#: Formats for CI systems ``--format`` adds -> the suffix of the file each writes beside the report.
CI_FORMATS = {"junit": "junit.xml", "github": "github.md"}
#: ``--only KEY=VALUE``: the configuration keys a selection may name, each read from a sweep point.
SELECTABLE: dict[str, Callable[[Point], str]] = {
    "workload": lambda p: p.kernel, "implementation": lambda p: p.implementation, "ranks": lambda p: str(p.ranks),
    "threads": lambda p: str(p.threads), "scaling": lambda p: p.scaling,
    "size": lambda p: "x".join(map(str, p.size)) if isinstance(p.size, tuple) else str(p.size),
}


def parse_only(items: Sequence[str]) -> dict[str, set[str]]:
    """{key: accepted values} of ``--only`` options: one key each, values OR-ed, keys AND-ed."""
    chosen: dict[str, set[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        wanted = {v.strip() for v in values.split(",") if v.strip()}
        if not sep or key not in SELECTABLE or not wanted:
            raise UsageError(f"--only {item!r}: write KEY=VALUE[,VALUE...] with KEY one of {', '.join(SELECTABLE)}")
        chosen[key] = chosen.get(key, set()) | wanted
    return chosen
