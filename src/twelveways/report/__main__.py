"""``python -m twelveways.report``: one ``error:`` line and exit 1 for expected problems (2 for a bad command line)."""

import sys

from ..cliargs import UsageError
from ..errors import TwelveWaysError
from .commands import main

try:
    sys.exit(main())
except TwelveWaysError as exc:
    print(f"error: {exc.one_line()}", file=sys.stderr)
    sys.exit(2 if isinstance(exc, UsageError) else 1)
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)
