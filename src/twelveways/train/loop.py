"""One timed training run under MLPerf's timing rules, logged with ``mllog``.

Timeline of a run (every event goes to the run's mllog log, see :mod:`.mllog_io`):

1. ``init_start`` .. ``init_stop``: model creation and seeded initialisation.  Excluded from the
   time to train (MLPerf allows it) but recorded as ``init_time`` so it is not hidden.  The
   "preloaded" variant reads the data here, i.e. outside the timed region, and says so.
2. ``run_start``: the timed region starts.  The "io" variant now reads and decodes the data file
   from disk: the first touch of the data (F10).
3. Epochs of SGD; after each epoch one evaluation on the validation split.
4. ``run_stop`` at the first evaluation that reaches the quality target (status ``success``), or
   after ``max_epochs`` (status ``aborted``: the run did not converge).
5. Outside the timed region: test-split and training-split accuracy (F3).

A data-parallel run passes an mpi4py communicator: every rank reads the data, takes its share of
each global batch, gradients are averaged with ``Allreduce`` (or top-k sparsified with error
feedback and exchanged with ``Allgather``), and validation counts are summed across ranks.
"""

from __future__ import annotations

import platform
import time
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from . import models
from .data import load_npz
from .mllog_io import BENCHMARK, NullLog, RunLog

PRECISIONS = {"fp32": None, "bf16": torch.bfloat16}
MLLOG_PRECISION = {"fp32": "fp32", "bf16": "bfloat16"}


class MomentumSGD:
    """SGD with momentum, the update of ``torch.optim.SGD`` (no dampening, Nesterov or weight decay).

    ``buf = grad`` on the first step, then ``buf = momentum * buf + grad``; ``p -= lr * buf``.
    Written out because constructing ``torch.optim.SGD`` imports ``torch._dynamo``, which costs
    about 2.6 s per process on the project machine: paid once per MPI rank and per test, it would
    dominate a benchmark whose runs take a tenth of a second.  A test checks it matches torch's.
    """

    def __init__(self, params, lr: float, momentum: float):
        self.params = [p for p in params if p.requires_grad]
        self.lr = float(lr)
        self.momentum = float(momentum)
        self.buffers = [None] * len(self.params)

    def zero_grad(self, set_to_none: bool = False) -> None:
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()

    @torch.no_grad()
    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            if self.momentum:
                if self.buffers[i] is None:
                    self.buffers[i] = p.grad.detach().clone()
                else:
                    self.buffers[i].mul_(self.momentum).add_(p.grad)
                update = self.buffers[i]
            else:
                update = p.grad
            p.add_(update, alpha=-self.lr)


def _autocast(precision: str):
    dtype = PRECISIONS[precision]
    return torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None)


class GradientExchange:
    """Average gradients across ranks: dense Allreduce, or top-k with error feedback (F2)."""

    def __init__(self, comm, params, topk_ratio: float = 1.0, error_feedback: bool = True):
        self.comm = comm
        self.size = comm.Get_size() if comm is not None else 1
        self.params = [p for p in params if p.requires_grad]
        self.numel = sum(p.numel() for p in self.params)
        self.sparse = topk_ratio < 1.0
        self.k = max(1, int(round(topk_ratio * self.numel)))
        self.error_feedback = error_feedback
        self.residual = torch.zeros(self.numel) if self.sparse and error_feedback else None
        self.comm_seconds = 0.0

    @property
    def payload_bytes(self) -> int:
        """Bytes each rank contributes per step (dense fp32 values, or k fp32 values + k int32 indices)."""
        return self.k * 8 if self.sparse else self.numel * 4

    def __call__(self) -> None:
        if self.comm is None:
            return
        from mpi4py import MPI

        flat = torch.cat([p.grad.reshape(-1) for p in self.params])
        start = time.perf_counter()
        if not self.sparse:
            buffer = flat.numpy()
            self.comm.Allreduce(MPI.IN_PLACE, buffer, op=MPI.SUM)
            averaged = torch.from_numpy(buffer) / self.size
        else:
            if self.residual is not None:
                flat = flat + self.residual
            _, index = torch.topk(flat.abs(), self.k, sorted=False)
            values = flat[index].contiguous()
            if self.residual is not None:
                self.residual = flat
                self.residual[index] = 0.0
            # one Allgather of [indices | values bit-cast to int32]: the exchange is latency-bound
            send = np.empty(2 * self.k, dtype=np.int32)
            send[:self.k] = index.to(torch.int32).numpy()
            send[self.k:] = values.numpy().view(np.int32)
            received = np.empty((self.size, 2 * self.k), dtype=np.int32)
            self.comm.Allgather(send, received)
            all_index = torch.from_numpy(np.ascontiguousarray(received[:, :self.k]).reshape(-1)).long()
            all_values = torch.from_numpy(np.ascontiguousarray(received[:, self.k:]).reshape(-1).view(np.float32))
            averaged = torch.zeros(self.numel)
            averaged.index_add_(0, all_index, all_values)
            averaged /= self.size
        self.comm_seconds += time.perf_counter() - start
        offset = 0
        for p in self.params:
            n = p.numel()
            p.grad.copy_(averaged[offset:offset + n].view_as(p.grad))
            offset += n


