"""The Sentiment tab's deploy view (issue 34 item 5): the table equals deploy.json in both languages, the
calculator's file sizes (fp32 / fp16 / dynamic INT8) are right for the paper's presets and for a model actually
quantized, and the shipped multi-task model answers both of its tasks on one text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from albert import PRESETS, AlbertConfig, AlbertModel, count_parameters
from app.tabs.parameters import calculator
from app.tabs.parameters.file_sizes import SCALE_BYTES, file_sizes
from app.tabs.sentiment import deploy

ROOT = Path(__file__).resolve().parents[4]
RECORD = json.loads((ROOT / "assets" / "finetuning" / "deploy.json").read_text(encoding="utf-8"))


def _table_rows(markdown: str) -> list[list[str]]:
    """The deploy table's body rows as lists of cells (header and rule left out)."""
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


@pytest.mark.parametrize(("lang", "task"), [("en", "sst2"), ("zh", "zh-reviews")])
def test_deploy_table_equals_deploy_json(lang: str, task: str) -> None:
    variants = RECORD["tasks"][task]["variants"]
    shown = [name for name in variants if not name.endswith("-unmerged")]  # latency-only rows stay on the page
    assert set(deploy.VARIANTS[task]) == set(shown)
    rows = _table_rows(deploy.deploy_markdown(lang))
    assert len(rows) == len(deploy.VARIANTS[task])
    for name, cells in zip(deploy.VARIANTS[task], rows, strict=True):
        v = variants[name]
        _, size, stored, accuracy, right, trainable, latency = cells
        assert size == f"{v['state_dict_bytes'] / 1e6:.2f} MB"
        assert stored == f"{v.get('adapter_bytes', v['state_dict_bytes']) / 1e6:.2f} MB"
        assert accuracy == f"{v['accuracy']:.2%} [{v['ci95'][0]:.1%}, {v['ci95'][1]:.1%}]"
        assert right == f"{v['hits']:,} / {v['n']:,}"
        assert v["n"] == RECORD["tasks"][task]["dev_n"]
        assert latency == f"{v['latency_ms_batch1']:.1f} ({v['latency_ms_batch1_min']:.1f})"
        expected = v.get("trainable_parameters", v["parameters"] if name == "student" else None)
        assert trainable == (f"{expected:,}" if expected is not None else "—")


def test_deploy_table_numbers_by_hand() -> None:
    """A few cells against the results page (docs/results/finetuning-practices.md), not against the code's reading."""
    en = deploy.deploy_markdown("en")
    assert "| 6.96 MB | 6.96 MB | 67.20% [64.0%, 70.2%] | 586 / 872 | 1,731,074 | 14.0 (2.1) |" in en
    assert "| 6.96 MB | 0.23 MB | 61.24% [58.0%, 64.4%] | 534 / 872 | 55,554 |" in en
    assert "6.96 MB → 3.51 MB" in en  # INT8 halves the English file
    zh = deploy.deploy_markdown("zh")
    assert "| 2.99 MB | 2.99 MB | 73.21% [71.1%, 75.2%] | 1,268 / 1,732 | 743,810 | 25.3 (2.7) |" in zh
    assert "只从 2.99 MB 缩小到 2.36 MB" in zh and "验证" in zh and "variant" not in zh


def test_the_two_languages_show_their_own_task() -> None:
    assert deploy.task_for("en") == "sst2" and deploy.task_for("中文") == "zh-reviews"
    assert "SST-2" in deploy.deploy_markdown("en") and "zh-reviews" in deploy.deploy_markdown("zh")
    assert len(_table_rows(deploy.deploy_markdown("en"))) == 5 and len(_table_rows(deploy.deploy_markdown("zh"))) == 6


# ----- the calculator's file sizes ------------------------------------------------------------
def _sizes(preset: str):
    config = PRESETS[preset]
    return file_sizes(config, count_parameters(config))


