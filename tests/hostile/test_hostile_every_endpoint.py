"""Every endpoint the launched app registers, hidden ones included, gets hostile values and answers without a
traceback (issue 35 item 6).

The endpoints are listed from the running server itself (`/config`'s dependencies: every event with a Python
function, public, undocumented and private), so an endpoint added later is covered without editing this file.
Each gets the same hostile batch: None, huge strings, negative and huge numbers, NaN (as text and as the bare JSON
token), unknown choices, objects, booleans, too many and too few values; and, value by value, a 400-digit whole
number and a text holding a lone surrogate, and a language that is not "en" or "zh" wherever the endpoint reads the
page's language switch (issue 43). Every request must get an answer (a result, an error sentence, or an HTTP refusal
with a reason) and the server's log must hold no traceback."""

from __future__ import annotations

import json
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.app.support import running_app, tiny_assets

HUGE = 200_000
"""Characters of huge text per request in all (shared among the values): under the door's 256 kB, so the
function itself sees it."""


@pytest.fixture(scope="module")
def url() -> str:
    return running_app().rstrip("/")


@pytest.fixture(scope="module")
def config(url: str) -> dict[str, Any]:
    import httpx

    return httpx.get(f"{url}/config", timeout=60).json()


@pytest.fixture(scope="module")
def endpoints(config: dict[str, Any]) -> dict[str, int]:
    """{api_name: number of inputs} of every event with a server function, read from the server's /config."""
    return {
        dep["api_name"]: len(dep["inputs"])
        for dep in config["dependencies"]
        if dep.get("backend_fn") and dep.get("api_name")
    }


@pytest.fixture(scope="module")
def languages(config: dict[str, Any]) -> dict[str, list[int]]:
    """{api_name: positions of its inputs that are the page's language switch} of the endpoints that read it."""
    switch = {c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "language"}
    found = {
        dep["api_name"]: [i for i, component in enumerate(dep["inputs"]) if component in switch]
        for dep in config["dependencies"]
        if dep.get("backend_fn") and dep.get("api_name")
    }
    return {name: positions for name, positions in found.items() if positions}


BIG = 10**400
"""A 400-digit whole number: float() of it overflows."""
SURROGATE = "a\ud800b"
"""Text holding a lone surrogate (sent as JSON's "\\ud800" escape): no character, and no UTF-8 encoder writes it."""
NOT_LANGUAGES: tuple[Any, ...] = (["en"], {"lang": "en"}, None, "x" * 100_000, "EN", 7)
"""Values sent as the page's language that are not "en" or "zh"."""


def value_bodies(n: int, languages: list[int]) -> list[str]:
    """Bodies with one hostile value at a time (the others null): a 400-digit number and a lone surrogate in each
    position, and each of NOT_LANGUAGES where the endpoint reads the language; then each hostile kind in every
    position at once, the negative number and the ones nested in a list or an object included. (Every position
    with every kind, one at a time, was 2,543 calls in 77 s; the refusal reads every value of a call, so a kind
    nested anywhere is caught where it is.)"""
    rows: list[list[Any]] = []
    for position in range(n):
        for value in (BIG, SURROGATE):
            rows.append([value if i == position else None for i in range(n)])
    for position in languages:
        for value in NOT_LANGUAGES:
            rows.append([value if i == position else "en" for i in range(n)])
    for value in (BIG, -BIG, SURROGATE, [SURROGATE], {"k": BIG}):
        rows.append([value] * n)
    return [json.dumps({"data": row}) for row in rows]  # ASCII: the surrogate travels as its \\u escape


