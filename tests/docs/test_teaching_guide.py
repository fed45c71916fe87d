"""The teacher's guide (docs/teaching/guide.md, guide.zh.md) against the shipped models.

Every example the guide quotes must still give the answer it quotes: the first guess at each [MASK] and its
probability, the training-text counts, each sentence-order reading and probability, the shared-vs-not-shared pass
profiles, each sentiment label, each parameter count, and the held-out figures beside them (read from the models'
metrics.json). The examples and their quoted answers live in docs/teaching/check_examples.py, which computes the
answers with library calls only (albert.*); the guide must quote each of them. A retrained model that changes an
answer fails here: rewrite that stop of the guide (and the example's entry), never loosen the check.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("check_examples", ROOT / "docs" / "teaching" / "check_examples.py")
assert _SPEC is not None and _SPEC.loader is not None
checks = importlib.util.module_from_spec(_SPEC)
sys.modules["check_examples"] = checks  # dataclasses look their module up while the class is built
_SPEC.loader.exec_module(checks)

CITATION = 'Lan et al., "ALBERT: A Lite BERT for Self-supervised Learning of Language Representations", ICLR 2020'
TABS = {
    "en": [
        *("Parameter calculator", "Sharing modes", "Masked words", "Sentence order", "Attention", "Sentiment"),
        "Train it yourself",
    ],
    "zh": ["参数计算器", "参数共享方式", "遮蔽词预测", "句子顺序", "注意力", "情感分类", "训练一下"],
}
MINUTES = {"en": r"\((\d+) min\)", "zh": r"（(\d+) 分钟）"}


@pytest.fixture(scope="module")
def guides() -> dict[str, str]:
    return {lang: path.read_text(encoding="utf-8") for lang, path in checks.GUIDES.items()}


def _lang(model: str) -> str:
    return "zh" if "-zh" in model else "en"


def _quoted(guide: str, *pieces: str) -> None:
    for piece in pieces:
        assert piece in guide, f"the guide no longer quotes {piece!r}"


@pytest.mark.parametrize("case", checks.MASKS, ids=lambda c: f"{c.model}:{c.text}")
def test_masked_word_examples_give_the_guesses_the_guide_quotes(case, guides: dict[str, str]) -> None:
    ok, line = checks.mask_check(case)
    assert ok, f"the model now answers {line}; the guide says {case.guesses} ({case.percent}%)"
    _quoted(guides[_lang(case.model)], case.text, *case.guesses, f"{case.percent:.1f}%")


def test_the_guide_shows_masked_words_both_right_and_wrong() -> None:
    for lang in ("en", "zh"):
        shown = [case for case in checks.MASKS if _lang(case.model) == lang]
        right = [case for case in shown if case.guesses == case.truth]
        assert len(right) >= 3 and len(shown) - len(right) >= 3, lang


@pytest.mark.parametrize(("model", "piece"), list(checks.COUNTS), ids=lambda x: str(x))
def test_training_text_counts_are_the_shipped_tables(model: str, piece: str, guides: dict[str, str]) -> None:
    ok, line = checks.count_check(model, piece)
    assert ok, line
    count = checks.COUNTS[model, piece]
    _quoted(guides[_lang(model)], "never" if count == 0 and _lang(model) == "en" else f"{count:,}")


@pytest.mark.parametrize("case", checks.ORDERS, ids=lambda c: f"{c.model}:{c.a}")
def test_sentence_order_examples_read_as_the_guide_says(case, guides: dict[str, str]) -> None:
    ok, line = checks.order_check(case)
    assert ok, f"the models now answer {line}"
    quoted = [*case.percents, *(case.nsp_percents or ())]
    _quoted(guides[_lang(case.model)], case.a, case.b, *(f"{p:.1f}%" for p in quoted))


def test_the_default_english_order_model_is_a_coin_toss_and_the_guide_says_so(guides: dict[str, str]) -> None:
    """The lesson of stop 4 rests on the held-out figures: an interval holding 50% on one draw or the other."""
    first = checks.held_out(f"models/{checks.EN}", ("order",))
    second = checks.held_out(f"models/{checks.EN}", ("order_replication",))
    assert first[1] <= 0.5 or second[1] <= 0.5
    assert min(first[1], second[1]) <= 0.5 <= max(first[2], second[2])
    topic = checks.held_out("models/albert-lab-nsp", ("topic",))
    assert topic[1] > 0.8  # the NSP arm reads topic
    assert "coin toss" in guides["en"] and "掷硬币" in guides["zh"]


@pytest.mark.parametrize(("folder", "path", "langs"), checks.HELD_OUT, ids=lambda x: str(x))
def test_held_out_figures_are_the_models_own(folder: str, path: tuple, langs: tuple, guides: dict[str, str]) -> None:
    text = checks.interval_text(*checks.held_out(folder, path))
    for lang in langs:
        _quoted(guides[lang], text)


@pytest.mark.parametrize("case", checks.PASSES, ids=lambda c: f"{c.measure}:{c.shared}")
def test_shared_passes_are_smoother_than_not_shared_ones(case, guides: dict[str, str]) -> None:
    ok, line = checks.pass_check(case)
    assert ok, f"the shared and not-shared models no longer differ as the guide says: {line}"
    for (model, text, kind), values in checks.PASS_QUOTES.items():
        if model in (case.shared, case.not_shared) and text == case.text:
            for lang in ("en", "zh"):
                _quoted(guides[lang], case.text, *checks.quoted_runs(values, kind))
    for lang in ("en", "zh"):  # one measure in the guide and on the chart: angles, never cosines of the passes
        assert "cosine rises" not in guides[lang] and "余弦相似度从" not in guides[lang]


@pytest.mark.parametrize("case", checks.SENTIMENTS, ids=lambda c: c.text)
def test_sentiment_examples_get_the_labels_the_guide_quotes(case, guides: dict[str, str]) -> None:
    ok, line = checks.sentiment_check(case)
    assert ok, f"the model now answers {line}"
    lang = _lang(case.model)
    label = case.label if lang == "en" else {"positive": "正面", "negative": "负面"}[case.label]
    _quoted(guides[lang], case.text, label, f"{case.percent:.1f}%")
    assert any(c.label != c.truth for c in checks.SENTIMENTS if _lang(c.model) == lang)  # one failure per language


@pytest.mark.parametrize("name", list(checks.SENTIMENT_DEV))
def test_sentiment_dev_accuracy_is_the_cards(name: str, guides: dict[str, str]) -> None:
    rate, low, high = checks.dev_accuracy(name)
    assert low < rate < high
    for lang in checks.SENTIMENT_DEV[name]:
        _quoted(guides[lang], checks.interval_text(rate, low, high))


@pytest.mark.parametrize("preset", list(checks.PARAMETERS))
def test_parameter_counts_are_the_formulas(preset: str, guides: dict[str, str]) -> None:
    ok, line = checks.parameter_check(preset)
    assert ok, line
    for lang in ("en", "zh"):
        _quoted(guides[lang], f"{checks.PARAMETERS[preset]:,}")


def test_the_guide_names_the_models_the_app_starts_on(guides: dict[str, str]) -> None:
    """Stops 2–5 describe what the page shows before anything is picked: the default model, its twin, the NSP arm."""
    from app.models import DEFAULT_MODEL, NSP_MODELS, ZH_MODEL, fair_comparison

    assert DEFAULT_MODEL == checks.EN and fair_comparison(DEFAULT_MODEL) == [checks.SHARED, checks.NOT_SHARED]
    assert ZH_MODEL == checks.ZH and NSP_MODELS == {"en": checks.NSP, "zh": checks.ZH_NSP}
    for lang in ("en", "zh"):
        _quoted(guides[lang], checks.EN, checks.SHARED, checks.NOT_SHARED)
    _quoted(guides["zh"], checks.ZH, checks.ZH_NSP, checks.ZH_REVIEWS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_walk_takes_eighteen_minutes_through_the_seven_tabs(lang: str, guides: dict[str, str]) -> None:
    guide = guides[lang]
    stops = re.findall(r"^### (\d)\. (.+?) ?" + MINUTES[lang], guide, flags=re.MULTILINE)
    assert [int(n) for n, _, _ in stops] == [1, 2, 3, 4, 5, 6, 7]
    assert [name for _, name, _ in stops] == TABS[lang]
    assert sum(int(minutes) for _, _, minutes in stops) == 18
    table = re.findall(r"^\| (\d) \| (.+?) \| (\d+) \|$", guide, flags=re.MULTILINE)
    assert [(int(n), name, int(m)) for n, name, m in table] == [(int(n), s, int(m)) for n, s, m in stops]
    assert CITATION in guide
    assert not re.search(r"Lan (et al\.|等)[,，]? ?2019", guide)  # one citation form: ICLR 2020
    assert len(guide.splitlines()) <= 240  # seven stops of ~20 lines, the preparation and the questions
