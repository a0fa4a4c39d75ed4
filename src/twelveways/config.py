"""Load and validate the workflow configuration before any job runs.

The schema lives in ``workflow/schemas/config.schema.yaml`` (``additionalProperties: false``
everywhere, every default documented there).  A stage's section may live in its own file,
referenced as ``$ref: prk.schema.yaml``; :func:`load_schema` inlines those references.
Validation fills in defaults, so the rest of the workflow sees a complete configuration.
Any problem becomes one :class:`ConfigError` line naming the key.
"""

from __future__ import annotations

import copy
import functools
import sys
from collections.abc import Mapping
from pathlib import Path

import yaml
from typing import TYPE_CHECKING

from . import inputs
from .errors import ConfigError
from .evidence.settings import SCHEMA_PATH
from .paths import PROJECT_ROOT

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaViolation


def _read_yaml(path: Path):
    return inputs.read_yaml(path, "configuration file", ConfigError)


def load_schema(path: Path = SCHEMA_PATH) -> dict:
    """The config schema with file references (``$ref: x.schema.yaml``) inlined."""

    def inline(node, base: Path):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.endswith((".yaml", ".yml")) and "#" not in ref:
                target = (base / ref).resolve()
                return inline(_read_yaml(target), target.parent)
            return {key: inline(value, base) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item, base) for item in node]
        return node

    return _with_family_switches(inline(_read_yaml(path), path.parent))


def _with_family_switches(schema: dict) -> dict:
    """``stages.<key>`` (on by default, like the others) and ``subset_reasons.<key>`` for a declared
    family the schema file does not list, so a family registered in :mod:`twelveways.families` runs
    without a schema edit."""
    from . import families

    properties = schema.get("properties", {})
    switches = properties.get("stages", {}).get("properties")
    reasons = properties.get("subset_reasons", {}).get("properties")
    if isinstance(switches, dict) and isinstance(reasons, dict):
        for family in families.staged():
            switches.setdefault(family.stage, {"type": "boolean", "default": True,
                                               "description": f"The {family.name} family (twelveways.families)."})
            reasons.setdefault(family.stage, {"type": "string", "description": f"Why the {family.name} stage is off."})
    return schema


@functools.cache
def _defaulting_validator():
    """A JSON-schema validator that also writes each property's ``default`` into the instance.

    Built on first use, most commands only read the schema's defaults; jsonschema is imported without
    the IRI grammars no check here uses (:mod:`twelveways.quickimport`: 1.3-2 s per process)."""
    from .quickimport import jsonschema

    library = jsonschema()
    validator_class = library.Draft202012Validator
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if "default" in subschema and name not in instance:
                    instance[name] = copy.deepcopy(subschema["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return library.validators.extend(validator_class, {"properties": set_defaults})


def _key_of(error: SchemaViolation) -> str:
    parts = []
    for part in error.absolute_path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts) or "(top level)"


def _describe(error: SchemaViolation) -> tuple[str, str]:
    """(key, problem) for the most useful phrasing of a schema violation."""
    key = _key_of(error)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extras = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        name = extras[0] if extras else "?"
        full = f"{key}.{name}" if key != "(top level)" else name
        return full, f"unknown key (allowed here: {', '.join(allowed)})"
    if error.validator == "enum":
        return key, f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    if error.validator == "type":
        expected = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return key, f"expected {expected}, got {type(error.instance).__name__} {error.instance!r}"
    if error.validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "at least", "exclusiveMinimum": "greater than",
                 "maximum": "at most", "exclusiveMaximum": "less than"}[error.validator]
        return key, f"must be {words} {error.validator_value}, got {error.instance!r}"
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        full = f"{key}.{missing}" if key != "(top level)" else missing
        return full, "required key is missing"
    if error.validator in ("minItems", "uniqueItems", "minLength", "pattern"):
        return key, error.message
    return key, error.message


