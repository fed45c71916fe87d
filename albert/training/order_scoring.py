"""Scoring sentence order the one honest way: every pair asked in both orders, "prefers the true order" with a
Wilson 95% interval, and the topic check (does the model prefer the real next text over another document's?).

Pairs come from `albert.data.sentence_order` (centre-out, whole sentences, no length cue). A sentence head's
class 0 means "in order" for SOP and "is the next text" for NSP, so one probability serves both objectives:
P(class 0 | [CLS] X [SEP] Y [SEP]). Used by the pretraining run's held-out evaluation, `experiments/score_models.py`,
`scripts/choose_examples.py` and the app.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from albert.core.heads import AlbertForPreTraining
from albert.data.sentence_order import OrderPair


@dataclass(frozen=True)
class Proportion:
    """How often something held: `hits` of `total` (a tie counts half, so `hits` may end in .5)."""

    hits: float
    total: int

    @property
    def rate(self) -> float:
        return self.hits / self.total if self.total else float("nan")

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval (good near 0%, 50% and 100% alike)."""
        n, p = self.total, self.rate
        if not n:
            return float("nan"), float("nan")
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def verdict(self, chance: float = 0.5) -> str:
        """'above', 'chance' or 'below': the 95% interval against chance."""
        low, high = self.interval()
        return "above" if low > chance else "below" if high < chance else "chance"

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {
            "hits": self.hits,
            "n": self.total,
            "rate": round(self.rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
        }


def preference(chosen: np.ndarray, rejected: np.ndarray) -> Proportion:
    """How often `chosen` scored above `rejected`, pair by pair; a tie (a head that cannot tell) counts half."""
    chosen, rejected = np.asarray(chosen, dtype=np.float64), np.asarray(rejected, dtype=np.float64)
    hits = float((chosen > rejected).sum()) + 0.5 * float((chosen == rejected).sum())
    return Proportion(hits, int(chosen.size))


@dataclass(frozen=True)
class OrderScores:
    """Per pair, P(class 0) for A→B (true order), B→A, and A→other; and the two balanced measures."""

    in_order: np.ndarray
    swapped: np.ndarray
    with_other: np.ndarray

    @property
    def order(self) -> Proportion:
        """Prefers the true order: P(A→B) > P(B→A)."""
        return preference(self.in_order, self.swapped)

    @property
    def topic(self) -> Proportion:
        """Prefers the real next text: P(A→B) > P(A→other)."""
        return preference(self.in_order, self.with_other)


def _pair_row(a: Sequence[int], b: Sequence[int], special: tuple[int, int], max_tokens: int) -> tuple[list[int], int]:
    """[CLS] a [SEP] b [SEP] and where b starts; a pair over `max_tokens` loses tokens from the end of the
    longer side (centre-out pairs fit unless a caller asks for fewer tokens than they were built for)."""
    a, b = list(a), list(b)
    while len(a) + len(b) > max_tokens:
        (a if len(a) > len(b) else b).pop()
    cls, sep = special
    return [cls, *a, sep, *b, sep], len(a) + 2


@torch.no_grad()
def class0_probabilities(
    model: torch.nn.Module,
    rows: Sequence[tuple[Sequence[int], Sequence[int]]],
    special: tuple[int, int],
    pad_id: int,
    max_tokens: int,
    batch_size: int = 64,
) -> np.ndarray:
    """P(class 0) of the sentence head for each (a, b) of token ids, encoded as "[CLS] a [SEP] b [SEP]" (any model
    whose output has `sop_logits`: ALBERT Lab's or transformers' AlbertForPreTraining)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    # ALBERT Lab's model can skip the masked-LM head, which is most of a small model's pass; transformers' cannot
    sop_only = {"with_mlm_logits": False} if isinstance(model, AlbertForPreTraining) else {}
    out = []
    for i in range(0, len(rows), batch_size):
        encoded = [_pair_row(a, b, special, max_tokens) for a, b in rows[i : i + batch_size]]
        length = max(len(ids) for ids, _ in encoded)
        ids = torch.full((len(encoded), length), pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        types = torch.zeros_like(ids)
        for row, (tokens, b_start) in enumerate(encoded):
            ids[row, : len(tokens)] = torch.tensor(tokens)
            mask[row, : len(tokens)] = 1
            types[row, b_start : len(tokens)] = 1
        logits = model(
            input_ids=ids.to(device), attention_mask=mask.to(device), token_type_ids=types.to(device), **sop_only
        )
        out.append(logits.sop_logits.float().softmax(-1)[:, 0].cpu().numpy())
    if was_training:
        model.train()
    return np.concatenate(out) if out else np.zeros(0)


def score_id_pairs(
    model: torch.nn.Module,
    pairs: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int]]],
    special: tuple[int, int],
    pad_id: int,
    max_tokens: int,
    batch_size: int = 64,
) -> OrderScores:
    """Both orders and the random next of (A, B, other) token-id pairs, in one pass over 3 × len(pairs) rows."""
    rows = [(a, b) for a, b, _ in pairs] + [(b, a) for a, b, _ in pairs] + [(a, o) for a, _, o in pairs]
    probabilities = class0_probabilities(model, rows, special, pad_id, max_tokens, batch_size)
    n = len(pairs)
    return OrderScores(probabilities[:n], probabilities[n : 2 * n], probabilities[2 * n :])


def score_text_pairs(
    model: torch.nn.Module, tokenizer: Any, pairs: Sequence[OrderPair], max_tokens: int, batch_size: int = 64
) -> OrderScores:
    """`score_id_pairs` of text pairs, tokenized by the model's own tokenizer (no special tokens added)."""

    def ids(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    id_pairs = [(ids(p.first), ids(p.second), ids(p.other)) for p in pairs]
    special = (tokenizer.cls_token_id, tokenizer.sep_token_id)
    return score_id_pairs(model, id_pairs, special, tokenizer.pad_token_id, max_tokens, batch_size)
