"""Model families (an MLP and a small CNN) in two sizes each, and the saved reference model.

Two families and two sizes exist so that a result is never "one network only" (F7) and so the
train/test gap can be compared across capacities (F3).  Every model takes the data set's native
input (images (N, 1, H, W), tabular (N, F)); the MLP flattens.  The CNNs end in an adaptive
average pool to 4x4, so the same architecture (and parameter count) runs on 8x8 and 32x32 inputs
and only the work per sample grows with the input size (F11).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:  # PyTorch is imported by what builds, saves or loads a model: naming one (planning) never needs it
    from torch import nn

#: name -> (family, description); the single source of the names the schema's enum lists.
MODELS = {
    "mlp-small": ("mlp", "flatten, Linear(in, 64), ReLU, Linear(64, classes)"),
    "mlp-large": ("mlp", "flatten, Linear(in, 512), ReLU, Linear(512, 256), ReLU, Linear(256, classes)"),
    "cnn-small": ("cnn", "Conv(1, 8, 3, pad 1), ReLU, Conv(8, 16, 3, pad 1), ReLU, AdaptiveAvgPool(4), Linear(256, classes)"),
    "cnn-large": ("cnn", "Conv(1, 32, 3, pad 1), ReLU, Conv(32, 64, 3, pad 1), ReLU, AdaptiveAvgPool(4), "
                         "Linear(1024, 128), ReLU, Linear(128, classes)"),
}


def family(name: str) -> str:
    if name not in MODELS:
        raise ConfigError(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    return MODELS[name][0]


def applicable(name: str, input_shape) -> bool:
    """CNNs need images; MLPs take anything."""
    return family(name) == "mlp" or len(input_shape) == 3


def build(name: str, input_shape, n_classes: int) -> nn.Module:
    """A fresh model; call under ``torch.manual_seed`` for a seeded initialisation."""
    from torch import nn

    kind = family(name)
    input_shape = tuple(int(d) for d in input_shape)
    if kind == "mlp":
        n_in = 1
        for d in input_shape:
            n_in *= d
        if name == "mlp-small":
            return nn.Sequential(nn.Flatten(), nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, n_classes))
        return nn.Sequential(nn.Flatten(), nn.Linear(n_in, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                             nn.Linear(256, n_classes))
    if len(input_shape) != 3:
        raise ConfigError(f"model {name!r} needs image input (C, H, W), the data have shape {input_shape}")
    channels = input_shape[0]
    if name == "cnn-small":
        return nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(256, n_classes))
    return nn.Sequential(nn.Conv2d(channels, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(1024, 128), nn.ReLU(),
                         nn.Linear(128, n_classes))


def n_parameters(model: nn.Module) -> int:
    return int(sum(p.numel() for p in model.parameters()))


# --------------------------------------------------------------------------- checkpoints

def architecture(name: str, input_shape, n_classes: int) -> dict:
    """How to rebuild a model, in the form the inference benchmark reads (``twelveways.infer.model``)."""
    shape = [int(d) for d in input_shape]
    return {"builder": "twelveways.train.models:build",
            "kwargs": {"name": name, "input_shape": shape, "n_classes": int(n_classes)},
            "family": family(name), "layers": MODELS[name][1], "input_shape": shape, "num_classes": int(n_classes)}


def save_checkpoint(model: nn.Module, path: str | Path, description: dict) -> dict:
    """Save the state dict and a JSON beside it (``.json``) saying how to rebuild and use it.

    The JSON is the inference benchmark's contract (``twelveways.infer.model``): ``name``,
    ``architecture`` (builder + kwargs, input_shape, num_classes), ``data`` (the test split's
    file and keys), ``quality`` (metric, target, accuracies reached) and ``training`` (time to
    quality of this run); the caller supplies all but the checkpoint's own fields.
    """
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial")
    torch.save({k: v.detach().cpu().clone() for k, v in model.state_dict().items()}, tmp)
    tmp.replace(path)
    info = dict(description)
    info.setdefault("name", path.stem)
    info.update({
        "checkpoint": path.name,
        "checkpoint_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "format": "torch.save(state_dict); rebuild with twelveways.train.models.load_checkpoint(json_path)",
        "n_parameters": n_parameters(model),
        "torch_version": torch.__version__,
    })
    json_path = path.with_suffix(".json")
    tmp = json_path.with_suffix(".partial")
    tmp.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    tmp.replace(json_path)
    return info


def load_checkpoint(json_path: str | Path) -> tuple[nn.Module, dict]:
    """Rebuild a saved model in eval mode from its JSON description; returns (model, description)."""
    import torch

    json_path = Path(json_path)
    info = json.loads(json_path.read_text())
    model = build(**info["architecture"]["kwargs"])
    state = torch.load(json_path.with_name(info["checkpoint"]), map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    model.eval()
    return model, info
