"""Measurement settings (confidence level, CI target): one resolver, one precedence, the schema's defaults.

Why one place: the confidence level used to be looked up six ways, each with its own order and its own idea
of a bad value.  Here a setting is resolved once from whatever sources a caller has, in :data:`PRECEDENCE`
order (the first source that sets it wins), and comes back as a :class:`Setting` that names its origin.  A
value that is set but unusable (not a number, not finite, outside the schema's bounds) is an error naming that
origin, in the caller's error class: it never quietly becomes the default.  The callers and what they read:

* ``ResultSet.measurement_setting`` (a results file): the file's attribute, the run's config.json, the schema;
* ``report.notebooks.settings``: the notebook's parameter, the run's config, the schema;
* ``report.headline.confidence_setting``: the run's config, the schema;
* ``claims.confidence_setting``: the claim's own level, the run's config, the schema;
* ``checklist.restate.stated_confidence``: the level a stated CI names, else the results file's chain;
* ``compare.cli.confidence_setting``: ``--confidence``, the schema (two runs are judged at one level, so
  neither side's config decides it).

An unusable value in a results file makes the check that needs it "needs a human" (a restated CI: "not
recomputed"), naming the file and attribute; ``compare`` stops with exit 2 naming it.

The defaults and bounds live in ``workflow/schemas/config.schema.yaml`` and nowhere else; this module reads
the schema file itself.  It is a leaf: of the package it imports only the leaves :mod:`twelveways.errors` and
:mod:`twelveways.inputs`, so ``stats`` and ``config`` sit above it (``stats`` takes the confidence level as an
argument and never looks it up).  :func:`resolve_confidence` / :func:`resolve_ci_target` serve a function whose
caller may leave the setting None: the given value, else the schema's default.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, SettingError, TwelveWaysError
from ..inputs import brief, read_yaml

#: ``src/twelveways/schemas`` links to ``workflow/schemas`` in a checkout and is their copy in a wheel, so an installed
#: package reads the same schema as the workflow.
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "config.schema.yaml"

COMMAND_LINE = "command line"
NOTEBOOK_PARAMETER = "notebook parameter"
CLAIM = "claim"
RESULTS_FILE = "results file"
RUN_CONFIG = "run config"
SCHEMA_DEFAULT = "schema default"
#: Where a setting can come from, the strongest first: what the person running the command asked for beats
#: what a claim states for itself, which beats what the measured file says, which beats the run's config;
#: the schema's default is the last resort.
PRECEDENCE = (COMMAND_LINE, NOTEBOOK_PARAMETER, CLAIM, RESULTS_FILE, RUN_CONFIG, SCHEMA_DEFAULT)
#: How a message names each source: ``{where}`` is what the caller says exactly (a file and attribute, a claim),
#: by default the option, parameter or config key.
PHRASES = {COMMAND_LINE: "option {where} on the command line", NOTEBOOK_PARAMETER: "notebook parameter {where}",
           CLAIM: "{where}", RESULTS_FILE: "results file {where}", RUN_CONFIG: "the run's config {where}",
           SCHEMA_DEFAULT: "config schema default of {where}"}


@dataclass(frozen=True)
class Setting:
    """A resolved setting: its value, the source that set it (one of :data:`PRECEDENCE`) and where exactly."""

    key: str
    value: float
    source: str
    where: str

    @property
    def origin(self) -> str:
        """"the run's config measurement.confidence": what a message or a notebook names."""
        return PHRASES[self.source].format(where=self.where)


def _default_where(source: str, key: str, section: str) -> str:
    return {COMMAND_LINE: "--" + key.replace("_", "-"), NOTEBOOK_PARAMETER: key,
            CLAIM: "the claim's " + key}.get(source, f"{section}.{key}")


@functools.cache
def _section(section: str) -> dict:
    """``properties.<section>.properties`` of the schema, following a ``$ref`` to another schema file."""
    node = read_yaml(SCHEMA_PATH, "configuration schema", ConfigError)["properties"][section]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.endswith((".yaml", ".yml")):
        node = read_yaml(SCHEMA_PATH.parent / ref, "configuration schema", ConfigError)
    return node["properties"]


def schema_default(key: str, section: str = "measurement") -> float:
    """The schema's default of ``<section>.<key>`` (measurement.confidence, measurement.ci_target, infer.confidence)."""
    return float(_section(section)[key]["default"])


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


def is_set(value) -> bool:
    """None and an empty text leave a setting to the next source (a papermill ``-p x ''``, an empty attribute)."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def resolve(key: str, given: Mapping[str, object], where: Mapping[str, str] | None = None, *,
            section: str = "measurement", error: type[TwelveWaysError] = SettingError) -> Setting:
    """``<section>.<key>`` from the first source of :data:`PRECEDENCE` that ``given`` sets, else the schema's default.

    ``given``: {source: raw value or None}; ``where``: {source: what exactly (a file and attribute, an option)}.
    A set but unusable value raises ``error`` (one line naming the origin): a caller that must tell its own kind of
    problem (a claim file, a notebook, a command's input) passes its class.
    """
    unknown = set(given) - set(PRECEDENCE[:-1])
    if unknown:
        raise ValueError(f"unknown setting source(s) {sorted(unknown)}; known: {PRECEDENCE[:-1]}")
    where = where or {}
    for source in PRECEDENCE[:-1]:
        if is_set(given.get(source)):
            found = Setting(key, math.nan, source, where.get(source) or _default_where(source, key, section))
            return Setting(key, _checked(key, given[source], found.origin, section, error), source, found.where)
    return Setting(key, schema_default(key, section), SCHEMA_DEFAULT, _default_where(SCHEMA_DEFAULT, key, section))


def config_value(config: Mapping | None, key: str, section: str = "measurement"):
    """``config[section][key]`` of a run's config (a dict from config.json), or None when it has none."""
    node = config.get(section) if isinstance(config, Mapping) else None
    return node.get(key) if isinstance(node, Mapping) else None


def _checked(key: str, raw, origin: str, section: str, error: type[TwelveWaysError]) -> float:
    """``raw`` as a number inside the schema's bounds of ``<section>.<key>``, else ``error`` naming ``origin``."""
    shown = repr(raw) if isinstance(raw, (int, float)) else brief(raw)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise error(f"{key} must be a number, got {shown} ({origin})")
    try:
        value = float(raw)
    except ValueError:
        raise error(f"{key} must be a number, got {shown} ({origin})") from None
    if not math.isfinite(value):
        raise error(f"{key} must be a finite number, got {shown} ({origin})")
    inside, bounds = _bounds(_section(section)[key])
    if not inside(value):
        raise error(f"{key} must lie {bounds}, got {shown} ({origin})")
    return value


def _bounds(spec: Mapping) -> tuple:
    """(test of a value, the interval in words: 'between 0 and 1, both excluded') from a schema property."""
    low = spec.get("exclusiveMinimum", spec.get("minimum", -math.inf))
    high = spec.get("exclusiveMaximum", spec.get("maximum", math.inf))
    low_open, high_open = "exclusiveMinimum" in spec, "exclusiveMaximum" in spec

    def inside(value: float) -> bool:
        return (value > low if low_open else value >= low) and (value < high if high_open else value <= high)

    excluded = [f"{b:g}" for b, is_open in ((low, low_open), (high, high_open)) if is_open]
    words = {0: "", 1: f", {excluded[0]} excluded", 2: ", both excluded"}[len(excluded)]
    return inside, f"between {low:g} and {high:g}{words}"