def _accuracy(model, x, y, precision, comm=None) -> float:
    """Accuracy on (x, y); with a communicator each rank scores its share and counts are summed."""
    if comm is not None:
        rank, size = comm.Get_rank(), comm.Get_size()
        x, y = x[rank::size], y[rank::size]
    model.eval()
    correct = 0
    with torch.no_grad(), _autocast(precision):
        for start in range(0, len(x), 1024):
            correct += int((model(x[start:start + 1024]).argmax(1) == y[start:start + 1024]).sum())
    counts = np.array([correct, len(y)], dtype=np.int64)
    if comm is not None:
        from mpi4py import MPI

        comm.Allreduce(MPI.IN_PLACE, counts, op=MPI.SUM)
    return float(counts[0] / counts[1])


def _header(log, spec: dict, n_train: int, n_val: int) -> None:
    log.event("submission_benchmark", BENCHMARK)
    log.event("submission_org", "twelveways")
    log.event("submission_division", "research")
    log.event("submission_platform", f"{platform.machine()} {platform.node()}")
    log.event("tw_config_id", spec["config_id"])
    log.event("tw_dataset", spec["dataset"], {"input_size": spec["input_size"], "data_sha256": spec["data_sha256"]})
    log.event("tw_model", spec["model"])
    log.event("tw_variant", spec["variant"])
    log.event("tw_quality_target", spec["target"], {"metric": "validation_accuracy"})
    log.event("seed", spec["seed"])
    log.event("global_batch_size", spec["batch_size"])
    log.event("opt_name", "sgd")
    log.event("opt_base_learning_rate", spec["lr"], {"momentum": spec["momentum"]})
    log.event("tw_lr_rule", spec["lr_rule"], {"base_batch_size": spec["base_batch_size"], "base_lr": spec["base_lr"]})
    log.event("lowest_numerical_precision_in_linear", MLLOG_PRECISION[spec["precision"]])
    log.event("tw_ranks", spec["ranks"], {"scaling": spec["scaling"], "threads": spec["threads"]})
    log.event("tw_sparsification", spec["sparsification"])
    log.event("train_samples", n_train)
    log.event("eval_samples", n_val)
    log.event("cache_clear", False, {"reason": "the OS page cache is not dropped (needs root); "
                                               "the io variant reads the file through it"})


def train_run(spec: dict, comm=None, keep_model: bool = False) -> dict:
    """Run one seeded training run to the target; return its curves, per-run values and logs.

    ``spec`` keys: config_id, model, dataset, data_path, data_sha256, input_size, target, seed,
    batch_size (global), base_batch_size, base_lr, lr, lr_rule, momentum, precision, variant,
    max_epochs, ranks, scaling, sparsification, topk_ratio, error_feedback, threads, log_path.
    Returns ``{"curves": [...], "values": {...}, "status": ..., "model": module or None}``.
    """
    rank = comm.Get_rank() if comm is not None else 0
    log = RunLog(spec["log_path"]) if rank == 0 and spec["log_path"] else NullLog()
    wall_start = time.perf_counter()
    try:
        return _train(spec, comm, log, keep_model, wall_start)
    finally:
        log.close()


class _Initialised(NamedTuple):
    """What initialisation (outside the timed region) hands to the timed region."""

    model: torch.nn.Module
    optimizer: MomentumSGD
    exchange: GradientExchange
    shuffle: torch.Generator
    preloaded: dict | None  # the data, read before run_start (variant preloaded), else None
    preload_s: float
    init_start: float
    init_stop: float


class _Epoch(NamedTuple):
    """One epoch's step statistics on this rank (the loss sum is over every rank's samples)."""

    loss_sum: torch.Tensor  # [sum of loss * samples, samples]
    steps: int
    step_seconds: float
    samples: int  # global samples, all ranks
    comm_seconds: float


