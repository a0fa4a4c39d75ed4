"""`twelveways` command line: each subcommand delegates to its stage's module.

Expected problems print one line ``error: …`` on stderr and exit non-zero, the code decided from the
error's type by ``errors.exit_code`` (docs/exit-codes.md); only bugs show a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

from .errors import (EXIT_UNUSABLE, AuditInputError, MissingExtraError, TwelveWaysError, exit_code, one_line_errors,
                     outcome_code)

#: subcommand -> (module, function taking argv and returning an exit code, one-line help)
DELEGATED = {
    "env": ("twelveways.env", "main", "capture the software and hardware environment ([--json] [--output PATH])"),
    "audit": ("twelveways.checklist.audit", "audit_main",
              "run the checklist on any results file (exit 0 ok, 1 fail, 2 bad input)"),
    "import-csv": ("twelveways.cli", "import_csv_main",
                   "convert a CSV of samples plus metadata YAML to the results schema"),
    "config-docs": ("twelveways.configdocs", "main", "print every config key with its type, default and meaning"),
    "run": ("twelveways.workflow_run", "main", "run the workflow: Snakemake with checked --configfile/--config "
            "(nested keys as measurement.max_samples=10)"),
    "compare": ("twelveways.compare.cli", "compare_main", "compare two result sets: environment diff, ratio NEW/BASE "
                "[CI over invocations], verdicts against a practical-equivalence margin (exit 2 bad input)"),
    "noise-floor": ("twelveways.compare.cli", "noise_floor_main", "measure the noise floor from two runs of identical code"),
    "reproduce": ("twelveways.compare.cli", "reproduce_main", "compare this run with data/reference: Reproduced / "
                  "Not reproduced / Inconclusive per claim and headline number"),
    "ab": ("twelveways.compare.ab_cli", "main", "is NEW faster than BASE? two git refs or configs run interleaved in "
           "randomized rounds, paired verdicts (make ab BASE=<ref>)"),
    "plan": ("twelveways.plan_cli", "main", "from a finished run: invocations per configuration to detect an effect, "
             "each profile's predicted runtime stage by stage, the rounds ab needs (--ab-effect)"),
    "report": ("twelveways.report.commands", "main",
               "re-render notebooks and the report from stored results (rebuild --from DIR)"),
}

#: Commands that run the artifact -> the modules of pyproject.toml's ``artifact`` extra they import.  The package
#: alone (readers, audit, compare, plan, reproduce) installs without them; these commands check first, so a light
#: install names what to install in one line instead of a traceback.  Their --help needs nothing.
ARTIFACT_MODULES = {
    "run": ("snakemake",),
    "report": ("papermill", "nbconvert", "jupytext", "jupyter_client", "matplotlib", "seaborn"),
}


def require_artifact(command: str) -> None:
    """Raise :class:`MissingExtraError` naming the extra to install when a module ``command`` needs is absent
    (looked up, not imported: the check costs no start time)."""
    missing = [name for name in ARTIFACT_MODULES[command] if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(f"twelveways {command} needs the artifact extra ({', '.join(missing)} not installed): "
                                "pip install 'twelveways[artifact]'")


def check_config_parser():
    from . import config
    from .cliargs import OneLineParser

    parser = OneLineParser(prog="twelveways check-config", description="Validate a workflow config file.")
    parser.add_argument("file", nargs="?", default=str(config.DEFAULT_CONFIG), help="YAML config (default: config/config.yaml)")
    return parser


def _check_config(argv: list[str]) -> int:
    from . import config

    args = check_config_parser().parse_args(argv)
    config.load(args.file)
    print(f"{args.file}: valid")
    return 0


def results_parser():
    from .cliargs import OneLineParser

    parser = OneLineParser(prog="twelveways results", description="Validate results files and describe their contents.",
                           error_class=AuditInputError)
    parser.add_argument("files", nargs="+", help="results/*.nc files")
    return parser


def _results_info(argv: list[str]) -> int:
    args = results_parser().parse_args(argv)
    from . import results  # after parsing: --help answers before the analysis stack loads

    for path in args.files:
        ds = results.require_samples(results.open(path), str(path))
        frame = results.to_frame(ds)
        invalid = int((~frame["valid"].astype(bool)).sum())
        print(f"{path}: schema {ds.attrs['schema_version']}, family {ds.attrs['family']}, "
              f"{len(frame)} samples ({invalid} invalid), environment {str(ds.attrs['environment_hash'])[:12]}, "
              f"commit {str(ds.attrs['git_commit'])[:12]}{' (dirty)' if int(ds.attrs['git_dirty']) else ''}")
        for (bench, workload, impl), group in frame.groupby(["benchmark", "workload", "implementation"], sort=True):
            metrics = ", ".join(sorted(group["metric"].unique()))
            print(f"  {bench:8s} {workload:16s} {impl:12s} {len(group):7d} samples, metrics: {metrics}")
    return 0


def import_parser():
    from .cliargs import OneLineParser

    parser = OneLineParser(prog="twelveways import", error_class=AuditInputError, description="Read results in any "
                           "format twelveways reads (docs/formats.md) and write them in the results schema (NetCDF4).")
    parser.add_argument("paths", nargs="+", help="files or directory trees (an MLPerf submission's results/)")
    parser.add_argument("--output", required=True, help="OUT.nc for one result; a folder when there are several")
    parser.add_argument("--metadata", help="metadata YAML for CSV inputs (see import-csv)")
    parser.add_argument("--map", action="append", default=[], help="CSV column map CSV_COLUMN=SCHEMA_COLUMN,...")
    parser.add_argument("--set", action="append", default=[], help="CSV constant columns NAME=VALUE,...")
    return parser


def _import(argv: list[str]) -> int:
    """``twelveways import PATH... --output OUT``: published results into the documented schema."""
    from pathlib import Path

    from .cliargs import refuse_output_over_input

    parser = import_parser()
    args = parser.parse_args(argv)
    from . import readers, results  # after parsing: --help answers before the analysis stack loads
    from .readers.csv_table import parse_pairs

    refuse_output_over_input([args.output], [*args.paths, args.metadata], AuditInputError, parser.prog)
    skipped: list = []
    loaded = readers.read_paths(args.paths, csv_metadata=args.metadata, mapping=parse_pairs(args.map, "--map"),
                                constants=parse_pairs(args.set, "--set"), skipped=skipped)
    out = Path(args.output)
    if len(loaded) > 1 and out.suffix == ".nc":
        raise AuditInputError(f"{len(loaded)} results found ({', '.join(i.path for i in loaded[:3])}, ...): "
                              "give --output a folder to write one .nc each")
    targets = [out] if len(loaded) == 1 else [out / _import_name(i.path, n) for n, i in enumerate(loaded)]
    refuse_output_over_input(targets, [i.path for i in loaded], AuditInputError, parser.prog)
    for item in skipped:
        print(f"skipped {item.path}: {item.why}", file=sys.stderr)
    for item, target in zip(loaded, targets):
        try:
            results.write(item.ds, target)
        except OSError as exc:
            raise AuditInputError(f"cannot write {target}: {exc.strerror or exc}") from exc
        print(f"wrote {target} ({item.format}: {item.ds.sizes[results.SAMPLE_DIM]} rows, family "
              f"{item.ds.attrs['family']})", file=sys.stderr)
    return outcome_code(failed=False, skipped=any(item.unreadable for item in skipped))  # as audit


def _import_name(path: str, number: int) -> str:
    """A file name for one of several imported results: its folder/file names, made safe."""
    from pathlib import Path

    stem = "_".join(Path(path).parts[-3:]).replace(".", "_")
    return f"{number:03d}_{''.join(c if c.isalnum() or c in '-_' else '_' for c in stem)}.nc"


def import_csv_parser():
    from .cliargs import OneLineParser

    parser = OneLineParser(prog="twelveways import-csv", error_class=AuditInputError, description="Convert a CSV "
                           "of samples plus a metadata YAML into a twelveways results file (NetCDF4) that "
                           "`twelveways audit` reads.")
    parser.add_argument("csv", help="CSV of samples, one per row")
    parser.add_argument("--metadata", help="metadata YAML (family, columns, attrs, environment, config)")
    parser.add_argument("--output", required=True, help="results file to write (.nc)")
    return parser


def import_csv_main(argv: list[str] | None = None) -> int:
    """Parsed here, read by the readers after: --help answers before the readers (pydantic, pandas) load."""
    from .cliargs import run_command

    def convert(args) -> None:
        from .readers.csv_table import import_csv

        import_csv(args)

    return run_command(import_csv_parser(), argv, convert, reads_input=True)


#: subcommand -> (function taking argv, one-line help, whether its job is to read the input it is given: then
#: any expected problem is unusable input, exit 2)
LOCAL = {
    "check-config": (_check_config, "validate a config file against the schema", False),
    "results": (_results_info, "validate results files and list what they hold", True),
    "import": (_import, "read MLPerf, LoadGen, pyperf, Google Benchmark, hyperfine or CSV results into the schema", True),
}

#: subcommand -> "module:function" building its argparse parser, for the command reference (docs/commands.md,
#: twelveways.docsite), which is generated from these so that help and reference cannot drift (``run``'s lists
#: what it reads itself; the rest of its arguments are Snakemake's).
PARSERS = {
    "env": "twelveways.env.cli:_parser",
    "audit": "twelveways.checklist.audit:build_parser",
    "import-csv": "twelveways.cli:import_csv_parser",
    "run": "twelveways.workflow_run:run_parser",
    "config-docs": "twelveways.configdocs:build_parser",
    "compare": "twelveways.compare.cli:compare_parser",
    "noise-floor": "twelveways.compare.cli:noise_floor_parser",
    "reproduce": "twelveways.compare.cli:reproduce_parser",
    "ab": "twelveways.compare.ab_cli:parser",
    "plan": "twelveways.plan_cli:build_parser",
    "report": "twelveways.report.commands:parser",
    "check-config": "twelveways.cli:check_config_parser",
    "results": "twelveways.cli:results_parser",
    "import": "twelveways.cli:import_parser",
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {**{k: v[2] for k, v in DELEGATED.items()}, **{k: v[1] for k, v in LOCAL.items()}}
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: twelveways COMMAND [ARGS]\n\ncommands:")
        for name, text in commands.items():
            print(f"  {name:13s} {text}")
        return 0 if argv else EXIT_UNUSABLE
    command, rest = argv[0], argv[1:]
    try:
        if command in LOCAL:
            function, _, reads_input = LOCAL[command]
            return one_line_errors(lambda: function(rest), reads_input=reads_input)
        if command in DELEGATED:  # each handles its own errors; what escapes is judged by its type alone
            module_name, function, _ = DELEGATED[command]
            if command in ARTIFACT_MODULES and not {"-h", "--help"} & set(rest):
                require_artifact(command)
            module = importlib.import_module(module_name)
            return int(getattr(module, function)(rest) or 0)
    except TwelveWaysError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return exit_code(exc)
    except KeyboardInterrupt as exc:
        print("error: interrupted", file=sys.stderr)
        return exit_code(exc)
    print(f"error: unknown command {command!r} (commands: {', '.join(commands)})", file=sys.stderr)
    return EXIT_UNUSABLE


if __name__ == "__main__":
    sys.exit(main())
