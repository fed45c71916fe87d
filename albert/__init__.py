"""ALBERT Lab: a readable PyTorch ALBERT with exact parameter arithmetic and HF interop.

The config and the parameter calculator import without torch; the model classes load
torch on first use (PEP 562), so `from albert import count_parameters` stays instant.

The folders are layers, lowest first: this root holds the foundation (`errors`, `io`, `cli`, `han`), then `core`
(the model), `data`, `training` and `commands`. The root also gives the four commands their short names:
`python -m albert.pretrain` (and `finetune`, `tokenizer`, `task_text`) runs `albert.commands.pretrain`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from albert.core.config import PRESETS, AlbertConfig, ConfigError
from albert.core.params import ParameterCount, count_parameters

_LAZY = {
    "AlbertModel": "albert.core.model",
    "AlbertForPreTraining": "albert.core.heads",
    "AlbertForMaskedLM": "albert.core.heads",
    "AlbertForSequenceClassification": "albert.core.heads",
    "AlbertForTokenClassification": "albert.core.heads",
}

if TYPE_CHECKING:
    from albert.core.heads import (
        AlbertForMaskedLM,
        AlbertForPreTraining,
        AlbertForSequenceClassification,
        AlbertForTokenClassification,
    )
    from albert.core.model import AlbertModel


def from_transformers(hf_model: Any) -> AlbertModel:
    """The ALBERT Lab model (in eval mode) of the same class as a transformers ALBERT model, with its weights."""
    name = type(hf_model).__name__
    if name not in _LAZY:
        from albert.core.checkpoint import CheckpointError

        raise CheckpointError(f"transformers class {name} has no ALBERT Lab counterpart.", "no_counterpart", name=name)
    return __getattr__(name).from_transformers(hf_model)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'albert' has no attribute {name!r}")


__all__ = [
    "PRESETS",
    "AlbertConfig",
    "ConfigError",
    "AlbertModel",
    "AlbertForPreTraining",
    "AlbertForMaskedLM",
    "AlbertForSequenceClassification",
    "AlbertForTokenClassification",
    "ParameterCount",
    "count_parameters",
    "from_transformers",
]
