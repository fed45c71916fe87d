"""Fixtures of the data tests: the Chinese tests' corpus (chinese_support's sentences, written twice: plain and
word-segmented) and a character tokenizer trained on it, once per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from albert.data.tokenizer import load_tokenizer, train_tokenizer
from tests.data.chinese_support import VOCAB, plain, segmented_text


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same text twice: plain, and word-segmented (one space between words)."""
    folder = tmp_path_factory.mktemp("zh")
    segmented = segmented_text()
    (folder / "train.words.txt").write_text(segmented, encoding="utf-8")
    (folder / "train.txt").write_text(plain(segmented), encoding="utf-8")
    return folder / "train.txt", folder / "train.words.txt"


@pytest.fixture(scope="module")
def tokenizer_dir(corpus_files: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("zh-tokenizer")
    train_tokenizer([corpus_files[0]], directory, vocab_size=VOCAB, han_characters=True)
    return directory


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir: Path):
    return load_tokenizer(tokenizer_dir)
