"""The lesson endpoints on the launched app (`running_app`, shared with the other server tests), through
gradio_client: a recorded run, a ticket that trains, a second one that waits in line, and Stop for both."""

from __future__ import annotations

import time

import pytest

from tests.app.support import running_app

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client():
    from gradio_client import Client

    return Client(running_app(), verbose=False, analytics_enabled=False)


@pytest.fixture(scope="module")
def classmate():
    """A second person: a client of its own, so a session of its own (a session holds one ticket, issue 53)."""
    from gradio_client import Client

    return Client(running_app(), verbose=False, analytics_enabled=False)


def test_recorded_start_wait_in_line_and_stop(client, classmate) -> None:
    raw, status, *_ = client.predict("order-ordinals", "en", api_name="/train_recorded")
    assert raw["recorded"] and raw["rows"]["sop"] and status.startswith("ℹ️ A recorded run")
    first, status, *_, ticket, _ = client.predict("sharing", "", "en", api_name="/train_start")
    assert first["state"] == "running" and ticket and status.startswith("⏳ Starting: the two models are loading")
    second, status, *_, other, _ = classmate.predict("order-books", "", "zh", api_name="/train_start")
    assert second["state"] == "waiting" and second["position"] == 1 and "排在第 **1** 位，大约 6" in status  # 60 s
    assert second["recorded"] and second["rows"]["sop"]  # the recorded run meanwhile
    time.sleep(1.0)
    polled, *_ = client.predict(ticket, "sharing", "en", api_name="/train_poll")
    assert polled["state"] == "running" and polled["elapsed_seconds"] >= 1.0
    stopped, status, *_ = client.predict(ticket, "sharing", "en", api_name="/train_stop")
    assert stopped["state"] == "stopped" and status.startswith("⏹️ Stopped after")
    moved, *_ = classmate.predict(other, "order-books", "en", api_name="/train_poll")
    assert moved["state"] == "running"  # next in line
    ended, *_ = classmate.predict(other, "order-books", "en", api_name="/train_stop")
    assert ended["state"] == "stopped"
    refused, status, *_ = client.predict("nope", "", "en", api_name="/train_start")
    assert refused == {"error": "Unknown lesson; the lessons are: sharing, embedding, order-ordinals, order-books."}
