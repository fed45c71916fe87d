"""The adapter between ALBERT Lab and Hugging Face transformers: config keys and tensor names, both ways.

Everything that knows transformers' conventions lives here, and only here, as plain functions on
dictionaries (no files, no model classes of ours), like torchtitan's state-dict adapters:
- **config**: `config_to_hf` / `config_from_hf` translate our config dictionary to and from transformers'
  `config.json` (its fixed keys, labels as `id2label`, sharing read back from the group count);
- **tensors**: one declarative table (`KEY_MAP`), read left-to-right for import and right-to-left for
  export, plus the tied copies transformers stores twice;
- **fix-ups**, each written once: a pretraining model's sentence-pair head is binary, so transformers is
  told 2 labels (it sizes that head by `num_labels`); a BERT-style model (no E→H projection) exports an
  identity projection; an MLM-only pretraining model exports as `AlbertForMaskedLM`; and a sharing mode
  transformers cannot represent (`attention`, `ffn`) is refused there with one sentence (`REFUSAL`);
- **BERT, read only**: BERT is ALBERT with nothing shared, E = H, no E→H projection and an NSP head, so a
  transformers BERT directory (`model_type` "bert") reads as exactly that configuration (`bert_to_ours`)
  through a second declarative table (`BERT_KEY_MAP`, import only). A BERT loaded this way is saved as an
  ALBERT (identity projection, see above), which transformers' `AlbertForPreTraining` loads.

How transformers is made to refuse: its ALBERT always has one layer per group (`inner_group_num` 1),
a transformers-only field ALBERT Lab has no use for. A `config.json` of a mode transformers cannot
represent holds `REFUSAL` in that field instead; transformers' config validation (an integer field)
rejects the file quoting the sentence, rather than silently building a randomly initialised model.
ALBERT Lab ignores the field for those modes, so every field it reads keeps its true value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from albert.errors import ConfigError

if TYPE_CHECKING:  # annotations only: the adapter works on dictionaries and tensors it is given
    import torch

    from albert.core.config import AlbertConfig

REFUSAL = (
    "this ALBERT Lab checkpoint shares only the {sharing} sublayer across passes, which "
    "transformers' ALBERT cannot represent; load it with albert.{cls}.from_pretrained"
)
"""What transformers says when asked to load an `attention`/`ffn` directory (written as `inner_group_num`)."""
PARTIAL_SHARING = ("attention", "ffn")
"""Sharing modes transformers' ALBERT cannot represent (it shares whole layers only)."""
_HF_FIXED = {"model_type": "albert", "inner_group_num": 1, "position_embedding_type": "absolute"}
"""Keys transformers' ALBERT config always has, with the only values ALBERT Lab supports."""
_HF_ONLY = (*_HF_FIXED, "transformers_version")

# ----- config ---------------------------------------------------------------------------------------


def config_to_hf(
    ours: Mapping[str, Any], architecture: str | None = None, sentence_pair_head: bool = False
) -> dict[str, Any]:
    """Our config dictionary (fields, `num_labels` and the `extra` keys) → transformers' `config.json`.

    `architecture` is the class that is saved (recorded in `architectures`); `sentence_pair_head` says
    it has our binary SOP/NSP head, which transformers sizes by `num_labels`, so it is told 2 labels.
    """
    data = {k: v for k, v in ours.items() if k != "num_labels"}
    data.update(_HF_FIXED)
    if architecture:
        data["architectures"] = [architecture]
    data.setdefault("architectures", ["AlbertForPreTraining"])
    labels = 2 if sentence_pair_head else ours["num_labels"]
    id2label = data.get("id2label")
    if not isinstance(id2label, dict) or len(id2label) != labels:
        # Labels read from a config.json ride along; a changed num_labels must win, or the next
        # load would build a classifier of the old width.
        data["id2label"] = {str(i): f"LABEL_{i}" for i in range(labels)}
        data["label2id"] = {f"LABEL_{i}": i for i in range(labels)}
    if data.get("sharing") in PARTIAL_SHARING:
        data["inner_group_num"] = REFUSAL.format(sharing=data["sharing"], cls=data["architectures"][0])
    return data


