"""Languages in the app (issue 16): the `<unk>` guard of every model tab, the count of unknown tokens on every
result, the Chinese models picked for Chinese text or the 中文 interface, and the Chinese examples.

The English models are the tiny ones of tests.app.support; the Chinese ones (albert-lab-zh, albert-lab-zh-sentiment)
are tests.app.support's `tiny_chinese_assets`: a Han-character tokenizer (`train_tokenizer(..., han_characters=True)`),
the models put next to copies of the English ones in a tmp folder named by ALBERT_LAB_MODELS /
ALBERT_LAB_SENTIMENT_ZH.
"""

from __future__ import annotations

import pytest

from tests.app.support import ChineseAssets, tiny_assets, tiny_chinese_assets, use_tiny_assets

CHINESE = ["我爱自然语言处理", "这部电影很精彩。"]
"""The issue's two sentences: ['▁', '<unk>'] for the English models."""


@pytest.fixture(autouse=True)
def _english_only(monkeypatch: pytest.MonkeyPatch):
    """Today's shipped models: English only (the tiny ones), no Chinese sentiment model."""
    assets = use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT_ZH", str(assets.root / "no-chinese-sentiment-model"))
    return assets


@pytest.fixture(scope="module")
def zh_assets(tmp_path_factory: pytest.TempPathFactory) -> ChineseAssets:
    """A models folder with the tiny English models and a tiny random albert-lab-zh; a tiny Chinese classifier."""
    return tiny_chinese_assets(tmp_path_factory.mktemp("albert-lab-zh-app"))


@pytest.fixture
def chinese_shipped(zh_assets: ChineseAssets, monkeypatch: pytest.MonkeyPatch) -> ChineseAssets:
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(zh_assets.models))
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT_ZH", str(zh_assets.sentiment))
    return zh_assets


def _one_sentence(message: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message, message
    assert message.count(". ") == 0 and message.endswith("."), message


# ----- the rules ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, language",
    [
        ("我爱自然语言处理", "zh"),
        ("这部电影很精彩。", "zh"),
        ("The cat sat on the mat.", "en"),
        ("ALBERT模型很小", "en"),
        ("我爱自然 NLP", "zh"),
        ("I love 北京", "en"),
        ("😀 123 !!", None),
        ("", None),
        ("Привет мир", None),
    ],
    ids=["zh", "zh-punct", "en", "6-latin-4-han", "4-han-3-latin", "5-latin-2-han", "no-letters", "empty", "cyrillic"],
)
def test_script_language_is_the_script_of_more_than_half_the_letters(text: str, language: str | None) -> None:
    from app.models.languages import script_language

    assert script_language(text) == language


def test_text_language_falls_back_to_the_interface_language() -> None:
    from app.models.languages import text_language

    assert text_language("这部电影很精彩。", "en") == "zh"
    assert text_language("The film was great.", "zh") == "en"
    assert text_language("😀 [MASK] 123", "zh") == "zh" and text_language("😀 [MASK] 123", "en") == "en"


def test_unknown_runs_count_once_per_character_and_symbols_do_not_count() -> None:
    from albert.data.tokenizer import load_tokenizer
    from app.models.languages import count_unknown, is_unreadable

    tokenizer = load_tokenizer(tiny_assets().models / "albert-lab-base")
    special = tokenizer.all_special_ids
    for text in CHINESE:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert tokenizer.convert_ids_to_tokens(ids) == ["▁", "<unk>"]  # one <unk> hides the whole sentence
        found = count_unknown(tokenizer, text, special)
        assert found.unknown == found.total == found.han == found.han_unknown == len(text.rstrip("。"))
        assert is_unreadable(found, text)
    found = count_unknown(tokenizer, "the old sailor walked to 北京 [MASK]", special)
    assert (found.unknown, found.han_unknown) == (2, 2) and not is_unreadable(found, "the old sailor walked to 北京")
    found = count_unknown(tokenizer, "😀 the [MASK] 🎉 !!", special)  # emoji and [MASK] are not counted
    assert (found.unknown, found.total) == (0, 1)


# ----- the guard, every model tab, nothing shipped that reads Chinese --------------------------------
GUARD = "albert-lab-base cannot read this language"
NO_CHINESE = "no shipped model reads Chinese yet."


def _model_tab_errors(text: str, lang: str) -> dict[str, str]:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view, split_paragraph_view
    from app.tabs.sentiment.views import sentiment_view
    from app.tabs.sharing.views import layer_transitions_view

    masked = text.replace("处理", "[MASK][MASK]") if "处理" in text else text + "[MASK]"
    answers = {
        "fill_mask": fill_mask_view(masked, 5, "", lang),
        "sentence_order": sentence_order_view(text, "路上到处都是积水。", "", lang),
        "split_paragraph": split_paragraph_view("今天下了一场大雨。" + text + "。", 1, "", lang)[2:],
        "attention": attention_view(text, "", 1, 48, "", "", lang),
        "layer_transitions": layer_transitions_view(text, "", "", lang),
        "sentiment": sentiment_view(text, lang),
    }
    no_words = {"__type__": "update", "choices": [], "value": None}  # the masked-words tab: nothing to pick
    for name, (raw, status, *rest) in answers.items():
        assert set(raw) == {"error"}, (name, raw)  # never a prediction
        assert all(value in (None, "") or value == no_words for value in rest), (name, rest)
        assert "⚠️" in status and "Traceback" not in status
    return {name: raw["error"] for name, (raw, *_) in answers.items()}


