"""Honest sentence-order figures for the structure experiment (scripts/sop_structure_experiment.sh, issue 30 item 5).

    python -m scripts.score_order_experiment model --model assets/models/albert-lab-zh \\
        --corpus reviews-dev=runs/sop-structure/reviews-dev.txt --corpus news-valid=PATH.txt.xz --output score.json
    python -m scripts.score_order_experiment baselines --train reviews-train.txt --dev reviews-dev.txt \\
        --tokenizer assets/models/albert-lab-zh --output baselines.json

`model` builds the committed centre-out pairs (`albert.data.sentence_order.order_pairs`, whole consecutive sentences,
no length cue) from each corpus with the model's own tokenizer and scores them the one honest way
(`albert.training.order_scoring.score_text_pairs`: both orders asked, "prefers the true order", Wilson 95%).

`baselines` scores two models that do not read A and B together, trained on the training text's pairs (each in both
orders) and scored balanced on the dev pairs (the pairs the models are scored on: same reader, tokenizer and seed):
- a text-free decision tree on segment lengths and edges: it checks that the pairs hold no length or edge cue;
- a bag of words: logistic regression on binary character 1-2-grams of A and of B in separate feature spaces. Its
  score is linear in A's and B's n-grams apart, so above 50% it shows that single segments carry order (an opener,
  a closer): real reading, but not of how A and B relate. The n-grams that push hardest either way are listed.
A diagnostic (`all_sentence_documents`) keeps documents whose text does not end in sentence-final punctuation,
which the committed reader leaves out, to show what that leaves in: an unpunctuated end is always last.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from albert.data.corpus import read_documents
from albert.data.sentence_order import OrderPair, order_pairs, sentence_documents
from albert.data.sentences import split_sentences
from albert.io import atomic_write_text
from albert.training.order_scoring import Proportion, preference

logger = logging.getLogger("scripts.score_order_experiment")
MAX_TOKENS = 125
"""A and B together, as "[CLS] A [SEP] B [SEP]" fills the Chinese model's 128 positions."""
MAX_PAIRS = 5000
"""More than any dev text here gives: every pair it has."""
SENTENCE_FINAL = "。！？；…!?.;"
TREE = dict(max_depth=6, min_samples_leaf=20, random_state=0)
"""The decision tree of tests/data/test_sentence_order.py."""

CountTokens = Callable[[str], int]


def all_sentence_documents(paths: Sequence[str | Path]) -> list[list[str]]:
    """Documents as sentences, every document of >= 2 sentences kept (no headline rule): the diagnostic's reader."""
    documents = []
    for paragraphs in read_documents([str(p) for p in paths]):
        sentences = [s for p in paragraphs for s in split_sentences(p)]
        if len(sentences) >= 2:
            documents.append(sentences)
    return documents


def segment_features(segment: str, count_tokens: CountTokens) -> list[float]:
    """What a rule that never reads the words can see of one segment: lengths, sentence ends and edge marks."""
    return [
        count_tokens(segment),
        len(segment),
        sum(segment.count(end) for end in "。！？；.!?"),
        segment[:1] in ('"', "“", "「"),
        segment[-1:] in ('"', "”", "」"),
        segment[-1:] in ("!", "！"),
        segment[-1:] in ("?", "？"),
        segment[-1:] in (";", "；"),
        segment.rstrip("”’」』）》)]\"' ")[-1:] in tuple(SENTENCE_FINAL),
    ]


def pair_features(first: str, second: str, count_tokens: CountTokens) -> list[float]:
    a, b = segment_features(first, count_tokens), segment_features(second, count_tokens)
    return [*a, *b, a[0] - b[0], a[1] - b[1]]


def text_free_baseline(
    train: Sequence[OrderPair], test: Sequence[OrderPair], count_tokens: CountTokens
) -> tuple[Proportion, np.ndarray]:
    """The decision tree trained on `train` (each pair in both orders), scored balanced on `test`; and its per-pair
    outcome (1 prefers the true order, 0 not, 0.5 a tie)."""
    from sklearn.tree import DecisionTreeClassifier

    x = [pair_features(p.first, p.second, count_tokens) for p in train]
    x += [pair_features(p.second, p.first, count_tokens) for p in train]
    y = [1] * len(train) + [0] * len(train)
    tree = DecisionTreeClassifier(**TREE).fit(x, y)
    in_order = tree.predict_proba([pair_features(p.first, p.second, count_tokens) for p in test])[:, 1]
    swapped = tree.predict_proba([pair_features(p.second, p.first, count_tokens) for p in test])[:, 1]
    return preference(in_order, swapped), outcomes(in_order, swapped)


