"""Distillation (`albert.finetune --teacher`): the loss, the student's shape, and train → save → load → predict,
then INT8 on top, on tiny models."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from albert import AlbertForSequenceClassification
from albert.commands.distill import distillation_loss
from albert.commands.finetune import FinetuneConfig, run
from albert.core.config import ConfigError
from albert.core.quantize import model_size_bytes, quantize_model
from albert.core.student import kept_layers, make_student
from albert.training.optim import OptimizerConfig
from tests.training.test_finetune import toy_pretrained_models, write_sentiment


def test_loss_is_the_stated_mix() -> None:
    student, teacher = torch.randn(5, 2, generator=torch.Generator().manual_seed(0)), torch.randn(5, 2)
    labels = torch.tensor([0, 1, 1, 0, 1])
    torch.testing.assert_close(distillation_loss(student, teacher, labels, 2.0, 1.0), F.cross_entropy(student, labels))
    kl = F.kl_div(F.log_softmax(student / 3, -1), F.softmax(teacher / 3, -1), reduction="batchmean")
    torch.testing.assert_close(distillation_loss(student, teacher, labels, 3.0, 0.0), 9 * kl)
    assert float(distillation_loss(teacher, teacher, labels, 2.0, 0.0)) == pytest.approx(0.0, abs=1e-6)


def test_student_keeps_every_other_layer_or_reruns_the_shared_one(make_config) -> None:
    assert kept_layers(6, 3) == [0, 2, 4] and kept_layers(4, 2) == [0, 2]
    none = AlbertForSequenceClassification(make_config(sharing="none", num_labels=2)).eval()
    student = make_student(none, 2)
    assert student.config.num_hidden_layers == 2 and len(student.albert.attention_blocks) == 2
    torch.testing.assert_close(
        student.albert.attention_blocks[1].query.weight, none.albert.attention_blocks[2].query.weight
    )
    shared = AlbertForSequenceClassification(make_config(sharing="all", num_labels=2)).eval()
    rerun = make_student(shared, 2)
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(rerun) == count(shared) and count(student) < count(none)  # sharing: same size, fewer passes
    with pytest.raises(ConfigError, match="fewer passes"):
        make_student(shared, 4)


@pytest.mark.slow
@pytest.mark.parametrize("sharing", ["none", "all"])
def test_distilled_student_trains_saves_loads_and_quantizes(tmp_path: Path, sharing: str) -> None:
    base = toy_pretrained_models(tmp_path, (sharing,))[sharing]
    train, dev = (
        write_sentiment(tmp_path / "train.tsv", 320, seed=0),
        write_sentiment(tmp_path / "dev.tsv", 100, seed=1),
    )
    common = dict(
        model=str(base), train_file=str(train), dev_file=str(dev), max_seq_length=32, batch_size=16, threads=1,
        optim=OptimizerConfig(learning_rate=5e-3, warmup_fraction=0.1), label_names=("negative", "positive"),
    )  # fmt: skip
    teacher = run(FinetuneConfig(output_dir=str(tmp_path / "teacher"), epochs=6, **common)).summary
    summary = run(
        FinetuneConfig(
            output_dir=str(tmp_path / "student"),
            epochs=5,
            teacher=str(tmp_path / "teacher" / "best"),
            student_passes=2,
            distill_temperature=2.0,
            distill_alpha=0.5,
            **common,
        )
    ).summary
    results = json.loads((tmp_path / "student" / "results.json").read_text())
    assert results["student_passes"] == 2 and results["teacher_passes"] == 4 and results["temperature"] == 2.0
    if sharing == "none":
        assert results["student_parameters"] < results["teacher_parameters"]
    else:
        assert results["student_parameters"] == results["teacher_parameters"]
    assert summary["dev"]["accuracy"] >= 0.8
    assert summary["teacher_dev"]["accuracy"] == pytest.approx(teacher["best"]["accuracy"])  # the same teacher
    student = AlbertForSequenceClassification.from_pretrained(tmp_path / "student" / "best").eval()
    assert student.config.num_hidden_layers == 2 and student.config.extra["id2label"]["1"] == "positive"
    ids = torch.randint(5, 40, (2, 7))
    int8 = quantize_model(student)
    assert torch.allclose(int8(ids).logits, student(ids).logits, atol=0.1)
    assert model_size_bytes(int8) < model_size_bytes(student)
    assert math.isfinite(results["step_seconds"])


def test_distillation_refuses_a_token_teacher(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot be combined"):
        FinetuneConfig(model="m", train_file="t", teacher="x", multitask=("a=b,c",))
