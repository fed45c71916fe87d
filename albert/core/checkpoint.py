"""Model directories on disk: `save_pretrained` / `from_pretrained`, safetensors weights, hub ids.

A saved directory holds `config.json`, `model.safetensors` and (when given) the tokenizer files.
For sharing modes transformers can express (`all`, `none`) the weights use transformers' key names,
so `transformers.AlbertForPreTraining.from_pretrained(dir)` loads them unchanged; `attention`/`ffn`
directories keep ALBERT Lab's own names and their config.json makes transformers refuse them with
one sentence. Every name and fix-up of transformers' comes from the adapter (`albert.core.hf`); this
module only reads and writes files. A transformers BERT directory loads too (the adapter reads it as
sharing `none`, E = H, no projection, an NSP head); it is saved back in the ALBERT layout. This module
sits below the model classes, which inherit `PretrainedMixin` (as transformers' models inherit
`PreTrainedModel`), and knows none of them.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from albert.core.config import AlbertConfig, ConfigError, read_config_json
from albert.core.hf import PREFIX, from_hf_state_dict, looks_like_hf, to_hf_state_dict
from albert.io import atomic_write

if TYPE_CHECKING:  # torch loads with the weights, so reading a config stays light
    import torch

logger = logging.getLogger(__name__)
WEIGHTS_NAME = "model.safetensors"
PICKLED_WEIGHTS_NAME = "pytorch_model.bin"
"""Read only when a folder has no safetensors weights, with `torch.load(weights_only=True)` (`read_pickled_weights`)."""
_HEAD_PREFIXES = ("mlm_head.", "sentence_pair_head.", "classifier.")

M = TypeVar("M", bound="PretrainedMixin")


class CheckpointError(ConfigError):
    """A checkpoint that cannot be loaded; the message names the file and the reason."""


HUB_PATTERNS: tuple[str, ...] = (
    "config.json",
    "*.safetensors",
    "spiece.model",
    "vocab.txt",
    "tokenizer*",
    "special_tokens_map.json",
)
"""The files of a hub repository `resolve_directory` downloads (fnmatch patterns). safetensors only: most hub repos
also hold a pytorch_model.bin twin, which would double the download; `HUB_FALLBACK_WEIGHTS` is fetched only for a
repo that has no safetensors weights at all."""
HUB_FALLBACK_WEIGHTS = "pytorch_model.bin"


def resolve_directory(name_or_path: str | os.PathLike) -> Path:
    """A local directory as is; otherwise a hub id, downloaded (config, weights, tokenizer)."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    text = str(name_or_path)
    if path.exists() or text.startswith((".", "/", "~")) or text.count("/") > 1 or not text.strip():
        raise CheckpointError(
            f"{text!r} is not a model directory (expected a folder holding config.json "
            "and model.safetensors, or a hub id such as 'albert/albert-base-v2')."
        )
    offline = False
    try:
        from huggingface_hub import constants, snapshot_download

        offline = bool(constants.HF_HUB_OFFLINE)
        patterns = list(HUB_PATTERNS)
        directory = Path(snapshot_download(text, allow_patterns=patterns))
        if not any(directory.glob("*.safetensors")):
            directory = Path(snapshot_download(text, allow_patterns=[*patterns, HUB_FALLBACK_WEIGHTS]))
        return directory
    except Exception as error:  # network, missing repo, offline mode: one clear sentence
        # Offline mode fails for every id not in the cache; saying so beats "check the network".
        reason = (
            "the hub is switched off (HF_HUB_OFFLINE=1) and it is not in the local cache"
            if offline
            else f"{type(error).__name__}; check the id and the network connection"
        )
        raise CheckpointError(
            f"{text!r} is not a local directory and could not be fetched from the Hugging Face hub "
            f"({reason}); pass a checkpoint directory or a reachable hub id."
        ) from error


def read_state_dict(directory: Path) -> tuple[dict[str, torch.Tensor], Path]:
    """Tensors of a checkpoint directory; corrupt or truncated files raise `CheckpointError`."""
    safetensors_path = directory / WEIGHTS_NAME
    bin_path = directory / PICKLED_WEIGHTS_NAME
    if safetensors_path.is_file():
        from safetensors.torch import load_file

        try:
            return load_file(str(safetensors_path)), safetensors_path
        except Exception as error:
            raise CheckpointError(f"{safetensors_path} is corrupt or truncated ({error}).") from error
    if bin_path.is_file():
        return read_pickled_weights(bin_path), bin_path
    raise CheckpointError(f"No {WEIGHTS_NAME} (or {PICKLED_WEIGHTS_NAME}) in {directory}.")


