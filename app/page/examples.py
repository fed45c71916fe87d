"""The example tables of the model tabs, with the answers they are expected to get.

Chosen from what the shipped default model actually gets right: `python -m scripts.choose_examples
[--corpus held-out.txt.xz]` scores every candidate (and sentences of the held-out books) the way the app does
and logs which come out right; the ones below are among them. Each tab also has one example labelled
"where it fails", which the model gets wrong, so a class sees both. `tests/app/page/test_examples.py` checks every
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
    """What the shipped SOP model answers, as the tab words it (`app.tabs.order.views.order_reading`): "prefers_ab"
    (right), "undecided" (the two orders less than 2 points apart) or "prefers_ba" (the wrong way round)."""
    other: str = ""
    """B from another book: a segment of a held-out document (`app.tabs.order.side_by_side.OTHERS_PATH`), the
    third row."""
    topic: str | None = None
    """What the language's NSP arm answers to A → B against A → other, by the same rule: "prefers_ab" (the real B)
    … "prefers_ba" (the other book); None until that arm is shipped and the example checked with it."""


@dataclass(frozen=True)
class SentimentExample:
    text: str
    label: str
    """The label a reader would give it."""


MASK: dict[str, list[MaskExample]] = {
    "en": [
        MaskExample("She opened the [MASK] and walked into the garden.", ("door",)),
        MaskExample("I do not [MASK] what you mean.", ("know",)),
        MaskExample("He shook his [MASK] and said nothing.", ("head",)),
        MaskExample("She said that [MASK] would come back soon.", ("she",)),
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
    # A fact, not grammar: a 1.3M-parameter model that read 323M tokens of novels has not stored it.
    "en": [MaskExample("The capital of France is [MASK].", ("Paris",))],
    # Both characters of a word hidden: with neither half to go on, the model guesses common characters (的, 言).
    "zh": [MaskExample("我爱自然语言[MASK][MASK]。", ("处", "理"))],
}
ORDER: dict[str, list[OrderExample]] = {
    # Pairs whose order a reader sees at once (a cause, then its effect), each with B from another book: a segment of
    # a held-out book from the tab's 🎲 list. The default English SOP model has not learned sentence order: it gives
    # both orders of any pair nearly the same probability, so the tab calls every one of them undecided — which is
    # what a class should see. The NSP arm beside it reads topic: "next" to both real orders (about 93% for the first
    # pair) and "not next" to the other book (8%), the paper's Table 5 argument live.
    "en": [
        OrderExample(
            "She bought a ticket at the station.",
            "Then she boarded the train to London.",
            "undecided",
            other="Here there is no way round or through to any vital centre of Germany's antagonists.",
            topic="prefers_ab",
        ),
        OrderExample(
            "She was very tired when she came home.",
            "She went to bed at once.",
            "undecided",
            other="(Utricularia neglecta.) One of the quadrifid processes greatly enlarged.",
            topic="prefers_ab",
        ),
        OrderExample(
            "He asked her to marry him.",
            "She said yes.",
            "undecided",
            other="Night and day, year on year, High and low, far and near, These are our own aspects, These are our "
            "own regrets.",
            topic="prefers_ab",
        ),
    ],
    # The Chinese SOP model prefers the true order of these by 2 to 11 points, yet on held-out pairs it is at chance:
    # a few pairs go its way by luck, and "where it fails" shows one that goes the other way. The Chinese NSP arm
    # (albert-lab-zh-nsp, trained on news) says "next" to both orders of the first pair (91%) and 2% to the other
    # article; on the plainer pairs below it is less sure of the real B, but always prefers it to the other article.
    "zh": [
        OrderExample(
            "我们到了车站。",
            "火车已经开走了。",
            other="同时正是在大国关系的调整中，俄进一步确立了世界大国之一的地位。展望１９９８年，这一趋势将继续下去。",
            topic="prefers_ab",
        ),
        OrderExample(
            "大雪下了一夜。",
            "第二天早上，地上全是白的。",
            other="面对这种变化，我国必须尽快改变传统的农业生产要素配置方式，不断增加资本和技术投入，以提高农产品的科技含量和附加价值。",
            topic="prefers_ab",
        ),
        OrderExample(
            "天气越来越冷了。",
            "人们都穿上了厚衣服。",
            other="他说，马中两国人民之间有着长期的友好关系，马耳他人民关注着中国的发展。",
            topic="prefers_ab",
        ),
    ],
}
ORDER_FAILS: dict[str, list[OrderExample]] = {
    # Both models fail here. English: the SOP model cannot tell the orders apart, and the NSP arm prefers the other
    # book's sentence (a narrative line of another novel reads as a next sentence as well as the real one does).
    # Chinese: the SOP model prefers the wrong order, and the NSP arm the other article's sentence.
    "en": [
        OrderExample(
            "The door opened slowly.",
            "A tall man stood on the step.",
            "undecided",
            other="Emily whispered to her to leave the room.",
            topic="prefers_ba",
        )
    ],
    "zh": [
        OrderExample(
            "去年粮食获得了大丰收。",
            "农民的收入增加了。",
            "prefers_ba",
            other="他们不会了解饺子对于我们这样一代人，起到过多么重要和不可取代的作用。",
            topic="prefers_ba",
        )
    ],
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
"""What the shipped SOP model answers for that split (see `OrderExample.reading`), beside the first example's other
book."""
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
    """The tab's example rows: A, B and B from another book."""
    return [[e.a, e.b, e.other] for e in (ORDER_FAILS if fails else ORDER)[lang]]


def sentiment_texts(lang: str, fails: bool = False) -> list[str]:
    return [e.text for e in (SENTIMENT_FAILS if fails else SENTIMENT)[lang]]
