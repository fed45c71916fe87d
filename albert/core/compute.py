"""Compute and memory of an ALBERT (or BERT) from its config: FLOPs per token, weight and activation bytes.

Cross-layer sharing cuts *parameters*, not *compute*: every one of the L passes still does its
matrix products, whether its weights are shared or not. These formulas make that visible.

FLOPs count matrix products only, 2 FLOPs per multiply-add (a multiply and an add). Per token:

    E→H projection            E·H                       (when the config projects)
    attention projections     L · 4·H²                  (query, key, value, output)
    attention scores          L · 2·T·H                 (q·kᵀ over T keys, then probabilities · v)
    feed-forward              L · 2·H·I                 (H→I and I→H)
    MLM head (if counted)     H·E + E·V                 (dense H→E, decoder E→V, per decoded position)

Left out, each O(H) or O(T) per token rather than O(H²): embedding look-ups, LayerNorms, softmax,
the activation function, bias and residual additions; and the pooler (H² once per *sequence*).
Training ≈ 3 × forward: the backward pass computes a gradient for both inputs and weights of every
product, twice the forward work. `tests/core/test_compute.py` checks the forward count against
`torch.utils.flop_counter.FlopCounterMode` on a small model.

Activation memory (training, values kept for the backward pass) is estimated per pass as
B·T·(8·H + 2·I) values — the sublayer inputs, q, k, v, the attention output, both residual sums
and the two feed-forward intermediates — plus B·A·T² when the attention probabilities are kept
(the plain, unfused attention; PyTorch's fused attention keeps only a per-row statistic), plus
2·B·T·E for the embeddings, times L passes: a shared layer applied L times still leaves L sets of
activations. The estimate agrees with the tensors autograd saves for this model within a few
percent (tested).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, fields

from albert.core.config import AlbertConfig

logger = logging.getLogger(__name__)

BYTES_PER_VALUE: dict[str, int] = {"fp32": 4, "fp16": 2, "int8": 1}
"""Bytes per stored number in each format (int8's per-row scales are ignored: a few KB)."""
TRAINING_BYTES_PER_PARAMETER = 16
"""fp32 training state per parameter: weight, gradient and AdamW's two moments, 4 bytes each."""


@dataclass(frozen=True)
class FlopsPerToken:
    """Forward FLOPs per token (2 per multiply-add), component by component."""

    embedding_projection: int
    attention_projections: int
    attention_scores: int
    ffn: int
    mlm_head: int

    @property
    def forward(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    @property
    def training(self) -> int:
        """Forward + backward ≈ 3 × forward."""
        return 3 * self.forward

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {
            "forward": self.forward,
            "training": self.training,
        }


def flops_per_token(config: AlbertConfig, seq_len: int, mlm_head: bool = False) -> FlopsPerToken:
    """Forward FLOPs per token of `config` on sequences of `seq_len` tokens.

    The count does not depend on the sharing mode: every pass does the same products.
    `mlm_head=True` adds the MLM head as if every position were decoded.
    """
    if seq_len < 1:
        raise ValueError(f"seq_len must be at least 1, got {seq_len}.")
    V, E, H, I, L = (
        config.vocab_size,
        config.embedding_size,
        config.hidden_size,
        config.intermediate_size,
        config.num_hidden_layers,
    )
    return FlopsPerToken(
        embedding_projection=2 * E * H if config.project_embeddings else 0,
        attention_projections=2 * L * 4 * H * H,
        attention_scores=2 * L * 2 * seq_len * H,
        ffn=2 * L * 2 * H * I,
        mlm_head=2 * (H * E + E * V) if mlm_head else 0,
    )


def weight_bytes(parameters: int) -> dict[str, int]:
    """Bytes to store `parameters` weights in fp32, fp16 and int8 (shared weights are stored once)."""
    return {name: parameters * size for name, size in BYTES_PER_VALUE.items()}


@dataclass(frozen=True)
class ActivationEstimate:
    """Values kept for the backward pass by one training forward of a B × T batch."""

    per_pass: int
    embeddings: int
    passes: int
    mlm_logits: int

    @property
    def total(self) -> int:
        return self.per_pass * self.passes + self.embeddings + self.mlm_logits

    def bytes(self, dtype: str = "fp32") -> int:
        return self.total * BYTES_PER_VALUE[dtype]


def activation_values(
    config: AlbertConfig, batch_size: int, seq_len: int, keep_attention_probs: bool = False, mlm_head: bool = False
) -> ActivationEstimate:
    """Estimate (see the module docstring) of the activations a training step keeps, in values.

    `keep_attention_probs` adds B·A·T² per pass (unfused attention); `mlm_head` adds the B·T·V
    logits of decoding every position.
    """
    if batch_size < 1 or seq_len < 1:
        raise ValueError(f"batch_size and seq_len must be at least 1, got {batch_size} and {seq_len}.")
    B, T, H, I, A = batch_size, seq_len, config.hidden_size, config.intermediate_size, config.num_attention_heads
    per_pass = B * T * (8 * H + 2 * I) + (B * A * T * T if keep_attention_probs else 0)
    return ActivationEstimate(
        per_pass=per_pass,
        embeddings=2 * B * T * config.embedding_size,
        passes=config.num_hidden_layers,
        mlm_logits=B * T * config.vocab_size if mlm_head else 0,
    )


def inference_working_values(config: AlbertConfig, batch_size: int, seq_len: int) -> int:
    """Rough peak of live activations in inference, one pass at a time: ≈ B·T·max(6·H, 2·H + 2·I) values
    (a pass's input, q, k, v, attention output and its reshaped copy; or the feed-forward's input, two
    intermediates and output). Nothing is kept for a backward pass."""
    H, I = config.hidden_size, config.intermediate_size
    return batch_size * seq_len * max(6 * H, 2 * H + 2 * I)


def forward_pass(config: AlbertConfig, batch_size: int, seq_len: int) -> Callable[[], None]:
    """One forward pass of a freshly initialised `AlbertModel(config)` (seed 0, eval) on fixed random token ids,
    ready to call again and again (inference mode, this process's thread setting): what a timer times."""
    import torch

    from albert.core.model import AlbertModel

    torch.manual_seed(0)
    model = AlbertModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (batch_size, seq_len))

    def run() -> None:
        with torch.inference_mode():
            model(ids)

    return run


def time_forward(
    config: AlbertConfig, batch_size: int, seq_len: int, repeats: int = 5, max_seconds: float = 1.0
) -> float:
    """Seconds for one forward pass of a freshly initialised `AlbertModel(config)` (best of `repeats`,
    after one warm-up pass; the repeats stop early once `max_seconds` are spent). Inference mode, this
    process's thread setting, random token ids."""
    import torch

    from albert.core.model import AlbertModel

    torch.manual_seed(0)
    model = AlbertModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (batch_size, seq_len))
    best = float("inf")
    with torch.inference_mode():
        start = time.perf_counter()
        model(ids)  # warm-up: first-call allocations and kernel choice
        spent = time.perf_counter() - start
        for _ in range(repeats):
            if spent > max_seconds:
                break
            start = time.perf_counter()
            model(ids)
            elapsed = time.perf_counter() - start
            best, spent = min(best, elapsed), spent + elapsed
    if best == float("inf"):  # the warm-up alone used the time: report it
        best = spent
    logger.info("forward %s B=%d T=%d: %.1f ms", config.sharing, batch_size, seq_len, best * 1e3)
    return best
