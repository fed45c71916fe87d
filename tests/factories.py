"""The one tiny-model factory of the suite: every test that needs a small ALBERT builds it here.

`tiny_config(**changes)` is the base (odd sizes, so a swapped dimension shows up as a shape error instead of
passing by coincidence); tests that need other sizes say so as changes (the app's and the fine-tuning tests'
models use a round `intermediate_size=64`, the hostile tests' are two layers deep, of two widths).
`tiny_model(cls, seed=..., **changes)` builds one with seeded random weights; `randomize_` makes every weight
distinct, and `max_abs_diff` compares two outputs. `write_corpus` writes a tiny pretraining corpus of `WORDS`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, TypeVar

import torch

from albert import AlbertConfig

TINY: dict[str, Any] = dict(
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

ROUND_FFN = 64
"""The `intermediate_size` of the saved tiny models (app assets, toy pretrained models, hostile models)."""

ModelT = TypeVar("ModelT", bound=torch.nn.Module)


def tiny_config(**changes: Any) -> AlbertConfig:
    """A tiny, valid config: TINY with `changes` applied (any AlbertConfig field)."""
    return AlbertConfig(**{**TINY, **changes})


def tiny_model(cls: type[ModelT], *, seed: int = 0, **changes: Any) -> ModelT:
    """`cls(tiny_config(**changes))` with weights drawn after `torch.manual_seed(seed)`, so it is the same every run."""
    torch.manual_seed(seed)
    return cls(tiny_config(**changes))


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


_SYLLABLES = "ka lo mi ren tu sa vel dor pi an et ro zu fen gar ly mo".split()
WORDS = sorted({a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in ("", "n", "s", "ter")})[::7]


def write_corpus(path: Path, documents: int = 12, sentences: int = 30, seed: int = 0, short: bool = False) -> Path:
    """Books of sentences; `short` ones (1-3 words) fit a held-out order pair at 48 positions."""
    rng = random.Random(seed)
    blocks = []
    for d in range(documents):
        lines = []
        for s in range(sentences):
            if short:
                lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))).capitalize() + ".")
                continue
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))
            lines.append(f"In chapter {d} the {words} number {s} was seen.")
        blocks.append("\n".join(" ".join(lines[i : i + 3]) for i in range(0, len(lines), 3)))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


CYCLE = (
    "apple bread cloud dance eagle flame grape house island jungle kettle lemon mountain night ocean pepper queen "
    "river stone tiger umbrella violin window yellow zebra anchor bridge candle dragon engine"
).split()


def write_cycle_corpus(path: Path, documents: int = 24, seed: int = 0) -> Path:
    """Books whose sentences are runs of 5-10 consecutive words of one fixed cycle (`CYCLE`): every word is given
    away by its neighbours, so a model that reads its context leaves the unigram plateau far above it."""
    rng = random.Random(seed)
    blocks = []
    for _ in range(documents):
        lines = []
        for _ in range(30):
            start, length = rng.randrange(len(CYCLE)), rng.randint(5, 10)
            lines.append(" ".join(CYCLE[(start + i) % len(CYCLE)] for i in range(length)).capitalize() + ".")
        blocks.append("\n".join(" ".join(lines[i : i + 3]) for i in range(0, len(lines), 3)))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path
