"""Every use of Gradio's internals, in one place (issue 33, item 2). Checked against gradio 6.31.

Gradio has no public option for what these do, so they read or replace attributes of its objects:

- `Blocks.fns` (the registered events, `BlockFunction`: `api_name`, `fn`, `inputs`, `outputs`, `get_config()`),
  read to find a tab's event by its api_name and to cancel a tab's runs (`event_named`, `event_configs`);
- `Blocks._queue.push`, wrapped so that a full queue answers with our own sentence (`answer_full_queue`), so
  that a full cost group answers with its own before joining its line (`bound_group_lines`, reading
  `Queue.event_queue_per_concurrency_id`), and so that a request's count of values is completed or refused before
  it can share a batch (`name_input_counts`);
- `BlockFunction.queue`, `concurrency_id` and `concurrency_limit`, read and set to put each queued event in its
  cost group (`queued_events`, `concurrency_group`, `set_concurrency_group`, used by `app.hosting`);
- `BlockFunction.fn`, replaced by a wrapper of it (`wrap_event`: only for an event wired by hand, which
  `app.hosting.isolate` serves with a warning);
- `Queue.sleep_when_free`, set so that a queue with nothing it can start looks again every 10 ms, not every 1 ms
  (`poll_queue_every`);
- `Blocks.validate_inputs`, wrapped so that too few values get a sentence naming the count (`name_input_counts`);
- `Queue.pending_messages_per_session`, `pending_event_ids_session` and `event_ids_to_events`, swept to drop the
  answers of abandoned requests (`drop_unread_results`);
- `routes.App.get_blocks`, read by the door (`app.hosting.door`) from the request's ASGI scope, so that a call of a
  name no event has gets one sentence (`served_api_names`), and so that a queue route naming an event number, a
  session or an event id that does not exist does too (`serves_event`, `queue_holds`, reading the queue's
  `event_ids_to_events`, `pending_event_ids_session` and `pending_messages_per_session`): Gradio answered each with a
  500 and a traceback;
- `gradio.blocks.inspect`, replaced by the `inspect` module with a `signature` that remembers plain functions'
  signatures (`cache_component_signatures`): every new session builds every component's config, and each reads
  its class's `__init__` signature again;
- `gradio.http_server.uvicorn`, the module through which Gradio builds its server's `uvicorn.Config`, replaced by one
  whose `Config` adds the connection rules of `app.hosting.connections` (`serve_with`);
- `gradio.blocks.postprocess_update_dict` and `Component.constructor_args`, to write an update as Gradio's server
  sends it (`sent_updates`, compared with a real answer in the test): the page relabels itself in the browser with
  those (`app.layout.relabel_js`);
- the page: Gradio 6's Textbox reports an edit only on a key press (`data-testid="textbox"`), passed on by
  `EDITS_JS`.

`USED` lists each of these, and `tests/app/test_gradio_compat.py` checks that they are still there, with the
signatures
the wrappers rely on: a Gradio upgrade that moves one fails that test instead of silently losing the behaviour. At
run time each patch is skipped, with a warning, when a Gradio lays its objects out differently.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import types
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import gradio as gr

logger = logging.getLogger(__name__)

USED: dict[str, tuple[str, ...]] = {
    "gradio.blocks.Blocks": ("fns", "validate_inputs"),
    "gradio.blocks.BlockFunction": (
        "api_name",
        "fn",
        "inputs",
        "outputs",
        "get_config",
        "queue",
        "concurrency_id",
        "concurrency_limit",
    ),
    "gradio.routes.App": ("get_blocks",),
    "gradio.context.LocalContext": ("request",),
    "gradio.queueing.Queue": (
        "push",
        "event_queue_per_concurrency_id",
        "pending_messages_per_session",
        "pending_event_ids_session",
        "event_ids_to_events",
        "sleep_when_free",
    ),
}
"""The Gradio classes this module reaches into, and the attributes it reads or replaces on their instances."""
PUSH_RESULT_STATES = ("success", "error", "queue_full", "validator_error")
"""`Queue.push` returns (success, detail, state); `answer_full_queue` rewrites the detail of "queue_full"."""


def event_named(demo: gr.Blocks, api_name: str) -> tuple[Callable, list[Any], list[Any]]:
    """The function, inputs and outputs of the event registered under `api_name` (KeyError when none is)."""
    for block_fn in demo.fns.values():
        if block_fn.api_name == api_name:
            return block_fn.fn, list(block_fn.inputs), list(block_fn.outputs)
    raise KeyError(f"no event named {api_name!r}")


def event_configs(demo: gr.Blocks, names: Iterable[str]) -> list[dict[str, Any]]:
    """The configurations of the events named `names`, as `cancels=` takes them."""
    wanted = set(names)
    return [fn.get_config() for fn in demo.fns.values() if fn.api_name in wanted]


def answer_full_queue(
    demo: gr.Blocks, busy: str, on_first_request: Callable[[Any], Awaitable[None]] | None = None
) -> bool:
    """A full queue answers with `busy` instead of Gradio's own message; `on_first_request(queue)` is started as a
    task in the server's event loop on the first request. False (with a warning) when the queue has no `push`."""
    queue = getattr(demo, "_queue", None)
    push = getattr(queue, "push", None)
    if push is None:
        logger.warning("this Gradio's queue has no push(); a full queue answers with Gradio's own message")
        return False
    started: list[asyncio.Task] = []

    async def push_or_busy(*args: Any, **kwargs: Any) -> Any:
        if on_first_request is not None and not started:  # now there is a running event loop to start it in
            started.append(asyncio.get_running_loop().create_task(on_first_request(queue)))
        success, detail, state = await push(*args, **kwargs)
        return success, busy if state == "queue_full" else detail, state

    queue.push = push_or_busy
    return True


