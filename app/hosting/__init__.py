"""Isolation by cost: every queued event runs in the group its cost puts it in, so a light request never waits
behind a heavy one (issue 35).

Gradio runs each concurrency group (`concurrency_id`) with its own limit and its own waiting line. Each event is
wired in its group, from the cost its endpoint declares (`app.page.endpoints.Endpoint.cost`, `queue_options`), and
its function is built there too (`served`: the values checked, then the groups of a lower CPU priority on their
lanes). `isolate(demo)` is applied once, after the Blocks are built (`app.layout.bound_queue`): it bounds each
group's waiting line with a busy answer of its own. Before the groups, every model event shared two workers: three
large speed measurements made another user's masked words wait 13–14 s.

Groups, cheapest first:
- `light`: formulas, strings and small files (calculator, presets, sharing modes, the language's redrawing);
- `model`: one short forward pass of a small model (masked words, sentence order, sentiment);
- `heavy`: forward passes that keep every layer's attention or hidden states (/attention, /layer_transitions),
  computed on a lane of their own threads at nice 5 (`app.hosting.lanes`): the kernel serves light and model
  requests first;
- `language`: a language switch's server work, one at a time, 100 waiting: the page's charts, tables and examples
  drawn again in the new language (`page_in_language`, ~0.1 s; the page relabels itself in the browser,
  `app.layout.relabel_js`), and the labels for API clients (/set_language, ~50 ms of Gradio building components).
  96 pages switching at once are drawn in turn (the light group's 64 places told a third of them to retry);
- `measure`: /measure_speed builds and times four models of the form's size (up to 150M parameters,
  `app.tabs.parameters.costs.MEASURE_MAX_PARAMETERS`) in a child process at nice 19 (`app.child`), which
  uses the core the server leaves idle and never holds the server's interpreter lock: one at a time, one waiting,
  then a busy answer.

A queued event wired without a group (Gradio then gives it one of its own) goes to `heavy`, with a warning in the
log: an endpoint wired by hand can never slow the light ones down; tests/app/hosting asserts that none is.

Every event, queued or not, also checks what it was sent before its function runs (`checked_values`, issue 43):
no text with a lone surrogate and no whole number of more than 100 digits anywhere among the values
(`app.inputs.readable`), and the page's language exactly "en" or "zh" wherever the event reads the language switch
(`app.inputs.page_language`). A refusal is one sentence (`gr.Error`), before any work: a /measure_speed sent a list
as its language ran a 10 s measurement before.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app import gradio_compat, inputs, settings
from app.hosting.lanes import in_lane
from app.i18n import normalize_lang, t

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


def model_workers(default: int = 2) -> int:
    """`ALBERT_LAB_MODEL_WORKERS` (1–4): model requests computed at once. On a small CPU machine (a free Space has 2
    cores) letting every request run its own threads makes all of them slow; two workers against one measured p95
    4.4 s against 4.9 s for 32 clients' mixed requests on 2 busy cores (docs/results/hosting-limits.md)."""
    return min(max(int(settings.MODEL_WORKERS.number(default)), 1), 4)


GROUPS: dict[str, CostGroup] = {
    "light": CostGroup(running=2, waiting=64, busy="hosting.busy"),
    "model": CostGroup(running=model_workers, waiting=64, busy="hosting.busy"),
    "heavy": CostGroup(running=1, waiting=16, busy="hosting.busy.heavy", nice=5),
    "measure": CostGroup(running=1, waiting=1, busy="hosting.busy.measure"),
    "language": CostGroup(running=1, waiting=100, busy="hosting.busy"),
}
"""The cost groups. Waiting lines: at ~0.1 s a model request, 64 waiting are ~3 s on two workers; /attention takes
~0.3–1 s, so 16 waiting are at most ~10 s; a speed measurement ~10 s, so one waits and a third is told to retry."""
UNKNOWN_GROUP = "heavy"
MAX_QUEUED = 100
"""Requests waiting at once (all kinds); one more is answered "busy, try again" at once. With ~0.1 s per
model request that is at most ~10 s of waiting, and it admits the 40-client /attention load check."""


