"""Can the batches keep a GPU busy? What one worker makes, what a real run waits for, what albert-base needs.

    python benchmarks/data_pipeline.py                        # the shared Gutenberg books, the default's tokenizer
    python benchmarks/data_pipeline.py --corpus books.txt --steps 120 --workers 1

Prints, in one run:
1. the tokens/s **one process** makes (what one DataLoader worker does) at 256 × 128 and 1,024 × 64: sentence
   pairs, n-gram masking and collation, from a tokenized corpus; beside transformers' `DataCollatorForLanguageModeling`
   (token-level masking of the same token ids, vectorised in torch) as the peer, with the ratio;
2. the share of each step a real CPU pretraining run (`python -m albert.pretrain`, one thread) spends waiting for
   its batch, with 0 workers and with N (its metrics' `data_wait`, averaged over the rows after the first): at the
   recipe shape (E 128 / H 128 / 12 passes, 32 × 64), and at a step as short as its batch (E 32 / H 64 / 1 pass,
   256 × 128), which is what a GPU's step is to its CPU;
3. the tokens/s albert-base needs at 40% of an H200's bf16 dense peak (the FLOP formulas of albert.core.compute, as
   benchmarks.gpu_pretrain_check counts them), and how many workers make that at the rate of 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from albert import PRESETS  # noqa: E402
from albert.data.corpus import TokenizedCorpus  # noqa: E402
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset  # noqa: E402
from albert.data.tokenizer import load_tokenizer  # noqa: E402
from albert.training.batch_stream import PretrainingBatches, pretraining_plans  # noqa: E402
from albert.training.distributed import Distributed  # noqa: E402
from benchmarks.gpu_pretrain_check import BF16_PEAK_TFLOPS  # noqa: E402
from benchmarks.train_throughput import training_flops_per_token  # noqa: E402

logger = logging.getLogger("benchmarks.data_pipeline")
SHAPES = ((256, 128), (1024, 64))
TARGET_MFU = 0.40
RUN_SHAPES = {
    "recipe shape (E 128 / H 128 / 12 passes, 32 x 64)": [
        "--model", "albert-base", "--model.embedding-size", "128", "--model.hidden-size", "128",
        "--model.num-attention-heads", "2", "--model.intermediate-size", "512", "--model.num-hidden-layers", "12",
        "--model.max-position-embeddings", "64", "--data.max-seq-length", "64", "--batch-size", "32",
    ],
    # a step as short as the batch: what a GPU's step is to its CPU
    "fast step (E 32 / H 64 / 1 pass, 256 x 128)": [
        "--model", "albert-base", "--model.embedding-size", "32", "--model.hidden-size", "64",
        "--model.num-attention-heads", "1", "--model.intermediate-size", "128", "--model.num-hidden-layers", "1",
        "--model.max-position-embeddings", "128", "--data.max-seq-length", "128", "--batch-size", "256",
    ],
}  # fmt: skip
RECIPE_SHAPE = next(iter(RUN_SHAPES.values()))


def one_process_rate(dataset: PretrainingDataset, batch_size: int, seq_len: int, batches: int) -> dict[str, float]:
    """Tokens/s of making `batches` batches in this process, after one warm-up batch (plan included)."""
    make = PretrainingBatches(dataset, pad_id=0)
    plans = pretraining_plans(dataset, batch_size, Distributed(0, 1, 0, torch.device("cpu")), 0, 0, 0)
    make(next(plans))
    started = time.perf_counter()
    real = 0
    for _ in range(batches):
        _, batch = make(next(plans))
        real += int(batch["attention_mask"].sum())
    seconds = time.perf_counter() - started
    return {"positions_per_second": batches * batch_size * seq_len / seconds, "tokens_per_second": real / seconds}


def peer_rate(dataset: PretrainingDataset, tokenizer, batch_size: int, seq_len: int, batches: int) -> float:
    """transformers' MLM collator on the same kind of token ids (unmasked pairs), tokens/s in this process."""
    from transformers import DataCollatorForLanguageModeling

    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15, return_tensors="pt")
    rows = [dataset[i]["input_ids"][:seq_len].tolist() for i in range(batch_size)]
    examples = [{"input_ids": row} for row in rows]
    collator(examples)
    started = time.perf_counter()
    for _ in range(batches):
        collator(examples)
    return batches * sum(len(r) for r in rows) / (time.perf_counter() - started)


