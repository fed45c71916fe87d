"""The Sentiment tab's deploy view: the fine-tuning practices' variants as measured (issue 34), and one backbone
with two heads answering both of its tasks on the typed text.

The table is read from `assets/finetuning/deploy.json` (written by `scripts/finetuning_report.py`, described in
docs/results/finetuning-practices.md): nothing in it is typed by hand. The multi-task model is
`assets/models/albert-lab-zh-multitask` (Chinese reviews sentiment + Chinese word segmentation).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from app.i18n import normalize_lang, safe, t
from app.inputs import InputError
from app.models import REPO_ROOT, cache, models_dir
from app.models.files import ModelError
from app.page.results import guarded, status_markdown
from app.tabs.sentiment.classifier import clean_sentence

DEPLOY_JSON = REPO_ROOT / "assets" / "finetuning" / "deploy.json"
TASKS: dict[str, str] = {"en": "sst2", "zh": "zh-reviews"}
"""The task whose variants each interface language shows: SST-2 in English, zh-reviews in 中文."""
VARIANTS: dict[str, tuple[str, ...]] = {
    "sst2": ("full", "full-int8", "lora", "student", "student-int8"),
    "zh-reviews": ("full", "full-int8", "lora-shared", "lora-perpass", "student", "student-int8"),
}
"""The rows, in the order shown: full fine-tuning, its INT8, the LoRA adapter(s), the distilled student, its INT8."""
MULTITASK_MODEL = "albert-lab-zh-multitask"
_HAN = re.compile(r"[\u3400-\u9fff]")
_REVIEW_LABELS = {"0": "negative", "1": "positive"}
"""The multi-task model's review labels (its card: 0 = negative, 1 = positive)."""


@dataclass(frozen=True)
class DeployRow:
    """One variant of a task as deploy.json records it."""

    variant: str
    size_bytes: int
    """`torch.save` of the state dict: the measure that covers the INT8 models too."""
    stored_bytes: int
    """What must be stored for this task: the adapter alone for LoRA (beside its base), else the whole model."""
    accuracy: float
    hits: int
    n: int
    ci95: tuple[float, float]
    trainable_parameters: int | None
    """Parameters trained for this task; None for the INT8 models (quantized after training, nothing trained)."""
    latency_ms: float
    """Median of the recorded rounds, batch 1, one thread."""
    latency_min_ms: float
    passes: int


@functools.cache
def deploy_record(path: Path = DEPLOY_JSON) -> dict[str, Any]:
    """deploy.json, read once."""
    return json.loads(path.read_text(encoding="utf-8"))


def task_for(lang: str) -> str:
    """The task the deploy view shows in `lang`."""
    return TASKS[normalize_lang(lang)]


def deploy_rows(task: str, record: dict[str, Any] | None = None) -> list[DeployRow]:
    """The variants of `task` in display order, with their recorded numbers."""
    variants = (record or deploy_record())["tasks"][task]["variants"]
    rows = []
    for name in VARIANTS[task]:
        v = variants[name]
        trainable = v.get("trainable_parameters")
        if trainable is None and name == "student":  # the student trains every one of its parameters
            trainable = v["parameters"]
        rows.append(
            DeployRow(
                variant=name,
                size_bytes=v["state_dict_bytes"],
                stored_bytes=v.get("adapter_bytes", v["state_dict_bytes"]),
                accuracy=v["accuracy"],
                hits=v["hits"],
                n=v["n"],
                ci95=(v["ci95"][0], v["ci95"][1]),
                trainable_parameters=trainable,
                latency_ms=v["latency_ms_batch1"],
                latency_min_ms=v["latency_ms_batch1_min"],
                passes=v["passes"],
            )
        )
    return rows


def megabytes(n: int) -> str:
    """6,962,413 → '6.96 MB' (10^6 bytes, as the results page writes them)."""
    return f"{n / 1e6:.2f} MB"