class _Timed(NamedTuple):
    """The epochs of the timed region: curves and totals up to the stopping evaluation."""

    curves: list
    reached: bool
    epochs: int
    samples_seen: int
    steps: int
    step_seconds: float


def _train(spec: dict, comm, log, keep_model: bool, wall_start: float) -> dict:
    """The run's timeline (module docstring): init, timed epochs to the target, generalisation after."""
    _header(log, spec, spec["n_train"], spec["n_val"])
    init = _initialise(spec, comm, log)
    # 2. the timed region starts at the first touch of the data
    run_start = log.start("run_start")
    data, data_load_s = init.preloaded, init.preload_s
    if data is None:
        data, data_load_s = _read_data(spec, log, "inside the timed region (io)")
    train = torch.from_numpy(data["x_train"]), torch.from_numpy(data["y_train"])
    val = torch.from_numpy(data["x_val"]), torch.from_numpy(data["y_val"])
    timed = _epochs(spec, init, train, val, comm, log, run_start)
    status = "success" if timed.reached else "aborted"
    run_stop = log.end("run_stop", metadata={"status": status, "epoch_num": timed.epochs})

    # 5. outside the timed region: generalisation (F3)
    test_acc = _accuracy(init.model, *_split(spec, "test", comm), spec["precision"], comm)
    train_acc = _accuracy(init.model, *train, spec["precision"], comm)
    log.event("tw_test_accuracy", test_acc)
    log.event("tw_train_accuracy", train_acc)
    values = {
        "time_to_train": (run_stop - run_start) / 1e3,
        "init_time": (init.init_stop - init.init_start) / 1e3,
        "data_load_time": data_load_s,
        "epochs_to_target": float(timed.epochs),
        "converged": float(timed.reached),
        "test_accuracy": test_acc,
        "train_accuracy": train_acc,
        **_step_values(timed, init.exchange, comm is not None and comm.Get_size() > 1),
        "run_wall_time": time.perf_counter() - wall_start,
        "n_parameters": float(models.n_parameters(init.model)),
    }
    return {"curves": timed.curves, "values": values, "status": status, "run_start_ms": run_start,
            "run_stop_ms": run_stop, "model": init.model if keep_model else None}


def _initialise(spec: dict, comm, log) -> _Initialised:
    """1. Model, optimiser and shuffling seeded from the run's seed: excluded from the time to train, recorded."""
    seed = int(spec["seed"])
    init_start = log.start("init_start")
    torch.manual_seed(seed)
    model = models.build(spec["model"], spec["input_shape"], spec["n_classes"])
    if comm is not None:  # same seed gives the same weights; broadcast anyway, as a real run must
        for p in model.parameters():
            buf = p.data.numpy()
            comm.Bcast(buf, root=0)
    optimizer = MomentumSGD(model.parameters(), lr=spec["lr"], momentum=spec["momentum"])
    exchange = GradientExchange(comm, model.parameters(), spec["topk_ratio"], spec["error_feedback"])
    shuffle = torch.Generator().manual_seed(seed)
    preloaded, preload_s = None, 0.0
    if spec["variant"] == "preloaded":
        preloaded, preload_s = _read_data(spec, log, "before run_start (preloaded)")
    init_stop = log.end("init_stop")
    if comm is not None:
        comm.Barrier()
    return _Initialised(model, optimizer, exchange, shuffle, preloaded, preload_s, init_start, init_stop)


def _read_data(spec: dict, log, phase: str) -> tuple[dict, float]:
    """Read and decode the training and validation splits; the seconds go to the log with ``phase``."""
    t0 = time.perf_counter()
    data = load_npz(spec["data_path"], ("train", "val"))
    seconds = time.perf_counter() - t0
    log.event("tw_data_read", spec["data_path"], {"phase": phase, "seconds": seconds})
    return data, seconds


