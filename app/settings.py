"""Every environment variable the app reads: its name, its default and what it does (issue 52).

Each is read when it is used (`Setting.read`), not at import, so a test or a Space can set one before the call that
needs it. A value that is set but empty counts as unset. docs/usage/hosting.md describes them for whoever runs the app;
tests/app/test_settings.py holds this module to every variable named anywhere in the app.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One environment variable."""

    name: str
    default: str
    """What an unset (or empty) variable means."""
    does: str

    def read(self) -> str:
        """The value set in the environment (surrounding spaces removed), else the default."""
        return os.environ.get(self.name, "").strip() or self.default

    def number(self, fallback: float) -> float:
        """The value as a number, `fallback` when it is not one."""
        try:
            return float(self.read())
        except ValueError:
            return fallback


MODELS = Setting("ALBERT_LAB_MODELS", "", "folder of the shipped pretraining models (empty: assets/models)")
DEFAULT_MODEL = Setting(
    "ALBERT_LAB_DEFAULT_MODEL", "", "the model the picker starts on: a shipped name or a hub id that can be had"
)
TORCH_THREADS = Setting("ALBERT_LAB_TORCH_THREADS", "1", "torch threads per model request (at least 1)")
MODEL_WORKERS = Setting("ALBERT_LAB_MODEL_WORKERS", "2", "model requests computed at once (1 to 4)")
REQUEST_SECONDS = Setting(
    "ALBERT_LAB_REQUEST_SECONDS", "20", "the most computing time one model request may take, in seconds"
)
RUNS = Setting("ALBERT_LAB_RUNS", "", "folder of the recorded training runs (empty: assets/runs)")
SENTIMENT = Setting("ALBERT_LAB_SENTIMENT", "", "the English sentiment model's folder (empty: assets/sentiment/…)")
SENTIMENT_ZH = Setting("ALBERT_LAB_SENTIMENT_ZH", "", "the Chinese sentiment model's folder (empty: assets/…)")
ORDER_OTHERS = Setting(
    "ALBERT_LAB_ORDER_OTHERS", "", "the file of other books' segments the order tab draws from (empty: shipped)"
)
ANY_HUB_ID = Setting("ALBERT_LAB_ANY_HUB_ID", "", "1 on a Space: load any hub id, not only the catalogue's")
WARM_TRAINING = Setting("ALBERT_LAB_WARM_TRAINING", "1", "0: no training arm process waits ahead of the first lesson")
CHILD_PARENT = Setting("ALBERT_LAB_CHILD_PARENT", "", "set by the server for its child processes: its process id")
SPACE = Setting("SYSTEM", "", "set to 'spaces' by Hugging Face Spaces: the app runs on a Space")
SERVER_NAME = Setting("GRADIO_SERVER_NAME", "127.0.0.1", "the address to serve on (Spaces set 0.0.0.0)")
SERVER_PORT = Setting("GRADIO_SERVER_PORT", "7860", "the port to serve on")

SETTINGS: tuple[Setting, ...] = (
    MODELS,
    DEFAULT_MODEL,
    TORCH_THREADS,
    MODEL_WORKERS,
    REQUEST_SECONDS,
    RUNS,
    SENTIMENT,
    SENTIMENT_ZH,
    ORDER_OTHERS,
    ANY_HUB_ID,
    WARM_TRAINING,
    CHILD_PARENT,
    SPACE,
    SERVER_NAME,
    SERVER_PORT,
)
"""All of them, in the order docs/usage/hosting.md lists them."""


def on_space() -> bool:
    """The app runs on a Hugging Face Space."""
    return SPACE.read().lower() == "spaces"
