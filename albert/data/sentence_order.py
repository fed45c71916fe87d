"""Sentence-order pairs that only reading can put in order: the one rule every order measurement builds on.

A pair is two consecutive runs of whole sentences of one document, built **centre-out**: a boundary between two
sentences is drawn, A grows backward from it and B forward from it, a whole sentence at a time, each while it fits
half the token budget. The construction is its own mirror image, so a segment's length, its number of sentences
and whether it touches an edge of its document say nothing about which segment comes first. (A window filled
forward and then split does leak: the sentence that did not fit starts the next window, so first parts are longer,
and "the longer part goes first" scored 59.9% on such pairs without reading a word.) A boundary whose neighbouring
sentence does not fit half the budget on its own is skipped, so no segment is ever cut inside a sentence, and no two
pairs share a sentence.

Each pair is asked **in both orders** (balanced by construction). The headline measure is "prefers the true order":
the model's probability that A → B is in order is higher than its probability that B → A is (a tie counts half),
with a Wilson 95% interval (`albert.training.order_scoring`). `other` is a segment of another document, built as B
is, for the topic check that NSP trains: does the model prefer the real next text over another document's?

The same planner serves text (`order_pairs`: scorers, examples, the app) and a tokenized corpus
(`corpus_order_pairs`: the pretraining run's held-out evaluation).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from albert.data.chinese import is_han
from albert.data.corpus import TokenizedCorpus, read_documents
from albert.data.sentences import split_sentences

_CHINESE_SENTENCE_END = re.compile(r"[。！？；…][”’」』）》]*$")


@dataclass(frozen=True)
class PairSpan:
    """One pair as sentence indices of a document: A is sentences [begin, boundary), B is [boundary, end).
    `other` is (document, first sentence, end sentence) of another document's segment, grown as B is."""

    document: int
    begin: int
    boundary: int
    end: int
    other: tuple[int, int, int]


@dataclass(frozen=True)
class OrderPair:
    """Two consecutive segments in their true order, and another document's segment built as `second` is."""

    first: str
    second: str
    other: str


def is_chinese_headline(paragraph: str) -> bool:
    """A Chinese line that does not end a sentence: a headline, byline or dateline. It always opens its article, so
    a pair holding it would give the order away; pairs leave such lines out."""
    text = paragraph.strip()
    return any(is_han(ch) for ch in text) and not _CHINESE_SENTENCE_END.search(text)


def _grow(lengths: Sequence[int], start: int, stop: int, step: int, budget: int) -> int:
    """From sentence `start` in direction `step` (±1), the index one past the last whole sentence that keeps the
    run within `budget` tokens, never past `stop`."""
    used, index = 0, start
    while index != stop and used + lengths[index] <= budget:
        used += lengths[index]
        index += step
    return index


def plan_pairs(
    sentence_lengths: Sequence[Sequence[int]],
    max_tokens: int,
    count: int,
    seed: int = 0,
    avoid_seeds: Sequence[int] = (),
) -> list[PairSpan]:
    """Up to `count` centre-out pairs over documents given as token counts per sentence; A and B each hold at most
    `max_tokens // 2` tokens. Deterministic for a seed; no two pairs share a sentence, and none shares a sentence with
    the pairs the `avoid_seeds` draw (a replication on text the first measurement did not use)."""
    half = max_tokens // 2
    if half < 1:
        raise ValueError(f"max_tokens must be at least 2 to hold a pair, got {max_tokens}.")
    boundaries = [
        (document, m)
        for document, lengths in enumerate(sentence_lengths)
        for m in range(1, len(lengths))
        if 0 < lengths[m - 1] <= half and 0 < lengths[m] <= half
    ]
    used: set[tuple[int, int]] = set()
    for avoided in avoid_seeds:
        for span in plan_pairs(sentence_lengths, max_tokens, count, avoided):
            used.update((span.document, s) for s in range(span.begin, span.end))
    rng = random.Random(seed)
    rng.shuffle(boundaries)
    spans: list[PairSpan] = []
    for document, m in boundaries:
        if len(spans) >= count:
            break
        lengths = sentence_lengths[document]
        begin = _grow(lengths, m - 1, -1, -1, half) + 1
        end = _grow(lengths, m, len(lengths), 1, half)
        if any((document, s) in used for s in range(begin, end)):
            continue
        used.update((document, s) for s in range(begin, end))
        other = _other_segment(sentence_lengths, boundaries, document, half, rng)
        spans.append(PairSpan(document, begin, m, end, other))
    return spans


