"""How many requests of each kind run at once (Gradio concurrency groups).

On a small CPU machine (a free Space has 2 cores), letting every event run its own threads in
parallel makes all of them slow and grows memory with every thread; so model inference runs one
request at a time (torch already uses every core for it) and the formula-only views two at a time.
The queue absorbs bursts; each request still takes tens of milliseconds.

Every event runs with `preprocess=False`: the functions receive exactly what was sent and check it
themselves (`app.inputs`), so a wrong-typed or out-of-range value gets one sentence in the user's
language instead of a component's exception and a traceback in the log.
"""

from __future__ import annotations

from typing import Any

MODEL: dict[str, Any] = {"concurrency_id": "model", "concurrency_limit": 1, "preprocess": False}
"""Events that run a model: masked words, sentence order, attention, layer transitions."""
LIGHT: dict[str, Any] = {"concurrency_id": "light", "concurrency_limit": 2, "preprocess": False}
"""Events computed from formulas and small files: calculator, presets, sharing modes, language."""
MAX_QUEUED = 100
"""Requests waiting at once (all kinds); one more is answered "busy, try again" at once. With ~0.1 s per
model request that is at most ~10 s of waiting, and it admits the 40-client /attention load check."""