def poll_queue_every(demo: gr.Blocks, seconds: float) -> bool:
    """Make the queue look for an event it can start every `seconds` while it has none (Gradio: 1 ms on Linux). False
    (with a warning) when the queue has no `sleep_when_free`."""
    queue = getattr(demo, "_queue", None)
    if not isinstance(getattr(queue, "sleep_when_free", None), (int, float)):
        logger.warning("this Gradio's queue has no sleep_when_free; it looks for work as often as Gradio sets")
        return False
    queue.sleep_when_free = seconds
    return True


def events(demo: gr.Blocks, api_name: str | None = None) -> list[Any]:
    """Every registered event (`BlockFunction`), in registration order; only those named `api_name` when given."""
    found = list(demo.fns.values())
    return found if api_name is None else [block_fn for block_fn in found if block_fn.api_name == api_name]


def api_names(demo: gr.Blocks) -> list[str | None]:
    """The `api_name` of every registered event, in registration order."""
    return [block_fn.api_name for block_fn in events(demo)]


def wrap_event(block_fn: Any, key: str, wrapper: Callable[[Callable], Callable]) -> bool:
    """Replace the function `block_fn` runs by `wrapper(fn)`, once per `key`: a second call with the same key leaves
    it as it is (False). The wrapped function keeps the name and signature Gradio read when the event was made."""
    fn = getattr(block_fn, "fn", None)
    if not callable(fn) or key in getattr(fn, "lab_wrappers", ()):
        return False
    wrapped = wrapper(fn)
    wrapped.lab_wrappers = (*getattr(fn, "lab_wrappers", ()), key)
    block_fn.fn = wrapped
    return True


def served_blocks(server_app: Any) -> Any:
    """The Blocks that the Gradio server app `server_app` (the FastAPI app of an ASGI scope's "app") serves; None when
    it is not one (no Blocks configured, or another app)."""
    get_blocks = getattr(server_app, "get_blocks", None)
    if not callable(get_blocks):
        return None
    try:
        blocks = get_blocks()
    except ValueError:  # Gradio's "No Blocks has been configured for this app."
        return None
    return blocks if isinstance(getattr(blocks, "fns", None), dict) else None


def served_api_names(server_app: Any) -> frozenset[str] | None:
    """The api_names of the events `server_app` computes on the server (an event computed in the page alone has a
    name but no function: it cannot be called); None when it is no Gradio server app."""
    blocks = served_blocks(server_app)
    if blocks is None:
        return None
    names = (getattr(fn, "api_name", None) for fn in blocks.fns.values() if getattr(fn, "fn", None) is not None)
    return frozenset(name for name in names if isinstance(name, str))


