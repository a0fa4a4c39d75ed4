"""Training pieces without a training run: config validation, olympic mean, lr rules, op counts, top-k."""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest

from lazy_modules import TORCH, lazy
from twelveways.config import validate
from twelveways.errors import ConfigError, StatisticsError
from twelveways.train.planning import plan, reference_config, scaled_lr
from twelveways.train.score import olympic_mean
from twelveways.train.settings import TrainConfig

torch = lazy("torch")
models = lazy("twelveways.train.models")
loop = lazy("twelveways.train.loop")
opcount = lazy("twelveways.train.opcount")

#: One worker runs these (tests/lazy_modules.py); besides importing PyTorch, the first optimizer step of a
#: process imports its compiler stack (seconds of CPU), paid once instead of once per xdist worker.
pytestmark = TORCH


# ------------------------------------------------------------------------------- config

@pytest.mark.parametrize("train, key, problem", [
    ({"targets": {"digits": 1.2}}, "train.targets.digits", "at most 1"),
    ({"targets": {"synthetic": 0}}, "train.targets.synthetic", "greater than 0"),
    ({"batch_size": 0}, "train.batch_size", "at least 1"),
    ({"batch_sizes": [32, 0]}, "train.batch_sizes[1]", "at least 1"),
    ({"models": ["mlp-small", "resnet50"]}, "train.models[1]", "'resnet50' is not one of"),
    ({"reference": {"model": "transformer"}}, "train.reference.model", "is not one of"),
    ({"seeds": 2}, "train.seeds", "at least 3"),
    ({"lr_rule": "cubic"}, "train.lr_rule", "is not one of"),
    ({"parallel": {"topk_ratio": 1.5}}, "train.parallel.topk_ratio", "at most 1"),
    ({"epochs": 3}, "train.epochs", "unknown key"),
])
def test_bad_training_settings_fail_validation_in_one_line(train, key, problem):
    with pytest.raises(ConfigError) as info:
        validate({"train": train})
    line = info.value.one_line()
    assert "\n" not in line
    assert f"'{key}'" in line and problem in line


def test_defaults_are_filled_and_every_model_name_builds():
    train = validate({})["train"]
    assert train["targets"]["digits"] == 0.95 and train["seeds"] == 5
    for name in models.MODELS:
        shape = (1, 8, 8)
        out = models.build(name, shape, 10)(torch.zeros(2, *shape))
        assert out.shape == (2, 10)
    assert models.applicable("mlp-small", (20,)) and not models.applicable("cnn-small", (20,))


def test_plan_varies_one_factor_per_study():
    settings = TrainConfig.from_config(validate({}))
    manifest = {"datasets": {"digits": {"input_shape": [1, 8, 8]}, "synthetic": {"input_shape": [20]},
                             "digits32": {"input_shape": [1, 32, 32]}}}
    planned = plan(settings, manifest)
    finals, parallel, trials = planned.finals, planned.parallel, planned.trials
    ref = reference_config(settings)
    assert planned.reference == ref and next(iter(finals)) == ref
    batch = {c.batch_size: c for c, s in finals.items() if "batch_size" in s}
    assert set(batch) == set(settings.batch_sizes)
    assert batch[512].lr == pytest.approx(0.05 * 512 / 32) and batch[512].lr_rule == "linear"
    assert ref in finals and {"batch_size", "precision", "io", "input_size", "families"} <= finals[ref]
    assert not any(c.model.startswith("cnn") and c.dataset == "synthetic" for c in finals)
    scalings = {(c.ranks, c.scaling, c.sparsification) for c, _ in parallel}
    assert (1, "base", "none") in scalings and (2, "strong", "none") in scalings
    assert (2, "strong", "topk:0.01+ef") in scalings
    weak = next(c for c, _ in parallel if c.scaling == "weak")
    assert weak.batch_size == 128 and weak.lr == pytest.approx(0.05 * 128 / 32)
    assert [t.lr for t in trials] == list(settings.lr_search.lrs) and all(t.role == "tuning" for t in trials)
    # the lr search's final configuration joins the plan without touching the original
    chosen = replace(trials[0], role="final")
    searched = planned.with_final(chosen, "lr_search")
    assert chosen not in finals and searched.finals[chosen] == {"lr_search"}
    assert list(searched.finals)[:-1] == list(finals) and searched.finals[ref] == finals[ref]


def test_strong_scaling_that_cannot_split_the_batch_is_a_config_error():
    settings = TrainConfig.from_config(validate({"train": {"parallel": {"batch_size": 1, "ranks": [1, 2]}}}))
    manifest = {"datasets": {"digits": {"input_shape": [1, 8, 8]}, "synthetic": {"input_shape": [20]}}}
    with pytest.raises(ConfigError, match="train.parallel.batch_size"):
        plan(settings, manifest)


@pytest.mark.parametrize("train, expected", [
    ({}, ("digits", "digits32", "synthetic")),
    ({"datasets": ["synthetic"], "input_sizes": [8]}, ("digits", "synthetic")),
    ({"datasets": ["digits"], "input_sizes": [32]}, ("digits", "digits32")),
])
def test_the_data_sets_to_prepare_are_stated_once(train, expected):
    """The one list data preparation, the study's verification and the Snakemake rule all read."""
    settings = TrainConfig.from_config(validate({"train": train}))
    assert settings.datasets_to_prepare() == expected


def test_typed_config_is_frozen_and_carries_the_seed():
    settings = TrainConfig.from_config(validate({"seed": 7, "train": {"parallel": {"launcher": "srun --mpi=pmi2"}}}))
    assert settings.seed == 7 and settings.parallel.launcher == "srun --mpi=pmi2"
    with pytest.raises(FrozenInstanceError):
        settings.seeds = 10
    with pytest.raises(TypeError):
        settings.targets["digits"] = 0.5


