"""Hosting (issue 35): cost groups keep light requests from waiting behind heavy ones, the language switch answers
from a cache, request bodies are capped at the door and uploads are closed.

The launched tests run the app in this process (`held_app`) with the real views, the heavy ones (/attention,
/measure_speed) held at a gate for as long as a test wants: the heavy groups stay full while light requests are
sent, and the gate then lets the held requests finish with their real answers."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app import hosting
from tests.app.support import free_port, replace_view, use_tiny_assets


# ----- the table -----------------------------------------------------------------------------------
def test_the_served_queue_looks_for_work_every_10_ms_not_every_1_ms(demo) -> None:
    """Gradio's queue looks for an event it can start every 1 ms while it has none: ~3.7% of a core for an idle
    server (measured); the app's looks every `QUEUE_POLL_SECONDS`."""
    import gradio as gr

    from app.layout import QUEUE_POLL_SECONDS

    assert QUEUE_POLL_SECONDS == 0.01
    assert demo._queue.sleep_when_free == QUEUE_POLL_SECONDS
    plain = gr.Blocks()
    plain.queue()
    assert plain._queue.sleep_when_free == 0.001  # Gradio's own on Linux: what the setting replaces


def test_an_event_wired_without_a_cost_group_runs_in_the_heavy_one(caplog) -> None:
    import gradio as gr

    with gr.Blocks() as blocks:
        box = gr.Textbox()
        box.submit(lambda text: text, inputs=box, outputs=box, api_name="forgotten")
        box.change(lambda text: text, inputs=box, outputs=box, api_name="declared", **hosting.queue_options("light"))
    blocks.queue()
    with caplog.at_level("WARNING"):
        hosting.isolate(blocks)
    by_name = {fn.api_name: fn for fn in blocks.fns.values()}
    assert by_name["forgotten"].concurrency_id == "heavy" and getattr(by_name["forgotten"].fn, "lane", "") == "heavy"
    assert by_name["declared"].concurrency_id == "light"
    assert "'forgotten' was wired without a cost group" in caplog.text


def test_every_events_function_was_built_where_it_was_declared(demo) -> None:
    """Checked, then on its lane: each event's chain is built by `hosting.served` where the endpoint is declared
    (`Endpoint.fn`, the example picks, the language switch's redraw), not found and wrapped afterwards."""
    from app import gradio_compat

    functions = [block_fn.fn for block_fn in gradio_compat.events(demo) if callable(block_fn.fn)]
    assert len(functions) > 30
    assert all(getattr(fn, "lab_served", False) for fn in functions)
    assert not [fn for fn in functions if "served" in getattr(fn, "lab_wrappers", ())]  # none served by isolate
    attention = gradio_compat.events(demo, "attention")[0].fn
    assert attention.lane == "heavy"  # the view runs on the heavy lane, its values checked before


def test_an_event_wired_without_served_is_checked_all_the_same(caplog) -> None:
    import gradio as gr

    with gr.Blocks() as blocks:
        box = gr.Textbox()
        box.change(lambda text: text, inputs=box, outputs=box, api_name="bare", **hosting.queue_options("light"))
    blocks.queue()
    with caplog.at_level("WARNING"):
        hosting.isolate(blocks)
    (bare,) = blocks.fns.values()
    assert "'bare' was wired without app.hosting.served" in caplog.text
    with pytest.raises(gr.Error, match="surrogate|readable|character"):
        bare.fn("\ud800")


def test_queue_options_put_an_event_in_its_group_or_outside_the_queue() -> None:
    assert hosting.queue_options("model") == {
        "concurrency_id": "model",
        "concurrency_limit": hosting.GROUPS["model"].limit(),
        "preprocess": False,
    }
    assert hosting.queue_options("instant") == {"queue": False, "preprocess": False}