def validate(config: Mapping | None, schema: dict | None = None) -> dict:
    """Validate ``config`` (a mapping), fill in defaults, and return the completed copy."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise ConfigError(f"config must be a mapping of keys to values, got {type(config).__name__}")
    schema = schema if schema is not None else load_schema()
    instance = copy.deepcopy(dict(config))
    validator = _defaulting_validator()(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        key, problem = _describe(errors[0])
        raise ConfigError(f"config key '{key}': {problem}")
    _check_semantics(instance)
    return instance


def _check_semantics(config: dict) -> None:
    """Rules a JSON schema cannot express; each names its key."""
    stages = config.get("stages", {})
    reasons = config.get("subset_reasons", {})
    for stage, enabled in stages.items():
        if not enabled and not str(reasons.get(stage, "")).strip():
            raise ConfigError(f"config key 'subset_reasons.{stage}': stage '{stage}' is switched off, "
                              "so say why (SC15 rule 2: reasons for any subset)")
    from . import feasibility  # cross-field rules, NaN/inf, memory and rank feasibility

    feasibility.check(config)


def load(path: str | Path, overrides: Mapping | None = None) -> dict:
    """Read a YAML config file, apply overrides, validate and fill defaults."""
    data = _read_yaml(Path(path))
    if data is not None and not isinstance(data, Mapping):
        raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
    merged = dict(data or {})
    if overrides:
        merged.update(overrides)
    return validate(merged)


DEFAULT_CONFIG = PROJECT_ROOT / "config" / "config.yaml"


def for_workflow(config: dict, configfiles, default: Path = DEFAULT_CONFIG, overrides: Mapping | None = None) -> dict:
    """The Snakefile's entry: complete and validate Snakemake's ``config`` in place, or exit.

    Without ``--configfile`` the quick profile (config/config.yaml) is the base and ``--config``
    values overlay it; with ``--configfile`` Snakemake has already loaded those files.  Nested
    ``--config`` values reach us as text (``measurement={"max_samples": 10}`` gives ``'10'``):
    their leaves are typed as YAML again (``overrides``: Snakemake's parsed ``--config``).
    Either way the result is validated before any job is scheduled.
    """
    try:
        if configfiles:
            for path in configfiles:  # re-read ourselves: a one-line message for malformed YAML
                data = _read_yaml(Path(path))
                if data is not None and not isinstance(data, Mapping):
                    raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
            merged = dict(config)
        else:
            merged = dict(_read_yaml(default) or {})
            deep_update(merged, config)
        deep_update(merged, _typed(overrides or {}))
        validated = validate(merged)
    except ConfigError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr, flush=True)
        import os

        os._exit(1)  # Snakemake would wrap an exception in a traceback; no job has started
    config.clear()
    config.update(validated)
    return config


def _typed(overrides: Mapping) -> dict:
    """Snakemake's ``--config`` with the text leaves of nested values typed as YAML again."""

    def leaf(value):
        if isinstance(value, Mapping):
            return {key: leaf(item) for key, item in value.items()}
        if isinstance(value, list):
            return [leaf(item) for item in value]
        if isinstance(value, str):
            try:
                typed = yaml.safe_load(value)
            except yaml.YAMLError:
                return value
            return typed if isinstance(typed, (bool, int, float)) or typed is None else value
        return value

    return {key: leaf(value) if isinstance(value, (Mapping, list)) else value for key, value in overrides.items()}


def deep_update(base: dict, extra: Mapping) -> None:
    """Merge ``extra`` into ``base`` key by key, nested mappings merged rather than replaced."""
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            deep_update(base[key], value)
        else:
            base[key] = value


def dump_text(config: Mapping) -> str:
    """The validated configuration as results/config.json holds it (the config_dump rule writes this
    text from a shell command: a Python ``run:`` job would re-parse the whole workflow first)."""
    import json

    return json.dumps(dict(config), indent=2, sort_keys=True) + "\n"


def write_json(config: Mapping, path: str | Path) -> Path:
    """Write :func:`dump_text` of the configuration atomically (what the tests and tools hand a stage)."""
    from . import atomic

    return atomic.write_text(path, dump_text(config), "configuration dump", make_parents=True)


def read_json(path: str | Path) -> dict:
    """Read a config dumped as :func:`dump_text` (results/config.json) and re-validate it."""
    return validate(inputs.read_json(path, "configuration dump", ConfigError))


def use_interpreter_bin() -> None:
    """Put the running interpreter's bin folder first on PATH (for the workflow's shell jobs)."""
    import os

    bin_dir = str(Path(sys.executable).parent)
    parts = os.environ.get("PATH", "").split(os.pathsep)
    if not parts or parts[0] != bin_dir:
        os.environ["PATH"] = os.pathsep.join([bin_dir, *parts])
