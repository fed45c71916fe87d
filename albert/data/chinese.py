"""Chinese text helpers shared by the tokenizer and the corpus: Han characters (`albert.han`), word segmentation.

Chinese BERT and albert_zh treat every Han character as one token, and Chinese BERT-wwm masks
whole words found by a word segmenter. Here the segmentation comes with the corpus: a
"word-segmented" paragraph separates words by single spaces (People's Daily's `.words.txt`
files). The spaces are removed before tokenizing — the model never sees them — and only say
where each word starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from albert.han import HAN, HAN_RANGES  # the ranges (the model core reads them too); this module's helpers use them

# Between two characters of which at least one is Han (no whitespace involved): where SentencePiece
# is told to cut its training text, so that no learned piece holds a Han character and anything else.
_AROUND_HAN = re.compile(f"(?<=[{HAN_RANGES}])(?=\\S)|(?<=\\S)(?=[{HAN_RANGES}])")


# A sentence-final mark (。！？；… or ! ? after text), then any closing quotes or brackets, at the very end.
_ENDS_SENTENCE = re.compile(r"[。｡！？；!?…][\s”’」』）》〉】〕〗)\]]*$")

BOUNDARY_PIECE = "▁"
"""SentencePiece's word-boundary piece. In a character vocabulary it stands alone before the first Han
character of a sentence (the dummy prefix) and after spaces: a boundary Chinese text does not have."""


def is_han(character: str) -> bool:
    """Whether `character` (one character) is a Han (CJK ideograph) character."""
    return HAN.fullmatch(character) is not None


def count_han(text: str) -> int:
    """The number of Han characters in `text`."""
    return len(HAN.findall(text))


def is_character_vocabulary(pieces: Iterable[str]) -> bool:
    """Whether a vocabulary holds Han characters: a Chinese character vocabulary (`--han-characters`)."""
    return any(HAN.search(piece) for piece in pieces)


def is_running_text(paragraph: str) -> bool:
    """Whether a paragraph is running text: True unless it holds Han characters and does not end a sentence.

    News articles open with lines that are not sentences: a headline, a byline, a dateline, a photo
    caption (迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）, （一九九七年十二月三十一日）). They come
    first in every article, so a pair that starts with one gives its order away; a third of People's
    Daily's lines (a tenth of its characters) are such lines. Text without Han characters is kept as is.
    """
    return HAN.search(paragraph) is None or _ENDS_SENTENCE.search(paragraph.rstrip()) is not None


def isolate_han(text: str, delimiter: str) -> str:
    """`text` with `delimiter` put on both sides of every Han character that touches another character."""
    return _AROUND_HAN.sub(delimiter, text)


def join_words(paragraph: str) -> tuple[str, list[int]]:
    """A word-segmented paragraph ("我们 爱 自然 语言") → its text without the separating whitespace,
    and the character offset at which each word starts in that text ([0, 2, 3, 5])."""
    words = paragraph.split()
    starts: list[int] = []
    position = 0
    for word in words:
        starts.append(position)
        position += len(word)
    return "".join(words), starts


def segmented_sentences(paragraph: str, split: Callable[[str], list[str]]) -> list[tuple[str, list[int]]]:
    """Split a word-segmented paragraph into sentences of its joined text, with each sentence's word
    starts (character offsets into that sentence). `split` splits the joined text (`split_sentences`):
    the separating spaces would hide boundaries such as "。 ”"."""
    text, starts = join_words(paragraph)
    result: list[tuple[str, list[int]]] = []
    position, word = 0, 0
    for sentence in split(text):
        offset = text.index(sentence, position)  # the sentences are stripped substrings, in order
        end = offset + len(sentence)
        while word < len(starts) and starts[word] < offset:
            word += 1
        first = word
        while word < len(starts) and starts[word] < end:
            word += 1
        # A word cut by a sentence boundary (rare) starts again in the next sentence.
        result.append((sentence, [0, *(s - offset for s in starts[first:word] if s > offset)]))
        position = end
    return result


def token_word_starts(offsets: Sequence[tuple[int, int]], word_starts: Sequence[int]) -> list[bool]:
    """Per token (its character offsets in the sentence): does it start a word? The first token at a
    word's first character does ("▁" then "我": the "▁"); a token inside a word, or a second token at
    the same character, does not. A token covering the start of a second word joins the two."""
    starts = set(word_starts)
    flags: list[bool] = []
    previous = -1
    for begin, _ in offsets:
        flags.append(begin in starts and begin != previous)
        previous = begin
    return flags
