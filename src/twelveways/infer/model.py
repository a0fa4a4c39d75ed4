"""Load the trained model the inference benchmark serves: a state_dict plus an architecture description.

The training stage saves ``results/models/<name>.pt`` (a state_dict, or a dict holding one under
``"state_dict"``) and ``results/models/<name>.json`` describing how to rebuild the module.  The
description is JSON so it can be read without unpickling code (``torch.load(weights_only=True)``):

```
{"name": "mlp-small",                      # workload name in the results (default: file stem)
 "architecture": {"family": "mlp",         # mlp | cnn (built here), or
                  "builder": "twelveways.train.models:build", "kwargs": {...},  # rebuild with training's code
                  "input_shape": [1, 8, 8], "num_classes": 10,
                  "hidden": [64], "channels": [16, 32], "kernel_size": 3},
 "data": {"test": "data/digits/test.npz", "format": "npz", "x_key": "X", "y_key": "y"},   # optional
 "quality": {"metric": "accuracy", "target": 0.95, "test_accuracy": 0.97},                   # optional
 "training": {"time_to_quality_s": 3.1, "total_time_s": 5.0, "epochs": 12}}                   # optional
```

A ``builder`` wins over ``family`` because only the training code knows its own module layout;
it must live in the ``twelveways`` package (a results folder must not be able to name arbitrary
code to import).  The state_dict is loaded strictly, so a description that does not match the
weights fails loudly instead of serving a half-initialised model.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from .. import atomic, inputs
from ..errors import ConfigError, MeasurementError


class ModelError(MeasurementError):
    """The checkpoint or its description cannot be turned into a working model."""


class MLP(nn.Module):
    """Flatten, then Linear+ReLU per hidden width, then a Linear classifier."""

    def __init__(self, input_shape, hidden, num_classes):
        super().__init__()
        width = 1
        for dim in input_shape:
            width *= int(dim)
        layers: list[nn.Module] = [nn.Flatten()]
        for size in hidden:
            layers += [nn.Linear(width, int(size)), nn.ReLU()]
            width = int(size)
        layers.append(nn.Linear(width, int(num_classes)))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    """Conv+ReLU(+2x2 max-pool while the map is at least 4 wide) per channel count, then an MLP head."""

    def __init__(self, input_shape, channels, num_classes, hidden=(), kernel_size=3):
        super().__init__()
        c, h, w = (int(d) for d in input_shape)
        blocks: list[nn.Module] = []
        for out in channels:
            blocks += [nn.Conv2d(c, int(out), int(kernel_size), padding=int(kernel_size) // 2), nn.ReLU()]
            c = int(out)
            if min(h, w) >= 4:
                blocks.append(nn.MaxPool2d(2))
                h, w = h // 2, w // 2
        self.features = nn.Sequential(*blocks)
        self.head = MLP((c, h, w), hidden, num_classes)

    def forward(self, x):
        return self.head(self.features(x))


@dataclass
class LoadedModel:
    """A ready module with what the results need to say about it."""

    name: str
    module: nn.Module
    description: dict
    path: Path
    input_shape: tuple[int, ...]
    num_classes: int
    parameters: int = field(default=0)


def build(architecture: dict) -> nn.Module:
    """A fresh module from an architecture description (see the module docstring)."""
    if not isinstance(architecture, dict):
        raise ModelError("model description has no 'architecture' mapping")
    builder = architecture.get("builder")
    if builder:
        return _call_builder(str(builder), architecture)
    family = architecture.get("family")
    try:
        shape = [int(d) for d in architecture["input_shape"]]
        classes = int(architecture["num_classes"])
        if family == "mlp":
            return MLP(shape, architecture.get("hidden", []), classes)
        if family == "cnn":
            if len(shape) != 3:
                raise ModelError(f"cnn needs input_shape [channels, height, width], got {shape}")
            return CNN(shape, architecture["channels"], classes, architecture.get("hidden", []),
                       architecture.get("kernel_size", 3))
    except KeyError as exc:
        raise ModelError(f"architecture description lacks {exc.args[0]!r}") from exc
    raise ModelError(f"unknown model family {family!r} (known: mlp, cnn; or give a 'builder')")


def _call_builder(spec: str, architecture: dict) -> nn.Module:
    module_name, _, function = spec.partition(":")
    if not module_name.startswith("twelveways.") or not function:
        raise ModelError(f"builder {spec!r} must be 'twelveways.<module>:<function>'")
    try:
        target = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as exc:
        raise ModelError(f"cannot import model builder {spec!r}", cause=exc) from exc
    kwargs = architecture.get("kwargs")
    built = target(**kwargs) if isinstance(kwargs, dict) else target(architecture)
    if not isinstance(built, nn.Module):
        raise ModelError(f"builder {spec!r} returned {type(built).__name__}, not a torch module")
    return built


def describe(path: Path) -> dict:
    """The JSON description beside a checkpoint (``<stem>.json``); {} when there is none."""
    sidecar = path.with_suffix(".json")
    if not sidecar.is_file():
        return {}
    return inputs.read_json_object(sidecar, "model description", ModelError)


def load(path: str | Path) -> LoadedModel:
    """Rebuild and load the checkpoint at ``path`` in eval mode on the CPU."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"model checkpoint not found: {path} (the training stage writes it)")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises several types for damaged or foreign files
        raise ModelError(f"{path}: not a loadable torch checkpoint", cause=exc) from exc
    description = describe(path)
    if isinstance(blob, dict) and "state_dict" in blob:
        state = blob["state_dict"]
        for key, value in blob.items():
            if key != "state_dict":
                description.setdefault(key, value)
    else:
        state = blob
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ModelError(f"{path}: expected a state_dict (names -> tensors)")
    architecture = description.get("architecture")
    module = build(architecture)
    try:
        module.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise ModelError(f"{path}: weights do not match the described architecture", cause=exc) from exc
    module.eval()
    shape = tuple(int(d) for d in architecture.get("input_shape", ()))
    if not shape:
        raise ModelError(f"{path}: the architecture description needs 'input_shape'")
    return LoadedModel(name=str(description.get("name") or path.stem), module=module, description=description,
                       path=path, input_shape=shape, num_classes=int(architecture.get("num_classes", 0)),
                       parameters=sum(p.numel() for p in module.parameters()))


def save(module: nn.Module, path: str | Path, description: dict) -> Path:
    """Write a checkpoint in the format :func:`load` reads (used by tests and by size variants)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(module.state_dict(), path)
    atomic.write_text(path.with_suffix(".json"), json.dumps(description, indent=2, sort_keys=True) + "\n", "model description")
    return path
