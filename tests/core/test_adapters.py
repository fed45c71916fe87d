"""LoRA adapters (albert.adapters, `albert.finetune --adapter lora`): train → save → load → predict on tiny models,
per-pass adapters on a shared layer, merging, and the same adapter loaded by peft on transformers' ALBERT."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from albert import AlbertForSequenceClassification
from albert.commands.finetune import FinetuneConfig, run
from albert.core.adapters import LoraSettings, add_lora, count_trainable, load_adapter, merge_lora, save_adapter
from albert.core.checkpoint import CheckpointError
from albert.training.optim import OptimizerConfig
from tests.training.test_finetune import toy_pretrained_models, write_sentiment


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("adapters")
    paths = toy_pretrained_models(root)
    write_sentiment(root / "train.tsv", 320, seed=0)
    write_sentiment(root / "dev.tsv", 100, seed=1)
    return {**paths, "train": root / "train.tsv", "dev": root / "dev.tsv", "root": root}


def _ids() -> torch.Tensor:
    return torch.randint(5, 40, (3, 9), generator=torch.Generator().manual_seed(3))


def _lora_model(base: Path, per_pass: bool, rank: int = 2) -> torch.nn.Module:
    torch.manual_seed(0)
    model = add_lora(
        AlbertForSequenceClassification.from_pretrained(base, num_labels=2), LoraSettings(rank, per_pass=per_pass)
    )
    with torch.no_grad():  # B starts at zero; give it values so that the adapter changes the function
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0, 0.2, generator=torch.Generator().manual_seed(len(name)))
    return model.eval()


def test_shared_adapter_serves_every_pass_and_per_pass_adds_one_per_pass(lab: dict[str, Path]) -> None:
    shared, per_pass = _lora_model(lab["all"], False), _lora_model(lab["all"], True)
    # rank 2 on query/key/value/output (32→32) and up/down (32↔64): 2·(4·64 + 2·96) = 896 per layer, + head 66
    assert count_trainable(shared) == 896 + 66
    assert count_trainable(per_pass) == 4 * 896 + 66  # 4 passes, one delta each, same frozen weights
    frozen = {id(p) for p in per_pass.parameters() if not p.requires_grad}
    assert len(frozen) == len({id(p) for p in shared.parameters() if not p.requires_grad})  # weights tied, not copied
    x = _ids()
    assert not torch.allclose(shared(x).logits, per_pass(x).logits)


@pytest.mark.parametrize("sharing,per_pass", [("all", False), ("all", True), ("none", False)])
def test_adapter_saves_alone_loads_and_merges_to_the_same_function(
    lab: dict[str, Path], tmp_path: Path, sharing: str, per_pass: bool
) -> None:
    model, x = _lora_model(lab[sharing], per_pass), _ids()
    expected = model(x).logits
    save_adapter(model, tmp_path / "adapter", lab[sharing])
    card = json.loads((tmp_path / "adapter" / "albert_adapter.json").read_text())
    assert card["base_model"] == str(lab[sharing]) and card["settings"]["per_pass"] is per_pass
    from safetensors.torch import load_file

    saved = load_file(str(tmp_path / "adapter" / "adapter_model.safetensors"))  # the adapter alone, not the model
    assert saved and all("lora_" in key or key.startswith("classifier.") for key in saved)
    assert sum(t.numel() for t in saved.values()) == count_trainable(model)
    loaded = load_adapter(tmp_path / "adapter")
    torch.testing.assert_close(loaded(x).logits, expected)
    merged = merge_lora(loaded)
    assert not any("lora" in name for name in merged.state_dict())
    torch.testing.assert_close(merged(x).logits, expected, atol=1e-5, rtol=1e-5)
    assert merged.config.sharing == ("none" if per_pass else sharing)  # per-pass merging un-shares the passes
    merged.save_pretrained(tmp_path / "merged")
    again = AlbertForSequenceClassification.from_pretrained(tmp_path / "merged").eval()
    torch.testing.assert_close(again(x).logits, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("sharing", ["all", "none"])
def test_adapter_loads_with_peft_on_transformers_albert(lab: dict[str, Path], tmp_path: Path, sharing: str) -> None:
    import transformers
    from peft import PeftModel

    model, x = _lora_model(lab[sharing], False), _ids()
    save_adapter(model, tmp_path / "adapter", lab[sharing])
    hf_base = transformers.AlbertForSequenceClassification.from_pretrained(lab[sharing], num_labels=2)
    hf = PeftModel.from_pretrained(hf_base, tmp_path / "adapter" / "transformers").eval()
    torch.testing.assert_close(hf(input_ids=x).logits, model(x).logits, atol=1e-5, rtol=1e-5)


def test_adapter_refuses_a_different_base(lab: dict[str, Path], tmp_path: Path) -> None:
    save_adapter(_lora_model(lab["all"], False), tmp_path / "adapter", lab["all"])
    with pytest.raises(CheckpointError, match="not the base model this adapter was trained on"):
        load_adapter(tmp_path / "adapter", base=lab["none"])
    with pytest.raises(CheckpointError, match="not a LoRA adapter folder"):
        load_adapter(tmp_path)


def _flipped(source: Path, target: Path) -> Path:
    lines = source.read_text().splitlines()
    target.write_text(
        "\n".join([lines[0], *(f"{t}\t{1 - int(y)}" for t, y in (r.split("\t") for r in lines[1:]))]) + "\n"
    )
    return target


def test_finetune_cli_trains_lora_end_to_end(lab: dict[str, Path], tmp_path: Path) -> None:
    """A toy base with random weights gives LoRA nothing to adapt; so the base here is a fully fine-tuned toy
    sentiment model, and the adapter has to learn the opposite labels."""
    common = dict(max_seq_length=32, batch_size=16, threads=1, label_names=("negative", "positive"))
    run(
        FinetuneConfig(
            model=str(lab["all"]),
            train_file=str(lab["train"]),
            dev_file=str(lab["dev"]),
            output_dir=str(tmp_path / "tuned"),
            epochs=3,
            optim=OptimizerConfig(learning_rate=5e-3, warmup_fraction=0.1),
            **common,
        )
    )
    cfg = FinetuneConfig(
        model=str(tmp_path / "tuned" / "best"),
        train_file=str(_flipped(lab["train"], tmp_path / "train.tsv")),
        dev_file=str(_flipped(lab["dev"], tmp_path / "dev.tsv")),
        output_dir=str(tmp_path / "out"),
        epochs=3,
        adapter="lora",
        lora_rank=4,
        lora_per_pass=True,
        optim=OptimizerConfig(learning_rate=1e-2, warmup_fraction=0.1),
        **common,
    )
    summary = run(cfg).summary
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["trainable_parameters"] == 4 * 4 * 448 + 66 and results["steps"] == 60
    assert results["dev"]["n"] == 100 and results["dev"]["hits"] == round(100 * results["dev"]["accuracy"])
    assert summary["best"]["accuracy"] >= 0.9  # the flipped labels, learnt
    loaded = load_adapter(tmp_path / "out" / "adapter")
    assert all(p.abs().sum() > 0 for n, p in loaded.named_parameters() if "lora_B" in n)  # every delta trained
    merged = AlbertForSequenceClassification.from_pretrained(tmp_path / "out" / "merged")
    assert merged.config.extra["id2label"] == {"0": "negative", "1": "positive"}
    x = _ids()
    torch.testing.assert_close(loaded(x).logits, merged.eval()(x).logits, atol=1e-5, rtol=1e-5)


def test_lora_options_are_checked() -> None:
    with pytest.raises(ValueError, match="rank must be at least 1"):
        LoraSettings(rank=0)
    with pytest.raises(ValueError, match="LoRA targets must be some of"):
        LoraSettings(targets=("pooler",))
    with pytest.raises(ValueError, match="cannot be combined"):
        FinetuneConfig(model="m", train_file="t", adapter="lora", teacher="x")


SHIPPED = sorted(p.parent for p in (Path(__file__).parents[2] / "assets" / "models").glob("*/albert_adapter.json"))


@pytest.mark.parametrize("directory", SHIPPED, ids=lambda p: p.name)
def test_shipped_adapters_load_on_their_base_and_in_peft(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers
    from peft import PeftModel

    from albert.data.tokenizer import load_tokenizer

    monkeypatch.chdir(directory.parents[2])  # the base pointer is relative to the repository root
    card = json.loads((directory / "albert_adapter.json").read_text())
    model = load_adapter(directory)
    assert count_trainable(model) == card["trainable_parameters"]
    assert (directory / "adapter_model.safetensors").stat().st_size < 1_000_000  # the adapter, not a model
    tokenizer = load_tokenizer(card["base_model"])
    text = "质量很好，物流也快" if "zh" in directory.name else "a gripping , funny film"
    encoded = tokenizer([text], return_tensors="pt")
    with torch.no_grad():
        ours = model(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"]).logits
        merged = merge_lora(model)(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"]).logits
    torch.testing.assert_close(merged, ours, atol=1e-5, rtol=1e-5)
    if (directory / "transformers").is_dir():
        base = transformers.AlbertForSequenceClassification.from_pretrained(card["base_model"], num_labels=2)
        hf = PeftModel.from_pretrained(base, directory / "transformers").eval()
        with torch.no_grad():
            torch.testing.assert_close(hf(**encoded).logits, ours, atol=1e-5, rtol=1e-5)
