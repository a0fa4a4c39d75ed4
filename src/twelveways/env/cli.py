"""``twelveways env`` / ``python -m twelveways.env``: capture, compare, write, render, print."""

from __future__ import annotations

import argparse
import os
import sys

from ..cliargs import OneLineParser, add_config
from ..errors import TwelveWaysError, exit_code
from .hashing import differences
from .record import capture
from .render import print_summary, write_artifact_description
from .store import load_config, read, to_json, write


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="twelveways env",
        description="Capture the machine's hardware and software environment (SC15 rule 9).")
    parser.add_argument("--json", action="store_true", help="print the full capture as JSON (default: a summary)")
    parser.add_argument("--output", metavar="PATH", help="also write the capture here atomically (e.g. results/environment.json)")
    parser.add_argument("--artifact", metavar="PATH", help="also render the Artifact Description here (Markdown)")
    add_config(parser, default=None)
    parser.add_argument("--label", default="start", help="label of the load snapshot (start, end); default start")
    parser.add_argument("--compare", metavar="PATH",
                        help="an earlier capture (the start of the run): copy its load snapshots and record what changed")
    return parser


def _compare(result: dict, earlier: dict, against: str) -> None:
    """Carry the earlier load snapshots over and record how this capture differs from it."""
    result["load"] = {**earlier.get("load", {}), **result["load"]}
    result["comparison"] = {"against": against, "earlier_hash": earlier["hash"],
                            "same_environment": earlier["hash"] == result["hash"],
                            "differences": differences(earlier, result)}


def main(argv: list[str] | None = None) -> int:
    """``twelveways env`` / ``python -m twelveways.env``; expected problems print one line, exit 1 (2 for a bad
    command line)."""
    try:
        args = _parser().parse_args(argv)
        config = load_config(args.config) if args.config else None
        earlier = read(args.compare) if args.compare else None
        result = capture(config, label=args.label)
        if earlier is not None:
            _compare(result, earlier, str(args.compare))
        if args.output:
            write(result, args.output)
            print(f"wrote {args.output} (environment hash {result['hash'][:16]})", file=sys.stderr)
        if args.artifact:
            write_artifact_description(result, args.artifact, config)
            print(f"wrote {args.artifact}", file=sys.stderr)
        if args.json:
            sys.stdout.write(to_json(result))
        else:
            print_summary(result)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return exit_code(exc)
    except BrokenPipeError:  # e.g. `twelveways env --json | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
