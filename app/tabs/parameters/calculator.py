"""Pure functions of the parameter calculator: config from the form, exact counts, comparisons.

Everything is computed from `albert.core.params.count_parameters` (formulas only), so any size,
however large, answers instantly. The form's values are validated by `AlbertConfig` itself; bad input
becomes a `CalculatorInputError` whose message is one sentence in the user's language.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import pandas as pd

from albert.core.config import MAX_SIZE, PRESETS, SHARING_MODES, AlbertConfig, ConfigError
from albert.core.params import (
    PAPER_TABLE1,
    PAPER_TABLE1_NOTES,
    PAPER_TABLE3,
    PAPER_TABLE4,
    ParameterCount,
    count_parameters,
    without_factorization,
    without_sharing,
)
from app import inputs
from app.i18n import config_error, safe, t
from app.numbers import millions, paper_millions
from app.tabs.parameters.file_sizes import file_sizes, megabytes

PAPER_PRESETS: tuple[str, ...] = (
    "albert-base",
    "albert-large",
    "albert-xlarge",
    "albert-xxlarge",
    "bert-base",
    "bert-large",
)
SWEEP_EMBEDDING_SIZES: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 768, 1024, 2048, 4096)
FIELDS: tuple[str, ...] = (
    "vocab_size",
    "embedding_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
)


class CalculatorInputError(ValueError):
    """Form input that does not describe a model; the message is one sentence for the user."""


@dataclass(frozen=True)
class Calculation:
    """Everything the calculator shows for one configuration."""

    config: AlbertConfig
    count: ParameterCount
    without_factorization: int
    """Same model with E = H and no projection (BERT's embeddings)."""
    without_sharing: int
    """Same model with every pass its own weights."""
    without_both: int
    """Neither factorized nor shared: the BERT-style model of the same size."""
    paper_figure: float | None = None
    paper_source: str = ""
    paper_note: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.count.total

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON for the API."""
        return {
            "total": self.total,
            "embeddings": self.count.embeddings,
            "layers": self.count.layers,
            "components": self.count.as_dict(),
            "without_factorization": self.without_factorization,
            "without_sharing": self.without_sharing,
            "without_factorization_and_sharing": self.without_both,
            "paper_figure": self.paper_figure,
            "paper_source": self.paper_source,
            "file_bytes": file_sizes(self.config, self.count).as_dict(),
            "config": {name: getattr(self.config, name) for name in FIELDS}
            | {
                "sharing": self.config.sharing,
                "num_hidden_groups": self.config.num_hidden_groups,
                "project_embeddings": self.config.project_embeddings,
                "max_position_embeddings": self.config.max_position_embeddings,
            },
        }


def _form_number(name: str, value: Any, lang: str) -> Any:
    """A form field as `AlbertConfig` takes it: a whole number as an int (the form sends 768.0 or "768" for 768),
    any other number as it came, for the library to refuse. Only what the library cannot be given is refused here:
    an empty field and text that is not a number."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise CalculatorInputError(t("calc.err.empty", lang, field=t(f"field.{name}", lang)))
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # as it is, however large (float() would overflow)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CalculatorInputError(
            t("calc.err.not_number", lang, field=t(f"field.{name}", lang), value=safe(value, 40))
        ) from None
    return int(number) if math.isfinite(number) and number == int(number) else value


def whole_number(name: str, value: Any, lang: str = "en", limit: int = MAX_SIZE) -> int:
    """A form value that is no config field (batch size, sequence length) as a whole number from 1 to `limit`;
    otherwise one sentence naming the field `field.<name>`, worded as the library's rules for sizes."""
    label = t(f"field.{name}", lang)
    if isinstance(value, bool) or not isinstance(value, (int, float, str, type(None))):  # raw JSON: true, [..]
        raise CalculatorInputError(t("calc.err.not_number", lang, field=label, value=safe(value, 40)))
    number = _form_number(name, value, lang)
    if not isinstance(number, int):
        raise CalculatorInputError(t("config.err.not_whole", lang, field=label, value=safe(value, 40)))
    if number < 1:
        raise CalculatorInputError(t("config.err.too_small", lang, field=label, value=number))
    if number > limit:
        raise CalculatorInputError(t("config.err.too_big", lang, field=label, value=number, limit=limit))
    return number