def config_from_hf(data: Mapping[str, Any], source: str = "config") -> dict[str, Any]:
    """transformers' (or our) `config.json` → our config dictionary; what ALBERT Lab cannot build is refused.

    transformers' own configs have no `sharing`: groups == layers (> 1) is BERT-style, otherwise `all`."""
    ours = dict(data)
    model_type = ours.get("model_type", "albert")
    if model_type not in ("albert", BERT_MODEL_TYPE):
        raise ConfigError(
            f"{source} describes a {model_type!r} model; ALBERT Lab reads 'albert' and 'bert' configs.",
            "model_type",
            source=source,
            value=model_type,
        )
    if model_type == BERT_MODEL_TYPE:
        bert_to_ours(ours, source)
    partial = ours.get("sharing") in PARTIAL_SHARING
    if partial and isinstance(ours.get("num_hidden_groups"), str):
        ours["num_hidden_groups"] = 1  # written before the refusal moved to inner_group_num: always 1 here
    inner = ours.get("inner_group_num", 1)
    if inner != 1 and not (partial and isinstance(inner, str)):  # a string: the refusal, not a count
        raise ConfigError(
            f"{source} has inner_group_num={inner}; ALBERT Lab supports 1 (one layer per group, "
            "as every published ALBERT).",
            "inner_group_num",
            source=source,
            value=inner,
        )
    position = ours.get("position_embedding_type", "absolute")
    if position != "absolute":
        raise ConfigError(
            f"{source} uses position_embedding_type={position!r}; only 'absolute' is supported.",
            "position_embedding_type",
            source=source,
            value=position,
        )
    for key in _HF_ONLY:
        ours.pop(key, None)
    if ours.get("id2label"):
        ours["num_labels"] = len(ours["id2label"])
    if "sharing" not in ours:
        # (values are not int()-converted here: a malformed one must reach validation, not crash)
        layers, groups = ours.get("num_hidden_layers", 12), ours.get("num_hidden_groups", 1)
        ours["sharing"] = "none" if groups == layers and isinstance(layers, int) and layers > 1 else "all"
    return ours


# ----- BERT's config ---------------------------------------------------------------------------------
BERT_MODEL_TYPE = "bert"
BERT_CLASSES: dict[str, str] = {
    "BertModel": "AlbertModel",
    "BertForPreTraining": "AlbertForPreTraining",
    "BertForMaskedLM": "AlbertForMaskedLM",
    "BertForSequenceClassification": "AlbertForSequenceClassification",
    "BertForTokenClassification": "AlbertForTokenClassification",
}
"""transformers' BERT classes (a config.json's `architectures`) and the ALBERT Lab class with the same weights."""
_BERT_REFUSALS: tuple[tuple[str, Any, str], ...] = (
    # (key, the value that cannot map, what it means): one sentence each
    ("is_decoder", True, "a BERT decoder (is_decoder=true); ALBERT Lab reads BERT encoders only"),
    ("add_cross_attention", True, "a BERT with cross-attention layers; ALBERT Lab reads BERT encoders only"),
    (
        "tie_word_embeddings",
        False,
        "a BERT whose MLM decoder is not tied to its word embeddings (tie_word_embeddings=false); "
        "ALBERT Lab's decoder is always the embedding matrix",
    ),
)
_BERT_ONLY = ("is_decoder", "add_cross_attention", "tie_word_embeddings", "use_cache", "classifier_dropout")


