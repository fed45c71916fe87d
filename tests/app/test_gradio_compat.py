"""The Gradio internals the app relies on (`app.gradio_compat.USED`) are still there, with the signatures its
wrappers call: a Gradio upgrade that moves or renames one fails here, not silently on a server."""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json

import gradio as gr
import pytest

from app import gradio_compat
from tests.app.support import use_tiny_assets


def _class(path: str) -> type:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_gradio_is_the_version_the_patches_were_checked_against() -> None:
    assert gr.__version__.split(".")[:2] == ["6", "31"], "check app/gradio_compat.py against this Gradio, then here"


def test_every_internal_used_exists_on_a_built_and_queued_app(monkeypatch) -> None:
    use_tiny_assets(monkeypatch)
    from app.layout import build_app

    demo = build_app()
    demo.queue(max_size=4)
    block_fn = next(iter(demo.fns.values()))
    from gradio.routes import App

    instances = {
        "gradio.blocks.Blocks": demo,
        "gradio.blocks.BlockFunction": block_fn,
        "gradio.queueing.Queue": demo._queue,
        "gradio.routes.App": App.create_app(demo),
    }
    from gradio.context import LocalContext

    instances["gradio.context.LocalContext"] = LocalContext()
    for path, attributes in gradio_compat.USED.items():
        assert isinstance(instances[path], _class(path)), path
        for attribute in attributes:
            assert hasattr(instances[path], attribute), f"{path}.{attribute} is gone: see app/gradio_compat.py"
    queue = demo._queue
    assert isinstance(queue.pending_messages_per_session, dict)
    assert isinstance(queue.pending_event_ids_session, dict)
    assert isinstance(queue.event_ids_to_events, dict)
    assert isinstance(block_fn.get_config(), dict) and "id" in block_fn.get_config()


def test_poll_queue_every_sets_the_idle_queue_s_interval_or_says_it_cannot() -> None:
    with gr.Blocks() as demo:
        gr.Textbox()
    demo.queue()
    assert gradio_compat.poll_queue_every(demo, 0.02)
    assert demo._queue.sleep_when_free == 0.02
    demo._queue.sleep_when_free = None  # a Gradio without the attribute's number
    assert not gradio_compat.poll_queue_every(demo, 0.02)
    assert demo._queue.sleep_when_free is None


def test_the_signatures_the_wrappers_call() -> None:
    from gradio.queueing import Queue

    push = inspect.signature(Queue.push)
    assert list(push.parameters) == ["self", "body", "request", "username"]
    assert inspect.iscoroutinefunction(Queue.push)
    for state in gradio_compat.PUSH_RESULT_STATES:
        assert state in str(push.return_annotation)
    assert list(inspect.signature(gr.Blocks.validate_inputs).parameters) == ["self", "block_fn", "inputs"]


def test_the_textbox_listens_for_key_presses_under_the_test_id_the_page_script_reads() -> None:
    """`EDITS_JS` re-sends every edit as a key press to boxes whose data-testid is "textbox": some chunk of
    Gradio's page must render that text area and listen for `keypress` on it."""
    from pathlib import Path

    assets = Path(gr.__file__).parent / "templates" / "frontend" / "assets"
    chunks = [p.read_text(encoding="utf-8", errors="replace") for p in assets.glob("*.js")]
    assert 'box.dataset.testid !== "textbox"' in gradio_compat.EDITS_JS
    assert any('data-testid="textbox"' in chunk and "`keypress`" in chunk for chunk in chunks)


def test_event_named_and_event_configs(monkeypatch) -> None:
    use_tiny_assets(monkeypatch)
    from app.layout import build_app

    demo = build_app()
    fn, inputs, outputs = gradio_compat.event_named(demo, "fill_mask")
    assert callable(fn) and len(inputs) == 5 and len(outputs) >= 2
    with pytest.raises(KeyError):
        gradio_compat.event_named(demo, "no_such_event")
    configs = gradio_compat.event_configs(demo, ["fill_mask", "attention"])
    assert len(configs) == 2 and all("id" in config for config in configs)


def test_a_too_short_request_gets_a_sentence_naming_the_count() -> None:
    with gr.Blocks() as demo:
        box = gr.Textbox()
        box.submit(lambda text: text, inputs=box, outputs=box, api_name="echo")
    assert gradio_compat.name_input_counts(demo, lambda name, fewest, most, got: f"{name} takes {most}, got {got}")
    block_fn = next(iter(demo.fns.values()))
    with pytest.raises(gr.Error, match="echo takes 1, got 0"):
        demo.validate_inputs(block_fn, [])
    demo.validate_inputs(block_fn, ["ok"])


