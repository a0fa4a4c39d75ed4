"""One settings resolver (twelveways.evidence.settings): one precedence, the origin of every value, a bad value an
error naming it; the six chains that need a confidence level agree; ``stats`` never looks one up; one table of
exit codes (twelveways.errors)."""

from __future__ import annotations

import itertools
import json

import pandas as pd
import pytest

from twelveways import claims, codegraph, errors, results, stats
from twelveways.checklist import restate
from twelveways.compare import cli as compare_cli
from twelveways.errors import AuditInputError, ClaimError, SettingError
from twelveways.evidence import settings
from twelveways.evidence.summary import StatedSummary, parse
from twelveways.report import headline, notebooks
from twelveways.resultset import ResultSet, ResultSource

#: One level per source, all different, so a chain that took the wrong one is seen.
LEVELS = {settings.COMMAND_LINE: 0.7, settings.NOTEBOOK_PARAMETER: 0.85, settings.CLAIM: 0.75,
          settings.RESULTS_FILE: 0.9, settings.RUN_CONFIG: 0.8}
#: What each chain can read (the schema's default aside): ``compare`` reads no run config (its sides are result
#: sets; the workflow passes measurement.confidence as --confidence), the report no file or claim.
READS = {
    "resultset": (settings.RESULTS_FILE, settings.RUN_CONFIG),
    "notebooks": (settings.NOTEBOOK_PARAMETER, settings.RUN_CONFIG),
    "headline": (settings.RUN_CONFIG,),
    "claims": (settings.CLAIM, settings.RUN_CONFIG),
    "restate": (settings.RESULTS_FILE, settings.RUN_CONFIG),
    "compare": (settings.COMMAND_LINE,),
}
CLAIM = {"id": "c1", "kind": "value", "metric": "time", "a": {"workload": "nstream"}, "at_most": 1.0}


def _inputs(tmp_path, given: dict):
    """The same file, config, parameter, claim and option for every chain (each absent unless ``given``)."""
    config = {"measurement": {"confidence": given[settings.RUN_CONFIG]}} if settings.RUN_CONFIG in given else {}
    config_json = tmp_path / "config.json"
    config_json.write_text(json.dumps(config))
    attrs = {"confidence": given[settings.RESULTS_FILE]} if settings.RESULTS_FILE in given else {}
    source = ResultSource("run/prk.nc", attrs, pd.DataFrame())
    data = ResultSet([source], config=config, config_path=str(config_json))
    item = {**CLAIM, **({"confidence": given[settings.CLAIM]} if settings.CLAIM in given else {})}
    claim = claims.parse_claim(item, "claims.yaml", 0)
    return config, config_json, source, data, claim


def _chain(tmp_path, chain: str, given: dict) -> tuple[float, str]:
    """(value, origin) of the confidence level as one of the six chains resolves it from ``given``."""
    config, config_json, source, data, claim = _inputs(tmp_path, given)
    if chain == "notebooks":
        notebook = notebooks.settings(config_json, given.get(settings.NOTEBOOK_PARAMETER))
        return notebook.confidence, notebook.origin["confidence"]
    setting = {
        "resultset": lambda: data.measurement_setting(source, "confidence"),
        "headline": lambda: headline.confidence_setting(config),
        "claims": lambda: claims.confidence_setting(claim, config),
        "restate": lambda: restate.stated_confidence(data, source, StatedSummary(statistic="median", metric="time")),
        "compare": lambda: compare_cli.confidence_setting(given.get(settings.COMMAND_LINE)),
    }[chain]()
    return setting.value, setting.source


def _expected(chain: str, given: dict) -> tuple[float, str]:
    """The one precedence applied to what the chain reads: the first source of PRECEDENCE that sets it."""
    source = next((s for s in settings.PRECEDENCE if s in given and s in READS[chain]), settings.SCHEMA_DEFAULT)
    value = given.get(source, settings.default_confidence())
    if chain == "notebooks":  # the notebook states its origin in words: the resolver's phrase for that source
        where = {settings.NOTEBOOK_PARAMETER: "confidence"}.get(source, "measurement.confidence")
        return value, settings.Setting("confidence", value, source, where).origin
    return value, source