def deploy_markdown(lang: str = "en", record: dict[str, Any] | None = None) -> str:
    """The deploy table of the interface language's task, with what it shows in words."""
    lang = normalize_lang(lang)
    record = record or deploy_record()
    task = task_for(lang)
    rows = deploy_rows(task, record)
    lines = [t(f"deploy.intro.{task}", lang, n=f"{record['tasks'][task]['dev_n']:,}"), "", t("deploy.header", lang)]
    for row in rows:
        trainable = f"{row.trainable_parameters:,}" if row.trainable_parameters is not None else "—"
        lines.append(
            f"| {t(f'deploy.variant.{row.variant}', lang)} | {megabytes(row.size_bytes)} | "
            f"{megabytes(row.stored_bytes)} | {row.accuracy:.2%} [{row.ci95[0]:.1%}, {row.ci95[1]:.1%}] | "
            f"{row.hits:,} / {row.n:,} | {trainable} | {row.latency_ms:.1f} ({row.latency_min_ms:.1f}) |"
        )
    by_name = {row.variant: row for row in rows}
    lines += [
        "",
        t(
            f"deploy.reading.{task}",
            lang,
            full=megabytes(by_name["full"].size_bytes),
            int8=megabytes(by_name["full-int8"].size_bytes),
        ),
        "",
        t("deploy.shared_noise", lang),
        "",
        t("deploy.machine", lang, rounds=record["tasks"][task].get("latency_rounds", 20)),
    ]
    return "\n".join(lines)


# ----- one backbone, two heads ------------------------------------------------------------------
def multitask_dir() -> Path:
    """The shipped multi-task model's folder (beside the other shipped models)."""
    return models_dir() / MULTITASK_MODEL


def load_multitask(lang: str = "en") -> tuple[Any, Any]:
    """(model, tokenizer) of the shipped multi-task model, kept in the app's model cache (`app.models.cache`); a
    ModelError sentence when it is not installed."""
    from albert.core.multitask import MultiTaskModel
    from albert.data.tokenizer import load_tokenizer

    directory = multitask_dir()
    if not (directory / "config.json").is_file():
        raise ModelError(t("deploy.two.missing", lang, name=MULTITASK_MODEL))
    return cache.cached(
        ("multitask", str(directory)), lambda: (MultiTaskModel.from_pretrained(directory), load_tokenizer(directory))
    )


def words_of(tagged: list[tuple[str, str]]) -> list[str]:
    """(character, B/I) pairs → words: a B (or the first character) starts a word, an I continues it."""
    words: list[str] = []
    for character, tag in tagged:
        if tag == "I" and words:
            words[-1] += character
        else:
            words.append(character)
    return words


def two_heads(model: Any, tokenizer: Any, text: str, max_length: int = 128) -> tuple[str, list[tuple[str, str]]]:
    """(the reviews head's label name, the segmentation head's (character, tag) pairs) for one text, each head
    reading its input as it was trained (`MultiTaskModel.predict_text`)."""
    answers = model.predict_text(text, tokenizer, max_length=max_length)
    return answers["reviews"], answers["cws"]


class TwoHeadsAnswer(NamedTuple):
    """/sentiment_two_heads' outputs."""

    result: Any
    """JSON: each head's answer and the words (or {"error": …})."""
    answer: Any
    """Both answers in words (Markdown)."""


def _two_heads_error(message: str, answer: type[TwoHeadsAnswer]) -> TwoHeadsAnswer:
    return answer({"error": message}, status_markdown([message], error=True))


@guarded(TwoHeadsAnswer, _two_heads_error)
def two_heads_view(text: str, lang: str = "en") -> TwoHeadsAnswer:
    """/sentiment_two_heads: the multi-task model's sentiment head and segmentation head on the same text."""
    lang = normalize_lang(lang)
    text, notices = clean_sentence(text, lang)
    if not _HAN.search(text):
        raise InputError(t("deploy.two.not_chinese", lang))
    model, tokenizer = load_multitask(lang)
    review, tagged = two_heads(model, tokenizer, text)
    label = _REVIEW_LABELS.get(review, review)
    words = words_of(tagged)
    if len(tagged) < sum(not c.isspace() for c in text):
        notices.append(t("deploy.two.cut", lang, n=len(tagged)))
    from app.tabs.sentiment.views import label_name

    shown = " / ".join(safe(word, 40) for word in words)  # typed text, made inert for Markdown
    markdown = t("deploy.two.answer", lang, label=label_name(label, lang), words=shown)
    result = {"model": MULTITASK_MODEL, "reviews": label, "cws": tagged, "words": words}
    return TwoHeadsAnswer(result=result, answer="\n\n".join([markdown, *notices]))
