"""SentencePiece tokenizer training and loading, compatible with transformers' AlbertTokenizer.

ALBERT's tokenizer is a SentencePiece unigram model over lower-cased text with the pieces
`<pad>`=0, `<unk>`=1, `[CLS]`=2, `[SEP]`=3, `[MASK]`=4 (the ids transformers' AlbertTokenizer
expects). transformers normalises text before its SentencePiece model sees it (`` and '' to
", NFKD, accents stripped, lower case; `keep_accents=False`, `do_lower_case=True`), so we
feed the trainer text normalised by exactly those steps: the vocabulary is then made of the
strings the tokenizer will really meet, and no piece is wasted on an accent or a capital.

For Chinese, `train_tokenizer(..., han_characters=True)` makes a character vocabulary as Chinese
BERT and albert_zh use: each Han character is one piece and no piece holds two, while Latin words,
numbers and punctuation still get SentencePiece's subword pieces. NFKD (above) turns the full-width
digits and letters of Chinese print ("１９９７年", "ＡＰＥＣ") into ASCII ones before either
tokenizer sees them.

    python -m albert.tokenizer --files zh-train.txt.xz reviews-train.txt --output-dir runs/zh-tokenizer \\
        --vocab-size 8000 --han-characters
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sentencepiece as spm
from tokenizers import models, normalizers

from albert.data.chinese import HAN, count_han, isolate_han
from albert.data.corpus import read_documents
from albert.data.sentences import split_sentences

if TYPE_CHECKING:  # transformers is imported when a tokenizer is built or loaded: the app starts without it
    from transformers import PreTrainedTokenizerBase

_LOADING = threading.Lock()
"""One tokenizer load at a time. Two threads importing transformers for their first tokenizer (the app's warm-up and
its first request) made its lazy module raise "cannot import name 'AlbertTokenizerFast'" in one of them."""

logger = logging.getLogger(__name__)

SPECIAL_PIECES = ("<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]")
"""ALBERT's special pieces, in id order 0..4."""
WORDPIECE_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
"""BERT's special tokens, which its WordPiece vocabulary must hold (at ids of its own)."""

MODEL_MAX_LENGTH = 512  # ALBERT's position embeddings; written into tokenizer_config.json
MODEL_INPUTS = ["input_ids", "token_type_ids", "attention_mask"]


def albert_normalizer() -> normalizers.Normalizer:
    """The normalisation transformers' AlbertTokenizer applies before its SentencePiece model."""
    return normalizers.Sequence(
        [
            normalizers.Replace("``", '"'),
            normalizers.Replace("''", '"'),
            normalizers.NFKD(),
            normalizers.StripAccents(),
            normalizers.Lowercase(),
        ]
    )


# In han_characters mode SentencePiece learns no piece across this character (U+E000, private use:
# never in real text), put around every Han character of its training text.
_HAN_DELIMITER = "\ue000"
# ...and these are always pieces, so Latin words and numbers never become <unk>, and "▁" (which
# transformers puts before every text) exists even when the training text has no space.
_REQUIRED_CHARACTERS = "▁abcdefghijklmnopqrstuvwxyz0123456789"


def _training_sentences(files: Sequence[str | Path], han_characters: bool = False) -> Iterator[str]:
    normalizer = albert_normalizer()
    for document in read_documents(files):
        for paragraph in document:
            for sentence in split_sentences(paragraph):
                sentence = normalizer.normalize_str(sentence)
                yield isolate_han(sentence, _HAN_DELIMITER) if han_characters else sentence


def _is_mixed_han_piece(piece: str) -> bool:
    """A piece holding a Han character and anything else ("中国", "▁我", "年1998"); not allowed with han_characters."""
    return count_han(piece) > 0 and not (len(piece) == 1 and HAN.fullmatch(piece) is not None)


