"""`twelveways audit` and `twelveways import-csv`: exit codes, one-line errors, formats, escaping."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr

from twelveways import results
from twelveways.checklist.audit import audit_main
from twelveways.cli import import_csv_main

sys.path.insert(0, str(Path(__file__).parent / "data" / "good_results"))
import make_results  # noqa: E402

HEADER = "benchmark,workload,implementation,ranks,threads,size,precision,seed,run_id,iteration,rank,metric,value,unit,valid"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return make_results.build(tmp_path_factory.mktemp("clean"))


def audit_args(paths):
    return [*paths["results"], "--environment", paths["environment"], "--config", paths["config"]]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_clean_results_exit_0_and_write_every_format(clean, tmp_path, capsys):
    outputs = [tmp_path / "c.json", tmp_path / "c.md", tmp_path / "c.html"]
    args = audit_args(clean) + [a for out in outputs for a in ("--output", str(out))]
    assert audit_main(args) == 0
    report = json.loads(outputs[0].read_text())
    assert report["verdict"] == "VALID" and len(report["checks"]) == 24
    md = outputs[1].read_text()
    assert "**Result is: VALID**" in md
    assert "| R3 arithmetic mean for costs, harmonic for rates | pass |" in md and "SC15 rules R1-R12: all pass" in md
    assert outputs[2].read_text().startswith('<section class="checklist')
    assert "Result is: VALID" in capsys.readouterr().err  # the one-line-per-check summary


def test_markdown_to_stdout_by_default(clean, capsys):
    assert audit_main(audit_args(clean)) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Benchmarking checklist") and "F12 badly chosen comparison points" in out


@pytest.mark.slow
def test_a_failing_check_exits_1_unless_exit_zero(tmp_path, capsys):
    paths = make_results.build(tmp_path, "rate_without_dtype")
    assert audit_main(audit_args(paths) + ["--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "INVALID"
    assert [c["id"] for c in report["checks"] if c["status"] == "fail"] == ["F5"]
    assert audit_main(audit_args(paths) + ["--exit-zero", "--format", "json"]) == 0


def test_missing_file_exits_2_with_one_line(tmp_path, capsys):
    assert audit_main([str(tmp_path / "nope.nc")]) == 2
    assert "not found" in one_error_line(capsys)


def test_wrong_schema_version_exits_2(clean, tmp_path, capsys):
    with xr.open_dataset(clean["results"][0], engine="h5netcdf") as handle:
        ds = handle.load()
    ds.attrs["schema_version"] = "0.9"
    old = tmp_path / "old.nc"
    ds.to_netcdf(old, engine="h5netcdf")
    assert audit_main([str(old)]) == 2
    assert "schema_version '0.9' is not supported" in one_error_line(capsys)


def test_not_netcdf_exits_2(tmp_path, capsys):
    junk = tmp_path / "junk.nc"
    junk.write_text("not netcdf")
    assert audit_main([str(junk)]) == 2
    one_error_line(capsys)


def test_csv_missing_a_column_exits_2(tmp_path, capsys):
    csv = tmp_path / "samples.csv"
    csv.write_text(HEADER.replace(",unit", "") + "\nprk,nstream,c,1,1,10,fp64,1,r0,1,0,time,0.5,true\n")
    assert audit_main([str(csv)]) == 2
    assert "missing column 'unit'" in one_error_line(capsys)
    assert import_csv_main([str(csv), "--output", str(tmp_path / "o.nc")]) == 2
    assert "missing column 'unit'" in one_error_line(capsys)


def test_bad_claims_file_exits_2(clean, tmp_path, capsys):
    claims = tmp_path / "claims.yaml"
    claims.write_text("- {id: acc, kind: accuracy_relative, metric: test_accuracy, a: {precision: bf16}, "
                      "b: {precision: fp32}, at_least: 0.99}\n")
    assert audit_main(audit_args(clean) + ["--claims", str(claims)]) == 2
    assert "must say which relative accuracy it means" in one_error_line(capsys)


def test_bad_option_exits_2_with_one_line(capsys):
    assert audit_main(["x.nc", "--format", "pdf"]) == 2
    one_error_line(capsys)


def test_claims_file_results_are_reported(clean, tmp_path, capsys):
    claims = tmp_path / "claims.yaml"
    claims.write_text("claims:\n- {id: int8, statement: int8 keeps 99%, kind: accuracy_relative, relative_accuracy: relative,"
                      " metric: test_accuracy, a: {benchmark: infer, precision: int8}, b: {benchmark: infer, precision: fp32},"
                      " at_least: 0.99}\n")
    assert audit_main(audit_args(clean) + ["--claims", str(claims), "--format", "json"]) == 0
    claim = next(c for c in json.loads(capsys.readouterr().out)["claims"] if c["id"] == "int8")
    # one accuracy run per precision: n=1 is no interval at 95% (not "deterministic"), so inconclusive
    assert claim["verdict"] == "inconclusive" and claim["numbers"]["n_needed"] == {"a": 7, "b": 7}
    assert claim["numbers"]["estimate"] == pytest.approx(0.955 / 0.960)


def write_csv(tmp_path, rows, meta_text):
    csv = tmp_path / "mine.csv"
    csv.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    meta = tmp_path / "meta.yaml"
    meta.write_text(meta_text)
    return csv, meta


def test_import_csv_round_trip_then_audit(tmp_path, capsys):
    rows = [f"mybench,saxpy,cuda,1,1,1000,fp32,1,run{i},{i % 5},-1,rate,{100 + i % 3},GB/s,true" for i in range(20)]
    csv, meta = write_csv(tmp_path, rows, "family: mybench\nattrs:\n  summaries:\n    - {metric: rate, statistic: mean, "
                          "value: 101.0}\nenvironment: {gpu: somegpu}\n")
    out = tmp_path / "mine.nc"
    assert import_csv_main([str(csv), "--metadata", str(meta), "--output", str(out)]) == 0
    ds = results.open(out)
    assert ds.attrs["family"] == "mybench" and ds.sizes["sample"] == 20
    assert ds.attrs["environment_hash"] == results.canonical_hash({"gpu": "somegpu"})
    assert results.attr_json(ds, "summaries")[0]["statistic"] == "mean"
    capsys.readouterr()
    assert audit_main([str(out), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    failed = [c["id"] for c in report["checks"] if c["status"] == "fail"]
    assert failed == ["R3"]  # the rate was summarized by its arithmetic mean


def test_import_csv_uses_metadata_constants_and_reports_bad_values(tmp_path, capsys):
    header = HEADER.replace("seed,", "").replace(",rank,", ",")
    csv = tmp_path / "c.csv"
    csv.write_text(header + "\nb,w,i,1,1,10,fp64,r0,1,time,0.5,s,yes\nb,w,i,1,1,10,fp64,r0,2,time,0.5,s,no\n")
    meta = tmp_path / "m.yaml"
    meta.write_text("columns: {seed: -1, rank: -1}\n")
    out = tmp_path / "c.nc"
    assert import_csv_main([str(csv), "--metadata", str(meta), "--output", str(out)]) == 0
    frame = results.to_frame(results.open(out))
    assert list(frame["valid"]) == [True, False] and set(frame["seed"]) == {-1}
    assert "wrote" in capsys.readouterr().err
    csv.write_text(header + "\nb,w,i,one,1,10,fp64,r0,1,time,0.5,s,yes\n")
    assert import_csv_main([str(csv), "--metadata", str(meta), "--output", str(out)]) == 2
    assert "column 'ranks' line 2: 'one' is not an integer" in one_error_line(capsys)
    meta.write_text("colour: red\n")
    assert import_csv_main([str(csv), "--metadata", str(meta), "--output", str(out)]) == 2
    assert "unknown metadata key 'colour'" in one_error_line(capsys)


def test_html_escapes_strings_from_data(tmp_path, capsys):
    rows = [f"b,<script>alert(1)</script>,i,1,1,10,,1,r{i},1,-1,rate,{10 + i},MB/s,true" for i in range(3)]
    csv, meta = write_csv(tmp_path, rows, "attrs: {levels_available: {workload: ['<img src=x>']}}\n")
    assert audit_main([str(csv), "--metadata", str(meta), "--format", "html"]) == 1
    page = capsys.readouterr().out
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x&gt;" in page


@pytest.mark.slow
def test_module_entry_point_runs(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "twelveways.checklist", "audit", str(tmp_path / "none.nc")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
