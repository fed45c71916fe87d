"""Tiny models, a tiny tokenizer and recorded runs for the app tests, built once per test session.

The app finds them through ALBERT_LAB_MODELS / ALBERT_LAB_RUNS, exactly as it finds shipped
models in assets/. Nothing here downloads anything. `tiny_chinese_assets` adds a tiny random
albert-lab-zh and albert-lab-zh-sentiment (a Han-character tokenizer) beside copies of the English ones.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from benchmarks.page_traffic import QueueTraffic, event_ids  # noqa: F401 — the browser tests' names for them

WORDS = (
    "the old sailor walked along the river and remembered the narrow bridge near the quiet village . "
    "my sister painted seventeen lanterns in the garden while the children counted boxes . "
    "a broken clock stood in the market square where the baker sold bread every morning . "
    "she opened the door and walked into the garden , then she sat on the bench ."
).split()
REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
"""Where the browser tests write what a person may look at: measurements (JSON) and, when asked, screenshots."""
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Debian's Chromium and its flags for the browser tests (Playwright drives it; nothing leaves the machine)."""
PHONE_USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile "
    "Safari/537.36"
)
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "user_agent": PHONE_USER_AGENT,
    "is_mobile": True,
    "has_touch": True,
}
"""A browser context's options for a 390 × 844 phone: its screen, a phone's User-Agent (the app lays charts out for a
phone by it, app.page.client.is_phone), touch."""


@dataclass(frozen=True)
class TinyAssets:
    root: Path
    models: Path
    runs: Path
    tokenizer: Path
    sentiment: Path
    """A tiny random AlbertForSequenceClassification (negative/positive), as ALBERT_LAB_SENTIMENT finds it."""


def _corpus(lines: int = 600, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))) for _ in range(lines))


def _train_tokenizer(directory: Path):
    import sentencepiece as spm
    from transformers import AlbertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_corpus().splitlines()),
        model_writer=model,
        model_type="unigram",
        vocab_size=120,
        pad_id=0,
        unk_id=1,
        bos_id=-1,
        eos_id=-1,
        control_symbols=["[CLS]", "[SEP]", "[MASK]"],
        hard_vocab_limit=False,
        minloglevel=2,
    )
    (directory / "spiece.model").write_bytes(model.getvalue())
    tokenizer = AlbertTokenizerFast.from_pretrained(str(directory), model_max_length=64)
    tokenizer.save_pretrained(str(directory))
    return tokenizer


