"""The *Masked words* tab's events: /fill_mask and /mask_word."""

from __future__ import annotations

import html
import logging
import os
import re
from typing import Any, NamedTuple

import gradio as gr

from app import inference, inputs
from app.i18n import t
from app.inference import InputError
from app.models import (
    load,
    resolve_model,
)
from app.page import framing
from app.page.results import (
    error_outputs,
    guarded,
    model_line,
    status_markdown,
)
from app.tabs.masked.counts import (
    MAX_EXPECTED_CHARS,
    Expected,
    WordInTraining,
    expected_word,
    guess_counts,
    training_contexts,
    training_counts,
    with_counts,
)
from app.tabs.masked.plots import topk_figure

logger = logging.getLogger(__name__)


class MaskAnswer(NamedTuple):
    """/fill_mask's outputs, in the order the tab wires them."""

    result: dict[str, Any]
    """The JSON result: predictions per [MASK], the model, the framing facts (or {"error": …})."""
    status: str
    """The model line, the framing line and the notices (Markdown)."""
    filled: str | None
    """The text with every [MASK] filled with its first guess."""
    chart: Any
    """The top-k bars (`app.tabs.masked.plots.topk_figure`)."""
    words: Any
    """An update of the "pick a word" radio: the words of the text in the box."""


class MaskWordAnswer(NamedTuple):
    """/mask_word's outputs: the text with the picked word masked, then /fill_mask's."""

    text: Any
    result: dict[str, Any] | Any
    status: str | Any
    filled: str | None | Any
    chart: Any
    words: Any


def _word_list(words: list[tuple[str, int]]) -> dict[str, Any]:
    """The "pick a word" radio holding `words` (those of the text in the box), none picked."""
    return gr.update(choices=words, value=None)


def _mask_refusal(message: str, answer: type[MaskAnswer]) -> MaskAnswer:
    """A refusal of /fill_mask: the sentence, and no word to pick (the list of the previous text goes too)."""
    return error_outputs(message, answer)._replace(words=_word_list([]))


def fill_mask_view(
    text: str, top_k: float = 5, model: str | None = "", lang: str = "en", expected: str | None = ""
) -> MaskAnswer:
    """/fill_mask: (JSON, message, filled sentence, top-k chart, words to pick from).

    The words are always the text's own: with a prediction, and with a refusal that asks for a [MASK] ("or pick a
    word to mask"); none when the model cannot read the text (the `<unk>` guard) or the text is not one.
    `expected` ("what did you expect?", optional): the word the student expected at the first [MASK]; the answer
    then carries its count in the training text and where the text held it and the top guess."""
    lang = inputs.language(lang)
    try:
        cleaned, notices = inference.prepare_text(text, lang, "mask.text")
    except InputError as error:
        logger.info("fill_mask_view: refused: %s", str(error)[:200])
        return _mask_refusal(str(error), MaskAnswer)
    word, bad = _expected_text(expected, lang)
    return _fill_mask(cleaned, notices + bad, top_k, model, lang, word)


def _expected_text(expected: Any, lang: str) -> tuple[str, list[str]]:
    """The "what did you expect?" box read as one word ("" when empty), and a notice when it is not one."""
    if expected is None or (isinstance(expected, str) and not expected.strip()):
        return "", []
    word = expected.strip() if isinstance(expected, str) else ""
    if not word or len(word) > MAX_EXPECTED_CHARS or re.search(r"\s|\[MASK\]", word, re.IGNORECASE):
        return "", [t("mask.expected.bad", lang, limit=MAX_EXPECTED_CHARS)]
    return word, []


