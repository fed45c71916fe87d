"""Ship the SST-2 model fine-tuned by `benchmarks.sst2` under assets/sentiment/ with a card.

    python -m scripts.ship_sentiment_model runs/sst2 assets/sentiment/albert-lab-sst2
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch

from albert import AlbertForSequenceClassification
from albert.io import atomic_write_text
from albert.tokenizer import load_tokenizer


def verdict(results: dict) -> str:
    """One honest paragraph on whether pretraining helped, from the measured numbers."""
    gain = results.get("pretraining_gain_points")
    if gain is None:
        return "No from-scratch baseline was run with this budget."
    effect = f"adds {gain:+.1f} points" if gain >= 0 else f"costs {-gain:.1f} points"
    return (f"Pretraining {effect} here. The targets set for this model (≥ 80% and ≥ 3 points above "
            "from-scratch) are not met: the pretrained starting point is a weak CPU model still at the "
            "edge of the unigram plateau (held-out MLM 5.3%, see `albert-lab-base`'s card), whose weights "
            "give the classifier no head start over a random initialisation on 20k sentences. A model "
            "pretrained for about a GPU-hour with the same scripts is the way to the targets.")


def card(results: dict, config: dict) -> str:
    pre, scratch, q = results["pretrained"], results.get("from_scratch"), results["quantized"]
    budget = results["budget"]
    rows = [f"| pretrained `albert-lab-base`, fine-tuned (this model) | {pre['accuracy']:.2%} |"]
    if scratch:
        rows.append(f"| same architecture from random initialisation, same budget | {scratch['accuracy']:.2%} |")
    rows.append(f"| this model, INT8 dynamic quantization | {q['accuracy']:.2%} |")
    table = "\n".join(rows)
    return f"""---
language: en
license: apache-2.0
library_name: albert-lab
tags: [albert, text-classification, sentiment, sst2]
---
# albert-lab-sst2

`albert-lab-base` (ALBERT Lab's CPU-pretrained default; V {config['vocab_size']}, E {config['embedding_size']},
H {config['hidden_size']}, {config['num_hidden_layers']} shared passes) fine-tuned on GLUE SST-2 with
`python -m benchmarks.sst2` (which runs `python -m albert.finetune`). Labels: negative, positive.

## SST-2 dev accuracy (all 872 dev sentences)

| model | accuracy |
|---|---|
{table}

Budget (both runs): {budget['max_train_examples']:,} training sentences, {budget['epochs']} epoch(s),
sequence length {budget['max_seq_length']}, batch {budget['batch_size']}, peak learning rate
{budget['learning_rate']}. INT8 (dynamic, Linear layers): {q['quantized_linear_layers']} layers quantized,
state dict {q['fp32_bytes'] / 2**20:.2f} MiB fp32 → {q['int8_bytes'] / 2**20:.2f} MiB (the 8k × 128 embedding
table stays fp32); accuracy change {100 * q['accuracy_change']:+.1f} points; latencies in `metrics.json`.

{verdict(results)}

## Reproduce
```
python -m benchmarks.sst2 --model assets/models/albert-lab-base --max-train-examples {budget['max_train_examples']} \\
    --max-seq-length 64 --epochs 1 --batch-size 32 --learning-rate 2e-4 --eval-every 200 --threads 2
```
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args()
    results = json.loads((args.run_dir / "sst2_results.json").read_text())
    source = Path(results["fine_tuned_model"])
    model = AlbertForSequenceClassification.from_pretrained(source)
    shutil.rmtree(args.target, ignore_errors=True)
    model.save_pretrained(args.target, tokenizer=load_tokenizer(source), dtype=torch.float16)
    atomic_write_text(args.target / "metrics.json", json.dumps(
        {"dev_accuracy": results["pretrained"]["accuracy"], "sst2": results}, indent=2) + "\n")
    atomic_write_text(args.target / "README.md", card(results, json.loads((args.target / "config.json").read_text())))
    print(f"shipped {source} → {args.target}")


if __name__ == "__main__":
    main()
