"""The 中文 model tabs end to end in Chromium with Chinese text (issue 16), on tiny random Chinese models.

A second `python app.py` serves tests.app.support's `tiny_chinese_assets` (albert-lab-zh beside the tiny English
models, and albert-lab-zh-sentiment), laid out as the real ones will be shipped. In the 中文 interface:

1. each model tab opens on a Chinese example, read by the Chinese model with no unknown token;
2. Chinese text typed in each tab is answered by the Chinese model (the answer is the one the same model gives
   in this process), with no English left in the result panels (test_app_chinese_ui's rules);
3. with albert-lab-base picked by hand, every tab that uses the picker refuses Chinese text with the guard's one
   sentence in Chinese, naming albert-lab-zh, and draws no prediction. (The Sentiment tab has no picker: it
   always takes the classifier for the text's language.)

Chromium is started without CAP_SYS_NICE, so it keeps the nice the test runs at (as root it would raise its
own processes above the machine's training jobs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.app.support import (
    ARGS,
    CHROMIUM,
    ChineseAssets,
    QueueTraffic,
    chromium_keeping_its_nice,
    screenshot,
    start_app,
    switch_language,
    tiny_chinese_assets,
    use_tiny_assets,
)
from tests.app.test_layout_chinese import WORD, leftover_english

pytestmark = pytest.mark.browser
WAIT = 60_000
"""Milliseconds to wait for one element's text: a busy 2-core machine draws slowly."""
HAN = re.compile(r"[\u4e00-\u9fff]")
RAW = "原始结果（JSON）"
UNKNOWN_NOTE = "个模型不认识"
"""In the sentence a result carries when some of its tokens were unknown (`lang.note.unknown` in 中文)."""
NO_UNKNOWN = re.compile(r'unknown_tokens"?\s*:\s*0\b')
GUARD = "albert-lab-base 读不懂这种语言"
GUARD_END = "中文文本请选择 albert-lab-zh。"
TABS = {
    "遮蔽词预测": ("#tab-masked", "#mask-text textarea", "#mask-status", "albert-lab-zh"),
    "句子顺序": ("#tab-order", "#order-a textarea", "#order-status", "albert-lab-zh"),
    "注意力": ("#tab-attention", "#attention-a textarea", "#attention-status", "albert-lab-zh"),
    "情感分类": ("#tab-sentiment", "#sentiment-text textarea", "#sentiment-status", "albert-lab-zh-sentiment"),
}
"""Each model tab: its panel, its text box, its status (naming the model that answered), the Chinese model."""
MASKED = "我爱自然语言[MASK]理"
PAIR = ("我们到了车站。", "火车已经开走了。")
ATTENTION = "他每天都认真学习。"
SENTIMENT = "剧情很无聊，我看到一半就走了。"
BUTTONS = {
    "参数共享方式": "#sharing-button",
    "遮蔽词预测": "#mask-button",
    "句子顺序": "#order-button",
    "注意力": "#attention-button",
}


@pytest.fixture(scope="module")
def chinese(tmp_path_factory: pytest.TempPathFactory) -> ChineseAssets:
    return tiny_chinese_assets(tmp_path_factory.mktemp("albert-lab-zh-browser"))


@pytest.fixture(scope="module")
def page(chinese: ChineseAssets, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The 中文 interface of an app serving the Chinese models (one server for this module), in Chromium, once the
    language switch's queued steps have all answered: a tab opened before its example followed the language
    would show the result for the English example (the on-open run reads the box as it was)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    directory = tmp_path_factory.mktemp("albert-lab-zh-server")
    server = start_app(directory / "server.log", chinese)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(chromium_keeping_its_nice(directory)), args=ARGS)
            view = browser.new_page(viewport={"width": 1400, "height": 1000})
            view.set_default_timeout(WAIT)
            expect.set_options(timeout=WAIT)
            traffic = QueueTraffic(view, WAIT / 1000)
            view.goto(server.url)
            view.get_by_role("tab", name="Parameter calculator").wait_for()
            traffic.wait_quiet(view)
            switch_language(view, "中文")
            expect(view.get_by_role("tab", name="参数计算器")).to_be_visible()
            traffic.wait_quiet(view)
            yield view
            screenshot(view, "chinese-tabs", full_page=True)
            browser.close()
    finally:
        server.stop()


@pytest.fixture
def in_process(chinese: ChineseAssets, monkeypatch: pytest.MonkeyPatch) -> ChineseAssets:
    """The app's views, called in this process, read the same models as the server."""
    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(chinese.models))
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT_ZH", str(chinese.sentiment))
    return chinese