def serves_event(server_app: Any, fn_index: int) -> bool:
    """Whether event number `fn_index` of `server_app` has a function on the server (an event computed in the page
    only has none); True when `server_app` is no Gradio server app (nothing to check against)."""
    blocks = served_blocks(server_app)
    if blocks is None:
        return True
    return getattr(blocks.fns.get(fn_index), "fn", None) is not None


def queue_holds(server_app: Any, event_id: str | None = None, session_hash: str | None = None) -> bool | None:
    """Whether the queue of `server_app` holds the event `event_id` (queued, running, or its answer not yet read),
    or messages for the session `session_hash`; None when it cannot tell (no Gradio server app, another queue).

    An event is the queue's from its join until its answer is read: Gradio's `pending_event_ids_session` holds it for
    exactly that time. Its `event_ids_to_events` keeps a finished event a little longer (until the worker's clean-up
    after the answer went out): a second read of the same answer in that window was let through and waited for
    messages that never come (a fresh-clone CI run hung there), so it is not consulted."""
    queue = getattr(served_blocks(server_app), "_queue", None)
    sessions = getattr(queue, "pending_messages_per_session", None)
    pending = getattr(queue, "pending_event_ids_session", None)
    if not isinstance(sessions, dict) or not isinstance(pending, dict):
        return None
    if session_hash is not None:
        return session_hash in sessions
    return any(event_id in ids for ids in list(pending.values()))


def input_ids(block_fn: Any) -> list[str | None]:
    """The `elem_id` of each input of an event, in the order its function receives their values."""
    return [getattr(component, "elem_id", None) for component in getattr(block_fn, "inputs", None) or []]


def event_name(block_fn: Any) -> str | None:
    """The `api_name` an event was registered under."""
    return getattr(block_fn, "api_name", None)


def concurrency_group(block_fn: Any) -> str | None:
    """The concurrency group an event was wired in (Gradio gives an event wired without one a group of its own)."""
    group = getattr(block_fn, "concurrency_id", None)
    return group if isinstance(group, str) else None


def queued_events(demo: gr.Blocks) -> list[Any]:
    """The events that go through the queue (`queue` set); the unqueued ones (label switches, hidden pickers) run
    at once and belong to no concurrency group."""
    return [block_fn for block_fn in events(demo) if getattr(block_fn, "queue", False)]


def set_concurrency_group(block_fn: Any, group: str, limit: int) -> None:
    """Run `block_fn` in Gradio's concurrency group `group`, `limit` of its events at once."""
    block_fn.concurrency_id = group
    block_fn.concurrency_limit = limit


def bound_group_lines(demo: gr.Blocks, answer: Callable[[str, int, Any, Any], str | None]) -> bool:
    """Before a request joins its concurrency group's waiting line, `answer(group, waiting, body, event)` may refuse it
    with a sentence (HTTP 503, the state "queue_full"); None lets it in. The groups' lines are made again at the
    first request, with the groups set on the events by then. False (with a warning) when this Gradio's queue has
    no `push` or no lines per group."""
    queue = getattr(demo, "_queue", None)
    lines = getattr(queue, "event_queue_per_concurrency_id", None)
    push = getattr(queue, "push", None)
    if push is None or not isinstance(lines, dict):
        logger.warning("this Gradio's queue has no push() or groups; each group's waiting line is not bounded")
        return False
    lines.clear()  # made again, with the groups set on the events, at the first request

    async def push_or_group_busy(body: Any, *args: Any, **kwargs: Any) -> Any:
        fn_index = getattr(body, "fn_index", None)
        block_fn = demo.fns.get(fn_index) if isinstance(fn_index, int) else None
        group = getattr(block_fn, "concurrency_id", None)
        line = lines.get(group)
        refusal = answer(group, len(line.queue), body, block_fn) if line is not None else None
        if refusal is not None:
            return False, refusal, "queue_full"
        return await push(body, *args, **kwargs)

    queue.push = push_or_group_busy
    return True