def queue_options(cost: str) -> dict[str, Any]:
    """The keyword arguments that put an event in its cost group: `concurrency_id` and `concurrency_limit` for a
    group of `GROUPS`, `queue=False` for "instant" (answered at once, outside every group). Every event runs with
    `preprocess=False`: its function receives exactly what was sent and checks it itself (`app.inputs`), so
    a wrong-typed value gets one sentence in the user's language, not a component's exception in the log."""
    if cost == "instant":
        return {"queue": False, "preprocess": False}
    if cost not in GROUPS:
        raise ValueError(f"unknown cost {cost!r}; the groups are {', '.join(GROUPS)} and 'instant'")
    return {"concurrency_id": cost, "concurrency_limit": GROUPS[cost].limit(), "preprocess": False}


def busy_answer(group: str, waiting: int, lang: str = "en") -> str:
    """The sentence a request of `group` gets when `waiting` of its kind already wait."""
    return t(GROUPS[group].busy, lang, n=waiting)


def request_language(body: Any, block_fn: Any = None) -> str:
    """The language a queued request asks its answer in: the value it sent for the page's language switch (the
    input of `block_fn`, its event, whose elem_id is `LANGUAGE_ID`), found by name, not by place: /fill_mask sends
    it fourth of five. "en" when the event reads no language or the value is not "en" or "zh"."""
    data = getattr(body, "data", None)
    where = language_positions(gradio_compat.input_ids(block_fn))
    lang = data[where[0]] if isinstance(data, list) and where and where[0] < len(data) else None
    return lang if lang in ("en", "zh") else "en"


def served(
    fn: Callable[..., Any],
    cost: str,
    languages: tuple[int, ...] = (),
    refused: Callable[[str], Sequence[Any]] | None = None,
) -> Callable[..., Any]:
    """`fn` as an event of `cost` runs it, built where the event is declared: its values checked first
    (`checked_values`; the page's language at the positions `languages`), then, in a group of a lower CPU priority,
    computed on that group's lane (`app.hosting.lanes`). With `refused` (the event's outputs for a refusal's
    sentence), a batch of requests at once (`in_batches`). The chain an endpoint's request takes, in one place."""
    group = GROUPS.get(cost)
    run = in_lane(fn, cost, group.limit(), group.nice) if group is not None and group.nice > 0 else fn
    checked = checked_values(run, languages)
    if refused is not None:
        checked = in_batches(checked, refused)
    checked.lab_served = True  # type: ignore[attr-defined]
    return checked


def in_batches(fn: Callable[..., Any], refused: Callable[[str], Sequence[Any]]) -> Callable[..., Any]:
    """`fn` over a batch, as Gradio calls an event wired with `batch=True`: one list per input (the requests of the
    batch, in order), answered with one list per output. Each request is answered exactly as alone, by `fn`, in
    order; what the batch saves is Gradio's work per call (one call of the event's function, one thread, one pass
    through the queue's worker for up to `max_batch_size` requests): 32 users' masked words went from ~60 to ~90
    answers a second on 2 cores (benchmarks/serving_vs_peer.py). The model runs once per request, as alone, so the
    answers are the same to the bit; a padded forward pass over the batch would change them in the last digits.

    A request refused by its values (`gr.Error` from `checked_values`) gets `refused(sentence)` as its outputs when
    it shares its batch, so that the others are answered; alone, the refusal is raised as before (an error event
    with the sentence). A request with too few values never reaches a batch: the queue refuses it when it joins
    (`app.gradio_compat.name_input_counts`)."""
    import gradio as gr

    @functools.wraps(fn)
    def each(*columns: list[Any]) -> tuple[list[Any], ...]:
        requests = list(zip(*columns, strict=True))
        answers = []
        for values in requests:
            try:
                answers.append(tuple(fn(*values)))
            except gr.Error as error:
                if len(requests) == 1:
                    raise
                answers.append(tuple(refused(str(error.message))))
        return tuple(list(outputs) for outputs in zip(*answers, strict=True))

    return each


