"""A model's file size in fp32, fp16 and dynamic INT8, from the calculator's exact parameter count.

fp32 stores 4 bytes a parameter, fp16 2. Dynamic INT8 (`albert.core.quantize`: PyTorch's `quantize_dynamic` on
`nn.Linear`, per-channel weights) stores each Linear layer's *weight* in 1 byte plus an fp64 scale and an int64
zero point per output row, and leaves everything else in fp32: the Linear layers' biases, the embedding tables
and every LayerNorm. The Linear weights are read off the count's components (each component's count is weights +
biases, so the weights are exact integers): attention 4·H² per distinct attention block, feed-forward 2·H·I per
distinct FFN block, the E→H projection E·H, the pooler H², and a head's Linear weights when the count has a head.
The file's header (a few kilobytes) is not counted. For ALBERT-base (11,683,584 parameters): 46,734,336 bytes
fp32, 23,367,168 fp16, 23,571,456 dynamic INT8 (7,766,016 one-byte weights, 8,448 rows of scales; `torch.save`
of the quantized state dict measures 23,590,836 bytes). docs/results/finetuning-practices.md's 23,436,288 leaves
out the scales.
"""

from __future__ import annotations

from dataclasses import dataclass

from albert.core.config import AlbertConfig
from albert.core.params import ParameterCount

SCALE_BYTES = 16
"""Per output row of a dynamic INT8 Linear (`albert.core.quantize` uses per-channel weights): an fp64 scale and an
int64 zero point."""


@dataclass(frozen=True)
class FileSizes:
    """Bytes of a model's weights in three storage formats."""

    parameters: int
    linear_weights: int
    """Parameters that are weights of Linear layers (what dynamic INT8 stores in 1 byte)."""
    linear_rows: int
    """Output rows of those Linear layers: each keeps an fp64 scale and an int64 zero point (per-channel INT8)."""

    @property
    def fp32(self) -> int:
        return 4 * self.parameters

    @property
    def fp16(self) -> int:
        return 2 * self.parameters

    @property
    def dynamic_int8(self) -> int:
        return self.linear_weights + SCALE_BYTES * self.linear_rows + 4 * (self.parameters - self.linear_weights)

    def as_dict(self) -> dict[str, int]:
        return {
            "fp32_bytes": self.fp32,
            "fp16_bytes": self.fp16,
            "dynamic_int8_bytes": self.dynamic_int8,
            "linear_weight_parameters": self.linear_weights,
            "linear_output_rows": self.linear_rows,
        }


def _blocks(component: int, per_block: int, name: str) -> int:
    """How many distinct blocks a component's count holds (it is a whole multiple of one block's count)."""
    blocks, rest = divmod(component, per_block)
    if rest:
        raise ValueError(f"{name}: {component:,} parameters are not a whole number of blocks of {per_block:,}")
    return blocks


def linear_shapes(config: AlbertConfig, count: ParameterCount) -> tuple[int, int]:
    """(weights, output rows) of the Linear layers in `count` (biases excluded)."""
    H, I, E = config.hidden_size, config.intermediate_size, config.embedding_size
    attention = _blocks(count.attention, 4 * (H * H + H), "attention")
    ffn = _blocks(count.ffn, 2 * H * I + H + I, "ffn")
    shapes = [(attention * 4 * H * H, attention * 4 * H), (ffn * 2 * H * I, ffn * (I + H))]
    if count.embedding_projection:
        shapes.append((E * H, H))
    if count.pooler:
        shapes.append((H * H, H))
    if count.mlm_head:  # its decoder's bias and its LayerNorm stay fp32; the decoder weight is the embedding table
        shapes.append((H * E, E))
    if count.sentence_pair_head:
        shapes.append((2 * H, 2))
    if count.classifier:
        shapes.append((H * config.num_labels, config.num_labels))
    return sum(w for w, _ in shapes), sum(r for _, r in shapes)


def file_sizes(config: AlbertConfig, count: ParameterCount) -> FileSizes:
    """The weights' bytes in fp32, fp16 and dynamic INT8 of the model `count` counts."""
    weights, rows = linear_shapes(config, count)
    return FileSizes(parameters=count.total, linear_weights=weights, linear_rows=rows)


def megabytes(n: int) -> str:
    """46,734,336 → '46.7 MB' (10^6 bytes); small files keep two decimals, huge ones read in GB."""
    if n >= 10**9:
        return f"{n / 1e9:.2f} GB"
    return f"{n / 1e6:.1f} MB" if n >= 10**7 else f"{n / 1e6:.2f} MB"
