"""Keep a library's explicit ``gc.collect()`` from walking the whole heap on every call.

Why: statsmodels' ``multipletests`` (method "holm") ends with ``gc.collect()``.  Auditing a tree of
results calls it once per file, and a full collection walks every object alive, so its cost grows
with everything loaded so far: at 800 files it was most of the run.  ``gc.freeze()`` moves every
object tracked so far into the permanent generation (constant time), so the collection only looks
at what the call itself allocated; ``gc.unfreeze()`` hands them back to the oldest generation, where
the next ordinary collection sees them again.  Nothing is left uncollected for longer than that.
"""

from __future__ import annotations

import contextlib
import gc


#: How many :func:`collect_new_objects_only` blocks of this process are open (the outermost froze the heap).
_open_blocks = 0


@contextlib.contextmanager
def collect_new_objects_only():
    """Within the block, a ``gc.collect()`` examines only objects created inside it.

    A caller that froze objects itself (``gc.get_freeze_count() > 0``) keeps its arrangement: the
    block then changes nothing.  Inside a block of this module that is known without asking:
    ``gc.get_freeze_count()`` walks the whole permanent generation, every object frozen (milliseconds
    for each comparison inside an audit of a loaded tree).
    """
    global _open_blocks
    if _open_blocks or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    _open_blocks += 1
    try:
        yield
    finally:
        _open_blocks -= 1
        gc.unfreeze()
