"""albert.data.sentence_order and albert.training.order_scoring: the one honest pair rule.

The centre-out pairs leave nothing for a rule that never reads the words: a decision tree on segment lengths and
edges (first and last characters, sentence counts) stays within 50% ± 2 points on balanced pairs, in English and
in Chinese, while the same tree reads the order off forward-filled windows (the scorer's old construction)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest
import torch

from albert.data.sentence_order import (
    OrderPair,
    corpus_order_pairs,
    is_chinese_headline,
    join_sentences,
    order_pairs,
    plan_pairs,
    sentence_documents,
)
from albert.training.order_scoring import Proportion, preference, score_id_pairs
from experiments.order_shortcuts import text_free_preference

WORDS = "the a ship sea old man went to and of it was he she they boat night wind over under we".split()
HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产"


def english_documents(count: int, seed: int) -> list[list[str]]:
    """Books of sentences 2-45 words long (skewed short, as in books), some in quotes, some exclaiming."""
    rng = random.Random(seed)
    documents = []
    for _ in range(count):
        sentences = []
        for _ in range(rng.randint(2, 40)):
            words = [rng.choice(WORDS) for _ in range(min(45, 2 + int(rng.expovariate(1 / 12))))]
            sentence = " ".join(words).capitalize() + rng.choice(".....!?")
            sentences.append(f'"{sentence}"' if rng.random() < 0.15 else sentence)
        documents.append(sentences)
    return documents


def chinese_documents(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [
        [
            "".join(rng.choice(HAN) for _ in range(min(80, 4 + int(rng.expovariate(1 / 25)))))
            + rng.choice("。。。！？；")
            for _ in range(rng.randint(2, 40))
        ]
        for _ in range(count)
    ]


def english_tokens(text: str) -> int:
    return len(text.split())


def chinese_tokens(text: str) -> int:
    return len(text)


def forward_filled_pairs(
    documents: Sequence[Sequence[str]], count_tokens: Callable[[str], int], max_tokens: int, seed: int
) -> list[OrderPair]:
    """The construction the scorer used before: windows of whole sentences filled forward to `max_tokens`, split at
    a random sentence boundary. The sentence that did not fit opens the next window, so first parts run longer."""
    rng, pairs = random.Random(seed), []
    for document in documents:
        lengths, start = [count_tokens(s) for s in document], 0
        while start < len(document) - 1:
            end, used = start, 0
            while end < len(document) and used + lengths[end] <= max_tokens:
                used, end = used + lengths[end], end + 1
            if end - start >= 2:
                split = rng.randint(start + 1, end - 1)
                pairs.append(OrderPair(join_sentences(document[start:split]), join_sentences(document[split:end]), ""))
            start = max(end, start + 1)
    return pairs


@pytest.mark.parametrize(
    ("documents", "count_tokens"),
    [(english_documents(4000, 0), english_tokens), (chinese_documents(4000, 0), chinese_tokens)],
    ids=["english", "chinese"],
)
def test_no_length_or_edge_rule_orders_the_pairs(documents: list[list[str]], count_tokens: Callable) -> None:
    honest = order_pairs(documents, count_tokens, max_tokens=125, count=12_000, seed=1)
    assert len(honest) >= 8000
    rule = text_free_preference(honest, count_tokens)
    assert abs(rule.rate - 0.5) <= 0.02, rule.as_dict()
    # the same tree on the old construction: the check can fail
    leaky = forward_filled_pairs(documents, count_tokens, max_tokens=125, seed=1)
    assert text_free_preference(leaky, count_tokens).rate > 0.56


def test_pairs_are_consecutive_whole_sentences_within_half_the_budget() -> None:
    documents = english_documents(200, 3)
    pairs = order_pairs(documents, english_tokens, max_tokens=60, count=500, seed=2)
    assert len(pairs) > 300
    texts = [" ".join(d) for d in documents]
    others = 0
    for pair in pairs:
        assert english_tokens(pair.first) <= 30 and english_tokens(pair.second) <= 30
        home = [t for t in texts if f"{pair.first} {pair.second}" in t]
        assert home  # consecutive, in this order, in one document
        others += not any(pair.other in t for t in home)
    assert others == len(pairs)  # the random next comes from another document
    # no two pairs share a sentence
    used = [s for p in pairs for s in (p.first, p.second)]
    assert len(used) == len(set(used))


def test_planner_is_mirror_symmetric_and_deterministic() -> None:
    rng = random.Random(5)
    lengths = [[rng.randint(1, 40) for _ in range(rng.randint(2, 30))] for _ in range(3000)]
    spans = plan_pairs(lengths, max_tokens=60, count=20_000, seed=0)
    assert spans == plan_pairs(lengths, max_tokens=60, count=20_000, seed=0)
    a = np.array([sum(lengths[s.document][s.begin : s.boundary]) for s in spans])
    b = np.array([sum(lengths[s.document][s.boundary : s.end]) for s in spans])
    assert abs(a.mean() - b.mean()) < 0.5 and abs((a > b).mean() - (b > a).mean()) < 0.03
    touches_start = np.mean([s.begin == 0 for s in spans])
    touches_end = np.mean([s.end == len(lengths[s.document]) for s in spans])
    assert abs(touches_start - touches_end) < 0.02
    with pytest.raises(ValueError, match="at least 2"):
        plan_pairs(lengths, max_tokens=1, count=1)


def test_chinese_headlines_are_left_out_and_sentences_join_without_spaces(tmp_path) -> None:
    assert is_chinese_headline("江泽民会见外宾") and not is_chinese_headline("他说今天下雨了。")
    assert not is_chinese_headline("A headline in English")
    assert join_sentences(["他说。", "我们走。"]) == "他说。我们走。"
    assert join_sentences(["He left.", "We stayed."]) == "He left. We stayed."
    path = tmp_path / "news.txt"
    path.write_text("新华社北京电\n今天下雨了。我们没去。\n他来了。\n\nOnly one sentence here.\n", encoding="utf-8")
    assert sentence_documents(path) == [["今天下雨了。", "我们没去。", "他来了。"]]


def test_preference_counts_ties_half_and_wilson_brackets_the_rate() -> None:
    result = preference(np.array([0.9, 0.5, 0.2, 0.7]), np.array([0.1, 0.5, 0.3, 0.6]))
    assert result.hits == 2.5 and result.total == 4
    low, high = Proportion(500, 1000).interval()
    assert high - low == pytest.approx(2 * 1.96 * (0.25 / 1000) ** 0.5, rel=0.01)
    assert Proportion(500, 1000).verdict() == "chance" and Proportion(560, 1000).verdict() == "above"
    assert Proportion(0, 50).interval()[0] == 0.0


class _Reader(torch.nn.Module):
    """A sentence head that reads order: class 0 (in order) when the first segment's first id is the smaller."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
        first = input_ids[:, 1].float()
        second = torch.stack([row[types == 1][0] for row, types in zip(input_ids, token_type_ids, strict=True)])
        margin = (second.float() - first) + self.weight

        class Out:
            sop_logits = torch.stack([margin, -margin], dim=-1)

        return Out()


