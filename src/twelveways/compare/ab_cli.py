"""``twelveways ab``'s command line: its options and exit codes, apart from the rounds (:mod:`.ab`).

Why apart: ``twelveways ab --help`` and a usage error answer at once, before NumPy, SciPy and the
sweep are imported by the run itself.
"""

from __future__ import annotations

import argparse
import math

from ..cliargs import OneLineParser, fraction, proportion, run_command
from ..evidence.settings import default_confidence
from .ab_options import (BIND_CORES, BIND_NONE, CI_FORMATS, DEFAULT_INVOCATION_SECONDS, DEFAULT_MAX_SECONDS, MAX_ROUNDS,
                         MOST_ITERATIONS, PILOT_ROUNDS, SELECTABLE, parse_only)
from .margin import DEFAULT_MARGIN


def _count(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a positive, finite number of seconds")
    return value


def _invocation_seconds(text: str) -> float:
    """0 (the config's iterations) or a positive number of seconds of at most a minute."""
    if text.strip() in ("0", "0.0"):
        return 0.0
    value = _seconds(text)
    if value > 60:
        raise argparse.ArgumentTypeError(f"{value:g} s is over a minute per invocation")
    return value


def parser() -> OneLineParser:
    p = OneLineParser(prog="twelveways ab", description="Is NEW faster than BASE? Both sides' PRK configurations "
                      "run alternately in randomized rounds on this machine; paired analysis, verdicts as compare's.")
    p.add_argument("--base", default=None, help="git ref of the base side (branch, tag, commit; default: the working "
                   "tree, an A/A run of the working tree against itself unless the configs differ)")
    p.add_argument("--new", default=None, help="git ref of the new side (default: the working tree)")
    p.add_argument("--base-config", help="config of the base side (default: its checkout's config/config.yaml)")
    p.add_argument("--new-config", help="config of the new side (default: its checkout's config/config.yaml)")
    p.add_argument("--only", action="append", default=[], metavar="KEY=VALUE[,VALUE]",
                   help=f"run only these configurations (repeatable; keys: {', '.join(SELECTABLE)})")
    p.add_argument("--effect", type=proportion, default=0.05,
                   help="the effect the plan is sized for: rounds that find it beyond the margin with 90%% power "
                        "(default 0.05)")
    p.add_argument("--rounds", type=_count(2, MAX_ROUNDS), default=None,
                   help="a fixed number of rounds instead of the planned one")
    p.add_argument("--pilot", type=_count(3, 50), default=PILOT_ROUNDS,
                   help=f"rounds of the pilot that sizes the plan (default {PILOT_ROUNDS})")
    p.add_argument("--max-seconds", type=_seconds, default=DEFAULT_MAX_SECONDS,
                   help=f"time budget of the rounds (default {DEFAULT_MAX_SECONDS:g})")
    p.add_argument("--invocation-seconds", type=_invocation_seconds, default=DEFAULT_INVOCATION_SECONDS,
                   help=f"timed work per invocation: one calibration run of BASE per configuration sets both sides' "
                        f"iterations for about this long, never fewer than the config states, at most "
                        f"{MOST_ITERATIONS} (default {DEFAULT_INVOCATION_SECONDS:g}; 0: the config's iterations; "
                        "docs/comparing.md says why)")
    p.add_argument("--bind", choices=(BIND_CORES, BIND_NONE), default=BIND_CORES,
                   help="cores (default): each configuration's threads and ranks bound one per CPU, the same CPUs for "
                        "both sides (docs/comparing.md says why and how); none: as the workflow's sweep runs them")
    p.add_argument("--seed", type=_count(0, 2 ** 31 - 1), default=None,
                   help="seed of the round and side orders (default: the base config's seed)")
    p.add_argument("--confidence", type=proportion, default=default_confidence(),
                   help="confidence of the CIs (default: the schema's measurement.confidence, %(default)s)")
    p.add_argument("--margin", type=fraction, default=DEFAULT_MARGIN,
                   help=f"practical-equivalence margin (default {DEFAULT_MARGIN})")
    p.add_argument("--output", default="reports/ab", help="writes OUTPUT.md, .html, .json, .base.nc, .new.nc")
    p.add_argument("--format", action="append", default=[], choices=sorted(CI_FORMATS),
                   help="also write for a CI system (repeatable): junit, OUTPUT.junit.xml (a test case per configuration: "
                        "slower fails, inconclusive is skipped); github, OUTPUT.github.md (a job summary table) and "
                        "::error/::warning annotations on stderr (docs/ci.md)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Exit 2 for a usage problem (one line), 1 for a failure while building or running, 0 when written (the codes
    of the error types, errors.exit_code, as every command)."""
    return run_command(parser(), argv, _run, reads_input=False)


def _run(args: argparse.Namespace) -> None:
    from . import ab  # after parsing: --help answers before NumPy, SciPy and the sweep load

    ab.run(args, ab.plan_of(args), parse_only(args.only))
