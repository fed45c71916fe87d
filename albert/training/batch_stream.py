"""Batches made beside the step: a seeded, resumable plan of which examples form each batch, made into tensors
by DataLoader worker processes (or in the training process with 0 workers), prefetched and pinned for a GPU.

The plan is the only thing the training process computes: a `BatchPlan` names an epoch and this process's
example indices. A worker turns a plan into a batch, and a batch depends only on its plan (every example is
seeded by (seed, epoch, index)), so 0 workers and N workers give the same batches in the same order, and a
resumed run continues with exactly the next one. Batches come back in plan order (DataLoader keeps it).

    stream = BatchStream(dataset, batch_size=32, dist=dist, seed=0, pad_id=0, workers=4)
    batch = stream.next()             # dict of tensors (pinned when asked)
    stream.epoch, stream.offset       # the position after the batches taken so far: a checkpoint stores it

`albert.commands.pretrain` draws from `BatchStream`; `albert.commands.finetune` uses `PlannedLoader` with its
own plans (one per step).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from albert.core.config import IGNORE_INDEX
from albert.data.pretraining_examples import PretrainingDataset, collate_pretraining
from albert.data.tasks import collate
from albert.training.distributed import Distributed, check_workers, epoch_order

MAX_AUTO_WORKERS = 8
"""`--data-workers -1` (auto) never starts more than this many workers per training process."""
PREFETCH_BATCHES = 4
"""Batches each worker keeps ready ahead of the step."""


def auto_workers(world_size: int = 1, cpus: int | None = None) -> int:
    """Workers per training process when none are named: the machine's cores shared by its training processes,
    one core kept for each process itself, at most MAX_AUTO_WORKERS (1 on a 2-core machine, 8 on 16 cores)."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    per_process = cpus // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", world_size)))
    return max(0, min(MAX_AUTO_WORKERS, per_process - 1))


def resolve_workers(requested: int, world_size: int = 1) -> int:
    """`--data-workers`: a count, or -1 for `auto_workers`."""
    check_workers(requested)
    return auto_workers(world_size) if requested == -1 else requested


@dataclass(frozen=True)
class BatchPlan:
    """One batch to make: its epoch, this process's example indices, and the stream's offset in that epoch after it."""

    epoch: int
    indices: tuple[int, ...]
    next_offset: int


def _as_is(item: Any) -> Any:
    return item


