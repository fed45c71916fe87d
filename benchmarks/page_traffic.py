"""What a page sends to Gradio's queue, watched from Playwright: the events it queued and whether it has gone quiet.
Shared by the browser tests (tests.app.support) and benchmarks/language_switch.py."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any


def event_ids(url: str, suffix: str) -> dict[int, str]:
    """The served page's events whose api_name ends with `suffix`, by the fn_index the page sends (from /config)."""
    with urllib.request.urlopen(url + "config", timeout=30) as response:
        config = json.load(response)
    return {d["id"]: d["api_name"] for d in config["dependencies"] if (d.get("api_name") or "").endswith(suffix)}


class QueueTraffic:
    """The page's requests to Gradio's queue (joins, and the result streams open while events are pending)."""

    def __init__(self, page: Any, timeout: float = 60.0) -> None:
        self.open: set[Any] = set()
        self.last = time.monotonic()
        self.timeout = timeout
        self.joins: list[tuple[float, Any]] = []
        """(when, fn_index) of each event the page queued, for a report when the page never goes quiet."""
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Any) -> None:
        if "/queue/" in request.url:
            self.open.add(request)
            self.last = time.monotonic()
            if "/queue/join" in request.url:
                try:
                    self.joins.append((self.last, json.loads(request.post_data or "{}").get("fn_index")))
                except ValueError:
                    self.joins.append((self.last, None))

    def _ended(self, request: Any) -> None:
        if request in self.open:
            self.open.discard(request)
            self.last = time.monotonic()

    def wait_quiet(self, page: Any, seconds: float = 2.0) -> None:
        """Until no queue request has been open for `seconds`: every queued step of the page has answered."""
        if not self.settle(page, self.timeout, seconds):
            raise AssertionError(f"queue requests still open after {self.timeout:.0f} s: {self.report(page)}")

    def settle(self, page: Any, at_most: float, seconds: float = 2.0) -> bool:
        """As `wait_quiet`, but for at most `at_most` seconds; returns whether the page went quiet. The guide walk
        paces itself with it, checking what the page shows after: a session's result stream has stayed open for
        minutes after the page's figures came (docs/usage/testing.md)."""
        deadline = time.monotonic() + at_most
        while self.open or time.monotonic() - self.last < seconds:
            if time.monotonic() >= deadline:
                return False
            page.wait_for_timeout(250)
        return True

    def report(self, page: Any) -> str:
        """What is open, and the events queued in the last wait (seconds ago, api name)."""
        try:
            names: dict[Any, str] = event_ids(page.url.split("?")[0].rstrip("/") + "/", "")
        except OSError:
            names = {}
        now = time.monotonic()
        window = self.timeout + 30
        recent = [(round(now - when, 1), names.get(fn, fn)) for when, fn in self.joins if now - when < window]
        return f"open {sorted(request.url for request in self.open)}; queued since the wait began: {recent[-30:]}"
