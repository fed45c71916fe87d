"""Chromium on the launched app (`running_app`, shared with the other browser tests): the tab shows the recorded
run's two curves and verdict, Train starts the timer's polling (the status counts the seconds, live curves replace the
recorded ones once the children log), Stop ends it, and in 中文 the same."""

from __future__ import annotations

import re

import pytest

from tests.app.support import ARGS, CHROMIUM, chromium_keeping_its_nice, running_app

pytestmark = pytest.mark.browser


def test_train_then_stop_in_both_languages(tmp_path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)  # a busy 2-core machine draws slowly
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_keeping_its_nice(tmp_path)), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(running_app())
        page.get_by_role("tab", name="Train it yourself").click()
        curves = page.locator("#training-curves")
        expect(curves.locator(".scatterlayer .trace")).to_have_count(2)  # the recorded run: all and none
        expect(page.locator("#training-verdict")).to_contain_text("Verdict: the shared model (all) reached")
        page.locator("#training-button").click()
        status = page.locator("#training-status")
        expect(status).to_contain_text(re.compile(r"Training: \d+ s of at most 60 s"))
        first = status.inner_text()
        expect(status).not_to_have_text(first)  # the timer polls: the seconds move on
        page.locator("#training-stop").click()
        expect(status).to_contain_text("Stopped after")
        page.get_by_text("中文").click()
        expect(page.get_by_role("tab", name="训练一下")).to_be_visible()
        page.locator("#training-button").click()
        expect(status).to_contain_text("训练中")
        page.locator("#training-stop").click()
        expect(status).to_contain_text("已在")
        browser.close()
