"""A fresh model's starts (albert/training/fresh_start.py): the scaled residual branches of issue 51's amendment 9 and
the sinusoidal positions and mimetic attention of amendments 17 and 19."""

from __future__ import annotations

import math

import pytest
import torch

from albert.core.config import AlbertConfig
from albert.core.heads import AlbertForPreTraining
from albert.training.fresh_start import mimetic_attention, scale_residual_branches, sinusoidal_positions


def fresh(sharing: str) -> AlbertForPreTraining:
    torch.manual_seed(0)
    config = AlbertConfig(
        vocab_size=64, embedding_size=16, hidden_size=32, num_hidden_layers=8, num_attention_heads=2,
        intermediate_size=64, sharing=sharing, max_position_embeddings=16,
    )  # fmt: skip
    return AlbertForPreTraining(config).eval()


def parameters_of(model: AlbertForPreTraining) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def changed_since(model: AlbertForPreTraining, before: dict[str, torch.Tensor]) -> set[str]:
    return {name for name, p in model.named_parameters() if not torch.equal(p, before[name])}


@pytest.mark.parametrize("sharing", ["all", "none"])
def test_only_the_branch_output_projections_shrink_by_one_over_root_two_passes(sharing: str) -> None:
    model = fresh(sharing)
    before = parameters_of(model)
    factor = scale_residual_branches(model)
    assert factor == pytest.approx(1 / math.sqrt(16))
    shrunk = changed_since(model, before)
    expected = {n for n in before if n.endswith((".output.weight", ".down.weight")) and n.startswith("albert.")}
    assert shrunk == expected and len(expected) == (2 if sharing == "all" else 16)
    for name in shrunk:
        assert torch.allclose(dict(model.named_parameters())[name], before[name] * factor)


def test_the_held_out_scores_carry_the_frequency_guess_and_each_examples_loss_on_the_same_blanks() -> None:
    """`evaluate` with the training text's log shares: the frequency guess's loss is -log share of each blank's
    piece, averaged; per example, the model's and the guess's mean losses, whose blank-weighted mean is the whole
    set's (the *Train it yourself* verdict compares two runs example by example)."""
    from albert.core.config import IGNORE_INDEX
    from albert.training.pretraining_evaluation import evaluate

    model = fresh("all")
    torch.manual_seed(1)
    ids = torch.randint(5, 64, (3, 16))
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[0, [2, 5]] = ids[0, [2, 5]]
    labels[2, [1, 3, 7]] = ids[2, [1, 3, 7]]  # the second example has no blank: it has no loss of its own
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
    shares = torch.log_softmax(torch.randn(64, dtype=torch.float64), dim=0)
    result = evaluate(model, [batch | {"mlm_labels": labels}], torch.device("cpu"), "fp32", shares)
    targets = labels[labels != IGNORE_INDEX]
    assert result["mlm_frequency_loss"] == pytest.approx(float(-shares[targets].mean()))
    assert result["mlm_example_frequency_losses"] == pytest.approx(
        [float(-shares[targets[:2]].mean()), float(-shares[targets[2:]].mean())], abs=1e-5
    )
    first, second = result["mlm_example_losses"]
    assert (2 * first + 3 * second) / 5 == pytest.approx(result["mlm_loss"], abs=1e-4)
    assert "mlm_example_losses" not in evaluate(model, [batch | {"mlm_labels": labels}], torch.device("cpu"), "fp32")


def test_the_embedding_rate_scale_moves_the_embeddings_alone_and_keeps_two_groups_at_one() -> None:
    from albert.training.optim import OptimizerConfig, build_optimizer

    model = fresh("all")
    names = {id(p): name for name, p in model.named_parameters()}

    def rates(config: OptimizerConfig) -> tuple[dict[str, float], torch.optim.Optimizer]:
        optimizer = build_optimizer(model, config, torch.device("cpu"))
        return {names[id(p)]: group["lr"] for group in optimizer.param_groups for p in group["params"]}, optimizer

    scaled, optimizer = rates(OptimizerConfig(learning_rate=1e-3, embedding_lr_scale=10))
    embeddings = {name for name in scaled if name.startswith("albert.embeddings.")}
    assert embeddings == {
        "albert.embeddings.word_embeddings.weight", "albert.embeddings.position_embeddings.weight",
        "albert.embeddings.token_type_embeddings.weight", "albert.embeddings.norm.weight",
        "albert.embeddings.norm.bias",
    }  # fmt: skip
    assert all(scaled[name] == pytest.approx(1e-2) for name in embeddings)
    assert all(scaled[name] == pytest.approx(1e-3) for name in scaled if name not in embeddings)
    assert len(optimizer.param_groups) == 4  # decay and no-decay, at each rate
    plain, optimizer = rates(OptimizerConfig(learning_rate=1e-3))
    assert set(plain.values()) == {1e-3} and len(optimizer.param_groups) == 2  # what resumable checkpoints expect
    with pytest.raises(ValueError, match="embedding_lr_scale"):
        OptimizerConfig(embedding_lr_scale=0)


