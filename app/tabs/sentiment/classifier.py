"""The sentiment classifier behind the Sentiment tab: finding and loading it, classifying, attributing.

Where the models are and what their metrics say: `app.models.classifiers`. A missing or unsuitable model is a
`ModelError` with one sentence for the user.

Which passes the prediction relied on is measured with *attention × gradient* (a first-order form
of Hao et al. 2021's attention attribution): for pass ℓ, Σ over heads and over query/key pairs of
|A_ℓ ⊙ ∂logit_pred/∂A_ℓ|. Our model computes attention probabilities explicitly when asked, so they
sit in the autograd graph and their gradients come from one backward pass.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from albert.core.config import AlbertConfig, ConfigError
from app.i18n import mode_name, safe, t
from app.inference import InputError, display_token, encode, sanitize_text
from app.models import ModelError, cache, config_architectures, load_checked
from app.models.classifiers import (
    held_out_accuracy,
    is_installed,
    read_metrics,
    sentiment_dir,
    sentiment_dir_for,
    sentiment_readers,
    zh_sentiment_dir,
)
from app.models.languages import Unknowns, check_readable, unknown_notice
from app.page.cards import publish_card, served_card_path

logger = logging.getLogger(__name__)
CLASSIFIER = "AlbertForSequenceClassification"
TOP_TOKENS = 5
"""How many tokens the most important pass's [CLS] attended to most are listed."""


CARDS = {"en": "README.md", "zh": "README.zh.md"}
"""A model's card in each language, next to its weights; the 中文 interface links the Chinese one where it exists."""


def card_path(directory: Path | None = None, lang: str = "en") -> Path | None:
    """The model card next to the weights in `lang` (README.zh.md for 中文), else the English one (README.md); None
    when there is none."""
    folder = directory or sentiment_dir()
    for name in dict.fromkeys([CARDS.get(lang, CARDS["en"]), CARDS["en"]]):
        if (folder / name).is_file():
            return folder / name
    return None


def card_url(directory: Path | None = None, lang: str = "en") -> str | None:
    """The card in `lang` as this server serves it: an HTML page rendered from it (see `app.page.cards`), under a URL
    that names no folder here; None when there is no card (or it cannot be rendered)."""
    path = card_path(directory, lang)
    return publish_card(path) if path is not None else None


def allowed_paths() -> list[str]:
    """The cards' pages, for `launch(allowed_paths=…)`: the server serves those files, not the weights nor the
    Markdown they were rendered from."""
    paths = []
    for directory in (sentiment_dir(), zh_sentiment_dir()):
        for lang in CARDS:
            path = card_path(directory, lang)
            if path is not None and card_url(directory, lang) is not None:
                paths.append(served_card_path(path))
    return list(dict.fromkeys(paths))


def card_markdown(lang: str = "en") -> str:
    """One line about the model: name, size, held-out accuracy and a link to its card — or why it is missing.
    In the 中文 interface it is the Chinese model's line when that one is installed."""
    directory = sentiment_dir_for("", lang)
    if not is_installed(directory):
        return "ℹ️ " + t("sentiment.err.missing", lang)
    from albert.core.checkpoint import CheckpointError, load_config

    try:
        config = load_config(directory)
    except (CheckpointError, ConfigError, OSError) as error:
        logger.warning("cannot read the sentiment model's config: %s", error)
        return "ℹ️ " + t("sentiment.err.missing", lang)
    text = t(
        "sentiment.card",
        lang,
        name=safe(directory.name),
        L=config.num_hidden_layers,
        sharing=mode_name(config.sharing, lang),
        H=config.hidden_size,
    )
    accuracy = held_out_accuracy(read_metrics(directory))
    if accuracy is not None:
        text += t("sentiment.card.accuracy", lang, accuracy=f"{accuracy:.1%}")
    url = card_url(directory, lang)
    if url is not None:
        text += t("sentiment.card.link", lang, url=url)
    return text


