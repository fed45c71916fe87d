"""SentencePiece tokenizer training and loading, compatible with transformers' AlbertTokenizer.

ALBERT's tokenizer is a SentencePiece unigram model over lower-cased text with the pieces
`<pad>`=0, `<unk>`=1, `[CLS]`=2, `[SEP]`=3, `[MASK]`=4 (the ids transformers' AlbertTokenizer
expects). transformers normalises text before its SentencePiece model sees it (`` and '' to
", NFKD, accents stripped, lower case; `keep_accents=False`, `do_lower_case=True`), so we
feed the trainer text normalised by exactly those steps: the vocabulary is then made of the
strings the tokenizer will really meet, and no piece is wasted on an accent or a capital.
"""

from __future__ import annotations

import io
import logging
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import sentencepiece as spm
from tokenizers import normalizers
from transformers import AlbertTokenizerFast, PreTrainedTokenizerBase

from albert.corpus import read_documents, split_sentences

logger = logging.getLogger(__name__)

SPECIAL_PIECES = ("<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]")
"""ALBERT's special pieces, in id order 0..4."""

MODEL_MAX_LENGTH = 512  # ALBERT's position embeddings; written into tokenizer_config.json
MODEL_INPUTS = ["input_ids", "token_type_ids", "attention_mask"]


def albert_normalizer() -> normalizers.Normalizer:
    """The normalisation transformers' AlbertTokenizer applies before its SentencePiece model."""
    return normalizers.Sequence([
        normalizers.Replace("``", '"'), normalizers.Replace("''", '"'),
        normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase(),
    ])


def _training_sentences(files: Sequence[str | Path]) -> Iterator[str]:
    normalizer = albert_normalizer()
    for document in read_documents(files):
        for paragraph in document:
            for sentence in split_sentences(paragraph):
                yield normalizer.normalize_str(sentence)


def train_tokenizer(files: Sequence[str | Path], output_dir: str | Path, vocab_size: int = 16000,
                    max_sentences: int = 2_000_000, seed: int = 0) -> PreTrainedTokenizerBase:
    """Train a SentencePiece unigram model on `files`; save `spiece.model` and the transformers files.

    `max_sentences`: when the corpus has more sentences, SentencePiece trains on a uniform
    random sample of that many (reservoir sampling, seeded by `seed`). Returns the tokenizer
    loaded back from `output_dir` with `load_tokenizer`.
    """
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    if vocab_size < len(SPECIAL_PIECES) + 1:
        raise ValueError(f"vocab_size must be more than {len(SPECIAL_PIECES)} (the special pieces), got {vocab_size}.")
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, got {max_sentences}.")
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    counted = 0

    def sentences() -> Iterator[str]:
        nonlocal counted
        for sentence in _training_sentences(files):
            counted += 1
            yield sentence

    spm.set_random_generator_seed(seed)
    start = time.perf_counter()
    model = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=sentences(), model_writer=model, model_type="unigram", vocab_size=vocab_size,
            # ALBERT's special pieces and ids; no <s>/</s> (ALBERT uses [CLS]/[SEP] instead).
            pad_id=0, unk_id=1, bos_id=-1, eos_id=-1, control_symbols=list(SPECIAL_PIECES[2:]),
            character_coverage=0.99995,  # ALBERT's value: rare characters become <unk>
            byte_fallback=False,  # transformers' ALBERT tokenizer has no byte fallback
            input_sentence_size=max_sentences, shuffle_input_sentence=True,
            max_sentence_length=1 << 16, num_threads=min(os.cpu_count() or 1, 16), minloglevel=2,
        )
        spm_model_bytes = model.getvalue()
    except RuntimeError as error:
        message = str(error)
        limit = re.search(r"value <= (\d+)", message)
        if limit:
            raise ValueError(f"vocab_size={vocab_size} is too large for this corpus: SentencePiece can make at most "
                             f"{limit.group(1)} pieces from it; use a smaller vocab_size or more text.") from error
        if counted == 0:
            raise ValueError(f"No text found in {', '.join(map(str, files))}.") from error
        raise ValueError(f"SentencePiece training failed: {message}") from error
    logger.info("Trained a %d-piece unigram model on %d sentences (sampled up to %d) in %.1f s",
                vocab_size, counted, max_sentences, time.perf_counter() - start)

    # spiece.model first: transformers converts it into tokenizer.json (needs `protobuf`).
    (output_dir / "spiece.model").write_bytes(spm_model_bytes)
    # transformers 5 drops token_type_ids from ALBERT's outputs by default; ALBERT uses them for
    # sentence pairs, so the saved config asks for them back.
    tokenizer = AlbertTokenizerFast.from_pretrained(str(output_dir), do_lower_case=True, keep_accents=False,
                                                    model_max_length=MODEL_MAX_LENGTH, model_input_names=MODEL_INPUTS)
    tokenizer.save_pretrained(str(output_dir))
    return load_tokenizer(output_dir)


def load_tokenizer(directory: str | Path) -> PreTrainedTokenizerBase:
    """Load a tokenizer saved by `train_tokenizer` (or any ALBERT tokenizer folder)."""
    directory = Path(directory)
    if not (directory / "tokenizer.json").is_file() and not (directory / "spiece.model").is_file():
        raise FileNotFoundError(f"No tokenizer in {directory}: expected tokenizer.json or spiece.model there "
                                "(train one with albert.tokenizer.train_tokenizer).")
    try:
        tokenizer = AlbertTokenizerFast.from_pretrained(str(directory))
    except Exception as error:  # transformers raises many kinds here; all mean the same to the user
        raise ValueError(f"The tokenizer files in {directory} could not be loaded ({type(error).__name__}: "
                         f"{error}); train the tokenizer again or copy its files anew.") from error
    ids = [tokenizer.convert_tokens_to_ids(piece) for piece in SPECIAL_PIECES]
    if ids != list(range(len(SPECIAL_PIECES))):
        raise ValueError(f"The tokenizer in {directory} has special ids {dict(zip(SPECIAL_PIECES, ids, strict=True))}; "
                         "ALBERT expects <pad>=0 <unk>=1 [CLS]=2 [SEP]=3 [MASK]=4.")
    return tokenizer