def test_the_six_chains_resolve_the_same_inputs_with_one_precedence(tmp_path):
    """Every combination of the five sources, fed to all six chains at once: each takes the strongest source it
    reads, so two chains that read the same sources give the same value and origin."""
    sources = list(LEVELS)
    for size in range(len(sources) + 1):
        for chosen in itertools.combinations(sources, size):
            given = {source: LEVELS[source] for source in chosen}
            got = {chain: _chain(tmp_path, chain, given) for chain in READS}
            assert got == {chain: _expected(chain, given) for chain in READS}, given


def test_a_claim_without_a_level_takes_the_runs_config_and_says_so(tmp_path):
    """It used to take the schema's default and ignore the run's config; the report's headline took 0 for unset."""
    config, _, _, _, claim = _inputs(tmp_path, {settings.RUN_CONFIG: 0.9})
    assert claim.confidence is None
    setting = claims.confidence_setting(claim, config)
    assert (setting.value, setting.origin) == (0.9, "the run's config measurement.confidence")
    rows = [{"benchmark": "prk", "workload": "nstream", "implementation": "numpy", "ranks": 1, "threads": 1,
             "size": 1000, "precision": "fp64", "seed": 1, "run_id": f"r{i}", "iteration": 1, "rank": 0,
             "metric": "time", "value": 0.01 + i * 1e-3, "unit": "s", "valid": True} for i in range(8)]
    frame = results.to_frame(results.from_records(rows, "prk"))
    assert claims.check_claim(claim, frame, config).numbers.confidence == 0.9
    assert claims.check_claim(claim, frame).numbers.confidence == settings.default_confidence()


@pytest.mark.parametrize("chain, source, value, error, words", [
    ("resultset", settings.RESULTS_FILE, "high", SettingError, "results file run/prk.nc attribute confidence"),
    ("resultset", settings.RUN_CONFIG, 1.5, SettingError, "the run's config measurement.confidence ("),
    ("headline", settings.RUN_CONFIG, 0, SettingError, "the run's config measurement.confidence"),
    ("notebooks", settings.NOTEBOOK_PARAMETER, 1.5, notebooks.NotebookError, "notebook parameter confidence"),
    ("claims", settings.CLAIM, 1.5, ClaimError, "claims.yaml: claim 'c1'"),
    ("restate", settings.RESULTS_FILE, float("nan"), SettingError, "results file run/prk.nc attribute confidence"),
    ("compare", settings.COMMAND_LINE, 1.0, AuditInputError, "option --confidence on the command line"),
])
def test_a_bad_value_is_one_line_naming_where_it_was_set(tmp_path, chain, source, value, error, words):
    """Never the default in its place: set but unusable is an error of the chain's own kind, naming its origin."""
    with pytest.raises(error) as caught:
        _chain(tmp_path, chain, {source: value})
    line = caught.value.one_line()
    assert words in line and "confidence must" in line and "\n" not in str(caught.value), line


def test_a_restated_ci_is_judged_at_the_level_it_states_else_at_its_files():
    source = ResultSource("run/prk.nc", {"confidence": 0.9}, pd.DataFrame())
    data = ResultSet([source], config={})
    stated = restate.stated_confidence(data, source, StatedSummary(statistic="median", metric="time", confidence=0.99))
    assert (stated.value, stated.source) == (0.99, settings.RESULTS_FILE) and "stated median of time" in stated.origin
    assert restate.stated_confidence(data, source, StatedSummary(metric="time")).value == 0.9
    with pytest.raises(ValueError, match=r"^run/prk.nc: summaries\[0\].confidence is 'x': not a number$"):
        parse({"statistic": "median", "metric": "time", "confidence": "x"}, "run/prk.nc: summaries[0]")


