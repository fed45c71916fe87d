"""`AlbertConfig`: one typed, validated dataclass describing an ALBERT (or BERT) encoder.

It is the single source of truth for sizes and sharing: the model, the parameter calculator, the
Hugging Face adapter and the CLIs all read it. Each allowed value is written once, as a `Literal`
whose values the checks read back. A saved `config.json` is transformers' format plus ALBERT Lab's
own keys; the translation lives in `albert.core.hf` (the adapter), and `to_dict` / `from_dict` call it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from albert.core.hf import config_from_hf, config_to_hf
from albert.errors import ConfigError

SharingMode = Literal["all", "attention", "ffn", "none"]
SHARING_MODES: tuple[str, ...] = typing.get_args(SharingMode)
Activation = Literal["gelu_new", "gelu", "relu", "silu"]
ACTIVATIONS: tuple[str, ...] = typing.get_args(Activation)
SentenceObjective = Literal["sop", "nsp", "none"]
SENTENCE_OBJECTIVES: tuple[str, ...] = typing.get_args(SentenceObjective)

IGNORE_INDEX = -100
"""The label of a position or an example with no target (PyTorch's cross-entropy default): the one
convention that the data pipeline's labels and the heads' losses share."""
# Sizes above this are almost certainly a typo (the largest published ALBERT has H = 4096).
MAX_SIZE = 10_000_000
_SIZES = (
    "vocab_size",
    "embedding_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "num_hidden_groups",
    "max_position_embeddings",
    "type_vocab_size",
    "num_labels",
)

__all__ = [
    "ACTIVATIONS",
    "IGNORE_INDEX",
    "PRESETS",
    "SENTENCE_OBJECTIVES",
    "SHARING_MODES",
    "AlbertConfig",
    "ConfigError",
    "read_config_json",
]


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
    hidden_act: Activation = "gelu_new"
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
    sentence_objective: SentenceObjective = "sop"
    """What the sentence-pair head was (or will be) trained on: sentence order or next sentence;
    "none": pretrained with MLM only, and `AlbertForPreTraining` has no sentence-pair head."""
    num_labels: int = 2
    """Outputs of a classification head (1 means regression)."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Other keys read from a `config.json` (labels, architectures…), written back unchanged."""

    def __post_init__(self) -> None:
        """Every rule raises `ConfigError(sentence, code, **values)`."""
        self._check_sizes()
        self._check_sharing()
        if not self.project_embeddings and self.embedding_size != self.hidden_size:
            raise ConfigError(
                "project_embeddings=False needs embedding_size == hidden_size "
                f"(got E={self.embedding_size}, H={self.hidden_size}).",
                "projection",
                embedding_size=self.embedding_size,
                hidden_size=self.hidden_size,
            )
        if self.hidden_act not in ACTIVATIONS:
            raise ConfigError(
                f"hidden_act must be one of {', '.join(ACTIVATIONS)}, got {self.hidden_act!r}.",
                "choice",
                field="hidden_act",
                value=self.hidden_act,
                choices=ACTIVATIONS,
            )
        if self.sentence_objective not in SENTENCE_OBJECTIVES:
            raise ConfigError(
                f"sentence_objective must be 'sop', 'nsp' or 'none' (MLM only), got {self.sentence_objective!r}.",
                "choice",
                field="sentence_objective",
                value=self.sentence_objective,
                choices=SENTENCE_OBJECTIVES,
            )
        self._check_regularisation()

    def _check_sizes(self) -> None:
        for name in _SIZES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(
                    f"{name} must be a whole number, got {value!r}.", "not_whole", field=name, value=value
                )
            if value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}.", "too_small", field=name, value=value)
            if value > MAX_SIZE:
                raise ConfigError(
                    f"{name} = {value:,} is beyond the supported {MAX_SIZE:,}.",
                    "too_big",
                    field=name,
                    value=value,
                    limit=MAX_SIZE,
                )
        if self.hidden_size % self.num_attention_heads:
            raise ConfigError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads}); try {self._nearest_head_counts()}.",
                "heads_divide",
                hidden_size=self.hidden_size,
                num_attention_heads=self.num_attention_heads,
            )
        for name in ("pad_token_id", "bos_token_id", "eos_token_id"):
            if not 0 <= getattr(self, name) < self.vocab_size:
                raise ConfigError(
                    f"{name} ({getattr(self, name)}) must be a token id below vocab_size ({self.vocab_size}).",
                    "token_id",
                    field=name,
                    value=getattr(self, name),
                    vocab_size=self.vocab_size,
                )

    def _check_sharing(self) -> None:
        """The mode, and the groups it allows (`none` sets groups = layers)."""
        layers, groups = self.num_hidden_layers, self.num_hidden_groups
        if self.sharing not in SHARING_MODES:
            raise ConfigError(
                f"sharing must be one of {', '.join(SHARING_MODES)}, got {self.sharing!r}.",
                "choice",
                field="sharing",
                value=self.sharing,
                choices=SHARING_MODES,
            )
        if self.sharing == "none":
            if groups not in (1, layers):
                raise ConfigError(
                    "sharing 'none' gives every pass its own weights (groups = layers); "
                    f"num_hidden_groups must be 1 or {layers}, got {groups}.",
                    "groups_none",
                    num_hidden_layers=layers,
                    num_hidden_groups=groups,
                )
            self.num_hidden_groups = groups = layers
        elif self.sharing in ("attention", "ffn") and groups != 1:
            raise ConfigError(
                f"sharing {self.sharing!r} shares one sublayer across all passes; "
                f"num_hidden_groups must be 1, got {groups}.",
                "groups_partial",
                sharing=self.sharing,
                num_hidden_groups=groups,
            )
        if layers % groups:
            raise ConfigError(
                f"num_hidden_groups ({groups}) must divide num_hidden_layers ({layers}).",
                "groups_divide",
                num_hidden_groups=groups,
                num_hidden_layers=layers,
            )

    def _check_regularisation(self) -> None:
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob", "classifier_dropout_prob"):
            value = getattr(self, name)
            if not 0.0 <= float(value) < 1.0:
                raise ConfigError(f"{name} must be in [0, 1), got {value}.", "probability", field=name, value=value)
        if not self.initializer_range > 0 or not self.layer_norm_eps > 0:
            raise ConfigError(
                "initializer_range and layer_norm_eps must be positive.",
                "not_positive",
                initializer_range=self.initializer_range,
                layer_norm_eps=self.layer_norm_eps,
            )

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
        return (
            self.num_hidden_groups
            if self.sharing in ("all", "none")
            else (1 if self.sharing == "attention" else self.num_hidden_layers)
        )

    @property
    def num_ffn_blocks(self) -> int:
        """Distinct feed-forward sublayers (weight sets) across the L passes."""
        return (
            self.num_hidden_groups
            if self.sharing in ("all", "none")
            else (1 if self.sharing == "ffn" else self.num_hidden_layers)
        )

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
        if (
            changes.get("sharing", self.sharing) != "none"
            and self.sharing == "none"
            and "num_hidden_groups" not in changes
        ):
            changes["num_hidden_groups"] = 1
        return dataclasses.replace(self, **changes)

    # ----- config.json (the translation is albert.core.hf's) ------------------------------------
    def to_dict(self, architecture: str | None = None, sentence_pair_head: bool = False) -> dict[str, Any]:
        """A transformers-compatible `config.json` dictionary (plus ALBERT Lab's own keys) for a model of
        class `architecture` (with a binary sentence-pair head when `sentence_pair_head`)."""
        ours = {**self.extra, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}}
        return config_to_hf(ours, architecture, sentence_pair_head)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> AlbertConfig:
        """Build from a `config.json` dictionary of ours or of transformers' ALBERT."""
        ours = config_from_hf(data, source)
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        try:
            return cls(
                **{k: v for k, v in ours.items() if k in names}, extra={k: v for k, v in ours.items() if k not in names}
            )
        except TypeError as error:
            raise ConfigError(
                f"{source} has a field of the wrong type: {error}.", "field_type", source=source
            ) from error
        except ConfigError as error:
            if source == "config":
                raise
            raise error.located(source) from error  # say which file holds the bad value

    def save(
        self,
        directory: str | os.PathLike,
        architecture: str | None = None,
        sentence_pair_head: bool = False,
        **keys: Any,
    ) -> Path:
        """Write `config.json` atomically into `directory` (the one writer of it): `to_dict(...)` plus `keys`."""
        from albert.io import atomic_write_text

        path = Path(directory) / "config.json"
        data = {**self.to_dict(architecture, sentence_pair_head), **keys}
        atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> AlbertConfig:
        """Read a `config.json` (or a directory holding one); errors name the file."""
        path = Path(path)
        if path.is_dir():
            path = path / "config.json"
        return cls.from_dict(read_config_json(path), source=str(path))

    def to_transformers(self, sentence_pair_head: bool = False):  # -> transformers.AlbertConfig
        """transformers' `AlbertConfig` for modes it can represent; refuses the others."""
        if not self.transformers_compatible:
            raise ConfigError(
                f"transformers' ALBERT cannot represent sharing {self.sharing!r} (it shares whole "
                "layers only); use sharing 'all' or 'none', or load it with ALBERT Lab.",
                "not_transformers_compatible",
                sharing=self.sharing,
            )
        import transformers

        data = self.to_dict(sentence_pair_head=sentence_pair_head)
        data.pop("model_type")
        return transformers.AlbertConfig(**data)

    @classmethod
    def from_transformers(cls, hf_config: Any) -> AlbertConfig:
        return cls.from_dict(hf_config.to_dict(), source=type(hf_config).__name__)


