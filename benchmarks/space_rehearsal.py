"""A Space rehearsal, offline: the deploy's file set in an empty folder, served as a Space serves it, timed.

    python -m benchmarks.space_rehearsal --work DIR              # a fresh venv from requirements.txt, both runs
    python -m benchmarks.space_rehearsal --work DIR --tiny --python "$(command -v python)"   # the suite's cheap one

1. `scripts.deploy_space.space_files()` (what `--dry-run` lists) is copied to DIR/space, an empty folder.
2. A fresh virtual environment gets `requirements.txt` alone (`--python` skips this and uses that interpreter).
3. `python app.py` runs there with Spaces' environment: SYSTEM=spaces, SPACE_ID, GRADIO_SERVER_NAME=0.0.0.0, port
   7860 (`--port` to change it), the hub switched off (this machine has no network) and a cache of its own:
   (a) an empty Hugging Face cache: the Space is "online" by SYSTEM, its fetch of the real ALBERTs fails at once and
       the shipped models answer, saying so;
   (b) a cache holding albert/albert-base-v2 and uer/albert-base-chinese-cluecorpussmall laid out as the hub's files
       (`benchmarks.hub_layouts`, full size unless `--tiny`): they answer Masked words and Attention once loaded.
   Each run times `/` (the page), the first `/fill_mask`, `/attention` and `/sentence_order` answers, and in (b) the
   start until a hub model answers; the figures go to DIR/rehearsal.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.hub_layouts import FULL, GOOGLE_ID, TINY, UER_ID, write_google_albert, write_uer_albert
from scripts.deploy_space import space_files

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[1]
SPACE_ENV = {
    "SYSTEM": "spaces",
    "SPACE_ID": "rehearsal/albert-lab",
    "GRADIO_SERVER_NAME": "0.0.0.0",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}
EN = "The capital of France is [MASK]."
ZH = "中国的首都是北[MASK]。"


@dataclass
class Run:
    """One start of the app and its first answers (seconds from the process's start, or per request)."""

    name: str
    page_s: float = 0.0
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    hub_ready_s: dict[str, float | None] | None = None
    """Per language, seconds from the start until the real ALBERT answered an automatic /fill_mask."""
    rss_mb: float | None = None
    """The server's resident memory after the answers (Linux), MB."""


def copy_space(target: Path) -> int:
    """The dry run's file set copied into an empty `target`; returns the bytes copied."""
    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"space_rehearsal: {target} is not empty; give an empty or new folder.")
    total = 0
    for item in space_files():
        destination = target / item.path
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / item.path, destination)
        total += item.size
    return total


def fresh_venv(folder: Path, space: Path) -> tuple[str, float]:
    """A new virtual environment with requirements.txt alone; (its python, seconds the install took)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "-r", str(space / "requirements.txt")], check=True)
    return python, time.perf_counter() - started


def wait_for_page(url: str, process: subprocess.Popen, started: float, timeout: float) -> float:
    while time.perf_counter() - started < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return time.perf_counter() - started
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the app did not serve {url} within {timeout:.0f} s")


def _timed(client: Any, api: str, *inputs: Any) -> tuple[float, dict[str, Any], str]:
    started = time.perf_counter()
    result, status, *_ = client.predict(*inputs, api_name=api)
    return time.perf_counter() - started, result, str(status)


CALLS: dict[str, tuple[str, tuple[Any, ...]]] = {
    # docs/usage/api.md's parameters, in order; "" is the automatic model
    "fill_mask": ("/fill_mask", (EN, 5, "", "en")),
    "fill_mask_zh": ("/fill_mask", (ZH, 5, "", "zh")),
    "attention": ("/attention", ("The cat sat on the mat.", "", 1, 48, "", "", "en")),
    "sentence_order": ("/sentence_order", ("She bought a ticket.", "Then she boarded the train.", "", "en", "")),
}


def ask(client: Any) -> dict[str, dict[str, Any]]:
    """The first answers of the three model endpoints: seconds, the model that answered, any refusal."""
    answers = {}
    for name, (api, inputs) in CALLS.items():
        seconds, result, status = _timed(client, api, *inputs)
        automatic = next((line for line in status.splitlines() if "Automatic" in line or "自动" in line), "")
        masks = result.get("masks") or [{}]
        answers[name] = {
            "seconds": round(seconds, 2),
            "model": result.get("model"),
            "error": result.get("error"),
            "top": (masks[0].get("top") or [{}])[0].get("token"),
            "automatic_line": automatic.strip("ℹ️ ").strip()[:240],
        }
    return answers


def wait_for_hub_models(client: Any, started: float, timeout: float) -> dict[str, float | None]:
    """Seconds from the start until /fill_mask's automatic answer comes from the real ALBERT, per language."""
    ready: dict[str, float | None] = {}
    for lang, text, hub_id in (("en", EN, GOOGLE_ID), ("zh", ZH, UER_ID)):
        ready[lang] = None
        while time.perf_counter() - started < timeout:
            result, *_ = client.predict(text, 1, "", lang, api_name="/fill_mask")
            if result.get("model") == hub_id:
                ready[lang] = round(time.perf_counter() - started, 2)
                break
            time.sleep(0.5)
    return ready


