"""Depth of every parameter of a task model, for layer-wise learning-rate decay (LLRD) and
gradual unfreezing.

Depth 0 is the embeddings (and the E→H projection); depth 1 + b is encoder weight block b
(attention block b and feed-forward block b); the top depth is the task head (pooler and
classifier). With `none` sharing block b is pass b, so this is the usual per-layer LLRD of
BERT fine-tuning. With `all` sharing the whole encoder is one block (or G blocks with
`num_hidden_groups`), so there are only three depths: embeddings lowest, the shared block(s),
the head highest. LLRD cannot give pass 3 a smaller rate than pass 9 when both apply the same
weights; what it still does is what it is for: keep the general-purpose lower parts (embeddings,
then the encoder) closer to their pretrained values than the new head. For `attention`/`ffn`
sharing the shared sublayer is block 0 (depth 1, it serves the lowest pass too) and the
unshared sublayers follow their passes.
"""

from __future__ import annotations

import re

from torch import nn

from albert.core.config import AlbertConfig

_BLOCK = re.compile(r"(?:attention|ffn)_blocks\.(\d+)\.")


def top_depth(config: AlbertConfig) -> int:
    """Depth of the task head: one above the highest encoder block."""
    return max(config.num_attention_blocks, config.num_ffn_blocks) + 1


def parameter_depth(name: str, config: AlbertConfig) -> int:
    """0 for embeddings/projection, 1 + block index for encoder blocks, `top_depth` for the head."""
    body = name.removeprefix("albert.")
    if body.startswith(("embeddings.", "projection.")):
        return 0
    match = _BLOCK.match(body)
    if match:
        return 1 + int(match.group(1))
    return top_depth(config)  # pooler, classifier (and any other head)


def layer_decay_scale(config: AlbertConfig, decay: float):
    """`name -> decay ** (top - depth)`: the head learns at the full rate, each depth below at `decay` times
    the one above (pass it to `build_optimizer` as `lr_scale`)."""
    top = top_depth(config)
    return lambda name: decay ** (top - parameter_depth(name, config))


def unfrozen_from(config: AlbertConfig, step: int, every_steps: int) -> int:
    """Lowest trainable depth at `step` of gradual unfreezing: the head alone first, then one more
    depth from the top every `every_steps` steps, until everything trains (ULMFiT's schedule)."""
    return max(0, top_depth(config) - step // every_steps)


def freeze_below(model: nn.Module, config: AlbertConfig, lowest: int) -> int:
    """Set `requires_grad` so that only depths ≥ `lowest` train; returns the number of trainable tensors.

    Frozen parameters keep no gradient, so AdamW skips them entirely (no update, no weight decay).
    """
    trainable = 0
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(parameter_depth(name, config) >= lowest)
        trainable += parameter.requires_grad
    return trainable
