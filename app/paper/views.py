"""The paper's results as each tab shows them, with our own measurements beside them, and the common misreadings.

Markdown only, in the user's language; the figures come from `app.paper` (the paper), `albert.core.params` /
`albert.core.compute` (our exact counts), `assets/runs/summary.csv` (our ablation runs, `app.models.runs`) and the
shipped sentiment model's metrics.json. `panel(tr, which)` puts one of them in a tab as a collapsible box that
follows the language switch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pandas as pd

from albert.core import compute
from albert.core.config import PRESETS
from albert.core.params import count_parameters
from app import paper
from app.i18n import LANG_CODES, Translations, normalize_lang, safe, t
from app.models.runs import accuracy_with_interval as _interval
from app.numbers import count_words, millions, paper_millions

logger = logging.getLogger(__name__)
MODES: tuple[str, ...] = ("all", "attention", "ffn", "none")
PRESET_ORDER: tuple[str, ...] = (
    "bert-base",
    "bert-large",
    "albert-base",
    "albert-large",
    "albert-xlarge",
    "albert-xxlarge",
)
SEQ_LEN = 512
"""The paper's pretraining length, for the FLOPs ratios of the misreadings."""


def _cite(lang: str) -> str:
    return t("paper.cite", lang)


def _pair(scores: tuple[float, float]) -> str:
    return f"{scores[0]}/{scores[1]}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def _downstream_cells(d: paper.Downstream, bold: bool = False) -> list[str]:
    avg = f"**{d.avg}**" if bold else f"{d.avg}"
    return [_pair(d.squad11), _pair(d.squad20), f"{d.mnli}", f"{d.sst2}", f"{d.race}", avg]


DOWNSTREAM_HEADER = ["SQuAD1.1 F1/EM", "SQuAD2.0 F1/EM", "MNLI", "SST-2", "RACE", "Avg"]


# ----- calculator: Tables 1, 2 and 6 ------------------------------------------------------------
def calculator_markdown(lang: str = "en") -> str:
    """Table 1's sizes and Table 2's results and speed for the six configurations, beside our exact counts."""
    rows = []
    for name in PRESET_ORDER:
        rows.append(
            [
                name,
                paper_millions(paper.PAPER_TABLE1[name]),
                f"{count_parameters(PRESETS[name]).total:,}",
                *_downstream_cells(paper.TABLE2[name]),
                f"{paper.PAPER_TABLE2_SPEEDUP[name]}×",
            ]
        )
    header = [
        t("paper.col.model", lang),
        t("paper.col.params_paper", lang),
        t("paper.col.params_exact", lang),
        *DOWNSTREAM_HEADER,
        t("paper.col.speed", lang),
    ]
    bert, xx = paper.TABLE6["bert-large"], paper.TABLE6["albert-xxlarge"]
    same_time = t(
        "paper.calc.table6",
        lang,
        bert_steps=f"{bert.steps:,}",
        bert_hours=bert.hours,
        bert_avg=bert.scores.avg,
        xx_steps=f"{xx.steps:,}",
        xx_hours=xx.hours,
        xx_avg=xx.scores.avg,
        ratio=f"{1 / paper.PAPER_TABLE2_SPEEDUP['albert-xxlarge']:.0f}",
    )
    return "\n\n".join(
        [t("paper.calc.title", lang, cite=_cite(lang)), t("paper.setup", lang), _table(header, rows), same_time]
    )


# ----- our runs ------------------------------------------------------------------------------------
def _number(row: pd.Series, key: str) -> float | None:
    value = pd.to_numeric(row.get(key), errors="coerce")
    return None if pd.isna(value) else float(value)


def _tokens(row: pd.Series, lang: str = "en") -> str:
    tokens = _number(row, "tokens")
    return "—" if tokens is None else count_words(tokens, normalize_lang(lang))


