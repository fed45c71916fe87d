"""Prepared GPU check: a few hundred albert-base pretraining steps in bf16 on CUDA.

Prints tokens/s and model FLOP utilisation (against the GPU's bf16 dense peak, given or
looked up by name). Synthetic batches (the point is the step's speed, not learning), fused
AdamW, SDPA attention (flash kernels on CUDA), optional torch.compile. Under 5 minutes.

    python -m benchmarks.gpu_pretrain_check --steps 300 --batch-size 128 --compile
    python -m benchmarks.gpu_pretrain_check --seconds 50 --batch-size 256   # what scripts.gpu_pretrain runs first
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from albert import PRESETS, AlbertConfig, AlbertForPreTraining
from benchmarks.train_throughput import make_batch, training_flops_per_token

BF16_PEAK_TFLOPS = {"H200": 989.0, "H100": 989.0, "A100": 312.0, "L40S": 362.0, "A10G": 125.0, "L4": 121.0}


@dataclass
class SpeedCheck:
    """One measured stretch of pretraining steps on synthetic batches."""

    device_name: str
    model: str
    batch_size: int
    seq_length: int
    steps: int
    seconds: float
    tokens_per_second: float
    tflops: float
    mfu: float | None
    """Model FLOP utilisation against `peak_tflops` (None when the device's peak is not known)."""
    peak_tflops: float | None
    peak_memory_gib: float

    def line(self) -> str:
        return (
            f"{self.device_name}: {self.model} bf16, batch {self.batch_size}x{self.seq_length}, {self.steps} steps in "
            f"{self.seconds:.1f} s: {self.tokens_per_second:,.0f} tokens/s, {self.tflops:.1f} TFLOP/s"
            + (f", MFU {self.mfu:.1%} of {self.peak_tflops:.0f} TFLOP/s bf16 peak" if self.mfu is not None else "")
            + f"; peak memory {self.peak_memory_gib:.1f} GiB"
        )


def measure(
    config: AlbertConfig,
    device: torch.device,
    batch_size: int = 128,
    seq_length: int = 128,
    steps: int = 300,
    seconds: float | None = None,
    compile_model: bool = False,
    peak_tflops: float | None = None,
    name: str = "albert-base",
) -> SpeedCheck:
    """Time `steps` training steps (or as many as fit `seconds`) after 20 warm-up steps: bf16 autocast, AdamW
    (fused on CUDA), clipping, synthetic batches."""
    cuda = device.type == "cuda"
    device_name = torch.cuda.get_device_name(device) if cuda else "CPU"
    peak = peak_tflops or next((v for k, v in BF16_PEAK_TFLOPS.items() if k in device_name), None)
    torch.manual_seed(0)
    model = AlbertForPreTraining(config).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
    step_model = torch.compile(model) if compile_model else model
    batches = [
        {k: v.to(device) for k, v in make_batch(config, batch_size, seq_length, seed).items()} for seed in range(4)
    ]

    def step(i: int) -> None:
        b = batches[i % len(batches)]
        with torch.autocast(device.type, dtype=torch.bfloat16):
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

    def synchronize() -> None:
        if cuda:
            torch.cuda.synchronize()

    for i in range(20):
        step(i)
    synchronize()
    start = time.perf_counter()
    done = 0
    while done < steps and (seconds is None or time.perf_counter() - start < seconds):
        for _ in range(min(10, steps - done)):  # check the clock every 10 steps, synchronising only then
            step(done)
            done += 1
        synchronize()
    elapsed = time.perf_counter() - start
    tokens_per_second = done * batch_size * seq_length / elapsed
    achieved = tokens_per_second * training_flops_per_token(config, seq_length)
    return SpeedCheck(
        device_name=device_name,
        model=name,
        batch_size=batch_size,
        seq_length=seq_length,
        steps=done,
        seconds=elapsed,
        tokens_per_second=tokens_per_second,
        tflops=achieved / 1e12,
        mfu=achieved / (peak * 1e12) if peak else None,
        peak_tflops=peak,
        peak_memory_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else 0.0,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=None, help="stop timing after this many seconds")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seq-length", type=int, default=128)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--peak-tflops", type=float, default=None, help="bf16 dense peak; default: by GPU name")
    parser.add_argument("--model", default="albert-base", help="a preset, or a config.json (or its folder)")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu for a dry run of the check itself")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("gpu_pretrain_check: no CUDA device here; run it on a GPU machine (or --device cpu).")
    config = PRESETS[args.model] if args.model in PRESETS else AlbertConfig.load(args.model)
    check = measure(
        config,
        torch.device(args.device),
        args.batch_size,
        args.seq_length,
        args.steps,
        args.seconds,
        args.compile,
        args.peak_tflops,
        name=args.model if args.model in PRESETS else Path(args.model).stem,
    )
    if args.json:
        args.json.write_text(json.dumps(dataclasses.asdict(check), indent=1) + "\n", encoding="utf-8")
    print(check.line())


if __name__ == "__main__":
    main()
