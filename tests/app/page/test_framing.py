"""The framing line's rules on made-up metrics: chance per task, the verdict against chance, missing figures."""

from __future__ import annotations

import re

import pytest

from app.page import framing

METRICS = {
    "tokens": 20_192_986,
    "parameters": 756_098,
    "mlm_accuracy": 0.1552,
    "mlm_ci95": [0.15, 0.1591],
    "mlm_n": 24224,
    "order_accuracy": 0.62,
    "order_ci95": [0.60, 0.64],
    "order_n": 3000,
    "topic_accuracy": 0.91,
    "topic_ci95": [0.90, 0.92],
    "topic_n": 3000,
}


def test_each_tab_gets_its_own_figure_and_chance() -> None:
    mask = framing.facts("m", METRICS, 8000, 1, "mask")
    assert [h.key for h in mask.held_out] == ["mlm"] and mask.held_out[0].chance == 1 / 8000
    assert mask.parameters == 756_098 and mask.tokens == 20_192_986  # the file's figures, not the counted 1
    order = framing.facts("m", METRICS, 8000, 1, "order")
    assert [h.key for h in order.held_out] == ["order"] and order.held_out[0].chance == 0.5
    nsp = framing.facts("m", METRICS, 8000, 1, "order", objective="nsp")
    assert [h.key for h in nsp.held_out] == ["topic", "order"]  # what NSP trains, then the order it does not
    for lang, said in (("en", "each pair asked two ways"), ("zh", "每个句对都问两种情况")):
        line = framing.framing_markdown(nsp, "order", lang, objective="nsp")
        assert said in line and "(there are two orders)" not in line and "（只有两种顺序）" not in line


@pytest.mark.parametrize("low,high,verdict", [(0.6, 0.64, "above"), (0.47, 0.51, "chance"), (0.41, 0.45, "below")])
def test_verdict_compares_the_interval_with_chance(low: float, high: float, verdict: str) -> None:
    assert framing.HeldOut("order", (low + high) / 2, low, high, 100, 0.5).verdict == verdict


def test_order_line_calls_a_model_above_chance_only_when_its_order_interval_is() -> None:
    learned = framing.framing_markdown(framing.facts("m", METRICS, 8000, 1, "order"), "order")
    assert "**62.0%**" in learned and "60.0%–64.0%" in learned and "coin toss" not in learned
    assert "62.0%** of sentence pairs, each pair asked both ways (95% interval 60.0%–64.0%; 3,000 examples), above" in (
        learned
    )
    at_chance = dict(METRICS, order_accuracy=0.507, order_ci95=[0.489, 0.525])
    text = framing.framing_markdown(framing.facts("m", at_chance, 8000, 1, "order"), "order")
    assert "coin toss" in text and "Chance: 50%" in text and "above chance" not in text
    # an NSP model above chance on topic but not on order: the topic figure says above, the order one a coin toss
    nsp = framing.framing_markdown(framing.facts("m", at_chance, 8000, 1, "order", "nsp"), "order", "en", "nsp")
    said = "over another document's for **91.0%** of pairs (95% interval 90.0%–92.0%; 3,000 examples), above chance"
    assert said in nsp
    assert "50.7%" in nsp and "has not learned sentence order" in nsp
    zh = framing.framing_markdown(framing.facts("m", at_chance, 8000, 1, "order"), "order", "zh")
    assert "抛硬币" in zh and not re.search(r"[A-Za-z]{3,}", zh.replace("ALBERT-base", "").replace("BERT-base", ""))


