"""Which example sentences a shipped model gets right: the app's defaults are chosen from this script's output.

Scores candidate examples for the Masked words, Sentence order and Sentiment tabs with the model the app
uses, the way the app scores them, and logs which it gets right. With `--corpus` (held-out text the model
never saw, e.g. `gutenberg-valid.txt.xz`) it also scores sentences sampled from that text (one word of each
masked in turn) and sentence-order pairs drawn from it by the project's one pair rule
(`albert.data.sentence_order.order_pairs`: centre-out, whole sentences, and a segment of another document as
"B from another book"), so the chosen examples can be seen against the model's rate on plain held-out text.
Every order pair is read by the SOP model and by the language's NSP arm (`--nsp-model`), as the tab shows them;
`--others FILE` writes the "B from another book" segments of those pairs for the tab's 🎲 button
(`app.tabs.order.side_by_side.OTHERS_PATH`, one list per language, the other languages' lists kept).

    python -m scripts.choose_examples                                   # the app's examples and candidates
    python -m scripts.choose_examples --corpus ../shared/corpus/gutenberg-valid.txt.xz --sample 300 \
        --others assets/sentence_order/other-books.json
    python -m scripts.choose_examples --model albert-lab-zh --lang zh \
        --corpus ../shared/corpus/zh/peoples-daily-199801-valid.txt.xz --others assets/sentence_order/other-books.json

Right means: every [MASK]'s first guess is the hidden word (case-insensitive); the original order A→B gets a
higher "in order" probability than B→A by 2 points or more (the tab's "prefers" rule,
`app.tabs.order.views.order_reading`; closer than that the tab calls it undecided); the sentiment label is the
expected one. The NSP arm's topic reading uses the same rule on A→B against A→other book.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scripts.example_candidates import MASK_CANDIDATES, ORDER_CANDIDATES, SENTIMENT_CANDIDATES

if TYPE_CHECKING:
    from albert.data.sentence_order import OrderPair

logger = logging.getLogger("scripts.choose_examples")
_BRACED = re.compile(r"\{([^{}]+)\}")


def masked_form(candidate: str, lang: str = "en") -> tuple[str, list[str]]:
    """'He took off his {hat}.' → ('He took off his [MASK].', ['hat']). In Chinese every braced character is one
    [MASK] (the model's vocabulary is characters): '自然语言{处理}' → '自然语言[MASK][MASK]', ['处', '理']."""
    targets: list[str] = []

    def replace(match: re.Match[str]) -> str:
        word = match.group(1).strip()
        pieces = list(word) if lang == "zh" else [word]
        targets.extend(pieces)
        return "[MASK]" * len(pieces)

    text = _BRACED.sub(replace, candidate)
    if not targets:
        raise ValueError(f"candidate {candidate!r} has no {{word}} to mask")
    return text, targets


@dataclass(frozen=True)
class MaskScore:
    text: str
    targets: list[str]
    guesses: list[str]
    p_guess: list[float]
    p_target: list[float | None]
    """The hidden word's probability when it is among the top `TOP_K`, else None."""

    @property
    def right(self) -> bool:
        return all(g.lower() == w.lower() for g, w in zip(self.guesses, self.targets, strict=True))


TOP_K = 20


def score_mask(lm: Any, text: str, targets: Sequence[str], lang: str = "en") -> MaskScore:
    """The app's /fill_mask on `text` (which holds one [MASK] per target) against the hidden words."""
    from app import inference

    result = inference.fill_mask(lm, text, TOP_K, lang)
    if len(result.predictions) != len(targets):
        raise ValueError(f"{text!r}: {len(result.predictions)} masks scored for {len(targets)} hidden words")
    p_target: list[float | None] = []
    for prediction, target in zip(result.predictions, targets, strict=True):
        found = [p for token, p in prediction.candidates if token.lower() == target.lower()]
        p_target.append(found[0] if found else None)
    return MaskScore(
        text,
        list(targets),
        [p.candidates[0][0] for p in result.predictions],
        [p.candidates[0][1] for p in result.predictions],
        p_target,
    )


@dataclass(frozen=True)
class OrderScore:
    a: str
    b: str
    p_ab: float
    """P(class 0) for A then B — the original order (SOP: "in order"; NSP: "B is the next text")."""
    p_ba: float
    other: str = ""
    """A segment of another document ("B from another book"), or "" when none was asked."""
    p_other: float | None = None
    """P(class 0) for A then `other`."""

    @property
    def reading(self) -> str:
        """As the tab words it: 'prefers_ab' (right), 'undecided' or 'prefers_ba'
        (app.tabs.order.views.order_reading)."""
        from app.tabs.order.views import order_reading

        return order_reading(self.p_ab, self.p_ba)

    @property
    def topic(self) -> str | None:
        """The same rule on A→B against A→other: 'prefers_ab' is "prefers the real B"; None without `other`."""
        from app.tabs.order.views import order_reading

        return order_reading(self.p_ab, self.p_other) if self.p_other is not None else None

    @property
    def right(self) -> bool:
        return self.reading == "prefers_ab"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"right": self.right, "reading": self.reading, "topic": self.topic}


