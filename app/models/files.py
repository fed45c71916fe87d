"""What the app agrees to load, checked from the files alone, before anything is allocated.

A model folder is read only through these functions: config.json and the safetensors header
are read from regular files of bounded size (never a FIFO, a device or an endless file), the
sizes in the config are held to `MODEL_LIMITS`, and the parameter count the config implies must
equal the tensor shapes in model.safetensors' header (its first 8 bytes give the header's length,
then JSON), read without loading a single weight. A folder with only pytorch_model.bin (UER's
Chinese ALBERTs publish that) is read onto PyTorch's `meta` device with `weights_only=True`:
shapes, no weights, no code. With sharing a config can claim 10,000,000
passes over weights that match; the limits stop that, the count check stops a config that
claims a bigger vocabulary or width than its weights hold.

Messages name the model (the folder's last part or the hub id) and the file, never a full path.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable
from itertools import product
from pathlib import Path
from typing import Any

from albert.core.config import AlbertConfig, ConfigError
from albert.core.hf import is_buffer
from albert.core.params import count_parameters
from app.i18n import safe, t

MODEL_LIMITS: dict[str, int] = {
    "num_hidden_layers": 48,
    "hidden_size": 4096,
    "embedding_size": 4096,
    "intermediate_size": 16384,
    "num_attention_heads": 64,
    "vocab_size": 256_000,
    "max_position_embeddings": 4096,
    "type_vocab_size": 16,
}
"""Largest sizes the app loads: twice the paper's deepest (24 passes), its widest (ALBERT-xxlarge:
H 4096, FFN 16384, 64 heads), a multilingual vocabulary (250k); the shipped models are far below."""
MAX_PARAMETERS = 350_000_000
"""Largest model loaded (BERT-large with its heads has 335.7M; fp32 weights of 1.34 GB)."""
MAX_WORK_PER_TOKEN = 2_500_000_000
"""Largest L·(4H² + 2H·FFN) multiply-adds per token (ALBERT-xxlarge: 2.42G); bounds one request's work."""
CONFIG_MAX_BYTES = 64 * 1024
WEIGHTS_MAX_BYTES = 1_500_000_000
HEADER_MAX_BYTES = 8 * 1024 * 1024
TOKENIZER_MAX_BYTES = 64 * 1024 * 1024
TOKENIZER_FILES = (
    "spiece.model",
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
)
WEIGHTS_NAME = "model.safetensors"
PICKLED_WEIGHTS_NAME = "pytorch_model.bin"
_DTYPE_BYTES = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "U16": 2,
    "U32": 4,
    "U64": 8,
}


PICKLE_REFUSED = {
    "en": "“{name}”: pytorch_model.bin holds more than tensors (a pickle that would run code), so it was not read; "
    "only plain tensor files are loaded.",
    "zh": "“{name}”：pytorch_model.bin 里不只有张量（一个会执行代码的 pickle），因此没有读取；只加载纯张量文件。",
}
"""What a pytorch_model.bin that `torch.load(weights_only=True)` refuses gets (the strings are data, as the hub
catalogue's are)."""
PICKLE_UNREADABLE = {
    "en": "“{name}”: pytorch_model.bin is not a readable mapping of tensor names to tensors.",
    "zh": "“{name}”：pytorch_model.bin 不是可读取的“张量名 → 张量”文件。",
}


class ModelError(Exception):
    """A model that cannot be used; the message is one sentence for the user."""


class NotAFile(Exception):
    """Missing, a folder, a FIFO, a device…: not a regular file."""


class TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _open_regular(path: Path, limit: int) -> tuple[int, int]:
    """(descriptor, size) of a regular file of at most `limit` bytes. O_NONBLOCK: a FIFO never blocks the open."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        raise NotAFile() from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile()
        if info.st_size > limit:
            raise TooLarge(info.st_size)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; raises NotAFile or TooLarge."""
    fd, _ = _open_regular(path, limit)
    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while we read
        raise TooLarge(len(data))
    return data


