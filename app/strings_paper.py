# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Strings of the paper's results panels and the common misreadings (`app.paper_views`): key → (English, 中文).
Merged into `app.strings.STRINGS`. Figures come in through {placeholders}, from `app.paper` and our own files."""

from __future__ import annotations

PAPER_STRINGS: dict[str, tuple[str, str]] = {
    "paper.cite": ("Lan et al. 2020, *ALBERT*, arXiv:1909.11942v6", "Lan 等，2020，*ALBERT*，arXiv:1909.11942v6"),
    "paper.setup": (
        "Tables 2–6: dev sets, pretrained 125k steps on BookCorpus + English Wikipedia; Avg averages SQuAD 1.1, "
        "SQuAD 2.0 (each the mean of F1 and EM), MNLI, SST-2 and RACE.",
        "表 2–6：开发集成绩，在 BookCorpus + 英文维基百科上预训练 12.5 万步；Avg 是 SQuAD 1.1、SQuAD 2.0（各取 F1 与 EM 的平均）、"
        "MNLI、SST-2 和 RACE 的平均。",
    ),
    "paper.col.model": ("model", "模型"),
    "paper.col.params_paper": ("parameters (paper)", "参数量（论文）"),
    "paper.col.params_exact": ("parameters (our exact count)", "参数量（我们的精确计数）"),
    "paper.col.speed": ("training speed (BERT-large = 1)", "训练速度（BERT-large = 1）"),
    "paper.col.run": ("our run", "我们的训练"),
    "paper.col.mlm_ours": ("held-out masked words [95%]", "留出集遮蔽词 [95%]"),
    "paper.col.order_ours": ("prefers the true order [95%]", "偏向真实顺序 [95%]"),
    "paper.col.topic_ours": ("prefers the real next [95%]", "偏向真正的下文 [95%]"),
    "paper.col.not_shared": ("not shared", "不共享"),
    "paper.col.all_shared": ("all shared", "全部共享"),
    "paper.mode.all": ("all-shared", "全部共享"),
    "paper.mode.attention": ("shared-attention", "只共享注意力"),
    "paper.mode.ffn": ("shared-FFN", "只共享前馈层"),
    "paper.mode.none": ("not-shared", "不共享"),
    "paper.objective.none": ("none (MLM only)", "无（只有 MLM）"),
    "paper.objective.nsp": ("NSP", "NSP（下一句预测）"),
    "paper.objective.sop": ("SOP", "SOP（句子顺序预测）"),
    "paper.calc.title": (
        "#### The paper's Tables 1 and 2 beside our exact counts ({cite})",
        "#### 论文的表 1 和表 2 与我们的精确计数（{cite}）",
    ),
    "paper.calc.table6": (
        "**Table 6, the same training time:** BERT-large, {bert_steps} steps in {bert_hours} h → Avg {bert_avg}; "
        "ALBERT-xxlarge, {xx_steps} steps in {xx_hours} h → Avg {xx_avg}. About {ratio}× slower per step "
        "(Table 2), ALBERT-xxlarge still scores higher given the same hours.",
        "**表 6，相同的训练时间：** BERT-large 在 {bert_hours} 小时内训练 {bert_steps} 步 → Avg {bert_avg}；ALBERT-xxlarge 在 "
        "{xx_hours} 小时内训练 {xx_steps} 步 → Avg {xx_avg}。每一步慢约 {ratio} 倍（表 2），但训练同样的时间，ALBERT-xxlarge "
        "的成绩仍然更高。",
    ),
    "paper.sharing.title4": (
        "#### Table 4: cross-layer sharing, ALBERT-base, E = 768 ({cite})",
        "#### 表 4：跨层参数共享，ALBERT-base，E = 768（{cite}）",
    ),
    "paper.sharing.e128": (
        "At E = 128 (Table 4, Avg): all-shared {all}, shared-attention {attention}, not-shared {none}: sharing attention "
        "costs nothing there.",
        "E = 128 时（表 4，Avg）：全部共享 {all}，只共享注意力 {attention}，不共享 {none}：此时共享注意力没有损失。",
    ),
    "paper.sharing.ours": (
        "**Ours, beside Table 4** (held-out books, masked words and sentence order; see *Ablations* in the README):",
        "**我们的结果，对照表 4**（留出书籍上的遮蔽词和句子顺序；见 README 的 *Ablations* 一节）：",
    ),
    "paper.sharing.direction": (
        "The paper: not sharing gains {paper:+.1f} Avg over all-shared at E = 768. Ours ({tokens} tokens each): not "
        "sharing gains {ours:+.1f} points of held-out masked words, for {ratio}× the parameters; the 95% intervals "
        "{overlap}.",
        "论文：E = 768 时，不共享比全部共享的 Avg 高 {paper:+.1f}。我们的（各 {tokens} 个词元）：不共享的留出集遮蔽词准确率高 "
        "{ours:+.1f} 个百分点，参数是 {ratio} 倍；两者的 95% 区间{overlap}。",
    ),
    "paper.overlap.yes": ("overlap, so it is not yet a difference", "有重叠，所以还不能算差别"),
    "paper.overlap.no": ("do not overlap", "没有重叠"),
    "paper.sharing.missing": ("Not trained yet: {modes}.", "尚未训练：{modes}。"),
    "paper.sharing.title3": (
        "#### Table 3: the embedding size E, ALBERT-base ({cite})",
        "#### 表 3：词嵌入大小 E，ALBERT-base（{cite}）",
    ),
    "paper.sharing.best3": (
        "Best E (bold): {best_all} with all-shared, {best_none} without sharing — E = 128 is ALBERT's choice because "
        "of sharing, not in general.",
        "最佳 E（粗体）：全部共享时为 {best_all}，不共享时为 {best_none}。ALBERT 选 E = 128 是因为共享，并非普遍最优。",
    ),
    "paper.sharing.ours3": (
        "**Ours, all-shared, by E** (only rows with the same tokens compare):",
        "**我们的全部共享模型，按 E 排列**（只有训练词元相同的行才能比较）：",
    ),
    "paper.order.title": (
        "#### Table 5: the sentence task, ALBERT-base ({cite})",
        "#### 表 5：句子任务，ALBERT-base（{cite}）",
    ),
    "paper.order.read": (
        "Intrinsic columns are the pretraining tasks' own held-out accuracy. An NSP-trained model is at chance on "
        "sentence order ({nsp_sop}), an SOP-trained one also does NSP ({sop_nsp}), and SOP gives the best Avg.",
        "“内在”各列是预训练任务本身的留出集准确率。用 NSP 训练的模型在句子顺序上只有随机水平（{nsp_sop}），用 SOP 训练的模型在 NSP 上"
        "也不错（{sop_nsp}），而且 SOP 的 Avg 最高。",
    ),
    "paper.order.ours": (
        "**Ours, beside Table 5** (held-out books; chance is 50% on both sentence tasks):",
        "**我们的结果，对照表 5**（留出书籍；两种句子任务的随机水平都是 50%）：",
    ),
    "paper.col.intrinsic_mlm": ("MLM (intrinsic)", "MLM（内在）"),
    "paper.col.intrinsic_nsp": ("NSP (intrinsic)", "NSP（内在）"),
    "paper.col.intrinsic_sop": ("SOP (intrinsic)", "SOP（内在）"),
    "paper.none_yet": ("No recorded runs yet.", "还没有训练记录。"),
    "paper.downstream.title": (
        "#### SST-2 and the other tasks in the paper ({cite})",
        "#### 论文中的 SST-2 及其他任务（{cite}）",
    ),
    "paper.downstream.sst2": (
        "**SST-2 dev accuracy.** Table 2 (125k steps): {table2}. Table 9 (ALBERT-xxlarge, 1.5M steps, more data): "
        "{dev}; ensemble on the test set {test}. **Ours:** {ours}.",
        "**SST-2 开发集准确率。** 表 2（12.5 万步）：{table2}。表 9（ALBERT-xxlarge，150 万步，更多数据）：{dev}；测试集上的集成模型 "
        "{test}。**我们的：** {ours}。",
    ),
    "paper.downstream.ours": (
        "{name} {accuracy} ({n} parameters, pretrained on {tokens} tokens of books)",
        "{name} {accuracy}（{n} 个参数，预训练读过 {tokens} 个书籍词元）",
    ),
    "paper.downstream.ours_missing": ("no sentiment model shipped", "没有随附的情感分类模型"),
    "paper.downstream.table9": (
        "**Table 9, GLUE, single-task single models on dev:**",
        "**表 9，GLUE，单任务单模型，开发集：**",
    ),
    "paper.downstream.table9_test": (
        "Table 9, ensembles on test (leaderboard, Sept. 16, 2019), ALBERT: {scores}, WNLI {wnli}; GLUE score {glue}.",
        "表 9，测试集上的集成模型（排行榜，2019 年 9 月 16 日），ALBERT：{scores}，WNLI {wnli}；GLUE 总分 {glue}。",
    ),
    "paper.downstream.table10": ("**Table 10, single models:**", "**表 10，单模型：**"),
    "paper.downstream.table10_ensemble": (
        "Table 10, ensembles (leaderboard, Sept. 23, 2019), ALBERT: SQuAD 2.0 test F1/EM {squad}, RACE test {race}.",
        "表 10，集成模型（排行榜，2019 年 9 月 23 日），ALBERT：SQuAD 2.0 测试集 F1/EM {squad}，RACE 测试集 {race}。",
    ),
    "paper.col.squad11_dev": ("SQuAD1.1 dev F1/EM", "SQuAD1.1 开发集 F1/EM"),
    "paper.col.squad20_dev": ("SQuAD2.0 dev F1/EM", "SQuAD2.0 开发集 F1/EM"),
    "paper.col.race_test": ("RACE test", "RACE 测试集"),
    "paper.panel.calc": ("The paper's results: Tables 1, 2 and 6", "论文的结果：表 1、表 2 和表 6"),
    "paper.panel.sharing": ("The paper's Tables 4 and 3 beside our runs", "论文的表 4 和表 3 与我们的训练对照"),
    "paper.panel.order": ("The paper's Table 5 beside our runs", "论文的表 5 与我们的训练对照"),
    "paper.panel.downstream": (
        "The paper's SST-2, GLUE, SQuAD and RACE results (Tables 2, 9, 10)",
        "论文的 SST-2、GLUE、SQuAD 和 RACE 成绩（表 2、9、10）",
    ),
    "paper.panel.misreadings": ("Common misreadings of ALBERT", "对 ALBERT 的常见误读"),
    # ----- misreadings -----------------------------------------------------------------------------
    "paper.mis.intro": (
        "Each claim below is a common one; each correction gives its source.",
        "下面每一条都是常见的说法；每条更正都注明了出处。",
    ),
    "paper.mis.faster": (
        "**“ALBERT is faster than BERT.”** Not at inference: a shared layer is still computed at every pass. ALBERT-base "
        "does {base}× the FLOPs per token of BERT-base, ALBERT-xxlarge {xx}× those of BERT-large (our count, "
        "`albert.compute`, T = 512). The paper's speedups are training throughput, where fewer parameters mean less to "
        "communicate: ALBERT-base {s_base}×, but ALBERT-xxlarge {s_xx}× BERT-large (Table 2); its Discussion names speeding "
        "up training and inference as the next step. Try *Measure on this computer* above.",
        "**“ALBERT 比 BERT 快。”** 推理时并不快：共享的层在每一次计算中都要算一遍。ALBERT-base 每个词元的 FLOPs 是 BERT-base 的 "
        "{base} 倍，ALBERT-xxlarge 是 BERT-large 的 {xx} 倍（我们的计算，`albert.compute`，T = 512）。论文中的加速是训练时的吞吐量，"
        "参数少意味着要通信的数据少：ALBERT-base 为 {s_base} 倍，但 ALBERT-xxlarge 只有 BERT-large 的 {s_xx} 倍（表 2）；论文的"
        "讨论部分把加快训练和推理列为下一步工作。可以试试上面的“在本机实测”。",
    ),
    "paper.mis.large": (
        "**“BERT-large has 340M parameters.”** The ALBERT paper counts {paper} (Table 1); our exact count of that "
        "configuration (V = 30,000) is {exact} with the pooler. 340M is the BERT paper's own rounding (Devlin et al. "
        "2019, with a 30,522-token vocabulary).",
        "**“BERT-large 有 340M 个参数。”** ALBERT 论文记为 {paper}（表 1）；我们对该配置（V = 30,000）的精确计数是 {exact}（含 "
        "pooler）。340M 是 BERT 论文自己的取整（Devlin 等，2019，词表 30,522）。",
    ),
    "paper.mis.ffn": (
        "**“Sharing attention is what costs accuracy.”** It is the feed-forward layers: at E = 768, sharing only "
        "attention costs {attention:.1f} Avg, only the FFN {ffn:.1f}, everything {all:.1f} (Table 4; not shared "
        "{none}).",
        "**“共享注意力才是降低准确率的原因。”** 其实是前馈层：E = 768 时，只共享注意力使 Avg 下降 {attention:.1f}，只共享前馈层"
        "下降 {ffn:.1f}，全部共享下降 {all:.1f}（表 4；不共享为 {none}）。",
    ),
    "paper.mis.embedding": (
        "**“E = 128 is the best embedding size.”** Only with all-shared layers (Table 3: best E = {best_all}, Avg "
        "{avg_all}); without sharing the largest E tried is best (E = {best_none}, Avg {avg_none}).",
        "**“E = 128 是最好的词嵌入大小。”** 只在全部共享时如此（表 3：最佳 E = {best_all}，Avg {avg_all}）；不共享时，所试的最大 E "
        "最好（E = {best_none}，Avg {avg_none}）。",
    ),
    "paper.mis.tokenizer": (
        "**“ALBERT uses WordPiece, like BERT.”** It uses SentencePiece (Kudo & Richardson 2018) with a 30,000-token "
        "vocabulary, as XLNet does (Section 4.1, experimental setup); so do this project's models (`albert/tokenizer.py`).",
        "**“ALBERT 和 BERT 一样用 WordPiece。”** 它用的是 SentencePiece（Kudo 与 Richardson，2018），词表 30,000，与 XLNet 相同"
        "（第 4.1 节，实验设置）；本项目的模型也是如此（`albert/tokenizer.py`）。",
    ),
}
