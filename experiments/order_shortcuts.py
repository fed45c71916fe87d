"""What a rule that never reads the words scores on order pairs: the sceptic's check behind every order figure.

    python -m experiments.order_shortcuts --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz \\
        --tokenizer assets/models/albert-lab-e128-continued --max-tokens 61

A decision tree sees only the two segments' lengths (pieces and characters), sentence counts and edge characters
(opening and closing quotes, ! ? ;), is trained on half the pairs (each in both orders) and is scored balanced on the
other half, as the models are. On pairs built by `albert.data.sentence_order` it should sit at 50%; on pairs that
leak (forward-filled windows) it does not (`tests/data/test_sentence_order.py` shows both).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable, Sequence

from albert.data.sentence_order import OrderPair
from albert.training.order_scoring import Proportion, preference

logger = logging.getLogger("experiments.order_shortcuts")


def text_free_features(x: str, y: str, count_tokens: Callable[[str], int]) -> list[float]:
    """Of "x then y": lengths, sentence counts and edge characters of each, and the length differences."""

    def of(segment: str) -> list[float]:
        return [
            count_tokens(segment),
            len(segment),
            sum(segment.count(end) for end in ".!?。！？；"),
            segment[:1] in ('"', "“"),
            segment[-1:] in ('"', "”"),
            segment[-1:] in ("!", "！"),
            segment[-1:] in ("?", "？"),
            segment[-1:] in (";", "；"),
        ]

    fx, fy = of(x), of(y)
    return [*fx, *fy, fx[0] - fy[0], fx[1] - fy[1]]


def text_free_preference(pairs: Sequence[OrderPair], count_tokens: Callable[[str], int]) -> Proportion:
    """A decision tree on `text_free_features`, trained on the first half of the pairs (each in both orders), scored
    on the second half as the models are: does it prefer the true order?"""
    from sklearn.tree import DecisionTreeClassifier

    half = len(pairs) // 2
    train, test = pairs[:half], pairs[half:]
    x = [text_free_features(p.first, p.second, count_tokens) for p in train]
    x += [text_free_features(p.second, p.first, count_tokens) for p in train]
    tree = DecisionTreeClassifier(max_depth=6, min_samples_leaf=20, random_state=0)
    tree.fit(x, [1] * len(train) + [0] * len(train))
    in_order = tree.predict_proba([text_free_features(p.first, p.second, count_tokens) for p in test])[:, 1]
    swapped = tree.predict_proba([text_free_features(p.second, p.first, count_tokens) for p in test])[:, 1]
    return preference(in_order, swapped)


def main(argv: list[str] | None = None) -> int:
    from albert.data.tokenizer import load_tokenizer
    from albert.training.pretraining_evaluation import held_out_pairs

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--valid-corpus", action="append", required=True)
    parser.add_argument("--tokenizer", required=True, help="a model folder or tokenizer folder")
    parser.add_argument("--max-tokens", type=int, default=61, help="A and B together (the model's positions - 3)")
    parser.add_argument("--pairs", type=int, default=3000)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    tokenizer = load_tokenizer(args.tokenizer)
    pairs = held_out_pairs(args.valid_corpus, tokenizer, args.max_tokens, args.pairs)
    result = text_free_preference(pairs, lambda s: len(tokenizer(s, add_special_tokens=False)["input_ids"]))
    logger.info("text-free rule on %d held-out pairs: %s", len(pairs), json.dumps(result.as_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
