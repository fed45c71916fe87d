"""Bounded input at the door: every request body is capped, and the file upload routes are closed (issue 35).

`BoundedBodies` is an ASGI middleware on the FastAPI app that Gradio builds (`launch_options()["app_kwargs"]`).
It answers before any route parses anything:
- a body announced (Content-Length) or sent (chunked, counted as it streams) larger than `MAX_BODY_BYTES` → 413;
- POST to Gradio's upload routes (`/gradio_api/upload`, `/gradio_api/process_recording`) → 403. No tab takes a
  file, and Gradio's upload route stored any file up to its size limit in its temporary folder, served it back and
  never removed it (30 uploads: 27 MB).

The largest body the page itself sends is a masked-words request of 10,000 Chinese characters with its previous answer
(under 100 kB of JSON), so 256 kB leaves room and refuses a 50-million-character text before it is read.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 256 * 1024
"""The largest request body accepted, in bytes."""
CLOSED_ROUTES = re.compile(r"/(upload|process_recording)/*$")
"""Paths (their end) of Gradio's routes that write uploaded files to the server's temporary folder."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOO_LARGE = f"The request body is larger than {MAX_BODY_BYTES // 1024} kB, the most ALBERT Lab accepts; send less text."
NO_UPLOADS = "ALBERT Lab takes no files: uploads are closed."
BAD_LENGTH = "The Content-Length header is not a whole number of bytes."


class BoundedBodies:
    """ASGI middleware: refuse oversized bodies (413) and the upload routes (403) before the app reads anything."""

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
        headers = {name.lower(): value for name, value in scope.get("headers", [])}
        length = headers.get(b"content-length")
        if length is not None:
            try:
                announced = int(length)
            except ValueError:
                await _answer(send, 400, BAD_LENGTH)
                return
            if announced > self.max_bytes:
                await _answer(send, 413, TOO_LARGE)
                return
            # The server itself stops a body longer than its Content-Length (h11 refuses the extra bytes).
            await self.app(scope, receive, send)
            return
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            await self.app(scope, receive, send)  # no body (a GET, an event stream): nothing to count
            return
        # A chunked body announces no size: read it here, counting, and hand it on only when it fits.
        messages = await _read_at_most(receive, self.max_bytes)
        if messages is None:
            await _answer(send, 413, TOO_LARGE)
            return
        replay = iter(messages)

        async def replayed() -> Message:
            following = next(replay, None)
            return following if following is not None else await receive()

        await self.app(scope, replayed, send)


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
