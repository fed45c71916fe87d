"""Parity with Hugging Face transformers (≤ 1e-5), both directions, and checkpoint errors.

Every transformers model here is built from a config with random weights: nothing is
downloaded (conftest switches the hub off).
"""

from __future__ import annotations

import json

import pytest
import torch
import transformers
from safetensors.torch import load_file, save_file

import albert
from albert import AlbertConfig, ConfigError, from_transformers
from albert.core.checkpoint import CheckpointError
from albert.core.hf import REFUSAL, to_transformers
from tests.factories import TINY, max_abs_diff, randomize_, tiny_config

TOLERANCE = 1e-5
GROUPS = {"G1": 1, "G2": 2, "none": 4}  # none: groups == layers, every pass its own weights
CLASSES = {
    "model": ("AlbertModel", {}),
    "pretraining": ("AlbertForPreTraining", {}),
    "masked_lm": ("AlbertForMaskedLM", {}),
    "classification": ("AlbertForSequenceClassification", {"num_labels": 3}),
    "regression": ("AlbertForSequenceClassification", {"num_labels": 1}),
    "tokens": ("AlbertForTokenClassification", {"num_labels": 5}),
}


def head_outputs(out) -> dict[str, torch.Tensor]:
    """Every head's logits (or the encoder outputs), under ALBERT Lab's or transformers' names."""
    names = {
        "last_hidden_state": "last_hidden_state",
        "pooler_output": "pooler_output",
        "mlm_logits": "logits",
        "prediction_logits": "logits",
        "sop_logits": "sop_logits",
        "logits": "logits",
    }
    return {ours: getattr(out, name) for name, ours in names.items() if getattr(out, name, None) is not None}


def assert_same_outputs(ours_out, theirs_out, with_internals: bool = True) -> None:
    ours, theirs = head_outputs(ours_out), head_outputs(theirs_out)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert max_abs_diff(ours[name], theirs[name]) <= TOLERANCE, name
    if with_internals:
        assert len(ours_out.hidden_states) == len(theirs_out.hidden_states) == TINY["num_hidden_layers"] + 1
        for i, (a, b) in enumerate(zip(ours_out.hidden_states, theirs_out.hidden_states, strict=True)):
            assert max_abs_diff(a, b) <= TOLERANCE, f"hidden state {i}"
        assert len(ours_out.attentions) == len(theirs_out.attentions) == TINY["num_hidden_layers"]
        for i, (a, b) in enumerate(zip(ours_out.attentions, theirs_out.attentions, strict=True)):
            assert max_abs_diff(a, b) <= TOLERANCE, f"attention {i}"


def compare(ours: torch.nn.Module, theirs: torch.nn.Module, batch: dict[str, torch.Tensor]) -> None:
    """Both attention paths: eager vs our explicit probabilities (with every internal tensor),
    and transformers' default sdpa vs our SDPA path (outputs only)."""
    with torch.no_grad():
        theirs.config._attn_implementation = "eager"  # only eager returns attention maps
        assert_same_outputs(
            ours(**batch, output_hidden_states=True, output_attentions=True),
            theirs(**batch, output_hidden_states=True, output_attentions=True),
        )
        theirs.config._attn_implementation = "sdpa"
        assert_same_outputs(ours(**batch), theirs(**batch), with_internals=False)


def hf_model(name: str, groups: int, seed: int = 0, **changes) -> torch.nn.Module:
    torch.manual_seed(seed)
    hf_config = transformers.AlbertConfig(**{**TINY, "num_hidden_groups": groups, **changes})
    return randomize_(getattr(transformers, name)(hf_config), seed=seed)


@pytest.mark.parametrize("groups", GROUPS.values(), ids=GROUPS.keys())
@pytest.mark.parametrize("head", CLASSES)
def test_parity_both_directions(batch, head, groups):
    name, changes = CLASSES[head]
    theirs = hf_model(name, groups, **changes)
    ours = from_transformers(theirs)
    assert type(ours) is getattr(albert, name) and not ours.training
    assert ours.config.sharing == ("none" if groups == 4 else "all")
    compare(ours, theirs, batch)
    # and back: our random model exported to transformers
    ours = randomize_(type(ours)(ours.config), seed=1)
    compare(ours, to_transformers(ours), batch)


def test_bert_style_exports_with_identity_projection(batch):
    config = tiny_config(embedding_size=32, project_embeddings=False, sharing="none", hidden_act="gelu")
    ours = randomize_(albert.AlbertForPreTraining(config))
    theirs = to_transformers(ours)
    projection = theirs.albert.encoder.embedding_hidden_mapping_in
    assert torch.equal(projection.weight, torch.eye(32)) and torch.count_nonzero(projection.bias) == 0
    compare(ours, theirs, batch)


