"""What the command lines share: usage problems as one line, and the options several commands take.

Stated once here so that every command reads the same default files (the workflow's validated
config dump and environment capture) and reports a bad argument the same way.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from .errors import TwelveWaysError, one_line_errors

#: The workflow's validated config dump: the default config of the stage commands and notebooks.
CONFIG_JSON = "results/config.json"
#: The workflow's environment capture: every results file carries its hash.
ENVIRONMENT_JSON = "results/environment.json"


class UsageError(TwelveWaysError):
    """The command line itself is wrong: an unknown option, a missing argument, a value of the wrong type."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage problems raise ``error_class`` instead of printing its usage block, so a command
    reports them like any other expected problem: one ``error:`` line and the command's own exit code."""

    def __init__(self, *args, error_class: type[TwelveWaysError] = UsageError, **kwargs):
        super().__init__(*args, **kwargs)
        self.error_class = error_class

    def error(self, message: str):
        raise self.error_class(f"{self.prog}: {message}")


def run_command(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                body: Callable[[argparse.Namespace], None], code: int) -> int:
    """Parse ``argv`` and run ``body(args)``: a usage or other expected problem is one line and exit ``code``."""
    return one_line_errors(lambda: body(parser.parse_args(argv)), code)


def add_config(parser: argparse.ArgumentParser, default: str | None = CONFIG_JSON, **names) -> None:
    """``--config PATH``: the validated config dump, or a YAML config that is validated when read."""
    shown = f"default {default}" if default else "none by default"
    parser.add_argument("--config", default=default, metavar="PATH", **names,
                        help=f"validated config dump or a YAML config ({shown})")


def add_environment(parser: argparse.ArgumentParser, default: str | None = ENVIRONMENT_JSON, **names) -> None:
    """``--environment PATH``: the environment capture whose hash results carry and audits match."""
    shown = f"default {default}" if default else "none by default"
    parser.add_argument("--environment", default=default, metavar="PATH", **names,
                        help=f"environment capture ({shown})")
