"""One user action, at most one run, and no stale output (issues 17 and 52): Chromium on `python app.py` (the tiny
models). Each model tab has one run event (app/page/runs.py); these tests hold requests back to put the events in
the orders a busy queue gives them, and check what the page ends with and what it sent.

1. A language switch after opening every tab queues the page's redraw and the visible tab's run, nothing else;
   another tab catches up in 中文 when opened.
2. A result on its way during a switch to 中文 ends in 中文; one that lands after typing is cleared again; one that
   lands before the button's run never replaces the button's result.
3. The masked-words tab's "pick a word" list always holds the words of the text in the box.
4. Picking another model runs the visible tab once, and no other.

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


def _queued(view: Any) -> tuple[list[str], Any]:
    """The api names of the events the page queues from now on (a list that fills), and the listener to remove."""
    names = event_ids(view.url, "")
    sent: list[str] = []

    def count(request: Any) -> None:
        if "/queue/join" in request.url:
            sent.append(names.get(json.loads(request.post_data or "{}").get("fn_index"), "?"))

    view.on("request", count)
    return sent, count


def test_a_switch_runs_only_the_visible_tab_and_the_others_catch_up_when_opened(page: tuple[Any, QueueTraffic]) -> None:
    """After every model tab has shown its result, a switch to 中文 queues the page's redraw and the masked-words
    run (the visible tab), nothing else; the Sentiment tab, opened after, runs once and shows 中文 only."""
    from playwright.sync_api import expect

    view, traffic = page
    for tab, (_, panels) in RESULTS.items():
        view.get_by_role("tab", name=tab).click()
        expect(view.locator(panels[0])).to_contain_text("Model")
        traffic.wait_quiet(view)
    view.get_by_role("tab", name="Masked words").click()
    traffic.wait_quiet(view)
    sent, _ = _queued(view)
    view.locator("#language label").filter(has_text="中文").click()
    expect(view.locator("#mask-status")).to_contain_text("模型 ", timeout=REDRAW * 1000)
    traffic.wait_quiet(view)
    assert sorted(sent) == ["fill_mask", "page_in_language"], sent
    name, panels = RESULTS["Sentiment"]
    view.get_by_role("tab", name=name).click()
    expect(view.locator(panels[0])).to_contain_text("模型", timeout=REDRAW * 1000)
    traffic.wait_quiet(view)
    assert sorted(sent) == ["fill_mask", "page_in_language", "sentiment"], sent
    view.locator(f"{panels[-1]} .js-plotly-plot").first.wait_for()
    assert _english_left(view, panels) == set()


def test_a_result_on_its_way_during_a_switch_to_chinese_ends_in_chinese(page: tuple[Any, QueueTraffic]) -> None:
    """Opening Masked words sends its first run in English, held back (as a busy queue holds it) until the switch
    to 中文 has been clicked; the switch asks for the tab again, which waits for the first run and then runs once,
    in 中文. Nothing compares digests: one run event per tab, so the later run lands last."""
    from playwright.sync_api import expect

    view, traffic = page
    held: list[Any] = []
    view.route("**/queue/join*", _holding(_named(view, "fill_mask"), held, first_only=True))
    view.get_by_role("tab", name="Masked words").click()
    _wait_until_held(view, held, "the run of opening the tab")
    assert "en" in json.loads(held[0].request.post_data)["data"]
    view.locator("#language label").filter(has_text="中文").click()
    view.wait_for_function("() => document.documentElement.dataset.labDrawn === 'zh'", timeout=WAIT)
    held[0].continue_()
    expect(view.locator("#mask-status")).to_contain_text("模型 ", timeout=REDRAW * 1000)
    traffic.wait_quiet(view)
    expect(view.locator("#mask-status")).not_to_contain_text("Model")
    assert _english_left(view, RESULTS["Masked words"][1]) == set()


def test_the_stale_hint_follows_the_language_switch(page: tuple[Any, QueueTraffic]) -> None:
    """Typing clears a result with a sentence saying which button shows the new one, and runs nothing; a switch
    puts the sentence in 中文 and runs nothing either."""
    from playwright.sync_api import expect

    view, traffic = page
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    traffic.wait_quiet(view)
    sent, _ = _queued(view)
    view.locator("#mask-text textarea").fill("the old sailor walked along the [MASK] .")
    expect(view.locator("#mask-status")).to_contain_text("Predict")
    view.locator("#language label").filter(has_text="中文").click()
    expect(view.get_by_role("tab", name="参数计算器")).to_be_visible()
    traffic.wait_quiet(view)
    expect(view.locator("#mask-status")).to_contain_text("输入已改变")
    expect(view.locator("#mask-status")).not_to_contain_text("Predict")
    assert sent == ["page_in_language"], sent


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


def test_picking_another_model_runs_the_visible_tab_once(page: tuple[Any, QueueTraffic]) -> None:
    """The picker reports a pick twice (the option, then the blur): the visible tab runs once, for the new model;
    a tab that shows an older model's result runs when opened, not before."""
    from playwright.sync_api import expect

    view, traffic = page
    view.get_by_role("tab", name="Sentence order").click()
    expect(view.locator("#order-status")).to_contain_text("Model albert-lab-base")  # the tiny English model
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model albert-lab-base")
    traffic.wait_quiet(view)
    sent, _ = _queued(view)
    view.locator("#model-picker input").click()
    view.locator("[data-testid=dropdown-option]", has_text="albert-lab-none").first.click()
    expect(view.locator("#mask-status")).to_contain_text("Model albert-lab-none")  # the shown result, run again
    view.wait_for_timeout(5_000)
    traffic.wait_quiet(view)
    assert sent == ["fill_mask"], sent
    view.get_by_role("tab", name="Sentence order").click()
    expect(view.locator("#order-status")).to_contain_text("Model albert-lab-none")
    traffic.wait_quiet(view)
    assert sent == ["fill_mask", "sentence_order"], sent


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


