"""App latency: p50/p95 of /fill_mask and /attention through gradio_client, and `python app.py` start-up time.

    python benchmarks/app_latency.py                 # 50 × /fill_mask, 20 × /attention, 3 start-ups
    python benchmarks/app_latency.py --requests 100 --startups 5

Runs on the default shipped model; with none shipped yet it measures a clearly labelled
random-weight stand-in of the planned shape (see benchmarks/app_server.py). Targets: /fill_mask
p50 ≤ 100 ms for a 20-token sentence; start-up (process start to first served page) ≤ 10 s.
Each endpoint is timed end to end over Gradio's plain HTTP API (request → queue → model → JSON →
response) and through gradio_client (which adds its own overhead), and the function alone is
timed in-process, to show where the time goes.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models, percentile, sentence_of_tokens  # noqa: E402

logger = logging.getLogger("benchmarks.app_latency")
ATTENTION_TEXT = "The old sailor walked along the river and remembered the narrow bridge near the village."


def _timed(fn, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _rest(url: str, endpoint: str, data: list) -> Callable[[], str]:
    """One call of Gradio's plain HTTP API (POST /gradio_api/call/NAME, then read the result stream)."""
    import httpx

    http = httpx.Client(timeout=120)
    base = url.rstrip("/") + "/gradio_api/call/" + endpoint.lstrip("/")

    def call() -> str:
        event_id = http.post(base, json={"data": data}).json()["event_id"]
        answer = http.get(f"{base}/{event_id}").text
        if "event: complete" not in answer or '"error"' in answer[:300]:
            raise RuntimeError(f"{endpoint} did not answer as expected: {answer[:300]}")
        return answer

    return call


def _measure_http(url: str, text: str, requests: int) -> tuple[list[float], list[float]]:
    """Milliseconds of /fill_mask and /attention through the plain HTTP API, after a warm-up."""
    fill = _rest(url, "fill_mask", [text, 5, "", "en"])
    attention = _rest(url, "attention", [ATTENTION_TEXT, "", 1, 48, "", "", "en"])
    for _ in range(3):
        fill(), attention()
    return _timed(fill, requests), _timed(attention, max(requests * 2 // 5, 5))


def _measure_endpoints(url: str, text: str, requests: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `requests` /fill_mask calls and 2/5 as many /attention calls, after a warm-up."""
    from gradio_client import Client

    client = Client(url, verbose=False, analytics_enabled=False)
    for _ in range(3):  # warm-up: model load, first-call allocations
        for answer in (
            client.predict(text, 5, "", "en", api_name="/fill_mask"),
            client.predict(ATTENTION_TEXT, "", 1, 48, "", "", "en", api_name="/attention"),
        ):
            if "error" in answer[0]:
                raise RuntimeError(f"the app answered with an error: {answer[0]['error']}")
    fill = _timed(lambda: client.predict(text, 5, "", "en", api_name="/fill_mask"), requests)
    attention = _timed(
        lambda: client.predict(ATTENTION_TEXT, "", 1, 48, "", "", "en", api_name="/attention"),
        max(requests * 2 // 5, 5),
    )
    client.close()
    return fill, attention


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=50, help="timed /fill_mask calls (attention: 2/5 of it)")
    parser.add_argument("--startups", type=int, default=3, help="times `python app.py` is started and timed")
    parser.add_argument("--tokens", type=int, default=20, help="length of the /fill_mask sentence in tokens")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    models = choose_models()
    logger.info("measuring: %s", models.label)

    os.environ["ALBERT_LAB_MODELS"] = str(models.directory)
    from app import models as app_models
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view

    app_models.configure_torch_threads()  # as app.py does
    lm = app_models.load("")
    text = sentence_of_tokens(lm.tokenizer, args.tokens)
    n_tokens = len(lm.tokenizer(text)["input_ids"])
    for answer in (fill_mask_view(text, 5, "", "en"), attention_view(ATTENTION_TEXT, "", 1, 48, "", "", "en")):
        if "error" in answer[0]:
            raise RuntimeError(f"the app answered with an error: {answer[0]['error']}")
    in_process = _timed(lambda: fill_mask_view(text, 5, "", "en"), args.requests)
    attention_view(ATTENTION_TEXT, "", 1, 48, "", "", "en")
    in_process_attention = _timed(
        lambda: attention_view(ATTENTION_TEXT, "", 1, 48, "", "", "en"), max(args.requests * 2 // 5, 5)
    )

    startups = []
    for i in range(args.startups):
        with AppServer(models) as server:
            startups.append(server.startup_s)
            logger.info("start-up %d: %.2f s", i + 1, server.startup_s)
            if i == args.startups - 1:
                http_fill, http_attention = _measure_http(server.url, text, args.requests)
                fill, attention = _measure_endpoints(server.url, text, args.requests)

    lines = [
        "ALBERT Lab app latency",
        f"  model: {models.label}",
        f"  machine: {os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f} at the end",
        f"  /fill_mask ({n_tokens} tokens, top-5) over HTTP, {len(http_fill)} calls: "
        f"p50 {percentile(http_fill, 50):.1f} ms, p95 {percentile(http_fill, 95):.1f} ms (target p50 ≤ 100 ms)",
        f"      through gradio_client: p50 {percentile(fill, 50):.1f} ms, p95 {percentile(fill, 95):.1f} ms",
        f"      the function alone, in process: p50 {percentile(in_process, 50):.1f} ms, "
        f"p95 {percentile(in_process, 95):.1f} ms",
        f"  /attention (≤ 48 tokens: head and model view, heatmaps, not-shared twin when shipped) over HTTP, "
        f"{len(http_attention)} calls: p50 {percentile(http_attention, 50):.1f} ms, "
        f"p95 {percentile(http_attention, 95):.1f} ms",
        f"      through gradio_client: p50 {percentile(attention, 50):.1f} ms, p95 {percentile(attention, 95):.1f} ms",
        f"      the function alone, in process: p50 {percentile(in_process_attention, 50):.1f} ms, "
        f"p95 {percentile(in_process_attention, 95):.1f} ms",
        f"  start-up, `python app.py` to first served page, {len(startups)} runs: "
        f"median {statistics.median(startups):.2f} s, min {min(startups):.2f} s, max {max(startups):.2f} s "
        f"(target ≤ 10 s)",
    ]
    print("\n".join(lines))  # the benchmark's report


if __name__ == "__main__":
    main()
