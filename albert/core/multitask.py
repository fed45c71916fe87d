"""One ALBERT backbone, several task heads: the model `python -m albert.finetune --multitask` trains
(`albert.commands.multitask`).

    model = MultiTaskModel.from_pretrained("runs/multi/best")
    model.predict_text("a quiet , lovely film", tokenizer)   # every head's answer on one text

Each task has its own head: a sequence task reads the pooled [CLS] vector (as `AlbertForSequenceClassification`),
a token task every token's last hidden state (as `AlbertForTokenClassification`). The checkpoint is one folder:
config.json (the backbone's config plus `task_heads`), model.safetensors (ALBERT Lab's names: `albert.*`,
`heads.NAME.*`) and the tokenizer. transformers has no class for several heads, so this layout is ALBERT Lab's only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from albert.core.config import AlbertConfig
from albert.core.heads import ClassifierOutput, classification_loss
from albert.core.model import AlbertModel
from albert.han import HAN

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
        loss = classification_loss(logits, labels, head.num_labels) if labels is not None else None
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
        self.eval()
        answers: dict[str, Any] = {}
        whole = tokenizer(text, truncation=True, max_length=max_length, return_tensors="pt")
        words = task_words(text)
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
            from albert.core.checkpoint import save_tokenizer

            save_tokenizer(tokenizer, directory)
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


def task_words(text: str) -> list[str]:
    """A text's words as a token task's files hold them: whitespace-separated, a word with Han in it split into its
    characters (the segmentation files give every character its own line)."""
    words: list[str] = []
    for word in text.split():
        words.extend(list(word) if HAN.search(word) else [word])
    return words
