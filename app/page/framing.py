"""Honest framing of a small model: beside each prediction, how big the model is, how much text it read, how
often it is right on text it never saw, and what chance would score.

Every figure is read from the model's own files — `metrics.json` next to a shipped pretraining model (the
figures its model card's table shows, written by `scripts.package_model`), and `metrics.json` of a shipped
sentiment model (`scripts.ship_sentiment_model`) — never typed in here. A model without recorded figures (a
local folder, a hub id) gets its size and chance only, and a sentence saying so.

Chance: 1/V for a masked word (a guess among the V tokens), 50% for sentence order (each pair is asked in both
orders: "prefers the true order") and for the topic check ("prefers the real next text over another book's"), and for
sentiment the share of the commoner label in the dev set (always answering it). An order or topic figure is called
above chance only when its whole 95% interval is above 50%; an interval that holds 50% is a coin toss.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from albert.core.params import PAPER_TABLE1
from app.i18n import normalize_lang, safe, t
from app.numbers import count_words, paper_millions

logger = logging.getLogger(__name__)
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "mask": ("mlm",),
    "attention": ("mlm",),
    "order.sop": ("order",),
    "order.nsp": ("topic", "order"),
}
"""Which held-out figures of metrics.json speak to each tab (`<key>_accuracy`, `<key>_ci95`, `<key>_n`)."""
CHANCE = {"mlm": None, "order": 0.5, "topic": 0.5}
"""Chance per figure (None: 1/V, which depends on the model)."""
_JOINER = {"en": " ", "zh": ""}
_SEPARATOR = {"en": "; ", "zh": "；"}
"""How sentences and list items join: Chinese puts no space after 。 and lists with ；."""


@dataclass(frozen=True)
class HeldOut:
    """One held-out figure of a model: accuracy, its 95% interval and how many examples it was measured on."""

    key: str
    accuracy: float
    low: float | None
    high: float | None
    n: int | None
    chance: float
    replication: HeldOut | None = None
    """The same measure on a second draw of pairs that shares no sentence with the first, when recorded."""

    @property
    def own_verdict(self) -> str:
        """'above', 'chance' or 'below': this figure's 95% interval against chance (the figure alone without one)."""
        low = self.low if self.low is not None else self.accuracy
        high = self.high if self.high is not None else self.accuracy
        return "above" if low > self.chance else "below" if high < self.chance else "chance"

    @property
    def verdict(self) -> str:
        """`own_verdict`, held only when a recorded replication agrees: one draw above chance and one at it is a
        coin toss (with a dozen models tested, one interval in twenty misses 50% by chance alone)."""
        if self.replication is None or self.replication.own_verdict == self.own_verdict:
            return self.own_verdict
        return "chance"

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "accuracy": self.accuracy,
            "ci95": [self.low, self.high],
            "n": self.n,
            "chance": self.chance,
            "verdict": self.verdict,
            **({"replication": self.replication.as_dict()} if self.replication else {}),
        }


