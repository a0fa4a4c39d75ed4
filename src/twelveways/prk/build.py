"""Build the C Parallel Research Kernels: ``build/kernels/<kernel>-<serial|openmp|mpi>``.

Why a manifest: every number the workflow reports must name the compiler, its version and the
exact command line that produced the binary (R9), and a binary must be rebuilt when its sources
or flags change, never silently reused. ``build.json`` beside the binaries records all of that
plus a content hash per target (sources of ``kernels/c`` + command line + compiler version);
a target whose hash and binary are unchanged is not recompiled.

Sources: ``kernels/c/<kernel>.c`` builds the serial program (no OpenMP flag, pragmas ignored)
and the OpenMP program (``openmp_flag``); ``kernels/c/<kernel>_mpi.c`` builds the MPI program
with ``mpicc -DPRK_MPI``. MPICH's ``mpicc`` is told to wrap the same ``cc`` (``MPICH_CC``).

CLI: ``python -m twelveways.prk.build --out build/kernels --cc gcc --cflags "-O3 -march=native"``
(errors: one line ``error: ...``, exit 1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cliargs import OneLineParser, run_command
from ..errors import KernelError
from ..families.prk import KERNELS, MPI_KERNELS

VARIANTS = ("serial", "openmp", "mpi")
MANIFEST = "build.json"
MANIFEST_VERSION = 1
DEFAULT_CFLAGS = "-O3 -march=native"

#: kernels/c in the source tree (src/twelveways/prk/build.py -> repository root).
SOURCE_DIR = Path(__file__).resolve().parents[3] / "kernels" / "c"


def default_mpicc() -> Path:
    """MPICH's compiler wrapper installed next to the running Python (the project's .venv)."""
    return Path(sys.executable).parent / "mpicc"


#: gcc/clang diagnostics ("f.c:1:2: error: ...", "cc1: fatal error: ..."), linker errors ("ld: ... error").
_ERROR_LINE = re.compile(r"(^|:\s*)(fatal\s+)?error\b", re.IGNORECASE)


def _first_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if _ERROR_LINE.search(line):
            return line
    return lines[0] if lines else "(no compiler output)"


def _run(argv: Sequence[str], env: dict | None = None, what: str = "") -> subprocess.CompletedProcess:
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, env=env, check=False)
    except FileNotFoundError as exc:
        raise KernelError(f"{what or argv[0]}: compiler {argv[0]!r} not found") from exc
    except OSError as exc:
        raise KernelError(f"{what or argv[0]}: cannot run {argv[0]!r}: {exc}") from exc


def compiler_version(cc: str) -> str:
    """First line of ``cc --version`` (what build.json and the environment capture record)."""
    done = _run([cc, "--version"], what="compiler version")
    if done.returncode != 0:
        raise KernelError(f"compiler {cc!r} does not answer --version: {_first_error_line(done.stderr)}")
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return lines[0] if lines else "(unknown)"


def _mpi_info(mpicc: str, env: dict) -> dict:
    show = _run([mpicc, "-show"], env=env, what="mpicc")
    if show.returncode != 0:
        raise KernelError(f"mpicc {mpicc!r} failed: {_first_error_line(show.stderr)}")
    info = {"mpicc": mpicc, "mpicc_show": show.stdout.strip()}
    version = shutil.which("mpichversion", path=str(Path(mpicc).parent))
    if version:
        done = _run([version], what="mpichversion")
        first = [line.strip() for line in done.stdout.splitlines() if "version" in line.lower()]
        info["mpi_version"] = " ".join(first[0].split()) if first else done.stdout.strip()[:200]
    return info


def _sources_digest(source_dir: Path) -> tuple[str, dict]:
    """Hash of every .c and .h file (any header may be included by any kernel)."""
    files = sorted(p for p in source_dir.iterdir() if p.suffix in (".c", ".h") and p.is_file())
    if not files:
        raise KernelError(f"no C sources in {source_dir}")
    digest = hashlib.sha256()
    per_file = {}
    for path in files:
        data = path.read_bytes()
        per_file[path.name] = hashlib.sha256(data).hexdigest()
        digest.update(path.name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest(), per_file


#: Kernels whose blocking is sized from the build machine's caches (-D defines, see cache_defines).
CACHE_AWARE = ("dgemm",)
_SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


def _sysfs_caches(root: Path) -> dict:
    """{(level, type): (bytes, ways, CPUs sharing it)} of CPU 0 from sysfs; {} where unreadable."""
    found = {}
    for index in sorted(root.glob("index*")):
        try:
            level, kind = int((index / "level").read_text()), (index / "type").read_text().strip()
            size = (index / "size").read_text().strip().upper()
            ways = int((index / "ways_of_associativity").read_text() or 0)
            shared = (index / "shared_cpu_list").read_text().strip()
            scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(size[-1:], 1)
            found[(level, kind)] = (int(size.rstrip("KMG") or 0) * scale, ways, _cpu_count(shared))
        except (OSError, ValueError):
            continue
    return found


def _cpu_count(cpu_list: str) -> int:
    """Number of CPUs in a sysfs list such as ``0-3,8``."""
    count = 0
    for part in filter(None, cpu_list.split(",")):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return count


def cache_defines(root: Path = _SYSFS_CACHE) -> list[str]:
    """The build machine's cache sizes as -D defines (dgemm's blocking reads them; R9: they are in
    the recorded command line).  Nothing where sysfs does not say: the kernel's defaults apply."""
    caches = _sysfs_caches(root)
    defines = []
    l1 = caches.get((1, "Data"))
    if l1 and l1[0]:
        defines += [f"-DPRK_L1D_BYTES={l1[0]}"] + ([f"-DPRK_L1D_WAYS={l1[1]}"] if l1[1] > 2 else [])
        defines.append(f"-DPRK_CORE_CPUS={max(1, l1[2])}")
    for level in (2, 3):
        cache = caches.get((level, "Unified"))
        if cache and cache[0]:
            defines.append(f"-DPRK_L{level}_BYTES={cache[0]}")
    return defines


