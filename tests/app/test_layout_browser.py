"""A real browser (Debian's chromium through Playwright) on `python app.py`, with every outside host blocked.

Screenshots go to test-artifacts/ (not committed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.app.support import (
    ARGS,
    CHROMIUM,
    chromium_keeping_its_nice,
    keep_to_loopback,
    running_app,
    screenshot,
    screenshots_wanted,
    switch_language,
    tiny_assets,
)

pytestmark = pytest.mark.browser
FIRST_RESULT = {
    "Sharing modes": "#transitions-status",
    "Masked words": "#mask-status",
    "Sentence order": "#order-verdict",
    "Attention": "#attention-status",
    "Sentiment": "#sentiment-verdict",
}
"""Where each model tab shows the result for its first example when opened (issue 17, item 2)."""
PAYLOAD = '[MASK] <script>window.__pwned = 1</script>"><img src=x onerror="window.__pwned = 2">'


class Session:
    def __init__(self, page, url: str) -> None:
        self.page, self.url = page, url
        self.outside: list[str] = []
        self.dialogs: list[str] = []

    def shot(self, name: str) -> None:
        screenshot(self.page, f"browser-{name}", full_page=True)

    def shot_of(self, selector: str, name: str) -> None:
        """A viewport screenshot with `selector` scrolled into view (sandboxed iframes paint only when visible)."""
        if screenshots_wanted():
            self.page.locator(selector).scroll_into_view_if_needed()
            self.page.wait_for_timeout(1500)  # a large sandboxed iframe paints a moment after it scrolls in
            screenshot(self.page, f"browser-{name}")

    def open_tab(self, name: str) -> None:
        """Open a tab and wait for the result it shows on opening (so that it cannot land after a later one)."""
        from playwright.sync_api import expect

        self.page.get_by_role("tab", name=name).click()
        if name in FIRST_RESULT:
            expect(self.page.locator(FIRST_RESULT[name])).not_to_be_empty(timeout=60_000)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)  # a busy 2-core machine relabels the page slowly
    url = running_app()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))), args=ARGS
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        state = Session(page, url)

        keep_to_loopback(context, state.outside)  # the network is cut: anything not on this machine is refused
        page.on("dialog", lambda dialog: (state.dialogs.append(dialog.message), dialog.dismiss()))
        page.set_default_timeout(90_000)
        page.goto(url)
        page.get_by_role("tab", name="Parameter calculator").wait_for()
        yield state
        browser.close()


def _expected_fill(text: str) -> str:
    """What the served app (the tiny models) fills in, computed here; the process's environment is left as it was."""
    import os
    from unittest import mock

    from app.tabs.masked import views as masked_views

    with mock.patch.dict(os.environ, {"ALBERT_LAB_MODELS": str(tiny_assets().models)}):
        return masked_views.fill_mask_view(text, 5, "", "en")[2]


def test_page_loads_and_every_tab_opens(session: Session) -> None:
    from playwright.sync_api import expect

    page = session.page
    expect(page.locator("#parameters-totals")).to_contain_text("11,683,584")
    for tab, marker in (
        ("Sharing modes", "#sharing-button"),
        ("Masked words", "#mask-button"),
        ("Sentence order", "#order-button"),
        ("Attention", "#attention-button"),
        ("Sentiment", "#sentiment-button"),
        ("Parameter calculator", "#parameters-totals"),
    ):
        session.open_tab(tab)
        expect(page.locator(marker)).to_be_visible()
    session.shot("parameters")


def test_masked_word_prediction_is_shown(session: Session) -> None:
    from playwright.sync_api import expect

    page = session.page
    text = "the old sailor walked along the [MASK] near the village ."
    session.open_tab("Masked words")
    page.locator("#mask-text textarea").fill(text)
    page.locator("#mask-button").click()
    expected = _expected_fill(text)
    expect(page.locator("#mask-filled textarea")).to_have_value(expected)
    top_word = expected.split()[6]
    expect(page.locator("#mask-chart")).to_contain_text(top_word)
    expect(page.locator("#mask-words")).to_contain_text("3: sailor")
    session.shot("masked")


def test_bertviz_draws_offline(session: Session) -> None:
    page = session.page
    session.open_tab("Attention")
    page.locator("#attention-a textarea").fill("the old sailor walked along the river")
    page.locator("#attention-button").click()
    head = page.frame_locator("#head-view iframe")
    head.locator("svg text", has_text="sailor").first.wait_for()  # the new sentence's view, not the example's
    for view in ("#head-view", "#model-view"):
        frame = page.frame_locator(f"{view} iframe")
        frame.locator("#vis svg").first.wait_for()
        assert frame.locator("#vis svg").count() >= 1
    assert head.locator("svg text", has_text="sailor").count() >= 1
    page.locator("#attention-heatmaps .js-plotly-plot").wait_for()
    session.shot("attention")
    session.shot_of("#head-view", "attention-head-view")
    session.shot_of("#model-view", "attention-model-view")
    assert session.outside == [], f"requests to outside hosts: {session.outside[:5]}"


