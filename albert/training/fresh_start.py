"""How a fresh model's weights start before pretraining, beyond the shared initialisation (issue 51).

Both are starts, not architecture: the saved model is an ordinary ALBERT and loads anywhere.
Their measurements: docs/results/pretraining-recipe.md.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Protocol

import numpy as np
import torch

from albert.core.heads import AlbertForPreTraining
from albert.data.corpus import TokenizedCorpus

logger = logging.getLogger(__name__)


def unigram_log_shares(corpus: TokenizedCorpus, vocab_size: int) -> np.ndarray:
    """The log of each piece's share of `corpus` (add-one smoothed): what a model that guesses every blank by the
    training text's frequencies alone answers, whatever the text around the blank."""
    counts = np.bincount(np.asarray(corpus.tokens), minlength=vocab_size)[:vocab_size] + 1.0
    return np.log(counts / counts.sum())


def unigram_output_bias(model: AlbertForPreTraining, corpus: TokenizedCorpus) -> None:
    """Set the MLM decoder's bias to the log of each piece's share of `corpus` (`unigram_log_shares`, centred): the
    model starts out answering the unigram distribution, the plateau a fresh model otherwise spends its first
    steps reaching."""
    log_share = unigram_log_shares(corpus, model.config.vocab_size)
    with torch.no_grad():
        model.mlm_head.bias.copy_(torch.from_numpy(log_share - log_share.mean()))


def scale_residual_branches(model: AlbertForPreTraining) -> float:
    """Shrink each residual branch's output projection (attention output, FFN down projection) by
    1/√(2 · passes), as GPT-2 starts its deep stacks: each post-LN pass starts near the identity. Returns the
    factor used."""
    factor = 1.0 / math.sqrt(2 * model.config.num_hidden_layers)
    with torch.no_grad():
        for name, parameter in model.albert.named_parameters():
            if re.fullmatch(r"(attention_blocks\.\d+\.output|ffn_blocks\.\d+\.down)\.weight", name):
                parameter.mul_(factor)
    return factor


def sinusoidal_positions(model: AlbertForPreTraining) -> None:
    """Start the position embeddings as the Transformer's sinusoids (Vaswani et al. 2017), scaled to the
    initializer range: neighbouring positions start alike and an offset is one linear map at every position, so
    attention to a blank's neighbours can be learnt once for all positions instead of pair by pair. They are learnt
    as usual from there."""
    size = model.config.embedding_size
    positions = torch.arange(model.config.max_position_embeddings, dtype=torch.float64)[:, None]
    rates = torch.exp(torch.arange(0, size, 2, dtype=torch.float64) * (-math.log(10000.0) / size))
    table = torch.zeros(model.config.max_position_embeddings, size, dtype=torch.float64)
    table[:, 0::2] = torch.sin(positions * rates)
    table[:, 1::2] = torch.cos(positions * rates)[:, : size // 2]
    table *= model.config.initializer_range * math.sqrt(2.0)  # each column's spread matches a normal start's
    with torch.no_grad():
        model.albert.embeddings.position_embeddings.weight.copy_(table)


MIMETIC_QUERY_KEY = (0.7, 0.7)
"""(α, β) of the query-key product's start, α·Z + β·I (Trockman & Kolter 2023, their values)."""
MIMETIC_VALUE_OUTPUT = (0.4, 0.4)
"""(α, β) of the value-output product's start, α·Z − β·I (the same paper)."""


def _factor_pair(product: torch.Tensor, rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Two (rank × H) matrices whose `left.T @ right` is the best rank-`rank` approximation of `product`."""
    u, s, vh = torch.linalg.svd(product)
    root = s[:rank].sqrt()
    return (u[:, :rank] * root).T, root[:, None] * vh[:rank]


def mimetic_attention(model: AlbertForPreTraining, generator: torch.Generator) -> None:
    """Start every attention block as a trained one looks (mimetic initialisation, Trockman & Kolter 2023): each
    head's query-key product near α·Z + β·I, so a position attends most to positions like itself (its neighbours when
    the positions start alike, with `sinusoidal_positions`; other [MASK]s for a blank), and the value-output product
    near α·Z − β·I; Z is normal with variance 1/H. Biases stay zero."""
    hidden, heads, head_dim = model.config.hidden_size, model.config.num_attention_heads, model.config.head_dim
    eye = torch.eye(hidden, dtype=torch.float64)

    def random_square() -> torch.Tensor:
        return torch.randn(hidden, hidden, generator=generator, dtype=torch.float64) / math.sqrt(hidden)

    with torch.no_grad():
        for block in model.albert.attention_blocks:
            for head in range(heads):
                alpha, beta = MIMETIC_QUERY_KEY
                query, key = _factor_pair(alpha * random_square() + beta * eye, head_dim)
                rows = slice(head * head_dim, (head + 1) * head_dim)
                block.query.weight[rows] = query.to(block.query.weight.dtype)
                block.key.weight[rows] = key.to(block.key.weight.dtype)
            alpha, beta = MIMETIC_VALUE_OUTPUT
            output_t, value = _factor_pair(alpha * random_square() - beta * eye, hidden)
            block.value.weight.copy_(value)
            block.output.weight.copy_(output_t.T)


class FreshStartChoices(Protocol):
    """The fields of `albert.commands.pretrain.PretrainConfig` that choose a fresh model's starts."""

    output_bias: str
    residual_init: str
    position_init: str
    attention_init: str
    seed: int


def apply_fresh_starts(model: AlbertForPreTraining, corpus: TokenizedCorpus, choices: FreshStartChoices) -> None:
    """Apply the starts that `albert.pretrain`'s flags of the same names choose (its defaults: the unigram output
    bias, every other start BERT's)."""
    if choices.output_bias == "unigram":
        unigram_output_bias(model, corpus)
    if choices.residual_init == "scaled":
        logger.info("residual branches start at %.3f of the initializer range", scale_residual_branches(model))
    if choices.position_init == "sinusoidal":
        sinusoidal_positions(model)
    if choices.attention_init == "mimetic":
        mimetic_attention(model, torch.Generator().manual_seed(choices.seed))
