"""Masked-word answers per second: ALBERT Lab's /fill_mask beside the textbook Gradio fill-mask demo, in one run
(issue 53).

    python benchmarks/serving_vs_peer.py                 # 32 users × 10 requests, 3 rounds each, alternating
    python benchmarks/serving_vs_peer.py --users 64 --rounds 1

The peer (`benchmarks.peer_fill_mask`) is `gr.Interface` over transformers' `pipeline("fill-mask")` with a
`gr.Label` and the default queue, on the same model folder as the app's default (`albert-lab-e128-gpu`). Each user
has a session of its own and sends its requests back to back through `/gradio_api/call/<api>` (the lean client of
`benchmarks.http_load`); the texts are the masked-words tab's examples, the same for both. The two servers run side
by side and their rounds alternate (peer, app, peer, app …), so a slow minute of the machine falls on both. Printed:
requests/s, p50 and p95 per round, the failures, and the app's rate over the peer's.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import REPO, AppServer, choose_models, free_port, percentile  # noqa: E402
from benchmarks.http_load import Answer, run_users  # noqa: E402

logger = logging.getLogger("benchmarks.serving_vs_peer")
MODEL = "albert-lab-e128-gpu"


@dataclass(frozen=True)
class Round:
    """One round of load on one server."""

    server: str
    requests_per_s: float
    p50_ms: float
    p95_ms: float
    failed: int
    cpu_ms: float
    """The server process's CPU time (user + system, all threads) per request."""


class PeerServer:
    """`python -m benchmarks.peer_fill_mask` on a free loopback port."""

    def __init__(self, model: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
        command = [sys.executable, "-m", "benchmarks.peer_fill_mask", "--model", str(model), "--port", str(self.port)]
        self.process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.perf_counter() + 180
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the peer exited with code {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the peer did not start within 180 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)


def masked_texts() -> list[str]:
    from app.page.examples import mask_texts

    return [text for text in mask_texts("en") if "[MASK]" in text]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_round(server: str, url: str, pid: int, requests: list, users: int, per_user: int) -> Round:
    """`users` users × `per_user` requests on one server (process `pid`); every answer must be complete."""
    latencies: list[float] = []
    failed = 0

    def record(slot: int, ms: float, answer: Answer) -> None:
        nonlocal failed
        latencies.append(ms)
        failed += answer.outputs is None

    cpu = cpu_seconds(pid)
    seconds = run_users(url, users, per_user, requests, record)
    cpu_ms = (cpu_seconds(pid) - cpu) * 1000 / (users * per_user)
    return Round(
        server, users * per_user / seconds, percentile(latencies, 50), percentile(latencies, 95), failed, cpu_ms
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--per-user", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    models = choose_models()
    texts = masked_texts()
    peer_requests = [("/predict", (text,), "peer") for text in texts]
    app_requests = [("/fill_mask", (text, 5, MODEL, "en", ""), "app") for text in texts]
    peer = PeerServer(models.directory / MODEL)
    try:
        with AppServer(models) as app:
            url = app.url.rstrip("/")
            servers = [("peer", peer.url, peer.process.pid, peer_requests)]
            servers.append(("ALBERT Lab /fill_mask", url, app.process.pid, app_requests))
            for server in servers:
                load_round(*server, 4, 3)  # warm: the first answers load models and caches
            rounds = [load_round(*server, args.users, args.per_user) for _ in range(args.rounds) for server in servers]
    finally:
        peer.stop()
    logger.info(
        "%d users × %d masked-word requests, %d rounds each (model %s)", args.users, args.per_user, args.rounds, MODEL
    )
    logger.info("| server | requests/s | p50 | p95 | failed | server CPU per request |")
    logger.info("|---|---|---|---|---|---|")
    for r in rounds:
        logger.info(
            "| %s | %.1f | %.0f ms | %.0f ms | %d | %.1f ms |",
            r.server,
            r.requests_per_s,
            r.p50_ms,
            r.p95_ms,
            r.failed,
            r.cpu_ms,
        )
    ratios = [app.requests_per_s / peer.requests_per_s for peer, app in zip(rounds[::2], rounds[1::2], strict=True)]
    logger.info("ALBERT Lab's rate over the peer's, per round: %s", ", ".join(f"{r:.2f}×" for r in ratios))


if __name__ == "__main__":
    main()
