"""Labelled task data for fine-tuning: GLUE-style TSV, CSV, JSONL, `hf:` datasets and CoNLL.

    records = read_records("glue/SST-2/train.tsv", "classification")   # text, label, file:line
    labels = label_vocabulary(records)                                  # ["0", "1"]
    examples = encode(records, tokenizer, "classification", 128, {v: i for i, v in enumerate(labels)})
    batch = collate(examples[:32], tokenizer.pad_token_id)

Tables have a header row; the text, pair and label columns are chosen by name (GLUE's
names are recognised). CoNLL files hold one `word ... tag` line per token and a blank line
between sentences. Every bad input (missing column, ragged row, unknown label, empty file,
bytes that are not UTF-8, a line over `MAX_LINE_CHARS` characters) stops with one `DataError`
naming the file and the line.

What labels a task accepts, and how `--task auto` decides, is in `albert.data.labels`.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import logging
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from albert.core.config import IGNORE_INDEX
from albert.data.corpus import DATASET_PREFIX, MAX_LINE_CHARS

logger = logging.getLogger(__name__)

CONLL_SUFFIXES = (".conll", ".bio", ".iob", ".iob2", ".bioes")
# (text, pair) column names tried in order, as GLUE and common datasets name them.
KNOWN_TEXT_COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("sentence1", "sentence2"),
    ("question1", "question2"),
    ("question", "sentence"),
    ("premise", "hypothesis"),
    ("#1 String", "#2 String"),
    ("sentence", None),
    ("text", None),
)
KNOWN_LABEL_COLUMNS = ("label", "labels", "score", "Quality", "gold_label")


class DataError(ValueError):
    """Task data that cannot be used; the message names the file (and line) and what is accepted."""


@dataclass
class Record:
    """One labelled example as read, before tokenization."""

    text: str | list[str]
    """The sentence, or the words of a sentence for token classification."""
    pair: str | None
    """The second text of a sentence pair, if any."""
    label: str | list[str]
    """The label as written in the file (one tag per word for token classification)."""
    where: str
    """`file, line N` (or `dataset (split row N)`), for error messages."""


def is_conll(source: str) -> bool:
    return source.lower().endswith(CONLL_SUFFIXES)


def read_records(
    source: str,
    task: str,
    text_column: str | None = None,
    pair_column: str | None = None,
    label_column: str | None = None,
    split: str = "train",
) -> list[Record]:
    """All examples of a file (or `hf:NAME[:CONFIG]` dataset `split`); errors name file and line."""
    if task == "token" or (task == "auto" and is_conll(source)):
        column = -1 if label_column is None else _column_number(label_column, source)
        records = _read_conll(Path(source), column)
    else:
        rows, columns = _rows(source, split)
        text_column, pair_column, label_column = choose_columns(columns, text_column, pair_column, label_column, source)
        records = []
        for where, row in rows:
            text, label = row.get(text_column), row.get(label_column)
            pair = row.get(pair_column) if pair_column else None
            for name, value in ((text_column, text), (label_column, label), (pair_column, pair)):
                if name and value is None:
                    raise DataError(f"{where}: the column {name!r} is missing.")
            if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
                raise DataError(f"{where}: the text columns must hold strings, got {text!r}.")
            label = str(int(label)) if isinstance(label, bool) else str(label).strip()
            if not label:
                raise DataError(f"{where}: the label ({label_column!r}) is empty.")
            records.append(Record(text, pair, label, where))
    if not records:
        raise DataError(f"{source} holds no examples; it needs a header row and at least one labelled example.")
    return records


def choose_columns(
    columns: Sequence[str], text: str | None, pair: str | None, label: str | None, source: str
) -> tuple[str, str | None, str]:
    """The text, pair and label columns: the ones asked for (which must exist) or GLUE's names."""
    listed = ", ".join(repr(c) for c in columns)
    for name, flag in ((text, "--text-column"), (pair, "--text-pair-column"), (label, "--label-column")):
        if name is not None and name not in columns:
            raise DataError(f"{source} has no column {name!r} (asked for with {flag}); its columns are {listed}.")
    if text is None:
        for known_text, known_pair in KNOWN_TEXT_COLUMNS:
            if known_text in columns and (known_pair is None or known_pair in columns):
                text, pair = known_text, pair if pair is not None else known_pair
                break
        else:
            raise DataError(f"{source}: no text column found among {listed}; name it with --text-column.")
    if label is None:
        label = next((c for c in KNOWN_LABEL_COLUMNS if c in columns), None)
        if label is None:
            raise DataError(f"{source}: no label column found among {listed}; name it with --label-column.")
    return text, pair, label


