"""BERT checkpoints read as ALBERT Lab models: sharing `none`, E = H, no E→H projection, an NSP head.

Tiny random BERTs are built with transformers' own classes and saved with `save_pretrained` into a temporary
folder; ALBERT Lab's classes must load them unchanged and give transformers' logits (≤ 1e-5). The app half: a
folder holding such a BERT and its WordPiece tokenizer works in the masked-word, attention, layer-transition and
sentence-order views. Nothing is downloaded (conftest switches the hub off).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import transformers
from safetensors.torch import load_file, save_file

import albert
from albert import AlbertForMaskedLM, AlbertForPreTraining, AlbertForSequenceClassification, ConfigError
from albert.core.checkpoint import CheckpointError
from albert.data.tokenizer import encode_masked, is_wordpiece, load_tokenizer
from tests.app.support import WORDS, use_tiny_assets
from tests.factories import max_abs_diff, randomize_

TOLERANCE = 1e-5
SHAPES = {
    "L2-H32-gelu": dict(
        vocab_size=61, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37
    ),
    "L3-H48-relu": dict(
        vocab_size=97,
        hidden_size=48,
        num_hidden_layers=3,
        num_attention_heads=6,
        intermediate_size=80,
        max_position_embeddings=40,
        type_vocab_size=3,
        hidden_act="relu",
        layer_norm_eps=1e-7,
    ),
    "L4-H24-gelu_new": dict(
        vocab_size=83,
        hidden_size=24,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=50,
        max_position_embeddings=32,
        hidden_act="gelu_new",
    ),
}
"""Several shapes (odd sizes, so a swapped dimension is a shape error); BERT's own activation first."""


def bert_model(class_name: str, sizes: dict, seed: int = 0, **changes) -> torch.nn.Module:
    """A transformers BERT of `class_name` with distinct random weights (biases and LayerNorms included)."""
    torch.manual_seed(seed)
    config = transformers.BertConfig(**{"max_position_embeddings": 64, **sizes, **changes})
    return randomize_(getattr(transformers, class_name)(config), seed=seed)


def saved_bert(directory: Path, class_name: str = "BertForPreTraining", sizes: dict | None = None, **changes):
    model = bert_model(class_name, sizes or SHAPES["L2-H32-gelu"], **changes)
    model.save_pretrained(str(directory))
    return model


def padded_batch(vocab_size: int, type_vocab_size: int = 2, seed: int = 7) -> dict[str, torch.Tensor]:
    """Three sequences of 11 tokens, two padded, with segment ids (the last type id used when there are more)."""
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(1, vocab_size, (3, 11), generator=generator)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, 7:] = 0
    attention_mask[2, 4:] = 0
    input_ids[attention_mask == 0] = 0
    token_type_ids = torch.zeros_like(input_ids)
    token_type_ids[:, 5:] = type_vocab_size - 1
    token_type_ids[attention_mask == 0] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}


def _head_pairs(a, b) -> dict[str, tuple]:
    return {
        "mlm": (getattr(a, "mlm_logits", None), getattr(b, "prediction_logits", None)),
        "nsp": (getattr(a, "sop_logits", None), getattr(b, "seq_relationship_logits", None)),
        "logits": (getattr(a, "logits", None), getattr(b, "logits", None)),
    }