def is_regular(path: Path, limit: int | None = None) -> bool:
    """Whether `path` is a regular file (after symlinks), of at most `limit` bytes when given."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and (limit is None or info.st_size <= limit)


def read_json(path: Path, limit: int = CONFIG_MAX_BYTES) -> Any:
    """The JSON value in a small regular file; raises NotAFile, TooLarge or ValueError (also for deep nesting)."""
    data = read_regular(path, limit)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(type(error).__name__) from None


def is_model_folder(directory: Path) -> bool:
    """A folder holding a regular config.json and regular weights, model.safetensors or (UER's Chinese ALBERTs publish
    only that) pytorch_model.bin (nothing else tells apart a missing path from an existing folder in the picker's
    messages)."""
    return is_regular(directory / "config.json") and weights_file(directory) is not None


def weights_file(directory: Path) -> Path | None:
    """The weights the app reads: model.safetensors when it is a regular file, else pytorch_model.bin, else None."""
    for name in (WEIGHTS_NAME, PICKLED_WEIGHTS_NAME):
        if is_regular(directory / name):
            return directory / name
    return None


def read_config(directory: Path, name: str, lang: str) -> tuple[AlbertConfig, dict[str, Any]]:
    """The validated config of a model folder and its raw dictionary (for `architectures`)."""
    try:
        data = read_json(directory / "config.json")
    except NotAFile:
        raise ModelError(t("model.err.not_dir", lang, value=safe(name, 80))) from None
    except TooLarge as error:
        raise ModelError(
            t(
                "model.err.file_too_large",
                lang,
                name=safe(name, 80),
                file="config.json",
                size=f"{error.size:,}",
                limit=f"{CONFIG_MAX_BYTES:,}",
            )
        ) from None
    except ValueError:
        raise ModelError(t("model.err.bad_json", lang, name=safe(name, 80))) from None
    if not isinstance(data, dict):
        raise ModelError(t("model.err.bad_json", lang, name=safe(name, 80)))
    config_data = dict(data)
    if isinstance(config_data.get("num_hidden_groups"), str) and config_data.get("sharing") in ("attention", "ffn"):
        config_data["num_hidden_groups"] = 1  # the refusal sentence albert.core.checkpoint writes for transformers
    try:
        config = AlbertConfig.from_dict(config_data, source="config.json")
    except (ConfigError, TypeError, ValueError, RecursionError) as error:
        raise ModelError(t("model.err.load", lang, name=safe(name, 80), reason=safe(error, 300))) from None
    check_sizes(config, name, lang)
    return config, data


def work_per_token(config: AlbertConfig) -> int:
    """Multiply-adds of the passes per token (attention projections and FFN; attention scores excluded)."""
    H, inner = config.hidden_size, config.intermediate_size
    return config.num_hidden_layers * (4 * H * H + 2 * H * inner)


def check_sizes(config: AlbertConfig, name: str, lang: str) -> None:
    """Refuse a config beyond what the app computes on a small CPU (MODEL_LIMITS and the two totals)."""
    for field, limit in MODEL_LIMITS.items():
        value = getattr(config, field)
        if value > limit:
            raise ModelError(
                t("model.err.too_big", lang, name=safe(name, 80), field=field, value=f"{value:,}", limit=f"{limit:,}")
            )
    total = count_parameters(config, "pretraining").total
    if total > MAX_PARAMETERS:
        raise ModelError(
            t("model.err.too_many_parameters", lang, name=safe(name, 80), n=f"{total:,}", limit=f"{MAX_PARAMETERS:,}")
        )
    work = work_per_token(config)
    if work > MAX_WORK_PER_TOKEN:
        raise ModelError(
            t("model.err.too_much_work", lang, name=safe(name, 80), n=f"{work:,}", limit=f"{MAX_WORK_PER_TOKEN:,}")
        )


def safetensors_shapes(path: Path, name: str, lang: str) -> dict[str, tuple[int, ...]]:
    """Tensor name → shape from a safetensors header, checked against the file's size; no weight is read."""
    try:
        fd, size = _open_regular(path, WEIGHTS_MAX_BYTES)
    except NotAFile:
        raise ModelError(t("model.err.not_dir", lang, value=safe(name, 80))) from None
    except TooLarge as error:
        raise ModelError(
            t(
                "model.err.file_too_large",
                lang,
                name=safe(name, 80),
                file=WEIGHTS_NAME,
                size=f"{error.size:,}",
                limit=f"{WEIGHTS_MAX_BYTES:,}",
            )
        ) from None

    def bad(reason: str) -> ModelError:
        return ModelError(t("model.err.bad_weights", lang, name=safe(name, 80), reason=reason))

    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            header, length = _read_header(handle, size, bad)
    finally:
        os.close(fd)
    header.pop("__metadata__", None)
    data_bytes = size - 8 - length
    return {key: _entry_shape(key, entry, data_bytes, bad) for key, entry in header.items()}


def _read_header(handle: Any, size: int, bad: Callable[[str], ModelError]) -> tuple[dict, int]:
    """The JSON header of an open safetensors file of `size` bytes, and its length in bytes."""
    prefix = handle.read(8)
    if len(prefix) < 8:
        raise bad("shorter than 8 bytes")
    length = int.from_bytes(prefix, "little")
    if length > min(HEADER_MAX_BYTES, size - 8):
        raise bad(f"a header of {length:,} bytes")
    raw = handle.read(length)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise bad("the header is not JSON") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    return header, length


