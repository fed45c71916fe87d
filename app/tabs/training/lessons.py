"""The *Train it yourself* lessons: what each trains, as the `python -m albert.pretrain` command lines that train it.

A lesson is two arms trained side by side from the same seed on the same shipped text (assets/training, its README
names the sources): they differ in one thing only, the thing the lesson is about (cross-layer sharing, or the
sentence objective). The app runs each arm's command line in a child process (`app.tabs.training.runner`); the page
prints the same lines, so anyone can train the lesson again at a terminal.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from albert.core.config import PRESETS, AlbertConfig
from albert.core.params import count_parameters

REPO_ROOT = Path(__file__).resolve().parents[3]
ASSETS = Path("assets/training")
"""Relative to the repository root: the texts, tokenizers and recorded runs the lessons use."""
WALL_SECONDS = 60.0
"""A lesson's hard wall-clock cap, from its processes' start: killed then whatever they are doing."""
TRAIN_MINUTES = 0.75
"""`--max-minutes` of each arm: training stops itself (and evaluates a last time) before the hard cap, leaving
~15 s for starting Python and torch, reading the text and the last evaluation."""


@dataclass(frozen=True)
class Arm:
    """One of a lesson's two models: its name on the page and the flags that make it differ from the other."""

    name: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Lesson:
    """Two arms, one text, one small model, one budget."""

    id: str
    kind: Literal["sharing", "order"]
    """"sharing": the MLM loss curves, parameters and tokens/s are the point; "order": held-out order accuracy."""
    text: str
    """The training and held-out texts (`<text>-train.txt`, `<text>-valid.txt`) and tokenizer (`<text>-tokenizer`)."""
    model: tuple[str, ...]
    """The model and data flags both arms share."""
    arms: tuple[Arm, Arm]
    steps: int
    """Planned steps (the schedule's length): more than an idle core reaches in the time budget (400 steps of the
    book model took 35 s there), so the budget, not the schedule, ends a run and the minute is used."""
    eval_every: int
    eval_examples: int
    log_every: int = 5
    probe: str = ""
    """A sentence with [MASK]: each held-out evaluation logs the arms' top guesses for it."""
    extra: tuple[str, ...] = field(default=())
    verdict: str = "sharing"
    """The sharing-kind verdict's wording (`training.verdict.<verdict>.*`): what the smaller first arm saves."""

    def argv(self, arm: Arm, output_dir: str, minutes: float = TRAIN_MINUTES) -> list[str]:
        """The arguments of `python -m albert.pretrain` for `arm`, writing to `output_dir`."""
        base = ASSETS / self.text
        flags = [
            *("--corpus", f"{base}-train.txt", "--valid-corpus", f"{base}-valid.txt"),
            *("--tokenizer", f"{base}-tokenizer", "--output-dir", output_dir, "--overwrite"),
            *self.model,
            *arm.flags,
            *("--max-steps", str(self.steps), "--eval-every", str(self.eval_every)),
            *("--eval-examples", str(self.eval_examples), "--log-every", str(self.log_every)),
            # one process per arm on a shared server: the lessons' batches are small enough to make in it
            *("--seed", "0", "--threads", "1", "--data-workers", "0", "--max-minutes", f"{minutes:g}"),
            *self.extra,
        ]
        return [*flags, "--probe", self.probe] if self.probe else flags

    def command(self, arm: Arm) -> str:
        """The command line a reader types to train `arm` as the page does (from the repository's root)."""
        return shlex.join(["python", "-m", "albert.pretrain", *self.argv(arm, f"runs/lesson-{self.id}-{arm.name}")])

    def config(self, arm: Arm) -> AlbertConfig:
        """The model `arm` trains, read from its flags (for its parameter count, computed from the formulas)."""
        values: dict[str, Any] = {}
        flags = [*self.model, *arm.flags]
        for flag, value in zip(flags[::2], flags[1::2], strict=True):
            if flag.startswith("--model."):
                name = flag.removeprefix("--model.").replace("-", "_")
                values[name] = value if name == "sharing" else int(value)
        vocab = len(
            json.loads((REPO_ROOT / ASSETS / f"{self.text}-tokenizer" / "tokenizer.json").read_text())["model"]["vocab"]
        )
        return PRESETS["albert-base"].replace(**values, vocab_size=vocab)

    def parameters(self, arm: Arm) -> int:
        return count_parameters(self.config(arm)).total


BOOK_MODEL_WITHOUT_E = (
    *("--model.hidden-size", "128", "--model.num-hidden-layers", "4"),
    *("--model.num-attention-heads", "2", "--model.intermediate-size", "256"),
    *("--model.max-position-embeddings", "64", "--data.max-seq-length", "64", "--batch-size", "16"),
    *("--optim.learning-rate", "3e-3"),
)
BOOK_MODEL = ("--model.embedding-size", "64", *BOOK_MODEL_WITHOUT_E)
"""A tiny ALBERT for book text: E 64, H 128, 4 passes, 2,000 pieces; ~3 steps a second on one busy core."""
ORDINAL_MODEL = (
    *("--model.embedding-size", "32", "--model.hidden-size", "64", "--model.num-hidden-layers", "2"),
    *("--model.num-attention-heads", "2", "--model.intermediate-size", "128"),
    *("--model.max-position-embeddings", "32", "--data.max-seq-length", "32", "--batch-size", "32"),
    *("--optim.learning-rate", "3e-3"),
)
"""`experiments.sop_learnability`'s model (E 32, H 64, 2 passes, 48 pieces) on its learnable-order text."""
PROBE = "Dorothy looked at the [MASK] and smiled."
SOP, NSP = Arm("sop", ("--data.objective", "sop")), Arm("nsp", ("--data.objective", "nsp"))
LESSONS: dict[str, Lesson] = {
    lesson.id: lesson
    for lesson in (
        Lesson(
            "sharing",
            "sharing",
            "books",
            BOOK_MODEL,
            (Arm("all", ("--model.sharing", "all")), Arm("none", ("--model.sharing", "none"))),
            steps=1000,
            eval_every=50,
            eval_examples=64,
            probe=PROBE,
        ),
        Lesson(
            "embedding",
            "sharing",
            "books",
            BOOK_MODEL_WITHOUT_E,
            (Arm("e16", ("--model.embedding-size", "16")), Arm("e128", ("--model.embedding-size", "128"))),
            steps=1000,
            eval_every=50,
            eval_examples=64,
            probe=PROBE,
            verdict="embedding",
        ),
        Lesson(
            "order-ordinals",
            "order",
            "ordinals",
            ORDINAL_MODEL,
            (SOP, NSP),
            steps=1500,
            eval_every=50,
            eval_examples=256,
            log_every=10,
        ),
        Lesson("order-books", "order", "books", BOOK_MODEL, (SOP, NSP), steps=1000, eval_every=50, eval_examples=256),
    )
}
"""The lessons, by id: sharing all against none on book text, a small E against E = H (both sharing all), and SOP
against NSP where the order is in the text (the ordinal construction of `experiments.sop_learnability`) and on book
text."""


def recorded_path(lesson: Lesson, arm: Arm) -> Path:
    """Where the shipped recording of `arm` is (its metrics.jsonl, written by `app.tabs.training.record`)."""
    return REPO_ROOT / ASSETS / "recorded" / lesson.id / f"{arm.name}.jsonl"