def _targets(kernels: Iterable[str], variants: Iterable[str]) -> list[tuple[str, str]]:
    kernels, variants = list(kernels), list(variants)
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        raise KernelError(f"unknown kernel(s) {', '.join(unknown)} (known: {', '.join(KERNELS)})")
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise KernelError(f"unknown variant(s) {', '.join(bad)} (known: {', '.join(VARIANTS)})")
    return [(k, v) for k in kernels for v in variants if v != "mpi" or k in MPI_KERNELS]


def _command(kernel: str, variant: str, output: Path, source_dir: Path, cc: str, mpicc: str,
             cflags: Sequence[str], openmp_flag: Sequence[str]) -> list[str]:
    if variant == "mpi":
        source = source_dir / f"{kernel}_mpi.c"
        return [mpicc, *cflags, "-DPRK_MPI", "-I", str(source_dir), "-o", str(output), str(source), "-lm"]
    source = source_dir / f"{kernel}.c"
    extra = list(openmp_flag) if variant == "openmp" else []
    caches = cache_defines() if kernel in CACHE_AWARE else []  # before cflags: a -D there overrides
    return [cc, *caches, *cflags, *extra, "-I", str(source_dir), "-o", str(output), str(source), "-lm"]


def _read_manifest(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("manifest_version") == MANIFEST_VERSION else {}


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _toolchain(cc: str, mpicc: str, targets: list[tuple[str, str]], env: dict) -> dict:
    """The compiler record that build.json names and every target's hash covers; MPI details only when MPI is built."""
    compiler = {"cc": cc, "version": compiler_version(cc)}
    if any(v == "mpi" for _, v in targets):
        if not Path(mpicc).exists() and shutil.which(mpicc) is None:
            raise KernelError(f"mpicc not found at {mpicc} (install mpich into the environment or pass --mpicc)")
        compiler.update(_mpi_info(mpicc, env))
        compiler["mpich_cc"] = cc
    return compiler


def _plan(targets: list[tuple[str, str]], out: Path, source_dir: Path, cc: str, mpicc: str, flags: list[str],
          omp: list[str], sources_hash: str, compiler: dict, previous: dict, force: bool) -> tuple[dict, list]:
    """Manifest records of the requested targets, and which of them need compiling (hash changed or binary missing)."""
    plan = []
    records = {}
    for kernel, variant in targets:
        name = f"{kernel}-{variant}"
        binary = out / name
        argv = _command(kernel, variant, binary, source_dir, cc, mpicc, flags, omp)
        toolchain = compiler if variant == "mpi" else {"cc": cc, "version": compiler["version"]}
        key = hashlib.sha256(json.dumps([sources_hash, argv, toolchain], sort_keys=True).encode()).hexdigest()
        record = {"kernel": kernel, "variant": variant, "implementation": f"c-{variant}",
                  "source": str(Path(argv[-2])), "binary": str(binary), "command": shlex.join(argv),
                  "env": {"MPICH_CC": cc} if variant == "mpi" else {}, "hash": key}
        records[name] = record
        old = previous.get(name, {})
        if force or old.get("hash") != key or not binary.is_file():
            plan.append((name, argv, binary))
    return records, plan


def _compile(plan: list, env: dict, jobs: int | None) -> tuple[list, list]:
    """Compile the plan in parallel; each binary is replaced only on success, so a failed build leaves the old one."""

    def compile_one(item):
        name, argv, binary = item
        tmp = binary.with_name(f".{binary.name}.tmp")
        argv = [str(tmp) if a == str(binary) else a for a in argv]
        done = _run(argv, env=env, what=name)
        if done.returncode != 0:
            tmp.unlink(missing_ok=True)
            return name, _first_error_line(done.stderr or done.stdout)
        os.replace(tmp, binary)
        return name, None

    failures = []
    built = []
    if plan:
        with ThreadPoolExecutor(max_workers=jobs or min(len(plan), os.cpu_count() or 1)) as pool:
            for name, problem in pool.map(compile_one, plan):
                if problem:
                    failures.append((name, problem))
                else:
                    built.append(name)
    return failures, built


def build_kernels(out_dir: str | os.PathLike = "build/kernels", cc: str = "gcc", mpicc: str | os.PathLike | None = None,
                  cflags: str = DEFAULT_CFLAGS, openmp_flag: str = "-fopenmp", kernels: Iterable[str] = KERNELS,
                  variants: Iterable[str] = VARIANTS, source_dir: str | os.PathLike | None = None,
                  force: bool = False, jobs: int | None = None) -> dict:
    """Compile the requested kernels and return the manifest written to ``<out_dir>/build.json``.

    Only targets whose hash changed (sources, flags, compiler version) or whose binary is missing
    are compiled; ``manifest["rebuilt"]`` lists them. A failed compile raises
    :class:`KernelError` with the compiler's first error line; the old binary and its manifest
    entry are then left as they were.
    """
    source_dir = Path(source_dir) if source_dir is not None else SOURCE_DIR
    if not source_dir.is_dir():
        raise KernelError(f"kernel source folder not found: {source_dir}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    targets = _targets(kernels, variants)
    flags = shlex.split(cflags)
    omp = shlex.split(openmp_flag)
    mpicc = str(mpicc if mpicc is not None else default_mpicc())
    sources_hash, per_file = _sources_digest(source_dir)

    env = dict(os.environ)
    env["MPICH_CC"] = cc  # the MPI programs use the same C compiler as the others
    compiler = _toolchain(cc, mpicc, targets, env)

    manifest_path = out / MANIFEST
    previous = _read_manifest(manifest_path).get("targets", {})
    records, plan = _plan(targets, out, source_dir, cc, mpicc, flags, omp, sources_hash, compiler, previous, force)
    failures, built = _compile(plan, env, jobs)

    # entries of targets not requested now stay; a failed target keeps its previous entry (if any)
    failed = {name for name, _ in failures}
    kept = {k: v for k, v in previous.items() if k not in records or k in failed}
    kept.update({name: record for name, record in records.items() if name not in failed})
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "compiler": compiler,
        "cflags": cflags,
        "openmp_flag": openmp_flag,
        "source_dir": str(source_dir),
        "sources": per_file,
        "sources_hash": sources_hash,
        "targets": dict(sorted(kept.items())),
    }
    _write_atomic(manifest_path, json.dumps(manifest, indent=2) + "\n")
    if failures:
        name, problem = failures[0]
        more = f" (and {len(failures) - 1} more failing target(s))" if len(failures) > 1 else ""
        raise KernelError(f"building {name} failed: {problem}{more}")
    manifest["rebuilt"] = sorted(built)
    return manifest


def _csv(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


#: Options whose values start with '-' ("--cflags -O2"): glued to the option before argparse sees them.
_DASH_VALUED = ("--cflags", "--openmp-flag")


def _glue_dash_values(argv: Sequence[str]) -> list[str]:
    out, items = [], list(argv)
    i = 0
    while i < len(items):
        if items[i] in _DASH_VALUED and i + 1 < len(items):
            out.append(f"{items[i]}={items[i + 1]}")
            i += 2
        else:
            out.append(items[i])
            i += 1
    return out


def _build(args: argparse.Namespace) -> None:
    manifest = build_kernels(args.out, cc=args.cc, mpicc=args.mpicc, cflags=args.cflags,
                             openmp_flag=args.openmp_flag, kernels=_csv(args.kernels),
                             variants=_csv(args.variants), source_dir=args.source_dir, force=args.force)
    print(f"{len(manifest['rebuilt'])} of {len(manifest['targets'])} kernel binaries rebuilt in {args.out} "
          f"({manifest['compiler']['version']}; {args.cflags}); manifest {Path(args.out) / MANIFEST}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m twelveways.prk.build",
                           description="Compile the C PRK kernels and record how (build.json).")
    parser.add_argument("--out", default="build/kernels", help="output folder (default: build/kernels)")
    parser.add_argument("--cc", default="gcc", help="C compiler (default: gcc)")
    parser.add_argument("--mpicc", default=None, help="MPI compiler wrapper (default: mpicc next to this Python)")
    parser.add_argument("--cflags", default=DEFAULT_CFLAGS, help=f'compiler flags (default: "{DEFAULT_CFLAGS}")')
    parser.add_argument("--openmp-flag", default="-fopenmp", help="flag that enables OpenMP (default: -fopenmp)")
    parser.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated kernels (default: all)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: serial,openmp,mpi")
    parser.add_argument("--source-dir", default=None, help="kernel sources (default: kernels/c of this checkout)")
    parser.add_argument("--force", action="store_true", help="rebuild even when nothing changed")
    return run_command(parser, _glue_dash_values(sys.argv[1:] if argv is None else argv), _build, reads_input=False)


if __name__ == "__main__":
    sys.exit(main())
