"""Checks of what an endpoint receives, before any work: text, names, whole numbers in a range, flags.

The events run with `preprocess=False` (`app.hosting.queue_options`), so these functions see exactly what the
browser or an API client sent: any JSON value. Each returns the value in the type the app uses, or
raises `InputError` with one sentence (what was wrong, what is accepted) in the user's language.

Two checks hold for every value of every event, before its function runs (`app.hosting.served` applies them):
`readable` refuses text holding a lone surrogate (JSON's "\\ud800" decodes to one; it is no character, and the
answer that quoted it could not be encoded) and whole numbers of more than `MAX_DIGITS` digits (a 400-digit one
overflowed every float conversion); `page_language` refuses a `lang` that is not "en" or "zh".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from app.i18n import LANG_CODES, normalize_lang, safe, t

MAX_NAME_CHARS = 300
"""Longest model name, folder path or preset name read; longer ones are refused before any file access."""
MAX_DIGITS = 100
"""Most digits of a whole number any endpoint reads (the largest in use, a model size, has 8; a client's 10**30 still
gets the field's own range sentence). Longer ones are refused before a function sees them."""
SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: what JSON's "\\ud800" decodes to in Python, text no encoder writes."""


class InputError(ValueError):
    """Input that cannot be answered; the message is one sentence for the user."""


def language(value: Any) -> str:
    """'en' or 'zh' from anything a client sends ('en' for whatever is not a language code)."""
    return normalize_lang(value if isinstance(value, str) else None)


def digits(number: int) -> int:
    """The decimal digits of `number` (its sign aside), counted without writing it out: Python refuses to write an
    int of more than 4,300 digits as text."""
    bits = abs(number).bit_length()
    if bits < 3000:
        return len(str(abs(number)))
    return int(bits * math.log10(2)) + 1


def readable(values: Iterable[Any], lang: str, field: str = "input.field.value") -> None:
    """Raise `InputError` when any value, or anything nested in a list or object among them, is text holding a lone
    surrogate or a whole number of more than MAX_DIGITS digits. The sentence never quotes the value."""
    waiting = list(values)
    while waiting:
        value = waiting.pop()
        if isinstance(value, str):
            if SURROGATE.search(value):
                raise InputError(t("input.err.surrogate", lang, field=t(field, lang)))
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) >= 10**MAX_DIGITS:
                n = f"{digits(value):,}"
                raise InputError(t("input.err.digits", lang, field=t(field, lang), n=n, limit=MAX_DIGITS))
        elif isinstance(value, dict):
            waiting.extend(value.keys())
            waiting.extend(value.values())
        elif isinstance(value, (list, tuple)):
            waiting.extend(value)


def page_language(value: Any) -> str:
    """The `lang` an event receives: exactly "en" or "zh" (the page's language switch sends one of them); anything
    else is refused, in English, before any work."""
    if isinstance(value, str) and value in LANG_CODES:
        return value
    shown = f"“{safe(value, 20)}”" if isinstance(value, str) else _kind(value)
    raise InputError(t("input.err.language", "en", value=shown))


def _kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", bool: "true/false", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def text(value: Any, lang: str, field: str) -> str:
    """A text field: a string (None counts as empty)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(t("input.err.not_text", lang, field=t(field, lang), kind=_kind(value)))
    return value


def name(value: Any, lang: str, field: str = "app.model") -> str:
    """A model or preset name: text of at most MAX_NAME_CHARS characters, stripped."""
    value = text(value, lang, field).strip()
    if len(value) > MAX_NAME_CHARS:
        raise InputError(
            t("input.err.name_too_long", lang, field=t(field, lang), n=f"{len(value):,}", limit=MAX_NAME_CHARS)
        )
    return value


def whole(value: Any, lang: str, field: str, low: int, high: int, default: int | None = None) -> int:
    """A whole number in [low, high]; None or '' gives `default` when there is one."""
    label = t(field, lang)
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is not None:
            return default
        raise InputError(t("input.err.number", lang, field=label, value="", low=low, high=high))
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(t("input.err.number", lang, field=label, value=safe(_kind(value), 40), low=low, high=high))
    if isinstance(value, int):  # compared as it is: float() of a 400-digit int overflows
        if not low <= value <= high:
            raise InputError(t("input.err.range", lang, field=label, value=safe(value, 40), low=low, high=high))
        return value
    try:
        number = float(value)
    except ValueError:
        raise InputError(t("input.err.number", lang, field=label, value=safe(value, 40), low=low, high=high)) from None
    if not math.isfinite(number) or number != int(number):
        raise InputError(t("input.err.whole", lang, field=label, value=safe(value, 40), low=low, high=high))
    if not low <= number <= high:
        raise InputError(t("input.err.range", lang, field=label, value=safe(value, 40), low=low, high=high))
    return int(number)


def flag(value: Any, lang: str, field: str) -> bool:
    """A checkbox: true or false (None is false)."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    raise InputError(t("input.err.flag", lang, field=t(field, lang), value=safe(value, 40)))
