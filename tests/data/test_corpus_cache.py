"""Reading corpus files (what a path that is no text file, or a runaway line, gets) and the tokenized corpus cache:
build, reuse, invalidation, atomic writes, corruption, whole-word corpora."""

from __future__ import annotations

import gzip
import lzma
import os
import pickle
import random
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from albert.data import corpus as corpus_module
from albert.data.corpus import MAX_LINE_CHARS, TokenizedCorpus, read_documents
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset
from albert.data.sentences import split_sentences


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory):
    from albert.data.tokenizer import train_tokenizer

    rng = random.Random(1)
    words = [
        "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(1, 3)))
        for _ in range(300)
    ]
    text = "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + "." for _ in range(400))
    path = tmp_path_factory.mktemp("tok") / "text.txt"
    path.write_text(text, encoding="utf-8")
    return train_tokenizer([path], path.parent / "tokenizer", vocab_size=200)


def _write_corpus(path: Path, num_documents: int = 30) -> None:
    rng = random.Random(2)
    words = ["river", "stone", "light", "quiet", "mill", "road", "north", "bread", "salt", "harbour"]
    blocks = []
    for _ in range(num_documents):
        paragraphs = [
            " ".join(
                f"{rng.choice(words).title()} {' '.join(rng.choices(words, k=rng.randint(2, 9)))}."
                for _ in range(rng.randint(1, 4))
            )
            for _ in range(rng.randint(1, 5))
        ]
        blocks.append("\n".join(paragraphs))
    path.write_bytes(lzma.compress(("\n\n".join(blocks) + "\n").encode("utf-8")))


