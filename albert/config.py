"""`AlbertConfig`: one typed, validated dataclass describing an ALBERT (or BERT) encoder.

It is the single source of truth for sizes and sharing: the model, the parameter
calculator, the Hugging Face converter and the CLIs all read it. Conversion to and from
transformers' `AlbertConfig` / `config.json` lives here too, because the field names are
the same except for the two ALBERT Lab additions (`sharing`, `project_embeddings`).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

SharingMode = Literal["all", "attention", "ffn", "none"]
SHARING_MODES: tuple[str, ...] = ("all", "attention", "ffn", "none")
ACTIVATIONS: tuple[str, ...] = ("gelu_new", "gelu", "relu", "silu")
SENTENCE_OBJECTIVES: tuple[str, ...] = ("sop", "nsp", "none")

# Keys of ours that ride along in a transformers `config.json`; transformers ignores them.
_LAB_KEYS = ("sharing", "project_embeddings", "sentence_objective")
IGNORE_INDEX = -100
"""The label of a position or an example with no target (PyTorch's cross-entropy default): the one
convention that the data pipeline's labels and the heads' losses share."""
# Sizes above this are almost certainly a typo (the largest published ALBERT has H = 4096).
_MAX_SIZE = 10_000_000


class ConfigError(ValueError):
    """A configuration that cannot describe a valid model; the message says why in one English sentence.

    `code` names the rule that failed and `params` holds the values the message quotes, so a user
    interface can say the same in another language without checking the rule again, e.g.
    `ConfigError(..., code="heads_divide", hidden_size=100, num_attention_heads=3)`."""

    def __init__(self, message: str, code: str = "invalid", **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass
class AlbertConfig:
    """Sizes, sharing and regularisation of an ALBERT encoder and its heads."""

    vocab_size: int = 30000
    """V: number of tokens in the vocabulary."""
    embedding_size: int = 128
    """E: width of the token embeddings before the E→H projection (ALBERT's factorization)."""
    hidden_size: int = 768
    """H: width of every transformer pass."""
    num_hidden_layers: int = 12
    """L: number of transformer passes (applications of a layer), shared or not."""
    num_attention_heads: int = 12
    """A: attention heads; must divide H."""
    intermediate_size: int = 3072
    """Width of the feed-forward sublayer (usually 4H)."""
    sharing: SharingMode = "all"
    """Cross-layer sharing: `all` (attention + FFN), `attention`, `ffn` or `none` (BERT-style)."""
    num_hidden_groups: int = 1
    """G for `all` sharing: L passes in G contiguous blocks, each block its own weights.
    `none` is G = L (set automatically); `attention` and `ffn` require G = 1."""
    project_embeddings: bool = True
    """Apply the E→H projection. False only when E = H (BERT: the embeddings feed layer 1)."""
    hidden_act: str = "gelu_new"
    """Activation of the FFN and the MLM head: gelu_new (ALBERT), gelu (BERT), relu, silu."""
    hidden_dropout_prob: float = 0.0
    """Dropout on embeddings and sublayer outputs (ALBERT v2 uses 0)."""
    attention_probs_dropout_prob: float = 0.0
    """Dropout on attention probabilities (ALBERT v2 uses 0)."""
    classifier_dropout_prob: float = 0.1
    """Dropout before the sentence-pair, sequence- and token-classification heads."""
    max_position_embeddings: int = 512
    """Longest sequence the learned position embeddings cover."""
    type_vocab_size: int = 2
    """Number of segment (token type) ids."""
    initializer_range: float = 0.02
    """Standard deviation of the normal initialisation of weights."""
    layer_norm_eps: float = 1e-12
    """Epsilon of every LayerNorm."""
    pad_token_id: int = 0
    """Id of `<pad>`; its embedding row starts at zero and receives no gradient."""
    bos_token_id: int = 2
    """Id of `[CLS]`."""
    eos_token_id: int = 3
    """Id of `[SEP]`."""
    sentence_objective: Literal["sop", "nsp", "none"] = "sop"
    """What the sentence-pair head was (or will be) trained on: sentence order or next sentence;
    "none": pretrained with MLM only, and `AlbertForPreTraining` has no sentence-pair head."""
    num_labels: int = 2
    """Outputs of a classification head (1 means regression)."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Other keys read from a `config.json` (labels, architectures…), written back unchanged."""

    def __post_init__(self) -> None:
        for name in ("vocab_size", "embedding_size", "hidden_size", "num_hidden_layers",
                     "num_attention_heads", "intermediate_size", "num_hidden_groups",
                     "max_position_embeddings", "type_vocab_size", "num_labels"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name} must be a whole number, got {value!r}.")
            if value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}.")
            if value > _MAX_SIZE:
                raise ConfigError(f"{name} = {value:,} is beyond the supported {_MAX_SIZE:,}.")
        if self.hidden_size % self.num_attention_heads:
            raise ConfigError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads}); try {self._nearest_head_counts()}.")
        if self.sharing not in SHARING_MODES:
            raise ConfigError(f"sharing must be one of {', '.join(SHARING_MODES)}, got {self.sharing!r}.")
        if self.sharing == "none":
            if self.num_hidden_groups not in (1, self.num_hidden_layers):
                raise ConfigError(
                    "sharing 'none' gives every pass its own weights (groups = layers); "
                    f"num_hidden_groups must be 1 or {self.num_hidden_layers}, got {self.num_hidden_groups}.")
            self.num_hidden_groups = self.num_hidden_layers
        elif self.sharing in ("attention", "ffn") and self.num_hidden_groups != 1:
            raise ConfigError(
                f"sharing {self.sharing!r} shares one sublayer across all passes; "
                f"num_hidden_groups must be 1, got {self.num_hidden_groups}.")
        if self.num_hidden_layers % self.num_hidden_groups:
            raise ConfigError(
                f"num_hidden_groups ({self.num_hidden_groups}) must divide num_hidden_layers "
                f"({self.num_hidden_layers}).")
        if not self.project_embeddings and self.embedding_size != self.hidden_size:
            raise ConfigError(
                "project_embeddings=False needs embedding_size == hidden_size "
                f"(got E={self.embedding_size}, H={self.hidden_size}).")
        if self.hidden_act not in ACTIVATIONS:
            raise ConfigError(f"hidden_act must be one of {', '.join(ACTIVATIONS)}, got {self.hidden_act!r}.")
        if self.sentence_objective not in SENTENCE_OBJECTIVES:
            raise ConfigError(f"sentence_objective must be 'sop', 'nsp' or 'none' (MLM only), "
                              f"got {self.sentence_objective!r}.")
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob", "classifier_dropout_prob"):
            value = getattr(self, name)
            if not 0.0 <= float(value) < 1.0:
                raise ConfigError(f"{name} must be in [0, 1), got {value}.")
        if not self.initializer_range > 0 or not self.layer_norm_eps > 0:
            raise ConfigError("initializer_range and layer_norm_eps must be positive.")
        for name in ("pad_token_id", "bos_token_id", "eos_token_id"):
            if not 0 <= getattr(self, name) < self.vocab_size:
                raise ConfigError(f"{name} ({getattr(self, name)}) must be a token id below "
                                  f"vocab_size ({self.vocab_size}).")

    def _nearest_head_counts(self) -> str:
        divisors = [a for a in range(1, min(self.hidden_size, 128) + 1) if self.hidden_size % a == 0]
        closest = sorted(divisors, key=lambda a: abs(a - self.num_attention_heads))[:3]
        return " or ".join(str(a) for a in sorted(closest))

    # ----- derived sizes -------------------------------------------------------------
    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def num_attention_blocks(self) -> int:
        """Distinct attention sublayers (weight sets) across the L passes."""
        return self.num_hidden_groups if self.sharing in ("all", "none") else (
            1 if self.sharing == "attention" else self.num_hidden_layers)

    @property
    def num_ffn_blocks(self) -> int:
        """Distinct feed-forward sublayers (weight sets) across the L passes."""
        return self.num_hidden_groups if self.sharing in ("all", "none") else (
            1 if self.sharing == "ffn" else self.num_hidden_layers)

    def attention_block_of(self, pass_index: int) -> int:
        """Which attention weight set pass `pass_index` uses (Google's group rule)."""
        return pass_index * self.num_attention_blocks // self.num_hidden_layers

    def ffn_block_of(self, pass_index: int) -> int:
        """Which feed-forward weight set pass `pass_index` uses."""
        return pass_index * self.num_ffn_blocks // self.num_hidden_layers

    @property
    def transformers_compatible(self) -> bool:
        """transformers' ALBERT can represent `all` (any groups) and `none`, not `attention`/`ffn`."""
        return self.sharing in ("all", "none")

    def replace(self, **changes: Any) -> AlbertConfig:
        """A validated copy with some fields changed (groups re-derived for `none`)."""
        if changes.get("sharing", self.sharing) != "none" and self.sharing == "none" \
                and "num_hidden_groups" not in changes:
            changes["num_hidden_groups"] = 1
        return dataclasses.replace(self, **changes)

    # ----- config.json ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A transformers-compatible `config.json` dictionary (plus ALBERT Lab's own keys)."""
        data = dict(self.extra)
        data.update({f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                     if f.name not in ("extra", "num_labels")})
        data["model_type"] = "albert"
        data["inner_group_num"] = 1
        data["position_embedding_type"] = "absolute"
        data.setdefault("architectures", ["AlbertForPreTraining"])
        labels = data.get("id2label")
        if not isinstance(labels, dict) or len(labels) != self.num_labels:
            # Labels read from a config.json ride in `extra`; a changed num_labels must win,
            # or the next load would build a classifier of the old width.
            data["id2label"] = {str(i): f"LABEL_{i}" for i in range(self.num_labels)}
            data["label2id"] = {f"LABEL_{i}": i for i in range(self.num_labels)}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> AlbertConfig:
        """Build from a `config.json` dictionary of ours or of transformers' ALBERT."""
        model_type = data.get("model_type", "albert")
        if model_type != "albert":
            raise ConfigError(f"{source} describes a {model_type!r} model; ALBERT Lab reads only 'albert' configs.")
        if data.get("inner_group_num", 1) != 1:
            raise ConfigError(f"{source} has inner_group_num={data['inner_group_num']}; ALBERT Lab supports 1 "
                              "(one layer per group, as every published ALBERT).")
        if data.get("position_embedding_type", "absolute") != "absolute":
            raise ConfigError(f"{source} uses position_embedding_type={data['position_embedding_type']!r}; "
                              "only 'absolute' is supported.")
        names = {f.name for f in dataclasses.fields(cls)} - {"extra", "num_labels"}
        kwargs = {k: data[k] for k in names if k in data}
        extra = {k: v for k, v in data.items() if k not in names and k not in
                 ("model_type", "inner_group_num", "position_embedding_type", "transformers_version")}
        id2label = data.get("id2label")
        if id2label:
            kwargs["num_labels"] = len(id2label)
        if "sharing" not in data:
            # A transformers checkpoint: groups == layers (> 1) is BERT-style; otherwise `all`.
            # (values are not int()-converted here: a malformed one must reach validation, not crash)
            layers, groups = data.get("num_hidden_layers", 12), data.get("num_hidden_groups", 1)
            kwargs["sharing"] = "none" if groups == layers and isinstance(layers, int) and layers > 1 else "all"
        try:
            return cls(**kwargs, extra=extra)
        except TypeError as error:
            raise ConfigError(f"{source} has a field of the wrong type: {error}.") from error
        except ConfigError as error:
            if source == "config":
                raise
            raise ConfigError(f"{source}: {error}") from error  # say which file holds the bad value

    def save(self, directory: str | os.PathLike) -> Path:
        """Write `config.json` atomically into `directory`."""
        from albert.io import atomic_write_text

        path = Path(directory) / "config.json"
        atomic_write_text(path, json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> AlbertConfig:
        """Read a `config.json` (or a directory holding one); errors name the file."""
        path = Path(path)
        if path.is_dir():
            path = path / "config.json"
        return cls.from_dict(read_config_json(path), source=str(path))

    def to_transformers(self):  # -> transformers.AlbertConfig
        """transformers' `AlbertConfig` for modes it can represent; refuses the others."""
        if not self.transformers_compatible:
            raise ConfigError(
                f"transformers' ALBERT cannot represent sharing {self.sharing!r} (it shares whole "
                "layers only); use sharing 'all' or 'none', or load it with ALBERT Lab.")
        import transformers

        data = self.to_dict()
        data.pop("model_type")
        return transformers.AlbertConfig(**data)

    @classmethod
    def from_transformers(cls, hf_config: Any) -> AlbertConfig:
        return cls.from_dict(hf_config.to_dict(), source=type(hf_config).__name__)


def read_config_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; a missing, unreadable or non-object file raises `ConfigError`."""
    if not path.is_file():
        raise ConfigError(f"No config.json at {path}.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not valid JSON ({error}).") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object.")
    return data


def _preset(**sizes: Any) -> AlbertConfig:
    return AlbertConfig(vocab_size=30000, max_position_embeddings=512, type_vocab_size=2, **sizes)


PRESETS: dict[str, AlbertConfig] = {
    "albert-base": _preset(embedding_size=128, hidden_size=768, num_hidden_layers=12,
                           num_attention_heads=12, intermediate_size=3072),
    "albert-large": _preset(embedding_size=128, hidden_size=1024, num_hidden_layers=24,
                            num_attention_heads=16, intermediate_size=4096),
    "albert-xlarge": _preset(embedding_size=128, hidden_size=2048, num_hidden_layers=24,
                             num_attention_heads=16, intermediate_size=8192),
    "albert-xxlarge": _preset(embedding_size=128, hidden_size=4096, num_hidden_layers=12,
                              num_attention_heads=64, intermediate_size=16384),
    "bert-base": _preset(embedding_size=768, hidden_size=768, num_hidden_layers=12,
                         num_attention_heads=12, intermediate_size=3072, sharing="none",
                         project_embeddings=False, hidden_act="gelu"),
    "bert-large": _preset(embedding_size=1024, hidden_size=1024, num_hidden_layers=24,
                          num_attention_heads=16, intermediate_size=4096, sharing="none",
                          project_embeddings=False, hidden_act="gelu"),
}
"""The paper's Table 1 configurations (V = 30000). Copy with `.replace(...)` before changing."""
