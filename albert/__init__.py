"""ALBERT Lab: a readable PyTorch ALBERT with exact parameter arithmetic and HF interop."""

from albert.config import PRESETS, AlbertConfig, ConfigError
from albert.heads import (
    AlbertForMaskedLM,
    AlbertForPreTraining,
    AlbertForSequenceClassification,
    AlbertForTokenClassification,
)
from albert.model import AlbertModel
from albert.params import ParameterCount, count_parameters

__all__ = [
    "PRESETS", "AlbertConfig", "ConfigError", "AlbertModel", "AlbertForPreTraining",
    "AlbertForMaskedLM", "AlbertForSequenceClassification", "AlbertForTokenClassification",
    "ParameterCount", "count_parameters",
]
