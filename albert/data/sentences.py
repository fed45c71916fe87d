"""Sentence splitting: the one rule that turns a paragraph into the sentences SOP and NSP build segments from.

English ends a sentence at terminal punctuation before a capital or a digit (abbreviations and initials excepted);
Chinese at 。！？； (and ! ? … after a Han character) with the closing quotes that follow. The corpus cache keys on
this rule (`albert.data.corpus.CACHE_FORMAT_VERSION`): change it and the caches are rebuilt.
"""

from __future__ import annotations

import re

from albert.data.chinese import is_han

# Words that end with a period without ending a sentence. Kept short on purpose: "etc." and
# "no." also end sentences, so they are not listed.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms mme mlle messrs dr prof rev hon st mt ft jr sr esq capt col gen lt sgt cpl maj gov pres
    vs cf viz approx dept univ inc ltd co corp fig figs vol vols ch chap pp ed eds jan feb mar apr jun
    jul aug sep sept oct nov dec
""".split()
)

# Candidate boundary: terminal punctuation (. ! ? … and runs like "?!" or "..."), optional closing
# quotes or brackets, whitespace, then (looking ahead) optional opening quotes and a character.
_BOUNDARY = re.compile(r"""([.!?…]+)([)\]"'”’»]*)\s+(?=[(\["'“‘«]*(\S))""")
_INITIALS = re.compile(r"(?:[^\W\d_]\.)*[^\W\d_]")  # "J", "e.g", "U.S" (the final period is excluded)
_OPENING = "([\"'“‘«"


# Chinese (and Japanese) sentence ends: 。！？； (full-width), or ! ? … right after a Han character; a run
# of them ("！？", "……", "。”"), then closing quotes and brackets, which stay with the sentence they
# close. No space is needed after them, nor a capital.
_CJK_TERMINALS = "。｡！？；"
_CJK_BOUNDARY = re.compile(r"([。｡！？；!?…]+)([”’」』）》〉】〕〗)\]]*)\s*(?=\S|$)")


def _split_cjk(paragraph: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _CJK_BOUNDARY.finditer(paragraph):
        run = match.group(1)
        before = paragraph[match.start() - 1] if match.start() else ""
        if not (any(c in _CJK_TERMINALS for c in run) or (before and is_han(before))):
            continue  # English "?!" or "…": the English rule decides
        pieces.append(paragraph[start : match.end(2)])
        start = match.end()
    pieces.append(paragraph[start:])
    return pieces


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences with one documented rule.

    A sentence ends at `.`, `!`, `?` or `…` (or a run of them, "?!", "...", ". . ."), followed
    by optional closing quotes/brackets and whitespace, when the next word (after optional
    opening quotes) starts with an upper-case letter or a digit. A lone `.` does not end a
    sentence after a known abbreviation ("Mr.", "Dr.", "St.", see ABBREVIATIONS), a single
    letter ("J. Smith") or dotted initials ("e.g.", "i.e.", "U.S."). Decimals ("3.14") have no
    space after the period and never split. Without such a boundary, the paragraph is one
    sentence. Known limits: "U.S. The" and "I. The" stay joined.

    Chinese: a sentence also ends at `。`, `！`, `？`, `；` or, right after a Han character, `!`, `?`
    or `…` (or a run of them: "！？", "……"), with the closing quotes and brackets that follow
    (” ’ 」 』 ） 》 〉 】 〕 〗 ) ]), whatever comes next and with no space needed:
    他说：“今天下雨了。”我们就没去。 → 他说：“今天下雨了。”｜我们就没去。 Text without Han characters and
    without those full-width marks is split exactly as before. Known limit: a quotation holding
    several sentences is split inside the quotes.
    """
    sentences: list[str] = []
    for piece in _split_cjk(paragraph):
        sentences.extend(_split_english(piece))
    return sentences


def _split_english(paragraph: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(paragraph):
        following = match.group(3)
        if not (following.isupper() or following.isdigit()):
            continue
        if match.group(1) == "." and not match.group(2):
            words = paragraph[start : match.start(1)].split()
            word = words[-1].lstrip(_OPENING) if words else ""
            if word.lower() in ABBREVIATIONS or _INITIALS.fullmatch(word):
                continue
        sentence = paragraph[start : match.end(2)].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    rest = paragraph[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences
