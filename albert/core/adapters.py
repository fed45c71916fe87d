"""LoRA adapters for ALBERT Lab's task models, through Hugging Face `peft`.

    model = AlbertForSequenceClassification.from_pretrained(base, num_labels=2)
    model = add_lora(model, LoraSettings(rank=4))        # base frozen; adapters + classifier train
    ...train...
    save_adapter(model, "runs/lora/adapter", base)       # adapter weights + config, a pointer to the base
    model = load_adapter("runs/lora/adapter")            # base + adapter again
    merged = merge_lora(model)                           # a plain model for inference (no peft inside)

Our model is plain torch, so LoRA goes in with peft's low-level `inject_adapter_in_model`, targeting the
encoder's Linear layers by name (`query key value output up down`). With cross-layer sharing (`all`) the one
shared layer is one set of modules, so one adapter serves every pass, as the weights do.

**Per-pass adapters** (`per_pass=True`) give every pass its own low-rank delta on the *same* frozen shared
weights. peft wraps modules, not calls of a module, so it cannot express this directly. `untie_passes` builds
the equivalent model peft can wrap: L distinct layer modules (sharing `none` in the config) whose weights are
the very same `Parameter` objects as the shared layer (tied, not copied: memory and the frozen base do not
grow). peft then wraps each pass's modules with its own adapter, the standard way. Merging per-pass adapters
needs the passes' weights to differ, so `merge_lora` un-ties them first: a merged per-pass model is a `none`
model, L times the shared layer's size. Kept unmerged, inference costs the shared base plus the small deltas.

Where transformers can represent the model (sharing `all` with groups, or `none`) and the adapter is not per-pass,
`save_adapter` also writes `transformers/`: the same adapter in peft's own format with transformers' module
names, which `peft.PeftModel.from_pretrained(transformers.AlbertForSequenceClassification..., dir)` loads.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from albert.core.checkpoint import CheckpointError, load_config, resolve_directory
from albert.core.config import ConfigError
from albert.core.heads import AlbertForSequenceClassification, AlbertForTokenClassification
from albert.core.model import FeedForward, SelfAttention

logger = logging.getLogger(__name__)
ADAPTER_WEIGHTS = "adapter_model.safetensors"
ADAPTER_CONFIG = "adapter_config.json"
ALBERT_ADAPTER = "albert_adapter.json"
TARGETS = {
    "query": "attention",
    "key": "attention",
    "value": "attention",
    "output": "attention",
    "up": "ffn",
    "down": "ffn",
}
"""The Linear layers LoRA may target, and the block each belongs to."""
_HF_NAMES = {"query": "query", "key": "key", "value": "value", "output": "dense", "up": "ffn", "down": "ffn_output"}
"""transformers' ALBERT names of the same Linear layers (`albert.core.hf.KEY_MAP`)."""


@dataclass(frozen=True)
class LoraSettings:
    """A LoRA adapter's shape: W x + (alpha / rank) · B A x on each targeted Linear, B starting at zero."""

    rank: int = 8
    """r, the rank of each low-rank update."""
    alpha: float | None = None
    """Scaling numerator; the update is scaled by alpha / rank (default: 2 × rank)."""
    dropout: float = 0.0
    """Dropout on the adapter's input while training."""
    targets: tuple[str, ...] = ("query", "key", "value", "output", "up", "down")
    """Linear layers to adapt: query, key, value, output (attention) and up, down (feed-forward)."""
    per_pass: bool = False
    """One adapter per pass of a shared layer (see the module docstring) instead of one per layer."""

    def __post_init__(self) -> None:
        if self.rank < 1:
            raise ValueError(f"the LoRA rank must be at least 1, got {self.rank}.")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"the LoRA dropout must be in [0, 1), got {self.dropout}.")
        unknown = [t for t in self.targets if t not in TARGETS]
        if unknown or not self.targets:
            raise ValueError(f"LoRA targets must be some of {', '.join(TARGETS)}; got {', '.join(self.targets)}.")

    @property
    def scale_alpha(self) -> float:
        return float(self.alpha) if self.alpha is not None else 2.0 * self.rank


