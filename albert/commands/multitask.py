"""Multi-task training: one ALBERT backbone, a head per task (`python -m albert.finetune --multitask NAME=TRAIN,DEV`).

The model, its checkpoint and `predict_text` are `albert.core.multitask.MultiTaskModel`'s; this module trains it.
Training draws one task per step, in proportion to the tasks' sizes (a seeded shuffle of each task's batches, so every
task's data is seen exactly once per epoch), and the whole backbone trains with every head.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch

from albert.core.multitask import MultiTaskModel

logger = logging.getLogger("albert.finetune")


def task_schedule(sizes: dict[str, int], batch_size: int, epochs: int, seed: int) -> list[tuple[str, int]]:
    """(task, batch index) per step: every task's batches once per epoch, interleaved by a seeded shuffle,
    so a task is drawn in proportion to its size."""
    steps: list[tuple[str, int]] = []
    rng = random.Random(seed)
    for epoch in range(epochs):
        draws = [
            (name, epoch * math.ceil(n / batch_size) + i)
            for name, n in sizes.items()
            for i in range(math.ceil(n / batch_size))
        ]
        rng.shuffle(draws)
        steps.extend(draws)
    return steps


def run_multitask(cfg: Any, load_data: Callable[..., dict[str, Any]]) -> Any:
    """Train one backbone with a head per --multitask task; evaluate each head on its own dev set
    (`load_data` is `albert.finetune`'s)."""
    from albert.commands.practices import batch_of, dev_report, parse_task_spec, start_run, train_steps, write_results
    from albert.core.checkpoint import resolve_directory
    from albert.core.heads import AlbertForSequenceClassification
    from albert.data.tokenizer import load_tokenizer
    from albert.training.loop import RunResult

    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    directory = resolve_directory(cfg.model)
    tokenizer = load_tokenizer(cfg.tokenizer or directory)
    datasets: dict[str, dict[str, Any]] = {}
    for spec in cfg.multitask:
        name, train, dev = parse_task_spec(spec)
        if name in datasets:
            raise ValueError(f"--multitask names the task {name!r} twice; give each task its own name.")
        one = replace(cfg, multitask=(), train_file=train, dev_file=dev, task="auto", label_names=(), metric="auto")
        datasets[name] = load_data(one, tokenizer, None)
        if datasets[name]["task"] == "regression":
            raise ValueError(
                f"--multitask task {name!r} is a regression; multi-task training takes classification and token tasks."
            )
    tasks = {
        name: {
            "kind": "token" if d["task"] == "token" else "sequence",
            "num_labels": len(d["label_names"]),
            "label_names": d["label_names"],
            "metric": d["metric"],
        }
        for name, d in datasets.items()
    }
    torch.manual_seed(cfg.seed)
    backbone = AlbertForSequenceClassification.from_pretrained(directory, num_labels=2).albert
    model = MultiTaskModel(backbone.config, tasks)
    model.albert.load_state_dict(backbone.state_dict())
    model.to(dist.device)
    schedule = task_schedule({n: len(d["train"]) for n, d in datasets.items()}, cfg.batch_size, cfg.epochs, cfg.seed)
    pad = tokenizer.pad_token_id

    def loss_of_step(step: int) -> torch.Tensor:
        name, index = schedule[step]
        batch = batch_of(datasets[name]["train"], cfg.batch_size, cfg.seed, index, pad)
        batch = {k: v.to(dist.device) for k, v in batch.items()}
        return model(
            name, batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], labels=batch["labels"]
        ).loss

    logger.info(
        "multi-task: %s; %d steps", ", ".join(f"{n} {len(d['train'])}" for n, d in datasets.items()), len(schedule)
    )
    stats = train_steps(model, len(schedule), loss_of_step, cfg, dist.device)
    dev = {
        name: dev_report(model.view(name), d["dev"], d["task"], d["label_names"], cfg, dist.device, pad)
        for name, d in datasets.items()
    }
    model.cpu().save_pretrained(out / "best", tokenizer=tokenizer)
    results = {
        "practice": "multitask",
        "tasks": tasks,
        "steps_per_task": {n: sum(1 for t, _ in schedule if t == n) for n in datasets},
        "train_examples": {n: len(d["train"]) for n, d in datasets.items()},
        "steps": stats.steps,
        "step_seconds": stats.step_seconds,
        "train_seconds": stats.train_seconds,
        "parameters": sum(p.numel() for p in model.parameters()),
        "dev": dev,
        "model": str(cfg.model),
        "bytes": (out / "best" / "model.safetensors").stat().st_size,
    }
    write_results(out, results)
    report = "\n".join(f"{n}: dev accuracy {r['accuracy']:.4f} (n {r['n']})" for n, r in dev.items())
    return RunResult(model=model, summary={**results, "report": report})
