"""Fine-tuning: learning toy tasks, LLRD, gradual unfreezing, early stopping, resume, checkpoints,
bad files, evaluation with quantization and the SST-2 benchmark — on tiny data made here."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest
import torch

from albert import AlbertForPreTraining, AlbertForSequenceClassification, AlbertForTokenClassification
from albert.commands.finetune import FinetuneConfig, main, run
from albert.data.tasks import DataError, encode, label_vocabulary, read_records
from albert.training.layerwise import freeze_below, layer_decay_scale, parameter_depth, unfrozen_from
from albert.training.optim import OptimizerConfig, build_optimizer
from tests.factories import ROUND_FFN, tiny_model

FILLER = "the a of film story actor scene plot music was is and it very quite".split()
POSITIVE, NEGATIVE = "great wonderful superb lovely".split(), "awful boring terrible dull".split()


def sentence(rng: random.Random, label: int) -> list[str]:
    words = [rng.choice(FILLER) for _ in range(rng.randint(3, 8))]
    words.insert(rng.randint(0, len(words)), rng.choice(POSITIVE if label else NEGATIVE))
    return words


def write_sentiment(path: Path, n: int, seed: int) -> Path:
    """A trivially separable task: the label is whether the sentence holds a positive word."""
    rng = random.Random(seed)
    rows = [(" ".join(sentence(rng, label)), label) for label in (rng.randint(0, 1) for _ in range(n))]
    path.write_text("sentence\tlabel\n" + "".join(f"{s}\t{label}\n" for s, label in rows), encoding="utf-8")
    return path


def toy_pretrained_models(root: Path, sharings: tuple[str, ...] = ("all", "none")) -> dict[str, Path]:
    """A tokenizer trained on toy sentences and a random 'pretrained' model per sharing mode, saved under root."""
    from albert.data.tokenizer import train_tokenizer

    rng = random.Random(7)
    (root / "corpus.txt").write_text("\n".join(" ".join(sentence(rng, i % 2)) for i in range(300)) + "\n")
    tokenizer = train_tokenizer([root / "corpus.txt"], root / "tokenizer", vocab_size=45)
    for sharing in sharings:
        sizes = {"vocab_size": len(tokenizer), "intermediate_size": ROUND_FFN}
        model = tiny_model(AlbertForPreTraining, sharing=sharing, **sizes)
        model.save_pretrained(root / f"pre-{sharing}", tokenizer=tokenizer)
    return {sharing: root / f"pre-{sharing}" for sharing in sharings}


def toy_benchmark_budget(root: Path, model: Path) -> dict[str, Any]:
    """`scripts.finetune_sentiment` settings for a seconds-long run of `model` on a toy GLUE folder under root."""
    glue = root / "glue"
    glue.mkdir()
    write_sentiment(glue / "train.tsv", 32, seed=4)
    write_sentiment(glue / "dev.tsv", 16, seed=5)
    return {
        "model": str(model),
        "glue_dir": str(glue),
        "max_train_examples": 32,
        "max_seq_length": 32,
        "threads": 1,
        "latency_rounds": 1,
        "learning_rate": 5e-3,
    }


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Toy data, a tokenizer trained on it and two random 'pretrained' models (all / none sharing)."""
    root = tmp_path_factory.mktemp("finetune")
    toy_pretrained_models(root)
    write_sentiment(root / "train.tsv", 400, seed=0)
    write_sentiment(root / "dev.tsv", 100, seed=1)
    return {
        "root": root,
        "all": root / "pre-all",
        "none": root / "pre-none",
        "train": root / "train.tsv",
        "dev": root / "dev.tsv",
    }


def config(lab: dict[str, Path], out: Path, **changes: Any) -> FinetuneConfig:
    settings: dict[str, Any] = dict(
        model=str(lab["all"]),
        train_file=str(lab["train"]),
        dev_file=str(lab["dev"]),
        output_dir=str(out),
        max_seq_length=32,
        epochs=3,
        batch_size=16,
        threads=1,
        log_every=5,
        optim=OptimizerConfig(learning_rate=5e-3, warmup_fraction=0.1),
    )
    return FinetuneConfig(**{**settings, **changes})


