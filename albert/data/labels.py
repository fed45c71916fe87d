"""The labels of a task file: all of one kind, or refused with a sentence naming file, line and value.

Labels are of one kind (`check_labels`): with `--task auto` a column of whole numbers written
as integers (0, 1, -1) or of names (entailment, neutral) is classification; a column whose
numbers are all written with a decimal point or exponent (STS-B's 3.800, 5.000) is regression
when some are not whole; any mix of those kinds (one 0.5 among 0/1, one `pos` among 0/1) is
refused, naming the file, line and value, and so are NaN and infinity in every task.
`--task regression` accepts any finite numbers; `--task classification` takes every distinct
value as a class. A class held by a single example of a training file of at least
`STRAY_MIN_EXAMPLES` examples is refused as a stray unless `--label-names` names every class.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from albert.data.tasks import DataError, Record, label_vocabulary

STRAY_MIN_EXAMPLES = 20
"""A label held by one example of a training file this large is refused as a stray class."""
_INTEGER = re.compile(r"[+-]?[0-9]+")
_KIND_WORDS = {"integer": "a whole number", "decimal": "a decimal number", "name": "a class name"}
_KINDS_WORDS = {"integer": "whole numbers", "decimal": "decimal numbers", "name": "class names"}


def label_kind(value: str) -> str:
    """`integer` (written 0, -1, 12), `decimal` (0.5, 3.800, 1e3), `non-finite` (nan, inf) or `name`."""
    if _INTEGER.fullmatch(value):
        return "integer"
    try:
        number = float(value)
    except ValueError:
        return "name"
    return "decimal" if math.isfinite(number) else "non-finite"


def _refuse_non_finite(records: Sequence[Record]) -> None:
    for r in records:
        if label_kind(r.label) == "non-finite":  # type: ignore[arg-type]
            raise DataError(
                f"{r.where}: label {r.label!r} is not a finite number; a label is a class name or a "
                "finite number, so fix or drop the line."
            )


def infer_task(records: Sequence[Record]) -> str:
    """token for CoNLL; regression when every label is written as a decimal (3.800, 0.25) and some are
    not whole; else classification (integers, or names) — a mix of those kinds, or NaN, is refused."""
    if isinstance(records[0].text, list):
        return "token"
    _refuse_non_finite(records)
    kinds = Counter(label_kind(r.label) for r in records)  # type: ignore[arg-type]
    if len(kinds) > 1:
        # Name the first example of the rarest kind: the one stray row among many regular ones.
        first: dict[str, Record] = {}
        for r in records:
            first.setdefault(label_kind(r.label), r)  # type: ignore[arg-type]
        order = list(first)
        rare = min(kinds, key=lambda k: (kinds[k], -order.index(k)))  # ties: the kind that came later
        record = first[rare]
        others = sorted({r.label for r in records if label_kind(r.label) != rare})  # type: ignore[arg-type]
        other_kinds = " and ".join(_KINDS_WORDS[k] for k in kinds if k != rare)
        raise DataError(
            f"{record.where}: label {record.label!r} is {_KIND_WORDS[rare]}, but the file's other "
            f"labels are {other_kinds} ({_listing(others)}); one task needs one kind of label, so "
            "fix the line, or pass --task regression (real-valued scores) or --task classification "
            "(every distinct value a class)."
        )
    if "decimal" in kinds and any(not float(r.label).is_integer() for r in records):  # type: ignore[arg-type]
        return "regression"
    return "classification"


def check_labels(records: Sequence[Record], task: str, label_names: Sequence[str] = ()) -> str:
    """The task of a training file (`task`, or inferred when "auto") after checking its labels: finite
    numbers for regression; for classification no NaN/inf and no stray class (a label held by one example
    of a file of at least `STRAY_MIN_EXAMPLES`) unless `label_names` names every class."""
    if task == "auto":
        task = infer_task(records)
    if task == "token":
        return task
    _refuse_non_finite(records)
    if task == "regression":
        for r in records:
            if label_kind(r.label) == "name":  # type: ignore[arg-type]
                raise DataError(f"{r.where}: label {r.label!r} is not a number (the task is regression).")
        return task
    counts = Counter(r.label for r in records)  # type: ignore[misc]
    if label_names or len(records) < STRAY_MIN_EXAMPLES or len(counts) < 2:
        return task
    stray = next((r for r in records if counts[r.label] == 1), None)  # type: ignore[index]
    if stray is not None:
        classes = label_vocabulary(records)
        others = [c for c in classes if c != stray.label]
        raise DataError(
            f"{stray.where}: label {stray.label!r} occurs on this line only, among {len(records)} "
            f"examples labelled {_listing(others)}; if it is a real class pass --label-names with a "
            f"name for each of the {len(classes)} classes ({_listing(classes)}), or --task "
            "regression for scores, otherwise fix the line."
        )
    return task


def _listing(values: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")
