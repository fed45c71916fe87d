"""The door (app.hosting.door) whatever the framing (issue 43, item 1): no body longer than the cap reaches the app,
whichever headers come with it, and a call Gradio cannot read gets one sentence, not a 500.

The requests run through `BoundedBodies` at the ASGI level, around an app that records the body it read, as
uvicorn hands them on: the headers as sent and the body in the messages the server produced from its framing (for
`Content-Length: 5` with `Transfer-Encoding: chunked`, h11 reads the chunks: the body the app would have read is all
of them). The launched server's side is in test_hostile_app_server.py (a raw socket)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from app.hosting.door import (
    BAD_LENGTH,
    NO_SUCH_ENDPOINT,
    TOO_LARGE,
    TWO_FRAMINGS,
    UNREADABLE_CALL,
    BoundedBodies,
)

CAP = 10
"""The cap of these requests, in bytes."""


def _through(
    headers: list[tuple[bytes, bytes]],
    chunks: list[bytes],
    path: str = "/gradio_api/queue/join",
    app: Callable | None = None,
    server_app: Any = None,
    method: str = "POST",
) -> tuple[int, str, bytes]:
    """(status, answer, body the app read) of one request through the door."""
    read: list[bytes] = []

    async def echo(scope: dict, receive: Callable, send: Callable) -> None:
        while True:
            message = await receive()
            read.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"".join(read)})

    messages = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
    ]
    sent: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": headers, "app": server_app}
    asyncio.run(BoundedBodies(app or echo, max_bytes=CAP)(scope, receive, send))
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body").decode()
    return sent[0]["status"], answer, b"".join(read)


CL = b"content-length"
TE = b"transfer-encoding"


@pytest.mark.parametrize(
    "headers, chunks, status, sentence",
    [
        # the probe's bypass: a small Content-Length beside chunked framing; the server reads all the chunks
        ([(CL, b"5"), (TE, b"chunked")], [b"12345", b"67890", b"x" * 5_000_000], 400, TWO_FRAMINGS),
        ([(TE, b"chunked"), (CL, b"5")], [b"12345"], 400, TWO_FRAMINGS),  # honest, still refused: either one
        ([(CL, b"5"), (b"Transfer-Encoding", b"gzip, chunked")], [b"12345"], 400, TWO_FRAMINGS),
        ([(b"Content-Length", b"5"), (b"TRANSFER-ENCODING", b"identity")], [b"12345"], 400, TWO_FRAMINGS),
        ([(CL, b"5"), (CL, b"50000")], [b"12345"], 400, BAD_LENGTH),  # two lengths that disagree
        ([(CL, b"-1")], [b"12345"], 400, BAD_LENGTH),
        ([(CL, b"ten")], [b"12345"], 400, BAD_LENGTH),
        ([(CL, b"11")], [b"12345678901"], 413, TOO_LARGE),
        ([(CL, b"9" * 400)], [b"1"], 413, TOO_LARGE),
        # a length under the cap over a longer body: what is read counts, not what was announced
        ([(CL, b"5")], [b"12345", b"678901"], 413, TOO_LARGE),
        ([(TE, b"chunked")], [b"1234", b"5678", b"901"], 413, TOO_LARGE),
        ([(TE, b"Chunked")], [b"x" * 5_000_000], 413, TOO_LARGE),
        ([], [b"12345", b"678901"], 413, TOO_LARGE),  # no framing header at all (another server, HTTP/2)
    ],
)
def test_no_body_past_the_cap_reaches_the_app_whatever_its_framing(headers, chunks, status, sentence) -> None:
    got, answer, read = _through(headers, chunks)
    assert (got, json.loads(answer)) == (status, {"detail": sentence})
    assert read == b""  # the app read nothing: it was never called


@pytest.mark.parametrize(
    "headers, chunks",
    [
        ([(CL, b"5")], [b"12345"]),
        ([(CL, b"10")], [b"12345", b"67890"]),
        ([(TE, b"chunked")], [b"1234", b"5678", b"90"]),
        ([], [b""]),
        ([(CL, b"0")], [b""]),
    ],
)
def test_a_body_within_the_cap_reaches_the_app_whole(headers, chunks) -> None:
    got, answer, read = _through(headers, chunks)
    assert got == 200 and read == answer.encode() == b"".join(chunks)


def test_every_combination_of_the_framing_headers_keeps_the_cap() -> None:
    """Content-Length (absent, honest, lying short, over the cap, unreadable) × Transfer-Encoding (absent, chunked,
    another) × a body of 4, 10 and 11 bytes: the app reads a body only when it held at most the cap, and then
    all of it."""
    lengths = (None, b"honest", b"3", b"11", b"x")
    encodings = (None, b"chunked", b"gzip, chunked")
    for length in lengths:
        for encoding in encodings:
            for size in (4, CAP, CAP + 1):
                body = b"b" * size
                headers = [] if length is None else [(CL, str(size).encode() if length == b"honest" else length)]
                headers += [] if encoding is None else [(TE, encoding)]
                chunks = [body[:3], body[3:]]
                got, _, read = _through(headers, chunks)
                case = (length, encoding, size)
                assert read in (b"", body), case
                assert (read == body) == (got == 200), case
                if size > CAP:
                    assert got in (400, 413) and read == b"", case
                if length is not None and encoding is not None:
                    assert got == 400, case


def test_the_refused_framing_is_answered_before_the_body_is_read_past_the_cap() -> None:
    pulled: list[int] = []

    async def run() -> int:
        sent: list[dict] = []
        count = 0

        async def receive() -> dict:
            nonlocal count
            count += 1
            pulled.append(count)
            return {"type": "http.request", "body": b"x" * 4, "more_body": True}  # an endless body

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/x", "headers": [(CL, b"5"), (TE, b"chunked")]}
        await BoundedBodies(lambda *a: None, max_bytes=CAP)(scope, receive, send)
        return sent[0]["status"]

    assert asyncio.run(run()) == 400
    assert len(pulled) <= CAP // 4 + 2  # drained up to the cap (so a small body's answer is read), no further


def _server(*names: str) -> Any:
    """A stand-in for Gradio's FastAPI app in the scope: get_blocks() with events of these api_names."""
    fns = {i: SimpleNamespace(api_name=name, fn=print) for i, name in enumerate(names)}
    return SimpleNamespace(get_blocks=lambda: SimpleNamespace(fns=fns))