def read_pickled_weights(path: Path, map_location: str = "cpu") -> dict[str, torch.Tensor]:
    """The tensors of a `pytorch_model.bin` (UER's Chinese ALBERTs publish only that), read with
    `torch.load(weights_only=True)` and nothing more permissive: a pickle that asks for anything but tensors and
    plain containers (a function call, an object of some class — a file built to run code) is refused with one
    sentence, as is one that is not a mapping of names to tensors. `map_location="meta"` reads the shapes alone."""
    import pickle

    import torch

    try:
        state = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as error:
        # torch's own message is a paragraph that suggests weights_only=False: never that here.
        raise CheckpointError(
            f"{path} holds more than tensors (its pickle asks to build or call something), so it was not read; "
            "only plain tensor files are loaded: re-save the weights as model.safetensors.",
            "unsafe_pickle",
        ) from error
    except Exception as error:  # truncated, not a torch file at all, an unreadable archive
        raise CheckpointError(
            f"{path} is not a readable PyTorch weights file ({type(error).__name__}); re-save it as model.safetensors.",
            "bad_pickle",
        ) from error
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise CheckpointError(
            f"{path} does not hold a mapping of tensor names to tensors; re-save the weights as model.safetensors.",
            "bad_pickle",
        )
    return state


def load_config(directory: Path) -> AlbertConfig:
    """The config of a model directory; a missing or unreadable file is a `CheckpointError`."""
    path = directory / "config.json"
    try:
        data = read_config_json(path)
    except ConfigError as error:
        raise CheckpointError(str(error), error.code, **error.params) from error
    return AlbertConfig.from_dict(data, source=str(path))


