"""The pretraining run's batches and held-out scoring: global batches in a seeded, resumable order split across
processes, and held-out MLM accuracy (`albert.pretrain` and `benchmarks.score_models` use them).
"""

from __future__ import annotations

import torch

from albert.config import IGNORE_INDEX
from albert.data.pretraining import PretrainingDataset, collate_pretraining
from albert.training.distributed import Distributed, autocast, epoch_order, unwrap
from albert.training.evaluate import require_finite


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


@torch.no_grad()
def evaluate(
    model: torch.nn.Module, batches: list[dict[str, torch.Tensor]], device: torch.device, precision: str
) -> dict[str, float]:
    """Held-out MLM accuracy (every selected position is [MASK]) and loss. Sentence order is scored apart, by the
    one honest pair rule (`albert.training.sentence_order`), never on these one-order-per-example batches."""
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    for number, batch in enumerate(batches, 1):
        batch = {k: v.to(device) for k, v in batch.items()}
        with autocast(device, precision):
            out = unwrap(model)(
                batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], mlm_labels=batch["mlm_labels"]
            )
        require_finite(out.mlm_logits, f"held-out batch {number} of {len(batches)}")
        targets = batch["mlm_labels"][batch["mlm_labels"] != IGNORE_INDEX]
        correct += int((out.mlm_logits.argmax(-1) == targets).sum())
        total += targets.numel()
        loss_sum += float(out.mlm_loss) * targets.numel()
    model.train()
    return {"mlm_accuracy": correct / max(1, total), "mlm_loss": loss_sum / max(1, total), "masked_positions": total}


def pair_counts(logits: torch.Tensor, labels: torch.Tensor) -> tuple[int, int]:
    """(correct, scored) sentence-pair predictions on training batches (the objective's own accuracy, logged with
    the loss); examples without a pair label (IGNORE_INDEX) not scored."""
    scored = labels != IGNORE_INDEX
    return int((logits.argmax(-1)[scored] == labels[scored]).sum()), int(scored.sum())