def _write_runs(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    header = "step,tokens,split,loss,mlm_loss,sop_loss,mlm_accuracy,sop_accuracy,lr\n"
    for run, speed in (("albert-lab-base", 1.0), ("albert-lab-none", 1.2)):
        rows = [
            f"{s},{s * 4096},{split},{5 - s / 100},{4 - s / 100},{0.7 - s / 1000},"
            f"{min(0.05 + s / 1000 * speed, 1)},{0.5 + s / 4000},0.001"
            for s in range(0, 401, 100)
            for split in ("train", "valid")
        ]
        (directory / f"{run}.csv").write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    (directory / "summary.csv").write_text(
        "run,sharing,objective,parameters,tokens,mlm_accuracy,order_accuracy,topic_accuracy\n"
        "albert-lab-base,all,sop,12000,1638400,0.18,0.61,0.55\n"
        "albert-lab-none,none,sop,30000,1638400,0.2,0.63,0.52\n"
        "albert-lab-nsp,all,nsp,12000,1638400,0.17,0.52,0.9\n",
        encoding="utf-8",
    )


def save_tiny_classifier(directory: Path, tokenizer, **changes) -> Path:
    """A tiny random negative/positive classifier saved as a `from_pretrained` folder with metrics and a card."""
    from albert import AlbertForSequenceClassification
    from tests.factories import ROUND_FFN, tiny_model

    labels = {"id2label": {"0": "negative", "1": "positive"}, "label2id": {"negative": 0, "positive": 1}}
    sizes = {"vocab_size": len(tokenizer), "intermediate_size": ROUND_FFN, **changes}
    model = tiny_model(AlbertForSequenceClassification, num_labels=2, extra=labels, **sizes)
    model.save_pretrained(directory, tokenizer=tokenizer)
    (directory / "eval_results.json").write_text(
        json.dumps({"task": "classification", "best": {"accuracy": 0.875, "loss": 0.3}}), encoding="utf-8"
    )
    (directory / "README.md").write_text(TINY_CARD.format(folder=directory.resolve().as_posix()), encoding="utf-8")
    return directory


TINY_CARD = """---
language: en
license: apache-2.0
tags: [albert, text-classification, sentiment]
---
# tiny sentiment model

Dev accuracy 87.5%.

| model | accuracy |
|---|---|
| this model | 87.50% |

    python -m scripts.ship_sentiment_model {folder}/run {folder}

<script>document.title = "card script ran"</script>
"""
"""A card laid out as the shipped ones are (front matter, a table, a build command naming the folder it was built
in), with a script that must never run: the served card page is checked against it (tests/app/test_server.py,
tests/hostile/test_hostile_app_server.py)."""


@lru_cache(maxsize=1)
def tiny_assets() -> TinyAssets:
    """Two tiny random models (sharing all / none) with a shared tokenizer, a tiny classifier, recorded runs."""
    from albert import AlbertForPreTraining
    from tests.factories import ROUND_FFN, tiny_model

    root = Path(tempfile.mkdtemp(prefix="albert-lab-app-"))
    atexit.register(shutil.rmtree, root, True)
    tokenizer = _train_tokenizer(root / "tokenizer")
    for name, sharing in (("albert-lab-base", "all"), ("albert-lab-none", "none")):
        sizes = {"vocab_size": len(tokenizer), "intermediate_size": ROUND_FFN}
        model = tiny_model(AlbertForPreTraining, sharing=sharing, **sizes)
        model.save_pretrained(root / "models" / name, tokenizer=tokenizer)
    (root / "models" / "albert-lab-base" / "metrics.json").write_text(
        json.dumps({"mlm_accuracy": 0.18, "order_accuracy": 0.61}), encoding="utf-8"
    )
    _write_runs(root / "runs")
    sentiment = save_tiny_classifier(root / "sentiment" / "albert-lab-sst2", tokenizer)
    return TinyAssets(root, root / "models", root / "runs", root / "tokenizer", sentiment)


SENTENCES_ZH = [
    "我爱自然语言处理。",
    "这部电影很精彩。",
    "今天下了一场大雨。",
    "路上到处都是积水。",
    "孩子们穿着雨靴去上学。",
    "今天天气很好，我们去公园散步吧。",
    "北京是中国的首都。",
    "他每天早上都要喝一杯茶。",
    "他每天都认真学习。",
    "所以这次考试他考得很好。",
    "我们到了车站。",
    "火车已经开走了。",
    "我还想再看一遍。",
    "剧情很无聊，我看到一半就走了。",
    "质量太差了，用了两天就坏了。",
    "这本书写得很感人，值得一读。",
    "2019年发布了ALBERT模型。",
    "the model learns from data and the network reads every token。",
    "python server memory paper vision learning hello world。",
    "我国经济持续快速发展。",
    "我们要努力学习。",
    "建设有中国特色社会主义。",
    "贝宁将始终是中国可信赖的朋友。",
    "大雪下了一夜。",
    "第二天早上，地上全是白的。",
    "天气越来越冷了。",
    "人们都穿上了厚衣服。",
    "去年粮食获得了大丰收。",
    "农民的收入增加了。",
    "非常好的一本书，推荐大家购买。",
    "物流很快，包装也很好。",
    "一点也不难看。",
]
"""The Chinese tokenizer's corpus: every character of the app's Chinese examples, some digits and Latin words."""


@dataclass(frozen=True)
class ChineseAssets:
    models: Path
    """The tiny English models (copies) and a tiny random albert-lab-zh, as ALBERT_LAB_MODELS finds them."""
    sentiment: Path
    """A tiny random albert-lab-zh-sentiment, as ALBERT_LAB_SENTIMENT_ZH finds it."""
    tokenizer: Any
    """The Han-character tokenizer both Chinese models use."""


def tiny_chinese_assets(root: Path) -> ChineseAssets:
    """Under `root`: a models folder with the tiny English models and a tiny random albert-lab-zh (a character
    tokenizer trained on SENTENCES_ZH), and a tiny random Chinese classifier."""
    from albert import AlbertForPreTraining
    from albert.data.tokenizer import train_tokenizer
    from app.models import ZH_MODEL
    from app.models.classifiers import ZH_SENTIMENT_MODEL
    from tests.factories import ROUND_FFN, tiny_model

    english = tiny_assets()
    for name in ("albert-lab-base", "albert-lab-none"):
        shutil.copytree(english.models / name, root / "models" / name)
    rng = random.Random(0)
    documents = ["\n".join("".join(rng.sample(SENTENCES_ZH, 3)) for _ in range(3)) for _ in range(40)]
    corpus = root / "zh.txt"
    corpus.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    distinct = len({c for c in "".join(SENTENCES_ZH) if not c.isascii()})
    tokenizer = train_tokenizer([corpus], root / "tokenizer", vocab_size=distinct + 48, han_characters=True)
    model = tiny_model(AlbertForPreTraining, vocab_size=len(tokenizer), sharing="all", intermediate_size=ROUND_FFN)
    model.save_pretrained(root / "models" / ZH_MODEL, tokenizer=tokenizer)
    sentiment = save_tiny_classifier(root / "sentiment" / ZH_SENTIMENT_MODEL, tokenizer)
    return ChineseAssets(root / "models", sentiment, tokenizer)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


NO_CHINESE_SENTIMENT = Path(tempfile.gettempdir()) / "albert-lab-tests-no-chinese-sentiment"
"""A folder that holds no model: where the tiny world's Chinese sentiment model is looked for."""


def use_tiny_assets(monkeypatch, assets: TinyAssets | None = None) -> TinyAssets:
    """Point the app at the tiny models, runs and sentiment model (as the server's environment does)."""
    assets = assets or tiny_assets()
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(assets.models))
    monkeypatch.setenv("ALBERT_LAB_RUNS", str(assets.runs))
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT", str(assets.sentiment))
    # the tiny world has no Chinese sentiment model: never the shipped one (tiny_chinese_assets makes one)
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT_ZH", str(NO_CHINESE_SENTIMENT))
    return assets