def _character_vocabulary(model_bytes: bytes, vocab_size: int) -> tuple[bytes, int]:
    """Drop the pieces that mix a Han character with anything else; then, when more than `vocab_size`
    pieces remain, the lowest-scoring multi-character ones. Returns the model and its size.

    transformers ignores SentencePiece's `add_dummy_prefix` and always puts "▁" before a text, so the
    model is set to do the same (it was trained without, so that no piece "▁X" was learned).
    """
    from sentencepiece import sentencepiece_model_pb2  # needs `protobuf`, as transformers' conversion does

    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model_bytes)
    normal = sentencepiece_model_pb2.ModelProto.SentencePiece.NORMAL
    keep = [p for p in proto.pieces if not (p.type == normal and _is_mixed_han_piece(p.piece))]
    excess = len(keep) - vocab_size
    if excess > 0:
        multi = sorted(
            (i for i, p in enumerate(keep) if p.type == normal and len(p.piece) > 1), key=lambda i: keep[i].score
        )
        dropped = set(multi[:excess])
        keep = [p for i, p in enumerate(keep) if i not in dropped]
    kept = [sentencepiece_model_pb2.ModelProto.SentencePiece() for _ in keep]
    for new, old in zip(kept, keep, strict=True):
        new.CopyFrom(old)
    del proto.pieces[:]
    proto.pieces.extend(kept)
    proto.normalizer_spec.add_dummy_prefix = True
    proto.trainer_spec.vocab_size = len(kept)
    return proto.SerializeToString(), len(kept)


def _count_han_pieces(model_bytes: bytes) -> int:
    processor = spm.SentencePieceProcessor(model_proto=model_bytes)
    return sum(1 for i in range(processor.get_piece_size()) if HAN.fullmatch(processor.id_to_piece(i)))


def _train_sentencepiece(
    sentences: Callable[[], Iterator[str]], vocab_size: int, max_sentences: int, seed: int, options: dict[str, Any]
) -> bytes:
    """One SentencePiece unigram training run with ALBERT's settings (and `options` on top); the model's bytes."""
    spm.set_random_generator_seed(seed)
    model = io.BytesIO()
    settings = {
        # ALBERT's special pieces and ids; no <s>/</s> (ALBERT uses [CLS]/[SEP] instead).
        "pad_id": 0,
        "unk_id": 1,
        "bos_id": -1,
        "eos_id": -1,
        "control_symbols": list(SPECIAL_PIECES[2:]),
        "character_coverage": 0.99995,  # ALBERT's value: rare characters become <unk>
        "byte_fallback": False,  # transformers' ALBERT tokenizer has no byte fallback
        "input_sentence_size": max_sentences,
        "shuffle_input_sentence": True,
        "max_sentence_length": 1 << 16,
        "num_threads": min(os.cpu_count() or 1, 16),
        "minloglevel": 2,
        **options,
    }
    spm.SentencePieceTrainer.train(
        sentence_iterator=sentences(), model_writer=model, model_type="unigram", vocab_size=vocab_size, **settings
    )
    return model.getvalue()


def _retrain_as_characters(
    model_bytes: bytes,
    sentences: Callable[[], Iterator[str]],
    vocab_size: int,
    max_sentences: int,
    seed: int,
    options: dict[str, Any],
) -> bytes:
    """The character vocabulary of exactly `vocab_size` pieces. Dropping the pieces that mix Han with other
    text leaves fewer: train again with as many more as were dropped (twice is enough in practice), then trim."""
    size, trained = 0, vocab_size
    for _ in range(4):
        character_model, size = _character_vocabulary(model_bytes, vocab_size)
        if size >= vocab_size:
            break
        trained += vocab_size - size
        model_bytes = _train_sentencepiece(sentences, trained, max_sentences, seed, options)
    if size < vocab_size:
        raise RuntimeError(f"value <= {size}")  # reported as "too large" by _training_error
    logger.info(
        "Character vocabulary: %d single Han characters among %d pieces (SentencePiece trained with %d)",
        _count_han_pieces(character_model),
        vocab_size,
        trained,
    )
    return character_model


def _training_error(
    message: str, vocab_size: int, han_characters: bool, counted: int, files: Sequence[str | Path]
) -> ValueError:
    """SentencePiece's RuntimeError as one sentence that says what to change."""
    limit = re.search(r"value <= (\d+)", message)
    required = re.search(r"smaller than required_chars\. (\d+) vs (\d+)", message)
    if required:
        return ValueError(
            f"vocab_size={vocab_size} is smaller than the {required.group(2)} distinct characters "
            "and special pieces of this corpus, which han_characters keeps every one of; use a "
            "larger vocab_size."
        )
    if limit and han_characters:
        return ValueError(
            f"vocab_size={vocab_size} is too large for this corpus with han_characters: SentencePiece "
            f"can make at most {limit.group(1)} pieces from it, fewer once those mixing Han "
            "characters with other text are removed; use a smaller vocab_size or more text."
        )
    if limit:
        return ValueError(
            f"vocab_size={vocab_size} is too large for this corpus: SentencePiece can make at most "
            f"{limit.group(1)} pieces from it; use a smaller vocab_size or more text."
        )
    if counted == 0:
        return ValueError(f"No text found in {', '.join(map(str, files))}.")
    return ValueError(f"SentencePiece training failed: {message}")


