"""ALBERT's encoder, readable top to bottom.

    token ids ──► word (V×E) + position (P×E) + segment (T×E) embeddings ──► LayerNorm
              ──► E→H projection (the factorization; absent in BERT)
              ──► L passes; pass i uses attention block `attention_block_of(i)` and
                  feed-forward block `ffn_block_of(i)` (cross-layer sharing)
              ──► last hidden state (B, T, H) and the pooled [CLS] vector (B, H)

Sharing is one mechanism: the model owns `num_attention_blocks` attention sublayers and
`num_ffn_blocks` feed-forward sublayers and looks up which one each pass applies. `all`
with G groups owns G of each, `none` owns L of each, `attention` owns 1 attention + L
FFN, `ffn` owns L attention + 1 FFN. A sublayer's LayerNorm travels with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from albert.core.checkpoint import PretrainedMixin
from albert.core.config import AlbertConfig


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The function of a `hidden_act` (the names are `albert.core.config.ACTIVATIONS`): torch's function of that
    name, except `gelu_new`, the tanh approximation of GELU that ALBERT (and transformers' name) uses."""
    return partial(F.gelu, approximate="tanh") if name == "gelu_new" else getattr(F, name)


@dataclass
class AlbertModelOutput:
    last_hidden_state: torch.Tensor
    """(B, T, H) output of the last pass."""
    pooler_output: torch.Tensor | None
    """(B, H) tanh(W · h_[CLS]); None for models without a pooler."""
    hidden_states: tuple[torch.Tensor, ...] | None = None
    """L + 1 tensors (B, T, H): the projected embeddings, then the output of each pass."""
    attentions: tuple[torch.Tensor, ...] | None = None
    """L tensors (B, A, T, T): attention probabilities of each pass, shared weights or not."""


class Embeddings(nn.Module):
    """Token + position + segment embeddings of width E, normalised."""

    def __init__(self, config: AlbertConfig):
        super().__init__()
        E = config.embedding_size
        self.word_embeddings = nn.Embedding(config.vocab_size, E, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, E)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, E)
        self.norm = nn.LayerNorm(E, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # (T,)
        x = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(positions)
            + self.token_type_embeddings(token_type_ids)
        )  # (B, T, E)
        return self.dropout(self.norm(x))


class SelfAttention(nn.Module):
    """Multi-head self-attention with a residual connection and post-LayerNorm."""

    def __init__(self, config: AlbertConfig):
        super().__init__()
        H = config.hidden_size
        self.num_heads, self.head_dim = config.num_attention_heads, config.head_dim
        self.query, self.key, self.value = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, H)
        self.output = nn.Linear(H, H)
        self.norm = nn.LayerNorm(H, eps=config.layer_norm_eps)
        self.attention_dropout = config.attention_probs_dropout_prob
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None, return_probs: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        B, T, H = x.shape
        split = lambda t: t.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))  # (B, A, T, D)
        dropout = self.attention_dropout if self.training else 0.0
        if return_probs:
            # SDPA does not return the probabilities, so compute them explicitly when asked.
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)  # (B, A, T, T)
            if mask is not None:
                scores = scores + mask
            probs = scores.softmax(dim=-1)
            context = F.dropout(probs, dropout, self.training) @ v
        else:
            probs = None
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
        context = context.transpose(1, 2).reshape(B, T, H)  # (B, T, H)
        return self.norm(x + self.dropout(self.output(context))), probs


class FeedForward(nn.Module):
    """Position-wise H → I → H with a residual connection and post-LayerNorm."""

    def __init__(self, config: AlbertConfig):
        super().__init__()
        self.up = nn.Linear(config.hidden_size, config.intermediate_size)
        self.down = nn.Linear(config.intermediate_size, config.hidden_size)
        self.activation = activation(config.hidden_act)
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.dropout(self.down(self.activation(self.up(x)))))


class AlbertPreTrainedModel(nn.Module, PretrainedMixin):
    """Shared initialisation (as transformers' ALBERT/BERT) and save/load for every model class."""

    config: AlbertConfig

    def init_weights(self) -> None:
        self.apply(self._init_module)

    def _init_module(self, module: nn.Module) -> None:
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.padding_idx is not None:
                with torch.no_grad():
                    module.weight[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)


class AlbertModel(AlbertPreTrainedModel):
    """The encoder: embeddings, projection, L (possibly shared) passes, optional pooler."""

    def __init__(self, config: AlbertConfig, add_pooler: bool = True):
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.projection = nn.Linear(config.embedding_size, config.hidden_size) if config.project_embeddings else None
        self.attention_blocks = nn.ModuleList(SelfAttention(config) for _ in range(config.num_attention_blocks))
        self.ffn_blocks = nn.ModuleList(FeedForward(config) for _ in range(config.num_ffn_blocks))
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size) if add_pooler else None
        self.init_weights()

    def passes(self) -> list[tuple[SelfAttention, FeedForward]]:
        """The (attention, feed-forward) modules each of the L passes applies, in order."""
        return [
            (self.attention_blocks[self.config.attention_block_of(i)], self.ffn_blocks[self.config.ffn_block_of(i)])
            for i in range(self.config.num_hidden_layers)
        ]

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        output_hidden_states: bool = False,
        output_attentions: bool = False,
    ) -> AlbertModelOutput:
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = self.embeddings(input_ids, token_type_ids)  # (B, T, E)
        if self.projection is not None:
            x = self.projection(x)  # (B, T, H)
        mask = self._additive_mask(attention_mask, x.dtype)  # (B, 1, 1, T) or None

        hidden_states, attentions = [x], []
        for attention, ffn in self.passes():
            x, probs = attention(x, mask, return_probs=output_attentions)
            x = ffn(x)
            hidden_states.append(x)
            attentions.append(probs)

        pooled = torch.tanh(self.pooler(x[:, 0])) if self.pooler is not None else None  # (B, H)
        return AlbertModelOutput(
            last_hidden_state=x,
            pooler_output=pooled,
            hidden_states=tuple(hidden_states) if output_hidden_states else None,
            attentions=tuple(attentions) if output_attentions else None,
        )

    @staticmethod
    def _additive_mask(attention_mask: torch.Tensor | None, dtype: torch.dtype) -> torch.Tensor | None:
        """0 where a key may be attended, the dtype's minimum where it is padding."""
        if attention_mask is None or bool(attention_mask.all()):
            return None  # no padding: let SDPA pick its fastest kernel
        keep = attention_mask[:, None, None, :].to(dtype)  # (B, 1, 1, T)
        return (1.0 - keep) * torch.finfo(dtype).min
