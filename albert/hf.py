"""Conversion between ALBERT Lab's module names and Hugging Face transformers' ALBERT keys.

The key names of transformers live only here, in one declarative table (`KEY_MAP`) that
is read left-to-right for import and right-to-left for export.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch

from albert.config import AlbertConfig, ConfigError

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
_TIED_HF_KEYS = {"predictions.decoder.weight": "embeddings.word_embeddings.weight",
                 "predictions.decoder.bias": "predictions.bias"}
_PREFIX = "albert."


def _compile(pattern: str) -> re.Pattern[str]:
    regex = re.escape(pattern).replace(r"\{g\}", r"(?P<g>\d+)").replace(r"\{p\}", r"(?P<p>weight|bias)")
    return re.compile(regex + "$")


_TO_HF = [(_compile(ours), theirs) for ours, theirs in KEY_MAP]
_FROM_HF = [(_compile(theirs), ours) for ours, theirs in KEY_MAP]


def _rename(key: str, table: list[tuple[re.Pattern[str], str]]) -> str | None:
    prefix = _PREFIX if key.startswith(_PREFIX) else ""
    body = key[len(prefix):]
    for pattern, template in table:
        match = pattern.match(body)
        if match:
            return prefix + template.format(**match.groupdict())
    return None


def to_hf_state_dict(state: Mapping[str, torch.Tensor], config: AlbertConfig) -> dict[str, torch.Tensor]:
    """Our state dict → transformers' keys. Refuses sharing modes transformers cannot express."""
    if not config.transformers_compatible:
        raise ConfigError(
            f"A model with sharing {config.sharing!r} cannot be exported to transformers, whose ALBERT "
            "shares whole layers only; save it with ALBERT Lab's layout instead.")
    converted: dict[str, torch.Tensor] = {}
    for key, tensor in state.items():
        new_key = _rename(key, _TO_HF)
        if new_key is None:
            raise KeyError(f"No transformers name for parameter {key!r}.")
        converted[new_key] = tensor
    prefix = _PREFIX if any(k.startswith(_PREFIX) for k in state) else ""
    if not config.project_embeddings:
        # BERT-style (E = H, no projection): transformers' ALBERT always projects, so an
        # identity projection reproduces the same function exactly.
        reference = state[prefix + "embeddings.word_embeddings.weight"]
        converted[prefix + "encoder.embedding_hidden_mapping_in.weight"] = torch.eye(
            config.hidden_size, dtype=reference.dtype)
        converted[prefix + "encoder.embedding_hidden_mapping_in.bias"] = torch.zeros(
            config.hidden_size, dtype=reference.dtype)
    return converted


def from_hf_state_dict(state: Mapping[str, torch.Tensor], config: AlbertConfig,
                       source: str = "checkpoint") -> dict[str, torch.Tensor]:
    """transformers' keys → ours. Unknown keys raise a clear error naming `source`."""
    converted: dict[str, torch.Tensor] = {}
    for key, tensor in state.items():
        body = key[len(_PREFIX):] if key.startswith(_PREFIX) else key
        if body in _TIED_HF_KEYS or body.endswith(("position_ids", "token_type_ids")):
            continue  # tied copies and buffers carry no information of their own
        new_key = _rename(key, _FROM_HF)
        if new_key is None:
            raise ConfigError(f"{source} holds a tensor {key!r} that is not part of an ALBERT model.")
        converted[new_key] = tensor
    if not config.project_embeddings:
        for suffix in ("weight", "bias"):
            for prefix in ("", _PREFIX):
                converted.pop(f"{prefix}projection.{suffix}", None)
    return converted


def looks_like_hf(keys: list[str]) -> bool:
    """Whether a state dict uses transformers' names (checked on the encoder keys)."""
    return any("albert_layer_groups" in k or "embeddings.LayerNorm" in k for k in keys)


def from_transformers(hf_model) -> torch.nn.Module:
    """An ALBERT Lab model (in eval mode) with the weights of a transformers ALBERT model (any head class)."""
    from albert.checkpoint import model_class_for_transformers

    config = AlbertConfig.from_transformers(hf_model.config)
    model = model_class_for_transformers(type(hf_model).__name__)(config)
    state = from_hf_state_dict(hf_model.state_dict(), config, source=type(hf_model).__name__)
    model.load_state_dict(state, strict=True)
    return model.eval()  # as from_pretrained: a converted model is for inference until trained


def to_transformers(model) -> torch.nn.Module:
    """The transformers model (same head class) holding this model's weights."""
    import transformers

    hf_config = model.config.to_transformers()
    if hasattr(model, "sentence_pair_head"):
        hf_config.num_labels = 2  # transformers sizes its SOP head by num_labels; ours is binary
    name = type(model).__name__
    state = to_hf_state_dict(model.state_dict(), model.config)
    if name == "AlbertForPreTraining" and not model.has_sentence_head:
        # MLM only: transformers' pretraining class always has an SOP head, its masked-LM class
        # has none (and no pooler, which nothing trained in an MLM-only model)
        name = "AlbertForMaskedLM"
        state = {k: v for k, v in state.items() if not k.removeprefix(_PREFIX).startswith("pooler.")}
    hf_model = getattr(transformers, name)(hf_config).eval()
    missing, unexpected = hf_model.load_state_dict(state, strict=False)
    missing = [k for k in missing if k.removeprefix(_PREFIX) not in _TIED_HF_KEYS
               and not k.endswith(("position_ids", "token_type_ids"))]
    if missing or unexpected:
        raise KeyError(f"Conversion to transformers left missing={missing} unexpected={unexpected}.")
    return hf_model
