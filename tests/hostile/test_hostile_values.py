"""Values no endpoint reads (issue 43, item 2), checked without a server: 400-digit whole numbers, lone
surrogates, a language that is not "en" or "zh". Each is refused with one sentence that quotes nothing
unencodable, before the event's function runs; the launched server's side is in test_hostile_every_endpoint.py."""

from __future__ import annotations

import json
import sys

import gradio as gr
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import hosting, inputs
from app.i18n import encodable, safe, t
from app.tabs.parameters.calculator import matching_preset

BIG = 10**400


def test_whole_numbers_of_any_size_get_the_fields_sentence() -> None:
    for value in (BIG, -BIG, 10**30, 21, 0):
        with pytest.raises(
            inputs.InputError, match=r"^Guesses per mask \(top-k\) must be from 1 to 20, got .{1,45}\.$"
        ):
            inputs.whole(value, "en", "mask.top_k", 1, 20)
    assert inputs.whole(20, "en", "mask.top_k", 1, 20) == 20
    with pytest.raises(inputs.InputError, match="finite whole number"):
        inputs.whole("9" * 400, "en", "mask.top_k", 1, 20)  # text: float() gives inf, never an overflow


def test_the_preset_match_compares_huge_numbers_without_converting_them() -> None:
    presets = {"small": (30000, 128, 768, 12, 12, 3072, "all", 1, True, 512)}
    assert matching_preset([BIG] * 10, presets) == "custom"
    assert matching_preset([30000.0, 128, "768", 12, 12, 3072, "all", 1, True, 512], presets) == "custom"
    assert matching_preset([30000.0, 128, 768.0, 12, 12, 3072, "all", 1, True, 512], presets) == "small"


def test_digits_are_counted_without_writing_the_number_out() -> None:
    assert [inputs.digits(n) for n in (0, 7, -12345, BIG, 10**100 - 1)] == [1, 1, 5, 401, 100]
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    huge = 10**6000
    sys.set_int_max_str_digits(limit)
    assert inputs.digits(huge) in (6000, 6001)  # str() of it raises ValueError
    assert safe(huge) == "(a number too long to show)"


@pytest.mark.parametrize(
    "value, sentence",
    [
        ("a\ud800b", "lone surrogate"),
        (["ok", {"k": "\udfff"}], "lone surrogate"),
        ({"\ud800": 1}, "lone surrogate"),
        (BIG, "401 digits"),
        (-(10**100), "101 digits"),
        ([[[{"k": BIG}]]], "401 digits"),
    ],
)
def test_readable_refuses_surrogates_and_huge_numbers_anywhere_without_quoting_them(value, sentence) -> None:
    with pytest.raises(inputs.InputError) as refused:
        inputs.readable(["fine", value], "en")
    message = str(refused.value)
    assert sentence in message and message.endswith(".")
    assert message.encode("utf-8") and "\ufffd" not in message and "0000000000" not in message


def test_readable_lets_every_ordinary_value_through() -> None:
    inputs.readable(["the [MASK]", 5, 10**99, -(10**30), 1e308, None, True, {"a": [1.5, "的"]}, [], ""], "en")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)
"""Any value a JSON body decodes to (text with lone surrogates and ints of any size included)."""


@given(JSON_VALUES, st.sampled_from(["en", "zh"]))
@settings(max_examples=300, deadline=None)
def test_any_json_value_is_read_or_refused_with_an_encodable_sentence(value: object, lang: str) -> None:
    """Hypothesis: `readable` refuses exactly the values that hold a lone surrogate or a number of more than
    MAX_DIGITS digits somewhere, each with one sentence that orjson (Gradio's answer encoder) writes."""
    try:
        inputs.readable([value], lang)
    except inputs.InputError as error:
        assert _unreadable(value), value
        orjson.dumps({"error": str(error)})
        assert str(error).endswith((".", "。"))
    else:
        assert not _unreadable(value), value


def _unreadable(value: object) -> bool:
    """The rule, written out again: some text with a code point of U+D800–U+DFFF, or an int of 101 digits or more."""
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) >= 10**inputs.MAX_DIGITS
    if isinstance(value, dict):
        return any(_unreadable(k) or _unreadable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unreadable(v) for v in value)
    return False


@pytest.mark.parametrize("value", [["en"], {"lang": "en"}, None, "x" * 100_000, "EN", "zh-CN", "中文", 7, True])
def test_the_page_language_is_exactly_en_or_zh(value) -> None:
    with pytest.raises(inputs.InputError, match=r'^The language \(lang\) must be "en" or "zh", got .{1,30}\.$'):
        inputs.page_language(value)
    assert [inputs.page_language(code) for code in ("en", "zh")] == ["en", "zh"]


def test_checked_values_refuses_before_the_function_runs() -> None:
    ran: list[tuple] = []

    def measure(size: object, lang: object = "en") -> str:
        """A stand-in for /measure_speed: records that it ran."""
        ran.append((size, lang))
        return "measured"

    checked = hosting.checked_values(measure, languages=(1,))
    assert checked.__name__ == "measure" and checked.__wrapped__ is measure  # Gradio reads the signature
    for args in ((128, ["en"]), (128, None), (128, "x" * 100_000), (BIG, "en"), ("a\ud800b", "zh")):
        with pytest.raises(gr.Error) as refused:
            checked(*args)
        orjson.dumps(refused.value.message)
    assert ran == []  # nothing measured for any of them
    with pytest.raises(gr.Error, match="代理码点"):
        checked("a\ud800b", "zh")  # in the language the request asked for
    assert checked(128, "zh") == "measured" and ran == [(128, "zh")]


def test_safe_and_every_formatted_string_are_encodable() -> None:
    assert safe("a\ud800b") == "a\ufffdb" and encodable("\udfff\ud800x") == "\ufffd\ufffdx"
    message = t("input.err.flag", "en", field="Compare", value="a\ud800b")
    assert json.dumps(message, ensure_ascii=False).encode("utf-8") and "\ud800" not in message
    assert t("input.err.surrogate", "zh", field=t("input.field.value", "zh")).startswith("发送的某个值")
