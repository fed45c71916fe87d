"""How much each pass changes its input: the ALBERT paper's layer-transition figure as a function.

Lan et al., ICLR 2020, Figure 1 (Figure 2 in arXiv v1): "The L2 distances and cosine similarity (in terms of
degree) of the input and output embedding of each layer for BERT-large and ALBERT-large". For every pass l the
hidden states going in (h_{l-1}) and coming out (h_l) are compared token by token, and the per-token values are
averaged over the real tokens of the batch (padding left out):

    l2[l]      = mean over tokens of ‖h_l − h_{l-1}‖₂
    cosine[l]  = mean over tokens of cos(h_{l-1}, h_l)
    degrees[l] = mean over tokens of arccos(cos(h_{l-1}, h_l)), in degrees (what the paper plots)

The paper saw BERT's curves oscillate from layer to layer and ALBERT's (all parameters shared) move smoothly:
sharing stabilises the network's parameters. Pass 1 reads the embedding (after the E→H projection, when the
config projects), so every comparison is between vectors of the same width H.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class Transitions:
    """Per pass (L values each): how far each layer moves its input, and by what angle."""

    l2: list[float]
    """Mean over real tokens of ‖output − input‖₂."""
    cosine: list[float]
    """Mean over real tokens of cos(input, output)."""
    degrees: list[float]
    """Mean over real tokens of the angle between input and output, in degrees (the paper's right panel)."""

    @property
    def passes(self) -> int:
        return len(self.l2)


def layer_transitions(
    model: nn.Module,
    input_ids: torch.Tensor,
    token_type_ids: torch.Tensor | None = None,
    attention_mask: torch.Tensor | None = None,
) -> Transitions:
    """L2 distance, cosine similarity and angle between each pass's input and output, averaged over real tokens.

    `model` is an `AlbertModel` or any model holding one as `.albert` (the pretraining and task classes);
    `input_ids` is (B, T) or (T,). Runs one forward pass without gradients.
    """
    encoder = getattr(model, "albert", model)
    if input_ids.dim() == 1:
        input_ids = input_ids[None]
        token_type_ids = token_type_ids[None] if token_type_ids is not None else None
        attention_mask = attention_mask[None] if attention_mask is not None else None
    keep = (attention_mask if attention_mask is not None else torch.ones_like(input_ids)).bool()
    if not bool(keep.any()):
        raise ValueError("layer_transitions needs at least one real token (the attention mask is all zeros).")
    with torch.inference_mode():
        out = encoder(
            input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask, output_hidden_states=True
        )
    states = [h.float()[keep] for h in out.hidden_states]  # L + 1 tensors of (real tokens, H)
    l2, cosine, degrees = [], [], []
    for before, after in zip(states[:-1], states[1:], strict=True):
        cos = F.cosine_similarity(before, after, dim=-1)
        l2.append(float((after - before).norm(dim=-1).mean()))
        cosine.append(float(cos.mean()))
        degrees.append(float(torch.rad2deg(torch.arccos(cos.clamp(-1.0, 1.0))).mean()))
    return Transitions(l2, cosine, degrees)


def degrees_of(cosine: float) -> float:
    """The angle (degrees) whose cosine is `cosine` (clamped to [−1, 1])."""
    return math.degrees(math.acos(min(max(cosine, -1.0), 1.0)))