def score_order(lm: Any, a: str, b: str, lang: str = "en", other: str = "") -> OrderScore:
    """The app's reading of one pair (`app.inference.sentence_order`: both orders, and A→other when given)."""
    from app import inference

    result = inference.sentence_order(lm, a, b, lang, other)
    return OrderScore(a, b, result.in_order_ab, result.in_order_ba, other, result.with_other)


@dataclass(frozen=True)
class SentimentScore:
    text: str
    expected: str
    label: str
    probability: float

    @property
    def right(self) -> bool:
        return self.label.lower() == self.expected.lower()


def score_sentiment(clf: Any, text: str, expected: str, lang: str = "en") -> SentimentScore:
    from app.tabs.sentiment.classifier import classify

    result = classify(clf, text, lang)
    return SentimentScore(text, expected, result.label, result.probabilities[result.predicted])


# ----- held-out text ---------------------------------------------------------------------------------------
_PLAIN_WORD = re.compile(r"^[A-Za-z]+$")


def _reads(clf: Any, text: str, lang: str) -> bool:
    """Whether the classifier's tokenizer reads `text` (the app's unknown-token guard lets it through)."""
    from app.inputs import InputError
    from app.tabs.sentiment.classifier import classify

    try:
        classify(clf, text, lang)
    except InputError:
        return False
    return True


def held_out_sentences(
    corpus: str | Path, sample: int, seed: int = 0, lang: str = "en", min_words: int = 5, max_words: int = 14
) -> list[str]:
    """`sample` short sentences of held-out text, drawn with `seed` (for the masked-word rate)."""
    from albert.data.corpus import read_documents
    from albert.data.sentences import split_sentences

    def short(sentence: str) -> bool:
        if lang == "zh":
            return 6 <= len(sentence) <= 30
        return min_words <= len(sentence.split()) <= max_words and '"' not in sentence and "“" not in sentence

    sentences = [
        s for document in read_documents([corpus]) for paragraph in document for s in split_sentences(paragraph)
    ]
    sentences = [s for s in sentences if short(s)]
    return random.Random(seed).sample(sentences, min(sample, len(sentences)))


def held_out_pairs(
    corpus: str | Path, sample: int, count_tokens: Callable[[str], int], max_tokens: int, seed: int = 0
) -> list[OrderPair]:
    """Up to `sample` sentence-order pairs of held-out text by the project's one rule (`order_pairs`: centre-out,
    whole sentences, A and B together within `max_tokens` as `count_tokens` counts them), each with a segment of
    another document ("B from another book")."""
    from albert.data.sentence_order import order_pairs, sentence_documents

    return order_pairs(sentence_documents([corpus]), count_tokens, max_tokens, sample, seed)


_GLUED_QUOTES = re.compile(r"[”\"’'][“\"‘]|”[^\s.,;:!?)’—-]")  # lines run together ('…?”“Yes.', '…?”Francine')
_NOT_PROSE = re.compile(r"[\[\]_*|{}<>]|\d|--|\bhrs?\.|^[A-Z]+[:.]")  # notes, figures, markup, dialogue headings


def plain_segment(text: str, lang: str = "en") -> bool:
    """A segment a class reads at a glance, fit to be "B from another book": plain prose of a few words (Chinese: a
    dozen to 80 characters, mostly Han), no figures, notes or markup, no two speakers' lines run together."""
    text = text.strip()
    if lang == "zh":
        from albert.data.chinese import is_han

        return 12 <= len(text) <= 80 and sum(is_han(c) for c in text) >= 0.7 * len(text)
    letters = sum(c.isalpha() for c in text)
    return (
        6 <= len(text.split()) <= 30
        and letters >= 0.75 * len(text.replace(" ", ""))
        and not _GLUED_QUOTES.search(text)
        and not _NOT_PROSE.search(text)
        and text.count('"') % 2 == 0
        and text.count("“") == text.count("”")  # a quotation cut in two reads as a fragment
    )


