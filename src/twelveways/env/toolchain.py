"""Compilers: the C compiler and flags the PRK build uses, what ``-march=native`` means here,
the OpenMP version, and the MPI compiler wrapper."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping

from .probe import Unavailable, first_line, run, safe, venv_tool

DEFAULT_CC = "gcc"
DEFAULT_CFLAGS = "-O3 -march=native"


def build_settings(config: Mapping | None) -> dict:
    """The C compiler and flags the PRK build uses (config['prk'] if it says, else the defaults)."""
    prk = (config or {}).get("prk") if isinstance(config, Mapping) else None
    prk = prk if isinstance(prk, Mapping) else {}
    build = prk.get("build") if isinstance(prk.get("build"), Mapping) else {}
    cc = prk.get("cc") or build.get("cc")
    cflags = prk.get("cflags") if prk.get("cflags") is not None else build.get("cflags")
    extra = {k: v for k, v in {**build, **prk}.items()
             if isinstance(v, (str, int, float)) and ("flags" in k or k in ("mpicc", "ldflags", "openmp")) and k != "cflags"}
    return {
        "cc": str(cc) if cc else DEFAULT_CC,
        "cflags": str(cflags) if cflags is not None else DEFAULT_CFLAGS,
        "source": "config prk" if (cc or cflags is not None) else "defaults (config has no prk.cc / prk.cflags)",
        "extra": extra,
    }


def compiler(name: str) -> dict:
    """Where a compiler on PATH lives and its version line."""
    path = shutil.which(name)
    if path is None:
        raise Unavailable(f"{name} not found on PATH")
    return {"path": path, "realpath": os.path.realpath(path),
            "version": safe(lambda: first_line(run([name, "--version"])))}


def _march_native(cc: str, cflags: str) -> dict | str:
    """What -march=native resolves to on this CPU (gcc/clang print it with -Q --help=target)."""
    if "-march=native" not in cflags and "-mcpu=native" not in cflags:
        return "not used"
    out = run([cc, "-march=native", "-Q", "--help=target"], timeout=15)
    found = {}
    for line in out.splitlines():
        match = re.match(r"\s+-(march|mtune)=\s+(\S+)\s*$", line)
        if match:
            found[match.group(1)] = match.group(2)
    if not found:
        raise Unavailable(f"{cc} -Q --help=target printed no -march line")
    return found


def _openmp_version(cc: str) -> str:
    out = subprocess.run([shutil.which(cc) or cc, "-fopenmp", "-dM", "-E", "-"], input="", capture_output=True,
                         text=True, timeout=15)
    match = re.search(r"#define _OPENMP (\d+)", out.stdout)
    if not match:
        raise Unavailable(f"{cc} -fopenmp defines no _OPENMP (exit {out.returncode})")
    return match.group(1)


def _used(settings: dict) -> dict:
    """The configured compiler with its versions and what its flags resolve to."""
    cc, cflags = settings["cc"], settings["cflags"]
    return {
        **settings,
        "version": safe(lambda: first_line(run([cc, "--version"]))),
        "full_version": safe(lambda: run([cc, "-dumpfullversion", "-dumpversion"]).strip()),
        "march_native": safe(_march_native, cc, cflags),
        "openmp_version": safe(_openmp_version, cc),
    }


def _mpicc() -> dict:
    path = venv_tool("mpicc")
    return {
        "path": path,
        "show": safe(lambda: run([path, "-show"]).strip()),
        "version": safe(lambda: first_line(run([path, "-v"], both=True))),
    }


def compilers(config: Mapping | None = None) -> dict:
    settings = build_settings(config)
    return {"gcc": safe(compiler, "gcc"), "cc": safe(compiler, "cc"), "used": safe(_used, settings),
            "mpicc": safe(_mpicc)}
