"""Issue 42, item 3: a phone shows whole charts and tables. Chromium as a 390 × 844 phone (a phone's User-Agent,
touch), on every tab in English and 中文, measures in one pass per tab:

- every heatmap pass and the colour scale inside the window (the passes are stacked on a phone), or, past ~24 tokens
  (issue 54: every token keeps its label), inside a box that scrolls sideways with a cue on screen;
- every table (Markdown, gr.Dataframe, an example table) either with all its cells inside its box, or scrolling
  sideways inside it with a cue on screen (a shadow at the edge) and its first column still in view, and at most half
  the box wide, at the far end of the scroll; no gr.Dataframe rows behind an inner scroll;
- no Plotly toolbar on a touch screen (it covered every chart title);
- every chart text (titles, axis titles, tick labels, bar values) inside its figure, and no two bar values over each
  other ("1.001.00");
- no Markdown mark (`**`) left as text, no example cell on more than two lines (a line a clamp hides is not on
  screen).

Runs `python app.py` on the tiny test models (tests/app/support.py), every outside host blocked; the measurements go
to test-artifacts/phone-whole-<lang>.json (not committed).
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
    PHONE,
    chromium_keeping_its_nice,
    keep_to_loopback,
    running_app,
    screenshot,
    switch_language,
)

pytestmark = pytest.mark.browser

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
MEASURED = {"parameters": ("Dataframe", "table"), "sharing": ("Dataframe",), "order": ("examples", "table")}
"""The kinds of table each of these tabs must show, so that a selector that stops matching fails instead of passing."""
EXAMPLES = ("masked", "order", "sentiment")
"""The tabs with examples (a gr.Dataset: a table, or a gallery of buttons when it has one column)."""

MEASURE_JS = r"""() => {
  const inner = window.innerWidth;
  const shown = e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
                       return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const box = e => e.getBoundingClientRect();
  const name = e => (e.textContent || '').trim().slice(0, 50);
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                            Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const out = {passes: 0, measured: [], heatmaps: [], tables: [], cued: [], toolbars: [], cut: [], together: [],
               marks: [], examples: 0, tall: []};
  const cueIn = e => {
    const own = getComputedStyle(e).backgroundImage.includes('gradient');
    const drawn = ['::before', '::after'].some(p => { const s = getComputedStyle(e, p);
      return s.content !== 'none' && s.display !== 'none' && s.backgroundImage.includes('gradient') &&
             parseFloat(s.opacity) > 0.5; });
    return own || drawn;
  };
  // A heatmap wider than the phone (past ~24 tokens every token keeps its label, issue 54) scrolls sideways in its
  // own box with a cue on screen, as a table may (below); the page never does.
  const scrollsWithCue = plot => getComputedStyle(plot).overflowX === 'auto' &&
    plot.scrollWidth > plot.clientWidth + 1 && [plot, plot.closest('#attention-heatmaps')].some(e => e && cueIn(e));
  for (const plot of document.querySelectorAll('#attention-heatmaps .js-plotly-plot')) {
    if (!shown(plot)) continue;
    const scrolled = scrollsWithCue(plot);
    if (scrolled) out.cued.push(`heatmaps scroll inside (${plot.scrollWidth} px in ${plot.clientWidth})`);
    for (const map of plot.querySelectorAll('.draglayer .nsewdrag')) {
      const r = box(map);
      if (r.width < 1) continue;
      out.passes += 1;
      const reach = scrolled ? box(plot).left + plot.scrollWidth - plot.scrollLeft : inner;  // the box's far end
      if (r.left < -1 || r.right > reach + 1) out.heatmaps.push(`a pass at ${r.left | 0}–${r.right | 0} px`);
    }
    for (const bar of plot.querySelectorAll('.colorbar')) {
      const r = box(bar);
      if (r.left < -1 || r.right > inner + 1) out.heatmaps.push(`colour scale at ${r.left | 0}–${r.right | 0} px`);
    }
  }
  // Every table (Markdown, gr.Dataframe, a gr.Dataset of examples) either fits its box, every cell inside it, or
  // scrolls sideways inside it with a cue on screen (a shadow, drawn by its background or a pseudo-element) and its
  // first column still in view, and not more than half the box wide, at the far end of the scroll.
  for (const table of document.querySelectorAll('.gradio-container table')) {
    if (!shown(table) || table.closest('.json-holder')) continue;
    const frame = table.closest('.table-container');  // a gr.Dataframe: a header <table>, its rows <div>s
    const kind = frame ? 'Dataframe' : table.querySelector('td[data-testid^="dataset-cell"]') ? 'examples' : 'table';
    const cells = [...(frame || table).querySelectorAll(frame ? '.header-cell, .body-cell' : 'td, th')].filter(shown);
    const firsts = frame ? [...frame.querySelectorAll('.body-cell.first-column')]
                         : [...table.querySelectorAll('tr > td:first-child')];
    const label = `${kind} «${name(cells[0] || table)}»`;
    out.measured.push(kind);
    let scroller = null;  // the box it scrolls in: the nearest one, from the table up to its block, that may scroll
    for (let e = table; e && e !== document.body; e = e.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) { scroller = e; break; }
      if (e.matches('.block, .prose')) break;
    }
    if (frame && scroller && scroller.scrollHeight > scroller.clientHeight + 1)
      out.tables.push(`${label}: rows behind an inner scroll (${scroller.scrollHeight} px in ` +
                      `${scroller.clientHeight})`);
    if (scroller && scroller.scrollWidth > scroller.clientWidth + 1) {
      let cue = false;  // on the box that scrolls or one of the three around it (a Dataframe draws it on its wrap)
      for (let e = scroller, up = 0; e && up < 4 && !cue; e = e.parentElement, up++) cue = cueIn(e);
      const view = box(scroller);
      scroller.scrollLeft = scroller.scrollWidth;
      const first = firsts.find(shown);
      const r = first && box(first);
      const kept = r && r.left >= view.left - 1 && r.right <= view.right + 1 && r.width <= view.width / 2;
      scroller.scrollLeft = 0;
      if (cue && kept) out.cued.push(`${label} scrolls inside (${scroller.scrollWidth} px in ${scroller.clientWidth})`);
      else out.tables.push(`${label} scrolls inside without ${cue ? '' : 'a cue'}${cue || kept ? '' : ' and '}` +
                           `${kept ? '' : 'its first column in view'}`);
      continue;
    }
    const frameBox = box(scroller || table.closest('.block, .prose') || table);
    const right = Math.min(frameBox.right, inner), left = Math.max(frameBox.left, 0);
    const cut = cells.find(cell => { const r = box(cell);
                                     return r.width && (r.right > right + 1 || r.left < left - 1); });
    if (cut) out.tables.push(`${label}: «${name(cut)}» cut`);
  }
  for (const bar of document.querySelectorAll('.modebar-container, .modebar'))
    if (shown(bar)) out.toolbars.push(bar.className.baseVal || bar.className);
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!shown(plot)) continue;
    const svg = plot.querySelector('svg.main-svg');
    if (!svg) continue;
    const frame = box(svg);
    const inside = plot.closest('#attention-heatmaps') && scrollsWithCue(plot);  // the window does not bound it
    const texts = [...plot.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .xtick text, .ytick text, ' +
                                            '.annotation-text, .bartext, .legendtext, .cbtitle text, .cbaxis text')]
      .filter(t => t.textContent && shown(t));
    for (const t of texts) {
      const r = box(t);
      const outside = r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1 ||
                      r.bottom > frame.bottom + 1 || (!inside && (r.left < -1 || r.right > inner + 1));
      if (outside)
        out.cut.push(`${plot.parentElement.closest('[id]')?.id}: «${t.textContent.slice(0, 40)}»`);
    }
    const values = [...plot.querySelectorAll('.bartext')].filter(t => t.textContent && shown(t));
    for (let i = 0; i < values.length; i++)
      for (let j = i + 1; j < values.length; j++)
        if (overlap(box(values[i]), box(values[j])))
          out.together.push(`«${values[i].textContent}» over «${values[j].textContent}»`);
  }
  const walker = document.createTreeWalker(document.querySelector('.gradio-container'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (node.textContent.includes('**') && parent && shown(parent) && !parent.closest('textarea, code, pre'))
      out.marks.push(node.textContent.trim().slice(0, 60));
  }
  // An example's cell (gr.Dataset: a table's cells, or a one-column gallery's buttons): its lines. From the third
  // column on (on a phone, below the first two: app/static/lab.css) only those on screen count: a clamp may end a long
  // one with "…" there (Gradio itself cuts an example past 60 characters with "..."); the first two are whole.
  for (const cell of document.querySelectorAll('td[data-testid^="dataset-cell"], .gallery-item')) {
    if (!shown(cell)) continue;
    const clamped = Number(cell.getAttribute('aria-colindex') || 1) > 2;
    const lines = new Set();
    const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(text);
      const clip = box(text.parentElement);
      for (const r of range.getClientRects()) {
        const middle = (r.top + r.bottom) / 2;
        if (r.width > 0 && (!clamped || (middle > clip.top && middle < clip.bottom))) lines.add(Math.round(r.top));
      }
    }
    out.examples += 1;
    if (lines.size > 2) out.tall.push(name(cell));
  }
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
        context = browser.new_context(**PHONE)
        outside: list[str] = []

        keep_to_loopback(context, outside)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(running_app())
        page.get_by_role("tab", name="Parameter calculator").wait_for()
        # app/static/fit_charts.js, run by the page (app.layout.PAGE_JS), fits a chart drawn while its tab was hidden
        page.wait_for_function("() => typeof window.labFitCharts === 'function'")
        yield page
        browser.close()
    assert outside == []