def test_groups_have_their_limits(demo) -> None:
    by_name = {fn.api_name: fn for fn in demo.fns.values()}
    assert by_name["measure_speed"].concurrency_limit == 1
    assert by_name["attention"].concurrency_limit == 1
    assert by_name["fill_mask"].concurrency_id == "model" != by_name["attention"].concurrency_id
    assert hosting.GROUPS["measure"].waiting == 1


def test_hosting_strings_are_data_in_both_languages() -> None:
    from app.i18n.strings import read_language

    keys = {group.busy for group in hosting.GROUPS.values()}
    assert keys <= set(read_language("en")) and keys <= set(read_language("zh"))
    assert hosting.busy_answer("measure", 1, "zh").startswith("另一个速度测量")


def test_the_language_switch_answers_from_a_cache_with_fresh_copies(demo) -> None:
    switch = next(fn.fn for fn in demo.fns.values() if fn.api_name == "set_language")
    calls: list[str] = []

    def updates(lang: str) -> list[dict]:
        calls.append(lang)
        return [{"__type__": "update", "label": f"label-{lang}", "value": f"text-{lang}"}]

    cached = hosting.cached_updates(updates)
    first = cached("zh")
    first[0].pop("value")  # Gradio pops "value" from an update while sending it
    assert cached("中文") == [{"__type__": "update", "label": "label-zh", "value": "text-zh"}]
    assert (
        cached("en") == cached(None) == cached(12) == [{"__type__": "update", "label": "label-en", "value": "text-en"}]
    )
    assert calls == ["zh", "en"]
    zh = switch("zh")
    assert len(zh) > 50 and switch("zh") == zh and switch("zh")[0] is not zh[0]
    started = time.perf_counter()
    for _ in range(200):
        switch("en")
    assert time.perf_counter() - started < 2.0  # 200 switches; ~40 ms each before the cache (8 s)


# ----- launched, with the heavy views held -------------------------------------------------------------
@dataclass
class HeldApp:
    url: str
    demo: Any
    gates: dict[str, threading.Event]
    entered: dict[str, threading.Semaphore]
    upload_dir: Path
    calls: list[str] = field(default_factory=list)


def _held(view: Callable, gate: threading.Event, entered: threading.Semaphore) -> Callable:
    @functools.wraps(view)
    def held(*args: Any) -> tuple:
        entered.release()
        gate.wait(300)
        return view(*args)

    return held


def _measured_at_once(*args: Any) -> tuple:
    """/measure_speed's answer without its timing: these tests are about the group's line and gates, and the real
    timing (a child at nice 19, tests/app/hosting/test_lanes.py) took minutes beside a busy suite."""
    from app.tabs.parameters.costs import MeasureAnswer

    seq_len = args[10]
    modes = [{"sharing": mode, "seconds": 0.001} for mode in ("all", "attention", "ffn", "none")]
    return MeasureAnswer({"tokens": seq_len, "modes": modes}, "", "", None)


@pytest.fixture
def held_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HeldApp]:
    """The app on a free loopback port, /attention and /measure_speed held at their gates until the test opens them
    (or ends); /fill_mask's gate stays open unless a test shuts it."""
    from app import bound_queue, build_app, launch_options
    from app.tabs.attention import tab as attention_tab
    from app.tabs.masked import tab as masked_tab
    from app.tabs.parameters import tab as parameters_tab

    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-temp"))
    gates = {name: threading.Event() for name in ("attention", "measure", "fill_mask")}
    gates["fill_mask"].set()  # open unless a test shuts it (it fills the model line)
    entered = {name: threading.Semaphore(0) for name in gates}
    replace_view(
        monkeypatch, attention_tab, "ATTENTION", lambda view: _held(view, gates["attention"], entered["attention"])
    )
    replace_view(
        monkeypatch, masked_tab, "FILL_MASK", lambda view: _held(view, gates["fill_mask"], entered["fill_mask"])
    )
    replace_view(
        monkeypatch,
        parameters_tab,
        "MEASURE_SPEED",
        lambda view: _held(_measured_at_once, gates["measure"], entered["measure"]),
    )
    demo = bound_queue(build_app())
    port = free_port()
    demo.launch(
        **{**launch_options(), "server_port": port, "prevent_thread_lock": True, "quiet": True}, _frontend=False
    )
    app = HeldApp(f"http://127.0.0.1:{port}", demo, gates, entered, Path(demo.server_app.uploaded_file_dir))
    _wait_for_config(app.url)
    yield app
    for gate in gates.values():
        gate.set()
    demo.close()


