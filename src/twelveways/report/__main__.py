"""``python -m twelveways.report``: one ``error:`` line and exit 1 for expected problems."""

import sys

from ..errors import TwelveWaysError
from .commands import main

try:
    sys.exit(main())
except TwelveWaysError as exc:
    print(f"error: {exc.one_line()}", file=sys.stderr)
    sys.exit(1)
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)
