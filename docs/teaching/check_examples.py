"""Every example the teacher's guide quotes, run through the shipped models: `python docs/teaching/check_examples.py`.

The guide (`docs/teaching/guide.md`, `docs/teaching/guide.zh.md`) promises a class only what the shipped models in
`assets/models` and `assets/sentiment` actually answer. Each example below carries the answer the guide quotes; this
script computes it again and prints both, and `tests/docs/test_teaching_guide.py` fails when one of them no longer holds
(a retrained model, a changed tokenizer) or when the guide stops quoting it.

Only library calls (`albert.*`), computed as the app computes them: masked words as `app.inference.fill_mask` (one
`[CLS] text [SEP]` row, special tokens left out of the ranking), sentence order as `app.inference.sentence_order`
(`albert.training.order_scoring.class0_probabilities`, the project's one scorer), "can't tell" as
`app.model_views.order_reading` (the two orders less than 2 points apart), layer transitions and attention
similarity as `app.inference`, sentiment as `app.sentiment.classify`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "assets" / "models"
SENTIMENT = ROOT / "assets" / "sentiment"
GUIDES = {"en": Path(__file__).with_name("guide.md"), "zh": Path(__file__).with_name("guide.zh.md")}
UNDECIDED_GAP = 0.02
"""Two orders whose probabilities are less than 2 points apart read "can't tell", as the app's table says."""

if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))


# ----- the examples, with the answers the guide quotes ----------------------------------------------------------
@dataclass(frozen=True)
class MaskCase:
    model: str
    text: str
    guesses: tuple[str, ...]
    """The first guess at each [MASK], as the guide quotes it."""
    percent: float
    """The first guess's probability at the first [MASK], in percent (one decimal)."""
    truth: tuple[str, ...]
    """The hidden words: a case is right when `guesses` equals it."""


@dataclass(frozen=True)
class OrderCase:
    model: str
    """The SOP model (or any model with a sentence head)."""
    a: str
    b: str
    """A then B is the original order."""
    percents: tuple[float, float]
    """P(in order) for A → B and for B → A, in percent."""
    reading: str
    """'prefers_ab', 'undecided' or 'prefers_ba' (`UNDECIDED_GAP`)."""
    nsp_model: str = ""
    other: str = ""
    """B from another book (the tab's third box)."""
    nsp_percents: tuple[float, float, float] | None = None
    """The NSP arm's P(next) for A → B, B → A and A → other, in percent."""


@dataclass(frozen=True)
class PassCase:
    shared: str
    not_shared: str
    text: str
    measure: str
    """'transitions' (L2 distance and angle in degrees between each pass's input and output, as the Sharing modes
    chart draws them) or 'attention' (attention maps of consecutive passes)."""


@dataclass(frozen=True)
class SentimentCase:
    model: str
    text: str
    label: str
    """The label the model gives, as the guide quotes it."""
    percent: float
    truth: str


EN, NSP, ZH, ZH_NSP, ZH_REVIEWS = (
    "albert-lab-e128-gpu",
    "albert-lab-nsp",
    "albert-lab-zh",
    "albert-lab-zh-nsp",
    "albert-lab-zh-sop-reviews",
)
SHARED, NOT_SHARED = "albert-lab-all", "albert-lab-none"
"""The like-for-like pair the page draws beside the default model (it has no twin of its own)."""