def _wait_for_config(url: str, timeout: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/config", timeout=10).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"the app launched in this process did not serve {url}"
        time.sleep(0.2)


ATTENTION = ["the old sailor walked home", "", 1, 16, "", "", "en"]
MEASURE = [300, 16, 32, 2, 2, 64, "all", 1, True, 64, 32, "en"]


def _send(http, url: str, endpoint: str, data: list) -> Any:
    return http.post(f"{url}/gradio_api/call/{endpoint}", json={"data": data})


def _answer(http, url: str, endpoint: str, response: Any) -> Any:
    assert response.status_code == 200, response.text
    stream = http.get(f"{url}/gradio_api/call/{endpoint}/{response.json()['event_id']}").text
    assert "event: complete" in stream, stream[:300]
    line = next(line for line in stream.splitlines() if line.startswith("data:"))
    return json.loads(line.removeprefix("data:"))


@pytest.mark.slow
def test_light_requests_answer_while_heavy_ones_fill_their_group(held_app: HeldApp) -> None:
    import httpx

    url = held_app.url
    with httpx.Client(timeout=120) as http:
        heavy = [_send(http, url, "attention", ATTENTION) for _ in range(3)]  # one held, two waiting
        assert held_app.entered["attention"].acquire(timeout=120), "/attention never started"
        measuring = _send(http, url, "measure_speed", MEASURE)
        assert held_app.entered["measure"].acquire(timeout=120), "/measure_speed never started"
        # Before the groups, three held model requests took both model workers: /fill_mask never ran.
        started = time.perf_counter()
        masked = _answer(http, url, "fill_mask", _send(http, url, "fill_mask", ["the old [MASK] walked", 5, "", "en"]))
        order = _answer(http, url, "sentence_order", _send(http, url, "sentence_order", ["One.", "Two.", "", "en", ""]))
        counted = _answer(
            http,
            url,
            "parameters",
            _send(http, url, "parameters", [30000, 128, 768, 12, 12, 3072, "all", 1, True, 512, "en"]),
        )
        light_seconds = time.perf_counter() - started
        assert masked[0]["masks"] and "error" not in masked[0], masked[0]
        assert "p_in_order_a_then_b" in order[0], order[0]
        assert counted[0]["total"] == 11_683_584, counted[0]
        assert not held_app.gates["attention"].is_set() and not held_app.gates["measure"].is_set()
        assert light_seconds < 60, light_seconds  # milliseconds on an idle machine; the gates are still shut
        held_app.gates["attention"].set()
        held_app.gates["measure"].set()
        for response in heavy:
            answer = _answer(http, url, "attention", response)
            assert answer[0]["tokens"] and "error" not in answer[0], answer[0]
        measured = _answer(http, url, "measure_speed", measuring)[0]
        assert [row["sharing"] for row in measured["modes"]] == ["all", "attention", "ffn", "none"], measured


def test_a_busy_answer_is_in_the_language_the_request_asked_for() -> None:
    """The language is found by its input's name: /fill_mask sends it fourth of five (the optional expected word
    after it), and a 中文 class that filled the model line was told it was busy in English."""
    from types import SimpleNamespace

    inputs = [SimpleNamespace(elem_id=name) for name in ("mask-text", None, "model-picker", "language", "expected")]
    fill_mask = SimpleNamespace(inputs=inputs)
    sent = SimpleNamespace(data=["我爱[MASK]。", 5, "", "zh", ""])
    assert hosting.request_language(sent, fill_mask) == "zh"
    assert hosting.request_language(SimpleNamespace(data=["text", 5, "", "en", ""]), fill_mask) == "en"
    for data in (["zh", 5], [], None, "zh", [["zh"]], ["a", 5, "", "fr", "zh"]):  # not at the language's place
        assert hosting.request_language(SimpleNamespace(data=data), fill_mask) == "en"
    assert hosting.request_language(sent) == "en"  # an event that reads no language
    full = hosting.GROUPS["model"].waiting
    assert hosting.group_busy("model", full - 1, sent, fill_mask) is None
    assert hosting.group_busy("model", full, sent, fill_mask) == hosting.busy_answer("model", full, "zh")
    assert hosting.busy_answer("model", full, "zh") != hosting.busy_answer("model", full, "en")


@pytest.mark.slow
def test_measure_speed_runs_one_at_a_time_with_its_own_busy_answer(held_app: HeldApp) -> None:
    import httpx

    url = held_app.url
    with httpx.Client(timeout=120) as http:
        running = _send(http, url, "measure_speed", MEASURE)
        assert held_app.entered["measure"].acquire(timeout=120), "/measure_speed never started"
        waiting = _send(http, url, "measure_speed", MEASURE)
        assert waiting.status_code == 200, waiting.text
        started = time.perf_counter()
        refused = _send(http, url, "measure_speed", MEASURE)
        refused_in = time.perf_counter() - started
        assert refused.status_code == 503, refused.text
        assert refused.json()["detail"] == hosting.busy_answer("measure", 1)
        assert refused_in < 5.0, refused_in  # answered at the door of the queue: ~10 ms on an idle machine
        assert not held_app.entered["measure"].acquire(timeout=1.0), "a second measurement ran at the same time"
        held_app.gates["measure"].set()
        for response in (running, waiting):
            assert _answer(http, url, "measure_speed", response)[0]["tokens"] == 32
        again = _send(http, url, "measure_speed", MEASURE)  # the line is free again
        assert _answer(http, url, "measure_speed", again)[0]["tokens"] == 32


@pytest.mark.slow
def test_the_heavy_group_has_its_own_waiting_line(held_app: HeldApp) -> None:
    import httpx

    url = held_app.url
    waiting = hosting.GROUPS["heavy"].waiting
    with httpx.Client(timeout=120) as http:
        sent = [_send(http, url, "attention", ATTENTION)]
        assert held_app.entered["attention"].acquire(timeout=120), "/attention never started"
        sent += [_send(http, url, "attention", ATTENTION) for _ in range(waiting)]
        assert [r.status_code for r in sent] == [200] * (waiting + 1), [r.text for r in sent]
        refused = _send(http, url, "attention", ATTENTION)
        assert refused.status_code == 503 and refused.json()["detail"] == hosting.busy_answer("heavy", waiting)
        refused_zh = _send(http, url, "attention", [*ATTENTION[:-1], "zh"])  # the page's language, last value
        assert refused_zh.json()["detail"] == hosting.busy_answer("heavy", waiting, "zh")
        assert refused_zh.json()["detail"].startswith("ALBERT 实验室正忙")
        masked = _send(http, url, "fill_mask", ["the old [MASK] walked", 5, "", "en"])
        assert _answer(http, url, "fill_mask", masked)[0]["masks"]  # other groups still take requests
        held_app.gates["attention"].set()
        assert _answer(http, url, "attention", sent[-1])[0]["tokens"]


@pytest.mark.slow
def test_a_chinese_request_that_meets_a_full_model_line_is_refused_in_chinese(held_app: HeldApp) -> None:
    """/fill_mask sends the page's language fourth of five values (the optional expected word after it): the busy
    answer finds it by name and answers a 中文 class in Chinese (it read the last value, and said it in English)."""
    import httpx

    url, group = held_app.url, hosting.GROUPS["model"]
    chinese = ["我爱自然语言处[MASK]。", 5, "", "zh", ""]
    held_app.gates["fill_mask"].clear()
    with httpx.Client(timeout=120) as http:
        sent = []
        for _ in range(group.limit()):  # one at a time: requests waiting together would share one batch (issue 53)
            sent.append(_send(http, url, "fill_mask", chinese))
            assert held_app.entered["fill_mask"].acquire(timeout=120), "/fill_mask never started"
        sent += [_send(http, url, "fill_mask", chinese) for _ in range(group.waiting)]
        assert {r.status_code for r in sent} == {200}, [r.text for r in sent if r.status_code != 200][:3]
        refused = _send(http, url, "fill_mask", chinese)
        assert refused.status_code == 503, refused.text
        assert refused.json()["detail"] == hosting.busy_answer("model", group.waiting, "zh")
        english = _send(http, url, "fill_mask", [*chinese[:3], "en", ""])
        assert english.json()["detail"] == hosting.busy_answer("model", group.waiting, "en")
        held_app.gates["fill_mask"].set()


# ----- the door ----------------------------------------------------------------------------------------
def _files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


@pytest.mark.slow
def test_bodies_over_the_cap_are_refused_before_they_are_read(held_app: HeldApp) -> None:
    import httpx

    from app.hosting.door import MAX_BODY_BYTES, TOO_LARGE

    url = held_app.url
    big = json.dumps({"data": ["x" * 5_000_000 + " [MASK]", 5, "", "en"]}).encode()
    with httpx.Client(timeout=60) as http:
        response = http.post(
            f"{url}/gradio_api/call/fill_mask", content=big, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413 and response.json() == {"detail": TOO_LARGE}

        def chunks(text: str) -> Iterator[bytes]:  # no Content-Length: sent chunked, counted as it streams
            body = json.dumps({"data": [text, 5, "", "en"]}).encode()
            for i in range(0, len(body), 16_384):
                yield body[i : i + 16_384]

        response = http.post(
            f"{url}/gradio_api/call/fill_mask",
            content=chunks("y" * MAX_BODY_BYTES),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 413 and response.json() == {"detail": TOO_LARGE}
        response = http.post(
            f"{url}/gradio_api/call/fill_mask",
            content=chunks("the old [MASK] walked. " + "The sea was calm. " * 400),
            headers={"content-type": "application/json"},
        )
        answer = _answer(http, url, "fill_mask", response)  # a chunked body under the cap goes through
        assert answer[0]["masks"], answer[0]


@pytest.mark.slow
def test_uploads_are_closed_and_nothing_is_written(held_app: HeldApp) -> None:
    import httpx

    from app.hosting.door import NO_UPLOADS

    url = held_app.url
    before = _files(held_app.upload_dir)
    with httpx.Client(timeout=60) as http:
        for path in ("/gradio_api/upload", "/gradio_api/upload/", "/gradio_api/upload?upload_id=abc"):
            for payload in (b"hello", b"0" * 2_000_000):
                response = http.post(f"{url}{path}", files={"files": ("a.txt", payload)})
                assert response.status_code == 403 and response.json() == {"detail": NO_UPLOADS}, (path, response.text)
        response = http.post(f"{url}/gradio_api/process_recording", files={"files": ("a.wav", b"RIFF")})
        assert response.status_code == 403
        assert http.get(f"{url}/config").status_code == 200  # the connection pool still works after refusals
    assert _files(held_app.upload_dir) == before


def test_example_clicks_take_a_rows_number_and_refuse_anything_else(demo) -> None:
    import gradio as gr

    clicks = [fn for fn in demo.fns.values() if (fn.api_name or "").endswith("_pick")]
    assert len(clicks) == 6 and all(not fn.preprocess and not fn.queue for fn in clicks)
    for fn in clicks:
        assert fn.fn(0, "en"), fn.api_name  # the first example's values
        for value in (None, "0", 1.0, -1, 10**30, [0, []], {"index": 0}, True):
            with pytest.raises(gr.Error, match="whole number from 0 to"):
                fn.fn(value, "en")
