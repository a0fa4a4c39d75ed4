"""jsonschema imported without its IRI grammars: the same validation, and the module stays importable."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from twelveways import config
from twelveways.errors import ConfigError

PROBE = """
import json, sys
from twelveways import quickimport
library = quickimport.jsonschema()
hidden = "rfc3987_syntax" not in sys.modules
import nbformat  # imports jsonschema again: the module already loaded is used
after_nbformat = "rfc3987_syntax" not in sys.modules
found = True
try:
    import rfc3987_syntax  # noqa: F401
except ImportError:
    found = False
print(json.dumps({"name": library.__name__, "hidden": hidden, "after_nbformat": after_nbformat, "importable": found}))
"""


def test_jsonschema_loads_without_the_iri_grammars_which_stay_importable():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["name"] == "jsonschema" and seen["hidden"] and seen["after_nbformat"]
    assert seen["importable"] == (importlib.util.find_spec("rfc3987_syntax") is not None)


def test_config_validation_is_unchanged():
    assert config.validate({"seed": 3})["measurement"]["confidence"] == 0.95
    with pytest.raises(ConfigError, match="config key 'seed'"):
        config.validate({"seed": "three"})
