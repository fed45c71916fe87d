"""Where the fine-tuned sentiment classifiers are and what their metrics say: the shipped English one
(`assets/sentiment/albert-lab-sst2/`, `ALBERT_LAB_SENTIMENT` points elsewhere; tests use a tiny random one) and the
Chinese one (`assets/sentiment/albert-lab-zh-sentiment/`, `ALBERT_LAB_SENTIMENT_ZH`), read for text that reads as
Chinese (`app.models.languages.text_language`). Loading and classifying: `app.tabs.sentiment.classifier`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app import settings
from app.models import REPO_ROOT
from app.models.languages import text_language

DEFAULT_DIR = REPO_ROOT / "assets" / "sentiment" / "albert-lab-sst2"
ZH_SENTIMENT_MODEL = "albert-lab-zh-sentiment"
"""The Chinese sentiment model (fine-tuned from albert-lab-zh on Chinese reviews)."""
ZH_DEFAULT_DIR = REPO_ROOT / "assets" / "sentiment" / ZH_SENTIMENT_MODEL
_METRIC_FILES = ("metrics.json", "eval_results.json")
_ACCURACY_KEYS = ("shipped_dev_accuracy", "accuracy", "dev_accuracy", "eval_accuracy")
"""The shipped model's own dev accuracy first (a run's best checkpoint can differ from what was shipped by a pair)."""
_NESTED_KEYS = ("best", "dev", "metrics", "fp32")


def sentiment_dir() -> Path:
    """Where the sentiment model is looked for (`ALBERT_LAB_SENTIMENT` overrides the shipped folder)."""
    override = settings.SENTIMENT.read()
    return Path(override).expanduser() if override else DEFAULT_DIR


def zh_sentiment_dir() -> Path:
    """Where the Chinese sentiment model is looked for (`ALBERT_LAB_SENTIMENT_ZH` overrides the shipped folder)."""
    override = settings.SENTIMENT_ZH.read()
    return Path(override).expanduser() if override else ZH_DEFAULT_DIR


def is_installed(directory: Path | None = None) -> bool:
    return ((directory or sentiment_dir()) / "config.json").is_file()


def sentiment_dir_for(text: str, lang: str = "en") -> Path:
    """The Chinese model's folder for text that reads as Chinese when that model is installed, else the default."""
    chinese = zh_sentiment_dir()
    return chinese if text_language(text, lang) == "zh" and is_installed(chinese) else sentiment_dir()


def sentiment_readers() -> dict[str, str | None]:
    """The installed sentiment model that reads each language, for the `<unk>` guard's sentence."""
    english, chinese = sentiment_dir(), zh_sentiment_dir()
    return {
        "en": english.name if is_installed(english) else None,
        "zh": chinese.name if is_installed(chinese) else None,
    }


def read_metrics(directory: Path | None = None) -> dict[str, Any] | None:
    """The first of metrics.json / eval_results.json in the model folder that holds a JSON object."""
    root = directory or sentiment_dir()
    for name in _METRIC_FILES:
        try:
            data = json.loads((root / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return data
    return None


def held_out_accuracy(metrics: dict[str, Any] | None) -> float | None:
    """Dev accuracy as a fraction, from a flat file or one nested under best/dev/metrics/fp32."""
    if not metrics:
        return None
    for key in _ACCURACY_KEYS:
        value = metrics.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 100:
            return float(value) / 100 if value > 1 else float(value)
    for key in _NESTED_KEYS:
        nested = metrics.get(key)
        if isinstance(nested, dict):
            found = held_out_accuracy(nested)
            if found is not None:
                return found
    return None