def train_tokenizer(
    files: Sequence[str | Path],
    output_dir: str | Path,
    vocab_size: int = 16000,
    max_sentences: int = 2_000_000,
    seed: int = 0,
    *,
    han_characters: bool = False,
) -> PreTrainedTokenizerBase:
    """Train a SentencePiece unigram model on `files`; save `spiece.model` and the transformers files.

    `max_sentences`: when the corpus has more sentences, SentencePiece trains on a uniform
    random sample of that many (reservoir sampling, seeded by `seed`). Returns the tokenizer
    loaded back from `output_dir` with `load_tokenizer`.

    `han_characters`: a character vocabulary for Chinese (Chinese BERT's, albert_zh's): every Han
    character is a piece of its own and no piece holds a Han character with anything else, so a run
    of Han text always splits into single characters (a text's leading "▁" is a piece of its own
    too). Every character of the training text is kept (character coverage 1.0, not 0.99995), and
    the ASCII letters and digits are always pieces, so Latin words and numbers are never `<unk>`;
    the remaining pieces are SentencePiece's subwords of the non-Han text (digits, Latin words,
    punctuation). `vocab_size` is still the exact size: it must exceed the number of distinct
    characters of the corpus.
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
        counted = 0
        for sentence in _training_sentences(files, han_characters):
            counted += 1
            yield sentence

    options: dict[str, Any] = {}
    if han_characters:
        options = {
            "character_coverage": 1.0,
            "required_chars": _REQUIRED_CHARACTERS,
            "pretokenization_delimiter": _HAN_DELIMITER,
            "add_dummy_prefix": False,
        }
    start = time.perf_counter()
    try:
        spm_model_bytes = _train_sentencepiece(sentences, vocab_size, max_sentences, seed, options)
        if han_characters:
            spm_model_bytes = _retrain_as_characters(
                spm_model_bytes, sentences, vocab_size, max_sentences, seed, options
            )
    except RuntimeError as error:
        raise _training_error(str(error), vocab_size, han_characters, counted, files) from error
    logger.info(
        "Trained a %d-piece unigram model on %d sentences (sampled up to %d) in %.1f s",
        vocab_size,
        counted,
        max_sentences,
        time.perf_counter() - start,
    )

    from transformers import AlbertTokenizerFast

    # spiece.model first: transformers converts it into tokenizer.json (needs `protobuf`).
    (output_dir / "spiece.model").write_bytes(spm_model_bytes)
    # transformers 5 drops token_type_ids from ALBERT's outputs by default; ALBERT uses them for
    # sentence pairs, so the saved config asks for them back.
    tokenizer = AlbertTokenizerFast.from_pretrained(
        str(output_dir),
        do_lower_case=True,
        keep_accents=False,
        model_max_length=MODEL_MAX_LENGTH,
        model_input_names=MODEL_INPUTS,
    )
    tokenizer.save_pretrained(str(output_dir))
    return load_tokenizer(output_dir)


def is_wordpiece(directory: str | Path) -> bool:
    """Whether a tokenizer folder holds BERT's WordPiece vocabulary (`vocab.txt`, or a WordPiece
    `tokenizer.json`) rather than ALBERT's SentencePiece model (`spiece.model`, or a Unigram `tokenizer.json`)."""
    directory = Path(directory)
    if (directory / "spiece.model").is_file():
        return False
    if (directory / "vocab.txt").is_file():
        return True
    try:
        data = json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    model = data.get("model") if isinstance(data, dict) else None
    return isinstance(model, dict) and model.get("type") == "WordPiece"


