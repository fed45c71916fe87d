"""Compute and memory (albert.core.compute, app.tabs.parameters.costs): hand-computed FLOPs for a tiny config,
agreement with torch's FlopCounterMode and with the tensors autograd saves, the paper's Table 2, the bounded timing."""

from __future__ import annotations

import math

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from albert import PRESETS, AlbertConfig, AlbertModel, count_parameters
from albert.core.compute import (
    activation_values,
    flops_per_token,
    inference_working_values,
    weight_bytes,
)
from albert.core.params import PAPER_TABLE2_SPEEDUP
from tests.factories import tiny_config

FLOP_TOLERANCE = 1e-3
"""FlopCounterMode counts the same matrix products, so the counts agree exactly; 0.1% leaves room for none."""


def tiny(**changes) -> AlbertConfig:
    config = tiny_config(vocab_size=100, num_hidden_layers=3, intermediate_size=64).replace(**changes)
    return config.replace(num_hidden_groups=config.num_hidden_layers) if config.sharing == "none" else config


def form(config: AlbertConfig) -> tuple:
    from app.tabs.parameters.calculator import preset_values

    return preset_values(config)


def test_flops_by_hand_for_a_tiny_config() -> None:
    # E 16, H 32, L 3, I 64, T 10; multiply-adds per token:
    #   projection 16·32 = 512; attention 3·4·32² = 12,288; scores 3·2·10·32 = 1,920; FFN 3·2·32·64 = 12,288
    f = flops_per_token(tiny(), seq_len=10)
    assert (f.embedding_projection, f.attention_projections, f.attention_scores, f.ffn, f.mlm_head) == (
        2 * 512,
        2 * 12_288,
        2 * 1_920,
        2 * 12_288,
        0,
    )
    assert f.forward == 54_016 and f.training == 3 * 54_016
    # MLM head, every position: H·E + E·V = 32·16 + 16·100 = 2,112 multiply-adds
    assert flops_per_token(tiny(), 10, mlm_head=True).mlm_head == 2 * 2_112
    # BERT-style: no projection, nothing for it
    assert flops_per_token(tiny(embedding_size=32, project_embeddings=False), 10).embedding_projection == 0


@pytest.mark.parametrize("sharing", ["all", "attention", "ffn", "none"])
def test_forward_flops_agree_with_flop_counter_in_every_mode(sharing: str) -> None:
    """The count is the same for every sharing mode and equals torch's count of the products.
    (The explicit attention path: FlopCounterMode does not count PyTorch's fused CPU attention.)"""
    config = tiny(sharing=sharing)
    model = AlbertModel(config, add_pooler=False).eval()
    B, T = 2, 10
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(torch.randint(0, config.vocab_size, (B, T)), output_attentions=True)
    expected = flops_per_token(config, T).forward * B * T
    assert expected == flops_per_token(tiny(), T).forward * B * T  # sharing appears nowhere
    assert math.isclose(counter.get_total_flops(), expected, rel_tol=FLOP_TOLERANCE)


def test_training_is_three_times_the_forward_pass() -> None:
    config = tiny(hidden_size=64, intermediate_size=256, num_hidden_layers=4, max_position_embeddings=128)
    model = AlbertModel(config, add_pooler=False).train()
    B, T = 2, 16
    with FlopCounterMode(display=False) as counter:
        out = model(torch.randint(0, config.vocab_size, (B, T)), output_attentions=True)
        out.last_hidden_state.sum().backward()
    assert math.isclose(counter.get_total_flops(), flops_per_token(config, T).training * B * T, rel_tol=0.02)


