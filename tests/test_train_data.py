"""Training data: fixed splits with recorded hashes, the 32x32 variant, the IDX reader, the CLI."""

from __future__ import annotations

import gzip
import json
import struct
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from twelveways.config import validate
from twelveways.train import data
from twelveways.train.settings import TrainConfig


@pytest.fixture(scope="module")
def train_cfg():
    return TrainConfig.from_config(validate({"seed": 3, "train": {"datasets": ["digits", "synthetic"],
                                                                  "input_sizes": [8, 32]}}))


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, train_cfg):
    out = tmp_path_factory.mktemp("data")
    return out, data.prepare(out, train_cfg)


def test_manifest_hashes_match_files_and_splits_are_disjoint(prepared):
    out, manifest = prepared
    assert set(manifest["datasets"]) == {"digits", "digits32", "synthetic"}
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == manifest
    for entry in manifest["datasets"].values():
        assert data.sha256_file(out / entry["file"]) == entry["sha256"]
        arrays = data.load_npz(out / entry["file"])
        sizes = [len(arrays[f"y_{s}"]) for s in data.SPLITS]
        assert sizes == [entry["n_train"], entry["n_val"], entry["n_test"]]
    # digits: 1,797 images, every one in exactly one split (no image shared between splits)
    d = data.load_npz(out / "digits.npz")
    rows = np.concatenate([d[f"x_{s}"].reshape(len(d[f"x_{s}"]), -1) for s in data.SPLITS])
    assert len(rows) == 1797
    assert len({r.tobytes() for r in rows}) == len(np.unique(rows, axis=0))
    assert d["x_train"].shape[1:] == (1, 8, 8) and 0.0 <= d["x_train"].min() and d["x_train"].max() <= 1.0


def test_digits32_is_the_same_split_upsampled(prepared):
    out, _ = prepared
    small, big = data.load_npz(out / "digits.npz"), data.load_npz(out / "digits32.npz")
    assert big["x_train"].shape[1:] == (1, 32, 32)
    for split in data.SPLITS:
        assert np.array_equal(small[f"y_{split}"], big[f"y_{split}"])
    # bilinear zoom keeps the corner pixels and, block-averaged back to 8x8, the picture
    assert np.allclose(big["x_test"][:, 0, 0, 0], small["x_test"][:, 0, 0, 0])
    assert np.allclose(big["x_test"][:, 0, -1, -1], small["x_test"][:, 0, -1, -1])
    down = big["x_test"].reshape(-1, 1, 8, 4, 8, 4).mean(axis=(3, 5))
    assert np.corrcoef(down.ravel(), small["x_test"].ravel())[0, 1] > 0.9


def test_synthetic_is_standardised_on_the_training_split(prepared):
    out, manifest = prepared
    syn = data.load_npz(out / "synthetic.npz")
    assert np.allclose(syn["x_train"].mean(axis=0), 0, atol=1e-4)
    assert np.allclose(syn["x_train"].std(axis=0), 1, atol=1e-3)
    assert manifest["datasets"]["synthetic"]["generator"]["function"] == "sklearn.datasets.make_classification"


def test_same_seed_same_bytes_other_seed_other_split(tmp_path, prepared, train_cfg):
    _, manifest = prepared
    again = data.prepare(tmp_path / "a", train_cfg)
    other = data.prepare(tmp_path / "b", replace(train_cfg, seed=4))
    assert again["datasets"]["digits"]["sha256"] == manifest["datasets"]["digits"]["sha256"]
    assert other["datasets"]["digits"]["sha256"] != manifest["datasets"]["digits"]["sha256"]


def test_tampered_file_fails_verification(tmp_path, train_cfg):
    data.prepare(tmp_path, replace(train_cfg, datasets=("digits",), input_sizes=(8,)))
    path = tmp_path / "digits.npz"
    raw = bytearray(path.read_bytes())
    raw[-40] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(data.DataError, match="differs from the manifest"):
        data.dataset_entry(tmp_path, "digits", verify=True)


# ---------------------------------------------------------------------------------------- IDX

def _write_idx(path, array: np.ndarray, code: int, compress=False):
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    body = array.astype(array.dtype.newbyteorder(">")).tobytes()
    opener = gzip.open if compress else open
    with opener(path, "wb") as handle:
        handle.write(header + body)


def test_idx_reader_reads_what_the_format_says(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(10, 5, 4), dtype=np.uint8)
    labels = rng.integers(0, 10, size=10).astype(np.uint8)
    _write_idx(tmp_path / "img.idx3", images, 0x08)
    _write_idx(tmp_path / "lab.idx1.gz", labels, 0x08, compress=True)
    floats = rng.normal(size=(3, 2)).astype(np.float32)
    _write_idx(tmp_path / "f.idx", floats, 0x0D)
    assert np.array_equal(data.read_idx(tmp_path / "img.idx3"), images)
    assert np.array_equal(data.read_idx(tmp_path / "lab.idx1.gz"), labels)
    assert np.array_equal(data.read_idx(tmp_path / "f.idx"), floats)
    x, y = data.idx_dataset(tmp_path / "img.idx3", tmp_path / "lab.idx1.gz")
    assert x.shape == (10, 1, 5, 4) and x.dtype == np.float32
    assert np.allclose(x[:, 0] * 255, images) and np.array_equal(y, labels)


def test_idx_reader_rejects_bad_files(tmp_path):
    (tmp_path / "magic.idx").write_bytes(b"\x01\x00\x08\x01" + struct.pack(">I", 2) + b"\x00\x00")
    with pytest.raises(data.DataError, match="magic"):
        data.read_idx(tmp_path / "magic.idx")
    (tmp_path / "short.idx").write_bytes(b"\x00\x00\x08\x01" + struct.pack(">I", 5) + b"\x00\x00")
    with pytest.raises(data.DataError, match="need 5"):
        data.read_idx(tmp_path / "short.idx")
    (tmp_path / "type.idx").write_bytes(b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00")
    with pytest.raises(data.DataError, match="element type"):
        data.read_idx(tmp_path / "type.idx")


def test_idx_conversion_adds_a_dataset_to_the_manifest(tmp_path):
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, size=(50, 6, 6), dtype=np.uint8)
    labels = np.repeat(np.arange(5), 10).astype(np.uint8)
    _write_idx(tmp_path / "i.idx", images, 0x08)
    _write_idx(tmp_path / "l.idx", labels, 0x08)
    manifest = data.prepare_idx(tmp_path / "i.idx", tmp_path / "l.idx", tmp_path / "out", "tiny", seed=2)
    entry = manifest["datasets"]["tiny"]
    assert entry["input_shape"] == [1, 6, 6] and entry["n_classes"] == 5
    assert entry["n_train"] + entry["n_val"] + entry["n_test"] == 50
    assert data.dataset_entry(tmp_path / "out", "tiny", verify=True)["sha256"] == entry["sha256"]


def test_data_cli_errors_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "twelveways.train.data", "--config", str(tmp_path / "missing.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1
