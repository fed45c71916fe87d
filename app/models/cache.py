"""The one cache of loaded models: pretraining models for the model tabs, the sentiment classifiers, the multi-task
model. Each is loaded once and kept, the least recently used dropped past `CAPACITY`; one lock per key, so a slow
load (a hub download) never holds up requests for models already in memory, and two requests for the same model wait
for one load."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")
CAPACITY = 10
"""Models kept at once: the order tab holds an SOP model and an NSP arm per language, two hub ALBERTs online, and the
two sentiment classifiers (each a few MB here; a hub ALBERT-base about 50 MB)."""

_kept: OrderedDict[Hashable, Any] = OrderedDict()
_lock = threading.Lock()
_loading: dict[Hashable, threading.Lock] = {}


def cached(key: Hashable, build: Callable[[], T]) -> T:
    """The model kept under `key`, built by `build()` the first time (an exception is raised, nothing kept)."""
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
        loading = _loading.setdefault(key, threading.Lock())
    with loading:  # a second request for the same model waits for the first one's load
        try:
            with _lock:
                if key in _kept:
                    return _kept[key]
            built = build()
            with _lock:
                _kept[key] = built
                while len(_kept) > CAPACITY:
                    _kept.popitem(last=False)
            return built
        finally:
            with _lock:  # every name ever typed must not keep a lock: the next load makes a new one
                _loading.pop(key, None)


def forget(matching: Callable[[Hashable], bool] = lambda key: True) -> int:
    """Drop the kept models whose key matches (all by default); returns how many were dropped."""
    with _lock:
        dropped = [key for key in _kept if matching(key)]
        for key in dropped:
            del _kept[key]
    return len(dropped)


def kept_keys() -> list[Hashable]:
    """The keys kept, least recently used first."""
    with _lock:
        return list(_kept)
