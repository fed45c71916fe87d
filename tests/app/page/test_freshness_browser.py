"""No stale output, whatever order the events come in (issue 17): Chromium on `python app.py` (the tiny models).

1. A tab opened just before a switch to 中文 has its first result still on its way when the switch redraws what is
   on screen (held back here, as a busy queue holds it); once everything has answered, that result is in 中文 too.
2. The masked-words tab's "pick a word" list always holds the words of the text in the box: never the previous
   text's after typing, the text's own after a refusal that invites picking one, none after the `<unk>` guard.
3. Picking another model runs each tab that shows a result once, not again and again.

Each test has a page of its own (its own Gradio session). Chromium is started without CAP_SYS_NICE
(`tests.app.support.chromium_keeping_its_nice`), so it keeps the nice the test runs at.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.support import ARGS, CHROMIUM, QueueTraffic, chromium_keeping_its_nice, event_ids, running_app
from tests.app.test_layout_chinese import WORD, leftover_english

pytestmark = pytest.mark.browser
WAIT = 90_000
"""Milliseconds to wait for one element: a busy 2-core machine draws slowly."""
SETTLE = 600.0
"""Seconds to wait for a chain of queued steps to be sent or to finish (the switch relabels some 200 components,
then each tab's redraw runs a model; at nice 5 beside two training runs that has taken minutes)."""
REDRAW = 300.0
"""Seconds to wait for a result to be drawn again in 中文 (measured: up to ~100 s on the starved machine)."""
RESULTS = {
    "Masked words": ("遮蔽词预测", ["#mask-status", "#mask-chart"]),
    "Sentence order": ("句子顺序", ["#order-status", "#order-verdict", "#order-chart"]),
    "Attention": ("注意力", ["#attention-status", "#attention-heatmaps"]),
    "Sentiment": ("情感分类", ["#sentiment-status", "#sentiment-verdict", "#sentiment-probabilities"]),
}
"""Each model tab (English and 中文 names) and the panels its result is drawn in."""
API = {
    "Masked words": "fill_mask",
    "Sentence order": "sentence_order",
    "Attention": "attention",
    "Sentiment": "sentiment",
}
"""Each model tab's event (app.layout.MODEL_EVENTS)."""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT)
    url = running_app()
    launcher = chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(launcher), args=ARGS)
        chromium.lab_url = url  # type: ignore[attr-defined]
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, QueueTraffic]]:
    """A fresh page (a session of its own) on the English interface, once its start-up requests have answered."""
    view = browser.new_page(viewport={"width": 1400, "height": 1000})
    view.set_default_timeout(WAIT)
    traffic = QueueTraffic(view, SETTLE)
    view.goto(browser.lab_url)
    view.get_by_role("tab", name="Parameter calculator").wait_for()
    traffic.wait_quiet(view)
    yield view, traffic
    view.close()


def _english_left(view: Any, panels: list[str]) -> set[str]:
    """English interface words in `panels` (the typed text and the tiny model's tokens allowed)."""
    texts = [view.locator(panel).inner_text() for panel in panels]
    user = [box.input_value() for box in view.locator("textarea").all()]
    for panel in panels:  # the tokens a chart is labelled with (the model's, not the interface's words)
        user += view.locator(f"{panel} .xtick, {panel} .ytick").all_text_contents()
    words = {word.lower() for text in user for word in WORD.findall(text)}
    return leftover_english(texts, words)


