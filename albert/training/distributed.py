"""Devices and processes: one process or a torchrun group (NCCL on GPU, Gloo on CPU), the seeded
data order every process agrees on, small all-reduces, bf16 autocast, and the plain model inside
DistributedDataParallel / torch.compile wrappers."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as torch_dist
from torch import nn


@dataclass(frozen=True)
class Distributed:
    """This process's place in a (possibly single-process) run."""

    rank: int
    world_size: int
    local_rank: int
    device: torch.device

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def barrier(self) -> None:
        if self.world_size > 1:
            torch_dist.barrier()


def setup_distributed(device: str = "auto") -> Distributed:
    """Single process, or the torchrun process group (NCCL on GPU, Gloo on CPU)."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    rank, local_rank = int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0"))
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for, but this machine has no usable CUDA GPU; use --device cpu.")
    if device == "cuda":
        torch.cuda.set_device(local_rank)
        chosen = torch.device("cuda", local_rank)
    else:
        chosen = torch.device(device)
    if world_size > 1 and not torch_dist.is_initialized():
        torch_dist.init_process_group(backend="nccl" if chosen.type == "cuda" else "gloo")
    return Distributed(rank, world_size, local_rank, chosen)


def start_run(device: str, threads: int, output_dir: str) -> tuple[Distributed, Path]:
    """What every training command does first: join the process group (if any), set the CPU
    threads, and make the output directory."""
    dist = setup_distributed(device)
    if threads:
        torch.set_num_threads(threads)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    return dist, out


def check_workers(requested: int) -> None:
    """Refuse a `--data-workers` below -1, in one sentence (the config checks it when parsed)."""
    if requested < -1:
        raise ValueError(f"data_workers must be -1 (auto), 0 (in the training process) or a count, got {requested}.")


def epoch_order(size: int, seed: int, epoch: int) -> list[int]:
    """The seeded shuffle of `size` examples for one epoch (the same on every process)."""
    return torch.randperm(size, generator=torch.Generator().manual_seed(seed * 100_003 + epoch)).tolist()


def cleanup_distributed() -> None:
    if torch_dist.is_initialized():
        torch_dist.destroy_process_group()


def all_reduce_mean(values: dict[str, float], dist: Distributed, device: torch.device) -> dict[str, float]:
    """Average scalar metrics over processes (identity in a single process)."""
    if dist.world_size == 1 or not values:
        return values
    keys = sorted(values)
    tensor = torch.tensor([values[k] for k in keys], dtype=torch.float64, device=device)
    torch_dist.all_reduce(tensor)
    return {k: float(v) / dist.world_size for k, v in zip(keys, tensor.tolist(), strict=True)}


def all_reduce_sum(values: torch.Tensor, dist: Distributed, device: torch.device) -> torch.Tensor:
    """Sum a small tensor over processes (identity in a single process)."""
    if dist.world_size == 1:
        return values
    reduced = values.to(device)
    torch_dist.all_reduce(reduced)
    return reduced.cpu()


def autocast(device: torch.device, precision: str) -> contextlib.AbstractContextManager:
    """bf16 autocast when asked (CPU or GPU); fp32 otherwise."""
    if precision == "bf16":
        return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def unwrap(model: nn.Module) -> nn.Module:
    """The plain model inside DistributedDataParallel and/or torch.compile wrappers."""
    while True:
        if hasattr(model, "module"):
            model = model.module
        elif hasattr(model, "_orig_mod"):
            model = model._orig_mod
        else:
            return model