def logits_differences(ours: torch.nn.Module, theirs: torch.nn.Module, batch: dict) -> dict[str, float]:
    """Largest absolute difference of every head's logits (both attention paths: the explicit probabilities
    against transformers' eager, SDPA against its default sdpa) and of every hidden state and attention map."""
    found = {}
    with torch.no_grad():
        theirs.config._attn_implementation = "sdpa"
        for name, (x, y) in _head_pairs(ours(**batch), theirs(**batch)).items():
            if x is not None or y is not None:
                found[f"{name} (sdpa)"] = max_abs_diff(x, y)
        theirs.config._attn_implementation = "eager"  # the attention maps come from the eager path only
        a = ours(**batch, output_hidden_states=True, output_attentions=True)
        b = theirs(**batch, output_hidden_states=True, output_attentions=True)
    for name, (x, y) in _head_pairs(a, b).items():
        if x is not None or y is not None:
            found[name] = max_abs_diff(x, y)
    assert len(a.hidden_states) == len(b.hidden_states) == theirs.config.num_hidden_layers + 1
    found["hidden_states"] = max(max_abs_diff(x, y) for x, y in zip(a.hidden_states, b.hidden_states, strict=True))
    found["attentions"] = max(max_abs_diff(x, y) for x, y in zip(a.attentions, b.attentions, strict=True))
    return found


def parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# ----- the library ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_bert_for_pretraining_loads_as_the_unshared_albert_with_the_same_logits(tmp_path, shape) -> None:
    theirs = saved_bert(tmp_path, "BertForPreTraining", shape)
    ours = AlbertForPreTraining.from_pretrained(tmp_path)
    config = ours.config
    assert (config.sharing, config.project_embeddings, config.sentence_objective) == ("none", False, "nsp")
    assert config.embedding_size == config.hidden_size == shape["hidden_size"]
    assert config.num_hidden_groups == config.num_hidden_layers == shape["num_hidden_layers"]
    for field in ("vocab_size", "intermediate_size", "num_attention_heads", "type_vocab_size"):
        assert getattr(config, field) == shape[field] if field in shape else getattr(theirs.config, field)
    assert config.hidden_act == shape.get("hidden_act", "gelu")  # BERT's exact GELU, not ALBERT's gelu_new
    assert config.layer_norm_eps == shape.get("layer_norm_eps", 1e-12)
    assert config.max_position_embeddings == theirs.config.max_position_embeddings
    differences = logits_differences(ours, theirs, padded_batch(shape["vocab_size"], config.type_vocab_size))
    assert max(differences.values()) <= TOLERANCE, differences
    assert albert.count_parameters(config, "pretraining").total == parameters(ours) == parameters(theirs)


def test_masked_lm_and_classifier_load_from_their_bert_classes(tmp_path) -> None:
    shape = SHAPES["L3-H48-relu"]
    batch = padded_batch(shape["vocab_size"], shape["type_vocab_size"])
    theirs = saved_bert(tmp_path / "mlm", "BertForMaskedLM", shape)
    ours = AlbertForMaskedLM.from_pretrained(tmp_path / "mlm")
    assert max(logits_differences(ours, theirs, batch).values()) <= TOLERANCE
    assert albert.count_parameters(ours.config, "masked_lm").total == parameters(ours) == parameters(theirs)

    theirs = saved_bert(tmp_path / "clf", "BertForSequenceClassification", shape, num_labels=3)
    ours = AlbertForSequenceClassification.from_pretrained(tmp_path / "clf")
    assert ours.config.num_labels == 3
    assert max(logits_differences(ours, theirs, batch).values()) <= TOLERANCE
    count = albert.count_parameters(ours.config, "sequence_classification").total
    assert count == parameters(ours) == parameters(theirs)


def test_a_pretraining_bert_gives_its_encoder_and_mlm_head_to_a_masked_lm(tmp_path) -> None:
    theirs = saved_bert(tmp_path, "BertForPreTraining")
    ours = AlbertForMaskedLM.from_pretrained(tmp_path)  # the pooler and the NSP head are left out
    with torch.no_grad():
        batch = padded_batch(61)
        difference = max_abs_diff(ours(**batch).logits, theirs(**batch).prediction_logits)
    assert difference <= TOLERANCE


