# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Strings of the framing line beside each prediction (`app.framing`) and of the example tables
(`app.examples`): key → (English, 中文). Merged into `app.strings.STRINGS`."""

from __future__ import annotations

FRAMING_STRINGS: dict[str, tuple[str, str]] = {
    "frame.size": (
        "**{name}** has {n} parameters ({m}; in the paper ALBERT-base has {base}, BERT-base {bert}).",
        "**{name}** 有 {n} 个参数（{m}；论文中 ALBERT-base 有 {base}，BERT-base 有 {bert}）。",
    ),
    "frame.tokens": ("It was trained on {tokens} tokens.", "它训练时读过 {tokens} 个词元。"),
    "frame.held_out": ("On text it never saw: {figures}.", "在它从未见过的文本上：{figures}。"),
    "frame.figure.mlm": (
        "its first guess is right for **{accuracy}** of masked words{detail}",
        "它的第一猜测猜对了 **{accuracy}** 的遮蔽词{detail}",
    ),
    "frame.figure.order": (
        "it prefers the true order of **{accuracy}** of sentence pairs, each pair asked both ways{detail}",
        "把每个句对正反两种顺序都问一遍，它在 **{accuracy}** 的句对上更偏向真实顺序{detail}",
    ),
    "frame.figure.topic": (
        "it prefers the real next text over another document's for **{accuracy}** of pairs{detail}",
        "它在 **{accuracy}** 的句对上更偏向真正的下文，而不是另一篇文档里的一段{detail}",
    ),
    "frame.replication": (
        " and **{accuracy}** on a second draw of pairs that shares no sentence with the first{detail}",
        "，在与第一组没有共同句子的第二组句对上为 **{accuracy}**{detail}",
    ),
    "frame.order.genre": (
        "Its sentence-order figures hold for {text} only.",
        "它的句子顺序成绩只适用于{text}。",
    ),
    "frame.verdict.above": (", above chance", "，高于随机水平"),
    "frame.verdict.chance": (", a coin toss", "，相当于抛硬币"),
    "frame.verdict.below": (", below chance", "，低于随机水平"),
    "frame.detail.both": (" (95% interval {low}–{high}; {n} examples)", "（95% 区间 {low}–{high}；共 {n} 例）"),
    "frame.detail.ci": (" (95% interval {low}–{high})", "（95% 区间 {low}–{high}）"),
    "frame.detail.n": (" ({n} examples)", "（共 {n} 例）"),
    "frame.chance.word": (
        "Chance: a random guess among its {V} tokens is right {p} of the time.",
        "随机水平：在它的 {V} 个词元中随便猜，猜对的概率是 {p}。",
    ),
    "frame.chance.order": ("Chance: 50% (there are two orders).", "随机水平：50%（只有两种顺序）。"),
    "frame.chance.next": (
        "Chance: 50% on both (each pair asked two ways).",
        "随机水平：两项都是 50%（每个句对都问两种情况）。",
    ),
    "frame.order.at_chance": (
        "**That is no better than chance: this model has not learned sentence order, so any one answer here is "
        "a coin toss.**",
        "**这并不比随机好：这个模型还没有学会句子顺序，这里的任何一个答案都相当于抛硬币。**",
    ),
    "frame.unrecorded": (
        "No held-out figures are recorded for this model (only shipped models carry a metrics.json).",
        "这个模型没有记录留出集成绩（只有随附的模型带 metrics.json）。",
    ),
    "frame.no_figure": ("Its files record no held-out figure for this task.", "它的文件没有记录这项任务的留出集成绩。"),
    "frame.sentiment.size": ("**{name}** has {n} parameters ({m}).", "**{name}** 有 {n} 个参数（{m}）。"),
    "frame.sentiment.base": ("It starts from the pretrained {base}{read}.", "它从预训练模型 {base} 出发{read}。"),
    "frame.sentiment.read": (", which was trained on {tokens} tokens", "（该模型训练时读过 {tokens} 个词元）"),
    "frame.sentiment.train": (
        "It was then fine-tuned on {n} labelled sentences ({epochs} epoch).",
        "之后用 {n} 个带标签的句子微调（{epochs} 轮）。",
    ),
    "frame.sentiment.accuracy": (
        "On dev sentences it never saw it is right **{accuracy}** of the time{detail}.",
        "在它从未见过的开发集句子上，它的正确率是 **{accuracy}**{detail}。",
    ),
    "frame.sentiment.majority": (
        "Chance: always answering the commoner label ({label}) would be right {p} of the time.",
        "随机水平：总是回答更常见的标签（{label}），正确率是 {p}。",
    ),
    "frame.sentiment.uniform": (
        "Chance: {p} for a guess among {k} labels (the dev set's label counts are not recorded).",
        "随机水平：在 {k} 个标签中随便猜为 {p}（没有记录开发集的标签分布）。",
    ),
    # ----- example tables ----------------------------------------------------------------------
    "examples.fails": ("Where it fails", "它出错的地方"),
}
