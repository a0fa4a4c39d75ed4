"""``python -m twelveways.readers docs/formats.md``: regenerate the page's table of formats from the registry."""

import sys
from pathlib import Path

from .registry import with_docs_table

if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/formats.md")
    target.write_text(with_docs_table(target.read_text()))
