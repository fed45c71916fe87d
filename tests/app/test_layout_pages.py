"""The page in Chromium on a phone (390 × 844) and a desktop (1,400 × 1,000): it fits, every tab answers when
opened, results never go stale, the language switch is reachable and quick, the font draws plain letters,
bertviz fits its frame (issue 17, items 1, 2, 4 and 6).

Runs `python app.py` on the tiny test models (tests/app/support.py), every outside host blocked.
Measurements are written to test-artifacts/layout-measurements.json (not committed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.app.support import (
    ARTIFACTS,
    chromium_keeping_its_nice,
    keep_to_loopback,
    running_app,
    screenshot,
    switch_language,
    tiny_assets,
)

pytestmark = pytest.mark.browser
from tests.app.test_layout_browser import ARGS, CHROMIUM  # noqa: E402 — same Chromium, same network rule

PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1400, "height": 1000}
TABS = {
    "Parameter calculator": "#parameters-totals",
    "Sharing modes": "#transitions-status",
    "Masked words": "#mask-status",
    "Sentence order": "#order-verdict",
    "Attention": "#attention-status",
    "Sentiment": "#sentiment-verdict",
    "Train it yourself": "#training-verdict",
}
"""Each tab and the element that holds its first result."""
LABEL_BUDGET_S = 8.0
"""The labels' language switch, click to the last tab label changed, measured inside the page and recorded
(`MEASURED`). The aim is ≤ 1 s on an idle machine (measured 0.2–0.6 s with two training runs on the 2 cores); its
speed is a benchmark's figure (`benchmarks/language_burst.py`), not this test's. Here the bound catches a switch
that hangs or redraws every tab: beside the suite's other workers a working switch took 1.3–3.7 s (the middle of
three: 3.16 s and 3.18 s in two CI runs, against the 3 s this bound once was)."""
MEASURED: dict[str, object] = {}


class Page:
    def __init__(self, page, viewport: dict[str, int]) -> None:
        self.page, self.viewport = page, viewport
        self.outside: list[str] = []

    def scroll_width(self) -> tuple[int, int]:
        return self.page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")

    def open(self, tab: str) -> None:
        """Click the tab (scrolled into view inside the tab bar) and wait for its first result."""
        from playwright.sync_api import expect

        self.page.get_by_role("tab", name=tab).click()
        expect(self.page.locator(TABS[tab])).not_to_be_empty(timeout=60_000)

    def box(self, selector: str) -> dict[str, float]:
        return self.page.locator(selector).first.bounding_box()


def _open_page(browser, url: str, viewport: dict[str, int]) -> Page:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    state = Page(page, viewport)

    keep_to_loopback(context, state.outside)
    page.set_default_timeout(60_000)
    page.goto(url)
    page.get_by_role("tab", name="Parameter calculator").wait_for()
    return state


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)  # a busy 2-core machine relabels the page slowly
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))), args=ARGS
        )
        yield launched
        launched.close()
    (ARTIFACTS / "layout-measurements.json").write_text(json.dumps(MEASURED, indent=1), encoding="utf-8")


@pytest.fixture(scope="module")
def phone(browser) -> Page:
    return _open_page(browser, running_app(), PHONE)


@pytest.fixture(scope="module")
def desktop(browser) -> Page:
    return _open_page(browser, running_app(), DESKTOP)


# ----- item 1: the layout fits -----------------------------------------------------------------------
@pytest.mark.parametrize("which", ["phone", "desktop"])
def test_no_tab_scrolls_sideways_and_every_tab_answers_when_opened(which: str, request) -> None:
    view: Page = request.getfixturevalue(which)
    widths = {}
    for tab in TABS:
        view.open(tab)  # item 2: opening the tab shows a result for its first example, no button pressed
        view.page.wait_for_timeout(300)
        width, inner = view.scroll_width()
        widths[tab] = width
        assert width <= inner, f"{which}: {tab} is {width} px wide in a {inner} px window"
    screenshot(view.page, f"layout-{which}")
    MEASURED[f"scroll_width_{which}"] = {"window": view.viewport["width"], **widths}
    assert view.outside == []


def test_narrow_and_wide_windows_never_scroll_sideways(browser) -> None:
    """360 px (the smallest phones), then the same window widened to 768 and 1,920 px, on the busiest tab (opened at
    390 and 1,400 px by the tests above). One page, resized: a window widened or a tablet turned must fit as a fresh
    page does, and each page load costs Chromium ~3.5 s of CPU."""
    view = _open_page(browser, running_app(), {"width": 360, "height": 900})
    view.open("Attention")
    for width in (360, 768, 1920):
        view.page.set_viewport_size({"width": width, "height": 900})
        view.page.wait_for_function(f"() => window.innerWidth === {width}")
        view.page.wait_for_timeout(500)  # the page lays itself out again (Plotly's and bertviz's frames included)
        scroll, inner = view.scroll_width()
        MEASURED[f"scroll_width_attention_{width}"] = scroll
        assert scroll <= inner == width
    view.page.context.close()


def test_columns_stack_on_a_phone_and_sit_side_by_side_on_a_desktop(phone: Page, desktop: Page) -> None:
    for view, stacked in ((phone, True), (desktop, False)):
        view.open("Masked words")
        text, answer = view.box("#mask-text"), view.box("#mask-chart")  # the answer's column starts with its chart
        if stacked:  # inputs above results, each the full width of the page
            assert answer["y"] >= text["y"] + text["height"] - 1 and abs(answer["x"] - text["x"]) < 24
            assert text["width"] > 0.8 * (view.viewport["width"] - 40)
        else:
            assert answer["x"] >= text["x"] + text["width"] - 1 and abs(answer["y"] - text["y"]) < 40


def test_the_tab_bar_scrolls_and_keeps_every_tab(phone: Page) -> None:
    bar = phone.page.locator("#lab-tabs [role=tablist]")
    sizes = bar.evaluate("e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
    assert sizes[0] > sizes[1] and sizes[2] == "auto"  # wider than the phone: it scrolls inside itself
    assert bar.get_by_role("tab").count() == len(TABS)  # all seven in the bar, none hidden in a menu
    phone.open("Train it yourself")  # the last one: scrolled into view and opened
    assert bar.evaluate("e => e.scrollLeft") > 0


def test_the_language_switch_is_on_screen_and_clickable(phone: Page, desktop: Page) -> None:
    from playwright.sync_api import expect

    for view in (phone, desktop):
        view.page.evaluate("window.scrollTo(0, 0)")
        box = view.box("#language")
        assert 0 <= box["x"] and box["x"] + box["width"] <= view.viewport["width"]
        assert 0 <= box["y"] and box["y"] + box["height"] <= view.viewport["height"]  # in the first screen
        label = view.page.locator("#language label").filter(has_text="中文")
        centre = label.bounding_box()
        hit = view.page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('#language') !== null",
            [centre["x"] + centre["width"] / 2, centre["y"] + centre["height"] / 2],
        )
        assert hit  # nothing covers it
        label.click()
        expect(view.page.get_by_role("tab", name="参数计算器")).to_be_visible()
        expect(view.page.locator("html")).to_have_attribute("lang", "zh-CN")  # read as Chinese, in Chinese glyphs
        switch_language(view.page, "English")
        expect(view.page.get_by_role("tab", name="Parameter calculator")).to_be_visible()


# ----- item 6: plain letters -------------------------------------------------------------------------
def test_the_page_uses_system_fonts_not_montserrat(desktop: Page) -> None:
    desktop.open("Parameter calculator")
    families = desktop.page.evaluate("""() => ['.gradio-container', '#lab-header h1', '[role=tab]', 'textarea',
                                                  '.prose', 'label']
        .map(s => document.querySelector(s)).filter(Boolean).map(e => getComputedStyle(e).fontFamily)""")
    assert len(families) >= 5
    for family in families:
        assert "montserrat" not in family.lower() and "system-ui" in family, family
    loaded = desktop.page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
    assert not [f for f in loaded if "montserrat" in f.lower()]
    # The formula reads V × E + E × H in the page's own text.
    assert "V × E + E × H" in desktop.page.locator("body").inner_text()


# ----- item 4: bertviz fits its frame, the head control ends at the model's heads -----------------------
@pytest.mark.parametrize("which", ["phone", "desktop"])
def test_bertviz_views_fit_their_frames(which: str, request) -> None:
    view: Page = request.getfixturevalue(which)
    view.open("Attention")
    page = view.page
    for selector in ("#head-view", "#model-view"):
        page.frame_locator(f"{selector} iframe").locator("#vis svg").first.wait_for()
    frames = [f for f in page.frames if f is not page.main_frame]
    assert len(frames) == 2
    sizes = [
        frame.evaluate("""() => { const svg = document.querySelector('#vis svg').getBoundingClientRect();
        const root = document.documentElement;
        const fonts = [...document.querySelectorAll('svg text')].map(e => parseFloat(getComputedStyle(e).fontSize));
        return {sw: root.scrollWidth, iw: innerWidth, sh: root.scrollHeight, ih: innerHeight,
                bottom: svg.bottom, right: svg.right, zoom: parseFloat(getComputedStyle(root).zoom),
                kind: document.getElementById('layer') ? 'head' : 'model', font: Math.min(...fonts),
                numbers: [...document.querySelectorAll('#layer option, svg text')].map(e => e.textContent)}; }""")
        for frame in frames
    ]
    MEASURED[f"bertviz_{which}"] = [{k: v for k, v in s.items() if k != "numbers"} for s in sizes]
    for size in sizes:
        assert size["sw"] <= size["iw"] + 1 and size["sh"] <= size["ih"] + 1, size  # no scroll bar inside
        assert size["bottom"] <= size["ih"] + 1, size  # the whole view shows
        assert "0" not in size["numbers"]  # passes and heads counted from 1
    layers = [s for s in sizes if any(n == "1" for n in s["numbers"])]
    assert layers, "the views number layers 1 … L"
    if which == "phone":
        assert min(s["zoom"] for s in sizes) < 1  # scaled down to the phone's frame
        # ... and still readable (issue 54, item 7): the model view's labels at 9 px or more on the phone's screen
        # for the tiny model's 4 heads (a shipped 2-head model's view draws at full size)
        model = next(s for s in sizes if s["kind"] == "model")
        assert model["font"] * model["zoom"] >= 9, model
    slider = page.locator("#attention-head input[type=range]")
    assert slider.get_attribute("max") == "4"  # the tiny model's heads (tests/factories.TINY)


# ----- item 2: examples run, edits clear, the language redraws ------------------------------------------
def test_clicking_an_example_runs_it_and_typing_clears_the_result(desktop: Page) -> None:
    from playwright.sync_api import expect

    from tests.app.test_layout_browser import _expected_fill

    page = desktop.page
    desktop.open("Masked words")
    example = page.locator("#tab-masked button.gallery-item").nth(1)
    text = example.inner_text().strip()
    example.click()
    expect(page.locator("#mask-text textarea")).to_have_value(text)
    expect(page.locator("#mask-filled textarea")).to_have_value(_expected_fill(text))
    page.locator("#mask-text textarea").fill("the old [MASK] walked along the rive")
    page.locator("#mask-text textarea").press_sequentially("r")  # typed: the page clears the result at once
    expect(page.locator("#mask-filled textarea")).to_have_value("", timeout=2_000)
    expect(page.locator("#mask-words label")).to_have_count(0, timeout=2_000)  # no words of the old text
    expect(page.locator("#mask-status")).to_contain_text("The input changed")
    page.locator("#mask-button").click()
    expect(page.locator("#mask-filled textarea")).to_have_value(_expected_fill("the old [MASK] walked along the river"))


def test_switching_language_relabels_quickly_and_redraws_the_results(desktop: Page) -> None:
    from playwright.sync_api import expect

    page = desktop.page
    desktop.open("Attention")
    desktop.open("Masked words")
    page.wait_for_timeout(1000)
    seconds = []
    for target, tab in (("中文", "参数计算器"), ("English", "Parameter calculator"), ("中文", "参数计算器")):
        started = time.perf_counter()
        milliseconds = page.evaluate(
            """([target, name]) => new Promise(resolve => {
            const label = [...document.querySelectorAll('#language label')].find(l => l.textContent.includes(target));
            const t0 = performance.now();
            const done = () => [...document.querySelectorAll('[role=tab]')].some(b => b.textContent.trim() === name);
            const watch = new MutationObserver(() => {
                if (done()) { watch.disconnect(); resolve(performance.now() - t0); } });
            watch.observe(document.body, {subtree: true, childList: true, characterData: true});
            label.click(); })""",
            [target, tab],
        )
        seconds.append(milliseconds / 1000)
        assert time.perf_counter() - started < 30
        status = "模型" if target == "中文" else "Model"
        expect(page.locator("#mask-status")).to_contain_text(status, timeout=60_000)  # the result redrawn too
        page.wait_for_timeout(1500)
    MEASURED["language_switch_labels_s"] = seconds
    # the middle of the three switches: one switch can wait behind another worker's burst of CPU
    assert sorted(seconds)[len(seconds) // 2] <= LABEL_BUDGET_S, seconds
    expect(page.locator("#mask-chart")).to_contain_text("概率")  # the chart's axis in 中文
    page.get_by_role("tab", name="注意力").click()
    expect(page.locator("#attention-status")).to_contain_text("共享方式", timeout=60_000)
    head = page.frame_locator("#model-view iframe")
    expect(head.locator("svg text", has_text="注意力头")).to_have_count(1)
    switch_language(page, "English")
    expect(page.get_by_role("tab", name="Parameter calculator")).to_be_visible()
    assert tiny_assets().models.is_dir()
