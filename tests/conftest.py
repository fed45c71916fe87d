"""Shared fixtures: tiny configs, a padded batch, and an offline Hugging Face hub.

Tests never download: the hub is switched off before anything imports `huggingface_hub`,
and transformers models are built from a config with random weights.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it at import
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from albert import AlbertConfig  # noqa: E402

# Test models are tiny: a second intra-op thread only adds synchronisation, and on a busy
# machine OpenMP's spinning threads made the suite 2–3× slower (measured: 53 s → 22 s).
torch.set_num_threads(1)

TINY = dict(
    vocab_size=99,
    embedding_size=16,
    hidden_size=32,
    num_hidden_layers=4,
    num_attention_heads=4,
    intermediate_size=37,
    max_position_embeddings=64,
    type_vocab_size=2,
)
"""Small enough for milliseconds per forward; 37 and 99 are odd on purpose, so a swapped
dimension shows up as a shape error instead of passing by coincidence."""


def tiny_config(**changes: Any) -> AlbertConfig:
    return AlbertConfig(**{**TINY, **changes})


@pytest.fixture
def make_config() -> Callable[..., AlbertConfig]:
    """`make_config(sharing="ffn", ...)`: a tiny, valid config with some fields changed."""
    return tiny_config


@pytest.fixture
def batch() -> dict[str, torch.Tensor]:
    """Three sequences of up to 11 tokens; two are padded (mask 0, pad id 0), one is full."""
    generator = torch.Generator().manual_seed(1234)
    input_ids = torch.randint(5, TINY["vocab_size"], (3, 11), generator=generator)
    attention_mask = torch.ones(3, 11, dtype=torch.long)
    attention_mask[1, 7:] = 0
    attention_mask[2, 4:] = 0
    input_ids[attention_mask == 0] = 0
    token_type_ids = torch.zeros(3, 11, dtype=torch.long)
    token_type_ids[:, 5:] = 1
    token_type_ids[attention_mask == 0] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}


def randomize_(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Give every parameter a distinct random value in place.

    Fresh models start with zero biases and unit LayerNorm gains, which would hide a
    bias or LayerNorm mapped to the wrong place; random values expose any mix-up.
    """
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            if "norm" in name.lower() and name.endswith("weight"):
                parameter.copy_(1.0 + 0.2 * noise)
            else:
                parameter.copy_(0.1 * noise)
    return model.eval()


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    assert a.shape == b.shape, f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}"
    return (a.float() - b.float()).abs().max().item()
