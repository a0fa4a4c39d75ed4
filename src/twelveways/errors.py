"""One exception hierarchy, so the CLI and the workflow can turn any expected problem into one line.

Every error the project raises on purpose derives from :class:`TwelveWaysError`; anything else
is a bug and is allowed to show its traceback.
"""


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


class WorkflowLockError(TwelveWaysError):
    """The workflow directory is taken by a live run (or by a lock whose owner cannot be checked)."""


def one_line_errors(action, code: int) -> int:
    """Run a command's body: an expected problem (a TwelveWaysError) is one ``error:`` line on stderr and exit
    ``code``, never a traceback; 0 when the body returns."""
    import sys

    try:
        action()
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return code
    return 0
