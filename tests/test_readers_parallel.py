"""readers.parallel: many files read once each, side by side, in input order; a damaged one is one line
when named, and skipped and listed (the rest read) inside a tree, in the workers as in-process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from twelveways import readers
from twelveways.errors import AuditInputError
from twelveways.readers import parallel

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "results"


def tree(root: Path, count: int) -> Path:
    for i in range(count):
        (root / f"run{i:02d}").mkdir(parents=True)
        shutil.copy(REFERENCE / ("prk.nc" if i % 2 else "bounds.nc"), root / f"run{i:02d}")
    return root


def test_workers_give_the_same_datasets_in_the_same_order(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path / "round", 6)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 10**9)
    alone = readers.read_paths([root])
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    jobs = [(x.path, x.format, False, readers.ReadOptions(), None) for x in alone]
    side_by_side = parallel.read_each(readers._read_job, jobs, workers=2)
    assert [x.path for items in side_by_side for x in items] == [x.path for x in alone]
    assert all(a.ds.identical(b[0].ds) for a, b in zip(alone, side_by_side))
    assert capsys.readouterr().err == ""  # no progress bar off a terminal


@pytest.mark.parametrize("min_parallel", [2, 10**9])
def test_a_damaged_file_in_a_tree_is_skipped_and_listed_and_the_rest_read(tmp_path, monkeypatch, min_parallel):
    root = tree(tmp_path / "round", 4)
    damaged = root / "run02" / "bounds.nc"
    damaged.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", min_parallel)
    skipped: list = []
    loaded = readers.read_paths([root], skipped=skipped)
    assert sorted(Path(x.path).parent.name for x in loaded) == ["run00", "run01", "run03"]
    (item,) = skipped
    assert item.path == damaged and item.unreadable and "\n" not in item.why
    with pytest.raises(AuditInputError, match=r"run02/bounds\.nc") as raised:  # named alone: one line, exit 2
        readers.read_paths([damaged])
    assert "\n" not in raised.value.one_line()


def test_workers_never_exceed_the_cpus_this_process_may_use():
    assert 1 <= parallel.usable_cpus() <= (__import__("os").cpu_count() or 1)