@pytest.mark.parametrize("text", CHINESE)
def test_every_model_tab_refuses_text_it_cannot_read_in_one_sentence(text: str) -> None:
    errors = _model_tab_errors(text, "en")
    for name, message in errors.items():
        _one_sentence(message)
        if name == "sentiment":
            assert message.startswith("albert-lab-sst2 cannot read this language")
            assert message.endswith("no shipped sentiment model reads Chinese yet."), message
        else:
            assert message.startswith(GUARD) and message.endswith(NO_CHINESE), (name, message)
    n = len(text.rstrip("。"))
    assert f"{n} of {n} tokens of this text are unknown" in errors["attention"]


def test_the_guard_speaks_chinese_in_the_chinese_interface() -> None:
    errors = _model_tab_errors("这部电影很精彩。", "zh")
    for name, message in errors.items():
        assert "读不懂这种语言" in message and "还没有随附的" in message and "能读中文" in message, (name, message)
        assert message.endswith("。"), message


def test_results_say_how_many_tokens_were_unknown() -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sentiment.views import sentiment_view
    from app.tabs.sharing.views import layer_transitions_view

    text = "the old sailor walked to 北京 ."
    results = {
        "fill_mask": fill_mask_view(text.replace(".", "[MASK] ."), 3, "", "en"),
        "sentence_order": sentence_order_view(text, "the children counted boxes .", "", "en"),
        "attention": attention_view(text, "", 1, 48, "", "", "en"),
        "layer_transitions": layer_transitions_view(text, "", "", "en"),
        "sentiment": sentiment_view(text, "en"),
    }
    for name, (raw, status, *_) in results.items():
        assert "error" not in raw, (name, raw)
        assert "2 of " in status and "tokens of this text are unknown to the model" in status, (name, status)
        counts = raw if name != "layer_transitions" else next(iter(raw.values()))
        assert counts["unknown_tokens"] == 2 and counts["counted_tokens"] > 2, (name, raw)
    raw, status, *_ = fill_mask_view("the old sailor walked along the [MASK] .", 3, "", "en")
    assert raw["unknown_tokens"] == 0 and "unknown to the model" not in status


# ----- the Chinese models, when shipped ---------------------------------------------------------------
def test_the_picker_and_model_for_pick_the_chinese_model(chinese_shipped: ChineseAssets) -> None:
    from app.layout import picker_choices
    from app.models import (
        AUTO_MODEL,
        DEFAULT_MODEL,
        FORMER_DEFAULT_MODEL,
        ZH_MODEL,
        language_models,
        model_for,
        shipped_models,
    )

    # The tiny assets carry neither the default nor the former default: albert-lab-base, listed next, is English then.
    assert DEFAULT_MODEL not in shipped_models() and FORMER_DEFAULT_MODEL not in shipped_models()
    assert ZH_MODEL in shipped_models() and language_models() == {"en": "albert-lab-base", "zh": ZH_MODEL}
    assert picker_choices(shipped_models())[0][1] == AUTO_MODEL and (ZH_MODEL, ZH_MODEL) in picker_choices(
        shipped_models()
    )
    assert model_for("", "这部电影很精彩。", "en") == ZH_MODEL  # mostly Chinese text
    assert model_for(AUTO_MODEL, "😀 [MASK]", "zh") == ZH_MODEL  # no script of its own: the 中文 interface
    assert model_for(AUTO_MODEL, "The film was great.", "zh") == ""  # English text: the default (English) model
    assert model_for("albert-lab-base", "这部电影很精彩。", "zh") == "albert-lab-base"  # an explicit pick stays


def test_without_the_chinese_model_the_picker_is_as_before() -> None:
    from app.layout import picker_choices
    from app.models import language_models, model_for, shipped_models

    assert language_models()["zh"] is None and model_for("", "这部电影很精彩。", "zh") == ""
    assert [value for _, value in picker_choices(shipped_models())] == shipped_models()