class PretrainedMixin:
    """Adds `save_pretrained` and `from_pretrained` to every ALBERT Lab model class."""

    config: AlbertConfig

    def save_pretrained(
        self, directory: str | os.PathLike, tokenizer: Any = None, dtype: torch.dtype | None = None
    ) -> Path:
        """Write config, weights (optionally cast, e.g. fp16 to halve the size) and tokenizer."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {
            k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v).detach().cpu().contiguous()
            for k, v in self.state_dict().items()
        }
        layout = "transformers" if self.config.transformers_compatible else "albert-lab"
        if self.config.transformers_compatible:
            state = to_hf_state_dict(state, self.config)
        atomic_write(
            directory / WEIGHTS_NAME,
            lambda temp: save_file(state, str(temp), metadata={"format": "pt", "layout": layout}),
        )
        # The dtype to compute in (what the model had), even when the file stores fp16 to halve
        # its size: transformers' `dtype="auto"` reads this instead of the stored tensors' dtype.
        self.config.save(
            directory,
            architecture=type(self).__name__,
            sentence_pair_head=hasattr(self, "sentence_pair_head"),
            dtype=str(next(self.parameters()).dtype).removeprefix("torch."),
        )
        if tokenizer is not None:
            save_tokenizer(tokenizer, directory)
        logger.info("saved %s (%s layout) to %s", type(self).__name__, layout, directory)
        return directory

    @classmethod
    def from_pretrained(cls: type[M], name_or_path: str | os.PathLike, **config_changes: Any) -> M:
        """Load a directory saved by ALBERT Lab or transformers, or a hub id when online.

        `config_changes` override config fields (e.g. `num_labels=3` for a new classifier).
        Heads missing from the checkpoint are freshly initialised (and logged).
        """
        directory = resolve_directory(name_or_path)
        config = load_config(directory)
        if config_changes:
            config = config.replace(**config_changes)
        state, weights_path = read_state_dict(directory)
        if looks_like_hf(list(state)):
            state = from_hf_state_dict(state, config, source=str(weights_path))
        model = cls(config)
        state = _match_prefix(state, model)
        own = model.state_dict()
        for key, tensor in state.items():
            if key in own and own[key].shape != tensor.shape:
                raise CheckpointError(
                    f"{weights_path}: {key} has shape {tuple(tensor.shape)}, but the config "
                    f"in {directory / 'config.json'} needs {tuple(own[key].shape)}."
                )
        unexpected = [k for k in state if k not in own]
        # A model without a pooler (token classification, masked LM) ignores a checkpoint's pooler,
        # as it ignores the heads it does not have.
        unknown = [
            k
            for k in unexpected
            if not k.startswith(_HEAD_PREFIXES) and not k.removeprefix("albert.").startswith("pooler.")
        ]
        if unknown:
            raise CheckpointError(f"{weights_path} holds tensors this model does not have: {unknown[:3]}.")
        missing = [k for k in own if k not in state]
        missing_body = [k for k in missing if not k.startswith(_HEAD_PREFIXES)]
        if missing_body:
            raise CheckpointError(
                f"{weights_path} lacks weights for {missing_body[:3]} "
                f"({len(missing_body)} in all); the file does not match its config."
            )
        _refuse_non_finite({k: v for k, v in state.items() if k in own}, weights_path)
        if missing:
            logger.info("%s: new head weights initialised: %s", weights_path, missing)
        if unexpected:
            logger.info("%s: head weights not used by %s: %s", weights_path, cls.__name__, unexpected)
        model.load_state_dict({k: v.to(own[k].dtype) for k, v in state.items() if k in own}, strict=False)
        return model.eval()

    @classmethod
    def from_transformers(cls: type[M], hf_model: Any) -> M:
        """This class (in eval mode) with the config and weights of a transformers ALBERT model."""
        config = AlbertConfig.from_transformers(hf_model.config)
        model = cls(config)
        model.load_state_dict(
            from_hf_state_dict(hf_model.state_dict(), config, source=type(hf_model).__name__), strict=True
        )
        return model.eval()  # as from_pretrained: a converted model is for inference until trained


def non_finite_tensors(state: dict[str, torch.Tensor]) -> dict[str, int]:
    """{name: how many NaN or infinite values} of the floating-point tensors that hold any."""
    import torch

    counts = {k: int((~torch.isfinite(v)).sum()) for k, v in state.items() if v.is_floating_point()}
    return {k: n for k, n in counts.items() if n}


def _refuse_non_finite(state: dict[str, torch.Tensor], weights_path: Path) -> None:
    """A model with NaN or infinite weights answers NaN (or a silent argmax of NaN) to everything: refused."""
    bad = non_finite_tensors(state)
    if bad:
        name, count = next(iter(bad.items()))
        others = f" (and {len(bad) - 1} more tensors)" if len(bad) > 1 else ""
        raise CheckpointError(
            f"{weights_path}: {name} holds {count:,} NaN or infinite values{others}, so the model cannot give a "
            "meaningful answer; load an earlier checkpoint, or train it again (e.g. with a lower learning rate).",
            "not_finite",
            tensor=name,
            count=count,
            tensors=len(bad),
        )


def save_tokenizer(tokenizer: Any, directory: Path) -> None:
    """Save `tokenizer` into a checkpoint folder, `spiece.model` included: transformers' fast ALBERT tokenizer saves
    only tokenizer.json; the slow `AlbertTokenizer` (and SentencePiece users) need `spiece.model`, so it is copied
    from where the tokenizer came from."""
    tokenizer.save_pretrained(str(directory))
    target = directory / "spiece.model"
    candidates = [
        getattr(tokenizer, "vocab_file", None),
        Path(str(getattr(tokenizer, "name_or_path", ""))) / "spiece.model",
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and Path(candidate).resolve() != target.resolve():
            atomic_write(target, lambda temp, source=Path(candidate): shutil.copyfile(source, temp))
            return


def _match_prefix(state: dict[str, torch.Tensor], model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Add or strip the `albert.` prefix so a backbone and a head model load each other's files."""
    wants_prefix = hasattr(model, "albert")
    has_prefix = any(k.startswith(PREFIX) for k in state)
    if wants_prefix and not has_prefix:
        return {f"{PREFIX}{k}": v for k, v in state.items()}
    if not wants_prefix and has_prefix:
        return {k.removeprefix(PREFIX): v for k, v in state.items() if k.startswith(PREFIX)}
    return state
