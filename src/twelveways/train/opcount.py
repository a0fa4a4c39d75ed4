"""Operations counted per dtype as actually executed (F5: no op/s without the bitwidth).

A ``TorchDispatchMode`` sees every aten operator after autocast has chosen its dtypes, so what
it counts is what ran, not what the model "would" do.  Two kinds are counted:

* ``matmul_conv`` flops, with PyTorch's own formulas (``torch.utils.flop_counter.flop_registry``:
  mm, addmm, bmm, convolution and their backward), keyed by the dtype of the operator's inputs;
* ``elementwise``: one op per output element of every other floating-point operator (activations,
  loss, optimiser updates, dtype casts), keyed by the output's dtype.  A coarse count, labelled so.
"""

from __future__ import annotations

from collections import defaultdict

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import flop_registry

DTYPE_NAMES = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16", torch.float64: "fp64"}


def dtype_name(dtype: torch.dtype) -> str:
    return DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


class DtypeOpCounter(TorchDispatchMode):
    """Counts ``(kind, dtype) -> ops`` for every operator run inside ``with DtypeOpCounter() as c``."""

    def __init__(self):
        super().__init__()
        self.counts: dict[tuple[str, str], float] = defaultdict(float)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        packet = func._overloadpacket
        inputs = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
        if packet in flop_registry:
            flops = flop_registry[packet](*args, **kwargs, out_val=out)
            floating = [t for t in inputs if t.is_floating_point()]
            dtype = floating[0].dtype if floating else torch.float32
            self.counts[("matmul_conv", dtype_name(dtype))] += float(flops)
        else:
            outputs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor) and t.is_floating_point()]
            for tensor in outputs:
                if tensor.numel():
                    self.counts[("elementwise", dtype_name(tensor.dtype))] += float(tensor.numel())
        return out

    def as_records(self) -> list[dict]:
        return [{"op_kind": kind, "op_dtype": dtype, "ops": value} for (kind, dtype), value in sorted(self.counts.items())]

    def total(self, kind: str | None = None) -> float:
        return float(sum(v for (k, _), v in self.counts.items() if kind is None or k == kind))
