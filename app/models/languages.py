"""Which language a text is in, how much of it a model cannot read, and which shipped model can.

Every shipped English model (V 8000) reads Chinese as `<unk>`: 我爱自然语言处理 comes out as
['▁', '<unk>'], and a classifier still answers "positive (76.6%)" for it. So every model tab asks
`check_readable` before predicting, and refuses text that is mostly unknown to the chosen model with
one sentence that names a shipped model that reads it (or says none does yet).

The rules (pure functions, tested in tests/app/models/test_languages.py):

- **Mostly Chinese**: more than half of the text's letters (`str.isalpha`, [MASK] left out) are Han.
  **Mostly Latin** likewise for letters of the Latin script. A text of neither kind (no letters,
  mixed, another script) has no language of its own and follows the interface language.
- **Counting unknown tokens**: only tokens holding a letter or a digit count (not special ones such
  as [CLS] and [MASK], not bare word boundaries '▁', not punctuation, symbols or emoji: those say
  nothing about the language). SentencePiece merges a run of unknown characters into ONE `<unk>`
  (这部电影很精彩。 → one `<unk>`), which would hide how much was lost; so an `<unk>` counts once per
  letter or digit it covers (what a vocabulary that knew them would at least have given).
- **Unreadable**: more than half of the counted tokens are unknown; or the text is mostly Chinese
  and not one of its Han characters is known (a safety net for tokenizers without offsets).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from albert.data.chinese import count_han, is_han
from app.i18n import normalize_lang, safe, t
from app.inputs import InputError

UNKNOWN_SHARE = 0.5
"""Text with more than this share of unknown tokens is refused, never predicted."""
MOSTLY = 0.5
"""A text is mostly Chinese (or Latin) when more than this share of its letters are Han (or Latin)."""
COUNT_CHARS = 10_000
"""Only the first characters are counted (the model reads at most 512 tokens of them anyway)."""
_MASKS = re.compile(r"[\[［]\s*mask\s*[\]］]|<mask>", re.IGNORECASE)
"""[MASK] and the spellings the masked-words tab reads as one: its letters are no language."""


def _is_latin(character: str) -> bool:
    return character.isascii() or unicodedata.name(character, "").startswith("LATIN")


def script_language(text: str) -> str | None:
    """'zh' for mostly-Han text, 'en' for mostly-Latin text, None when the letters do not say."""
    text = _MASKS.sub(" ", text[:COUNT_CHARS]) if isinstance(text, str) else ""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    if sum(is_han(c) for c in letters) > MOSTLY * len(letters):
        return "zh"
    if sum(_is_latin(c) for c in letters) > MOSTLY * len(letters):
        return "en"
    return None


def is_mostly_chinese(text: str) -> bool:
    """More than half of the letters are Han characters."""
    return script_language(text) == "zh"


def text_language(text: str, lang: str = "en") -> str:
    """The language a model should read `text` in: its own script's when clear, else the interface's."""
    return script_language(text) or normalize_lang(lang)


@dataclass(frozen=True)
class Unknowns:
    """How much of a text a tokenizer could not read."""

    unknown: int
    """Unknown tokens, an `<unk>` counted once per letter or digit it covers."""
    total: int
    """Counted tokens: those holding a letter or a digit (special tokens never)."""
    han: int = 0
    """Han characters in the counted text."""
    han_unknown: int = 0
    """Of those, the ones inside an `<unk>`."""

    def __add__(self, other: Unknowns) -> Unknowns:
        return Unknowns(
            self.unknown + other.unknown,
            self.total + other.total,
            self.han + other.han,
            self.han_unknown + other.han_unknown,
        )

    def as_dict(self) -> dict[str, int]:
        return {"unknown_tokens": self.unknown, "counted_tokens": self.total}


def count_unknown(tokenizer: Any, text: str, special_ids: Iterable[int] = ()) -> Unknowns:
    """Unknown and counted tokens of `text` (its first COUNT_CHARS characters) for `tokenizer`."""
    text = (text or "")[:COUNT_CHARS]
    unk = tokenizer.unk_token_id
    skip = {int(i) for i in special_ids} - {unk}
    try:
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        offsets = encoded["offset_mapping"]
    except (NotImplementedError, ValueError, KeyError, TypeError):  # a tokenizer without offsets
        encoded, offsets = tokenizer(text, add_special_tokens=False, verbose=False), None
    ids = encoded["input_ids"]
    pieces = tokenizer.convert_ids_to_tokens(ids)
    unknown = total = han_unknown = 0
    for i, (token_id, piece) in enumerate(zip(ids, pieces, strict=True)):
        if token_id in skip:
            continue
        if token_id != unk:
            total += any(c.isalnum() for c in str(piece))
            continue
        span = text[offsets[i][0] : offsets[i][1]] if offsets is not None else "?"
        width = sum(c.isalnum() for c in span) if offsets is not None else 1  # without offsets: once each
        unknown, total, han_unknown = unknown + width, total + width, han_unknown + count_han(span)
    return Unknowns(unknown, total, count_han(text), han_unknown)


def is_unreadable(found: Unknowns, text: str) -> bool:
    """More than half of the counted tokens unknown, or mostly-Chinese text whose Han characters are all unknown."""
    if found.total and found.unknown > UNKNOWN_SHARE * found.total:
        return True
    return found.han > 0 and found.han_unknown >= found.han and is_mostly_chinese(text)


def reader_hint(
    text: str, readers: dict[str, str | None], current: str, lang: str = "en", none_key: str = "lang.hint.none"
) -> str:
    """The sentence's second half: which shipped model reads this text's language, or that none does yet.

    `readers` maps a language ('en', 'zh') to the shipped model that reads it (None when not shipped);
    `none_key` says that none does ("no shipped model", "no shipped sentiment model").
    """
    language = script_language(text)
    if language is None:
        return t("lang.hint.unknown", lang)
    name = t(f"lang.name.{language}", lang)
    reader = readers.get(language)
    if reader == current:
        return t("lang.hint.same", lang)
    if reader:
        return t("lang.hint.pick", lang, language=name, model=safe(reader))
    return t(none_key, lang, language=name)


def check_readable(
    tokenizer: Any,
    special_ids: Iterable[int],
    texts: Iterable[str],
    name: str,
    readers: dict[str, str | None],
    lang: str = "en",
    none_key: str = "lang.hint.none",
) -> Unknowns:
    """How many tokens of `texts` the model `name` does not know; InputError (one sentence) when it cannot read them."""
    texts = [text for text in texts if text]
    found = sum((count_unknown(tokenizer, text, special_ids) for text in texts), Unknowns(0, 0))
    joined = " ".join(texts)
    if is_unreadable(found, joined):
        raise InputError(
            t(
                "lang.err.unreadable",
                lang,
                name=safe(name),
                n=found.unknown,
                total=found.total,
                hint=reader_hint(joined, readers, name, lang, none_key),
            )
        )
    return found


def unknown_notice(found: Unknowns, lang: str = "en") -> list[str]:
    """['2 of 14 tokens … unknown …'] when any token was unknown, else []."""
    if not found.unknown:
        return []
    return [t("lang.note.unknown", lang, n=found.unknown, total=found.total)]


def follow_language(current: Any, defaults: Sequence[Any], wanted: Any) -> Any | None:
    """`wanted` (the new language's example) when a field still holds one of its `defaults` (so the user has
    typed nothing of their own), else None: a language switch never overwrites what someone wrote."""
    if wanted == current:
        return None
    return wanted if any(current == default for default in defaults) else None