def test_cache_build_reuse_and_invalidation(tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "corpus.txt.xz"
    _write_corpus(source)
    cache = tmp_path / "cache"
    corpus = TokenizedCorpus.build([source], tokenizer, cache, progress=False)
    assert corpus.num_documents == 30 and corpus.tokens.dtype == np.uint16
    assert sorted(p.name for p in cache.iterdir()) == [corpus.directory.name]  # no temp folder left
    # The cache holds exactly the tokenizer's ids of each sentence of each document.
    for number, document in enumerate(read_documents([source])):
        sentences = [s for paragraph in document for s in split_sentences(paragraph)]
        expected = tokenizer(sentences, add_special_tokens=False)["input_ids"]
        assert [s.tolist() for s in corpus.document(number)] == expected
    assert corpus.num_tokens == len(corpus.tokens) == int(corpus.sentence_offsets[-1])

    # Second build: the same files memory-mapped, nothing tokenized again.
    monkeypatch.setattr(type(tokenizer), "__call__", lambda *a, **k: pytest.fail("tokenized again"))
    start = time.perf_counter()
    again = TokenizedCorpus.build([source], tokenizer, cache)
    assert time.perf_counter() - start < 0.5
    monkeypatch.undo()
    assert again.directory == corpus.directory and isinstance(again.tokens, np.memmap)
    assert np.array_equal(again.tokens, corpus.tokens)
    assert TokenizedCorpus.open(cache).directory == corpus.directory  # a cache folder with one corpus

    # Workers get the folder name, not a copy of the arrays.
    assert len(pickle.dumps(again)) < 2000 and pickle.loads(pickle.dumps(again)).num_tokens == corpus.num_tokens

    # The same bytes elsewhere, with a new modification time, are the same cache entry.
    copy = tmp_path / "copied" / source.name
    copy.parent.mkdir()
    shutil.copyfile(source, copy)
    os.utime(copy, ns=(1, 1))
    assert TokenizedCorpus.build([copy], tokenizer, cache, progress=False).directory == corpus.directory

    # A changed file is a new cache entry; the cache folder then holds two corpora.
    _write_corpus(source, num_documents=20)
    changed = TokenizedCorpus.build([source], tokenizer, cache, progress=False)
    assert changed.directory != corpus.directory and changed.num_documents == 20
    with pytest.raises(FileNotFoundError, match="holds 2 tokenized corpora"):
        TokenizedCorpus.open(cache)


def test_cache_is_atomic_and_corruption_is_reported(tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "corpus.txt"
    source.write_text("One sentence here.\n\nAnother document.\n", encoding="utf-8")
    cache = tmp_path / "cache"
    original = type(tokenizer).__call__

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(type(tokenizer), "__call__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        TokenizedCorpus.build([source], tokenizer, cache, progress=False)
    assert list(cache.iterdir()) == []  # nothing half-written survives
    monkeypatch.setattr(type(tokenizer), "__call__", original)
    corpus = TokenizedCorpus.build([source], tokenizer, cache, progress=False)
    assert corpus.num_documents == 2
    (corpus.directory / "tokens.npy").unlink()
    with pytest.raises(ValueError, match="incomplete or corrupt"):
        TokenizedCorpus.open(corpus.directory)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n  \n", encoding="utf-8")
    with pytest.raises(ValueError, match="No text found"):
        TokenizedCorpus.build([empty], tokenizer, cache, progress=False)


def test_dataset_from_a_built_corpus_with_whole_words(tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "corpus.txt.gz"
    source.write_bytes(gzip.compress(lzma.decompress(_compressed_corpus(tmp_path))))
    corpus = TokenizedCorpus.build([source], tokenizer, tmp_path / "cache", progress=False)
    config = PretrainingDataConfig(max_seq_length=32, whole_word_masking=True)
    dataset = PretrainingDataset(corpus, config, tokenizer)
    example = dataset[0]
    assert set(example) == {"input_ids", "token_type_ids", "mlm_labels", "sentence_order_label"}
    assert example["sentence_order_label"].dim() == 0 and example["input_ids"].dtype == torch.long
    assert tokenizer.convert_ids_to_tokens([int(example["input_ids"][0])]) == ["[CLS]"]


def _compressed_corpus(tmp_path: Path) -> bytes:
    path = tmp_path / "source.txt.xz"
    _write_corpus(path)
    return path.read_bytes()


def test_a_folder_named_as_a_corpus_file_is_called_a_folder(tokenizer, tmp_path: Path) -> None:
    folder = tmp_path / "books"
    folder.mkdir()
    expected = rf"^Corpus path {re.escape(str(folder))} is a folder, not a file: give the text files in it .*\.xz, \.gz"
    with pytest.raises(ValueError, match=expected):
        list(read_documents([folder]))
    with pytest.raises(ValueError, match=expected):  # the cache key, read before anything is tokenized
        TokenizedCorpus.build([folder], tokenizer, tmp_path / "cache", progress=False)
    with pytest.raises(FileNotFoundError, match="does not exist"):  # a missing path is still called missing
        list(read_documents([tmp_path / "missing.txt"]))


class _CountingStream:
    """A text stream that counts the characters handed out (a runaway line must not be read whole)."""

    def __init__(self, stream) -> None:
        self.stream, self.characters = stream, 0

    def readline(self, size: int = -1) -> str:
        line = self.stream.readline(size)
        self.characters += len(line)
        return line

    def __enter__(self) -> _CountingStream:
        return self

    def __exit__(self, *exception) -> None:
        self.stream.close()


def test_a_line_is_read_with_a_bound_and_refused_past_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at_bound = tmp_path / "at-bound.txt"
    at_bound.write_text("First one.\n\n" + "a" * MAX_LINE_CHARS + "\n", encoding="utf-8")
    assert [len(p) for document in read_documents([at_bound]) for p in document] == [10, MAX_LINE_CHARS]
    runaway = tmp_path / "runaway.txt.xz"  # three times the bound on line 3, compressed to a few kB
    runaway.write_bytes(lzma.compress(("First one.\n\n" + "a" * 3 * MAX_LINE_CHARS + "\n").encode("utf-8")))
    opened: list[_CountingStream] = []
    real_open = corpus_module.open_text

    def counted(path: Path) -> _CountingStream:
        opened.append(_CountingStream(real_open(path)))
        return opened[-1]

    monkeypatch.setattr(corpus_module, "open_text", counted)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(runaway))}, line 3: the line is longer than 1,000,000 "):
        list(read_documents([runaway]))
    assert opened[0].characters <= len("First one.\n\n") + MAX_LINE_CHARS + 2  # refused at the bound, not at the end