MASKS = [
    MaskCase(EN, "She opened the [MASK] and walked into the garden.", ("door",), 39.3, ("door",)),
    MaskCase(EN, "He shook his [MASK] and said nothing.", ("head",), 66.0, ("head",)),
    MaskCase(EN, "She said that [MASK] would come back soon.", ("she",), 63.3, ("she",)),
    MaskCase(EN, "There was a knock at the [MASK].", ("door",), 49.2, ("door",)),
    MaskCase(EN, "The cat sat on the [MASK].", ("floor",), 8.4, ("mat",)),
    MaskCase(EN, "The capital of France is [MASK].", ("destroyed",), 3.0, ("paris",)),
    MaskCase(EN, "I went to the [MASK] to buy some bread.", ("house",), 6.2, ("shop",)),
    MaskCase(ZH, "我国经济持续快速发[MASK]。", ("展",), 87.5, ("展",)),
    MaskCase(ZH, "人民生活水平不断提[MASK]。", ("高",), 57.1, ("高",)),
    MaskCase(ZH, "我喜欢吃苹[MASK]。", ("果",), 38.7, ("果",)),
    MaskCase(ZH, "中国的首都是北[MASK]。", ("京",), 45.2, ("京",)),
    MaskCase(ZH, "法国的首都是巴[MASK]。", ("黎",), 17.4, ("黎",)),
    MaskCase(ZH, "中国的首都是[MASK][MASK]。", ("一", "人"), 5.5, ("北", "京")),
    MaskCase(ZH, "他是一名人民教[MASK]。", ("育",), 25.6, ("师",)),
    MaskCase(ZH, "祝大家新年快[MASK]。", ("速",), 23.7, ("乐",)),
]
COUNTS: dict[tuple[str, str], int] = {
    # How often the training text holds each piece (training_counts.json beside the model), as the guide quotes it.
    (EN, "▁floor"): 2_407,
    (EN, "▁mat"): 919,
    (EN, "▁paris"): 2_703,
    (EN, "▁destroyed"): 746,
    (EN, "▁house"): 13_415,
    (EN, "▁shop"): 1_671,
    (EN, "▁market"): 870,
    (EN, "▁bakery"): 0,
    (ZH, "北"): 2_608,
    (ZH, "京"): 2_156,
    (ZH, "巴"): 718,
    (ZH, "黎"): 195,
}
TICKET = (
    "She bought a ticket at the station.",
    "Then she boarded the train to London.",
    "Here there is no way round or through to any vital centre of Germany's antagonists.",
)
DOOR = ("The door opened slowly.", "A tall man stood on the step.", "Emily whispered to her to leave the room.")
STATION = (
    "我们到了车站。",
    "火车已经开走了。",
    "同时正是在大国关系的调整中，俄进一步确立了世界大国之一的地位。展望１９９８年，这一趋势将继续下去。",
)
HARVEST = (
    "去年粮食获得了大丰收。",
    "农民的收入增加了。",
    "他们不会了解饺子对于我们这样一代人，起到过多么重要和不可取代的作用。",
)
ORDERS = [
    OrderCase(EN, *TICKET[:2], (49.9, 49.9), "undecided", NSP, TICKET[2], (93.6, 93.1, 7.9)),
    OrderCase(EN, *DOOR[:2], (50.0, 50.0), "undecided", NSP, DOOR[2], (79.8, 84.7, 85.1)),
    OrderCase(ZH, *STATION[:2], (54.7, 52.5), "prefers_ab", ZH_NSP, STATION[2], (91.3, 91.6, 1.6)),
    OrderCase(ZH, *HARVEST[:2], (52.1, 55.1), "prefers_ba", ZH_NSP, HARVEST[2], (55.3, 73.7, 64.4)),
    OrderCase(
        ZH_REVIEWS,
        "酒店位置很好，离地铁站很近。房间干净，服务也很热情。",
        "下次来还会住这里！",
        (97.9, 2.4),
        "prefers_ab",
    ),
    OrderCase(ZH_REVIEWS, "大雪下了一夜。", "第二天早上，地上全是白的。", (21.2, 72.5), "prefers_ba"),
]
SAILOR = "The old sailor walked along the river and remembered the distant lighthouse."
CAT = "The cat sat on the mat because it was tired."
PASSES = [
    PassCase("albert-lab-all-s1", "albert-lab-none-s1", SAILOR, "transitions"),
    PassCase("albert-lab-all", "albert-lab-none", SAILOR, "transitions"),
    PassCase("albert-lab-all-s1", "albert-lab-none-s1", CAT, "attention"),
    PassCase("albert-lab-all", "albert-lab-none", CAT, "attention"),
]
PASS_QUOTES: dict[tuple[str, str, str], list[float | None]] = {
    # Per pass, as the guide quotes them (None: not quoted): L2 of each pass (two decimals), the angle between each
    # pass's input and output in degrees (one decimal, "26.9°": the unit the page's chart draws), attention
    # similarity of pass i with pass i + 1 (two decimals). A run of values is quoted as one "a, b, c" string.
    (SHARED, SAILOR, "l2"): [7.69, 3.49, 2.76, 1.94, 1.65, 1.48],
    (NOT_SHARED, SAILOR, "l2"): [7.87, 7.65, 3.27, 2.22, 3.79, 6.04],
    (SHARED, SAILOR, "degrees"): [26.9, None, None, None, None, 7.5],
    (NOT_SHARED, SAILOR, "degrees"): [28.0, 39.7, None, None, None, 31.0],
    ("albert-lab-all-s1", SAILOR, "l2"): [8.56, 5.11, 4.33, 3.47, 2.81, 2.19],
    ("albert-lab-none-s1", SAILOR, "l2"): [7.84, 3.55, 3.08, 3.76, 5.15, 5.39],
    (SHARED, CAT, "attention"): [0.77, 0.88, 0.95, 0.98, 0.99],
    (NOT_SHARED, CAT, "attention"): [0.43, 0.68, 0.75, 0.65, 0.59],
}
SENTIMENTS = [
    SentimentCase("albert-lab-sst2", "A warm, funny and beautifully acted film.", "positive", 98.9, "positive"),
    SentimentCase("albert-lab-sst2", "The film is not good.", "negative", 87.1, "negative"),
    SentimentCase("albert-lab-sst2", "The film is not bad.", "negative", 96.4, "positive"),
    SentimentCase("albert-lab-zh-sentiment", "服务态度很好，下次还来。", "positive", 97.9, "positive"),
    SentimentCase("albert-lab-zh-sentiment", "这本书不好看。", "negative", 94.1, "negative"),
    SentimentCase("albert-lab-zh-sentiment", "这本书不难看。", "negative", 91.7, "positive"),
]
HELD_OUT: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    # (folder under assets/, where in its metrics.json, the guides that quote it as "rate% [low, high]")
    ("models/albert-lab-e128-gpu", ("order",), ("en", "zh")),
    ("models/albert-lab-e128-gpu", ("order_replication",), ("en", "zh")),
    ("models/albert-lab-none-s1", ("order",), ("en",)),
    ("models/albert-lab-none-s1", ("order_replication",), ("en",)),
    ("models/albert-lab-nsp", ("topic",), ("en",)),
    ("models/albert-lab-zh", ("order",), ("zh",)),
    ("models/albert-lab-zh-nsp", ("topic",), ("zh",)),
    ("models/albert-lab-zh-sop-reviews", ("structure_experiment", "reviews_dev", "order"), ("en", "zh")),
    ("models/albert-lab-zh-sop-reviews", ("structure_experiment", "news_valid", "order"), ("zh",)),
    ("models/albert-lab-zh-sop-reviews", ("structure_experiment", "baselines_reviews_dev", "text_free_tree"), ("zh",)),
]
"""Held-out figures the guide quotes beside the examples, read from the models' metrics.json."""
SENTIMENT_DEV = {"albert-lab-sst2": ("en",), "albert-lab-zh-sentiment": ("zh",)}
"""Sentiment models whose dev accuracy (with its Wilson 95% interval) the guide quotes."""
PARAMETERS = {
    "albert-base": 11_683_584,
    "bert-base": 109_081_344,
    "albert-large": 17_683_968,
    "bert-large": 334_607_360,
}


# ----- the models ------------------------------------------------------------------------------------------------
@cache
def pretraining(name: str) -> tuple[Any, Any]:
    """A shipped pretraining model (eval mode) and its tokenizer."""
    from albert import AlbertForPreTraining
    from albert.data.tokenizer import load_tokenizer

    return AlbertForPreTraining.from_pretrained(MODELS / name).eval(), load_tokenizer(MODELS / name)


@cache
def classifier(name: str) -> tuple[Any, Any]:
    from albert import AlbertForSequenceClassification
    from albert.data.tokenizer import load_tokenizer

    return AlbertForSequenceClassification.from_pretrained(SENTIMENT / name).eval(), load_tokenizer(SENTIMENT / name)


def _row(tokenizer: Any, text: str) -> list[int]:
    from albert.data.tokenizer import encode_masked

    return [tokenizer.cls_token_id, *encode_masked(tokenizer, text), tokenizer.sep_token_id]


def fill_mask(name: str, text: str, top_k: int = 3) -> list[list[tuple[str, float]]]:
    """The `top_k` guesses (word as shown, probability) at every [MASK] of `text`, most likely first."""
    import torch

    model, tokenizer = pretraining(name)
    ids = torch.tensor([_row(tokenizer, text)])
    labels = torch.where(ids == tokenizer.mask_token_id, ids, torch.full_like(ids, -100))
    with torch.inference_mode():
        probs = model(ids, mlm_labels=labels).mlm_logits.float().softmax(-1)  # (masks, V)
    ranking = probs.clone()
    ranking[:, list(tokenizer.all_special_ids)] = -1.0
    ranking[:, len(tokenizer) :] = -1.0
    top = ranking.topk(top_k, dim=-1)
    return [
        [(tokenizer.convert_ids_to_tokens(i).replace("▁", " ").strip(), p) for i, p in zip(row, values, strict=True)]
        for row, values in zip(top.indices.tolist(), top.values.tolist(), strict=True)
    ]


