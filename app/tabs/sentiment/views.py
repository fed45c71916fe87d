"""What /sentiment returns: the classifier's result as JSON, a verdict, two charts and the attended tokens.

Everything a user typed reaches the page escaped: token text through `html.escape` (the token
view is HTML) or `plot_text` (chart labels).
"""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from app.i18n import mode_name, normalize_lang, safe, t
from app.models.classifiers import sentiment_dir_for
from app.page import framing
from app.page.plots import PALETTE, FigureJSON, base_layout, plot_text
from app.page.results import guarded, status_markdown
from app.tabs.sentiment.classifier import SentimentResult, card_url, classify, load_classifier

_KNOWN_LABELS = ("negative", "positive")
_LABEL_COLORS = {"negative": "#dc2626", "positive": "#16a34a"}
_MAX_SHADED_TOKENS = 256
"""The token view shades at most this many tokens (the JSON has them all)."""


def label_name(label: str, lang: str = "en") -> str:
    """'positive' → 'positive' / '正面'; other names are shown as they are."""
    key = label.strip().lower()
    return t(f"sentiment.label.{key}", lang) if key in _KNOWN_LABELS else label


def probabilities_figure(result: SentimentResult, lang: str = "en") -> FigureJSON:
    """One bar per label, the predicted one labelled with its probability."""
    names = [plot_text(label_name(label, lang)) for label in result.labels]
    colors = [
        _LABEL_COLORS.get(label.strip().lower(), PALETTE[i % len(PALETTE)]) for i, label in enumerate(result.labels)
    ]
    data = [
        {
            "type": "bar",
            "x": names,
            "y": result.probabilities,
            "marker": {"color": colors},
            "text": [f"{p:.1%}" for p in result.probabilities],
            "textposition": "auto",
            "showlegend": False,
            "hovertemplate": "%{x}: %{y:.2%}<extra></extra>",
        }
    ]
    # Titles as {"text": …}: this dict skips plotly.py, and plotly.js 3 ignores plain-string titles.
    layout = base_layout(
        title={"text": t("sentiment.probs.title", lang)},
        height=320,
        yaxis=dict(tickformat=".0%", range=[0, 1], title={"text": t("sentiment.axis.probability", lang)}),
    )
    return FigureJSON(data, layout)


def passes_figure(result: SentimentResult, lang: str = "en") -> FigureJSON:
    """Each pass's share of the attention × gradient attribution; the largest stands out."""
    total = sum(result.pass_scores) or 1.0
    shares = [s / total for s in result.pass_scores]
    passes = list(range(1, len(shares) + 1))
    colors = [PALETTE[1] if i == result.top_pass else PALETTE[0] for i in range(len(shares))]
    data = [
        {
            "type": "bar",
            "x": passes,
            "y": shares,
            "marker": {"color": colors},
            "showlegend": False,
            "text": [f"{s:.0%}" for s in shares],
            "textposition": "auto",
            "hovertemplate": t("sharing.axis.pass", lang) + " %{x}: %{y:.1%}<extra></extra>",
        }
    ]
    layout = base_layout(
        title={"text": t("sentiment.passes.title", lang)},
        height=340,
        xaxis=dict(title={"text": t("sharing.axis.pass", lang)}, dtick=1),
        yaxis=dict(tickformat=".0%", rangemode="tozero", title={"text": t("sentiment.axis.share", lang)}),
    )
    return FigureJSON(data, layout)


def tokens_html(result: SentimentResult, lang: str = "en") -> str:
    """The sentence's tokens shaded by [CLS]'s attention in the most important pass, then the top ones listed."""
    heading = html.escape(t("sentiment.tokens.title", lang, k=result.top_pass + 1))
    shown = result.tokens[:_MAX_SHADED_TOKENS]
    peak = max(result.cls_attention[: len(shown)], default=0.0) or 1.0
    spans = []
    starts = result.word_starts or [True] * len(result.tokens)
    for i, (token, weight) in enumerate(zip(shown, result.cls_attention, strict=False)):
        if token == MARKER:  # SentencePiece's bare word-start marker: a blank box in Chinese text, nothing to read
            continue
        alpha = min(max(weight / peak, 0.0), 1.0)
        gap = "0.6em" if i and (starts[i] or token.startswith("[")) else "1px"  # words apart, pieces together
        spans.append(
            f'<span class="sentiment-token" style="background: rgba(217, 119, 6, {alpha:.2f}); '
            f'padding: 1px 2px; margin: 1px 1px 1px {gap}; border-radius: 3px; display: inline-block" '
            f'title="{weight:.1%}">{html.escape(token, quote=True)}</span>'
        )
    if len(result.tokens) > len(shown):
        spans.append("<span>…</span>")
    if result.top_tokens:
        items = "".join(
            f"<li><b>{html.escape(w.token, quote=True)}</b> {w.attention:.1%}</li>" for w in result.top_tokens
        )
        listing = f"<ol>{items}</ol>"
    else:
        listing = f"<p>{html.escape(t('sentiment.tokens.none', lang))}</p>"
    return (
        f'<div id="sentiment-token-view"><p><b>{heading}</b></p>'
        f'<div style="line-height: 1.9">{"".join(spans)}</div>{listing}</div>'
    )


MARKER = "▁"
"""SentencePiece's word-start marker; alone it is a token of its own before Chinese text."""


class SentimentAnswer(NamedTuple):
    """/sentiment's outputs, in the order the tab wires them."""

    result: Any
    """The JSON result: label, probabilities, attention per pass (or {"error": …})."""
    status: Any
    """The model line, the framing line and the notices (Markdown)."""
    verdict: Any
    """The label and its probability."""
    probabilities: Any
    """The probability chart."""
    passes: Any
    """The attribution per pass."""
    tokens: Any
    """The attended tokens (HTML)."""


@guarded(SentimentAnswer)
def sentiment_view(text: str, lang: str = "en") -> SentimentAnswer:
    """/sentiment: (JSON, message, verdict, probability chart, attribution per pass, attended tokens)."""
    lang = normalize_lang(lang)
    clf = load_classifier(lang, sentiment_dir_for(text, lang))
    result = classify(clf, text, lang)
    verdict = t(
        "sentiment.verdict",
        lang,
        label=safe(label_name(result.label, lang)),
        p=f"{result.probabilities[result.predicted]:.1%}",
    )
    raw = result.as_dict() | {"model": clf.name, "framing": framing.sentiment_facts_of(clf).as_dict()}
    notices = [
        t(
            "sentiment.model_line",
            lang,
            name=safe(clf.name),
            L=clf.config.num_hidden_layers,
            sharing=mode_name(clf.config.sharing, lang),
        )
        + (t("sentiment.card.link", lang, url=url) if (url := card_url(clf.directory, lang)) else ""),
        framing.sentiment_line(clf, lang, label_name),
        *result.notices,
    ]
    return SentimentAnswer(
        result=raw,
        status=status_markdown(notices),
        verdict=verdict,
        probabilities=probabilities_figure(result, lang),
        passes=passes_figure(result, lang),
        tokens=tokens_html(result, lang),
    )