def test_old_names_buffers_tied_copies_and_pickled_weights_load(tmp_path) -> None:
    """bert-base-uncased's hub file keeps TensorFlow's LayerNorm.gamma/beta; older writers add position ids and the
    tied decoder; some folders hold only pytorch_model.bin (read with weights_only=True)."""
    theirs = saved_bert(tmp_path, "BertForPreTraining")
    state = load_file(str(tmp_path / "model.safetensors"))
    tf_names = {"LayerNorm.weight": "LayerNorm.gamma", "LayerNorm.bias": "LayerNorm.beta"}
    old = {next((k.replace(a, b) for a, b in tf_names.items() if k.endswith(a)), k): v for k, v in state.items()}
    assert sum(k.endswith(("LayerNorm.gamma", "LayerNorm.beta")) for k in old) == 2 * 6  # 2 layers × 2 + 2
    old["bert.embeddings.position_ids"] = torch.arange(64)[None]
    old["cls.predictions.decoder.weight"] = state["bert.embeddings.word_embeddings.weight"]
    old["cls.predictions.decoder.bias"] = state["cls.predictions.bias"]
    batch = padded_batch(61)
    with torch.no_grad():
        expected = theirs(**batch).prediction_logits
    save_file({k: v.clone() for k, v in old.items()}, str(tmp_path / "model.safetensors"))
    loaded = AlbertForPreTraining.from_pretrained(tmp_path)
    with torch.no_grad():
        assert max_abs_diff(loaded(**batch).mlm_logits, expected) <= TOLERANCE
    (tmp_path / "model.safetensors").unlink()
    torch.save(old, tmp_path / "pytorch_model.bin")
    loaded = AlbertForPreTraining.from_pretrained(tmp_path)
    with torch.no_grad():
        assert max_abs_diff(loaded(**batch).mlm_logits, expected) <= TOLERANCE


def test_from_transformers_takes_a_bert_object() -> None:
    theirs = bert_model("BertForPreTraining", SHAPES["L4-H24-gelu_new"])
    ours = AlbertForPreTraining.from_transformers(theirs)
    assert max(logits_differences(ours, theirs, padded_batch(83)).values()) <= TOLERANCE


def test_a_loaded_bert_saves_as_an_albert_that_transformers_and_we_read_back(tmp_path) -> None:
    """Saved, a BERT is the ALBERT it is (identity E→H projection): transformers' ALBERT gives BERT's logits."""
    theirs = saved_bert(tmp_path / "bert", "BertForPreTraining", SHAPES["L3-H48-relu"])
    ours = AlbertForPreTraining.from_pretrained(tmp_path / "bert")
    ours.save_pretrained(tmp_path / "albert")
    saved = json.loads((tmp_path / "albert" / "config.json").read_text())
    assert (saved["model_type"], saved["architectures"]) == ("albert", ["AlbertForPreTraining"])
    assert (saved["sharing"], saved["sentence_objective"], saved["hidden_act"]) == ("none", "nsp", "relu")
    batch = padded_batch(97, 3)
    again = AlbertForPreTraining.from_pretrained(tmp_path / "albert")
    as_albert = transformers.AlbertForPreTraining.from_pretrained(str(tmp_path / "albert")).eval()
    with torch.no_grad():
        expected = theirs(**batch)
        for out in (again(**batch), as_albert(**batch)):
            mlm = getattr(out, "mlm_logits", None)
            assert max_abs_diff(mlm if mlm is not None else out.prediction_logits, expected.prediction_logits) <= 1e-5
            assert max_abs_diff(out.sop_logits, expected.seq_relationship_logits) <= TOLERANCE


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"position_embedding_type": "relative_key"}, "only 'absolute' is supported"),
        ({"is_decoder": True}, "BERT encoders only"),
        ({"add_cross_attention": True}, "cross-attention"),
        ({"tie_word_embeddings": False}, "not tied to its word embeddings"),
        ({"model_type": "gpt2"}, "reads 'albert' and 'bert' configs"),
        ({"hidden_act": "quick_gelu"}, "hidden_act must be one of"),
    ],
)
def test_what_cannot_map_is_refused_in_one_sentence_naming_the_file(tmp_path, changes, words) -> None:
    saved_bert(tmp_path)
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))
    with pytest.raises(ConfigError) as raised:
        AlbertForPreTraining.from_pretrained(tmp_path)
    message = str(raised.value)
    assert words in message and str(path) in message and "\n" not in message


