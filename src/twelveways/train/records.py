"""One run's result rows: its spec, its factors, its curve and per-run values, its op counts.

Every row carries the configuration's factors (``factors``) so the results file is long form:
one row per epoch and metric for the curves (iteration = epoch), one per per-run metric
(iteration -1), one per op kind and dtype for the op counts (seed -1).  Units and definitions
of the metrics are stated here, once, and stored with the results.
"""

from __future__ import annotations

from pathlib import Path

from . import models
from .planning import RunConfig
from .settings import TrainConfig

UNITS = {
    "val_accuracy": "1", "train_loss": "1", "wall_time": "s", "samples_seen": "samples", "time_per_step": "s",
    "comm_time_per_step": "s", "time_to_train": "s", "init_time": "s", "data_load_time": "s",
    "epochs_to_target": "epochs", "converged": "1", "test_accuracy": "1", "train_accuracy": "1", "steps": "steps",
    "throughput": "samples/s", "run_wall_time": "s", "n_parameters": "1", "comm_bytes_per_step": "B",
    "train_flops": "flop", "flop_rate": "flop/s", "compliant": "1", "ops_per_step": "op", "tuning_cost": "s",
}

DEFINITIONS = {
    "time_to_train": "run_stop - run_start from the run's mllog log (s): from the first touch of the data on disk "
                     "(variant io) to the end of the first validation eval reaching the target; valid only if converged",
    "init_time": "init_start to init_stop: model creation and initialisation, excluded from time_to_train (MLPerf)",
    "data_load_time": "reading and decoding the data file; inside time_to_train for variant io, outside for preloaded",
    "epochs_to_target": "epochs until the first eval reaching the target; valid only if converged",
    "throughput": "training samples per second of step time (forward, backward, gradient exchange, update)",
    "time_per_step": "mean wall time of one optimiser step on rank 0 (per iteration cost, F2)",
    "comm_time_per_step": "mean time of the gradient exchange per step on rank 0, top-k selection included",
    "comm_bytes_per_step": "gradient payload each rank contributes per step (dense fp32, or k values + k int32 indices)",
    "train_flops": "matmul/conv flops executed in training, counted per dtype by a TorchDispatchMode (all ranks)",
    "flop_rate": "train_flops / step time",
    "ops_per_step": "ops of one training step per rank, by op_kind (matmul_conv flops | elementwise ops) and op_dtype",
    "run_wall_time": "whole run including init and the post-run test/train evaluation (what a tuning trial costs)",
    "tuning_cost": "sum of run_wall_time over every learning-rate trial (F4)",
    "compliant": "1 if the run's mllog log passed the MLPerf compliance checker with the shipped ruleset",
    "score": "MLPerf olympic mean of time_to_train over the seeds: drop fastest and slowest, mean of the rest; "
             "a non-converged run counts as the slowest, more than one makes the score invalid",
}


def make_spec(cfg: RunConfig, seed: int, settings: TrainConfig, manifest: dict, log_dir: Path) -> dict:
    """Everything one run needs (:func:`.loop.train_run`), JSON-ready so an MPI launch can read it from a file."""
    entry = manifest["datasets"][cfg.data_name]
    target = settings.targets[cfg.data_name]
    run_id = f"{cfg.config_id}/s{seed}"
    return {
        "config_id": cfg.config_id, "run_id": run_id, "model": cfg.model, "dataset": cfg.dataset,
        "input_size": cfg.input_size, "data_path": str((Path(settings.data_dir) / entry["file"]).resolve()),
        "data_sha256": entry["sha256"], "input_shape": entry["input_shape"], "n_classes": entry["n_classes"],
        "n_train": entry["n_train"], "n_val": entry["n_val"], "target": target, "seed": seed,
        "batch_size": cfg.batch_size, "base_batch_size": settings.base_batch_size, "base_lr": settings.lr,
        "lr": cfg.lr, "lr_rule": cfg.lr_rule, "momentum": settings.momentum, "precision": cfg.precision,
        "variant": cfg.variant, "max_epochs": settings.max_epochs, "ranks": cfg.ranks, "scaling": cfg.scaling,
        "sparsification": cfg.sparsification, "topk_ratio": cfg.topk_ratio,
        "error_feedback": cfg.sparsification.endswith("+ef"), "threads": settings.threads,
        "log_path": str((log_dir / (run_id.replace("/", "_") + ".log")).resolve()),
    }


def _precision_label(precision: str) -> str:
    return "fp32" if precision == "fp32" else "mixed:bf16+fp32"


