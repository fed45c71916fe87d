"""The pretraining run's batches: global batches in a seeded, resumable order, split across processes
(`albert.commands.pretrain` draws from it; a checkpoint stores its position)."""

from __future__ import annotations

import torch

from albert.data.pretraining_examples import PretrainingDataset, collate_pretraining
from albert.training.distributed import Distributed, epoch_order


class BatchStream:
    """Global batches in a seeded order per epoch, split across processes; its position is
    two integers (epoch, offset), so a resumed run continues with exactly the next batch."""

    def __init__(
        self,
        dataset: PretrainingDataset,
        batch_size: int,
        dist: Distributed,
        seed: int,
        pad_id: int,
        epoch: int = 0,
        offset: int = 0,
    ):
        self.dataset, self.batch_size, self.dist, self.seed, self.pad_id = dataset, batch_size, dist, seed, pad_id
        self.epoch, self.offset = epoch, offset
        self._start_epoch(epoch)

    def _start_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        self.dataset.set_epoch(epoch)
        self.order = epoch_order(len(self.dataset), self.seed, epoch)
        if len(self.order) < self.batch_size * self.dist.world_size:
            raise ValueError(
                f"The corpus gives only {len(self.order)} examples, fewer than one global batch "
                f"({self.batch_size * self.dist.world_size}); use more text or a smaller batch."
            )

    def next(self) -> dict[str, torch.Tensor]:
        global_batch = self.batch_size * self.dist.world_size
        if self.offset + global_batch > len(self.order):
            self._start_epoch(self.epoch + 1)
            self.offset = 0
        start = self.offset + self.dist.rank * self.batch_size
        indices = self.order[start : start + self.batch_size]
        self.offset += global_batch
        return collate_pretraining([self.dataset[i] for i in indices], self.pad_id)
