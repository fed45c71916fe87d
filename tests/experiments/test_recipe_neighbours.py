"""The recipe table's neighbour column (experiments/pretraining_recipe.py, protocol amendment 18): the share of each
blank's last-pass attention on the pieces either side of it, heads averaged."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from albert.core.config import IGNORE_INDEX
from experiments.pretraining_recipe import neighbour_attention


class FixedAttention(torch.nn.Module):
    """A stand-in encoder whose last pass's attention is given: only the column's arithmetic is under test."""

    def __init__(self, last: torch.Tensor):
        super().__init__()
        self.last = last

    def albert(self, input_ids, attention_mask, token_type_ids, output_attentions):  # noqa: ANN001, ANN201
        assert output_attentions
        first = torch.full_like(self.last, 1 / self.last.shape[-1])  # an earlier pass, which must not count
        return SimpleNamespace(attentions=(first, self.last))


def batch_with_blanks(length: int, blanks: list[tuple[int, int]]) -> dict[str, torch.Tensor]:
    ids = torch.full((2, length), 9)
    labels = torch.full_like(ids, IGNORE_INDEX)
    for row, position in blanks:
        labels[row, position] = 9
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids),
            "mlm_labels": labels}  # fmt: skip


def test_a_view_blind_to_position_gives_two_over_the_length_and_an_edge_blank_has_one_neighbour() -> None:
    uniform = torch.full((2, 2, 8, 8), 1 / 8)
    batch = batch_with_blanks(8, [(0, 3), (1, 5)])
    assert neighbour_attention(FixedAttention(uniform), [batch]) == pytest.approx(2 / 8)
    edges = batch_with_blanks(8, [(0, 0), (1, 7)])
    assert neighbour_attention(FixedAttention(uniform), [edges]) == pytest.approx(1 / 8)


def test_the_heads_are_averaged_and_only_the_blanks_rows_count() -> None:
    last = torch.zeros(2, 2, 6, 6)
    last[:, 0, :, 0] = 1.0  # head 0 looks at the first piece from everywhere
    for position in range(6):  # head 1 looks at the piece to the left (the first piece at itself)
        last[:, 1, position, max(position - 1, 0)] = 1.0
    batch = batch_with_blanks(6, [(0, 1), (1, 4)])
    # blank at 1: head 0 puts 1 on position 0 (a neighbour), head 1 too -> 1.0; blank at 4: head 0 on 0 (not a
    # neighbour), head 1 on 3 -> 0.5; the mean over the two blanks is 0.75
    assert neighbour_attention(FixedAttention(last), [batch]) == pytest.approx(0.75)
