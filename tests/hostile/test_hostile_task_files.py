"""Fine-tuning files that would silently change the task, or break the reader: each is refused with
one sentence naming the file, the line and the value (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from albert.commands.finetune import main
from albert.data import tasks as task_data
from albert.data.labels import check_labels
from albert.data.tasks import DataError, read_records
from tests.hostile.support import finetune_argv, write_table

ZERO_ONE = [str(i % 2) for i in range(40)]


def labels_error(path: Path, task: str = "auto", label_names: tuple[str, ...] = ()) -> str:
    with pytest.raises(DataError) as error:
        check_labels(read_records(str(path), task), task, label_names)
    return str(error.value)


@pytest.mark.parametrize(
    ("stray", "words"),
    [
        ("0.5", ["is a decimal number", "whole numbers", "--task regression"]),
        ("pos", ["is a class name", "whole numbers", "--task classification"]),
        ("1.0", ["is a decimal number", "one kind of label"]),
    ],
)
def test_one_label_of_another_kind_is_refused_with_file_line_and_value(
    tmp_path: Path, stray: str, words: list[str]
) -> None:
    path = write_table(tmp_path / "train.tsv", ZERO_ONE[:7] + [stray] + ZERO_ONE[7:])
    message = labels_error(path)
    assert f"{path}, line 9: label {stray!r}" in message  # header is line 1, the stray the 8th example
    for word in words:
        assert word in message


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-Infinity"])
@pytest.mark.parametrize("task", ["auto", "classification", "regression"])
def test_nan_and_infinity_are_refused_in_every_task(tmp_path: Path, value: str, task: str) -> None:
    path = write_table(tmp_path / "train.tsv", ["0.25", "1.5", value, "2.75"])
    message = labels_error(path, task)
    assert f"{path}, line 4: label {value!r} is not a finite number" in message


def test_nan_in_a_regression_dev_file_is_refused_when_encoding(tmp_path: Path) -> None:
    path = write_table(tmp_path / "dev.tsv", ["0.5", "nan"])
    with pytest.raises(DataError, match=r"dev\.tsv, line 3: label 'nan' is not a finite number"):
        task_data.encode(read_records(str(path), "regression"), _NoTokenizer(), "regression", 16)


@pytest.mark.parametrize("stray", ["-1", "7", "neutral"])
def test_a_stray_class_is_refused_unless_label_names_ask_for_it(tmp_path: Path, stray: str) -> None:
    labels = ["negative", "positive"] * 20 if stray == "neutral" else ZERO_ONE
    path = write_table(tmp_path / "train.tsv", labels[:30] + [stray] + labels[30:])
    message = labels_error(path)
    assert f"{path}, line 32: label {stray!r} occurs on this line only, among 41 examples" in message
    assert "--label-names" in message and "3 classes" in message
    assert check_labels(read_records(str(path), "auto"), "auto", ("a", "b", "c")) == "classification"


@pytest.mark.parametrize(
    ("labels", "task", "expected"),
    [
        (ZERO_ONE, "auto", "classification"),
        (["entailment", "neutral", "contradiction"] * 10, "auto", "classification"),
        (["5.000", "3.800", "0.000", "2.400", "4.000"] * 5, "auto", "regression"),  # STS-B's way
        (["0.25", "0.75", "1.25"], "auto", "regression"),
        (["0.0", "1.0"] * 15, "auto", "classification"),
        (["1", "2", "3.5", "4", "5"] * 5, "regression", "regression"),  # asked for: integers are scores too
        (["1", "2", "other"] * 10, "classification", "classification"),
        (["10", "2"], "auto", "classification"),  # too few examples to call one a stray
    ],
)
def test_files_of_one_kind_keep_working(tmp_path: Path, labels: list[str], task: str, expected: str) -> None:
    path = write_table(tmp_path / "train.tsv", labels)
    assert check_labels(read_records(str(path), task), task) == expected


def test_command_line_refuses_a_nan_label_with_one_sentence(models: dict[str, Path], tmp_path: Path) -> None:
    train = write_table(tmp_path / "train.tsv", ZERO_ONE[:5] + ["nan"] + ZERO_ONE[5:])
    argv = finetune_argv(models, tmp_path / "out")
    argv[argv.index("--train-file") + 1] = str(train)
    with pytest.raises(SystemExit) as error:
        main(argv)
    message = str(error.value.code)
    assert message.startswith("albert.finetune: ") and "\n" not in message
    assert f"{train}, line 7: label 'nan' is not a finite number" in message
    assert not (tmp_path / "out" / "best").exists() and not (tmp_path / "out" / "checkpoint").exists()


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl", ".conll"])
def test_bytes_that_are_not_utf8_name_file_and_line(tmp_path: Path, suffix: str) -> None:
    rows = {
        ".tsv": ["sentence\tlabel", "fine\t1", "caf\xe9 noir\t0", "ok\t1"],
        ".csv": ["sentence,label", "fine,1", "caf\xe9 noir,0", "ok,1"],
        ".jsonl": [
            '{"sentence": "fine", "label": 1}',
            '{"sentence": "x", "label": 0}',
            '{"sentence": "caf\xe9", "label": 0}',
        ],
        ".conll": ["the O", "film O", "caf\xe9 B-X"],
    }[suffix]
    path = tmp_path / f"data{suffix}"
    # the bad byte comes after 20,000 good lines, beyond the first block the decoder reads
    good = {".tsv": "fine\t1\n", ".csv": "fine,1\n", ".jsonl": rows[1] + "\n", ".conll": "the O\n"}[suffix]
    data = (rows[0] + "\n" + good * 20_000 + "\n".join(rows[1:]) + "\n").encode("latin-1")
    path.write_bytes(data)
    bad_line = 20_001 + next(i for i, r in enumerate(rows) if "\xe9" in r)
    with pytest.raises(DataError) as error:
        read_records(str(path), "auto")
    message = str(error.value)
    assert f"{path}, line {bad_line}: the bytes" in message and "not UTF-8" in message and "\n" not in message


def test_a_field_above_csvs_default_limit_reads(tmp_path: Path) -> None:
    path = tmp_path / "long.tsv"
    path.write_text("sentence\tlabel\n" + "word " * 40_000 + "\t1\n")  # 200,000 characters > csv's 131,072
    assert len(read_records(str(path), "auto")[0].text) == 200_000


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl", ".conll"])
def test_a_line_over_the_bound_names_file_and_line(tmp_path: Path, suffix: str) -> None:
    long = "w" * (task_data.MAX_LINE_CHARS + 1)
    text = {
        ".tsv": f"sentence\tlabel\nfine\t1\n{long}\t1\n",
        ".csv": f"sentence,label\nfine,1\n{long},1\n",
        ".jsonl": f'{{"sentence": "fine", "label": 1}}\n{{"sentence": "{long}", "label": 1}}\n',
        ".conll": f"the O\n{long} O\n",
    }[suffix]
    path = tmp_path / f"data{suffix}"
    path.write_text(text)
    line = 2 if suffix in (".jsonl", ".conll") else 3
    with pytest.raises(DataError) as error:
        read_records(str(path), "auto")
    assert f"{path}, line {line}: the line is longer than 1,000,000 characters" in str(error.value)


def test_a_quoted_csv_field_over_the_bound_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task_data, "MAX_LINE_CHARS", 1000)
    path = tmp_path / "data.csv"
    path.write_text('sentence,label\nfine,1\n"' + ("many words\n" * 200) + '",1\n')  # 2,200 characters, 200 lines
    with pytest.raises(DataError) as error:
        read_records(str(path), "auto")
    message = str(error.value)
    assert f"{path}, line 3: the row could not be read (field larger than field limit (1000))" in message
    import csv

    assert csv.field_size_limit() == 131072  # restored after reading


class _NoTokenizer:
    def __call__(self, texts: list[str], *args: object, **kwargs: object) -> dict[str, list[list[int]]]:
        return {"input_ids": [[1]] * len(texts), "token_type_ids": [[0]] * len(texts)}
