"""One ALBERT backbone, several task heads (`python -m albert.finetune --multitask NAME=TRAIN,DEV ...`).

    model = MultiTaskModel.from_pretrained("runs/multi/best")
    model.predict_text("a quiet , lovely film", tokenizer)   # every head's answer on one text

Each task has its own head: a sequence task reads the pooled [CLS] vector (as `AlbertForSequenceClassification`),
a token task every token's last hidden state (as `AlbertForTokenClassification`). Training draws one task per
step, in proportion to the tasks' sizes (a seeded shuffle of each task's batches, so every task's data is seen
exactly once per epoch), and the whole backbone trains with every head. The checkpoint is one folder: config.json
(the backbone's config plus `task_heads`), model.safetensors (ALBERT Lab's names: `albert.*`, `heads.NAME.*`)
and the tokenizer. transformers has no class for several heads, so this layout is ALBERT Lab's only.
"""

from __future__ import annotations

import json
import logging
import math
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from albert.core.config import AlbertConfig
from albert.core.heads import ClassifierOutput, _classification_loss
from albert.core.model import AlbertModel
from albert.data.chinese import HAN

logger = logging.getLogger("albert.finetune")
ARCHITECTURE = "AlbertMultiTask"


class TaskHead(nn.Module):
    """dropout → Linear(H, labels) on the pooled vector (sequence) or on every token (token)."""

    def __init__(self, config: AlbertConfig, kind: str, num_labels: int):
        super().__init__()
        self.kind, self.num_labels = kind, num_labels
        self.dropout = nn.Dropout(config.classifier_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, num_labels)
        nn.init.normal_(self.classifier.weight, std=config.initializer_range)
        nn.init.zeros_(self.classifier.bias)


class MultiTaskModel(nn.Module):
    """A shared `AlbertModel` and a `TaskHead` per named task."""

    def __init__(self, config: AlbertConfig, tasks: dict[str, dict[str, Any]]):
        super().__init__()
        self.config, self.tasks = config, tasks
        self.albert = AlbertModel(config, add_pooler=True)
        self.heads = nn.ModuleDict({name: TaskHead(config, t["kind"], t["num_labels"]) for name, t in tasks.items()})

    def forward(
        self,
        task: str,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> ClassifierOutput:
        if task not in self.heads:
            raise KeyError(f"no head named {task!r}; this model has {', '.join(self.heads)}.")
        head = self.heads[task]
        out = self.albert(input_ids, attention_mask, token_type_ids)
        features = out.last_hidden_state if head.kind == "token" else out.pooler_output  # (B, T, H) or (B, H)
        logits = head.classifier(head.dropout(features))
        loss = _classification_loss(logits, labels, head.num_labels) if labels is not None else None
        return ClassifierOutput(loss=loss, logits=logits)

    def view(self, task: str) -> TaskView:
        """This model as a one-task model (what `albert.training.finetune_evaluation` calls)."""
        return TaskView(self, task)

    @torch.no_grad()
    def predict_text(self, text: str, tokenizer: Any, max_length: int = 128) -> dict[str, Any]:
        """Every head's answer on one text: a label per sequence task, (word, tag) pairs per token task.

        A token task reads the text as its training files were read (`albert.data.tasks`, CoNLL words): the
        whitespace-separated words, every Han character (and the punctuation beside it) a word of its own, each word's
        tag read on its first sub-token. Words past `max_length` tokens get no tag."""
        import torch

        self.eval()
        answers: dict[str, Any] = {}
        with torch.no_grad():
            whole = tokenizer(text, truncation=True, max_length=max_length, return_tensors="pt")
            words = _task_words(text)
            split = tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_length)
            for name, task in self.tasks.items():
                names = task["label_names"]
                if task["kind"] != "token":
                    logits = self(name, whole["input_ids"], whole["attention_mask"], whole.get("token_type_ids"))
                    answers[name] = names[int(logits.logits[0].argmax())]
                    continue
                ids = torch.tensor([split["input_ids"]])
                types = torch.tensor([split["token_type_ids"]]) if "token_type_ids" in split else None
                tags = self(name, ids, torch.ones_like(ids), types).logits[0].argmax(-1).tolist()
                tagged, previous = [], None
                for position, word in enumerate(split.word_ids()):
                    if word is not None and word != previous:
                        tagged.append((words[word], names[tags[position]]))
                    previous = word
                answers[name] = tagged
        return answers

    def save_pretrained(self, directory: str | Path, tokenizer: Any = None) -> Path:
        from safetensors.torch import save_file

        from albert.io import atomic_write

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}
        atomic_write(
            directory / "model.safetensors", lambda temp: save_file(state, str(temp), metadata={"layout": "albert-lab"})
        )
        self.config.save(directory, architecture=ARCHITECTURE, task_heads=self.tasks)
        if tokenizer is not None:
            from albert.core.checkpoint import _copy_sentencepiece_model

            tokenizer.save_pretrained(str(directory))
            _copy_sentencepiece_model(tokenizer, directory)
        return directory

    @classmethod
    def from_pretrained(cls, directory: str | Path) -> MultiTaskModel:
        from safetensors.torch import load_file

        from albert.core.checkpoint import CheckpointError, load_config

        directory = Path(directory)
        data = json.loads((directory / "config.json").read_text()) if (directory / "config.json").is_file() else {}
        if "task_heads" not in data:
            raise CheckpointError(f"{directory} is not a multi-task checkpoint (its config.json has no task_heads).")
        config = load_config(directory)
        model = cls(config, data["task_heads"])
        model.load_state_dict(load_file(str(directory / "model.safetensors")))
        return model.eval()


class TaskView(nn.Module):
    """One head of a `MultiTaskModel` with a one-task model's call signature."""

    def __init__(self, model: MultiTaskModel, task: str):
        super().__init__()
        self.model, self.task = model, task

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> ClassifierOutput:
        return self.model(self.task, input_ids, attention_mask, token_type_ids, labels)


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


def _task_words(text: str) -> list[str]:
    """A text's words as a token task's files hold them: whitespace-separated, a word with Han in it split into its
    characters (the segmentation files give every character its own line)."""
    words: list[str] = []
    for word in text.split():
        words.extend(list(word) if HAN.search(word) else [word])
    return words
