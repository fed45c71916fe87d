"""The forward pass: shapes, padding, sparse MLM, heads and losses, sharing and groups."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from albert import (
    AlbertForMaskedLM,
    AlbertForPreTraining,
    AlbertForSequenceClassification,
    AlbertForTokenClassification,
    AlbertModel,
)
from albert.core.config import IGNORE_INDEX
from tests.factories import max_abs_diff, randomize_, tiny_config

B, T, H, L, A, V = 3, 11, 32, 4, 4, 99


def test_output_shapes_hidden_states_and_attentions(batch):
    model = randomize_(AlbertModel(tiny_config(num_hidden_groups=2)))
    out = model(**batch, output_hidden_states=True, output_attentions=True)
    assert out.last_hidden_state.shape == (B, T, H)
    assert out.pooler_output.shape == (B, H)
    assert len(out.hidden_states) == L + 1
    assert all(h.shape == (B, T, H) for h in out.hidden_states)
    assert torch.equal(out.hidden_states[-1], out.last_hidden_state)
    assert len(out.attentions) == L
    for probs in out.attentions:
        assert probs.shape == (B, A, T, T)
        torch.testing.assert_close(probs.sum(-1), torch.ones(B, A, T))
        # no attention flows to padded keys
        assert probs.masked_select(batch["attention_mask"][:, None, None, :] == 0).abs().max() == 0
    plain = model(**batch)
    assert plain.hidden_states is None and plain.attentions is None
    # the explicit-probabilities path (for attentions) and the SDPA path agree
    assert max_abs_diff(plain.last_hidden_state, out.last_hidden_state) < 1e-5


def test_first_hidden_state_is_the_projected_embedding(batch):
    model = randomize_(AlbertModel(tiny_config()))
    out = model(**batch, output_hidden_states=True)
    embedded = model.projection(model.embeddings(batch["input_ids"], batch["token_type_ids"]))
    assert max_abs_diff(out.hidden_states[0], embedded) == 0


@pytest.mark.parametrize("output_attentions", [False, True])
def test_padding_does_not_change_real_tokens(output_attentions):
    model = randomize_(AlbertModel(tiny_config(sharing="none")))
    ids = torch.tensor([[2, 17, 43, 8, 91, 3, 55]])
    types = torch.tensor([[0, 0, 0, 0, 1, 1, 1]])
    padded_ids = torch.cat([ids, torch.zeros(1, 5, dtype=torch.long)], dim=1)
    padded_types = torch.cat([types, torch.zeros(1, 5, dtype=torch.long)], dim=1)
    mask = torch.tensor([[1] * 7 + [0] * 5])
    alone = model(ids, token_type_ids=types, output_attentions=output_attentions)
    padded = model(padded_ids, mask, padded_types, output_attentions=output_attentions)
    assert max_abs_diff(alone.last_hidden_state, padded.last_hidden_state[:, :7]) < 1e-5
    assert max_abs_diff(alone.pooler_output, padded.pooler_output) < 1e-5
    # and inside a batch next to a longer sequence
    other = torch.randint(5, V, (1, 12))
    both = model(
        torch.cat([padded_ids, other]),
        torch.cat([mask, torch.ones(1, 12, dtype=torch.long)]),
        torch.cat([padded_types, torch.zeros(1, 12, dtype=torch.long)]),
    )
    assert max_abs_diff(alone.last_hidden_state[0], both.last_hidden_state[0, :7]) < 1e-5
    # the padding really is masked: without the mask the real tokens change
    unmasked = model(padded_ids, token_type_ids=padded_types)
    assert max_abs_diff(alone.last_hidden_state, unmasked.last_hidden_state[:, :7]) > 1e-3


def test_all_ones_mask_equals_no_mask_and_default_token_types(batch):
    model = randomize_(AlbertModel(tiny_config()))
    ids = batch["input_ids"][:1]
    reference = model(ids).last_hidden_state
    assert max_abs_diff(model(ids, torch.ones_like(ids)).last_hidden_state, reference) == 0
    assert max_abs_diff(model(ids, None, torch.zeros_like(ids)).last_hidden_state, reference) == 0
    assert max_abs_diff(model(ids, None, torch.ones_like(ids)).last_hidden_state, reference) > 1e-3


def mlm_labels(batch) -> torch.Tensor:
    labels = torch.full_like(batch["input_ids"], IGNORE_INDEX)
    labels[0, [1, 4, 9]] = torch.tensor([5, 77, 98])
    labels[1, 2] = 13
    labels[2, 0] = 0
    return labels


@pytest.mark.parametrize("cls", [AlbertForMaskedLM, AlbertForPreTraining])
def test_sparse_mlm_logits_and_loss_equal_dense(batch, cls):
    model = randomize_(cls(tiny_config()))
    labels = mlm_labels(batch)
    label_name = "mlm_labels" if cls is AlbertForPreTraining else "labels"
    dense = model(**batch)
    sparse = model(**batch, **{label_name: labels})
    dense_logits = dense.mlm_logits if cls is AlbertForPreTraining else dense.logits
    sparse_logits = sparse.mlm_logits if cls is AlbertForPreTraining else sparse.logits
    assert dense_logits.shape == (B, T, V)
    assert sparse_logits.shape == (5, V)
    assert max_abs_diff(sparse_logits, dense_logits[labels != IGNORE_INDEX]) < 1e-5
    expected = F.cross_entropy(dense_logits.reshape(-1, V), labels.reshape(-1), ignore_index=IGNORE_INDEX)
    mlm_loss = sparse.mlm_loss if cls is AlbertForPreTraining else sparse.loss
    assert abs(mlm_loss.item() - expected.item()) < 1e-5


def test_pretraining_loss_is_mlm_plus_sentence_pair(batch):
    model = randomize_(AlbertForPreTraining(tiny_config()))
    order = torch.tensor([0, 1, 1])
    out = model(**batch, mlm_labels=mlm_labels(batch), sentence_order_label=order)
    assert out.sop_logits.shape == (B, 2)
    assert abs(out.sop_loss.item() - F.cross_entropy(out.sop_logits, order).item()) < 1e-6
    assert abs(out.loss.item() - (out.mlm_loss + out.sop_loss).item()) < 1e-6
    only_sop = model(**batch, sentence_order_label=order)
    assert only_sop.mlm_loss is None and abs(only_sop.loss.item() - out.sop_loss.item()) < 1e-6
    assert model(**batch).loss is None


def test_sentence_pair_only_pass_skips_the_mlm_head_and_keeps_sop_logits(batch):
    model = randomize_(AlbertForPreTraining(tiny_config())).eval()
    full = model(**batch)
    only = model(**batch, with_mlm_logits=False)
    assert only.mlm_logits is None and only.mlm_loss is None
    assert max_abs_diff(only.sop_logits, full.sop_logits) == 0.0
    with pytest.raises(ValueError, match="mlm_labels need the masked-LM head"):
        model(**batch, mlm_labels=mlm_labels(batch), with_mlm_logits=False)


def test_order_scoring_skips_the_mlm_head_and_reads_the_same_probabilities(batch, monkeypatch):
    from albert.training.order_scoring import class0_probabilities

    model = randomize_(AlbertForPreTraining(tiny_config())).eval()
    rows = [([5, 6, 7], [8, 9]), ([8, 9], [5, 6, 7]), ([10], [11, 12, 13, 14])]
    decoded = []
    model.mlm_head.register_forward_hook(lambda *_: decoded.append(1))
    probabilities = class0_probabilities(model, rows, (2, 3), 0, 16)
    assert decoded == []  # the V-wide projection never ran
    ids = torch.tensor([[2, 5, 6, 7, 3, 8, 9, 3]])
    types = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1]])
    expected = model(input_ids=ids, token_type_ids=types).sop_logits.softmax(-1)[0, 0].item()
    assert abs(probabilities[0] - expected) < 1e-6 and len(decoded) == 1


def test_mlm_with_no_labelled_position_gives_zero_loss_with_gradient(batch):
    model = randomize_(AlbertForMaskedLM(tiny_config())).train()
    labels = torch.full_like(batch["input_ids"], IGNORE_INDEX)
    out = model(**batch, labels=labels)
    assert out.logits.shape == (0, V)
    assert out.loss.item() == 0.0
    out.loss.backward()  # the graph stays intact (DDP needs every step to backpropagate)


def test_sequence_classification_and_regression(batch):
    classifier = randomize_(AlbertForSequenceClassification(tiny_config(num_labels=3)))
    labels = torch.tensor([0, 2, 1])
    out = classifier(**batch, labels=labels)
    assert out.logits.shape == (B, 3)
    assert abs(out.loss.item() - F.cross_entropy(out.logits, labels).item()) < 1e-6

    regressor = randomize_(AlbertForSequenceClassification(tiny_config(num_labels=1)))
    targets = torch.tensor([0.5, -1.0, 2.0])
    out = regressor(**batch, labels=targets)
    assert out.logits.shape == (B, 1)
    assert abs(out.loss.item() - F.mse_loss(out.logits.squeeze(-1), targets).item()) < 1e-6


def test_token_classification_ignores_padding_labels(batch):
    model = randomize_(AlbertForTokenClassification(tiny_config(num_labels=5)))
    labels = torch.randint(0, 5, (B, T))
    labels[batch["attention_mask"] == 0] = IGNORE_INDEX
    out = model(**batch, labels=labels)
    assert out.logits.shape == (B, T, 5)
    keep = labels != IGNORE_INDEX
    assert abs(out.loss.item() - F.cross_entropy(out.logits[keep], labels[keep]).item()) < 1e-6
    assert model.albert.pooler is None


def test_mlm_decoder_is_tied_to_word_embeddings(batch):
    model = randomize_(AlbertForMaskedLM(tiny_config()))
    with torch.no_grad():
        model.albert.embeddings.word_embeddings.weight[7] += 1.0
    hidden = model.albert(**batch).last_hidden_state
    x = model.mlm_head.norm(model.mlm_head.activation(model.mlm_head.dense(hidden)))
    expected = x @ model.albert.embeddings.word_embeddings.weight.T + model.mlm_head.bias
    assert max_abs_diff(model(**batch).logits, expected) < 1e-5


# ----- sharing ----------------------------------------------------------------------------
def module_ids(modules) -> list[int]:
    return [id(m) for m in modules]


def test_all_sharing_reuses_one_module_for_every_pass():
    model = AlbertModel(tiny_config(sharing="all"))
    passes = model.passes()
    assert len(passes) == L
    assert len(set(module_ids(a for a, _ in passes))) == 1 and len(set(module_ids(f for _, f in passes))) == 1
    assert passes[0][0] is model.attention_blocks[0] and passes[-1][1] is model.ffn_blocks[0]


def test_groups_reuse_one_module_per_contiguous_block():
    model = AlbertModel(tiny_config(sharing="all", num_hidden_groups=2))
    attention = module_ids(a for a, _ in model.passes())
    ffn = module_ids(f for _, f in model.passes())
    blocks = module_ids(model.attention_blocks)
    assert attention == [blocks[0], blocks[0], blocks[1], blocks[1]]
    assert ffn == module_ids([model.ffn_blocks[0]] * 2 + [model.ffn_blocks[1]] * 2)


@pytest.mark.parametrize(
    ("sharing", "distinct_attention", "distinct_ffn"), [("attention", 1, L), ("ffn", L, 1), ("none", L, L)]
)
def test_partial_sharing_shares_exactly_its_sublayer(sharing, distinct_attention, distinct_ffn):
    model = AlbertModel(tiny_config(sharing=sharing))
    passes = model.passes()
    assert len(set(module_ids(a for a, _ in passes))) == distinct_attention == len(model.attention_blocks)
    assert len(set(module_ids(f for _, f in passes))) == distinct_ffn == len(model.ffn_blocks)


@pytest.mark.parametrize(
    ("sharing", "groups", "attention_calls", "ffn_calls"),
    [
        ("all", 1, [4], [4]),
        ("all", 2, [2, 2], [2, 2]),
        ("attention", 1, [4], [1, 1, 1, 1]),
        ("ffn", 1, [1, 1, 1, 1], [4]),
        ("none", 4, [1, 1, 1, 1], [1, 1, 1, 1]),
    ],
)
def test_forward_applies_each_block_as_often_as_it_is_shared(sharing, groups, attention_calls, ffn_calls):
    """Count real calls in a forward pass, not just the lookup table."""
    model = AlbertModel(tiny_config(sharing=sharing, num_hidden_groups=groups))
    calls = {id(m): 0 for m in [*model.attention_blocks, *model.ffn_blocks]}

    def count(module, inputs, output):
        calls[id(module)] += 1

    for block in [*model.attention_blocks, *model.ffn_blocks]:
        block.register_forward_hook(count)
    model(torch.randint(5, V, (1, 6)))
    assert [calls[id(m)] for m in model.attention_blocks] == attention_calls
    assert [calls[id(m)] for m in model.ffn_blocks] == ffn_calls


@pytest.mark.parametrize("layers", [1, 2, 3, 4, 6, 8, 12, 24])
def test_group_mapping_matches_transformers_rule(layers):
    for groups in [g for g in range(1, layers + 1) if layers % g == 0]:
        config = tiny_config(num_hidden_layers=layers, num_hidden_groups=groups)
        expected = [int(i / (layers / groups)) for i in range(layers)]  # transformers' AlbertTransformer
        assert [config.attention_block_of(i) for i in range(layers)] == expected
        assert [config.ffn_block_of(i) for i in range(layers)] == expected


def test_partial_sharing_block_mapping():
    assert [tiny_config(sharing="attention").attention_block_of(i) for i in range(L)] == [0, 0, 0, 0]
    assert [tiny_config(sharing="attention").ffn_block_of(i) for i in range(L)] == [0, 1, 2, 3]
    assert [tiny_config(sharing="ffn").attention_block_of(i) for i in range(L)] == [0, 1, 2, 3]
    assert [tiny_config(sharing="ffn").ffn_block_of(i) for i in range(L)] == [0, 0, 0, 0]


def test_bert_style_has_no_projection(batch):
    model = AlbertModel(tiny_config(embedding_size=32, project_embeddings=False, sharing="none"))
    assert model.projection is None
    assert model(**batch).last_hidden_state.shape == (B, T, H)


# ----- initialisation and dtypes -----------------------------------------------------------
def test_initialisation_as_reference():
    config = tiny_config(
        hidden_size=256, intermediate_size=512, vocab_size=500, embedding_size=64, initializer_range=0.02
    )
    model = AlbertForPreTraining(config)
    weights = torch.cat(
        [model.albert.ffn_blocks[0].up.weight.flatten(), model.albert.attention_blocks[0].query.weight.flatten()]
    )
    assert abs(weights.std().item() - 0.02) < 0.001 and abs(weights.mean().item()) < 0.001
    assert torch.count_nonzero(model.albert.embeddings.word_embeddings.weight[config.pad_token_id]) == 0
    assert torch.all(model.albert.attention_blocks[0].norm.weight == 1)
    assert torch.all(model.albert.ffn_blocks[0].up.bias == 0)
    assert torch.all(model.mlm_head.bias == 0)


def test_eval_is_deterministic_and_dropout_applies_in_training(batch):
    model = randomize_(AlbertModel(tiny_config(hidden_dropout_prob=0.3)))
    first, second = model(**batch).last_hidden_state, model(**batch).last_hidden_state
    assert torch.equal(first, second)
    model.train()
    assert max_abs_diff(model(**batch).last_hidden_state, first) > 1e-3


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_low_precision_padding_mask_stays_finite(batch, dtype):
    model = randomize_(AlbertModel(tiny_config())).to(dtype)
    for attentions in (False, True):
        out = model(**batch, output_attentions=attentions)
        assert out.last_hidden_state.dtype == dtype
        assert torch.isfinite(out.last_hidden_state).all()
