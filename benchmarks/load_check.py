"""Load check of the app: 32 concurrent gradio_client clients × 20 requests across the endpoints, then 40
clients on /attention, then more requests up to 1,000, one in `--abandon-every` of these abandoned (sent over
HTTP and never read; by default one in four, docs/usage/hosting.md's memory run used 3), with every answer checked and
the server's memory watched.

    python benchmarks/load_check.py                  # 32 × 20, 40 × 5 /attention, then up to 1,000 requests
    python benchmarks/load_check.py --clients 8 --per-client 5 --total 200   # a quick look
    python benchmarks/load_check.py --repo ../before     # the same load on another copy of the project
    python benchmarks/load_check.py --heavy              # then 3 heaviest /measure_speed + 32 mixed clients

`python app.py` runs on a free loopback port (shipped models, or the labelled stand-in of
benchmarks/app_server.py). Each request's answer is compared with a reference answer fetched
alone before the load starts (same input → same JSON, probabilities within 1e-5). Passes when
every request is answered correctly, the server's RSS grew by less than 50 MB between the
warm-up and the 1,000th request, and it stayed flat (less than 15 MB) over the second half of the
requests that come after the attention phase (run in `--rounds` rounds, RSS read after each, once the
abandoned answers of that round had time to be dropped). Exit code 1 otherwise.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models, percentile  # noqa: E402

logger = logging.getLogger("benchmarks.load_check")
TEXTS = [
    "The old sailor walked along the [MASK] near the village.",
    "She opened the [MASK] and walked in.",
    "It was the best of times, it was the [MASK] of times.",
    "He took off his [MASK] and sat down.",
]
# (endpoint, arguments, which part of the answer must match the reference)
REQUESTS: list[tuple[str, tuple, str]] = [
    ("/parameters", (30000, 128, 768, 12, 12, 3072, "all", 1, True, 512, "en"), "json"),
    ("/fill_mask", (TEXTS[0], 5, "", "en"), "json"),
    ("/sentence_order", ("She bought a ticket at the station.", "Then she boarded the train.", "", "en", ""), "json"),
    ("/fill_mask", (TEXTS[1], 5, "", "zh"), "json"),
    ("/parameters", (30000, 64, 768, 12, 12, 3072, "none", 12, True, 512, "zh"), "json"),
    ("/attention", ("The cat sat on the mat because it was tired.", "", 1, 32, "", "", "en"), "attention"),
    ("/fill_mask", (TEXTS[2], 3, "", "en"), "json"),
    ("/layer_transitions", ("The old sailor remembered the bridge.", "", "", "en"), "json"),
    ("/preset", ("albert-xxlarge", "en"), "preset"),
    ("/fill_mask", (TEXTS[3], 5, "", "en"), "json"),
    ("/sharing_modes", ("albert-large", "en"), "json"),
    ("/mask_word", ("the old sailor walked home", 2, 5, "", "en"), "mask_word"),
    ("/split_paragraph", ("The village woke early. Smoke rose from the chimneys.", 1, "", "en", ""), "split"),
    ("/fill_mask", ("[MASK] " * 50, 5, "", "en"), "json"),  # refused with a message: also an answer to check
]


def _key(endpoint: str, kind: str, answer: Any) -> Any:
    """The part of an answer that must equal the reference."""
    if kind == "json":
        return answer[0]
    if kind == "attention":
        return {k: answer[0][k] for k in ("tokens", "layers", "heads", "pass_to_pass_similarity")}
    if kind == "preset":
        return answer[:10], answer[10]
    if kind == "mask_word":
        return answer[0], answer[1]
    return answer[0], answer[1], answer[2]


def _close(a: Any, b: Any) -> bool:
    """Equal, with floats allowed 1e-5 apart (thread scheduling may change the last bits)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.failures: list[str] = []
        self.done = 0

    def add(self, endpoint: str, ms: float, failure: str | None) -> None:
        with self.lock:
            self.latencies[endpoint].append(ms)
            self.done += 1
            if failure:
                self.failures.append(failure)


