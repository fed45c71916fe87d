"""The example tables of the model tabs, with the answers they are expected to get.

Chosen from what the shipped default model actually gets right: `python -m scripts.choose_examples
[--corpus held-out.txt.xz]` scores every candidate (and sentences of the held-out books) the way the app does
and logs which come out right; the ones below are among them. Each tab also has one example labelled
"where it fails", which the model gets wrong, so a class sees both. `tests/test_app_examples.py` checks every
one against the shipped models (a retrained model that changes them fails that test: choose again with the
script).

The Chinese lists (chosen the same way with `--model albert-lab-zh --lang zh --corpus
../shared/corpus/zh/peoples-daily-199801-valid.txt.xz`) are used in the 中文 interface when the Chinese models are
shipped; the English models cannot read them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MaskExample:
    text: str
    """As the app shows it, one [MASK] per hidden word (per character in Chinese)."""
    answers: tuple[str, ...]
    """The hidden words, in order."""


@dataclass(frozen=True)
class OrderExample:
    a: str
    b: str
    """A then B is the original order."""
    reading: str = "prefers_ab"
    """What the shipped model answers, as the tab words it (`app.model_views.order_reading`): "prefers_ab" (right),
    "undecided" (the two orders less than 2 points apart) or "prefers_ba" (the wrong way round)."""


@dataclass(frozen=True)
class SentimentExample:
    text: str
    label: str
    """The label a reader would give it."""


MASK: dict[str, list[MaskExample]] = {
    "en": [
        MaskExample("She opened the [MASK] and walked into the garden.", ("door",)),
        MaskExample("I do not [MASK] what you mean.", ("know",)),
        MaskExample("He shook his [MASK] and put his [MASK] in his pocket.", ("head", "hand")),
        # A sentence of one of the 17 held-out books, never seen in training.
        MaskExample("Lord John lies back with his hands in [MASK] pockets and his eyes closed.", ("his",)),
    ],
    "zh": [
        MaskExample("我爱自然语言处[MASK]。", ("理",)),
        MaskExample("我国经济持续快速发[MASK]。", ("展",)),
        MaskExample("我们要努力[MASK]习。", ("学",)),
        MaskExample("建设有中国特色社会主[MASK]。", ("义",)),
        # A sentence of one of the 130 held-out articles, never seen in training.
        MaskExample("贝宁将始终是中国可信赖的朋[MASK]。", ("友",)),
    ],
}
MASK_FAILS: dict[str, list[MaskExample]] = {
    # A fact, not grammar: a 1.3M-parameter model that read 60M tokens of novels has not stored it.
    "en": [MaskExample("The capital of France is [MASK].", ("Paris",))],
    # Both characters of a word hidden: with neither half to go on, the model guesses common characters (的, 言).
    "zh": [MaskExample("我爱自然语言[MASK][MASK]。", ("处", "理"))],
}
ORDER: dict[str, list[OrderExample]] = {
    # Pairs whose order a reader sees at once (a cause, then its effect). The default English model has not learned
    # sentence order (49.8% on held-out pipeline pairs): it gives both orders of any pair nearly the same probability,
    # so the tab calls every one of them undecided — which is what a class should see. The pairs stay so that a
    # model that does learn order (a longer or GPU run) can be tried on them.
    "en": [
        OrderExample("The storm broke just after midnight.", "By morning the streets were flooded.", "undecided"),
        OrderExample("The door opened slowly.", "A tall man stood on the step.", "undecided"),
        OrderExample("He picked up the letter and opened it.", "As he read it, his face turned pale.", "undecided"),
    ],
    "zh": [
        OrderExample("大雪下了一夜。", "第二天早上，地上全是白的。"),
        OrderExample("天气越来越冷了。", "人们都穿上了厚衣服。"),
        OrderExample("今天下了一场大雨。", "路上到处都是积水。"),
    ],
}
ORDER_FAILS: dict[str, list[OrderExample]] = {
    # No pair is read the wrong way round by more than 2 points either: undecided, like every pair.
    "en": [OrderExample("She bought a ticket at the station.", "Then she boarded the train to London.", "undecided")],
    "zh": [OrderExample("去年粮食获得了大丰收。", "农民的收入增加了。", "prefers_ba")],
}
PARAGRAPH: dict[str, str] = {
    "en": (
        "The village woke early. Smoke rose from the chimneys as the bakers lit their ovens. "
        "By noon the market square was full of voices."
    ),
    "zh": "今天下了一场大雨。路上到处都是积水。孩子们穿着雨靴去上学。",
}
"""The paragraph the sentence-order tab splits after its first sentence (its default)."""
PARAGRAPH_READING: dict[str, str] = {"en": "undecided", "zh": "prefers_ab"}
"""What the shipped model answers for that split (see `OrderExample.reading`)."""
SENTIMENT: dict[str, list[SentimentExample]] = {
    "en": [
        SentimentExample("A warm, funny and beautifully acted film.", "positive"),
        SentimentExample("The plot is thin and the jokes fall flat.", "negative"),
        SentimentExample("It is not a bad movie, just a forgettable one.", "negative"),
    ],
    "zh": [
        SentimentExample("非常好的一本书，推荐大家购买。", "positive"),
        SentimentExample("剧情很无聊，我看到一半就走了。", "negative"),
        SentimentExample("物流很快，包装也很好。", "positive"),
        SentimentExample("质量太差了，用了两天就坏了。", "negative"),
    ],
}
SENTIMENT_FAILS: dict[str, list[SentimentExample]] = {
    # A negated negative word: "not … dull" is praise, but "dull" decides for this small model.
    "en": [SentimentExample("Not a single moment of this film is dull.", "positive")],
    # The same lesson in Chinese: 难看 ("ugly") decides, 一点也不 ("not at all") is not read.
    "zh": [SentimentExample("一点也不难看。", "positive")],
}


def mask_texts(lang: str, fails: bool = False) -> list[str]:
    return [e.text for e in (MASK_FAILS if fails else MASK)[lang]]


def order_pairs(lang: str, fails: bool = False) -> list[list[str]]:
    return [[e.a, e.b] for e in (ORDER_FAILS if fails else ORDER)[lang]]


def sentiment_texts(lang: str, fails: bool = False) -> list[str]:
    return [e.text for e in (SENTIMENT_FAILS if fails else SENTIMENT)[lang]]