def test_sentiment_tab_classifies_and_escapes(session: Session) -> None:
    from playwright.sync_api import expect

    page = session.page
    session.open_tab("Sentiment")
    expect(page.locator("#sentiment-card")).to_contain_text("87.5%")
    page.locator("#sentiment-text textarea").fill("the old sailor " + PAYLOAD.removeprefix("[MASK] "))
    page.locator("#sentiment-button").click()
    expect(page.locator("#sentiment-verdict")).to_contain_text("Prediction")
    expect(page.locator("#sentiment-tokens")).to_contain_text("sailor")
    page.locator("#sentiment-passes .js-plotly-plot").wait_for()
    session.shot("sentiment")
    assert page.evaluate("window.__pwned") is None and session.dialogs == [] and session.outside == []


def test_chinese_switch(session: Session) -> None:
    from playwright.sync_api import expect

    page = session.page
    switch_language(page, "中文")
    expect(page.get_by_role("tab", name="参数计算器")).to_be_visible()
    expect(page.get_by_role("tab", name="遮蔽词预测")).to_be_visible()
    expect(page.locator("#sentiment-card")).to_contain_text("留出集", use_inner_text=True)
    page.get_by_role("tab", name="参数计算器").click()
    expect(page.locator("#parameters-totals")).to_contain_text("总计")
    session.shot("chinese")


def test_script_payload_never_runs(session: Session) -> None:
    from playwright.sync_api import expect

    page = session.page
    page.get_by_role("tab", name="遮蔽词预测").click()
    page.locator("#mask-text textarea").fill(PAYLOAD)
    page.locator("#mask-button").click()
    expect(page.locator("#mask-filled textarea")).to_have_value(re.compile(r"<script>window"))
    expect(page.locator("#mask-words")).to_contain_text("script")
    filled = page.locator("#mask-filled textarea").input_value()
    assert filled.endswith(PAYLOAD.removeprefix("[MASK]")) and "[MASK]" not in filled
    page.get_by_role("tab", name="注意力").click()
    page.locator("#attention-a textarea").fill(PAYLOAD)
    page.locator("#attention-button").click()
    page.frame_locator("#head-view iframe").locator("#vis svg").first.wait_for()
    session.shot("payload")
    session.shot_of("#head-view", "payload-head-view")
    assert page.evaluate("window.__pwned") is None
    for frame in page.frames:
        assert frame.evaluate("window.__pwned") is None
    assert session.dialogs == []
    assert session.outside == []


def test_typing_cancels_a_result_still_on_its_way(session: Session) -> None:
    """A run still waiting in the queue when the text changes never lands: the cleared result stays cleared
    (issue 17, item 2). The queue is made busy as a class makes it: other clients' attention requests ahead of the
    page's own /attention run (the same cost group: since issue 35 a masked-word run no longer waits behind them)."""
    from gradio_client import Client
    from playwright.sync_api import expect

    page = session.page
    switch_language(page, "English")  # an earlier test may have left 中文
    expect(page.get_by_role("tab", name="Parameter calculator")).to_be_visible()
    session.open_tab("Attention")
    page.wait_for_function("() => !/processing|queue:/.test(document.body.innerText)")
    box = page.locator("#attention-a textarea")
    box.fill("the old sailor walked along the river near the village .")
    page.locator("#attention-button").click()
    page.locator("#attention-heatmaps .js-plotly-plot").wait_for()  # that run has answered
    page.wait_for_function("() => !/processing|queue:/.test(document.body.innerText)")
    client = Client(session.url, verbose=False, analytics_enabled=False)
    for attempt in range(3):  # the race is set up again when the queue drained before the text changed (busy CI)
        ahead = [  # under the heavy group's waiting line of 16: every one is queued, none refused
            client.submit(
                "the old sailor walked " * 8, "along the river " * 8, 2, 64, "", "", "en", api_name="/attention"
            )
            for _ in range(12)
        ]
        page.wait_for_timeout(300)  # they are queued before the page's run
        box.fill(f"the young sailor walked along the river near the sea {attempt} .")
        with page.expect_response("**/queue/join*"):  # the run is in the queue, with its id: it can be cancelled
            page.locator("#attention-button").click()
        page.wait_for_timeout(250)  # a person types later still; by then the page holds the run's queue id
        box.press("End")
        box.type(" x")  # typed while that run waits behind the others: its result is for text that is gone
        expect(page.locator("#attention-status")).to_contain_text("Show attention")
        raced = not all(job.done() for job in ahead)  # the page's run was still waiting when the text changed
        for job in ahead:
            job.result(timeout=120)
        page.wait_for_timeout(3000)  # the page's run, had it not been cancelled, has been answered by now
        expect(page.locator("#attention-status")).to_contain_text("Show attention")
        expect(page.locator("#attention-heatmaps .js-plotly-plot")).to_have_count(0)
        if raced:
            break
    assert raced, "in three tries the queue ahead drained before the text changed: the race was never run"
