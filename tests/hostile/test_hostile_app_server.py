"""Hostile requests to a launched app (issue 18): raw HTTP bodies of wrong types, too few or malformed, an
oversized upload, a full queue, and what the page and /config show of the machine's folders."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from app_support import REPO, running_app, tiny_assets


@pytest.fixture(scope="module")
def url() -> str:
    return running_app().rstrip("/")


@pytest.fixture(scope="module")
def http():
    import httpx

    with httpx.Client(timeout=60) as client:
        yield client


def _call(http, url: str, endpoint: str, body: str) -> tuple[int, str]:
    """POST a raw body to /gradio_api/call/<endpoint>; (status, result stream or error body)."""
    response = http.post(
        f"{url}/gradio_api/call/{endpoint}", content=body, headers={"content-type": "application/json"}
    )
    if response.status_code != 200:
        return response.status_code, response.text
    event = response.json()["event_id"]
    return 200, http.get(f"{url}/gradio_api/call/{endpoint}/{event}").text


def _result(stream: str) -> object:
    line = next(line for line in stream.splitlines() if line.startswith("data:"))
    return json.loads(line.removeprefix("data:"))


@pytest.mark.parametrize(
    "endpoint, data, fragment",
    [
        ("fill_mask", ["the [MASK]", "abc", "", "en"], "whole number from 1 to 20"),
        ("fill_mask", ["the [MASK]", 1e308, "", "en"], "from 1 to 20"),
        ("fill_mask", [["a list"], 5, "", "en"], "must be text"),
        ("fill_mask", ["the [MASK]", 5, "x" * 10_000, "en"], "10,000 characters"),
        ("attention", ["a b", "", "NaN", 16, "", "", "en"], "finite whole number"),
        ("attention", ["a b", "", 1, -5, "", "", "en"], "from 8 to 128"),
        ("split_paragraph", ["One. Two.", {"k": 1}, "", "en"], "whole number"),
        ("mask_word", ["the old sailor", 2.5, 5, "", "en"], "whole number"),
        (
            "parameters",
            [10**7, 10**7, 10**7, 10**7, 1, 10**7, "none", 10**7, True, 10**7, "en"],
            "1,000,000,000,000,000",
        ),
        ("parameters", [30000, 128, 768, 12, 12, 3072, "all", 1, "yes", 512, "en"], "true or false"),
        ("preset", ["albert-gigantic", "en"], "albert-gigantic"),
        ("sharing_modes", [12, "en"], "must be text"),
        ("sentiment", [{"text": "hi"}, "en"], "must be text"),
        ("layer_transitions", ["a b", 7, "", "en"], "model must be given as text"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_wrong_values_over_raw_http_get_the_apps_sentence(http, url: str, endpoint, data, fragment) -> None:
    status, stream = _call(http, url, endpoint, json.dumps({"data": data}))
    assert status == 200 and "event: complete" in stream, stream[:300]
    result = _result(stream)
    error = next(o["error"] for o in result if isinstance(o, dict) and "error" in o)
    assert fragment in error and "Traceback" not in error and "\n" not in error, error


@pytest.mark.parametrize(
    "body",
    [
        '{"data": ["the [MASK]"]}',
        '{"data": []}',
        '{"data": "x"}',
        "{}",
        "not json",
        "[1, 2]",
        '{"data": null}',
        '{"data": [1, 2',
        '{"data": {"a": 1}}',
    ],
)
def test_malformed_bodies_never_come_back_as_a_null_error(http, url: str, body: str) -> None:
    status, text = _call(http, url, "fill_mask", body)
    assert '{"error": null}' not in text and '"error":null' not in text, text[:300]
    if status == 200:  # too few values: the endpoint says how many it takes
        assert "takes 4 values" in text, text[:300]
    else:
        assert status == 422 and "detail" in text


def test_the_server_logged_no_traceback_for_bad_input(http, url: str) -> None:
    for data in (["the [MASK]", "abc", "", "en"], ["the [MASK]"], [None, None, None, None]):
        _call(http, url, "fill_mask", json.dumps({"data": data}))
    log = (tiny_assets().root / "server.log").read_text(encoding="utf-8")
    assert "Traceback" not in log, log[-3000:]


def test_uploads_are_bounded(http, url: str) -> None:
    response = http.post(f"{url}/gradio_api/upload", files={"files": ("big.bin", b"0" * 2_000_000)})
    assert response.status_code == 413
    response = http.post(f"{url}/gradio_api/upload", files={"files": ("small.txt", b"hello")})
    assert response.status_code == 200


def test_page_and_config_name_no_folder_of_the_machine(http, url: str) -> None:
    texts = [http.get(f"{url}/config").text, http.get(f"{url}/").text]
    _, stream = _call(http, url, "attention", json.dumps({"data": ["the old sailor", "", 1, 16, "", "", "en"]}))
    texts.append(stream)
    for folder in (str(tiny_assets().root), str(REPO), sys.prefix, str(Path.home()) + "/"):
        for text in texts:
            assert folder not in text, folder
    card = http.get(f"{url}/config").text
    assert "gradio_api/file=cache/app-static/README-" in card


def test_a_full_queue_answers_busy_try_again() -> None:
    from app import bound_queue, build_app, queues

    demo = bound_queue(build_app())
    queue = demo._queue
    assert queue.max_size == queues.MAX_QUEUED
    queue.max_size = 0
    success, detail, state = asyncio.run(queue.push(SimpleNamespace(fn_index=0), None, None))
    assert (success, state) == (False, "queue_full") and "busy" in detail and "try again" in detail


def test_answers_nobody_reads_are_dropped_and_read_ones_kept() -> None:
    from app.layout import drop_unread_results

    async def scenario() -> tuple[set, set]:
        queue = SimpleNamespace(pending_messages_per_session={}, pending_event_ids_session={})
        for session in ("abandoned", "listening", "idle-client"):
            queue.pending_messages_per_session[session] = asyncio.Queue()
            queue.pending_event_ids_session[session] = {"event"}
        queue.pending_messages_per_session["abandoned"].put_nowait("process_completed")
        sweeper = asyncio.create_task(drop_unread_results(queue, every=0.05))
        for _ in range(10):  # the listening page gets a message and reads it within a millisecond, as a stream does
            queue.pending_messages_per_session["listening"].put_nowait("heartbeat")
            await asyncio.sleep(0.001)
            queue.pending_messages_per_session["listening"].get_nowait()
            await asyncio.sleep(0.02)
        sweeper.cancel()
        return set(queue.pending_messages_per_session), set(queue.pending_event_ids_session)

    messages, events = asyncio.run(scenario())
    assert messages == events == {"listening", "idle-client"}
