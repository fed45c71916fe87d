"""--shared-noise-std: noise in the shared weights only while training, a fresh draw at every pass, clean saved
weights, and an evaluation path bit for bit that of S = 0 (albert.training.shared_noise)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from albert import AlbertForSequenceClassification
from albert.commands.finetune import run as finetune
from albert.training.shared_noise import SharedNoise, perturbed, shared_blocks
from tests.factories import tiny_model
from tests.training.test_finetune import config as finetune_config
from tests.training.test_finetune import toy_pretrained_models, write_sentiment
from tests.training.test_pretrain import config as pretrain_config

NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "classifier_dropout_prob": 0.0}


def _model(**changes: Any) -> AlbertForSequenceClassification:
    return tiny_model(AlbertForSequenceClassification, num_labels=2, **{**NO_DROPOUT, **changes})


def _logits(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    return model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).logits


def test_the_shared_blocks_are_those_several_passes_apply() -> None:
    all_shared = _model(sharing="all")
    assert shared_blocks(all_shared) == [all_shared.albert.attention_blocks[0], all_shared.albert.ffn_blocks[0]]
    attention_shared = _model(sharing="attention")
    assert shared_blocks(attention_shared) == [attention_shared.albert.attention_blocks[0]]
    assert len(shared_blocks(_model(sharing="all", num_hidden_groups=2))) == 4  # 2 groups of 2 passes
    assert shared_blocks(_model(sharing="none")) == []
    assert shared_blocks(_model(sharing="all", num_hidden_groups=4)) == []  # one pass per group: nothing shared


def test_noise_has_the_asked_scale_relative_to_each_tensors_rms() -> None:
    torch.manual_seed(0)
    weight = torch.randn(300, 200) * 0.05
    noise = perturbed(weight, 0.1) - weight
    rms = weight.pow(2).mean().sqrt()
    assert float(noise.std() / rms) == pytest.approx(0.1, rel=0.02)
    assert abs(float(noise.mean() / rms)) < 0.005


def test_noise_only_in_training_mode_and_evaluation_is_bit_identical(batch: dict[str, torch.Tensor]) -> None:
    model = _model(sharing="all")
    model.eval()
    clean = _logits(model, batch)
    with SharedNoise(model, 0.1).active():
        assert torch.equal(_logits(model, batch), clean)  # eval: nothing drawn, the same bits
        model.train()  # dropout is 0 here, so only the noise can change the output
        noisy_once, noisy_twice = _logits(model, batch), _logits(model, batch)
        model.eval()
        assert torch.equal(_logits(model, batch), clean)
    assert not torch.allclose(noisy_once, clean, atol=1e-4)
    assert not torch.allclose(noisy_once, noisy_twice, atol=1e-4)  # a fresh draw per forward
    model.train()
    assert torch.equal(_logits(model, batch), _logits(model, batch))  # hooks gone: training is clean again


def test_each_pass_of_the_shared_layer_sees_its_own_draw(batch: dict[str, torch.Tensor]) -> None:
    model = _model(sharing="all").train()
    query = model.albert.attention_blocks[0].query
    clean = query.weight.detach().clone()
    seen: list[torch.Tensor] = []
    query.register_forward_pre_hook(lambda module, args: seen.append(module.weight.detach().clone()))
    with SharedNoise(model, 0.05).active():
        _logits(model, batch)
    assert len(seen) == model.config.num_hidden_layers == 4
    for i, weight in enumerate(seen):
        relative = float((weight - clean).std() / clean.pow(2).mean().sqrt())
        assert relative == pytest.approx(0.05, rel=0.25), i
        assert all(not torch.equal(weight, other) for other in seen[i + 1 :])
    assert torch.equal(query.weight, clean)  # the parameter itself is back, unchanged


def test_gradients_reach_the_clean_parameters_and_nothing_else_changes(
    batch: dict[str, torch.Tensor], tmp_path: Path
) -> None:
    model = _model(sharing="all").train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    names = [n for n, _ in model.named_parameters()]
    with SharedNoise(model, 0.1).active():
        loss = model(batch["input_ids"], batch["attention_mask"], labels=torch.tensor([0, 1, 1])).loss
        loss.backward()
    assert [n for n, _ in model.named_parameters()] == names
    assert all(isinstance(p, torch.nn.Parameter) for p in model.parameters())
    assert model.albert.ffn_blocks[0].up.weight.grad is not None
    assert float(model.albert.ffn_blocks[0].up.weight.grad.abs().sum()) > 0
    after = model.state_dict()
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)
    model.save_pretrained(tmp_path / "saved")
    loaded = AlbertForSequenceClassification.from_pretrained(tmp_path / "saved")
    assert all(torch.equal(loaded.state_dict()[k], before[k]) for k in before)


def test_std_zero_adds_no_hooks_and_bad_settings_are_refused() -> None:
    model = _model(sharing="all")
    assert SharedNoise(model, 0.0).blocks == []
    with pytest.raises(ValueError, match="shares none"):
        SharedNoise(_model(sharing="none"), 0.1)
    with pytest.raises(ValueError, match="at least 0"):
        SharedNoise(model, -0.1)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shared-noise")
    models = toy_pretrained_models(root, sharings=("all", "none"))
    write_sentiment(root / "train.tsv", 160, seed=0)
    write_sentiment(root / "dev.tsv", 60, seed=1)
    return {"root": root, **models, "train": root / "train.tsv", "dev": root / "dev.tsv"}


def test_finetune_with_noise_differs_in_training_and_evaluates_its_clean_weights(lab: dict[str, Path]) -> None:
    root = lab["root"]
    noisy = finetune(finetune_config(lab, root / "noisy", epochs=1, shared_noise_std=0.1)).summary
    clean = finetune(finetune_config(lab, root / "clean", epochs=1)).summary
    assert noisy["config"]["shared_noise_std"] == 0.1
    losses = [json.loads(line)["loss"] for line in (root / "noisy" / "metrics.jsonl").read_text().splitlines()]
    clean_losses = [json.loads(line)["loss"] for line in (root / "clean" / "metrics.jsonl").read_text().splitlines()]
    assert losses != clean_losses  # the noise changed training
    # The dev row written during the noisy run is exactly what its saved (clean) weights score in evaluation.
    evaluated = finetune(
        finetune_config(lab, root / "eval", eval_only=True, model=str(root / "noisy" / "best"), train_file=None)
    ).summary
    assert evaluated["best"]["accuracy"] == noisy["best"]["accuracy"]
    assert evaluated["best"]["loss"] == pytest.approx(noisy["best"]["loss"], abs=1e-6)
    assert clean["best"]["step"] == noisy["best"]["step"] == 10


def test_finetune_refuses_noise_without_shared_weights_or_with_a_practice(lab: dict[str, Path]) -> None:
    out = lab["root"] / "refused"
    with pytest.raises(ValueError, match="shares none"):
        finetune(finetune_config(lab, out, model=str(lab["none"]), epochs=1, shared_noise_std=0.1))
    assert not (out / "checkpoint").exists() and not (out / "best").exists()
    with pytest.raises(ValueError, match="plain fine-tuning"):
        finetune_config(lab, out, adapter="lora", shared_noise_std=0.1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        finetune_config(lab, out, shared_noise_std=2.0)


def test_pretrain_takes_the_option_and_refuses_it_with_compile(corpus: dict[str, Path], tmp_path: Path) -> None:
    from albert.commands.pretrain import run as pretrain

    cfg = pretrain_config(corpus, tmp_path / "noisy", "--shared-noise-std", "0.05", "--max-steps", "4")
    assert cfg.shared_noise_std == 0.05
    summary = pretrain(cfg).summary
    assert summary["steps"] == 4 and summary["config"]["shared_noise_std"] == 0.05
    compiled = pretrain_config(corpus, tmp_path / "compiled", "--shared-noise-std", "0.05", "--compile")
    with pytest.raises(ValueError, match="torch.compile"):
        pretrain(compiled)
