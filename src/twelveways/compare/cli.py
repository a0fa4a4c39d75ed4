"""``twelveways compare``, ``twelveways noise-floor`` and ``twelveways reproduce``.

Exit codes: 0 when the report is written, 2 when the input is unusable (one line ``error: ...``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import atomic
from ..cireport import SUFFIXES
from ..cliargs import OneLineParser, fraction, proportion, refuse_output_over_input, run_command
from ..errors import AuditInputError
from ..evidence import settings
from .margin import DEFAULT_MARGIN

# The comparison itself (NumPy, pandas, SciPy, xarray) is imported by the commands' bodies, after their arguments
# are parsed: --help and a usage problem answer before the analysis stack loads (tests/test_cli_start.py).

FORMATS = ("md", "html", "json", "junit", "github")


def _parser(prog: str, description: str) -> OneLineParser:
    """A usage problem is input this command cannot use: one line, exit 2."""
    return OneLineParser(prog=prog, description=description, error_class=AuditInputError)


def confidence_setting(given: float | None) -> settings.Setting:
    """``--confidence`` when given, else the schema's default: a comparison judges two runs at one level, so
    neither side's own config decides it."""
    return settings.resolve("confidence", {settings.COMMAND_LINE: given}, error=AuditInputError)


def _confidence_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--confidence", type=proportion, default=None,
                        help=f"{help_text} (default: the schema's measurement.confidence, {settings.default_confidence()})")


def _common(parser: argparse.ArgumentParser) -> None:
    _confidence_option(parser, "confidence of the CIs; 1 - confidence is the false discovery rate")
    parser.add_argument("--noise-floor", type=fraction, default=None,
                        help="a stated relative noise floor, widening the margin when larger: a fraction (0.03) or "
                             "a percentage (3%%)")
    parser.add_argument("--margin", type=fraction, default=DEFAULT_MARGIN,
                        help="practical-equivalence margin: ratios whose whole CI lies within it are 'same', a "
                             f"fraction or a percentage (default {DEFAULT_MARGIN})")


def _write(outputs: list[str], fmt: str | None, texts: dict) -> list[str]:
    """Each output in the format its suffix names (or --format); stdout when none is given.  The formats written."""
    if not outputs:
        sys.stdout.write(texts[fmt or "md"]())
        return [fmt or "md"]
    written = []
    for out in outputs:
        suffix = Path(out).suffix.lower().lstrip(".")
        suffix = SUFFIXES.get(suffix, suffix)  # the audit's: .xml is JUnit XML
        written.append(fmt if fmt and len(outputs) == 1 else suffix if suffix in FORMATS else (fmt or "md"))
        atomic.write_text(out, texts[written[-1]](), "comparison", make_parents=True)
        print(f"wrote {out}", file=sys.stderr)
    return written


def _texts(record) -> dict:
    """Every format of a comparison (a :class:`.record.Comparison`), each rendered only when asked for."""
    from . import render

    return {"md": lambda: render.markdown(record), "html": lambda: render.html_page(record),
            "json": lambda: render.to_json(record), "junit": lambda: render.to_junit(record),
            "github": lambda: render.to_github(record)}


def annotate(chosen: bool, record) -> None:
    """GitHub's workflow commands (one per slower or undecided configuration) on stderr when --format github:
    stdout or the output file holds the job summary, and the runner reads commands from both streams."""
    from . import render

    lines = render.github_annotations(record) if chosen else []
    if lines:
        print("\n".join(lines), file=sys.stderr)


def _compare(args: argparse.Namespace) -> None:
    from . import build, reproduce, sides

    results = [args.base, args.new, *args.base_also, *args.new_also]
    refuse_output_over_input(args.output, [*results, *sides.read_beside(results), args.claims, args.base_environment,
                                           args.new_environment], AuditInputError, "twelveways compare")
    base = sides.load([args.base, *args.base_also], "base", environment=args.base_environment)
    new = sides.load([args.new, *args.new_also], "new", environment=args.new_environment)
    for side in (base, new):  # files of the trees that are no results: named, not silently passed over
        for path, why, _ in side.data.skipped:
            if Path(path).name not in (*sides.ENVIRONMENT_NAMES, sides.NOISE_FLOOR_NAME):  # read by the side itself
                print(f"skipped ({side.label}) {path}: {why}", file=sys.stderr)
    record = build.build(base, new, confidence=confidence_setting(args.confidence).value, floor_given=args.noise_floor,
                         margin=args.margin, claims=reproduce.claim_rows(base, new, args.claims) if args.claims else None)
    annotate("github" in _write(args.output, args.format, _texts(record)), record)


