"""A model's file size in fp32, fp16 and dynamic INT8, from the calculator's exact parameter count.

fp32 stores 4 bytes a parameter, fp16 2. Dynamic INT8 (`albert.quantize`: PyTorch's `quantize_dynamic` on
`nn.Linear`) stores each Linear layer's *weight* in 1 byte and leaves everything else in fp32: the Linear layers'
biases, the embedding tables and every LayerNorm. The Linear weights are read off the count's components (each
component's count is weights + biases, so the weights are exact integers): attention 4·H² per distinct attention
block, feed-forward 2·H·I per distinct FFN block, the E→H projection E·H, the pooler H², and a head's Linear
weights when the count has a head. A few bytes of scale per Linear layer and the file's header are not counted.
For ALBERT-base (11,683,584 parameters): 46,734,336 bytes fp32, 23,367,168 fp16, 23,436,288 dynamic INT8
(docs/results/finetuning-practices.md, "The seed's phone claim").
"""

from __future__ import annotations

from dataclasses import dataclass

from albert.core.config import AlbertConfig
from albert.core.params import ParameterCount


@dataclass(frozen=True)
class FileSizes:
    """Bytes of a model's weights in three storage formats."""

    parameters: int
    linear_weights: int
    """Parameters that are weights of Linear layers (what dynamic INT8 stores in 1 byte)."""

    @property
    def fp32(self) -> int:
        return 4 * self.parameters

    @property
    def fp16(self) -> int:
        return 2 * self.parameters

    @property
    def dynamic_int8(self) -> int:
        return self.linear_weights + 4 * (self.parameters - self.linear_weights)

    def as_dict(self) -> dict[str, int]:
        return {
            "fp32_bytes": self.fp32,
            "fp16_bytes": self.fp16,
            "dynamic_int8_bytes": self.dynamic_int8,
            "linear_weight_parameters": self.linear_weights,
        }


def _blocks(component: int, per_block: int, name: str) -> int:
    """How many distinct blocks a component's count holds (it is a whole multiple of one block's count)."""
    blocks, rest = divmod(component, per_block)
    if rest:
        raise ValueError(f"{name}: {component:,} parameters are not a whole number of blocks of {per_block:,}")
    return blocks


def linear_weights(config: AlbertConfig, count: ParameterCount) -> int:
    """Parameters of `count` that are weights of Linear layers (biases excluded)."""
    H, I, E = config.hidden_size, config.intermediate_size, config.embedding_size
    attention = _blocks(count.attention, 4 * (H * H + H), "attention") * 4 * H * H
    ffn = _blocks(count.ffn, 2 * H * I + H + I, "ffn") * 2 * H * I
    projection = E * H if count.embedding_projection else 0
    pooler = H * H if count.pooler else 0
    heads = (H * E if count.mlm_head else 0) + (2 * H if count.sentence_pair_head else 0)
    heads += H * config.num_labels if count.classifier else 0  # the MLM decoder's bias and LayerNorm stay fp32
    return attention + ffn + projection + pooler + heads


def file_sizes(config: AlbertConfig, count: ParameterCount) -> FileSizes:
    """The weights' bytes in fp32, fp16 and dynamic INT8 of the model `count` counts."""
    return FileSizes(parameters=count.total, linear_weights=linear_weights(config, count))


def megabytes(n: int) -> str:
    """46,734,336 → '46.7 MB' (10^6 bytes); small files keep two decimals, huge ones read in GB."""
    if n >= 10**9:
        return f"{n / 1e9:.2f} GB"
    return f"{n / 1e6:.1f} MB" if n >= 10**7 else f"{n / 1e6:.2f} MB"
