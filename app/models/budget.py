"""A time limit per request: model passes check a deadline and stop the request once it has passed.

`with deadline(lang=lang):` around an event's work sets the deadline for this thread; `watch(model)`
(done once when a model is loaded) makes every attention and feed-forward sublayer check it before
it runs, so a request that runs too long stops within one sublayer and answers with a sentence
instead of holding the only model worker. Outside a `deadline` block nothing is checked.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from app import settings
from app.i18n import t
from app.inputs import InputError

REQUEST_SECONDS = 20.0
"""Default limit of one model request's computing time (the queue's waiting time is not counted)."""
_local = threading.local()


class RequestTooLong(InputError):
    """The request passed its time limit; the message is one sentence for the user."""


def request_seconds() -> float:
    """The limit in seconds: `ALBERT_LAB_REQUEST_SECONDS` when it is a positive number, else REQUEST_SECONDS."""
    value = settings.REQUEST_SECONDS.number(REQUEST_SECONDS)
    return value if 0 < value < float("inf") else REQUEST_SECONDS


@contextmanager
def deadline(seconds: float | None = None, lang: str = "en") -> Iterator[None]:
    """Within the block, `check()` raises RequestTooLong once `seconds` have passed."""
    limit = request_seconds() if seconds is None else seconds
    previous = getattr(_local, "state", None)
    _local.state = (time.monotonic() + limit, limit, lang)
    try:
        yield
    finally:
        _local.state = previous


def extend(seconds: float) -> None:
    """Move this thread's deadline `seconds` later (a first download from the hub is waiting, like the queue's, and
    is not the request's computing time); nothing outside a request."""
    state = getattr(_local, "state", None)
    if state is not None and seconds > 0:
        _local.state = (state[0] + seconds, state[1], state[2])


def check() -> None:
    """Raise RequestTooLong when this thread's request is past its deadline."""
    state = getattr(_local, "state", None)
    if state is not None and time.monotonic() > state[0]:
        raise RequestTooLong(t("request.err.timeout", state[2], s=f"{state[1]:g}"))


def language() -> str:
    """The language of this thread's request (the one its `deadline` was set with); "en" outside one."""
    state = getattr(_local, "state", None)
    return state[2] if state is not None else "en"


def watch(model: Any) -> Any:
    """Make every sublayer of an ALBERT Lab model check the deadline before it runs; returns the model."""
    encoder = getattr(model, "albert", model)
    for module in [
        getattr(encoder, "embeddings", None),
        *getattr(encoder, "attention_blocks", []),
        *getattr(encoder, "ffn_blocks", []),
    ]:
        if module is not None:
            module.register_forward_pre_hook(lambda _module, _inputs: check())
    return model
