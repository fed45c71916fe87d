# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Strings of tab 1, the parameter calculator (`app.calculator`, `app.costs`, `app.tab_parameters`), and the
library's configuration errors as the calculator shows them: key → (English, 中文). Merged into `app.strings.STRINGS`."""

from __future__ import annotations

PARAMETER_STRINGS: dict[str, tuple[str, str]] = {
    # ----- calculator form ------------------------------------------------------------------
    "field.preset": ("Preset", "预设配置"),
    "field.preset.info": (
        "The paper's six configurations and the shipped models; edit any field below.",
        "论文中的六种配置和随附的模型；下面每一项都可以修改。",
    ),
    "field.vocab_size": ("Vocabulary size V", "词表大小 V"),
    "field.embedding_size": ("Embedding size E", "词嵌入维度 E"),
    "field.hidden_size": ("Hidden size H", "隐藏层维度 H"),
    "field.num_hidden_layers": ("Layers (passes) L", "层数（计算次数）L"),
    "field.num_attention_heads": ("Attention heads A", "注意力头数 A"),
    "field.intermediate_size": ("Feed-forward size", "前馈层维度"),
    "field.max_position_embeddings": ("Positions P", "位置数 P"),
    "field.sharing": ("Cross-layer sharing", "跨层共享方式"),
    "field.num_hidden_groups": ("Groups G", "分组数 G"),
    "field.num_hidden_groups.info": (
        "Only for 'all': L passes in G blocks, each with its own weights.",
        "仅用于“全部共享”：L 次计算分成 G 组，每组有自己的权重。",
    ),
    "field.project_embeddings": ("E→H projection", "E→H 投影"),
    "field.project_embeddings.info": (
        "Needed whenever E ≠ H; BERT (E = H) has none.",
        "只要 E ≠ H 就需要；BERT（E = H）没有投影。",
    ),
    "calc.button": ("Calculate", "计算"),
    "sharing.all": ("all — attention + FFN shared (ALBERT)", "全部共享：注意力 + 前馈（ALBERT）"),
    "sharing.attention": ("attention — only attention shared", "仅共享注意力"),
    "sharing.ffn": ("ffn — only feed-forward shared", "仅共享前馈层"),
    "sharing.none": ("none — every layer its own weights (BERT)", "不共享：每层独立权重（BERT）"),
    "preset.custom": ("(custom)", "（自定义）"),
    "calc.explain": (
        "**Why ALBERT is small.** BERT ties the token embedding width to the hidden width: a "
        "vocabulary of V tokens costs V × H parameters. ALBERT embeds tokens in a small space E "
        "and projects to H: V × E + E × H. Then it **reuses one layer's weights for all L passes**, "
        "so depth no longer multiplies the parameter count. Change a number and watch the totals.",
        "**ALBERT 为什么小。** BERT 的词嵌入宽度等于隐藏层宽度：V 个词需要 V × H 个参数。ALBERT 先把词嵌入到"
        "较小的 E 维空间，再投影到 H 维：V × E + E × H。然后**所有 L 次计算重复使用同一层的权重**，层数不再"
        "成倍增加参数量。改一个数字，看看总数如何变化。",
    ),
    "calc.err.empty": ("{field} is empty; enter a whole number.", "{field} 为空，请输入一个整数。"),
    "calc.err.not_number": ("{field} must be a whole number, not “{value}”.", "{field} 必须是整数，而不是“{value}”。"),
    "calc.note.groups": (
        "Groups apply only to 'all' sharing; with '{mode}' the calculator uses G = {G}.",
        "分组只用于“全部共享”；“{mode}”模式下计算器使用 G = {G}。",
    ),
    "calc.note.projection": ("E ≠ H, so the E→H projection is included.", "E ≠ H，因此包含 E→H 投影。"),
    "calc.paper_note.albert-xlarge": (
        "The paper reports 60M; the architecture as specified has 58.7M (with pooler).",
        "论文报告为 60M；按所述结构精确计算为 58.7M（含 pooler）。",
    ),
    "calc.paper_note.albert-xxlarge": (
        "The paper reports 235M; the architecture as specified has 222.6M (with pooler).",
        "论文报告为 235M；按所述结构精确计算为 222.6M（含 pooler）。",
    ),
    "calc.paper.table1": ("Table 1, {name}", "表 1，{name}"),
    "calc.paper.table3": (
        "Table 3, ALBERT-base, E = {E}, sharing {mode}",
        "表 3，ALBERT-base，E = {E}，共享方式 {mode}",
    ),
    "calc.paper.table4": (
        "Table 4, ALBERT-base, E = {E}, sharing {mode}",
        "表 4，ALBERT-base，E = {E}，共享方式 {mode}",
    ),
    "calc.embedding_md": (
        "#### Embedding arithmetic\n"
        "| | formula | parameters |\n|---|---|---|\n"
        "| BERT: V × H | {V} × {H} | **{VH}** ({VHm}) |\n"
        "{row}\n\n{verdict}",
        "#### 词嵌入计算\n"
        "| | 公式 | 参数量 |\n|---|---|---|\n"
        "| BERT：V × H | {V} × {H} | **{VH}**（{VHm}） |\n"
        "{row}\n\n{verdict}",
    ),
    "calc.total_md": (
        "#### Total: **{total}** parameters ({m})\nEmbeddings {emb} · transformer layers {layers} · pooler {heads}",
        "#### 总计：**{total}** 个参数（{m}）\n词嵌入 {emb} · Transformer 层 {layers} · pooler {heads}",
    ),
    "calc.cmp.header": (
        "\n| the same model… | parameters | compared with this model |\n|---|---|---|",
        "\n| 同一模型…… | 参数量 | 与本模型相比 |\n|---|---|---|",
    ),
    "calc.cmp.no_fact": ("without factorization (E = H)", "不做因式分解（E = H）"),
    "calc.cmp.no_share": ("without sharing", "不共享参数"),
    "calc.cmp.neither": ("with neither (BERT-style)", "两者都不用（BERT 式）"),
    "calc.paper_md": (
        "**Paper ({source}):** {paper} · **exact count:** {ours} ({oursm})",
        "**论文（{source}）：** {paper} · **精确计数：** {ours}（{oursm}）",
    ),
    "calc.col.component": ("Component", "组成部分"),
    "calc.col.parameters": ("Parameters", "参数量"),
    "calc.col.share": ("Share", "占比"),
    "calc.table": ("Parameters per component", "各部分参数量"),
    "calc.sweep": (
        "Total parameters against E, four sharing modes (Tables 3 and 4)",
        "总参数量随 E 的变化，四种共享方式（表 3 和表 4）",
    ),
    "calc.chart.variants": ("This model and its variants", "本模型及其变体"),
    "calc.chart.this": ("this model", "本模型"),
    "calc.legend.embeddings": ("embeddings (+ projection)", "词嵌入（含投影）"),
    "calc.axis.parameters": ("parameters", "参数量"),
    "calc.axis.embedding": ("embedding size E", "词嵌入维度 E"),
    "calc.paper_points": ("paper (Tables 3/4)", "论文（表 3/4）"),
    "comp.token_embeddings": ("token embeddings V×E", "词嵌入 V×E"),
    "comp.position_embeddings": ("position embeddings", "位置嵌入"),
    "comp.token_type_embeddings": ("segment embeddings", "句段嵌入"),
    "comp.embedding_layer_norm": ("embedding LayerNorm", "嵌入 LayerNorm"),
    "comp.embedding_projection": ("E→H projection", "E→H 投影"),
    "comp.attention": ("attention (Q, K, V, output)", "注意力（Q、K、V、输出）"),
    "comp.attention_layer_norms": ("attention LayerNorms", "注意力 LayerNorm"),
    "comp.ffn": ("feed-forward", "前馈层"),
    "comp.ffn_layer_norms": ("feed-forward LayerNorms", "前馈 LayerNorm"),
    "comp.pooler": ("pooler", "pooler"),
    "comp.total": ("total", "总计"),
    # ----- calculator: compute, memory and the paper's speed (issue 17, items 7 and 9) ------------------
    "calc.paper_note.bert-base": (
        "The paper reports 108M; the architecture as specified (V = 30,000) has 109.1M with the pooler and 108.5M "
        "without it. BERT's own paper, with a 30,522-token vocabulary, says 110M.",
        "论文报告为 108M；按所述结构（V = 30,000）精确计算为 109.1M（含 pooler），不含 pooler 为 108.5M。"
        "BERT 原论文（词表 30,522 个词）写作 110M。",
    ),
    "calc.paper_note.bert-large": (
        "The paper reports 334M; the architecture as specified (V = 30,000) has 334.6M with the pooler and 333.6M "
        "without it. BERT's own paper rounds it to 340M.",
        "论文报告为 334M；按所述结构（V = 30,000）精确计算为 334.6M（含 pooler），不含 pooler 为 333.6M。"
        "BERT 原论文把它约写为 340M。",
    ),
    "calc.embedding_row.factorized": (
        "| ALBERT: V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}** ({factm}) |",
        "| ALBERT（因式分解）：V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}**（{factm}） |",
    ),
    "calc.embedding_row.plain": (
        "| this model: V × E, no E→H projection | {V} × {E} | **{VE}** ({VEm}) |",
        "| 本模型：V × E，无 E→H 投影 | {V} × {E} | **{VE}**（{VEm}） |",
    ),
    "calc.embedding.smaller": (
        "Factorizing the embedding makes it **×{ratio} smaller** (weights only; biases, positions and LayerNorms are "
        "in the table).",
        "因式分解后，词嵌入参数只有原来的 **1/{ratio}**（只计权重；偏置、位置嵌入和 LayerNorm 见下表）。",
    ),
    "calc.embedding.larger": (
        "Here the factorized form is **×{ratio} larger**, not smaller: the E→H projection adds E × H, more than "
        "V × E saves against V × H. Factorizing pays only when E is well below H.",
        "这里因式分解后反而是原来的 **{ratio} 倍**：E→H 投影增加了 E × H 个参数，比 V × E 相对 V × H 省下的还多。"
        "只有当 E 远小于 H 时，因式分解才划算。",
    ),
    "calc.embedding.even": (
        "Here the factorized form is about as large as V × H (×{ratio}): nothing is saved. Factorizing pays only when E "
        "is well below H.",
        "这里因式分解后与 V × H 差不多大（×{ratio}）：什么也没省下。只有当 E 远小于 H 时，因式分解才划算。",
    ),
    "calc.embedding.none": (
        "No E→H projection (E = H, as in BERT): the embedding is the plain V × H table and nothing is saved. Tick the "
        "projection and choose E < H to factorize.",
        "没有 E→H 投影（E = H，与 BERT 相同）：词嵌入就是普通的 V × H 表，没有节省。勾选投影并选择 E < H 才是因式分解。",
    ),
    "calc.ratio.larger": ("×{r} larger", "为本模型的 {r} 倍"),
    "calc.ratio.smaller": ("×{r} smaller", "为本模型的 1/{r}"),
    "calc.ratio.same": ("the same", "与本模型相同"),
    "field.batch_size": ("Batch size B", "批大小 B"),
    "field.seq_len": ("Sequence length T", "序列长度 T"),
    "field.count_mlm_head": ("Count the MLM head", "计入 MLM 输出头"),
    "field.count_mlm_head.info": (
        "As if every position were decoded: adds H·E + E·V per token and the B·T·V logits.",
        "按每个位置都解码计算：每个词元加上 H·E + E·V，并加上 B·T·V 个 logits。",
    ),
    "compute.title": (
        "### Compute and memory\nSharing cuts **parameters**, not **compute**: every one of the L passes still does "
        "its matrix products, and every pass of a training step keeps its own activations. The formulas below are "
        "exact for the products and an estimate for activations; the button at the end measures it.",
        "### 计算量与内存\n共享减少的是**参数**，不是**计算量**：L 次计算中的每一次仍要做全部矩阵乘法，训练时每一次计算也都要保存"
        "自己的激活值。下面的公式对矩阵乘法是精确的，对激活值是估计；最后的按钮在本机实测。",
    ),
    "compute.err.seq_positions": (
        "Sequence length T = {T} is longer than the model's {P} positions; choose T ≤ {P}.",
        "序列长度 T = {T} 超过了模型的位置数 {P}；请选择 T ≤ {P}。",
    ),
    "compute.none": ("0 (no projection)", "0（无投影）"),
    "compute.mlm.off": ("not counted (tick the box)", "未计入（勾选上面的框）"),
    "compute.flops_md": (
        "#### FLOPs per token (T = {T})\n"
        "| part | multiply-adds per token | FLOPs per token |\n|---|---|---|\n"
        "| E→H projection | E·H = {E} × {H} | {proj} |\n"
        "| attention projections (Q, K, V, output) | L·4·H² = {L} × 4 × {H}² | {attn} |\n"
        "| attention scores and weighted sum | L·2·T·H = {L} × 2 × {T} × {H} | {scores} |\n"
        "| feed-forward | L·2·H·I = {L} × 2 × {H} × {I} | {ffn} |\n"
        "| MLM head | H·E + E·V = {H} × {E} + {E} × {V} | {mlm} |\n"
        "| **forward** | | **{fwd}** |\n"
        "| **training step ≈ 3 × forward** | | **{train}** |\n\n"
        "One batch of {B} × {T} tokens: **{batch_fwd}** forward, **{batch_train}** for a training step. "
        "FLOPs = 2 × multiply-adds, matrix products only: embedding look-ups, LayerNorms, softmax, GELU, biases, "
        "residual additions and the pooler (H² once per sequence) are left out, each small beside the products. "
        "The backward pass does about twice the forward work (gradients for inputs and for weights). "
        "**The sharing mode appears in none of these formulas**: a shared layer applied L times does L passes of work.",
        "#### 每个词元的 FLOPs（T = {T}）\n"
        "| 部分 | 每个词元的乘加次数 | 每个词元的 FLOPs |\n|---|---|---|\n"
        "| E→H 投影 | E·H = {E} × {H} | {proj} |\n"
        "| 注意力投影（Q、K、V、输出） | L·4·H² = {L} × 4 × {H}² | {attn} |\n"
        "| 注意力分数与加权求和 | L·2·T·H = {L} × 2 × {T} × {H} | {scores} |\n"
        "| 前馈层 | L·2·H·I = {L} × 2 × {H} × {I} | {ffn} |\n"
        "| MLM 输出头 | H·E + E·V = {H} × {E} + {E} × {V} | {mlm} |\n"
        "| **前向** | | **{fwd}** |\n"
        "| **训练一步 ≈ 3 × 前向** | | **{train}** |\n\n"
        "一批 {B} × {T} 个词元：前向 **{batch_fwd}**，训练一步 **{batch_train}**。"
        "FLOPs = 2 × 乘加次数，只计矩阵乘法：词嵌入查表、LayerNorm、softmax、GELU、偏置、残差相加和 pooler（每个序列一次 H²）"
        "都未计入，它们与矩阵乘法相比都很小。反向传播的工作量约为前向的两倍（对输入和对权重各求一次梯度）。"
        "**这些公式里根本没有共享方式**：同一层用 L 次，就要做 L 次计算。",
    ),
    "compute.memory_md": (
        "#### Memory\n"
        "| | fp32 | fp16 | int8 |\n|---|---|---|---|\n"
        "| weights ({n} parameters; a shared weight is stored once) | {w32} | {w16} | {w8} |\n\n"
        "**Training state** (fp32 weight, gradient and AdamW's two moments, 16 bytes per parameter): **{state}**. "
        "This is what sharing shrinks.\n\n"
        "**Activations kept for the backward pass**, one {B} × {T} training batch: **{act32}** in fp32, **{act16}** in "
        "fp16/bf16. Estimate: L × B·T·(8·H + 2·I) + 2·B·T·E{mlm_formula} = {values} values. Every pass keeps its own "
        "activations, **shared weights or not**: they grow with L passes, not with the number of distinct layers. "
        "An attention that keeps its probabilities (not fused) adds L·B·A·T² = {probs} values ({probs32} in fp32).\n\n"
        "**Inference** keeps nothing for a backward pass: about B·T·max(6·H, 2·H + 2·I) = {infer} values are live at a "
        "time ({infer32} in fp32).",
        "#### 内存\n"
        "| | fp32 | fp16 | int8 |\n|---|---|---|---|\n"
        "| 权重（{n} 个参数；共享的权重只存一份） | {w32} | {w16} | {w8} |\n\n"
        "**训练状态**（fp32 权重、梯度和 AdamW 的两个动量，每个参数 16 字节）：**{state}**。共享缩小的正是这一部分。\n\n"
        "**为反向传播保存的激活值**，一批 {B} × {T} 的训练数据：fp32 为 **{act32}**，fp16/bf16 为 **{act16}**。"
        "估计：L × B·T·(8·H + 2·I) + 2·B·T·E{mlm_formula} = {values} 个数值。每一次计算都保存自己的激活值，**无论权重是否共享**："
        "激活值随计算次数 L 增长，而不是随不同层的个数增长。若注意力保存其概率（非融合实现），还要加 L·B·A·T² = {probs} 个数值"
        "（fp32 为 {probs32}）。\n\n"
        "**推理**不为反向传播保存任何东西：同一时刻大约有 B·T·max(6·H, 2·H + 2·I) = {infer} 个数值（fp32 为 {infer32}）。",
    ),
    "compute.paper_md": (
        "#### Speed in the paper against FLOPs (Lan et al. 2020, Table 2)\n"
        "| model | parameters (exact) | forward FLOPs per token, T = 512 | FLOPs vs BERT-large | training speed in "
        "Table 2 (BERT-large = 1.0) |\n|---|---|---|---|---|\n{rows}\n\n"
        "Table 2's *Speedup* column is data throughput at training time on the same number of TPUs, relative to "
        "BERT-large. ALBERT-large does ×{large} BERT-large's FLOPs per token yet trained 1.7× faster: the paper credits "
        "less communication and fewer computations; with FLOPs this close, most of it is communication (18M instead of "
        "334M parameters' gradients to exchange between 64–512 TPUs). ALBERT-xxlarge has fewer parameters than "
        "BERT-large but does ×{xxlarge} its FLOPs per token and trained at 0.3× its speed (Section 4.7: 125k steps in "
        "32 h, against 34 h for 400k steps of BERT-large). **Fewer parameters do not make a model faster.**",
        "#### 论文中的速度与 FLOPs 对比（Lan 等，2020，表 2）\n"
        "| 模型 | 参数量（精确） | 每个词元的前向 FLOPs，T = 512 | FLOPs 与 BERT-large 之比 | 表 2 中的训练速度（BERT-large = 1.0） |"
        "\n|---|---|---|---|---|\n{rows}\n\n"
        "表 2 的 *Speedup* 一栏是在相同数量的 TPU 上训练时的数据吞吐量，以 BERT-large 为基准。ALBERT-large 每个词元的 FLOPs 是 "
        "BERT-large 的 ×{large}，训练却快 1.7 倍：论文将其归因于更少的通信和更少的计算；既然 FLOPs 如此接近，主要原因是通信"
        "（64–512 个 TPU 之间要交换的是 18M 而不是 334M 个参数的梯度）。ALBERT-xxlarge 的参数比 BERT-large 少，但每个词元的 "
        "FLOPs 是它的 ×{xxlarge}，训练速度只有它的 0.3 倍（第 4.7 节：12.5 万步用了 32 小时，BERT-large 40 万步用了 34 小时）。"
        "**参数少并不意味着模型更快。**",
    ),
    "compute.measure.button": ("Measure on this computer", "在本机实测"),
    "compute.measure.explain": (
        "**Measure on this computer:** builds the configured model once per sharing mode (random weights) and times one "
        "forward pass of 1 × T tokens (best of a few). So that the four timings take a few seconds, at most {tokens} "
        "tokens are timed, one forward pass may cost at most {budget} GFLOPs, and the unshared model at most {params} "
        "parameters. When other programs share the processor, timings vary by tens of percent from press to press; "
        "the FLOPs do not.",
        "**在本机实测：**按每种共享方式各构建一次所配置的模型（随机权重），测量 1 × T 个词元的一次前向传播时间（取几次中最快的）。"
        "为了让四次测量在几秒内完成，最多测 {tokens} 个词元，一次前向最多 {budget} GFLOPs，不共享时的模型最多 {params} 个参数。"
        "当其他程序同时占用处理器时，每次按下得到的用时会相差几十个百分点；FLOPs 则不会变。",
    ),
    "compute.measure.scaled": (
        "Timed 1 × {T} tokens instead of 1 × {asked}, to keep one forward pass under {budget} GFLOPs.",
        "为使一次前向不超过 {budget} GFLOPs，实测的是 1 × {T} 个词元，而不是 1 × {asked}。",
    ),
    "compute.measure.too_many_parameters": (
        "Not timed: without sharing this model has {n} parameters, beyond the {limit} this button builds on this "
        "computer; choose a smaller H, L or feed-forward size.",
        "未实测：不共享时该模型有 {n} 个参数，超过了本按钮在本机构建的上限 {limit}；请减小 H、L 或前馈层维度。",
    ),
    "compute.measure.too_many_flops": (
        "Not timed: even {T} tokens need {g} GFLOPs per forward pass, beyond the {budget} GFLOPs this button times in a "
        "few seconds; choose a smaller H, L or feed-forward size.",
        "未实测：即使只有 {T} 个词元，一次前向也需要 {g} GFLOPs，超过了本按钮几秒内能测的 {budget} GFLOPs；请减小 H、L 或前馈层维度。",
    ),
    "compute.measure.header": (
        "| sharing | parameters | forward FLOPs (1 × {T}) | time per forward pass | time vs no sharing |\n|---|---|---|---|---|",
        "| 共享方式 | 参数量 | 前向 FLOPs（1 × {T}） | 一次前向用时 | 用时与不共享之比 |\n|---|---|---|---|---|",
    ),
    "compute.measure.summary": (
        "Sharing everything: **×{p} fewer parameters**, and the forward pass took **{tm}×** the time of no sharing — "
        "the same {g} GFLOPs are computed either way. Timed with {threads} CPU thread(s); other programs on this "
        "computer slow every mode alike.",
        "全部共享：**参数少了 ×{p}**，而一次前向的用时是不共享时的 **{tm} 倍**——两者计算的都是同样的 {g} GFLOPs。"
        "使用 {threads} 个 CPU 线程测量；本机上的其他程序会同样拖慢每种方式。",
    ),
    "compute.measure.pending": (
        "Press the button to time the four sharing modes on this computer.",
        "按下按钮，在本机测量四种共享方式的用时。",
    ),
    "compute.chart.title": ("Parameters and forward time, relative to no sharing", "参数量与前向用时（相对于不共享）"),
    "compute.chart.parameters": ("parameters", "参数量"),
    "compute.chart.time": ("measured forward time", "实测前向用时"),
    "compute.axis.relative": ("relative to no sharing (= 1)", "相对于不共享（= 1）"),
    # ----- the library's configuration errors, as the calculator shows them ------------------------------
    # `app.i18n.config_error`: albert.config raises ConfigError(sentence, code, **values); the text is
    # config.err.<code>.<field> or config.err.<code>, filled with those values ({field}: the field's label).
    "config.err.not_whole": ("{field} must be a whole number, not {value}.", "{field} 必须是整数，而不是 {value}。"),
    "config.err.too_small": ("{field} must be at least 1 (got {value}).", "{field} 至少为 1（当前为 {value}）。"),
    "config.err.too_big": (
        "{field} = {value:,} is beyond the supported {limit:,}.",
        "{field} = {value:,} 超出了支持的上限 {limit:,}。",
    ),
    "config.err.heads_divide": (
        "Hidden size H = {hidden_size} must be divisible by the number of heads A = {num_attention_heads}.",
        "隐藏层维度 H = {hidden_size} 必须能被注意力头数 A = {num_attention_heads} 整除。",
    ),
    "config.err.token_id": (
        "{field} ({value}) must be a token id below the vocabulary size V = {vocab_size}.",
        "{field}（{value}）必须是小于词表大小 V = {vocab_size} 的词元 ID。",
    ),
    "config.err.choice": (
        "{field} must be one of {choices}, not “{value}”.",
        "{field} 必须是 {choices} 之一，而不是“{value}”。",
    ),
    "config.err.choice.sharing": (
        "Sharing must be all, attention, ffn or none, not “{value}”.",
        "共享方式必须是 all、attention、ffn 或 none，而不是“{value}”。",
    ),
    "config.err.groups_none": (
        "Sharing 'none' gives every pass its own weights: groups G must be 1 or L = {num_hidden_layers}, "
        "not {num_hidden_groups}.",
        "“不共享”模式下每次计算都有自己的权重：分组数 G 必须是 1 或 L = {num_hidden_layers}，而不是 {num_hidden_groups}。",
    ),
    "config.err.groups_partial": (
        "Sharing '{sharing}' shares one sublayer across all passes: groups G must be 1, not {num_hidden_groups}.",
        "“{sharing}”模式在所有计算之间共享同一个子层：分组数 G 必须是 1，而不是 {num_hidden_groups}。",
    ),
    "config.err.groups_divide": (
        "Groups G = {num_hidden_groups} must divide the number of layers L = {num_hidden_layers}.",
        "分组数 G = {num_hidden_groups} 必须能整除层数 L = {num_hidden_layers}。",
    ),
    "config.err.projection": (
        "Without the E→H projection E must equal H (E = {embedding_size}, H = {hidden_size}).",
        "不用 E→H 投影时 E 必须等于 H（E = {embedding_size}，H = {hidden_size}）。",
    ),
    "config.err.probability": (
        "{field} must be at least 0 and below 1, not {value}.",
        "{field} 必须不小于 0 且小于 1，而不是 {value}。",
    ),
    "config.err.not_positive": (
        "initializer_range ({initializer_range}) and layer_norm_eps ({layer_norm_eps}) must be positive.",
        "initializer_range（{initializer_range}）和 layer_norm_eps（{layer_norm_eps}）必须为正数。",
    ),
}
