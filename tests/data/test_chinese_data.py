"""Chinese data: sentence splitting, running text, whole-word masking from a segmentation, and packaging a Chinese
model. The corpus and tokenizer fixtures are in this folder's conftest.py (the tokenizer's own tests:
test_chinese_tokenizer).
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import transformers

from albert.cli import parse_config
from albert.commands.pretrain import PretrainConfig
from albert.core.config import IGNORE_INDEX
from albert.data.chinese import is_running_text, join_words, segmented_sentences, token_word_starts
from albert.data.corpus import TokenizedCorpus, read_documents
from albert.data.masking import SpecialIds, mask_tokens
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset
from albert.data.sentences import split_sentences
from albert.data.tokenizer import albert_normalizer, load_tokenizer, train_tokenizer
from tests.data.chinese_support import LATIN

# --------------------------------------------------------------------------- sentences


@pytest.mark.parametrize(
    "paragraph, sentences",
    [
        ("他说：“今天下雨了。”我们就没去。", ["他说：“今天下雨了。”", "我们就没去。"]),
        ("真的吗？！我不信……你呢？", ["真的吗？！", "我不信……", "你呢？"]),
        ("第一，发展经济；第二，改善民生。", ["第一，发展经济；", "第二，改善民生。"]),
        (
            "江泽民发表新年讲话《迈向充满希望的新世纪》。（新华社记者兰红光摄）",
            ["江泽民发表新年讲话《迈向充满希望的新世纪》。", "（新华社记者兰红光摄）"],
        ),
        ("“好！”“走吧。”", ["“好！”", "“走吧。”"]),
        ("他们说：「对！」然后走了。 下一句", ["他们说：「对！」", "然后走了。", "下一句"]),
        ("价格是１．５元，增长３．２％。", ["价格是１．５元，增长３．２％。"]),
        ("（一九九七年十二月三十一日）", ["（一九九七年十二月三十一日）"]),
        ("好!我们走吧?走", ["好!", "我们走吧?", "走"]),
        ("他在2019年发布了ALBERT。Then he left. OK", ["他在2019年发布了ALBERT。", "Then he left.", "OK"]),
        ("Hmm… and so on. Really?! Yes.", ["Hmm… and so on.", "Really?!", "Yes."]),
    ],
)
def test_split_chinese_sentences(paragraph: str, sentences: list[str]) -> None:
    assert split_sentences(paragraph) == sentences


@pytest.mark.parametrize(
    "paragraph, running",
    [
        ("迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）", False),  # a headline
        ("中共中央总书记、国家主席江泽民", False),  # a byline
        ("（一九九七年十二月三十一日）", False),  # a dateline
        ("（新华社记者兰红光摄）", False),  # a photo credit
        ("同胞们、朋友们、女士们、先生们：", False),
        ("江泽民发表新年讲话。（新华社记者兰红光摄）", False),  # ends with the caption
        ("我们就没去。", True),
        ("真的吗？！", True),
        ("他说：“今天下雨了。”", True),
        ("好!", True),
        ("他 说 ： “ 下雨 了 。 ” ", True),  # word-segmented: spaces among the closing marks
        ("第一，发展经济；", True),
        ("我不信……", True),
        ("CHAPTER ONE", True),
        ("The end", True),
        ("", True),  # no Han characters: kept as is
    ],
)
def test_running_text_drops_headlines_bylines_and_captions(paragraph: str, running: bool) -> None:
    assert is_running_text(paragraph) is running


def test_corpus_for_a_character_vocabulary_keeps_only_running_text(tokenizer, tmp_path: Path) -> None:
    text = (
        "人民日报新年献词\n（一九九七年十二月三十一日）\n我们今天学习自然语言处理。他说：“今天发布长城。”\n"
        "老师喜欢这部电影！\n（新华社记者摄）\n\n新闻标题\n学生们最近完成国际合作。\n"
    )
    path = tmp_path / "news.txt"
    path.write_text(text, encoding="utf-8")
    corpus = TokenizedCorpus.build([path], tokenizer, tmp_path / "cache", progress=False)
    kept = [tokenizer.decode(corpus.sentence(s).tolist()).replace(" ", "") for s in range(corpus.num_sentences)]
    assert kept == [
        "我们今天学习自然语言处理。",
        "他说:“今天发布长城。”",
        "老师喜欢这部电影!",
        "学生们最近完成国际合作。",
    ]
    assert corpus.num_documents == 2


def test_lone_boundary_piece_of_a_character_vocabulary_is_never_masked(
    tokenizer, corpus_files: tuple[Path, Path], tmp_path: Path
) -> None:
    boundary = tokenizer.convert_tokens_to_ids("▁")
    special = SpecialIds.from_tokenizer(tokenizer)
    assert special.boundary_id == boundary and special.never_masked[boundary]
    corpus = TokenizedCorpus.build(
        [corpus_files[1]], tokenizer, tmp_path / "cache", progress=False, word_segmented=True
    )
    assert corpus.special_ids.boundary_id == boundary  # kept in the cache's meta.json
    assert (corpus.tokens == boundary).mean() > 0.02  # one before each sentence: worth excluding
    for whole_word in (True, False):
        config = PretrainingDataConfig(max_seq_length=128, whole_word_masking=whole_word, masked_lm_prob=0.5)
        dataset = PretrainingDataset(corpus, config, tokenizer, mask_all=True)
        labels = np.concatenate([dataset[i]["mlm_labels"].numpy() for i in range(len(dataset))])
        assert (labels != IGNORE_INDEX).sum() > 500 and not (labels == boundary).any()


def test_english_vocabulary_keeps_its_boundary_piece_maskable(tmp_path: Path) -> None:
    """The English models' protocol masks "▁" like any piece; only a character vocabulary excludes it."""
    text = "\n".join(f"The {w} of the {v} is here. It was {w} again." for w in LATIN for v in LATIN)
    (tmp_path / "en.txt").write_text(text, encoding="utf-8")
    train_tokenizer([tmp_path / "en.txt"], tmp_path / "tok", vocab_size=36)
    special = SpecialIds.from_tokenizer(load_tokenizer(tmp_path / "tok"))
    assert special.boundary_id is None and special.never_masked.sum() == 4


