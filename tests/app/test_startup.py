"""Start-up: `python app.py` serves its page before importing torch, then a warm-up thread loads the models."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from app import models
from tests.app.support import REPO, app_env, arm_processes, free_port, start_app, tiny_assets, use_tiny_assets

BUILD_AND_LIST_IMPORTS = """
import json, sys
from app import build_app
build_app()
print(json.dumps(sorted(m for m in ("torch", "transformers") if m in sys.modules)))
"""


WARM_UP_BESIDE_A_REQUEST = """
import json, threading
from app import build_app
from app import models
from app.tabs.sentiment import classifier as sentiment
build_app()
failures, start = [], threading.Barrier(2)
def warm_up():
    start.wait()
    if not models.warm_up():
        failures.append("warm-up loaded nothing")
def first_request():
    start.wait()
    try:
        sentiment.load_classifier("en")
    except Exception as error:
        failures.append(repr(error))
threads = [threading.Thread(target=warm_up), threading.Thread(target=first_request)]
[thread.start() for thread in threads]
[thread.join() for thread in threads]
print(json.dumps(failures))
"""


def _run_in_a_fresh_process(script: str) -> list:
    """The script's last printed line (JSON), run with nothing imported yet and the tiny models as the app's."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=app_env(tiny_assets(), free_port()),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_building_the_app_imports_neither_torch_nor_transformers() -> None:
    assert _run_in_a_fresh_process(BUILD_AND_LIST_IMPORTS) == []


@pytest.mark.slow
def test_the_warm_up_and_a_first_request_load_their_models_at_once() -> None:
    """Both import torch and transformers for the first time, in two threads; both must get their model. Once: without
    `albert.data.tokenizer`'s lock this failed 6 runs of 6 (4 December 2026; 2 of 3 when it was found), and each run is
    a fresh interpreter importing Gradio, torch and transformers (~7.5 s of CPU), so three were 15 s of CPU more."""
    assert _run_in_a_fresh_process(WARM_UP_BESIDE_A_REQUEST) == []


def test_warm_up_loads_the_shipped_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    use_tiny_assets(monkeypatch)
    models.cache.forget()
    loads: list[str] = []
    real = models.load_uncached

    def counted(kind: str, location: str, lang: str):
        loads.append(location)
        return real(kind, location, lang)

    monkeypatch.setattr(models, "load_uncached", counted)
    names = models.warm_up()
    assert names == [models.language_models()["en"]] and len(loads) == 1
    assert models.load("").name == names[0] and len(loads) == 1  # the first request finds it loaded


@pytest.mark.slow
def test_a_measurement_process_imports_neither_gradio_nor_torch_before_its_call() -> None:
    """/measure_speed's child process (`app.child`) unpickles `app.tabs.parameters.costs.measure`: importing both
    took 4.4 s of CPU when `import app` imported the page (Gradio) for every app module; now it is the call's own
    torch alone."""
    script = (
        "import json, sys; import app.child, app.tabs.parameters.costs; "
        "print(json.dumps(sorted(m for m in ('gradio', 'torch', 'transformers', 'app.layout') if m in sys.modules)))"
    )
    assert _run_in_a_fresh_process(script) == []


@pytest.mark.slow
def test_the_served_app_loads_its_model_after_serving_and_before_any_request(tmp_path) -> None:
    log_path = tmp_path / "server.log"
    server = start_app(log_path)
    try:
        deadline = time.monotonic() + 300
        frozen = "objects of the started app are no longer scanned"
        while frozen not in log_path.read_text(encoding="utf-8") and time.monotonic() < deadline:
            time.sleep(0.5)
        log = log_path.read_text(encoding="utf-8")
        arms = arm_processes(server.process.pid)  # started without warm training (`start_app`'s default): none
    finally:
        server.stop()
    assert "ALBERT_LAB_WARM_TRAINING=0: no arm process waits" in log and not arms, arms
    assert "loaded shipped model" in log, log[-2000:]
    assert log.index("Running on local URL") < log.index("torch uses 1 thread(s)") < log.index("loaded shipped model")
    # then, models loaded, the app's long-lived objects leave the collector's sight (a full collection paused the
    # server ~215 ms, issue 53)
    assert log.index("loaded shipped model") < log.index(frozen)
    assert int(re.search(r"(\d+) " + frozen, log).group(1)) > 100_000