def bert_to_ours(ours: dict[str, Any], source: str = "config") -> None:
    """A BERT `config.json` dictionary → ours, in place: nothing shared, E = H, no projection, an NSP head.

    BERT's config has none of these fields (it cannot be anything else); what it has that ALBERT Lab cannot
    build is refused with one sentence. Token ids BERT leaves null (`bos_token_id`) keep our defaults."""
    for key, unmappable, meaning in _BERT_REFUSALS:
        if ours.get(key) is unmappable:
            raise ConfigError(f"{source} describes {meaning}.", "bert_unmappable", source=source, key=key)
    classifier_dropout = ours.get("classifier_dropout")
    for key in _BERT_ONLY:
        ours.pop(key, None)
    for key in ("bos_token_id", "eos_token_id", "pad_token_id"):
        if ours.get(key, 0) is None:
            del ours[key]
    ours["embedding_size"] = ours.get("hidden_size", 768)
    ours["project_embeddings"] = False
    ours["sharing"] = "none"
    ours["num_hidden_groups"] = ours.get("num_hidden_layers", 12)
    ours.setdefault("sentence_objective", "nsp")
    # BERT's classifiers use classifier_dropout, or hidden_dropout_prob when it is null (0.1 by default)
    ours["classifier_dropout_prob"] = (
        ours.get("hidden_dropout_prob", 0.1) if classifier_dropout is None else classifier_dropout
    )


# ----- tensors --------------------------------------------------------------------------------------
_HF_LAYER = "encoder.albert_layer_groups.{g}.albert_layers.0."
KEY_MAP: tuple[tuple[str, str], ...] = (
    # (ALBERT Lab, transformers); {g} = block/group index, {p} = weight or bias
    ("embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"),
    ("embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight"),
    ("embeddings.token_type_embeddings.weight", "embeddings.token_type_embeddings.weight"),
    ("embeddings.norm.{p}", "embeddings.LayerNorm.{p}"),
    ("projection.{p}", "encoder.embedding_hidden_mapping_in.{p}"),
    ("attention_blocks.{g}.query.{p}", _HF_LAYER + "attention.query.{p}"),
    ("attention_blocks.{g}.key.{p}", _HF_LAYER + "attention.key.{p}"),
    ("attention_blocks.{g}.value.{p}", _HF_LAYER + "attention.value.{p}"),
    ("attention_blocks.{g}.output.{p}", _HF_LAYER + "attention.dense.{p}"),
    ("attention_blocks.{g}.norm.{p}", _HF_LAYER + "attention.LayerNorm.{p}"),
    ("ffn_blocks.{g}.up.{p}", _HF_LAYER + "ffn.{p}"),
    ("ffn_blocks.{g}.down.{p}", _HF_LAYER + "ffn_output.{p}"),
    ("ffn_blocks.{g}.norm.{p}", _HF_LAYER + "full_layer_layer_norm.{p}"),
    ("pooler.{p}", "pooler.{p}"),
    ("mlm_head.dense.{p}", "predictions.dense.{p}"),
    ("mlm_head.norm.{p}", "predictions.LayerNorm.{p}"),
    ("mlm_head.bias", "predictions.bias"),
    ("sentence_pair_head.{p}", "sop_classifier.classifier.{p}"),
    ("classifier.{p}", "classifier.{p}"),
)
# transformers keys that duplicate a tied weight: dropped on import, written on export.
TIED_HF_KEYS = {
    "predictions.decoder.weight": "embeddings.word_embeddings.weight",
    "predictions.decoder.bias": "predictions.bias",
}
PREFIX = "albert."