def test_segmented_sentences_and_token_word_starts() -> None:
    assert join_words("我们 爱 自然 语言") == ("我们爱自然语言", [0, 2, 3, 5])
    # The space in "。 ”" would hide the boundary: sentences are split on the joined text.
    assert segmented_sentences("他 说 ： “ 下雨 了 。 ” 我们 没 去 。", split_sentences) == [
        ("他说：“下雨了。”", [0, 1, 2, 3, 4, 6, 7, 8]),
        ("我们没去。", [0, 2, 3, 4]),
    ]
    # "▁" and "我" share the first character: the "▁" starts the word; "1997" covers two words' starts.
    assert token_word_starts([(0, 1), (0, 1), (1, 2), (2, 3), (3, 7), (7, 8)], [0, 2, 3, 5, 7]) == [
        True,
        False,
        False,
        True,
        True,
        True,
    ]


# --------------------------------------------------------------------------- whole-word masking


def _words_per_sentence(path: Path) -> list[list[str]]:
    """Every sentence of a segmented file as its list of words (the test's segmentation)."""
    result = []
    for document in read_documents([path]):
        for paragraph in document:
            for sentence, starts in segmented_sentences(paragraph, split_sentences):
                bounds = [*starts, len(sentence)]
                result.append([sentence[a:b] for a, b in zip(bounds, bounds[1:], strict=False)])
    return result


def test_segmented_corpus_tokens_and_word_starts(tokenizer, corpus_files: tuple[Path, Path], tmp_path: Path) -> None:
    plain, segmented = corpus_files
    corpus = TokenizedCorpus.build([segmented], tokenizer, tmp_path / "cache", progress=False, word_segmented=True)
    reference = TokenizedCorpus.build([plain], tokenizer, tmp_path / "cache", progress=False)
    # The spaces are gone: the same tokens as the unsegmented twin, sentence for sentence.
    assert np.array_equal(corpus.tokens, reference.tokens)
    assert np.array_equal(corpus.sentence_offsets, reference.sentence_offsets)
    assert np.array_equal(corpus.document_offsets, reference.document_offsets)
    assert reference.token_word_start is None and corpus.token_word_start.dtype == bool
    space = tokenizer.convert_tokens_to_ids("▁")
    first = corpus.sentence_offsets[:-1]
    assert set(np.flatnonzero(corpus.tokens == space)) <= set(first)  # only the leading "▁" of a sentence
    # Each token starts a word exactly where the test's segmentation begins one.
    words = _words_per_sentence(segmented)
    assert len(words) == corpus.num_sentences
    for s in range(corpus.num_sentences):
        flags = corpus.token_word_start[corpus.sentence_offsets[s] : corpus.sentence_offsets[s + 1]]
        ids = corpus.sentence(s)
        pieces = tokenizer.convert_ids_to_tokens(ids.tolist())
        rebuilt, current = [], ""
        for piece, flag in zip(pieces, flags, strict=True):
            if flag and current:
                rebuilt.append(current)
                current = ""
            current += piece
        rebuilt.append(current)
        expected = [albert_normalizer().normalize_str(w) for w in words[s]]
        expected[0] = "▁" + expected[0]
        # A multi-character piece may cover two words ("。”"); then they are one unit.
        assert "".join(rebuilt) == "".join(expected)
        boundaries = set(np.cumsum([len(w) for w in rebuilt])[:-1])
        assert boundaries <= set(np.cumsum([len(w) for w in expected])[:-1]), (rebuilt, expected)
        assert flags[0]


