"""SentencePiece training: ALBERT's special ids, and ids identical to transformers' and sentencepiece's."""

from __future__ import annotations

import lzma
import random
import re
import shutil
from pathlib import Path

import pytest
import sentencepiece as spm
import transformers

from albert.data.tokenizer import SPECIAL_PIECES, albert_normalizer, encode_masked, load_tokenizer, train_tokenizer

VOCAB = 300

SUBJECTS = [
    "the old sailor",
    "my sister",
    "a quiet village",
    "the committee",
    "Dr. Watson",
    "the river",
    "our neighbour",
    "the café owner",
    "a naïve student",
    "the children",
    "Mrs. Dalloway",
    "the engine",
]
VERBS = [
    "walked along",
    "remembered",
    "painted",
    "counted",
    "forgot",
    "admired",
    "repaired",
    "described",
    "followed",
    "measured",
    "visited",
    "carried",
]
OBJECTS = [
    "the narrow bridge",
    "seventeen lanterns",
    "an unusual garden",
    "the résumé",
    "three heavy boxes",
    "the northern hills",
    "a broken clock",
    "the morning train",
    "her grandmother's letters",
    "the crowded market",
    "forty-two pages",
    "the distant lighthouse",
]
ENDINGS = [
    ".",
    "!",
    "?",
    "; nobody noticed.",
    ", and then it rained.",
    " in 1887.",
    " at 3.14 o'clock.",
    " (twice).",
    " — quickly.",
    ' "again," she said.',
]
EXTRA = [
    "東京 and 京都 are cities.",
    "日本語 text appears here.",
    "Smiles 😀 and hearts ❤ everywhere!",
    "Prices rose 12% to $45.50 in 2023.",
    "Ünïcödé äccents: Zoë, Chloé, Renée, Noël.",
]

TEXTS = [
    "Hello, World! It's 3.14 dollars -- isn't it?",
    "Café, naïve, résumé, Zoë and CRÈME BRÛLÉE.",
    "東京 is in 日本; 北京 is not. 中文字符 測試",
    "Emoji: 😀 🎉 👍🏽 ❤️ and symbols © ® ™ € £ ¥",
    "Numbers 1,234,567.89 and 2023-10-05, 42nd, 3rd; phone +1 (555) 010-9999.",
    "``Quoted'' text with \"straight\" and “curly” quotes — dashes… ellipsis...",
    "  extra   spaces\tand\ttabs  ",
    "the old sailor remembered the narrow bridge in 1887.",
    "ﬁ ligature, ＦＵＬＬＷＩＤＴＨ letters, and ½ fractions",
    "",
]


def _name(rng: random.Random) -> str:
    """A made-up place name ("Tavoremi"): gives the text enough distinct words for the vocabulary."""
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(2, 4))).title()


