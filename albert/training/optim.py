"""Optimizer and learning-rate schedule: AdamW or LAMB, linear warm-up, then decay to zero over the
planned steps (Cramming: decay over the budget)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import torch
from torch import nn


@dataclass
class OptimizerConfig:
    """Optimizer and learning-rate schedule."""

    optimizer: Literal["adamw", "lamb"] = "adamw"
    """AdamW (torch) or LAMB (the paper's, from the torch-optimizer package)."""
    learning_rate: float = 1e-3
    """Peak learning rate, reached at the end of warm-up."""
    weight_decay: float = 0.01
    """Decoupled weight decay; never applied to biases, LayerNorms or embeddings' padding."""
    warmup_steps: int = 0
    """Linear warm-up steps; 0 uses warmup_fraction of the planned steps."""
    warmup_fraction: float = 0.05
    """Warm-up as a fraction of the planned steps when warmup_steps is 0."""
    schedule: Literal["linear", "cosine", "constant"] = "linear"
    """Decay after warm-up, to zero at the planned last step (Cramming: decay over the budget)."""
    beta1: float = 0.9
    """First-moment decay."""
    beta2: float = 0.98
    """Second-moment decay (0.98 is steadier than 0.999 for short, large-lr runs)."""
    eps: float = 1e-6
    """Denominator epsilon."""
    max_grad_norm: float = 1.0
    """Clip the global gradient norm to this (0 disables clipping)."""
    embedding_lr_scale: float = 1.0
    """Multiplies the learning rate of the embeddings: words (which the MLM decoder shares), positions, segments and
    their LayerNorm. A knob of the fresh-model recipe (docs/results/pretraining-recipe.md, amendment 14)."""

    def __post_init__(self) -> None:
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}.")
        if self.weight_decay < 0 or self.max_grad_norm < 0 or self.warmup_steps < 0:
            raise ValueError("weight_decay, max_grad_norm and warmup_steps must not be negative.")
        if not 0 <= self.warmup_fraction < 1:
            raise ValueError(f"warmup_fraction must be in [0, 1), got {self.warmup_fraction}.")
        if not self.embedding_lr_scale > 0:
            raise ValueError(f"embedding_lr_scale must be positive, got {self.embedding_lr_scale}.")
        if not (0 <= self.beta1 < 1 and 0 <= self.beta2 < 1):
            raise ValueError("beta1 and beta2 must be in [0, 1).")


def build_optimizer(
    model: nn.Module, config: OptimizerConfig, device: torch.device, lr_scale: Callable[[str], float] | None = None
) -> torch.optim.Optimizer:
    """AdamW or LAMB; no weight decay on biases and LayerNorm gains (as BERT and ALBERT).

    `lr_scale(name)` multiplies the learning rate of parameter `name` (layer-wise decay when
    fine-tuning), and `config.embedding_lr_scale` that of the embeddings; each group records its factor as
    `lr_scale`. Without either there are exactly two groups, decay then no-decay, as resumable pretraining
    checkpoints expect.
    """
    grouped: dict[tuple[bool, float], list[nn.Parameter]] = {}
    for name, parameter in model.named_parameters():
        if not parameter.requires_grad:
            continue
        no_decay = parameter.ndim < 2 or "norm" in name
        scale = lr_scale(name) if lr_scale else 1.0
        if ".embeddings." in f".{name}":
            scale *= config.embedding_lr_scale
        grouped.setdefault((no_decay, scale), []).append(parameter)
    if lr_scale is None and config.embedding_lr_scale == 1.0:
        grouped = {(False, 1.0): grouped.get((False, 1.0), []), (True, 1.0): grouped.get((True, 1.0), [])}
    groups = [
        {
            "params": params,
            "weight_decay": 0.0 if no_decay else config.weight_decay,
            "lr": config.learning_rate * scale,
            "lr_scale": scale,
        }
        for (no_decay, scale), params in sorted(grouped.items(), key=lambda item: item[0][0])
    ]
    betas = (config.beta1, config.beta2)
    if config.optimizer == "lamb":
        import torch_optimizer

        return torch_optimizer.Lamb(groups, lr=config.learning_rate, betas=betas, eps=config.eps)
    return torch.optim.AdamW(groups, lr=config.learning_rate, betas=betas, eps=config.eps, fused=device.type == "cuda")


def build_scheduler(
    optimizer: torch.optim.Optimizer, config: OptimizerConfig, total_steps: int
) -> torch.optim.lr_scheduler.LambdaLR:
    """Linear warm-up to the peak, then linear/cosine decay to zero at `total_steps`."""
    warmup = config.warmup_steps or int(config.warmup_fraction * total_steps)

    def factor(step: int) -> float:
        if warmup and step < warmup:
            return (step + 1) / warmup
        if config.schedule == "constant":
            return 1.0
        progress = min(1.0, (step - warmup) / max(1, total_steps - warmup))
        return 1.0 - progress if config.schedule == "linear" else 0.5 * (1 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