def settled_measure(page, pause_ms: int = 1500, tries: int = 10) -> dict:
    """MEASURE_JS once two measurements `pause_ms` apart agree: a chart redrawn in the new language (Plotly lays it
    out again after it lands) is judged drawn, not mid-redraw (under the suite's load one was measured with every
    text of the Parameters tab's chart cut, axis ticks included)."""
    page.wait_for_timeout(pause_ms)  # charts drawn, fonts settled
    seen = page.evaluate(MEASURE_JS)
    for _ in range(tries):
        page.wait_for_timeout(pause_ms)
        again = page.evaluate(MEASURE_JS)
        if again == seen:
            break
        seen = again
    return seen


def test_a_phone_shows_whole_charts_and_tables(phone) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    cued: list[str] = []  # tables wider than the phone that scroll with a shadow cue, their first column in view
    for lang, switch, label in (("en", "English", "Parameter calculator"), ("zh", "中文", "参数计算器")):
        switch_language(phone, switch)
        expect(phone.locator("#tab-parameters-button")).to_have_text(label)
        measured = {}
        for tab, result in TABS.items():
            phone.locator(f"#tab-{tab}-button").click()
            expect(phone.locator(result)).not_to_be_empty(timeout=90_000)
            if lang == "zh":  # the result redrawn in 中文, not the English one still on screen
                expect(phone.locator(result)).to_contain_text(re.compile("[\u4e00-\u9fff]"), timeout=90_000)
            if tab == "attention":
                phone.locator("#attention-heatmaps .js-plotly-plot .nsewdrag").first.wait_for()
            seen = measured[tab] = settled_measure(phone)
            screenshot(phone, f"phone-whole-{lang}-{tab}", full_page=True)
            where = f"{lang} {tab}"
            if tab == "attention" and seen["passes"] < 2:
                problems.append(f"{where}: {seen['passes']} heatmap passes drawn")
            problems += [f"{where}: heatmap outside the window: {h}" for h in seen["heatmaps"]]
            problems += [f"{where}: {c}" for c in seen["tables"]]
            missing = [kind for kind in MEASURED.get(tab, ()) if kind not in seen["measured"]]
            problems += [f"{where}: no {kind} table found to measure" for kind in missing]
            if tab in EXAMPLES and not seen["examples"]:
                problems.append(f"{where}: no example cell found to measure")
            cued += [f"{where}: {c}" for c in seen["cued"]]
            problems += [f"{where}: Plotly toolbar shown: {b}" for b in seen["toolbars"][:1]]
            problems += [f"{where}: chart text cut: {c}" for c in seen["cut"]]
            problems += [f"{where}: bar values run together: {c}" for c in seen["together"][:3]]
            problems += [f"{where}: Markdown marks shown: {m}" for m in seen["marks"]]
            problems += [f"{where}: example cell on 3+ lines: {m}" for m in seen["tall"][:3]]
        measured["cued tables"] = cued
        (ARTIFACTS / f"phone-whole-{lang}.json").write_text(
            json.dumps(measured, indent=1, ensure_ascii=False), encoding="utf-8"
        )
    assert not problems, "\n".join(problems)