def _ablation_arms(summary: pd.DataFrame | None) -> dict[str, pd.Series]:
    """Our Table 4 arms: one run per sharing mode at the ablations' budget (E 64, SOP, seed 0, same tokens)."""
    if summary is None or summary.empty:
        return {}
    rows = [
        row
        for _, row in summary.iterrows()
        if str(row.get("objective", "sop")) == "sop"
        and _number(row, "embedding_size") == 64
        and _number(row, "seed") in (0, None)
    ]
    if not rows:
        return {}
    budget = max({_number(r, "tokens") for r in rows}, key=lambda b: sum(_number(r, "tokens") == b for r in rows))
    return {str(r.get("sharing")): r for r in rows if _number(r, "tokens") == budget}


def _mode(mode: str, lang: str) -> str:
    return t(f"paper.mode.{mode}", lang)


def sharing_markdown(summary: pd.DataFrame | None, lang: str = "en") -> str:
    """Table 4 (sharing) and Table 3 (E) with our ablation runs beside them."""
    lang = normalize_lang(lang)
    rows = [
        [
            _mode(mode, lang),
            paper_millions(paper.PAPER_TABLE4[(mode, 768)]),
            *_downstream_cells(paper.TABLE4[(mode, 768)]),
        ]
        for mode in MODES
    ]
    parts = [
        t("paper.sharing.title4", lang, cite=_cite(lang)),
        _table([t("col.sharing", lang), t("col.parameters", lang), *DOWNSTREAM_HEADER], rows),
        t("paper.sharing.e128", lang, **{m: v for m, v in paper.TABLE4_E128_AVG.items()}),
    ]
    arms = _ablation_arms(summary)
    if arms:
        ours = [
            [
                _mode(mode, lang),
                safe(str(row["run"])),
                f"{int(_number(row, 'parameters') or 0):,}",
                _tokens(row, lang),
                _interval(row, "mlm"),
                _interval(row, "order"),
            ]
            for mode in MODES
            if (row := arms.get(mode)) is not None
        ]
        parts += [
            t("paper.sharing.ours", lang),
            _table(
                [
                    t("col.sharing", lang),
                    t("paper.col.run", lang),
                    t("col.parameters", lang),
                    t("col.tokens", lang),
                    t("paper.col.mlm_ours", lang),
                    t("paper.col.order_ours", lang),
                ],
                ours,
            ),
        ]
        if "all" in arms and "none" in arms:
            parts.append(_direction(arms["all"], arms["none"], lang))
        missing = [_mode(mode, lang) for mode in MODES if mode not in arms]
        if missing:
            parts.append(
                t("paper.sharing.missing", lang, modes="、".join(missing) if lang == "zh" else ", ".join(missing))
            )
    else:
        parts.append(t("paper.none_yet", lang))
    parts += [t("paper.sharing.title3", lang, cite=_cite(lang)), _table3(lang), _best3(lang)]
    ours3 = _ours_by_embedding(summary, lang)
    if ours3:
        parts += [t("paper.sharing.ours3", lang), ours3]
    return "\n\n".join(parts)


def _direction(shared: pd.Series, unshared: pd.Series, lang: str) -> str:
    """The paper's all-vs-none gap beside ours, and whether our 95% intervals overlap."""
    ours = 100 * ((_number(unshared, "mlm_accuracy") or 0) - (_number(shared, "mlm_accuracy") or 0))
    lows = [_number(r, "mlm_low") for r in (shared, unshared)]
    highs = [_number(r, "mlm_high") for r in (shared, unshared)]
    overlap = None not in lows + highs and max(lows) <= min(highs)  # type: ignore[type-var]
    ratio = (_number(unshared, "parameters") or 0) / max(_number(shared, "parameters") or 1, 1)
    return t(
        "paper.sharing.direction",
        lang,
        paper=paper.TABLE4[("none", 768)].avg - paper.TABLE4[("all", 768)].avg,
        ours=ours,
        tokens=_tokens(shared, lang),
        ratio=f"{ratio:.1f}",
        overlap=t("paper.overlap.yes" if overlap else "paper.overlap.no", lang),
    )