@dataclass(frozen=True)
class Facts:
    """What the framing line says about one model."""

    name: str
    parameters: int
    tokens: int | None
    vocab_size: int
    held_out: tuple[HeldOut, ...]
    recorded: bool
    """Whether the model carries held-out figures (a shipped model's metrics.json)."""
    order_text: dict[str, str] | None = None
    """Where its order figures hold, when only in one genre (metrics.json `order_text`: {"en": ..., "zh": ...})."""
    seed_twin: tuple[str, HeldOut] | None = None
    """The same recipe trained with another seed (`<name>-s1`, or `<name>` for an `-s1` run), shipped beside it, and
    its order figure: one seed's verdict is not yet a finding when the other's differs."""
    genre_rule: tuple[HeldOut, HeldOut] | None = None
    """(this model, a rule that reads no words) on the same pairs of the genre its order figures hold for, when the
    structure experiment recorded both (metrics.json `structure_experiment`): what "above chance" is worth there."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.name,
            "parameters": self.parameters,
            "training_tokens": self.tokens,
            "vocab_size": self.vocab_size,
            "chance_word": 1 / self.vocab_size,
            "held_out": [h.as_dict() for h in self.held_out],
            "recorded": self.recorded,
        }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def held_out(metrics: dict[str, Any] | None, key: str, chance: float) -> HeldOut | None:
    """`<key>_accuracy` with its interval and n from a metrics.json, or None when it is not recorded."""
    metrics = metrics or {}
    accuracy = _number(metrics.get(f"{key}_accuracy"))
    if accuracy is None or not 0 <= accuracy <= 1:
        return None
    interval = metrics.get(f"{key}_ci95")
    low, high = (
        (_number(interval[0]), _number(interval[1]))
        if isinstance(interval, list) and len(interval) == 2
        else (None, None)
    )
    n = _number(metrics.get(f"{key}_n"))
    return HeldOut(key, accuracy, low, high, int(n) if n is not None else None, chance)


def task_key(task: str, objective: str) -> str:
    """The TASK_METRICS key of a tab for a model trained with `objective`."""
    return f"order.{'nsp' if objective == 'nsp' else 'sop'}" if task == "order" else task


def facts(
    name: str, metrics: dict[str, Any] | None, vocab_size: int, parameters: int, task: str, objective: str = "sop"
) -> Facts:
    """The framing figures of a model for one tab ('mask', 'order', 'attention') from its metrics.json."""
    metrics = metrics if isinstance(metrics, dict) else None
    recorded = []
    for key in TASK_METRICS[task_key(task, objective)]:
        chance = CHANCE[key] if CHANCE[key] is not None else 1 / vocab_size
        figure = held_out(metrics, key, chance)
        if figure is not None:
            replication = held_out(metrics, f"{key}_replication", chance)
            recorded.append(dataclasses.replace(figure, replication=replication) if replication else figure)
    tokens = _number((metrics or {}).get("tokens"))
    shipped_parameters = _number((metrics or {}).get("parameters"))
    return Facts(
        name=name,
        parameters=int(shipped_parameters or parameters),
        vocab_size=vocab_size,
        tokens=int(tokens) if tokens is not None else None,
        held_out=tuple(recorded),
        recorded=metrics is not None,
        order_text=_genre((metrics or {}).get("order_text")),
        genre_rule=_genre_rule(metrics),
    )


def _rate(found: Any, key: str) -> HeldOut | None:
    """A recorded {"rate", "ci95", "n"} as a figure against 50%."""
    if not isinstance(found, dict) or _number(found.get("rate")) is None:
        return None
    low, high = (found.get("ci95") or [None, None])[:2]
    n = found.get("n")
    return HeldOut(key, float(found["rate"]), _number(low), _number(high), int(n) if n else None, 0.5)


def _genre_rule(metrics: dict[str, Any] | None) -> tuple[HeldOut, HeldOut] | None:
    """The model's order figure and the text-free rule's on the genre's dev pairs (the structure experiment)."""
    experiment = (metrics or {}).get("structure_experiment")
    if not isinstance(experiment, dict):
        return None
    genre = experiment.get("genre")
    model = _rate((experiment.get(f"{genre}_dev") or {}).get("order"), "order")
    rule = _rate((experiment.get(f"baselines_{genre}_dev") or {}).get("text_free_tree"), "order")
    return (model, rule) if model is not None and rule is not None else None


def _genre(value: Any) -> dict[str, str] | None:
    """metrics.json's `order_text` when it names the genre in both languages, else None."""
    if isinstance(value, dict) and all(isinstance(value.get(lang), str) for lang in ("en", "zh")):
        return {lang: value[lang] for lang in ("en", "zh")}
    return None


def model_facts(lm: Any, task: str) -> Facts:
    """`facts` of a loaded pretraining model (`app.models.LoadedModel`); a shipped model's seed twin with it."""
    found = facts(lm.name, lm.metrics, lm.config.vocab_size, lm.parameter_count, task, lm.config.sentence_objective)
    if task != "order" or getattr(lm, "kind", "") != "shipped":
        return found
    from app.models import shipped_metrics

    twin = lm.name.removesuffix("-s1") if lm.name.endswith("-s1") else f"{lm.name}-s1"
    figure = held_out(shipped_metrics(twin), "order", CHANCE["order"])
    return dataclasses.replace(found, seed_twin=(twin, figure)) if figure is not None else found


def percent(x: float) -> str:
    """0.2043 → '20.4%'; tiny chances keep their digits: 1/8000 → '0.0125%'."""
    if x <= 0:
        return "0%"
    return f"{100 * x:.1f}%" if x >= 0.001 else f"{100 * x:.3g}%"


def _detail(h: HeldOut, lang: str) -> str:
    """' (95% interval 19.9%–20.9%; 24,224 examples)', or the part that is recorded."""
    if h.low is not None and h.high is not None:
        low, high = percent(h.low), percent(h.high)
        return (
            t("frame.detail.both", lang, low=low, high=high, n=f"{h.n:,}")
            if h.n
            else t("frame.detail.ci", lang, low=low, high=high)
        )
    return t("frame.detail.n", lang, n=f"{h.n:,}") if h.n else ""


def framing_markdown(f: Facts, task: str, lang: str = "en", objective: str = "sop") -> str:
    """The framing line: size, training tokens, held-out accuracy on this tab's task and chance, one paragraph."""
    parts = [
        t(
            "frame.size",
            lang,
            name=safe(f.name),
            n=f"{f.parameters:,}",
            m=count_words(f.parameters, normalize_lang(lang)),
            base=_paper_count(PAPER_TABLE1["albert-base"], lang),
            bert=_paper_count(PAPER_TABLE1["bert-base"], lang),
        )
    ]
    if f.tokens:
        parts.append(t("frame.tokens", lang, tokens=count_words(f.tokens, normalize_lang(lang))))
    key = task_key(task, objective)
    if not f.recorded:
        parts.append(t("frame.unrecorded", lang))
    elif not f.held_out:
        parts.append(t("frame.no_figure", lang))
    else:
        figures = _SEPARATOR[normalize_lang(lang)].join(
            t(f"frame.figure.{h.key}", lang, accuracy=percent(h.accuracy), detail=_detail(h, lang))
            + (
                t(
                    "frame.replication",
                    lang,
                    accuracy=percent(h.replication.accuracy),
                    detail=_detail(h.replication, lang),
                )
                if h.replication
                else ""
            )
            + ("" if h.key == "mlm" else t(f"frame.verdict.{h.verdict}", lang))
            for h in f.held_out
        )
        parts.append(t("frame.held_out", lang, figures=figures))
        if f.order_text and key.startswith("order"):
            parts.append(t("frame.order.genre", lang, text=safe(f.order_text[normalize_lang(lang)])))
        if f.genre_rule and key.startswith("order"):
            model, rule = f.genre_rule
            parts.append(
                t(
                    "frame.order.text_free",
                    lang,
                    model=percent(model.accuracy),
                    rule=percent(rule.accuracy),
                    detail=_detail(rule, lang),
                    n=f"{rule.n:,}" if rule.n else "",
                )
            )
    if key in ("mask", "attention"):
        parts.append(t("frame.chance.word", lang, V=f"{f.vocab_size:,}", p=percent(1 / f.vocab_size)))
    else:
        parts.append(t("frame.chance.next" if objective == "nsp" else "frame.chance.order", lang))
        order = next((h for h in f.held_out if h.key == "order"), None)
        if order is not None and f.seed_twin is not None:
            twin, figure = f.seed_twin
            agrees = figure.verdict == order.verdict
            parts.append(
                t(
                    "frame.order.seed_agrees" if agrees else "frame.order.seed_differs",
                    lang,
                    name=safe(twin),
                    accuracy=percent(figure.accuracy),
                    detail=_detail(figure, lang),
                    verdict=t(f"frame.verdict.{figure.verdict}", lang),
                )
            )
        if order is not None and order.verdict != "above":
            parts.append(t("frame.order.at_chance", lang))  # its order interval holds (or is under) 50%: say so
    return _JOINER[normalize_lang(lang)].join(parts)


