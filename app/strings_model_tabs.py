# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Strings of the model tabs (masked words, attention, sharing modes, sentiment) and of how to read their views:
key → (English, 中文). Merged into `app.strings.STRINGS`; the sentence-order tab's are in `app.strings_order`."""

from __future__ import annotations

MODEL_TAB_STRINGS: dict[str, tuple[str, str]] = {
    # ----- masked words -------------------------------------------------------------------------
    "mask.explain": (
        "**Masked-language modelling.** ALBERT learns by filling in blanks: some tokens are hidden behind "
        "`[MASK]` and the model guesses them from the words on both sides. Type a sentence with one or more "
        "`[MASK]`, or pick a word below to hide it. The bars show the model's top guesses with their probabilities.",
        "**遮蔽语言模型。** ALBERT 通过“填空”来学习：把一些词元换成 `[MASK]`，让模型根据两边的词去猜。"
        "输入带有一个或多个 `[MASK]` 的句子，或在下方选一个词把它遮住。柱状图显示模型最可能的猜测及其概率。",
    ),
    "mask.text": ("Text with [MASK]", "带 [MASK] 的文本"),
    "mask.text.info": (
        "Up to 20 [MASK]s; long text is cut to the model's length.",
        "最多 20 个 [MASK]；过长的文本会按模型长度截断。",
    ),
    "mask.top_k": ("Guesses per mask (top-k)", "每个遮蔽位置的候选数（top-k）"),
    "mask.button": ("Predict", "预测"),
    "mask.filled": ("Filled with the top guesses", "用最可能的词填空后"),
    "mask.words": ("Or pick a word to mask", "或选一个词把它遮住"),
    "mask.words.info": (
        "Picking a word replaces it with [MASK] and predicts it.",
        "选中的词会被替换为 [MASK] 并进行预测。",
    ),
    "mask.panel": ("[MASK] {i} → {word}", "[MASK] {i} → {word}"),
    "mask.chart": ("Top guesses per [MASK]", "每个 [MASK] 的最可能候选"),
    "mask.axis": ("probability (one axis for every [MASK])", "概率（所有 [MASK] 共用同一坐标轴）"),
    "mask.chance": ("┆ chance: a random token, 1/V = 1/{V} = {p}", "┆ 随机水平：随便猜一个词元，1/V = 1/{V} = {p}"),
    "mask.err.none": (
        "The text has no [MASK]; add one where a word should be guessed, or pick a word to mask.",
        "文本中没有 [MASK]；请在要猜的词的位置加上 [MASK]，或选一个词把它遮住。",
    ),
    "mask.err.too_many": (
        "The text has {n} [MASK]s; at most {limit} at a time keep the answer readable.",
        "文本中有 {n} 个 [MASK]；一次最多 {limit} 个，结果才清晰可读。",
    ),
    "mask.err.truncated_all": (
        "Every [MASK] lies past the model's {n}-token limit; put one nearer the start.",
        "所有 [MASK] 都在模型 {n} 个词元的上限之后；请把它放得靠前一些。",
    ),
    "mask.note.some_cut": (
        "{n} [MASK] past the length limit were not predicted.",
        "有 {n} 个 [MASK] 超出长度上限，未做预测。",
    ),
    # ----- attention ------------------------------------------------------------------------------
    "attention.explain": (
        "**Attention across reused layers.** In a shared ALBERT every pass applies *the same* weights, yet "
        "the attention patterns differ from pass to pass because the input to each pass differs. The head view "
        "shows one pass at a time (pick it in *Layer*, numbered 1 … L as in the heatmaps); the model view shows every pass × head. Below, one head "
        "at every pass, and how similar each pass's attention is to the next one's, shared against not shared.",
        "**重复使用的层中的注意力。** 在共享参数的 ALBERT 中，每次计算都使用*同一组*权重，但由于每次的输入不同，"
        "注意力模式也各不相同。头视图一次显示一次计算（在 *层* 中选择，编号 1 … L，与热力图一致）；模型视图显示所有计算 × 所有注意力头。"
        "下方是同一个注意力头在每次计算中的样子，以及相邻两次计算的注意力有多相似（共享与不共享对比）。",
    ),
    "attention.a": ("Sentence A", "句子 A"),
    "attention.b": ("Sentence B (optional)", "句子 B（可选）"),
    "attention.head": ("Head for the heatmaps", "热力图显示的注意力头"),
    "attention.max_tokens": ("Token limit", "词元上限"),
    "attention.compare": ("Compare with", "对比模型"),
    "attention.compare.info": ("Usually the not-shared (BERT-style) twin.", "通常是不共享参数（BERT 式）的对照模型。"),
    "attention.button": ("Show attention", "显示注意力"),
    "attention.head_view": ("Head view (bertviz)", "头视图（bertviz）"),
    "attention.model_view": ("Model view (bertviz)", "模型视图（bertviz）"),
    "attention.layer": ("Layer:", "层："),
    "attention.filter": ("Attention:", "注意力："),
    "attention.pass": ("pass {i}", "第 {i} 次"),
    "attention.heatmap.title": ("Head {head} at every pass", "第 {head} 个注意力头在每次计算中"),
    "attention.similarity.title": (
        "Similarity of attention maps, pass i against pass i + 1",
        "注意力图相似度：第 i 次与第 i + 1 次计算",
    ),
    "attention.axis.pair": ("pass i", "第 i 次计算"),
    "attention.axis.weight": ("weight", "权重"),
    "attention.axis.cosine": ("cosine similarity (mean over heads)", "余弦相似度（各注意力头平均）"),
    "attention.truncated": (
        "Only the first {n} tokens are shown (raise the token limit to see more).",
        "只显示前 {n} 个词元（提高词元上限可看到更多）。",
    ),
    "attention.no_twin": (
        "No second model to compare with; ship or pick a not-shared model.",
        "没有可对比的第二个模型；请提供或选择一个不共享参数的模型。",
    ),
    # ----- how to read the views (issue 17, item 4) --------------------------------------------
    "attention.filter.all": ("All", "全部"),
    "attention.filter.aa": ("Sentence A → Sentence A", "句子 A → 句子 A"),
    "attention.filter.bb": ("Sentence B → Sentence B", "句子 B → 句子 B"),
    "attention.filter.ab": ("Sentence A → Sentence B", "句子 A → 句子 B"),
    "attention.filter.ba": ("Sentence B → Sentence A", "句子 B → 句子 A"),
    "attention.bv.heads": ("Heads", "注意力头"),
    "attention.bv.layers": ("Layers (passes)", "层（计算次序）"),
    "attention.bv.detail": ("Layer {layer}, head {head}", "第 {layer} 层，第 {head} 个头"),
    "attention.head_clamped": (
        "This model has {heads} heads; the heatmaps show head {heads}, not {head}.",
        "该模型只有 {heads} 个注意力头；热力图显示第 {heads} 个头，而不是第 {head} 个。",
    ),
    "howto.head_view": (
        "How to read this: pick a layer (pass 1 … L); each line joins a token on the left to a token it attends to "
        "on the right, darker for more weight; one colour per head (click a colour square to hide that head).",
        "怎么看：选择一层（第 1 … L 次计算）；每条线把左边的词元连到它关注的右边词元，颜色越深权重越大；每种颜色是一个注意力头"
        "（点击上方的色块可隐藏该头）。",
    ),
    "howto.model_view": (
        "How to read this: one small map per layer (rows, pass 1 … L) and head (columns); click one to enlarge it. "
        "With sharing every row uses the same weights, yet the patterns change from row to row.",
        "怎么看：每个小图对应一层（行，第 1 … L 次计算）和一个注意力头（列）；点击可放大。共享参数时每一行都用同一组权重，"
        "但注意力模式逐行变化。",
    ),
    "howto.heatmaps": (
        "How to read this: row = the token attending, column = the token it attends to; darker = more weight; each "
        "row sums to 1. The same head at every pass, numbered 1 … L as above.",
        "怎么看：行是发出注意力的词元，列是被关注的词元；颜色越深权重越大，每行之和为 1。同一个注意力头在每次计算中的样子，"
        "编号 1 … L 与上方一致。",
    ),
    "howto.similarity": (
        "How to read this: near 1 means pass i + 1 attends almost as pass i does; shared weights usually give "
        "higher, steadier similarity than separate ones.",
        "怎么看：接近 1 表示第 i + 1 次计算的注意力与第 i 次几乎相同；共享权重通常比不共享时相似度更高、更平稳。",
    ),
    "howto.mask_chart": (
        "How to read this: each bar is one guess for that [MASK]; all panels share one 0–100% axis, and the dotted "
        "red line is chance (1/V).",
        "怎么看：每根柱子是该 [MASK] 的一个候选；所有小图共用同一条 0–100% 坐标轴，红色虚线是随机水平（1/V）。",
    ),
    # ----- sharing modes ------------------------------------------------------------------------------
    "sharing.explain": (
        "**Cross-layer parameter sharing.** *all*: one layer's attention and feed-forward weights serve every "
        "pass (ALBERT). *attention* / *ffn*: only that sublayer is shared. *none*: every layer has its own weights "
        "(BERT). Sharing cuts parameters many times over.\n\n{runs}\n\nThe paper (Table 4, ALBERT-base at E 768) ranks "
        "them downstream: not shared 82.3, shared attention 81.6, all shared 79.8, shared FFN 79.5 — sharing the "
        "feed-forward block costs the most.",
        "**跨层参数共享。** *全部共享*：所有计算共用同一层的注意力和前馈权重（ALBERT）。*仅共享注意力* / *仅共享前馈层*：只共享该子层。"
        "*不共享*：每层都有自己的权重（BERT）。共享使参数量成倍减少。\n\n{runs}\n\n论文（表 4，ALBERT-base，E 768）的下游成绩："
        "不共享 82.3，仅共享注意力 81.6，全部共享 79.8，仅共享前馈层 79.5——共享前馈层代价最大。",
    ),
    "sharing.runs": (
        "Our recorded runs ({size}{tokens} tokens each on 2 CPU cores, seed 0), held-out masked words:\n{arms}",
        "我们记录的训练（{size}各在 2 个 CPU 核上训练 {tokens} 词元，种子 0），留出集遮蔽词准确率：\n{arms}",
    ),
    "sharing.runs.arm": ("- {mode} ({parameters} parameters): {mlm}", "- {mode}（{parameters} 个参数）：{mlm}"),
    "sharing.runs.size": ("E {e}, ", "词嵌入 E {e}，"),
    "sharing.runs.apart": (
        "Intervals apart, a difference under the protocol: {pairs}; every other pair overlaps.",
        "区间不重叠（按实验方案算作差异）：{pairs}；其余各对区间重叠。",
    ),
    "sharing.runs.overlap": (
        "Every pair of intervals overlaps or touches: under the protocol no arm differs from another yet.",
        "任意两组的区间都重叠或相接：按实验方案，各组之间尚无差异。",
    ),
    "sharing.runs.order": (
        "Prefers the true order on held-out pairs, each asked both ways: {low}–{high} (chance: 50%).",
        "在留出句对上（每对正反两种顺序都问）偏向真实顺序的比例：{low}–{high}（随机水平 50%）。",
    ),
    "sharing.runs.order.above": (
        "Above chance (whole interval over 50%, on both draws of pairs where two were scored): {arms}.",
        "高于随机水平（整个区间在 50% 以上；测了两组句对的，两组都如此）：{arms}。",
    ),
    "sharing.runs.order.chance": (
        "Every interval holds 50% or lies under it: no arm reads sentence order.",
        "每个区间都包含 50% 或低于它：没有哪一组学会了句子顺序。",
    ),
    "sharing.seeds": (
        "Not shared against all-shared, held-out masked words, by seed (none − all): {rows}.",
        "不共享与全部共享的留出集遮蔽词准确率之差（不共享 − 全部共享），按种子：{rows}。",
    ),
    "sharing.seeds.row": ("seed {seed}: {gap} points, {state}", "种子 {seed}：{gap} 个百分点，{state}"),
    "sharing.seeds.apart": ("intervals apart", "区间不重叠"),
    "sharing.seeds.overlap": ("intervals overlap", "区间重叠"),
    "sharing.seeds.difference": (
        "Apart with the same sign under every seed: a difference under the protocol.",
        "每个种子下区间都不重叠且方向相同：按实验方案算作差异。",
    ),
    "sharing.seeds.no_difference": (
        "Not a difference under the protocol, which asks for intervals apart with the same sign under every seed.",
        "按实验方案不算差异（方案要求每个种子下区间都不重叠且方向相同）。",
    ),
    "sharing.runs.missing": ("No recorded runs of the sharing modes yet.", "还没有各共享方式的训练记录。"),
    "sharing.config": ("Configuration", "配置"),
    "sharing.short.all": ("all (ALBERT)", "全部共享（ALBERT）"),
    "sharing.short.attention": ("attention", "仅注意力"),
    "sharing.short.ffn": ("ffn", "仅前馈"),
    "sharing.short.none": ("none (BERT)", "不共享（BERT）"),
    "sharing.params.title": ("Parameters under each sharing mode", "各共享方式下的参数量"),
    "sharing.table": ("Recorded runs: final held-out metrics", "训练记录：最终留出集指标"),
    "sharing.live.explain": (
        "**How much does each pass change its input?** The paper (Figure 2) measured the L2 distance and cosine "
        "similarity between each layer's input and output: with sharing the transitions are smoother. Try it on "
        "your own sentence, shared against not shared.",
        "**每次计算对输入改变了多少？** 论文（图 2）测量了每层输入与输出之间的 L2 距离和余弦相似度：共享参数时，"
        "层与层之间的变化更平滑。用你自己的句子试一试，比较共享与不共享。",
    ),
    "sharing.text": ("Sentence", "句子"),
    "sharing.button": ("Measure every pass", "测量每次计算"),
    "sharing.l2.title": ("L2 distance between a pass's input and output", "每次计算输入与输出的 L2 距离"),
    "sharing.cos.title": ("Cosine similarity of a pass's input and output", "每次计算输入与输出的余弦相似度"),
    "sharing.axis.pass": ("pass", "计算次序"),
    "sharing.axis.l2": ("L2 distance (mean over tokens)", "L2 距离（各词元平均）"),
    "sharing.axis.cosine": ("cosine similarity (mean over tokens)", "余弦相似度（各词元平均）"),
    "runs.none": ("No recorded training runs yet (assets/runs/ is empty).", "还没有训练记录（assets/runs/ 为空）。"),
    "runs.tokens": ("training tokens", "训练词元数"),
    "runs.tokens.log": ("training tokens (log scale)", "训练词元数（对数刻度）"),
    "runs.mlm_accuracy": ("Held-out masked-word accuracy", "留出集遮蔽词准确率"),
    "runs.sop_accuracy": (
        "Sentence order during training, on the former one-order pairs (not the honest measure; albert-lab-base's "
        "climb is the truncation shortcut)",
        "训练中的句子顺序（旧的单向句对，不是诚实的度量；albert-lab-base 的上升来自截断捷径）",
    ),
    "runs.order_accuracy": ("Prefers the true order (both orders asked)", "偏向真实顺序（正反两种顺序都问）"),
    "runs.topic_accuracy": ("Prefers the real next over another book's", "偏向真正的下文而非另一本书的一段"),
    "runs.chance": ("chance (50%)", "随机水平（50%）"),
    "runs.objective.none": ("none (MLM only)", "无（只有 MLM）"),
    "paper.note.table": ("Table", "表"),
    "paper.note.no_size": ("no row for E {e} (its sizes: {sizes})", "没有 E {e} 这一行（所列大小：{sizes}）"),
    "paper.note.avg": ("Avg", "平均"),
    "runs.col.run": ("run", "训练"),
    "runs.col.mlm": ("masked words [95% CI]", "遮蔽词 [95% 区间]"),
    "runs.col.order": ("prefers the true order [95% CI]", "偏向真实顺序 [95% 区间]"),
    "runs.col.order_replication": ("true order, second draw [95% CI]", "真实顺序，第二组句对 [95% 区间]"),
    "runs.col.topic": ("prefers the real next [95% CI]", "偏向真正的下文 [95% 区间]"),
    "runs.col.paper": ("the paper (ALBERT-base, cited by table)", "论文（ALBERT-base，按表引用）"),
    "runs.summary.title": (
        "Final held-out accuracy of each run (SOP vs NSP included)",
        "各次训练的最终留出集准确率（含 SOP 与 NSP 对比）",
    ),
    # ----- sentiment ------------------------------------------------------------------------------
    "sentiment.explain": (
        "**Fine-tuning: from a language model to a sentiment classifier.** Pretraining taught ALBERT to fill in "
        "blanks and to order sentences; *fine-tuning* then trains the same network a little longer, with a small "
        "new output layer on the [CLS] token, on sentences labelled positive or negative (the SST-2 movie reviews). "
        "This tab uses its own fine-tuned model, not the model picker above. The left chart shows the probability "
        "of each label. The right chart shows **which passes' attention the prediction relied on**: for each pass, "
        "attention × gradient — every attention weight times how much the predicted label's score would change "
        "with it, summed over heads — as a share of all passes. With *all* sharing every pass applies the same "
        "weights, so the differences between passes come from their inputs, not from different layers. Below, the "
        "words the [CLS] token attended to most in the most important pass. The model is small and was trained on "
        "a CPU: expect mistakes, especially on negation, sarcasm and text unlike movie reviews (it reads English; "
        "other scripts mostly become unknown tokens).",
        "**微调：从语言模型到情感分类器。** 预训练让 ALBERT 学会了填空和判断句子顺序；*微调* 则在 [CLS] 词元上加一个"
        "小的新输出层，用标注为正面或负面的句子（SST-2 影评）把同一个网络再训练一小会儿。本标签页使用自己的微调模型，"
        "而不是上方选择的模型。左图是各标签的概率。右图显示**预测依赖了哪几次计算的注意力**：对每次计算，"
        "用“注意力 × 梯度”——每个注意力权重乘以预测标签得分对它的变化率，再对所有注意力头求和——表示为占全部计算的比例。"
        "在*全部共享*模式下，每次计算使用同一组权重，所以各次计算之间的差异来自它们的输入，而不是来自不同的层。"
        "下方是最重要的那次计算中 [CLS] 词元最关注的词。这个模型很小，是在 CPU 上训练的：它会出错，尤其是遇到否定、"
        "反讽和不像影评的文本时（它读英文；其他文字大多会变成未知词元）。",
    ),
    "sentiment.err.missing": (
        "The sentiment model is not installed: expected a fine-tuned checkpoint in assets/sentiment/albert-lab-sst2/ "
        "(or a folder named by the ALBERT_LAB_SENTIMENT environment variable).",
        "情感分类模型尚未安装：需要在 assets/sentiment/albert-lab-sst2/ 中放入微调后的检查点"
        "（或用环境变量 ALBERT_LAB_SENTIMENT 指定一个文件夹）。",
    ),
    "sentiment.err.not_classifier": (
        "“{name}” is not a sentence classifier (its config.json names {found} with {n} label(s)); the Sentiment tab "
        "needs an AlbertForSequenceClassification checkpoint with at least two labels.",
        "“{name}” 不是句子分类模型（其 config.json 写的是 {found}，{n} 个标签）；情感分类标签页需要至少有两个标签的 "
        "AlbertForSequenceClassification 检查点。",
    ),
    "sentiment.err.no_tokens": (
        "The text has nothing the model can read; type a sentence.",
        "文本中没有模型能读取的内容，请输入一个句子。",
    ),
    "sentiment.card": (
        "Model **{name}**: fine-tuned classifier, sharing {sharing}, {L} passes, H {H}.",
        "模型 **{name}**：微调后的分类器，共享方式 {sharing}，{L} 次计算，H {H}。",
    ),
    "sentiment.card.accuracy": (" Held-out (dev) accuracy: **{accuracy}**.", "留出集（dev）准确率：**{accuracy}**。"),
    "sentiment.card.link": (" Details in its [model card]({url}).", "详情见[模型卡片]({url})。"),
    "sentiment.model_line": (
        "Model **{name}**: sharing {sharing}, {L} passes.",
        "模型 **{name}**：共享方式 {sharing}，{L} 次计算。",
    ),
    "sentiment.text": ("Sentence", "句子"),
    "sentiment.text.info": (
        "English works best; long text is cut to the model's length.",
        "英文效果最好；过长的文本会按模型长度截断。",
    ),
    "sentiment.button": ("Classify", "分类"),
    "sentiment.verdict": ("### Prediction: {label} ({p})", "### 预测：{label}（{p}）"),
    "sentiment.label.negative": ("negative", "负面"),
    "sentiment.label.positive": ("positive", "正面"),
    "sentiment.probs.title": ("Probability of each label", "各标签的概率"),
    "sentiment.axis.probability": ("probability", "概率"),
    "sentiment.passes.title": (
        "Which passes it relied on (attention × gradient)",
        "预测依赖哪几次计算（注意力 × 梯度）",
    ),
    "sentiment.axis.share": ("share of the attribution", "归因占比"),
    "sentiment.tokens.title": (
        "Tokens the [CLS] token attended to most in pass {k}, the most important one (mean over "
        "heads; [CLS] and [SEP] left out)",
        "第 {k} 次计算（最重要的一次）中 [CLS] 最关注的词元（各注意力头平均；不含 [CLS] 和 [SEP]）",
    ),
    "sentiment.tokens.none": (
        "No word tokens to show (the text became special or unknown tokens only).",
        "没有可显示的词元（文本只变成了特殊词元或未知词元）。",
    ),
}
