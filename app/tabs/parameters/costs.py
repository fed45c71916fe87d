"""The calculator's compute-and-memory panel: FLOPs, weight and activation memory, the paper's Table 2, and
timing the configured model on this computer for each sharing mode.

Formulas live in `albert.core.compute`; this module validates the form, arranges Markdown in the user's
language and bounds the measurement so that it runs in a few seconds on a small CPU. The two views
never raise for bad input: a problem becomes one sentence among their outputs.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

from albert.core import compute
from albert.core.config import PRESETS, SHARING_MODES, AlbertConfig
from albert.core.params import PAPER_TABLE2_SPEEDUP, count_parameters, without_sharing
from app import inputs
from app.child import ChildProcessEnded, run_in_child
from app.i18n import t
from app.inputs import InputError
from app.numbers import json_numbers, millions
from app.tabs.parameters import timing
from app.tabs.parameters.calculator import CalculatorInputError, ParameterForm, build_config, whole_number
from app.tabs.parameters.timing import RoundsPlan

logger = logging.getLogger(__name__)

MEASURE_MAX_TOKENS = 128
"""At most this many tokens (batch 1) are timed, whatever T the form asks for."""
MEASURE_MIN_TOKENS = 8
"""Below this the timing says little; a model that needs fewer tokens to fit the budget is refused."""
MEASURE_FLOP_BUDGET = 3e9
"""FLOPs of one timed forward pass. Four modes × (warm-up + 3 to 7 interleaved rounds, no new round after 4 s): a
few seconds on one core of a small CPU, and never much more than 4 s + 4 passes plus building the models."""
MEASURE_ROUNDS = RoundsPlan(rounds=7, min_rounds=3, max_seconds=4.0)
"""Each round times every sharing mode once; the spread across rounds is what the verdict reads."""
MEASURE_MAX_PARAMETERS = 150_000_000
"""The unshared variant is built for real (600 MB in fp32): BERT-base fits, BERT-large does not."""
MAX_BATCH = 1_000_000
PAPER_SEQ_LEN = 512
"""The paper pretrains on sequences of at most 512 tokens (Section 4.1)."""


def flops_text(n: float) -> str:
    """189,000,000 → '189.0 MFLOPs'; 1.2e12 → '1.20 TFLOPs'."""
    for unit, size in (("PFLOPs", 1e15), ("TFLOPs", 1e12), ("GFLOPs", 1e9)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n / 1e6:.1f} MFLOPs" if n >= 1e5 else f"{int(n):,} FLOPs"


def bytes_text(n: float) -> str:
    """Binary units, as memory is sold: 46,733,312 → '44.6 MiB'."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def _seq_len(value: Any, config: AlbertConfig, lang: str) -> int:
    T = whole_number("seq_len", value, lang)
    if T > config.max_position_embeddings:
        raise CalculatorInputError(t("compute.err.seq_positions", lang, T=T, P=config.max_position_embeddings))
    return T


@dataclass(frozen=True)
class Costs:
    """Everything the compute-and-memory panel shows for one configuration, batch and length."""

    config: AlbertConfig
    batch_size: int
    seq_len: int
    mlm_head: bool
    parameters: int
    flops: compute.FlopsPerToken
    activations: compute.ActivationEstimate
    attention_probs: int
    inference_values: int

    def as_dict(self) -> dict[str, Any]:
        """The costs as JSON values (counts past 64 bits as floats, `json_numbers`)."""
        return json_numbers(
            {
                "batch_size": self.batch_size,
                "seq_len": self.seq_len,
                "mlm_head": self.mlm_head,
                "parameters": self.parameters,
                "flops_per_token": self.flops.as_dict(),
                "forward_flops_per_batch": self.flops.forward * self.batch_size * self.seq_len,
                "training_flops_per_batch": self.flops.training * self.batch_size * self.seq_len,
                "weight_bytes": compute.weight_bytes(self.parameters),
                "training_state_bytes": self.parameters * compute.TRAINING_BYTES_PER_PARAMETER,
                "activation_values": self.activations.total,
                "activation_bytes": {"fp32": self.activations.bytes("fp32"), "fp16": self.activations.bytes("fp16")},
                "attention_probability_values": self.attention_probs,
                "inference_working_values": self.inference_values,
            }
        )


