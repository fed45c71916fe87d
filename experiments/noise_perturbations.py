"""The fixed, seeded perturbation sets of the shared-noise experiment (docs/protocols/shared-noise.md), and the
text-free baselines scored on the same examples.

    python -m experiments.noise_perturbations ../shared/glue runs/shared-noise/data

For each task (SST-2 and zh-reviews) every dev example gets one perturbed copy, written next to a clean copy as
`OUT/<task>/clean.tsv` and `OUT/<task>/perturbed.tsv` (GLUE format, same order and labels), with `manifest.json`:
the settings, the counts, what was changed and the SHA-256 of every file. The sets are derived from the shared data
and stay out of the repository; the manifest's checksums say whether a rebuilt set is the same one.

English (SST-2 is lower-cased and split into words and punctuation by spaces): each word is dropped with
probability `drop` (at least one word stays); each remaining word of three letters or more gets a typo with
probability `typo` — two neighbouring letters swapped, a letter deleted, a letter doubled, or a letter replaced
by a neighbour on a QWERTY keyboard. Chinese: each Han character is, with the given probabilities, swapped with
the next Han character, replaced by another character drawn by frequency from the training reviews (chosen
without regard to sound: no homophone table), or deleted. An example that came out unchanged gets one forced
edit (a typo, or a substitution), so every perturbed example differs from its clean one where it can.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from albert.data.tasks import Record, read_records

logger = logging.getLogger("experiments.noise_perturbations")
TASKS = {"sst2": "SST-2", "zh": "zh-reviews"}
"""Our name of each task → its folder under the GLUE directory."""
QWERTY = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@dataclass(frozen=True)
class PerturbationConfig:
    """The edit probabilities (fixed in the protocol before any run)."""

    seed: int = 45
    """Seed of every choice (one generator per task, examples in file order)."""
    drop: float = 0.10
    """English: probability that a word is dropped."""
    typo: float = 0.20
    """English: probability that a kept word of three letters or more gets one typo."""
    swap: float = 0.05
    """Chinese: probability that a Han character is swapped with the next Han character."""
    substitute: float = 0.05
    """Chinese: probability that a Han character is replaced by another frequent character."""
    delete: float = 0.05
    """Chinese: probability that a Han character is deleted."""
    vocabulary: int = 3000
    """Chinese: substitutes are drawn from this many most frequent Han characters of the training reviews."""


def _neighbours() -> dict[str, str]:
    """Letters next to each letter on a QWERTY keyboard (same row and the rows above and below)."""
    where = {c: (r, i) for r, row in enumerate(QWERTY) for i, c in enumerate(row)}
    near: dict[str, str] = {}
    for c, (r, i) in where.items():
        near[c] = "".join(
            d for d, (r2, i2) in where.items() if d != c and abs(r2 - r) <= 1 and abs(i2 - i + 0.5 * (r2 - r)) <= 1
        )
    return near


NEIGHBOURS = _neighbours()


def typo(word: str, rng: random.Random) -> str:
    """One typo in `word` (three letters or more): swap, delete, double or a keyboard neighbour; never the same."""
    kind = rng.choice(("swap", "delete", "double", "neighbour"))
    i = rng.randrange(len(word) - 1) if kind == "swap" else rng.randrange(len(word))
    if kind == "swap" and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "delete":
        return word[:i] + word[i + 1 :]
    if kind == "double":
        return word[: i + 1] + word[i:]
    letter = word[i]
    replacement = rng.choice(NEIGHBOURS.get(letter, "")) if letter in NEIGHBOURS else "x" if letter != "x" else "z"
    return word[:i] + replacement + word[i + 1 :]


def _typo_able(word: str) -> bool:
    return len(word) >= 3 and word.isalpha()


def perturb_english(text: str, rng: random.Random, cfg: PerturbationConfig) -> str:
    """Word drops then typos (see the module docstring); at least one word kept and, where possible, one edit."""
    words = text.split()
    kept = [w for w in words if rng.random() >= cfg.drop] or [rng.choice(words)]
    out = [typo(w, rng) if _typo_able(w) and rng.random() < cfg.typo else w for w in kept]
    if out == words:
        candidates = [i for i, w in enumerate(out) if _typo_able(w)]
        if candidates:
            i = rng.choice(candidates)
            out[i] = typo(out[i], rng)
    return " ".join(out)


def is_han(character: str) -> bool:
    return "\u4e00" <= character <= "\u9fff"


def perturb_chinese(text: str, rng: random.Random, cfg: PerturbationConfig, vocabulary: list[str]) -> str:
    """Han-character swaps, frequency-drawn substitutions and deletions; other characters are left alone."""

    def substitute(c: str) -> str:
        choice = rng.choice(vocabulary)
        return choice if choice != c else rng.choice(vocabulary)

    chars = list(text)
    i = 0
    out: list[str] = []
    while i < len(chars):
        c = chars[i]
        if not is_han(c):
            out.append(c)
            i += 1
            continue
        roll = rng.random()
        if roll < cfg.swap:  # a swap needs a different Han character next; otherwise the character stays
            if i + 1 < len(chars) and is_han(chars[i + 1]) and chars[i + 1] != c:
                out += [chars[i + 1], c]
                i += 2
                continue
            out.append(c)
        elif roll < cfg.swap + cfg.substitute:
            out.append(substitute(c))
        elif roll >= cfg.swap + cfg.substitute + cfg.delete:
            out.append(c)
        i += 1
    result = "".join(out)
    if result == text:
        han = [j for j, c in enumerate(chars) if is_han(c)]
        if han:
            j = rng.choice(han)
            result = text[:j] + substitute(text[j]) + text[j + 1 :]
    return result or text


def han_vocabulary(records: list[Record], size: int) -> list[str]:
    """The `size` most frequent Han characters of `records`' texts, most frequent first (ties by code point)."""
    counts = Counter(c for r in records for c in r.text if is_han(c))
    return [c for c, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:size]]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_tsv(path: Path, texts: list[str], labels: list[str]) -> None:
    rows = "".join(f"{t}\t{label}\n" for t, label in zip(texts, labels, strict=True))
    path.write_text("sentence\tlabel\n" + rows, encoding="utf-8")