def _retype(page: Any, box: str, text: str) -> None:
    """Type `text` into `box`: the result on screen is cleared at once, so the next one is for `text`."""
    from playwright.sync_api import expect

    page.locator(box).fill(text)
    expect(page.locator(box)).to_have_value(text)


def _no_english(page: Any, panels: list[str], user: list[str]) -> None:
    """No English UI word in the result panels; `user` holds the typed text and the model's own tokens."""
    texts = [page.locator(panel).inner_text() for panel in panels]
    words = {word.lower() for text in user for word in WORD.findall(text)}
    assert leftover_english(texts, words) == set(), texts


def test_every_model_tab_opens_on_a_chinese_example_read_by_the_chinese_model(page: Any) -> None:
    from playwright.sync_api import expect

    for tab, (panel, box, status, model) in TABS.items():
        page.get_by_role("tab", name=tab).click()
        expect(page.locator(box)).to_have_value(HAN)  # the example followed the language
        expect(page.locator(status)).to_contain_text(f"模型 {model}：")  # drawn by the Chinese model…
        expect(page.locator(status)).not_to_contain_text(UNKNOWN_NOTE)  # …which knew every token
        expect(page.locator(status)).not_to_contain_text("⚠️")
        page.locator(panel).get_by_text(RAW, exact=True).click()  # the raw result: 0 unknown tokens
        raw = page.locator(f"{panel} .json-holder").first
        expect(raw).to_contain_text(NO_UNKNOWN)
        expect(raw).to_contain_text(re.compile(rf'model"?\s*:\s*"?{re.escape(model)}\b(?!-)'))


def test_chinese_text_typed_in_each_tab_is_answered_by_the_chinese_model(page: Any, in_process: ChineseAssets) -> None:
    from playwright.sync_api import expect

    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sentiment.views import label_name

    page.get_by_role("tab", name="遮蔽词预测").click()
    _retype(page, "#mask-text textarea", MASKED)
    page.locator("#mask-button").click()
    expect(page.locator("#mask-status")).to_contain_text("模型 albert-lab-zh：")
    raw, _, filled, *_ = fill_mask_view(MASKED, 5, "auto", "zh")
    assert raw["model"] == "albert-lab-zh" and raw["unknown_tokens"] == 0, raw
    candidates = [top["token"] for top in raw["masks"][0]["top"]]
    vocabulary = {piece.lstrip("▁") for piece in in_process.tokenizer.get_vocab()}
    assert {c.lstrip("▁") for c in candidates} <= vocabulary, candidates
    assert filled == f"我爱自然语言{candidates[0]}理", filled
    expect(page.locator("#mask-filled textarea")).to_have_value(filled)  # the Chinese model's own answer
    expect(page.locator("#mask-status")).not_to_contain_text(UNKNOWN_NOTE)
    expect(page.locator("#mask-chart")).to_contain_text(candidates[0])
    _no_english(page, ["#mask-status", "#mask-chart"], [MASKED, *candidates])

    page.get_by_role("tab", name="句子顺序").click()
    _retype(page, "#order-a textarea", PAIR[0])
    _retype(page, "#order-b textarea", PAIR[1])
    page.locator("#order-button").click()
    expect(page.locator("#order-status")).to_contain_text("模型 albert-lab-zh：")
    raw, _, verdict, _ = sentence_order_view(*PAIR, "auto", "zh")
    assert raw["model"] == "albert-lab-zh" and raw["unknown_tokens"] == 0, raw
    ab, ba = (f"{raw[key]:.1%}" for key in ("p_in_order_a_then_b", "p_in_order_b_then_a"))
    assert f"| A → B | {ab} |" in verdict and f"| B → A | {ba} |" in verdict, verdict  # the SOP column
    missing = "没有随附的中文 NSP 模型（应在 assets/models/albert-lab-zh-nsp）"  # this tiny world ships no NSP arm
    assert missing in verdict, verdict
    for shown in (ab, ba, "SOP 模型", missing):
        expect(page.locator("#order-verdict")).to_contain_text(shown)
    expect(page.locator("#order-status")).not_to_contain_text(UNKNOWN_NOTE)
    _no_english(page, ["#order-status", "#order-verdict"], list(PAIR))

    page.get_by_role("tab", name="注意力").click()
    _retype(page, "#attention-a textarea", ATTENTION)
    page.locator("#attention-button").click()
    head = page.frame_locator("#head-view iframe")
    head.locator("svg text", has_text="认").first.wait_for()  # the typed sentence's characters label the tokens
    labels = head.locator("svg text").all_text_contents()
    assert set(ATTENTION) <= set("".join(labels)), labels
    expect(page.locator("#attention-status")).to_contain_text("模型 albert-lab-zh：")
    expect(page.locator("#attention-status")).not_to_contain_text(UNKNOWN_NOTE)
    _no_english(page, ["#attention-status"], [ATTENTION])

    page.get_by_role("tab", name="情感分类").click()
    _retype(page, "#sentiment-text textarea", SENTIMENT)
    page.locator("#sentiment-button").click()
    names = "|".join(label_name(label, "zh") for label in ("negative", "positive"))
    expect(page.locator("#sentiment-verdict")).to_contain_text(re.compile(rf"预测：({names})（\d+\.\d%）"))
    expect(page.locator("#sentiment-tokens")).to_contain_text("聊")
    expect(page.locator("#sentiment-status")).to_contain_text("模型 albert-lab-zh-sentiment：")
    expect(page.locator("#sentiment-status")).not_to_contain_text(UNKNOWN_NOTE)
    _no_english(page, ["#sentiment-status", "#sentiment-verdict"], [SENTIMENT])


