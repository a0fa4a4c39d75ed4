"""Measurement settings (confidence level, CI target) with the config schema's defaults as the only defaults.

Checks, claims and comparisons that need a confidence level when neither the file nor the config
states one call :func:`default_confidence` (the compare engineer's ``compare/cli.py`` too): the
number lives in ``workflow/schemas/config.schema.yaml`` and nowhere else.
"""

from __future__ import annotations

import functools


@functools.cache
def schema_default(key: str) -> float:
    """The schema's default of ``measurement.<key>`` (confidence, ci_target, ...)."""
    from ..config import load_schema

    return float(load_schema()["properties"]["measurement"]["properties"][key]["default"])


def default_confidence() -> float:
    """The confidence level a CI takes when nothing states one (the schema's measurement.confidence)."""
    return schema_default("confidence")


def default_ci_target() -> float:
    """The relative CI half-width target when nothing states one (the schema's measurement.ci_target)."""
    return schema_default("ci_target")