@pytest.mark.parametrize(
    "path",
    [
        "/gradio_api/call/no_such",
        "/gradio_api/call/v2/no_such/",
        "/gradio_api/run/no_such",
        "/gradio_api/api/no_such",
        "/gradio_api/call/a\ud800b",  # a name no event has, never echoed
    ],
)
def test_a_call_of_an_unknown_name_is_answered_404_with_a_sentence(path: str) -> None:
    got, answer, read = _through([(CL, b"2")], [b"{}"], path=path, server_app=_server("fill_mask"))
    assert (got, json.loads(answer)) == (404, {"detail": NO_SUCH_ENDPOINT})
    assert read == b""


def test_a_call_gradio_cannot_read_is_answered_400_and_other_routes_keep_their_errors() -> None:
    async def unreadable(scope: dict, receive: Callable, send: Callable) -> None:
        await receive()
        raise TypeError("Parameter 'data' is not a valid key-word argument")  # as Gradio's construct_args does

    server = _server("fill_mask")
    for path in ("/gradio_api/call/v2/fill_mask", "/gradio_api/run/predict", "/gradio_api/run/fill_mask"):
        got, answer, _ = _through([(CL, b"2")], [b"{}"], path=path, app=unreadable, server_app=server)
        assert (got, json.loads(answer)) == (400, {"detail": UNREADABLE_CALL}), path
    with pytest.raises(TypeError):  # not a call: the server's own error handling answers it
        _through([(CL, b"2")], [b"{}"], path="/gradio_api/queue/join", app=unreadable, server_app=server)

    async def answered_then_failed(scope: dict, receive: Callable, send: Callable) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise RuntimeError("after the answer began")

    with pytest.raises(RuntimeError):  # an answer already begun cannot be replaced by a sentence
        _through([], [b""], path="/gradio_api/call/fill_mask", app=answered_then_failed, server_app=server)


def test_a_known_call_and_a_get_pass_through() -> None:
    server = _server("fill_mask")
    assert _through([(CL, b"2")], [b"{}"], path="/gradio_api/call/fill_mask", server_app=server)[0] == 200
    assert _through([], [b""], path="/gradio_api/call/no_such/abc", method="GET", server_app=server)[0] == 200
    assert _through([(CL, b"2")], [b"{}"], path="/gradio_api/run/predict", server_app=server)[0] == 200