def resident_mb(pid: int) -> float | None:
    """The resident memory of process `pid` in MB (VmRSS in /proc; None elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return None
    line = next((line for line in status.splitlines() if line.startswith("VmRSS:")), "")
    return round(int(line.split()[1]) / 1024, 1) if line else None


def serve(name: str, python: str, space: Path, env: dict[str, str], port: int, log: Path, hub: bool) -> Run:
    """Start `python app.py` in `space` with `env`, time the page and the first answers, stop it."""
    from gradio_client import Client

    run = Run(name)
    started = time.perf_counter()
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen([python, "app.py"], cwd=space, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/"
            run.page_s = round(wait_for_page(url, process, started, 900), 2)
            client = Client(url, verbose=False)
            if hub:
                run.hub_ready_s = wait_for_hub_models(client, started, 900)
            run.answers = ask(client)
            run.rss_mb = resident_mb(process.pid)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return run


def rehearse(work: Path, python: str | None, tiny: bool, port: int, warm_training: bool = True) -> dict[str, Any]:
    """Copy the Space into `work`, serve it twice (empty cache, hub-layout cache) and report; `warm_training=False`
    starts no training arm ahead (`ALBERT_LAB_WARM_TRAINING=0`: the suite's cheap rehearsal, which trains nothing)."""
    space = work / "space"
    space.mkdir(parents=True, exist_ok=True)
    copied = copy_space(space)
    install_s = None
    if python is None:
        python, install_s = fresh_venv(work / "venv", space)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "ALBERT_LAB_", "GRADIO_", "PYTHON"))}
    env |= SPACE_ENV | {"GRADIO_SERVER_PORT": str(port), "HF_HOME": str(work / "hf-empty")}
    env |= {} if warm_training else {"ALBERT_LAB_WARM_TRAINING": "0"}
    offline = serve("a: empty cache", python, space, env, port, work / "a.log", hub=False)
    cache = work / "hf-cache"
    sizes = TINY if tiny else FULL
    write_google_albert(cache, sizes)
    write_uer_albert(cache, sizes)
    cached = serve("b: hub-layout cache", python, space, env | {"HF_HUB_CACHE": str(cache)}, port, work / "b.log", True)
    report = {
        "files": len(space_files()),
        "bytes": copied,
        "venv_install_s": None if install_s is None else round(install_s, 1),
        "sizes": "tiny" if tiny else "full",
        "runs": [asdict(offline), asdict(cached)],
    }
    (work / "rehearsal.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="an empty or new folder for the copy, venv, caches")
    parser.add_argument("--python", default=None, help="serve with this interpreter instead of a fresh venv")
    parser.add_argument("--tiny", action="store_true", help="tiny hub-layout checkpoints instead of full size")
    parser.add_argument("--port", type=int, default=7860, help="the port the Space serves on")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    report = rehearse(args.work, args.python, args.tiny, args.port)
    logger.info("%s", json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