def load_tokenizer(directory: str | Path) -> PreTrainedTokenizerBase:
    """Load a tokenizer saved by `train_tokenizer` (or any ALBERT tokenizer folder), or a BERT folder's
    WordPiece tokenizer (transformers' own `BertTokenizerFast`, for BERT checkpoints read as ALBERT Lab models)."""
    directory = Path(directory)
    if not any((directory / name).is_file() for name in ("tokenizer.json", "spiece.model", "vocab.txt")):
        raise FileNotFoundError(
            f"No tokenizer in {directory}: expected tokenizer.json, spiece.model or (BERT) vocab.txt there "
            "(train one with albert.data.tokenizer.train_tokenizer)."
        )
    wordpiece = is_wordpiece(directory)
    try:
        with _LOADING:
            from transformers import AlbertTokenizerFast, BertTokenizerFast

            kind = BertTokenizerFast if wordpiece else AlbertTokenizerFast
            tokenizer = kind.from_pretrained(str(directory))
    except Exception as error:  # transformers raises many kinds here; all mean the same to the user
        raise ValueError(
            f"The tokenizer files in {directory} could not be loaded ({type(error).__name__}: "
            f"{error}); train the tokenizer again or copy its files anew."
        ) from error
    if wordpiece:
        # BERT's ids differ from ALBERT's (bert-base-uncased: [PAD]=0, [UNK]=100, [CLS]=101…); each must be in the
        # vocabulary itself: transformers appends a missing one after it, an id the model's embeddings lack.
        vocabulary = tokenizer.backend_tokenizer.get_vocab(with_added_tokens=False)
        missing = [token for token in WORDPIECE_SPECIAL_TOKENS if token not in vocabulary]
        if missing:
            raise ValueError(
                f"The WordPiece vocabulary in {directory} lacks {' '.join(missing)}; "
                f"BERT needs {' '.join(WORDPIECE_SPECIAL_TOKENS)}."
            )
        return tokenizer
    ids = [tokenizer.convert_tokens_to_ids(piece) for piece in SPECIAL_PIECES]
    if ids != list(range(len(SPECIAL_PIECES))):
        raise ValueError(
            f"The tokenizer in {directory} has special ids {dict(zip(SPECIAL_PIECES, ids, strict=True))}; "
            "ALBERT expects <pad>=0 <unk>=1 [CLS]=2 [SEP]=3 [MASK]=4."
        )
    return tokenizer


def encode_masked(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    """Token ids of `text`, where `[MASK]` stands for a word, as the pretraining pipeline would have seen them.

    transformers' ALBERT tokenizer starts every stretch of text after a special token with a word-start piece:
    "is [MASK]." gives `[MASK] ▁.` and "共和[MASK]成立" gives `[MASK] ▁ 成`. The pipeline masks ids, never text, so
    its models never saw that piece there: in a sentence-start `▁` a character-vocabulary model reads the end of
    the previous sentence (the Chinese model then gives "。" 90%). Text glued to a `[MASK]` is encoded glued (without
    the word-start piece); text after a space, and everything else, as the tokenizer encodes it.
    """
    mask = tokenizer.mask_token
    chunks = text.split(mask)
    ids = _encode_plain(tokenizer, chunks[0])
    for chunk in chunks[1:]:
        ids.append(tokenizer.mask_token_id)
        if not chunk or chunk[0].isspace():
            ids += _encode_plain(tokenizer, chunk)
            continue
        glued, rest = re.match(r"(\S*)(.*)", chunk, flags=re.DOTALL).groups()
        ids += _encode_glued(tokenizer, glued) + _encode_plain(tokenizer, rest)
    return ids


def _encode_plain(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"] if text else []


def _encode_glued(tokenizer: PreTrainedTokenizerBase, word: str) -> list[int]:
    """One word's pieces without the word-start piece (the tokenizer's own normalizer and SentencePiece model)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and isinstance(backend.model, models.WordPiece):
        # BERT: no word-start piece to drop, and its pre-tokenizer (which splits "成立" and "s." apart) must run
        return _encode_plain(tokenizer, word)
    if backend is None:  # a slow tokenizer: drop the lone word-start piece it puts first, if any
        ids = _encode_plain(tokenizer, word)
        return ids[1:] if ids and tokenizer.convert_ids_to_tokens(ids[0]) == "▁" else ids
    normalized = backend.normalizer.normalize_str(word) if backend.normalizer else word
    return [token.id for token in backend.model.tokenize(normalized)]