def hostile_bodies(n: int) -> list[str]:
    """The raw JSON bodies sent to an endpoint taking `n` values."""
    each = HUGE // max(n, 1)
    batches: list[list[Any]] = [
        [None] * n,
        ["x" * each] * n,
        ["的" * (each // 4)] * n,  # sent as UTF-8 (3 bytes a character), not as \\u escapes
        [-1] * n,
        [-(10**30)] * n,
        [1e308] * n,
        ["NaN"] * n,
        ["unknown-choice-✗"] * n,
        [{"a": [1, {"b": None}]}] * n,
        [[]] * n,
        [True] * n,
        [None] * (n + 3),
        [],
    ]
    bodies = [json.dumps({"data": batch}, ensure_ascii=False) for batch in batches]
    bodies.append('{"data": [' + ", ".join(["NaN"] * n) + "]}")  # not JSON: the bare token some encoders write
    bodies.append('{"data": [' + ", ".join(["-Infinity"] * n) + "]}")
    return bodies


_CLIENTS = threading.local()


def _client() -> Any:
    """This thread's HTTP client, kept open: a new httpx.Client costs ~30 ms (its SSL context), more than most of
    the calls it would make (thousands here)."""
    import httpx

    if not hasattr(_CLIENTS, "http"):
        _CLIENTS.http = httpx.Client(timeout=300)
    return _CLIENTS.http


def _session() -> str:
    """This thread's session hash, as a page keeps one: without one Gradio builds a new session's state (every
    component's config, ~230 here) for each of the thousands of calls, which is most of the server's work here
    and no part of what is tested (`test_a_call_without_a_session_is_answered_too` covers calls without one)."""
    if not hasattr(_CLIENTS, "session"):
        _CLIENTS.session = secrets.token_hex(8)
    return _CLIENTS.session


def _with_session(body: str) -> str:
    """`body` (a JSON object's text) with this thread's session hash as its last member."""
    return body[: body.rindex("}")] + f', "session_hash": "{_session()}"}}'


def _send(url: str, endpoint: str, body: str, session: bool = True) -> str:
    """One raw call (`session`: in this thread's session); '' when it was answered acceptably, else what was
    wrong."""
    http = _client()
    response = http.post(
        f"{url}/gradio_api/call/{endpoint}",
        content=_with_session(body) if session and body.rstrip().endswith("}") else body,
        headers={"content-type": "application/json"},
    )
    if response.status_code != 200:
        if response.status_code >= 500 and response.status_code != 503:
            return f"{endpoint}: HTTP {response.status_code} {response.text[:200]}"
        return "" if "detail" in response.text else f"{endpoint}: HTTP {response.status_code} without a reason"
    stream = http.get(f"{url}/gradio_api/call/{endpoint}/{response.json()['event_id']}").text
    if "event: complete" in stream:
        return ""
    error = next((line for line in stream.splitlines() if line.startswith("data:")), "data: null")
    if "event: error" in stream and error.removeprefix("data:").strip() not in ("null", ""):
        return ""  # an error sentence (gr.Error), as the page shows it
    return f"{endpoint}: {body[:80]!r} → {stream[:200]!r}"


@pytest.mark.slow
def test_the_app_registers_the_endpoints_this_test_is_about(endpoints: dict[str, int]) -> None:
    for name in (
        "fill_mask",
        "pick_word",
        "measure_speed",
        "set_language",
        "attention_heads",
        "fill_mask_example_pick",
    ):
        assert name in endpoints, name
    assert len(endpoints) > 30  # every event with a server function (the tabs' runs are started in the page)


@pytest.mark.slow
def test_every_endpoint_answers_hostile_values_without_a_traceback(url: str, endpoints: dict[str, int]) -> None:
    _without_a_traceback(url, [(name, body) for name, n in sorted(endpoints.items()) for body in hostile_bodies(n)])


@pytest.mark.slow
def test_every_value_of_every_endpoint_refuses_huge_numbers_surrogates_and_unknown_languages(
    url: str, endpoints: dict[str, int], languages: dict[str, list[int]]
) -> None:
    """Issue 43: 65 of these reached a traceback (OverflowError, an answer that could not be encoded)."""
    assert {"measure_speed", "fill_mask", "sentence_order", "set_language"} <= set(languages)
    calls = [(name, body) for name, n in sorted(endpoints.items()) for body in value_bodies(n, languages.get(name, []))]
    _without_a_traceback(url, calls)


@pytest.mark.slow
def test_a_refusal_never_echoes_a_surrogate_and_measure_speed_checks_its_language_first(url: str) -> None:
    import httpx

    form = [30000, 128, 768, 12, 12, 3072, "all", 1, True, 512, 128]
    for lang in NOT_LANGUAGES:
        error = _error(_stream(url, "measure_speed", json.dumps({"data": [*form, lang]})))
        assert error.startswith('The language (lang) must be "en" or "zh", got '), error
    error = _error(_stream(url, "fill_mask", json.dumps({"data": ["the [MASK]", SURROGATE, "", "zh"]})))
    assert "代理码点" in error, error  # in the request's language
    stream = _stream(url, "fill_mask", json.dumps({"data": [f"the [MASK] {SURROGATE}", 5, "", "en"]}))
    error = _error(stream)
    assert "lone surrogate" in error and "\ud800" not in error and "\ufffd" not in error, error
    assert "401 digits" in _error(_stream(url, "fill_mask", json.dumps({"data": ["the [MASK]", BIG, "", "en"]})))
    with httpx.Client(timeout=60) as http:
        assert http.get(f"{url}/config").status_code == 200


@pytest.mark.slow
def test_a_call_without_a_session_is_answered_too(url: str, endpoints: dict[str, int]) -> None:
    """The batches above travel in one session per thread; a hostile call without any (a bare API client) gets its
    answer the same way."""
    calls = [(name, body) for name, n in sorted(endpoints.items()) for body in hostile_bodies(n)[:2]]
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size
    problems = [p for p in (_send(url, name, body, session=False) for name, body in calls) if p]
    assert not problems, "\n".join(problems[:20])
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        assert "Traceback" not in handle.read()


def _error(stream: str) -> str:
    """The sentence of an `event: error` stream ("" when the stream is no error)."""
    if "event: error" not in stream:
        return ""
    data = next(line for line in stream.splitlines() if line.startswith("data:")).removeprefix("data:")
    return str(json.loads(data)["error"])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=6,
)
"""Any value a JSON body decodes to: text with lone surrogates, ints of any size, NaN and ±∞ included."""


@pytest.mark.slow
def test_arbitrary_json_values_get_a_sentence_from_every_endpoint(url: str, endpoints: dict[str, int]) -> None:
    """Hypothesis (issue 43): arbitrary JSON values, as many as the endpoint takes (or one fewer or more), sent to
    every endpoint of the launched server: each is answered (a result or one sentence) and the log stays clean."""
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size
    names = sorted(endpoints)

    @given(st.sampled_from(names), st.data())
    @settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    def answered(name: str, data: st.DataObject) -> None:
        n = endpoints[name] + data.draw(st.sampled_from([0, 0, 0, -1, 1]))
        values = data.draw(st.lists(JSON_VALUES, min_size=max(n, 0), max_size=max(n, 0)))
        problem = _send(url, name, json.dumps({"data": values}))  # ASCII: a surrogate travels as its escape
        assert not problem, problem

    answered()
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        new = handle.read()
    assert "Traceback" not in new, tracebacks(new)


def _stream(url: str, endpoint: str, body: str) -> str:
    http = _client()
    response = http.post(
        f"{url}/gradio_api/call/{endpoint}", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 200, response.text[:300]
    return http.get(f"{url}/gradio_api/call/{endpoint}/{response.json()['event_id']}").text


def _without_a_traceback(url: str, calls: list[tuple[str, str]]) -> None:
    """Send every (endpoint, body) of `calls`, six at a time: each must be answered, the log must stay clean."""
    log = tiny_assets().root / "server.log"
    start = log.stat().st_size
    with ThreadPoolExecutor(max_workers=6) as pool:
        problems = [p for p in pool.map(lambda call: _send(url, *call), calls) if p]
    assert not problems, f"{len(problems)} of {len(calls)} requests unanswered:\n" + "\n".join(problems[:20])
    with open(log, encoding="utf-8") as handle:
        handle.seek(start)
        new = handle.read()
    assert "Traceback" not in new, tracebacks(new)


def tracebacks(log: str) -> str:
    """Each distinct traceback of `log` once: its last frame in the project and its exception line, with a count."""
    seen: dict[str, int] = {}
    for block in log.split("Traceback (most recent call last):")[1:]:
        lines = [line for line in block.splitlines() if line.strip()]
        ours = [line.strip() for line in lines if line.strip().startswith('File "') and "site-packages" not in line]
        error = next((line for line in lines if not line.startswith((" ", "\t")) and ":" in line), lines[-1])
        key = f"{ours[-1] if ours else '(in Gradio)'} → {error[:300]}"
        seen[key] = seen.get(key, 0) + 1
    return "\n".join(f"{count} × {key}" for key, count in seen.items())
