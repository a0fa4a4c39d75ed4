"""The evidence registry: every results-file attribute that producers and readers write and that
checks, claims or comparisons read, declared once (type, unit, meaning, aliases, readers), as
pyperf declares its metadata.

The canonical names are the attribute names files already carry (so data/reference and every
file written before stays readable); an alias names the same idea under another key
(``time_summary`` and ``prk_time_summary`` are the ``rank_summary``).  :func:`lookup` resolves
either; ``docs/evidence.md`` is generated from this table (:func:`render`) and a test keeps it
current; a test reads every producer's and reader's output and fails on an undeclared attribute.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribute:
    """One declared attribute: its JSON type ("a|b": either), unit ('' if none), meaning, aliases and who reads it."""

    name: str
    type: str
    meaning: str
    read_by: tuple[str, ...] = ()
    unit: str = ""
    aliases: tuple[str, ...] = ()


A = Attribute
#: Provenance and schema (every file).
PROVENANCE = (
    A("schema_version", "string", "results schema version the file follows", ("results.open", "R9")),
    A("environment_hash", "string", "canonical hash of the environment capture the rows were measured in", ("R9", "F8")),
    A("config_hash", "string", "canonical hash of the settings the run used", ("R9",)),
    A("git_commit", "string", "project commit that produced the file ('unknown' for imported files)", ("R9",)),
    A("git_dirty", "integer", "1 when the working tree had uncommitted changes", ("R9",)),
    A("created_utc", "string", "when the file was written (ISO 8601, UTC)"),
    A("family", "string", "benchmark family declared in twelveways.families (prk, train, infer, bounds)", ("R2",)),
    A("source_format", "string", "format an imported file was read from (readers)", ("compare",)),
    A("imported_from", "string", "file name an imported result was read from (readers)"),
    A("environment", "object", "environment facts an imported file states (pyperf metadata, gbench context, ...)",
      ("R9", "F8", "compare")),
    A("machine", "object", "machine identity fields (host name, boot, CPU model and count) of the environment",
      ("F8",)),
    A("settings", "object", "run settings an imported file states"),
    A("column_map", "object", "CSV column -> schema column applied on import (import-csv --map)"),
    A("csv_defaults", "object", "schema columns a CSV lacked and the constants they were given"),
    A("derived", "integer", "1 in a file the analysis stage derived (results/derived/<family>.nc)", ("R3", "R10")),
    A("analysis_version", "string", "version of the analysis that derived the file"),
    A("derived_from", "array", "raw files a derived file was computed from (name, sha256, hashes)"),
    A("analysis_git_commit", "string", "project commit the analysis ran at"),
    A("analysis_git_dirty", "integer", "1 when the analysis ran on uncommitted changes"),
    A("fits", "array", "fitted models (parameter, CI, number of points) of a derived file", ("R11", "R12")),
)
#: Measurement method.
METHOD = (
    A("timer", "string", "clock used for the timed region (e.g. clock_gettime(CLOCK_MONOTONIC))", ("R10",)),
    A("synchronization", "string", "how ranks were synchronized before each timed iteration", ("R10",)),
    A("rank_summary", "string", "how per-rank times become one time per iteration (e.g. max over ranks)", ("R5", "R10"),
      aliases=("time_summary", "prk_time_summary")),
    A("op_count", "string", "how operations behind a rate were counted: executed, nominal or theoretical", ("F5",)),
    A("op_count_note", "string", "how the operation count was obtained"),
    A("dtype_mix", "object", "share of operations per number format of a mixed-precision run", ("F5",)),
    A("timing_scope", "string", "what the timed region covers (end_to_end, kernel, ...)", ("F6", "F10")),
    A("speedup_base_case", "object|string", "the base case every speedup in the file is relative to: {kind, "
      "description, value, unit} (a text names it without its value)", ("R1",)),
    A("normality_checked", "integer", "1 when normality was tested before a parametric CI", ("R6",)),
    A("io_included", "integer", "1 when the timed region includes reading the input data", ("F10",)),
    A("confidence", "number", "confidence level of the CIs (fraction); default: the run's config, else the config "
      "schema's; an unusable value makes R5 need a human, naming it", ("R5", "R6"), unit="1"),
    A("ci_target", "number", "relative CI half-width the adaptive repetition aimed at", ("R5",), unit="1"),
    A("ci_level", "string", "replicate level a CI resamples (invocation, run, seed)", ("R5", "compare")),
    A("ci_notes", "object", "metric -> why its CI is computed as it is (e.g. MLPerf's fixed run count)", ("R5",)),
    A("levels", "object", "replicate level -> what it is (invocation, iteration, repetition, ...)", ("R5", "compare")),
    A("nesting", "array", "replicate levels from outermost to innermost", ("R5", "compare")),
    A("warmup_s", "number|object", "warm-up time before measuring (one, or per launch)", unit="s"),
    A("statistical_minimum", "integer|object", "fewest samples a CI of the stated kind needs (a count, or the "
      "counts and duration per scenario)"),
    A("statistical_minimum_label", "string", "what the statistical minimum refers to"),
    A("stage_seconds", "object", "wall time of each workflow stage", unit="s"),
    A("stage_wall_time_s", "number", "wall time of the stage that wrote the file", unit="s"),
    A("run_order", "string|array", "the seeded random order configurations ran in (the order, or how it was drawn)"),
    A("calibration", "object", "timer and workload calibration measured before the runs"),
)
#: What the rows are.
ROWS = (
    A("factors", "array", "columns that are factors of the experiment (varied on purpose)", ("R2", "R9")),
    A("levels_available", "object", "factor -> every level the experiment could have run", ("R2",)),
    A("subset_reasons", "object", "factor -> why only a subset of its levels was run", ("R2",)),
    A("subset_reason", "string", "why only a subset of levels was run, every factor in one text", ("R2",)),
    A("metric_kinds", "object", "metric -> cost, rate, ratio, quality, count or curve (overrides the unit's kind)",
      ("R3", "R5", "F5")),
    A("derived_metrics", "array", "metrics computed from others rather than measured", ("R3", "R8")),
    A("tail_metrics", "array", "metrics whose tail (percentiles) is the point", ("R8",)),
    A("per_query_latency_source", "string", "where per-query latencies come from (loadgen_summary: stated only)",
      ("R8",)),
    A("percentiles_recomputable", "integer", "0 when the file holds no samples to recompute its percentiles from",
      ("R8",)),
    A("metrics", "object", "metric -> unit and meaning as the producer declares them"),
    A("definitions", "object", "term -> definition the report uses", ("F12",)),
    A("relative_accuracy_definition", "string", "absolute points, relative, or relative to errors", ("F12",)),
    A("datasets", "object|array|string", "data sets the models ran on (name -> facts, names, or one name)", ("F7",),
      aliases=("dataset",)),
    A("models", "object", "models benchmarked (name -> facts)", ("F7",)),
    A("models_saved", "object", "saved model checkpoints and their hashes"),
    A("variants", "object", "model variants (precision, batch size) served"),
    A("quality_targets", "object", "model -> quality target of the time-to-quality metric", ("F1", "F2")),
    A("quality_target", "string", "quality target an MLPerf Training log states", ("F1", "F2")),
    A("reached_target_rule", "string", "how a run counts as having reached the target"),
    A("lr_search", "object", "learning-rate search runs and their cost", ("F4",)),
    A("tuning", "object", "declared hyperparameter tuning (trials, cost)", ("F4",)),
    A("hyperparameters", "object", "run id -> hyperparameters an MLPerf Training log states", ("F4",)),
    A("runs", "object", "run id -> file, status, seed, start and stop of an MLPerf Training run"),
    A("submission", "object", "MLPerf submission metadata (org, platform, division, benchmark)"),
    A("scores", "object", "MLPerf-style scores computed by the analysis"),
)
#: Stated numbers and verdicts of a source.
STATED = (
    A("summaries", "array", "stated summaries: metric, statistic, value, filters, CI, n, stated_by (publisher, "
      "reader, analysis)", ("R3", "R4", "R5", "R6", "R8", "compare")),
    A("comparisons", "array", "stated comparisons of two configurations", ("R7",)),
    A("claims", "array", "claims embedded in the file, checked against its rows", ("claims",)),
    A("figures", "array", "figure declarations (what each plot shows)", ("R12",)),
    A("bounds", "array", "stated upper bounds (memory bandwidth, peak rates)", ("R11",)),
    A("bounds_summary", "object", "measured bounds summarized by the bounds stage", ("R11",)),
    A("hardware", "object", "device -> release year, peak, price", ("F8",)),
    A("mlperf_score", "object", "MLPerf Training score: olympic mean x scaling.json factor, in minutes (reader)"),
    A("compliance", "object", "mlperf_logging compliance checker verdict per run, ruleset of the logs' round"),
    A("compliance_test", "object", "MLPerf Inference compliance test (TEST01...) and its verify_*.txt verdicts"),
    A("loadgen_result", "object", "LoadGen's result line, criteria, errors, and the reason a run is INVALID",
      ("R8", "audit")),
    A("loadgen_version", "string", "LoadGen version that ran the scenario"),
    A("validity_source", "string", "who judged each row's validity"),
    A("requested_settings", "object", "LoadGen settings as requested (before LoadGen's overrides)"),
    A("min_duration_ms", "number", "LoadGen's minimum run duration", unit="ms"),
    A("min_query_count", "integer", "LoadGen's minimum query count"),
    A("mode", "string", "LoadGen test mode (PerformanceOnly, AccuracyOnly)"),
    A("scenario_definitions", "object", "LoadGen scenario -> what its reported number is"),
    A("server_search", "object", "the Server scenario's target-QPS search"),
    A("timing_rules", "string|object", "MLPerf Training timing rules the run followed"),
    A("benchmark_metadata", "object", "pyperf benchmark -> metadata not shared by every benchmark"),
    A("build_type", "string", "Google Benchmark library build type (release, debug)"),
    A("run_date", "string", "when a Google Benchmark run happened"),
)
#: Producer-specific bookkeeping (PRK stage, scheduler, configs).
BOOKKEEPING = (
    A("prk_config", "object", "the PRK stage's settings record"),
    A("infer_config", "object", "the inference stage's settings record"),
    A("reference_config", "string", "configuration id of the reference result set"),
    A("prk_invalid_configurations", "array", "PRK configurations whose self-validation failed"),
    A("prk_mpi_launcher", "string", "MPI launcher the PRK runs used"),
    A("prk_program_runs", "integer", "number of PRK program invocations"),
    A("prk_run_order", "array", "seeded order of the PRK configurations"),
    A("prk_skipped", "array", "PRK configurations skipped as infeasible, with why"),
    A("prk_stop_reasons", "object", "configuration -> why its repetition stopped"),
    A("prk_sweep_seconds", "number", "wall time of the PRK sweep", unit="s"),
    A("prk_timer_overhead_ns", "number", "measured timer overhead", unit="ns"),
    A("prk_timer_resolution_ns", "number", "measured timer resolution", unit="ns"),
    A("mpi", "object", "MPI library and launcher facts"),
    A("scheduler", "string", "batch scheduler that ran the job (slurm, none)"),
    A("scheduler_job_id", "string", "the scheduler's job id"),
    A("scheduler_node_list", "string", "nodes the job ran on"),
    A("scheduler_ntasks", "string", "tasks the scheduler granted (its SLURM_NTASKS text, empty when none)"),
    A("prk_interleaved", "integer", "1 when the PRK invocations ran in randomized interleaved rounds (RMIT)"),
    A("prk_rounds", "integer", "number of interleaved rounds the PRK sweep ran"),
    A("prk_run_seconds", "object", "run id -> wall time of that PRK program run (twelveways plan's costs)", ("plan",),
      unit="s"),
    A("contention", "object", "machine load while the stage ran: load_mean/load_max (1-minute load average), cpus, "
      "steal_share, others_share, seconds, samples, stage (twelveways.contention)", ("R5", "R9", "claims", "compare", "report")),
)
#: What other tools state about their own runs (readers of published formats).
FOREIGN = (
    A("source_warnings", "array", "what a tool says about runs it kept (HPCG not valid for submission, HPL's tally "
      "disagreeing with its runs, STREAM's best rate off its times)", ("R5",)),
    A("per_iteration_values", "string", "why a tool's file holds no per-iteration values (OSU, STREAM print one "
      "statistic per size or kernel)"),
    A("iterations_printed", "integer", "1 when OSU printed its iteration counts (-i/-x)"),
    A("osu_tests", "array", "OSU test names of the file's headers"),
    A("rate_unit", "string", "how a tool counts the bytes of its rate (STREAM: no write-allocate)"),
    A("derived_from_time", "object", "metric -> how the tool derived it from the time (HPL's Gflops formula)"),
    A("hpl_tally", "object", "HPL's closing count of passed, failed and skipped residual checks"),
    A("hpcg_result", "object", "HPCG's rating and whether the run is valid for submission, with its reason"),
    A("hpcg_notes", "object", "HPCG's report notes (reference version, optimizations, QuickPath)"),
    A("references", "array", "ReFrame's performance references per variable (value and bounds)"),
    A("not_measured", "array", "configurations the publisher's own tool marked failed, skipped, null or NaN: "
      "excluded, each with its factors and the reason in key not_measured (asv's null result, gbench's error)",
      ("audit",)),
    A("benchmarked_commit", "string", "the commit asv benchmarked"),
    A("commit_info", "object", "pytest-benchmark's commit of the benchmarked code (id, dirty)"),
    A("tool_version", "string", "version of the tool that wrote the file"),
    A("criterion_slope", "object", "criterion's regression of total time on iterations (not recomputed)"),
)
ATTRIBUTES: tuple[Attribute, ...] = PROVENANCE + METHOD + ROWS + STATED + BOOKKEEPING + FOREIGN
BY_NAME = {a.name: a for a in ATTRIBUTES}
BY_ALIAS = {alias: a for a in ATTRIBUTES for alias in a.aliases}


def lookup(name: str) -> Attribute | None:
    """The declaration of ``name`` (canonical or alias), None when undeclared."""
    return BY_NAME.get(name) or BY_ALIAS.get(name)


def names(attribute: str) -> tuple[str, ...]:
    """Every key a file may carry an attribute under: the canonical name, then its aliases."""
    declared = lookup(attribute)
    if declared is None:
        raise KeyError(f"attribute {attribute!r} is not declared in twelveways.evidence.registry")
    return (declared.name, *declared.aliases)


def render() -> str:
    """docs/evidence.md: the registry as a table (regenerate with ``python -m twelveways.evidence.registry``)."""
    lines = ["# Evidence attributes", "",
             "Generated from `src/twelveways/evidence/registry.py`. Every attribute a results file may carry, "
             "who reads it (check ids, compare, claims) and its aliases (older names files still carry).", "",
             "Each is checked against its type when a file is read (`twelveways.evidence.attributes`): objects and "
             "lists are stored as JSON text, 'a or b' allows either type, an empty text stands for unset, and a value of "
             "another type is one error line naming the file and the attribute (the file is refused when named on "
             "the command line, skipped and listed inside a tree). `confidence` and `ci_target` are kept as stated: "
             "an unusable one makes the check that needs it (R5) need a human, naming the value.", "",
             "| attribute | type | unit | read by | aliases | meaning |", "|---|---|---|---|---|---|"]
    for a in ATTRIBUTES:
        lines.append(f"| `{a.name}` | {a.type.replace('|', ' or ')} | {a.unit or '—'} | {', '.join(a.read_by) or '—'} | "
                     f"{', '.join(f'`{x}`' for x in a.aliases) or '—'} | {a.meaning.replace('<', '&lt;')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