def test_model_tabs_use_the_chinese_model_for_chinese(chinese_shipped: ChineseAssets) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sentiment.views import sentiment_view
    from app.tabs.sharing.views import layer_transitions_view

    results = {
        "fill_mask": fill_mask_view("我爱自然语言[MASK][MASK]。", 3, "auto", "zh"),
        "sentence_order": sentence_order_view("今天下了一场大雨。", "路上到处都是积水。", "", "en"),
        "attention": attention_view("这部电影很精彩。", "", 1, 48, "auto", "", "zh"),
    }
    for name, (raw, status, *_) in results.items():
        assert raw.get("model") == "albert-lab-zh" and raw["unknown_tokens"] == 0, (name, raw)
        assert "albert-lab-zh" in status
    assert len(results["fill_mask"][0]["masks"]) == 2  # one character a [MASK]
    raw, status, *_ = layer_transitions_view("这部电影很精彩。", "", "albert-lab-none", "zh")
    assert list(raw) == ["albert-lab-zh (all)"]  # the English twin cannot read it, and says so
    assert "albert-lab-none" in status and "读不懂这种语言" in status
    raw, *_ = sentiment_view("这部电影很精彩。", "zh")
    assert raw["model"] == "albert-lab-zh-sentiment" and raw["unknown_tokens"] == 0
    raw, *_ = sentiment_view("the old sailor walked along the river .", "zh")
    assert raw["model"] == "albert-lab-sst2"  # English text in the 中文 interface: the English classifier


def test_an_explicit_english_pick_names_the_chinese_model(chinese_shipped: ChineseAssets) -> None:
    from app.tabs.masked.views import fill_mask_view

    raw, *_ = fill_mask_view("我爱自然语言[MASK][MASK]。", 3, "albert-lab-base", "en")
    assert raw["error"].startswith(GUARD) and raw["error"].endswith("for Chinese pick albert-lab-zh."), raw
    _one_sentence(raw["error"])
    raw, *_ = fill_mask_view("我爱自然语言[MASK][MASK]。", 3, "albert-lab-base", "zh")
    assert raw["error"].endswith("中文文本请选择 albert-lab-zh。"), raw


# ----- examples -------------------------------------------------------------------------------------------
def test_chinese_examples_only_when_the_chinese_models_are_shipped(
    zh_assets: ChineseAssets, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.tabs.attention import tab as tab_attention
    from app.tabs.masked import tab as tab_masked
    from app.tabs.order import tab as tab_order
    from app.tabs.sentiment import tab as tab_sentiment

    for lang in ("en", "zh"):
        assert tab_masked.examples(lang) == tab_masked.EXAMPLES and tab_order.examples(lang) == tab_order.EXAMPLES
        assert tab_attention.example(lang) == tab_attention.EXAMPLE
        assert tab_sentiment.examples(lang) == tab_sentiment.EXAMPLES
    assert not any(any("\u4e00" <= c <= "\u9fff" for c in text) for text in tab_sentiment.EXAMPLES)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(zh_assets.models))
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT_ZH", str(zh_assets.sentiment))
    assert tab_masked.examples("zh")[0] == "我爱自然语言处[MASK]。"
    assert tab_masked.examples("en") == tab_masked.EXAMPLES
    assert tab_order.examples("zh")[0][:2] == ["我们到了车站。", "火车已经开走了。"]  # then the other book
    assert tab_attention.example("zh") == tab_attention.EXAMPLE_ZH
    assert tab_sentiment.examples("zh")[0] == "非常好的一本书，推荐大家购买。"
    # A language switch replaces a default example, never what someone typed.
    assert tab_masked.example_in_language(tab_masked.EXAMPLES[0], "zh") == tab_masked.EXAMPLES_ZH[0]
    assert tab_masked.example_in_language(tab_masked.EXAMPLES_ZH[0], "en") == tab_masked.EXAMPLES[0]
    assert tab_order.examples_in_language(*tab_order.EXAMPLES[0], tab_order.PARAGRAPH, "zh") == (
        *tab_order.EXAMPLES_ZH[0],
        tab_order.PARAGRAPH_ZH,
    )
    kept = tab_masked.example_in_language("my own [MASK] text", "zh")
    assert not isinstance(kept, str)  # gr.skip(): the box keeps its text


def test_every_chinese_example_is_read_without_unknown_tokens(chinese_shipped: ChineseAssets) -> None:
    from app.models.languages import count_unknown
    from app.tabs.attention import tab as tab_attention
    from app.tabs.masked import tab as tab_masked
    from app.tabs.order import tab as tab_order
    from app.tabs.sentiment import tab as tab_sentiment

    tokenizer = chinese_shipped.tokenizer
    texts = [
        *tab_masked.EXAMPLES_ZH,
        *(s for pair in tab_order.EXAMPLES_ZH for s in pair[:2]),  # the other book is People's Daily: the shipped model
        tab_order.PARAGRAPH_ZH,
        tab_attention.EXAMPLE_ZH,
        *tab_sentiment.EXAMPLES_ZH,
    ]
    for text in texts:
        assert count_unknown(tokenizer, text, tokenizer.all_special_ids).unknown == 0, text


def test_the_app_builds_with_the_chinese_models(chinese_shipped: ChineseAssets) -> None:
    from app.layout import build_app

    demo = build_app()
    picker = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "model-picker")
    assert picker.value == "auto"