def test_the_resolver_reads_bounds_and_defaults_from_the_schema_alone():
    assert settings.resolve("ci_target", {settings.RUN_CONFIG: 1}).value == 1.0  # (0, 1]: 1 allowed
    with pytest.raises(SettingError, match="confidence must lie between 0 and 1, both excluded, got 1 "):
        settings.resolve("confidence", {settings.RUN_CONFIG: 1})
    with pytest.raises(SettingError, match="must be a number, got True"):
        settings.resolve("confidence", {settings.RUN_CONFIG: True})
    assert settings.resolve("confidence", {settings.RUN_CONFIG: ""}).source == settings.SCHEMA_DEFAULT
    assert settings.resolve("confidence", {}, section="infer").value == settings.default_query_confidence() == 0.99
    with pytest.raises(ValueError, match="unknown setting source"):
        settings.resolve("confidence", {"environment": 0.9})


def test_stats_takes_the_confidence_level_and_never_looks_it_up():
    assert stats.check_confidence(0.9) == 0.9
    with pytest.raises(TypeError, match="no confidence level given"):
        stats.check_confidence(None)
    with pytest.raises(TypeError):
        stats.median_ci([1.0] * 10)  # the missing level is the point


def _reachable(start: str) -> set[str]:
    seen, pending = set(), list(codegraph.imported_modules(start))
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending += codegraph.imported_modules(name)
    return seen


def test_stats_and_the_resolver_sit_in_no_import_cycle_at_any_level():
    """Function-level imports included (the old loop stats -> settings -> config -> feasibility -> prk.sweep ->
    measure -> stats went through lazy imports).  Other loops remain elsewhere: this covers the settings path."""
    assert codegraph.imported_modules("twelveways.evidence.settings") <= {
        "twelveways", "twelveways.errors", "twelveways.inputs"}
    low = ["twelveways.evidence.settings", "twelveways.stats",
           *(f"twelveways.stats.{name}" for name in ("core", "summary", "compare", "replicates", "tail", "scaling",
                                                     "proportion", "paired_proportion", "changepoint"))]
    for name in low:
        assert name not in _reachable(name), f"{name} imports itself back, function-level imports included"
    assert "twelveways.evidence.settings" in _reachable("twelveways.config")  # the graph sees the edge we kept


@pytest.mark.parametrize("exc, reads_input, code", [
    (errors.UsageError("x"), False, 2), (AuditInputError("x"), False, 2), (errors.ResultsError("x"), True, 2),
    (errors.ConfigError("x"), False, 1), (errors.KernelError("x"), False, 1), (KeyboardInterrupt(), False, 130),
])
def test_exit_codes_follow_from_the_error_type(exc, reads_input, code):
    assert errors.exit_code(exc, reads_input=reads_input) == code


def test_an_outcome_code_puts_a_failure_before_a_skip():
    assert [errors.outcome_code(failed=f, skipped=s) for f, s in ((False, False), (False, True), (True, True))] \
        == [errors.EXIT_OK, errors.EXIT_SKIPPED, errors.EXIT_FAILED] == [0, 3, 1]


def test_an_audited_file_that_states_an_unusable_level_gets_r5_needs_human_naming_it(tmp_path, capsys):
    """The decision for a file from elsewhere: never judged at a level it did not state; the check that needs the
    level says which file and attribute hold what, and the other checks run."""
    from twelveways.checklist.audit import audit_main

    rows = [{"benchmark": "prk", "workload": "nstream", "implementation": "numpy", "ranks": 1, "threads": 1,
             "size": 1000, "precision": "fp64", "seed": 1, "run_id": "r1", "iteration": i, "rank": 0,
             "metric": "time", "value": 0.01 + i * 1e-3, "unit": "s", "valid": True} for i in range(8)]
    ds = results.from_records(rows, "prk")
    ds.attrs["confidence"] = "high"
    path = results.write(ds, tmp_path / "prk.nc")
    assert audit_main([str(path), "--format", "json", "--exit-zero"]) == 0
    report = json.loads(capsys.readouterr().out)
    r5 = next(check for check in report["checks"] if check["id"] == "R5")
    assert r5["status"] == "needs_human", r5
    assert f"confidence must be a number, got 'high' (results file {path} attribute confidence)" in json.dumps(r5)
    assert sum(check["status"] != "needs_human" for check in report["checks"]) > 10
