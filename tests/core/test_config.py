"""AlbertConfig: validation (one clear sentence per failure), presets, config.json and transformers."""

from __future__ import annotations

import json

import pytest
import transformers

from albert import PRESETS, AlbertConfig, ConfigError
from tests.factories import TINY, tiny_config

INVALID = [
    # (changes to the tiny config, words the one-sentence message must contain)
    (dict(hidden_size=30, num_attention_heads=4), "divisible by num_attention_heads"),
    (dict(vocab_size=0), "vocab_size must be at least 1"),
    (dict(hidden_size=-32), "hidden_size must be at least 1"),
    (dict(num_hidden_layers=0), "num_hidden_layers must be at least 1"),
    (dict(intermediate_size=-1), "intermediate_size must be at least 1"),
    (dict(embedding_size=16.0), "embedding_size must be a whole number"),
    (dict(num_attention_heads="4"), "num_attention_heads must be a whole number"),
    (dict(num_hidden_layers=True), "num_hidden_layers must be a whole number"),
    (dict(max_position_embeddings=0), "max_position_embeddings must be at least 1"),
    (dict(sharing="layers"), "sharing must be one of all, attention, ffn, none"),
    (dict(num_hidden_groups=3), "num_hidden_groups (3) must divide num_hidden_layers (4)"),
    (dict(num_hidden_groups=0), "num_hidden_groups must be at least 1"),
    (dict(sharing="attention", num_hidden_groups=2), "num_hidden_groups must be 1"),
    (dict(sharing="ffn", num_hidden_groups=4), "num_hidden_groups must be 1"),
    (dict(sharing="none", num_hidden_groups=2), "num_hidden_groups must be 1 or 4"),
    (dict(project_embeddings=False), "project_embeddings=False needs embedding_size == hidden_size"),
    (dict(hidden_dropout_prob=1.0), "hidden_dropout_prob must be in [0, 1)"),
    (dict(attention_probs_dropout_prob=-0.1), "attention_probs_dropout_prob must be in [0, 1)"),
    (dict(classifier_dropout_prob=1.5), "classifier_dropout_prob must be in [0, 1)"),
    (dict(hidden_act="tanh"), "hidden_act must be one of"),
    (dict(sentence_objective="mlm"), "sentence_objective must be 'sop', 'nsp' or 'none'"),
    (dict(pad_token_id=99), "pad_token_id (99) must be a token id below vocab_size (99)"),
    (dict(vocab_size=20_000_000), "beyond the supported"),
]


@pytest.mark.parametrize(("changes", "words"), INVALID, ids=[str(c) for c, _ in INVALID])
def test_invalid_config_raises_one_clear_sentence(changes, words):
    with pytest.raises(ConfigError) as raised:
        tiny_config(**changes)
    message = str(raised.value)
    assert words in message
    assert "\n" not in message and message.endswith("."), message
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still catch it


def test_head_count_error_suggests_divisors():
    with pytest.raises(ConfigError, match=r"try 10 or 12 or 15"):
        AlbertConfig(hidden_size=60, num_attention_heads=11)


def test_replace_revalidates():
    with pytest.raises(ConfigError, match="divisible"):
        PRESETS["albert-base"].replace(hidden_size=100)
    assert PRESETS["albert-base"].hidden_size == 768  # presets are not mutated


def test_sharing_none_means_one_group_per_layer():
    config = tiny_config(sharing="none")
    assert config.num_hidden_groups == 4
    assert (config.num_attention_blocks, config.num_ffn_blocks) == (4, 4)
    # leaving `none` again drops back to one group instead of failing on groups = layers
    assert config.replace(sharing="attention").num_hidden_groups == 1


@pytest.mark.parametrize(
    ("sharing", "groups", "attention_blocks", "ffn_blocks"),
    [
        ("all", 1, 1, 1),
        ("all", 2, 2, 2),
        ("all", 4, 4, 4),
        ("attention", 1, 1, 4),
        ("ffn", 1, 4, 1),
        ("none", 4, 4, 4),
    ],
)
def test_block_counts(sharing, groups, attention_blocks, ffn_blocks):
    config = tiny_config(sharing=sharing, num_hidden_groups=groups)
    assert (config.num_attention_blocks, config.num_ffn_blocks) == (attention_blocks, ffn_blocks)


PRESET_SIZES = {
    # name: (L, H, E, A, FFN, sharing, groups, E→H projection)
    "albert-base": (12, 768, 128, 12, 3072, "all", 1, True),
    "albert-large": (24, 1024, 128, 16, 4096, "all", 1, True),
    "albert-xlarge": (24, 2048, 128, 16, 8192, "all", 1, True),
    "albert-xxlarge": (12, 4096, 128, 64, 16384, "all", 1, True),
    "bert-base": (12, 768, 768, 12, 3072, "none", 12, False),
    "bert-large": (24, 1024, 1024, 16, 4096, "none", 24, False),
}


