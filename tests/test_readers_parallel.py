"""readers.parallel: many files read once each, side by side, in input order; a damaged one is one line."""

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
    side_by_side = parallel.read_each(readers._read_single, [(Path(x.path), x.format, None, {}, {}) for x in alone],
                                      workers=2)
    assert [x.path for items in side_by_side for x in items] == [x.path for x in alone]
    assert all(a.ds.identical(b[0].ds) for a, b in zip(alone, side_by_side))
    assert capsys.readouterr().err == ""  # no progress bar off a terminal


def test_a_damaged_file_read_by_a_worker_is_one_line(tmp_path, monkeypatch):
    root = tree(tmp_path / "round", 4)
    (root / "run02" / "bounds.nc").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 2)
    with pytest.raises(AuditInputError, match=r"run02/bounds\.nc") as raised:
        readers.read_paths([root])
    assert "\n" not in raised.value.one_line()


def test_workers_never_exceed_the_cpus_this_process_may_use():
    assert 1 <= parallel.usable_cpus() <= (__import__("os").cpu_count() or 1)