def _target_regex(targets: tuple[str, ...], hf: bool = False) -> str:
    attention = [t for t in targets if TARGETS[t] == "attention"]
    ffn = [t for t in targets if TARGETS[t] == "ffn"]
    if hf:
        names = "|".join(sorted({_HF_NAMES[t] for t in targets}))
        return rf"albert\.encoder\.albert_layer_groups\.\d+\.albert_layers\.\d+\.(attention\.)?({names})"
    parts = []
    if attention:
        parts.append(rf"attention_blocks\.\d+\.({'|'.join(attention)})")
    if ffn:
        parts.append(rf"ffn_blocks\.\d+\.({'|'.join(ffn)})")
    return rf"albert\.({'|'.join(parts)})"


def _tie(new: nn.Module, source: nn.Module) -> None:
    """Make every parameter of `new` the same Parameter object as `source`'s (same structure)."""
    for name, parameter in source.named_parameters():
        owner, _, leaf = name.rpartition(".")
        setattr(new.get_submodule(owner) if owner else new, leaf, parameter)


def untie_passes(model: nn.Module) -> nn.Module:
    """`model` with one module per pass whose weights are the shared layer's own Parameters (in place).

    The function is unchanged (same weights at every pass); only peft can now tell the passes apart.
    A model that shares nothing is returned as it is; `attention`/`ffn` sharing is refused."""
    config = model.config
    if config.sharing == "none":
        return model
    if config.sharing != "all":
        raise ConfigError(f"per-pass adapters need sharing 'all' or 'none', not {config.sharing!r}.")
    encoder = model.albert
    passes = encoder.passes()
    untied = config.replace(sharing="none", num_hidden_groups=config.num_hidden_layers)
    attention_blocks, ffn_blocks = nn.ModuleList(), nn.ModuleList()
    for attention, ffn in passes:
        new_attention, new_ffn = SelfAttention(untied), FeedForward(untied)
        _tie(new_attention, attention)
        _tie(new_ffn, ffn)
        attention_blocks.append(new_attention)
        ffn_blocks.append(new_ffn)
    encoder.attention_blocks, encoder.ffn_blocks = attention_blocks, ffn_blocks
    encoder.config = model.config = untied
    model.shared_config = config  # what the base model really is (for saving and describing)
    return model


def add_lora(model: nn.Module, settings: LoraSettings) -> nn.Module:
    """Inject LoRA adapters (peft) into `model` in place; freeze everything but the adapters and the classifier."""
    from peft import LoraConfig, inject_adapter_in_model

    if settings.per_pass:
        untie_passes(model)
    lora = LoraConfig(
        r=settings.rank,
        lora_alpha=settings.scale_alpha,
        lora_dropout=settings.dropout,
        target_modules=_target_regex(settings.targets),
    )
    model = inject_adapter_in_model(lora, model)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = "lora_" in name or name.startswith("classifier.")
    model.lora_settings = settings
    logger.info(
        "LoRA rank %d on %s%s: %s of %s parameters train",
        settings.rank,
        ", ".join(settings.targets),
        " (one adapter per pass)" if settings.per_pass else "",
        f"{count_trainable(model):,}",
        f"{sum(p.numel() for p in model.parameters()):,}",
    )
    return model


def count_trainable(model: nn.Module) -> int:
    """Parameters that receive gradients (each shared Parameter counted once)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def adapter_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The adapter's own tensors (LoRA matrices and the classifier), by `model.state_dict()` names."""
    return {
        k: v.detach().cpu().contiguous()
        for k, v in model.state_dict().items()
        if "lora_" in k or k.startswith("classifier.")
    }


