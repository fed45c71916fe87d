"""Exact parameter counts from the formulas, per component and per sharing mode.

Nothing here builds a model, so a config with V = 10^6 or H = 16384 answers instantly.
The counts equal `sum(p.numel() for p in model.parameters())` of the matching model class
(tests check that for every buildable preset and a grid of small configs).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from albert.core.config import AlbertConfig

Head = Literal["model", "pretraining", "masked_lm", "sequence_classification", "token_classification"]
HEADS: tuple[str, ...] = ("model", "pretraining", "masked_lm", "sequence_classification", "token_classification")
_WITH_POOLER = {"model", "pretraining", "sequence_classification"}


@dataclass(frozen=True)
class ParameterCount:
    """Parameters of one model, component by component; shared weights are counted once."""

    token_embeddings: int
    position_embeddings: int
    token_type_embeddings: int
    embedding_layer_norm: int
    embedding_projection: int
    attention: int
    attention_layer_norms: int
    ffn: int
    ffn_layer_norms: int
    pooler: int
    mlm_head: int
    sentence_pair_head: int
    classifier: int

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    @property
    def embeddings(self) -> int:
        """Everything before the first pass: V×E + P×E + T×E + LayerNorm + E×H projection."""
        return (
            self.token_embeddings
            + self.position_embeddings
            + self.token_type_embeddings
            + self.embedding_layer_norm
            + self.embedding_projection
        )

    @property
    def layers(self) -> int:
        """All transformer weights (attention, FFN and their LayerNorms), shared ones once."""
        return self.attention + self.attention_layer_norms + self.ffn + self.ffn_layer_norms

    @property
    def heads(self) -> int:
        return self.pooler + self.mlm_head + self.sentence_pair_head + self.classifier

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def count_parameters(config: AlbertConfig, head: Head = "model") -> ParameterCount:
    """Exact parameter count of `config` built as `head`.

    `model` is `AlbertModel` with its pooler — what the paper's tables count.
    `pretraining` adds the MLM head (decoder tied to the embeddings, so only its bias
    counts) and the SOP/NSP head (not with `sentence_objective="none"`); `masked_lm` and
    `token_classification` have no pooler, as in transformers.
    """
    if head not in HEADS:
        raise ValueError(f"head must be one of {', '.join(HEADS)}, got {head!r}.")
    V, E, H, I = config.vocab_size, config.embedding_size, config.hidden_size, config.intermediate_size
    linear = lambda n_in, n_out: n_in * n_out + n_out  # noqa: E731 — weight + bias
    layer_norm = lambda width: 2 * width  # noqa: E731 — gain + bias
    return ParameterCount(
        token_embeddings=V * E,
        position_embeddings=config.max_position_embeddings * E,
        token_type_embeddings=config.type_vocab_size * E,
        embedding_layer_norm=layer_norm(E),
        embedding_projection=linear(E, H) if config.project_embeddings else 0,
        attention=config.num_attention_blocks * 4 * linear(H, H),  # query, key, value, output
        attention_layer_norms=config.num_attention_blocks * layer_norm(H),
        ffn=config.num_ffn_blocks * (linear(H, I) + linear(I, H)),
        ffn_layer_norms=config.num_ffn_blocks * layer_norm(H),
        pooler=linear(H, H) if head in _WITH_POOLER else 0,
        # dense H→E, LayerNorm(E), decoder bias V (decoder weight is the tied embedding matrix)
        mlm_head=linear(H, E) + layer_norm(E) + V if head in ("pretraining", "masked_lm") else 0,
        sentence_pair_head=linear(H, 2) if head == "pretraining" and config.sentence_objective != "none" else 0,
        classifier=linear(H, config.num_labels) if head in ("sequence_classification", "token_classification") else 0,
    )


def without_factorization(config: AlbertConfig) -> AlbertConfig:
    """The same model with E = H and no projection (BERT's embedding)."""
    return config.replace(embedding_size=config.hidden_size, project_embeddings=False)


def without_sharing(config: AlbertConfig) -> AlbertConfig:
    """The same model with every pass its own weights."""
    return config.replace(sharing="none", num_hidden_groups=config.num_hidden_layers)


# ----- the paper's reported figures (Lan et al., ICLR 2020), for display beside exact counts -----
PAPER_TABLE1: dict[str, float] = {
    "bert-base": 108e6,
    "bert-large": 334e6,
    "albert-base": 12e6,
    "albert-large": 18e6,
    "albert-xlarge": 60e6,
    "albert-xxlarge": 235e6,
}
"""Table 1, total parameters per preset."""

PAPER_TABLE1_NOTES: dict[str, str] = {
    "albert-xlarge": "The paper reports 60M; the architecture as specified has 58.7M (with pooler).",
    "albert-xxlarge": "The paper reports 235M; the architecture as specified has 222.6M (with pooler).",
    "bert-base": "The paper reports 108M; the architecture as specified (V = 30,000) has 109.1M with the pooler "
    "and 108.5M without it. BERT's own paper, with a 30,522-token vocabulary, says 110M.",
    "bert-large": "The paper reports 334M; the architecture as specified (V = 30,000) has 334.6M with the pooler "
    "and 333.6M without it. BERT's own paper rounds it to 340M.",
}

PAPER_TABLE2_SPEEDUP: dict[str, float] = {
    "bert-base": 4.7,
    "bert-large": 1.0,
    "albert-base": 5.6,
    "albert-large": 1.7,
    "albert-xlarge": 0.6,
    "albert-xxlarge": 0.3,
}
"""Table 2, "Speedup": data throughput at training time on the same number of TPUs, BERT-large = 1.0
(Section 4.3: "ALBERT-large is about 1.7 times faster ... ALBERT-xxlarge is about 3 times slower")."""

PAPER_TABLE3: dict[tuple[str, int], float] = {
    ("none", 64): 87e6,
    ("none", 128): 89e6,
    ("none", 256): 93e6,
    ("none", 768): 108e6,
    ("all", 64): 10e6,
    ("all", 128): 12e6,
    ("all", 256): 16e6,
    ("all", 768): 31e6,
}
"""Table 3: ALBERT-base, (sharing, E) → parameters."""

PAPER_TABLE4: dict[tuple[str, int], float] = {
    ("all", 768): 31e6,
    ("attention", 768): 83e6,
    ("ffn", 768): 57e6,
    ("none", 768): 108e6,
    ("all", 128): 12e6,
    ("attention", 128): 64e6,
    ("ffn", 128): 38e6,
    ("none", 128): 89e6,
}
"""Table 4: ALBERT-base, (sharing, E) → parameters."""
