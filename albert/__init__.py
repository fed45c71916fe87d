"""ALBERT Lab: a readable PyTorch ALBERT with exact parameter arithmetic and HF interop.

The config and the parameter calculator import without torch; the model classes load
torch on first use (PEP 562), so `from albert import count_parameters` stays instant.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from albert.config import PRESETS, AlbertConfig, ConfigError
from albert.params import ParameterCount, count_parameters

_LAZY = {
    "AlbertModel": "albert.model",
    "AlbertForPreTraining": "albert.heads",
    "AlbertForMaskedLM": "albert.heads",
    "AlbertForSequenceClassification": "albert.heads",
    "AlbertForTokenClassification": "albert.heads",
}

if TYPE_CHECKING:
    from albert.heads import (
        AlbertForMaskedLM,
        AlbertForPreTraining,
        AlbertForSequenceClassification,
        AlbertForTokenClassification,
    )
    from albert.model import AlbertModel


def from_transformers(hf_model: Any) -> AlbertModel:
    """The ALBERT Lab model (in eval mode) of the same class as a transformers ALBERT model, with its weights."""
    name = type(hf_model).__name__
    if name not in _LAZY:
        from albert.checkpoint import CheckpointError

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
