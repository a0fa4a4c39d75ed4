"""What the command lines share: usage problems as one line, and the options several commands take.

Stated once here so that every command reads the same default files (the workflow's validated
config dump and environment capture) and reports a bad argument the same way.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from .errors import TwelveWaysError, UsageError, one_line_errors
from .inputs import brief

#: The workflow's validated config dump: the default config of the stage commands and notebooks.
CONFIG_JSON = "results/config.json"
#: The workflow's environment capture: every results file carries its hash.
ENVIRONMENT_JSON = "results/environment.json"
#: Most parallel workers a command accepts (``report rebuild --jobs``).
MAX_WORKERS = 256


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage problems raise ``error_class`` instead of printing its usage block, so a command
    reports them like any other expected problem: one ``error:`` line and the command's own exit code."""

    def __init__(self, *args, error_class: type[TwelveWaysError] = UsageError, **kwargs):
        super().__init__(*args, **kwargs)
        self.error_class = error_class

    def error(self, message: str):
        raise self.error_class(f"{self.prog}: {message}")


def run_command(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                body: Callable[[argparse.Namespace], int | None], *, reads_input: bool) -> int:
    """Parse ``argv`` and run ``body(args)``: a usage or other expected problem is one line and the exit code of
    its type (``errors.exit_code``; ``reads_input``: the command's job is to read the input it is given), else
    the body's own exit code (None: 0)."""
    return one_line_errors(lambda: body(parser.parse_args(argv)), reads_input=reads_input)


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


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def _inside(path: Path, folder: Path) -> bool:
    """True when ``path`` lies below the existing folder ``folder`` (symbolic links resolved)."""
    try:
        return folder.is_dir() and path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a loop of symbolic links: not provably inside
        return False


def refuse_output_over_input(outputs: Iterable, inputs: Iterable, error_class: type[TwelveWaysError] = UsageError,
                             prog: str = "twelveways") -> None:
    """An output that is one of the inputs would destroy the input it is computed from, and one inside an input
    folder would change that folder (the next read finds the output among the inputs): refuse both, one line,
    before anything is read or written."""
    sources = [Path(p) for p in inputs if p]
    for out in (Path(o) for o in outputs if o):
        same = next((src for src in sources if _same_file(out, src)), None)
        if same is not None:
            raise error_class(f"{prog}: output {out} is the input {same}: writing it would destroy what it is "
                              "computed from (choose another --output)")
        folder = next((src for src in sources if _inside(out, src)), None)
        if folder is not None:
            raise error_class(f"{prog}: output {out} lies inside the input folder {folder}: writing it would change "
                              "what it is computed from (choose another --output)")


def _relative(text: str) -> tuple[float, bool]:
    """(value, written as a percentage) of ``0.1`` or ``10%``; a non-number is refused naming the text."""
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        return float(raw[:-1] if percent else raw) / (100 if percent else 1), percent
    except ValueError:
        raise argparse.ArgumentTypeError(f"{brief(text)} is not a number (write a fraction such as 0.1, "
                                         "or 10%)") from None


def _refused(text: str, value: float, percent: bool, wanted: str) -> argparse.ArgumentTypeError:
    raw = text.strip()
    hint = f" (for {raw}% write {raw}%)" if not percent and 1 <= value < 100 else ""
    return argparse.ArgumentTypeError(f"{brief(text)} is not {wanted}{hint}")


def fraction(text: str) -> float:
    """An argparse type for a relative amount: a fraction 0 <= f < 1 (``0.1``) or a percentage with ``%``
    (``10%``).  A bare ``10`` is refused: read as a fraction it would mean 1000%."""
    value, percent = _relative(text)
    if not 0 <= value < 1:  # also refuses NaN
        raise _refused(text, value, percent, "a fraction 0 <= f < 1 nor a percentage below 100%")
    return value


def proportion(text: str) -> float:
    """An argparse type for a probability or an effect to detect (power, confidence, ``plan --effect``): a
    fraction 0 < f < 1 or a percentage.  0 and 1 are refused: a test cannot have them, and a planned effect of
    0 (or of 150%, "at 150% power") answers a question nobody asked."""
    value, percent = _relative(text)
    if not 0 < value < 1:  # also refuses NaN
        raise _refused(text, value, percent, "a fraction 0 < f < 1 nor a percentage strictly between 0% and 100%")
    return value


def share(text: str) -> float:
    """An argparse type for a target relative to a value (``--ci-target``): a fraction 0 < f <= 1 or a
    percentage (the schema's bounds of ``measurement.ci_target``)."""
    value, percent = _relative(text)
    if not 0 < value <= 1:  # also refuses NaN
        raise _refused(text, value, percent, "a fraction 0 < f <= 1 nor a percentage up to 100%")
    return value


def workers(text: str) -> int:
    """An argparse type for a number of parallel workers: a whole number from 1 to :data:`MAX_WORKERS`
    (a 400-digit count would ask the operating system for threads it cannot make)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{brief(text)} is not a whole number") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"{brief(text)} is not between 1 and {MAX_WORKERS}")
    return value