def _rows(source: str, split: str) -> tuple[Iterator[tuple[str, dict[str, Any]]], list[str]]:
    if source.startswith(DATASET_PREFIX):
        return _dataset_rows(source, split)
    path = Path(source)
    if not path.is_file():
        raise DataError(f"{source} does not exist (expected a .tsv, .csv, .jsonl or CoNLL file, or hf:NAME).")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return _jsonl_rows(path)
    if suffix in (".tsv", ".csv"):
        return _delimited_rows(path, "\t" if suffix == ".tsv" else ",")
    raise DataError(
        f"{source}: unsupported file type {suffix or '(none)'!r}; use .tsv (GLUE), .csv, .jsonl, "
        f"a CoNLL file ({', '.join(CONLL_SUFFIXES)}) or hf:NAME[:CONFIG]."
    )


def _open_text(path: Path):
    return path.open(encoding="utf-8-sig", newline="")  # utf-8-sig: tolerate a byte-order mark


def _lines(stream: Any, path: Path) -> Iterator[str]:
    """The lines of a text stream, each read with a bound: a line over `MAX_LINE_CHARS` characters
    is refused with its number instead of being read whole into memory."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE_CHARS + 2)  # + room for "\r\n"
        if not line:
            return
        number += 1
        if len(line.rstrip("\r\n")) > MAX_LINE_CHARS:
            raise DataError(
                f"{path}, line {number}: the line is longer than {MAX_LINE_CHARS:,} characters, the "
                "most one example may hold; shorten or split it (is this a text table?)."
            )
        yield line


@contextlib.contextmanager
def _decoding(path: Path) -> Iterator[None]:
    """Turn a decoding error anywhere in the block into one sentence naming the file and line."""
    try:
        yield
    except UnicodeDecodeError:
        raise _encoding_error(path) from None


def _encoding_error(path: Path) -> DataError:
    """The first line of `path` that is not UTF-8, found by decoding it again line by line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    number, first = 1, True
    with path.open("rb") as stream:
        while piece := stream.readline(1 << 20):
            if first:
                piece, first = piece.removeprefix(codecs.BOM_UTF8), False
            ends = piece.endswith(b"\n")
            try:
                decoder.decode(piece, final=ends)
            except UnicodeDecodeError as error:
                bad = error.object[error.start : error.end]
                return DataError(
                    f"{path}, line {number}: the bytes {bad!r} are not UTF-8; task files must be "
                    "UTF-8 text (convert it first, e.g. iconv -f latin1 -t utf-8)."
                )
            if ends:
                number, _ = number + 1, decoder.reset()
    return DataError(f"{path} ends in the middle of a UTF-8 character; task files must be UTF-8 text.")


def _delimited_rows(path: Path, delimiter: str) -> tuple[Iterator[tuple[str, dict[str, Any]]], list[str]]:
    # GLUE's TSVs are not quoted: a sentence may start with a quote character, so TSV is read raw.
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    with _open_text(path) as stream, _decoding(path), _field_limit():
        try:
            header = next(csv.reader(_lines(stream, path), delimiter=delimiter, quoting=quoting))
        except StopIteration:
            raise DataError(f"{path} is empty; it needs a header row (e.g. sentence<TAB>label) and examples.") from None
        except csv.Error as error:
            raise DataError(f"{path}, line 1: the header row could not be read ({error}).") from None
    header = [name.strip() for name in header]

    def rows() -> Iterator[tuple[str, dict[str, Any]]]:
        with _open_text(path) as stream, _decoding(path), _field_limit():
            reader = csv.reader(_lines(stream, path), delimiter=delimiter, quoting=quoting)
            next(reader)
            line = reader.line_num
            while True:
                try:
                    fields = next(reader)
                except StopIteration:
                    return
                except csv.Error as error:  # a quoted field over the limit, or broken quoting
                    raise DataError(
                        f"{path}, line {line + 1}: the row could not be read ({error}); a field may hold "
                        f"at most {MAX_LINE_CHARS:,} characters and quotes must be closed."
                    ) from None
                line, start = reader.line_num, line + 1
                if not any(field.strip() for field in fields):
                    continue  # blank line
                if len(fields) != len(header):
                    raise DataError(
                        f"{path}, line {start}: {len(fields)} fields, but the header has "
                        f"{len(header)} ({', '.join(header)})."
                    )
                yield f"{path}, line {start}", dict(zip(header, fields, strict=True))

    return rows(), header