def bag_of_words_baseline(
    train: Sequence[OrderPair], test: Sequence[OrderPair], top: int = 15
) -> tuple[Proportion, np.ndarray, dict[str, list[str]]]:
    """Logistic regression on binary character 1-2-grams of the first and of the second segment, each in its own
    feature space, trained on `train` in both orders and scored balanced on `test`; its per-pair outcome; and the
    n-grams that most say "this segment goes first" and "this segment goes last" (weight as first minus as second)."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = CountVectorizer(analyzer="char", ngram_range=(1, 2), binary=True, min_df=2)
    vectorizer.fit([p.first for p in train] + [p.second for p in train])

    def rows(firsts: Sequence[str], seconds: Sequence[str]):
        return hstack([vectorizer.transform(firsts), vectorizer.transform(seconds)]).tocsr()

    a, b = [p.first for p in train], [p.second for p in train]
    x = rows(a + b, b + a)
    y = np.array([1] * len(train) + [0] * len(train))
    model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    ta, tb = [p.first for p in test], [p.second for p in test]
    in_order = model.predict_proba(rows(ta, tb))[:, 1]
    swapped = model.predict_proba(rows(tb, ta))[:, 1]
    size = len(vectorizer.vocabulary_)
    lean = model.coef_[0][:size] - model.coef_[0][size:]
    names = vectorizer.get_feature_names_out()
    order = np.argsort(lean)
    cues = {"first": [str(names[i]) for i in order[::-1][:top]], "last": [str(names[i]) for i in order[:top]]}
    return preference(in_order, swapped), outcomes(in_order, swapped), cues


def outcomes(in_order: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """Per pair: 1 if the true order scored higher, 0 if lower, 0.5 on a tie (`preference` pair by pair)."""
    in_order, swapped = np.asarray(in_order, dtype=np.float64), np.asarray(swapped, dtype=np.float64)
    return (in_order > swapped) + 0.5 * (in_order == swapped)


def split_by(reference: np.ndarray, other: np.ndarray) -> dict[str, Any]:
    """`other`'s rate on the pairs `reference` gets right and on those it gets wrong (ties left out): a model that
    only reads what the reference reads is right where it is right and at chance elsewhere."""
    right, wrong = reference == 1, reference == 0
    return {
        "on_reference_right": Proportion(float(other[right].sum()), int(right.sum())).as_dict(),
        "on_reference_wrong": Proportion(float(other[wrong].sum()), int(wrong.sum())).as_dict(),
    }


def paired_difference(ours: Sequence[float], theirs: Sequence[float], z: float = 1.96) -> dict[str, Any]:
    """Mean of per-pair outcome differences (ours - theirs) on the same pairs, with a normal 95% interval: does one
    scorer order these pairs better than another, pair for pair?"""
    d = np.asarray(ours, dtype=np.float64) - np.asarray(theirs, dtype=np.float64)
    if d.size < 2:
        raise ValueError(f"A paired difference needs at least two pairs, got {d.size}.")
    mean, half = float(d.mean()), z * float(d.std(ddof=1)) / math.sqrt(d.size)
    return {"n": int(d.size), "mean": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)]}


def fingerprint(pairs: Sequence[OrderPair]) -> str:
    """A short hash of the pairs' text, so that two result files can prove they scored the same pairs."""
    digest = hashlib.sha1()
    for pair in pairs:
        digest.update("\x1f".join((pair.first, pair.second, pair.other)).encode("utf-8") + b"\x1e")
    return digest.hexdigest()[:16]


def compare(scores: dict[str, Any], reference: dict[str, Any], corpus: str) -> dict[str, Any]:
    """A model's per-pair outcomes on `corpus` against each baseline's on the same pairs (checked by fingerprint)."""
    ours = scores["corpora"][corpus]
    if ours["fingerprint"] != reference["dev_fingerprint"]:
        raise ValueError(f"{scores['model']} was scored on other pairs than the baselines; rebuild both.")
    mine = np.asarray(ours["outcomes"])
    result: dict[str, Any] = {"model": scores["model"], "corpus": corpus, "order": ours["order"]}
    for name, theirs in reference["outcomes"].items():
        theirs = np.asarray(theirs)
        result[name] = {
            "difference": paired_difference(mine, theirs),
            **split_by(theirs, mine),
        }
    return result