# ----- directories -------------------------------------------------------------------------
SAVED = {
    "all-G1": dict(),
    "all-G2": dict(num_hidden_groups=2),
    "none": dict(sharing="none"),
    "bert-style": dict(embedding_size=32, project_embeddings=False, sharing="none"),
}


@pytest.mark.parametrize("variant", SAVED)
@pytest.mark.parametrize("name", ["AlbertForPreTraining", "AlbertForSequenceClassification"])
def test_directory_we_save_loads_in_transformers(tmp_path, batch, variant, name):
    labels = 3 if name == "AlbertForSequenceClassification" else 2
    ours = randomize_(getattr(albert, name)(tiny_config(**SAVED[variant], num_labels=labels)))
    ours.save_pretrained(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "model.safetensors"]  # no temp files
    theirs, info = getattr(transformers, name).from_pretrained(tmp_path, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"]
    compare(ours, theirs.eval(), batch)
    reloaded = getattr(albert, name).from_pretrained(tmp_path)
    assert reloaded.config == ours.config
    compare(reloaded, theirs, batch)


@pytest.mark.parametrize("groups", GROUPS.values(), ids=GROUPS.keys())
@pytest.mark.parametrize("name", ["AlbertForPreTraining", "AlbertForTokenClassification"])
def test_directory_transformers_saves_loads_in_ours(tmp_path, batch, groups, name):
    theirs = hf_model(name, groups, num_labels=2 if name == "AlbertForPreTraining" else 4)
    theirs.save_pretrained(tmp_path)
    ours = getattr(albert, name).from_pretrained(tmp_path)
    assert (ours.config.num_hidden_groups, ours.config.sharing) == (groups, "none" if groups == 4 else "all")
    compare(ours, theirs, batch)


def test_backbone_and_new_heads_load_from_a_pretraining_directory(tmp_path, batch):
    pretrained = randomize_(albert.AlbertForPreTraining(tiny_config(num_hidden_groups=2)))
    pretrained.save_pretrained(tmp_path)
    backbone = albert.AlbertModel.from_pretrained(tmp_path)
    expected = pretrained.albert(**batch).last_hidden_state
    assert max_abs_diff(backbone(**batch).last_hidden_state, expected) == 0
    classifier = albert.AlbertForSequenceClassification.from_pretrained(tmp_path, num_labels=3)
    assert classifier.classifier.out_features == 3
    assert max_abs_diff(classifier.albert(**batch).last_hidden_state, expected) == 0


def test_pretraining_model_with_other_num_labels_still_loads_in_transformers(tmp_path, batch):
    """transformers sizes its SOP head by num_labels; our binary head must still load there."""
    ours = randomize_(albert.AlbertForPreTraining(tiny_config(num_labels=3)))
    compare(ours, to_transformers(ours), batch)
    ours.save_pretrained(tmp_path)
    theirs, info = transformers.AlbertForPreTraining.from_pretrained(tmp_path, output_loading_info=True)
    assert not info["missing_keys"] and not info["mismatched_keys"]
    compare(ours, theirs.eval(), batch)


@pytest.mark.parametrize("sharing", ["attention", "ffn"])
def test_partial_sharing_saves_reloads_and_refuses_transformers(tmp_path, batch, sharing):
    ours = randomize_(albert.AlbertForPreTraining(tiny_config(sharing=sharing)))
    ours.save_pretrained(tmp_path)
    keys = load_file(str(tmp_path / "model.safetensors")).keys()
    assert any(k.startswith("albert.attention_blocks.") for k in keys)  # our own layout
    assert not any("albert_layer_groups" in k for k in keys)
    reloaded = albert.AlbertForPreTraining.from_pretrained(tmp_path)
    assert reloaded.config == ours.config
    expected, got = ours(**batch, output_attentions=True), reloaded(**batch, output_attentions=True)
    assert max_abs_diff(expected.mlm_logits, got.mlm_logits) == 0
    assert max_abs_diff(expected.sop_logits, got.sop_logits) == 0
    assert len(got.attentions) == TINY["num_hidden_layers"]

    with pytest.raises(ConfigError, match=f"cannot represent sharing '{sharing}'"):
        to_transformers(ours)
    with pytest.raises(ConfigError, match="cannot be exported to transformers"):
        albert.core.hf.to_hf_state_dict(ours.state_dict(), ours.config)
    with pytest.raises(Exception) as raised:  # noqa: B017 — transformers' own validation error type
        transformers.AlbertForPreTraining.from_pretrained(tmp_path)
    assert REFUSAL.format(sharing=sharing, cls="AlbertForPreTraining") in str(raised.value)


# ----- bad checkpoints: each a ConfigError naming the file -------------------------------------
@pytest.fixture
def saved(tmp_path):
    model = randomize_(albert.AlbertForPreTraining(tiny_config()))
    model.save_pretrained(tmp_path)
    return tmp_path


def load_error(path) -> str:
    with pytest.raises(ConfigError) as raised:
        albert.AlbertForPreTraining.from_pretrained(path)
    return str(raised.value)


def test_corrupt_weights_name_the_file(saved):
    weights = saved / "model.safetensors"
    weights.write_bytes(b"\x00\x01garbage, not a safetensors header" * 10)
    assert str(weights) in load_error(saved)


def test_truncated_weights_name_the_file(saved):
    weights = saved / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    message = load_error(saved)
    assert str(weights) in message and "corrupt or truncated" in message


def test_wrong_shapes_name_both_files(saved):
    config = json.loads((saved / "config.json").read_text())
    config["intermediate_size"] = 41
    (saved / "config.json").write_text(json.dumps(config))
    message = load_error(saved)
    assert str(saved / "model.safetensors") in message and str(saved / "config.json") in message
    assert "(37,)" in message and "(41,)" in message


def test_missing_and_unknown_tensors_name_the_file(saved):
    weights = saved / "model.safetensors"
    state = load_file(str(weights))
    save_file({k: v for k, v in state.items() if "ffn_output" not in k}, str(weights))
    message = load_error(saved)
    assert str(weights) in message and "lacks weights" in message
    save_file({**state, "albert.encoder.mystery.weight": torch.zeros(2)}, str(weights))
    message = load_error(saved)
    assert str(weights) in message and "mystery" in message


def test_config_of_another_architecture_names_the_file(saved):
    config = json.loads((saved / "config.json").read_text())
    config["model_type"] = "gpt2"  # BERT is read (tests/core/test_bert_checkpoints.py); a GPT-2 is not
    (saved / "config.json").write_text(json.dumps(config))
    message = load_error(saved)
    assert str(saved / "config.json") in message and "'gpt2'" in message


def test_invalid_json_names_the_file(saved):
    (saved / "config.json").write_text('{"hidden_size": 32,')
    message = load_error(saved)
    assert str(saved / "config.json") in message and "not valid JSON" in message


def test_invalid_value_in_config_names_the_file(saved):
    config = json.loads((saved / "config.json").read_text())
    config["num_attention_heads"] = 5
    (saved / "config.json").write_text(json.dumps(config))
    message = load_error(saved)
    assert str(saved / "config.json") in message and "divisible" in message


def test_missing_directory_config_or_weights(tmp_path, saved):
    missing = tmp_path / "does-not-exist"
    assert str(missing) in load_error(missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "No config.json" in load_error(empty) and str(empty) in load_error(empty)
    (saved / "model.safetensors").unlink()
    message = load_error(saved)
    assert "No model.safetensors" in message and str(saved) in message


def test_hub_id_offline_is_one_clear_sentence():
    with pytest.raises(CheckpointError) as raised:
        albert.AlbertForPreTraining.from_pretrained("albert/albert-base-v2")
    message = str(raised.value)
    assert "'albert/albert-base-v2'" in message and "HF_HUB_OFFLINE" in message
    assert "\n" not in message and message.endswith(".")


def test_pytorch_model_bin_loads_with_weights_only(tmp_path, batch):
    theirs = hf_model("AlbertForPreTraining", 2)
    theirs.config.save_pretrained(tmp_path)
    torch.save(theirs.state_dict(), tmp_path / "pytorch_model.bin")
    compare(albert.AlbertForPreTraining.from_pretrained(tmp_path), theirs, batch)


UNPICKLED: list[str] = []


def _record_unpickling(tag: str) -> str:
    UNPICKLED.append(tag)
    return tag


class _PickleBomb:
    """Unpickling it calls a function: harmless here, arbitrary code in a hostile file."""

    def __reduce__(self):
        return (_record_unpickling, ("ran",))


def test_pytorch_model_bin_with_arbitrary_object_is_refused(tmp_path):
    tiny_config().save(tmp_path)
    path = tmp_path / "pytorch_model.bin"
    torch.save({"albert.embeddings.word_embeddings.weight": torch.zeros(99, 16), "payload": _PickleBomb()}, path)
    UNPICKLED.clear()
    message = load_error(tmp_path)
    assert UNPICKLED == []  # nothing ran
    assert str(path) in message and "so it was not read" in message and "model.safetensors" in message
    torch.load(path, weights_only=False)  # the file really is a bomb: a full unpickle runs it
    assert UNPICKLED == ["ran"]


def test_from_transformers_config_keeps_sharing_keys(tmp_path):
    """Our extra keys ride through transformers: a transformers round trip keeps the mode."""
    config = tiny_config(sharing="none", sentence_objective="nsp")
    hf_config = config.to_transformers()
    hf_config.save_pretrained(tmp_path)
    assert AlbertConfig.load(tmp_path) == config