def best_embedding(mode: str) -> int:
    """Table 3's best E (highest Avg) for 'all' or 'none'."""
    return max((E for m, E in paper.TABLE3 if m == mode), key=lambda E: paper.TABLE3[(mode, E)].avg)


def _table3(lang: str) -> str:
    sizes = sorted({E for _, E in paper.TABLE3})
    best = {mode: best_embedding(mode) for mode in ("none", "all")}
    rows = []
    for E in sizes:
        cells = [f"{E}"]
        for mode in ("none", "all"):
            avg = paper.TABLE3[(mode, E)].avg
            cells += [paper_millions(paper.PAPER_TABLE3[(mode, E)]), f"**{avg}**" if E == best[mode] else f"{avg}"]
        rows.append(cells)
    header = [
        "E",
        f"{t('paper.col.not_shared', lang)}: {t('col.parameters', lang)}",
        f"{t('paper.col.not_shared', lang)}: Avg",
        f"{t('paper.col.all_shared', lang)}: {t('col.parameters', lang)}",
        f"{t('paper.col.all_shared', lang)}: Avg",
    ]
    return _table(header, rows)


def _best3(lang: str) -> str:
    return t(
        "paper.sharing.best3", lang, best_all=f"E = {best_embedding('all')}", best_none=f"E = {best_embedding('none')}"
    )


def _ours_by_embedding(summary: pd.DataFrame | None, lang: str) -> str:
    if summary is None or summary.empty:
        return ""
    rows = [
        row
        for _, row in summary.iterrows()
        if str(row.get("sharing")) == "all"
        and str(row.get("objective", "sop")) == "sop"
        and _number(row, "embedding_size") is not None
    ]
    rows.sort(key=lambda r: (_number(r, "embedding_size"), _number(r, "tokens") or 0))
    return (
        _table(
            [
                "E",
                t("paper.col.run", lang),
                t("col.parameters", lang),
                t("col.tokens", lang),
                t("paper.col.mlm_ours", lang),
            ],
            [
                [
                    f"{int(_number(r, 'embedding_size') or 0)}",
                    safe(str(r["run"])),
                    f"{int(_number(r, 'parameters') or 0):,}",
                    _tokens(r, lang),
                    _interval(r, "mlm"),
                ]
                for r in rows
            ],
        )
        if rows
        else ""
    )


# ----- sentence order: Table 5 --------------------------------------------------------------------
def order_markdown(summary: pd.DataFrame | None, lang: str = "en") -> str:
    """Table 5 (NSP / SOP / none) with our runs' held-out sentence-task accuracies beside it."""
    rows = []
    for objective in ("none", "nsp", "sop"):
        intrinsic, scores = paper.TABLE5[objective]
        rows.append(
            [
                t(f"paper.objective.{objective}", lang),
                f"{intrinsic.mlm}",
                f"{intrinsic.nsp}",
                f"{intrinsic.sop}",
                *_downstream_cells(scores, bold=objective == "sop"),
            ]
        )
    parts = [
        t("paper.order.title", lang, cite=_cite(lang)),
        _table(
            [
                t("col.objective", lang),
                t("paper.col.intrinsic_mlm", lang),
                t("paper.col.intrinsic_nsp", lang),
                t("paper.col.intrinsic_sop", lang),
                *DOWNSTREAM_HEADER,
            ],
            rows,
        ),
        t("paper.order.read", lang, nsp_sop=paper.TABLE5["nsp"][0].sop, sop_nsp=paper.TABLE5["sop"][0].nsp),
    ]
    if summary is None or summary.empty:
        return "\n\n".join([*parts, t("paper.none_yet", lang)])
    ours = [
        [
            safe(str(r["run"])),
            t(f"paper.objective.{r.get('objective', 'sop')}", lang)
            if str(r.get("objective", "sop")) in ("none", "nsp", "sop")
            else safe(str(r.get("objective"))),
            f"{int(_number(r, 'embedding_size') or 0)}",
            _tokens(r, lang),
            _interval(r, "mlm"),
            _interval(r, "topic"),
            _interval(r, "order"),
        ]
        for _, r in summary.iterrows()
    ]
    header = [
        t("paper.col.run", lang),
        t("col.objective", lang),
        "E",
        t("col.tokens", lang),
        t("paper.col.mlm_ours", lang),
        t("paper.col.topic_ours", lang),
        t("paper.col.order_ours", lang),
    ]
    return "\n\n".join([*parts, t("paper.order.ours", lang), _table(header, ours)])