def run_wait_share(
    corpus: Path, tokenizer_dir: str, workers: int, steps: int, cache: Path, out: Path, shape: list[str] | None = None
) -> float:
    """A real CPU pretraining run of `steps` steps: the mean `data_wait` share of its training rows after the first."""
    from albert.commands.pretrain import main

    main(
        [
            "--corpus", str(corpus), "--tokenizer", tokenizer_dir, "--cache-dir", str(cache), "--output-dir", str(out),
            *(shape or RECIPE_SHAPE), "--max-steps", str(steps), "--log-every", "10", "--eval-every", str(steps * 10),
            "--checkpoint-every", str(steps * 10), "--threads", "1", "--data-workers", str(workers),
        ]
    )  # fmt: skip
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    shares = [r["data_wait"] for r in rows if r.get("split") == "train"][1:]
    return statistics.mean(shares)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="../shared/corpus/gutenberg-valid.txt.xz")
    parser.add_argument("--tokenizer", default="assets/models/albert-lab-e128-gpu")
    parser.add_argument("--batches", type=int, default=12, help="batches timed per shape")
    parser.add_argument("--steps", type=int, default=80, help="steps of each real pretraining run")
    parser.add_argument("--workers", type=int, default=1, help="workers of the second real run")
    parser.add_argument("--cache-dir", default="runs/bench-cache")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    torch.set_num_threads(1)
    tokenizer = load_tokenizer(args.tokenizer)
    corpus = TokenizedCorpus.build([args.corpus], tokenizer, Path(args.cache_dir) / "pipeline")
    report = ["one process (= one worker), sentence pairs + n-gram masking + collation:"]
    rates = {}
    for batch_size, seq_len in SHAPES:
        dataset = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=seq_len), tokenizer)
        rate = one_process_rate(dataset, batch_size, seq_len, args.batches)
        peer = peer_rate(dataset, tokenizer, batch_size, seq_len, args.batches)
        rates[(batch_size, seq_len)] = rate["positions_per_second"]
        report.append(
            f"  {batch_size:>5} x {seq_len:<4} {rate['positions_per_second']:>12,.0f} tokens/s "
            f"({rate['tokens_per_second']:,.0f} non-padding); transformers' MLM collator {peer:,.0f} tokens/s: "
            f"ratio {rate['positions_per_second'] / peer:.2f}"
        )
    base = PRESETS["albert-base"]
    needed = TARGET_MFU * BF16_PEAK_TFLOPS["H200"] * 1e12 / training_flops_per_token(base, 128)
    workers_needed = math.ceil(needed / rates[(256, 128)])
    report.append(
        f"albert-base at {TARGET_MFU:.0%} of an H200's bf16 peak ({BF16_PEAK_TFLOPS['H200']:.0f} TFLOP/s), 128 tokens: "
        f"{needed:,.0f} tokens/s = {workers_needed} worker(s) at the 256 x 128 rate above"
    )
    with tempfile.TemporaryDirectory() as scratch:
        for number, (name, shape) in enumerate(RUN_SHAPES.items()):
            for workers in (0, args.workers):
                out = Path(scratch) / f"{number}-{workers}"
                share = run_wait_share(
                    Path(args.corpus), args.tokenizer, workers, args.steps, Path(args.cache_dir), out, shape
                )
                report.append(
                    f"real CPU pretraining run, {name}, 1 thread, {workers} workers: "
                    f"waits {share:.1%} of each step for its batch"
                )
    print("\n".join(report))  # the benchmark's report is its output


if __name__ == "__main__":
    main()