def _epochs(spec: dict, init: _Initialised, train, val, comm, log, run_start: float) -> _Timed:
    """3.-4. Epochs of SGD, each followed by a validation eval, until the target or ``max_epochs``."""
    curves, samples_seen, steps, step_seconds, reached, epoch = [], 0, 0, 0.0, False, 0
    for epoch in range(1, int(spec["max_epochs"]) + 1):
        log.start("epoch_start", metadata={"epoch_num": epoch})
        stats = _train_epoch(spec, init, train, comm)
        steps += stats.steps
        step_seconds += stats.step_seconds
        samples_seen += stats.samples
        log.end("epoch_stop", metadata={"epoch_num": epoch})
        log.start("eval_start", metadata={"epoch_num": epoch})
        accuracy = _accuracy(init.model, *val, spec["precision"], comm)
        log.event("eval_accuracy", accuracy, {"epoch_num": epoch})
        stamp = log.end("eval_stop", metadata={"epoch_num": epoch})
        curves.append({
            "epoch": epoch,
            "val_accuracy": accuracy,
            "train_loss": float(stats.loss_sum[0] / stats.loss_sum[1]),
            "wall_time": (stamp - run_start) / 1e3,
            "samples_seen": samples_seen,
            "time_per_step": stats.step_seconds / max(stats.steps, 1),
            "comm_time_per_step": stats.comm_seconds / max(stats.steps, 1),
        })
        if accuracy >= spec["target"]:
            reached = True
            break
    return _Timed(curves, reached, epoch, samples_seen, steps, step_seconds)


def _train_epoch(spec: dict, init: _Initialised, train, comm) -> _Epoch:
    """One pass over the training split in seeded order; each rank takes its share of every global batch."""
    rank = comm.Get_rank() if comm is not None else 0
    size = comm.Get_size() if comm is not None else 1
    x_train, y_train = train
    batch = int(spec["batch_size"])
    init.model.train()
    order = torch.randperm(len(y_train), generator=init.shuffle)
    loss_sum = torch.zeros(2, dtype=torch.float64)
    steps, seconds, samples = 0, 0.0, 0
    comm_before = init.exchange.comm_seconds
    for first in range(0, len(y_train), batch):
        t0 = time.perf_counter()
        global_idx = order[first:first + batch]
        local_idx = global_idx[rank::size] if size > 1 else global_idx
        xb, yb = x_train[local_idx], y_train[local_idx]
        with _autocast(spec["precision"]):
            loss = F.cross_entropy(init.model(xb), yb)
        init.optimizer.zero_grad(set_to_none=False)
        loss.backward()
        init.exchange()
        init.optimizer.step()
        seconds += time.perf_counter() - t0
        loss_sum += torch.tensor([float(loss.detach()) * len(yb), len(yb)], dtype=torch.float64)
        samples += len(global_idx)
        steps += 1
    if comm is not None:
        from mpi4py import MPI

        comm.Allreduce(MPI.IN_PLACE, loss_sum.numpy(), op=MPI.SUM)
    return _Epoch(loss_sum, steps, seconds, samples, init.exchange.comm_seconds - comm_before)


def _step_values(timed: _Timed, exchange: GradientExchange, exchanged: bool) -> dict:
    """Per-run step metrics: last validation accuracy, samples, steps, time and bytes per step, throughput."""
    return {
        "val_accuracy": timed.curves[-1]["val_accuracy"] if timed.curves else float("nan"),
        "samples_seen": float(timed.samples_seen),
        "steps": float(timed.steps),
        "time_per_step": timed.step_seconds / max(timed.steps, 1),
        "comm_time_per_step": exchange.comm_seconds / max(timed.steps, 1),
        "comm_bytes_per_step": float(exchange.payload_bytes if exchanged else 0),
        "throughput": timed.samples_seen / timed.step_seconds if timed.step_seconds > 0 else float("nan"),
    }


def warm_up(combos, comm=None) -> float:
    """One untimed step per (model, input shape, n_classes, precision) before any run.

    PyTorch loads kernels and optimiser machinery lazily and MPI sets up connections on first
    use; without this the first run of a process pays for all of it (seconds on this machine),
    which would land in whichever run the seeded order puts first.  Returns the seconds spent,
    which the results record (nothing is hidden, it is just not charged to one run).
    """
    start = time.perf_counter()
    for name, shape, n_classes, precision in combos:
        torch.manual_seed(0)
        model = models.build(name, shape, n_classes)
        optimizer = MomentumSGD(model.parameters(), lr=0.01, momentum=0.9)
        exchange = GradientExchange(comm, model.parameters())
        x = torch.rand((8, *shape))
        y = torch.randint(0, n_classes, (8,))
        with _autocast(precision):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        exchange()
        optimizer.step()
        _accuracy(model, x, y, precision, comm)
    if comm is not None:
        comm.Barrier()
    return time.perf_counter() - start


def _split(spec, split, comm):
    data = load_npz(spec["data_path"], (split,))
    return torch.from_numpy(data[f"x_{split}"]), torch.from_numpy(data[f"y_{split}"])