def costs(form: ParameterForm, batch_size: Any, seq_len: Any, mlm_head: bool = False, lang: str = "en") -> Costs:
    """Validated costs of the form's model; bad input raises `CalculatorInputError` (one sentence)."""
    config, _ = build_config(form, lang)
    B = whole_number("batch_size", batch_size, lang, limit=MAX_BATCH)
    T = _seq_len(seq_len, config, lang)
    mlm = inputs.flag(mlm_head, lang, "field.count_mlm_head")
    with_probs = compute.activation_values(config, B, T, keep_attention_probs=True)
    plain = compute.activation_values(config, B, T, mlm_head=mlm)
    return Costs(
        config=config,
        batch_size=B,
        seq_len=T,
        mlm_head=mlm,
        parameters=count_parameters(config).total,
        flops=compute.flops_per_token(config, T, mlm_head=mlm),
        activations=plain,
        attention_probs=(with_probs.per_pass - plain.per_pass) * config.num_hidden_layers,
        inference_values=compute.inference_working_values(config, B, T),
    )


def flops_markdown(c: Costs, lang: str = "en") -> str:
    cfg, f = c.config, c.flops
    tokens = c.batch_size * c.seq_len
    return t(
        "compute.flops_md",
        lang,
        T=f"{c.seq_len:,}",
        E=f"{cfg.embedding_size:,}",
        H=f"{cfg.hidden_size:,}",
        L=cfg.num_hidden_layers,
        I=f"{cfg.intermediate_size:,}",
        V=f"{cfg.vocab_size:,}",
        B=f"{c.batch_size:,}",
        proj=flops_text(f.embedding_projection) if cfg.project_embeddings else t("compute.none", lang),
        attn=flops_text(f.attention_projections),
        scores=flops_text(f.attention_scores),
        ffn=flops_text(f.ffn),
        mlm=flops_text(f.mlm_head) if c.mlm_head else t("compute.mlm.off", lang),
        fwd=flops_text(f.forward),
        train=flops_text(f.training),
        batch_fwd=flops_text(f.forward * tokens),
        batch_train=flops_text(f.training * tokens),
    )


def memory_markdown(c: Costs, lang: str = "en") -> str:
    weights = compute.weight_bytes(c.parameters)
    return t(
        "compute.memory_md",
        lang,
        n=f"{c.parameters:,}",
        w32=bytes_text(weights["fp32"]),
        w16=bytes_text(weights["fp16"]),
        w8=bytes_text(weights["int8"]),
        state=bytes_text(c.parameters * compute.TRAINING_BYTES_PER_PARAMETER),
        B=f"{c.batch_size:,}",
        T=f"{c.seq_len:,}",
        act32=bytes_text(c.activations.bytes("fp32")),
        act16=bytes_text(c.activations.bytes("fp16")),
        mlm_formula=" + B·T·V" if c.mlm_head else "",
        values=f"{c.activations.total:,}",
        probs=f"{c.attention_probs:,}",
        probs32=bytes_text(4 * c.attention_probs),
        infer=f"{c.inference_values:,}",
        infer32=bytes_text(4 * c.inference_values),
    )


def paper_speed_rows(seq_len: int = PAPER_SEQ_LEN) -> list[dict[str, Any]]:
    """The six presets: exact parameters, forward FLOPs per token at `seq_len`, FLOPs relative to BERT-large,
    and Table 2's training speed (BERT-large = 1.0)."""
    base = compute.flops_per_token(PRESETS["bert-large"], seq_len).forward
    rows = []
    for name in ("bert-base", "bert-large", "albert-base", "albert-large", "albert-xlarge", "albert-xxlarge"):
        flops = compute.flops_per_token(PRESETS[name], seq_len).forward
        rows.append(
            {
                "model": name,
                "parameters": count_parameters(PRESETS[name]).total,
                "flops_per_token": flops,
                "flops_vs_bert_large": flops / base,
                "paper_speedup": PAPER_TABLE2_SPEEDUP[name],
            }
        )
    return rows


