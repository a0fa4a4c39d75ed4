"""One directory holding a file of every format the project reads is audited in one command.

The published files come from tests/data/formats/<format>/ (every folder there, whoever added
it: the folder is named by the format id its reader reports, and its README names the sources);
the formats read before those folders existed are written here as in tests/test_readers.py.
Each file must be recognized as its own format, the unrecognized ones skipped, and one
`twelveways audit` must read the whole tree.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from twelveways import readers, results
from twelveways.cli import main

sys.path.insert(0, str(Path(__file__).parent))
import test_readers as documented  # noqa: E402  (the writers of the formats read before)

DATA = Path(__file__).parent / "data" / "formats"
FOLDER_FORMAT = {"reframe": "reframe-perflog"}  # folders named otherwise than their format id
GROUPED_BY_FOLDER = {"criterion"}  # one result per folder, named by one of its files
COMPANIONS = {"machine.json"}  # asv's machine description: read with the results beside it, not on its own
NEUTRAL = {"benchmark": "csv", "workload": "copy", "implementation": "c", "ranks": 1, "threads": 1, "size": 1000,
           "precision": "fp64", "seed": -1, "iteration": -1, "rank": -1, "metric": "time", "unit": "s", "valid": True}


def published_fixtures(tree: Path) -> dict[Path, str]:
    """Every file of tests/data/formats/<format>/ (READMEs and truth manifests aside) copied under ``tree``:
    {copy: format}."""
    expected = {}
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        for source in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.lower().startswith("readme")
                             and p.name != "truth.yaml"):
            copy = tree / folder.name / source.relative_to(folder)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
            if source.name not in COMPANIONS:
                expected[copy] = FOLDER_FORMAT.get(folder.name, folder.name)
    return expected


def documented_formats(tree: Path) -> dict[Path, str]:
    """The formats read before tests/data/formats existed, written after their documentation."""
    expected = {documented.write_training(tree / "mlperf" / "box1" / "resnet"): "mlperf-training",
                documented.write_loadgen(tree / "loadgen" / "box1" / "resnet50" / "SingleStream" / "performance"
                                         / "run_1"): "mlperf-loadgen"}
    for name, doc, fmt in (("pyperf.json", documented.pyperf_doc([[0.1, 0.11, 0.12]] * 3), "pyperf"),
                           ("gbench.json", documented.GBENCH, "google-benchmark"),
                           ("hyperfine.json", documented.HYPERFINE, "hyperfine")):
        (tree / "json").mkdir(parents=True, exist_ok=True)
        (tree / "json" / name).write_text(json.dumps(doc))
        expected[tree / "json" / name] = fmt
    rows = [{**NEUTRAL, "run_id": f"r{i}", "value": 0.010 + 0.001 * i} for i in range(6)]
    csv = tree / "csv" / "samples.csv"
    csv.parent.mkdir(parents=True)
    csv.write_text(",".join(rows[0]) + "\n" + "\n".join(",".join(str(v) for v in r.values()) for r in rows) + "\n")
    nc = tree / "netcdf" / "prk.nc"
    nc.parent.mkdir(parents=True)
    results.write(results.from_records([{**r, "benchmark": "prk"} for r in rows], "prk", attrs={
        "environment_hash": "e" * 64, "config_hash": "c" * 64, "git_commit": "0" * 40, "git_dirty": 0}), nc)
    return {**expected, csv: "csv", nc: "twelveways-netcdf"}


def test_every_format_in_one_directory_is_recognized_and_audited(tmp_path, capsys):
    tree = tmp_path / "published"
    expected = {**published_fixtures(tree), **documented_formats(tree)}
    assert {"osu", "hpl", "hpcg", "stream", "ior"} <= set(expected.values())
    (tree / "notes.txt").write_text("Runs made on the login node: see the wiki.\n")  # no format: skipped
    loaded = readers.read_paths([tree])
    found = {Path(item.path): item.format for item in loaded}
    for path, fmt in expected.items():
        holders = [found[p] for p in found if p == path or p in path.parents
                   or (found[p] in GROUPED_BY_FOLDER and p.parent == path.parent)]
        assert holders == [fmt], f"{path.relative_to(tree)} read as {holders or 'nothing'}, expected {fmt}"
    assert not any(p.name == "notes.txt" for p in found)
    report = tmp_path / "audit.json"
    code = main(["audit", str(tree), "--output", str(report), "--exit-zero"])
    err = capsys.readouterr().err
    assert code == 0, err
    audit = json.loads(report.read_text())
    assert len(audit["inputs"]) == len(loaded) and {c["id"] for c in audit["checks"]} >= {"R3", "R5", "F5"}
