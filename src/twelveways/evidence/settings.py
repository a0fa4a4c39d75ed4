"""Measurement settings (confidence level, CI target) with the config schema's defaults as the only defaults.

Checks, claims and comparisons that need a confidence level when neither the file nor the config
states one call :func:`default_confidence` (the compare engineer's ``compare/cli.py`` too): the
number lives in ``workflow/schemas/config.schema.yaml`` and nowhere else.  A function that takes a
``confidence`` (or a CI ``target``) defaults it to None and resolves it with :func:`resolve_confidence`
(:func:`resolve_ci_target`), or with ``twelveways.stats.check_confidence``, which also checks it.
"""

from __future__ import annotations

import functools


@functools.cache
def schema_default(key: str, section: str = "measurement") -> float:
    """The schema's default of ``<section>.<key>`` (measurement.confidence, measurement.ci_target, infer.confidence)."""
    from ..config import load_schema

    return float(load_schema()["properties"][section]["properties"][key]["default"])


def default_confidence() -> float:
    """The confidence level a CI takes when nothing states one (the schema's measurement.confidence)."""
    return schema_default("confidence")


def default_ci_target() -> float:
    """The relative CI half-width target when nothing states one (the schema's measurement.ci_target)."""
    return schema_default("ci_target")


def default_query_confidence() -> float:
    """The confidence of MLPerf's statistical query counts when nothing states one (the schema's infer.confidence)."""
    return schema_default("confidence", "infer")


def resolve_confidence(confidence: float | None) -> float:
    """``confidence`` itself, or the schema's default when None (the signature default of every ``confidence``)."""
    return default_confidence() if confidence is None else confidence


def resolve_ci_target(target: float | None) -> float:
    """``target`` itself, or the schema's ``measurement.ci_target`` when None."""
    return default_ci_target() if target is None else target