def paper_markdown(lang: str = "en") -> str:
    rows = paper_speed_rows()
    lines = [
        f"| {r['model']} | {millions(r['parameters'])} | {flops_text(r['flops_per_token'])} | "
        f"×{r['flops_vs_bert_large']:.2f} | {r['paper_speedup']:.1f}× |"
        for r in rows
    ]
    ratio = {r["model"]: r["flops_vs_bert_large"] for r in rows}
    return t(
        "compute.paper_md",
        lang,
        rows="\n".join(lines),
        large=f"{ratio['albert-large']:.2f}",
        xxlarge=f"{ratio['albert-xxlarge']:.1f}",
    )


class ComputeAnswer(NamedTuple):
    """/compute's outputs, in the tab's order."""

    raw: dict[str, Any]
    status: str
    flops: str
    memory: str
    paper: str
    """The paper's Table 2 (speed-ups) against our FLOPs."""


class MeasureRender(NamedTuple):
    """A timing drawn in a language (what the language switch redraws without timing again)."""

    status: str
    result: str
    chart: Any


class MeasureAnswer(NamedTuple):
    """/measure_speed's outputs, in the tab's order."""

    raw: dict[str, Any]
    status: str
    result: str
    chart: Any


def compute_view(
    vocab_size: Any,
    embedding_size: Any,
    hidden_size: Any,
    num_hidden_layers: Any,
    num_attention_heads: Any,
    intermediate_size: Any,
    sharing: str,
    num_hidden_groups: Any,
    project_embeddings: bool,
    max_position_embeddings: Any = 512,
    batch_size: Any = 8,
    seq_len: Any = 512,
    mlm_head: bool = False,
    lang: str = "en",
) -> ComputeAnswer:
    """/compute: the JSON result, a message, FLOPs, memory, and the paper's Table 2 against FLOPs."""
    lang = inputs.language(lang)
    form = ParameterForm.sent(locals())
    try:
        result = costs(form, batch_size, seq_len, mlm_head, lang)
    except (CalculatorInputError, InputError) as error:
        return ComputeAnswer({"error": str(error)}, f"⚠️ {error}", "", "", paper_markdown(lang))
    return ComputeAnswer(
        result.as_dict(), "", flops_markdown(result, lang), memory_markdown(result, lang), paper_markdown(lang)
    )


# ----- measuring --------------------------------------------------------------------------------
def mode_variant(config: AlbertConfig, mode: str) -> AlbertConfig:
    """`config` with another sharing mode; `all` keeps the configured groups when the config shares all."""
    if mode == "none":
        return without_sharing(config)
    groups = config.num_hidden_groups if (mode == "all" and config.sharing == "all") else 1
    return config.replace(sharing=mode, num_hidden_groups=groups)


def measure_plan(config: AlbertConfig, seq_len: int, lang: str = "en") -> int:
    """How many tokens to time (batch 1) within the bounds: `seq_len`, or fewer to stay in the budget.

    Raises `CalculatorInputError` (one sentence) when the model is beyond the bounds even at
    `MEASURE_MIN_TOKENS` tokens or its unshared variant has too many parameters to build.
    """
    unshared = count_parameters(without_sharing(config)).total
    if unshared > MEASURE_MAX_PARAMETERS:
        raise CalculatorInputError(
            t("compute.measure.too_many_parameters", lang, n=millions(unshared), limit=millions(MEASURE_MAX_PARAMETERS))
        )
    budget = f"{MEASURE_FLOP_BUDGET / 1e9:g}"
    T = min(seq_len, MEASURE_MAX_TOKENS)
    while T > MEASURE_MIN_TOKENS and compute.flops_per_token(config, T).forward * T > MEASURE_FLOP_BUDGET:
        T //= 2
    T = max(T, min(seq_len, MEASURE_MIN_TOKENS))
    needed = compute.flops_per_token(config, T).forward * T
    if needed > MEASURE_FLOP_BUDGET:
        raise CalculatorInputError(
            t("compute.measure.too_many_flops", lang, T=T, g=f"{needed / 1e9:.1f}", budget=budget)
        )
    return T