def _adjustment(error: ConfigError, lang: str) -> tuple[dict[str, Any], str | None] | None:
    """How the form adjusts a value the library refused, and the note that says so; None when it cannot.

    Groups mean something only for `all` sharing (`none` is groups = layers; `attention` and `ffn` share one
    sublayer), a projection is required whenever E ≠ H, and ALBERT's special-token ids may not fit a tiny vocabulary.
    """
    values = error.params
    if error.code == "groups_none":
        groups = values["num_hidden_layers"]
        return {"num_hidden_groups": groups}, t("calc.note.groups", lang, mode="none", G=groups)
    if error.code == "groups_partial":
        return {"num_hidden_groups": 1}, t("calc.note.groups", lang, mode=values["sharing"], G=1)
    if error.code == "projection":
        return {"project_embeddings": True}, t("calc.note.projection", lang)
    if error.code == "token_id":
        return {values["field"]: 0}, None
    return None


@dataclass(frozen=True)
class ParameterForm:
    """The calculator's ten form fields as the page or an API client sends them, in the form's order. Values are
    raw (768.0 for 768, text, None, anything JSON holds): `build_config` checks and converts them, once."""

    vocab_size: Any
    embedding_size: Any
    hidden_size: Any
    num_hidden_layers: Any
    num_attention_heads: Any
    intermediate_size: Any
    sharing: Any = "all"
    num_hidden_groups: Any = 1
    project_embeddings: Any = True
    max_position_embeddings: Any = 512

    @classmethod
    def of(cls, config: AlbertConfig) -> ParameterForm:
        """The form filled from a config (a preset or a shipped model)."""
        return cls(**{f.name: getattr(config, f.name) for f in fields(cls)})

    @classmethod
    def sent(cls, arguments: dict[str, Any]) -> ParameterForm:
        """The form from an event's arguments by name (an event function's `locals()`: the ten fields and more)."""
        return cls(**{f.name: arguments[f.name] for f in fields(cls)})

    def values(self) -> tuple:
        """The ten values in the form's order (what fills the form's components)."""
        return tuple(getattr(self, f.name) for f in fields(self))


def build_config(form: ParameterForm, lang: str = "en") -> tuple[AlbertConfig, list[str]]:
    """A config validated by `AlbertConfig` itself from the form, plus notes about values the form adjusted.

    The library's refusal is shown in the user's language (`app.i18n.config_error`); a refusal the form can
    adjust (`_adjustment`) is adjusted, with a note, and the config built again.
    """
    project = inputs.flag(form.project_embeddings, lang, "field.project_embeddings")
    sharing = form.sharing if isinstance(form.sharing, str) else repr(form.sharing)  # the calculator names the modes
    sizes = {name: getattr(form, name) for name in (*FIELDS, "num_hidden_groups", "max_position_embeddings")}
    values: dict[str, Any] = {name: _form_number(name, value, lang) for name, value in sizes.items()}
    values.update(sharing=sharing, project_embeddings=project)
    notes: list[str] = []
    while True:
        try:
            return AlbertConfig().replace(**values), notes  # two segment types, as every ALBERT and BERT
        except ConfigError as error:
            adjustment = _adjustment(error, lang)
            if adjustment is None or all(values.get(k) == v for k, v in adjustment[0].items()):
                raise CalculatorInputError(config_error(error, lang)) from error
            changes, note = adjustment
            values.update(changes)
            notes += [note] if note else []


def _count_key(config: AlbertConfig) -> tuple:
    """The fields that decide the parameter count (activation, dropout etc. do not)."""
    return (
        config.vocab_size,
        config.embedding_size,
        config.hidden_size,
        config.num_hidden_layers,
        config.num_attention_heads,
        config.intermediate_size,
        config.sharing,
        config.num_hidden_groups,
        config.project_embeddings,
        config.max_position_embeddings,
        config.type_vocab_size,
    )


def paper_reference(config: AlbertConfig, lang: str = "en") -> tuple[float | None, str, str]:
    """The paper's reported figure for this exact configuration, where it has one.

    Returns (figure, which table, note). Table 1 covers the six presets; Tables 3 and 4
    cover ALBERT-base with other E and sharing modes.
    """
    key = _count_key(config)
    for name in PAPER_PRESETS:
        if _count_key(PRESETS[name]) == key:
            note = t(f"calc.paper_note.{name}", lang) if name in PAPER_TABLE1_NOTES else ""
            return PAPER_TABLE1[name], t("calc.paper.table1", lang, name=name), note
    base = PRESETS["albert-base"]
    E, mode = config.embedding_size, config.sharing
    for table, label in ((PAPER_TABLE3, "calc.paper.table3"), (PAPER_TABLE4, "calc.paper.table4")):
        if (mode, E) in table:
            # With E = H the paper's model may or may not keep the projection; both show the figure.
            for project in (True, False) if E == base.hidden_size else (True,):
                candidate = base.replace(embedding_size=E, sharing=mode, project_embeddings=project)
                if _count_key(candidate) == key:
                    return table[(mode, E)], t(label, lang, mode=mode, E=E), ""
    return None, "", ""