_BERT_LAYER = "encoder.layer.{g}."
BERT_KEY_MAP: tuple[tuple[str, str], ...] = (
    # (ALBERT Lab, transformers' BERT); {g} = layer index (BERT: pass i has block i). Under `bert.` as ours
    # are under `albert.`, except the heads (`cls.…`, `classifier.…`), as transformers' ALBERT heads.
    ("embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"),
    ("embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight"),
    ("embeddings.token_type_embeddings.weight", "embeddings.token_type_embeddings.weight"),
    ("embeddings.norm.{p}", "embeddings.LayerNorm.{p}"),
    ("attention_blocks.{g}.query.{p}", _BERT_LAYER + "attention.self.query.{p}"),
    ("attention_blocks.{g}.key.{p}", _BERT_LAYER + "attention.self.key.{p}"),
    ("attention_blocks.{g}.value.{p}", _BERT_LAYER + "attention.self.value.{p}"),
    ("attention_blocks.{g}.output.{p}", _BERT_LAYER + "attention.output.dense.{p}"),
    ("attention_blocks.{g}.norm.{p}", _BERT_LAYER + "attention.output.LayerNorm.{p}"),
    ("ffn_blocks.{g}.up.{p}", _BERT_LAYER + "intermediate.dense.{p}"),
    ("ffn_blocks.{g}.down.{p}", _BERT_LAYER + "output.dense.{p}"),
    ("ffn_blocks.{g}.norm.{p}", _BERT_LAYER + "output.LayerNorm.{p}"),
    ("pooler.{p}", "pooler.dense.{p}"),
    ("mlm_head.dense.{p}", "cls.predictions.transform.dense.{p}"),
    ("mlm_head.norm.{p}", "cls.predictions.transform.LayerNorm.{p}"),
    ("mlm_head.bias", "cls.predictions.bias"),
    ("sentence_pair_head.{p}", "cls.seq_relationship.{p}"),
    ("classifier.{p}", "classifier.{p}"),
)
BERT_TIED_KEYS = frozenset({"cls.predictions.decoder.weight", "cls.predictions.decoder.bias"})
"""BERT's copies of tied weights (the word embeddings, `cls.predictions.bias`): dropped on import."""
BERT_PREFIX = "bert."
_BERT_MARKERS = ("encoder.layer.", "cls.predictions.", "cls.seq_relationship.")
"""Parts of key names only BERT's layout has (ALBERT's layers are `albert_layer_groups`)."""
_OLD_NORM_NAMES = re.compile(r"(LayerNorm)\.(gamma|beta)$")
"""Google's TensorFlow names, kept by some hub checkpoints (bert-base-uncased's model.safetensors)."""


def _compile(pattern: str) -> re.Pattern[str]:
    regex = re.escape(pattern).replace(r"\{g\}", r"(?P<g>\d+)").replace(r"\{p\}", r"(?P<p>weight|bias)")
    return re.compile(regex + "$")


_TO_HF = [(_compile(ours), theirs) for ours, theirs in KEY_MAP]
_FROM_HF = [(_compile(theirs), ours) for ours, theirs in KEY_MAP]
_FROM_BERT = [(_compile(theirs), ours) for ours, theirs in BERT_KEY_MAP]


def _rename(
    key: str, table: list[tuple[re.Pattern[str], str]], prefix_from: str = PREFIX, prefix_to: str = PREFIX
) -> str | None:
    prefix = prefix_from if key.startswith(prefix_from) else ""
    body = key[len(prefix) :]
    for pattern, template in table:
        match = pattern.match(body)
        if match:
            return (prefix_to if prefix else "") + template.format(**match.groupdict())
    return None


def is_bert_layout(keys: Iterable[str]) -> bool:
    """Whether a state dict uses transformers' BERT names (rather than its ALBERT names)."""
    return any(marker in key for key in keys for marker in _BERT_MARKERS)


def _ours(key: str, bert: bool) -> str | None:
    """Our name of a transformers key of either layout (None when it has none); old LayerNorm names read too."""
    key = _OLD_NORM_NAMES.sub(lambda m: f"{m[1]}.{'weight' if m[2] == 'gamma' else 'bias'}", key)
    return _rename(key, _FROM_BERT, BERT_PREFIX, PREFIX) if bert else _rename(key, _FROM_HF)


def is_buffer(key: str) -> bool:
    """Position/type-id buffers some transformers versions save beside the weights (no parameters)."""
    return key.endswith(("position_ids", "token_type_ids"))


def is_buffer_or_tied(key: str) -> bool:
    """transformers keys with no information of their own: tied copies and position/type-id buffers."""
    return key.removeprefix(PREFIX) in TIED_HF_KEYS or key in BERT_TIED_KEYS or is_buffer(key)


def holds_sentence_pair_head(keys: Iterable[str]) -> bool:
    """Whether a checkpoint's tensor names (ours, transformers' ALBERT or BERT) include an SOP/NSP head."""
    keys = list(keys)
    bert = is_bert_layout(keys)
    return any((_ours(key, bert) or key).startswith("sentence_pair_head.") for key in keys)


