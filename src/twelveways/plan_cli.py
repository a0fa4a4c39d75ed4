"""``twelveways plan``'s command line: its options, apart from the model (:mod:`twelveways.plan`).

Why apart: ``twelveways plan --help`` and a usage error answer at once, before the statistics
(NumPy, SciPy) that the plan itself needs are imported.
"""

from __future__ import annotations

import argparse

from .cliargs import OneLineParser, fraction, proportion, run_command
from .compare.ab_options import PILOT_ROUNDS, SELECTABLE
from .compare.margin import DEFAULT_MARGIN
from .errors import AuditInputError
from .evidence.settings import default_confidence


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="twelveways plan", error_class=AuditInputError,
                           description="From a finished run: invocations per configuration to detect an effect, each "
                                       "profile's predicted runtime stage by stage (from the run's Snakemake "
                                       "benchmark files and results), and with --ab-effect the rounds twelveways ab "
                                       "needs per configuration.")
    parser.add_argument("--results", default="results",
                        help="a finished run's results folder, or its prk.nc (default results)")
    parser.add_argument("--bench", metavar="DIR",
                        help="the run's Snakemake benchmark files (default: logs/bench beside the results folder)")
    parser.add_argument("--effect", type=proportion, default=0.05,
                        help="relative difference to detect, a fraction (0.05) or a percentage (5%%); default 0.05")
    parser.add_argument("--power", type=proportion, default=0.8, help="power, 0 < power < 1 (default 0.8)")
    parser.add_argument("--confidence", type=proportion, default=default_confidence(),
                        help="confidence (default: the schema's measurement.confidence, %(default)s)")
    parser.add_argument("--ab-effect", type=proportion, nargs="+", metavar="EFFECT",
                        help="instead of the runtimes: rounds twelveways ab needs to find each effect (0.02 or 2%%) "
                             "beyond its margin, per configuration, and their predicted time")
    parser.add_argument("--ab-margin", type=fraction, default=DEFAULT_MARGIN,
                        help=f"ab's practical-equivalence margin (default {DEFAULT_MARGIN}); each effect must "
                             "exceed it")
    parser.add_argument("--ab-pilot", type=int, default=PILOT_ROUNDS, choices=range(3, 51),
                        metavar="ROUNDS", help=f"ab's pilot rounds (default {PILOT_ROUNDS}, 3 to 50)")
    parser.add_argument("--ab-record", metavar="JSON",
                        help="a previous twelveways ab record (reports/ab.json): its rounds' spread instead of the "
                             "run's own invocations; checked on load, a wrong field is one line naming it (exit 2)")
    parser.add_argument("--only", action="append", default=[], metavar="KEY=VALUE[,VALUE]",
                        help=f"with --ab-effect: only these configurations (repeatable; keys: "
                             f"{', '.join(SELECTABLE)})")
    parser.add_argument("--output", help="also write the plan as JSON here")
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), argv, _plan, reads_input=True)


def _plan(args: argparse.Namespace) -> None:
    from .plan import plan_main  # after parsing: --help answers before the statistics load

    plan_main(args)