def compare_parser() -> OneLineParser:
    parser = _parser("twelveways compare", "Compare two result sets configuration by configuration: the environment "
                     "diff first, then the ratio NEW/BASE with its CI over invocations (the between-run variance of an "
                     "A/A run added where measured), Benjamini-Hochberg over configurations, and a verdict against the "
                     "practical-equivalence margin: faster, slower, same, or inconclusive with the invocations per "
                     "side that would decide.")
    parser.add_argument("base", help="base results: a file or folder (results/, data/reference) in any format audit reads")
    parser.add_argument("new", help="new results, as BASE")
    parser.add_argument("--base-also", action="append", default=[], help="more files of the base side (repeatable)")
    parser.add_argument("--new-also", action="append", default=[], help="more files of the new side (repeatable)")
    parser.add_argument("--base-environment", help="environment capture of the base side (default: in its folder)")
    parser.add_argument("--new-environment", help="environment capture of the new side (default: in its folder)")
    parser.add_argument("--claims", help="claims YAML: check each claim on both sides")
    parser.add_argument("--format", choices=FORMATS, help="output format (default: from the --output suffix, else md); "
                        "junit: JUnit XML, a test case per configuration (slower fails, inconclusive is skipped); "
                        "github: a job summary table, and ::error/::warning annotations on stderr (docs/ci.md)")
    parser.add_argument("--output", action="append", default=[], help="write here (repeatable; .md/.html/.json/.xml)")
    _common(parser)
    return parser


def compare_main(argv: list[str] | None = None) -> int:
    return run_command(compare_parser(), argv, _compare, reads_input=True)


def _noise_floor(args: argparse.Namespace) -> None:
    from . import noise, noise_record, sides

    given = [args.first, args.second]  # its own earlier record beside them is what it replaces: not an input
    refuse_output_over_input([args.output], [*given, *sides.read_beside(given, sides.ENVIRONMENT_NAMES)],
                             AuditInputError, "twelveways noise-floor")
    record = noise.measure(sides.load([args.first], "first run"), sides.load([args.second], "second run"),
                           confidence=confidence_setting(args.confidence).value)
    atomic.write_text(args.output, sides.dumps(record), "noise floor", make_parents=True)
    typed = noise_record.from_dict(record, args.output)  # what a comparison will read back, checked as it will be
    print(noise.floor_text(typed) if typed.configurations else typed.why, file=sys.stderr)


def noise_floor_parser() -> OneLineParser:
    parser = _parser("twelveways noise-floor", "Measure the noise floor from two independent runs of identical "
                     "code (A/A): false-positive rate of the test alone, floor, power.")
    parser.add_argument("first", help="results of the first run (file or folder)")
    parser.add_argument("second", help="results of the second, independent run of the same configurations")
    parser.add_argument("--output", required=True, help="JSON file to write (results/noise_floor.json)")
    _confidence_option(parser, "confidence of the CIs")
    return parser


def noise_floor_main(argv: list[str] | None = None) -> int:
    return run_command(noise_floor_parser(), argv, _noise_floor, reads_input=True)


def _reproduce(args: argparse.Namespace) -> None:
    from . import render, reproduce, sides

    outputs = [f"{args.output}.{fmt}" for fmt in ("md", "html", "json")]
    results = [args.reference, args.results]
    refuse_output_over_input(outputs, [*results, *sides.read_beside(results), args.claims], AuditInputError,
                             "twelveways reproduce")
    record = reproduce.reproduction(args.reference, args.results, claims_file=args.claims or None,
                                    confidence=confidence_setting(args.confidence).value, floor_given=args.noise_floor,
                                    margin=args.margin)
    _write(outputs, None,
           {"md": lambda: render.reproduction_markdown(record), "html": lambda: render.reproduction_html(record),
            "json": lambda: render.to_json(record)})
    print("Reproduction: " + (", ".join(f"{n} {o}" for o, n in record.outcomes.items()) or "nothing compared"),
          file=sys.stderr)


def reproduce_parser() -> OneLineParser:
    parser = _parser("twelveways reproduce", "Compare this run with a stored result set: Reproduced / Not "
                     "reproduced / Inconclusive per claim and headline number.")
    parser.add_argument("--reference", default="data/reference", help="stored result set (default data/reference)")
    parser.add_argument("--results", default="results", help="this run's results folder (default results)")
    parser.add_argument("--claims", default="config/claims.yaml", help="claims YAML (empty: none)")
    parser.add_argument("--output", default="reports/reproduction", help="writes OUTPUT.md, .html and .json")
    _common(parser)
    return parser


def reproduce_main(argv: list[str] | None = None) -> int:
    return run_command(reproduce_parser(), argv, _reproduce, reads_input=True)