def test_segmented_cache_round_trips_and_has_its_own_key(
    tokenizer, corpus_files: tuple[Path, Path], tmp_path: Path
) -> None:
    segmented = corpus_files[1]
    cache = tmp_path / "cache"
    corpus = TokenizedCorpus.build([segmented], tokenizer, cache, progress=False, word_segmented=True)
    assert (corpus.directory / "token_word_start.npy").is_file()
    again = TokenizedCorpus.build([segmented], tokenizer, cache, progress=False, word_segmented=True)
    assert again.directory == corpus.directory and isinstance(again.token_word_start, np.memmap)
    assert np.array_equal(again.token_word_start, corpus.token_word_start)
    assert np.array_equal(pickle.loads(pickle.dumps(again)).token_word_start, corpus.token_word_start)
    # The same file read as plain text is another cache entry (its spaces are text there).
    as_plain = TokenizedCorpus.build([segmented], tokenizer, cache, progress=False)
    assert as_plain.directory != corpus.directory and as_plain.token_word_start is None
    assert as_plain.num_tokens > corpus.num_tokens
    (corpus.directory / "token_word_start.npy").unlink()
    with pytest.raises(ValueError, match="incomplete or corrupt"):
        TokenizedCorpus.open(corpus.directory)


def _word_starts_of(corpus: TokenizedCorpus, example: dict) -> np.ndarray:
    """Per position of an example, the corpus's word starts, found without the dataset's help: each
    segment (whole sentences here) is looked up among the corpus's sentence starts by its tokens."""
    labels = example["mlm_labels"].numpy()
    original = np.where(labels != IGNORE_INDEX, labels, example["input_ids"].numpy())
    separators = np.flatnonzero(original == 3)
    flags = np.ones(original.size, dtype=bool)
    begin = 1
    for separator in separators:
        segment = original[begin:separator]
        found = [
            int(o)
            for o in corpus.sentence_offsets[:-1]
            if np.array_equal(corpus.tokens[int(o) : int(o) + segment.size], segment)
        ]
        assert found, "a segment is not a run of whole sentences"
        flags[begin:separator] = corpus.token_word_start[found[0] : found[0] + segment.size]
        begin = separator + 1
    return flags


@pytest.mark.parametrize("objective", ["sop", "none"])
def test_whole_word_masking_masks_whole_segmented_words(
    tokenizer, corpus_files: tuple[Path, Path], tmp_path: Path, objective: str
) -> None:
    corpus = TokenizedCorpus.build(
        [corpus_files[1]], tokenizer, tmp_path / "cache", progress=False, word_segmented=True
    )
    counts = {}
    for whole_word in (True, False):  # character-level masking (the default) does cut words
        config = PretrainingDataConfig(
            max_seq_length=128, whole_word_masking=whole_word, masked_lm_prob=0.3, objective=objective
        )
        dataset = PretrainingDataset(corpus, config, tokenizer, mask_all=True)
        whole = cut = 0
        for index in range(len(dataset)):
            example = dataset[index]
            masked = example["mlm_labels"].numpy() != IGNORE_INDEX
            units = np.cumsum(_word_starts_of(corpus, example))  # one number per word
            # A sentence's leading "▁" belongs to its first word but is never masked (SpecialIds.boundary_id).
            units[example["input_ids"].numpy() == dataset.special.boundary_id] = -1
            for unit in np.unique(units[masked]):
                if not masked[units == unit].all():
                    cut += 1
                elif (units == unit).sum() > 1:
                    whole += 1
        counts[whole_word] = whole, cut
    assert counts[True][1] == 0 and counts[True][0] > 50, counts
    assert counts[False][1] > 20, counts


def test_mask_tokens_takes_word_starts_per_position() -> None:
    special = SpecialIds(pad_id=0, unk_id=1, cls_id=2, sep_id=3, mask_id=4, vocab_size=50)
    ids = np.array([2, 10, 11, 12, 13, 14, 15, 16, 17, 3])
    starts = np.array([1, 1, 0, 0, 1, 0, 1, 1, 0, 1], dtype=bool)  # words 10-12, 13-14, 15, 16-17
    maskable = np.ones(ids.size, dtype=bool)
    maskable[[0, -1]] = False
    for seed in range(30):
        _, labels = mask_tokens(
            ids,
            maskable,
            np.random.default_rng(seed),
            special,
            masked_lm_prob=0.3,
            max_predictions=8,
            max_ngram=1,
            whole_word=True,
            mask_all=True,
            word_start=starts,
        )
        masked = set(np.flatnonzero(labels != IGNORE_INDEX))
        for word in ({1, 2, 3}, {4, 5}, {6}, {7, 8}):
            assert word <= masked or not word & masked
    with pytest.raises(ValueError, match="one flag per position"):
        mask_tokens(
            ids,
            maskable,
            np.random.default_rng(0),
            special,
            masked_lm_prob=0.3,
            max_predictions=8,
            max_ngram=1,
            whole_word=True,
            word_start=starts[:-1],
        )


