"""Issue 42, item 6: the language kept across a reload (app/static/keep_language.js): a 中文 reader who reloads, and
a link with ?lang=zh, get the page in 中文. Chromium on the tiny test models' server (tests/app/support.py). The
page runs the script when it loads (app.layout.PAGE_JS)."""

from __future__ import annotations

import pytest

from tests.app.support import ARGS, CHROMIUM, chromium_keeping_its_nice, running_app

pytestmark = pytest.mark.browser


def test_the_language_survives_a_reload_and_a_link(tmp_path_factory: pytest.TempPathFactory) -> None:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    url = running_app()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))), args=ARGS
        )
        context = browser.new_context(viewport={"width": 1000, "height": 800})
        page = context.new_page()
        page.set_default_timeout(90_000)
        expect.set_options(timeout=90_000)
        page.goto(url)
        page.locator("#tab-parameters-button").wait_for()
        page.wait_for_function("() => window.labKeepLanguage === true")  # the page ran app/static/keep_language.js
        page.locator("#language label").filter(has_text="中文").click()
        expect(page.locator("#tab-parameters-button")).to_have_text("参数计算器")
        assert "lang=zh" in page.url
        page.reload()
        expect(page.locator("#tab-parameters-button")).to_have_text("参数计算器")  # kept across the reload
        page.locator("#language label").filter(has_text="English").click()
        expect(page.locator("#tab-parameters-button")).to_have_text("Parameter calculator")
        fresh = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # no storage: the link alone
        fresh.goto(url.rstrip("/") + "/?lang=zh")
        expect(fresh.locator("#tab-parameters-button")).to_have_text("参数计算器", timeout=90_000)
        browser.close()