def test_albert_base_file_sizes() -> None:
    sizes = _sizes("albert-base")
    phone = RECORD["albert_base_phone"]
    assert sizes.parameters == phone["parameters"] == 11_683_584
    assert sizes.fp32 == phone["fp32_bytes"] == 46_734_336
    assert sizes.fp16 == phone["fp16_bytes"] == 23_367_168
    assert sizes.linear_weights == phone["linear_weight_parameters"] == 7_766_016
    # attention 4·768 + FFN (3072 + 768) + projection 768 + pooler 768 output rows, 16 bytes each
    assert sizes.linear_rows == 8_448
    assert sizes.dynamic_int8 == phone["dynamic_int8_bytes"] + SCALE_BYTES * 8_448 == 23_571_456
    line = calculator.file_size_line(calculator.calculate(calculator.ParameterForm.of(PRESETS["albert-base"])))
    assert "**46.7 MB**" in line and "**23.4 MB**" in line and "**23.6 MB**" in line and "7,766,016" in line


def test_bert_base_file_sizes() -> None:
    sizes = _sizes("bert-base")
    assert sizes.parameters == 109_081_344
    assert (sizes.fp32, sizes.fp16) == (436_325_376, 218_162_688)
    # 12 layers of 4·768² + 2·768·3072 weights, the pooler's 768²; no projection (E = H)
    assert sizes.linear_weights == 12 * (4 * 768 * 768 + 2 * 768 * 3072) + 768 * 768 == 85_524_480
    assert sizes.linear_rows == 12 * (4 * 768 + 3072 + 768) + 768
    assert sizes.dynamic_int8 == 85_524_480 + 16 * 83_712 + 4 * (109_081_344 - 85_524_480) == 181_091_328
    zh = calculator.file_size_line(calculator.calculate(calculator.ParameterForm.of(PRESETS["bert-base"])), "zh")
    assert "**436.3 MB**" in zh and "**218.2 MB**" in zh and "**181.1 MB**" in zh and "文件大小" in zh


def test_file_sizes_in_the_totals_and_the_json() -> None:
    calc = calculator.calculate(calculator.ParameterForm.of(PRESETS["albert-base"]))
    assert calculator.file_size_line(calc) in calculator.totals_markdown(calc)
    assert calc.as_dict()["file_bytes"]["fp32_bytes"] == 46_734_336


@pytest.mark.parametrize("sharing", ["all", "none", "attention", "ffn"])
def test_file_sizes_match_a_quantized_model(sharing: str) -> None:
    """The rule against `albert.core.quantize` itself: the same INT8 weights and rows, and torch.save's file within
    its few kilobytes of header of the predicted bytes."""
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    from albert.core.quantize import model_size_bytes, quantize_model

    config = AlbertConfig(
        vocab_size=300,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
        sharing=sharing,
    )
    model = AlbertModel(config)
    sizes = file_sizes(config, count_parameters(config))
    assert sum(p.numel() for p in model.parameters()) == sizes.parameters
    quantized = quantize_model(model)
    weights = [m.weight() for m in quantized.modules() if isinstance(m, DynamicLinear)]
    assert sum(w.numel() for w in weights) == sizes.linear_weights
    assert sum(w.shape[0] for w in weights) == sizes.linear_rows
    assert 0 <= model_size_bytes(quantized) - sizes.dynamic_int8 < 64 * 1024
    assert 0 <= model_size_bytes(model) - sizes.fp32 < 64 * 1024


# ----- one backbone, two heads -------------------------------------------------------------------
@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALBERT_LAB_MODELS", raising=False)
    if not (deploy.multitask_dir() / "config.json").is_file():
        pytest.fail("assets/models/albert-lab-zh-multitask is shipped: it must be there")


@pytest.mark.usefixtures("shipped")
@pytest.mark.parametrize(
    ("text", "label"),
    [("质量太差了，用了两天就坏了，不推荐购买。", "negative"), ("这家酒店服务很好，房间干净，下次还来。", "positive")],
)
def test_multitask_answers_both_tasks(text: str, label: str) -> None:
    answer = deploy.two_heads_view(text, "en")
    assert answer.result["reviews"] == label
    words = answer.result["words"]
    assert "".join(words) == text  # every character tagged, none lost, in order
    assert [tag for _, tag in answer.result["cws"]].count("B") == len(words)
    assert 1 < len(words) < len(text)  # words, neither one blob nor single characters
    assert "，" in words and "。" in words  # punctuation is a word of its own
    assert f"**{label}**" in answer.answer and " / ".join(words) in answer.answer


