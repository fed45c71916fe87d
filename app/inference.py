"""Pure inference functions behind the model tabs: masked words, sentence order, attention, layer transitions.

Each takes a `LoadedModel` and plain text, and returns a small dataclass of plain numbers and
strings. Input that cannot give a meaningful answer raises `InputError` with one sentence for
the user; input that can be made usable (too long, control characters) is, with a notice.
torch is imported by the first call, not with the module, so the app serves its page sooner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from albert.data.chinese import HAN_RANGES
from albert.data.tokenizer import encode_masked
from app import inputs
from app.i18n import t
from app.inputs import InputError
from app.models import DEFAULT_MODEL, LoadedModel, language_models
from app.models.languages import Unknowns, check_readable, unknown_notice

if TYPE_CHECKING:
    import torch

__all__ = ["InputError", "MAX_CHARS", "MODEL_TEXT_CHARS"]

MAX_CHARS = 100_000
"""Longer text is cut here before tokenizing (the model would see only its first tokens anyway)."""
MODEL_TEXT_CHARS = 10_000
"""The model tabs cut each text here, before tokenizing: a model reads at most 512 tokens (about
2,500 characters of English, 512 of Chinese), and tokenizing 100,000 characters took 50–100 ms."""
MAX_MASKS = 20
"""More [MASK]s than this in one text are refused: the answer would be unreadable."""
MAX_TOP_K = 20
ATTENTION_TOKENS = 48
"""Default token budget of the attention views (L × A × T² numbers travel to the browser)."""
MAX_ATTENTION_TOKENS = 128
MIN_ATTENTION_TOKENS = 8
MAX_WORDS = 200
"""Words offered for masking (`word_choices`)."""
# C0/C1 control characters (tab and newline kept) and lone surrogates, which break tokenizers.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# What people type for a mask: [MASK], [mask], [ mask ], full-width ［MASK］, <mask>.
_MASK_VARIANTS = re.compile(r"[\[［]\s*mask\s*[\]］]|<mask>", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)）]*\s+|(?<=[。！？])")
# A word to offer for masking: one Han character (a character vocabulary predicts one at a time), or a
# run of other word characters ("don't" included).
_WORD = re.compile(f"[{HAN_RANGES}]|[^\\W{HAN_RANGES}]+(?:['’][^\\W{HAN_RANGES}]+)*")


# ----- text -----------------------------------------------------------------------------------
def sanitize_text(text: Any, lang: str = "en", limit: int = MAX_CHARS) -> tuple[str, list[str]]:
    """Text cut to `limit` characters (one slice: linear) with control characters turned into spaces, and
    notices saying so. Anything but a string (or None) is refused: str() of a list would be answered."""
    if text is None:
        text = ""
    elif not isinstance(text, str):
        raise InputError(t("input.err.not_text", lang, field=t("common.text", lang), kind=type(text).__name__))
    notices = []
    if len(text) > limit:
        notices.append(t("input.cut_chars", lang, n=f"{len(text):,}", limit=f"{limit:,}"))
        text = text[:limit]
    if _CONTROL.search(text):
        text = _CONTROL.sub(" ", text)
        notices.append(t("input.control", lang))
    return text, notices


def clean_text(text: Any, lang: str = "en") -> tuple[str, list[str]]:
    """Text cut to MODEL_TEXT_CHARS, made safe for the tokenizer, `[mask]`-like spellings read as [MASK]."""
    text, notices = sanitize_text(text, lang, MODEL_TEXT_CHARS)
    return _MASK_VARIANTS.sub("[MASK]", text), notices


def prepare_text(value: Any, lang: str, field: str) -> tuple[str, list[str]]:
    """What a model tab's view reads from a text box: checked once (`app.inputs.text`: a string of bounded size; a
    refusal names `field`) and cleaned once (`clean_text`), with the notices the cleaning gave."""
    return clean_text(inputs.text(value, lang, field), lang)


def split_sentences(paragraph: str) -> list[str]:
    """A paragraph's sentences (after . ! ? and their Chinese forms)."""
    return [s.strip() for s in _SENTENCE_END.split(paragraph or "") if s and s.strip()]


