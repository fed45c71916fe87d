"""A fresh model's starts (albert/training/fresh_start.py): the scaled residual branches of issue 51's amendment 9."""

from __future__ import annotations

import math

import pytest
import torch

from albert.core.config import AlbertConfig
from albert.core.heads import AlbertForPreTraining
from albert.training.fresh_start import scale_residual_branches


def fresh(sharing: str) -> AlbertForPreTraining:
    torch.manual_seed(0)
    config = AlbertConfig(
        vocab_size=64, embedding_size=16, hidden_size=32, num_hidden_layers=8, num_attention_heads=2,
        intermediate_size=64, sharing=sharing, max_position_embeddings=16,
    )  # fmt: skip
    return AlbertForPreTraining(config).eval()


@pytest.mark.parametrize("sharing", ["all", "none"])
def test_only_the_branch_output_projections_shrink_by_one_over_root_two_passes(sharing: str) -> None:
    model = fresh(sharing)
    before = {name: p.clone() for name, p in model.named_parameters()}
    factor = scale_residual_branches(model)
    assert factor == pytest.approx(1 / math.sqrt(16))
    shrunk = {name for name, p in model.named_parameters() if not torch.equal(p, before[name])}
    expected = {n for n in before if n.endswith((".output.weight", ".down.weight")) and n.startswith("albert.")}
    assert shrunk == expected and len(expected) == (2 if sharing == "all" else 16)
    for name in shrunk:
        assert torch.allclose(dict(model.named_parameters())[name], before[name] * factor)