@pytest.mark.parametrize("name", sorted(PRESET_SIZES))
def test_presets_have_the_papers_sizes(name):
    config = PRESETS[name]
    sizes = (
        config.num_hidden_layers,
        config.hidden_size,
        config.embedding_size,
        config.num_attention_heads,
        config.intermediate_size,
        config.sharing,
        config.num_hidden_groups,
        config.project_embeddings,
    )
    assert sizes == PRESET_SIZES[name]
    assert (config.vocab_size, config.max_position_embeddings, config.type_vocab_size) == (30000, 512, 2)


def test_all_required_presets_exist():
    assert set(PRESET_SIZES) <= set(PRESETS)


ROUND_TRIP = {
    "all-1": dict(),
    "all-2": dict(num_hidden_groups=2),
    "none": dict(sharing="none"),
    "bert-style": dict(embedding_size=32, project_embeddings=False, sharing="none", hidden_act="gelu"),
    "nsp-3-labels": dict(sentence_objective="nsp", num_labels=3, hidden_dropout_prob=0.1),
    "regression": dict(num_labels=1, layer_norm_eps=1e-5),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_transformers_config_round_trip(name):
    config = tiny_config(**ROUND_TRIP[name])
    hf_config = config.to_transformers()
    assert isinstance(hf_config, transformers.AlbertConfig)
    for field in (
        "vocab_size",
        "embedding_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "num_hidden_groups",
        "hidden_act",
        "num_labels",
        "layer_norm_eps",
        "max_position_embeddings",
        "type_vocab_size",
        "pad_token_id",
    ):
        assert getattr(hf_config, field) == getattr(config, field), field
    assert hf_config.inner_group_num == 1
    assert AlbertConfig.from_transformers(hf_config) == config


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_config_json_round_trip(tmp_path, name):
    config = tiny_config(**ROUND_TRIP[name])
    path = config.save(tmp_path)
    assert path == tmp_path / "config.json"
    data = json.loads(path.read_text())
    assert data["model_type"] == "albert"
    assert AlbertConfig.load(tmp_path) == config
    assert AlbertConfig.load(path) == config
    # transformers reads the same file with the same sizes
    hf_config = transformers.AlbertConfig.from_pretrained(tmp_path)
    assert (hf_config.hidden_size, hf_config.num_hidden_groups, hf_config.num_labels) == (
        config.hidden_size,
        config.num_hidden_groups,
        config.num_labels,
    )


def test_changing_num_labels_after_loading_rewrites_the_labels(tmp_path):
    """A loaded config carries id2label in `extra`; a new num_labels must not be undone by it."""
    tiny_config(num_labels=2).save(tmp_path)
    loaded = AlbertConfig.load(tmp_path)
    assert loaded.num_labels == 2
    changed = loaded.replace(num_labels=5)
    assert len(changed.to_dict()["id2label"]) == 5
    changed.save(tmp_path)
    assert AlbertConfig.load(tmp_path).num_labels == 5


def test_extra_keys_survive_a_round_trip(tmp_path):
    config = tiny_config()
    data = config.to_dict()
    data["finetuning_task"] = "sst2"
    (tmp_path / "config.json").write_text(json.dumps(data))
    loaded = AlbertConfig.load(tmp_path)
    assert loaded == config
    assert loaded.to_dict()["finetuning_task"] == "sst2"


@pytest.mark.parametrize(("groups", "sharing", "num_groups"), [(1, "all", 1), (2, "all", 2), (4, "none", 4)])
def test_config_made_by_transformers(groups, sharing, num_groups):
    """transformers' configs have no `sharing`: groups == layers is BERT-style, otherwise `all`."""
    hf_config = transformers.AlbertConfig(**TINY, num_hidden_groups=groups)
    config = AlbertConfig.from_transformers(hf_config)
    assert (config.sharing, config.num_hidden_groups) == (sharing, num_groups)
    assert config.embedding_size == 16 and config.project_embeddings


@pytest.mark.parametrize("sharing", ["attention", "ffn"])
def test_transformers_cannot_represent_attention_or_ffn_sharing(sharing):
    config = tiny_config(sharing=sharing)
    assert not config.transformers_compatible
    with pytest.raises(ConfigError, match=f"cannot represent sharing '{sharing}'"):
        config.to_transformers()


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"model_type": "gpt2", "hidden_size": 32}, "describes a 'gpt2' model"),
        ({**TINY, "inner_group_num": 2}, "inner_group_num=2"),
        ({**TINY, "position_embedding_type": "relative_key"}, "only 'absolute' is supported"),
        ({**TINY, "hidden_size": "32"}, "hidden_size must be a whole number"),
        ([1, 2, 3], "must hold a JSON object"),
    ],
)
def test_bad_config_json_names_the_file(tmp_path, data, words):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as raised:
        AlbertConfig.load(tmp_path)
    assert words in str(raised.value)
    assert str(path) in str(raised.value)


def test_invalid_json_and_missing_file_name_the_file(tmp_path):
    with pytest.raises(ConfigError, match="No config.json"):
        AlbertConfig.load(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ConfigError, match="is not valid JSON") as raised:
        AlbertConfig.load(tmp_path)
    assert str(tmp_path / "config.json") in str(raised.value)