# ----- loading ---------------------------------------------------------------------------------
@dataclass
class Classifier:
    """A fine-tuned sequence classifier with its tokenizer and label names."""

    name: str
    directory: Path
    model: Any
    tokenizer: Any
    config: AlbertConfig
    labels: list[str]
    metrics: dict[str, Any] | None = None
    special_ids: frozenset[int] = field(default_factory=frozenset)

    @property
    def max_tokens(self) -> int:
        return self.config.max_position_embeddings


def load_classifier(lang: str = "en", directory: Path | None = None) -> Classifier:
    """The sentiment model (or the one in `directory`), loaded once into the app's model cache (`app.models.cache`),
    and again when its config.json changes."""
    directory = directory or sentiment_dir()
    config_file = directory / "config.json"
    try:
        key = ("classifier", str(directory.resolve()), config_file.stat().st_mtime)
    except OSError:
        raise ModelError(t("sentiment.err.missing", lang)) from None
    cache.forget(lambda kept: isinstance(kept, tuple) and kept[:2] == key[:2] and kept != key)  # an older version
    return cache.cached(key, lambda: load_uncached(directory, lang))


def load_uncached(directory: Path, lang: str) -> Classifier:
    """The classifier in `directory`, loaded and checked now (`load_classifier` keeps it)."""
    from albert import AlbertForSequenceClassification

    name = directory.name

    def classifier_only(config: Any, raw: dict[str, Any]) -> None:
        architectures = config_architectures(raw)
        if CLASSIFIER not in architectures or config.num_labels < 2:
            found = ", ".join(str(a) for a in architectures) or "no architecture"
            raise ModelError(
                t("sentiment.err.not_classifier", lang, name=safe(name), found=safe(found), n=config.num_labels)
            )

    checked = load_checked(directory, name, AlbertForSequenceClassification, lang, classifier_only)
    model, tokenizer, config = checked.model, checked.tokenizer, checked.config
    id2label = config.extra.get("id2label") or {}
    labels = [str(id2label.get(str(i), f"LABEL_{i}")) for i in range(config.num_labels)]
    logger.info("loaded sentiment model %s (%s) from %s", name, "/".join(labels), directory)
    return Classifier(
        name=name,
        directory=directory,
        model=model,
        tokenizer=tokenizer,
        config=config,
        labels=labels,
        metrics=read_metrics(directory),
        special_ids=frozenset(int(i) for i in tokenizer.all_special_ids),
    )


# ----- classifying -----------------------------------------------------------------------------
def clean_sentence(text: Any, lang: str = "en") -> tuple[str, list[str]]:
    """Text made safe for the tokenizer (cut to MAX_CHARS, control characters to spaces), with notices.

    Unlike the masked-word tab, `[mask]`-like text is left alone: here it is just words.
    """
    text, notices = sanitize_text(text, lang)
    if not text.strip():
        raise InputError(t("input.empty", lang))
    return text, notices


@dataclass
class TokenWeight:
    position: int
    token: str
    """As a reader sees it ('▁great' → 'great'); plain text, escaped only where it is shown."""
    attention: float
    """[CLS]'s attention to this token in the most important pass, mean over heads."""