def app_env(
    assets: TinyAssets, port: int, chinese: ChineseAssets | None = None, warm_training: bool = False
) -> dict[str, str]:
    """Environment for `python app.py` serving the tiny models on loopback, offline; with `chinese`, the models
    folder that holds albert-lab-zh and the Chinese sentiment model too. Without `warm_training` no training arm
    process waits started ahead (`ALBERT_LAB_WARM_TRAINING=0`): two interpreters importing torch, ~10 s of CPU per
    server, that only the training tests use."""
    extra = {"ALBERT_LAB_SENTIMENT_ZH": str(NO_CHINESE_SENTIMENT if chinese is None else chinese.sentiment)}
    return {
        **os.environ,
        "ALBERT_LAB_MODELS": str(assets.models if chinese is None else chinese.models),
        "ALBERT_LAB_RUNS": str(assets.runs),
        "ALBERT_LAB_SENTIMENT": str(assets.sentiment),
        **extra,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "TOKENIZERS_PARALLELISM": "false",
        "ALBERT_LAB_WARM_TRAINING": "1" if warm_training else "0",
    }


def wait_for_page(url: str, process: subprocess.Popen, timeout: float = 120.0) -> float:
    """Seconds until `url` answers 200; raises with the server's log if it dies or never answers."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with code {process.returncode} before serving {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return time.perf_counter() - start
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the app did not serve {url} within {timeout:.0f} s")


@dataclass
class AppServer:
    """`python app.py` serving on loopback; `stop()` ends it (and may be called more than once)."""

    url: str
    process: subprocess.Popen
    log: IO[str] = field(repr=False)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def start_app(
    log_path: Path, chinese: ChineseAssets | None = None, timeout: float = 600.0, warm_training: bool = False
) -> AppServer:
    """`python app.py` on the tiny models (and `chinese`'s, when given) on a free loopback port, once it serves
    (within `timeout` seconds: on a loaded 2-core machine, at nice 19, importing torch and Gradio alone takes
    minutes); `warm_training`: see `app_env`."""
    port = free_port()
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 — closed by AppServer.stop
    process = subprocess.Popen(
        [sys.executable, "app.py"],
        cwd=REPO,
        env=app_env(tiny_assets(), port, chinese, warm_training),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = AppServer(f"http://127.0.0.1:{port}/", process, log)
    try:
        wait_for_page(server.url, process, timeout)
    except RuntimeError as error:
        server.stop()
        raise RuntimeError(f"{error}\n{log_path.read_text(encoding='utf-8')[-3000:]}") from None
    return server


@lru_cache(maxsize=1)
def running_app() -> str:
    """`python app.py` started once per test process on a free loopback port, its training arms not started ahead
    (`app_env`); its URL. The lesson tests start a warm server of their own
    (tests/app/tabs/training/test_training_browser.py)."""
    server = start_app(tiny_assets().root / "server.log")
    atexit.register(server.stop)
    return server.url


def chromium_keeping_its_nice(directory: Path, chromium: Path = CHROMIUM) -> Path:
    """Chromium raises its own processes' priority when it may (as root: the renderer to nice 0, the browser and
    GPU processes to -8), above the training jobs this machine runs; started without CAP_SYS_NICE it cannot, and
    keeps the nice its test runs at. Returns a launcher script in `directory` (or `chromium` itself when not root)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return chromium
    script = directory / "chromium"
    script.write_text(f'#!/bin/sh\nexec {setpriv} --inh-caps=-sys_nice --bounding-set=-sys_nice {chromium} "$@"\n')
    script.chmod(0o755)
    return script