def _saved_bytes(model: AlbertModel, ids: torch.Tensor, output_attentions: bool) -> int:
    """Bytes of the tensors autograd keeps for backward, parameters (and views of them) left out."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in params:
            seen[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        model(ids, output_attentions=output_attentions)
    return sum(seen.values())


@pytest.mark.parametrize("T", [16, 64])
def test_activation_estimate_matches_what_autograd_saves_and_ignores_sharing(T: int) -> None:
    B = 2
    saved = {}
    for sharing in ("all", "none"):
        config = tiny(
            hidden_size=64, intermediate_size=256, num_hidden_layers=4, max_position_embeddings=128, sharing=sharing
        )
        model = AlbertModel(config, add_pooler=False).train()
        ids = torch.randint(0, config.vocab_size, (B, T))
        for probs in (False, True):
            saved[sharing, probs] = _saved_bytes(model, ids, output_attentions=probs)
            estimate = activation_values(config, B, T, keep_attention_probs=probs).bytes("fp32")
            assert math.isclose(saved[sharing, probs], estimate, rel_tol=0.05), (sharing, probs)
    # one set of weights or L sets: the same activations
    assert saved["all", False] == saved["none", False] and saved["all", True] == saved["none", True]


def test_memory_formulas() -> None:
    assert weight_bytes(1_000) == {"fp32": 4_000, "fp16": 2_000, "int8": 1_000}
    config = PRESETS["albert-base"]
    a = activation_values(config, batch_size=8, seq_len=512)
    assert a.per_pass == 8 * 512 * (8 * 768 + 2 * 3072) and a.passes == 12
    assert a.total == 12 * a.per_pass + 2 * 8 * 512 * 128 and a.bytes("fp16") == 2 * a.total
    assert activation_values(config, 8, 512, mlm_head=True).total - a.total == 8 * 512 * 30_000
    # an unshared twin keeps exactly as many activations
    assert activation_values(config.replace(sharing="none", num_hidden_groups=12), 8, 512).total == a.total
    assert inference_working_values(config, 8, 512) == 8 * 512 * max(6 * 768, 2 * 768 + 2 * 3072)
    with pytest.raises(ValueError):
        flops_per_token(config, 0)


def test_paper_table2_speed_beside_flops() -> None:
    from app.tabs.parameters.costs import paper_markdown, paper_speed_rows

    assert PAPER_TABLE2_SPEEDUP == {
        "bert-base": 4.7,
        "bert-large": 1.0,
        "albert-base": 5.6,
        "albert-large": 1.7,
        "albert-xlarge": 0.6,
        "albert-xxlarge": 0.3,
    }
    rows = {r["model"]: r for r in paper_speed_rows()}
    assert rows["bert-large"]["flops_vs_bert_large"] == 1.0
    # ALBERT-large: BERT-large's compute to within 1%, though 18× fewer parameters
    assert abs(rows["albert-large"]["flops_vs_bert_large"] - 1) < 0.01
    assert (
        rows["albert-xxlarge"]["flops_vs_bert_large"] > 7
        and rows["albert-xxlarge"]["parameters"] < rows["bert-large"]["parameters"]
    )
    # ALBERT-base and BERT-base: 9× apart in parameters, the same FLOPs to within 0.2%
    assert abs(rows["albert-base"]["flops_per_token"] / rows["bert-base"]["flops_per_token"] - 1) < 0.002
    text = paper_markdown("en")
    assert "Table 2" in text and "0.3×" in text and "1.7×" in text and "| bert-large | 334.6M |" in text
    assert "表 2" in paper_markdown("zh")


def test_compute_view_shows_formulas_and_refuses_bad_input_in_one_sentence() -> None:
    from app.tabs.parameters.costs import compute_view

    raw, status, flops, memory, paper = compute_view(*form(PRESETS["albert-base"]), batch_size=8, seq_len=512)
    assert status == "" and raw["flops_per_token"]["forward"] == flops_per_token(PRESETS["albert-base"], 512).forward
    flops = flops.replace("\u00a0", " ")  # a number and its unit in a label are joined by a no-break space (phones)
    assert "L·4·H²" in flops and "L·2·T·H" in flops and "3 × forward" in flops and "188.9 MFLOPs" in flops
    assert raw["weight_bytes"]["fp32"] == 4 * count_parameters(PRESETS["albert-base"]).total
    assert "fp16" in memory and "shared weights or not" in memory
    zh = compute_view(*form(PRESETS["albert-base"]), batch_size=8, seq_len=512, lang="zh")
    assert "每个词元" in zh[2] and "内存" in zh[3]
    for change, fragment in (
        ({"seq_len": 1024}, "longer than the model's 512 positions"),
        ({"batch_size": 0}, "at least 1"),
        ({"batch_size": "many"}, "whole number"),
        ({"seq_len": float("nan")}, "whole number"),
        ({"batch_size": 2_000_000}, "beyond"),
    ):
        raw, status, *_ = compute_view(*form(PRESETS["albert-base"]), **({"batch_size": 8, "seq_len": 512} | change))
        assert fragment in raw["error"] and status.count(".") <= 2 and "Traceback" not in status, change


def test_measure_is_bounded_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.tabs.parameters import costs
    from app.tabs.parameters.calculator import CalculatorInputError
    from app.tabs.parameters.costs import MEASURE_FLOP_BUDGET, measure_plan, measure_view

    assert measure_plan(tiny(), 32) == 32
    T = measure_plan(PRESETS["bert-base"], 512)
    assert T < 128 and flops_per_token(PRESETS["bert-base"], T).forward * T <= MEASURE_FLOP_BUDGET
    with pytest.raises(CalculatorInputError, match="334.6M parameters"):
        measure_plan(PRESETS["bert-large"], 512)
    # Under the parameter cap even 8 tokens fit the FLOP budget; with the cap lifted the FLOP bound speaks.
    monkeypatch.setattr(costs, "MEASURE_MAX_PARAMETERS", 10**12)
    with pytest.raises(CalculatorInputError, match="even 8 tokens need"):
        measure_plan(
            AlbertConfig(
                vocab_size=100,
                embedding_size=16,
                hidden_size=1024,
                num_hidden_layers=48,
                num_attention_heads=16,
                intermediate_size=4096,
            ),
            512,
        )
    monkeypatch.undo()
    raw, status, text, _ = measure_view(*form(PRESETS["bert-large"]), seq_len=512, lang="zh")
    assert "error" in raw and "未实测" in status


def test_measure_times_every_mode_of_a_small_model() -> None:
    from app.tabs.parameters.costs import measure_render, measure_view

    threads = torch.get_num_threads()
    raw, status, text, figure = measure_view(*form(tiny()), seq_len=32)
    assert torch.get_num_threads() == threads  # restored
    assert [row["sharing"] for row in raw["modes"]] == ["all", "attention", "ffn", "none"]
    assert len({row["forward_flops"] for row in raw["modes"]}) == 1  # the same compute in every mode
    assert raw["modes"][0]["parameters"] < raw["modes"][-1]["parameters"] and raw["modes"][-1]["time_vs_none"] == 1
    assert all(row["seconds"] > 0 for row in raw["modes"]) and "fewer parameters" in text and status == ""
    zh_status, zh_text, _ = measure_render(raw, "zh")
    assert "参数少了" in zh_text
    assert measure_render({}, "en")[0].startswith("Press the button")
    _, status, _, _ = measure_view(*form(PRESETS["albert-base"].replace(num_hidden_layers=2)), seq_len=512)
    assert "instead of 1 × 512" in status


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"project_embeddings": "yes"}, "true or false"),
        ({"mlm_head": [1]}, "true or false"),
        ({"sharing": {"all": 1}}, "Sharing must be"),
        ({"batch_size": 1e308}, "beyond"),
        ({"seq_len": True}, "whole number"),
    ],
)
def test_compute_view_raw_json_values_get_one_sentence(change: dict, fragment: str) -> None:
    """Events run with preprocess=False, so any JSON value can arrive."""
    from app.tabs.parameters.costs import compute_view

    names = (
        "vocab_size",
        "embedding_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "sharing",
        "num_hidden_groups",
        "project_embeddings",
        "max_position_embeddings",
    )
    values = dict(zip(names, form(PRESETS["albert-base"]), strict=True)) | {
        "batch_size": 8,
        "seq_len": 512,
        "mlm_head": False,
        "lang": 12,
    }
    raw, status, *_ = compute_view(**(values | change))
    assert fragment in raw.get("error", ""), raw


def test_measure_render_ignores_what_is_not_a_measurement() -> None:
    from app.tabs.parameters.costs import measure_render

    for junk in (None, [], {"modes": "x"}, {"tokens": 8, "asked": 8, "threads": 1, "modes": [{"sharing": "all"}]}):
        status, text, _ = measure_render(junk, "zh")
        assert status.startswith("按下按钮") and text == ""


@pytest.mark.slow
def test_compute_and_measure_through_the_running_app() -> None:
    from gradio_client import Client

    from tests.app.support import running_app

    client = Client(running_app(), verbose=False, analytics_enabled=False)
    out = client.predict(*form(PRESETS["bert-base"]), 8, 512, False, "en", api_name="/compute")
    assert out[0]["flops_per_token"]["forward"] == flops_per_token(PRESETS["bert-base"], 512).forward
    assert "188.7 MFLOPs" in out[2] and "Table 2" in out[4]
    assert client.predict(*form(tiny()), 8, 999, False, "en", api_name="/compute")[0]["error"].endswith("≤ 64.")
    raw, status, text, _ = client.predict(*form(tiny()), 32, "zh", api_name="/measure_speed")
    assert [row["sharing"] for row in raw["modes"]] == ["all", "attention", "ffn", "none"] and "参数少了" in text
    edited = list(form(PRESETS["albert-base"]))
    edited[2] = 512
    assert client.predict(*edited, api_name="/preset_match") == "custom"
    assert client.predict(*form(PRESETS["bert-large"]), api_name="/preset_match") == "bert-large"
    # the bert-base preset: no E×H and no "smaller" without a projection; the paper's 108M beside the exact count
    fields, (_, _, embedding, totals, *_) = (lambda out: (out[:10], out[10:]))(
        client.predict("bert-base", "en", api_name="/preset")
    )
    assert tuple(fields) == form(PRESETS["bert-base"]) and fields[8] is False
    assert "smaller" not in embedding and "589,824" not in embedding and "×0." not in embedding  # E×H = 589,824
    assert "108M" in totals and "109,081,344" in totals and "108.5M without it" in totals


def test_the_benchmarks_count_flops_with_the_library_formula() -> None:
    """benchmarks/inference.py and train_throughput.py use `flops_per_token` (plus the pooler, once per sequence);
    their figures are those of the formula they had before (issue 33), to the FLOP."""
    from benchmarks.inference import model_flops
    from benchmarks.train_throughput import CASES, training_flops_per_token

    base = PRESETS["albert-base"]
    assert model_flops(base, 8, 128) == 178_988_777_472  # the README's inference benchmark shape
    assert model_flops(PRESETS["bert-base"], 8, 128) == 178_787_450_880  # no E→H projection
    assert model_flops(PRESETS["albert-xxlarge"], 8, 128) == 4_974_914_306_048
    pooler = 2 * 8 * base.hidden_size**2
    assert model_flops(base, 8, 128) == 8 * 128 * flops_per_token(base, 128).forward + pooler
    demo_config, _, demo_length = CASES["demo"]
    assert training_flops_per_token(demo_config, demo_length) == pytest.approx(32_743_219.2, rel=1e-12)
    base_config, _, base_length = CASES["albert-base"]
    assert training_flops_per_token(base_config, base_length) == pytest.approx(527_925_657.6, rel=1e-12)
