"""A phone page a student can read (issue 32, item 5), measured in Chromium at 390 × 844 in English and 中文 on every
tab: the tab bar shows that it scrolls sideways, no number in a table breaks across lines, nothing scrolls the page
sideways, chart titles fit their plot, tick labels do not overlap, and legends stay clear of axis titles.

Runs `python app.py` on the tiny test models (tests/app_support.py), every outside host blocked. Measurements are
written to test-artifacts/phone-measurements.json (not committed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.app.support import (
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    chromium_keeping_its_nice,
    keep_to_loopback,
    running_app,
    screenshot,
    switch_language,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
TABS = {
    "parameters": "#parameters-totals",
    "sharing": "#transitions-status",
    "masked": "#mask-status",
    "order": "#order-verdict",
    "attention": "#attention-status",
    "sentiment": "#sentiment-verdict",
    "training": "#training-verdict",
}
"""Each tab (its button is #tab-<name>-button) and the element that holds its first result."""

MEASURE_JS = r"""() => {
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
                                                                     getComputedStyle(e).visibility !== 'hidden'; };
  const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
  const out = {broken: [], wide: [], titles: [], ticks: [], legends: []};
  // numbers in tables: every match's text rectangles sit on one line
  const number = /[-+−]?\d[\d,.]*(?:\s?(?:%|×|ms|s|[KMGTP]?FLOPs?(?:\/s)?|[KMGT]?i?B|M|k))?/g;
  for (const cell of document.querySelectorAll('.prose td, .prose th')) {
    if (!visible(cell)) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(number)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) out.broken.push(m[0] + ' in «' + cell.textContent.trim().slice(0, 60) + '»');
      }
    }
  }
  // nothing wider than the window, unless it sits in a box that scrolls it
  const inner = window.innerWidth;
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p).overflowX; if (s === 'auto' || s === 'scroll' || s === 'hidden') return true; }
    return false; };
  for (const e of document.querySelectorAll('.gradio-container *')) {
    if (!visible(e)) continue;
    const r = e.getBoundingClientRect();
    if ((r.right > inner + 1 || r.left < -1) && !scrolls(e)) out.wide.push(e.tagName + '#' + e.id + '.' + e.className);
  }
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!visible(plot)) continue;
    const frame = box(plot.querySelector('svg.main-svg'));
    const title = plot.querySelector('.infolayer .gtitle');
    if (title && title.textContent) {
      const t = box(title);
      out.titles.push({text: title.textContent, left: t.l - frame.l, right: frame.r - t.r});
    }
    // tick labels of one axis never overlap each other; labels turned by an angle a (parallel strings) are apart
    // when their anchors' distance along the axis times sin(a) is at least one line of text
    for (const axis of plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
      const texts = [...axis.querySelectorAll('.xtick text, .ytick text')].filter(t => t.textContent);
      for (let i = 1; i < texts.length; i++) {
        const turn = /rotate\((-?[\d.]+)/.exec(texts[i].getAttribute('transform') || '');
        const angle = turn ? Math.abs(parseFloat(turn[1])) % 180 : 0;
        let clash;
        if (angle > 1 && angle < 89) {
          const [a, b] = [box(texts[i - 1]), box(texts[i])];
          const line = parseFloat(getComputedStyle(texts[i]).fontSize);
          clash = Math.abs((b.r + b.l) - (a.r + a.l)) / 2 * Math.sin(angle * Math.PI / 180) < 0.9 * line;
        } else clash = overlap(box(texts[i - 1]), box(texts[i]));
        if (clash) { out.ticks.push(axis.textContent.slice(0, 60)); break; }
      }
    }
    // the legend clear of the axis titles and the chart title
    const legend = plot.querySelector('.legend');
    if (legend && visible(legend)) {
      const l = box(legend.querySelector('.bg') || legend);
      for (const t of plot.querySelectorAll('.g-xtitle, .g-ytitle, .gtitle'))
        if (t.textContent && overlap(l, box(t))) out.legends.push(t.textContent);
    }
    // bar labels ('outside' text) inside the figure
    for (const t of plot.querySelectorAll('.bartext, .textpoint text')) {
      const b = box(t);
      if (t.textContent && (b.l < frame.l - 1 || b.r > frame.r + 1 || b.t < frame.t - 1))
        out.legends.push('bar label cut: ' + t.textContent);
    }
  }
  const bar = document.querySelector('#lab-tabs [role=tablist]');
  const cue = getComputedStyle(bar.parentElement, '::after');
  out.tabbar = {scroll: bar.scrollWidth, client: bar.clientWidth, left: bar.scrollLeft, cue: cue.content,
                cueWidth: cue.width,
                cueOpacity: cue.opacity, cueDisplay: cue.display};
  out.page = [document.scrollingElement.scrollWidth, inner];
  return out;
}"""


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))), args=ARGS
        )
        context = browser.new_context(viewport=PHONE)
        outside: list[str] = []

        keep_to_loopback(context, outside)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(running_app())
        page.get_by_role("tab", name="Parameter calculator").wait_for()
        yield page
        browser.close()
    assert outside == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_tab_is_readable_on_a_phone(phone, lang: str) -> None:
    from playwright.sync_api import expect

    switch = "English" if lang == "en" else "中文"
    switch_language(phone, switch)
    label = "Parameter calculator" if lang == "en" else "参数计算器"
    expect(phone.locator("#tab-parameters-button")).to_have_text(label)
    # the tab bar at its start: tabs hidden on the right, and the cue says so
    phone.locator("#lab-tabs [role=tablist]").evaluate("bar => bar.scrollTo({left: 0})")
    phone.wait_for_timeout(300)
    start = phone.evaluate(MEASURE_JS)["tabbar"]
    assert start["scroll"] > start["client"] and start["cue"] == '"›"' and float(start["cueOpacity"]) == 1, start
    measured, problems = {"tab bar at its start": start}, []
    for tab, result in TABS.items():
        phone.locator(f"#tab-{tab}-button").click()
        expect(phone.locator(result)).not_to_be_empty(timeout=90_000)
        if lang == "zh":  # the result redrawn in 中文, not the English one still on screen
            expect(phone.locator(result)).to_contain_text(re.compile("[\u4e00-\u9fff]"), timeout=90_000)
        phone.wait_for_timeout(1500)  # charts drawn, fonts settled
        seen = phone.evaluate(MEASURE_JS)
        measured[tab] = seen
        screenshot(phone, f"phone-{lang}-{tab}", full_page=True)
        where = f"{lang} {tab}"
        bar = seen["tabbar"]
        hidden_px = bar["scroll"] - bar["client"] - bar["left"]  # tab labels beyond the bar's right edge
        if hidden_px > 8 and (bar["cue"] in ("none", "normal") or float(bar["cueOpacity"]) < 0.5):
            problems.append(f"{where}: {hidden_px} px of tabs hidden on the right with no cue")
        problems += [f"{where}: number broken across lines: {b}" for b in seen["broken"]]
        problems += [f"{where}: wider than the window: {w}" for w in seen["wide"][:5]]
        if seen["page"][0] > seen["page"][1]:
            problems.append(f"{where}: the page scrolls sideways ({seen['page']})")
        problems += [
            f"{where}: chart title clipped: {t['text']!r} ({t['left']:.0f}, {t['right']:.0f} px)"
            for t in seen["titles"]
            if t["left"] < 0 or t["right"] < 0
        ]
        problems += [f"{where}: overlapping tick labels on {t}" for t in seen["ticks"]]
        problems += [f"{where}: legend or bar label over {t}" for t in seen["legends"]]
    (ARTIFACTS / f"phone-measurements-{lang}.json").write_text(
        json.dumps(measured, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    assert not problems, "\n".join(problems)


def test_the_number_check_sees_a_broken_number(phone) -> None:
    """The measurement itself: a number in a table cell too narrow for it, allowed to break anywhere, is caught."""
    phone.evaluate(
        """() => { const div = document.createElement('div'); div.id = 'lab-probe'; div.className = 'prose';
        div.innerHTML = '<table><tr><td style="width: 30px; max-width: 30px; white-space: normal; ' +
                        'overflow-wrap: anywhere; display: block">23,040,000 and 188.9 MFLOP/s</td></tr></table>';
        document.querySelector('.gradio-container').prepend(div); }"""
    )
    try:
        broken = phone.evaluate(MEASURE_JS)["broken"]
    finally:
        phone.evaluate("() => document.getElementById('lab-probe').remove()")
    assert any(b.startswith("23,040,000") for b in broken), broken