def write_others(path: Path, lang: str, segments: Sequence[str], source: str) -> list[str]:
    """The "B from another book" list of `lang` in `path` (the other languages' lists kept): `segments` without
    repeats, in their order. Written whole to a temporary file, then renamed."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kept = list(dict.fromkeys(s.strip() for s in segments if s.strip()))
    data[lang] = kept
    data.setdefault("source", {})[lang] = source
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
    return kept


def mask_one_word(sentence: str, rng: random.Random, lang: str = "en") -> tuple[str, list[str]] | None:
    """The sentence with one word (English: letters only; Chinese: one Han character) in braces, or None."""
    if lang == "zh":
        from albert.data.chinese import is_han

        spots = [i for i, c in enumerate(sentence) if is_han(c)]
        if not spots:
            return None
        i = rng.choice(spots)
        return masked_form(sentence[:i] + "{" + sentence[i] + "}" + sentence[i + 1 :], lang)
    words = sentence.split()
    spots = [i for i, w in enumerate(words) if _PLAIN_WORD.match(w)]
    if not spots:
        return None
    i = rng.choice(spots)
    words[i] = "{" + words[i] + "}"
    return masked_form(" ".join(words), lang)


def _rate(scores: Iterable[Any]) -> str:
    scores = list(scores)
    right = sum(s.right for s in scores)
    return f"{right} of {len(scores)} right ({right / max(len(scores), 1):.1%})"


def _log_masks(title: str, scores: list[MaskScore]) -> None:
    logger.info("== %s: %s", title, _rate(scores))
    for s in sorted(scores, key=lambda s: (not s.right, -min(s.p_guess))):
        target = ", ".join(
            f"{w} {p:.1%}" if p is not None else f"{w} (not in top {TOP_K})"
            for w, p in zip(s.targets, s.p_target, strict=True)
        )
        guess = ", ".join(f"{g} {p:.1%}" for g, p in zip(s.guesses, s.p_guess, strict=True))
        logger.info("%s %s | first guess: %s | hidden: %s", "RIGHT" if s.right else "wrong", s.text, guess, target)


def _log_orders(title: str, scores: list[OrderScore], nsp: list[OrderScore] | None = None) -> None:
    """Each pair as the SOP model reads it (and the NSP arm beside it, when scored), best first."""
    logger.info("== %s: %s", title, _rate(scores))
    beside: list[OrderScore | None] = list(nsp) if nsp else [None] * len(scores)
    for s, n in sorted(zip(scores, beside, strict=True), key=lambda pair: pair[0].p_ba - pair[0].p_ab):
        other = f" A→other {100 * s.p_other:.1f}%" if s.p_other is not None else ""
        nsp_text = (
            f" | NSP A→B {100 * n.p_ab:.1f}% B→A {100 * n.p_ba:.1f}%"
            + (f" A→other {100 * n.p_other:.1f}% ({n.topic})" if n.p_other is not None else "")
            if n is not None
            else ""
        )
        logger.info(
            "%s A→B %.1f%% vs B→A %.1f%%%s%s | %s | %s | other: %s",
            {"prefers_ab": "RIGHT", "undecided": "undecided", "prefers_ba": "wrong"}[s.reading],
            100 * s.p_ab,
            100 * s.p_ba,
            other,
            nsp_text,
            s.a,
            s.b,
            s.other,
        )


def _nsp_model(choice: str | None, lm: Any, lang: str) -> Any:
    """The NSP arm read beside `lm`: `choice`, else the language's shipped one; None when there is none (or `lm`
    is itself an NSP model)."""
    from app import models

    name = choice or models.nsp_model(lang)
    if not name or lm.config.sentence_objective != "sop":
        return None
    return models.load(name, lang)


def _token_counter(lm: Any) -> Callable[[str], int]:
    """Pieces per sentence in `lm`'s tokenizer (no special tokens): what `order_pairs` budgets with."""
    return lambda text: len(lm.tokenizer(text, add_special_tokens=False)["input_ids"])


