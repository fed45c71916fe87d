"""The paper's tables as the app carries them (app.paper), the panels that show them beside our runs, and the
common misreadings panel."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from albert import PRESETS, count_parameters
from albert.core.compute import flops_per_token
from app import paper
from app.paper import views as paper_views


def _rows() -> list[tuple[str, paper.Downstream]]:
    rows = [(f"Table 2 {k}", v) for k, v in paper.TABLE2.items()]
    rows += [(f"Table 3 {k}", v) for k, v in paper.TABLE3.items()]
    rows += [(f"Table 4 {k}", v) for k, v in paper.TABLE4.items()]
    rows += [(f"Table 5 {k}", v) for k, (_, v) in paper.TABLE5.items()]
    rows += [(f"Table 6 {k}", v.scores) for k, v in paper.TABLE6.items()]
    return rows


@pytest.mark.parametrize("where,row", _rows(), ids=[w for w, _ in _rows()])
def test_every_row_adds_up_to_its_printed_average(where: str, row: paper.Downstream) -> None:
    # The paper's Avg: SQuAD 1.1 and 2.0 each as the mean of F1 and EM, then MNLI, SST-2, RACE; one mistyped cell
    # moves it by 0.1 or more.
    assert abs(row.average() - row.avg) <= 0.05 + 1e-9, (where, row.average())
    assert all(f1 >= em for f1, em in (row.squad11, row.squad20))  # F1 is never below exact match


def test_rows_the_paper_prints_twice_agree() -> None:
    assert paper.TABLE3[("none", 768)] == paper.TABLE2["bert-base"] == paper.TABLE4[("none", 768)]
    assert paper.TABLE3[("all", 128)] == paper.TABLE2["albert-base"]
    assert paper.TABLE3[("all", 768)] == paper.TABLE4[("all", 768)]
    assert paper.TABLE5["sop"][1].avg == paper.TABLE2["albert-base"].avg == paper.TABLE4_E128_AVG["all"]
    assert set(paper.TABLE2) == set(paper.PAPER_TABLE1) == set(paper.PAPER_TABLE2_SPEEDUP)
    assert {k for k in paper.TABLE3} == {k for k in paper.PAPER_TABLE3}


def test_the_tables_say_what_the_paper_concludes() -> None:
    assert paper_views.best_embedding("all") == 128 and paper_views.best_embedding("none") == 768  # Table 3
    e768 = {mode: row.avg for (mode, _), row in paper.TABLE4.items()}
    assert min(e768, key=e768.get) == "ffn" and e768["none"] - e768["attention"] == pytest.approx(0.7)
    e128 = paper.TABLE4_E128_AVG  # the text beside Table 4: "+0.1" for shared attention, −1.5 for all-shared
    assert e128["attention"] - e128["none"] == pytest.approx(0.1) and e128["none"] - e128["all"] == pytest.approx(1.5)
    intrinsic = {k: v[0] for k, v in paper.TABLE5.items()}
    assert intrinsic["nsp"].sop < 55 < intrinsic["sop"].nsp  # NSP does not learn order; SOP learns some NSP
    assert max(paper.TABLE5, key=lambda k: paper.TABLE5[k][1].avg) == "sop"
    assert paper.TABLE6["albert-xxlarge"].scores.avg > paper.TABLE6["bert-large"].scores.avg
    best = paper.TABLE9_DEV["ALBERT (1.5M)"]
    assert all(best[i] >= row[i] for row in paper.TABLE9_DEV.values() for i in range(len(paper.GLUE_TASKS)))
    assert all(paper.TABLE10["ALBERT (1.5M)"][2] >= race for _, _, race in paper.TABLE10.values())


def test_calculator_panel_puts_our_exact_counts_beside_table_1_and_2() -> None:
    text = paper_views.calculator_markdown("en")
    for name in paper_views.PRESET_ORDER:
        row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
        assert f"{count_parameters(PRESETS[name]).total:,}" in row and f"{paper.TABLE2[name].avg}" in row
        assert f"{paper.PAPER_TABLE2_SPEEDUP[name]}×" in row
    assert "| bert-large | 334M | 334,607,360 |" in text and "400,000 steps in 34 h" in text
    assert "表 6" in paper_views.calculator_markdown("zh")


SUMMARY = pd.DataFrame(
    [
        {
            "run": "arm-all",
            "sharing": "all",
            "objective": "sop",
            "embedding_size": 64,
            "seed": 0,
            "parameters": 1000,
            "tokens": 2e7,
            "mlm_accuracy": 0.15,
            "mlm_low": 0.14,
            "mlm_high": 0.16,
            "order_accuracy": 0.5,
            "order_low": 0.48,
            "order_high": 0.52,
        },
        {
            "run": "arm-none",
            "sharing": "none",
            "objective": "sop",
            "embedding_size": 64,
            "seed": 0,
            "parameters": 2500,
            "tokens": 2e7,
            "mlm_accuracy": 0.18,
            "mlm_low": 0.17,
            "mlm_high": 0.19,
        },
        {
            "run": "big",
            "sharing": "all",
            "objective": "sop",
            "embedding_size": 128,
            "seed": 0,
            "parameters": 3000,
            "tokens": 6e7,
            "mlm_accuracy": 0.2,
            "mlm_low": 0.19,
            "mlm_high": 0.21,
        },
        {
            "run": "arm-nsp",
            "sharing": "all",
            "objective": "nsp",
            "embedding_size": 64,
            "seed": 0,
            "parameters": 1000,
            "tokens": 2e7,
            "mlm_accuracy": 0.14,
            "topic_accuracy": 0.7,
            "topic_low": 0.68,
            "topic_high": 0.72,
        },
    ]
)


def test_sharing_panel_puts_our_arms_beside_table_4_and_says_whether_they_differ() -> None:
    text = paper_views.sharing_markdown(SUMMARY, "en")
    assert "| all-shared | arm-all | 1,000 | 20.0M | 15.0% [14.0%, 16.0%] | 50.0% [48.0%, 52.0%] |" in text
    assert "| not-shared | arm-none | 2,500 |" in text
    assert "not sharing gains +2.5 Avg" in text and "+3.0 points" in text and "2.5× the parameters" in text
    assert "do not overlap" in text and "Not trained yet: shared-attention, shared-FFN." in text
    assert "| 128 | big | 3,000 | 60.0M |" in text  # by E, with its different budget in the tokens column
    touching = SUMMARY.copy()
    touching.loc[1, "mlm_low"] = 0.155
    assert "overlap, so it is not yet a difference" in paper_views.sharing_markdown(touching, "en")
    assert "No recorded runs yet." in paper_views.sharing_markdown(None, "en")
    zh = paper_views.sharing_markdown(SUMMARY, "zh")
    assert "尚未训练：只共享注意力、只共享前馈层。" in zh and "没有重叠" in zh


def test_order_panel_lists_every_run_beside_table_5() -> None:
    text = paper_views.order_markdown(SUMMARY, "en")
    assert "| NSP | 54.5 | 90.5 | 52.0 |" in text and "**80.1**" in text
    assert "| arm-nsp | NSP | 64 | 20.0M | 14.0% | 70.0% [68.0%, 72.0%] |" in text
    assert "No recorded runs yet." in paper_views.order_markdown(None, "en")


def test_downstream_panel_gives_our_sst2_beside_the_papers() -> None:
    from app.page import framing

    facts = framing.sentiment_facts("ours", {"dev_accuracy": 0.8268}, 1_264_258, 2)
    text = paper_views.downstream_markdown("en", facts)
    assert "albert-base 90.3" in text and "96.9" in text and "97.1" in text and "ours 82.7" in text
    assert "GLUE score 89.4" in text and "92.2/89.7" in text
    assert "no sentiment model shipped" in paper_views.downstream_markdown("en", None)


def test_misreadings_are_corrected_with_computed_figures_and_sources() -> None:
    text = paper_views.misreadings_markdown("en")
    items = re.findall(r"^\d\. (.*)$", text, flags=re.M)
    assert len(items) == 5
    forward = {name: flops_per_token(PRESETS[name], 512).forward for name in ("albert-xxlarge", "bert-large")}
    ratio = forward["albert-xxlarge"] / forward["bert-large"]
    assert f"{ratio:.1f}× those of BERT-large" in items[0] and "0.3×" in items[0] and "Table 2" in items[0]
    assert "334M" in items[1] and f"{count_parameters(PRESETS['bert-large']).total / 1e6:.1f}M" in items[1]
    assert "340M" in items[1] and "Table 1" in items[1]
    assert "only the FFN 2.8" in items[2] and "attention costs 0.7" in items[2] and "Table 4" in items[2]
    assert "best E = 128" in items[3] and "E = 768" in items[3] and "Table 3" in items[3]
    assert "SentencePiece" in items[4] and "WordPiece" in items[4] and "Section 4.1" in items[4]
    zh = paper_views.misreadings_markdown("zh")
    assert len(re.findall(r"^\d\. ", zh, flags=re.M)) == 5 and "表 4" in zh and "出处" in zh


ALLOWED_LATIN = {
    "ALBERT",
    "BERT",
    "ALBERT-base",
    "BERT-base",
    "BERT-large",
    "ALBERT-xxlarge",
    "SentencePiece",
    "WordPiece",
    "XLNet",
    "Kudo",
    "Richardson",
    "Devlin",
    "Lan",
    "ICLR",
    "pooler",
    "albert",
    "compute",
    "tokenizer",
    "py",
    "arXiv",
    "FLOPs",
    "Avg",
    "MLM",
    "NSP",
    "SOP",
    "SQuAD",
    "MNLI",
    "SST",
    "RACE",
    "BookCorpus",
    "README",
    "Ablations",
    "GLUE",
    "WNLI",
    "F1",
    "EM",
}


@pytest.mark.parametrize("which", ["calc", "sharing", "order", "downstream", "misreadings"])
def test_panels_in_chinese_leave_no_english_words(which: str) -> None:
    text = paper_views.renderer(which)("zh")
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))  # table cells are figures
    prose = re.sub(r"`[^`]*`", "", prose)  # code names stay as they are
    words = {w.rstrip(".-") for w in re.findall(r"[A-Za-z][A-Za-z0-9.-]{2,}", prose)}
    allowed = ALLOWED_LATIN | set(paper.GLUE_TASKS) | {"SST-2", "SQuAD1.1", "SQuAD2.0", "RoBERTa"}
    stray = {w for w in words if w not in allowed and not w.startswith(("albert-", "bert-", "ALBERT"))}
    assert not stray, stray


def test_the_tabs_show_the_panels_and_redraw_them_in_chinese() -> None:
    from app.layout import build_app

    demo = build_app()
    texts = {b.elem_id: b for b in demo.blocks.values() if getattr(b, "elem_id", "") or ""}
    for which in ("calc", "misreadings", "sharing", "order", "downstream"):
        assert f"paper-{which}" in texts and f"paper-{which}-text" in texts, which
    assert "SentencePiece" in texts["paper-misreadings-text"].value
    # the language switch swaps the text with the labels, in one unqueued update (no event per panel)
    switch = next(fn for fn in demo.fns.values() if fn.api_name == "set_language")
    updates = dict(zip([c._id for c in switch.outputs], switch.fn("zh"), strict=True))
    for which in ("calc", "misreadings", "sharing", "order", "downstream"):
        assert updates[texts[f"paper-{which}-text"]._id]["value"] == paper_views.renderer(which)("zh")
        assert updates[texts[f"paper-{which}"]._id]["label"] == paper_views.t(f"paper.panel.{which}", "zh")
    assert not any(str(fn.api_name).startswith("paper_") for fn in demo.fns.values())