def build_task(glue_dir: Path, task: str, out_dir: Path, cfg: PerturbationConfig) -> dict[str, object]:
    """Write `out_dir/task/{clean,perturbed}.tsv` and its manifest; returns the manifest."""
    source = glue_dir / TASKS[task]
    dev = read_records(str(source / "dev.tsv"), "classification")
    rng = random.Random(f"{cfg.seed}:{task}")
    if task == "zh":
        vocabulary = han_vocabulary(read_records(str(source / "train.tsv"), "classification"), cfg.vocabulary)
        perturbed = [perturb_chinese(r.text, rng, cfg, vocabulary) for r in dev]
        unit = [sum(is_han(c) for c in r.text) for r in dev]
    else:
        perturbed = [perturb_english(r.text, rng, cfg) for r in dev]
        unit = [len(r.text.split()) for r in dev]
    folder = out_dir / task
    folder.mkdir(parents=True, exist_ok=True)
    labels = [r.label for r in dev]
    # Tabs or newlines inside a text would break the TSV; GLUE's files have none, and the edits add none.
    _write_tsv(folder / "clean.tsv", [r.text for r in dev], labels)
    _write_tsv(folder / "perturbed.tsv", perturbed, labels)
    changed = sum(p != r.text for p, r in zip(perturbed, dev, strict=True))
    manifest = {
        "task": task,
        "source": f"{TASKS[task]}/dev.tsv",
        "source_sha256": _sha256(source / "dev.tsv"),
        "settings": asdict(cfg),
        "examples": len(dev),
        "changed_examples": changed,
        "clean_units": int(np.sum(unit)),
        "perturbed_units": int(np.sum([len(p.split()) if task == "sst2" else sum(map(is_han, p)) for p in perturbed])),
        "sha256": {name: _sha256(folder / name) for name in ("clean.tsv", "perturbed.tsv")},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    logger.info("%s: %d examples, %d changed → %s", task, len(dev), changed, folder)
    return manifest


def text_free_baselines(glue_dir: Path, task: str, data_dir: Path) -> dict[str, dict[str, float]]:
    """What rules that never read the words score on the clean and perturbed sets: the training file's majority
    class, and a length rule (the training majority label of each length decile, length in characters)."""
    train = read_records(str(glue_dir / TASKS[task] / "train.tsv"), "classification")
    labels = np.array([r.label for r in train])
    majority = Counter(labels.tolist()).most_common(1)[0][0]
    lengths = np.array([len(r.text) for r in train])
    edges = np.quantile(lengths, np.linspace(0, 1, 11)[1:-1])
    buckets = np.searchsorted(edges, lengths, side="right")
    by_bucket = {
        int(b): Counter(labels[buckets == b].tolist()).most_common(1)[0][0] if (buckets == b).any() else majority
        for b in range(len(edges) + 1)
    }
    scores: dict[str, dict[str, float]] = {"majority": {}, "length": {}}
    for split in ("clean", "perturbed"):
        records = read_records(str(data_dir / task / f"{split}.tsv"), "classification")
        truth = np.array([r.label for r in records])
        predicted = [by_bucket[int(np.searchsorted(edges, len(r.text), side="right"))] for r in records]
        scores["majority"][split] = float(np.mean(truth == majority))
        scores["length"][split] = float(np.mean(truth == np.array(predicted)))
    return scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("glue_dir", type=Path, help="folder holding SST-2/ and zh-reviews/ (GLUE TSV)")
    parser.add_argument("out_dir", type=Path, help="where <task>/clean.tsv, perturbed.tsv and manifest.json go")
    parser.add_argument("--seed", type=int, default=PerturbationConfig.seed)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cfg = PerturbationConfig(seed=args.seed)
    for task in TASKS:
        if not (args.glue_dir / TASKS[task] / "dev.tsv").is_file():
            parser.error(f"{args.glue_dir / TASKS[task] / 'dev.tsv'} is missing; give the folder that holds SST-2/.")
        manifest = build_task(args.glue_dir, task, args.out_dir, cfg)
        manifest["text_free"] = text_free_baselines(args.glue_dir, task, args.out_dir)
        path = args.out_dir / task / "manifest.json"
        path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        logger.info("%s text-free baselines: %s", task, manifest["text_free"])


if __name__ == "__main__":
    main()