def _other_segment(
    sentence_lengths: Sequence[Sequence[int]],
    boundaries: list[tuple[int, int]],
    document: int,
    half: int,
    rng: random.Random,
) -> tuple[int, int, int]:
    """A segment of another document grown forward from a drawn boundary, as B is (the topic check's random next);
    from the pair's own document only when the text has no other."""
    for _ in range(100):
        other, m = boundaries[rng.randrange(len(boundaries))]
        if other != document:
            break
    lengths = sentence_lengths[other]
    return other, m, _grow(lengths, m, len(lengths), 1, half)


def join_sentences(sentences: Sequence[str]) -> str:
    """Sentences as one segment: joined with a space, or with nothing between Chinese sentences."""
    text = ""
    for sentence in sentences:
        if text and not (is_han(text[-1]) or text[-1] in "。！？；”’」』）》…" or is_han(sentence[0])):
            text += " "
        text += sentence
    return text


def sentence_documents(paths: Sequence[str | os.PathLike] | str | os.PathLike) -> list[list[str]]:
    """Documents of held-out text as lists of sentences (`albert.data.sentences.split_sentences`), Chinese
    headlines, bylines and datelines left out (`is_chinese_headline`)."""
    documents = []
    for paragraphs in read_documents(paths):
        sentences = [s for p in paragraphs if not is_chinese_headline(p) for s in split_sentences(p)]
        if len(sentences) >= 2:
            documents.append(sentences)
    return documents


def order_pairs(
    documents: Sequence[Sequence[str]],
    count_tokens: Callable[[str], int],
    max_tokens: int,
    count: int,
    seed: int = 0,
    avoid_seeds: Sequence[int] = (),
) -> list[OrderPair]:
    """Up to `count` centre-out pairs of text from documents given as lists of sentences; `count_tokens` is the
    scoring model's tokenizer (pieces per sentence, without special tokens), `max_tokens` what A and B may hold
    together; `avoid_seeds` as in `plan_pairs`."""
    lengths = [[count_tokens(sentence) for sentence in document] for document in documents]
    return [
        OrderPair(
            first=join_sentences(documents[span.document][span.begin : span.boundary]),
            second=join_sentences(documents[span.document][span.boundary : span.end]),
            other=join_sentences(documents[span.other[0]][span.other[1] : span.other[2]]),
        )
        for span in plan_pairs(lengths, max_tokens, count, seed, avoid_seeds)
    ]


def corpus_order_pairs(
    corpus: TokenizedCorpus, max_tokens: int, count: int, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The same pairs over a tokenized corpus: (A, B, other) token ids, for the pretraining run's held-out check."""
    offsets = np.asarray(corpus.sentence_offsets)
    documents = np.asarray(corpus.document_offsets)
    lengths = [np.diff(offsets[documents[d] : documents[d + 1] + 1]).tolist() for d in range(corpus.num_documents)]
    tokens = corpus.tokens

    def ids(document: int, first: int, stop: int) -> np.ndarray:
        base = int(documents[document])
        return np.asarray(tokens[int(offsets[base + first]) : int(offsets[base + stop])], dtype=np.int64)

    return [
        (
            ids(span.document, span.begin, span.boundary),
            ids(span.document, span.boundary, span.end),
            ids(*span.other),
        )
        for span in plan_pairs(lengths, max_tokens, count, seed)
    ]
