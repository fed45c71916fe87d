"""Bounded input at the door: every request body is capped, the file upload routes are closed, and a call the
server cannot read gets one sentence (issues 35 and 43).

`BoundedBodies` is an ASGI middleware on the FastAPI app that Gradio builds (`launch_options()["app_kwargs"]`).
It answers before any route parses anything:
- a request carrying both Content-Length and Transfer-Encoding → 400, as RFC 9112 (section 6.3) asks: the server
  (uvicorn, h11) reads such a body by its chunked framing, so a header of `Content-Length: 5` let a 5 MB chunked body
  past a check that trusted the header (issue 43);
- a body announced larger than `MAX_BODY_BYTES` → 413 at once; every body is then *read here and counted*, whatever
  its framing says, and handed on only when it held at most `MAX_BODY_BYTES` (413 otherwise): the bound is what was
  read, not what a header promised;
- a body that has not arrived whole `BODY_SECONDS` after its head → 408 (the head's own deadline, and the cap on
  open connections, are `app.hosting.connections`');
- POST to Gradio's upload routes (`/gradio_api/upload`, `/gradio_api/process_recording`) → 403. No tab takes a
  file, and Gradio's upload route stored any file up to its size limit in its temporary folder, served it back and
  never removed it (30 uploads: 27 MB);
- a call (`/gradio_api/run/<name>`, `/api/<name>`, `/call/<name>`, `/call/v2/<name>`) of a name no event has → 404,
  and one whose body Gradio cannot read as a call (an unknown `fn_index`, positional `data` sent to the keyword
  route `/call/v2`) → 400, each with one sentence: Gradio answered both with a 500 and a traceback in the log;
- the queue's own routes naming an event, a session or an event id that does not exist → 400 or 404
  (`app.hosting.envelopes`), and a direct call refused with a sentence → 400 where Gradio answers 500.

The largest body the page itself sends is a masked-words request of 10,000 Chinese characters with its previous answer
(under 100 kB of JSON), so 256 kB leaves room and refuses a 50-million-character text before it is read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from app import gradio_compat
from app.hosting import envelopes

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 256 * 1024
"""The largest request body accepted, in bytes."""
BODY_SECONDS = 30.0
"""Seconds a request's body has to arrive whole once its head has (256 kB at ~10 kB/s, a poor phone network); a body
that promises 100 bytes and sends 10 was held for as long as its connection stayed open."""
CLOSED_ROUTES = re.compile(r"/(upload|process_recording)/*$")
"""Paths (their end) of Gradio's routes that write uploaded files to the server's temporary folder."""
CALL_ROUTES = re.compile(r"/gradio_api/(?:run|api|call|call/v2)/([^/]+)/*$")
"""Paths (their end) of Gradio's routes that call an event by its api_name (group 1) with a POST."""
BY_INDEX = "predict"
"""The name of Gradio's older call by number (`/gradio_api/run/predict` with an `fn_index`), not an event's."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOO_LARGE = f"The request body is larger than {MAX_BODY_BYTES // 1024} kB, the most ALBERT Lab accepts; send less text."
TOO_SLOW = f"The request body did not arrive within {BODY_SECONDS:.0f} s; send it whole, or send less."
NO_UPLOADS = "ALBERT Lab takes no files: uploads are closed."
BAD_LENGTH = "The Content-Length header is not a whole number of bytes."
TWO_FRAMINGS = (
    "The request carries both Content-Length and Transfer-Encoding; send one of them (RFC 9112 refuses the pair)."
)
NO_SUCH_ENDPOINT = "ALBERT Lab has no endpoint of that name; the API page (?view=api) lists them."
UNREADABLE_CALL = (
    'The call could not be read: send {"data": [values in the order the API page lists them]} to '
    "/gradio_api/call/<name>, or its parameters by name to /gradio_api/call/v2/<name>."
)


class BoundedBodies:
    """ASGI middleware: refuse a body past the cap (413) whatever its framing, a pair of framing headers or an
    unreadable length (400), the upload routes (403), and a call of an unknown name (404) or one Gradio cannot read
    (400), each with one sentence, before the app reads anything."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if CLOSED_ROUTES.search(path) and scope.get("method") != "GET":
            await _answer(send, 403, NO_UPLOADS)
            await _drain(receive, self.max_bytes)
            return
        refusal = self.refusal(scope.get("headers", []))
        if refusal is None and scope.get("method") == "GET":
            refusal = envelopes.stream_refusal(path, scope.get("query_string", b""), scope.get("app"))
        if refusal is not None:
            await _answer(send, *refusal)
            await _drain(receive, self.max_bytes)
            return
        messages = await self._read_body(receive, send)
        if messages is None:
            return
        if scope.get("method") == "POST":
            body = b"".join(message.get("body", b"") for message in messages)
            refusal = envelopes.envelope_refusal(path, body, scope.get("app"))
            if refusal is not None:
                await _answer(send, *refusal)
                return
        replay = iter(messages)

        async def replayed() -> Message:
            following = next(replay, None)
            return following if following is not None else await receive()

        call = CALL_ROUTES.search(path) if scope.get("method") == "POST" else None
        if call is None:
            await self.app(scope, replayed, send)
            return
        names = gradio_compat.served_api_names(scope.get("app"))
        if names is not None and call.group(1) not in names and call.group(1) != BY_INDEX:
            logger.info("refused a call of an unknown endpoint (%d characters of name)", len(call.group(1)))
            await _answer(send, 404, NO_SUCH_ENDPOINT)
            return
        await self._call(scope, replayed, send)

    async def _read_body(self, receive: Receive, send: Send) -> list[Message] | None:
        """Whatever the headers say, the body is read here and counted: its messages when it fits and arrived in
        time; None when it was answered 413 or 408 instead."""
        try:
            messages = await asyncio.wait_for(_read_at_most(receive, self.max_bytes), BODY_SECONDS)
        except TimeoutError:
            await _answer(send, 408, TOO_SLOW)
            return None
        if messages is None:
            await _answer(send, 413, TOO_LARGE)
        return messages

    def refusal(self, headers: list[tuple[bytes, bytes]]) -> tuple[int, str] | None:
        """(status, sentence) for a request whose framing headers are refused before its body is read; None
        when they may be read."""
        lengths = [value for name, value in headers if name.lower() == b"content-length"]
        if lengths and any(name.lower() == b"transfer-encoding" for name, _ in headers):
            return 400, TWO_FRAMINGS
        if not lengths:
            return None
        try:
            announced = {int(value) for value in lengths}
        except ValueError:
            return 400, BAD_LENGTH
        if len(announced) > 1 or min(announced) < 0:
            return 400, BAD_LENGTH
        return (413, TOO_LARGE) if max(announced) > self.max_bytes else None

    async def _call(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A call route: an exception that escapes Gradio before it answered is a call it could not read (400), and
        a refusal that Gradio answers with a 500 (`/run/predict` answers every exception so, a value refused with
        one sentence included) is a 400 with that sentence."""
        started = False
        held: Message | None = None

        async def watched(message: Message) -> None:
            nonlocal started, held
            if message.get("type") == "http.response.start" and message.get("status") == 500:
                held = message  # sent with the body, once the body says what the 500 was
                started = True
                return
            if held is not None and message.get("type") == "http.response.body":
                sentence = _refusal_sentence(message.get("body", b""))
                if sentence is not None and not message.get("more_body", False):
                    logger.info("a call was refused with a sentence; answered 400, not Gradio's 500")
                    held = {**held, "status": 400}
                await send(held)
                held = None
            started = started or message.get("type") == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as error:
            if started:
                raise
            logger.info("refused a call Gradio could not read: %s", type(error).__name__)
            await _answer(send, 400, UNREADABLE_CALL)


def _refusal_sentence(body: bytes) -> str | None:
    """The sentence of Gradio's error answer {"error": "…", …} (a `gr.Error`: a refusal), None for anything else
    (an unexpected error answers {"error": null} and stays a 500)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    sentence = answer.get("error") if isinstance(answer, dict) else None
    return sentence if isinstance(sentence, str) and sentence else None


async def _read_at_most(receive: Receive, limit: int) -> list[Message] | None:
    """The body's messages while they hold at most `limit` bytes in all; None as soon as they hold more."""
    messages, size = [], 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


async def _answer(send: Send, status: int, sentence: str) -> None:
    """A JSON answer {"detail": sentence}, as FastAPI's own errors look, closing the connection."""
    logger.info("refused a request at the door: %d %s", status, sentence)
    body = json.dumps({"detail": sentence}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _drain(receive: Receive, limit: int) -> None:
    """Read (and forget) up to `limit` bytes of a refused body, so that a small one does not reset the connection
    before the client reads the answer; anything longer is left to the closed connection."""
    read = 0
    while read <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def app_kwargs() -> dict[str, Any]:
    """Keyword arguments for the FastAPI app Gradio builds (`Blocks.launch(app_kwargs=...)`): the door."""
    from starlette.middleware import Middleware

    return {"middleware": [Middleware(BoundedBodies)]}
