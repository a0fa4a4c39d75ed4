"""``python -m twelveways.report``: one ``error:`` line and the exit code of its type (``errors.exit_code``)."""

import sys

from ..errors import TwelveWaysError, exit_code
from .commands import main

try:
    sys.exit(main())
except TwelveWaysError as exc:
    print(f"error: {exc.one_line()}", file=sys.stderr)
    sys.exit(exit_code(exc))
except KeyboardInterrupt as exc:
    print("error: interrupted", file=sys.stderr)
    sys.exit(exit_code(exc))
