"""The models shipped in assets/: they load (ours and transformers), predict sensibly,
their metrics files match their cards, and every file fits a Hugging Face Space."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import torch

from albert import AlbertForPreTraining
from albert.data.tokenizer import load_tokenizer
from app import settings

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def ablation_results() -> str:
    """The ablations' results page (docs/results/ablations.md, once README's section "Ablations at CPU scale")."""
    text = (ASSETS.parent / "docs" / "results" / "ablations.md").read_text(encoding="utf-8")
    assert text.startswith("# Ablations at CPU scale")
    return text


def card_language(directory: Path) -> str:
    """The `language:` tag of a folder's model card (en, zh)."""
    match = re.search(r"^language: (\w+)$", (directory / "README.md").read_text(encoding="utf-8"), re.M)
    return match.group(1) if match else "en"


MODELS = sorted(p.parent for p in (ASSETS / "models").glob("*/config.json"))
PRETRAINED = [
    p for p in MODELS if json.loads((p / "config.json").read_text())["architectures"][0] == "AlbertForPreTraining"
]
EXPECTED_MODELS = {
    "albert-lab-base",
    "albert-lab-all",
    "albert-lab-attention",
    "albert-lab-ffn",
    "albert-lab-e32",
    "albert-lab-e128",
    "albert-lab-e128-continued",
    "albert-lab-e128-gpu",
    "albert-lab-all-s1",
    "albert-lab-none-s1",
    "albert-lab-nsp-s1",
    "albert-lab-none",
    "albert-lab-nsp",
    "albert-lab-mlm",
}
"""The default, former defaults and the ablation arms trained so far (docs/results/ablations.md); the rest follow."""
NOT_ARMS = {"albert-lab-base", "albert-lab-e128-continued", "albert-lab-e128-gpu"}
"""Runs outside the ablation budget: an earlier default, the best arm continued past the family's budget (the former
default; docs/results/ablations.md, *The continued run*) and that run continued on an H200 in three runs over two
leases, now the default (6,206 steps of 256 and 1,024 sequences, not the arms' 5,600 of 64; docs/usage/gpu.md)."""
PLATEAU_LINE = 0.12
"""An arm is off the unigram plateau (4.6–4.9% held-out MLM) when its held-out MLM is at least this (the protocol)."""
ABLATION_TOKENS = 20_000_000
"""Every ablation arm saw at least this many tokens (the protocol's budget, past the unigram plateau), or says
in its card and docs/results/ablations.md how far short its 5,600 steps left it (one segment a step holds less text
than a pair)."""
ABLATION_TOKENS_FLOOR = 19_900_000
"""No arm, short or not, is more than half a percent under the budget."""

# The CPU-trained default has left the unigram plateau (held-out MLM 17.5%, see its card): its
# first guess follows the sentence — the speaker's pronoun, the auxiliary or verb the syntax needs,
# the object a verb takes. A unigram model (", the . and of") gets none of these right.
CLOZES = [
    ("she said that [MASK] would come back soon.", "she"),
    ("he said that [MASK] would come back soon.", "he"),
    ("i told them that [MASK] was tired.", "i"),
    ("i do not [MASK] what you mean.", "know"),
    ("the children [MASK] playing in the garden.", "were"),
    ("he opened the [MASK] and went out.", "door"),
]


def test_all_demo_models_are_shipped() -> None:
    assert EXPECTED_MODELS <= {p.name for p in MODELS}


def test_every_file_fits_a_space() -> None:
    files = [p for p in ASSETS.rglob("*") if p.is_file()]
    assert all(p.stat().st_size < 10 * 2**20 for p in files), [p for p in files if p.stat().st_size >= 10 * 2**20]
    # 85 MiB (was 80, 75 before): four training-text context indexes joined (0.73 MB each, gzip-compressed from
    # 1.9 MB), then albert-lab-e128-gpu (4.5 MB: weights, tokenizer files and a fourth copy of the English index) put
    # the assets at 81.2 MiB. Each model folder carries its own tokenizer files (1.2 MB; 24 copies, most of them of
    # one tokenizer) and the four English indexes are the same bytes: sharing them is the next saving. The bound keeps
    # a Space's upload and first start small (docs/usage/space.md), not a Hub limit.
    assert sum(p.stat().st_size for p in files) < 85 * 2**20


