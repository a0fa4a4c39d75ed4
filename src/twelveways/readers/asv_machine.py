"""asv's ``machine.json``: the machine description beside asv's results, never results itself.

Why declared: a tree of asv results holds one per machine folder; recognizing it keeps it out of
the CSV and JSON guesses, and a user who names it alone is told to name the results beside it.
"""

from __future__ import annotations

from .head import Head
from .registry import CERTAIN, Format

FORMAT = "asv-machine"
KEYS = {"machine", "version", "arch", "cpu", "num_cpu", "os", "ram"}


def _recognize(head: Head) -> int:
    value = head.document
    return CERTAIN if isinstance(value, dict) and {"machine", "version"} <= set(value) <= KEYS else 0


READER = Format(name=FORMAT, title="asv machine.json", reads="asv machine description (version 1)",
                recognize=_recognize,
                companion="asv's machine description: name the results files beside it "
                          "(results/<machine>/<commit>-<env>.json), which are read with it")
