"""Token-tagging tasks built from raw text alone (no annotation needed), written as CoNLL files.

- **Truecasing** (English): tag each whitespace-separated word `C` when its first letter is upper-case in the
  book, else `L`. ALBERT Lab's English tokenizer lower-cases, so the model never sees the case and has to infer
  it from context: sentence starts, names, titles, "I".
- **Word segmentation** (Chinese): tag each character `B` when it begins a word of the corpus's own segmentation,
  else `I` (`albert.data.chinese.segmented_sentences` gives the words of each sentence).

    sample_sentences(paragraphs, 1000, seed=0, keep=...)  # a seeded sample of sentences
    write_conll(path, [casing_tags(s) for s in sentences])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from albert.data.chinese import segmented_sentences
from albert.data.sentences import split_sentences

Tagged = tuple[list[str], list[str]]
"""(tokens, tags), one tag per token."""


def casing_tags(sentence: str) -> Tagged:
    """Words of `sentence` (split on whitespace, punctuation attached) and C/L for their first letter's case."""
    words = sentence.split()
    tags = []
    for word in words:
        letter = next((c for c in word if c.isalpha()), "")
        tags.append("C" if letter.isupper() else "L")
    return words, tags


def segmentation_tags(sentence: str, word_starts: Sequence[int]) -> Tagged:
    """Characters of `sentence` and B (a word starts here) / I (inside a word)."""
    starts = set(word_starts)
    characters = [c for c in sentence]
    return characters, ["B" if i in starts else "I" for i in range(len(characters))]


def english_sentences(paragraphs: Iterable[str], min_words: int = 5, max_words: int = 40) -> Iterable[str]:
    for paragraph in paragraphs:
        for sentence in split_sentences(paragraph):
            if min_words <= len(sentence.split()) <= max_words:
                yield sentence


def chinese_sentences(paragraphs: Iterable[str], min_chars: int = 4, max_chars: int = 60) -> Iterable[Tagged]:
    """Tagged sentences of word-segmented paragraphs, with no whitespace inside a sentence."""
    for paragraph in paragraphs:
        for sentence, starts in segmented_sentences(paragraph, split_sentences):
            if min_chars <= len(sentence) <= max_chars and not any(c.isspace() for c in sentence):
                yield segmentation_tags(sentence, starts)


def sample(items: Iterable[Tagged], n: int, seed: int) -> list[Tagged]:
    """A seeded uniform sample of `n` items (reservoir sampling: one pass, any length), in input order."""
    rng = random.Random(seed)
    reservoir: list[tuple[int, Tagged]] = []
    for index, item in enumerate(items):
        if len(reservoir) < n:
            reservoir.append((index, item))
        else:
            slot = rng.randint(0, index)
            if slot < n:
                reservoir[slot] = (index, item)
    return [item for _, item in sorted(reservoir, key=lambda pair: pair[0])]


def write_conll(path: str | Path, sentences: Iterable[Tagged]) -> int:
    """Write `token tag` lines, a blank line after each sentence; returns the number of sentences."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for tokens, tags in sentences:
            out.write("".join(f"{t} {g}\n" for t, g in zip(tokens, tags, strict=True)) + "\n")
            count += 1
    return count


def majority_and_rule(sentences: Sequence[Tagged], rule: Callable[[int, str], str]) -> dict[str, float]:
    """Token accuracy of the majority tag and of `rule(position, token)` on tagged sentences (baselines)."""
    from collections import Counter

    counts = Counter(tag for _, tags in sentences for tag in tags)
    total = sum(counts.values())
    ruled = sum(
        rule(i, t) == g for tokens, tags in sentences for i, (t, g) in enumerate(zip(tokens, tags, strict=True))
    )
    return {"majority": counts.most_common(1)[0][1] / total, "rule": ruled / total, "tokens": total}