def word_choices(text: str) -> list[tuple[str, int]]:
    """(label, index) of each word, for picking one to mask (as exBERT lets you click a token)."""
    return [
        (f"{i + 1}: {m.group()}", i) for i, m in enumerate(_WORD.finditer(text or "")) if m.group().upper() != "MASK"
    ][:MAX_WORDS]


def mask_word(text: str, index: int) -> str:
    """`text` with its `index`-th word (as numbered by `word_choices`) replaced by [MASK]."""
    for i, match in enumerate(_WORD.finditer(text or "")):
        if i == index:
            return text[: match.start()] + "[MASK]" + text[match.end() :]
    return text


# ----- encoding -------------------------------------------------------------------------------
@dataclass
class Encoded:
    input_ids: list[int]
    token_type_ids: list[int]
    tokens: list[str]
    b_start: int | None
    """Index of the first token of sentence B, for pairs."""
    truncated: bool


def encode(lm: LoadedModel, text_a: str, text_b: str | None = None, max_tokens: int | None = None) -> Encoded:
    """[CLS] A [SEP] (B [SEP]) cut to `max_tokens` (longest segment first), as ALBERT was trained."""
    a = encode_masked(lm.tokenizer, text_a)  # "[MASK]." as the model was trained: no word start glued to the mask
    b = encode_masked(lm.tokenizer, text_b) if text_b is not None else None
    return encode_ids(lm, a, b, max_tokens)