def order_probabilities(name: str, a: str, b: str, other: str = "") -> list[float]:
    """P(class 0) of the sentence head for A → B, B → A (and A → other): SOP's "in order", NSP's "is next"."""
    from albert.training.order_scoring import class0_probabilities

    model, tokenizer = pretraining(name)

    def ids(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    rows = [(ids(a), ids(b)), (ids(b), ids(a))] + ([(ids(a), ids(other))] if other else [])
    special = (tokenizer.cls_token_id, tokenizer.sep_token_id)
    budget = min(model.config.max_position_embeddings, 512) - 3
    return [float(p) for p in class0_probabilities(model, rows, special, tokenizer.pad_token_id, budget)]


def reading(first: float, second: float) -> str:
    """How the app words two probabilities: the first preferred, "can't tell", or the second preferred."""
    if abs(first - second) < UNDECIDED_GAP:
        return "undecided"
    return "prefers_ab" if first > second else "prefers_ba"


def transitions(name: str, text: str) -> tuple[list[float], list[float]]:
    """Per pass: mean over tokens of the L2 distance and of the angle in degrees between the pass's input and output
    (`albert.core.transitions.layer_transitions`, what the Sharing modes chart draws)."""
    import torch

    from albert.core.transitions import layer_transitions

    model, tokenizer = pretraining(name)
    found = layer_transitions(model, torch.tensor(_row(tokenizer, text)))
    return found.l2, found.degrees


def attention_similarity(name: str, text: str) -> list[float]:
    """Cosine of each pass's attention maps with the next pass's, mean over heads."""
    import torch
    import torch.nn.functional as F

    model, tokenizer = pretraining(name)
    with torch.inference_mode():
        maps = model.albert(torch.tensor([_row(tokenizer, text)]), output_attentions=True).attentions
    flat = torch.stack([m[0] for m in maps]).float().flatten(2)  # (L, A, T*T)
    return F.cosine_similarity(flat[:-1], flat[1:], dim=-1).mean(dim=-1).tolist()


def classify(name: str, text: str) -> tuple[str, float]:
    """The sentiment model's label and its probability."""
    import torch

    model, tokenizer = classifier(name)
    ids = _row(tokenizer, text)[: model.config.max_position_embeddings]
    with torch.inference_mode():
        probs = model(torch.tensor([ids])).logits[0].float().softmax(-1).tolist()
    best = max(range(len(probs)), key=probs.__getitem__)
    return str(model.config.extra["id2label"][str(best)]), probs[best]


def training_count(name: str, piece: str) -> int:
    from albert.data.piece_counts import load_piece_counts

    counts = load_piece_counts(MODELS / name)
    if counts is None:
        raise FileNotFoundError(f"{name} has no training_counts.json")
    return counts.count(piece)


def parameters(preset: str) -> int:
    from albert import PRESETS, count_parameters

    return count_parameters(PRESETS[preset]).total


def held_out(folder: str, path: tuple[str, ...]) -> tuple[float, float, float]:
    """(rate, low, high) of a held-out figure in a model's metrics.json: a {"rate", "ci95"} entry, or the card's flat
    `<key>_accuracy` and `<key>_ci95`."""
    data = json.loads((ROOT / "assets" / folder / "metrics.json").read_text(encoding="utf-8"))
    *parents, last = path
    for key in parents:
        data = data[key]
    if isinstance(data.get(last), dict):
        low, high = data[last]["ci95"]
        return float(data[last]["rate"]), float(low), float(high)
    low, high = data[f"{last}_ci95"]
    return float(data[f"{last}_accuracy"]), float(low), float(high)


def dev_accuracy(name: str) -> tuple[float, float, float]:
    """A sentiment model's shipped dev accuracy and its Wilson 95% interval (its card gives no interval)."""
    from albert.training.order_scoring import Proportion

    data = json.loads((SENTIMENT / name / "metrics.json").read_text(encoding="utf-8"))
    task = next(value for value in data.values() if isinstance(value, dict) and "pretrained" in value)
    n = int(task["pretrained"]["dev_examples"])
    share = Proportion(round(float(data["shipped_dev_accuracy"]) * n), n)
    return (share.rate, *share.interval())


def interval_text(rate: float, low: float, high: float) -> str:
    """As the guide writes a held-out figure: '52.4% [50.6, 54.2]'."""
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


# ----- the checks: (still as the guide quotes it, one line to show) ----------------------------------------------
def _near(found: float, quoted: float) -> bool:
    """A probability (0–1) against the guide's percent with one decimal."""
    return abs(100 * found - quoted) < 0.06


def mask_check(case: MaskCase) -> tuple[bool, str]:
    found = fill_mask(case.model, case.text)
    ok = tuple(row[0][0] for row in found) == case.guesses and _near(found[0][0][1], case.percent)
    shown = " | ".join(", ".join(f"{w} {100 * p:.1f}%" for w, p in row) for row in found)
    return ok, f"[mask {case.model}] {case.text} → {shown}"


def count_check(model: str, piece: str) -> tuple[bool, str]:
    found = training_count(model, piece)
    return found == COUNTS[model, piece], f"[count {model}] {piece}: {found:,}"


def order_check(case: OrderCase) -> tuple[bool, str]:
    p = order_probabilities(case.model, case.a, case.b)
    ok = reading(*p) == case.reading and all(_near(f, q) for f, q in zip(p, case.percents, strict=True))
    line = f"[order {case.model}] {case.a} / {case.b}: A→B {100 * p[0]:.1f}%, B→A {100 * p[1]:.1f}% ({reading(*p)})"
    if case.nsp_model and case.nsp_percents:
        q = order_probabilities(case.nsp_model, case.a, case.b, case.other)
        ok = ok and all(_near(f, quoted) for f, quoted in zip(q, case.nsp_percents, strict=True))
        line += f"; {case.nsp_model}: {100 * q[0]:.1f}%, {100 * q[1]:.1f}%, other book {100 * q[2]:.1f}%"
    return ok, line


def sentiment_check(case: SentimentCase) -> tuple[bool, str]:
    label, p = classify(case.model, case.text)
    return label == case.label and _near(
        p, case.percent
    ), f"[sentiment {case.model}] {case.text} → {label} {100 * p:.1f}%"


def parameter_check(preset: str) -> tuple[bool, str]:
    found = parameters(preset)
    return found == PARAMETERS[preset], f"[parameters] {preset}: {found:,}"


def figures() -> list[str]:
    """The held-out figures the guide quotes, as it writes them."""
    lines = [
        f"[held-out {folder} {'/'.join(path)}] {interval_text(*held_out(folder, path))}" for folder, path, _ in HELD_OUT
    ]
    return lines + [f"[dev accuracy {name}] {interval_text(*dev_accuracy(name))}" for name in SENTIMENT_DEV]


def report() -> list[tuple[bool, str]]:
    """Every example's check, in the guide's order of tabs, then the held-out figures quoted beside them."""
    return [
        *(parameter_check(preset) for preset in PARAMETERS),
        *(pass_check(case) for case in PASSES),
        *(mask_check(case) for case in MASKS),
        *(count_check(model, piece) for model, piece in COUNTS),
        *(order_check(case) for case in ORDERS),
        *(sentiment_check(case) for case in SENTIMENTS),
        *((True, line) for line in figures()),
    ]


def pass_check(case: PassCase) -> tuple[bool, str]:
    """Whether the shared model's passes still differ from the not-shared one's as the guide says, and the numbers.

    Transitions: the shared model's L2 and angle fall at every pass (smooth), the not-shared model's rise somewhere
    (it turns back up). Attention: every pair of consecutive passes is more alike in the shared model than any pair
    in the not-shared one. Numbers the guide quotes match to their last digit."""
    if case.measure == "transitions":
        (l2_s, deg_s), (l2_n, deg_n) = transitions(case.shared, case.text), transitions(case.not_shared, case.text)
        ok = _falls(l2_s) and _falls(deg_s) and not _falls(l2_n) and not _falls(deg_n)
        found = {(case.shared, "l2"): l2_s, (case.shared, "degrees"): deg_s}
        found |= {(case.not_shared, "l2"): l2_n, (case.not_shared, "degrees"): deg_n}
        line = f"L2 {_two(l2_s)} vs {_two(l2_n)}; degrees {_two(deg_s)} vs {_two(deg_n)}"
    else:
        shared, not_shared = (
            attention_similarity(case.shared, case.text),
            attention_similarity(case.not_shared, case.text),
        )
        ok = min(shared) > max(not_shared)
        found = {(case.shared, "attention"): shared, (case.not_shared, "attention"): not_shared}
        line = f"attention similarity {_two(shared)} vs {_two(not_shared)}"
    for (model, kind), values in found.items():
        quoted = PASS_QUOTES.get((model, case.text, kind))
        if quoted is not None:
            ok = ok and len(quoted) == len(values)
            tolerance = 0.05 if kind == "degrees" else 0.01
            ok = ok and all(q is None or abs(q - v) <= tolerance for q, v in zip(quoted, values, strict=True))
    return ok, f"[{case.measure} {case.shared} vs {case.not_shared}] {line}"


def quoted_runs(values: list[float | None], kind: str = "") -> list[str]:
    """How the guide writes quoted values: each run of consecutive quoted values as one "a, b, c" string (angles
    as "26.9°")."""
    runs, current = [], []
    for value in [*values, None]:
        if value is None:
            if current:
                runs.append(", ".join(f"{v:.1f}°" if kind == "degrees" else f"{v:.2f}" for v in current))
            current = []
        else:
            current.append(value)
    return runs


def _falls(values: list[float]) -> bool:
    return all(later < earlier for earlier, later in zip(values, values[1:], strict=False))


def _two(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


def main() -> int:
    lines = report()
    for ok, line in lines:
        print(("ok   " if ok else "DIFF ") + line)
    changed = sum(not ok for ok, _ in lines)
    print(f"{len(lines) - changed} of {len(lines)} as the guide quotes them")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
