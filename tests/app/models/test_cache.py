"""The app's one model cache (`app.models.cache`): each model loaded once, the least recently used dropped first,
one load for two requests of the same model, a failed load never kept."""

from __future__ import annotations

import threading
import time

import pytest

from app.models import cache


@pytest.fixture(autouse=True)
def empty_cache():
    cache.forget()
    yield
    cache.forget()


def test_a_model_is_built_once_and_the_least_recently_used_goes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "CAPACITY", 2)
    builds: list[str] = []

    def build(name: str):
        return lambda: builds.append(name) or name.upper()

    assert cache.cached(("m", "a"), build("a")) == "A" and cache.cached(("m", "a"), build("a")) == "A"
    cache.cached(("m", "b"), build("b"))
    cache.cached(("m", "a"), build("a"))  # a is now the most recently used
    cache.cached(("m", "c"), build("c"))  # b goes
    assert builds == ["a", "b", "c"] and cache.kept_keys() == [("m", "a"), ("m", "c")]


def test_two_requests_for_one_model_wait_for_one_load() -> None:
    builds: list[int] = []

    def slow() -> str:
        builds.append(1)
        time.sleep(0.2)
        return "model"

    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(cache.cached("slow", slow))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["model"] * 3 and builds == [1]


def test_a_failed_load_is_not_kept_and_forget_drops_what_matches() -> None:
    def broken() -> str:
        raise ValueError("no such model")

    with pytest.raises(ValueError):
        cache.cached("broken", broken)
    assert cache.cached("broken", lambda: "fixed") == "fixed"
    cache.cached(("classifier", "x", 1.0), lambda: "old")
    assert cache.forget(lambda key: isinstance(key, tuple) and key[0] == "classifier") == 1
    assert cache.kept_keys() == ["broken"]
