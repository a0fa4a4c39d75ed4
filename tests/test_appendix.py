"""The artifact-evaluation appendix, the archive, LICENSE and CITATION.cff ."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tarfile
from datetime import date
from pathlib import Path

import pytest
import yaml

from twelveways.report import appendix, archive, citation

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "data" / "reference"
CLAIMS = ROOT / "config" / "claims.yaml"


def _checklist_for_every_claim(path: Path) -> Path:
    """The reference checklist's claims, with every claim of config/claims.yaml audited: those the stored
    checklist predates get an estimate and interval like the audit writes (the format of claims.py)."""
    stored = {c["id"]: c for c in json.loads((REFERENCE / "checklist.json").read_text())["claims"]}
    claims = []
    for index, claim in enumerate(yaml.safe_load(CLAIMS.read_text())["claims"]):
        claims.append(stored.get(claim["id"]) or {
            "id": claim["id"], "statement": claim["statement"], "verdict": "supported",
            "numbers": {"estimate": 2.0 + index, "interval": [1.5 + index, 2.6 + index], "coverage": 0.96,
                        "estimate_definition": "median(b)/median(a)"}})
    path.write_text(json.dumps({"verdict": "VALID", "valid": True, "checks": [], "claims": claims}))
    return path


def _bench(folder: Path, seconds: dict[str, float]) -> Path:
    """Snakemake benchmark files as the `benchmark:` directive writes them (one row, column s first)."""
    folder.mkdir(parents=True)
    for rule, value in seconds.items():
        (folder / f"{rule}.tsv").write_text("s\th:m:s\tmax_rss\tmax_vms\n"
                                            f"{value}\t0:00:{int(value):02d}\t100.5\t200.1\n")
    return folder


def _figures(folder: Path) -> Path:
    for notebook, names in (("prk", ["time-ci", "roofline"]), ("train", ["f5-precision"]),
                            ("inference", ["pareto", "latency_cdf"])):
        (folder / notebook).mkdir(parents=True)
        for name in names:
            (folder / notebook / f"{name}.png").write_bytes(b"\x89PNG")
            (folder / notebook / f"{name}.csv").write_text("x,y\n1,2\n")
    return folder


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> appendix.Sources:
    folder = tmp_path_factory.mktemp("appendix")
    rules = {rule: 10.0 for e in appendix.EXPERIMENTS.values() for rule in e.rules}
    rules.update(environment=4.0, checklist=30.0, report=20.0)
    return appendix.Sources(CLAIMS, _checklist_for_every_claim(folder / "checklist.json"), None,
                            REFERENCE / "config.json", REFERENCE / "environment.json", _bench(folder / "bench", rules),
                            _figures(folder / "figures"), folder)


@pytest.fixture(scope="module")
def rendered(sources) -> str:
    """The appendix of ``sources`` (rendered once: it reads the reference set's results)."""
    return appendix.render(sources)


def _mapping_rows(text: str) -> dict[str, list[str]]:
    """Section 2's table: claim id -> cells."""
    part = text.split("## 2.")[1].split("## 3.")[0]
    rows = [line.strip("|").split(" | ") for line in part.splitlines() if line.startswith("| ") and "---" not in line]
    return {row[0].strip().replace("\\", ""): [cell.strip() for cell in row] for row in rows[1:]}


def test_every_claim_maps_to_an_experiment_a_figure_an_expected_result_with_tolerance_and_a_runtime(sources, rendered):
    rows = _mapping_rows(rendered)
    claims = {claim["id"]: claim for claim in yaml.safe_load(CLAIMS.read_text())["claims"]}
    assert sorted(rows) == sorted(claims)
    for claim_id, (_, experiment, figure, expected, measured, room, runtime) in rows.items():
        assert "rules" in experiment and "config section" in experiment, claim_id
        assert figure.endswith(".png") and (sources.report_dir / figure.replace("\\", "")).is_file(), claim_id
        # the expectation is the claim's own threshold, which holds on any hardware, not this run's interval
        threshold = claims[claim_id].get("at_least", claims[claim_id].get("at_most"))
        assert expected.startswith("verdict supported") and f"{threshold:g}" in expected, (claim_id, expected)
        assert "verdict" in measured, claim_id
        assert re.search(r"(lower|upper) end [-+][\d.]+% from ", room) or room.startswith("none measurable"), room
        assert re.fullmatch(r"[\d.]+ s|\d+ min \d+ s", runtime), (claim_id, runtime)


def test_measurements_are_keyed_on_the_claims_fixed_configurations(rendered):
    part = rendered.split("## 4.")[1].split("## 5.")[0]
    assert "workload=stencil implementation=c-mpi ranks=2 threads=1" in part  # a claim's side, named in full
    assert " ms |" in part and " ns |" not in part and " s |" not in part  # one time unit down the column
    assert "same machine type" in part


def test_install_time_and_disk_space_are_stated(tmp_path):
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".twelveways-installed").write_text("install_seconds=65\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "prk.nc").write_bytes(b"x" * 3 * 2**20)
    text = "\n".join(appendix.install_section(tmp_path))
    assert "1 min 5 s on this machine" in text and "| results | 3 MiB |" in text


def test_runtime_is_measured_per_experiment_and_for_the_profile(rendered):
    text = rendered
    # prk: four rules of 10 s; the profile: every benchmark file summed
    assert re.search(r"\| prk \| .* \| 40\.0 s \|", text)
    total = 10.0 * sum(len(e.rules) for e in appendix.EXPERIMENTS.values()) + 54.0
    assert f"Profile `quick`: {appendix.duration(total)} in total" in text
    assert "Hardware and software requirements" in text and "AMD EPYC" in text


def test_tolerance_comes_from_the_interval_and_missing_inputs_are_said(tmp_path, sources):
    assert appendix.tolerance(10.0, [9.0, 12.0]) == "−10% / +20%"
    assert appendix.tolerance(10.0, None) == ""
    empty = appendix.Sources(None, sources.checklist, None, None, None, tmp_path / "none", None, tmp_path)
    text = appendix.render(empty)
    assert "Not measured: no Snakemake benchmark files" in text and "No environment capture" in text


def _tiny_checkout(root: Path) -> Path:
    """A git checkout with two tracked files, an untracked one, results/ and reports/."""
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "code.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# tiny\n")
    (root / "scratch.txt").write_text("not tracked\n")
    subprocess.run(["git", "add", "code.py", "README.md"], cwd=root, check=True)
    (root / "results").mkdir()
    (root / "results" / "prk.nc").write_bytes(b"\x00\x01data")
    (root / "reports").mkdir()
    (root / "reports" / "report.html").write_text("<html></html>")
    return root