def test_left_out_optional_values_are_filled_and_others_still_refused() -> None:
    with gr.Blocks() as demo:
        boxes = [gr.Textbox() for _ in range(3)]
        boxes[0].submit(lambda a, b, c: a, inputs=boxes, outputs=boxes[0], api_name="echo")
    assert gradio_compat.name_input_counts(
        demo,
        lambda name, fewest, most, got: f"{name} takes {fewest} to {most}, got {got}",
        lambda name: ("b", "c") if name == "echo" else (),
    )
    block_fn = next(iter(demo.fns.values()))
    for sent, filled in ((["x"], ["x", "b", "c"]), (["x", "y"], ["x", "y", "c"]), (["x", "y", "z"], ["x", "y", "z"])):
        demo.validate_inputs(block_fn, sent)
        assert sent == filled
    with pytest.raises(gr.Error, match="echo takes 1 to 3, got 0"):
        demo.validate_inputs(block_fn, [])


def test_a_full_queue_answers_with_our_sentence() -> None:
    with gr.Blocks() as demo:
        gr.Textbox()
    demo.queue(max_size=1)
    answers = iter([(False, "Gradio's own", "queue_full"), (True, "event-id", "success")])

    async def fake_push(*args, **kwargs):
        return next(answers)

    demo._queue.push = fake_push
    started = []

    async def first(queue) -> None:
        started.append(queue)

    assert gradio_compat.answer_full_queue(demo, "busy, try again", on_first_request=first)

    async def two_requests():
        one = await demo._queue.push(None, None, None)
        two = await demo._queue.push(None, None, None)
        await asyncio.sleep(0)
        return one, two

    one, two = asyncio.run(two_requests())
    assert one == (False, "busy, try again", "queue_full")
    assert two == (True, "event-id", "success")
    assert started == [demo._queue]


def test_wrap_event_wraps_once_per_key_and_keeps_the_name() -> None:
    with gr.Blocks() as demo:
        box = gr.Textbox()
        box.submit(lambda text: text.upper(), inputs=box, outputs=box, api_name="shout")
    (block_fn,) = gradio_compat.events(demo, "shout")

    def twice(fn):
        return functools.wraps(fn)(lambda text: fn(text) * 2)

    assert gradio_compat.wrap_event(block_fn, "twice", twice)
    assert not gradio_compat.wrap_event(block_fn, "twice", twice)  # the same key: left as it is
    assert block_fn.fn("a") == "AA" and gradio_compat.event_name(block_fn) == "shout"
    assert gradio_compat.api_names(demo) == ["shout"] and gradio_compat.events(demo, "other") == []


def test_served_api_names_reads_the_server_apps_events(monkeypatch) -> None:
    """The door reads the names a call may use from the request's scope["app"], Gradio's FastAPI app."""
    from gradio.routes import App

    use_tiny_assets(monkeypatch)
    from app.layout import build_app

    demo = build_app()
    names = gradio_compat.served_api_names(App.create_app(demo))
    assert names is not None and {"fill_mask", "measure_speed", "set_language"} <= names
    computed = {fn.api_name for fn in demo.fns.values() if fn.api_name and fn.fn is not None}
    assert names == computed and "fill_mask_landed" not in names  # an event computed in the page: no call reaches it
    assert gradio_compat.served_api_names(App()) is None  # no Blocks configured yet
    assert gradio_compat.served_api_names(object()) is None


def test_input_ids_name_each_input_of_an_event_in_order(monkeypatch) -> None:
    """The hosting finds an event's `lang` by the language switch's elem_id ("language") among its inputs."""
    use_tiny_assets(monkeypatch)
    from app.layout import build_app

    demo = build_app()
    (switch,) = gradio_compat.events(demo, "set_language")
    assert gradio_compat.input_ids(switch) == ["language"]
    (fill,) = gradio_compat.events(demo, "fill_mask")
    ids = gradio_compat.input_ids(fill)
    assert ids == ["mask-text", None, "model-picker", "language", "mask-expected"]
    assert gradio_compat.input_ids(object()) == []


def test_a_new_session_reads_each_component_signature_once_with_the_same_config(monkeypatch) -> None:
    """`cache_component_signatures`: Gradio still reads the signature through `gradio.blocks.inspect` while building a
    session; with the remembered signatures a session's config is the same and a second session computes none."""
    import gradio.blocks as blocks
    from gradio.state_holder import SessionState

    assert "inspect.signature(cls.__init__)" in inspect.getsource(blocks.Block.get_config)
    use_tiny_assets(monkeypatch)
    from app.layout import build_app

    demo = build_app()
    monkeypatch.setattr(blocks, "inspect", inspect)  # as Gradio ships it
    plain = SessionState(demo).config_values
    assert gradio_compat.cache_component_signatures() and gradio_compat.cache_component_signatures()
    remembered = blocks.inspect.remembered
    assert SessionState(demo).config_values == plain
    computed = remembered.cache_info().misses
    assert computed > 10  # one per component class on the page
    SessionState(demo)
    assert remembered.cache_info().misses == computed and remembered.cache_info().hits > 200
    assert blocks.inspect.isfunction is inspect.isfunction  # everything else is inspect's own


