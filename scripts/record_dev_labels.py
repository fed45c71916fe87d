"""Record how many dev examples carry each label in a shipped classifier's metrics.json (`dev_labels`).

The Sentiment tab's framing line gives the majority-class rate as chance ("always answering positive would
be right 50.9% of the time"); that rate comes from these counts, read from the same dev file the model's dev
accuracy was measured on. `scripts.ship_sentiment_model` writes them when it ships a model; this adds them to
a model shipped before it did.

    python -m scripts.record_dev_labels assets/sentiment/albert-lab-sst2 ../shared/glue/SST-2/dev.tsv
"""

from __future__ import annotations

import argparse
import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from albert.data.tasks import read_records
from albert.io import atomic_write_text

logger = logging.getLogger("scripts.record_dev_labels")


def dev_label_counts(dev_file: str | Path, config: dict) -> dict[str, int]:
    """Label name → number of dev examples, the names taken from the classifier's config (`id2label`).

    A file value the config does not name is refused (the counts would describe another label set)."""
    id2label = {str(k): str(v) for k, v in (config.get("id2label") or {}).items()}
    values = config.get("task_label_values") or [id2label[str(i)] for i in range(len(id2label))]
    to_name = {str(v): id2label[str(i)] for i, v in enumerate(values)} | {name: name for name in id2label.values()}
    counts: Counter[str] = Counter()
    for record in read_records(str(dev_file), "classification", split="validation"):
        if record.label not in to_name:
            raise ValueError(
                f"{record.where}: label {record.label!r} is not one of the model's labels "
                f"({', '.join(sorted(to_name))})."
            )
        counts[to_name[str(record.label)]] += 1
    return {name: counts[name] for name in id2label.values()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_dir", type=Path, help="a shipped classifier folder (config.json, metrics.json)")
    parser.add_argument("dev_file", type=Path, help="the dev file its metrics.json's dev accuracy was measured on")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        config = json.loads((args.model_dir / "config.json").read_text(encoding="utf-8"))
        metrics_path = args.model_dir / "metrics.json"
        metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
        counts = dev_label_counts(args.dev_file, config)
    except (OSError, ValueError) as error:
        raise SystemExit(f"record_dev_labels: {error}") from None
    recorded = _dig_dev_examples(metrics)
    if recorded is not None and recorded != sum(counts.values()):
        raise SystemExit(
            f"record_dev_labels: {args.dev_file} has {sum(counts.values())} examples, but the model's "
            f"dev accuracy was measured on {recorded}."
        )
    atomic_write_text(metrics_path, json.dumps(metrics | {"dev_labels": counts}, indent=2) + "\n")
    logger.info("%s: dev_labels %s", metrics_path, counts)


def _dig_dev_examples(metrics: dict) -> int | None:
    value = (metrics.get("sst2") or {}).get("pretrained", {}).get("dev_examples")
    return int(value) if isinstance(value, int) else None


if __name__ == "__main__":
    main()
