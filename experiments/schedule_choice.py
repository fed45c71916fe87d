"""A fine-tuning schedule (peak learning rate, epochs) chosen on examples held out of the training file, never on dev.

    python -m experiments.schedule_choice runs/zh/schedule-lr2e-4 runs/zh/schedule-lr5e-4

Each argument is a `scripts.finetune_sentiment --skip-scratch` run on `experiments.sst2_holdout`'s split (its
dev.tsv is the held-out part), trained for the same number of epochs at one rate and scored every epoch. The rate
whose best epoch scores highest wins (a tie goes to the lower rate, as in `experiments.sst2_lr_choice`); its epoch
count is kept when that best epoch lies in the second half of the schedule (more epochs helped), else the first
half's count is used.
Prints `RATE EPOCHS` (`scripts/train_zh_sentiment.sh`, stage 3, reads it) and writes `schedule_choice.json` beside
the first run.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from albert.io import atomic_write_text
from experiments.sst2_lr_choice import choose

logger = logging.getLogger("experiments.schedule_choice")


@dataclass
class ScheduleChoice:
    """Every searched rate's best held-out accuracy and epoch, and the schedule chosen."""

    scores: dict[str, float]
    best_epochs: dict[str, float]
    planned_epochs: int
    learning_rate: str
    epochs: int
    heldout_examples: int


def read_run(run: Path) -> tuple[str, float, float, int, int]:
    """(rate, best held-out accuracy, its epoch, planned epochs, held-out examples) of one search run."""
    path = run / "sst2_results.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the search run has not finished.")
    results = json.loads(path.read_text())
    budget, finetune = results["budget"], json.loads((run / "pretrained" / "results.json").read_text())
    best = finetune["best"]
    return f"{budget['learning_rate']:g}", best["accuracy"], best["epoch"], budget["epochs"], finetune["dev_examples"]


def choose_schedule(runs: Sequence[Path]) -> ScheduleChoice:
    """The schedule of the best run: its rate, and its epochs or half of them (see the module's docstring)."""
    rows = [read_run(run) for run in runs]
    planned = {row[3] for row in rows}
    sizes = {row[4] for row in rows}
    if len(planned) != 1 or len(sizes) != 1:
        raise ValueError(
            f"the search runs differ in epochs ({sorted(planned)}) or held-out examples ({sorted(sizes)}); "
            "compare runs of one budget on one split."
        )
    scores = {rate: accuracy for rate, accuracy, *_ in rows}
    if len(scores) != len(rows):
        raise ValueError("two search runs have the same learning rate; give one run per rate.")
    best_epochs = {rate: epoch for rate, _, epoch, *_ in rows}
    epochs = planned.pop()
    rate = choose(scores)
    half = math.ceil(epochs / 2)
    chosen_epochs = epochs if best_epochs[rate] > half else half
    return ScheduleChoice(scores, best_epochs, epochs, rate, chosen_epochs, sizes.pop())


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    runs = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    if len(runs) < 2:
        logger.error("give two or more search runs (folders of scripts.finetune_sentiment on the held-out split).")
        return 2
    try:
        choice = choose_schedule(runs)
    except (FileNotFoundError, ValueError) as error:
        logger.error("%s", error)
        return 1
    atomic_write_text(runs[0].parent / "schedule_choice.json", json.dumps(asdict(choice), indent=2) + "\n")
    logger.info("held-out accuracy by rate: %s; best epochs: %s", choice.scores, choice.best_epochs)
    sys.stdout.write(f"{choice.learning_rate} {choice.epochs}\n")  # read by the shell script
    return 0


if __name__ == "__main__":
    sys.exit(main())
