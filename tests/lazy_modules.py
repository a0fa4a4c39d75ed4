"""PyTorch in the tests: imported by the first test that uses it, and those tests kept on one xdist worker.

Importing torch costs about 6 s of CPU.  Every pytest-xdist worker imports every test module to collect it
(also the modules ``-m "not slow"`` then leaves out), so a module-level ``import torch`` in a test module,
or of a project module that imports it (``twelveways.train.loop``, ``twelveways.infer.model``...), makes
every worker pay it, though only the tests that run torch need it.  Those test modules name such modules
through ``lazy`` instead, and their torch tests carry ``TORCH`` (one xdist group): one worker imports torch,
when the first of them runs, and the others never do.
"""

from __future__ import annotations

import importlib

import pytest

#: The xdist group of every test that runs PyTorch (tests/conftest.py hands the groups out before single tests).
TORCH = pytest.mark.xdist_group("torch")


class LazyModule:
    """Stands for module ``name`` and imports it when a test first reads one of its public attributes.

    Names starting with an underscore (``__wrapped__``, ``_mock_name``: what pytest's collection asks of
    every module-level object) are not looked up in the module, so collecting a test module imports nothing.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy(name: str) -> LazyModule:
    """Module ``name``, imported on first use (``torch = lazy("torch")``; ``torch.zeros(2)`` imports it)."""
    return LazyModule(name)
