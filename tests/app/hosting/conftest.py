"""The hosting tests' app: built and queued once a module, on the tiny models, never launched."""

from __future__ import annotations

import pytest

from tests.app.support import use_tiny_assets


@pytest.fixture(scope="module")
def demo():
    """`bound_queue(build_app())` on the tiny models (tests.app.support)."""
    monkeypatch = pytest.MonkeyPatch()
    use_tiny_assets(monkeypatch)
    from app import bound_queue, build_app

    yield bound_queue(build_app())
    monkeypatch.undo()