def cut_lengths(len_a: int, len_b: int, budget: int) -> tuple[int, int]:
    """Lengths after cutting one token at a time from the longer segment (A on ties) until both fit in
    `budget`: the same result as that loop, computed in constant time."""
    excess = len_a + len_b - budget
    if excess <= 0:
        return len_a, len_b
    gap = abs(len_a - len_b)
    if excess <= gap:  # only the longer one is cut
        return (len_a - excess, len_b) if len_a >= len_b else (len_a, len_b - excess)
    even, rest = min(len_a, len_b), excess - gap  # both at the shorter length, then A and B in turn
    return max(even - (rest + 1) // 2, 0), max(even - rest // 2, 0)


def encode_ids(lm: LoadedModel, a: list[int], b: list[int] | None = None, max_tokens: int | None = None) -> Encoded:
    """`encode` for token ids already computed (sentence order tokenizes each text once for both orders)."""
    tokenizer = lm.tokenizer
    limit = min(max_tokens or lm.max_tokens, lm.max_tokens)
    budget = max(limit - (3 if b is not None else 2), 0)
    truncated = len(a) + len(b or []) > budget
    if b is None:
        a = a[:budget]
    else:
        keep_a, keep_b = cut_lengths(len(a), len(b), budget)
        a, b = a[:keep_a], b[:keep_b]
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    ids = [cls, *a, sep] + ([*b, sep] if b is not None else [])
    types = [0] * (len(a) + 2) + [1] * (len(b) + 1 if b is not None else 0)
    return Encoded(ids, types, tokenizer.convert_ids_to_tokens(ids), len(a) + 2 if b is not None else None, truncated)


def display_token(piece: str) -> str:
    """A SentencePiece piece as a reader sees it: '▁cat' → 'cat'."""
    text = piece.replace("▁", " ").strip()
    return text or piece


WORD_START = "▁"
"""SentencePiece's word-start marker: a piece of its own before Chinese text (which has no spaces)."""


def token_labels(tokens: list[str], chinese: bool, lang: str = "en") -> list[str]:
    """Tokens as a chart or a view labels them. For a Chinese model the marker is dropped from a piece ('▁今' →
    '今') and the bare marker is named ('[word start]', '[词首]'), never a blank or '_'; others are unchanged."""
    if not chinese:
        return list(tokens)
    named = t("token.word_start", lang)
    return [named if token == WORD_START else token.removeprefix(WORD_START) or token for token in tokens]


def fill_in(text: str, words: list[str]) -> str:
    """`text` with its [MASK]s replaced by `words` in order (a mask without a word stays). A WordPiece continuation
    ('##s', BERT's) joins the word before it, without its '##': "The cat [MASK]." with '##s' → "The cats."."""
    for word in words:
        if word.startswith("##") and len(word) > 2:
            text = re.sub(r"\s*\[MASK\]", lambda _, piece=word[2:]: piece, text, count=1)
        else:
            text = text.replace("[MASK]", word, 1)
    return text


def _require_text(text: str, lang: str, key: str = "input.empty") -> None:
    if not text.strip():
        raise InputError(t(key, lang))


def readable(lm: LoadedModel, texts: list[str], lang: str = "en") -> Unknowns:
    """The `<unk>` guard of every model tab: how many tokens of `texts` the model does not know, or
    InputError (one sentence naming a model that reads them) when it cannot read them (`app.models.languages`)."""
    return check_readable(lm.tokenizer, lm.special_ids, texts, lm.name, language_models(), lang)


# ----- masked words ---------------------------------------------------------------------------
@dataclass
class MaskPrediction:
    position: int
    """Token index of the [MASK] in `FillMaskResult.tokens`."""
    candidates: list[tuple[str, float]]
    """(token as shown, probability), most likely first; special tokens left out."""
    pieces: list[str] = field(default_factory=list)
    """The candidates' vocabulary pieces as the tokenizer spells them ('▁paris'): what a count table counts."""


@dataclass
class FillMaskResult:
    tokens: list[str]
    predictions: list[MaskPrediction]
    filled_text: str
    notices: list[str] = field(default_factory=list)
    unknown: Unknowns = field(default_factory=lambda: Unknowns(0, 0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "filled_text": self.filled_text,
            "notices": self.notices,
            **self.unknown.as_dict(),
            "masks": [
                {
                    "position": p.position,
                    "top": [{"token": tok, "probability": round(prob, 6)} for tok, prob in p.candidates],
                }
                for p in self.predictions
            ],
        }


def fill_mask(lm: LoadedModel, text: Any, top_k: int = 5, lang: str = "en") -> FillMaskResult:
    """The `top_k` most likely tokens at every [MASK], and the text filled with the top choices."""
    return fill_cleaned_mask(lm, *clean_text(text, lang), top_k, lang)


def fill_cleaned_mask(
    lm: LoadedModel,
    text: str,
    notices: list[str],
    top_k: int = 5,
    lang: str = "en",
    unknown: Unknowns | None = None,
) -> FillMaskResult:
    """`fill_mask` of a text already `clean_text`-ed, with the notices its cleaning gave (a caller that checked and
    cleaned the text once, such as /mask_word, does not clean it again); `unknown`: what `readable` found, when the
    caller ran that guard already."""
    import torch

    notices = list(notices)
    _require_text(text, lang)
    wanted = text.count("[MASK]")
    if wanted == 0:
        raise InputError(" ".join([t("mask.err.none", lang), *notices]))
    if wanted > MAX_MASKS:
        raise InputError(t("mask.err.too_many", lang, n=wanted, limit=MAX_MASKS))
    top_k = int(min(max(int(top_k or 5), 1), MAX_TOP_K))
    unknown = readable(lm, [text], lang) if unknown is None else unknown
    notices += unknown_notice(unknown, lang)
    encoded = encode(lm, text)
    positions = [i for i, token_id in enumerate(encoded.input_ids) if token_id == lm.mask_id]
    if encoded.truncated:
        notices.append(t("input.truncated", lang, n=lm.max_tokens))
    if not positions:
        raise InputError(t("mask.err.truncated_all", lang, n=lm.max_tokens))
    if len(positions) < wanted:
        notices.append(t("mask.note.some_cut", lang, n=wanted - len(positions)))
    input_ids = torch.tensor([encoded.input_ids])
    labels = torch.full_like(input_ids, -100)
    labels[0, positions] = lm.mask_id  # any id: it only selects the positions the MLM head decodes
    with torch.inference_mode():
        out = lm.model(input_ids, token_type_ids=torch.tensor([encoded.token_type_ids]), mlm_labels=labels)
        probs = out.mlm_logits.float().softmax(dim=-1)  # (N, V), rows in position order
        ranking = probs.clone()
        ranking[:, list(lm.special_ids)] = -1.0  # rank real tokens only; probabilities stay the model's
        ranking[:, len(lm.tokenizer) :] = -1.0  # rows past the tokenizer (a padded vocabulary) are no tokens
        top = ranking.topk(top_k, dim=-1)
    pieces = lm.tokenizer.convert_ids_to_tokens(top.indices.flatten().tolist())
    predictions = []
    for row, position in enumerate(positions):
        chosen = pieces[row * top_k : (row + 1) * top_k]
        predictions.append(
            MaskPrediction(
                position,
                [(display_token(p), float(v)) for p, v in zip(chosen, top.values[row].tolist(), strict=True)],
                list(chosen),
            )
        )
    filled = fill_in(text, [prediction.candidates[0][0] for prediction in predictions])
    return FillMaskResult(encoded.tokens, predictions, filled, notices, unknown)


# ----- sentence order -------------------------------------------------------------------------
@dataclass
class SentenceOrderResult:
    in_order_ab: float
    """P(A then B is the original order) — or, for an NSP model, P(B follows A)."""
    in_order_ba: float
    objective: str
    notices: list[str] = field(default_factory=list)
    unknown: Unknowns = field(default_factory=lambda: Unknowns(0, 0))
    with_other: float | None = None
    """P(class 0) for A followed by a segment of another document ("B from another book"), when one was given:
    an NSP model should call it not the next text, whatever it makes of the order."""

    def as_dict(self) -> dict[str, Any]:
        found = {
            "objective": self.objective,
            "p_in_order_a_then_b": round(self.in_order_ab, 6),
            "p_in_order_b_then_a": round(self.in_order_ba, 6),
        }
        if self.with_other is not None:
            found["p_a_then_other"] = round(self.with_other, 6)
        return found | {"notices": self.notices, **self.unknown.as_dict()}


def pad_batch(rows: list[Encoded], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    import torch

    width = max(len(r.input_ids) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, r in enumerate(rows):
        n = len(r.input_ids)
        ids[i, :n], types[i, :n], mask[i, :n] = torch.tensor(r.input_ids), torch.tensor(r.token_type_ids), 1
    return ids, types, mask


def sentence_order(
    lm: LoadedModel, sentence_a: Any, sentence_b: Any, lang: str = "en", other: Any = None
) -> SentenceOrderResult:
    """P(class 0) of the sentence head for A→B and B→A (and A→`other` when given), in one batch.

    Class 0 is "in order" for SOP and "is the next text" for NSP. The rows are encoded and scored by
    `albert.training.order_scoring.class0_probabilities`, the function every order measurement of the project
    uses, so the tab, the examples chooser and the held-out scores read a pair the same way."""
    from albert.training.order_scoring import class0_probabilities

    if lm.config.sentence_objective == "none":
        raise InputError(t("order.err.no_head", lang, name=lm.name, default=language_models()["en"] or DEFAULT_MODEL))
    if not lm.has_sentence_head:  # a random head's probabilities would mean nothing: say so instead
        raise InputError(
            t("order.err.hub_no_head", lang, name=lm.name, default=language_models()["en"] or DEFAULT_MODEL)
        )
    a, notices_a = clean_text(sentence_a, lang)
    b, notices_b = clean_text(sentence_b, lang)
    if not a.strip() or not b.strip():
        raise InputError(t("order.err.empty", lang))
    o, notices_o = clean_text(other, lang) if isinstance(other, str) and other.strip() else ("", [])
    notices = list(dict.fromkeys(notices_a + notices_b + notices_o))
    unknown = readable(lm, [a, b], lang)
    notices += unknown_notice(unknown, lang)
    if o.strip():
        try:  # an unreadable other book costs its row only (with the guard's sentence), not the pair's answer
            readable(lm, [o], lang)
        except InputError as error:
            notices.append(str(error))
            o = ""
    ids_a, ids_b, ids_o = (lm.tokenizer(x, add_special_tokens=False, verbose=False)["input_ids"] for x in (a, b, o))
    rows = [(ids_a, ids_b), (ids_b, ids_a)] + ([(ids_a, ids_o)] if o.strip() else [])
    budget = max(lm.max_tokens - 3, 2)  # [CLS] A [SEP] B [SEP]
    if any(len(x) + len(y) > budget for x, y in rows):
        notices.append(t("input.truncated", lang, n=lm.max_tokens))
    special = (lm.tokenizer.cls_token_id, lm.tokenizer.sep_token_id)
    probs = class0_probabilities(lm.model, rows, special, lm.tokenizer.pad_token_id, budget)
    with_other = float(probs[2]) if len(rows) == 3 else None
    return SentenceOrderResult(
        float(probs[0]), float(probs[1]), lm.config.sentence_objective, notices, unknown, with_other
    )


# ----- attention and layer transitions ----------------------------------------------------------
@dataclass
class AttentionResult:
    tokens: list[str]
    attentions: np.ndarray
    """(L, A, T, T) attention probabilities of every pass, float32."""
    b_start: int | None
    notices: list[str] = field(default_factory=list)
    unknown: Unknowns = field(default_factory=lambda: Unknowns(0, 0))


def attention(
    lm: LoadedModel, sentence_a: Any, sentence_b: Any = None, max_tokens: int = ATTENTION_TOKENS, lang: str = "en"
) -> AttentionResult:
    """Attention maps of every pass for a sentence or a sentence pair, cut to `max_tokens`."""
    import torch

    a, notices = clean_text(sentence_a, lang)
    b, notices_b = clean_text(sentence_b, lang) if sentence_b is not None else ("", [])
    _require_text(a, lang)
    notices = list(dict.fromkeys(notices + notices_b))
    unknown = readable(lm, [a, b], lang)
    notices += unknown_notice(unknown, lang)
    limit = int(min(max(int(max_tokens or ATTENTION_TOKENS), 8), MAX_ATTENTION_TOKENS))
    encoded = encode(lm, a, b if b.strip() else None, max_tokens=limit)
    if encoded.truncated:
        notices.append(t("attention.truncated", lang, n=min(limit, lm.max_tokens)))
    with torch.inference_mode():
        out = lm.model.albert(
            torch.tensor([encoded.input_ids]),
            token_type_ids=torch.tensor([encoded.token_type_ids]),
            output_attentions=True,
        )
    maps = torch.stack([m[0] for m in out.attentions]).float().numpy()  # (L, A, T, T)
    return AttentionResult(encoded.tokens, maps, encoded.b_start, notices, unknown)


def attention_similarity(maps: np.ndarray) -> list[float]:
    """Cosine similarity of each pass's attention maps with the next pass's, averaged over heads (L − 1 values)."""
    import torch
    import torch.nn.functional as F

    flat = torch.from_numpy(maps).flatten(2)  # (L, A, T*T)
    return F.cosine_similarity(flat[:-1], flat[1:], dim=-1).mean(dim=-1).tolist()


@dataclass
class Transitions:
    l2: list[float]
    """Per pass: mean over tokens of ‖output − input‖₂ (the paper's layer-transition figure, left)."""
    cosine: list[float]
    """Per pass: mean over tokens of cos(input, output)."""
    tokens: int
    notices: list[str] = field(default_factory=list)
    unknown: Unknowns = field(default_factory=lambda: Unknowns(0, 0))
    degrees: list[float] = field(default_factory=list)
    """Per pass: mean over tokens of the angle between input and output, in degrees (the paper's right panel)."""


def layer_transitions(lm: LoadedModel, text: Any, lang: str = "en") -> Transitions:
    """How much each pass changes its input: L2 distance, cosine and angle, averaged over tokens — computed by the
    library's `albert.core.transitions.layer_transitions` (Lan et al., ICLR 2020, Figure 1; Figure 2 in arXiv v1)."""
    import torch

    from albert.core.transitions import layer_transitions as library_transitions

    text, notices = clean_text(text, lang)
    _require_text(text, lang)
    unknown = readable(lm, [text], lang)
    notices += unknown_notice(unknown, lang)
    encoded = encode(lm, text)
    if encoded.truncated:
        notices.append(t("input.truncated", lang, n=lm.max_tokens))
    found = library_transitions(
        lm.model, torch.tensor([encoded.input_ids]), token_type_ids=torch.tensor([encoded.token_type_ids])
    )
    return Transitions(found.l2, found.cosine, len(encoded.input_ids), notices, unknown, found.degrees)