def test_a_bert_file_with_a_tensor_of_no_bert_is_refused(tmp_path) -> None:
    saved_bert(tmp_path)
    weights = tmp_path / "model.safetensors"
    state = load_file(str(weights))
    save_file({**state, "bert.encoder.layer.0.crossattention.self.query.weight": torch.zeros(2)}, str(weights))
    with pytest.raises(ConfigError, match="not part of a BERT model"):
        AlbertForPreTraining.from_pretrained(tmp_path)
    save_file({k: v for k, v in state.items() if "layer.1.output.dense" not in k}, str(weights))
    with pytest.raises(CheckpointError, match="lacks weights"):
        AlbertForPreTraining.from_pretrained(tmp_path)


# ----- WordPiece ------------------------------------------------------------------------------------
VOCABULARY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(set(WORDS)), "##s", "##ed", "##ing", "成", "立"]


def save_wordpiece(directory: Path, vocabulary: list[str] = VOCABULARY, keep_vocab_txt: bool = True):
    """A tiny BERT WordPiece tokenizer as transformers saves it (tokenizer.json), beside vocab.txt as hub folders
    hold it. (transformers 5's `BertTokenizerFast(vocab_file=...)` ignores the file: built from the folder.)"""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast.from_pretrained(str(directory))
    assert tokenizer.vocab_size == len(vocabulary)
    tokenizer.save_pretrained(str(directory))
    if not keep_vocab_txt:
        (directory / "vocab.txt").unlink()
    return tokenizer


@pytest.mark.parametrize("keep_vocab_txt", [True, False], ids=["vocab.txt", "tokenizer.json only"])
def test_a_bert_folder_gives_its_wordpiece_tokenizer(tmp_path, keep_vocab_txt) -> None:
    save_wordpiece(tmp_path, keep_vocab_txt=keep_vocab_txt)
    assert is_wordpiece(tmp_path)
    tokenizer = load_tokenizer(tmp_path)
    assert tokenizer.mask_token == "[MASK]" and tokenizer.mask_token_id == 4
    ids = tokenizer("the sailors walked", add_special_tokens=False)["input_ids"]
    assert tokenizer.convert_ids_to_tokens(ids) == ["the", "sailor", "##s", "walked"]
    # WordPiece has no word-start piece: text glued to [MASK] is the tokenizer's own split ("成立" is two words)
    for text in ("the [MASK]s walked .", "the [MASK]. the", "共和[MASK]成立"):
        assert encode_masked(tokenizer, text) == tokenizer(text, add_special_tokens=False)["input_ids"]
    pieces = tokenizer.convert_ids_to_tokens(encode_masked(tokenizer, "the [MASK]成立."))
    assert pieces == ["the", "[MASK]", "成", "立", "."]  # WordPiece alone on "成立." would give [UNK]


def test_a_wordpiece_vocabulary_without_bert_special_tokens_is_refused(tmp_path) -> None:
    save_wordpiece(tmp_path, ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "river"])
    with pytest.raises(ValueError, match=r"lacks \[MASK\]"):
        load_tokenizer(tmp_path)


# ----- the app ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bert_folder(tmp_path_factory) -> Path:
    """A tiny random BERT (BertForPreTraining, saved by transformers) with its WordPiece tokenizer files."""
    directory = tmp_path_factory.mktemp("tiny-bert")
    sizes = dict(vocab_size=len(VOCABULARY), hidden_size=32, num_hidden_layers=3, num_attention_heads=4)
    bert_model("BertForPreTraining", sizes, intermediate_size=48).save_pretrained(str(directory))
    save_wordpiece(directory)
    return directory