def _quoted(text: str) -> str:
    """Training or typed text shown as itself in Markdown: HTML escaped, Markdown's marks backslashed."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~>])", r"\\\1", html.escape(text, quote=False))


def _word_lines(seen: WordInTraining, lang: str) -> list[str]:
    """Where the training text held one word: up to three contexts, the word in bold."""
    if not seen.contexts:
        return []
    shown = " · ".join(f"«{_quoted(a)}**{_quoted(w)}**{_quoted(b)}»" for a, w, b in seen.contexts)
    return [t("mask.contexts", lang, word=_quoted(seen.word)) + " " + shown]


def expected_lines(found: Expected, tokens: int | None, lang: str) -> list[str]:
    """The expected word beside the top guess, in the status: counts first, then the contexts of each."""
    word, guess = found.expected, found.top_guess
    if len(word.pieces) > 1:
        pieces = " ".join(_quoted(p.lstrip("▁") or p) for p in word.pieces)
        return [t("mask.expected.pieces", lang, word=_quoted(word.word), n=len(word.pieces), pieces=pieces)]
    if word.count is None:
        return [t("mask.expected.nocounts", lang, word=_quoted(word.word))]
    if word.pieces == guess.pieces:
        head = t("mask.expected.same", lang, word=_quoted(word.word), n=f"{word.count:,}")
        return [head, *_word_lines(word, lang)]
    head = t(
        "mask.expected",
        lang,
        word=_quoted(word.word),
        n=f"{word.count:,}",
        guess=_quoted(guess.word),
        m=f"{guess.count or 0:,}",
        tokens=f"{tokens or 0:,}",
    )
    return [head, *_word_lines(word, lang), *_word_lines(guess, lang)]


@guarded(MaskAnswer, error_result=_mask_refusal)
def _fill_mask(
    text: str,
    notices: list[str],
    top_k: Any,
    model: str | None,
    lang: str,
    expected: str = "",
    expected_mask: int = 0,
) -> MaskAnswer:
    """/fill_mask for a text already checked and cleaned; `expected`: the word expected at the `expected_mask`-th
    [MASK] ("" for none)."""
    top_k = inputs.whole(top_k, lang, "mask.top_k", 1, inference.MAX_TOP_K, default=5)
    picked = resolve_model(model, text, lang)  # online: a real ALBERT once fetched
    lm = load(picked.value, lang)
    unknown = inference.readable(lm, [text], lang)  # the guard first: a text the model cannot read offers no word
    words = inference.word_choices(text)
    try:
        result = inference.fill_cleaned_mask(lm, text, notices, top_k, lang, unknown)
    except InputError as error:
        logger.info("fill_mask_view: refused: %s", str(error)[:200])
        return error_outputs(str(error), MaskAnswer)._replace(words=_word_list(words))
    table = training_counts(lm)
    counts = guess_counts(result, table)
    raw = with_counts(result.as_dict(), counts)
    explained = [t("mask.counts", lang, tokens=f"{table.tokens:,}")] if table is not None else []
    found = (
        expected_word(lm.tokenizer, result, expected, expected_mask, table, training_contexts(lm)) if expected else None
    )
    answered = []  # the expected word's lines answer the class's question: first, above the model's description
    if found is not None:
        raw["expected"] = found.as_dict()
        answered = expected_lines(found, table.tokens if table is not None else None, lang)
    return MaskAnswer(
        result=raw | {"model": lm.name, "framing": framing.model_facts(lm, "mask").as_dict()},
        status=status_markdown(
            [
                *answered,
                model_line(lm, lang, metrics=False),
                *picked.line(lm.name, lang),
                framing.line(lm, "mask", lang),
            ]
            + [*explained, *result.notices]
        ),
        filled=result.filled_text,
        chart=topk_figure(result, lang, lm.config.vocab_size, counts if table is not None else None),
        words=_word_list(words),
    )


def mask_word_view(
    text: str, word: float | None, top_k: float = 5, model: str | None = "", lang: str = "en"
) -> MaskWordAnswer:
    """/mask_word: the text with the picked word masked, then everything /fill_mask returns. The text is checked
    and cleaned once, here; /fill_mask's work starts from the masked text. The picked word is the expected one:
    the answer carries its count and contexts beside the top guess."""
    if word is None:
        return MaskWordAnswer._make((gr.skip(),) * len(MaskWordAnswer._fields))
    lang = inputs.language(lang)
    try:
        index = inputs.whole(word, lang, "mask.words", 0, inference.MAX_WORDS - 1)
        cleaned, notices = inference.prepare_text(text, lang, "mask.text")
        masked = inference.mask_word(cleaned, index)
    except InputError as error:
        return MaskWordAnswer(gr.skip(), *error_outputs(str(error), MaskAnswer))
    word, before = _picked_word(cleaned, masked, index)
    return MaskWordAnswer(masked, *_fill_mask(masked, notices, top_k, model, lang, word, before))


def _picked_word(text: str, masked: str, index: int) -> tuple[str, int]:
    """The `index`-th word of `text` (numbered as `inference.word_choices` numbers them) and how many [MASK]s
    precede it in `masked` (the text with that word masked); "" when there is no such word."""
    word = next((label.split(": ", 1)[1] for label, i in inference.word_choices(text) if i == index), "")
    return word, os.path.commonprefix([text, masked]).count("[MASK]")