@contextlib.contextmanager
def _field_limit() -> Iterator[None]:
    """csv's field limit raised from its 128 KiB default to `MAX_LINE_CHARS` while reading (then restored)."""
    previous = csv.field_size_limit(MAX_LINE_CHARS)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _jsonl_rows(path: Path) -> tuple[Iterator[tuple[str, dict[str, Any]]], list[str]]:
    def objects() -> Iterator[tuple[str, dict[str, Any]]]:
        with _open_text(path) as stream, _decoding(path):
            for number, line in enumerate(_lines(stream, path), 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise DataError(
                        f"{path}, line {number}: not valid JSON ({error.msg}); JSONL needs one object per line."
                    ) from None
                if not isinstance(row, dict):
                    raise DataError(f"{path}, line {number}: expected a JSON object, got {type(row).__name__}.")
                yield f"{path}, line {number}", row

    iterator = objects()
    first = next(iterator, None)
    if first is None:
        raise DataError(
            f'{path} is empty; it needs one JSON object per line, e.g. {{"sentence": "a fine film", "label": 1}}.'
        )

    def all_rows() -> Iterator[tuple[str, dict[str, Any]]]:
        yield first
        yield from iterator

    return all_rows(), list(first[1])


def _dataset_rows(source: str, split: str) -> tuple[Iterator[tuple[str, dict[str, Any]]], list[str]]:
    try:
        import datasets  # optional: only needed for `hf:` sources
    except ImportError:
        raise DataError(
            f"Reading {source!r} needs the `datasets` package, which is not installed "
            "(pip install datasets); or pass a .tsv, .csv or .jsonl file."
        ) from None
    name, _, config = source[len(DATASET_PREFIX) :].partition(":")
    try:
        data = datasets.load_dataset(name, config or None, split=split)
    except Exception as error:  # network, unknown name or split: one sentence
        raise DataError(f"{source} (split {split!r}) could not be loaded ({type(error).__name__}: {error}).") from None
    rows = ((f"{source} ({split} row {i + 1})", row) for i, row in enumerate(data))
    return rows, list(data.column_names)


def _column_number(label_column: str, source: str) -> int:
    try:
        return int(label_column)
    except ValueError:
        raise DataError(
            f"{source}: for CoNLL files --label-column is a column number (0 = the word, "
            f"-1 = the last), got {label_column!r}."
        ) from None


def _read_conll(path: Path, label_column: int) -> list[Record]:
    """Sentences of a CoNLL file: `word ... tag` per line, blank lines between sentences."""
    if not path.is_file():
        raise DataError(f"{path} does not exist (expected a CoNLL file: one 'word tag' per line).")
    records: list[Record] = []
    words: list[str] = []
    tags: list[str] = []
    start, width = 0, None
    with _open_text(path) as stream, _decoding(path):
        for number, line in enumerate(_lines(stream, path), 1):
            parts = line.split()
            if not parts or parts[0] == "-DOCSTART-":
                if words:
                    records.append(Record(words, None, tags, f"{path}, line {start}"))
                words, tags = [], []
                continue
            if len(parts) < 2:
                raise DataError(
                    f"{path}, line {number}: expected a word and a tag separated by whitespace, got {line.strip()!r}."
                )
            if width is not None and len(parts) != width:
                raise DataError(f"{path}, line {number}: {len(parts)} columns, but earlier lines have {width}.")
            if not -len(parts) <= label_column < len(parts) or label_column in (0, -len(parts)):
                raise DataError(f"{path}, line {number}: no tag column {label_column} in {len(parts)} columns.")
            width = len(parts)
            start = start if words else number
            words.append(parts[0])
            tags.append(parts[label_column])
    if words:
        records.append(Record(words, None, tags, f"{path}, line {start}"))
    return records


def label_vocabulary(records: Sequence[Record]) -> list[str]:
    """Distinct labels (tags), in numeric order when all are numbers ("2" < "10"), else sorted."""
    values = sorted({tag for r in records for tag in (r.label if isinstance(r.label, list) else [r.label])})
    try:
        return sorted(values, key=float)
    except ValueError:
        return values


def subsample(records: list[Record], limit: int | None, seed: int) -> list[Record]:
    """A seeded random subset of `limit` records, in file order (all of them when `limit` is None)."""
    if limit is None or limit >= len(records):
        return records
    chosen = sorted(random.Random(seed).sample(range(len(records)), limit))
    return [records[i] for i in chosen]


def _label_id(value: str, label2id: dict[str, int], where: str) -> int:
    if value not in label2id:
        known = ", ".join(repr(k) for k in label2id)
        raise DataError(f"{where}: unknown label {value!r}; the model knows {known}.")
    return label2id[value]


def encode(
    records: Sequence[Record], tokenizer: Any, task: str, max_length: int, label2id: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Token ids, segment ids and label(s) of each record (truncated to `max_length` tokens)."""
    if task == "token":
        return _encode_tokens(records, tokenizer, max_length, label2id or {})
    examples: list[dict[str, Any]] = []
    for start in range(0, len(records), 2048):  # batched: the fast tokenizer runs in Rust
        chunk = records[start : start + 2048]
        pairs = [r.pair for r in chunk] if chunk[0].pair is not None else None
        encoded = tokenizer(
            [r.text for r in chunk],
            pairs,
            truncation=True,
            max_length=max_length,
            return_token_type_ids=True,
            return_attention_mask=False,
        )
        for i, record in enumerate(chunk):
            if task == "regression":
                try:
                    label: float | int = float(record.label)  # type: ignore[arg-type]
                except ValueError:
                    raise DataError(
                        f"{record.where}: label {record.label!r} is not a number (the task is regression)."
                    ) from None
                if not math.isfinite(label):
                    raise DataError(
                        f"{record.where}: label {record.label!r} is not a finite number "
                        "(the task is regression); fix or drop the line."
                    )
            else:
                label = _label_id(record.label, label2id or {}, record.where)  # type: ignore[arg-type]
            examples.append(
                {"input_ids": encoded["input_ids"][i], "token_type_ids": encoded["token_type_ids"][i], "labels": label}
            )
    return examples


def _encode_tokens(
    records: Sequence[Record], tokenizer: Any, max_length: int, label2id: dict[str, int]
) -> list[dict[str, Any]]:
    """Each word's tag goes on its first sub-token; later sub-tokens and specials are ignored."""
    tag_ids = [[_label_id(tag, label2id, r.where) for tag in r.label] for r in records]  # check all first
    encoded = tokenizer(
        [r.text for r in records],
        is_split_into_words=True,
        truncation=True,
        max_length=max_length,
        return_token_type_ids=True,
        return_attention_mask=False,
    )
    examples = []
    for i in range(len(records)):
        labels, previous = [], None
        for word in encoded.word_ids(i):
            labels.append(IGNORE_INDEX if word is None or word == previous else tag_ids[i][word])
            previous = word
        examples.append(
            {"input_ids": encoded["input_ids"][i], "token_type_ids": encoded["token_type_ids"][i], "labels": labels}
        )
    return examples


def collate(examples: Sequence[dict[str, Any]], pad_id: int) -> dict[str, torch.Tensor]:
    """Pad a list of encoded examples to the longest one: input_ids, attention_mask, token_type_ids, labels."""
    length = max(len(e["input_ids"]) for e in examples)
    batch = {
        "input_ids": torch.full((len(examples), length), pad_id, dtype=torch.long),
        "attention_mask": torch.zeros(len(examples), length, dtype=torch.long),
        "token_type_ids": torch.zeros(len(examples), length, dtype=torch.long),
    }
    for i, example in enumerate(examples):
        n = len(example["input_ids"])
        batch["input_ids"][i, :n] = torch.tensor(example["input_ids"])
        batch["attention_mask"][i, :n] = 1
        batch["token_type_ids"][i, :n] = torch.tensor(example["token_type_ids"])
    first = examples[0]["labels"]
    if isinstance(first, list):
        labels = torch.full((len(examples), length), IGNORE_INDEX, dtype=torch.long)
        for i, example in enumerate(examples):
            labels[i, : len(example["labels"])] = torch.tensor(example["labels"])
        batch["labels"] = labels
    else:
        batch["labels"] = torch.tensor(
            [e["labels"] for e in examples], dtype=torch.float32 if isinstance(first, float) else torch.long
        )
    return batch