@pytest.fixture
def _tiny_models(monkeypatch: pytest.MonkeyPatch):
    return use_tiny_assets(monkeypatch)


def test_the_app_loads_a_bert_folder_with_its_nsp_head(bert_folder, _tiny_models) -> None:
    from app.models import load_uncached, resolve

    assert resolve(str(bert_folder))[0] == "local"
    lm = load_uncached("local", str(bert_folder), "en")
    assert lm.has_sentence_head and lm.config.sentence_objective == "nsp"
    assert lm.tokenizer.mask_token == "[MASK]" and lm.mask_id == VOCABULARY.index("[MASK]")
    assert lm.special_ids == {VOCABULARY.index(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")}


def test_fill_mask_view_answers_for_a_bert_folder(bert_folder, _tiny_models) -> None:
    from app.tabs.masked.views import fill_mask_view

    raw, status, filled, chart, words = fill_mask_view("the old sailor walked along the [MASK] .", 5, str(bert_folder))
    assert "error" not in raw, raw
    assert raw["tokens"][0] == "[CLS]" and "[MASK]" in raw["tokens"] and raw["unknown_tokens"] == 0
    (mask,) = raw["masks"]
    assert len(mask["top"]) == 5 and all(row["token"] in VOCABULARY for row in mask["top"])
    assert not any(row["token"].startswith("[") for row in mask["top"])  # special tokens are never predicted
    assert "[MASK]" not in filled


def test_attention_and_layer_transition_views_answer_for_a_bert_folder(bert_folder, _tiny_models) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.sharing.views import layer_transitions_view

    pair = ("the sailors walked along the river", "the children counted boxes")
    raw, *_ = attention_view(*pair, 2, 48, str(bert_folder))
    assert "error" not in raw, raw
    assert (raw["layers"], raw["heads"]) == (3, 4) and "##s" in raw["tokens"]
    assert raw["b_start"] == raw["tokens"].index("[SEP]") + 1
    raw, status, l2, cosine = layer_transitions_view("the old sailor walked along the river", str(bert_folder))
    assert "error" not in raw, raw
    (series,) = [name for name in raw if name.startswith(bert_folder.name)]
    assert len(raw[series]["l2"]) == len(raw[series]["cosine"]) == 3
    assert all(value > 0 for value in raw[series]["l2"])


def test_sentence_order_view_answers_with_the_bert_nsp_head(bert_folder, _tiny_models) -> None:
    from app.inference import sentence_order
    from app.models import load
    from app.tabs.order.views import sentence_order_view

    a, b = "the old sailor walked along the river .", "the children counted boxes ."
    raw, *_ = sentence_order_view(a, b, str(bert_folder))
    assert "error" not in raw, raw
    assert raw["objective"] == "nsp"
    result = sentence_order(load(str(bert_folder)), a, b)
    assert not any("random" in notice for notice in result.notices)  # BERT's NSP head is trained, not new
    # class 0 = "B follows A" for BERT's NSP as for ours: the same number transformers' BERT gives
    lm = load(str(bert_folder))
    theirs = transformers.BertForPreTraining.from_pretrained(str(bert_folder)).eval()
    encoded = lm.tokenizer(a, b, return_tensors="pt")
    with torch.no_grad():
        expected = theirs(**encoded).seq_relationship_logits.softmax(-1)[0, 0].item()
    assert abs(result.in_order_ab - expected) <= 1e-5


def test_app_pre_allocation_checks_hold_for_a_bert_folder(bert_folder, _tiny_models, tmp_path) -> None:
    """A BERT whose config claims more than its weights hold is refused before anything is built."""
    from app.models import load_uncached
    from app.models.files import ModelError

    for f in bert_folder.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "vocab_size": 5000}))
    with pytest.raises(ModelError, match="parameters"):
        load_uncached("local", str(tmp_path), "en")