def test_sinusoidal_positions_are_the_transformers_table_at_the_initializer_ranges_spread() -> None:
    model = fresh("all")
    before = parameters_of(model)
    sinusoidal_positions(model)
    table = model.albert.embeddings.position_embeddings.weight.detach()
    changed = changed_since(model, before)
    assert changed == {"albert.embeddings.position_embeddings.weight"}
    scale = 0.02 * math.sqrt(2)
    assert float(table[3, 0]) == pytest.approx(scale * math.sin(3.0))  # the fastest pair turns one radian a position
    assert float(table[3, 1]) == pytest.approx(scale * math.cos(3.0))
    assert float(table[5, 2]) == pytest.approx(scale * math.sin(5 * 10000 ** (-2 / 16)), rel=1e-5)
    # an offset is one rotation at every position: neighbours are equally alike wherever they sit
    alike = torch.nn.functional.cosine_similarity(table[:-1], table[1:], dim=-1)
    assert torch.allclose(alike, alike[0].expand_as(alike), atol=1e-5) and float(alike[0]) > 0.5
    far = torch.nn.functional.cosine_similarity(table[:1], table[8:9], dim=-1)
    assert float(far) < float(alike[0])


@pytest.mark.parametrize("sharing", ["all", "none"])
def test_mimetic_attention_starts_each_heads_query_key_product_near_the_identity_and_value_output_near_minus_it(
    sharing: str,
) -> None:
    model = fresh(sharing)
    before = parameters_of(model)
    mimetic_attention(model, torch.Generator().manual_seed(0))
    changed = changed_since(model, before)
    assert changed == {n for n in before if n.endswith(("query.weight", "key.weight", "value.weight", "output.weight"))
                       and ".attention_blocks." in n}  # fmt: skip
    assert len(changed) == (4 if sharing == "all" else 32)
    head_dim = 16
    for block in model.albert.attention_blocks:
        for head in range(2):
            rows = slice(head * head_dim, (head + 1) * head_dim)
            product = (block.query.weight[rows].T @ block.key.weight[rows]).detach()  # what q·k reads: x^T (Wq^T Wk) y
            diagonal = product.diagonal()
            assert 0.35 < float(diagonal.mean()) < 0.6  # a rank-16 share of 0.7·I
            off = product - torch.diag(diagonal)
            assert float(off.pow(2).mean().sqrt()) < float(diagonal.mean()) / 3
        value_output = (block.output.weight @ block.value.weight).detach()  # value first, then output
        assert float(value_output.diagonal().mean()) == pytest.approx(-0.4, abs=0.1)
        assert torch.count_nonzero(block.query.bias) == 0
    again = fresh(sharing)
    mimetic_attention(again, torch.Generator().manual_seed(0))
    assert torch.equal(again.albert.attention_blocks[0].query.weight, model.albert.attention_blocks[0].query.weight)


def test_a_mimetic_start_attends_most_to_the_positions_nearest_a_blank_when_positions_start_as_sinusoids() -> None:
    """The reason for the pair: with the query-key product near the identity, a position attends to positions whose
    embeddings are like its own, and sinusoidal positions make those its neighbours."""
    model = fresh("all")
    sinusoidal_positions(model)
    mimetic_attention(model, torch.Generator().manual_seed(0))
    ids = torch.full((1, 16), 7)  # one repeated piece: only the positions tell the keys apart
    with torch.no_grad():
        out = model.albert(ids, torch.ones_like(ids), torch.zeros_like(ids), output_attentions=True)
    row = out.attentions[-1][0].mean(0)[8]  # position 8, last pass, heads averaged
    assert float(row[7] + row[9]) > float(row[0] + row[15]) * 1.5
