"""Connections that cannot hold the server (issue 53, item 2): a deadline for each request's head, a cap on open
connections that evicts the oldest idle one, and one log line when the system runs out of sockets.

uvicorn, as Gradio launches it, times out a connection only *between* requests (5 s after a response). A socket that
connects and sends nothing, or half a request header, was held for ever: ~20,000 of them filled the server's file
descriptors, every new visitor waited until its own timeout, and asyncio wrote a traceback for each refused accept
(163,839 of them, 73 MB of log in ~25 s). Here (`LabHttpProtocol`, uvicorn's h11 protocol with three additions):
- **the head deadline**: a connection with no request under way (just opened, or between requests) must complete a
  request head within `HEAD_SECONDS`, or it is closed. The deadline is set once and not moved by the bytes that
  arrive, so a header sent a byte at a time is closed as surely as a silent socket;
- **the cap**: past `max_connections()` open connections, each new one closes the oldest *idle* one (no request
  under way: a half-sent head, a kept-alive socket). A flood churns its own sockets, and a new visitor is always
  accepted and answered; requests under way are never cut;
- **one line for a full socket table**: asyncio's "socket.accept() out of system resource", with its traceback on
  every retry, becomes one warning a minute.

The body's deadline is the door's (`app.hosting.door.BODY_SECONDS`): a body that promises 100 bytes and sends 10 is
answered 408. `install()` puts these in place before `Blocks.launch` (`app.gradio_compat.serve_with`).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import OrderedDict
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

from app import gradio_compat

logger = logging.getLogger(__name__)

HEAD_SECONDS = 10.0
"""Seconds a connection without a request under way has to send a whole request head. A page's browser sends its
head in one packet, at once; a phone on a slow network within a second or two."""
MOST_CONNECTIONS = 4096
"""Open connections kept at most (fewer where the process may open fewer files, `max_connections`). A class of 100
pages keeps ~2 each (the page and its event stream); 4,096 leaves room for 2,000 sockets of a flood *and* the
class."""
FILES_KEPT_FREE = 256
"""File descriptors left for the server's own files (models, logs, the training children's pipes)."""
ACCEPT_ERROR_EVERY = 60.0
"""Seconds between two log lines about a full socket table."""


def max_connections() -> int:
    """`MOST_CONNECTIONS`, or fewer when the process's file limit (raised to its hard limit by `install`) is lower."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(min(MOST_CONNECTIONS, soft - FILES_KEPT_FREE), 64)


class IdleConnections:
    """The open connections with no request under way, oldest first: the ones the cap closes."""

    def __init__(self) -> None:
        self.idle: OrderedDict[int, LabHttpProtocol] = OrderedDict()

    def became_idle(self, connection: LabHttpProtocol) -> None:
        self.idle[id(connection)] = connection
        self.idle.move_to_end(id(connection))

    def became_busy(self, connection: LabHttpProtocol) -> None:
        self.idle.pop(id(connection), None)

    def close_oldest(self) -> bool:
        """Close the oldest idle connection; False when none is idle."""
        while self.idle:
            _, oldest = self.idle.popitem(last=False)
            if not oldest.transport.is_closing():
                oldest.transport.close()
                return True
        return False


IDLE = IdleConnections()


class LabHttpProtocol(H11Protocol):
    """uvicorn's h11 protocol with the head deadline and the cap (see the module)."""

    head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > max_connections() and IDLE.close_oldest():
            logger.debug("over %d connections: closed the oldest idle one", max_connections())
        self._waiting_for_a_request()

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)
        if self.cycle is not before and self.cycle is not None and not self.cycle.response_complete:
            self._cancel_deadline()  # a request head arrived whole
            IDLE.became_busy(self)
        else:
            self._waiting_for_a_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # uvicorn's keep-alive timer (5 s) starts here
        self._waiting_for_a_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        IDLE.became_busy(self)
        super().connection_lost(exc)

    def _waiting_for_a_request(self) -> None:
        """No request under way: the connection counts as idle and has `HEAD_SECONDS` to send a whole head (set once:
        later bytes do not move it)."""
        if self.cycle is not None and not self.cycle.response_complete:
            return
        IDLE.became_idle(self)
        if self.head_deadline is None:
            self.head_deadline = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

    def _head_too_slow(self) -> None:
        self.head_deadline = None
        if self.cycle is None or self.cycle.response_complete:
            logger.debug("closed a connection that sent no whole request head within %.0f s", HEAD_SECONDS)
            IDLE.became_busy(self)
            self.transport.close()

    def _cancel_deadline(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None


class AcceptErrors:
    """The event loop's exception handler: "out of system resource" on accept logged once per `ACCEPT_ERROR_EVERY`
    seconds, in one line; everything else as asyncio logs it."""

    def __init__(self) -> None:
        self.last = -ACCEPT_ERROR_EVERY
        self.missed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self.last < ACCEPT_ERROR_EVERY:
            self.missed += 1
            return
        logger.warning(
            "new connections are refused: %s (%s); %d more such refusals since the last line",
            context.get("message"),
            context.get("exception"),
            self.missed,
        )
        self.last, self.missed = now, 0


class LabConfig(Config):
    """uvicorn's Config as Gradio makes it, serving with `LabHttpProtocol` and `AcceptErrors` on the server's loop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("http", LabHttpProtocol)
        super().__init__(*args, **kwargs)

    def load(self) -> None:
        super().load()
        try:
            asyncio.get_running_loop().set_exception_handler(AcceptErrors())
        except RuntimeError:  # loaded outside the server's loop (a test): nothing to set
            pass


def raise_file_limit() -> int:
    """Raise this process's open-file limit to its hard limit (no privilege needed); returns the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as error:
            logger.warning("could not raise the open-file limit from %d (%s)", soft, error)
    return soft


def install() -> bool:
    """Serve the next launched app with these connection rules; False (with a warning) when Gradio makes its server
    another way."""
    limit = raise_file_limit()
    installed = gradio_compat.serve_with(LabConfig)
    if installed:
        logger.info(
            "connections: %d open at most, %.0f s for a request head (open files: %d)",
            max_connections(),
            HEAD_SECONDS,
            limit,
        )
    return installed
