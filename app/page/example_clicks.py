"""A click in an example table, sent over the API with any value, answers with one sentence (issue 35 item 6).

Gradio's `gr.Examples` registers a hidden event per table (`load_example`, `load_example_1`, …) whose value is
preprocessed by the table's `gr.Dataset`, which indexes its samples with whatever was sent: None, a string, a
float, a huge or out-of-range number each ended in an exception inside Gradio and a traceback in the log (108 of
them for the hostile batch of tests/hostile/test_hostile_every_endpoint.py). `guard_example_clicks(demo)` checks
the value first, a sample's number from 0 to the table's length - 1, and only then lets Gradio do the rest.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


def refusal(count: int) -> str:
    return f"An example is chosen by its number, a whole number from 0 to {count - 1}."


def guard_example_clicks(demo: Any) -> Any:
    """Every event whose one input is a `gr.Dataset` it preprocesses takes the value unprocessed, checks it is a
    sample's number, and preprocesses it itself; anything else is answered with `refusal` (no traceback)."""
    import gradio as gr

    from app.gradio_compat import events

    for block_fn in events(demo):
        inputs = list(getattr(block_fn, "inputs", []) or [])
        if not (block_fn.fn and block_fn.preprocess and len(inputs) == 1 and isinstance(inputs[0], gr.Dataset)):
            continue
        block_fn.fn = _checked(block_fn.fn, inputs[0])
        block_fn.preprocess = False
    return demo


def _checked(fn: Callable[..., Any], dataset: Any) -> Callable[..., Any]:
    import gradio as gr

    @functools.wraps(fn)
    def click(payload: Any) -> Any:
        count = len(getattr(dataset, "raw_samples", None) or [])
        if type(payload) is not int or not 0 <= payload < count:
            logger.info("refused an example click: %.80r", payload)
            raise gr.Error(refusal(count), print_exception=False)
        return fn(dataset.preprocess(payload))

    return click
