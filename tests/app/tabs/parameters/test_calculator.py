"""The parameter calculator's pure functions: figures equal to count_parameters, notes, bad input, the compute panel."""

from __future__ import annotations

import re
import time

import pytest

from albert import PRESETS, AlbertConfig, count_parameters
from albert.core.config import SHARING_MODES
from tests.app.support import use_tiny_assets


@pytest.fixture(autouse=True)
def _tiny_models(monkeypatch: pytest.MonkeyPatch):
    return use_tiny_assets(monkeypatch)


# ----- calculator -----------------------------------------------------------------------------
def _form(config: AlbertConfig) -> tuple:
    from app.tabs.parameters.calculator import preset_values

    return preset_values(config)


def _parameter_form(*values: object):
    """The calculator's form of a config, or of ten values in the form's order."""
    from app.tabs.parameters.calculator import ParameterForm

    return ParameterForm.of(values[0]) if len(values) == 1 else ParameterForm(*values)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_calculator_equals_count_parameters_for_presets(name: str) -> None:
    from app.tabs.parameters.calculator import calculate

    calc = calculate(_parameter_form(PRESETS[name]))
    assert calc.total == count_parameters(PRESETS[name]).total
    assert calc.paper_figure is not None and abs(calc.paper_figure - calc.total) / calc.total < 0.06
    assert (
        calc.without_sharing
        == count_parameters(
            PRESETS[name].replace(sharing="none", num_hidden_groups=PRESETS[name].num_hidden_layers)
        ).total
    )


def test_calculator_grid_modes_groups_and_tables_3_4() -> None:
    from app.tabs.parameters.calculator import calculate, sweep

    base = PRESETS["albert-base"]
    for mode in SHARING_MODES:
        for groups in (1, 2, 3):
            if mode != "all" and groups > 1:
                continue
            for E in (64, 128, 768):
                config = base.replace(
                    embedding_size=E,
                    sharing=mode,
                    num_hidden_groups=groups if mode == "all" else (12 if mode == "none" else 1),
                )
                calc = calculate(_parameter_form(config))
                assert calc.total == count_parameters(config).total
                if groups == 1 and E in (128, 768):  # Tables 3 and 4: the paper's figure is shown beside ours
                    assert calc.paper_figure is not None
                    assert abs(calc.total - calc.paper_figure) / calc.paper_figure < 0.03
    for point in sweep(base):
        variant = base.replace(
            embedding_size=point["embedding_size"],
            sharing=point["sharing"],
            num_hidden_groups=12 if point["sharing"] == "none" else 1,
        )
        assert point["total"] == count_parameters(variant).total


def test_calculator_notes_for_xlarge_and_embedding_arithmetic() -> None:
    from app.tabs.parameters.calculator import calculate, embedding_markdown, totals_markdown

    calc = calculate(_parameter_form(PRESETS["albert-xlarge"]), lang="zh")
    assert "58.7M" in calc.paper_note and "60M" in calc.paper_note
    calc = calculate(_parameter_form(PRESETS["albert-base"]))
    text = embedding_markdown(calc).replace("\u00a0", " ")  # products are joined by no-break spaces (phones)
    assert "30,000 × 768" in text and "23,040,000" in text and "3,840,000 + 98,304" in text
    assert "11,683,584" in totals_markdown(calc)


@pytest.mark.parametrize(
    "change, fragment",
    [
        (dict(num_attention_heads=7), "divisible"),
        (dict(hidden_size=0), "at least 1"),
        (dict(vocab_size=-5), "at least 1"),
        (dict(intermediate_size=None), "empty"),
        (dict(num_hidden_layers=10**9), "beyond"),
        (dict(embedding_size=2.5), "whole number"),
        (dict(embedding_size="abc"), "whole number"),
        (dict(num_hidden_groups=5), "divide"),
        (dict(sharing="everything"), "Sharing must be"),
    ],
)
def test_calculator_invalid_input_is_one_sentence(change: dict, fragment: str) -> None:
    from app.tabs.parameters.views import parameters_view

    fields = dict(
        zip(
            (
                "vocab_size",
                "embedding_size",
                "hidden_size",
                "num_hidden_layers",
                "num_attention_heads",
                "intermediate_size",
                "sharing",
                "num_hidden_groups",
                "project_embeddings",
                "max_position_embeddings",
            ),
            _form(PRESETS["albert-base"]),
            strict=True,
        )
    )
    for lang in ("en", "zh"):
        out = parameters_view(**{**fields, **change}, lang=lang)
        message = out[0]["error"]
        assert "\n" not in message and "Traceback" not in message and message.endswith((".", "。"))
        if lang == "en":
            assert fragment in message
        else:
            assert re.search(r"[\u4e00-\u9fff]", message)


CONFIG_RULES = [
    (dict(embedding_size=2.5), "not_whole"),
    (dict(hidden_size=0), "too_small"),
    (dict(vocab_size=20_000_000), "too_big"),
    (dict(num_attention_heads=7), "heads_divide"),
    (dict(vocab_size=2), "token_id"),
    (dict(sharing="everything"), "choice"),
    (dict(hidden_act="tanh"), "choice"),
    (dict(sharing="none", num_hidden_groups=5), "groups_none"),
    (dict(sharing="ffn", num_hidden_groups=2), "groups_partial"),
    (dict(num_hidden_groups=5), "groups_divide"),
    (dict(project_embeddings=False), "projection"),
    (dict(hidden_dropout_prob=1.0), "probability"),
    (dict(layer_norm_eps=0.0), "not_positive"),
]
FILE_CODES = {"bad_json", "field_type", "no_config", "not_object", "not_transformers_compatible"}
"""ConfigError codes of reading a config.json, not of a configuration's rules: the calculator never meets them."""


