# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Every user-facing string of the app: key → (English, 中文).

Kept apart from the code so a teacher can correct a translation without reading Python.
Placeholders in `{braces}` are filled by `app.i18n.t`.
"""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # ----- page -------------------------------------------------------------------------------
    "app.title": ("ALBERT Lab", "ALBERT 实验室"),
    "app.intro": (
        "# ALBERT Lab\nSee what **ALBERT** (*A Lite BERT*, Lan et al. 2019) changes: a **factorized "
        "embedding**, **cross-layer parameter sharing** and **sentence-order prediction**. "
        "Every number here is computed exactly; every model runs on this computer.",
        "# ALBERT 实验室\n看看 **ALBERT**（*A Lite BERT*，Lan 等，2019）改变了什么：**因式分解的词嵌入**、"
        "**跨层参数共享**和**句子顺序预测**。这里的每个数字都是精确计算的，每个模型都在本机运行。"),
    "app.language": ("Language / 语言", "语言 / Language"),
    "app.model": ("Model", "模型"),
    "app.footer": ("[Use the API (gradio_client)](?view=api) · built with [Gradio](https://gradio.app) · "
                   "ALBERT: Lan et al. 2019, [arXiv:1909.11942](https://arxiv.org/abs/1909.11942)",
                   "[调用 API（gradio_client）](?view=api) · 用 [Gradio](https://gradio.app) 构建 · "
                   "ALBERT：Lan 等，2019，[arXiv:1909.11942](https://arxiv.org/abs/1909.11942)"),
    "app.model.info": (
        "A shipped model, or type a local checkpoint folder or a Hugging Face hub id (needs internet).",
        "选择随附的模型，或输入本地检查点文件夹、Hugging Face Hub 模型 ID（需要联网）。"),
    "model.err.none_shipped": (
        "No shipped model yet: add a checkpoint folder under assets/models/, or type a local checkpoint "
        "folder or a hub id in the model picker.",
        "还没有随附的模型：请在 assets/models/ 下放入检查点文件夹，或在模型选择框中输入本地检查点文件夹或 Hub 模型 ID。"),
    "model.err.not_dir": ("“{value}” is not a model folder; expected a folder holding config.json and "
                          "model.safetensors, or a hub id such as albert/albert-base-v2.",
                          "“{value}” 不是模型文件夹；需要包含 config.json 和 model.safetensors 的文件夹，"
                          "或 albert/albert-base-v2 这样的 Hub 模型 ID。"),
    "model.err.bad_name": ("“{value}” is neither a shipped model, a local folder nor a hub id.",
                           "“{value}” 既不是随附模型，也不是本地文件夹或 Hub 模型 ID。"),
    "model.err.hub": ("Could not download “{value}” from the Hugging Face hub: this computer seems offline or "
                      "the id is wrong; use a shipped model or a local checkpoint folder.",
                      "无法从 Hugging Face Hub 下载 “{value}”：本机似乎未联网，或模型 ID 有误；请使用随附模型或本地检查点文件夹。"),
    "model.err.load": ("Could not load model “{name}”: {reason}", "无法加载模型 “{name}”：{reason}"),
    "model.err.tokenizer": ("Model “{name}” has no usable tokenizer (expected spiece.model or tokenizer.json "
                            "in its folder).", "模型 “{name}” 没有可用的分词器（文件夹中应有 spiece.model 或 tokenizer.json）。"),
    "model.err.tokenizer_mismatch": ("The tokenizer of “{name}” has {n} tokens (and needs a [MASK] token), but "
                                     "the model knows only {V}.",
                                     "“{name}” 的分词器有 {n} 个词（且需要 [MASK]），但模型只认识 {V} 个。"),
    "model.err.not_pretraining": ("“{name}” is not a pretraining model (its config.json names {found}); these tabs "
                                  "need an AlbertForPreTraining or AlbertForMaskedLM checkpoint.",
                                  "“{name}” 不是预训练模型（其 config.json 写的是 {found}）；这些标签页需要 "
                                  "AlbertForPreTraining 或 AlbertForMaskedLM 检查点。"),
    "tab.parameters": ("Parameter calculator", "参数计算器"),
    "tab.sharing": ("Sharing modes", "参数共享方式"),
    "tab.masked": ("Masked words", "遮蔽词预测"),
    "tab.order": ("Sentence order", "句子顺序"),
    "tab.attention": ("Attention", "注意力"),
    "tab.sentiment": ("Sentiment", "情感分类"),
    "common.raw": ("Raw result (JSON)", "原始结果（JSON）"),
    "common.status": ("Messages", "提示信息"),
    # ----- calculator form ------------------------------------------------------------------
    "field.preset": ("Preset", "预设配置"),
    "field.preset.info": ("The paper's six configurations and the shipped models; edit any field below.",
                          "论文中的六种配置和随附的模型；下面每一项都可以修改。"),
    "field.vocab_size": ("Vocabulary size V", "词表大小 V"),
    "field.embedding_size": ("Embedding size E", "词嵌入维度 E"),
    "field.hidden_size": ("Hidden size H", "隐藏层维度 H"),
    "field.num_hidden_layers": ("Layers (passes) L", "层数（计算次数）L"),
    "field.num_attention_heads": ("Attention heads A", "注意力头数 A"),
    "field.intermediate_size": ("Feed-forward size", "前馈层维度"),
    "field.max_position_embeddings": ("Positions P", "位置数 P"),
    "field.sharing": ("Cross-layer sharing", "跨层共享方式"),
    "field.num_hidden_groups": ("Groups G", "分组数 G"),
    "field.num_hidden_groups.info": ("Only for 'all': L passes in G blocks, each with its own weights.",
                                     "仅用于“全部共享”：L 次计算分成 G 组，每组有自己的权重。"),
    "field.project_embeddings": ("E→H projection", "E→H 投影"),
    "field.project_embeddings.info": ("Needed whenever E ≠ H; BERT (E = H) has none.",
                                      "只要 E ≠ H 就需要；BERT（E = H）没有投影。"),
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
        "成倍增加参数量。改一个数字，看看总数如何变化。"),
    "calc.err.empty": ("{field} is empty; enter a whole number.", "{field} 为空，请输入一个整数。"),
    "calc.err.not_number": ("{field} must be a whole number, not “{value}”.", "{field} 必须是整数，而不是“{value}”。"),
    "calc.err.not_whole": ("{field} must be a whole number, not {value}.", "{field} 必须是整数，而不是 {value}。"),
    "calc.err.positive": ("{field} must be at least 1 (got {value}).", "{field} 至少为 1（当前为 {value}）。"),
    "calc.err.too_big": ("{field} = {value:,} is beyond the supported {limit:,}.",
                         "{field} = {value:,} 超出了支持的上限 {limit:,}。"),
    "calc.err.sharing": ("Sharing must be all, attention, ffn or none, not “{value}”.",
                         "共享方式必须是 all、attention、ffn 或 none，而不是“{value}”。"),
    "calc.err.heads": ("Hidden size H = {H} must be divisible by the number of heads A = {A}.",
                       "隐藏层维度 H = {H} 必须能被注意力头数 A = {A} 整除。"),
    "calc.err.groups": ("Groups G = {G} must divide the number of layers L = {L}.",
                        "分组数 G = {G} 必须能整除层数 L = {L}。"),
    "calc.note.groups": ("Groups apply only to 'all' sharing; with '{mode}' the calculator uses G = {G}.",
                         "分组只用于“全部共享”；“{mode}”模式下计算器使用 G = {G}。"),
    "calc.note.projection": ("E ≠ H, so the E→H projection is included.", "E ≠ H，因此包含 E→H 投影。"),
    "calc.paper_note.albert-xlarge": (
        "The paper reports 60M; the architecture as specified has 58.7M (with pooler).",
        "论文报告为 60M；按所述结构精确计算为 58.7M（含 pooler）。"),
    "calc.paper_note.albert-xxlarge": (
        "The paper reports 235M; the architecture as specified has 222.6M (with pooler).",
        "论文报告为 235M；按所述结构精确计算为 222.6M（含 pooler）。"),
    "calc.paper.table1": ("Table 1, {name}", "表 1，{name}"),
    "calc.paper.table3": ("Table 3, ALBERT-base, E = {E}, sharing {mode}", "表 3，ALBERT-base，E = {E}，共享方式 {mode}"),
    "calc.paper.table4": ("Table 4, ALBERT-base, E = {E}, sharing {mode}", "表 4，ALBERT-base，E = {E}，共享方式 {mode}"),
    "calc.embedding_md": (
        "#### Embedding arithmetic\n"
        "| | formula | parameters |\n|---|---|---|\n"
        "| BERT: V × H | {V} × {H} | **{VH}** ({VHm}) |\n"
        "{row}\n\n{verdict}",
        "#### 词嵌入计算\n"
        "| | 公式 | 参数量 |\n|---|---|---|\n"
        "| BERT：V × H | {V} × {H} | **{VH}**（{VHm}） |\n"
        "{row}\n\n{verdict}"),
    "calc.total_md": (
        "#### Total: **{total}** parameters ({m})\n"
        "Embeddings {emb} · transformer layers {layers} · pooler {heads}",
        "#### 总计：**{total}** 个参数（{m}）\n"
        "词嵌入 {emb} · Transformer 层 {layers} · pooler {heads}"),
    "calc.cmp.header": ("\n| the same model… | parameters | compared with this model |\n|---|---|---|",
                        "\n| 同一模型…… | 参数量 | 与本模型相比 |\n|---|---|---|"),
    "calc.cmp.no_fact": ("without factorization (E = H)", "不做因式分解（E = H）"),
    "calc.cmp.no_share": ("without sharing", "不共享参数"),
    "calc.cmp.neither": ("with neither (BERT-style)", "两者都不用（BERT 式）"),
    "calc.paper_md": ("**Paper ({source}):** {paper} · **exact count:** {ours} ({oursm})",
                      "**论文（{source}）：** {paper} · **精确计数：** {ours}（{oursm}）"),
    "calc.col.component": ("Component", "组成部分"),
    "calc.col.parameters": ("Parameters", "参数量"),
    "calc.col.share": ("Share", "占比"),
    "calc.table": ("Parameters per component", "各部分参数量"),
    "calc.chart": ("Where the parameters are", "参数分布"),
    "calc.sweep": ("Total parameters against E, four sharing modes (Tables 3 and 4)",
                   "总参数量随 E 的变化，四种共享方式（表 3 和表 4）"),
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
        "BERT 原论文（词表 30,522 个词）写作 110M。"),
    "calc.paper_note.bert-large": (
        "The paper reports 334M; the architecture as specified (V = 30,000) has 334.6M with the pooler and 333.6M "
        "without it. BERT's own paper rounds it to 340M.",
        "论文报告为 334M；按所述结构（V = 30,000）精确计算为 334.6M（含 pooler），不含 pooler 为 333.6M。"
        "BERT 原论文把它约写为 340M。"),
    "calc.embedding_row.factorized": ("| ALBERT: V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}** ({factm}) |",
                                      "| ALBERT（因式分解）：V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}**（{factm}） |"),
    "calc.embedding_row.plain": ("| this model: V × E, no E→H projection | {V} × {E} | **{VE}** ({VEm}) |",
                                 "| 本模型：V × E，无 E→H 投影 | {V} × {E} | **{VE}**（{VEm}） |"),
    "calc.embedding.smaller": (
        "Factorizing the embedding makes it **×{ratio} smaller** (weights only; biases, positions and LayerNorms are "
        "in the table).",
        "因式分解后，词嵌入参数只有原来的 **1/{ratio}**（只计权重；偏置、位置嵌入和 LayerNorm 见下表）。"),
    "calc.embedding.larger": (
        "Here the factorized form is **×{ratio} larger**, not smaller: the E→H projection adds E × H, more than "
        "V × E saves against V × H. Factorizing pays only when E is well below H.",
        "这里因式分解后反而是原来的 **{ratio} 倍**：E→H 投影增加了 E × H 个参数，比 V × E 相对 V × H 省下的还多。"
        "只有当 E 远小于 H 时，因式分解才划算。"),
    "calc.embedding.even": (
        "Here the factorized form is about as large as V × H (×{ratio}): nothing is saved. Factorizing pays only when E "
        "is well below H.",
        "这里因式分解后与 V × H 差不多大（×{ratio}）：什么也没省下。只有当 E 远小于 H 时，因式分解才划算。"),
    "calc.embedding.none": (
        "No E→H projection (E = H, as in BERT): the embedding is the plain V × H table and nothing is saved. Tick the "
        "projection and choose E < H to factorize.",
        "没有 E→H 投影（E = H，与 BERT 相同）：词嵌入就是普通的 V × H 表，没有节省。勾选投影并选择 E < H 才是因式分解。"),
    "calc.ratio.larger": ("×{r} larger", "为本模型的 {r} 倍"),
    "calc.ratio.smaller": ("×{r} smaller", "为本模型的 1/{r}"),
    "calc.ratio.same": ("the same", "与本模型相同"),
    "field.batch_size": ("Batch size B", "批大小 B"),
    "field.seq_len": ("Sequence length T", "序列长度 T"),
    "field.count_mlm_head": ("Count the MLM head", "计入 MLM 输出头"),
    "field.count_mlm_head.info": ("As if every position were decoded: adds H·E + E·V per token and the B·T·V logits.",
                                  "按每个位置都解码计算：每个词元加上 H·E + E·V，并加上 B·T·V 个 logits。"),
    "compute.title": (
        "### Compute and memory\nSharing cuts **parameters**, not **compute**: every one of the L passes still does "
        "its matrix products, and every pass of a training step keeps its own activations. The formulas below are "
        "exact for the products and an estimate for activations; the button at the end measures it.",
        "### 计算量与内存\n共享减少的是**参数**，不是**计算量**：L 次计算中的每一次仍要做全部矩阵乘法，训练时每一次计算也都要保存"
        "自己的激活值。下面的公式对矩阵乘法是精确的，对激活值是估计；最后的按钮在本机实测。"),
    "compute.err.seq_positions": (
        "Sequence length T = {T} is longer than the model's {P} positions; choose T ≤ {P}.",
        "序列长度 T = {T} 超过了模型的位置数 {P}；请选择 T ≤ {P}。"),
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
        "**这些公式里根本没有共享方式**：同一层用 L 次，就要做 L 次计算。"),
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
        "**推理**不为反向传播保存任何东西：同一时刻大约有 B·T·max(6·H, 2·H + 2·I) = {infer} 个数值（fp32 为 {infer32}）。"),
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
        "**参数少并不意味着模型更快。**"),
    "compute.measure.button": ("Measure on this computer", "在本机实测"),
    "compute.measure.explain": (
        "**Measure on this computer:** builds the configured model once per sharing mode (random weights) and times one "
        "forward pass of 1 × T tokens (best of a few). So that the four timings take a few seconds, at most {tokens} "
        "tokens are timed, one forward pass may cost at most {budget} GFLOPs, and the unshared model at most {params} "
        "parameters. When other programs share the processor, timings vary by tens of percent from press to press; "
        "the FLOPs do not.",
        "**在本机实测：**按每种共享方式各构建一次所配置的模型（随机权重），测量 1 × T 个词元的一次前向传播时间（取几次中最快的）。"
        "为了让四次测量在几秒内完成，最多测 {tokens} 个词元，一次前向最多 {budget} GFLOPs，不共享时的模型最多 {params} 个参数。"
        "当其他程序同时占用处理器时，每次按下得到的用时会相差几十个百分点；FLOPs 则不会变。"),
    "compute.measure.scaled": (
        "Timed 1 × {T} tokens instead of 1 × {asked}, to keep one forward pass under {budget} GFLOPs.",
        "为使一次前向不超过 {budget} GFLOPs，实测的是 1 × {T} 个词元，而不是 1 × {asked}。"),
    "compute.measure.too_many_parameters": (
        "Not timed: without sharing this model has {n} parameters, beyond the {limit} this button builds on this "
        "computer; choose a smaller H, L or feed-forward size.",
        "未实测：不共享时该模型有 {n} 个参数，超过了本按钮在本机构建的上限 {limit}；请减小 H、L 或前馈层维度。"),
    "compute.measure.too_many_flops": (
        "Not timed: even {T} tokens need {g} GFLOPs per forward pass, beyond the {budget} GFLOPs this button times in a "
        "few seconds; choose a smaller H, L or feed-forward size.",
        "未实测：即使只有 {T} 个词元，一次前向也需要 {g} GFLOPs，超过了本按钮几秒内能测的 {budget} GFLOPs；请减小 H、L 或前馈层维度。"),
    "compute.measure.header": (
        "| sharing | parameters | forward FLOPs (1 × {T}) | time per forward pass | time vs no sharing |\n|---|---|---|---|---|",
        "| 共享方式 | 参数量 | 前向 FLOPs（1 × {T}） | 一次前向用时 | 用时与不共享之比 |\n|---|---|---|---|---|"),
    "compute.measure.summary": (
        "Sharing everything: **×{p} fewer parameters**, and the forward pass took **{tm}×** the time of no sharing — "
        "the same {g} GFLOPs are computed either way. Timed with {threads} CPU thread(s); other programs on this "
        "computer slow every mode alike.",
        "全部共享：**参数少了 ×{p}**，而一次前向的用时是不共享时的 **{tm} 倍**——两者计算的都是同样的 {g} GFLOPs。"
        "使用 {threads} 个 CPU 线程测量；本机上的其他程序会同样拖慢每种方式。"),
    "compute.measure.pending": ("Press the button to time the four sharing modes on this computer.",
                                "按下按钮，在本机测量四种共享方式的用时。"),
    "compute.chart.title": ("Parameters and forward time, relative to no sharing", "参数量与前向用时（相对于不共享）"),
    "compute.chart.parameters": ("parameters", "参数量"),
    "compute.chart.time": ("measured forward time", "实测前向用时"),
    "compute.axis.relative": ("relative to no sharing (= 1)", "相对于不共享（= 1）"),
    # ----- shared ---------------------------------------------------------------------------
    "common.examples": ("Examples", "示例"),
    "common.err.unexpected": ("Something went wrong on our side; the details were logged. Try another input.",
                              "程序内部出错，详细信息已记入日志。请换一个输入再试。"),
    "preset.shipped": ("{name} (shipped)", "{name}（随附）"),
    "app.model.none": ("No shipped model yet: type a local checkpoint folder or a hub id here.",
                       "还没有随附的模型：请在这里输入本地检查点文件夹或 Hub 模型 ID。"),
    "model.line": ("Model **{name}**: sharing {sharing}, {L} passes, H {H}, E {E}, V {V}.",
                   "模型 **{name}**：共享方式 {sharing}，{L} 次计算，H {H}，E {E}，V {V}。"),
    "model.metrics": (" Held-out accuracy: masked words {mlm}, sentence order {sop}.",
                      " 留出集准确率：遮蔽词 {mlm}，句子顺序 {sop}。"),
    "input.empty": ("The text is empty; type a sentence.", "文本为空，请输入一个句子。"),
    "input.cut_chars": ("The text has {n} characters; only the first {limit} were read.",
                        "文本有 {n} 个字符，只读取了前 {limit} 个。"),
    "input.control": ("Control characters in the text were replaced by spaces.", "文本中的控制字符已替换为空格。"),
    "input.truncated": ("The text is longer than the model's {n} tokens; the rest was cut off.",
                        "文本超过模型的 {n} 个词元上限，多出的部分已截断。"),
    # ----- hostile input (issue 18): every endpoint's own checks ------------------------------
    "common.text": ("text", "文本"),
    "input.err.not_text": ("{field} must be text, got {kind}.", "{field} 必须是文本，收到的是 {kind}。"),
    "input.err.name_too_long": ("{field} has {n} characters; at most {limit} are read.",
                                "{field} 有 {n} 个字符；最多读取 {limit} 个。"),
    "input.err.number": ("{field} must be a whole number from {low} to {high}, got “{value}”.",
                         "{field} 必须是 {low} 到 {high} 之间的整数，收到的是 “{value}”。"),
    "input.err.whole": ("{field} must be a finite whole number from {low} to {high}, got {value}.",
                        "{field} 必须是 {low} 到 {high} 之间的有限整数，收到的是 {value}。"),
    "input.err.range": ("{field} must be from {low} to {high}, got {value}.",
                        "{field} 必须在 {low} 到 {high} 之间，收到的是 {value}。"),
    "input.err.flag": ("{field} must be true or false, got “{value}”.", "{field} 必须是 true 或 false，收到的是 “{value}”。"),
    "input.err.choice": ("{field} must be one of {choices}; got “{value}”.",
                         "{field} 必须是以下之一：{choices}；收到的是 “{value}”。"),
    "model.err.not_text": ("The model must be given as text: a shipped name, a model folder or a hub id.",
                           "模型必须以文本给出：随附模型名、模型文件夹或 Hub 模型 ID。"),
    "model.err.file_too_large": ("“{name}”: {file} has {size} bytes, more than this app reads ({limit}).",
                                 "“{name}”：{file} 有 {size} 字节，超过本应用读取的上限（{limit}）。"),
    "model.err.file_refused": ("“{name}”: {file} is not a regular file; this app reads only regular files.",
                               "“{name}”：{file} 不是普通文件；本应用只读取普通文件。"),
    "model.err.bad_json": ("“{name}”: config.json is not a JSON object this app can read (invalid, not UTF-8, "
                           "or nested too deeply).",
                           "“{name}”：config.json 不是本应用能读取的 JSON 对象（格式无效、不是 UTF-8 或嵌套过深）。"),
    "model.err.bad_weights": ("“{name}”: model.safetensors is malformed ({reason}).",
                              "“{name}”：model.safetensors 格式有误（{reason}）。"),
    "model.err.too_big": ("“{name}” is too large for this app: {field} = {value}, and at most {limit} is "
                          "loaded here (limits in the README).",
                          "“{name}” 对本应用来说太大：{field} = {value}，这里最多加载 {limit}（上限见 README）。"),
    "model.err.too_many_parameters": ("“{name}” would have {n} parameters; this app loads at most {limit}.",
                                      "“{name}” 会有 {n} 个参数；本应用最多加载 {limit} 个。"),
    "model.err.too_much_work": ("“{name}” needs {n} multiply-adds per token; this app runs at most {limit}.",
                                "“{name}” 每个词元需要 {n} 次乘加；本应用最多运行 {limit} 次。"),
    "model.err.weights_mismatch": ("“{name}”: its config.json implies {expected} parameters, but "
                                   "model.safetensors holds {found}; the weights do not belong to this config.",
                                   "“{name}”：config.json 对应 {expected} 个参数，但 model.safetensors 中有 "
                                   "{found} 个；权重与配置不符。"),
    "request.err.timeout": ("This request took longer than {s} seconds and was stopped; try a shorter text or "
                            "a smaller model.", "该请求超过 {s} 秒，已停止；请换更短的文本或更小的模型。"),
    "request.err.memory": ("This request needed more memory than the server has; try a shorter text or a "
                           "smaller model.", "该请求所需内存超过服务器容量；请换更短的文本或更小的模型。"),
    "calc.err.too_many": ("This model would have {n} parameters; the calculator answers up to {limit}.",
                          "该模型会有 {n} 个参数；计算器最多计算到 {limit}。"),
    "app.busy": ("ALBERT Lab is busy ({n} requests are waiting); try again in a few seconds.",
                 "ALBERT 实验室正忙（已有 {n} 个请求在排队）；请几秒后再试。"),
    "api.err.arity": ("/{name} takes {n} values in \"data\", in the order /gradio_api/info lists them; got {got}.",
                      "/{name} 需要在 \"data\" 中按 /gradio_api/info 所列顺序给出 {n} 个值；收到 {got} 个。"),
    # ----- masked words -------------------------------------------------------------------------
    "mask.explain": (
        "**Masked-language modelling.** ALBERT learns by filling in blanks: some tokens are hidden behind "
        "`[MASK]` and the model guesses them from the words on both sides. Type a sentence with one or more "
        "`[MASK]`, or pick a word below to hide it. The bars show the model's top guesses with their probabilities.",
        "**遮蔽语言模型。** ALBERT 通过“填空”来学习：把一些词元换成 `[MASK]`，让模型根据两边的词去猜。"
        "输入带有一个或多个 `[MASK]` 的句子，或在下方选一个词把它遮住。柱状图显示模型最可能的猜测及其概率。"),
    "mask.text": ("Text with [MASK]", "带 [MASK] 的文本"),
    "mask.text.info": ("Up to 20 [MASK]s; long text is cut to the model's length.",
                       "最多 20 个 [MASK]；过长的文本会按模型长度截断。"),
    "mask.top_k": ("Guesses per mask (top-k)", "每个遮蔽位置的候选数（top-k）"),
    "mask.button": ("Predict", "预测"),
    "mask.filled": ("Filled with the top guesses", "用最可能的词填空后"),
    "mask.words": ("Or pick a word to mask", "或选一个词把它遮住"),
    "mask.words.info": ("Picking a word replaces it with [MASK] and predicts it.", "选中的词会被替换为 [MASK] 并进行预测。"),
    "mask.panel": ("[MASK] {i} → {word}", "[MASK] {i} → {word}"),
    "mask.chart": ("Top guesses per [MASK]", "每个 [MASK] 的最可能候选"),
    "mask.axis": ("probability (one axis for every [MASK])", "概率（所有 [MASK] 共用同一坐标轴）"),
    "mask.chance": ("┆ chance: a random token, 1/V = 1/{V} = {p}", "┆ 随机水平：随便猜一个词元，1/V = 1/{V} = {p}"),
    "mask.err.none": ("The text has no [MASK]; add one where a word should be guessed, or pick a word to mask.",
                      "文本中没有 [MASK]；请在要猜的词的位置加上 [MASK]，或选一个词把它遮住。"),
    "mask.err.too_many": ("The text has {n} [MASK]s; at most {limit} at a time keep the answer readable.",
                          "文本中有 {n} 个 [MASK]；一次最多 {limit} 个，结果才清晰可读。"),
    "mask.err.truncated_all": ("Every [MASK] lies past the model's {n}-token limit; put one nearer the start.",
                               "所有 [MASK] 都在模型 {n} 个词元的上限之后；请把它放得靠前一些。"),
    "mask.note.some_cut": ("{n} [MASK] past the length limit were not predicted.", "有 {n} 个 [MASK] 超出长度上限，未做预测。"),
    # ----- sentence order -----------------------------------------------------------------------
    "order.explain": (
        "**Sentence-order prediction (SOP).** BERT's next-sentence task (NSP) was too easy: a random second "
        "sentence usually changes the topic. ALBERT instead shows two *consecutive* segments of one text, "
        "swapped half of the time, and asks whether they are in the original order. This forces it to learn "
        "coherence, not just topic. Here the model scores both orders of your two sentences.",
        "**句子顺序预测（SOP）。** BERT 的下一句预测（NSP）太容易了：随机选来的第二句通常话题不同。ALBERT 改为"
        "给出同一文本中*相邻*的两段，其中一半调换了顺序，让模型判断顺序是否正确。这样模型必须学会连贯性，"
        "而不仅是话题。这里模型会为两句话的两种顺序分别打分。"),
    "order.a": ("Sentence A", "句子 A"),
    "order.b": ("Sentence B", "句子 B"),
    "order.button": ("Compare both orders", "比较两种顺序"),
    "order.paragraph_box": ("Split a paragraph instead", "或者拆分一个段落"),
    "order.paragraph": ("Paragraph", "段落"),
    "order.split_after": ("Split after sentence", "在第几句之后拆分"),
    "order.split_button": ("Split and compare", "拆分并比较"),
    "order.ab": ("A → B", "A → B"),
    "order.ba": ("B → A", "B → A"),
    "order.sop.yes": ("in order", "顺序正确"),
    "order.sop.no": ("swapped", "顺序颠倒"),
    "order.sop.title": ("Sentence order: probability of each reading", "句子顺序：每种读法的概率"),
    "order.nsp.yes": ("B follows A", "B 接在 A 后"),
    "order.nsp.no": ("random pair", "随机组合"),
    "order.nsp.title": ("Next sentence (NSP model): probability of each reading", "下一句预测（NSP 模型）：每种读法的概率"),
    "order.sop.verdict": ("**A → B in order: {ab}** · **B → A in order: {ba}**", "**A → B 顺序正确：{ab}** · **B → A 顺序正确：{ba}**"),
    "order.nsp.verdict": ("This model was trained on next-sentence prediction (NSP). **B follows A: {ab}** · "
                          "**A follows B: {ba}**",
                          "该模型用下一句预测（NSP）训练。**B 接在 A 后：{ab}** · **A 接在 B 后：{ba}**"),
    "order.prefers_ab": ("The model prefers A → B.", "模型认为 A → B 更合理。"),
    "order.undecided": ("The model cannot tell the two orders apart (less than 2 points between them).",
                        "模型分不清这两种顺序（两者相差不到 2 个百分点）。"),
    "order.prefers_ba": ("The model prefers B → A.", "模型认为 B → A 更合理。"),
    "order.err.empty": ("Both sentences are needed; type sentence A and sentence B.", "需要两个句子；请输入句子 A 和句子 B。"),
    "order.err.split": ("The paragraph needs at least two sentences (ending in . ! ? or 。！？) to split.",
                        "段落至少要有两个句子（以 . ! ? 或 。！？ 结尾）才能拆分。"),
    "order.err.no_head": (
        "{name} was pretrained with masked-word prediction only (the paper's Table 5 \"None\" column): it has no "
        "sentence head, so it cannot judge sentence order. Pick a model trained with SOP or NSP, e.g. albert-lab-base.",
        "{name} 只用掩码词预测预训练（论文表 5 的“None”一列），没有句子输出层，无法判断句子顺序。"
        "请选择用 SOP 或 NSP 训练的模型，例如 albert-lab-base。"),
    "order.note.random_head": (
        "This checkpoint carries no trained sentence-order weights (Hugging Face hub ALBERTs never do), so these "
        "probabilities come from a randomly initialised head and mean nothing.",
        "该检查点没有训练过的句子顺序权重（Hugging Face Hub 上的 ALBERT 都没有），因此这些概率来自随机初始化的输出层，没有意义。"),
    # ----- attention ------------------------------------------------------------------------------
    "attention.explain": (
        "**Attention across reused layers.** In a shared ALBERT every pass applies *the same* weights, yet "
        "the attention patterns differ from pass to pass because the input to each pass differs. The head view "
        "shows one pass at a time (pick it in *Layer*, numbered 1 … L as in the heatmaps); the model view shows every pass × head. Below, one head "
        "at every pass, and how similar each pass's attention is to the next one's, shared against not shared.",
        "**重复使用的层中的注意力。** 在共享参数的 ALBERT 中，每次计算都使用*同一组*权重，但由于每次的输入不同，"
        "注意力模式也各不相同。头视图一次显示一次计算（在 *层* 中选择，编号 1 … L，与热力图一致）；模型视图显示所有计算 × 所有注意力头。"
        "下方是同一个注意力头在每次计算中的样子，以及相邻两次计算的注意力有多相似（共享与不共享对比）。"),
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
    "attention.similarity.title": ("Similarity of attention maps, pass i against pass i + 1",
                                   "注意力图相似度：第 i 次与第 i + 1 次计算"),
    "attention.axis.pair": ("pass i", "第 i 次计算"),
    "attention.axis.weight": ("weight", "权重"),
    "attention.axis.cosine": ("cosine similarity (mean over heads)", "余弦相似度（各注意力头平均）"),
    "attention.truncated": ("Only the first {n} tokens are shown (raise the token limit to see more).",
                            "只显示前 {n} 个词元（提高词元上限可看到更多）。"),
    "attention.no_twin": ("No second model to compare with; ship or pick a not-shared model.",
                          "没有可对比的第二个模型；请提供或选择一个不共享参数的模型。"),
    # ----- fresh results, how to read the views (issue 17, items 2 and 4) --------------------------
    "attention.filter.all": ("All", "全部"),
    "attention.filter.aa": ("Sentence A → Sentence A", "句子 A → 句子 A"),
    "attention.filter.bb": ("Sentence B → Sentence B", "句子 B → 句子 B"),
    "attention.filter.ab": ("Sentence A → Sentence B", "句子 A → 句子 B"),
    "attention.filter.ba": ("Sentence B → Sentence A", "句子 B → 句子 A"),
    "attention.bv.heads": ("Heads", "注意力头"),
    "attention.bv.layers": ("Layers (passes)", "层（计算次序）"),
    "attention.bv.detail": ("Layer {layer}, head {head}", "第 {layer} 层，第 {head} 个头"),
    "attention.head_clamped": ("This model has {heads} heads; the heatmaps show head {heads}, not {head}.",
                               "该模型只有 {heads} 个注意力头；热力图显示第 {heads} 个头，而不是第 {head} 个。"),
    "howto.head_view": (
        "How to read this: pick a layer (pass 1 … L); each line joins a token on the left to a token it attends to "
        "on the right, darker for more weight; one colour per head (click a colour square to hide that head).",
        "怎么看：选择一层（第 1 … L 次计算）；每条线把左边的词元连到它关注的右边词元，颜色越深权重越大；每种颜色是一个注意力头"
        "（点击上方的色块可隐藏该头）。"),
    "howto.model_view": (
        "How to read this: one small map per layer (rows, pass 1 … L) and head (columns); click one to enlarge it. "
        "With sharing every row uses the same weights, yet the patterns change from row to row.",
        "怎么看：每个小图对应一层（行，第 1 … L 次计算）和一个注意力头（列）；点击可放大。共享参数时每一行都用同一组权重，"
        "但注意力模式逐行变化。"),
    "howto.heatmaps": (
        "How to read this: row = the token attending, column = the token it attends to; darker = more weight; each "
        "row sums to 1. The same head at every pass, numbered 1 … L as above.",
        "怎么看：行是发出注意力的词元，列是被关注的词元；颜色越深权重越大，每行之和为 1。同一个注意力头在每次计算中的样子，"
        "编号 1 … L 与上方一致。"),
    "howto.similarity": (
        "How to read this: near 1 means pass i + 1 attends almost as pass i does; shared weights usually give "
        "higher, steadier similarity than separate ones.",
        "怎么看：接近 1 表示第 i + 1 次计算的注意力与第 i 次几乎相同；共享权重通常比不共享时相似度更高、更平稳。"),
    "howto.mask_chart": (
        "How to read this: each bar is one guess for that [MASK]; all panels share one 0–100% axis, and the dotted "
        "red line is chance (1/V).",
        "怎么看：每根柱子是该 [MASK] 的一个候选；所有小图共用同一条 0–100% 坐标轴，红色虚线是随机水平（1/V）。"),
    "howto.order_chart": (
        "How to read this: for each order the model gives P(in order) + P(swapped) = 100%; a model that reads order "
        "puts A → B high and B → A low. 50% is a coin toss.",
        "怎么看：对每种顺序，模型给出 P(顺序正确) + P(顺序颠倒) = 100%；懂得顺序的模型会让 A → B 高、B → A 低。50% 等于掷硬币。"),
    "fresh.stale": ("The input changed: press **{button}** (or Enter) for the new result.",
                    "输入已改变：按 **{button}**（或回车）查看新结果。"),
    # ----- sharing modes ------------------------------------------------------------------------------
    "sharing.explain": (
        "**Cross-layer parameter sharing.** *all*: one layer's attention and feed-forward weights serve every "
        "pass (ALBERT). *attention* / *ffn*: only that sublayer is shared. *none*: every layer has its own weights "
        "(BERT). Sharing cuts parameters many times over. The recorded runs (E 64, H 128, 6 passes, 20.2M tokens "
        "each on 2 CPU cores) so far: all-shared 756k parameters, held-out masked words 15.4% [15.0, 15.9]; not "
        "shared 1.75M, 16.1% [15.7, 16.6] — close, intervals touching, one seed; neither has learned sentence "
        "order yet (chance). The paper (Table 4) finds all-shared 2.5 points below not-shared downstream.",
        "**跨层参数共享。** *全部共享*：所有计算共用同一层的注意力和前馈权重（ALBERT）。*仅共享注意力* / *仅共享前馈层*：只共享该子层。"
        "*不共享*：每层都有自己的权重（BERT）。共享使参数量成倍减少。目前记录的训练（E 64、H 128、6 次计算，各在 2 个 CPU 核上训练 "
        "2020 万词元）：全部共享 75.6 万参数，留出集遮蔽词准确率 15.4% [15.0, 15.9]；不共享 175 万参数，16.1% [15.7, 16.6]"
        "——相差很小，区间相接，只有一个种子；两者都还没有学会句子顺序（随机水平）。论文（表 4）发现全部共享在下游任务上比不共享低 2.5 分。"),
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
        "层与层之间的变化更平滑。用你自己的句子试一试，比较共享与不共享。"),
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
    "runs.sop_accuracy": ("Held-out sentence-order accuracy", "留出集句子顺序准确率"),
    "runs.nsp_accuracy": ("Held-out next-sentence accuracy", "留出集下一句预测准确率"),
    "runs.sop_runs_accuracy": ("Sentence order on independent sentence-run pairs", "独立构建的句子序列对上的句子顺序准确率"),
    "runs.chance": ("chance (50%)", "随机水平（50%）"),
    "runs.objective.none": ("none (MLM only)", "无（只有 MLM）"),
    "paper.note.table": ("Table", "表"),
    "paper.note.avg": ("Avg", "平均"),
    "runs.col.run": ("run", "训练"),
    "runs.col.sharing": ("sharing", "共享方式"),
    "runs.col.objective": ("sentence task", "句子任务"),
    "runs.col.parameters": ("parameters", "参数量"),
    "runs.col.tokens": ("tokens", "训练词元"),
    "runs.col.mlm": ("masked words [95% CI]", "遮蔽词 [95% 区间]"),
    "runs.col.sop": ("sentence order [95% CI]", "句子顺序 [95% 区间]"),
    "runs.col.nsp": ("next sentence [95% CI]", "下一句 [95% 区间]"),
    "runs.col.sop_runs": ("order, independent pairs [95% CI]", "句子顺序（独立句对）[95% 区间]"),
    "runs.col.paper": ("the paper (ALBERT-base, cited by table)", "论文（ALBERT-base，按表引用）"),
    "runs.summary.title": ("Final held-out accuracy of each run (SOP vs NSP included)", "各次训练的最终留出集准确率（含 SOP 与 NSP 对比）"),
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
        "反讽和不像影评的文本时（它读英文；其他文字大多会变成未知词元）。"),
    "sentiment.err.missing": (
        "The sentiment model is not installed: expected a fine-tuned checkpoint in assets/sentiment/albert-lab-sst2/ "
        "(or a folder named by the ALBERT_LAB_SENTIMENT environment variable).",
        "情感分类模型尚未安装：需要在 assets/sentiment/albert-lab-sst2/ 中放入微调后的检查点"
        "（或用环境变量 ALBERT_LAB_SENTIMENT 指定一个文件夹）。"),
    "sentiment.err.not_classifier": (
        "“{name}” is not a sentence classifier (its config.json names {found} with {n} label(s)); the Sentiment tab "
        "needs an AlbertForSequenceClassification checkpoint with at least two labels.",
        "“{name}” 不是句子分类模型（其 config.json 写的是 {found}，{n} 个标签）；情感分类标签页需要至少有两个标签的 "
        "AlbertForSequenceClassification 检查点。"),
    "sentiment.err.no_tokens": ("The text has nothing the model can read; type a sentence.",
                                "文本中没有模型能读取的内容，请输入一个句子。"),
    "sentiment.card": ("Model **{name}**: fine-tuned classifier, sharing {sharing}, {L} passes, H {H}.",
                       "模型 **{name}**：微调后的分类器，共享方式 {sharing}，{L} 次计算，H {H}。"),
    "sentiment.card.accuracy": (" Held-out (dev) accuracy: **{accuracy}**.", "留出集（dev）准确率：**{accuracy}**。"),
    "sentiment.card.link": (" Details in its [model card]({url}).", "详情见[模型卡片]({url})。"),
    "sentiment.model_line": ("Model **{name}**: sharing {sharing}, {L} passes.", "模型 **{name}**：共享方式 {sharing}，{L} 次计算。"),
    "sentiment.text": ("Sentence", "句子"),
    "sentiment.text.info": ("English works best; long text is cut to the model's length.",
                            "英文效果最好；过长的文本会按模型长度截断。"),
    "sentiment.button": ("Classify", "分类"),
    "sentiment.verdict": ("### Prediction: {label} ({p})", "### 预测：{label}（{p}）"),
    "sentiment.label.negative": ("negative", "负面"),
    "sentiment.label.positive": ("positive", "正面"),
    "sentiment.probs.title": ("Probability of each label", "各标签的概率"),
    "sentiment.axis.probability": ("probability", "概率"),
    "sentiment.passes.title": ("Which passes it relied on (attention × gradient)",
                               "预测依赖哪几次计算（注意力 × 梯度）"),
    "sentiment.axis.share": ("share of the attribution", "归因占比"),
    "sentiment.tokens.title": ("Tokens the [CLS] token attended to most in pass {k}, the most important one (mean over "
                               "heads; [CLS] and [SEP] left out)",
                               "第 {k} 次计算（最重要的一次）中 [CLS] 最关注的词元（各注意力头平均；不含 [CLS] 和 [SEP]）"),
    "sentiment.tokens.none": ("No word tokens to show (the text became special or unknown tokens only).",
                              "没有可显示的词元（文本只变成了特殊词元或未知词元）。"),
    # ----- languages: text a model cannot read, the Chinese models --------------------------------
    "lang.err.unreadable": (
        "{name} cannot read this language: {n} of {total} tokens of this text are unknown to it (an unreadable "
        "character counts as one); {hint}",
        "{name} 读不懂这种语言：这段文本的 {total} 个词元中有 {n} 个它不认识（每个无法识别的字符算一个）；{hint}"),
    "lang.hint.pick": ("for {language} pick {model}.", "{language}文本请选择 {model}。"),
    "lang.hint.none": ("no shipped model reads {language} yet.", "目前还没有随附的模型能读{language}。"),
    "lang.hint.same": ("no other shipped model reads it better.", "其他随附的模型也读不好它。"),
    "lang.hint.none_sentiment": ("no shipped sentiment model reads {language} yet.", "目前还没有随附的情感分类模型能读{language}。"),
    "lang.hint.unknown": ("no shipped model reads this language yet.", "目前还没有随附的模型能读这种语言。"),
    "lang.name.en": ("English", "英文"),
    "lang.name.zh": ("Chinese", "中文"),
    "lang.note.unknown": (
        "{n} of {total} tokens of this text are unknown to the model (an unreadable character counts as one); "
        "it read only the rest.",
        "这段文本的 {total} 个词元中有 {n} 个模型不认识（每个无法识别的字符算一个），它只读了其余部分。"),
    "app.model.auto": ("automatic (by the text's language)", "自动（按文本的语言）"),
    "app.model.info.auto": (
        "Automatic follows the text: mostly Chinese text gets the Chinese model, mostly English text the English "
        "one, anything else the interface language's; or pick a shipped model, a local checkpoint folder or a "
        "Hugging Face hub id (needs internet).",
        "“自动”按文本选择：以汉字为主的文本用中文模型，以英文为主的文本用英文模型，其他文本按界面语言选择；"
        "也可以选择随附的模型，或输入本地检查点文件夹、Hugging Face Hub 模型 ID（需要联网）。"),
}

# Strings kept in their own modules (the framing beside predictions, the paper's results): one dictionary for t().
from app.strings_framing import FRAMING_STRINGS  # noqa: E402
from app.strings_paper import PAPER_STRINGS  # noqa: E402

STRINGS.update(FRAMING_STRINGS)
STRINGS.update(PAPER_STRINGS)