def _paper_count(n: float, lang: str) -> str:
    """A figure of the paper ('12M'; in 中文 '1,200 万')."""
    return count_words(n, "zh") if normalize_lang(lang) == "zh" else paper_millions(n)


def line(lm: Any, task: str, lang: str = "en") -> str:
    """The framing line of a loaded pretraining model for one tab ('mask', 'order', 'attention'); a real checkpoint
    from the hub catalogue is framed by its own facts (who trained it, on what, its size, what it lacks)."""
    from app.models.hub import hub_model

    real = hub_model(lm.name) if getattr(lm, "kind", "") == "hub" else None
    if real is not None:
        return real.describe(lang)
    return framing_markdown(model_facts(lm, task), task, lang, lm.config.sentence_objective)


# ----- sentiment --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SentimentFacts:
    name: str
    parameters: int
    accuracy: float | None
    dev_examples: int | None
    train_examples: int | None
    epochs: float | None
    base_model: str | None
    base_tokens: int | None
    majority_label: str | None
    majority_share: float | None
    num_labels: int
    task: str | None = None
    """The fine-tuning data's name in the metrics ('sst2', 'zh-reviews')."""
    baseline: float | None = None
    """The n-gram baseline's dev accuracy (TF-IDF + logistic regression), when it was measured."""

    @property
    def interval(self) -> tuple[float, float] | None:
        """The dev accuracy's 95% Wilson interval, when the number of dev examples is recorded."""
        if self.accuracy is None or not self.dev_examples:
            return None
        from albert.training.order_scoring import Proportion

        return Proportion(self.accuracy * self.dev_examples, self.dev_examples).interval()

    def as_dict(self) -> dict[str, Any]:
        interval = self.interval
        return {
            "model": self.name,
            "parameters": self.parameters,
            "task": self.task,
            "dev_accuracy": self.accuracy,
            "dev_ci95": [round(interval[0], 4), round(interval[1], 4)] if interval else None,
            "ngram_baseline": self.baseline,
            "dev_examples": self.dev_examples,
            "train_examples": self.train_examples,
            "epochs": self.epochs,
            "pretrained_from": self.base_model,
            "pretraining_tokens": self.base_tokens,
            "majority_label": self.majority_label,
            "majority_share": self.majority_share,
        }


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def majority(counts: Any) -> tuple[str, float] | None:
    """{'negative': 428, 'positive': 444} → ('positive', 0.509…); None when the counts are not recorded."""
    if not isinstance(counts, dict) or not counts:
        return None
    values: dict[str, float] = {}
    for label, count in counts.items():
        number = _number(count)
        if number is None or number < 0:
            return None
        values[str(label)] = number
    total = sum(values.values())
    if not total:
        return None
    label = max(values, key=values.__getitem__)
    return label, values[label] / total


def task_name(metrics: dict[str, Any] | None) -> str:
    """The fine-tuning data a classifier's metrics record (their `task`; 'sst2' when not named)."""
    task = _dig(metrics, "task")
    return task if isinstance(task, str) and isinstance(_dig(metrics, task), dict) else "sst2"


def base_model_name(metrics: dict[str, Any] | None) -> str | None:
    """The pretrained model a classifier was fine-tuned from, by its folder's name (`<task>.model` in its
    metrics)."""
    base = _dig(metrics, task_name(metrics), "model")
    if not isinstance(base, str):
        return None
    return base.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None


