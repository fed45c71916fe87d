"""Slight Gaussian noise in the shared weights while training (`--shared-noise-std S`).

With cross-layer sharing one set of layer weights is applied at several passes, so a perturbation of the shared
weights is felt at every one of them. While the model is in training mode, each call of a shared block (an
attention or feed-forward sublayer used by two passes or more) runs with its tensors replaced by

    W + S · rms(W) · ε,    ε ~ N(0, I) drawn afresh for this call,  rms(W) = sqrt(mean(W²)), held constant

so the L uses of one shared layer see L different perturbations. The noisy tensors live only for the duration of
that call: the parameters themselves (what the optimizer steps, what `state_dict`, checkpoints and
`save_pretrained` hold) are never changed, and in evaluation mode nothing is drawn, so evaluation is bit for bit
what it is without the option.

Gradient: W + noise has derivative 1 with respect to W (rms(W) is treated as a constant), so the gradient of W is
the sum over the passes of the gradient at each pass's perturbed copy — the clean gradient plus terms of order S
that average towards zero (a stochastic smoothing of the loss over a ball of relative radius about S around W).
The noise uses torch's global generator, so it follows --seed and a resumed run continues the same draws.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

from albert.core.model import AlbertModel

logger = logging.getLogger(__name__)


def shared_blocks(model: nn.Module) -> list[nn.Module]:
    """The attention and feed-forward blocks of every ALBERT encoder inside `model` that two passes or more apply
    (with sharing `all` and one group: the one attention and the one feed-forward block)."""
    blocks: list[nn.Module] = []
    for encoder in (m for m in model.modules() if isinstance(m, AlbertModel)):
        config = encoder.config
        passes = range(config.num_hidden_layers)
        attention_uses = Counter(config.attention_block_of(i) for i in passes)
        ffn_uses = Counter(config.ffn_block_of(i) for i in passes)
        blocks += [encoder.attention_blocks[b] for b, n in sorted(attention_uses.items()) if n > 1]
        blocks += [encoder.ffn_blocks[b] for b, n in sorted(ffn_uses.items()) if n > 1]
    return blocks


def perturbed(weight: torch.Tensor, std: float) -> torch.Tensor:
    """`weight` plus Gaussian noise of standard deviation `std` × the tensor's own RMS (a fresh draw each call;
    the RMS is detached, so the derivative with respect to `weight` is the identity)."""
    rms = weight.detach().pow(2).mean().sqrt()
    return weight + torch.randn_like(weight) * (std * rms)


class SharedNoise:
    """The shared blocks of `model` and, within `active()`, forward hooks that swap in perturbed tensors for each
    call in training mode.

    A pre-hook replaces each of the block's parameters (its Linear weights and biases and its LayerNorm) by a
    perturbed copy; the forward hook (run even when the forward raises) puts the parameters back. The module tree,
    parameter names and state_dict are untouched, so the optimizer, DDP, checkpoints and saving work as usual."""

    def __init__(self, model: nn.Module, std: float) -> None:
        if not std >= 0 or std == float("inf"):
            raise ValueError(f"--shared-noise-std must be a finite number of at least 0, got {std}.")
        self.std = std
        self.blocks = shared_blocks(model) if std > 0 else []
        if std > 0 and not self.blocks:
            raise ValueError(
                "--shared-noise-std perturbs weights that several passes share, and this model shares none "
                "(sharing 'none', or as many groups as passes); use a model with sharing all, attention or ffn."
            )
        self._saved: dict[int, list[tuple[nn.Module, str, nn.Parameter]]] = {}

    @contextmanager
    def active(self) -> Iterator[SharedNoise]:
        """Within the block, the shared blocks run with fresh noise at every call in training mode; the hooks are
        removed on leaving it, even after an error (std 0: no hooks at all, the model runs exactly as without
        the option)."""
        handles: list[RemovableHandle] = []
        for block in self.blocks:
            handles.append(block.register_forward_pre_hook(self._swap_in))
            handles.append(block.register_forward_hook(self._swap_out, always_call=True))
        if self.blocks:
            count = sum(p.numel() for b in self.blocks for p in b.parameters())
            logger.info(
                "shared-weight noise: std %.4g × each tensor's RMS on %d shared blocks (%s parameters), "
                "a fresh draw at every pass while training",
                self.std,
                len(self.blocks),
                f"{count:,}",
            )
        try:
            yield self
        finally:
            for handle in handles:
                handle.remove()

    def _swap_in(self, block: nn.Module, args: Any) -> None:
        if not block.training or id(block) in self._saved:
            return
        saved = []
        for module in block.modules():
            for name, parameter in list(module._parameters.items()):
                if parameter is None:
                    continue
                saved.append((module, name, parameter))
                # Direct dict assignment: nn.Module.__setattr__ accepts only Parameters in _parameters, and the
                # perturbed copy must stay a non-leaf tensor so the gradient flows back to `parameter`.
                module._parameters[name] = perturbed(parameter, self.std)  # type: ignore[assignment]
        self._saved[id(block)] = saved

    def _swap_out(self, block: nn.Module, args: Any, output: Any) -> None:
        for module, name, parameter in self._saved.pop(id(block), []):
            module._parameters[name] = parameter