def _holding(events: dict[int, str], held: list[Any], first_only: bool = False) -> Any:
    """A route handler that holds back the requests for `events` (by fn_index) in `held` (only the first one with
    `first_only`) and lets the rest through."""

    def hold(route: Any) -> None:
        if json.loads(route.request.post_data or "{}").get("fn_index") in events and not (first_only and held):
            held.append(route)
        else:
            route.continue_()

    return hold


def _named(view: Any, name: str) -> dict[int, str]:
    """The event called exactly `name`, by fn_index."""
    return {k: v for k, v in event_ids(view.url, name).items() if v == name}


def test_a_result_that_lands_after_typing_is_cleared(page: tuple[Any, QueueTraffic]) -> None:
    """Opening Attention runs it for the sentence in the box; the teacher types another before it answers, too late
    for typing to stop it. The result for the old sentence lands, and the page clears it again: the hint asks for
    the button, and no chart of the old sentence stays."""
    from playwright.sync_api import expect

    view, traffic = page
    held: list[Any] = []
    view.route("**/queue/join*", _holding(_named(view, "attention"), held))
    view.get_by_role("tab", name="Attention").click()
    _wait_until_held(view, held, "the run of opening the tab")
    view.locator("#attention-a textarea").fill("the old sailor walked along the river")
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")
    held[0].continue_()
    traffic.wait_quiet(view)
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")
    assert view.locator("#attention-heatmaps .js-plotly-plot").count() == 0


def test_a_late_result_for_old_text_never_replaces_the_buttons_result(page: tuple[Any, QueueTraffic]) -> None:
    """The 中文 guide walk's stop 5: opening Attention runs it for the sentence in the box; the teacher types another
    and presses the button while that first run is on its way, before it answers. The button's run
    waits for the first (one run event per tab) and lands last: the page ends on the button's sentence."""
    from playwright.sync_api import expect

    view, traffic = page
    held: list[Any] = []
    view.route("**/queue/join*", _holding(_named(view, "attention"), held, first_only=True))
    view.get_by_role("tab", name="Attention").click()
    _wait_until_held(view, held, "the run of opening the tab")
    view.locator("#attention-a textarea").fill("the old sailor walked along the river")
    expect(view.locator("#attention-status")).to_contain_text("press Show attention")  # typing cleared it
    view.locator("#attention-button").click()
    held[0].continue_()
    traffic.wait_quiet(view)
    expect(view.locator("#attention-status")).to_contain_text("Model albert-lab-base")
    view.locator("#attention-heatmaps .js-plotly-plot").wait_for()
    sailor = view.locator("#attention-heatmaps .xtick").all_text_contents()
    assert any("sailor" in tick for tick in sailor), sailor  # the button's sentence, not the cat's


def test_the_switch_never_clears_a_result_that_landed_after_it(page: tuple[Any, QueueTraffic]) -> None:
    """Typing cleared a result (the "input changed" sentence); the teacher switches to 中文 and presses the button at
    once. The switch's redraw is held until the button's result has landed: the sentence it would write again in
    中文 is decided in the page when the redraw is done, and by then the tab holds a result, so nothing is cleared."""
    from playwright.sync_api import expect

    view, traffic = page
    held: list[Any] = []
    view.get_by_role("tab", name="Masked words").click()
    expect(view.locator("#mask-status")).to_contain_text("Model ")
    traffic.wait_quiet(view)
    view.locator("#mask-text textarea").fill("the old sailor walked along the [MASK] .")
    expect(view.locator("#mask-status")).to_contain_text("Predict")
    view.route("**/queue/join*", _holding(_named(view, "page_in_language"), held))
    view.locator("#language label").filter(has_text="中文").click()
    _wait_until_held(view, held, "the switch's redraw")
    view.locator("#mask-button").click()
    expect(view.locator("#mask-status")).to_contain_text("模型 ")  # the button's result, in 中文
    held[0].continue_()
    traffic.wait_quiet(view)
    expect(view.locator("#mask-status")).to_contain_text("模型 ")
    expect(view.locator("#mask-status")).not_to_contain_text("输入已改变")