def calculate(form: ParameterForm, lang: str = "en") -> Calculation:
    """Exact counts of the configured model and of its unfactorized / unshared variants."""
    config, notes = build_config(form, lang)
    count = count_parameters(config)
    plain_embeddings = without_factorization(config)
    figure, source, note = paper_reference(config, lang)
    return Calculation(
        config=config,
        count=count,
        without_factorization=count_parameters(plain_embeddings).total,
        without_sharing=count_parameters(without_sharing(config)).total,
        without_both=count_parameters(without_sharing(plain_embeddings)).total,
        paper_figure=figure,
        paper_source=source,
        paper_note=note,
        notes=notes,
    )


# ----- text and tables -------------------------------------------------------------------------
def ratio_text(other: int, total: int, lang: str = "en") -> str:
    """How `other` compares with `total`, always as a factor ≥ 1: '×1.23 larger', '×4.00 smaller', 'the same'."""
    if other == total:
        return t("calc.ratio.same", lang)
    if other > total:
        return t("calc.ratio.larger", lang, r=f"{other / total:.2f}")
    return t("calc.ratio.smaller", lang, r=f"{total / other:.2f}")


def embedding_markdown(calc: Calculation, lang: str = "en") -> str:
    """V×H against this model's embedding (V×E + E×H, or V×E without a projection), numbers substituted.

    The verdict never reads '×0.98 smaller': without a projection nothing is factorized, and a
    factorized form that is not smaller is called larger (or about as large).
    """
    c = calc.config
    V, E, H = c.vocab_size, c.embedding_size, c.hidden_size
    untied = V * H
    values = dict(V=f"{V:,}", E=f"{E:,}", H=f"{H:,}", VH=f"{untied:,}", VHm=millions(untied))
    if not c.project_embeddings:  # E = H (the calculator forces the projection otherwise): BERT's table
        row = t("calc.embedding_row.plain", lang, V=values["V"], E=values["E"], VE=f"{V * E:,}", VEm=millions(V * E))
        verdict = t("calc.embedding.none", lang)
    else:
        factorized = V * E + E * H
        row = t(
            "calc.embedding_row.factorized",
            lang,
            V=values["V"],
            E=values["E"],
            H=values["H"],
            VE=f"{V * E:,}",
            EH=f"{E * H:,}",
            fact=f"{factorized:,}",
            factm=millions(factorized),
        )
        if round(untied / factorized, 2) > 1:
            verdict = t("calc.embedding.smaller", lang, ratio=f"{untied / factorized:.2f}")
        elif round(factorized / untied, 2) > 1:
            verdict = t("calc.embedding.larger", lang, ratio=f"{factorized / untied:.2f}")
        else:
            verdict = t("calc.embedding.even", lang, ratio=f"{factorized / untied:.3f}")
    return t("calc.embedding_md", lang, **values, row=row, verdict=verdict)


def totals_markdown(calc: Calculation, lang: str = "en") -> str:
    """Total, reduction factors, the paper's figure and any adjustments, as Markdown."""
    total = calc.total
    lines = [
        t(
            "calc.total_md",
            lang,
            total=f"{total:,}",
            m=millions(total),
            emb=f"{calc.count.embeddings:,}",
            layers=f"{calc.count.layers:,}",
            heads=f"{calc.count.heads:,}",
        )
    ]
    rows = [
        ("calc.cmp.no_fact", calc.without_factorization),
        ("calc.cmp.no_share", calc.without_sharing),
        ("calc.cmp.neither", calc.without_both),
    ]
    lines.append(t("calc.cmp.header", lang))
    for key, other in rows:
        lines.append(f"| {t(key, lang)} | {other:,} ({millions(other)}) | {ratio_text(other, total, lang)} |")
    if calc.paper_figure is not None:
        lines.append("")
        lines.append(
            t(
                "calc.paper_md",
                lang,
                source=calc.paper_source,
                paper=paper_millions(calc.paper_figure),
                ours=f"{total:,}",
                oursm=millions(total),
            )
        )
        if calc.paper_note:
            lines.append(f"> {calc.paper_note}")
    lines += ["", file_size_line(calc, lang)]
    for note in calc.notes:
        lines.append(f"\n> {note}")
    return "\n".join(lines)


