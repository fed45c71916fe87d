"""experiments/score_models.py: held-out order pairs, the measures in each model's own format, card checks."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

from albert.training.pretraining_evaluation import held_out_pairs
from experiments.score_models import main
from tests.app.support import tiny_assets

BOOK = (
    'The ship left at dawn. Nobody waved. "Where to?" asked the boy.\n'
    "The captain did not answer. He looked at the sea! Then he went below.\n"
)


def test_held_out_pairs_are_whole_consecutive_sentences_of_the_book(tmp_path: Path) -> None:
    from albert.data.tokenizer import load_tokenizer

    path = tmp_path / "valid.txt.xz"
    with lzma.open(path, "wt", encoding="utf-8") as f:
        f.write("\n\n".join([BOOK] * 40))
    tokenizer = load_tokenizer(tiny_assets().tokenizer)
    pairs = held_out_pairs([str(path)], tokenizer, max_tokens=40, count=60, seed=3)
    assert len(pairs) == 60
    text = BOOK.replace("\n", " ")
    for pair in pairs:
        assert f"{pair.first} {pair.second}" in text  # consecutive, in this order, in the book
        for segment in (pair.first, pair.second):
            assert len(tokenizer(segment, add_special_tokens=False)["input_ids"]) <= 20


def test_scores_a_model_and_checks_its_card(tmp_path: Path) -> None:
    model = tiny_assets().models / "albert-lab-base"
    valid = tmp_path / "valid.txt"
    valid.write_text("\n\n".join([BOOK] * 30), encoding="utf-8")
    out = tmp_path / "scores.json"
    args = [
        "--valid-corpus",
        str(valid),
        "--examples",
        "40",
        "--pairs",
        "30",
        "--max-tokens",
        "40",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--output",
        str(out),
    ]
    assert main([str(model), *args]) == 0
    scores = json.loads(out.read_text())["albert-lab-base"]
    assert set(scores) == {"mlm", "order", "topic"} and scores["order"]["n"] == scores["topic"]["n"] == 30
    assert scores["mlm"]["ci95"][0] <= scores["mlm"]["rate"] <= scores["mlm"]["ci95"][1]
    card = tmp_path / "card"
    card.mkdir()
    for f in model.iterdir():
        (card / f.name).write_bytes(f.read_bytes())
    (card / "metrics.json").write_text(json.dumps({"mlm_accuracy": scores["mlm"]["rate"] + 0.2}))
    assert main([str(card), *args, "--check-cards"]) == 1  # the card overstates MLM by 20 points
    recorded = {f"{name}_accuracy": score["rate"] for name, score in scores.items()}
    (card / "metrics.json").write_text(json.dumps(recorded))
    assert main([str(card), *args, "--check-cards"]) == 0
    (card / "metrics.json").write_text(json.dumps({"mlm_accuracy": scores["mlm"]["rate"]}))
    assert main([str(card), *args, "--check-cards"]) == 1  # a card without the order figure is stale


def test_an_attention_shared_model_is_scored_on_the_order_pairs(tmp_path: Path) -> None:
    """transformers cannot hold attention-only sharing (an arm of Table 4); ALBERT Lab's model scores it."""
    import dataclasses

    from albert import AlbertForPreTraining
    from albert.data.tokenizer import load_tokenizer

    base = tiny_assets().models / "albert-lab-base"
    shipped = AlbertForPreTraining.from_pretrained(base)
    folder = tmp_path / "albert-lab-attention"
    config = dataclasses.replace(shipped.config, sharing="attention")
    AlbertForPreTraining(config).save_pretrained(folder, tokenizer=load_tokenizer(base))
    valid = tmp_path / "valid.txt"
    valid.write_text("\n\n".join([BOOK] * 30), encoding="utf-8")
    out = tmp_path / "scores.json"
    args = ["--valid-corpus", str(valid), "--examples", "40", "--pairs", "30", "--max-tokens", "40"]
    assert main([str(folder), *args, "--cache-dir", str(tmp_path / "cache"), "--output", str(out)]) == 0
    scores = json.loads(out.read_text())["albert-lab-attention"]
    assert set(scores) == {"mlm", "order", "topic"} and scores["order"]["n"] == 30


def test_an_mlm_only_model_is_scored_on_one_segment_its_own_format(tmp_path: Path, monkeypatch) -> None:
    """Table 5's "None" arm never saw segment-1 ids: its MLM is measured on "[CLS] text [SEP]", and it has no
    sentence head, so no order figure."""
    import dataclasses

    import albert.training.pretraining_evaluation as pretraining  # where score_mlm looks make_eval_batches up
    from albert import AlbertForPreTraining
    from albert.data.tokenizer import load_tokenizer

    base = tiny_assets().models / "albert-lab-base"
    folder = tmp_path / "albert-lab-mlm"
    config = dataclasses.replace(AlbertForPreTraining.from_pretrained(base).config, sentence_objective="none")
    AlbertForPreTraining(config).save_pretrained(folder, tokenizer=load_tokenizer(base))
    seen = []
    original = pretraining.make_eval_batches

    def recording(corpus, data_config, *args, **kwargs):
        batches = original(corpus, data_config, *args, **kwargs)
        seen.append((data_config.objective, max(int(b["token_type_ids"].max()) for b in batches)))
        return batches

    monkeypatch.setattr(pretraining, "make_eval_batches", recording)
    valid = tmp_path / "valid.txt"
    valid.write_text("\n\n".join([BOOK] * 30), encoding="utf-8")
    out = tmp_path / "scores.json"
    args = ["--valid-corpus", str(valid), "--examples", "40", "--pairs", "30", "--cache-dir", str(tmp_path / "c")]
    assert main([str(folder), *args, "--output", str(out)]) == 0
    assert set(json.loads(out.read_text())["albert-lab-mlm"]) == {"mlm"}
    assert seen == [("none", 0)]  # one segment: every token type 0