def factors(cfg: RunConfig, spec: dict, studies, threads: int) -> dict:
    """The factor columns every row of a run of ``cfg`` carries."""
    return {
        "benchmark": "train", "workload": cfg.model,
        "implementation": "torch+mpi4py" if cfg.scaling != "none" else "torch",
        "ranks": cfg.ranks, "threads": threads, "size": cfg.input_size, "precision": _precision_label(cfg.precision),
        "rank": -1, "batch_size": cfg.batch_size, "per_rank_batch": -(-cfg.batch_size // cfg.ranks),
        "lr": cfg.lr, "lr_rule": cfg.lr_rule, "base_lr": spec["base_lr"], "variant": cfg.variant,
        "scaling": cfg.scaling, "sparsification": cfg.sparsification, "dataset": cfg.dataset,
        "input_size": cfg.input_size, "role": cfg.role, "study": ";".join(sorted(studies)),
        "config_id": cfg.config_id, "target": spec["target"], "op_kind": "", "op_dtype": "",
        # checklist vocabulary (docs/checklist-evidence.md): whether the data read is inside the clock
        "io_included": int(cfg.variant == "io"), "timing_scope": "", "converged": float("nan"), "stop_reason": "",
    }


#: timing_scope per metric (F6/F10 vocabulary); time to train's scope depends on the variant.
SCOPES = {"time_per_step": "iteration", "comm_time_per_step": "component", "init_time": "init",
          "data_load_time": "io", "run_wall_time": "whole_run", "epochs_to_target": "end_to_end"}


def run_rows(cfg, spec, result, studies, threads, flops_per_sample, compliant) -> list[dict]:
    """The run's curve (one row per epoch and metric) and its per-run values (iteration -1)."""
    base = factors(cfg, spec, studies, threads)
    base.update({"seed": spec["seed"], "run_id": spec["run_id"], "status": result["status"],
                 "converged": float(result["values"]["converged"]),
                 # MLPerf fixes the number of seeded runs; nothing is repeated until a CI target is met
                 "stop_reason": "fixed_seeds"})
    end_to_end = "end_to_end" if cfg.variant == "io" else "preloaded"
    rows = []
    for point in result["curves"]:
        for metric in ("val_accuracy", "train_loss", "wall_time", "samples_seen", "time_per_step", "comm_time_per_step"):
            rows.append({**base, "iteration": point["epoch"], "metric": metric, "value": float(point[metric]),
                         "unit": UNITS[metric], "valid": True, "timing_scope": SCOPES.get(metric, "")})
    values = dict(result["values"])
    values["train_flops"] = flops_per_sample * values["samples_seen"]
    step_time = values["time_per_step"] * values["steps"]
    values["flop_rate"] = values["train_flops"] / step_time if step_time > 0 else float("nan")
    values["compliant"] = float(compliant)
    converged = bool(values["converged"])
    for metric, value in values.items():
        valid = converged if metric in ("time_to_train", "epochs_to_target") else True
        scope = end_to_end if metric in ("time_to_train", "epochs_to_target") else SCOPES.get(metric, "")
        rows.append({**base, "iteration": -1, "metric": metric, "value": float(value), "unit": UNITS[metric],
                     "valid": valid, "timing_scope": scope})
    return rows


def count_ops(cfg: RunConfig, manifest: dict, momentum: float) -> list[dict]:
    """Ops of one training step per rank (per-rank batch), by kind and dtype, as executed (F5)."""
    import torch

    from .loop import MomentumSGD, _autocast
    from .opcount import DtypeOpCounter

    entry = manifest["datasets"][cfg.data_name]
    batch = -(-cfg.batch_size // cfg.ranks)
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = models.build(cfg.model, entry["input_shape"], entry["n_classes"])
    optimizer = MomentumSGD(model.parameters(), lr=cfg.lr, momentum=momentum)
    x = torch.rand((batch, *entry["input_shape"]), generator=generator)
    y = torch.randint(0, entry["n_classes"], (batch,), generator=generator)
    with DtypeOpCounter() as counter:
        with _autocast(cfg.precision):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        optimizer.step()
    return [dict(r, batch=batch) for r in counter.as_records()]


def op_rows(cfg, spec, studies, threads, ops) -> list[dict]:
    """One row per op kind and dtype of one training step (seed -1: no run, a count)."""
    base = factors(cfg, spec, studies, threads)
    base.update({"seed": -1, "run_id": f"{cfg.config_id}/opcount", "status": ""})
    return [{**base, "iteration": -1, "metric": "ops_per_step", "value": float(r["ops"]), "unit": "op", "valid": True,
             "op_kind": r["op_kind"], "op_dtype": r["op_dtype"]} for r in ops]


def per_sample_flops(ops: list[dict]) -> float:
    """Matmul/conv flops of one training step divided by its per-rank batch (0 when nothing was counted)."""
    matmul = sum(r["ops"] for r in ops if r["op_kind"] == "matmul_conv")
    return matmul / ops[0]["batch"] if ops else 0.0


def tuning_cost_row(trial: RunConfig, settings: TrainConfig, manifest: dict, log_dir: Path, cost_s: float) -> dict:
    """The lr search's total cost (F4): one row with the first trial's factors."""
    spec = make_spec(trial, 0, settings, manifest, log_dir)
    return {**factors(trial, spec, {"lr_search"}, settings.threads), "seed": -1, "run_id": "lr_search/total",
            "iteration": -1, "metric": "tuning_cost", "value": float(cost_s), "unit": "s", "valid": True, "status": ""}