def test_a_result_on_its_way_during_a_switch_to_chinese_ends_in_chinese(page: tuple[Any, QueueTraffic]) -> None:
    """Each tab's first run is sent in English and held back (as a busy queue holds it) until the switch to 中文 has
    sent its redraws, which found nothing on screen to redraw; once those first runs have answered, every tab
    shows its result in 中文."""
    from playwright.sync_api import expect

    view, _ = page
    on_open, redraws = event_ids(view.url, "_on_open"), event_ids(view.url, "_in_language")
    held: list[Any] = []
    sent: dict[str, dict] = {}

    def hold_first_runs(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        if body.get("fn_index") in on_open:
            held.append(route)
            sent[on_open[body["fn_index"]]] = body
            return
        if body.get("fn_index") in redraws:
            sent[redraws[body["fn_index"]]] = body
        route.continue_()

    def wait_for(names: set[str]) -> None:
        deadline = time.monotonic() + SETTLE
        while not names <= set(sent):
            assert time.monotonic() < deadline, f"sent only {sorted(sent)}, waiting for {sorted(names - set(sent))}"
            view.wait_for_timeout(100)

    view.route("**/queue/join*", hold_first_runs)
    for tab in RESULTS:
        view.get_by_role("tab", name=tab).click()
    wait_for({f"{API[tab]}_on_open" for tab in RESULTS})
    # Sent in English: the language is one of each event's inputs (the last but for /sentence_order, whose optional
    # other-book segment came after it); no text input is a bare language code.
    languages = {next(v for v in sent[f"{API[tab]}_on_open"]["data"] if v in ("en", "zh")) for tab in RESULTS}
    assert languages == {"en"}
    view.locator("#language label").filter(has_text="中文").click()
    expect(view.get_by_role("tab", name="参数计算器")).to_be_visible()
    wait_for({f"{API[tab]}_in_language" for tab in RESULTS})
    for tab in RESULTS:  # the switch looked at each tab's result (its JSON, sent first) before any had come
        assert sent[f"{API[tab]}_in_language"]["data"][0] is None, tab
    for route in held:
        route.continue_()
    view.unroute("**/queue/join*")
    for tab, (name, panels) in RESULTS.items():
        view.get_by_role("tab", name=name).click()
        # The status line: a result, drawn in 中文. Each first run lands in English and is drawn again (one model
        # run more, which on a starved machine can start many seconds later); without that the English one stays.
        expect(view.locator(panels[0])).to_contain_text("模型 ", timeout=REDRAW * 1000)
        expect(view.locator(panels[0])).not_to_contain_text("Model")
        view.locator(f"{panels[-1]} .js-plotly-plot").first.wait_for()
        assert _english_left(view, panels) == set(), tab


def test_the_stale_hint_follows_the_language_switch(page: tuple[Any, QueueTraffic]) -> None:
    """Typing clears a result with a sentence saying which button shows the new one; a switch puts it in 中文."""
    from playwright.sync_api import expect

    view, traffic = page
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    view.locator("#mask-text textarea").fill("the old sailor walked along the [MASK] .")
    expect(view.locator("#mask-status")).to_contain_text("Predict")
    view.locator("#language label").filter(has_text="中文").click()
    expect(view.get_by_role("tab", name="参数计算器")).to_be_visible()
    traffic.wait_quiet(view)
    expect(view.locator("#mask-status")).to_contain_text("输入已改变")
    expect(view.locator("#mask-status")).not_to_contain_text("Predict")


def _word_options(view: Any) -> list[str]:
    """The labels of the "pick a word" list as shown."""
    return [label.strip() for label in view.locator("#mask-words label").all_inner_texts()]


def _words_of(text: str) -> list[str]:
    from app.inference import word_choices

    return [label for label, _ in word_choices(text)]


def test_the_pick_a_word_list_holds_the_words_of_the_text_in_the_box(page: tuple[Any, QueueTraffic]) -> None:
    from playwright.sync_api import expect

    view, traffic = page
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    first = view.locator("#mask-text textarea").input_value()
    expect(view.locator("#mask-words")).to_contain_text(_words_of(first)[0])
    box = view.locator("#mask-text textarea")

    plain = "the old sailor walked along the river ."  # no [MASK]: the refusal invites picking a word
    box.fill(plain)
    expect(view.locator("#mask-status")).to_contain_text("Predict")
    assert set(_word_options(view)) <= set(_words_of(plain)), _word_options(view)  # never the previous text's words
    view.locator("#mask-button").click()
    expect(view.locator("#mask-status")).to_contain_text("pick a word")
    traffic.wait_quiet(view)
    assert _word_options(view) == _words_of(plain)
    view.locator("#mask-words label").filter(has_text=re.compile(r"^\s*3: sailor\s*$")).click()
    expect(box).to_have_value("the old [MASK] walked along the river .")
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    traffic.wait_quiet(view)
    assert _word_options(view) == _words_of("the old [MASK] walked along the river .")

    unreadable = "我爱自然语言处理，这部电影很精彩 [MASK]"  # the tiny English model knows none of it
    box.fill(unreadable)
    view.locator("#mask-button").click()
    expect(view.locator("#mask-status")).to_contain_text("cannot read this language")
    traffic.wait_quiet(view)
    assert _word_options(view) == []  # the guard refused the text: nothing to pick from it


def test_picking_another_model_runs_each_tab_once(page: tuple[Any, QueueTraffic]) -> None:
    """The picker reports a pick twice (the option, then the blur); its four tabs' listeners used to send each other
    again for ever after it (Gradio re-sends a deferred listener's whole trigger), re-running every shown result."""
    from playwright.sync_api import expect

    view, traffic = page
    reruns = event_ids(view.url, "_new_model")
    sent: list[str] = []

    def count(request: Any) -> None:
        body = json.loads(request.post_data or "{}") if "/queue/join" in request.url else {}
        if body.get("fn_index") in reruns:
            sent.append(reruns[body["fn_index"]])

    view.on("request", count)
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model albert-lab-base")  # the tiny English model
    traffic.wait_quiet(view)
    view.locator("#model-picker input").click()
    view.locator("[data-testid=dropdown-option]", has_text="albert-lab-none").first.click()
    expect(view.locator("#mask-status")).to_contain_text("Model albert-lab-none")  # the shown result, redrawn
    view.wait_for_timeout(15_000)  # the loop sent all four again every few seconds (15 in the first 3 s)
    assert len(sent) <= 2 * len(reruns), sent  # each listener once per report of the pick, at most


def test_typing_in_the_calculator_sends_its_events_a_bounded_number_of_times(page: tuple[Any, QueueTraffic]) -> None:
    """Each keystroke in a calculator field runs /parameters, then /preset_match and the costs chained after it.
    They were three listeners of each field, deferred while they ran; Gradio re-sends a deferred listener's whole
    trigger, so the three re-sent each other for ever (69 requests in 2 minutes). Typing four digits fast ends in
    quiet."""
    from playwright.sync_api import expect

    view, traffic = page
    watched = {"parameters", "preset_match", "compute_after_edit"}
    events = {k: name for k, name in event_ids(view.url, "").items() if name in watched}
    assert set(events.values()) == watched
    sent: list[tuple[float, str]] = []

    def count(request: Any) -> None:
        body = json.loads(request.post_data or "{}") if "/queue/join" in request.url else {}
        if body.get("fn_index") in events:
            sent.append((time.monotonic(), events[body["fn_index"]]))

    view.on("request", count)
    box = view.get_by_label("Hidden size H")
    box.click()
    box.press("Control+A")
    box.press_sequentially("1536", delay=30)  # H 1,536: 12 heads of 128
    expect(view.locator("#embedding-arithmetic")).to_contain_text("× 1,536")
    deadline = time.monotonic() + 120.0
    while not sent or time.monotonic() - sent[-1][0] < 10.0:  # quiet for 10 s: no listener re-sends another
        assert time.monotonic() < deadline, f"still sending after 120 s: {len(sent)} requests"
        view.wait_for_timeout(500)
    per_event = {name: sum(1 for _, n in sent if n == name) for name in watched}
    assert all(1 <= times <= 2 * 4 for times in per_event.values()), per_event  # at most twice per keystroke


def _wait_until_held(view: Any, held: list[Any], what: str) -> None:
    """Until the route has held a request (`held` not empty); fails naming `what` after `SETTLE`."""
    deadline = time.monotonic() + SETTLE
    while not held:
        assert time.monotonic() < deadline, f"{what} was never sent"
        view.wait_for_timeout(100)


def _holding(events: dict[int, str], held: list[Any]) -> Any:
    """A route handler that holds back the requests for `events` (by fn_index) in `held` and lets the rest through."""

    def hold(route: Any) -> None:
        if json.loads(route.request.post_data or "{}").get("fn_index") in events:
            held.append(route)
        else:
            route.continue_()

    return hold


def test_a_result_that_lands_after_typing_is_cleared(page: tuple[Any, QueueTraffic]) -> None:
    """Opening Attention runs it for the sentence in the box; the teacher types another before it answers, too late
    for typing to cancel it. The result for the old sentence lands, and the page clears it again: the hint asks for
    the button, and no chart of the old sentence stays."""
    from playwright.sync_api import expect

    view, traffic = page
    held: list[Any] = []
    view.route("**/gradio_api/cancel*", lambda route: route.abort())  # typing's cancel comes too late
    view.route("**/queue/join*", _holding(event_ids(view.url, "attention_on_open"), held))
    view.get_by_role("tab", name="Attention").click()
    _wait_until_held(view, held, "the run of opening the tab")
    view.locator("#attention-a textarea").fill("the old sailor walked along the river")
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")
    checks, landed = event_ids(view.url, "attention_landed"), []

    def checked(request: Any) -> None:  # the landing check, sent with the result that landed (its JSON first)
        body = json.loads(request.post_data or "{}") if request.url.endswith("/run/predict") else {}
        if body.get("fn_index") in checks and body.get("data", [None])[0]:
            landed.append(body["data"][0].get("tokens"))

    view.on("request", checked)
    held[0].continue_()
    traffic.wait_quiet(view)
    assert landed and "▁sat" in landed[0], f"the first run's result never landed, so nothing came late: {landed}"
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")
    assert view.locator("#attention-heatmaps .js-plotly-plot").count() == 0


def test_a_late_result_for_old_text_never_clears_the_buttons_result(page: tuple[Any, QueueTraffic]) -> None:
    """The 中文 guide walk's stop 5: opening Attention runs it for the sentence in the box; the teacher types another
    and presses the button while that first run answers, too late for typing to cancel it. Its result lands for a
    text no longer in the box and is cleared. The clearing used to wait in the model queue behind the button's run,
    so it landed after the button's result and wiped it ("input changed, press Attention"): here the landing check
    of the first result is held until the button's run is queued, which is the order a busy machine gave."""
    from playwright.sync_api import expect

    view, traffic = page
    on_open, landed = event_ids(view.url, "attention_on_open"), event_ids(view.url, "attention_landed")
    button = next(k for k, name in event_ids(view.url, "attention").items() if name == "attention")
    held_runs: list[Any] = []
    held_checks: list[Any] = []

    def hold_its_landing_check(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        if body.get("fn_index") in landed and body.get("data", [None])[0] and not held_checks:
            held_checks.append(route)
        else:
            route.continue_()

    view.route("**/gradio_api/cancel*", lambda route: route.abort())  # typing's cancel comes too late
    view.route("**/queue/join*", _holding(on_open, held_runs))
    view.route("**/run/predict*", hold_its_landing_check)
    view.get_by_role("tab", name="Attention").click()
    _wait_until_held(view, held_runs, "the run of opening the tab")
    view.locator("#attention-a textarea").fill("the old sailor walked along the river")
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")  # typing cleared it
    held_runs[0].continue_()
    _wait_until_held(view, held_checks, "the first result's landing check")  # it landed after the typing

    def joins_the_button_run(response: Any) -> bool:
        return (
            "/queue/join" in response.url and json.loads(response.request.post_data or "{}").get("fn_index") == button
        )

    with view.expect_response(joins_the_button_run):  # queued on the server before the first result's check answers
        view.locator("#attention-button").click()
    held_checks[0].continue_()
    traffic.wait_quiet(view)
    expect(view.locator("#attention-status")).to_contain_text("Model albert-lab-base")
    view.locator("#attention-heatmaps .js-plotly-plot").wait_for()
    sailor = view.locator("#attention-heatmaps .xtick").all_text_contents()
    assert any("sailor" in tick for tick in sailor), sailor  # the button's sentence, not the cat's


def test_the_switch_never_clears_a_result_that_landed_after_it(page: tuple[Any, QueueTraffic]) -> None:
    """Typing cleared a result (the "input changed" sentence); the teacher switches to 中文 and presses the button at
    once. The switch looked at the tab while it was still cleared, so it writes the sentence again in 中文; that
    used to come from the model queue and could land after the button's result, wiping it. Here the switch's redraw
    is held until the button's result has landed."""
    from playwright.sync_api import expect

    view, traffic = page
    redraws = event_ids(view.url, "fill_mask_in_language")
    held: list[Any] = []

    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    traffic.wait_quiet(view)
    view.locator("#mask-text textarea").fill("the old sailor walked along the [MASK] .")
    expect(view.locator("#mask-status")).to_contain_text("Predict")
    view.route("**/queue/join*", _holding(redraws, held))
    view.locator("#language label").filter(has_text="中文").click()
    # the switch has looked at the tab: cleared, so it will write the sentence in 中文
    _wait_until_held(view, held, "the switch's redraw of the masked-words tab")
    view.locator("#mask-button").click()
    expect(view.locator("#mask-status")).to_contain_text("模型 ")  # the button's result, in 中文
    held[0].continue_()
    traffic.wait_quiet(view)
    expect(view.locator("#mask-status")).to_contain_text("模型 ")
    expect(view.locator("#mask-status")).not_to_contain_text("输入已改变")
