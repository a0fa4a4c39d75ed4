"""Import jsonschema without the IRI grammars that nothing in this project checks.

Why: jsonschema imports ``rfc3987_syntax`` when it is installed (JupyterLab's jupyter-events asks for
``jsonschema[format-nongpl]``), and that module compiles 38 Lark grammars at import: 1.3-2 s of CPU in
every process that validates a config or opens a notebook (nbformat, papermill, jupytext and nbconvert
import jsonschema) -- Snakemake itself, and most of the twenty-odd jobs of a workflow run.  The grammars
only serve jsonschema's ``"iri"`` and ``"iri-reference"`` format checks; this project validates with no
format checker (:mod:`twelveways.config`) and nbformat's schema declares no IRI, so those checks are left
out of the process instead (jsonschema treats the module as absent).  Anything else in the process can
still import ``rfc3987_syntax`` itself: the module is only hidden while jsonschema is imported.
"""

from __future__ import annotations

import sys
from types import ModuleType

#: The optional jsonschema dependency whose import compiles the IRI grammars.
IRI_GRAMMARS = "rfc3987_syntax"


def jsonschema() -> ModuleType:
    """The ``jsonschema`` module, imported (when not yet) with :data:`IRI_GRAMMARS` hidden."""
    if "jsonschema" in sys.modules:
        return sys.modules["jsonschema"]
    hidden = IRI_GRAMMARS not in sys.modules
    if hidden:
        sys.modules[IRI_GRAMMARS] = None  # an import of it raises ImportError, which jsonschema expects
    try:
        import jsonschema as module
    finally:
        if hidden and sys.modules.get(IRI_GRAMMARS, "") is None:
            del sys.modules[IRI_GRAMMARS]
    return module
