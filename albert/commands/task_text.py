"""`python -m albert.task_text`: a task file's text (labels dropped) as a pretraining corpus.

    python -m albert.task_text --source glue/SST-2/train.tsv --output runs/sst2-text.txt \\
        --heldout runs/sst2-text-heldout.txt
    python -m albert.pretrain --init-from assets/models/albert-lab-base --corpus runs/sst2-text.txt \\
        --valid-corpus runs/sst2-text-heldout.txt --max-steps 2000 --output-dir runs/sst2-adapted

Task-adaptive pretraining (Gururangan et al., 2020, "Don't Stop Pretraining") continues the
masked-LM on the unlabelled text of the task's training set before fine-tuning, so a model
pretrained on other text (books) learns the task's words and style. Only training files should
go in: the dev and test text stay unseen.

Each distinct text becomes one document (blank line between documents); a sentence pair
becomes a document of two paragraphs, so sentence-order prediction has an order to learn.
A one-sentence document still trains SOP: it is split inside the sentence.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path

from albert.cli import run_command
from albert.data.tasks import DataError, read_records
from albert.io import atomic_write_text

logger = logging.getLogger("albert.task_text")


@dataclass
class TaskTextConfig:
    """Write the distinct texts of a labelled task file as a plain-text corpus."""

    source: str
    """The task's training file: GLUE TSV, CSV, JSONL or `hf:NAME[:CONFIG]` (its labels are ignored)."""
    output: str
    """The corpus to write (UTF-8 text, one document per blank-line-separated block)."""
    heldout: str | None = None
    """Also write a held-out slice of the texts here, for `albert.pretrain --valid-corpus`."""
    heldout_fraction: float = 0.02
    """Share of the distinct texts that go to --heldout (and not to --output)."""
    text_column: str | None = None
    """Column of the text; default: GLUE's names (sentence, sentence1/sentence2, question, …)."""
    text_pair_column: str | None = None
    """Column of the second text of a pair, if any (GLUE's names are found by themselves)."""
    label_column: str | None = None
    """Column of the label (only read to find the rows; GLUE's names are found by themselves)."""
    split: str = "train"
    """Split of an `hf:` dataset."""
    seed: int = 0
    """Seed of the held-out draw."""

    def __post_init__(self) -> None:
        if not 0.0 < self.heldout_fraction < 1.0:
            raise ValueError(f"--heldout-fraction must lie between 0 and 1, got {self.heldout_fraction}.")
        if Path(self.output).suffix.lower() in (".xz", ".gz"):
            raise ValueError(f"--output {self.output}: write plain text (.txt); compression is not needed here.")


@dataclass
class TaskTextResult:
    documents: int
    """Distinct texts written to --output."""
    heldout_documents: int
    """Distinct texts written to --heldout (0 without it)."""
    words: int
    """Whitespace-separated words in --output."""


def task_documents(cfg: TaskTextConfig) -> list[list[str]]:
    """The distinct (text[, pair]) documents of the file, in file order."""
    records = read_records(
        cfg.source, "classification", cfg.text_column, cfg.text_pair_column, cfg.label_column, cfg.split
    )
    if isinstance(records[0].text, list):
        raise DataError(f"{cfg.source} is a token-classification (CoNLL) file; give a table of texts.")
    seen: set[tuple[str, ...]] = set()
    documents: list[list[str]] = []
    for record in records:
        paragraphs = tuple(" ".join(text.split()) for text in (record.text, record.pair) if text is not None)
        paragraphs = tuple(p for p in paragraphs if p)
        if paragraphs and paragraphs not in seen:
            seen.add(paragraphs)
            documents.append(list(paragraphs))
    return documents


def _corpus_text(documents: list[list[str]]) -> str:
    return "\n\n".join("\n".join(paragraphs) for paragraphs in documents) + "\n"


def run(cfg: TaskTextConfig) -> TaskTextResult:
    """Write the corpus (and the held-out slice); both files appear whole or not at all."""
    documents = task_documents(cfg)
    heldout: list[list[str]] = []
    if cfg.heldout:
        chosen = set(
            random.Random(cfg.seed).sample(range(len(documents)), max(1, round(cfg.heldout_fraction * len(documents))))
        )
        if len(chosen) == len(documents):
            raise DataError(f"{cfg.source} has only {len(documents)} distinct text(s); too few to hold some out.")
        heldout = [d for i, d in enumerate(documents) if i in chosen]
        documents = [d for i, d in enumerate(documents) if i not in chosen]
        atomic_write_text(cfg.heldout, _corpus_text(heldout))
    atomic_write_text(cfg.output, _corpus_text(documents))
    words = sum(len(p.split()) for d in documents for p in d)
    logger.info(
        "wrote %d documents (%d words) to %s%s",
        len(documents),
        words,
        cfg.output,
        f" and {len(heldout)} to {cfg.heldout}" if cfg.heldout else "",
    )
    return TaskTextResult(documents=len(documents), heldout_documents=len(heldout), words=words)


def main(argv: list[str] | None = None) -> None:
    run_command("albert.task_text", TaskTextConfig, run, (DataError, OSError), argv, description=__doc__)


if __name__ == "__main__":
    main()
