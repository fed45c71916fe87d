"""What a fine-tuning run starts from: its labelled data, read, checked and encoded (the labels from the training
data, or from a fine-tuned checkpoint's config), and the model with its new head. Plain fine-tuning and evaluation
use it (`albert.commands.finetune`), and so do the practices, which receive `load_data` and `build_model` from there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from albert.core.checkpoint import load_config
from albert.core.config import AlbertConfig, ConfigError
from albert.core.heads import AlbertForSequenceClassification, AlbertForTokenClassification
from albert.data.labels import check_labels
from albert.data.tasks import DataError, encode, label_vocabulary, read_records, subsample
from albert.training.finetune_evaluation import DEFAULT_METRIC, METRICS

if TYPE_CHECKING:  # the config is the command's; this module is imported by it
    from albert.commands.finetune import FinetuneConfig


def model_class(task: str) -> type:
    """The model class that fine-tunes for `task`: token tagging or a sequence-level head."""
    return AlbertForTokenClassification if task == "token" else AlbertForSequenceClassification


def task_of_config(config: AlbertConfig) -> str:
    """The task a fine-tuned checkpoint was trained for, from its config.json."""
    architecture = (config.extra.get("architectures") or [""])[0]
    if architecture == "AlbertForTokenClassification":
        return "token"
    return "regression" if config.num_labels == 1 else "classification"


def label_maps(config: AlbertConfig) -> tuple[list[str], dict[str, int]]:
    """Label names of a checkpoint and the file values they stand for (label2id, plus values renamed
    with --label-names, which are kept as `task_label_values`)."""
    names = [str(config.extra.get("id2label", {}).get(str(i), i)) for i in range(config.num_labels)]
    values = config.extra.get("task_label_values") or names
    return names, {**{str(v): i for i, v in enumerate(values)}, **{n: i for i, n in enumerate(names)}}


def load_data(cfg: FinetuneConfig, tokenizer: Any, known: AlbertConfig | None) -> dict[str, Any]:
    """Read, check and encode train/dev data; labels come from the training data (or `known`'s config)."""
    dev_split = "validation"
    train = (
        read_records(cfg.train_file, cfg.task, cfg.text_column, cfg.text_pair_column, cfg.label_column)
        if cfg.train_file
        else None
    )
    dev = (
        read_records(cfg.dev_file, cfg.task, cfg.text_column, cfg.text_pair_column, cfg.label_column, split=dev_split)
        if cfg.dev_file
        else None
    )
    if known is not None:
        task = cfg.task if cfg.task != "auto" else task_of_config(known)
    else:  # labels of one kind, no NaN, no stray class (albert.data.labels)
        task = check_labels(train or dev, cfg.task, cfg.label_names)
    names: list[str] = []
    values: list[str] = []
    label2id: dict[str, int] = {}
    if known is not None and task != "regression":
        names, label2id = label_maps(known)
    elif known is None and task != "regression":
        values = label_vocabulary(train)
        if cfg.label_names and len(cfg.label_names) != len(values):
            raise DataError(
                f"--label-names gives {len(cfg.label_names)} names, but {cfg.train_file} has "
                f"{len(values)} labels ({', '.join(values)})."
            )
        names, label2id = list(cfg.label_names) or values, {v: i for i, v in enumerate(values)}
    metric = cfg.metric if cfg.metric != "auto" else DEFAULT_METRIC[task]
    if metric not in METRICS[task]:
        raise ValueError(f"metric {metric!r} does not apply to {task}; use one of {', '.join(METRICS[task])}.")
    train = subsample(train, cfg.max_train_examples, cfg.seed) if train else None
    dev = subsample(dev, cfg.max_dev_examples, cfg.seed + 1) if dev else None
    encoded = {
        name: encode(records, tokenizer, task, cfg.max_seq_length, label2id) if records else None
        for name, records in (("train", train), ("dev", dev))
    }
    return {"task": task, "label_names": names, "label_values": values, "metric": metric, **encoded}


def build_model(cfg: FinetuneConfig, directory: Path, data: dict[str, Any]) -> torch.nn.Module:
    base = load_config(directory)
    names = data["label_names"]
    extra = {k: v for k, v in base.extra.items() if k not in ("architectures", "task_label_values")}
    extra.update(
        id2label={str(i): n for i, n in enumerate(names or ["score"])},
        label2id={n: i for i, n in enumerate(names or ["score"])},
        problem_type="regression" if data["task"] == "regression" else "single_label_classification",
    )
    if names and data["label_values"] != names:
        extra["task_label_values"] = data["label_values"]  # file values, when renamed by --label-names
    changes: dict[str, Any] = {"num_labels": max(1, len(names)), "extra": extra}
    if cfg.classifier_dropout is not None:
        changes["classifier_dropout_prob"] = cfg.classifier_dropout
    config = base.replace(**changes)
    if cfg.max_seq_length > config.max_position_embeddings:
        raise ConfigError(
            f"--max-seq-length {cfg.max_seq_length} exceeds the model's max_position_embeddings "
            f"({config.max_position_embeddings})."
        )
    torch.manual_seed(cfg.seed)  # the new head's initialisation
    cls = model_class(data["task"])
    return cls(config) if cfg.from_scratch else cls.from_pretrained(directory, **changes)