# ----- sentiment: SST-2 in Tables 2 and 9, GLUE (9), SQuAD and RACE (10) ------------------------------
def downstream_markdown(lang: str = "en", sentiment_facts: Any = None) -> str:
    """SST-2 across the paper beside our fine-tuned model, then Tables 9 and 10."""
    table2 = ", ".join(f"{name} {paper.TABLE2[name].sst2}" for name in PRESET_ORDER)
    dev = dict(zip(paper.GLUE_TASKS, paper.TABLE9_DEV["ALBERT (1.5M)"], strict=True))["SST"]
    test_scores, wnli, glue = paper.TABLE9_TEST_ALBERT
    test = dict(zip(paper.GLUE_TASKS, test_scores, strict=True))["SST"]
    code = normalize_lang(lang)
    if sentiment_facts is not None and sentiment_facts.accuracy is not None:
        ours = t(
            "paper.downstream.ours",
            lang,
            name=safe(sentiment_facts.name),
            accuracy=f"{100 * sentiment_facts.accuracy:.1f}",
            n=count_words(sentiment_facts.parameters, code),
            tokens=count_words(sentiment_facts.base_tokens, code) if sentiment_facts.base_tokens else "?",
        )
    else:
        ours = t("paper.downstream.ours_missing", lang)
    glue_rows = [[name, *(f"{x}" for x in scores)] for name, scores in paper.TABLE9_DEV.items()]
    squad_rows = [[name, _pair(s11), _pair(s20), f"{race}"] for name, (s11, s20, race) in paper.TABLE10.items()]
    squad, race = paper.TABLE10_ENSEMBLE_ALBERT
    return "\n\n".join(
        [
            t("paper.downstream.title", lang, cite=_cite(lang)),
            t("paper.downstream.sst2", lang, table2=table2, dev=dev, test=test, ours=ours),
            t("paper.downstream.table9", lang),
            _table([t("paper.col.model", lang), *paper.GLUE_TASKS], glue_rows),
            t(
                "paper.downstream.table9_test",
                lang,
                scores=", ".join(f"{k} {v}" for k, v in zip(paper.GLUE_TASKS, test_scores, strict=True)),
                wnli=wnli,
                glue=glue,
            ),
            t("paper.downstream.table10", lang),
            _table(
                [
                    t("paper.col.model", lang),
                    t("paper.col.squad11_dev", lang),
                    t("paper.col.squad20_dev", lang),
                    t("paper.col.race_test", lang),
                ],
                squad_rows,
            ),
            t("paper.downstream.table10_ensemble", lang, squad=_pair(squad), race=race),
        ]
    )


def shipped_sentiment_facts() -> Any:
    """The shipped sentiment model's framing figures from its files (no weights loaded), or None."""
    from app.models import shipped_metrics
    from app.models.classifiers import is_installed, read_metrics, sentiment_dir
    from app.page import framing

    directory = sentiment_dir()
    if not is_installed(directory):
        return None
    metrics = read_metrics(directory)
    base = framing.base_model_name(metrics)
    try:
        from albert.core.checkpoint import load_config

        config = load_config(directory)
        parameters = count_parameters(config, head="sequence_classification").total
    except Exception as error:  # a config this version cannot read: no line rather than a wrong one
        logger.warning("cannot count the sentiment model's parameters: %s", error)
        return None
    return framing.sentiment_facts(
        directory.name, metrics, parameters, config.num_labels, shipped_metrics(base) if base else None
    )