@dataclass
class SentimentResult:
    labels: list[str]
    probabilities: list[float]
    """Softmax of the logits, in label order; sums to 1."""
    predicted: int
    pass_scores: list[float]
    """Per pass: Σ over heads, queries and keys of |A ⊙ ∂logit_pred/∂A| (attention × gradient)."""
    cls_pass_scores: list[float]
    """The same, counting only the [CLS] row (the query whose output the classifier reads)."""
    tokens: list[str]
    cls_attention: list[float]
    """[CLS]'s attention to every token in the most important pass, mean over heads."""
    top_tokens: list[TokenWeight]
    notices: list[str] = field(default_factory=list)
    word_starts: list[bool] = field(default_factory=list)
    """Per token: whether it begins a word (SentencePiece's '▁'), so the token view can space words apart."""
    unknown: Unknowns = field(default_factory=lambda: Unknowns(0, 0))

    @property
    def label(self) -> str:
        return self.labels[self.predicted]

    @property
    def top_pass(self) -> int:
        """Index (0-based) of the pass with the largest score."""
        return max(range(len(self.pass_scores)), key=self.pass_scores.__getitem__)

    def as_dict(self) -> dict[str, Any]:
        total = sum(self.pass_scores) or 1.0
        return {
            "label": self.label,
            "probabilities": {name: round(p, 6) for name, p in zip(self.labels, self.probabilities, strict=True)},
            "pass_scores": [round(s, 8) for s in self.pass_scores],
            "pass_shares": [round(s / total, 6) for s in self.pass_scores],
            "cls_pass_scores": [round(s, 8) for s in self.cls_pass_scores],
            "most_important_pass": self.top_pass + 1,
            "top_tokens": [
                {"token": w.token, "position": w.position, "attention": round(w.attention, 6)} for w in self.top_tokens
            ],
            "tokens": self.tokens,
            "notices": self.notices,
            **self.unknown.as_dict(),
        }


def classify(clf: Classifier, text: Any, lang: str = "en") -> SentimentResult:
    """Label probabilities, per-pass attention attribution and [CLS]'s most attended tokens for one sentence."""
    import torch  # on first use, so the app serves its page before torch has loaded

    text, notices = clean_sentence(text, lang)
    unknown = check_readable(
        clf.tokenizer, clf.special_ids, [text], clf.name, sentiment_readers(), lang, none_key="lang.hint.none_sentiment"
    )
    notices += unknown_notice(unknown, lang)
    encoded = encode(clf, text)  # type: ignore[arg-type] — needs only .tokenizer and .max_tokens
    if encoded.truncated:
        notices.append(t("input.truncated", lang, n=clf.max_tokens))
    if len(encoded.input_ids) <= 2:  # only [CLS] [SEP]: the text had nothing the tokenizer keeps
        raise InputError(t("sentiment.err.no_tokens", lang))
    ids = torch.tensor([encoded.input_ids])
    types = torch.tensor([encoded.token_type_ids])
    with torch.enable_grad():  # the app may run under inference mode elsewhere; attribution needs a graph
        out = clf.model(ids, token_type_ids=types, output_attentions=True)
        logits = out.logits[0].float()  # (num_labels,)
        predicted = int(logits.argmax())
        maps = list(out.attentions)  # L tensors (1, A, T, T)
        # autograd.grad, not backward(): gradients of the attention maps only, nothing left in .grad.
        grads = torch.autograd.grad(logits[predicted], maps)
    with torch.no_grad():
        attribution = torch.stack([(a[0] * g[0]).abs() for a, g in zip(maps, grads, strict=True)])  # (L, A, T, T)
        pass_scores = attribution.sum(dim=(1, 2, 3)).tolist()
        cls_scores = attribution[:, :, 0, :].sum(dim=(1, 2)).tolist()
        probs = logits.softmax(dim=-1).tolist()
        top = max(range(len(pass_scores)), key=pass_scores.__getitem__)
        cls_row = maps[top][0, :, 0, :].mean(dim=0).tolist()  # (T,) mean over heads
    tokens = [display_token(p) for p in encoded.tokens]
    # Special tokens and bare word-boundary pieces ('▁' before an unknown character) are no words to show.
    words = [
        i
        for i, (token_id, piece) in enumerate(zip(encoded.input_ids, encoded.tokens, strict=True))
        if token_id not in clf.special_ids and piece.strip("▁ ")
    ]
    ranked = sorted(words, key=lambda i: -cls_row[i])[:TOP_TOKENS]
    return SentimentResult(
        labels=clf.labels,
        probabilities=probs,
        predicted=predicted,
        pass_scores=pass_scores,
        cls_pass_scores=cls_scores,
        tokens=tokens,
        cls_attention=cls_row,
        top_tokens=[TokenWeight(i, tokens[i], cls_row[i]) for i in ranked],
        notices=notices,
        word_starts=[p.startswith("▁") for p in encoded.tokens],
        unknown=unknown,
    )
