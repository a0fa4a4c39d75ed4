"""Precision variants of one trained model, and the callables the SUT runs (F5, F12).

* ``fp32``: the model as trained.
* ``bf16``: weights and inputs cast to bfloat16 (``module.to(torch.bfloat16)``); the CPU may or
  may not have native bf16 arithmetic, which is exactly what the measurement shows.
* ``int8``: ``torch.ao.quantization.quantize_dynamic`` on every ``nn.Linear``: int8 weights,
  activations quantized per batch at run time, int32 accumulation.  Convolutions stay fp32, so a
  CNN's precision is recorded as ``mixed:int8-linear+fp32-conv`` (bitwidth stated, F5).

A runner maps QSL sample indices to predicted class ids (int32, the bytes LoadGen logs in
accuracy mode).  :class:`NullRunner` is the "model that does nothing" used to measure the
ceiling of LoadGen plus our Python SUT.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..errors import ConfigError

VARIANTS = ("fp32", "bf16", "int8")


@dataclass
class Variant:
    """A servable module and what its precision is, as executed."""

    name: str
    precision: str
    module: nn.Module
    input_dtype: torch.dtype
    note: str


def make(module: nn.Module, name: str) -> Variant:
    """The ``name`` variant (fp32, bf16, int8) of a trained fp32 module; the original is untouched."""
    if name == "fp32":
        return Variant("fp32", "fp32", copy.deepcopy(module).eval(), torch.float32, "as trained")
    if name == "bf16":
        return Variant("bf16", "bf16", copy.deepcopy(module).to(torch.bfloat16).eval(), torch.bfloat16,
                       "weights and activations bfloat16")
    if name == "int8":
        with warnings.catch_warnings():
            # torch.ao.quantization announces its move to torchao; the API still works in this torch
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", UserWarning)
            quantized = torch.ao.quantization.quantize_dynamic(copy.deepcopy(module).eval(), {nn.Linear},
                                                               dtype=torch.qint8)
        has_conv = any(isinstance(m, nn.modules.conv._ConvNd) for m in quantized.modules())
        precision = "mixed:int8-linear+fp32-conv" if has_conv else "int8"
        return Variant("int8", precision, quantized.eval(), torch.float32,
                       "dynamic quantization of nn.Linear (int8 weights, per-batch int8 activations, int32 accumulation)")
    raise ConfigError(f"unknown inference variant {name!r} (known: {', '.join(VARIANTS)})")


class TorchRunner:
    """Predict class ids for QSL indices with a variant; inputs are pre-cast once (untimed)."""

    def __init__(self, variant: Variant, features: torch.Tensor):
        self.variant = variant
        self.features = features.to(variant.input_dtype).contiguous()

    def __call__(self, indices) -> np.ndarray:
        index = torch.as_tensor(indices, dtype=torch.long)
        with torch.inference_mode():
            logits = self.variant.module(self.features.index_select(0, index))
            return logits.argmax(dim=1).to(torch.int32).numpy()


class NullRunner:
    """A model that does nothing: class 0 for every sample, no tensor work at all."""

    def __init__(self, capacity: int = 1 << 16):
        self._zeros = np.zeros(capacity, dtype=np.int32)

    def __call__(self, indices) -> np.ndarray:
        n = len(indices)
        if n > self._zeros.shape[0]:
            self._zeros = np.zeros(n, dtype=np.int32)
        return self._zeros[:n]


def ops_by_dtype(variant: Variant, input_shape) -> dict[str, float]:
    """Multiply-add operations per sample (2 per MAC) by layer kind and the dtype it runs in (F5).

    Why: a mixed variant's samples/s hides which work ran in which format; this states it for the
    layers that carry the arithmetic (convolutions and linear layers), from one traced sample.
    """
    counts: dict[str, float] = {}
    dynamic_linear = torch.ao.nn.quantized.dynamic.Linear

    def add(key, value):
        counts[key] = counts.get(key, 0.0) + float(value)

    def hook(module, _inputs, output):
        if isinstance(module, nn.modules.conv._ConvNd):
            per_output = module.in_channels // module.groups * int(np.prod(module.kernel_size))
            add(f"conv:{_dtype_name(module.weight.dtype)}", 2 * per_output * output[0].numel())
        elif isinstance(module, dynamic_linear):
            add("linear:int8", 2 * module.in_features * module.out_features)
        elif isinstance(module, nn.Linear):
            add(f"linear:{_dtype_name(module.weight.dtype)}", 2 * module.in_features * module.out_features)

    handles = [m.register_forward_hook(hook) for m in variant.module.modules()]
    try:
        with torch.inference_mode():
            variant.module(torch.zeros((1, *[int(d) for d in input_shape]), dtype=variant.input_dtype))
    finally:
        for handle in handles:
            handle.remove()
    return counts


def _dtype_name(dtype: torch.dtype) -> str:
    return {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16", torch.float64: "fp64"}.get(dtype, str(dtype))