def _weights_digest(directory: Path) -> str:
    from albert.core.checkpoint import read_state_dict

    state, _ = read_state_dict(directory)
    digest = hashlib.sha256()
    for key in sorted(state):
        if not key.startswith(("classifier.", "sop_classifier", "predictions.", "sentence_pair_head", "mlm_head")):
            digest.update(key.encode())
            digest.update(state[key].float().numpy().tobytes())
    return digest.hexdigest()


def save_adapter(
    model: nn.Module, directory: str | Path, base: str | Path, extra: dict[str, Any] | None = None
) -> Path:
    """Write the adapter alone: weights, peft config, and a pointer to (and digest of) its base model."""
    from safetensors.torch import save_file

    from albert.io import atomic_write

    directory, base_dir = Path(directory), resolve_directory(base)
    directory.mkdir(parents=True, exist_ok=True)
    settings: LoraSettings = model.lora_settings
    config = getattr(model, "shared_config", model.config)
    atomic_write(directory / ADAPTER_WEIGHTS, lambda temp: save_file(adapter_state(model), str(temp)))
    peft_config = {
        "peft_type": "LORA",
        "r": settings.rank,
        "lora_alpha": settings.scale_alpha,
        "lora_dropout": settings.dropout,
        "target_modules": _target_regex(settings.targets),
        "base_model_name_or_path": str(base),
    }
    (directory / ADAPTER_CONFIG).write_text(json.dumps(peft_config, indent=2) + "\n")
    card = {
        "base_model": str(base),
        "base_weights_sha256": _weights_digest(base_dir),
        "settings": asdict(settings),
        "architecture": type(model).__name__,
        "num_labels": model.config.num_labels,
        "id2label": model.config.extra.get("id2label", {}),
        "label2id": model.config.extra.get("label2id", {}),
        "problem_type": model.config.extra.get("problem_type"),
        "trainable_parameters": count_trainable(model),
        **(extra or {}),
    }
    (directory / ALBERT_ADAPTER).write_text(json.dumps(card, indent=2) + "\n")
    untied = settings.per_pass and config.sharing != "none"
    if config.transformers_compatible and not untied and type(model) is AlbertForSequenceClassification:
        export_for_transformers(model, directory / "transformers", str(base))
    logger.info(
        "saved the LoRA adapter (%s bytes of weights) to %s",
        f"{(directory / ADAPTER_WEIGHTS).stat().st_size:,}",
        directory,
    )
    return directory


def load_adapter(directory: str | Path, base: str | Path | None = None) -> nn.Module:
    """The base model (from the adapter's pointer, or `base`) with the saved adapter in it, in eval mode."""
    from safetensors.torch import load_file

    directory = Path(directory)
    if not (directory / ALBERT_ADAPTER).is_file():
        raise CheckpointError(f"{directory} is not a LoRA adapter folder (no {ALBERT_ADAPTER}).")
    card = json.loads((directory / ALBERT_ADAPTER).read_text())
    base_dir = resolve_directory(base or card["base_model"])
    if _weights_digest(base_dir) != card["base_weights_sha256"]:
        raise CheckpointError(
            f"{base_dir} is not the base model this adapter was trained on (its weights differ); "
            f"give the base with --model or base=, the one saved as {card['base_model']}."
        )
    cls = (
        AlbertForTokenClassification
        if card["architecture"] == "AlbertForTokenClassification"
        else AlbertForSequenceClassification
    )
    base_config = load_config(base_dir)
    extra = {**base_config.extra, "id2label": card["id2label"], "label2id": card["label2id"]}
    if card.get("problem_type"):
        extra["problem_type"] = card["problem_type"]
    model = cls.from_pretrained(base_dir, num_labels=card["num_labels"], extra=extra)
    model = add_lora(model, LoraSettings(**{**card["settings"], "targets": tuple(card["settings"]["targets"])}))
    state = load_file(str(directory / ADAPTER_WEIGHTS))
    missing, unexpected = model.load_state_dict(state, strict=False)
    wanted = set(adapter_state(model))
    if unexpected or wanted - set(state):
        raise CheckpointError(
            f"{directory}: the adapter's tensors do not fit its base ({len(unexpected)} unexpected, "
            f"{len(wanted - set(state))} missing)."
        )
    return model.eval()