@pytest.mark.parametrize("directory", PRETRAINED, ids=lambda p: p.name)
def test_loads_in_ours_and_transformers(directory: Path) -> None:
    ours = AlbertForPreTraining.from_pretrained(directory)
    assert next(ours.parameters()).dtype == torch.float32  # stored fp16, loaded fp32
    tokenizer = load_tokenizer(directory)
    chinese = card_language(directory) == "zh"
    pair = (
        ("今天下了一场大雨。", "路上到处都是积水。")
        if chinese
        else ("the man walked along the river.", "he was tired.")
    )
    encoded = tokenizer(*pair, return_tensors="pt")
    assert tokenizer.unk_token_id not in encoded["input_ids"][0].tolist()
    with torch.no_grad():
        out = ours(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"])
    if ours.config.transformers_compatible:
        import transformers

        if ours.config.sentence_objective == "none":  # MLM only: transformers holds it as a masked LM
            theirs = transformers.AlbertForMaskedLM.from_pretrained(directory).eval()
            with torch.no_grad():
                assert torch.allclose(out.mlm_logits, theirs(**encoded).logits, atol=1e-4)
            assert out.sop_logits is None
            return
        theirs = transformers.AlbertForPreTraining.from_pretrained(directory).eval()
        with torch.no_grad():
            reference = theirs(**encoded)
        assert torch.allclose(out.mlm_logits, reference.prediction_logits, atol=1e-4)
        assert torch.allclose(out.sop_logits, reference.sop_logits, atol=1e-4)
        if chinese:  # issue 16 asks ≤ 1e-5, and transformers' own tokenizer reading the folder as we do
            # fp32 logits near 10 differ by 2e-5 (summation order); the probabilities a user sees by < 1e-6, and
            # in fp64 the two compute the same function to 1e-13
            probabilities = out.mlm_logits.softmax(-1) - reference.prediction_logits.softmax(-1)
            assert probabilities.abs().max() <= 1e-5
            with torch.no_grad():
                mine = ours.double()(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"])
                theirs_out = theirs.double()(**encoded)
            assert (mine.mlm_logits - theirs_out.prediction_logits).abs().max() <= 1e-10
            assert (mine.sop_logits - theirs_out.sop_logits).abs().max() <= 1e-10
            theirs_tokenizer = transformers.AutoTokenizer.from_pretrained(directory)
            assert theirs_tokenizer(*pair)["input_ids"] == encoded["input_ids"][0].tolist()
    else:
        import transformers

        with pytest.raises(Exception, match="transformers' ALBERT cannot represent"):
            transformers.AlbertForPreTraining.from_pretrained(directory)


@pytest.mark.parametrize("sentence,expected", CLOZES)
def test_default_model_fills_simple_blanks(sentence: str, expected: str) -> None:
    directory = ASSETS / "models" / "albert-lab-base"
    model, tokenizer = AlbertForPreTraining.from_pretrained(directory), load_tokenizer(directory)
    encoded = tokenizer(sentence, return_tensors="pt")
    position = encoded["input_ids"][0].tolist().index(tokenizer.mask_token_id)
    with torch.no_grad():
        logits = model(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"]).mlm_logits
    top5 = [tokenizer.convert_ids_to_tokens(i).lstrip("▁") for i in logits[0, position].topk(5).indices.tolist()]
    assert top5[0] == expected, top5


@pytest.mark.parametrize("directory", PRETRAINED, ids=lambda p: p.name)
def test_metrics_file_matches_card_and_config(directory: Path) -> None:
    metrics = json.loads((directory / "metrics.json").read_text())
    card = (directory / "README.md").read_text()
    from scripts.package_model import METRIC_ROWS

    for key, label, _ in METRIC_ROWS:
        if key.endswith("_replication") and f"{key}_accuracy" not in metrics:  # no second draw scored: no row
            assert label not in card
            continue
        row = next(line for line in card.splitlines() if label in line)
        if f"{key}_accuracy" not in metrics:  # an MLM-only model has no sentence head: no figure, said so
            assert key != "mlm" and "no sentence head" in row, row
            continue
        shown, low, high = (float(x) for x in re.findall(r"([\d.]+)%", row)[:3])
        assert shown == pytest.approx(100 * metrics[f"{key}_accuracy"], abs=0.051), (key, row)
        assert [low, high] == pytest.approx([100 * b for b in metrics[f"{key}_ci95"]], abs=0.051), (key, row)
        assert low <= shown <= high and f"{metrics[f'{key}_n']:,}" in row
    assert f"{metrics['tokens']:,}" in card and f"{metrics['parameters']:,}" in card
    config = json.loads((directory / "config.json").read_text())
    assert config["sharing"] == metrics["sharing"] and config["sentence_objective"] == metrics["objective"]
    log = list(csv.DictReader((directory / "training_log.csv").open()))
    assert int(log[-1]["step"]) == metrics["steps"]


def test_recorded_runs_cover_the_ablations() -> None:
    rows = {r["run"]: r for r in csv.DictReader((ASSETS / "runs" / "summary.csv").open())}
    assert EXPECTED_MODELS <= set(rows)
    ablations = [row for name, row in rows.items() if name not in NOT_ARMS]
    assert len({int(r["steps"]) for r in ablations}) == 1  # one budget for every ablation
    for row in ablations:
        assert int(row["tokens"]) >= ABLATION_TOKENS_FLOOR, row["run"]
        if int(row["tokens"]) < ABLATION_TOKENS:  # the schedule kept, the shortfall said
            said = f"{int(row['tokens']):,} tokens"
            assert said in (ASSETS / "models" / row["run"] / "README.md").read_text(), row["run"]
            assert "below the 20M-token budget" in ablation_results(), row["run"]
        if float(row["mlm_accuracy"]) < PLATEAU_LINE:  # the protocol's line: card and results page say so
            said = "below the protocol's 12% line"
            assert said in (ASSETS / "models" / row["run"] / "README.md").read_text(), row["run"]
            assert f"`{row['run']}`" in ablation_results() and said in ablation_results(), row["run"]
        assert float(row["mlm_low"]) <= float(row["mlm_accuracy"]) <= float(row["mlm_high"]), row["run"]
    for name in rows:
        curve = list(csv.DictReader((ASSETS / "runs" / f"{name}.csv").open()))
        assert any(r["split"] == "eval" for r in curve) and any(r["split"] == "train" for r in curve)


def test_the_continued_run_counts_the_tokens_of_the_arm_it_started_from() -> None:
    continued = json.loads((ASSETS / "models" / "albert-lab-e128-continued" / "metrics.json").read_text())
    start = json.loads((ASSETS / "models" / "albert-lab-e128" / "metrics.json").read_text())
    assert continued["init_from"] == "assets/models/albert-lab-e128"
    assert continued["tokens"] == start["tokens"] + continued["run_tokens"] > 55_000_000
    card = (ASSETS / "models" / "albert-lab-e128-continued" / "README.md").read_text()
    assert f"`assets/models/albert-lab-e128` ({start['tokens']:,} tokens before this run)" in card
    curve = list(csv.DictReader((ASSETS / "runs" / "albert-lab-e128-continued.csv").open()))
    assert int(curve[0]["tokens"]) > start["tokens"] and int(curve[-1]["tokens"]) == continued["tokens"]


def test_the_gpu_run_counts_the_tokens_of_the_continued_run_it_started_from() -> None:
    """The H200 runs (docs/usage/gpu.md) continued the former default three times, one run after the other (the first
    lease's, then the second lease's runs A and B): its tokens are that model's 60,237,600 and the three runs', its
    recorded curve starts past that count and ends at its total, and the card names each run."""
    gpu = json.loads((ASSETS / "models" / "albert-lab-e128-gpu" / "metrics.json").read_text())
    start = json.loads((ASSETS / "models" / "albert-lab-e128-continued" / "metrics.json").read_text())
    assert gpu["init_from"] == "assets/models/albert-lab-e128-continued" and start["tokens"] == 60_237_600
    runs = gpu["runs"]
    assert [r["tokens"] for r in runs] == [31_816_443, 140_591_648, 90_317_308]
    assert [(r["steps"], r["batch_size"], r["data_seed"]) for r in runs] == [
        (2205, 256, 3),
        (2436, 1024, 4),
        (1565, 1024, 5),
    ]
    assert gpu["run_tokens"] == sum(r["tokens"] for r in runs) and gpu["steps"] == sum(r["steps"] for r in runs)
    assert gpu["tokens"] == start["tokens"] + gpu["run_tokens"] == 322_962_999
    assert runs[-1]["mlm_accuracy"] == gpu["mlm_accuracy"] and runs[-1]["mlm_ci95"] == gpu["mlm_ci95"]  # run B: shipped
    assert (gpu["sharing"], gpu["objective"], gpu["parameters"]) == (start["sharing"], "sop", start["parameters"])
    card = (ASSETS / "models" / "albert-lab-e128-gpu" / "README.md").read_text()
    assert f"`assets/models/albert-lab-e128-continued` ({start['tokens']:,} tokens before these runs)" in card
    assert f"{start['tokens']:,} before, {gpu['run_tokens']:,} here" in card
    assert all(f"{r['tokens']:,}" in card and f"{r['steps']:,} × " in card for r in runs)
    assert card.count("python -m albert.pretrain \\\n") == len(runs)  # Reproduce: one command a run
    curve = list(csv.DictReader((ASSETS / "runs" / "albert-lab-e128-gpu.csv").open()))
    assert int(curve[0]["tokens"]) > start["tokens"] and int(curve[-1]["tokens"]) == gpu["tokens"]
    # the packaged log counts the three runs' tokens from zero, one run after the other; the recorded curve adds the
    # start's, row for row, and both go on rising across the runs
    log = list(csv.DictReader((ASSETS / "models" / "albert-lab-e128-gpu" / "training_log.csv").open()))
    assert [int(r["tokens"]) + start["tokens"] for r in log] == [int(r["tokens"]) for r in curve]
    tokens, steps = [int(r["tokens"]) for r in log], [int(r["step"]) for r in log]
    assert tokens == sorted(tokens) and steps == sorted(steps) and steps[-1] == gpu["steps"]
    ends = [sum(r["steps"] for r in runs[: i + 1]) for i in range(len(runs))]
    assert [int(r["tokens"]) for r in log if int(r["step"]) in ends and r["split"] == "train"] == [
        sum(r["tokens"] for r in runs[: i + 1]) for i in range(len(runs))
    ]


def test_the_default_model_is_the_one_the_rule_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41's rule (app/models/defaults.py), read here from the shipped files by itself: among the English
    ALBERTs (all shared, SOP) that ran their whole plan, the best held-out masked words; order figures are not read.
    Issue 30's default (not shared, picked by an order interval whose second draw was a coin toss) comes next."""
    from app.models import DEFAULT_MODEL, FORMER_DEFAULT_MODEL, language_models, shipped_models

    candidates = {}
    for folder in sorted((ASSETS / "models").iterdir()):
        metrics_path, card_path = folder / "metrics.json", folder / "README.md"
        if not metrics_path.is_file() or not card_path.is_file():
            continue
        metrics = json.loads(metrics_path.read_text())
        card = card_path.read_text(encoding="utf-8")
        if "language: en" in card and (metrics.get("sharing"), metrics.get("objective")) == ("all", "sop"):
            candidates[folder.name] = metrics["mlm_accuracy"]
    assert DEFAULT_MODEL == max(candidates, key=candidates.get) == "albert-lab-e128-gpu"
    monkeypatch.delenv(settings.MODELS.name, raising=False)  # the shipped models, wherever an earlier test pointed
    assert language_models()["en"] == DEFAULT_MODEL and shipped_models()[:2] == [DEFAULT_MODEL, FORMER_DEFAULT_MODEL]


def test_each_model_is_compared_with_its_like_for_like_sharing_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A not-shared arm is set beside the all-shared arm of its own seed, E and budget; a shared model beside the
    not-shared arm. The default (all shared again since issue 41) is compared with the not-shared arm."""
    from app.models import DEFAULT_MODEL, comparison_model

    monkeypatch.delenv(settings.MODELS.name, raising=False)
    assert comparison_model("albert-lab-none-s1") == "albert-lab-all-s1"
    assert comparison_model("albert-lab-none") == "albert-lab-all"
    assert comparison_model("albert-lab-e128-continued") == comparison_model("albert-lab-all") == "albert-lab-none"
    assert comparison_model("albert-lab-e128-gpu") == "albert-lab-none"
    assert comparison_model() == comparison_model(DEFAULT_MODEL)


def test_every_cards_reproduce_command_parses() -> None:
    """A reader copies the card's command: every `python -m albert.pretrain` block of a shipped card parses into a
    config (an option the command now refuses, such as --vocab-size beside --tokenizer, fails here)."""
    import re
    import shlex

    from albert.cli import parse_config
    from albert.commands.pretrain import PretrainConfig

    commands = [
        (card.parent.name, shlex.split(found.group(1).replace("\\\n", " ")))
        for card in sorted((ASSETS / "models").glob("*/README.md"))
        for found in re.finditer(r"python -m albert\.pretrain \\\n(.*?)(?:\n\n|```)", card.read_text(), re.S)
    ]
    assert len(commands) >= 16
    for name, argv in commands:
        assert parse_config(PretrainConfig, argv).output_dir, name
