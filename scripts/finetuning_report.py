"""Tables and the deploy JSON of the fine-tuning practices protocol (docs/protocols/finetuning-practices.md).

    python -m scripts.finetuning_report runs/fp --shared ../shared --out assets/finetuning/deploy.json

Reads the runs of scripts/finetuning_practices.sh; quantizes the teachers and students to dynamic INT8 and scores
them on dev; measures every deployable variant's latency (median of 20 batch-1 forward passes, one thread, the
variants alternating within rounds); writes the JSON the app's deploy view reads and prints the Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
from pathlib import Path
from typing import Any

import torch

from albert import PRESETS, AlbertForSequenceClassification, count_parameters
from albert.core.adapters import load_adapter
from albert.core.quantize import measure_latency, model_size_bytes, quantize_model
from albert.training.order_scoring import Proportion

logger = logging.getLogger("scripts.finetuning_report")
TASKS = {
    "sst2": {"glue": "SST-2", "full": "sst2-full", "lora": ["sst2-lora"], "distill": "sst2-distill", "seq": 64},
    "zh-reviews": {
        "glue": "zh-reviews",
        "full": "zh-full",
        "lora": ["zh-lora-shared", "zh-lora-perpass"],
        "distill": "zh-distill",
        "seq": 128,
    },
}


def accuracy_entry(hits: float, n: int) -> dict[str, Any]:
    low, high = Proportion(hits, n).interval()
    return {"accuracy": hits / n, "hits": int(hits), "n": n, "ci95": [low, high]}


def full_run(directory: Path) -> dict[str, Any]:
    """Accuracy, step time (from the logged training throughput) of a plain `albert.finetune` run."""
    results = json.loads((directory / "results.json").read_text())
    rows = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    batch = results["config"]["batch_size"]
    step = statistics.fmean(batch / r["examples_per_second"] for r in rows if r.get("split") == "train")
    n = results["dev_examples"]
    return {**accuracy_entry(round(results["best"]["accuracy"] * n), n), "step_seconds": step}


def dev_examples(task: str, shared: Path, tokenizer: Any, seq: int) -> list[dict[str, Any]]:
    from albert.data.tasks import encode, read_records

    records = read_records(str(shared / "glue" / TASKS[task]["glue"] / "dev.tsv"), "classification", split="validation")
    return encode(records, tokenizer, "classification", seq, {"0": 0, "1": 1, "negative": 0, "positive": 1})


def scored(model: torch.nn.Module, examples: list[dict[str, Any]], pad: int) -> dict[str, Any]:
    from albert.training.finetune_evaluation import predict

    predictions, labels, _ = predict(model, examples, "classification", 64, torch.device("cpu"), pad_id=pad)
    return accuracy_entry(float((predictions == labels).sum()), len(labels))


def task_report(task: str, runs: Path, shared: Path, rounds: int) -> dict[str, Any]:
    from albert.data.tasks import collate
    from albert.data.tokenizer import load_tokenizer

    spec = TASKS[task]
    teacher_dir = runs / spec["full"] / "best"
    tokenizer = load_tokenizer(teacher_dir)
    examples = dev_examples(task, shared, tokenizer, spec["seq"])
    pad = tokenizer.pad_token_id
    teacher = AlbertForSequenceClassification.from_pretrained(teacher_dir).eval()
    variants: dict[str, dict[str, Any]] = {}
    models: dict[str, torch.nn.Module] = {"full": teacher}
    full = full_run(runs / spec["full"])
    variants["full"] = {
        **full,
        "bytes": (teacher_dir / "model.safetensors").stat().st_size,
        "state_dict_bytes": model_size_bytes(teacher),
        "parameters": sum(p.numel() for p in teacher.parameters()),
        "trainable_parameters": sum(p.numel() for p in teacher.parameters()),
        "passes": teacher.config.num_hidden_layers,
        "what": "full fine-tuning, fp32",
    }
    models["full-int8"] = quantize_model(teacher)
    variants["full-int8"] = {
        **scored(models["full-int8"], examples, pad),
        "state_dict_bytes": model_size_bytes(models["full-int8"]),
        "passes": teacher.config.num_hidden_layers,
        "what": "full fine-tuning, dynamic INT8",
    }
    for name in spec["lora"]:
        results = json.loads((runs / name / "results.json").read_text())
        merged = AlbertForSequenceClassification.from_pretrained(runs / name / "merged").eval()
        unmerged = load_adapter(runs / name / "adapter")
        key = name.removeprefix("sst2-").removeprefix("zh-")
        models[key] = merged
        models[key + "-unmerged"] = unmerged
        dev = results["dev"]
        settings = json.loads((runs / name / "adapter" / "albert_adapter.json").read_text())["settings"]
        variants[key] = {
            **accuracy_entry(dev["hits"], dev["n"]),
            "step_seconds": results["step_seconds"],
            "adapter_bytes": results["adapter_bytes"],
            "bytes": results["merged_bytes"],
            "state_dict_bytes": model_size_bytes(merged),
            "trainable_parameters": results["trainable_parameters"],
            "trainable_fraction": results["trainable_fraction"],
            "rank": settings["rank"],
            "per_pass": settings["per_pass"],
            "passes": merged.config.num_hidden_layers,
            "what": f"LoRA rank {settings['rank']}"
            + (" per pass" if settings["per_pass"] else "")
            + "; bytes = merged model, adapter_bytes = the adapter alone",
        }
    distill = json.loads((runs / spec["distill"] / "results.json").read_text())
    student = AlbertForSequenceClassification.from_pretrained(runs / spec["distill"] / "best").eval()
    models["student"], models["student-int8"] = student, quantize_model(student)
    variants["student"] = {
        **accuracy_entry(distill["dev"]["hits"], distill["dev"]["n"]),
        "step_seconds": distill["step_seconds"],
        "bytes": (runs / spec["distill"] / "best" / "model.safetensors").stat().st_size,
        "state_dict_bytes": model_size_bytes(student),
        "parameters": distill["student_parameters"],
        "passes": distill["student_passes"],
        "temperature": distill["temperature"],
        "alpha": distill["alpha"],
        "what": f"distilled student, {distill['student_passes']} passes, fp32",
    }
    variants["student-int8"] = {
        **scored(models["student-int8"], examples, pad),
        "state_dict_bytes": model_size_bytes(models["student-int8"]),
        "passes": distill["student_passes"],
        "what": "distilled student, dynamic INT8",
    }
    torch.set_num_threads(1)
    batch = collate(examples[:1], pad)
    # One round per call keeps every round's time: the median is the protocol's figure; the minimum is added
    # because the shared machine's load (load average 12-14 during these runs) makes medians noisy.
    times = [measure_latency(models, batch, rounds=1, warmup=3 if r == 0 else 0) for r in range(rounds)]
    for key in models:
        variants.setdefault(key, {"what": "LoRA kept unmerged (peft modules in the forward pass)"})
        variants[key]["latency_ms_batch1"] = statistics.median(t[key] for t in times) * 1e3
        variants[key]["latency_ms_batch1_min"] = min(t[key] for t in times) * 1e3
    return {"task": task, "dev_n": len(examples), "variants": variants, "latency_threads": 1, "latency_rounds": rounds}


def tagging_report(runs: Path) -> dict[str, Any]:
    """Single- against multi-task accuracy on every task (token tasks: tagged tokens)."""
    out: dict[str, Any] = {}
    for multi, pairs in (
        ("en-multitask", {"sst2": "sst2-full", "casing": "casing-single"}),
        ("zh-multitask", {"reviews": "zh-full", "cws": "cws-single"}),
    ):
        results = json.loads((runs / multi / "results.json").read_text())
        for task, single in pairs.items():
            single_results = json.loads((runs / single / "results.json").read_text())
            m = results["dev"][task]
            n = m["n"]
            out[f"{multi}/{task}"] = {
                "multi": accuracy_entry(m["hits"], n),
                "single": accuracy_entry(round(single_results["best"]["accuracy"] * n), n),
                "multi_steps": results["steps"],
                "multi_step_seconds": results["step_seconds"],
            }
    return out


def phone_claim() -> dict[str, Any]:
    """ALBERT-base's size in fp32 / fp16 / INT8 from `count_parameters`, and with dynamic INT8 (Linear weights only)."""
    config = PRESETS["albert-base"]
    counts = count_parameters(config)
    h, i, e = config.hidden_size, config.intermediate_size, config.embedding_size
    linear_weights = 4 * h * h + 2 * h * i + e * h + h * h  # attention, FFN, E→H projection, pooler (one shared layer)
    total = counts.total
    return {
        "parameters": total,
        "fp32_bytes": 4 * total,
        "fp16_bytes": 2 * total,
        "int8_all_bytes": total,
        "dynamic_int8_bytes": linear_weights + 4 * (total - linear_weights),
        "linear_weight_parameters": linear_weights,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--out", type=Path, default=Path("assets/finetuning/deploy.json"))
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    report = {
        "protocol": "docs/protocols/finetuning-practices.md",
        "machine": "2 shared CPU cores; latency on 1 thread, batch 1, median of 20",
        "tasks": {task: task_report(task, args.runs, args.shared, args.rounds) for task in TASKS},
        "multitask": tagging_report(args.runs),
        "albert_base_phone": phone_claim(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for task, data in report["tasks"].items():
        print(
            f"\n{task} (dev n {data['dev_n']})\n"
            "| variant | accuracy [95% CI] | size | latency ms | trainable | step s |"
        )
        print("| --- | --- | --- | --- | --- | --- |")
        for name, v in data["variants"].items():
            acc = f"{v['accuracy']:.1%} [{v['ci95'][0]:.1%}, {v['ci95'][1]:.1%}]" if "accuracy" in v else "-"
            size = f"{v.get('bytes', v.get('state_dict_bytes', 0)) / 1e6:.2f} MB"
            print(
                f"| {name} | {acc} | {size} | {v.get('latency_ms_batch1', float('nan')):.1f} | "
                f"{v.get('trainable_parameters', '-')} | {v.get('step_seconds', float('nan')):.2f} |"
            )
    print(json.dumps(report["multitask"], indent=1))
    print(json.dumps(report["albert_base_phone"], indent=1))


if __name__ == "__main__":
    main()