def test_archive_packs_code_results_and_reports_with_checksums(tmp_path):
    root = _tiny_checkout(tmp_path / "checkout")
    tarball = archive.archive(root / "dist", root=root, day=date(2026, 1, 2))
    assert tarball.name == "twelveways-2026-01-02.tar.gz"
    with tarfile.open(tarball) as tar:
        names = sorted(m.name for m in tar.getmembers())
        sums = tar.extractfile("twelveways-2026-01-02/SHA256SUMS").read().decode()
    assert names == sorted(f"twelveways-2026-01-02/{n}" for n in
                           ("SHA256SUMS", "README.md", "code.py", "results/prk.nc", "reports/report.html"))
    assert "scratch.txt" not in sums  # untracked code stays out
    assert f"{hashlib.sha256((root / 'code.py').read_bytes()).hexdigest()}  code.py" in sums
    assert archive.verify(tarball) == []
    beside = tarball.with_name(tarball.name + ".sha256").read_text().split()
    assert beside == [hashlib.sha256(tarball.read_bytes()).hexdigest(), tarball.name]


def _outputs_of_two_runs(root: Path, report_made_by: str) -> None:
    """A workflow run's results/logs and a reader rebuild's folders side by side; the report names its run."""
    (root / "logs" / "bench").mkdir(parents=True)
    (root / "logs" / "bench" / "prk_run.tsv").write_text("s\th:m:s\n1.5\t0:00:01\n")
    for leftover in ("derived/prk.nc", "figures/prk/time-ci.png", "notebooks/prk.ipynb"):
        (root / "reports" / leftover).parent.mkdir(parents=True, exist_ok=True)
        (root / "reports" / leftover).write_bytes(b"another run")
    (root / "reports" / "screenshot.png").write_bytes(b"test output")
    (root / "reports" / "report.html").write_text(
        f"<html><head><meta name='twelveways-run' content='{report_made_by}'></head></html>")


def test_archive_holds_the_workflow_runs_logs_and_no_rebuild_leftovers(tmp_path):
    root = _tiny_checkout(tmp_path / "checkout")
    _outputs_of_two_runs(root, "workflow")
    tarball = archive.archive(root / "dist", root=root, day=date(2026, 1, 2))
    with tarfile.open(tarball) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers()}
    assert {"logs/bench/prk_run.tsv", "results/prk.nc", "reports/report.html"} <= names
    assert not any(name.startswith(("reports/derived", "reports/figures", "reports/notebooks", "reports/screenshot"))
                   for name in names), sorted(names)
    assert archive.verify(tarball) == []