def test_an_order_figure_above_chance_on_one_draw_only_is_a_coin_toss() -> None:
    """With a dozen models tested, one interval in twenty misses 50% by chance: a second draw that does not agree
    takes "above chance" back, and both figures are shown."""
    one_draw = dict(METRICS, order_accuracy=0.524, order_ci95=[0.506, 0.542])
    assert "above chance" in framing.framing_markdown(framing.facts("m", one_draw, 8000, 1, "order"), "order")
    both = dict(
        one_draw, order_replication_accuracy=0.494, order_replication_ci95=[0.475, 0.512], order_replication_n=2814
    )
    facts = framing.facts("m", both, 8000, 1, "order")
    assert facts.held_out[0].own_verdict == "above" and facts.held_out[0].verdict == "chance"
    text = framing.framing_markdown(facts, "order")
    assert "**52.4%**" in text and "**49.4%** on a second draw of pairs that shares no sentence with the first" in text
    assert "a coin toss" in text and "has not learned sentence order" in text and "above chance" not in text
    assert facts.as_dict()["held_out"][0]["replication"]["n"] == 2814
    agreeing = dict(both, order_replication_accuracy=0.56, order_replication_ci95=[0.54, 0.58])
    assert "above chance" in framing.framing_markdown(framing.facts("m", agreeing, 8000, 1, "order"), "order")
    assert "第二组句对上为 **49.4%**" in framing.framing_markdown(facts, "order", "zh")


def test_mask_line_gives_chance_as_one_in_v() -> None:
    text = framing.framing_markdown(framing.facts("m", METRICS, 8000, 1, "mask"), "mask")
    assert "0.0125%" in text and "8,000 tokens" in text and "**15.5%**" in text and "24,224 examples" in text
    assert "20.2M tokens" in text and "756,098 parameters" in text and "12M" in text and "108M" in text


def test_a_model_without_metrics_says_so_and_still_gives_size_and_chance() -> None:
    facts = framing.facts("local-ckpt", None, 30000, 11_683_584, "mask")
    text = framing.framing_markdown(facts, "mask")
    assert not facts.recorded and "No held-out figures" in text and "11,683,584" in text and "0.00333%" in text
    partial = framing.facts("m", {"tokens": 10}, 100, 5, "order")
    assert partial.recorded and not partial.held_out
    assert "record no held-out figure" in framing.framing_markdown(partial, "order")
    assert framing.held_out({"mlm_accuracy": 1.5}, "mlm", 0.1) is None  # not a fraction: not shown
    assert framing.held_out({"mlm_accuracy": True}, "mlm", 0.1) is None


def test_majority_class_is_read_from_the_counts() -> None:
    assert framing.majority({"negative": 428, "positive": 444}) == ("positive", pytest.approx(444 / 872))
    for bad in (None, {}, {"a": -1, "b": 3}, {"a": 0}, {"a": "x"}, [1, 2]):
        assert framing.majority(bad) is None
    facts = framing.sentiment_facts("clf", {"dev_accuracy": 0.8, "dev_labels": {"neg": 1, "pos": 3}}, 10, 2)
    text = framing.sentiment_markdown(facts)
    assert "75.0%" in text and "(pos)" in text and "**80.0%**" in text
    assert "50.0% for a guess among 2 labels" in framing.sentiment_markdown(
        framing.sentiment_facts("clf", {"dev_accuracy": 0.8}, 10, 2)
    )


def test_percent_keeps_small_chances_readable() -> None:
    assert [framing.percent(x) for x in (0.2043, 0.5, 1 / 8000, 1 / 30000, 0)] == [
        "20.4%",
        "50.0%",
        "0.0125%",
        "0.00333%",
        "0%",
    ]


def test_an_order_figure_of_one_genre_says_where_it_holds() -> None:
    genre = dict(METRICS, order_text={"en": "Chinese product reviews", "zh": "中文商品评论"})
    text = framing.framing_markdown(framing.facts("m", genre, 8000, 1, "order"), "order")
    assert "Its sentence-order figures hold for Chinese product reviews only." in text
    assert "只适用于中文商品评论。" in framing.framing_markdown(
        framing.facts("m", genre, 8000, 1, "order"), "order", "zh"
    )
    assert "hold for" not in framing.framing_markdown(framing.facts("m", genre, 8000, 1, "mask"), "mask")
    assert framing.facts("m", dict(METRICS, order_text="reviews"), 8000, 1, "order").order_text is None