def connect(url: str, count: int) -> list:
    from gradio_client import Client

    return [Client(url, verbose=False, analytics_enabled=False, httpx_kwargs={"timeout": 600}) for _ in range(count)]


def timed_request(client: Any, request: tuple[str, tuple, str], reference: Any, recorder: Recorder) -> None:
    """One request, timed and checked against its reference answer; a failure of any kind is recorded."""
    endpoint, arguments, kind = request
    start = time.perf_counter()
    failure = None
    try:
        answer = client.predict(*arguments, api_name=endpoint)
        if not _close(_key(endpoint, kind, answer), reference):
            failure = f"{endpoint}: answer differs from the reference"
    except Exception as error:  # any failure counts; the report lists them
        failure = f"{endpoint}: {type(error).__name__}: {error}"
    recorder.add(endpoint, (time.perf_counter() - start) * 1000, failure)


def run_clients(
    clients: list, per_client: int, references: dict[int, Any], recorder: Recorder, offset: int = 0
) -> float:
    """The clients in parallel, `per_client` requests each (cycling through REQUESTS); returns wall seconds."""

    def work(index: int) -> None:
        client = clients[index]
        for j in range(per_client):
            slot = (offset + index * 7 + j) % len(REQUESTS)
            timed_request(client, REQUESTS[slot], references[slot], recorder)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        list(pool.map(work, range(len(clients))))
    return time.perf_counter() - start


def run_attention(clients: list, per_client: int, reference: Any, recorder: Recorder) -> float:
    """Every client sends `per_client` /attention requests at once; returns wall seconds."""
    slot = next(i for i, (endpoint, _, _) in enumerate(REQUESTS) if endpoint == "/attention")

    def work(index: int) -> None:
        for _ in range(per_client):
            timed_request(clients[index], REQUESTS[slot], reference, recorder)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        list(pool.map(work, range(len(clients))))
    return time.perf_counter() - start


def abandon(url: str, count: int, interval: float = 0.1) -> int:
    """`count` requests sent over Gradio's HTTP API, one every `interval` seconds (a steady trickle, as users
    closing their tab), whose results are never read; returns how many the queue took."""
    import httpx

    taken = 0
    with httpx.Client(timeout=30) as http:
        for i in range(count):
            time.sleep(interval)
            endpoint, arguments, _ = REQUESTS[(i * 5) % len(REQUESTS)]
            response = http.post(
                f"{url.rstrip('/')}/gradio_api/call/{endpoint.lstrip('/')}", json={"data": list(arguments)}
            )
            taken += response.status_code == 200
    return taken


CLIENT_KINDS = {
    "http": "users of one asyncio HTTP client (benchmarks/http_load.py)",
    "gradio": "gradio_client clients (one thread each)",
}


def http_users(url: str, users: int, per_user: int, recorder: Recorder, offset: int) -> Callable[[], float]:
    """The mixed users over Gradio's HTTP API from one event loop (`benchmarks.http_load`), each answer checked
    against a reference fetched the same way, alone, first."""
    from benchmarks import http_load

    references = {}
    for slot, (endpoint, arguments, kind) in enumerate(REQUESTS):
        answer = http_load.call_once(url, endpoint, arguments)
        if answer.outputs is None:
            raise RuntimeError(f"{endpoint} alone did not answer: {answer.status} {answer.detail}")
        references[slot] = _key(endpoint, kind, answer.outputs)

    def record(slot: int, ms: float, answer: http_load.Answer) -> None:
        endpoint, _, kind = REQUESTS[slot]
        if answer.outputs is None:
            failure = f"{endpoint}: {answer.status} {answer.detail}"
        elif not _close(_key(endpoint, kind, answer.outputs), references[slot]):
            failure = f"{endpoint}: answer differs from the reference"
        else:
            failure = None
        recorder.add(endpoint, ms, failure)

    return lambda: http_load.run_users(url, users, per_user, REQUESTS, record, offset)


