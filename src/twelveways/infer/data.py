"""The held-out samples the query sample library serves, and their labels.

MLPerf lets the QSL load samples into memory before the timed run (untimed), so the whole test
split is read once here.  The model description's ``data`` section names the file the training
stage wrote, already preprocessed into model-ready features:

* ``{"test": "data/train/digits.npz", "x_key": "x_test", "y_key": "y_test", "sha256": "..."}`` (npz,
  or a torch ``.pt`` dict; the hash, when given, must match: the split the model was tested on);
* ``{"source": "sklearn-digits", "test_fraction": 0.2, "seed": 0, "scale": 16.0}``: scikit-learn's
  bundled digits, split here with a stratified seeded split and divided by ``scale`` (used by the
  tests, and as the fallback while no data file is described; the report states which was used).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..errors import ConfigError
from .model import ModelError

DEFAULT_DATA = {"source": "sklearn-digits", "test_fraction": 0.2, "seed": 0, "scale": 16.0}


@dataclass
class Split:
    """Model-ready features (float32, shaped for the model) and integer labels."""

    features: torch.Tensor
    labels: np.ndarray
    source: str

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def load_split(data: dict | None, input_shape: tuple[int, ...], root: str | Path = ".") -> Split:
    """Read the test split described by ``data`` (see the module docstring)."""
    data = dict(data or DEFAULT_DATA)
    if "test" in data:
        x, y, source = _read_file(Path(root) / data["test"], data)
    elif data.get("source") == "sklearn-digits":
        x, y, source = _digits(data)
    else:
        raise ModelError(f"model description 'data' names no test file and no known source: {data}")
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y).astype(np.int64).reshape(-1)
    if x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ModelError(f"test split has {x.shape[0]} feature rows and {y.shape[0]} labels")
    try:
        x = x.reshape((x.shape[0], *input_shape))
    except ValueError as exc:
        raise ModelError(f"test features of shape {x.shape[1:]} do not fit the model input {input_shape}") from exc
    return Split(torch.from_numpy(np.ascontiguousarray(x)), y, source)


def _read_file(path: Path, data: dict):
    if not path.is_file():
        raise ConfigError(f"test data file not found: {path} (the training stage writes it)")
    expected = data.get("sha256")
    if expected:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != expected:
            raise ModelError(f"{path}: sha256 {digest[:12]}... differs from the model description's {str(expected)[:12]}... "
                             "(data changed since the model was trained)")
    x_key, y_key = data.get("x_key", "X"), data.get("y_key", "y")
    try:
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as handle:
                x, y = handle[x_key], handle[y_key]
        else:
            blob = torch.load(path, map_location="cpu", weights_only=True)
            x, y = np.asarray(blob[x_key]), np.asarray(blob[y_key])
    except (OSError, KeyError, ValueError, RuntimeError) as exc:
        raise ModelError(f"cannot read test split {path} (keys {x_key!r}, {y_key!r})", cause=exc) from exc
    return x, y, str(path)


def _digits(data: dict):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    bunch = load_digits()
    seed = int(data.get("seed", 0))
    fraction = float(data.get("test_fraction", 0.2))
    _, x, _, y = train_test_split(bunch.data, bunch.target, test_size=fraction, random_state=seed,
                                  stratify=bunch.target)
    x = x / float(data.get("scale", 16.0))
    return x, y, f"sklearn-digits (test_fraction={fraction}, seed={seed})"
