"""The Chinese character vocabulary: one Han character a piece, Latin words and digits, full-width forms, the same ids
in transformers and SentencePiece, the CLI, and a typed [MASK] encoded as the pipeline masks it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sentencepiece as spm
import transformers

from albert.data.chinese import HAN
from albert.data.tokenizer import SPECIAL_PIECES, albert_normalizer, encode_masked, train_tokenizer
from tests.data.chinese_support import OBJECTS, SUBJECTS, TEXTS, TIMES, VERBS, VOCAB


def test_character_vocabulary_has_one_han_character_a_piece(tokenizer, tokenizer_dir: Path) -> None:
    assert len(tokenizer) == VOCAB
    assert tokenizer.convert_tokens_to_ids(list(SPECIAL_PIECES)) == [0, 1, 2, 3, 4]
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    with_han = [p for p in pieces if HAN.search(p)]
    assert with_han and all(len(p) == 1 for p in with_han), [p for p in with_han if len(p) > 1]
    sp = spm.SentencePieceProcessor(model_file=str(tokenizer_dir / "spiece.model"))
    assert sp.get_piece_size() == VOCAB
    # Latin letters and digits are always pieces, and SentencePiece still learned longer non-Han pieces.
    assert set("abcdefghijklmnopqrstuvwxyz0123456789▁") <= set(pieces)
    assert any(len(p.lstrip("▁")) > 1 and not HAN.search(p) for p in pieces[5:])


def test_han_runs_split_into_characters(tokenizer) -> None:
    assert tokenizer.tokenize("我爱自然语言处理。") == ["▁", *"我爱自然语言处理", "。"]
    # Characters the corpus has are never <unk>; nor are Latin words and digits it never saw.
    training = "".join(SUBJECTS + TIMES + VERBS + OBJECTS)
    for text in ["".join(HAN.findall(training)), "zebra quickly 4096", "ALBERT模型2019年发布"]:
        assert tokenizer.unk_token_id not in tokenizer(text)["input_ids"], text


def test_full_width_digits_and_letters_are_normalised(tokenizer) -> None:
    assert tokenizer("１９９７年")["input_ids"] == tokenizer("1997年")["input_ids"]
    assert tokenizer("ＡＰＥＣ会议")["input_ids"] == tokenizer("apec会议")["input_ids"]
    assert tokenizer.decode(tokenizer("１９９７年，中国")["input_ids"], skip_special_tokens=True) == "1997年,中国"


@pytest.mark.parametrize("text", TEXTS)
def test_ids_equal_in_transformers_and_sentencepiece(tokenizer, tokenizer_dir: Path, tmp_path: Path, text: str) -> None:
    ours = tokenizer(text)["input_ids"]
    assert transformers.AlbertTokenizer.from_pretrained(str(tokenizer_dir))(text)["input_ids"] == ours
    assert transformers.AutoTokenizer.from_pretrained(str(tokenizer_dir))(text)["input_ids"] == ours
    shutil.copy(tokenizer_dir / "spiece.model", tmp_path / "spiece.model")  # transformers converts it itself
    assert transformers.AlbertTokenizer.from_pretrained(str(tmp_path))(text)["input_ids"] == ours
    sp = spm.SentencePieceProcessor(model_file=str(tokenizer_dir / "spiece.model"))
    assert [2, *sp.encode(albert_normalizer().normalize_str(text)), 3] == ours


def test_same_seed_same_model_and_clear_errors(
    corpus_files: tuple[Path, Path], tokenizer_dir: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    train_tokenizer([corpus_files[0]], again, vocab_size=VOCAB, han_characters=True)
    assert (again / "spiece.model").read_bytes() == (tokenizer_dir / "spiece.model").read_bytes()
    with pytest.raises(ValueError, match="too large for this corpus with han_characters"):
        train_tokenizer([corpus_files[0]], tmp_path / "huge", vocab_size=20_000, han_characters=True)
    with pytest.raises(ValueError, match="distinct characters"):
        train_tokenizer([corpus_files[0]], tmp_path / "tiny", vocab_size=60, han_characters=True)


def test_tokenizer_command(corpus_files: tuple[Path, Path], tokenizer_dir: Path, tmp_path: Path) -> None:
    from albert.commands.tokenizer import main

    main(
        [
            "--files",
            str(corpus_files[0]),
            "--output-dir",
            str(tmp_path / "cli"),
            "--vocab-size",
            str(VOCAB),
            "--han-characters",
        ]
    )
    assert (tmp_path / "cli" / "spiece.model").read_bytes() == (tokenizer_dir / "spiece.model").read_bytes()
    with pytest.raises(SystemExit, match="albert.tokenizer: vocab_size=20000 is too large"):
        main(
            [
                "--files",
                str(corpus_files[0]),
                "--output-dir",
                str(tmp_path / "x"),
                "--vocab-size",
                "20000",
                "--han-characters",
            ]
        )


def test_a_masked_character_is_encoded_as_the_pipeline_masks_it(tokenizer, corpus_files: tuple[Path, Path]) -> None:
    """共和[MASK]成立: the characters after the mask follow it directly, as in training, not after a sentence-start
    `▁` (which a character-vocabulary model reads as "a sentence ended here" and answers "。")."""
    text = next(line for line in corpus_files[0].read_text(encoding="utf-8").splitlines() if len(line) > 12)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    pieces = tokenizer.convert_ids_to_tokens(ids)
    positions = [
        i
        for i in range(2, len(pieces) - 1)
        if HAN.fullmatch(pieces[i]) and HAN.fullmatch(pieces[i + 1]) and text.count(pieces[i]) == 1
    ]  # a character met once: replacing it in the text masks that piece
    assert len(positions) >= 3
    for position in positions[:5]:
        masked = text.replace(pieces[position], "[MASK]")
        expected = [*ids[:position], tokenizer.mask_token_id, *ids[position + 1 :]]
        assert encode_masked(tokenizer, masked) == expected
        assert "▁" not in tokenizer.convert_ids_to_tokens(encode_masked(tokenizer, masked))[1:]
