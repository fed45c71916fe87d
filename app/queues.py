"""How many requests of each kind run at once (Gradio concurrency groups).

On a small CPU machine (a free Space has 2 cores), letting every event run its own threads in
parallel makes all of them slow and grows memory with every thread; so model inference runs two
requests at a time (one torch thread each, `app.models.configure_torch_threads`: one per core) and the
formula-only views two at a time. Measured on 2 busy cores (benchmarks/load_check.py, README): two
model workers against one, p95 of 32 clients' mixed requests 4.4 s against 4.9 s, of 40 clients on
/attention 7.6 s against 10.2 s. The queue absorbs bursts, up to MAX_QUEUED requests. Gradio's batch=True is
not used: a padded batch saves ~5 ms of CPU per /fill_mask request of ~52 ms (benchmarks/batching.py, README).

Every event runs with `preprocess=False`: the functions receive exactly what was sent and check it
themselves (`app.page.inputs`), so a wrong-typed or out-of-range value gets one sentence in the user's
language instead of a component's exception and a traceback in the log.
"""

from __future__ import annotations

import os
from typing import Any


def _workers(default: int = 2) -> int:
    """`ALBERT_LAB_MODEL_WORKERS` (1–4): model requests run at once; for measuring, see the README."""
    try:
        return min(max(int(os.environ.get("ALBERT_LAB_MODEL_WORKERS", default)), 1), 4)
    except ValueError:
        return default


MODEL: dict[str, Any] = {"concurrency_id": "model", "concurrency_limit": _workers(), "preprocess": False}
"""Events that run a model: masked words, sentence order, attention, layer transitions."""
LIGHT: dict[str, Any] = {"concurrency_id": "light", "concurrency_limit": 2, "preprocess": False}
"""Events computed from formulas and small files: calculator, presets, sharing modes, language."""
MAX_QUEUED = 100
"""Requests waiting at once (all kinds); one more is answered "busy, try again" at once. With ~0.1 s per
model request that is at most ~10 s of waiting, and it admits the 40-client /attention load check."""
