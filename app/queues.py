"""How many requests of each kind run at once (Gradio concurrency groups).

On a small CPU machine (a free Space has 2 cores), letting every event run its own threads in
parallel makes all of them slow and grows memory with every thread; so model inference runs one
request at a time (torch already uses every core for it) and the formula-only views two at a time.
The queue absorbs bursts; each request still takes tens of milliseconds.
"""

from __future__ import annotations

from typing import Any

MODEL: dict[str, Any] = {"concurrency_id": "model", "concurrency_limit": 1}
"""Events that run a model: masked words, sentence order, attention, layer transitions."""
LIGHT: dict[str, Any] = {"concurrency_id": "light", "concurrency_limit": 2}
"""Events computed from formulas and small files: calculator, presets, sharing modes, language."""
