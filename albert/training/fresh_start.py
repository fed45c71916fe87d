"""How a fresh model's weights start before pretraining, beyond the shared initialisation (issue 51).

Both are starts, not architecture: the saved model is an ordinary ALBERT and loads anywhere.
Their measurements: docs/results/pretraining-recipe.md.
"""

from __future__ import annotations

import math
import re

import numpy as np
import torch

from albert.core.heads import AlbertForPreTraining
from albert.data.corpus import TokenizedCorpus


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