def _score_orders(
    title: str, key: str, lm: Any, nsp: Any, triples: Sequence[tuple[str, str, str]], lang: str
) -> dict[str, Any]:
    """Each (A, B, other) read by the SOP model and by the NSP arm (when given), logged; the report's entries."""
    scores = [score_order(lm, a, b, lang, other) for a, b, other in triples]
    beside = [score_order(nsp, a, b, lang, other) for a, b, other in triples] if nsp is not None else None
    _log_orders(title, scores, beside)
    entries = [s.as_dict() for s in scores]
    if beside is not None:
        entries = [e | {"nsp": n.as_dict()} for e, n in zip(entries, beside, strict=True)]
    return {key: entries}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="", help="shipped model name or folder (default: the app's default)")
    parser.add_argument(
        "--sentiment-model", type=Path, default=None, help="sentiment model folder (default: the app's for --lang)"
    )
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--corpus", default=None, help="held-out text (.txt, .xz, .gz) to sample sentences from")
    parser.add_argument("--sample", type=int, default=200, help="held-out sentences (and pairs) to score")
    parser.add_argument("--pairs", type=int, default=None, help="held-out order pairs to score (default: --sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write every score to this file")
    parser.add_argument(
        "--nsp-model", default=None, help="the NSP arm read beside the SOP model (default: the language's, if shipped)"
    )
    parser.add_argument(
        "--others", type=Path, default=None, help="write the held-out pairs' other-book segments here (needs --corpus)"
    )
    parser.add_argument("--others-count", type=int, default=40, help="how many other-book segments to write")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    from app import models
    from app.tabs.sentiment import classifier as sentiment

    models.configure_torch_threads()
    lm = models.load(args.model or None, args.lang)
    logger.info("model %s (V %d, sharing %s)", lm.name, lm.config.vocab_size, lm.config.sharing)
    report: dict[str, Any] = {"model": lm.name}
    masks = [score_mask(lm, *masked_form(c, args.lang), lang=args.lang) for c in MASK_CANDIDATES[args.lang]]
    _log_masks("masked-word candidates", masks)
    nsp = _nsp_model(args.nsp_model, lm, args.lang)
    report["nsp_model"] = nsp.name if nsp is not None else None
    report["mask"] = [asdict(s) | {"right": s.right} for s in masks]
    if lm.config.sentence_objective != "none":
        from app.tabs.order.side_by_side import other_segments

        pool = other_segments(args.lang)  # the shipped other-book segments, one per candidate in turn
        candidates = [
            (a, b, pool[i % len(pool)] if pool else "") for i, (a, b) in enumerate(ORDER_CANDIDATES[args.lang])
        ]
        report |= _score_orders("sentence-order candidates (true order A→B)", "order", lm, nsp, candidates, args.lang)
    directory = args.sentiment_model or sentiment.sentiment_dir_for("", args.lang)
    clf = sentiment.load_classifier(args.lang, directory) if sentiment.is_installed(directory) else None
    if clf is not None and not _reads(clf, SENTIMENT_CANDIDATES[args.lang][0][0], args.lang):
        logger.info("sentiment: %s cannot read %s text; its candidates are not scored", clf.name, args.lang)
        clf = None
    if clf is not None:
        feelings = [score_sentiment(clf, text, label, args.lang) for text, label in SENTIMENT_CANDIDATES[args.lang]]
        logger.info("== sentiment candidates (%s): %s", clf.name, _rate(feelings))
        for s in feelings:
            logger.info(
                "%s %s → %s %.1f%% (expected %s)",
                "RIGHT" if s.right else "wrong",
                s.text,
                s.label,
                100 * s.probability,
                s.expected,
            )
        report["sentiment"] = [asdict(s) | {"right": s.right} for s in feelings]
    if args.corpus:
        rng = random.Random(args.seed)
        sentences = held_out_sentences(args.corpus, args.sample, args.seed, args.lang)
        held_masks = [
            score_mask(lm, *form, lang=args.lang)
            for form in (mask_one_word(s, rng, args.lang) for s in sentences)
            if form is not None
        ]
        _log_masks("held-out sentences, one word masked", held_masks)
        report["held_out_mask"] = [asdict(s) | {"right": s.right} for s in held_masks]
        if lm.config.sentence_objective != "none":
            # Pairs every model of the tab reads whole: A and B within the shorter model's positions.
            max_tokens = min(m.max_tokens for m in (lm, nsp) if m is not None) - 3
            count = args.pairs or args.sample
            pairs = held_out_pairs(args.corpus, count, _token_counter(lm), max_tokens, args.seed)
            triples = [(p.first, p.second, p.other) for p in pairs]
            report |= _score_orders("held-out pairs (order_pairs)", "held_out_order", lm, nsp, triples, args.lang)
            if args.others:
                source = (
                    f"{Path(args.corpus).name}: the 'other' of order_pairs(max_tokens={max_tokens}, seed={args.seed}), "
                    "plain prose only (scripts.choose_examples.plain_segment)"
                )
                plain = [p.other for p in pairs if plain_segment(p.other, args.lang)]
                kept = write_others(args.others, args.lang, plain[: args.others_count], source)
                logger.info("wrote %d other-book segments (%s) to %s", len(kept), args.lang, args.others)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
