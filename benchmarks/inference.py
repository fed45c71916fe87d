"""Inference speed: ALBERT Lab's `AlbertModel` against transformers' `AlbertModel`, same weights.

    python -m benchmarks.inference                      # albert-base, fp32, batch 8 × 128, CPU
    python -m benchmarks.inference --rounds 20 --threads 4

Both models run in one process, alternating (ours then theirs, then theirs then ours, …) so
that thermal drift, other processes and allocator state hit both alike. The report gives the
median time of each, the speed ratio (transformers' time / ours: ≥ 1.0 means ours is at least
as fast) and the FLOP/s each reaches as a fraction of a dense fp32 matmul peak measured on the
spot, so the numbers mean something on any machine.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import torch

if TYPE_CHECKING:  # imported lazily at run time: `python benchmarks/inference.py` sets sys.path first
    from albert.core.config import AlbertConfig

logger = logging.getLogger("benchmarks.inference")


@dataclass
class BenchmarkConfig:
    """Settings of the inference benchmark."""

    preset: Literal["albert-base", "albert-large", "albert-xlarge", "albert-xxlarge", "bert-base", "bert-large"] = (
        "albert-base"
    )
    """Model configuration from `albert.PRESETS`."""
    batch_size: int = 8
    """Sequences per forward pass."""
    seq_len: int = 128
    """Tokens per sequence."""
    padding: bool = False
    """Pad the second half of the batch to half length (exercises the attention mask)."""
    warmup: int = 3
    """Untimed forward passes of each model before measuring."""
    rounds: int = 10
    """Timed rounds; each round runs both models once, in alternating order."""
    threads: int = 0
    """torch intra-op threads (0 keeps torch's default)."""
    matmul_size: int = 2048
    """n of the n×n fp32 matmul that measures the machine's peak FLOP/s."""
    seed: int = 0
    """Seed of the random weights and token ids."""


def model_flops(config: AlbertConfig, batch_size: int, seq_len: int) -> int:
    """FLOPs of one `AlbertModel` forward: the library's per-token count (`albert.core.compute.flops_per_token`,
    matmuls only, 2 per multiply-add) for every token, plus the pooler (H² multiply-adds once per sequence, which a
    per-token count leaves out)."""
    from albert.core.compute import flops_per_token

    per_token = flops_per_token(config, seq_len).forward
    return batch_size * seq_len * per_token + 2 * batch_size * config.hidden_size * config.hidden_size


def measure_matmul_peak(n: int = 2048, repeats: int = 5) -> float:
    """FLOP/s of a dense n×n fp32 matmul on this machine, the best of a few repeats."""
    probe = matmul_probe(n)
    return max(probe() for _ in range(repeats))


def matmul_probe(n: int) -> Callable[[], float]:
    """A function that times one dense n×n fp32 matmul and returns its FLOP/s.

    It is called inside every round, beside the models, so the peak is measured under the
    same load as they are (on a shared machine a peak taken once, before or after, is not).
    """
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)  # warm-up: thread pool and allocator
    return lambda: 2 * n**3 / _timed(lambda: torch.mm(a, b))


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def run_benchmark(settings: BenchmarkConfig) -> dict[str, object]:
    """Build both models with identical weights, time them alternately, return the measurements."""
    import transformers

    from albert import PRESETS, AlbertModel
    from albert.core.hf import to_transformers

    if settings.threads > 0:
        torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    config = PRESETS[settings.preset]
    ours = AlbertModel(config).eval()
    theirs = to_transformers(ours).eval()  # transformers' default attention (sdpa in 5.x)
    theirs_attention = theirs.config._attn_implementation
    logger.info(
        "transformers %s, torch %s, %d threads", transformers.__version__, torch.__version__, torch.get_num_threads()
    )

    B, T = settings.batch_size, settings.seq_len
    input_ids = torch.randint(5, config.vocab_size, (B, T))
    attention_mask = torch.ones(B, T, dtype=torch.long)
    if settings.padding:
        attention_mask[B // 2 :, T // 2 :] = 0
        input_ids[attention_mask == 0] = config.pad_token_id
    token_type_ids = torch.zeros(B, T, dtype=torch.long)
    token_type_ids[:, T // 2 :] = 1

    def run_ours() -> torch.Tensor:
        return ours(input_ids, attention_mask, token_type_ids).last_hidden_state

    def run_theirs() -> torch.Tensor:
        return theirs(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state

    times: dict[str, list[float]] = {"ours": [], "transformers": []}
    peaks: list[float] = []
    probe = matmul_probe(settings.matmul_size)
    with torch.inference_mode():
        max_diff = (run_ours() - run_theirs()).abs().max().item()
        for _ in range(settings.warmup):
            run_ours()
            run_theirs()
        for round_index in range(settings.rounds):
            order = [("ours", run_ours), ("transformers", run_theirs)]
            if round_index % 2:
                order.reverse()  # alternate who goes first, so neither always runs on a warmer cache
            for name, run in order:
                times[name].append(_timed(run))
            peaks.append(max(probe() for _ in range(3)))
            logger.info(
                "round %d: ours %.1f ms, transformers %.1f ms, matmul %.1f GFLOP/s",
                round_index + 1,
                times["ours"][-1] * 1e3,
                times["transformers"][-1] * 1e3,
                peaks[-1] / 1e9,
            )
    peak = statistics.median(peaks)
    flops = model_flops(config, B, T)
    medians = {name: statistics.median(values) for name, values in times.items()}
    return {
        "settings": settings,
        "flops": flops,
        "peak": peak,
        "medians": medians,
        "max_diff": max_diff,
        "attention": {
            "ours": "torch.nn.functional.scaled_dot_product_attention"
            + (" (no mask: no padding)" if not settings.padding else " (additive padding mask)"),
            "transformers": theirs_attention,
        },
        "threads": torch.get_num_threads(),
    }


def format_report(result: dict[str, object]) -> str:
    settings: BenchmarkConfig = result["settings"]  # type: ignore[assignment]
    medians: dict[str, float] = result["medians"]  # type: ignore[assignment]
    peak, flops = float(result["peak"]), int(result["flops"])  # type: ignore[arg-type]
    attention: dict[str, str] = result["attention"]  # type: ignore[assignment]
    lines = [
        f"{settings.preset}, fp32, batch {settings.batch_size} × {settings.seq_len} tokens, CPU, "
        f"{result['threads']} threads, {settings.rounds} alternating rounds, torch.inference_mode",
        f"model FLOPs per forward: {flops / 1e9:.1f} GFLOP; matmul peak ({settings.matmul_size}² fp32 "
        f"torch.mm, best of 3 per round, median over rounds): {peak / 1e9:.1f} GFLOP/s",
    ]
    for name in ("ours", "transformers"):
        seconds = medians[name]
        lines.append(
            f"{name:>12}: median {seconds * 1e3:8.1f} ms  {flops / seconds / 1e9:7.1f} GFLOP/s "
            f"= {flops / seconds / peak:5.1%} of peak  [attention: {attention[name]}]"
        )
    lines.append(
        f"speed ratio (transformers time / ours): {medians['transformers'] / medians['ours']:.3f}"
        "  (≥ 1.0: ours at least as fast)"
    )
    lines.append(f"max |ours − transformers| on the last hidden state: {result['max_diff']:.2e}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from albert.cli import parse_config

    settings = parse_config(BenchmarkConfig, argv, description=__doc__.split("\n\n")[0])
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    print(format_report(run_benchmark(settings)))  # the command's final report
    return 0


if __name__ == "__main__":
    if __package__ in (None, ""):  # `python benchmarks/inference.py`: make `albert` importable
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
