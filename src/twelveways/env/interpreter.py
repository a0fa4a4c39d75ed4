"""Python: the interpreter, every installed distribution, and MLPerf LoadGen."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import re
import sys

from .probe import Unavailable, safe, unavailable


def packages() -> dict:
    """Every installed distribution visible to this Python, name -> version."""
    found = {}
    for dist in importlib.metadata.distributions():
        # only the header lines: dist.metadata runs the full e-mail parser (seconds for ~200 packages)
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        header = text.split("\n\n", 1)[0]
        name = re.search(r"^Name:\s*(\S+)", header, re.MULTILINE)
        version = re.search(r"^Version:\s*(\S+)", header, re.MULTILINE)
        if name and version:
            found.setdefault(re.sub(r"[-_.]+", "-", name.group(1)).lower(), version.group(1))
    if not found:
        raise Unavailable("importlib.metadata lists no distributions")
    return dict(sorted(found.items()))


def python() -> dict:
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "build": " ".join(platform.python_build()),
        "compiler": platform.python_compiler(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "packages": safe(packages),
    }


def _metadata_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        raise Unavailable(f"package {name} is not installed") from None


def loadgen() -> dict:
    spec = importlib.util.find_spec("mlperf_loadgen")
    return {
        "version": safe(_metadata_version, "mlcommons-loadgen"),
        "module": spec.origin if spec and spec.origin else unavailable("module mlperf_loadgen not found"),
        "mlperf_logging": safe(_metadata_version, "mlperf-logging"),
    }