def name_input_counts(
    demo: gr.Blocks,
    sentence: Callable[[str, int, int, int], str],
    optional: Callable[[str], tuple[Any, ...]] = lambda name: (),
) -> bool:
    """A request with fewer values than its endpoint takes is answered with `sentence(name, fewest, most, got)`
    instead of Gradio's anonymous {"error": null} and a traceback in the log, unless only trailing values the
    endpoint calls optional are missing: `optional(api_name)` gives the values of its last parameters, which fill
    the gap. A queued request is completed (or refused, HTTP 422 with the sentence) when it joins the queue, before
    it can share a batch (`Endpoint.batch`); an unqueued one when it runs. False (with a warning) when Gradio checks
    input counts its own way."""
    validate = getattr(demo, "validate_inputs", None)
    if validate is None:
        logger.warning("this Gradio checks input counts its own way; too few values get its generic error")
        return False

    def validate_or_say(block_fn: Any, inputs: list[Any]) -> None:
        wanted = len(getattr(block_fn, "inputs", []) or [])
        name = getattr(block_fn, "api_name", None) or "this endpoint"
        if isinstance(inputs, list) and len(inputs) < wanted:
            defaults = optional(name)
            if wanted - len(inputs) <= len(defaults):
                inputs.extend(defaults[len(defaults) - (wanted - len(inputs)) :])  # Gradio reads this same list next
            else:
                raise gr.Error(sentence(name, wanted - len(defaults), wanted, len(inputs)), print_exception=False)
        validate(block_fn, inputs)

    demo.validate_inputs = validate_or_say
    queue, push = getattr(demo, "_queue", None), getattr(getattr(demo, "_queue", None), "push", None)
    if push is None:
        logger.warning("this Gradio's queue has no push(); too few values are checked when a request runs")
        return True

    async def push_complete(body: Any, *args: Any, **kwargs: Any) -> Any:
        # At the door of the queue: a batched event's values are gathered column by column (zip), so one request
        # with too few values would cut every other request of its batch short.
        fn_index = getattr(body, "fn_index", None)
        block_fn = demo.fns.get(fn_index) if isinstance(fn_index, int) else None
        data = getattr(body, "data", None)
        if block_fn is not None and isinstance(data, list):
            try:
                validate_or_say(block_fn, data)
            except gr.Error as error:
                return False, error.message, "validator_error"
            except ValueError as error:
                return False, str(error).split("\n", 1)[0], "validator_error"
        return await push(body, *args, **kwargs)

    queue.push = push_complete
    return True


async def drop_unread_results(queue: Any, every: float) -> None:
    """Every `every` seconds, drop the messages of sessions whose waiting messages nobody read since the last
    sweep. A listening page or client empties its session's messages within milliseconds (heartbeats
    included), so only answers of requests sent and never collected stay unchanged that long.

    A session with a request still queued or running is kept until that request has finished: Gradio sends
    its next message to the session without checking that it still exists, and the KeyError stopped the
    queue's processing loop, so that no request of anyone was answered again (seen with a launched app,
    `tests/hostile/test_hostile_app_server.py`)."""
    pending, events = (
        getattr(queue, "pending_messages_per_session", None),
        getattr(queue, "pending_event_ids_session", None),
    )
    if not isinstance(pending, dict) or not isinstance(events, dict):
        logger.warning("this Gradio keeps unread answers its own way; abandoned answers are not dropped")
        return
    live = getattr(queue, "event_ids_to_events", None)
    live = live if isinstance(live, dict) else {}
    last: dict[str, int] = {}
    while True:
        await asyncio.sleep(every)
        waiting, dropped = {}, 0
        for session, messages in list(pending.items()):
            size = messages.qsize() if hasattr(messages, "qsize") else 0
            unfinished = any(event in live for event in events.get(session) or ())
            if size and last.get(session) == size and not unfinished:
                pending.pop(session, None)
                events.pop(session, None)
                dropped += 1
            elif size:
                waiting[session] = size
        last = waiting
        if dropped:
            logger.info("dropped the unread answers of %d abandoned request session(s)", dropped)