def _token_counter(tokenizer: Any) -> CountTokens:
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def baselines(
    train_paths: Sequence[str | Path],
    dev_paths: Sequence[str | Path],
    count_tokens: CountTokens,
    seed: int = 0,
    max_tokens: int = MAX_TOKENS,
) -> dict[str, Any]:
    """Both baselines on the committed reader's pairs, and the text-free tree on the diagnostic's (no headline rule);
    `max_tokens` and `seed` as the scored model's pairs were built."""
    train = order_pairs(sentence_documents(train_paths), count_tokens, max_tokens, MAX_PAIRS * 4, seed)
    dev = order_pairs(sentence_documents(dev_paths), count_tokens, max_tokens, MAX_PAIRS, seed)
    logger.info("%d train pairs, %d dev pairs", len(train), len(dev))
    tree, tree_outcomes = text_free_baseline(train, dev, count_tokens)
    words, word_outcomes, cues = bag_of_words_baseline(train, dev)
    every_train = order_pairs(all_sentence_documents(train_paths), count_tokens, max_tokens, MAX_PAIRS * 4, seed)
    every_dev = order_pairs(all_sentence_documents(dev_paths), count_tokens, max_tokens, MAX_PAIRS, seed)
    every_tree, _ = text_free_baseline(every_train, every_dev, count_tokens)
    return {
        "max_tokens": max_tokens,
        "seed": seed,
        "train_pairs": len(train),
        "dev_pairs": len(dev),
        "dev_fingerprint": fingerprint(dev),
        "text_free_tree": tree.as_dict(),
        "bag_of_words": {**words.as_dict(), "cues": cues},
        "outcomes": {"text_free_tree": tree_outcomes.tolist(), "bag_of_words": word_outcomes.tolist()},
        "diagnostic_unpunctuated_ends_kept": {
            "train_pairs": len(every_train),
            "dev_pairs": len(every_dev),
            "text_free_tree": every_tree.as_dict(),
        },
    }


def score_model(
    model_dir: str | Path, corpora: dict[str, list[str]], count: int = MAX_PAIRS, seed: int = 0
) -> dict[str, Any]:
    """Each corpus's centre-out pairs (the model's tokenizer, A and B within `MAX_TOKENS` or the model's positions),
    scored in both orders: prefers the true order and prefers the real next, with n and Wilson 95% intervals."""
    from albert import AlbertForPreTraining
    from albert.data.tokenizer import load_tokenizer
    from albert.training.order_scoring import score_text_pairs

    model = AlbertForPreTraining.from_pretrained(str(model_dir)).float().eval()
    tokenizer = load_tokenizer(str(model_dir))
    max_tokens = min(MAX_TOKENS, model.config.max_position_embeddings - 3)
    count_tokens = _token_counter(tokenizer)
    results: dict[str, Any] = {"model": str(model_dir), "max_tokens": max_tokens, "seed": seed, "corpora": {}}
    for name, paths in corpora.items():
        documents = sentence_documents(paths)
        pairs = order_pairs(documents, count_tokens, max_tokens, count, seed)
        scores = score_text_pairs(model, tokenizer, pairs, max_tokens)
        results["corpora"][name] = {
            "paths": [str(p) for p in paths],
            "documents": len(documents),
            "pairs": len(pairs),
            "fingerprint": fingerprint(pairs),
            "order": scores.order.as_dict(),
            "order_verdict": scores.order.verdict(),
            "topic": scores.topic.as_dict(),
            "outcomes": outcomes(scores.in_order, scores.swapped).tolist(),
        }
        logger.info("%s on %s: prefers the true order %s", model_dir, name, scores.order.as_dict())
    return results


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _corpus_argument(value: str) -> tuple[str, list[str]]:
    name, sep, path = value.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--corpus takes NAME=PATH[,PATH...], got {value!r}.")
    return name, path.split(",")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scored = commands.add_parser("model", help="score one model on each corpus")
    scored.add_argument("--model", required=True, help="a from_pretrained folder with its tokenizer")
    scored.add_argument("--corpus", type=_corpus_argument, action="append", required=True, help="NAME=PATH[,PATH]")
    scored.add_argument("--pairs", type=int, default=MAX_PAIRS, help="at most this many pairs per corpus")
    scored.add_argument("--threads", type=int, default=1)
    base = commands.add_parser("baselines", help="the text-free and bag-of-words baselines")
    base.add_argument("--train", nargs="+", required=True, help="training text (blank line between documents)")
    base.add_argument("--dev", nargs="+", required=True, help="scoring text, never trained on")
    base.add_argument("--tokenizer", required=True, help="the scored models' tokenizer folder")
    base.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help="A and B together, as the models' pairs")
    versus = commands.add_parser("compare", help="a scored model against the baselines, pair for pair")
    versus.add_argument("--scores", type=Path, required=True, help="the JSON of `model`")
    versus.add_argument("--baselines", type=Path, required=True, help="the JSON of `baselines`")
    versus.add_argument("--corpus", default="reviews-dev", help="the corpus name the baselines' dev pairs came from")
    for command in (scored, base):
        command.add_argument("--seed", type=int, default=0, help="seed of the pairs")
    for command in (scored, base, versus):
        command.add_argument("--output", type=Path, required=True, help="JSON to write")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.command == "model":
        import torch

        torch.set_num_threads(args.threads)
        result = score_model(args.model, dict(args.corpus), args.pairs, args.seed)
    elif args.command == "compare":
        result = compare(_read_json(args.scores), _read_json(args.baselines), args.corpus)
    else:
        from albert.data.tokenizer import load_tokenizer

        count_tokens = _token_counter(load_tokenizer(args.tokenizer))
        result = baselines(args.train, args.dev, count_tokens, args.seed, args.max_tokens)
    atomic_write_text(args.output, json.dumps(result, ensure_ascii=False) + "\n")
    logger.info("wrote %s", args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