def test_an_update_written_for_the_page_is_what_the_server_sends() -> None:
    """`sent_updates` (the page's relabelling, app.layout.relabel_js) against a real answer of Gradio's server."""
    from gradio.state_holder import SessionState

    with gr.Blocks() as demo:
        lang = gr.Radio(["en", "zh"], value="en")
        with gr.Tab("Tab") as tab:
            box = gr.Textbox(label="Text", info="a line")
            picker = gr.Dropdown(["a", "b"], value="a", label="Pick")
            table = gr.Dataset(components=[box], samples=[["x"]], type="index", label="Examples")
            with gr.Accordion("More") as more:
                text = gr.Markdown("*English*")
        outputs = [tab, box, picker, table, more, text]
        updates = [
            gr.update(label="标签"),
            gr.update(label="文本", info="一行"),
            gr.update(label="选", choices=[("甲", "a"), ("乙", "b")]),
            gr.update(label="例子", samples=[["中"]], headers=["文本"]),
            gr.update(label="更多"),
            gr.update(value="**中文**"),
        ]
        gr.on([], lambda code: updates, inputs=[lang], outputs=outputs, api_name="switch")
    written = json.dumps(gradio_compat.sent_updates(outputs, updates), ensure_ascii=False)
    answer = asyncio.run(demo.process_api(block_fn=demo.fns[0], inputs=["zh"], state=SessionState(demo)))
    assert json.loads(written) == json.loads(json.dumps(answer["data"], ensure_ascii=False))  # as the page reads them


def test_the_server_is_built_from_the_config_class_serve_with_names(monkeypatch) -> None:
    """`serve_with`: Gradio still builds its server's `uvicorn.Config` through `gradio.http_server.uvicorn`; after it,
    that Config is the app's (`app.hosting.connections.LabConfig`), and everything else is uvicorn's own."""
    import uvicorn
    from gradio import http_server

    from app.hosting.connections import LabConfig, LabHttpProtocol

    assert "uvicorn.Config(" in inspect.getsource(http_server.start_server)
    monkeypatch.setattr(http_server, "uvicorn", uvicorn)
    assert gradio_compat.serve_with(LabConfig) and gradio_compat.serve_with(LabConfig)
    assert http_server.uvicorn.Config is LabConfig and http_server.uvicorn.Server is uvicorn.Server
    config = http_server.uvicorn.Config(app=lambda *args: None, port=1, host="127.0.0.1", log_level="warning")
    config.load()
    assert config.http_protocol_class is LabHttpProtocol


def test_the_door_reads_the_queue_of_the_served_app(monkeypatch) -> None:
    """`serves_event` and `queue_holds` on a queued app: a page-only event has no function on the server, and a
    session or an event id the queue never saw is not held."""
    from types import SimpleNamespace

    import gradio as gr

    with gr.Blocks() as blocks:
        box = gr.Textbox()
        box.submit(lambda text: text, box, box, api_name="echo")
        box.change(None, js="(x) => x", inputs=box, outputs=box)
    blocks.queue()
    server_app = SimpleNamespace(get_blocks=lambda: blocks)
    numbers = {fn.api_name: index for index, fn in blocks.fns.items()}
    page_only = next(index for index, fn in blocks.fns.items() if fn.fn is None)
    assert gradio_compat.serves_event(server_app, numbers["echo"])
    assert not gradio_compat.serves_event(server_app, page_only) and not gradio_compat.serves_event(server_app, 999)
    assert gradio_compat.serves_event(object(), 999)  # not a Gradio app: nothing to check against
    assert gradio_compat.queue_holds(server_app, session_hash="abc") is False
    assert gradio_compat.queue_holds(server_app, event_id="abc") is False
    blocks._queue.pending_event_ids_session["abc"] = {"e1"}
    blocks._queue.pending_messages_per_session["abc"] = object()
    assert gradio_compat.queue_holds(server_app, session_hash="abc") and gradio_compat.queue_holds(
        server_app, event_id="e1"
    )
    assert gradio_compat.queue_holds(object(), event_id="e1") is None
    # Its answer read, an event can stay in `event_ids_to_events` until the worker's clean-up: not held any more (a
    # second read of the answer let through in that window waited for ever: a fresh-clone CI run hung there).
    blocks._queue.pending_event_ids_session["abc"].discard("e1")
    blocks._queue.event_ids_to_events["e1"] = SimpleNamespace(session_hash="abc")
    assert gradio_compat.queue_holds(server_app, event_id="e1") is False