def _training_text(num_sentences: int = 400, seed: int = 0) -> str:
    rng = random.Random(seed)
    places = [_name(rng) for _ in range(400)]
    lines = []
    for i in range(num_sentences):
        sentence = (
            f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} near "
            f"{rng.choice(places)}{rng.choice(ENDINGS)}"
        )
        lines.append(sentence[0].upper() + sentence[1:] if rng.random() < 0.7 else sentence)
        if i % 40 == 39:
            lines.append("")  # a blank line: the next document starts
    lines.extend(EXTRA * 3)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("text") / "train.txt"
    path.write_text(_training_text(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tokenizer_dir(corpus_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tokenizer")
    train_tokenizer([corpus_file], directory, vocab_size=VOCAB)
    return directory


def test_writes_files_and_special_ids(tokenizer_dir: Path) -> None:
    for name in ("spiece.model", "tokenizer.json", "tokenizer_config.json"):
        assert (tokenizer_dir / name).is_file(), name
    tokenizer = load_tokenizer(tokenizer_dir)
    assert len(tokenizer) == VOCAB
    assert tokenizer.convert_tokens_to_ids(list(SPECIAL_PIECES)) == [0, 1, 2, 3, 4]
    assert (
        tokenizer.pad_token_id,
        tokenizer.unk_token_id,
        tokenizer.cls_token_id,
        tokenizer.sep_token_id,
        tokenizer.mask_token_id,
    ) == (0, 1, 2, 3, 4)
    sp = spm.SentencePieceProcessor(model_file=str(tokenizer_dir / "spiece.model"))
    assert [sp.id_to_piece(i) for i in range(5)] == list(SPECIAL_PIECES)
    assert sp.get_piece_size() == VOCAB
    pair = tokenizer("first part", "second part")
    ids, types = pair["input_ids"], pair["token_type_ids"]
    assert ids[0] == 2 and ids[-1] == 3 and ids.count(3) == 2
    assert types == [0] * (ids.index(3) + 1) + [1] * (len(ids) - ids.index(3) - 1)


def _sentencepiece_ids(model_file: Path, text: str) -> list[int]:
    """The reference: sentencepiece itself on text normalised as transformers' AlbertTokenizer does."""
    sp = spm.SentencePieceProcessor(model_file=str(model_file))
    return [2, *sp.encode(albert_normalizer().normalize_str(text)), 3]


@pytest.mark.parametrize("text", TEXTS)
def test_ids_equal_transformers_and_sentencepiece(tokenizer_dir: Path, tmp_path: Path, text: str) -> None:
    ours = load_tokenizer(tokenizer_dir)(text)["input_ids"]
    assert transformers.AlbertTokenizer.from_pretrained(str(tokenizer_dir))(text)["input_ids"] == ours
    assert transformers.AlbertTokenizerFast.from_pretrained(str(tokenizer_dir))(text)["input_ids"] == ours
    assert transformers.AutoTokenizer.from_pretrained(str(tokenizer_dir))(text)["input_ids"] == ours
    # A folder with spiece.model alone makes transformers convert the model itself: same ids.
    shutil.copy(tokenizer_dir / "spiece.model", tmp_path / "spiece.model")
    assert transformers.AlbertTokenizer.from_pretrained(str(tmp_path))(text)["input_ids"] == ours
    assert _sentencepiece_ids(tokenizer_dir / "spiece.model", text) == ours


def test_lower_cases_and_strips_accents(tokenizer_dir: Path) -> None:
    tokenizer = load_tokenizer(tokenizer_dir)
    assert tokenizer("The CAFÉ")["input_ids"] == tokenizer("the cafe")["input_ids"]


def test_training_words_are_not_unknown(tokenizer_dir: Path, corpus_file: Path) -> None:
    tokenizer = load_tokenizer(tokenizer_dir)
    text = corpus_file.read_text(encoding="utf-8")
    words = sorted({w for w in re.findall(r"[A-Za-zÀ-ÿ]+", text)})
    assert len(words) > 50
    unknown = [w for w in words if tokenizer.unk_token_id in tokenizer(w, add_special_tokens=False)["input_ids"]]
    assert unknown == []
    sentence = "The old sailor remembered seventeen lanterns in 1887."
    assert tokenizer.unk_token_id not in tokenizer(sentence)["input_ids"]
    assert tokenizer.decode(tokenizer(sentence)["input_ids"], skip_special_tokens=True) == sentence.lower()


def test_same_seed_same_model_and_xz_input(corpus_file: Path, tokenizer_dir: Path, tmp_path: Path) -> None:
    compressed = tmp_path / "train.txt.xz"
    compressed.write_bytes(lzma.compress(corpus_file.read_bytes()))
    train_tokenizer([compressed], tmp_path / "again", vocab_size=VOCAB)
    assert (tmp_path / "again" / "spiece.model").read_bytes() == (tokenizer_dir / "spiece.model").read_bytes()


def test_sampling_a_large_corpus(corpus_file: Path, tmp_path: Path) -> None:
    tokenizer = train_tokenizer([corpus_file], tmp_path, vocab_size=200, max_sentences=150)
    assert len(tokenizer) == 200


def test_clear_errors(corpus_file: Path, tokenizer_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="too large for this corpus"):
        train_tokenizer([corpus_file], tmp_path / "huge", vocab_size=50_000)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        train_tokenizer([tmp_path / "missing.txt"], tmp_path / "x", vocab_size=100)
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "nothing"))):
        load_tokenizer(tmp_path / "nothing")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="could not be loaded"):
        load_tokenizer(broken)


@pytest.mark.parametrize(
    "template", ["he saw the {}.", "the {}, and then it rained.", "our {}! nobody noticed", "{} rose to 12%"]
)
def test_a_masked_word_is_encoded_as_the_pipeline_masks_it(tokenizer_dir: Path, template: str) -> None:
    """`[MASK]` in the text gives the ids the pipeline makes when it masks that word's piece: no word-start piece
    glued onto the punctuation after it (transformers' tokenizer alone gives "[MASK] ▁." and "[MASK] ▁ ,")."""
    tokenizer = load_tokenizer(tokenizer_dir)
    words = [
        piece[1:]
        for piece in tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        if piece.startswith("▁") and piece[1:].isalpha() and len(piece) > 4
    ]
    checked = 0
    for word in words[:20]:
        text = template.format(word)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        pieces = tokenizer.convert_ids_to_tokens(ids)
        if "▁" + word not in pieces:
            continue  # split differently in this text
        position = pieces.index("▁" + word)
        expected = [*ids[:position], tokenizer.mask_token_id, *ids[position + 1 :]]
        masked = template.format("[MASK]")
        assert encode_masked(tokenizer, masked) == expected, word
        assert encode_masked(tokenizer, text) == ids  # text without a mask: exactly the tokenizer's ids
        if template[template.index("}") + 1] in ".,!":
            assert tokenizer(masked, add_special_tokens=False)["input_ids"] != expected  # what it fixes
        checked += 1
    assert checked >= 5