# ----- misreadings ------------------------------------------------------------------------------------
def misreadings_markdown(lang: str = "en") -> str:
    """Five common misreadings, each corrected with its source; every figure computed or taken from app.paper."""

    def flops(name: str) -> float:
        return compute.flops_per_token(PRESETS[name], SEQ_LEN).forward

    e768 = {mode: row.avg for (mode, _), row in paper.TABLE4.items()}
    best_all, best_none = best_embedding("all"), best_embedding("none")
    items = [
        t(
            "paper.mis.faster",
            lang,
            base=f"{flops('albert-base') / flops('bert-base'):.2f}",
            xx=f"{flops('albert-xxlarge') / flops('bert-large'):.1f}",
            s_base=paper.PAPER_TABLE2_SPEEDUP["albert-base"],
            s_xx=paper.PAPER_TABLE2_SPEEDUP["albert-xxlarge"],
        ),
        t(
            "paper.mis.large",
            lang,
            paper=paper_millions(paper.PAPER_TABLE1["bert-large"]),
            exact=millions(count_parameters(PRESETS["bert-large"]).total),
        ),
        t(
            "paper.mis.ffn",
            lang,
            attention=e768["none"] - e768["attention"],
            ffn=e768["none"] - e768["ffn"],
            all=e768["none"] - e768["all"],
            none=e768["none"],
        ),
        t(
            "paper.mis.embedding",
            lang,
            best_all=best_all,
            avg_all=paper.TABLE3[("all", best_all)].avg,
            best_none=best_none,
            avg_none=paper.TABLE3[("none", best_none)].avg,
        ),
        t("paper.mis.tokenizer", lang),
    ]
    return t("paper.mis.intro", lang) + "\n\n" + "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


# ----- in a tab --------------------------------------------------------------------------------------
def renderer(which: str) -> Callable[[str], str]:
    """The Markdown function of lang for one panel: 'calc', 'sharing', 'order', 'downstream', 'misreadings'."""
    from app.models import runs

    renderers: dict[str, Callable[[str], str]] = {
        "calc": calculator_markdown,
        "sharing": lambda lang: sharing_markdown(runs.load_summary(), lang),
        "order": lambda lang: order_markdown(*_order_runs(lang)),
        "downstream": lambda lang: downstream_markdown(lang, shipped_sentiment_facts()),
        "misreadings": misreadings_markdown,
    }
    return renderers[which]


def _order_runs(lang: str) -> tuple[pd.DataFrame | None, str]:
    """Table 5's runs for `lang`: in 中文 the Chinese runs (assets/runs/zh/summary.csv, the models the 中文 interface
    answers with) when recorded, else the English ones; the held-out text named accordingly."""
    from app.models import runs

    if normalize_lang(lang) == "zh":
        chinese = runs.load_summary(runs.runs_dir() / "zh")
        if chinese is not None and not chinese.empty:
            return chinese, lang
    return runs.load_summary(), lang


def panel(tr: Translations, which: str, open: bool = False) -> Any:
    """A collapsible box holding one panel, in a tab being built; it follows the language switch.

    Both languages' text is drawn once, here: its sources (the paper, our run summary, the shipped models' metrics)
    do not change while the app runs, so the language switch swaps the text with the labels (`Translations`, no
    queued event) instead of drawing it again."""
    import gradio as gr

    render = renderer(which)
    texts = {lang: render(lang) for lang in LANG_CODES}
    with tr.add(gr.Accordion, label=f"paper.panel.{which}", open=open, elem_id=f"paper-{which}"):
        return tr.add(gr.Markdown, text=texts.__getitem__, elem_id=f"paper-{which}-text")