_MEASURING = threading.Lock()
MEASURE_THREADS = 1
"""Timed on one thread: on a 2-core machine whose other core is busy (a second request, a training run), two
threads wait on each other at every operation and a 50 ms pass takes a second; one thread stays steady."""


def measure(
    config: AlbertConfig,
    seq_len: int,
    lang: str = "en",
    threads: int = MEASURE_THREADS,
    plan: RoundsPlan = MEASURE_ROUNDS,
) -> dict[str, Any]:
    """Time one forward pass (batch 1, bounded length) of `config` in each sharing mode, interleaved.

    The four models are built first, each runs once untimed, then `plan.rounds` rounds run every mode once in a
    rotated order (`timing.interleaved_times`); each mode reports the median and range of its seconds and of its
    per-round ratio to no sharing. Sets torch's thread count to `threads` for the timing and restores it; call it
    from the app's measure queue (one request at a time), so no other inference sees the change.
    """
    import torch

    T = measure_plan(config, seq_len, lang)
    variants = {mode: mode_variant(config, mode) for mode in SHARING_MODES}
    with _MEASURING:  # one timing at a time, so the thread count is restored to what it was
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            passes = {mode: compute.forward_pass(variant, 1, T) for mode, variant in variants.items()}
            samples = timing.interleaved_times(passes, plan)
        finally:
            torch.set_num_threads(before)
    compared = timing.compare(samples, "none")
    none_parameters = count_parameters(variants["none"]).total
    rows = []
    for mode, variant in variants.items():
        parameters, seen = count_parameters(variant).total, compared[mode]
        rows.append(
            {
                "sharing": mode,
                "parameters": parameters,
                "forward_flops": compute.flops_per_token(variant, T).forward * T,
                "seconds": seen.seconds.median,
                "seconds_min": seen.seconds.low,
                "seconds_max": seen.seconds.high,
                "time_vs_none": seen.ratio.median,
                "time_vs_none_min": seen.ratio.low,
                "time_vs_none_max": seen.ratio.high,
                "within_noise": seen.within_noise,
                "parameters_vs_none": parameters / none_parameters,
            }
        )
    logger.info("measured %d rounds at T=%d: %s", len(samples["none"]), T, {m: compared[m].ratio for m in samples})
    return {"tokens": T, "asked": seq_len, "threads": threads, "rounds": len(samples["none"]), "modes": rows}


def _range(low: float, high: float, digits: int) -> str:
    return f"{low:.{digits}f}–{high:.{digits}f}"


def measure_markdown(result: dict[str, Any], lang: str = "en") -> str:
    lines = [t("compute.measure.header", lang, T=result["tokens"], n=result["rounds"])]
    for row in result["modes"]:
        name, n = t("sharing.short." + row["sharing"], lang), row["parameters"]
        ms = _range(row["seconds_min"] * 1e3, row["seconds_max"] * 1e3, 1)
        ratio = (
            "1.00×"
            if row["sharing"] == "none"
            else f"{row['time_vs_none']:.2f}× ({_range(row['time_vs_none_min'], row['time_vs_none_max'], 2)})"
        )
        lines.append(
            f"| {name} | {n:,} ({millions(n)}) | {flops_text(row['forward_flops'])} | "
            f"{row['seconds'] * 1e3:.1f} ms ({ms}) | {ratio} |"
        )
    rows = {row["sharing"]: row for row in result["modes"]}
    shared = rows["all"]
    lines.append("")
    lines.append(
        t(
            "compute.measure.summary",
            lang,
            p=f"{rows['none']['parameters'] / shared['parameters']:.1f}",
            tm=f"{shared['time_vs_none']:.2f}",
            n=result["rounds"],
            g=f"{shared['forward_flops'] / 1e9:.2f}",
            threads=result["threads"],
        )
    )
    verdict = "compute.measure.noise" if shared["within_noise"] else "compute.measure.clear"
    lines.append("")
    lines.append(
        t(
            verdict,
            lang,
            lo=f"{shared['time_vs_none_min']:.2f}",
            hi=f"{shared['time_vs_none_max']:.2f}",
            n=result["rounds"],
        )
    )
    return "\n".join(lines)