@pytest.mark.parametrize("change, code", CONFIG_RULES)
def test_every_config_rule_is_said_in_both_languages(change: dict, code: str) -> None:
    """The calculator translates the library's ConfigError (code and values) instead of checking the rules again."""
    from albert.core.config import ConfigError
    from app.i18n import config_error
    from app.i18n.strings import STRINGS

    with pytest.raises(ConfigError) as caught:
        PRESETS["albert-base"].replace(**change)
    assert caught.value.code == code and f"config.err.{code}" in STRINGS
    en, zh = config_error(caught.value, "en"), config_error(caught.value, "zh")
    assert en.endswith(".") and "{" not in en and en != str(caught.value), en
    assert zh.endswith("。") and re.search(r"[\u4e00-\u9fff]", zh), zh


def test_every_code_of_a_config_rule_has_a_text() -> None:
    from pathlib import Path

    source = Path("albert/core/config.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'ConfigError\(\s*(?:f?"[^"]*"\s*)+,\s*"([a-z_]+)"', source))
    assert codes - FILE_CODES == {code for _, code in CONFIG_RULES}, "a new rule needs its config.err text"


def test_calculator_huge_values_are_instant() -> None:
    from app.tabs.parameters.views import parameters_view

    start = time.perf_counter()
    out = parameters_view(1_000_000, 128, 16384, 48, 128, 65536, "none", 48, True, 512)
    assert time.perf_counter() - start < 2.0
    config = AlbertConfig(
        vocab_size=1_000_000,
        embedding_size=128,
        hidden_size=16384,
        num_hidden_layers=48,
        num_attention_heads=128,
        intermediate_size=65536,
        sharing="none",
    )
    assert out[0]["total"] == count_parameters(config).total


def test_groups_ignored_outside_all_with_a_note() -> None:
    from app.tabs.parameters.calculator import calculate

    calc = calculate(_parameter_form(30000, 128, 768, 12, 12, 3072, "attention", 4, True, 512))
    assert calc.config.num_hidden_groups == 1 and calc.notes


# ----- calculator slips (issue 17, item 9) and the compute panel wiring (item 7) ------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_calculator_never_calls_a_larger_embedding_smaller(lang: str) -> None:
    from app.tabs.parameters.calculator import calculate, embedding_markdown, totals_markdown

    bert = calculate(_parameter_form(PRESETS["bert-base"]), lang=lang)
    text = embedding_markdown(bert, lang).replace("\u00a0", " ")
    assert "768 × 768" not in text.split("|")[-2] and "589,824" not in text  # no E×H without a projection
    assert ("No E→H projection" if lang == "en" else "没有 E→H 投影") in text
    # Table 3's E = H, projected
    albert_768 = calculate(_parameter_form(30000, 768, 768, 12, 12, 3072, "all", 1, True, 512), lang)
    assert ("×1.03 larger" if lang == "en" else "1.03 倍") in embedding_markdown(albert_768, lang)
    assert ("×5.85 smaller" if lang == "en" else "1/5.85") in embedding_markdown(
        calculate(_parameter_form(PRESETS["albert-base"]), lang=lang), lang
    )
    for calc in (bert, albert_768, *(calculate(_parameter_form(PRESETS[n]), lang=lang) for n in PRESETS)):
        page = embedding_markdown(calc, lang) + totals_markdown(calc, lang)
        assert not re.search(r"×0\.\d", page) and "1/0." not in page, page
    assert ("the same" if lang == "en" else "相同") in totals_markdown(bert, lang)


def test_bert_base_and_large_carry_the_papers_rounding_note() -> None:
    from app.tabs.parameters.calculator import calculate, totals_markdown

    base = calculate(_parameter_form(PRESETS["bert-base"]))
    assert "108M" in base.paper_note and "109.1M" in base.paper_note and "108.5M" in base.paper_note
    assert "> The paper reports 108M" in totals_markdown(base)
    assert "(Table 1, bert-base):** 108M ·" in totals_markdown(base)  # as the paper prints it, not "108.0M"
    assert "334.6M" in calculate(_parameter_form(PRESETS["bert-large"]), lang="zh").paper_note


def test_edited_form_shows_custom_and_a_preset_refills_it(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from app import build_app
    from app.tabs.parameters.calculator import matching_preset

    presets = {name: _form(PRESETS[name]) for name in ("albert-base", "bert-base")}
    assert matching_preset(_form(PRESETS["bert-base"]), presets) == "bert-base"
    as_floats = tuple(
        float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in _form(PRESETS["albert-base"])
    )
    assert matching_preset(as_floats, presets) == "albert-base"  # the form sends 768.0
    edited = list(_form(PRESETS["albert-base"]))
    edited[1] = 64
    assert matching_preset(edited, presets) == "custom" and matching_preset([None] * 10, presets) == "custom"

    monkeypatch.setenv("ALBERT_LAB_MODELS", str(tmp_path))
    monkeypatch.setenv("ALBERT_LAB_RUNS", str(tmp_path))
    demo = build_app()
    fns = {d.api_name: d for d in demo.fns.values()}
    assert {"preset_match", "compute", "measure_speed"} <= set(fns)
    assert fns["preset_match"].fn(*edited) == "custom"
    assert fns["preset_match"].fn(*_form(PRESETS["bert-large"])) == "bert-large"
    # choosing a preset (now a change from "(custom)") refills every field
    filled = fns["preset"].fn("bert-base", "en")
    assert tuple(filled[:10]) == _form(PRESETS["bert-base"])
