"""A hub id is sized before anything large is downloaded (issue 43, item 3).

`albert.core.checkpoint.resolve_directory` fetches every file of a repository that matches `HUB_PATTERNS` (all its
`*.safetensors`), and `app.models.files` checked the limits only on what had arrived: on a public Space any visitor
could make the server fetch gigabytes. `check_before_download` runs first, from the hub's metadata alone:

1. the repository's file list with each file's size (`HfApi.model_info(files_metadata=True)`): the files the
   download would fetch must include config.json and weights, and hold at most `WEIGHTS_MAX_BYTES` of weights,
   `CONFIG_MAX_BYTES` of config and `TOKENIZER_MAX_BYTES` per tokenizer file; a file whose size the hub does not give
   is not fetched;
2. config.json alone (at most 64 kB), held to `MODEL_LIMITS`, `MAX_PARAMETERS` and `MAX_WORK_PER_TOKEN`
   (`app.models.files.read_config`);
3. the safetensors headers, read by ranged requests (`HfApi.get_safetensors_metadata`): the parameters they hold,
   at most `MAX_PARAMETERS`.

A model already in the local Hugging Face cache downloads nothing and is not asked about (it loads offline). On a
Space (`app.models.hub.on_space`) only the catalogue's ids are loaded from the hub unless the host sets
`ALBERT_LAB_ANY_HUB_ID=1`.
"""

from __future__ import annotations

import fnmatch
import logging
from pathlib import Path
from typing import Any

from albert.core.checkpoint import HUB_FALLBACK_WEIGHTS, HUB_PATTERNS
from app import settings
from app.i18n import safe, t
from app.models import hub
from app.models.files import (
    CONFIG_MAX_BYTES,
    MAX_PARAMETERS,
    TOKENIZER_MAX_BYTES,
    WEIGHTS_MAX_BYTES,
    ModelError,
    read_config,
)

logger = logging.getLogger(__name__)


def planned_download(sizes: dict[str, int | None]) -> dict[str, int | None]:
    """The files of a repository (name → size in bytes, None when unknown) that `resolve_directory` would fetch: those
    matching `HUB_PATTERNS` at the repository's top level, and pytorch_model.bin when no safetensors file is among
    them."""
    top = {name: size for name, size in sizes.items() if "/" not in name}
    wanted = {name: size for name, size in top.items() if any(fnmatch.fnmatch(name, p) for p in HUB_PATTERNS)}
    if not any(name.endswith(".safetensors") for name in wanted) and HUB_FALLBACK_WEIGHTS in top:
        wanted[HUB_FALLBACK_WEIGHTS] = top[HUB_FALLBACK_WEIGHTS]
    return wanted


def _is_weights(name: str) -> bool:
    return name.endswith(".safetensors") or name == HUB_FALLBACK_WEIGHTS


def check_before_download(hub_id: str, lang: str = "en", api: Any = None) -> None:
    """Raise `ModelError` (one sentence) unless the hub's metadata of `hub_id` keeps within the app's limits; nothing
    but config.json is downloaded. A model already in the local cache is let through at once. `api` stands in for
    `huggingface_hub.HfApi()` (the tests' fake hub)."""
    name = safe(hub_id, 80)
    if hub.is_cached(hub_id):
        return
    if hub.on_space() and hub.hub_model(hub_id) is None and settings.ANY_HUB_ID.read() != "1":
        raise ModelError(t("model.err.hub_not_offered", lang, name=name, env=settings.ANY_HUB_ID.name))
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    try:
        info = api.model_info(hub_id, files_metadata=True)
    except Exception as error:  # offline, a missing or private repo, a malformed id: the hub's one sentence
        logger.info("no metadata for hub id %s: %s", hub_id, type(error).__name__)
        raise ModelError(t("model.err.hub", lang, value=name)) from error
    revision = getattr(info, "sha", None)
    sizes = {sibling.rfilename: sibling.size for sibling in getattr(info, "siblings", None) or []}
    files = planned_download(sizes)
    weights = {file: size for file, size in files.items() if _is_weights(file)}
    if "config.json" not in files or not weights:
        raise ModelError(t("model.err.hub_no_weights", lang, name=name))
    for file, size in files.items():
        if size is None:
            raise ModelError(t("model.err.hub_unsized", lang, name=name, file=safe(file, 60)))
        limit = CONFIG_MAX_BYTES if file == "config.json" else None if _is_weights(file) else TOKENIZER_MAX_BYTES
        if limit is not None and size > limit:
            raise _too_large(name, file, size, limit, lang)
    total = sum(size or 0 for size in weights.values())
    if total > WEIGHTS_MAX_BYTES:
        raise _too_large(name, ", ".join(sorted(weights)), total, WEIGHTS_MAX_BYTES, lang)
    _check_config(api, hub_id, revision, name, lang)
    if any(file.endswith(".safetensors") for file in weights):
        _check_headers(api, hub_id, revision, name, lang)
    logger.info("hub id %s sized before its download: %d weight file(s), %d bytes", hub_id, len(weights), total)


def _too_large(name: str, file: str, size: int, limit: int, lang: str) -> ModelError:
    return ModelError(
        t("model.err.file_too_large", lang, name=name, file=safe(file, 80), size=f"{size:,}", limit=f"{limit:,}")
    )


def _check_config(api: Any, hub_id: str, revision: str | None, name: str, lang: str) -> None:
    """config.json alone, downloaded (its size checked already) and held to the limits of `read_config`."""
    try:
        path = api.hf_hub_download(hub_id, "config.json", revision=revision)
    except Exception as error:
        logger.info("could not fetch config.json of %s: %s", hub_id, type(error).__name__)
        raise ModelError(t("model.err.hub", lang, value=name)) from error
    read_config(Path(path).parent, name, lang)


def _check_headers(api: Any, hub_id: str, revision: str | None, name: str, lang: str) -> None:
    """The parameters the safetensors headers hold (ranged reads of each file's first bytes), at most
    MAX_PARAMETERS."""
    try:
        metadata = api.get_safetensors_metadata(hub_id, revision=revision)
    except Exception as error:
        logger.info("could not read the safetensors headers of %s: %s", hub_id, type(error).__name__)
        raise ModelError(t("model.err.hub", lang, value=name)) from error
    counts = getattr(metadata, "parameter_count", None) or {}
    total = sum(int(n) for n in counts.values())
    if total > MAX_PARAMETERS:
        raise ModelError(
            t("model.err.too_many_parameters", lang, name=name, n=f"{total:,}", limit=f"{MAX_PARAMETERS:,}")
        )