def test_archive_of_a_rebuild_holds_its_own_folders_and_no_workflow_outputs(tmp_path):
    root = _tiny_checkout(tmp_path / "checkout")
    _outputs_of_two_runs(root, "rebuild")
    tarball = archive.archive(root / "dist", root=root, day=date(2026, 1, 2))
    with tarfile.open(tarball) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers()}
    assert {"reports/derived/prk.nc", "reports/figures/prk/time-ci.png", "reports/report.html"} <= names
    assert not any(name.startswith(("results/", "logs/")) for name in names), sorted(names)


def test_archive_verify_finds_a_changed_file(tmp_path):
    root = _tiny_checkout(tmp_path / "checkout")
    tarball = archive.archive(tmp_path / "out", root=root, day=date(2026, 1, 2))
    unpacked = tmp_path / "unpacked"
    with tarfile.open(tarball) as tar:
        tar.extractall(unpacked, filter="data")
    (unpacked / "twelveways-2026-01-02" / "code.py").write_text("tampered\n")
    changed = tmp_path / "changed.tar.gz"
    with tarfile.open(changed, "w:gz") as tar:
        tar.add(unpacked / "twelveways-2026-01-02", arcname="twelveways-2026-01-02")
    assert archive.verify(changed) == ["twelveways-2026-01-02/code.py: checksum differs"]


def test_archive_outside_a_git_checkout_is_one_error(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(Exception, match="not a git checkout"):
        archive.archive(tmp_path / "dist", root=tmp_path / "plain")


def test_license_and_citation_metadata():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "license"):
        assert cff.get(key), key
    assert all(author.get("name") or author.get("family-names") for author in cff["authors"])
    assert cff["license"] == "MIT"  # SPDX identifier, as pyproject.toml's license
    names = [author["name"] for author in cff["authors"]]
    assert "The Twelve Ways authors" not in names  # a placeholder is no author
    if (ROOT / ".git").exists():  # the authors are people of the project's history
        assert set(names) <= {author["name"] for author in citation.git_authors(ROOT)}
    deposit = json.loads((ROOT / ".zenodo.json").read_text())
    assert deposit["upload_type"] == "software" and deposit["title"] == cff["title"]
    assert [creator["name"] for creator in deposit["creators"]] == names
    assert deposit["license"] == cff["license"] and deposit["version"] == cff["version"]


def test_citation_authors_come_from_the_git_history(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "CITATION.cff").write_text((ROOT / "CITATION.cff").read_text())
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for name, times in (("Ada Lovelace", 2), ("Grace Hopper", 1), ("dependabot[bot]", 3)):
        for i in range(times):
            (root / "f.txt").write_text(f"{name} {i}")
            subprocess.run(["git", "add", "f.txt"], cwd=root, check=True)
            subprocess.run(["git", "-c", f"user.name={name}", "-c", "user.email=x@example.org", "commit", "-qm", "c"],
                           cwd=root, check=True)
    files = citation.expected(root)
    assert [a["name"] for a in yaml.safe_load(files["CITATION.cff"])["authors"]] == ["Ada Lovelace", "Grace Hopper"]
    assert json.loads(files[".zenodo.json"])["creators"] == [{"name": "Ada Lovelace"}, {"name": "Grace Hopper"}]
    assert "# Citation metadata" in files["CITATION.cff"]  # comments and other keys kept


def test_disk_space_counts_regular_files_once_and_never_through_links(tmp_path):
    """Section 7's sizes: files in nested folders count; a link to a file or a folder, a broken link and a
    missing folder add nothing (a link could point at the whole disk or count a file twice)."""
    (tmp_path / "venv" / "lib" / "deep").mkdir(parents=True)
    (tmp_path / "venv" / "top.bin").write_bytes(b"x" * 1000)
    (tmp_path / "venv" / "lib" / "deep" / "inner.bin").write_bytes(b"y" * 234)
    (tmp_path / "venv" / "file-link").symlink_to(tmp_path / "venv" / "top.bin")
    (tmp_path / "venv" / "folder-link").symlink_to(tmp_path / "venv" / "lib")
    (tmp_path / "venv" / "broken-link").symlink_to(tmp_path / "nowhere")
    assert appendix.folder_bytes(tmp_path / "venv") == 1234
    assert appendix.folder_bytes(tmp_path / "absent") == 0
