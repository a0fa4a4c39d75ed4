"""One exception hierarchy, so the CLI and the workflow can turn any expected problem into one line.

Every error the project raises on purpose derives from :class:`TwelveWaysError`; anything else
is a bug and is allowed to show its traceback.  The exit code of every command is decided here too,
from the error's type (:func:`exit_code`) or the outcome (:func:`outcome_code`): docs/exit-codes.md.
"""

#: A command did what it was asked and nothing it judged failed.
EXIT_OK = 0
#: A check or claim failed, or a step (configuration, build, run, rendering) could not be done.
EXIT_FAILED = 1
#: The command line is wrong, or the input the command was given cannot be used.
EXIT_UNUSABLE = 2
#: Nothing failed, but result files inside a tree could not be read: skipped and listed (audit, import).
EXIT_SKIPPED = 3
#: Interrupted (Ctrl-C), as a shell reports SIGINT.
EXIT_INTERRUPTED = 130


class TwelveWaysError(Exception):
    """Base class: an expected problem with a message fit to print as ``error: <message>``."""

    def __init__(self, message: str, *, cause: BaseException | None = None):
        super().__init__(message)
        self.cause = cause
        if cause is not None:
            self.__cause__ = cause

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        if self.cause is not None and str(self.cause) and str(self.cause) not in text:
            text += f" ({type(self.cause).__name__}: {' '.join(str(self.cause).split())})"
        return text


class UsageError(TwelveWaysError):
    """The command line itself is wrong: an unknown option, a missing argument, a value of the wrong type."""


class ConfigError(TwelveWaysError):
    """The workflow configuration is malformed or violates the schema."""


class SettingError(TwelveWaysError):
    """A setting (confidence level, CI target) is set somewhere but unusable; the message names where."""


class ResultsError(TwelveWaysError):
    """A results file is missing, partial, of another schema version or otherwise unusable."""


class EnvironmentMismatchError(ResultsError):
    """Results from different environments were about to be merged without being asked to."""


class MeasurementError(TwelveWaysError):
    """A measurement could not be taken or is not trustworthy."""


class KernelError(TwelveWaysError):
    """A benchmark kernel failed to build, run, or produce a valid result."""


class ValidationError(KernelError):
    """A kernel ran but its self-validation failed: its timings must never be summarized."""


class StatisticsError(TwelveWaysError):
    """A statistic was asked of data that cannot support it (too few samples, wrong kind)."""


class AuditInputError(TwelveWaysError):
    """Input to ``twelveways audit`` / ``import-csv`` cannot be used (exit code 2)."""


class ClaimError(TwelveWaysError):
    """A claims file is malformed, or a claim is ambiguous (e.g. relative accuracy undefined)."""


class MissingExtraError(TwelveWaysError):
    """A command needs an optional part of the package (an extra of pyproject.toml) that is not installed."""


class WorkflowLockError(TwelveWaysError):
    """The workflow directory is taken by a live run (or by a lock whose owner cannot be checked)."""


def exit_code(exc: BaseException, *, reads_input: bool = False) -> int:
    """The exit code of an expected problem, from its type: interrupted 130; a bad command line (UsageError) or
    unusable input (AuditInputError) 2; any other problem 2 in a command whose job is to read the input it is given
    (audit, compare, import …: there it is the input that cannot be used), else 1 (a step that failed)."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, (UsageError, AuditInputError)) or reads_input:
        return EXIT_UNUSABLE
    return EXIT_FAILED


def outcome_code(*, failed: bool, skipped: bool = False) -> int:
    """The exit code of a command that ran: 1 when a check or claim failed (a failure outranks a skip), 3 when
    result files of a tree were skipped as unreadable, else 0."""
    return EXIT_FAILED if failed else EXIT_SKIPPED if skipped else EXIT_OK


def one_line_errors(action, *, reads_input: bool = False) -> int:
    """Run a command's body: an expected problem (a TwelveWaysError) is one ``error:`` line on stderr and
    :func:`exit_code`, never a traceback; else the body's own exit code (None: 0)."""
    import sys

    try:
        return int(action() or EXIT_OK)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return exit_code(exc, reads_input=reads_input)
