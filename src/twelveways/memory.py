"""Give freed heap memory back to the operating system (glibc's ``malloc_trim``; elsewhere nothing).

Why: a round of thousands of files arrives as thousands of small arrays (each below glibc's mmap
threshold, so on the heap); once they are merged into large arrays the small ones are freed, but
glibc keeps the pages, and the process's resident memory would hold every row twice.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def release_freed() -> None:
    """Return the free pages of the heap to the system, where the C library can (glibc)."""
    trim = _trim()
    if trim is not None:
        trim(0)
