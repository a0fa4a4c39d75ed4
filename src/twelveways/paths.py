"""Where the checkout lies: the project root every stage resolves its files against.

A leaf (imports nothing of the package), so the config, the environment capture and the kernel
runner share one definition without importing each other.
"""

from __future__ import annotations

from pathlib import Path

#: The repository root (src/twelveways/paths.py -> three levels up).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
