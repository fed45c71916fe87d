"""The *Sentence order* tab's side-by-side in Chromium on a 390 px phone, in English and in 中文 (issue 30, item 4).

`python app.py` serves tests/app/tabs/order/support.py's tiny world: SOP and NSP models in both languages and a
small list of other-book segments. Pressing 🎲 puts a segment of another book in the third box, and both models'
answers (the numbers this process computes for the same text) appear side by side, beside the paper's Table 5; the
page never scrolls sideways. Every outside host is blocked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.support import (
    ARGS,
    CHROMIUM,
    QueueTraffic,
    chromium_keeping_its_nice,
    keep_to_loopback,
    screenshot,
    start_app,
    switch_language,
    use_tiny_assets,
)
from tests.app.tabs.order.support import OTHERS, tiny_order_assets

pytestmark = pytest.mark.browser
WAIT = 90_000
"""Milliseconds to wait for one element's text: a busy 2-core machine draws slowly."""
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    return tiny_order_assets(tmp_path_factory.mktemp("order-browser"))


@pytest.fixture(scope="module")
def page(world: tuple, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A phone-sized page of the app serving the tiny world (one server for this module), in English."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    assets, others = world
    directory = tmp_path_factory.mktemp("order-server")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ALBERT_LAB_ORDER_OTHERS", str(others))  # the server reads the tiny world's segments
        server = start_app(directory / "server.log", assets)
    outside: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(chromium_keeping_its_nice(directory)), args=ARGS)
            context = browser.new_context(viewport=PHONE)

            keep_to_loopback(context, outside)
            view = context.new_page()
            view.set_default_timeout(WAIT)
            expect.set_options(timeout=WAIT)
            view.goto(server.url)
            view.get_by_role("tab", name="Parameter calculator").wait_for()
            QueueTraffic(view, WAIT / 1000).wait_quiet(view)
            yield view
            browser.close()
    finally:
        server.stop()
    assert outside == [], outside[:5]


@pytest.fixture
def in_process(world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's views, called in this process, read the same models as the server."""
    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(world[0].models))


def _draw_and_check(page: Any, lang: str, names: tuple[str, str], other_row: str) -> None:
    """Press 🎲: another book's segment fills the third box, and both models answer for it, side by side."""
    from playwright.sync_api import expect

    from app.tabs.order.views import sentence_order_view

    box = page.locator("#order-other textarea")
    before = box.input_value()
    page.locator("#order-draw").click()
    expect(box).to_have_value(re.compile("|".join(re.escape(s) for s in OTHERS[lang] if s != before)))
    drawn = box.input_value()
    a, b = page.locator("#order-a textarea").input_value(), page.locator("#order-b textarea").input_value()
    raw, _, verdict, _ = sentence_order_view(a, b, "", lang, drawn)
    assert (raw["model"], raw["beside"]["model"]) == names, raw
    shown = page.locator("#order-verdict")
    expect(shown).to_contain_text(other_row)
    for answer in (raw, raw["beside"]):  # both columns, all three pairs, as this process computes them
        for key in ("p_in_order_a_then_b", "p_in_order_b_then_a", "p_a_then_other"):
            expect(shown).to_contain_text(f"{answer[key]:.1%}")
    for name in names:
        expect(shown).to_contain_text(name)
    chart = page.locator("#order-chart")
    for name in names:
        expect(chart).to_contain_text(name)  # one series of bars per model
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{lang}: the sentence-order tab is {width} px wide on a {inner} px phone"


def test_the_draw_shows_both_models_side_by_side_in_english_and_chinese(page: Any, in_process: None) -> None:
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Sentence order").click()
    expect(page.locator("#order-verdict")).to_contain_text("NSP model")  # the tab's first example, answered
    expect(page.locator("#order-table5")).to_contain_text("52.0")  # Table 5 beside it: NSP at chance on order
    expect(page.locator("#order-table5")).to_contain_text("50.3%")
    _draw_and_check(page, "en", ("albert-lab-base", "albert-lab-nsp"), "A → other book")
    screenshot(page, "order-phone-en", full_page=True)

    traffic = QueueTraffic(page, WAIT / 1000)
    switch_language(page, "中文")
    expect(page.get_by_role("tab", name="句子顺序")).to_be_visible()
    expect(page.locator("#order-a textarea")).to_have_value(re.compile(r"[\u4e00-\u9fff]"))  # the Chinese example
    expect(page.locator("#order-draw")).to_contain_text("抽一段另一本书的 B")
    expect(page.locator("#order-table5")).to_contain_text("论文的表 5")
    traffic.wait_quiet(page)  # the switch's redraw has landed
    _draw_and_check(page, "zh", ("albert-lab-zh", "albert-lab-zh-nsp"), "A → 另一本书")
    expect(page.locator("#order-verdict")).to_contain_text("SOP 模型")
    screenshot(page, "order-phone-zh", full_page=True)


def test_in_chinese_each_example_click_loads_that_chinese_example(page: Any) -> None:
    """The example tables follow the language, and a click fills the boxes with the row the page shows: in 中文 every
    click loaded the English example of the same row (Gradio's gr.Examples kept the rows it was built with)."""
    from playwright.sync_api import expect

    from app.page.examples import mask_texts, order_pairs, sentiment_texts

    switch_language(page, "中文")  # (the test above left it there)
    clicks = [
        ("遮蔽词预测", mask_texts("zh")[1], "#mask-text textarea", mask_texts("zh")[1]),
        ("句子顺序", order_pairs("zh")[0][0], "#order-a textarea", order_pairs("zh")[0][0]),
        ("情感分类", sentiment_texts("zh")[1], "#sentiment-text textarea", sentiment_texts("zh")[1]),
    ]
    for tab, row, box, value in clicks:
        page.get_by_role("tab", name=tab).click()
        page.locator(box).fill("x")  # whatever the box held, the click must put the row there
        page.get_by_text(row, exact=True).locator("visible=true").first.click()
        expect(page.locator(box)).to_have_value(value)
        expect(page.get_by_role("tab", name=tab)).to_be_visible()  # the labels stayed in 中文
    expect(page.locator("#order-b textarea")).to_have_value(order_pairs("zh")[0][1])  # the whole row: B as well