def heavy_phase(url: str, clients: list, references: dict[int, Any], args: Any) -> tuple[list[str], bool]:
    """The mixed clients while three clients measure the heaviest /measure_speed, then a burst of /attention:
    report lines (each with the load average beside it) and whether the targets of issue 35 held."""
    from benchmarks import load_heavy

    recorder = Recorder()
    load_before = os.getloadavg()[0]
    if args.heavy_client == "http":
        users = http_users(url.rstrip("/"), len(clients), args.heavy_per_client, recorder, offset=3)
    else:
        users = lambda: run_clients(clients, args.heavy_per_client, references, recorder, offset=3)  # noqa: E731
    measured, wall = load_heavy.with_heavy_measurements(url.rstrip("/"), users)
    load_after = os.getloadavg()[0]
    mixed = [ms for values in recorder.latencies.values() for ms in values]
    fill = recorder.latencies.get("/fill_mask", [])
    burst = load_heavy.burst(url.rstrip("/"), args.burst)
    load_burst = os.getloadavg()[0]
    p95_fill, p95_mixed = percentile(fill, 95), percentile(mixed, 95)
    busy_max = max(burst.busy_seconds) if burst.busy_seconds else float("nan")
    lines = [
        f"  heavy and light together: 3 clients send the heaviest /measure_speed (V 256,000, H 768, L 12, T 512) "
        f"again and again while {len(clients)} {CLIENT_KINDS[args.heavy_client]} send {recorder.done} mixed "
        f"requests in {wall:.1f} s "
        f"(load average {load_before:.1f} before, {load_after:.1f} after; {os.cpu_count()} cores)",
        f"    /fill_mask: {len(fill)} requests, p50 {percentile(fill, 50):.0f} ms, p95 {p95_fill:.0f} ms "
        f"(target ≤ 1000 ms)",
        f"    all mixed: p50 {percentile(mixed, 50):.0f} ms, p95 {p95_mixed:.0f} ms, max {max(mixed):.0f} ms "
        f"(target p95 ≤ 3000 ms); wrong or failed: {len(recorder.failures)}",
        f"    /measure_speed: {len(measured.answered)} answered "
        f"(p50 {percentile([s * 1e3 for s in measured.answered], 50) / 1e3:.1f} s), {len(measured.busy)} told "
        f"to retry by the measure group's busy answer "
        f"(p95 {percentile([s * 1e3 for s in measured.busy], 95):.0f} ms); failures {len(measured.failures)}",
        f"  burst: {burst.sent} /attention at once: {burst.accepted} queued ({burst.answered} answered), "
        f"{len(burst.busy_seconds)} busy answers in p50 {percentile([s * 1e3 for s in burst.busy_seconds], 50):.0f} "
        f"ms, max {busy_max * 1e3:.0f} ms (target ≤ 1000 ms); other: {len(burst.other)} "
        f"(load average {load_burst:.1f})",
    ]
    lines += [f"    {failure}" for failure in (recorder.failures + measured.failures + burst.other)[:10]]
    ok = (
        not recorder.failures
        and not measured.failures
        and not burst.other
        and bool(burst.busy_seconds)
        and p95_fill <= 1000
        and p95_mixed <= 3000
        and busy_max <= 1.0
    )
    lines.append(f"  heavy-and-light targets: {'met' if ok else 'NOT met'}")
    return lines, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--per-client", type=int, default=20)
    parser.add_argument("--total", type=int, default=1000, help="requests in all, for the memory check")
    parser.add_argument("--max-growth-mb", type=float, default=50.0)
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="the requests after the attention phase run in this many rounds, RSS read after each",
    )
    parser.add_argument(
        "--max-late-growth-mb",
        type=float,
        default=15.0,
        help="limit on RSS growth over the second half of those rounds (flat memory)",
    )
    parser.add_argument("--attention-clients", type=int, default=40)
    parser.add_argument("--attention-per-client", type=int, default=5)
    parser.add_argument(
        "--abandon-every",
        type=int,
        default=4,
        help="in the run up to --total, one request in this many is abandoned (0: none)",
    )
    parser.add_argument("--abandon-interval", type=float, default=0.15, help="seconds between abandoned requests")
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds to wait before the last memory reading (the app drops unread answers "
        "after 30–60 s: 65 shows them gone)",
    )
    parser.add_argument("--repo", type=Path, default=None, help="serve this copy of the project instead")
    parser.add_argument("--server-log", type=Path, default=None, help="write the server's log here")
    parser.add_argument("--workers", type=int, default=None, help="ALBERT_LAB_MODEL_WORKERS for the server")
    parser.add_argument(
        "--heavy",
        action="store_true",
        help="after the memory check: the mixed clients again while 3 clients send the heaviest /measure_speed, "
        "then a burst of /attention past the heavy group's waiting line (benchmarks/load_heavy.py)",
    )
    parser.add_argument("--heavy-per-client", type=int, default=10, help="requests per mixed client in that phase")
    parser.add_argument(
        "--heavy-client",
        choices=sorted(CLIENT_KINDS),
        default="http",
        help="who sends that phase's mixed requests: one asyncio HTTP client (default; the load generator's own "
        "CPU stays small) or a gradio_client per user (issue 35's first figures; 100-150%% of 2 cores itself)",
    )
    parser.add_argument("--burst", type=int, default=60, help="/attention requests sent at once in that phase")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    models = choose_models()
    logger.info("serving: %s", models.label)
    from gradio_client import Client

    env = {"ALBERT_LAB_MODEL_WORKERS": str(args.workers)} if args.workers else {}
    with AppServer(models, log_path=args.server_log, repo=args.repo, env=env) as server:
        reference_client = Client(server.url, verbose=False, analytics_enabled=False)
        references = {}
        for slot, (endpoint, arguments, kind) in enumerate(REQUESTS):  # alone: the answers to expect
            references[slot] = _key(endpoint, kind, reference_client.predict(*arguments, api_name=endpoint))
        reference_client.close()
        rss_before_sessions = server.rss_mb()
        clients = connect(server.url, args.clients)
        # Warm-up: every client sends every kind of request once. Gradio keeps, per session, the values
        # its components last showed; after this each session holds its full share, and the worker
        # threads and their allocator arenas exist. The memory check starts from that steady state.
        warm = Recorder()
        run_clients(clients, len(REQUESTS), references, warm)
        if warm.failures:
            logger.warning("warm-up failures: %s", warm.failures[:3])
        rss_start = server.rss_mb()
        peak = [rss_start]
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.5):
                peak[0] = max(peak[0], server.rss_mb())

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        recorder = Recorder()
        wall = run_clients(clients, args.per_client, references, recorder, offset=5)
        load_latencies = [ms for values in recorder.latencies.values() for ms in values]
        load_done, load_failures = recorder.done, len(recorder.failures)
        rss_after_load = server.rss_mb()
        attention = Recorder()
        attention_clients = connect(server.url, args.attention_clients)
        attention_wall = run_attention(attention_clients, args.attention_per_client, references[5], attention)
        for client in attention_clients:
            client.close()
        remaining = max(args.total - recorder.done - attention.done, 0)
        abandoned = remaining // args.abandon_every if args.abandon_every else 0
        rounds = max(1, min(args.rounds, remaining)) if remaining else 0
        abandoned_taken: list[int] = []
        round_rss = [server.rss_mb()]
        for number in range(rounds):  # the same clients (sessions) go on up to `total` requests, some abandoned
            share = abandoned // rounds + (number < abandoned % rounds)
            thrower = threading.Thread(
                target=lambda share=share: abandoned_taken.append(abandon(server.url, share, args.abandon_interval))
            )
            thrower.start()
            run_clients(
                clients,
                math.ceil((remaining - abandoned) / len(clients) / rounds),
                references,
                recorder,
                offset=9 + number,
            )
            thrower.join()
            time.sleep(args.settle)  # the abandoned requests finish computing (and their answers are dropped)
            round_rss.append(server.rss_mb())
        if not rounds:
            time.sleep(args.settle)
        stop.set()
        watcher.join()
        rss_end = server.rss_mb()
        heavy_lines, heavy_ok = heavy_phase(server.url, clients, references, args) if args.heavy else ([], True)
        for client in clients:
            client.close()

    growth = rss_end - rss_start
    late_growth = round_rss[-1] - round_rss[len(round_rss) // 2]  # over the second half of the rounds
    attention_ms = attention.latencies.get("/attention", [])
    taken = sum(abandoned_taken)
    lines = [
        "ALBERT Lab load check",
        f"  serving: {models.label}",
        f"  load: {args.clients} concurrent gradio_client clients × {args.per_client} requests = {load_done} requests "
        f"in {wall:.1f} s ({load_done / wall:.1f} requests/s); wrong or failed: {load_failures}",
        f"  latency under load (queue included): p50 {percentile(load_latencies, 50):.0f} ms, "
        f"p95 {percentile(load_latencies, 95):.0f} ms, max {max(load_latencies):.0f} ms",
    ]
    for endpoint, values in sorted(recorder.latencies.items()):
        lines.append(
            f"    {endpoint:<20} {len(values):4d} requests, p50 {percentile(values, 50):6.0f} ms, "
            f"p95 {percentile(values, 95):6.0f} ms"
        )
    lines += [
        f"  /attention alone: {args.attention_clients} concurrent clients × {args.attention_per_client} = "
        f"{attention.done} requests in {attention_wall:.1f} s; p50 {percentile(attention_ms, 50):.0f} ms, "
        f"p95 {percentile(attention_ms, 95):.0f} ms; wrong or failed: {len(attention.failures)}",
        f"  abandoned: {taken} of {abandoned} requests sent over HTTP were queued and never read",
        f"  server: {args.repo or 'this checkout'}, model workers {args.workers or 'default'}; "
        f"load average {os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} cores)",
        f"  memory: RSS {rss_before_sessions:.0f} MB before the {args.clients} sessions, {rss_start:.0f} MB after "
        f"their warm-up ({warm.done} requests, every kind once per session): "
        f"{(rss_start - rss_before_sessions) / args.clients:.1f} MB per session, which Gradio keeps while "
        f"the session lives",
        f"  over the next {recorder.done + attention.done + taken} requests ({taken} abandoned): "
        f"{rss_start:.0f} MB → {rss_after_load:.0f} MB after the mixed load → {rss_end:.0f} MB at the end "
        f"(peak {peak[0]:.0f} MB); growth {growth:+.1f} MB "
        f"(limit {args.max_growth_mb:.0f} MB)",
        f"  after the attention phase, RSS after each of {rounds} rounds: "
        f"{' → '.join(f'{value:.0f}' for value in round_rss)} MB; over the second half {late_growth:+.1f} MB "
        f"(limit {args.max_late_growth_mb:.0f} MB: flat)",
        f"  all answered correctly: {'yes' if not recorder.failures and not attention.failures else 'NO'}",
    ]
    lines += [f"    {failure}" for failure in (recorder.failures + attention.failures)[:10]]
    ok = (
        not recorder.failures
        and not attention.failures
        and growth < args.max_growth_mb
        and late_growth < args.max_late_growth_mb
    )
    lines += heavy_lines
    ok = ok and heavy_ok
    lines.append(f"  result: {'PASS' if ok else 'FAIL'}")
    print("\n".join(lines))  # the benchmark's report
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