def _entry_shape(key: str, entry: Any, data_bytes: int, bad: Callable[[str], ModelError]) -> tuple[int, ...]:
    """One header entry's shape, checked: a known dtype, whole non-negative sizes, offsets inside the data that
    hold exactly that shape."""
    if not isinstance(entry, dict):
        raise bad(f"entry {safe(key, 60)}")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    whole = (
        isinstance(shape, list)
        and isinstance(offsets, list)
        and len(offsets) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in [*shape, *offsets])
    )
    if dtype not in _DTYPE_BYTES or not whole or len(shape) > 8:
        raise bad(f"entry {safe(key, 60)}")
    start, end = offsets
    if not start <= end <= data_bytes or end - start != math.prod(shape) * _DTYPE_BYTES[dtype]:
        raise bad(f"the offsets of {safe(key, 60)} do not match its shape")
    return tuple(shape)


def allowed_counts(config: AlbertConfig) -> set[int]:
    """Parameter counts a checkpoint of this config may hold: the encoder, with or without its pooler, its
    MLM head and its sentence-pair head (or a classifier of `num_labels`), and the tied decoder weight/bias that some
    writers store again."""
    body = count_parameters(config, "model").total
    H, V, E = config.hidden_size, config.vocab_size, config.embedding_size
    pooler, mlm = H * H + H, count_parameters(config, "masked_lm").mlm_head
    counts = set()
    for pair in {2 * H + 2, config.num_labels * (H + 1)}:
        for with_pooler, with_mlm, with_pair, tied_weight, tied_bias in product((0, 1), repeat=5):
            if (tied_weight or tied_bias) and not with_mlm:
                continue
            counts.add(
                body
                - (1 - with_pooler) * pooler
                + with_mlm * mlm
                + with_pair * pair
                + tied_weight * V * E
                + tied_bias * V
            )
    return counts


def pickled_shapes(path: Path, name: str, lang: str) -> dict[str, tuple[int, ...]]:
    """Tensor name → shape of a pytorch_model.bin of bounded size, read onto the `meta` device (no weight is
    allocated) with `torch.load(weights_only=True)`: a pickle that would run code is refused with one sentence."""
    from albert.core.checkpoint import CheckpointError, read_pickled_weights

    try:
        _open_regular_checked(path)
    except NotAFile:
        raise ModelError(t("model.err.not_dir", lang, value=safe(name, 80))) from None
    except TooLarge as error:
        raise ModelError(
            t(
                "model.err.file_too_large",
                lang,
                name=safe(name, 80),
                file=PICKLED_WEIGHTS_NAME,
                size=f"{error.size:,}",
                limit=f"{WEIGHTS_MAX_BYTES:,}",
            )
        ) from None
    try:
        state = read_pickled_weights(path, map_location="meta")
    except CheckpointError as error:
        sentences = PICKLE_REFUSED if error.code == "unsafe_pickle" else PICKLE_UNREADABLE
        raise ModelError(sentences["zh" if lang == "zh" else "en"].format(name=safe(name, 80))) from None
    return {key: tuple(tensor.shape) for key, tensor in state.items()}


def _open_regular_checked(path: Path) -> None:
    """Raise NotAFile or TooLarge unless `path` is a regular file within WEIGHTS_MAX_BYTES."""
    fd, _ = _open_regular(path, WEIGHTS_MAX_BYTES)
    os.close(fd)


def weight_shapes(directory: Path, name: str, lang: str) -> dict[str, tuple[int, ...]]:
    """The shapes of a model folder's weights (`weights_file`), read without loading a weight."""
    path = weights_file(directory)
    if path is not None and path.name == PICKLED_WEIGHTS_NAME:
        return pickled_shapes(path, name, lang)
    return safetensors_shapes(directory / WEIGHTS_NAME, name, lang)


def check_weights(directory: Path, config: AlbertConfig, name: str, lang: str) -> dict[str, tuple[int, ...]]:
    """The weights' shapes, refused unless their total is one the config implies."""
    shapes = weight_shapes(directory, name, lang)
    # position-id buffers are no parameters (older transformers saved them, e.g. `bert.embeddings.position_ids`)
    found = sum(math.prod(shape) for key, shape in shapes.items() if not is_buffer(key))
    expected = count_parameters(config, "pretraining").total
    if found not in allowed_counts(config):
        raise ModelError(
            t("model.err.weights_mismatch", lang, name=safe(name, 80), expected=f"{expected:,}", found=f"{found:,}")
        )
    return shapes


def check_tokenizer_files(directory: Path, name: str, lang: str) -> None:
    """Every tokenizer file present must be a regular file of bounded size (transformers reads them unchecked)."""
    for file in TOKENIZER_FILES:
        path = directory / file
        if not os.path.lexists(path):
            continue
        try:
            info = os.stat(path)
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode):
            raise ModelError(t("model.err.file_refused", lang, name=safe(name, 80), file=file))
        if info.st_size > TOKENIZER_MAX_BYTES:
            raise ModelError(
                t(
                    "model.err.file_too_large",
                    lang,
                    name=safe(name, 80),
                    file=file,
                    size=f"{info.st_size:,}",
                    limit=f"{TOKENIZER_MAX_BYTES:,}",
                )
            )
