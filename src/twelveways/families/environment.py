"""The environment capture (SC15 R9): always on, read by its own notebook of hardware and software tables."""

from .model import Family

FAMILY = Family(
    name="environment",
    stage=None,
    notebook="environment",
    results=("environment-end.json",),  # the end-of-run capture; the start capture is every job's input
)
