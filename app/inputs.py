"""Checks of what an endpoint receives, before any work: text, names, whole numbers in a range, flags.

The events run with `preprocess=False` (`app.hosting.queue_options`), so these functions see exactly what the
browser or an API client sent: any JSON value. Each returns the value in the type the app uses, or
raises `InputError` with one sentence (what was wrong, what is accepted) in the user's language.
"""

from __future__ import annotations

import math
from typing import Any

from app.i18n import normalize_lang, safe, t

MAX_NAME_CHARS = 300
"""Longest model name, folder path or preset name read; longer ones are refused before any file access."""


class InputError(ValueError):
    """Input that cannot be answered; the message is one sentence for the user."""


def language(value: Any) -> str:
    """'en' or 'zh' from anything a client sends ('en' for whatever is not a language code)."""
    return normalize_lang(value if isinstance(value, str) else None)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "true/false"}.get(type(value), type(value).__name__)


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
