"""Hostile input to the app's functions (issue 18): resource bombs through the model picker, quadratic
truncation, unsafe reads, path disclosure, wrong-typed and out-of-range values. Each case gives one
sentence, quickly, and nothing is logged with a traceback."""

from __future__ import annotations

import json
import logging
import os
import random
import shutil
import threading
import time
from pathlib import Path

import pytest

from app import settings
from tests.app.support import tiny_assets, use_tiny_assets


@pytest.fixture(autouse=True)
def _tiny_models(monkeypatch: pytest.MonkeyPatch):
    return use_tiny_assets(monkeypatch)


@pytest.fixture
def no_tracebacks(caplog: pytest.LogCaptureFixture):
    """Fails the test when anything was logged at ERROR or with a traceback."""
    caplog.set_level(logging.INFO)
    yield caplog
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


def _copy_model(tmp_path: Path, name: str = "crafted", **config_changes) -> Path:
    target = tmp_path / name
    shutil.copytree(tiny_assets().models / "albert-lab-base", target)
    config = json.loads((target / "config.json").read_text(encoding="utf-8"))
    config.update(config_changes)
    (target / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


def _one_sentence(message: str, *forbidden: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message, message
    assert message.rstrip("）)").endswith((".", "。")), message
    for text in forbidden:
        assert text not in message, message


def _fill(choice: str, lang: str = "en") -> str:
    from app.tabs.masked.views import fill_mask_view

    raw, status, *_ = fill_mask_view("the old [MASK] walked", 5, choice, lang)
    assert "error" in raw, raw
    return raw["error"]


# ----- resource bombs through the model picker ----------------------------------------------------
@pytest.mark.parametrize(
    "change, fragment",
    [
        (dict(num_hidden_layers=10_000_000), "num_hidden_layers = 10,000,000"),
        (dict(vocab_size=10_000_000), "vocab_size = 10,000,000"),
        (dict(max_position_embeddings=10_000_000), "max_position_embeddings = 10,000,000"),
        (dict(hidden_size=8192, num_attention_heads=4), "hidden_size = 8,192"),
        (
            dict(num_hidden_layers=48, hidden_size=4096, intermediate_size=16384, num_attention_heads=64),
            "multiply-adds per token",
        ),
        (dict(vocab_size=200), "implies"),  # within the limits, but the weights hold another vocabulary
        (dict(hidden_size=64), "implies"),
    ],
    ids=[
        "layers-1e7",
        "vocab-1e7",
        "positions-1e7",
        "hidden-8192",
        "too-much-work",
        "vocab-mismatch",
        "width-mismatch",
    ],
)
def test_oversized_or_mismatched_config_is_refused_before_allocating(tmp_path, change, fragment, no_tracebacks) -> None:
    import resource

    folder = _copy_model(tmp_path, **change)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    message = _fill(str(folder))
    assert time.perf_counter() - start < 5
    assert fragment in message, message
    _one_sentence(message, str(tmp_path))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200, f"peak memory grew {grown_mb:.0f} MB"


def _sparse(path: Path, size: int) -> None:
    """`path` grown to `size` bytes without writing them (a sparse file: no disk, no time)."""
    os.truncate(path, size)


SMALL_WIDTHS = dict(
    hidden_size=32,
    intermediate_size=64,
    num_attention_heads=4,
    num_hidden_layers=4,
    max_position_embeddings=64,
    type_vocab_size=2,
    sharing="all",
)


@pytest.mark.parametrize(
    "change, grow, message",
    [
        (  # V·E = 100,000 × 4,096 = 409.6M, though V ≤ 256,000 and E ≤ 4,096
            dict(SMALL_WIDTHS, vocab_size=100_000, embedding_size=4096),
            None,
            "“crafted” would have 410,262,658 parameters; this app loads at most 350,000,000.",
        ),
        (  # 48 unshared passes of H 1,024 (twice BERT-large's depth): every size and the work per token within bounds
            dict(
                SMALL_WIDTHS,
                vocab_size=8000,
                embedding_size=128,
                hidden_size=1024,
                intermediate_size=4096,
                num_attention_heads=16,
                num_hidden_layers=48,
                sharing="none",
            ),
            None,
            "“crafted” would have 606,974,658 parameters; this app loads at most 350,000,000.",
        ),
        (
            {},
            ("model.safetensors", 1_500_000_001),
            "“crafted”: model.safetensors has 1,500,000,001 bytes, more than this app reads (1,500,000,000).",
        ),
        (
            {},
            ("tokenizer.json", 64 * 1024 * 1024 + 1),
            "“crafted”: tokenizer.json has 67,108,865 bytes, more than this app reads (67,108,864).",
        ),
    ],
    ids=["parameters-embeddings", "parameters-depth", "weights-1.5GB", "tokenizer-64MiB"],
)
def test_a_model_past_the_parameter_or_file_bounds_is_refused_before_allocating(
    tmp_path, monkeypatch, change, grow, message, no_tracebacks
) -> None:
    import resource

    from albert import AlbertForPreTraining
    from app import models

    folder = _copy_model(tmp_path, **change)
    if grow is not None:
        _sparse(folder / grow[0], grow[1])
    built: list[str] = []
    original = AlbertForPreTraining.from_pretrained.__func__

    def recording(cls, *args, **kwargs):
        built.append("model")
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(AlbertForPreTraining, "from_pretrained", classmethod(recording))
    monkeypatch.setattr(models, "load_tokenizer", lambda *a, **k: built.append("tokenizer"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    answer = _fill(str(folder))
    assert time.perf_counter() - start < 5
    assert answer == message
    _one_sentence(answer, str(tmp_path))
    assert built == [], "the model was built or its tokenizer read before the refusal"
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200, f"peak memory grew {grown_mb:.0f} MB"


def test_limits_admit_every_shipped_model_and_the_paper_presets() -> None:
    from albert import PRESETS
    from app.models.files import check_sizes

    for name, config in PRESETS.items():
        check_sizes(config, name, "en")
    shipped = Path(__file__).resolve().parents[2] / "assets" / "models"
    for folder in sorted(p for p in shipped.iterdir() if (p / "config.json").is_file()):
        from app.models.files import check_weights, read_config

        if "task_heads" in json.loads((folder / "config.json").read_text(encoding="utf-8")):
            # the multi-task model (several heads, loaded by MultiTaskModel, whose load_state_dict is strict)
            from albert.core.multitask import MultiTaskModel

            assert set(MultiTaskModel.from_pretrained(folder).tasks) == {"reviews", "cws"}
            continue
        config, _ = read_config(folder, folder.name, "en")
        assert check_weights(folder, config, folder.name, "en")


def test_weights_header_is_read_without_loading_and_checked(tmp_path) -> None:
    from app.models.files import ModelError, safetensors_shapes

    folder = _copy_model(tmp_path)
    shapes = safetensors_shapes(folder / "model.safetensors", "crafted", "en")
    assert shapes and all(isinstance(s, tuple) for s in shapes.values())
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    for label, payload in (
        ("huge header length", (2**62).to_bytes(8, "little") + bytes(data[8:])),
        ("short", bytes(data[:5])),
        ("not json", bytes(data[:8]) + b"x" * (len(data) - 8)),
        ("cut data", bytes(data[:-100])),
    ):
        weights.write_bytes(payload)
        with pytest.raises(ModelError) as caught:
            safetensors_shapes(weights, "crafted", "en")
        _one_sentence(str(caught.value), str(tmp_path))
        assert "malformed" in str(caught.value), label


# ----- unsafe reads and path disclosure -----------------------------------------------------------
def test_missing_and_existing_folders_get_the_same_sentence(tmp_path, no_tracebacks) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "idrsa").write_text("secret", encoding="utf-8")
    existing, missing = _fill(str(tmp_path / ".ssh")), _fill(str(tmp_path / ".sst"))
    assert existing.replace(".ssh", "X") == missing.replace(".sst", "X")
    file_itself = _fill(str(tmp_path / ".ssh" / "idrsa"))
    assert file_itself.replace("idrsa", "X") == _fill(str(tmp_path / "idrsb")).replace("idrsb", "X")
    for message in (existing, missing, file_itself):
        _one_sentence(message, str(tmp_path))
        assert "not a model folder" in message


@pytest.mark.parametrize("which", ["config.json", "model.safetensors", "tokenizer.json"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_fifos_devices_and_folders_in_place_of_files_never_block(
    tmp_path, which: str, kind: str, no_tracebacks
) -> None:
    folder = _copy_model(tmp_path)
    target = folder / which
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    answer: list[str] = []
    worker = threading.Thread(target=lambda: answer.append(_fill(str(folder))), daemon=True)
    worker.start()
    worker.join(20)
    assert answer, f"a {kind} as {which} blocked the model picker"
    _one_sentence(answer[0], str(tmp_path))
    assert ("not a model folder" if which != "tokenizer.json" else "not a regular file") in answer[0]


def test_oversized_and_deeply_nested_config(tmp_path, no_tracebacks) -> None:
    folder = _copy_model(tmp_path)
    (folder / "config.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    message = _fill(str(folder))
    _one_sentence(message, str(tmp_path))
    assert "config.json has 200,000 bytes" in message
    (folder / "config.json").write_text("[" * 30_000 + "]" * 30_000, encoding="utf-8")  # under the size bound
    message = _fill(str(folder))
    _one_sentence(message, str(tmp_path))
    assert "nested too deeply" in message
    (folder / "config.json").write_bytes(b'{"vocab_size": "\xff"}')
    assert "not a JSON object" in _fill(str(folder))


def test_a_library_error_names_no_folder(tmp_path, no_tracebacks) -> None:
    folder = _copy_model(tmp_path, num_attention_heads=5)
    message = _fill(str(folder))
    _one_sentence(message, str(tmp_path))
    assert "divisible" in message and "config.json" in message


def test_absurd_model_names(no_tracebacks) -> None:
    for choice, fragment in (
        ("x" * 10_000, "10,000 characters"),
        ("a" * 200 + "/" + "b" * 90, "neither"),
        ("bad\x00name", "neither"),
        ("~nobody-here/x", "not a model folder"),
        ("/" + "d/" * 140, "not a model folder"),
    ):
        message = _fill(choice)
        assert fragment in message, (choice[:20], message)
        _one_sentence(message)
        assert len(message) < 400


def test_attention_page_names_no_folder_of_the_machine() -> None:
    import sys

    from app.tabs.attention.views import attention_view

    raw, status, head_view, model_view, *_ = attention_view("the old sailor", "", 1, 16, "", "", "en")
    assert "error" not in raw
    for text in (head_view, model_view, status, json.dumps(raw)):
        assert sys.prefix not in text and str(tiny_assets().root) not in text
        assert str(Path(__file__).resolve().parents[2]) not in text


# ----- quadratic truncation and the time limit ------------------------------------------------------
def test_cut_lengths_equal_the_one_token_at_a_time_loop() -> None:
    from app.inference import cut_lengths

    rng = random.Random(0)
    for _ in range(3000):
        a, b, budget = rng.randint(0, 300), rng.randint(0, 300), rng.randint(0, 400)
        la, lb = a, b
        while la + lb > budget:
            if la >= lb:
                la -= 1
            else:
                lb -= 1
        assert cut_lengths(a, b, budget) == (la, lb), (a, b, budget)


def test_two_100k_texts_are_cut_in_linear_time(no_tracebacks) -> None:
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view

    sentence_order_view("warm up", "the model", "", "en")
    long_a, long_b = "the old sailor walked " * 5000, "along the river bank " * 5000
    start = time.perf_counter()
    raw, status, *_ = sentence_order_view(long_a, long_b, "", "en")
    elapsed = time.perf_counter() - start
    assert "error" not in raw and elapsed < 3, elapsed  # it took 27–59 s before
    assert "only the first 10,000 were read" in status and "cut off" in status
    raw, status, *_ = fill_mask_view("[MASK] " + "the river " * 50_000, 5, "", "en")
    assert "error" not in raw and "only the first 10,000" in status


def test_a_request_past_its_time_limit_stops_with_a_sentence(monkeypatch, no_tracebacks) -> None:
    from app.models import budget
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view

    fill_mask_view("the [MASK]", 5, "", "en")  # loaded, so the limit meets the model, not the loading
    monkeypatch.setenv(settings.REQUEST_SECONDS.name, "1e-9")
    raw, *_ = fill_mask_view("the old [MASK] walked", 5, "", "en")
    assert "took longer than 1e-09 seconds" in raw["error"]
    raw, *_ = attention_view("the old sailor", "", 1, 16, "", "", "zh")
    assert "秒" in raw["error"]
    monkeypatch.setenv(settings.REQUEST_SECONDS.name, "nan")
    assert budget.request_seconds() == budget.REQUEST_SECONDS
    monkeypatch.delenv(settings.REQUEST_SECONDS.name)
    raw, *_ = fill_mask_view("the old [MASK] walked", 5, "", "en")
    assert "error" not in raw


# ----- every input of every endpoint ----------------------------------------------------------------
BAD_NUMBERS = ["abc", float("nan"), float("inf"), -1, 10**30, 2.5, True, [3], {"k": 1}]


def _calls():
    """(endpoint, function, arguments with one bad value, index of that value) for every numeric input."""
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view, mask_word_view
    from app.tabs.order.views import split_paragraph_view

    for bad in BAD_NUMBERS:
        yield "fill_mask.top_k", fill_mask_view, ("the [MASK]", bad, "", "en")
        yield "attention.head", attention_view, ("the old", "", bad, 16, "", "", "en")
        yield "attention.max_tokens", attention_view, ("the old", "", 1, bad, "", "", "en")
        yield "split_paragraph.split_after", split_paragraph_view, ("One. Two.", bad, "", "en")
        if bad is not True:
            yield "mask_word.word", mask_word_view, ("the old sailor", bad, 5, "", "en")


@pytest.mark.parametrize("endpoint, fn, args", list(_calls()), ids=lambda v: v if isinstance(v, str) else "")
def test_wrong_typed_or_out_of_range_numbers_get_one_sentence(endpoint, fn, args, no_tracebacks) -> None:
    out = fn(*args)
    raw = next(o for o in out if isinstance(o, dict) and "__type__" not in o)
    assert "error" in raw, (endpoint, raw)
    _one_sentence(raw["error"])


@pytest.mark.parametrize("value", [["a list"], {"an": "object"}, 42, 1.5, True])
def test_wrong_typed_texts_models_and_languages(value, no_tracebacks) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.parameters.views import parameters_view, preset_view
    from app.tabs.sentiment.views import sentiment_view
    from app.tabs.sharing.views import layer_transitions_view, sharing_modes_view

    answers = [
        fill_mask_view(value, 5, "", "en"),
        fill_mask_view("the [MASK]", 5, value, "en"),
        sentence_order_view("a", value, "", "en"),
        attention_view(value, "", 1, 16, "", "", "en"),
        attention_view("a b", "", 1, 16, "", value, "en"),
        layer_transitions_view(value, "", "", "en"),
        sharing_modes_view(value, "en"),
        sentiment_view(value, "en"),
        preset_view(value, "en")[10:],
        parameters_view(30000, 128, 768, 12, 12, 3072, "all", 1, value if value is not True else "yes", 512),
    ]
    for out in answers:
        assert "error" in out[0], out[0]
        _one_sentence(out[0]["error"])
    raw, *_ = fill_mask_view("the [MASK]", 5, "", value)  # any language value: English
    assert "error" not in raw


def test_parameters_refuse_sizes_beyond_the_bound_and_stay_serialisable(no_tracebacks) -> None:
    import orjson

    from app.tabs.parameters.views import MAX_PARAMETERS, parameters_view

    big = 10_000_000
    out = parameters_view(big, big, big, big, 1, big, "none", big, True, big, "en")
    assert "quadrillion" not in out[0]["error"] and f"{MAX_PARAMETERS:,}" in out[0]["error"]
    _one_sentence(out[0]["error"])
    orjson.dumps(out[0])
    ok = parameters_view(250_000, 4096, 4096, 48, 64, 16384, "none", 48, True, 4096, "en")
    assert ok[0]["total"] < 2**53
    orjson.dumps(ok[0])


def test_unknown_presets_and_configurations_are_named(no_tracebacks) -> None:
    from app.tabs.parameters.views import preset_view
    from app.tabs.sharing.views import sharing_modes_view

    out = preset_view("albert-gigantic", "en")
    assert "albert-gigantic" in out[10]["error"] and "albert-base" in out[10]["error"]
    raw, *_ = sharing_modes_view("model:../../etc", "en")
    _one_sentence(raw["error"])
    raw, *_ = sharing_modes_view("x" * 10_000, "en")
    assert "10,000 characters" in raw["error"]


# ----- no silent NaN (issue 35) -------------------------------------------------------------------
def _with_a_nan_weight(source: Path, target: Path) -> Path:
    """A copy of the model folder `source` whose weights hold one NaN."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import save_file

    shutil.copytree(source, target)
    path = target / "model.safetensors"
    with safe_open(str(path), "pt") as stream:
        metadata, weights = stream.metadata(), {k: stream.get_tensor(k) for k in stream.keys()}  # noqa: SIM118
    name = next(k for k in weights if k.endswith("word_embeddings.weight"))
    weights[name][3, 1] = torch.nan
    save_file(weights, str(path), metadata=metadata)
    return target


def test_a_model_with_nan_weights_is_refused_with_one_sentence_by_every_tab(
    tmp_path, monkeypatch, no_tracebacks
) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sentiment.views import sentiment_view
    from app.tabs.sharing.views import layer_transitions_view

    model = str(_with_a_nan_weight(tiny_assets().models / "albert-lab-base", tmp_path / "nan-model"))
    answers = {
        "fill_mask": _fill(model),
        "fill_mask zh": _fill(model, "zh"),
        "sentence_order": sentence_order_view("She bought a ticket.", "Then she left.", model, "en")[0]["error"],
        "attention": attention_view("the old sailor", "", 1, 16, model, "", "en")[0]["error"],
        "layer_transitions": layer_transitions_view("the old sailor", model, "", "en")[0]["error"],
    }
    monkeypatch.setenv("ALBERT_LAB_SENTIMENT", str(_with_a_nan_weight(tiny_assets().sentiment, tmp_path / "nan-sst2")))
    answers["sentiment"] = sentiment_view("the old sailor walked", "en")[0]["error"]
    for endpoint, message in answers.items():
        _one_sentence(message, str(tmp_path))
        name = "nan-sst2" if endpoint == "sentiment" else "nan-model"
        wanted = "的权重中有 NaN 或无穷大的数值" if endpoint.endswith("zh") else "has NaN or infinite weights"
        assert f"“{name}” {wanted}" in message or f"“{name}”{wanted}" in message, (endpoint, message)


def test_outputs_that_become_non_finite_are_refused_per_answer(tmp_path, no_tracebacks) -> None:
    import torch

    from app.models import load
    from app.tabs.attention.views import attention_view
    from app.tabs.order.views import sentence_order_view

    model = str(shutil.copytree(tiny_assets().models / "albert-lab-base", tmp_path / "overflows"))
    loaded = load(model)  # finite weights: it loads; then its outputs overflow, as a bf16 or a huge weight can
    with torch.no_grad():
        loaded.model.albert.projection.weight.fill_(3e38)
    answers = {
        "fill_mask": _fill(model),
        "sentence_order": sentence_order_view("She bought a ticket.", "Then she left.", model, "en")[0],
        "attention": attention_view("the old sailor", "", 1, 16, model, "", "zh")[0],
    }
    assert answers["fill_mask"] == (
        "Model “overflows” computed NaN or infinite numbers for this text, so there is no answer to show; "
        "try another model or another text."
    )
    assert set(answers["sentence_order"]) == {"error"}, answers["sentence_order"]  # no 'prefers_ba', no null
    assert "算出了 NaN 或无穷大的数值" in answers["attention"]["error"]
