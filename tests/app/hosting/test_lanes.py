"""app/hosting/lanes.py and app/child.py (issue 35): heavy events on threads of their own at a lower CPU
priority, /measure_speed in a child process at nice 19, and what the app does when that child dies."""

from __future__ import annotations

import contextvars
import inspect
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from app import hosting
from app.child import ChildProcessEnded, run_in_child
from app.hosting import lanes

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's")


@linux_only
def test_lowering_a_thread_leaves_the_others_at_their_priority() -> None:
    before = lanes.thread_niceness()
    seen: dict[str, int] = {}

    def lowered() -> None:
        seen["lowered"] = lanes.lower_this_thread(5)
        seen["niceness"] = lanes.thread_niceness()

    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join()
    assert seen == {"lowered": True, "niceness": min(before + 5, 19)}
    assert lanes.thread_niceness() == before  # the caller's thread is untouched


REQUEST = contextvars.ContextVar("request", default="none")


def _answer(a: int, b: int = 2, *, lang: str = "en") -> tuple:
    """A stand-in event: what it was given, its thread, its niceness and the request's context variable."""
    if a < 0:
        raise ValueError("a must not be negative")
    return a, b, lang, threading.current_thread().name, lanes.thread_niceness(), REQUEST.get()


@linux_only
def test_an_event_on_a_lane_runs_there_lowered_with_its_context_signature_and_errors() -> None:
    wrapped = lanes.in_lane(_answer, "test-lane", workers=1, nice=3)
    assert inspect.signature(wrapped) == inspect.signature(_answer)  # Gradio reads it on every call
    assert wrapped.lane == "test-lane"
    REQUEST.set("request 7")
    a, b, lang, thread, niceness, request = wrapped(1, lang="zh")
    assert (a, b, lang, request) == (1, 2, "zh", "request 7")
    assert thread.startswith("albert-lab-test-lane") and thread != threading.current_thread().name
    assert niceness == min(lanes.thread_niceness() + 3, 19)
    with pytest.raises(ValueError, match="must not be negative"):
        wrapped(-1)
    assert wrapped(4)[0] == 4  # the lane goes on after an error


def test_heavy_events_run_on_their_lane_once_and_the_others_do_not(monkeypatch) -> None:
    from tests.app.support import use_tiny_assets

    use_tiny_assets(monkeypatch)
    from app import bound_queue, build_app

    demo = bound_queue(build_app())
    hosting.isolate(demo)  # a second time: nothing is wrapped again
    by_name = {fn.api_name: fn for fn in demo.fns.values() if fn.queue}
    for name in ("attention", "layer_transitions"):
        fn = by_name[name].fn
        assert getattr(fn, "lane", None) == "heavy" and "lab_wrappers" not in vars(fn), name
        assert getattr(fn.__wrapped__, "lane", None) == "heavy"  # the check first, then the lane
        assert getattr(fn.__wrapped__.__wrapped__, "lane", None) is None  # then the view
    for name in ("fill_mask", "sentence_order", "parameters", "measure_speed", "sentiment"):
        assert getattr(by_name[name].fn, "lane", None) is None, name


@pytest.mark.slow
def test_a_call_in_a_child_answers_raises_and_runs_at_the_lowest_priority() -> None:
    assert run_in_child(os.getpriority, os.PRIO_PROCESS, 0) == min(os.getpriority(os.PRIO_PROCESS, 0) + 19, 19)
    assert run_in_child(sorted, [3, 1, 2], nice=0) == [1, 2, 3]
    with pytest.raises(ValueError, match="invalid literal"):
        run_in_child(int, "not a number")


@pytest.mark.slow
def test_a_child_that_dies_or_hangs_is_reported_not_waited_for() -> None:
    with pytest.raises(ChildProcessEnded, match="exit code 3"):
        run_in_child(os._exit, 3)
    start = time.perf_counter()
    with pytest.raises(ChildProcessEnded, match="no answer within 1 s"):
        run_in_child(time.sleep, 30, timeout=1.0)
    assert time.perf_counter() - start < 15


def _children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is `pid`, read from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@linux_only
@pytest.mark.slow
def test_a_child_ends_with_the_server_that_started_it() -> None:
    """A server killed during a measurement took its child with it (issue 43: the child computed on for minutes)."""
    import signal
    import subprocess

    from app.child import REPO_ROOT

    call = "import time; from app.child import run_in_child; run_in_child(time.sleep, 600)"
    server = subprocess.Popen([sys.executable, "-c", call], cwd=REPO_ROOT)
    try:
        deadline = time.monotonic() + 120
        while not (children := _children(server.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert children, "the child never started"
        time.sleep(15)  # the child has imported what it needs and asked to end with its parent (a few seconds)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in children), "the child outlived its server"
    finally:
        if server.poll() is None:
            server.kill()


# ----- /measure_speed and its child -------------------------------------------------------------------
SMALL = (30000, 128, 256, 4, 4, 1024, "all", 1, True, 512, 128)


def test_measure_speed_times_in_a_child_and_says_so_when_the_child_dies(monkeypatch) -> None:
    from app.tabs.parameters import costs

    calls = []

    def child_that_died(fn, *args):
        calls.append((fn, args))
        raise ChildProcessEnded("exit code -9")

    monkeypatch.setattr(costs, "run_in_child", child_that_died)
    for lang, words in (("en", "stopped before it finished"), ("zh", "测量未完成")):
        result, message, markdown, _ = costs.measure_view(*SMALL, lang)
        assert words in result["error"] and message.startswith("⚠️") and words in message and markdown == ""
    fn, (config, tokens, lang) = calls[0]
    assert fn is costs.measure and config.hidden_size == 256 and tokens == 128 and lang == "en"


def test_a_form_too_large_to_measure_is_refused_before_any_child_starts(monkeypatch) -> None:
    from app.tabs.parameters import costs

    monkeypatch.setattr(costs, "run_in_child", lambda *_: pytest.fail("a child was started for a refused form"))
    result, message, _, _ = costs.measure_view(256_000, 128, 768, 48, 12, 3072, "all", 1, True, 512, 512, "en")
    assert "beyond the 150.0M" in result["error"] and message.startswith("⚠️")


@pytest.mark.slow
def test_measure_speed_answers_through_its_child(monkeypatch) -> None:
    from app.tabs.parameters import costs

    result, message, markdown, _ = costs.measure_view(30000, 128, 128, 2, 2, 512, "all", 1, True, 512, 32, "en")
    assert result["tokens"] == 32 and {row["sharing"] for row in result["modes"]} == {"all", "attention", "ffn", "none"}
    assert "| sharing |" in markdown