def file_size_line(calc: Calculation, lang: str = "en") -> str:
    """The model's weights in fp32, fp16 and dynamic INT8, with the INT8 rule stated (`file_sizes`)."""
    sizes = file_sizes(calc.config, calc.count)
    return t(
        "calc.file_sizes",
        lang,
        total=f"{sizes.parameters:,}",
        fp32=megabytes(sizes.fp32),
        fp16=megabytes(sizes.fp16),
        int8=megabytes(sizes.dynamic_int8),
        linear=f"{sizes.linear_weights:,}",
        rows=f"{sizes.linear_rows:,}",
        rest=f"{sizes.parameters - sizes.linear_weights:,}",
    )


COMPONENTS: tuple[str, ...] = (
    "token_embeddings",
    "position_embeddings",
    "token_type_embeddings",
    "embedding_layer_norm",
    "embedding_projection",
    "attention",
    "attention_layer_norms",
    "ffn",
    "ffn_layer_norms",
    "pooler",
)


def component_table(calc: Calculation, lang: str = "en") -> pd.DataFrame:
    """One row per component with its count and share of the total."""
    total = calc.total
    rows = []
    for name in COMPONENTS:
        value = getattr(calc.count, name)
        rows.append(
            {
                t("calc.col.component", lang): t(f"comp.{name}", lang),
                t("calc.col.parameters", lang): f"{value:,}",
                t("calc.col.share", lang): f"{100 * value / total:.2f}%",
            }
        )
    rows.append(
        {
            t("calc.col.component", lang): t("comp.total", lang),
            t("calc.col.parameters", lang): f"{total:,}",
            t("calc.col.share", lang): "100.00%",
        }
    )
    return pd.DataFrame(rows)


def sweep(config: AlbertConfig) -> list[dict[str, Any]]:
    """Total parameters against E for the four sharing modes (the shape of Tables 3 and 4).

    E runs over the usual sizes up to H, plus the configured E; the other sizes stay as set.
    `all` keeps the configured groups when sharing is `all`, else uses one group.
    """
    H = config.hidden_size
    sizes = sorted({e for e in SWEEP_EMBEDDING_SIZES if e <= H} | {config.embedding_size, H})
    points = []
    for mode in SHARING_MODES:
        groups = (
            config.num_hidden_groups
            if (mode == "all" and config.sharing == "all")
            else (config.num_hidden_layers if mode == "none" else 1)
        )
        for E in sizes:
            variant = config.replace(embedding_size=E, sharing=mode, num_hidden_groups=groups, project_embeddings=True)
            points.append({"sharing": mode, "embedding_size": E, "total": count_parameters(variant).total})
    return points


def paper_sweep_points(config: AlbertConfig) -> list[dict[str, Any]]:
    """The paper's Table 3/4 figures, when the swept model is ALBERT-base (other E and modes)."""
    base = PRESETS["albert-base"]
    probe = config.replace(
        embedding_size=base.embedding_size, sharing="all", num_hidden_groups=1, project_embeddings=True
    )
    if _count_key(probe) != _count_key(base):
        return []
    points = {(mode, E): value for table in (PAPER_TABLE3, PAPER_TABLE4) for (mode, E), value in table.items()}
    return [{"sharing": mode, "embedding_size": E, "total": value} for (mode, E), value in sorted(points.items())]


def preset_values(config: AlbertConfig) -> tuple[int, int, int, int, int, int, str, int, bool, int]:
    """The form fields for a config, in the calculator's input order (`ParameterForm.of(config).values()`)."""
    return ParameterForm.of(config).values()


def matching_preset(values: tuple | list, presets: dict[str, tuple]) -> str:
    """The name of the preset whose form values equal `values`, else 'custom'.

    Shows an edited form as '(custom)', so choosing a preset again is a change that refills it.
    Numbers compare as numbers (the form sends 768.0 for 768); unreadable values match nothing.
    """

    def norm(value: Any) -> Any:
        if isinstance(value, (bool, int, str)) or value is None:
            return value  # an int as it is: float() of a 400-digit one overflows
        try:
            number = float(value)
        except (TypeError, ValueError):
            return value
        return int(number) if math.isfinite(number) and number == int(number) else value

    wanted = tuple(norm(v) for v in values)
    for name, preset in presets.items():
        if preset is not None and tuple(norm(v) for v in preset) == wanted:
            return name
    return "custom"