def language_positions(ids: Sequence[str | None]) -> tuple[int, ...]:
    """Where among an event's inputs, given by their elem_ids, the page's language switch is (`LANGUAGE_ID`)."""
    return tuple(i for i, name in enumerate(ids) if name == LANGUAGE_ID)


def isolate(demo: Any) -> Any:
    """Bound each group's waiting line with its busy answer; returns `demo`. Call after `demo.queue(...)` and before
    the first request. Each event's function was built where it was declared (`served`); an event wired by hand
    without a group runs in the heavy one, and one whose function was not built by `served` is served here, each with
    a warning in the log (tests/app/hosting asserts there is none)."""
    for block_fn in gradio_compat.queued_events(demo):  # unqueued events run at once, outside every group
        group = gradio_compat.concurrency_group(block_fn)
        if group not in GROUPS:
            name = gradio_compat.event_name(block_fn)
            logger.warning("%r was wired without a cost group; it runs in the %s group", name, UNKNOWN_GROUP)
            gradio_compat.set_concurrency_group(block_fn, UNKNOWN_GROUP, GROUPS[UNKNOWN_GROUP].limit())
    for block_fn in gradio_compat.events(demo):
        fn = getattr(block_fn, "fn", None)
        if callable(fn) and not getattr(fn, "lab_served", False):
            name, group = gradio_compat.event_name(block_fn), gradio_compat.concurrency_group(block_fn) or "instant"
            logger.warning("%r was wired without app.hosting.served; its values are checked here", name)
            where = language_positions(gradio_compat.input_ids(block_fn))
            gradio_compat.wrap_event(block_fn, "served", lambda fn, g=group, w=where: served(fn, g, w))
    gradio_compat.bound_group_lines(demo, group_busy)
    return demo


LANGUAGE_ID = "language"
"""The `elem_id` of the page's language switch (`app.layout`): an event's input of that id is its `lang`."""


def checked_values(fn: Callable[..., Any], languages: tuple[int, ...] = ()) -> Callable[..., Any]:
    """`fn` refusing, with one sentence and before it runs, values no endpoint reads: text with a lone surrogate, a
    whole number of more than `app.inputs.MAX_DIGITS` digits (anywhere among the values), and a language that is not
    "en" or "zh" at the positions `languages`. The signature stays `fn`'s, for Gradio reads it on every call."""
    import gradio as gr

    @functools.wraps(fn)
    def check(*args: Any, **kwargs: Any) -> Any:
        try:
            lang = "en"
            for position in languages:
                if position < len(args):
                    lang = inputs.page_language(args[position])
            inputs.readable((*args, *kwargs.values()), lang)
        except inputs.InputError as error:
            logger.info("refused the values sent to %s: %s", getattr(fn, "__name__", "an event"), error)
            raise gr.Error(str(error), print_exception=False) from None
        return fn(*args, **kwargs)

    return check


def group_busy(group: str | None, waiting: int, body: Any, block_fn: Any = None) -> str | None:
    """The busy sentence for a request of `group` (sent to the event `block_fn`) when `waiting` of its kind already
    wait (in the request's language), None when there is room in its line."""
    if group not in GROUPS or waiting < GROUPS[group].waiting:
        return None
    return busy_answer(group, waiting, request_language(body, block_fn))


def cached_updates(updates: Callable[[str], list[dict[str, Any]]]) -> Callable[[Any], list[dict[str, Any]]]:
    """/set_language answers each language's labels from a cache: the same updates every call (97 components, ~40 ms
    of string look-ups each time before). What remains is Gradio's: it builds a new component for each update it
    sends (~50 ms per call), which is why the switch runs in the `language` group, one at a time.

    `updates(lang)` is computed once per language (any value sent is read as a language, as `normalize_lang` does);
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
    "GROUPS",
    "MAX_QUEUED",
    "CostGroup",
    "busy_answer",
    "cached_updates",
    "checked_values",
    "group_busy",
    "in_batches",
    "isolate",
    "model_workers",
    "queue_options",
    "request_language",
]
