"""``python -m twelveways``: the same command line as the ``twelveways`` script."""

import sys

from .cli import main

sys.exit(main())
