"""The queue's own routes and the probe's reproducers (issue 53, item 3), on the launched app: an envelope naming no
event, NaN in an envelope, streams of unknown ids, the page's internal events called directly and /compute past 64
bits each get a 4xx with one sentence (or their answer), and the server's log holds no traceback."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from app.hosting import envelopes
from app.hosting.door import NO_SUCH_ENDPOINT
from tests.app.support import tiny_assets
from tests.hostile.test_hostile_every_endpoint import tracebacks


@pytest.fixture(scope="module")
def events(url: str, http) -> dict[int, dict[str, Any]]:
    """The app's events by number, as /config lists them."""
    return {dep["id"]: dep for dep in http.get(f"{url}/config").json()["dependencies"]}


@pytest.fixture
def clean_log():
    """Fails the test when the server wrote a traceback while it ran."""
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size
    yield
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        new = handle.read()
    assert "Traceback" not in new, tracebacks(new)


def _post(http, url: str, route: str, body: str) -> tuple[int, str]:
    response = http.post(f"{url}/gradio_api/{route}", content=body, headers={"content-type": "application/json"})
    return response.status_code, response.text


def _envelope(**fields: Any) -> str:
    body = {"data": [], "event_data": None, "fn_index": 0, "session_hash": secrets.token_hex(6), "trigger_id": 1}
    return json.dumps(body | fields)


@pytest.mark.slow
@pytest.mark.parametrize("route", ["queue/join", "cancel", "run/predict"])
@pytest.mark.parametrize(
    "body, status, sentence",
    [
        (_envelope(fn_index=1_000_000), 404, envelopes.NO_SUCH_EVENT),
        (_envelope(fn_index=-1), 404, envelopes.NO_SUCH_EVENT),
        (_envelope(fn_index=10**400), 404, envelopes.NO_SUCH_EVENT),
        (_envelope(fn_index=2.5), 400, envelopes.NOT_AN_INDEX),
        (_envelope(fn_index="3"), 400, envelopes.NOT_AN_INDEX),
        (_envelope(fn_index=True), 400, envelopes.NOT_AN_INDEX),
        (_envelope().replace('"fn_index": 0', '"fn_index": NaN'), 400, envelopes.NOT_FINITE),
        (_envelope().replace('"trigger_id": 1', '"trigger_id": Infinity'), 400, envelopes.NOT_FINITE),
        (_envelope(session_hash=None).replace('"session_hash": null', '"session_hash": -Infinity'), 400, None),
    ],
    ids=["huge", "negative", "400-digit", "fraction", "text", "boolean", "nan", "infinite-trigger", "infinite-session"],
)
def test_an_envelope_that_names_nothing_gets_a_4xx_and_one_sentence(
    url: str, http, clean_log, route: str, body: str, status: int, sentence: str | None
) -> None:
    got, text = _post(http, url, route, body)
    assert got == status, text[:300]
    assert json.loads(text)["detail"] == (sentence or envelopes.NOT_FINITE)


@pytest.mark.slow
def test_events_computed_in_the_page_are_not_reachable_on_the_server(url: str, http, clean_log, events) -> None:
    in_the_page = [number for number, dep in events.items() if not dep.get("backend_fn")]
    assert len(in_the_page) > 20  # the runs' in-page steps, the relabelling
    for number in in_the_page:
        for route in ("run/predict", "queue/join"):
            status, text = _post(http, url, route, _envelope(fn_index=number))
            assert (status, json.loads(text)["detail"]) == (404, envelopes.NO_SUCH_EVENT), (route, number, text)


@pytest.mark.slow
def test_the_unqueued_events_answer_direct_calls_with_a_result_or_a_4xx(url: str, http, clean_log, events) -> None:
    """Gradio answers every exception of a direct call with a 500; a refusal (one sentence) is a 400 here."""
    direct = [number for number, dep in events.items() if dep.get("backend_fn") and not dep.get("queue", True)]
    assert direct, "the example pickers and the word picker run outside the queue"
    for number in direct:
        n = len(events[number]["inputs"])
        for data in ([], [None] * n, ["zz"] * n, [10**400] * n, [-1] * n, [0, "fr"][:n] + [None] * (n - 2)):
            status, text = _post(http, url, "run/predict", _envelope(fn_index=number, data=data))
            assert status in (200, 400, 422), (events[number].get("api_name"), data, status, text[:300])
            if status != 200:
                answer = json.loads(text)
                assert answer.get("detail") or answer.get("error"), text[:300]


@pytest.mark.slow
def test_streams_of_unknown_ids_get_a_404_not_a_cut_stream(url: str, http, clean_log) -> None:
    for path, sentence in (
        ("queue/data?session_hash=abc", envelopes.NO_SUCH_SESSION),
        ("call/fill_mask/abc", envelopes.NO_SUCH_CALL),
        ("call/v2/fill_mask/abc", envelopes.NO_SUCH_CALL),
    ):
        response = http.get(f"{url}/gradio_api/{path}")
        assert (response.status_code, response.json()["detail"]) == (404, sentence), path
    posted = http.post(f"{url}/gradio_api/call/fill_mask", json={"data": ["the [MASK] of it", 5, "", "en", ""]})
    stream = http.get(f"{url}/gradio_api/call/fill_mask/{posted.json()['event_id']}").text
    assert "event: complete" in stream  # a real call's stream is let through
    again = http.get(f"{url}/gradio_api/call/fill_mask/{posted.json()['event_id']}")
    assert again.status_code == 404  # its answer was read


@pytest.mark.slow
def test_compute_past_64_bits_answers_with_floats(url: str, http, clean_log) -> None:
    form = [30000, 4096, 4096, 48, 64, 16384, "all", 1, True, 512, 1_000_000, 512, True, "en"]
    posted = http.post(f"{url}/gradio_api/call/compute", json={"data": form})
    stream = http.get(f"{url}/gradio_api/call/compute/{posted.json()['event_id']}").text
    assert "event: complete" in stream, stream[:300]
    result = json.loads(next(line for line in stream.splitlines() if line.startswith("data:"))[5:])[0]
    assert result["forward_flops_per_batch"] == pytest.approx(1.026195193856e19)
    assert result["batch_size"] == 1_000_000


@pytest.mark.slow
def test_events_computed_in_the_page_cannot_be_called_by_name(url: str, http, clean_log, events) -> None:
    named = [dep["api_name"] for dep in events.values() if not dep.get("backend_fn") and dep.get("api_name")]
    for name in named:
        for route in (f"call/{name}", f"call/v2/{name}", f"run/{name}"):
            response = http.post(f"{url}/gradio_api/{route}", json={"data": []})
            assert response.status_code == 404 and response.json() == {"detail": NO_SUCH_ENDPOINT}, (route, name)
