"""``twelveways run``: Snakemake with the project's own, checked configuration handling.

Snakemake's ``--config`` parser rejects dotted keys (``measurement.max_samples=10``), keeps
nested values as strings (``measurement={"max_samples": 10}`` gives ``'10'``) and answers a
missing ``=`` or a directory given as ``--configfile`` with a traceback.  This entry point reads
``--configfile`` and ``--config`` itself: dotted keys become nested keys, values are typed as
YAML, every file goes through :mod:`twelveways.inputs`, and the merged configuration is
validated against the schema before Snakemake starts.  A problem is one line ``error: ...``
and exit 1.  The merged configuration is handed to Snakemake as one config file (kept under
``.snakemake/twelveways/``, named by its hash, so cluster jobs can read it too); every other
argument goes to Snakemake unchanged.

Before it becomes Snakemake it takes the directory through :mod:`twelveways.run_owner`: the lock of a
run that was killed hard is released (its owner process is gone), a live run is named in one line.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import yaml

from . import config as config_mod
from . import inputs, run_owner
from .errors import ConfigError

CONFIG_DIR = Path(".snakemake") / "twelveways"
#: Snakemake's options that take one or more values (their values are not our arguments).
_CONFIG_FLAGS = ("--config", "-C")
_CONFIGFILE_FLAGS = ("--configfile", "--configfiles")


def _split(argv: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(config files, --config entries, the other arguments) from a Snakemake command line."""
    files, entries, rest = [], [], []
    target = None
    for arg in argv:
        if arg in _CONFIGFILE_FLAGS:
            target = files
        elif arg in _CONFIG_FLAGS:
            target = entries
        elif arg.startswith("-"):
            target = None
            rest.append(arg)
        elif target is not None:
            target.append(arg)
        else:
            rest.append(arg)
    return files, entries, rest


def parse_overrides(entries: list[str]) -> dict:
    """``a.b=1`` / ``a={"b": 1}`` entries as a nested mapping with YAML-typed values."""
    merged: dict = {}
    for entry in entries:
        key, sep, text = entry.partition("=")
        parts = key.split(".")
        if not sep or not all(p.strip() and p.replace("_", "a").replace("-", "a").isalnum() for p in parts):
            raise ConfigError(f"--config {entry[:60]!r}: expected KEY=VALUE with KEY like seed or "
                              "measurement.max_samples")
        value = inputs.parse_yaml(text, f"--config {key}", ConfigError) if text != "" else None
        node = {parts[-1]: value}
        for part in reversed(parts[:-1]):
            node = {part: node}
        config_mod.deep_update(merged, node)
    return merged


def merged_config(files: list[str], entries: list[str]) -> dict:
    """The configuration Snakemake would see: the files (or the quick profile), then the overrides."""
    merged: dict = {}
    for path in files or [str(config_mod.DEFAULT_CONFIG)]:
        data = inputs.read_yaml(path, "configuration file", ConfigError)
        if data is not None and not isinstance(data, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of keys to values")
        config_mod.deep_update(merged, data or {})
    config_mod.deep_update(merged, parse_overrides(entries))
    config_mod.validate(merged)
    return merged


def _write(merged: dict) -> Path:
    """The merged configuration as one YAML file named by its hash (written atomically)."""
    from .results import canonical_hash

    CONFIG_DIR.mkdir(parents=True, exist_ok=True)
    path = CONFIG_DIR / f"config-{canonical_hash(merged)[:16]}.yaml"
    if not path.is_file():
        tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
        tmp.write_text(yaml.safe_dump(merged, sort_keys=True))
        os.replace(tmp, path)
    return path


def snakemake_argv(argv: list[str]) -> list[str]:
    """Snakemake's arguments with the checked, merged configuration in place of ours."""
    files, entries, rest = _split(argv)
    if not files and not entries:
        return rest
    return rest + ["--configfile", str(_write(merged_config(files, entries)))]


def _workdir(args: list[str]) -> Path:
    """Snakemake's working directory (``-d``/``--directory``, else here): where its lock lives."""
    for flag in ("-d", "--directory"):
        if flag in args[:-1]:
            return Path(args[args.index(flag) + 1])
    return Path(".")


def run_parser():
    """The options ``twelveways run`` reads itself; every other argument is Snakemake's (``snakemake --help``).
    Used for ``--help`` alone, which then answers at once instead of starting Snakemake."""
    import argparse

    from .cliargs import OneLineParser

    parser = OneLineParser(prog="twelveways run", description="Run the workflow: Snakemake with the configuration "
                           "checked first (nested keys, typed values, the schema), then the run directory taken "
                           "(a killed run's lock released). Every argument not listed here goes to Snakemake "
                           "unchanged: its own options are listed by `.venv/bin/snakemake --help`.")
    parser.add_argument("--configfile", "--configfiles", nargs="+", metavar="FILE",
                        help="YAML config file(s), merged in order over config/config.yaml's defaults")
    parser.add_argument("--config", "-C", nargs="+", metavar="KEY=VALUE",
                        help="overrides; dotted keys are nested (measurement.max_samples=10), values typed as YAML")
    parser.add_argument("snakemake", nargs=argparse.REMAINDER, help="Snakemake's own arguments (--cores all, "
                        "--profile profiles/default, -n, targets)")
    return parser


def main(argv: list[str]) -> int:
    """Check the configuration arguments, take the directory (run_owner), then become Snakemake (same process,
    same signals, so the owner record names the Snakemake process itself)."""
    if {"-h", "--help"} & set(argv):
        run_parser().parse_args(["--help"])
    args = snakemake_argv(argv)
    snakemake = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or shutil.which("snakemake")
    if snakemake is None:
        raise ConfigError("snakemake is not installed in this environment (run make report once to set it up)")
    note = run_owner.claim(argv, _workdir(args))
    if note:
        print(f"note: {note}", file=sys.stderr)
    sys.stdout.flush()
    os.execv(snakemake, [snakemake, *args])
    return 0  # not reached
