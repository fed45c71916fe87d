"""Issue 42, item 2: both teacher's guides walked literally in Chromium, stop by stop, reading every figure off the
page: each on a 1,280 × 720 projector and a 1,400 × 1,000 desktop, where every figure a stop quotes must be drawn
inside the screen the stop's action leaves (issue 54, item 5: the teacher does not scroll), and 中文 on a 390 × 844
phone (a phone's User-Agent and touch). After each stop of a 中文 walk no English is on the screen beyond names, the
user's text and the model's (tests/app/test_layout_chinese.py's rule). The stops are docs/teaching/stops.py, which
tests/docs/test_guide_stops.py checks against the guides' text.

`python app.py` on the shipped models (assets/), offline, every outside host blocked; one server for the module, one
page per walk. Each stop's seconds go to test-artifacts/guide-walk-<lang>-<screen>.json (not committed).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from tests.app.support import (
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    PHONE,
    REPO,
    AppServer,
    QueueTraffic,
    chromium_keeping_its_nice,
    free_port,
    keep_to_loopback,
    screenshot,
    switch_language,
    wait_for_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_SPEC = importlib.util.spec_from_file_location("guide_stops", REPO / "docs" / "teaching" / "stops.py")
assert _SPEC is not None and _SPEC.loader is not None
stops = importlib.util.module_from_spec(_SPEC)
sys.modules["guide_stops"] = stops
_SPEC.loader.exec_module(stops)

SCREENS: dict[str, dict] = {
    "projector": {"viewport": {"width": 1280, "height": 720}},
    "desktop": {"viewport": {"width": 1400, "height": 1000}},
    "phone": PHONE,
}
FOLDED = ("projector", "desktop")
"""Screens where every quoted figure must be inside the screen the stop's action leaves (a phone scrolls anyway)."""
WALKS = [("en", "projector"), ("en", "desktop"), ("zh", "projector"), ("zh", "desktop"), ("zh", "phone")]
WAIT_MS = 120_000
CHART_VALUES_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => ({
  id: plot.closest('[id]')?.id, shown: plot.offsetParent !== null,
  ys: (plot._fullData || []).map(trace => trace.y && trace.y.length !== undefined
        ? Array.from(trace.y).slice(0, 8).map(v => typeof v === 'number' ? +v.toFixed(2) : v) : null)}))"""
"""What a failed chart check reports: each Plotly chart's nearest id, whether it is shown, its traces' first values."""
STATUS_JS = """() => [...document.querySelectorAll('[id$=-status]')].filter(e => e.offsetParent)
  .map(e => e.id + ': ' + e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 200))"""
"""What a failed chart check reports besides: the status line of the tab shown (a result's model, or a hint)."""
CHART_TEXTS_JS = """
  const chartTexts = plot => (plot.offsetParent && plot._fullData ? plot._fullData : [])
  .filter(trace => trace.y && typeof trace.y !== 'string' && trace.y.length !== undefined)
  .map(trace => Array.from(trace.y).filter(v => typeof v === 'number'))  // plotly may carry typed arrays
  .filter(ys => ys.length)
  .flatMap(ys => [ys.map(v => v.toFixed(2)).join(', '), ys.map(v => v.toFixed(1) + '°').join(', ')]);"""
"""How a shown chart's figures read as text (each trace's values at 2 places, and as degrees): what both checks below
search when a stop's figure is drawn by a chart."""
TEXT_JS = (
    """([id, wanted]) => {
  const flat = s => (s || '').replace(/\\s+/g, ' ');"""
    + CHART_TEXTS_JS
    + """
  const text = id === 'charts'
    ? [...document.querySelectorAll('.js-plotly-plot')].flatMap(chartTexts).join(' | ')
    : flat(document.getElementById(id)?.textContent);
  return text.includes(flat(wanted));
}"""
)

WHERE_JS = (
    """([id, wanted]) => {"""
    + CHART_TEXTS_JS
    + """
  let element = null, rect = null;
  if (id === 'charts') {
    element = [...document.querySelectorAll('.js-plotly-plot')]
      .find(plot => chartTexts(plot).some(text => text.includes(wanted))) || null;
  } else {
    element = document.getElementById(id);
    const walker = element && document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let node;
    while (walker && (node = walker.nextNode())) {
      const at = node.textContent.indexOf(wanted);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      rect = range.getBoundingClientRect();
      break;
    }
  }
  if (!element) return null;
  rect = rect || element.getBoundingClientRect();
  return {top: Math.round(rect.top), bottom: Math.round(rect.bottom), height: window.innerHeight};
}"""
)
"""Where a figure is drawn, relative to the screen: the text's own box, or the whole box of the chart that draws it."""


def where_drawn(page, target: str, text: str) -> dict | None:
    """{top, bottom, height} of `text` in #`target` (or of the chart drawing it) on the screen now; None if absent."""
    return page.evaluate(WHERE_JS, [target, text])


def on_screen(where: dict | None) -> bool:
    return bool(where) and where["top"] >= 0 and where["bottom"] <= where["height"]


def english_on_screen(page) -> set[str]:
    """Latin words on the page and in its frames that are neither names nor the user's or the model's text
    (tests/app/test_layout_chinese.py's rule)."""
    from tests.app.test_layout_chinese import USER_TEXT, VISIBLE_TEXT, WORD, leftover_english

    texts, user = page.evaluate(VISIBLE_TEXT), page.evaluate(USER_TEXT)
    for frame in page.frames[1:]:
        texts += frame.evaluate(VISIBLE_TEXT)
        user += frame.evaluate(USER_TEXT)
    return leftover_english(texts, {word.lower() for text in user for word in WORD.findall(text)})


@pytest.fixture(scope="module")
def shipped_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python app.py` on the shipped models, offline, on a free loopback port."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALBERT_LAB_")}
    env |= {
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "TOKENIZERS_PARALLELISM": "false",
        "ALBERT_LAB_WARM_TRAINING": "0",  # no stop trains: two arms started ahead would import torch for nothing
    }
    log_path = tmp_path_factory.mktemp("guide-walk") / "server.log"
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 — closed by AppServer.stop
    process = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = AppServer(f"http://127.0.0.1:{port}/", process, log)
    try:
        wait_for_page(server.url, process, 600)
        yield server.url
    finally:
        server.stop()


def do_step(page, step) -> None:
    """Do one step of a guide stop on the page (docs/teaching/stops.py: `Step.do`)."""
    if step.do == "tab":
        page.locator(f"#tab-{step.target}-button").click()
    elif step.do == "example":
        page.get_by_text(step.text, exact=True).locator("visible=true").first.click()
    elif step.do == "fill":
        page.locator(f"#{step.target}").locator("textarea, input").first.fill(step.text)
    elif step.do == "click":
        page.locator(f"#{step.target}").click()
    elif step.do == "model":
        picker = page.locator("#model-picker input").first
        picker.click()
        picker.fill(step.text)
        page.locator("[role=option]", has_text=step.text).first.click()
    elif step.do == "see":
        _see(page, step.target, step.text)
    else:
        raise ValueError(f"unknown step {step.do!r}")


def _see(page, target: str, text: str) -> None:
    try:
        page.wait_for_function(TEXT_JS, arg=[target, text], timeout=WAIT_MS)
    except Exception as error:  # the figure never came: say which, and what the element held
        if target == stops.CHARTS:  # the values of every chart on the page, the shown ones first, and the status
            charts = page.evaluate(CHART_VALUES_JS)
            shown = [chart for chart in charts if chart["shown"]]
            held = [*shown, page.evaluate(STATUS_JS), *(chart for chart in charts if not chart["shown"])]
        else:
            held = page.evaluate("id => (document.getElementById(id) || {}).textContent || ''", target)
        raise AssertionError(f"#{target} never showed {text!r}; it holds {str(held)[:1500]!r}") from error


PACE_S = 20.0
"""At most this long for the page's queued steps to answer before the next step (a teacher's pace)."""


def _pace(page, traffic: QueueTraffic, timings: dict, where: str) -> None:
    """At a teacher's pace: until the page's queued steps have answered, or `PACE_S`. Not an assertion: the next
    stop's figures are. A page that did not go quiet is written into the walk's timings, with what it queued."""
    if not traffic.settle(page, PACE_S):
        timings[f"not quiet after {PACE_S:.0f} s: {where}"] = traffic.report(page)


@pytest.mark.parametrize(("lang", "screen"), WALKS, ids=[f"{lang}-{screen}" for lang, screen in WALKS])
def test_the_guide_walks_on_the_page(
    shipped_app: str, lang: str, screen: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    timings: dict[str, object] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))), args=ARGS
        )
        context = browser.new_context(**SCREENS[screen])
        outside: list[str] = []
        errors: list[str] = []

        keep_to_loopback(context, outside)
        page = context.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        failed: list[str] = []
        below_the_fold: list[str] = []
        english: dict[str, list[str]] = {}

        def refused(response) -> None:
            if response.status >= 400:
                body = response.text()[:300] if response.request.method == "POST" else ""
                failed.append(f"{response.status} {response.request.method} {urlparse(response.url).path} {body}")

        page.on("response", refused)
        traffic = QueueTraffic(page, WAIT_MS / 1000)
        page.set_default_timeout(WAIT_MS)
        start = time.perf_counter()
        page.goto(shipped_app)
        page.locator("#tab-parameters-button").wait_for()
        if lang == "zh":
            switch_language(page, "中文")
            page.locator("#tab-parameters-button", has_text="参数计算器").wait_for()
        timings["page"] = round(time.perf_counter() - start, 1)
        for stop in stops.STOPS[lang]:
            began = time.perf_counter()
            for step in stop.steps:
                do_step(page, step)
                if step.do == "model":  # a teacher picks the model, then opens the tab: the shown tab reruns first
                    _pace(page, traffic, timings, f"stop {stop.number}, after the model pick")
            for target, text in stop.shows:
                _see(page, target, text)
                where = where_drawn(page, target, text)
                if screen in FOLDED and not on_screen(where):
                    below_the_fold.append(f"stop {stop.number}: {text!r} in #{target} at {where}")
            _pace(page, traffic, timings, f"stop {stop.number}")  # the class reads the stop before the next one
            if lang == "zh":  # issue 54: a 中文 walk finds no English beyond names, the user's text and the model's
                english[f"stop {stop.number}"] = sorted(english_on_screen(page))
            timings[f"stop {stop.number} ({stop.tab})"] = round(time.perf_counter() - began, 1)
            screenshot(page, f"guide-walk-{lang}-{screen}-{stop.number}")
        timings["total"] = round(time.perf_counter() - start, 1)
        browser.close()
    (ARTIFACTS / f"guide-walk-{lang}-{screen}.json").write_text(json.dumps(timings, indent=1), encoding="utf-8")
    print(f"guide walk {lang} on the {screen}: {timings}")
    assert outside == [], f"requests to outside hosts: {outside[:5]}"
    assert {stop: words for stop, words in english.items() if words} == {}
    assert below_the_fold == [], f"figures outside the first screen at {SCREENS[screen]['viewport']}: {below_the_fold}"
    # Gradio's page asks /cancel and /reset for an event that has no id yet (event_id null → 422) when a language
    # switch or a tab re-run cancels one that never started: said in the report of issue 42, left to the wiring.
    cancels = [f for f in failed if f.startswith(("422 POST /gradio_api/cancel", "422 POST /gradio_api/reset"))]
    cancels = [f for f in cancels if '"input":null' in f]
    timings["null cancels and resets (422)"] = len(cancels)
    (ARTIFACTS / f"guide-walk-{lang}-{screen}.json").write_text(json.dumps(timings, indent=1), encoding="utf-8")
    assert [f for f in failed if f not in cancels] == []
    unexplained = [e for e in errors if "favicon" not in e and "422" not in e]
    assert len([e for e in errors if "422" in e]) <= len(cancels) and not unexplained, errors[:5]