class _RememberedSignatures(types.ModuleType):
    """The `inspect` module as `gradio.blocks` sees it: `signature` of a plain function (a class's `__init__`)
    computed once; everything else is `inspect`'s own."""

    def __init__(self) -> None:
        super().__init__("inspect")
        self.remembered = functools.lru_cache(maxsize=4096)(inspect.signature)

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    def signature(self, obj: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        if isinstance(obj, types.FunctionType) and not args and not kwargs:
            return self.remembered(obj)
        return inspect.signature(obj, *args, **kwargs)


def cache_component_signatures() -> bool:
    """Make a new session cost half as much: Gradio builds every component's config for each new session
    (`SessionState`, ~230 blocks on this page: every page load, every API call without a session) and reads each
    component class's `__init__` signature with `inspect.signature` each time, half of the ~18 ms a session took.
    A function's signature does not change, so `gradio.blocks` reads it from `_RememberedSignatures`. Idempotent;
    False (with a warning) when `gradio.blocks` no longer reads `inspect` as a module."""
    import gradio.blocks as blocks

    if isinstance(blocks.__dict__.get("inspect"), _RememberedSignatures):
        return True
    if blocks.__dict__.get("inspect") is not inspect:
        logger.warning("gradio.blocks does not import inspect as a module: component signatures are not cached")
        return False
    blocks.inspect = _RememberedSignatures()
    return True


class _ServedWith(types.ModuleType):
    """The `uvicorn` module as `gradio.http_server` sees it: `Config` is `config_class`; everything else is
    uvicorn's own."""

    def __init__(self, uvicorn: types.ModuleType, config_class: type) -> None:
        super().__init__("uvicorn")
        self.uvicorn, self.Config = uvicorn, config_class

    def __getattr__(self, name: str) -> Any:
        return getattr(self.uvicorn, name)


def serve_with(config_class: type) -> bool:
    """Make the server of every later `Blocks.launch` from `config_class` (a subclass of `uvicorn.Config`), which
    `gradio.http_server.start_server` builds with its own arguments; idempotent. False (with a warning) when
    `gradio.http_server` no longer reads `uvicorn` as a module."""
    import uvicorn
    from gradio import http_server

    current = http_server.__dict__.get("uvicorn")
    if isinstance(current, _ServedWith):
        current.Config = config_class
        return True
    if current is not uvicorn:
        logger.warning("gradio.http_server does not import uvicorn as a module: its connections keep uvicorn's rules")
        return False
    http_server.uvicorn = _ServedWith(uvicorn, config_class)
    return True


def current_request() -> Any:
    """The request of the event being answered (Gradio's `LocalContext.request`, set for every event); None outside
    an event, or with a Gradio that keeps it elsewhere."""
    try:
        from gradio.context import LocalContext

        return LocalContext.request.get(None)
    except (ImportError, AttributeError, LookupError):
        return None


EDITS_JS = """() => {
  // Gradio 6's Textbox sends its .input event from `keypress` alone: pasting, cutting, deleting, dropping text and
  // phone keyboards change a box without one, so the result on screen stayed as if it answered the new text (and
  // the runs on their way were not cancelled). Every edit of a text box is passed on as a key press.
  document.addEventListener("input", (event) => {
    const box = event.target;
    if (!(box instanceof HTMLTextAreaElement || box instanceof HTMLInputElement)) return;
    if (box.dataset.testid !== "textbox") return;
    box.dispatchEvent(new KeyboardEvent("keypress", { key: "Unidentified", bubbles: true }));
  });
}"""
"""Run once when the page loads (`app.layout.launch_options`). A typed character arrives twice (its own key press,
then this one): clearing twice gives the same screen, and cancelling sends nothing when nothing runs."""


def page_js(*scripts: str) -> str:
    """One function for `Blocks.launch(js=...)`, which runs a single function when the page loads, calling each of
    `scripts` (each a function expression, `() => {...}`) in turn; one that throws is logged in the browser's
    console and the others still run."""
    calls = ",\n".join(script.strip() for script in scripts)
    return (
        "() => {\n  for (const script of [\n"
        + calls
        + '\n  ]) {\n    try { script(); } catch (error) { console.error("ALBERT Lab page script:", error); }\n  }\n}'
    )


def sent_updates(components: Sequence[Any], updates: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each update as Gradio's server sends it for its component (the component rebuilt with the update, then
    `postprocess_update_dict`, as `Blocks.postprocess_data` does): JSON that the page applies as it is."""
    from gradio.blocks import postprocess_update_dict

    sent = []
    for component, update in zip(components, updates, strict=True):
        kwargs = {**component.constructor_args, **update, "render": False}
        kwargs.pop("value", None)
        kwargs.pop("__type__", None)
        rebuilt = component.__class__(**kwargs)
        sent.append(postprocess_update_dict(rebuilt, dict(update), postprocess=True))
    return sent