SCREENSHOTS = "LAB_SCREENSHOTS"
"""`LAB_SCREENSHOTS=1` makes the browser tests save what they look at (`screenshot`) to test-artifacts/."""


def screenshots_wanted() -> bool:
    """Whether this run saves the browser tests' screenshots (`LAB_SCREENSHOTS=1`)."""
    return os.environ.get(SCREENSHOTS) == "1"


def screenshot(page: Any, name: str, full_page: bool = False) -> None:
    """Save what `page` shows to test-artifacts/`name`.png for a person to look at, when `LAB_SCREENSHOTS=1`; no test
    reads them. Off otherwise: each costs Chromium 1–2 s of CPU (a whole desktop page 2.2 s, measured), and the ~60 the
    browser tests take cost the 2-core CI machine about a tenth of the suite's CPU."""
    if screenshots_wanted():
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def switch_language(page: Any, name: str, timeout_ms: float = 90_000) -> None:
    """Click `name` ("中文" or "English") in the page's language switch and wait until the page has drawn its charts,
    tables and examples in it: the labels change at once in the browser, the rest comes from the server after
    (`<html data-lab-drawn>`, app/layout.py). Nothing to wait for when the page is already in that language."""
    code = "zh" if name == "中文" else "en"
    checked = page.locator("#language input:checked")
    if checked.count() and checked.first.evaluate("box => box.closest('label').textContent").strip() == name:
        return
    page.locator("#language label").filter(has_text=name).click()
    page.wait_for_function(f"() => document.documentElement.dataset.labDrawn === '{code}'", timeout=timeout_ms)


def replace_view(monkeypatch: Any, module: Any, endpoint: str, wrap: Any) -> None:
    """Run the endpoint `module.<endpoint>` (a tab's declared `Endpoint`) through `wrap(view)` in apps built from now
    on (a gate that holds it, a counter): the tab's `build` reads the module's endpoint when it wires it."""
    from dataclasses import replace

    declared = getattr(module, endpoint)
    # the stand-in keeps the declared parameters (a wrapper taking *args has none of its own)
    monkeypatch.setattr(module, endpoint, replace(declared, view=wrap(declared.view), parameters=declared.takes))


LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
"""The hosts a browser test's page may reach: the page needs nothing outside this machine."""


def keep_to_loopback(context: Any, outside: list[str]) -> None:
    """Route every request of the Playwright `context`: loopback hosts and data:, blob:, about: URLs go through; any
    other is refused and its URL appended to `outside` (the network is cut, as a classroom's may be)."""
    from urllib.parse import urlparse

    def only_loopback(route: Any) -> None:
        target = urlparse(route.request.url)
        if target.scheme in ("data", "blob", "about") or target.hostname in LOOPBACK:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", only_loopback)


def arm_processes(parent: int) -> dict[int, str]:
    """The arm processes (`child.py`) whose parent is `parent`, read from /proc: {pid: state}, zombies included."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = dict(line.split(":\t", 1) for line in (entry / "status").read_text().splitlines() if ":\t" in line)
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended while being read
            continue
        if int(status["PPid"]) == parent and any(part.endswith(b"training/child.py") for part in command):
            found[int(entry.name)] = status["State"].split()[0]
    return found