@pytest.fixture(scope="module")
def sentiment_run(lab: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("sentiment")
    result = run(config(lab, out, label_names=("negative", "positive")))
    return {"out": out, "summary": result.summary}


def test_classification_learns_a_separable_task(sentiment_run: dict[str, Any]) -> None:
    summary = sentiment_run["summary"]
    assert summary["task"] == "classification" and summary["metric"] == "accuracy"
    assert summary["best"]["accuracy"] >= 0.9, summary["history"]
    assert {"f1", "matthews", "loss"} <= set(summary["best"])
    rows = [json.loads(line) for line in (sentiment_run["out"] / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["split"] == "dev"] == [25, 50, 75]  # one evaluation per epoch
    assert (sentiment_run["out"] / "metrics.csv").read_text().startswith("step,epoch,split,loss,accuracy")


def test_best_checkpoint_loads_with_labels_in_ours_and_transformers(sentiment_run: dict[str, Any]) -> None:
    import transformers

    best = sentiment_run["out"] / "best"
    ours = AlbertForSequenceClassification.from_pretrained(best)
    assert ours.config.extra["id2label"] == {"0": "negative", "1": "positive"}
    saved = json.loads((best / "eval_results.json").read_text())
    assert saved["accuracy"] == sentiment_run["summary"]["best"]["accuracy"]
    theirs = transformers.AlbertForSequenceClassification.from_pretrained(best).eval()
    assert theirs.config.id2label == {0: "negative", 1: "positive"}
    tokenizer = transformers.AutoTokenizer.from_pretrained(best)
    batch = tokenizer(["the film was great", "the plot was dull and boring"], padding=True, return_tensors="pt")
    with torch.no_grad():
        expected = ours(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).logits
        got = theirs(**batch).logits
    assert torch.allclose(expected, got, atol=1e-5)
    assert got.argmax(-1).tolist() == [1, 0]


def test_eval_only_with_quantization(
    sentiment_run: dict[str, Any], lab: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    argv = ["--eval-only", "--model", str(sentiment_run["out"] / "best"), "--dev-file", str(lab["dev"])]
    argv += ["--output-dir", str(tmp_path), "--quantize", "--latency-rounds", "2", "--threads", "1"]
    with caplog.at_level(logging.INFO, logger="albert.finetune"):
        main(argv)
    report = [r.getMessage() for r in caplog.records if r.name == "albert.finetune"]  # the final report: logged
    assert any(line.startswith("classification: dev accuracy") for line in report)
    assert any(line.startswith("INT8 dynamic") for line in report) and any("latency, batch 1" in r for r in report)
    summary = json.loads((tmp_path / "eval_results.json").read_text())
    assert summary["best"]["accuracy"] == pytest.approx(sentiment_run["summary"]["best"]["accuracy"])
    quantized = summary["quantized"]
    assert abs(quantized["change"]["accuracy"]) <= 0.05
    assert quantized["quantized_linear_layers"] == 9  # projection, q k v out, up down, pooler, classifier
    assert quantized["int8_bytes"] < quantized["fp32_bytes"]


def test_regression_reports_pearson_and_spearman(lab: dict[str, Path], tmp_path: Path) -> None:
    rng = random.Random(3)
    for name, n in (("train", 64), ("dev", 24)):
        rows = []
        for _ in range(n):
            positives = rng.randint(0, 3)
            words = [rng.choice(POSITIVE) for _ in range(positives)] + [rng.choice(FILLER) for _ in range(4)]
            rows.append(f'{{"text": "{" ".join(words)}", "score": {positives / 2 + 0.25}}}\n')
        (tmp_path / f"{name}.jsonl").write_text("".join(rows))
    summary = run(
        config(
            lab,
            tmp_path / "out",
            train_file=str(tmp_path / "train.jsonl"),
            dev_file=str(tmp_path / "dev.jsonl"),
            epochs=2,
        )
    ).summary
    assert summary["task"] == "regression" and summary["metric"] == "pearson"
    assert {"pearson", "spearman", "mse"} <= set(summary["best"])
    assert -1 <= summary["best"]["pearson"] <= 1 and -1 <= summary["best"]["spearman"] <= 1
    assert AlbertForSequenceClassification.from_pretrained(tmp_path / "out" / "best").config.num_labels == 1


CONLL = """-DOCSTART- O

the O
film O
was O
great B-POS

a O
dull B-NEG
plot O
"""


def test_token_classification_from_conll(lab: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "train.conll").write_text(CONLL * 8)
    (tmp_path / "dev.conll").write_text(CONLL)
    summary = run(
        config(
            lab,
            tmp_path / "out",
            train_file=str(tmp_path / "train.conll"),
            dev_file=str(tmp_path / "dev.conll"),
            epochs=2,
        )
    ).summary
    assert summary["task"] == "token" and summary["label_names"] == ["B-NEG", "B-POS", "O"]
    assert {"accuracy", "f1"} <= set(summary["best"])
    model = AlbertForTokenClassification.from_pretrained(tmp_path / "out" / "best")
    assert model.config.num_labels == 3 and model.config.extra["architectures"] == ["AlbertForTokenClassification"]


def _lr_by_name(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, float]:
    ids = {id(p): name for name, p in model.named_parameters()}
    return {ids[id(p)]: group["lr"] for group in optimizer.param_groups for p in group["params"]}


def test_layerwise_decay_per_pass_without_sharing(make_config) -> None:
    model = AlbertForSequenceClassification(make_config(sharing="none"))
    optimizer = build_optimizer(
        model, OptimizerConfig(learning_rate=1.0), torch.device("cpu"), layer_decay_scale(model.config, 0.5)
    )
    lr = _lr_by_name(model, optimizer)
    assert lr["classifier.weight"] == lr["albert.pooler.weight"] == 1.0
    for block in range(4):  # pass 3 (the top one) learns at 0.5, pass 0 at 0.5**4
        assert lr[f"albert.attention_blocks.{block}.query.weight"] == 0.5 ** (4 - block)
        assert lr[f"albert.ffn_blocks.{block}.norm.bias"] == 0.5 ** (4 - block)
    assert lr["albert.embeddings.word_embeddings.weight"] == lr["albert.projection.weight"] == 0.5**5


def test_layerwise_decay_with_all_sharing_has_three_depths(make_config) -> None:
    model = AlbertForSequenceClassification(make_config(sharing="all"))
    optimizer = build_optimizer(
        model, OptimizerConfig(learning_rate=1.0), torch.device("cpu"), layer_decay_scale(model.config, 0.5)
    )
    assert sorted(set(_lr_by_name(model, optimizer).values())) == [0.25, 0.5, 1.0]
    lr = _lr_by_name(model, optimizer)
    assert lr["albert.embeddings.norm.weight"] == 0.25 and lr["albert.ffn_blocks.0.up.weight"] == 0.5
    assert {g["weight_decay"] for g in optimizer.param_groups} == {0.0, 0.01}


def test_gradual_unfreezing_schedule(make_config) -> None:
    config = make_config(sharing="none")  # depths: 0 embeddings, 1-4 passes, 5 head
    model = AlbertForSequenceClassification(config)
    trainable = []
    for step in (0, 9, 10, 20, 49, 50, 80):
        freeze_below(model, config, unfrozen_from(config, step, every_steps=10))
        trainable.append(sorted({parameter_depth(n, config) for n, p in model.named_parameters() if p.requires_grad}))
    assert trainable == [[5], [5], [4, 5], [3, 4, 5], [1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]]


def test_gradual_unfreezing_keeps_frozen_weights_unchanged(lab: dict[str, Path], tmp_path: Path) -> None:
    # `all` sharing has depths 0 (embeddings), 1 (the shared block), 2 (head); one depth per epoch:
    # in a one-epoch run only the head trains.
    result = run(config(lab, tmp_path, epochs=1, unfreeze_every=1.0, max_train_examples=64))
    start = AlbertForSequenceClassification.from_pretrained(lab["all"]).state_dict()
    for name, tensor in result.model.state_dict().items():
        if name.startswith("albert.") and not name.startswith("albert.pooler"):
            assert torch.equal(tensor, start[name]), name
    assert not torch.equal(result.model.albert.pooler.weight, start["albert.pooler.weight"])


def test_early_stopping_stops_after_patience(lab: dict[str, Path], tmp_path: Path) -> None:
    # a learning rate too small to change the predictions: no evaluation improves on the first
    summary = run(
        config(
            lab,
            tmp_path,
            epochs=5,
            eval_every=3,
            patience=2,
            max_train_examples=64,
            optim=OptimizerConfig(learning_rate=1e-9),
        )
    ).summary
    assert summary["steps"] == 9 and summary["planned_steps"] == 20
    assert summary["stop_reason"].startswith("early stopping") and summary["best"]["step"] == 3


@pytest.mark.slow
def test_resume_continues_exactly(lab: dict[str, Path], tmp_path: Path) -> None:
    # Killed at step 30, before the model has learned the task (dev accuracy 0.51, one class); the
    # resumed half is where it learns it (1.0), so the metrics after the resume differ from those before
    # it and a resume that restarted, skipped or replayed steps would not reproduce them.
    settings = dict(epochs=3, eval_every=15, patience=5)
    straight = run(config(lab, tmp_path / "straight", **settings))
    run(config(lab, tmp_path / "split", stop_after_steps=30, **settings))
    resumed = run(config(lab, tmp_path / "split", resume=True, **settings))
    for (name, a), b in zip(straight.model.state_dict().items(), resumed.model.state_dict().values(), strict=True):
        assert torch.allclose(a, b, atol=1e-6, rtol=0), name
    straight_history, resumed_history = straight.summary["history"], resumed.summary["history"]
    assert [row["step"] for row in resumed_history] == [row["step"] for row in straight_history] == [15, 30, 45, 60, 75]
    for before, after in zip(straight_history, resumed_history, strict=True):
        assert set(before) == set(after), before["step"]
        for key in before.keys() - {"elapsed_seconds", "split"}:
            # float sums in another order after the reload: agree to 1e-6, as the weights do
            assert after[key] == pytest.approx(before[key], rel=0, abs=1e-6), (before["step"], key)
    accuracies = [row["accuracy"] for row in straight_history]
    assert accuracies[1] < 0.6 and accuracies[-1] >= 0.9, accuracies  # it learned after the resume point
    rows = [json.loads(line) for line in (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["split"] == "dev"] == [15, 30, 45, 60, 75]


def test_from_scratch_keeps_architecture_not_weights(lab: dict[str, Path], tmp_path: Path) -> None:
    result = run(config(lab, tmp_path, from_scratch=True, epochs=1, max_train_examples=16))
    pretrained = AlbertForSequenceClassification.from_pretrained(lab["all"])
    assert result.model.config.hidden_size == pretrained.config.hidden_size
    assert not torch.equal(
        result.model.albert.embeddings.word_embeddings.weight, pretrained.albert.embeddings.word_embeddings.weight
    )


def test_none_sharing_checkpoint_loads_in_transformers(lab: dict[str, Path], tmp_path: Path) -> None:
    import transformers

    run(config(lab, tmp_path, model=str(lab["none"]), epochs=1, max_train_examples=32, layer_decay=0.8))
    theirs = transformers.AlbertForSequenceClassification.from_pretrained(tmp_path / "best")
    assert theirs.config.num_hidden_groups == 4


def test_pair_columns_csv_and_glue_names(tmp_path: Path) -> None:
    (tmp_path / "pairs.csv").write_text(
        'id,sentence1,sentence2,label\n1,"A cat, sat.",A dog,entailment\n2,"He said ""hi""",Hello,neutral\n'
    )
    records = read_records(str(tmp_path / "pairs.csv"), "auto")
    assert records[1].text == 'He said "hi"' and records[1].pair == "Hello"
    assert label_vocabulary(records) == ["entailment", "neutral"]
    (tmp_path / "numbers.tsv").write_text("sentence\tlabel\nx\t10\ny\t2\n")
    assert label_vocabulary(read_records(str(tmp_path / "numbers.tsv"), "auto")) == ["2", "10"]


BAD_FILES = [
    ("notext.tsv", "review\tlabel\nfine\t1\n", None, "no text column found among 'review', 'label'"),
    ("nolabel.tsv", "sentence\tgrade\nfine\t1\n", None, "no label column"),
    ("ragged.tsv", "sentence\tlabel\nfine\t1\nbad row\t1\textra\n", None, "line 3: 3 fields"),
    ("empty.tsv", "", None, "is empty"),
    ("header_only.tsv", "sentence\tlabel\n", None, "holds no examples"),
    ("blank_label.tsv", "sentence\tlabel\nfine\t1\nfine\t \n", None, "line 3: the label"),
    ("broken.jsonl", '{"sentence": "ok", "label": 1}\n{"sentence": "no", \n', None, "line 2: not valid JSON"),
    (
        "missing_key.jsonl",
        '{"sentence": "ok", "label": 1}\n{"sentence": "no"}\n',
        None,
        "line 2: the column 'label' is missing",
    ),
    ("ragged.conll", "the O\nfilm O\n\nwas O X\n", None, "line 4: 3 columns"),
    ("tagless.conll", "the O\nfilm\n", None, "line 2: expected a word and a tag"),
    ("asked.tsv", "sentence\tlabel\nfine\t1\n", "review", "no column 'review'"),
]


@pytest.mark.parametrize(("name", "text", "column", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_name_file_and_line(tmp_path: Path, name: str, text: str, column: str | None, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError) as error:
        read_records(str(path), "auto", text_column=column)
    assert str(path) in str(error.value) and message in str(error.value)


def test_unknown_dev_label_names_file_and_line(lab: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "dev.tsv").write_text("sentence\tlabel\na great film\t1\na dull film\t7\n")
    with pytest.raises(SystemExit) as error:
        main(
            [
                "--model",
                str(lab["all"]),
                "--train-file",
                str(lab["train"]),
                "--dev-file",
                str(tmp_path / "dev.tsv"),
                "--output-dir",
                str(tmp_path / "out"),
                "--max-seq-length",
                "32",
            ]
        )
    assert f"{tmp_path / 'dev.tsv'}, line 3: unknown label '7'" in str(error.value)


def test_unknown_conll_tag_and_unsupported_type(tmp_path: Path) -> None:
    (tmp_path / "dev.conll").write_text("the O\nfilm B-ODD\n")
    records = read_records(str(tmp_path / "dev.conll"), "auto")
    with pytest.raises(DataError, match=r"dev\.conll, line 1: unknown label 'B-ODD'"):
        encode(records, _FakeTokenizer(), "token", 16, {"O": 0})
    (tmp_path / "data.xlsx").write_text("x")
    with pytest.raises(DataError, match="unsupported file type '.xlsx'"):
        read_records(str(tmp_path / "data.xlsx"), "auto")


class _FakeTokenizer:
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("labels are checked before tokenization matters")


def test_hf_dataset_without_datasets_is_one_sentence() -> None:
    try:
        import datasets  # noqa: F401

        pytest.skip("datasets is installed")
    except ImportError:
        pass
    with pytest.raises(DataError, match="needs the `datasets` package"):
        read_records("hf:glue:sst2", "auto")


def test_config_errors_are_one_sentence() -> None:
    with pytest.raises(ValueError, match="--train-file is needed"):
        FinetuneConfig(model="x")
    with pytest.raises(ValueError, match="layer_decay must be in"):
        FinetuneConfig(model="x", train_file="t.tsv", layer_decay=1.5)
    with pytest.raises(ValueError, match="does not apply to regression"):
        FinetuneConfig(model="x", train_file="t.tsv", task="regression", metric="accuracy")


def test_sst2_benchmark_end_to_end(lab: dict[str, Path], tmp_path: Path) -> None:
    from scripts.finetune_sentiment import format_report
    from scripts.finetune_sentiment import main as benchmark_main

    glue = tmp_path / "glue"
    glue.mkdir()
    write_sentiment(glue / "train.tsv", 64, seed=4)
    write_sentiment(glue / "dev.tsv", 24, seed=5)
    assert (
        benchmark_main(
            [
                "--model",
                str(lab["all"]),
                "--glue-dir",
                str(glue),
                "--output-dir",
                str(tmp_path / "out"),
                "--max-train-examples",
                "48",
                "--max-seq-length",
                "32",
                "--threads",
                "1",
                "--latency-rounds",
                "2",
                "--learning-rate",
                "5e-3",
            ]
        )
        == 0
    )
    results = json.loads((tmp_path / "out" / "sst2_results.json").read_text())
    assert results["pretrained"]["train_examples"] == results["from_scratch"]["train_examples"] == 48
    assert results["pretrained"]["dev_examples"] == 24
    assert {"accuracy", "accuracy_change", "fp32_bytes", "int8_bytes", "latency_batch_1"} <= set(results["quantized"])
    assert results["pretraining_gain_points"] == pytest.approx(
        100 * (results["pretrained"]["accuracy"] - results["from_scratch"]["accuracy"])
    )
    assert "from scratch" in format_report(results)
    best = AlbertForSequenceClassification.from_pretrained(results["fine_tuned_model"])
    assert best.config.extra["id2label"] == {"0": "negative", "1": "positive"}


def test_sst2_benchmark_runs_one_arm_and_the_arms_join_by_seed(lab: dict[str, Path], tmp_path: Path) -> None:
    from scripts.finetune_sentiment import SST2Config, format_report, run_benchmark
    from scripts.ship_sentiment_model import joined_runs

    budget = {**toy_benchmark_budget(tmp_path, lab["all"]), "scratch_learning_rate": 1e-3}
    scratch = run_benchmark(SST2Config(**budget, output_dir=str(tmp_path / "scratch"), skip_pretrained=True))
    assert "pretrained" not in scratch and "quantized" not in scratch and "pretraining_gain_points" not in scratch
    assert scratch["from_scratch"]["train_examples"] == 32
    report = format_report(scratch)
    assert "from scratch" in report and "INT8" not in report and "pretrained" not in report
    run_benchmark(SST2Config(**budget, output_dir=str(tmp_path / "pretrained"), skip_scratch=True))
    (joined,) = joined_runs([tmp_path / "pretrained"], [tmp_path / "scratch"])
    assert joined["pretraining_gain_points"] == pytest.approx(
        100 * (joined["pretrained"]["accuracy"] - scratch["from_scratch"]["accuracy"])
    )
    with pytest.raises(ValueError, match="leave nothing to run"):
        SST2Config(**budget, skip_scratch=True, skip_pretrained=True)


def test_metrics_and_best_selection() -> None:
    import math

    import numpy as np

    from albert.training.finetune_evaluation import is_better, task_metrics

    scores = task_metrics("classification", np.array([1, 0, 1, 1]), np.array([1, 0, 0, 1]), ["neg", "pos"])
    assert scores["accuracy"] == 0.75 and scores["f1"] == pytest.approx(0.8)
    assert scores["matthews"] == pytest.approx(0.5773502691896258)
    scores = task_metrics("regression", np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]))
    assert scores["spearman"] == pytest.approx(1.0) and 0.98 < scores["pearson"] < 1.0
    assert math.isnan(task_metrics("regression", np.ones(3), np.array([1.0, 2.0, 3.0]))["pearson"])
    tokens = task_metrics("token", np.array([0, 1, 2, 2]), np.array([0, 1, 2, 1]), ["B-X", "B-Y", "O"])
    assert tokens["accuracy"] == 0.75 and tokens["f1"] == pytest.approx(0.8)  # O is left out of F1
    assert is_better(math.nan, None, "pearson") and not is_better(math.nan, 0.1, "pearson")
    assert is_better(0.1, math.nan, "pearson") and is_better(0.1, 0.2, "mse") and not is_better(0.1, 0.2, "accuracy")
