"""Corpus reading and the tokenized, memory-mapped corpus cache.

Text format (the one BERT's and ALBERT's data scripts read): UTF-8 text, plain or compressed
with xz or gzip; one document per blank-line-separated block; one paragraph per line (at most
`MAX_LINE_CHARS` characters: a longer line is refused once that many are read, never read whole or tokenized).
Paragraphs are split into sentences (`albert.data.sentences`), because SOP and NSP build their segments from
sentences. Tokenizing a large corpus takes minutes, so it is done once and cached as flat
numpy arrays that later runs memory-map in well under a second.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import logging
import lzma
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from tqdm.auto import tqdm

from albert.data.chinese import (
    is_character_vocabulary,
    is_running_text,
    segmented_sentences,
    token_word_starts,
)
from albert.data.masking import SpecialIds
from albert.data.sentences import split_sentences

logger = logging.getLogger(__name__)

DATASET_PREFIX = "hf:"
"""A source written `hf:NAME` or `hf:NAME:CONFIG` is a Hugging Face dataset (its `text` column)."""
MAX_LINE_CHARS = 1_000_000
"""The longest line a text file may hold: a corpus paragraph here, a line (or CSV field) of a task file in
`albert.data.tasks`. Far above any paragraph or document an ALBERT reads (512 tokens), low enough that a runaway
line (a file without line breaks) is refused at once instead of being read whole and tokenized for minutes."""

# Bump when the splitter or the cache layout changes, so old caches are not silently reused.
# Kept at 1 through Chinese sentence splitting: English splitting is unchanged (checked byte for byte on
# all 357,814 paragraphs of the Gutenberg corpus), so English caches stay valid; the caches of text that
# the new rules do split are keyed anew instead (see `TokenizedCorpus.cache_key`). Word starts of a
# word-segmented corpus are an optional extra file (token_word_start.npy), not a new layout.
CACHE_FORMAT_VERSION = 1


# --------------------------------------------------------------------------- reading


def corpus_file(source: str | os.PathLike) -> Path:
    """`source` as the path of a file, or one sentence saying what it is instead: a folder (ValueError) or
    nothing (FileNotFoundError)."""
    path = Path(source)
    if path.is_dir():
        raise ValueError(
            f"Corpus path {path} is a folder, not a file: give the text files in it (e.g. {path / '*.txt'} in a "
            f"shell), each UTF-8 text, plain or compressed (.xz, .gz), or '{DATASET_PREFIX}NAME' for a Hugging Face "
            "dataset."
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"Corpus file {path} does not exist (expected a text file, .txt.xz or .txt.gz, "
            f"or '{DATASET_PREFIX}NAME' for a Hugging Face dataset)."
        )
    return path


def open_text(path: str | os.PathLike) -> TextIO:
    """Open a text file for reading as UTF-8, decompressing `.xz` and `.gz` on the fly."""
    path = corpus_file(path)
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _documents_from_lines(lines: Iterator[str]) -> Iterator[list[str]]:
    paragraphs: list[str] = []
    for line in lines:
        line = line.strip()
        if line:
            paragraphs.append(line)
        elif paragraphs:
            yield paragraphs
            paragraphs = []
    if paragraphs:
        yield paragraphs


def _bounded_lines(stream: TextIO, source: str | os.PathLike) -> Iterator[str]:
    """The lines of a corpus file, each read with a bound: a line over `MAX_LINE_CHARS` characters is refused with
    its number as soon as its first `MAX_LINE_CHARS` are read."""
    number = 0
    while line := stream.readline(MAX_LINE_CHARS + 2):  # + room for "\r\n"
        number += 1
        if len(line.rstrip("\r\n")) > MAX_LINE_CHARS:
            raise ValueError(
                f"{source}, line {number}: the line is longer than {MAX_LINE_CHARS:,} characters, the most one "
                "paragraph may hold; a corpus holds one paragraph a line and a blank line between documents."
            )
        yield line


def _documents_from_dataset(source: str) -> Iterator[list[str]]:
    try:
        import datasets  # optional: only needed for `hf:` sources
    except ImportError as error:
        raise ImportError(
            f"Reading {source!r} needs the `datasets` package (pip install datasets), which is not installed."
        ) from error
    name, _, config = source[len(DATASET_PREFIX) :].partition(":")
    # Streaming: the corpus may be far larger than the disk or memory of the machine.
    rows = datasets.load_dataset(name, config or None, split="train", streaming=True)
    for row in rows:
        text = row.get("text")
        if not isinstance(text, str):
            raise ValueError(f"Dataset {source!r} has no string column 'text'; its columns are {sorted(row)}.")
        # One row is one document (Wikipedia articles, books); its lines are paragraphs.
        yield from _documents_from_lines(iter(text.splitlines()))


def read_documents(paths: Sequence[str | os.PathLike]) -> Iterator[list[str]]:
    """Yield documents, each a list of paragraphs, from text files or `hf:NAME[:CONFIG]` datasets.

    A document never spans two files. Lines are stripped; blank lines separate documents.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    for source in paths:
        if isinstance(source, str) and source.startswith(DATASET_PREFIX) and not Path(source).exists():
            yield from _documents_from_dataset(source)
            continue
        with open_text(source) as stream:
            try:
                yield from _documents_from_lines(_bounded_lines(stream, source))
            except (lzma.LZMAError, gzip.BadGzipFile, EOFError, UnicodeDecodeError) as error:
                raise ValueError(
                    f"Could not read {source}: {error} (expected UTF-8 text, plain, .xz or .gz)."
                ) from error


