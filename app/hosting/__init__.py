"""Isolation by cost: every queued event runs in the group its cost puts it in, so a light request never waits
behind a heavy one (issue 35).

Gradio runs each concurrency group (`concurrency_id`) with its own limit and its own waiting line. `isolate(demo)`
is applied once, after the Blocks are built (`app.layout.bound_queue`): it looks every registered event up by its
`api_name` in one table (`ENDPOINTS`), sets its group and limit, bounds each group's waiting line with a busy
answer of its own, and makes the language switch answer from a cache. Before it, every model event shared two
workers: three large /measure_speed made another user's /fill_mask wait 13–14 s.

Groups, cheapest first:
- `light`: formulas, strings and small files (calculator, presets, sharing modes, the language's redrawing);
- `model`: one short forward pass of a small model (masked words, sentence order, sentiment);
- `heavy`: forward passes that keep every layer's attention or hidden states (/attention, /layer_transitions),
  computed on a lane of their own threads at nice 5 (`app.hosting.lanes`): the kernel serves light and model
  requests first;
- `language`: the page's labels in the other language (/set_language), one switch at a time, 100 waiting: each
  switch is ~50 ms of Gradio building components, and 96 unqueued at once held the interpreter for 4.7 s;
- `measure`: /measure_speed builds and times four models of the form's size (up to 150M parameters,
  `app.tabs.parameters.costs.MEASURE_MAX_PARAMETERS`) in a child process at nice 19 (`app.hosting.child`), which
  uses the core the server leaves idle and never holds the server's interpreter lock: one at a time, one waiting,
  then a busy answer.

An event whose name is not in the table goes to `heavy` (with a warning in the log): a new endpoint can never
slow the light ones down by being forgotten here; tests/app/test_app_hosting.py asserts that none is forgotten.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app import gradio_compat, queues
from app.hosting.lanes import in_lane
from app.i18n import normalize_lang
from app.page.example_clicks import guard_example_clicks

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CostGroup:
    """One concurrency group: how many of its requests run at once and how many may wait."""

    running: int | Callable[[], int]
    """Requests of the group computed at once (a function: read when `isolate` runs, e.g. from the environment)."""
    waiting: int
    """Requests of the group waiting at once; one more is answered with `busy` at once (HTTP 503)."""
    busy: str
    """String key of the busy answer ({n}: the waiting requests)."""
    nice: int = 0
    """How much lower the group's CPU priority is than the server's (thread niceness, 0–19); above 0 its events run
    on a lane of their own threads (`app.hosting.lanes`), so the kernel serves the other groups first."""

    def limit(self) -> int:
        return self.running() if callable(self.running) else self.running


GROUPS: dict[str, CostGroup] = {
    "light": CostGroup(running=2, waiting=64, busy="hosting.busy"),
    "model": CostGroup(running=lambda: int(queues.MODEL["concurrency_limit"]), waiting=64, busy="hosting.busy"),
    "heavy": CostGroup(running=1, waiting=16, busy="hosting.busy.heavy", nice=5),
    "measure": CostGroup(running=1, waiting=1, busy="hosting.busy.measure"),
    "language": CostGroup(running=1, waiting=100, busy="hosting.busy"),
}
"""The cost groups. Waiting lines: at ~0.1 s a model request, 64 waiting are ~3 s on two workers; /attention takes
~0.3–1 s, so 16 waiting are at most ~10 s; a speed measurement ~10 s, so one waits and a third is told to retry."""

ENDPOINTS: dict[str, str] = {
    # the page's labels in the other language: one switch at a time
    "set_language": "language",
    # formulas and strings
    "parameters": "light",
    "preset": "light",
    "preset_match": "light",
    "compute": "light",
    "sharing_modes": "light",
    "measure_explain": "light",
    "measure_render": "light",  # draws a timing again in another language, without timing again
    "mask_example_in_language": "light",
    "order_examples_in_language": "light",
    "attention_example_in_language": "light",
    "sentiment_example_in_language": "light",
    "sharing_example_in_language": "light",
    # one short forward pass of a small model
    "fill_mask": "model",
    "mask_word": "model",
    "sentence_order": "model",
    "draw_other": "model",
    "split_paragraph": "model",
    "sentiment": "model",
    "sentiment_two_heads": "model",  # the shipped multi-task model: one pass, two heads
    # every layer's attention or hidden states
    "attention": "heavy",
    "layer_transitions": "heavy",
    # four models of the form's size built and timed
    "measure_speed": "measure",
    "sentiment_deploy_measure": "measure",  # four small models loaded once and timed, batch 1, 7 rounds
}
"""Each event's group, by its api_name: an exact name, or the name a family of events starts with (`fill_mask`
covers fill_mask_example, fill_mask_on_open, fill_mask_in_language, …). An exact entry wins over a family, and
a longer family over a shorter one."""
UNKNOWN_GROUP = "heavy"


def group_of(api_name: str | None) -> str | None:
    """The cost group of an event named `api_name`; None when the table names neither it nor its family."""
    if not api_name:
        return None
    if api_name in ENDPOINTS:
        return ENDPOINTS[api_name]
    families = [name for name in ENDPOINTS if api_name.startswith(name + "_")]
    return ENDPOINTS[max(families, key=len)] if families else None


def busy_answer(group: str, waiting: int, lang: str = "en") -> str:
    """The sentence a request of `group` gets when `waiting` of its kind already wait."""
    from app.i18n import t

    return t(GROUPS[group].busy, lang, n=waiting)


def request_language(body: Any) -> str:
    """The language a queued request asks its answer in: every event of the page sends the interface's language
    ("en" or "zh") as its last value; "en" when the last value is not one of them (an API caller's own order)."""
    data = getattr(body, "data", None)
    last = data[-1] if isinstance(data, list) and data else None
    return last if last in ("en", "zh") else "en"


def isolate(demo: Any) -> Any:
    """Put every queued event of `demo` in its cost group, bound each group's waiting line, and make the language
    switch answer from a cache; returns `demo`. Call after `demo.queue(...)` and before the first request."""
    for block_fn in gradio_compat.queued_events(demo):  # unqueued events run at once, outside every group
        group = group_of(block_fn.api_name)
        if group is None:
            group = UNKNOWN_GROUP
            logger.warning("%r is not in app.hosting.ENDPOINTS; it runs in the %s group", block_fn.api_name, group)
        gradio_compat.set_concurrency_group(block_fn, group, GROUPS[group].limit())
        if GROUPS[group].nice > 0 and getattr(block_fn.fn, "lane", None) != group:
            block_fn.fn = in_lane(block_fn.fn, group, GROUPS[group].limit(), GROUPS[group].nice)
    _cache_language_switch(demo)
    guard_example_clicks(demo)  # every event's way in is set here: the examples' hidden clicks check their value
    gradio_compat.bound_group_lines(demo, group_busy)
    return demo


def group_busy(group: str | None, waiting: int, body: Any) -> str | None:
    """The busy sentence for a request of `group` when `waiting` of its kind already wait (in the request's
    language), None when there is room in its line."""
    if group not in GROUPS or waiting < GROUPS[group].waiting:
        return None
    return busy_answer(group, waiting, request_language(body))


def _cache_language_switch(demo: Any) -> None:
    """/set_language answers each language's labels from a cache: the same updates every call (97 components,
    ~40 ms of string look-ups each time before). Every call gets its own copies: Gradio may change an update while
    sending it. What remains is Gradio's: it builds a new component for each update it sends (~50 ms per call), which
    is why the switch runs in the `language` group, one at a time (docs/usage/hosting-limits-measured.md)."""
    for block_fn in gradio_compat.events(demo):
        if block_fn.api_name == "set_language" and callable(block_fn.fn):
            block_fn.fn = cached_updates(block_fn.fn)


def cached_updates(updates: Callable[[str], list[dict[str, Any]]]) -> Callable[[Any], list[dict[str, Any]]]:
    """`updates(lang)` computed once per language (any value sent is read as a language, as `normalize_lang` does);
    each call returns fresh shallow copies of the cached update dicts."""
    cache: dict[str, list[dict[str, Any]]] = {}

    def switch(lang: Any) -> list[dict[str, Any]]:
        code = normalize_lang(lang)
        if code not in cache:
            cache[code] = list(updates(code))
        return [dict(update) for update in cache[code]]

    switch.__name__ = getattr(updates, "__name__", "set_language")
    switch.__doc__ = updates.__doc__
    return switch


__all__ = [
    "ENDPOINTS",
    "GROUPS",
    "CostGroup",
    "busy_answer",
    "cached_updates",
    "group_busy",
    "group_of",
    "isolate",
    "request_language",
]