def test_scores_both_orders_and_the_random_next_on_token_ids() -> None:
    from albert.data.corpus import TokenizedCorpus
    from albert.data.masking import SpecialIds

    # increasing ids through each document: the reader gets every order right; another document's segment
    # (larger ids when it comes later) is preferred over the real next only half the time
    documents, next_id = [], 10
    rng = random.Random(0)
    for _ in range(60):
        document = []
        for _ in range(rng.randint(2, 12)):
            length = rng.randint(1, 9)
            document.append(list(range(next_id, next_id + length)))
            next_id += length
        documents.append(document)
    special = SpecialIds(pad_id=0, unk_id=1, cls_id=2, sep_id=3, mask_id=4, vocab_size=next_id)
    corpus = TokenizedCorpus.from_documents(documents, special)
    pairs = corpus_order_pairs(corpus, max_tokens=20, count=100, seed=0)
    assert len(pairs) > 40
    for a, b, _ in pairs:
        assert len(a) <= 10 and len(b) <= 10 and b[0] == a[-1] + 1  # consecutive
    scores = score_id_pairs(_Reader(), pairs, (2, 3), 0, max_tokens=20, batch_size=7)
    assert scores.order.rate == 1.0
    assert 0.2 < scores.topic.rate < 0.8


def test_a_replication_draw_shares_no_sentence_with_the_first() -> None:
    rng = random.Random(2)
    lengths = [[rng.randint(1, 30) for _ in range(rng.randint(2, 30))] for _ in range(400)]
    first = plan_pairs(lengths, max_tokens=60, count=1000, seed=0)
    again = plan_pairs(lengths, max_tokens=60, count=1000, seed=1, avoid_seeds=(0,))
    used = {(s.document, i) for s in first for i in range(s.begin, s.end)}
    assert len(again) > 300 and not any((s.document, i) in used for s in again for i in range(s.begin, s.end))
