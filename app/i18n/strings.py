"""Every user-facing string of the app, read from one JSON file per language: `en.json` and `zh.json` beside this
module, each key → text. Kept apart from the code so that a teacher can correct a translation without reading
Python; placeholders in `{braces}` are filled by `app.i18n.t`. Keys are grouped by prefix: `app.` the page,
`calc.`/`preset.`/`cost.` the Parameters tab, `sharing.`, `mask.`, `order.`, `attention.`, `sentiment.` the tabs,
`paper.` the paper panels, `framing.` the line beside each prediction.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANG_FILES = ("en", "zh")
"""The languages, in the order of `STRINGS`' pairs."""


def read_language(lang: str) -> dict[str, str]:
    """One language's strings (`<lang>.json` beside this module)."""
    with open(HERE / f"{lang}.json", encoding="utf-8") as handle:
        return json.load(handle)


def _pairs() -> dict[str, tuple[str, str]]:
    en, zh = (read_language(lang) for lang in LANG_FILES)
    if en.keys() != zh.keys():
        missing = sorted(en.keys() ^ zh.keys())[:5]
        raise ValueError(f"en.json and zh.json must hold the same keys; these are in only one: {missing}")
    return {key: (text, zh[key]) for key, text in en.items()}


STRINGS: dict[str, tuple[str, str]] = _pairs()
"""key → (English, 中文), for `app.i18n.t`."""