def sentiment_facts(
    name: str,
    metrics: dict[str, Any] | None,
    parameters: int,
    num_labels: int,
    base_metrics: dict[str, Any] | None = None,
) -> SentimentFacts:
    """The framing figures of a fine-tuned classifier from its metrics.json (and its pretrained start's)."""
    from app.models.classifiers import held_out_accuracy

    task = task_name(metrics)
    run = _dig(metrics, task) or {}
    arm = _dig(run, "pretrained") or {}
    top = majority(_dig(metrics, "dev_labels"))
    base = base_model_name(metrics)
    dev = _number(arm.get("dev_examples"))
    train = _number(arm.get("train_examples"))
    tokens = _number(_dig(base_metrics, "tokens"))
    baseline = _number(_dig(metrics, "ngram_baseline", "dev_accuracy"))
    return SentimentFacts(
        name=name,
        parameters=parameters,
        accuracy=held_out_accuracy(metrics),
        dev_examples=int(dev) if dev else None,
        train_examples=int(train) if train else None,
        epochs=_number(_dig(run, "budget", "epochs")),
        base_model=base,
        base_tokens=int(tokens) if tokens else None,
        majority_label=top[0] if top else None,
        majority_share=top[1] if top else None,
        num_labels=num_labels,
        task=task if run else None,
        baseline=baseline if baseline is not None and 0 <= baseline <= 1 else None,
    )


def sentiment_markdown(f: SentimentFacts, lang: str = "en", label_name: Any = None) -> str:
    """The sentiment tab's framing line: size, what it was trained on, dev accuracy and the majority-class rate."""
    words = normalize_lang(lang)
    parts = [
        t("frame.sentiment.size", lang, name=safe(f.name), n=f"{f.parameters:,}", m=count_words(f.parameters, words))
    ]
    if f.base_model:
        read = t("frame.sentiment.read", lang, tokens=count_words(f.base_tokens, words)) if f.base_tokens else ""
        parts.append(t("frame.sentiment.base", lang, base=safe(f.base_model), read=read))
    if f.train_examples:
        data = t(f"frame.sentiment.data.{f.task}", lang) if f.task in ("sst2", "zh-reviews") else safe(f.task or "?")
        epochs = f"{f.epochs:g}" if f.epochs else "?"
        parts.append(t("frame.sentiment.train", lang, n=f"{f.train_examples:,}", epochs=epochs, data=data))
    if f.accuracy is not None:
        interval = f.interval
        detail = (
            t(
                "frame.sentiment.interval",
                lang,
                low=percent(interval[0]),
                high=percent(interval[1]),
                n=f"{f.dev_examples:,}",
            )
            if interval and f.dev_examples
            else ""
        )
        parts.append(t("frame.sentiment.accuracy", lang, accuracy=percent(f.accuracy), detail=detail))
    if f.baseline is not None and f.accuracy is not None:
        key = "frame.sentiment.baseline.above" if f.baseline > f.accuracy else "frame.sentiment.baseline.below"
        parts.append(t(key, lang, baseline=percent(f.baseline), accuracy=percent(f.accuracy)))
    if f.majority_share is not None and f.majority_label is not None:
        shown = label_name(f.majority_label, lang) if label_name else f.majority_label
        parts.append(t("frame.sentiment.majority", lang, label=safe(shown), p=percent(f.majority_share)))
    else:
        parts.append(t("frame.sentiment.uniform", lang, k=f.num_labels, p=percent(1 / max(f.num_labels, 1))))
    return _JOINER[normalize_lang(lang)].join(parts)


def sentiment_facts_of(clf: Any) -> SentimentFacts:
    """`sentiment_facts` of a loaded classifier (`app.tabs.sentiment.classifier.Classifier`), its pretrained start
    looked up among the shipped models by name."""
    from app.models import shipped_metrics

    base = base_model_name(clf.metrics)
    parameters = sum(p.numel() for p in clf.model.parameters())
    return sentiment_facts(clf.name, clf.metrics, parameters, len(clf.labels), shipped_metrics(base) if base else None)


def sentiment_line(clf: Any, lang: str = "en", label_name: Any = None) -> str:
    """The framing line of a loaded classifier; `label_name(label, lang)` translates the majority label."""
    return sentiment_markdown(sentiment_facts_of(clf), lang, label_name)