def to_hf_state_dict(state: Mapping[str, torch.Tensor], config: AlbertConfig) -> dict[str, torch.Tensor]:
    """Our state dict → transformers' keys. Refuses sharing modes transformers cannot express."""
    if not config.transformers_compatible:
        raise ConfigError(
            f"A model with sharing {config.sharing!r} cannot be exported to transformers, whose ALBERT "
            "shares whole layers only; save it with ALBERT Lab's layout instead.",
            "not_transformers_compatible",
            sharing=config.sharing,
        )
    converted: dict[str, torch.Tensor] = {}
    for key, tensor in state.items():
        new_key = _rename(key, _TO_HF)
        if new_key is None:
            raise KeyError(f"No transformers name for parameter {key!r}.")
        converted[new_key] = tensor
    prefix = PREFIX if any(k.startswith(PREFIX) for k in state) else ""
    if not config.project_embeddings:
        # BERT-style (E = H, no projection): transformers' ALBERT always projects, so an
        # identity projection reproduces the same function exactly.
        reference = state[prefix + "embeddings.word_embeddings.weight"]
        identity = reference.new_zeros((config.hidden_size, config.hidden_size))
        converted[prefix + "encoder.embedding_hidden_mapping_in.weight"] = identity.fill_diagonal_(1.0)
        converted[prefix + "encoder.embedding_hidden_mapping_in.bias"] = reference.new_zeros(config.hidden_size)
    return converted


def from_hf_state_dict(
    state: Mapping[str, torch.Tensor], config: AlbertConfig, source: str = "checkpoint"
) -> dict[str, torch.Tensor]:
    """transformers' keys (ALBERT's or BERT's) → ours. Unknown keys raise a clear error naming `source`."""
    converted: dict[str, torch.Tensor] = {}
    bert = is_bert_layout(state)
    for key, tensor in state.items():
        if is_buffer_or_tied(key):
            continue
        new_key = _ours(key, bert)
        if new_key is None:
            raise ConfigError(
                f"{source} holds a tensor {key!r} that is not part of {'a BERT' if bert else 'an ALBERT'} model.",
                "unknown_tensor",
                source=source,
                key=key,
            )
        converted[new_key] = tensor
    if not config.project_embeddings:
        for suffix in ("weight", "bias"):
            for prefix in ("", PREFIX):
                converted.pop(f"{prefix}projection.{suffix}", None)
    return converted


def looks_like_hf(keys: Iterable[str]) -> bool:
    """Whether a state dict uses transformers' names, ALBERT's or BERT's (checked on the encoder keys)."""
    keys = list(keys)
    return is_bert_layout(keys) or any("albert_layer_groups" in k or "embeddings.LayerNorm" in k for k in keys)


# ----- whole models ----------------------------------------------------------------------------------


def hf_class_name(class_name: str, has_sentence_head: bool) -> str:
    """The transformers class that holds a model of ours: the same name, except that an MLM-only
    pretraining model (no sentence-pair head, and no pooler that anything trained) is a masked LM."""
    return "AlbertForMaskedLM" if class_name == "AlbertForPreTraining" and not has_sentence_head else class_name


def to_transformers(model: Any) -> Any:  # -> transformers.PreTrainedModel
    """The transformers model (same head class) holding this ALBERT Lab model's weights."""
    import transformers

    name = hf_class_name(type(model).__name__, getattr(model, "has_sentence_head", True))
    hf_config = model.config.to_transformers(sentence_pair_head=hasattr(model, "sentence_pair_head"))
    state = to_hf_state_dict(model.state_dict(), model.config)
    if name != type(model).__name__:  # AlbertForMaskedLM has no pooler
        state = {k: v for k, v in state.items() if not k.removeprefix(PREFIX).startswith("pooler.")}
    hf_model = getattr(transformers, name)(hf_config).eval()
    missing, unexpected = hf_model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not is_buffer_or_tied(k)]
    if missing or unexpected:
        raise KeyError(f"Conversion to transformers left missing={missing} unexpected={unexpected}.")
    return hf_model