def read_config_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; a missing, unreadable or non-object file raises `ConfigError`."""
    if not path.is_file():
        raise ConfigError(f"No config.json at {path}.", "no_config", path=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not valid JSON ({error}).", "bad_json", path=str(path)) from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object.", "not_object", path=str(path))
    return data


def _preset(**sizes: Any) -> AlbertConfig:
    return AlbertConfig(vocab_size=30000, max_position_embeddings=512, type_vocab_size=2, **sizes)


PRESETS: dict[str, AlbertConfig] = {
    "albert-base": _preset(
        embedding_size=128, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072
    ),
    "albert-large": _preset(
        embedding_size=128, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096
    ),
    "albert-xlarge": _preset(
        embedding_size=128, hidden_size=2048, num_hidden_layers=24, num_attention_heads=16, intermediate_size=8192
    ),
    "albert-xxlarge": _preset(
        embedding_size=128, hidden_size=4096, num_hidden_layers=12, num_attention_heads=64, intermediate_size=16384
    ),
    "bert-base": _preset(
        embedding_size=768,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        sharing="none",
        project_embeddings=False,
        hidden_act="gelu",
    ),
    "bert-large": _preset(
        embedding_size=1024,
        hidden_size=1024,
        num_hidden_layers=24,
        num_attention_heads=16,
        intermediate_size=4096,
        sharing="none",
        project_embeddings=False,
        hidden_act="gelu",
    ),
}
"""The paper's Table 1 configurations (V = 30000). Copy with `.replace(...)` before changing."""