def _picker_tabs() -> list[tuple[str, dict[str, str], str, Callable[[], dict], list[str]]]:
    """Each tab that uses the picker: its name, {text box: Chinese text}, its status, the refusal this process
    gives for that text with albert-lab-base, and the elements a prediction would fill."""
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sharing.views import layer_transitions_view

    # Texts of other lengths than the ones typed before: a refusal for them reads differently.
    base, text, masked = "albert-lab-base", "孩子们穿着雨靴去上学。", "他每天早上都要喝一杯[MASK]。"
    pair = ("他每天都认真学习。", "所以这次考试他考得很好。")
    return [
        (
            "参数共享方式",
            {"#sharing-text textarea": text},
            "#transitions-status",
            lambda: layer_transitions_view(text, base, "albert-lab-none", "zh")[0],
            [],  # its status alone says it: a prediction would name the models it ran
        ),
        (
            "遮蔽词预测",
            {"#mask-text textarea": masked},
            "#mask-status",
            lambda: fill_mask_view(masked, 5, base, "zh")[0],
            ["#mask-chart .js-plotly-plot"],
        ),
        (
            "句子顺序",
            {"#order-a textarea": pair[0], "#order-b textarea": pair[1]},
            "#order-status",
            lambda: sentence_order_view(*pair, base, "zh")[0],
            ["#order-chart .js-plotly-plot"],
        ),
        (
            "注意力",
            {"#attention-a textarea": text},
            "#attention-status",
            lambda: attention_view(text, "", 1, 48, base, "albert-lab-none", "zh")[0],
            ["#head-view iframe", "#model-view iframe", "#attention-heatmaps .js-plotly-plot"],
        ),
    ]


def test_an_english_model_picked_by_hand_refuses_chinese_in_every_tab_with_a_picker(
    page: Any, in_process: ChineseAssets
) -> None:
    from playwright.sync_api import expect

    page.locator("#model-picker input").click()
    page.locator("[data-testid=dropdown-option]", has_text="albert-lab-base").first.click()
    expect(page.locator("#model-picker input")).to_have_value("albert-lab-base")
    for tab, boxes, status, refusal, predictions in _picker_tabs():
        page.get_by_role("tab", name=tab).click()
        expect(page.locator(status)).not_to_be_empty()  # the tab's result on opening, or for the new model
        for box, text in boxes.items():
            _retype(page, box, text)
        page.locator(BUTTONS[tab]).click()
        expect(page.locator(status)).to_contain_text(GUARD_END)
        message = refusal()["error"]  # the sentence for this text (its counts), as this process words it
        assert message.startswith(GUARD) and message.endswith(GUARD_END) and message.count("。") == 1, message
        expect(page.locator(status)).to_contain_text(message)
        expect(page.locator(status)).not_to_contain_text("模型 ")  # only that sentence: no model answered
        for selector in predictions:
            expect(page.locator(selector)).to_have_count(0)
        if tab == "遮蔽词预测":
            expect(page.locator("#mask-filled textarea")).to_have_value("")
        if tab == "句子顺序":
            expect(page.locator("#order-verdict")).to_be_empty()
