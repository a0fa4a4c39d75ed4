"""``twelveways audit RESULTS...``: run every check and the claims on anyone's results.

Exit codes: 0 when nothing fails and every result file was read; 1 when a check fails or a
claim is not supported; 3 when nothing fails but a result file inside an input tree could not be
read (skipped and listed, the rest audited); ``--exit-zero`` (the workflow's own report) makes 1
and 3 exit 0.  2 when the input is unusable (a file named on the command line that cannot be
read, wrong schema version, CSV missing a column, bad claims file), with one line ``error: ...``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import atomic
from ..cliargs import OneLineParser, add_config, add_environment, refuse_output_over_input, run_command
from ..errors import EXIT_OK, AuditInputError, outcome_code
from . import render
from .model import REGISTRY, AuditReport, AuditRun, ordered_ids, start_per_source

if TYPE_CHECKING:
    from ..resultset import ResultSet

# The checks, the claims and the readers (NumPy, pandas, SciPy, xarray) are imported by the functions that use
# them: `twelveways audit --help` and a usage problem answer before the analysis stack loads (tests/test_cli_start.py).


def registered_checks() -> list[str]:
    """Every check id in report order, after importing the modules that register them (the registry fills as
    rules and fallacies are imported; read before that, it is empty)."""
    from . import fallacies, rules  # noqa: F401 - importing them registers the checks

    return ordered_ids()


def run(results: ResultSet, claims_file: str | Path | None = None) -> AuditReport:
    """Check the claims and run every check on ``results``, which the audit reads and never changes (what the audit
    adds, claims and caches, is its own :class:`AuditRun`)."""
    from .. import resultset

    registered_checks()
    audit = start(results, claims_file)
    results.kinds  # noqa: B018 - built before the per-file parts fork, so the workers share it
    in_background = start_per_source(audit)
    order = sorted(ordered_ids(), key=lambda check_id: check_id in in_background)  # their results are awaited last
    done = {check_id: REGISTRY[check_id][1](audit) for check_id in order}
    return AuditReport([s.path for s in results.sources], [done[check_id] for check_id in ordered_ids()],
                       audit.claim_results, results.skipped, resultset.excluded_runs(results),
                       resultset.exclusion_summary(results.exclusions))


def start(results: ResultSet, claims_file: str | Path | None = None) -> AuditRun:
    """An audit of ``results``: its claims (embedded in the files, then the claims file), checked against the rows."""
    from .. import claims as claims_mod
    from .. import decidable
    from ..evidence.attributes import is_set

    claims, problems = [], []
    for source in results.sources:
        if is_set(source.attributes.claims):
            found, unread = claims_mod.parse_lenient(source.attributes.claims, f"{source.path}: attr claims")
            claims.extend(found)
            problems.extend(unread)
    if claims_file:
        claims.extend(claims_mod.load_claims(claims_file))
    checked = claims_mod.check_all(claims, results.frame, results.busy_machine(), results.config)
    return AuditRun(results, tuple(claims), tuple(problems), tuple(decidable.annotate(checked, claims, results.config)))


def build_parser(prog: str = "twelveways audit") -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, error_class=AuditInputError, description="Check results against the SC15 "
                           "rules (R1-R12) and the data-science fallacies (F1-F12), and check claims against the data.")
    parser.add_argument("results", nargs="+", help="results files or directory trees in any format twelveways reads "
                        "(docs/formats.md): twelveways .nc, MLPerf Training/LoadGen logs, pyperf, Google Benchmark, "
                        "hyperfine JSON, CSV")
    parser.add_argument("--claims", help="YAML file of claims to check (empty: none)")
    parser.add_argument("--format", choices=sorted(render.RENDERERS), help="output format (default: from the "
                        "--output suffix, else md); junit: JUnit XML, a test case per check and claim; github: a job "
                        "summary table, and ::error/::warning annotations on stderr (docs/ci.md)")
    parser.add_argument("--output", action="append", default=[], help="write here instead of stdout (repeatable; "
                        "format from the suffix .json/.md/.html/.xml)")
    add_environment(parser, default=None)
    add_config(parser, default=None)
    parser.add_argument("--metadata", help="metadata YAML for .csv inputs (see import-csv)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when a check fails")
    parser.add_argument("--map", action="append", default=[], help="CSV column map CSV_COLUMN=SCHEMA_COLUMN,... "
                        "(e.g. benchmark=workload,run=run_id,time_s=value)")
    parser.add_argument("--set", action="append", default=[], help="CSV constant columns NAME=VALUE,... (e.g. unit=s)")
    return parser


def _format_for(path: str, default: str | None) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    suffix = render.SUFFIXES.get(suffix, suffix)
    return suffix if suffix in render.RENDERERS else (default or "md")


def audit_main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), argv, _audit, reads_input=True)


def _audit(args: argparse.Namespace) -> int:
    from .. import resultset
    from ..readers.csv_table import parse_pairs
    from ..stats.heap import collect_new_objects_only

    refuse_output_over_input(args.output, [*args.results, args.claims, args.metadata, args.environment, args.config],
                             AuditInputError, "twelveways audit")

    results = resultset.load(args.results, environment=args.environment, config=args.config,
                             csv_metadata=args.metadata, csv_map=parse_pairs(args.map, "--map"),
                             csv_set=parse_pairs(args.set, "--set"))
    with collect_new_objects_only():  # what was read lives until the report is written: not walked again
        report = run(results, args.claims)
    formats = []
    if args.output:
        for out in args.output:
            formats.append(args.format if (args.format and len(args.output) == 1) else _format_for(out, args.format))
            atomic.write_text(out, render.RENDERERS[formats[-1]](report), "audit report", make_parents=True)
        print("\n".join(render.summary_lines(report)), file=sys.stderr)
    else:
        formats.append(args.format or "md")
        sys.stdout.write(render.RENDERERS[formats[-1]](report))
    annotate(formats, report)
    return exit_code(report, args.exit_zero)


def annotate(formats: list[str], report: AuditReport) -> None:
    """The lines a chosen format tells the CI runner itself (GitHub's workflow commands), on stderr: stdout or the
    output file holds the job summary, and the runner reads commands from both streams."""
    for fmt in dict.fromkeys(f for f in formats if f in render.ANNOTATIONS):
        lines = render.ANNOTATIONS[fmt](report)
        if lines:
            print("\n".join(lines), file=sys.stderr)


def exit_code(report: AuditReport, exit_zero: bool) -> int:
    """1 on a failed check or claim, else 3 when a result file of a tree was unreadable, else 0 (all 0 with
    ``--exit-zero``): a failure outranks a skip, which the report lists either way (``errors.outcome_code``)."""
    return EXIT_OK if exit_zero else outcome_code(failed=report.failed, skipped=bool(report.unreadable))


if __name__ == "__main__":
    sys.exit(audit_main())
