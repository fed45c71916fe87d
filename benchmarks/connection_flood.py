"""Half-sent requests against the launched app (issue 53, item 2): `--sockets` connections each send half a request
head and then nothing; meanwhile a new visitor asks for the page. Printed: the visitor's time to its answer, and how
long the server took to close the half-sent connections.

    python benchmarks/connection_flood.py                    # 2,000 sockets, python app.py on a free port
    python benchmarks/connection_flood.py --sockets 20000    # past the cap: the oldest idle ones are closed

Targets (issue 53): the visitor answered in ≤ 2 s beside 2,000 such sockets; each closed by the server within 30 s
(`app.hosting.connections.HEAD_SECONDS` is 10 s).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models  # noqa: E402

logger = logging.getLogger("benchmarks.connection_flood")
HALF_HEAD = b"GET / HTTP/1.1\r\nHost: albert-lab\r\nUser-Agent: half"
"""A request head without its end: the server waits for the rest."""


@dataclass(frozen=True)
class Flood:
    opened: int
    """Half-sent connections the server accepted."""
    visitor_s: float
    """Seconds from the visitor's connect to its whole answer, with the half-sent ones open."""
    visitor_status: int
    closed_by_server: int
    """Half-sent connections the server closed before `wait_s` ran out."""
    last_closed_s: float
    """Seconds from the flood's last connection to the last close seen (of those closed)."""


async def visit(host: str, port: int) -> tuple[int, float]:
    """One GET of the page on a new connection: (HTTP status, seconds to the whole answer)."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    answer = await reader.read()
    writer.close()
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, time.perf_counter() - started


async def flood(host: str, port: int, sockets: int, wait_s: float) -> Flood:
    """Open `sockets` half-sent connections, visit once, then wait up to `wait_s` for the server to close them."""
    connections = []
    for _ in range(sockets):
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            break
        writer.write(HALF_HEAD)
        connections.append((reader, writer))
    flooded = time.perf_counter()
    status, visitor_s = await visit(host, port)

    async def closed(reader: asyncio.StreamReader) -> float | None:
        try:
            await asyncio.wait_for(reader.read(), max(wait_s - (time.perf_counter() - flooded), 0.1))
            return time.perf_counter() - flooded
        except (TimeoutError, OSError):
            return None

    ends = await asyncio.gather(*(closed(reader) for reader, _ in connections))
    for _, writer in connections:
        writer.close()
    seen = [end for end in ends if end is not None]
    return Flood(len(connections), visitor_s, status, len(seen), max(seen, default=float("nan")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--wait", type=float, default=40.0, help="seconds to wait for the server's closes")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this client holds the sockets too
    with AppServer(choose_models()) as app:
        host, port = "127.0.0.1", app.port
        result = asyncio.run(flood(host, port, args.sockets, args.wait))
    logger.info(
        "%d half-sent connections: a new visitor answered %d in %.2f s; the server closed %d of them, the last %.1f s "
        "after the flood",
        result.opened,
        result.visitor_status,
        result.visitor_s,
        result.closed_by_server,
        result.last_closed_s,
    )


if __name__ == "__main__":
    main()