@pytest.mark.usefixtures("shipped")
def test_multitask_segments_a_plain_sentence() -> None:
    words = deploy.two_heads_view("今天下了一场大雨，路上到处都是积水。", "zh").result["words"]
    assert {"今天", "大雨", "积水"} <= set(words)
    assert "情感头部" in deploy.two_heads_view("今天下了一场大雨。", "zh").answer


@pytest.mark.usefixtures("shipped")
def test_multitask_refuses_in_one_sentence() -> None:
    english = deploy.two_heads_view("a great movie", "en")
    assert english.result == {"error": english.result["error"]} and "Chinese only" in english.result["error"]
    empty = deploy.two_heads_view("   ", "zh")
    assert "error" in empty.result and "Traceback" not in empty.answer
    long = deploy.two_heads_view("好" * 300, "en")
    assert len(long.result["cws"]) == 63 and "63" in long.answer


def test_typed_text_is_inert_in_the_answer() -> None:
    answer = deploy.two_heads_view("好*[x](javascript:1)<b>坏</b>", "en")
    assert "<b>" not in answer.answer and "[x](" not in answer.answer
    assert re.search(r"\\\*|&lt;", answer.answer)


def test_words_of() -> None:
    tagged = [("今", "B"), ("天", "I"), ("好", "B"), ("，", "B"), ("我", "I")]
    assert deploy.words_of(tagged) == ["今天", "好", "，我"]
    assert deploy.words_of([("天", "I")]) == ["天"]  # a first I still starts a word


# ----- "Measure on this computer" ----------------------------------------------------------------
@pytest.mark.usefixtures("shipped")
def test_measure_on_this_computer() -> None:
    from app.tabs.sentiment import deploy_timing

    times = deploy_timing.time_variants("zh-reviews", "zh", rounds=3)
    assert set(times) == set(deploy_timing.STANDS_FOR)
    assert all(0 < ms < 5_000 for ms in times.values())
    table = deploy_timing.measure_view("en")
    rows = _table_rows(table)
    variants = RECORD["tasks"]["sst2"]["variants"]
    assert [row[2] for row in rows] == [
        f"{variants[name]['latency_ms_batch1']:.1f} ({variants[name]['latency_ms_batch1_min']:.1f})"
        for name in deploy_timing.STANDS_FOR
    ]
    assert all(float(row[1]) > 0 for row in rows) and "albert-lab-sst2-lora" in table


def test_measure_without_the_shipped_models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from app.tabs.sentiment import deploy_timing

    monkeypatch.setenv("ALBERT_LAB_MODELS", str(tmp_path))
    answer = deploy_timing.measure_view("en")
    assert "albert-lab-sst2-lora" in answer and "not installed" in answer
    assert "not installed" in deploy.two_heads_view("好评", "en").result["error"]


def test_the_tab_holds_the_deploy_view_closed_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built page: the accordion is closed (the tab's first screen is unchanged), its table is the English
    one, and the language switch replaces it with the Chinese one."""
    from app.layout import build_app
    from tests.app.support import use_tiny_assets

    use_tiny_assets(monkeypatch)
    demo = build_app()
    by_id = {getattr(block, "elem_id", None): block for block in demo.blocks.values()}
    accordion, table = by_id["sentiment-deploy"], by_id["sentiment-deploy-table"]
    assert type(accordion).__name__ == "Accordion" and accordion.open is False
    assert table.value == deploy.deploy_markdown("en")
    switch = next(fn for fn in demo.fns.values() if fn.api_name == "set_language")
    updates = switch.fn("zh")

    def update_of(block: object) -> dict:
        return updates[next(i for i, output in enumerate(switch.outputs) if output is block)]

    assert update_of(table)["value"] == deploy.deploy_markdown("zh")
    assert update_of(by_id["sentiment-deploy-measure"])["value"] == "在这台电脑上测量"
    assert update_of(accordion)["label"].startswith("部署微调模型")
