# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Strings of the *Sentence order* tab (`app.tab_order`, `app.order_views`, the order views of `app.model_views`):
key → (English, 中文). Merged into `app.strings.STRINGS`."""

from __future__ import annotations

ORDER_STRINGS: dict[str, tuple[str, str]] = {
    "order.explain": (
        "**Sentence order (SOP) against next sentence (NSP).** BERT learned *next-sentence prediction*: is B the "
        "text that follows A, or a segment of another book? Another book usually changes the topic, so topic alone "
        "answers it. ALBERT's *sentence-order prediction* shows two *consecutive* segments of one text, swapped half "
        "of the time: same topic, only the order differs. Here the same pair goes to an SOP model and to an NSP model, "
        "in both orders, and A is also followed by B from another book.",
        "**句子顺序预测（SOP）与下一句预测（NSP）。** BERT 学的是*下一句预测*：B 是紧接在 A 后面的文字，还是另一本书里的一段？"
        "另一本书通常话题不同，所以只看话题就能答对。ALBERT 的*句子顺序预测*给出同一文本中*相邻*的两段，其中一半调换了顺序："
        "话题相同，只有顺序不同。这里把同一对句子同时交给 SOP 模型和 NSP 模型，两种顺序都问，另外还把 A 和另一本书里的一段 B 配成一对。",
    ),
    "order.a": ("Sentence A", "句子 A"),
    "order.b": ("Sentence B (what follows A)", "句子 B（紧接在 A 后面）"),
    "order.other": ("B from another book", "另一本书里的 B"),
    "order.other.info": (
        "A segment of a held-out book: an NSP model should say it does not follow A.",
        "留出书籍中的一段：NSP 模型应当判断它不是 A 的下文。",
    ),
    "order.draw": ("🎲 Draw B from another book", "🎲 抽一段另一本书的 B"),
    "order.button": ("Compare both models", "比较两个模型"),
    "order.paragraph_box": ("Split a paragraph instead", "或者拆分一个段落"),
    "order.paragraph": ("Paragraph", "段落"),
    "order.split_after": ("Split after sentence", "在第几句之后拆分"),
    "order.split_button": ("Split and compare", "拆分并比较"),
    "order.ab": ("A → B", "A → B"),
    "order.ba": ("B → A", "B → A"),
    "order.ao": ("A → other book", "A → 另一本书"),
    "order.table.title": (
        "**Each model's *yes*, pair by pair** (SOP's yes: in the original order; NSP's yes: the second text follows "
        "the first; 50% is a coin toss)",
        "**每个模型对每对句子回答“是”的概率**（SOP 的“是”：顺序正确；NSP 的“是”：第二段紧接在第一段后面；50% 等于掷硬币）",
    ),
    "order.col.pair": ("pair shown", "给模型看的句对"),
    "order.col.sop": ("SOP model", "SOP 模型"),
    "order.col.nsp": ("NSP model", "NSP 模型"),
    "order.row.order": ("order: A → B or B → A?", "顺序：A → B 还是 B → A？"),
    "order.row.topic": ("topic: B or the other book?", "话题：B 还是另一本书？"),
    "order.cell.prefers_ab": ("prefers A → B", "选 A → B"),
    "order.cell.undecided": ("can't tell", "分不清"),
    "order.cell.prefers_ba": ("prefers B → A", "选 B → A"),
    "order.cell.topic.prefers_ab": ("prefers the real B", "选真正的 B"),
    "order.cell.topic.undecided": ("can't tell", "分不清"),
    "order.cell.topic.prefers_ba": ("prefers the other book", "选另一本书"),
    "order.names": ("SOP model: **{sop}** · NSP model: **{nsp}**", "SOP 模型：**{sop}** · NSP 模型：**{nsp}**"),
    "order.no_other": (
        "The third row needs B from another book: press 🎲 (or type one in its box).",
        "第三行需要另一本书里的 B：点击 🎲（或在它的输入框里自己输入一段）。",
    ),
    "order.missing": (
        "No {language} {objective} model is shipped (it would be assets/models/{name}), so its column stays empty.",
        "没有随附的{language} {objective} 模型（应在 assets/models/{name}），所以这一列是空的。",
    ),
    "order.lang.en": ("English", "英文"),
    "order.lang.zh": ("Chinese", "中文"),
    "order.chart.title": ("Each model's yes for each pair", "每个模型对每对句子回答“是”的概率"),
    "order.chart.axis": ("P(yes)", "P(是)"),
    "howto.order_chart": (
        "How to read this: a model that reads order puts A → B above B → A; a model that reads topic puts both real "
        "orders above the other book. The dotted line is 50%, a coin toss.",
        "怎么看：懂得顺序的模型让 A → B 高于 B → A；只看话题的模型让两种真实顺序都高于另一本书。虚线是 50%，等于掷硬币。",
    ),
    # ----- beside the comparison: Table 5 and why order is hard --------------------------------------
    "order.table5.title": (
        "**The paper's Table 5** (ALBERT-base, {cite}): held-out accuracy on each pretraining task (MLM: masked "
        "words; NSP: next sentence; SOP: sentence order)",
        "**论文的表 5**（ALBERT-base，{cite}）：各预训练任务的留出集准确率（MLM：遮蔽词；NSP：下一句；SOP：句子顺序）",
    ),
    "order.table5.trained": ("trained with", "训练目标"),
    "order.table5.read": (
        "Trained with NSP, a model is at chance on order ({nsp_sop}); trained with SOP, it also does NSP ({sop_nsp}).",
        "用 NSP 训练的模型在句子顺序上只有随机水平（{nsp_sop}）；用 SOP 训练的模型在 NSP 上也不错（{sop_nsp}）。",
    ),
    "order.lesson": (
        "**Why our SOP models are at chance.** Order cannot be read from one sentence alone: a bag-of-words logistic "
        "regression on the words of A and of B, each on its own, trained on 400,000 consecutive pairs, scores 50.3% on "
        "unseen books. A model must read A and B together, which takes far more model and text than ours (1.3M "
        "parameters, 60M tokens): our SOP models are at chance, and the NSP model only tells topic.",
        "**为什么我们的 SOP 模型只有随机水平。** 只看一句话读不出顺序：把 A 的词和 B 的词分开输入的词袋逻辑回归，"
        "用 40 万对相邻句子训练，在没见过的书上只得 50.3%。模型必须把 A 和 B 放在一起读，这需要比我们大得多的模型和多得多的文本"
        "（我们的是 130 万个参数、6000 万个词元）：我们的 SOP 模型只有随机水平，NSP 模型只能分辨话题。",
    ),
    # ----- refusals and notes -------------------------------------------------------------------------
    "order.err.empty": (
        "Both sentences are needed; type sentence A and sentence B.",
        "需要两个句子；请输入句子 A 和句子 B。",
    ),
    "order.err.split": (
        "The paragraph needs at least two sentences (ending in . ! ? or 。！？) to split.",
        "段落至少要有两个句子（以 . ! ? 或 。！？ 结尾）才能拆分。",
    ),
    "order.err.no_others": (
        "No segments of other books are shipped for {language} text; type one in the box instead.",
        "没有随附的{language}其他书籍片段；请在输入框里自己输入一段。",
    ),
    "order.err.no_head": (
        '{name} was pretrained with masked-word prediction only (the paper\'s Table 5 "None" column): it has no '
        "sentence head, so it cannot judge sentence order. Pick a model trained with SOP or NSP, e.g. {default}.",
        "{name} 只用掩码词预测预训练（论文表 5 的“None”一列），没有句子输出层，无法判断句子顺序。"
        "请选择用 SOP 或 NSP 训练的模型，例如 {default}。",
    ),
    "order.note.random_head": (
        "This checkpoint carries no trained sentence-order weights (Hugging Face hub ALBERTs never do), so these "
        "probabilities come from a randomly initialised head and mean nothing.",
        "该检查点没有训练过的句子顺序权重（Hugging Face Hub 上的 ALBERT 都没有），因此这些概率来自随机初始化的输出层，没有意义。",
    ),
}
