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
    "app.model.info": (
        "A shipped model, or type a local checkpoint folder or a Hugging Face hub id (needs internet).",
        "选择随附的模型，或输入本地检查点文件夹、Hugging Face Hub 模型 ID（需要联网）。"),
    "model.err.none_shipped": (
        "No shipped model yet: add a checkpoint folder under assets/models/, or type a local checkpoint "
        "folder or a hub id in the model picker.",
        "还没有随附的模型：请在 assets/models/ 下放入检查点文件夹，或在模型选择框中输入本地检查点文件夹或 Hub 模型 ID。"),
    "model.err.not_dir": ("{value!r} is not a model folder; expected a folder holding config.json and "
                          "model.safetensors, or a hub id such as albert/albert-base-v2.",
                          "{value!r} 不是模型文件夹；需要包含 config.json 和 model.safetensors 的文件夹，"
                          "或 albert/albert-base-v2 这样的 Hub 模型 ID。"),
    "model.err.bad_name": ("{value!r} is neither a shipped model, a local folder nor a hub id.",
                           "{value!r} 既不是随附模型，也不是本地文件夹或 Hub 模型 ID。"),
    "model.err.hub": ("Could not download {value!r} from the Hugging Face hub: this computer seems offline or "
                      "the id is wrong; use a shipped model or a local checkpoint folder.",
                      "无法从 Hugging Face Hub 下载 {value!r}：本机似乎未联网，或模型 ID 有误；请使用随附模型或本地检查点文件夹。"),
    "model.err.load": ("Could not load model {name!r}: {reason}", "无法加载模型 {name!r}：{reason}"),
    "model.err.tokenizer": ("Model {name!r} has no usable tokenizer (expected spiece.model or tokenizer.json "
                            "in its folder).", "模型 {name!r} 没有可用的分词器（文件夹中应有 spiece.model 或 tokenizer.json）。"),
    "model.err.tokenizer_mismatch": ("The tokenizer of {name!r} has {n} tokens (and needs a [MASK] token), but "
                                     "the model knows only {V}.",
                                     "{name!r} 的分词器有 {n} 个词（且需要 [MASK]），但模型只认识 {V} 个。"),
    "tab.parameters": ("Parameter calculator", "参数计算器"),
    "tab.sharing": ("Sharing modes", "参数共享方式"),
    "tab.masked": ("Masked words", "遮蔽词预测"),
    "tab.order": ("Sentence order", "句子顺序"),
    "tab.attention": ("Attention", "注意力"),
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
    "calc.err.not_number": ("{field} must be a whole number, not {value!r}.", "{field} 必须是整数，而不是 {value!r}。"),
    "calc.err.not_whole": ("{field} must be a whole number, not {value}.", "{field} 必须是整数，而不是 {value}。"),
    "calc.err.positive": ("{field} must be at least 1 (got {value}).", "{field} 至少为 1（当前为 {value}）。"),
    "calc.err.too_big": ("{field} = {value:,} is beyond the supported {limit:,}.",
                         "{field} = {value:,} 超出了支持的上限 {limit:,}。"),
    "calc.err.sharing": ("Sharing must be all, attention, ffn or none, not {value!r}.",
                         "共享方式必须是 all、attention、ffn 或 none，而不是 {value!r}。"),
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
        "| ALBERT: V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}** ({factm}) |\n\n"
        "Factorizing the embedding makes it **×{ratio}** smaller (weights only; biases, positions "
        "and LayerNorms are in the table).",
        "#### 词嵌入计算\n"
        "| | 公式 | 参数量 |\n|---|---|---|\n"
        "| BERT：V × H | {V} × {H} | **{VH}**（{VHm}） |\n"
        "| ALBERT：V × E + E × H | {V} × {E} + {E} × {H} = {VE} + {EH} | **{fact}**（{factm}） |\n\n"
        "因式分解使词嵌入缩小 **{ratio} 倍**（只计权重；偏置、位置嵌入和 LayerNorm 见下表）。"),
    "calc.total_md": (
        "#### Total: **{total}** parameters ({m})\n"
        "Embeddings {emb} · transformer layers {layers} · pooler {heads}",
        "#### 总计：**{total}** 个参数（{m}）\n"
        "词嵌入 {emb} · Transformer 层 {layers} · pooler {heads}"),
    "calc.cmp.header": ("\n| the same model… | parameters | ×larger |\n|---|---|---|",
                        "\n| 同一模型…… | 参数量 | 倍数 |\n|---|---|---|"),
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
}
