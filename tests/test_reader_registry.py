"""The registry of formats: one declaration per reader module, the generated docs table, plugins through the
entry point group ``twelveways.readers``, recognition past launcher lines, and the tree error policy."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from twelveways import readers
from twelveways.checklist import audit as audit_cli
from twelveways.errors import AuditInputError
from twelveways.readers import registry
from twelveways.readers.head import Head

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
HYPERFINE = CORPUS / "hyperfine" / "3em_bench.json"
GBENCH = CORPUS / "gbench" / "google_benchmark_test1_run1.json"
LAUNCHER = ("[0] MPI startup(): Intel(R) MPI Library, Version 2021.6  Build 20220227 (id: 28877f3f32)\n"
            "[0] MPI startup(): library kind: release\n"
            "srun: job 4242 queued and waiting for resources\n")


def test_every_builtin_module_declares_one_format_with_a_unique_name():
    names = [f.name for f in registry.formats()]
    assert len(names) == len(set(names)) == len(registry.BUILTIN)
    for fmt in registry.formats():
        assert fmt.title and fmt.reads
        assert (fmt.read is None) != (fmt.group is None) or fmt.companion, fmt.name


def test_docs_table_is_generated_from_the_registry():
    page = (ROOT / "docs" / "formats.md").read_text()
    assert registry.with_docs_table(page) == page, \
        "docs/formats.md's table is stale: run .venv/bin/python -m twelveways.readers docs/formats.md"
    for fmt in registry.formats():
        assert f"`{fmt.name}`" in page


@pytest.mark.parametrize("source", [HYPERFINE, GBENCH], ids=["hyperfine", "gbench"])
def test_json_after_launcher_lines_reads_the_same_numbers(tmp_path, source):
    noisy = tmp_path / source.name
    noisy.write_text(LAUNCHER + source.read_text() + "\n[0] MPI finalize: done\n")
    assert registry.recognize(Head.of(noisy)).name == registry.recognize(Head.of(source)).name
    (clean,), (read,) = readers.read_paths([source]), readers.read_paths([noisy])
    assert read.ds["value"].values.tolist() == clean.ds["value"].values.tolist()


def test_a_launcher_line_is_never_taken_for_json():
    head = Head(LAUNCHER.encode() + b"# OSU MPI Latency Test v7.1\n# Size          Latency (us)\n1  1.5\n")
    assert head.document is None and head.json_text == ""
    assert registry.recognize(head).name == "osu"


def test_gzip_and_a_byte_order_mark_are_looked_through(tmp_path):
    packed = tmp_path / "bench.json.gz"
    packed.write_bytes(gzip.compress(b"\xef\xbb\xbf" + HYPERFINE.read_bytes()))
    assert registry.recognize(Head.of(packed)).name == "hyperfine"


def test_a_damaged_file_in_a_tree_is_skipped_listed_and_the_audit_exits_3(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(HYPERFINE, tree / "good.json")
    (tree / "bad.json").write_text('{"results": [{"command": "x", "times": [1.0, "two"]}]}')
    report = tmp_path / "audit.json"
    code = audit_cli.audit_main([str(tree), "--output", str(report)])
    assert code == 3, capsys.readouterr().err
    data = json.loads(report.read_text())
    assert [Path(i) .name for i in data["inputs"]] == ["good.json"]
    (skipped,) = data["skipped"]
    assert skipped["unreadable"] and skipped["path"].endswith("bad.json") and "times" in skipped["why"]
    assert audit_cli.audit_main([str(tree / "bad.json")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(f"error: {tree / 'bad.json'}:")


def test_a_tree_whose_only_result_is_damaged_is_unusable(tmp_path):
    (tmp_path / "bad.json").write_text('{"results": [{"command": "x", "times": [1.0, "two"]}]}')
    with pytest.raises(AuditInputError, match="no results could be read: .*bad.json"):
        readers.read_paths([tmp_path])


PLUGIN = '''
"""A test format: lines 'TOYBENCH <name> <seconds>'."""
from twelveways.readers.common import build, row
from twelveways.readers.decode import number_field
from twelveways.readers.registry import CERTAIN, Format


def _recognize(head):
    return CERTAIN if head.text.startswith("TOYBENCH ") else 0


def read(path):
    records = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        _, name, seconds = line.split()
        value = number_field(path, "toybench", f"line {number} seconds", seconds)
        records.append(row(benchmark="toy", workload=name, metric="time", value=value, unit="s", iteration=number))
    return [build(path, "toybench", "toy", records)]


READER = Format(name="toybench", title="toybench text", reads="toybench 1", recognize=_recognize, read=read)
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """An installed plugin: a module and a dist-info whose entry_points.txt names it in ``twelveways.readers``."""
    site = tmp_path / "site"
    (site / "toyplugin-1.0.dist-info").mkdir(parents=True)
    (site / "toyplugin.py").write_text(textwrap.dedent(PLUGIN))
    (site / "toyplugin-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 1.0\n")
    (site / "toyplugin-1.0.dist-info" / "entry_points.txt").write_text("[twelveways.readers]\ntoybench = toyplugin\n")
    monkeypatch.syspath_prepend(str(site))
    registry.formats.cache_clear()
    yield site
    registry.formats.cache_clear()
    sys.modules.pop("toyplugin", None)


def test_a_plugin_format_is_recognized_read_and_audited(plugin, tmp_path):
    assert "toybench" in [f.name for f in registry.formats()]
    result = tmp_path / "toy.txt"
    result.write_text("TOYBENCH sort 1.5\nTOYBENCH sort 1.25\nTOYBENCH sort 1.75\n")
    (loaded,) = readers.read_paths([result])
    assert loaded.format == "toybench" and loaded.ds["value"].values.tolist() == [1.5, 1.25, 1.75]
    assert audit_cli.audit_main([str(result), "--output", str(tmp_path / "a.md"), "--exit-zero"]) == 0
    result.write_text("TOYBENCH sort -1\n")
    with pytest.raises(AuditInputError, match=r"toy\.txt: toybench: line 1 seconds is '-1', below its minimum 0"):
        readers.read_paths([result])