def merge_lora(model: nn.Module) -> nn.Module:
    """A plain ALBERT Lab model computing the same function, without peft modules (for inference and export).

    Shared adapters merge into the shared weights (same size as the base). Per-pass adapters first give every
    pass its own copy of the weights (the model becomes sharing `none`, L times the layer's size)."""
    from peft.tuners.lora import LoraLayer

    if getattr(model, "lora_settings", None) is not None and model.lora_settings.per_pass:
        _untie_weights(model)
    for name, module in list(model.named_modules()):
        if isinstance(module, LoraLayer):
            module.merge()
            parent_name, _, leaf = name.rpartition(".")
            setattr(model.get_submodule(parent_name), leaf, module.get_base_layer())
    for attribute in ("lora_settings", "shared_config"):
        if hasattr(model, attribute):
            delattr(model, attribute)
    for parameter in model.parameters():
        parameter.requires_grad = True
    return model.eval()


def _untie_weights(model: nn.Module) -> None:
    """Give every module its own copy of each Parameter it shares with another module (before merging
    per-pass deltas into what were the shared weights; LayerNorms too, so the result saves as `none`)."""
    seen: set[int] = set()
    for module in model.modules():
        for leaf, parameter in list(module.named_parameters(recurse=False)):
            if id(parameter) in seen:
                setattr(module, leaf, nn.Parameter(parameter.detach().clone(), parameter.requires_grad))
            else:
                seen.add(id(parameter))


def _hf_module(ours: str) -> str:
    """transformers' module name of one of our Linear modules (albert.attention_blocks.3.query → …)."""
    match = re.fullmatch(r"albert\.(attention_blocks|ffn_blocks)\.(\d+)\.(\w+)", ours)
    if not match:
        raise KeyError(f"no transformers name for {ours!r}")
    group, leaf = match[2], _HF_NAMES[match[3]]
    inner = f"attention.{leaf}" if match[1] == "attention_blocks" else leaf
    return f"albert.encoder.albert_layer_groups.{group}.albert_layers.0.{inner}"


@torch.no_grad()
def export_for_transformers(model: nn.Module, directory: Path, base_name: str) -> Path:
    """The adapter in peft's own format on transformers' ALBERT (module names mapped), via peft itself."""
    import transformers
    from peft import LoraConfig, get_peft_model

    settings: LoraSettings = model.lora_settings
    plain = AlbertForSequenceClassification(model.config)
    base_state = {re.sub(r"\.base_layer\.", ".", k): v for k, v in model.state_dict().items() if "lora_" not in k}
    plain.load_state_dict(base_state)
    from albert.core.hf import to_transformers

    hf_model = to_transformers(plain)
    assert isinstance(hf_model, transformers.AlbertForSequenceClassification)
    lora = LoraConfig(
        r=settings.rank,
        lora_alpha=settings.scale_alpha,
        lora_dropout=settings.dropout,
        target_modules=_target_regex(settings.targets, hf=True),
        modules_to_save=["classifier"],
    )
    peft_model = get_peft_model(hf_model, lora)
    for name, module in model.named_modules():
        if hasattr(module, "lora_A") and "default" in getattr(module, "lora_A", {}):
            target = peft_model.base_model.model.get_submodule(_hf_module(name))
            target.lora_A["default"].weight.copy_(module.lora_A["default"].weight)
            target.lora_B["default"].weight.copy_(module.lora_B["default"].weight)
    head = peft_model.base_model.model.classifier.modules_to_save["default"]
    head.weight.copy_(model.classifier.weight)
    head.bias.copy_(model.classifier.bias)
    peft_model.peft_config["default"].base_model_name_or_path = base_name
    peft_model.save_pretrained(str(directory))
    return directory