# --------------------------------------------------------------------------- tokenized corpus


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """A hash that changes whenever the tokenizer would produce different ids."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        # The full serialisation: vocabulary, normaliser, pre-tokeniser, added tokens.
        text = backend.to_str()
    else:
        text = json.dumps([type(tokenizer).__name__, sorted(tokenizer.get_vocab().items())])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _source_key(source: str | os.PathLike) -> list[Any]:
    if isinstance(source, str) and source.startswith(DATASET_PREFIX) and not Path(source).exists():
        return [source]
    path = corpus_file(source).resolve()
    # The bytes, not the path or modification time: a corpus copied or re-downloaded unchanged
    # reuses its cache (hashing is ~1 s per GB; tokenizing takes minutes).
    with open(path, "rb") as stream:
        digest = hashlib.file_digest(stream, "sha256").hexdigest()
    return [path.stat().st_size, digest]


def _save_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as stream:  # a file object: np.save would append ".npy" to a bare name
        np.save(stream, array)


class TokenizedCorpus:
    """Token ids of every sentence, flat, with sentence and document offsets (memory-mapped).

    `tokens[sentence_offsets[s]:sentence_offsets[s + 1]]` is sentence s;
    `document_offsets[d]:document_offsets[d + 1]` are the sentences of document d.
    Empty sentences and documents are dropped when building. `token_word_start` (a corpus built
    from word-segmented text, else None) is a boolean per token: the token starts a word.
    """

    def __init__(
        self,
        tokens: np.ndarray,
        sentence_offsets: np.ndarray,
        document_offsets: np.ndarray,
        special_ids: SpecialIds,
        directory: Path | None = None,
        token_word_start: np.ndarray | None = None,
    ) -> None:
        self.tokens = tokens
        self.sentence_offsets = sentence_offsets
        self.document_offsets = document_offsets
        self.special_ids = special_ids
        self.directory = directory
        self.token_word_start = token_word_start

    # -- sizes
    @property
    def num_documents(self) -> int:
        return len(self.document_offsets) - 1

    @property
    def num_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def num_tokens(self) -> int:
        return int(self.sentence_offsets[-1])

    def __repr__(self) -> str:
        return (
            f"TokenizedCorpus({self.num_documents:,} documents, {self.num_sentences:,} sentences, "
            f"{self.num_tokens:,} tokens, directory={str(self.directory) if self.directory else None})"
        )

    # -- access
    def sentence(self, index: int) -> np.ndarray:
        return self.tokens[self.sentence_offsets[index] : self.sentence_offsets[index + 1]]

    def document(self, index: int) -> list[np.ndarray]:
        """The sentences of document `index`, each an array of token ids."""
        first, end = self.document_offsets[index], self.document_offsets[index + 1]
        return [self.sentence(s) for s in range(first, end)]

    # -- construction
    @classmethod
    def from_documents(cls, documents: Sequence[Sequence[Sequence[int]]], special_ids: SpecialIds) -> TokenizedCorpus:
        """An in-memory corpus from token ids (documents of sentences of ids); for tests and tiny runs."""
        sentences = [np.asarray(s, dtype=np.int64) for doc in documents for s in doc if len(s)]
        per_document = [sum(1 for s in doc if len(s)) for doc in documents]
        sentence_offsets = np.concatenate([[0], np.cumsum([len(s) for s in sentences], dtype=np.int64)])
        document_offsets = np.concatenate([[0], np.cumsum([n for n in per_document if n], dtype=np.int64)])
        tokens = np.concatenate(sentences) if sentences else np.zeros(0, dtype=np.int64)
        return cls(
            tokens.astype(np.int32), sentence_offsets.astype(np.int64), document_offsets.astype(np.int64), special_ids
        )

    @staticmethod
    def cache_key(paths: Sequence[str | os.PathLike], tokenizer: Any, word_segmented: bool = False) -> str:
        """Hash of (each file's size and contents; the tokenizer; the cache format; word segmentation)."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        payload: dict[str, Any] = {
            "sources": [_source_key(p) for p in paths],
            "tokenizer": tokenizer_fingerprint(tokenizer),
            "format": CACHE_FORMAT_VERSION,
        }
        # Chinese sentence splitting, then dropping Chinese lines that are not running text (cjk-2), changed
        # what a tokenizer able to read Han keeps, so its older caches must not be reused; English keys stay
        # as they were.
        if is_character_vocabulary(tokenizer.get_vocab()):
            payload["sentences"] = "cjk-2"
        if word_segmented:
            payload["word_segmented"] = True
        return hashlib.sha256(json.dumps(payload).encode("utf-8")).hexdigest()

    @classmethod
    def build(
        cls,
        paths: Sequence[str | os.PathLike],
        tokenizer: Any,
        cache_dir: str | os.PathLike,
        *,
        batch_size: int = 2000,
        progress: bool = True,
        word_segmented: bool = False,
    ) -> TokenizedCorpus:
        """Tokenize `paths` once into `cache_dir/corpus-<key>/`; reuse that folder when it exists.

        The folder is written under a temporary name and renamed when complete, so an
        interrupted build leaves nothing that a later run could mistake for a cache.

        `word_segmented`: the files separate words by single spaces (People's Daily's `.words.txt`).
        The spaces are removed before tokenizing (sentences are split on the joined text) and each
        token records whether it starts a word (`token_word_start`, for whole-word masking).
        """
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        cache_dir = Path(cache_dir)
        key = cls.cache_key(paths, tokenizer, word_segmented)
        final = cache_dir / f"corpus-{key[:16]}"
        if (final / "meta.json").is_file():
            logger.info("Reusing the tokenized corpus in %s", final)
            return cls.open(final)
        cache_dir.mkdir(parents=True, exist_ok=True)
        special_ids = SpecialIds.from_tokenizer(tokenizer)
        dtype = np.uint16 if special_ids.vocab_size <= np.iinfo(np.uint16).max + 1 else np.int32
        temp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=cache_dir))
        try:
            counts = _tokenize_to(temp, paths, tokenizer, dtype, batch_size, progress, word_segmented)
            if counts["sentences"] == 0:
                raise ValueError(f"No text found in {', '.join(map(str, paths))}: every document was empty.")
            _save_npy(temp / "word_start.npy", special_ids.word_start)
            meta = {
                "format": CACHE_FORMAT_VERSION,
                "sources": [str(p) for p in paths],
                "key": key,
                "tokenizer": tokenizer_fingerprint(tokenizer),
                "dtype": np.dtype(dtype).name,
                **counts,
                "word_segmented": word_segmented,
                "special_ids": {
                    f: getattr(special_ids, f)
                    for f in ("pad_id", "unk_id", "cls_id", "sep_id", "mask_id", "vocab_size", "boundary_id")
                },
            }
            (temp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
            try:
                os.rename(temp, final)
            except OSError:
                if not (final / "meta.json").is_file():
                    raise
                # Another process (another torchrun rank) finished the same cache first: use it.
                shutil.rmtree(temp, ignore_errors=True)
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        corpus = cls.open(final)
        logger.info("Tokenized corpus written to %s: %s", final, corpus)
        return corpus

    @classmethod
    def open(cls, directory: str | os.PathLike) -> TokenizedCorpus:
        """Memory-map a corpus folder (`corpus-<key>/`, or a cache folder holding exactly one)."""
        directory = Path(directory)
        if not (directory / "meta.json").is_file():
            found = sorted(p for p in directory.glob("corpus-*") if (p / "meta.json").is_file())
            if len(found) != 1:
                hint = (
                    f"; pass one of: {', '.join(map(str, found))}"
                    if found
                    else "; build one with TokenizedCorpus.build(paths, tokenizer, cache_dir)"
                )
                raise FileNotFoundError(f"{directory} holds {len(found)} tokenized corpora{hint}.")
            directory = found[0]
        try:
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != CACHE_FORMAT_VERSION:
                raise ValueError(f"format {meta.get('format')}, expected {CACHE_FORMAT_VERSION}")
            tokens = np.load(directory / "tokens.npy", mmap_mode="r")
            sentence_offsets = np.load(directory / "sentence_offsets.npy", mmap_mode="r")
            document_offsets = np.load(directory / "document_offsets.npy", mmap_mode="r")
            word_start = np.load(directory / "word_start.npy")
            token_word_start = None
            if meta.get("word_segmented"):
                token_word_start = np.load(directory / "token_word_start.npy", mmap_mode="r")
                if len(token_word_start) != len(tokens):
                    raise ValueError("token_word_start.npy and tokens.npy differ in length")
            if (len(tokens), len(sentence_offsets) - 1, len(document_offsets) - 1) != (
                meta["tokens"],
                meta["sentences"],
                meta["documents"],
            ):
                raise ValueError("array sizes do not match meta.json")
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(
                f"The tokenized corpus in {directory} is incomplete or corrupt ({error}); "
                "delete that folder and build it again."
            ) from error
        special_ids = SpecialIds(**meta["special_ids"], word_start=word_start)
        return cls(tokens, sentence_offsets, document_offsets, special_ids, directory, token_word_start)

    # Workers started with "spawn" receive the dataset pickled: send the folder name, not the
    # memory-mapped arrays (pickling a memmap copies the whole corpus).
    def __getstate__(self) -> dict[str, Any]:
        if self.directory is not None:
            return {"directory": self.directory}
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        if set(state) == {"directory"}:
            state = TokenizedCorpus.open(state["directory"]).__dict__
        self.__dict__.update(state)


def _tokenize_to(
    folder: Path,
    paths: Sequence[str | os.PathLike],
    tokenizer: Any,
    dtype: type,
    batch_size: int,
    progress: bool,
    word_segmented: bool = False,
) -> dict[str, int]:
    """Stream documents through the tokenizer in batches; write the arrays into `folder`."""
    lengths: list[np.ndarray] = []  # tokens per kept sentence, one array per batch
    owners: list[np.ndarray] = []  # document number of each kept sentence
    pending: list[str] = []
    pending_owner: list[int] = []
    pending_starts: list[list[int]] = []  # word_segmented: each pending sentence's word starts
    raw = folder / "tokens.bin"
    starts_raw = folder / "token_word_start.bin"
    num_tokens = 0
    if word_segmented and not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            "A word-segmented corpus needs a fast tokenizer (character offsets); load it with "
            "albert.data.tokenizer.load_tokenizer."
        )

    def flush(stream: Any, starts_stream: Any) -> None:
        nonlocal num_tokens
        encoded = tokenizer(
            pending,
            add_special_tokens=False,
            return_attention_mask=False,
            return_token_type_ids=False,
            return_offsets_mapping=word_segmented,
            verbose=False,
        )
        ids = encoded["input_ids"]
        sizes = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter(itertools.chain.from_iterable(ids), dtype=dtype, count=int(sizes.sum()))
        stream.write(flat.tobytes())
        if word_segmented:
            flags = itertools.chain.from_iterable(
                token_word_starts(offsets, starts)
                for offsets, starts in zip(encoded["offset_mapping"], pending_starts, strict=True)
            )
            starts_stream.write(np.fromiter(flags, dtype=bool, count=flat.size).tobytes())
            pending_starts.clear()
        keep = sizes > 0
        lengths.append(sizes[keep])
        owners.append(np.asarray(pending_owner, dtype=np.int64)[keep])
        num_tokens += int(flat.size)
        bar.update(len(pending))
        bar.set_postfix(tokens=f"{num_tokens:,}", refresh=False)
        pending.clear()
        pending_owner.clear()

    # A tokenizer that reads Chinese keeps only running text: no headlines, bylines or captions (is_running_text).
    running_text_only = is_character_vocabulary(tokenizer.get_vocab())
    with (
        open(raw, "wb") as stream,
        open(starts_raw, "wb") as starts_stream,
        tqdm(desc="Tokenizing", unit=" sentences", disable=not progress) as bar,
    ):
        for number, document in enumerate(read_documents(paths)):
            for paragraph in document:
                if running_text_only and not is_running_text(paragraph):
                    continue
                if word_segmented:
                    segmented = segmented_sentences(paragraph, split_sentences)
                    sentences = [sentence for sentence, _ in segmented]
                    pending_starts.extend(starts for _, starts in segmented)
                else:
                    sentences = split_sentences(paragraph)
                pending.extend(sentences)
                pending_owner.extend([number] * len(sentences))
            if len(pending) >= batch_size:
                flush(stream, starts_stream)
        if pending:
            flush(stream, starts_stream)
    sentence_lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    sentence_offsets = np.concatenate([[0], np.cumsum(sentence_lengths)]).astype(np.int64)
    # A document starts where the owner changes; documents whose sentences all vanished are gone.
    starts = np.flatnonzero(np.concatenate([[True], owner[1:] != owner[:-1]])) if owner.size else np.zeros(0, int)
    document_offsets = np.concatenate([starts, [owner.size]]).astype(np.int64)
    _save_npy(
        folder / "tokens.npy",
        np.memmap(raw, dtype=dtype, mode="r", shape=(num_tokens,)) if num_tokens else np.zeros(0, dtype=dtype),
    )
    raw.unlink()
    if word_segmented:
        _save_npy(folder / "token_word_start.npy", np.fromfile(starts_raw, dtype=bool, count=num_tokens))
    starts_raw.unlink()
    _save_npy(folder / "sentence_offsets.npy", sentence_offsets)
    _save_npy(folder / "document_offsets.npy", document_offsets)
    return {"documents": len(document_offsets) - 1, "sentences": int(owner.size), "tokens": num_tokens}
