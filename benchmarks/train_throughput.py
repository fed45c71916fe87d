"""Pretraining-step throughput: ALBERT Lab's `AlbertForPreTraining` against transformers'.

Same config, same initial weights, same batches (15% of positions labelled for MLM, a
sentence-order label each), same AdamW; the two step functions alternate in one process
so that machine noise hits both alike. Prints tokens/s of each, the ratio, and model
FLOP/s as a fraction of a matmul peak measured on the spot.

    python -m benchmarks.train_throughput              # (a) demo size and (b) albert-base
    python -m benchmarks.train_throughput --only demo
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable

import torch

from albert import PRESETS, AlbertConfig, AlbertForPreTraining
from albert.core.compute import flops_per_token
from albert.core.hf import to_transformers
from benchmarks.inference import measure_matmul_peak, model_flops

logger = logging.getLogger("benchmarks.train_throughput")

CASES: dict[str, tuple[AlbertConfig, int, int]] = {
    # name: (config, batch, sequence length)
    "demo": (
        AlbertConfig(
            vocab_size=16000,
            embedding_size=128,
            hidden_size=256,
            num_hidden_layers=6,
            num_attention_heads=4,
            intermediate_size=1024,
        ),
        32,
        128,
    ),
    "albert-base": (PRESETS["albert-base"], 4, 128),
}


def training_flops_per_token(config: AlbertConfig, length: int) -> float:
    """Model FLOPs per token of a training step: 3× the encoder forward (forward + backward)
    plus the MLM head at the 15% labelled positions (what a sparse head must compute)."""
    encoder = model_flops(config, 1, length) / length
    mlm_head = 0.15 * flops_per_token(config, length, mlm_head=True).mlm_head
    return 3 * (encoder + mlm_head)


def make_batch(config: AlbertConfig, batch: int, length: int, seed: int = 0) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, config.vocab_size, (batch, length), generator=generator)
    ids[:, 0] = 2
    labels = torch.full_like(ids, -100)
    chosen = torch.rand(batch, length, generator=generator) < 0.15
    chosen[:, 0] = False
    labels[chosen] = ids[chosen]
    ids[chosen] = 4  # [MASK]
    return {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "token_type_ids": (torch.arange(length) >= length // 2).long().expand(batch, -1).contiguous(),
        "labels": labels,
        "order": torch.randint(0, 2, (batch,), generator=generator),
    }


def step_functions(config: AlbertConfig, data: dict[str, torch.Tensor]) -> dict[str, Callable[[], None]]:
    torch.manual_seed(0)
    ours = AlbertForPreTraining(config).train()
    theirs = to_transformers(ours).train()  # identical weights, transformers' default attention (sdpa)
    optimizers = {
        "ours": torch.optim.AdamW(ours.parameters(), lr=1e-4),
        "transformers": torch.optim.AdamW(theirs.parameters(), lr=1e-4),
    }

    def ours_step() -> None:
        out = ours(
            data["input_ids"],
            data["attention_mask"],
            data["token_type_ids"],
            mlm_labels=data["labels"],
            sentence_order_label=data["order"],
        )
        out.loss.backward()
        optimizers["ours"].step()
        optimizers["ours"].zero_grad(set_to_none=True)

    def theirs_step() -> None:
        out = theirs(
            input_ids=data["input_ids"],
            attention_mask=data["attention_mask"],
            token_type_ids=data["token_type_ids"],
            labels=data["labels"],
            sentence_order_label=data["order"],
        )
        out.loss.backward()
        optimizers["transformers"].step()
        optimizers["transformers"].zero_grad(set_to_none=True)

    logger.info("transformers attention implementation: %s", theirs.config._attn_implementation)
    return {"ours": ours_step, "transformers": theirs_step}


def measure(name: str, rounds: int, peak: float) -> dict[str, float]:
    config, batch, length = CASES[name]
    data = make_batch(config, batch, length)
    steps = step_functions(config, data)
    for run in steps.values():  # warm-up (allocator, kernels)
        run()
    times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(rounds):
        for label, run in steps.items():
            start = time.perf_counter()
            run()
            times[label].append(time.perf_counter() - start)
    tokens = batch * length
    flops_per_token = training_flops_per_token(config, length)
    result = {}
    for label, samples in times.items():
        seconds = statistics.median(samples)
        result[f"{label}_tokens_per_second"] = tokens / seconds
        result[f"{label}_mfu"] = tokens / seconds * flops_per_token / peak
    result["ratio"] = result["ours_tokens_per_second"] / result["transformers_tokens_per_second"]
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(CASES), help="run one case only")
    parser.add_argument("--rounds", type=int, default=6, help="alternating timed rounds per case")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    peak = measure_matmul_peak(2048)
    print(f"matmul peak (fp32, measured now): {peak / 1e9:.1f} GFLOP/s, {torch.get_num_threads()} threads")
    targets = {"demo": 1.4, "albert-base": 1.05}
    for name in [args.only] if args.only else list(CASES):
        config, batch, length = CASES[name]
        r = measure(name, args.rounds, peak)
        print(
            f"{name:12s} batch {batch}x{length}: ours {r['ours_tokens_per_second']:8.0f} tok/s "
            f"(MFU {r['ours_mfu']:.1%}), transformers {r['transformers_tokens_per_second']:8.0f} tok/s "
            f"(MFU {r['transformers_mfu']:.1%}); ratio {r['ratio']:.2f}x (target >= {targets[name]}x)"
        )


if __name__ == "__main__":
    main()
