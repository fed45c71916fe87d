"""Shared by the app benchmarks: which models to serve, starting `python app.py`, memory and percentiles.

When no model is shipped yet (assets/models/ empty), the benchmarks build a clearly labelled
stand-in: random weights in the shape planned for `albert-lab-base` (V 8000, E 128, H 128,
2 heads, FFN 512, 6 shared passes, 128 positions) with a small SentencePiece tokenizer trained
by `albert.data.tokenizer.train_tokenizer` on made-up text. Its speed is that of the real shape;
its predictions mean nothing.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
logger = logging.getLogger("benchmarks.app")
STAND_IN_SIZES = dict(
    vocab_size=8000,
    embedding_size=128,
    hidden_size=128,
    num_attention_heads=2,
    intermediate_size=512,
    num_hidden_layers=6,
    max_position_embeddings=128,
)


@dataclass
class Models:
    directory: Path
    runs: Path
    label: str
    """What is being measured, for the report (says 'stand-in' when no model is shipped)."""


def choose_models() -> Models:
    """The shipped models when there are any, else a random-weight stand-in of the planned default's shape."""
    sys.path.insert(0, str(REPO))
    from app.models import models_dir, shipped_models

    shipped = shipped_models()
    if shipped:
        return Models(models_dir(), REPO / "assets" / "runs", f"shipped model {shipped[0]}")
    root = Path(tempfile.mkdtemp(prefix="albert-lab-bench-"))
    build_stand_in(root / "models" / "stand-in-albert-lab-base")
    label = (
        "STAND-IN (no shipped model yet): random weights, shape of the planned albert-lab-base "
        "(V 8000, E 128, H 128, 2 heads, FFN 512, 6 shared passes)"
    )
    return Models(root / "models", root / "runs", label)


def build_stand_in(directory: Path) -> None:
    import torch

    from albert import AlbertConfig, AlbertForPreTraining
    from albert.data.tokenizer import train_tokenizer

    rng = random.Random(0)
    syllables = [a + b for a in "bdfgklmnprstvz" for b in "aeiou"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(4000)]
    corpus = directory.parent / "corpus.txt"
    corpus.parent.mkdir(parents=True, exist_ok=True)
    corpus.write_text(
        "\n".join(" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(20000)), encoding="utf-8"
    )
    tokenizer = train_tokenizer([corpus], directory.parent / "tokenizer", vocab_size=2000)
    torch.manual_seed(0)
    model = AlbertForPreTraining(AlbertConfig(**STAND_IN_SIZES))
    model.save_pretrained(directory, tokenizer=tokenizer)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppServer:
    """`python app.py` on a free loopback port; `startup_s` is the time until it served its page."""

    def __init__(
        self, models: Models, log_path: Path | None = None, repo: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {
            **os.environ,
            "ALBERT_LAB_MODELS": str(models.directory),
            "ALBERT_LAB_RUNS": str(models.runs),
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(self.port),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "TOKENIZERS_PARALLELISM": "false",
            **(env or {}),
        }
        self.log = open(log_path or os.devnull, "w", encoding="utf-8")  # noqa: SIM115 — closed in stop()
        start = time.perf_counter()
        # `repo`: serve another copy of the project (e.g. an older commit, for before/after figures).
        self.process = subprocess.Popen(
            [sys.executable, "app.py"], cwd=repo or REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.startup_s = self._wait(start)

    def _wait(self, start: float, timeout: float = 180.0) -> float:
        while time.perf_counter() - start < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"python app.py exited with code {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        response.read()
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"python app.py did not serve {self.url} within {timeout:.0f} s")

    def rss_mb(self) -> float:
        """Resident memory of the server process (Linux /proc), in MB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS in /proc status")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100), linear interpolation, as numpy's default."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def sentence_of_tokens(tokenizer, count: int) -> str:
    """A sentence with one [MASK] that tokenizes to exactly `count` ids ([CLS] and [SEP] included)."""
    words = (
        "the old sailor walked along the river and remembered the narrow bridge near the quiet "
        "village where the baker sold bread every morning before the market opened"
    ).split()
    for n in range(1, len(words) + 1):
        text = " ".join(words[: n // 2] + ["[MASK]"] + words[n // 2 : n])
        if len(tokenizer(text)["input_ids"]) >= count:
            return text
    return " ".join(words) + " [MASK]"