def measure_view(
    vocab_size: Any,
    embedding_size: Any,
    hidden_size: Any,
    num_hidden_layers: Any,
    num_attention_heads: Any,
    intermediate_size: Any,
    sharing: str,
    num_hidden_groups: Any,
    project_embeddings: bool,
    max_position_embeddings: Any = 512,
    seq_len: Any = 512,
    lang: str = "en",
) -> MeasureAnswer:
    """/measure_speed: the JSON result, a message, the results and a chart of parameters and time relative to no
    sharing.

    The timing runs in a process of its own at the lowest priority (`app.child`): it uses
    a core the server leaves idle and never holds the interpreter lock that masked words and sentence order need."""
    from app.page.plots import empty_figure

    lang = inputs.language(lang)
    form = ParameterForm.sent(locals())
    try:
        config, _ = build_config(form, lang)
        T = _seq_len(seq_len, config, lang)
        measure_plan(config, T, lang)  # a form too large is refused here, before a process is started for it
        result = run_in_child(measure, config, T, lang)
    except (CalculatorInputError, InputError) as error:
        return MeasureAnswer({"error": str(error)}, f"⚠️ {error}", "", empty_figure(str(error)))
    except ChildProcessEnded as error:
        logger.warning("the measurement's process ended: %s", error)
        message = t("compute.measure.stopped", lang)
        return MeasureAnswer({"error": message}, f"⚠️ {message}", "", empty_figure(message))
    return MeasureAnswer(result, *measure_render(result, lang))


def measure_render(result: dict[str, Any] | None, lang: str = "en") -> MeasureRender:
    """(message, results Markdown, chart) of a `measure` result in `lang`: the language switch redraws
    a timing without timing again. Nothing measured yet (or an error) → the invitation to press the button."""
    from app.page.plots import empty_figure
    from app.tabs.parameters.plots import measure_figure

    lang = inputs.language(lang)
    if not _is_measurement(result):
        return MeasureRender(
            t("compute.measure.pending", lang), "", empty_figure(t("compute.measure.placeholder", lang))
        )
    status = ""
    if result["tokens"] < result["asked"]:
        status = "ℹ️ " + t(
            "compute.measure.scaled",
            lang,
            T=result["tokens"],
            asked=result["asked"],
            budget=f"{MEASURE_FLOP_BUDGET / 1e9:g}",
        )
    return MeasureRender(status, measure_markdown(result, lang), measure_figure(result, lang))


MEASURED_KEYS = (
    "parameters",
    "forward_flops",
    "seconds",
    "seconds_min",
    "seconds_max",
    "time_vs_none",
    "time_vs_none_min",
    "time_vs_none_max",
    "parameters_vs_none",
)


def _is_measurement(result: Any) -> bool:
    """A `measure` result as it comes back from the page (raw JSON): anything else draws nothing."""
    try:
        return (
            isinstance(result, dict)
            and isinstance(result.get("tokens"), int)
            and isinstance(result.get("asked"), int)
            and isinstance(result.get("threads"), int)
            and isinstance(result.get("rounds"), int)
            and all(isinstance(row["within_noise"], bool) for row in result["modes"])
            and [row["sharing"] for row in result["modes"]] == list(SHARING_MODES)
            and all(float(row[key]) > 0 for row in result["modes"] for key in MEASURED_KEYS)
        )
    except (KeyError, TypeError, ValueError):
        return False


def measure_explain(lang: str = "en") -> str:
    return t(
        "compute.measure.explain",
        lang,
        tokens=MEASURE_MAX_TOKENS,
        budget=f"{MEASURE_FLOP_BUDGET / 1e9:g}",
        params=millions(MEASURE_MAX_PARAMETERS),
    )
