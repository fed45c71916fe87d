"""A lean load client: many users' requests from one asyncio loop over Gradio's HTTP API, so that the load
generator, on the same 2 cores as the server, measures the server and not itself (issue 35).

Each request is `POST /gradio_api/call/<api_name>` with `{"data": [...], "session_hash": <the user's>}`
(answered with an event id, or HTTP 503 with the cost group's busy sentence), then
`GET /gradio_api/call/<api_name>/<event_id>`, an event stream that ends with `event: complete` and the outputs, or
`event: error`. The same queue, cost groups and door as the page; one session per user, as a page keeps.

Why: 32 `gradio_client.Client`s, one thread each, used 100–150% of the 2 cores while the server they were measuring
used 60–90% (`/proc/<pid>/stat` read every 2 s during `benchmarks/load_check.py --heavy`, 2026-12-04); every
client-side millisecond was counted as the server's latency. Here 32 users cost one event loop.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

Request = tuple[str, tuple, str]
"""(endpoint such as "/fill_mask", arguments, kind of check), as `benchmarks.load_check.REQUESTS`."""


@dataclass(frozen=True)
class Answer:
    """One request over HTTP: its status, the outputs when it completed, or what came instead."""

    status: int
    """HTTP status of the POST (200 queued, 503 busy, 413 too large, …)."""
    outputs: list[Any] | None
    """The event's outputs (`event: complete`), None otherwise."""
    detail: str
    """The error or busy text when there are no outputs ("" when complete)."""


def read_event_stream(text: str) -> tuple[str, Any]:
    """The last event of a Gradio event stream and its data: ("complete", outputs), ("error", text), …"""
    event, data = "", None
    for block in text.strip().split("\n\n"):
        name, payload = "", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                payload.append(line[5:].strip())
        if name:
            event, data = name, "\n".join(payload)
    try:
        return event, json.loads(data) if data else None
    except json.JSONDecodeError:
        return event, data


async def call(
    http: httpx.AsyncClient, url: str, endpoint: str, arguments: Sequence[Any], session: str | None = None
) -> Answer:
    """One request through the queue, read to its end; `session`: the user's session hash (a page or a
    gradio_client keeps one for all its requests; without one, Gradio builds a session's state for every request,
    ~15 ms of the server's interpreter here)."""
    api = endpoint.strip("/")
    body: dict[str, Any] = {"data": list(arguments)}
    if session is not None:
        body["session_hash"] = session
    posted = await http.post(f"{url}/gradio_api/call/{api}", json=body)
    if posted.status_code != 200:
        return Answer(posted.status_code, None, posted.text[:200])
    streamed = await http.get(f"{url}/gradio_api/call/{api}/{posted.json()['event_id']}")
    event, data = read_event_stream(streamed.text)
    if event == "complete" and isinstance(data, list):
        return Answer(200, data, "")
    return Answer(200, None, f"{event}: {str(data)[:200]}")


def call_once(url: str, endpoint: str, arguments: Sequence[Any]) -> Answer:
    """`call` from synchronous code (the reference answers, fetched alone before the load)."""

    async def one() -> Answer:
        async with httpx.AsyncClient(timeout=600) as http:
            return await call(http, url, endpoint, arguments)

    return asyncio.run(one())


def run_users(
    url: str,
    users: int,
    per_user: int,
    requests: Sequence[Request],
    record: Callable[[int, float, Answer], None],
    offset: int = 0,
) -> float:
    """`users` users at once, each with a session of its own and sending `per_user` requests one after another
    (user i's j-th request is
    `requests[(offset + 7 i + j) % len(requests)]`, as load_check's gradio_client users); `record(slot, ms,
    answer)` is called for each. Returns the wall seconds."""

    async def user(http: httpx.AsyncClient, index: int) -> None:
        session = secrets.token_hex(8)  # one per user, as a page has one
        for j in range(per_user):
            slot = (offset + index * 7 + j) % len(requests)
            endpoint, arguments, _ = requests[slot]
            start = time.perf_counter()
            try:
                answer = await call(http, url, endpoint, arguments, session)
            except httpx.HTTPError as error:
                answer = Answer(0, None, f"{type(error).__name__}: {error}")
            record(slot, (time.perf_counter() - start) * 1000, answer)

    async def everyone() -> float:
        limits = httpx.Limits(max_connections=users * 2, max_keepalive_connections=users * 2)
        async with httpx.AsyncClient(timeout=600, limits=limits) as http:
            start = time.perf_counter()
            await asyncio.gather(*(user(http, index) for index in range(users)))
            return time.perf_counter() - start

    return asyncio.run(everyone())


@dataclass(frozen=True)
class Sent:
    """One request of a burst: the POST's status and seconds to its answer, and how its event ended."""

    status: int
    seconds: float
    ending: str
    """"complete" for an accepted request answered in full, else the event or the refusal's first words."""


def burst(url: str, count: int, endpoint: str, arguments: Sequence[Any]) -> list[Sent]:
    """`count` requests to `endpoint` sent at once from one event loop, each on a connection opened beforehand (a
    thread per request, as `benchmarks.load_heavy.burst` sends them, counts the client's own threads in each
    answer's time: 150 of them); every accepted one is read to its end."""

    async def send(http: httpx.AsyncClient, start: asyncio.Event) -> Sent:
        api = endpoint.strip("/")
        await start.wait()
        began = time.perf_counter()
        posted = await http.post(f"{url}/gradio_api/call/{api}", json={"data": list(arguments)})
        seconds = time.perf_counter() - began
        if posted.status_code != 200:
            return Sent(posted.status_code, seconds, posted.text[:120])
        streamed = await http.get(f"{url}/gradio_api/call/{api}/{posted.json()['event_id']}")
        event, data = read_event_stream(streamed.text)
        return Sent(200, seconds, "complete" if event == "complete" else f"{event}: {str(data)[:100]}")

    async def everyone() -> list[Sent]:
        clients = [httpx.AsyncClient(timeout=600) for _ in range(count)]
        try:
            await asyncio.gather(*(http.get(f"{url}/robots.txt") for http in clients))  # connections open first
            start = asyncio.Event()
            tasks = [asyncio.create_task(send(http, start)) for http in clients]
            await asyncio.sleep(0.05)
            start.set()
            return list(await asyncio.gather(*tasks))
        finally:
            await asyncio.gather(*(http.aclose() for http in clients))

    return asyncio.run(everyone())


__all__ = ["Answer", "Sent", "burst", "call", "call_once", "read_event_stream", "run_users"]
