"""The deploy view's "Measure on this computer": the variants' shapes timed here, one sentence at a time.

Only the LoRA adapters of the deploy table are shipped (the full, student and INT8 models are not: the Space's size
limit), and latency depends on a model's shapes, not on its weights. So the shipped adapter, merged into its shipped
base, stands for the full model (the same shapes: the LoRA row *is* that model); `albert.core.quantize` of it for the
INT8 rows; `albert.core.student.make_student` of it (3 passes) for the student. Bounded: four models of at most
7 MB, batch 1, one thread, `ROUNDS` rounds after `WARMUP`, on the interface language's first example sentence:
well under a second of CPU.
"""

from __future__ import annotations

import functools
import statistics
from pathlib import Path
from typing import Any, NamedTuple

from app.i18n import normalize_lang, t
from app.models import models_dir
from app.models.files import ModelError
from app.page.results import guarded, status_markdown
from app.tabs.sentiment.deploy import deploy_record, task_for

ADAPTERS: dict[str, str] = {"sst2": "albert-lab-sst2-lora", "zh-reviews": "albert-lab-zh-sentiment-lora"}
"""The shipped adapter timed for each task (its base is named in its albert_adapter.json)."""
ROUNDS = 7
WARMUP = 2
STANDS_FOR: tuple[str, ...] = ("full", "full-int8", "student", "student-int8")


def _adapter_dirs(task: str, lang: str) -> tuple[Path, Path]:
    """(adapter folder, base folder) among the shipped models; a ModelError sentence when either is missing."""
    import json

    adapter = models_dir() / ADAPTERS[task]
    pointer = adapter / "albert_adapter.json"
    if not pointer.is_file():
        raise ModelError(t("deploy.measure.missing", lang, name=ADAPTERS[task]))
    base = models_dir() / Path(json.loads(pointer.read_text(encoding="utf-8"))["base_model"]).name
    if not (base / "config.json").is_file():
        raise ModelError(t("deploy.measure.missing", lang, name=base.name))
    return adapter, base


@functools.cache
def _models(adapter: Path, base: Path) -> dict[str, Any]:
    from albert.core.adapters import load_adapter, merge_lora
    from albert.core.quantize import quantize_model
    from albert.core.student import make_student

    full = merge_lora(load_adapter(adapter, base=base))
    student = make_student(full, 3).eval()
    return {
        "full": full,
        "full-int8": quantize_model(full),
        "student": student,
        "student-int8": quantize_model(student),
    }


def time_variants(task: str, lang: str = "en", rounds: int = ROUNDS) -> dict[str, float]:
    """Median milliseconds per batch-1 forward pass of each variant's shapes, on one thread."""
    import torch

    from albert.core.quantize import measure_latency
    from albert.data.tokenizer import load_tokenizer
    from app.page.examples import sentiment_texts

    adapter, base = _adapter_dirs(task, lang)
    models = _models(adapter, base)
    sentence = sentiment_texts("zh" if task == "zh-reviews" else "en")[0]  # the tab's first example
    encoded = load_tokenizer(base)(sentence, truncation=True, max_length=128, return_tensors="pt")
    batch = {k: encoded[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in encoded}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        times = [measure_latency(models, batch, rounds=1, warmup=WARMUP if r == 0 else 0) for r in range(rounds)]
    finally:
        torch.set_num_threads(threads)
    return {name: statistics.median(row[name] for row in times) * 1e3 for name in models}


class MeasureAnswer(NamedTuple):
    """/sentiment_deploy_measure's output."""

    result: Any
    """The timings as Markdown (or the refusal)."""


def _measure_error(message: str, answer: type[MeasureAnswer]) -> MeasureAnswer:
    return answer(status_markdown([message], error=True))


def measure_view(lang: str = "en") -> str:
    """/sentiment_deploy_measure: the timings as Markdown (one output: Gradio gets the string, not a tuple)."""
    return measure_answer(lang).result


@guarded(MeasureAnswer, _measure_error)
def measure_answer(lang: str = "en") -> MeasureAnswer:
    """The table's latency column timed again on this computer (or the refusal, as one sentence)."""
    lang = normalize_lang(lang)
    task = task_for(lang)
    measured = time_variants(task, lang)
    recorded = deploy_record()["tasks"][task]["variants"]
    lines = [t("deploy.measure.header", lang, adapter=ADAPTERS[task], rounds=ROUNDS)]
    for name in STANDS_FOR:
        lines.append(
            f"| {t(f'deploy.variant.{name}', lang)} | {measured[name]:.1f} | "
            f"{recorded[name]['latency_ms_batch1']:.1f} ({recorded[name]['latency_ms_batch1_min']:.1f}) |"
        )
    return MeasureAnswer(result="\n".join(lines))