def test_pretrain_cli_has_the_word_segmented_flag() -> None:
    config = parse_config(
        PretrainConfig,
        ["--corpus", "a.words.txt", "--word-segmented", "--tokenizer", "tok", "--data.whole-word-masking"],
    )
    assert config.word_segmented and config.data.whole_word_masking
    assert not parse_config(PretrainConfig, ["--corpus", "a.txt"]).word_segmented


def test_sentences_hold_no_whitespace_from_the_segmentation(corpus_files: tuple[Path, Path]) -> None:
    for sentence, _ in segmented_sentences(corpus_files[1].read_text(encoding="utf-8").split("\n")[0], split_sentences):
        assert not re.search(r"\s", sentence)


# --------------------------------------------------------------------------- packaging a Chinese model


def test_chinese_model_is_packaged_scored_on_single_characters_and_kept_out_of_the_english_family(
    corpus_files: tuple[Path, Path], tokenizer_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from albert import AlbertForPreTraining
    from albert.commands.pretrain import run
    from albert.training.pretraining_evaluation import card_mismatches, mlm_max_ngram, score_model
    from scripts.package_model import EVAL_EXAMPLES, ORDER_PAIRS, package
    from tests.training.test_pretrain import TINY_MODEL

    plain, segmented = corpus_files
    arguments = [
        *("--corpus", str(segmented), "--valid-corpus", str(segmented), "--word-segmented"),
        *(
            "--tokenizer",
            str(tokenizer_dir),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--output-dir",
            str(tmp_path / "run"),
        ),
        *("--data.max-seq-length", "48", "--batch-size", "8", "--max-steps", "4", "--eval-every", "4"),
        *("--eval-examples", "16", "--threads", "1", "--data.max-ngram", "1", *TINY_MODEL),
    ]
    run(parse_config(PretrainConfig, arguments))
    assets = tmp_path / "assets"
    metrics = package(tmp_path / "run", "tiny-zh", [str(plain)], assets, notes="一个很小的模型。", language="zh")
    folder = assets / "models" / "tiny-zh"
    # the target is on single characters, each replaced by [MASK]; the re-check reads that from the folder
    assert metrics["mlm_max_ngram"] == 1 and mlm_max_ngram(folder) == 1 and metrics["mlm_n"] > 0
    single = score_model(folder, [str(plain)], EVAL_EXAMPLES, ORDER_PAIRS, tmp_path / "score")
    assert not card_mismatches(folder, single)
    import albert.training.pretraining_evaluation as pretraining  # where score_mlm looks make_eval_batches up

    spans_asked: list[int] = []
    make_eval_batches = pretraining.make_eval_batches

    def recording(corpus, data, *args, **kwargs):
        spans_asked.append(data.max_ngram)
        return make_eval_batches(corpus, data, *args, **kwargs)

    monkeypatch.setattr(pretraining, "make_eval_batches", recording)
    score_model(folder, [str(plain)], EVAL_EXAMPLES, ORDER_PAIRS, tmp_path / "score")
    score_model(folder, [str(plain)], EVAL_EXAMPLES, ORDER_PAIRS, tmp_path / "score", max_ngram=3)
    assert spans_asked == [1, 3]  # one MLM set: the folder's single characters, then as asked
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\nlanguage: zh\n") and "一个很小的模型。" in card
    # the Sharing modes tab compares the English family: the Chinese curve and row are kept apart
    assert (assets / "runs" / "zh" / "tiny-zh.csv").is_file() and not (assets / "runs" / "tiny-zh.csv").exists()
    assert (assets / "runs" / "zh" / "summary.csv").is_file() and not (assets / "runs" / "summary.csv").exists()
    # transformers loads the shipped folder with its tokenizer and agrees with us on Chinese text
    ours = AlbertForPreTraining.from_pretrained(folder)
    theirs = transformers.AlbertForPreTraining.from_pretrained(folder).eval()
    their_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    encoded = their_tokenizer("我爱自然语言处理。", "这部电影很精彩。", return_tensors="pt")
    assert (
        encoded["input_ids"][0].tolist()
        == load_tokenizer(folder)("我爱自然语言处理。", "这部电影很精彩。")["input_ids"]
    )
    import torch

    with torch.no_grad():
        mine = ours(encoded["input_ids"], encoded["attention_mask"], encoded["token_type_ids"])
        reference = theirs(**encoded)
    assert torch.allclose(mine.mlm_logits, reference.prediction_logits, atol=1e-5)
    assert torch.allclose(mine.sop_logits, reference.sop_logits, atol=1e-5)