def test_lr_scaling_rules():
    assert scaled_lr(0.1, 256, 32, "linear") == pytest.approx(0.8)
    assert scaled_lr(0.1, 128, 32, "sqrt") == pytest.approx(0.2)
    assert scaled_lr(0.1, 128, 32, "none") == pytest.approx(0.1)


# ------------------------------------------------------------------------------- olympic mean

def test_olympic_mean_drops_fastest_and_slowest():
    score = olympic_mean([5.0, 1.0, 3.0, 4.0, 2.0], [True] * 5, list("abcde"))
    assert score.valid and score.score_s == pytest.approx(3.0)
    assert set(score.dropped) == {"a", "b"} and set(score.kept) == {"c", "d", "e"}


def test_one_non_converged_run_counts_as_slowest():
    # run a stopped early without reaching the target: "fast", yet dropped as the slowest
    score = olympic_mean([0.5, 1.0, 3.0, 4.0, 2.0], [False, True, True, True, True], list("abcde"))
    assert score.valid and score.n_converged == 4
    assert score.dropped == ["b", "a"] and sorted(score.kept) == ["c", "d", "e"]
    assert score.score_s == pytest.approx(3.0)


def test_more_than_one_non_converged_run_makes_the_score_invalid():
    score = olympic_mean([1.0, 2.0, 3.0, 4.0, 5.0], [False, True, False, True, True])
    assert not score.valid and math.isnan(score.score_s) and "2 of 5" in score.reason


def test_olympic_mean_needs_three_runs():
    with pytest.raises(StatisticsError):
        olympic_mean([1.0, 2.0], [True, True])


# ------------------------------------------------------------------------------- ops per dtype

def _one_step(model, precision):
    x, y = torch.rand(16, 1, 8, 8), torch.randint(0, 10, (16,))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with opcount.DtypeOpCounter() as counter:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return counter


@pytest.mark.parametrize("name", ["mlp-small", "cnn-small"])
def test_ops_are_counted_in_the_dtype_they_ran_in(name):
    fp32 = _one_step(models.build(name, (1, 8, 8), 10), "fp32")
    bf16 = _one_step(models.build(name, (1, 8, 8), 10), "bf16")
    assert fp32.total("matmul_conv") > 0
    assert ("matmul_conv", "bf16") not in fp32.counts
    # autocast runs every matmul/conv in bf16 (same flops), while the loss stays fp32
    assert bf16.counts[("matmul_conv", "bf16")] == fp32.counts[("matmul_conv", "fp32")]
    assert ("matmul_conv", "fp32") not in bf16.counts
    assert bf16.counts[("elementwise", "fp32")] > 0 and bf16.counts[("elementwise", "bf16")] > 0
    # the MLP's matmul flops follow from its layer sizes: 3 GEMMs per layer (fwd, dX, dW) minus the first dX
    if name == "mlp-small":
        n = 16
        forward = 2 * n * (64 * 64 + 64 * 10)
        assert fp32.counts[("matmul_conv", "fp32")] == forward + 2 * 2 * n * 64 * 10 + 2 * n * 64 * 64


# ------------------------------------------------------------------------------- top-k exchange

class _SelfComm:
    """A one-rank stand-in for an mpi4py communicator (the real one is used in test_train_runs)."""

    def Get_size(self):
        return 1

    def Allgather(self, send, recv):
        recv.reshape(-1)[...] = send

    def Allreduce(self, _inplace, buf, op=None):
        return None


def test_topk_sends_k_entries_and_feeds_back_the_rest():
    torch.manual_seed(0)
    layer = torch.nn.Linear(10, 10)
    layer.weight.grad = torch.arange(100, dtype=torch.float32).reshape(10, 10) - 50
    layer.bias.grad = torch.zeros(10)
    original = torch.cat([layer.weight.grad.reshape(-1), layer.bias.grad]).clone()
    exchange = loop.GradientExchange(_SelfComm(), layer.parameters(), topk_ratio=0.05, error_feedback=True)
    assert exchange.k == 6 and exchange.payload_bytes == 6 * 8
    exchange()
    sent = torch.cat([layer.weight.grad.reshape(-1), layer.bias.grad])
    assert int((sent != 0).sum()) == 6
    assert torch.equal(sent[sent != 0].abs().sort().values, original.abs().sort().values[-6:])
    # what was not sent is kept and added next time: residual + sent == original
    assert torch.equal(exchange.residual + sent, original)
    layer.weight.grad.zero_()
    layer.bias.grad.zero_()
    exchange()
    second = torch.cat([layer.weight.grad.reshape(-1), layer.bias.grad])
    assert int((second != 0).sum()) == 6 and torch.all(second[second != 0].abs() <= sent[sent != 0].abs().min())
    assert np.isclose(float((exchange.residual + second + sent - original).abs().sum()), 0.0)


def test_momentum_sgd_matches_torch_sgd():
    torch.manual_seed(1)
    ours, theirs = models.build("mlp-small", (1, 8, 8), 10), models.build("mlp-small", (1, 8, 8), 10)
    theirs.load_state_dict(ours.state_dict())
    opt_ours = loop.MomentumSGD(ours.parameters(), lr=0.1, momentum=0.9)
    opt_theirs = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    for _step in range(4):
        x, y = torch.rand(8, 1, 8, 8), torch.randint(0, 10, (8,))
        for model, opt in ((ours, opt_ours), (theirs, opt_theirs)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    for a, b in zip(ours.parameters(), theirs.parameters()):
        assert torch.allclose(a, b, atol=1e-6)