class PlannedLoader:
    """Batches `make(plan)` for each plan of `plans`, in plan order, from `workers` DataLoader worker processes
    (0: made in this process when asked for). Pinned memory for non-blocking copies to a GPU when `pin_memory`.
    `wait_seconds` adds up the time `next()` waited for a batch that was not ready."""

    def __init__(
        self,
        make: Callable[[Any], Any],
        plans: Iterator[Any],
        workers: int = 0,
        pin_memory: bool = False,
    ) -> None:
        loader = torch.utils.data.DataLoader(
            _Made(make),
            batch_size=None,
            sampler=_Once(plans),
            num_workers=workers,
            collate_fn=_as_is,
            pin_memory=pin_memory,
            prefetch_factor=PREFETCH_BATCHES if workers else None,
            persistent_workers=False,
            # Its own generator: a DataLoader iterator draws a base seed, which from torch's global generator
            # would shift every later random draw (dropout, noise) and break exact resume.
            generator=torch.Generator().manual_seed(0),
        )
        self._iterator = iter(loader)
        self.wait_seconds = 0.0

    def next(self) -> Any:
        started = time.perf_counter()
        item = next(self._iterator)
        self.wait_seconds += time.perf_counter() - started
        return item

    def close(self) -> None:
        """Stop the workers now (they also stop when the loader is garbage-collected)."""
        shutdown = getattr(self._iterator, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()


class _Made(torch.utils.data.Dataset):
    """A dataset whose keys are plans: DataLoader hands each plan from the sampler to `make` in a worker."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.make = make

    def __getitem__(self, plan: Any) -> Any:
        return self.make(plan)


class _Once:
    """A sampler over an iterator of plans: DataLoader asks for it once per loader iterator."""

    def __init__(self, plans: Iterator[Any]) -> None:
        self.plans = plans

    def __iter__(self) -> Iterator[Any]:
        return self.plans


class PretrainingBatches:
    """Plan → collated pretraining batch (runs in a worker, on the worker's copy of the dataset)."""

    def __init__(self, dataset: PretrainingDataset, pad_id: int) -> None:
        self.dataset, self.pad_id = dataset, pad_id

    def __call__(self, plan: BatchPlan) -> tuple[BatchPlan, dict[str, torch.Tensor]]:
        if self.dataset.epoch != plan.epoch:
            self.dataset.set_epoch(plan.epoch)
        batch = collate_pretraining([self.dataset[i] for i in plan.indices], self.pad_id)
        labels = batch["mlm_labels"]
        # The labelled positions' targets in row-major order (the order of the model's (N, V) MLM logits), made
        # here so that the training step never selects them on the device (a host sync per micro-batch).
        batch["mlm_targets"] = labels[labels != IGNORE_INDEX]
        return plan, batch


class TaskBatches:
    """Optimizer step → (examples in the global batch, this process's collated batch) of a labelled task: the
    step's slice of its epoch's seeded order, the last batch of an epoch padded from its start across processes."""

    def __init__(self, examples: Sequence[Any], pad_id: int, seed: int, dist: Distributed, batch_size: int):
        self.examples, self.pad_id, self.seed, self.dist = examples, pad_id, seed, dist
        self.global_batch = batch_size * dist.world_size
        self.steps_per_epoch = math.ceil(len(examples) / self.global_batch)
        self._order: tuple[int, list[int]] = (-1, [])

    def __call__(self, step: int) -> tuple[int, dict[str, torch.Tensor]]:
        epoch, index = divmod(step, self.steps_per_epoch)
        if self._order[0] != epoch:
            self._order = (epoch, epoch_order(len(self.examples), self.seed, epoch))
        chunk = self._order[1][index * self.global_batch : (index + 1) * self.global_batch]
        share = math.ceil(len(chunk) / self.dist.world_size)
        mine = [self.examples[i] for i in (chunk + chunk)[self.dist.rank * share : (self.dist.rank + 1) * share]]
        return len(chunk), collate(mine, self.pad_id)


def pretraining_plans(
    dataset: PretrainingDataset, batch_size: int, dist: Distributed, seed: int, epoch: int, offset: int
) -> Iterator[BatchPlan]:
    """Every batch from position (epoch, offset) on: a seeded order per epoch, each global batch split across
    processes; an epoch ends when fewer examples than a global batch are left."""
    global_batch = batch_size * dist.world_size
    while True:
        dataset.set_epoch(epoch)
        order = epoch_order(len(dataset), seed, epoch)
        if len(order) < global_batch:
            raise ValueError(
                f"The corpus gives only {len(order)} examples, fewer than one global batch "
                f"({global_batch}); use more text or a smaller batch."
            )
        while offset + global_batch <= len(order):
            start = offset + dist.rank * batch_size
            offset += global_batch
            yield BatchPlan(epoch, tuple(order[start : start + batch_size]), offset)
        epoch, offset = epoch + 1, 0


class BatchStream:
    """Global batches in a seeded order per epoch, split across processes; its position is two integers
    (epoch, offset) after the batches taken so far, so a resumed run continues with exactly the next batch,
    whatever the number of workers."""

    def __init__(
        self,
        dataset: PretrainingDataset,
        batch_size: int,
        dist: Distributed,
        seed: int,
        pad_id: int,
        epoch: int = 0,
        offset: int = 0,
        workers: int = 0,
        pin_memory: bool = False,
    ):
        self.epoch, self.offset = epoch, offset
        plans = pretraining_plans(dataset, batch_size, dist, seed, epoch, offset)
        first = next(plans)  # refuses a corpus smaller than one global batch here, not inside a worker
        self._loader = PlannedLoader(PretrainingBatches(dataset, pad_id), _chain(first, plans), workers, pin_memory)

    @property
    def wait_seconds(self) -> float:
        """Time `next()` has spent waiting for batches that were not ready yet."""
        return self._loader.wait_seconds

    def next(self) -> dict[str, torch.Tensor]:
        plan, batch = self._loader.next()
        self.epoch, self.offset = plan.epoch, plan.next_offset
        return batch

    def close(self) -> None:
        self._loader.close()


def _chain(first: BatchPlan, rest: Iterator[BatchPlan]) -> Iterator[BatchPlan]:
    yield first
    yield from rest
