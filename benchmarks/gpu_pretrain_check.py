"""Prepared GPU check: a few hundred albert-base pretraining steps in bf16 on CUDA.

Prints tokens/s and model FLOP utilisation (against the GPU's bf16 dense peak, given or
looked up by name). Synthetic batches (the point is the step's speed, not learning), fused
AdamW, SDPA attention (flash kernels on CUDA), optional torch.compile. Under 5 minutes.

    python -m benchmarks.gpu_pretrain_check --steps 300 --batch-size 128 --compile
"""

from __future__ import annotations

import argparse
import time

import torch

from albert import PRESETS, AlbertForPreTraining
from benchmarks.train_throughput import make_batch, training_flops_per_token

BF16_PEAK_TFLOPS = {"H200": 989.0, "H100": 989.0, "A100": 312.0, "L40S": 362.0, "A10G": 125.0, "L4": 121.0}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seq-length", type=int, default=128)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--peak-tflops", type=float, default=None, help="bf16 dense peak; default: by GPU name")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("gpu_pretrain_check: no CUDA device here; run it on a GPU machine.")
    device = torch.device("cuda")
    name = torch.cuda.get_device_name(device)
    peak = args.peak_tflops or next((v for k, v in BF16_PEAK_TFLOPS.items() if k in name), None)
    config = PRESETS["albert-base"]
    torch.manual_seed(0)
    model = AlbertForPreTraining(config).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    step_model = torch.compile(model) if args.compile else model
    batches = [
        {k: v.to(device) for k, v in make_batch(config, args.batch_size, args.seq_length, seed).items()}
        for seed in range(4)
    ]

    def step(i: int) -> None:
        b = batches[i % len(batches)]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = step_model(
                b["input_ids"],
                b["attention_mask"],
                b["token_type_ids"],
                mlm_labels=b["labels"],
                sentence_order_label=b["order"],
            )
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    warmup = 20
    for i in range(warmup):
        step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(args.steps):
        step(i)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    tokens_per_second = args.steps * args.batch_size * args.seq_length / seconds
    achieved = tokens_per_second * training_flops_per_token(config, args.seq_length)
    print(
        f"{name}: albert-base bf16, batch {args.batch_size}x{args.seq_length}, compile={args.compile}: "
        f"{tokens_per_second:,.0f} tokens/s, {achieved / 1e12:.1f} TFLOP/s"
        + (f", MFU {achieved / (peak * 1e12):.1%} of {peak:.0f} TFLOP/s bf16 peak" if peak else "")
        + f"; peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB"
    )


if __name__ == "__main__":
    main()
