"""``python -m twelveways.env`` (the workflow's environment rules call it this way)."""

import sys

from .cli import main

sys.exit(main())
