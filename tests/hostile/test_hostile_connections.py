"""Connections that cannot hold the server (issue 53, item 2): half-sent request heads are closed by the server, a
new visitor is answered beside them, the cap closes the oldest idle connection, a body that stops arriving is
answered 408, and a full socket table is logged once. The times are deadlines the server keeps, not speed claims
(benchmarks/connection_flood.py measures those)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from types import SimpleNamespace
from typing import Any

import pytest

from app.hosting import connections, door
from tests.app.support import running_app, tiny_assets

HALF_HEAD = b"GET / HTTP/1.1\r\nHost: albert-lab\r\nUser-Agent: half"


@pytest.mark.slow
def test_half_sent_heads_are_closed_by_the_server_and_a_visitor_is_answered_beside_them() -> None:
    host, port = "127.0.0.1", int(running_app().rstrip("/").rsplit(":", 1)[1])
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size

    async def flood() -> tuple[int, list[float | None]]:
        held = []
        for index in range(300):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(HALF_HEAD if index % 3 else b"")  # a third send nothing at all
            held.append((reader, writer))
        flooded = time.perf_counter()
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /config HTTP/1.1\r\nHost: albert-lab\r\nConnection: close\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), 30)
        writer.close()

        async def closed(stream: asyncio.StreamReader) -> float | None:
            try:
                await asyncio.wait_for(stream.read(), 30)
                return time.perf_counter() - flooded
            except TimeoutError:
                return None

        ends = await asyncio.gather(*(closed(stream) for stream, _ in held))
        for _, held_writer in held:
            held_writer.close()
        return int(answer.split(b" ", 2)[1]), ends

    status, ends = asyncio.run(flood())
    assert status == 200
    assert None not in ends, f"{ends.count(None)} of 300 half-sent connections were still open after 30 s"
    assert min(ends) >= connections.HEAD_SECONDS - 1  # closed by the deadline, not at once
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        assert "Traceback" not in handle.read()


class FakeTransport:
    """What uvicorn's protocol reads of a socket's transport."""

    def __init__(self, port: int) -> None:
        self.port, self.closed, self.written = port, False, b""

    def get_extra_info(self, name: str) -> Any:
        return {"sockname": ("127.0.0.1", 7860), "peername": ("127.0.0.1", self.port)}.get(name)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def write(self, data: bytes) -> None:
        self.written += data

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def test_past_the_cap_a_new_connection_closes_the_oldest_idle_one_never_a_request_under_way(monkeypatch) -> None:
    from uvicorn.server import ServerState

    monkeypatch.setattr(connections, "max_connections", lambda: 3)
    monkeypatch.setattr(connections, "IDLE", connections.IdleConnections())

    async def never_answers(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(3600)

    async def opened() -> list[tuple[connections.LabHttpProtocol, FakeTransport]]:
        config = connections.LabConfig(app=never_answers, log_level="warning")
        config.load()
        state, loop = ServerState(), asyncio.get_running_loop()
        made = []
        for port in range(5):
            protocol = connections.LabHttpProtocol(config=config, server_state=state, app_state={}, _loop=loop)
            transport = FakeTransport(port)
            protocol.connection_made(transport)  # type: ignore[arg-type]
            if port == 0:  # the first one is under way: a whole request head, its answer pending
                protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            made.append((protocol, transport))
        for protocol, _ in made:
            protocol._cancel_deadline()
        for task in list(state.tasks):
            task.cancel()
        return made

    made = asyncio.run(opened())
    assert [transport.closed for _, transport in made] == [False, True, True, False, False]


def test_a_head_that_never_completes_is_closed_at_its_deadline_whatever_arrives_meanwhile(monkeypatch) -> None:
    from uvicorn.server import ServerState

    monkeypatch.setattr(connections, "HEAD_SECONDS", 0.2)

    async def trickle() -> tuple[FakeTransport, float]:
        config = connections.LabConfig(app=lambda *args: None, log_level="warning")
        config.load()
        loop = asyncio.get_running_loop()
        protocol = connections.LabHttpProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
        transport = FakeTransport(1)
        started = time.perf_counter()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        for byte in HALF_HEAD[:30]:  # a byte every 20 ms: the deadline does not move
            protocol.data_received(bytes([byte]))
            await asyncio.sleep(0.02)
            if transport.closed:
                break
        return transport, time.perf_counter() - started

    transport, seconds = asyncio.run(trickle())
    assert transport.closed and 0.18 <= seconds < 0.5


def test_a_body_that_stops_arriving_is_answered_408(monkeypatch) -> None:
    monkeypatch.setattr(door, "BODY_SECONDS", 0.2)
    sent: list[dict] = []
    messages = [{"type": "http.request", "body": b"0123456789", "more_body": True}]

    async def receive() -> dict:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(3600)  # the 90 bytes promised never come
        return {}

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app was called with half a body")

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/gradio_api/queue/join",
        "headers": [(b"content-length", b"100")],
    }
    asyncio.run(door.BoundedBodies(app)(scope, receive, send))
    assert sent[0]["status"] == 408
    assert json.loads(sent[1]["body"]) == {"detail": door.TOO_SLOW}


def test_a_full_socket_table_is_logged_once_a_minute_in_one_line(caplog) -> None:
    handler = connections.AcceptErrors()
    loop = SimpleNamespace(default_exception_handler=lambda context: logging.getLogger("asyncio").error("other"))
    context = {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many open files")}
    with caplog.at_level(logging.INFO):
        for _ in range(1000):
            handler(loop, context)  # type: ignore[arg-type]
        handler(loop, {"message": "something else"})  # type: ignore[arg-type]
    lines = [record for record in caplog.records if "refused" in record.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None and "Too many open files" in lines[0].getMessage()
    assert handler.missed == 999
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == ["other"]
