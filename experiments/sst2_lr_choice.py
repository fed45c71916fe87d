"""Each arm's SST-2 learning rate, chosen on sentences held out of the training file (never on dev).

    python -m experiments.sst2_lr_choice --runs runs/lrsel --rates 1e-4 2e-4 5e-4

Reads the search runs `scripts/sst2_lr_search.sh` made (`RUNS/search-{pretrained,scratch}-lr{RATE}/
results.json`, fine-tuned on `experiments.sst2_holdout`'s training part and scored on its held-out
sentences), picks for each arm the rate with the best held-out accuracy (a tie goes to the lower
rate), writes `RUNS/lr_choice.json` and prints the two rates: `PRETRAINED_RATE SCRATCH_RATE`.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from albert.cli import run_command
from albert.io import atomic_write_text

logger = logging.getLogger("experiments.sst2_lr_choice")

ARMS = ("pretrained", "scratch")


@dataclass
class LrChoiceConfig:
    """Choose each arm's learning rate from the held-out scores of the search runs."""

    runs: str
    """The folder holding search-{arm}-lr{rate}/results.json (scripts/sst2_lr_search.sh's runs/lrsel)."""
    rates: tuple[str, ...] = ("1e-4", "2e-4", "5e-4")
    """The rates searched, spelled as in the run folder names."""


@dataclass
class LrChoice:
    """The held-out accuracy of every searched rate and the rate chosen, per arm."""

    scores: dict[str, dict[str, float]]
    chosen: dict[str, str]
    heldout_examples: int


def choose(scores: dict[str, float]) -> str:
    """The rate with the highest score; a tie goes to the lower rate."""
    return max(sorted(scores, key=float), key=lambda rate: (scores[rate], -float(rate)))


def read_choice(runs: Path, rates: Sequence[str]) -> LrChoice:
    """The scores of the search runs under `runs` and each arm's chosen rate."""
    scores: dict[str, dict[str, float]] = {}
    sizes = set()
    for arm in ARMS:
        scores[arm] = {}
        for rate in rates:
            path = runs / f"search-{arm}-lr{rate}" / "results.json"
            if not path.is_file():
                raise FileNotFoundError(f"{path} is missing: run `STAGE=search scripts/sst2_lr_search.sh` first.")
            results = json.loads(path.read_text())
            scores[arm][rate] = results["best"]["accuracy"]
            sizes.add(results["dev_examples"])
    if len(sizes) != 1:
        raise ValueError(f"the search runs under {runs} were scored on different held-out sets ({sorted(sizes)}).")
    return LrChoice(scores=scores, chosen={arm: choose(scores[arm]) for arm in ARMS}, heldout_examples=sizes.pop())


def write_choice(settings: LrChoiceConfig) -> LrChoice:
    """Read the search runs, choose, and write `lr_choice.json` beside them."""
    result = read_choice(Path(settings.runs), settings.rates)
    atomic_write_text(Path(settings.runs) / "lr_choice.json", json.dumps(asdict(result), indent=2) + "\n")
    return result


def main(argv: list[str] | None = None) -> None:
    result = run_command(
        "experiments.sst2_lr_choice",
        LrChoiceConfig,
        write_choice,
        (ValueError, KeyError, OSError),
        argv,
        description=__doc__,
    )
    for arm in ARMS:
        logger.info(
            "%s: %s → %s",
            arm,
            ", ".join(f"{rate} {score:.2%}" for rate, score in result.scores[arm].items()),
            result.chosen[arm],
        )
    sys.stdout.write(f"{result.chosen['pretrained']} {result.chosen['scratch']}\n")  # read by the shell script


if __name__ == "__main__":
    main()
