"""`save_pretrained` / `from_pretrained`: Hugging Face directory layout, safetensors weights.

A saved directory holds `config.json`, `model.safetensors` and (when given) the tokenizer
files. For sharing modes transformers can express (`all`, `none`) the weights use
transformers' key names, so `transformers.AlbertForPreTraining.from_pretrained(dir)` loads
them unchanged; `attention`/`ffn` directories use ALBERT Lab's own names, and their `num_hidden_groups`
holds a sentence instead of a number: transformers' config validation refuses it with that
sentence, instead of silently building a randomly initialised model.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, TypeVar

import torch

from albert.config import AlbertConfig, ConfigError, read_config_json
from albert.io import atomic_write

logger = logging.getLogger(__name__)
WEIGHTS_NAME = "model.safetensors"
REFUSAL = ("this ALBERT Lab checkpoint shares only the {sharing} sublayer across passes, which "
           "transformers' ALBERT cannot represent; load it with albert.{cls}.from_pretrained")
"""Written as `num_hidden_groups` for modes transformers cannot represent (a string it rejects)."""
_HEAD_PREFIXES = ("mlm_head.", "sentence_pair_head.", "classifier.")

M = TypeVar("M", bound="PretrainedMixin")


class CheckpointError(ConfigError):
    """A checkpoint that cannot be loaded; the message names the file and the reason."""


def model_class_for_transformers(name: str) -> type:
    import albert

    if not hasattr(albert, name):
        raise CheckpointError(f"transformers class {name} has no ALBERT Lab counterpart.")
    return getattr(albert, name)


def resolve_directory(name_or_path: str | os.PathLike) -> Path:
    """A local directory as is; otherwise a hub id, downloaded (config, weights, tokenizer)."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    text = str(name_or_path)
    if path.exists() or text.startswith((".", "/", "~")) or text.count("/") > 1 or not text.strip():
        raise CheckpointError(f"{text!r} is not a model directory (expected a folder holding config.json "
                              "and model.safetensors, or a hub id such as 'albert/albert-base-v2').")
    offline = False
    try:
        from huggingface_hub import constants, snapshot_download

        offline = bool(constants.HF_HUB_OFFLINE)
        return Path(snapshot_download(text, allow_patterns=[
            "config.json", "*.safetensors", "pytorch_model.bin", "spiece.model", "tokenizer*",
            "special_tokens_map.json"]))
    except Exception as error:  # network, missing repo, offline mode: one clear sentence
        # Offline mode fails for every id not in the cache; saying so beats "check the network".
        reason = ("the hub is switched off (HF_HUB_OFFLINE=1) and it is not in the local cache"
                  if offline else f"{type(error).__name__}; check the id and the network connection")
        raise CheckpointError(
            f"{text!r} is not a local directory and could not be fetched from the Hugging Face hub "
            f"({reason}); pass a checkpoint directory or a reachable hub id.") from error


def read_state_dict(directory: Path) -> tuple[dict[str, torch.Tensor], Path]:
    """Tensors of a checkpoint directory; corrupt or truncated files raise `CheckpointError`."""
    safetensors_path = directory / WEIGHTS_NAME
    bin_path = directory / "pytorch_model.bin"
    if safetensors_path.is_file():
        from safetensors.torch import load_file

        try:
            return load_file(str(safetensors_path)), safetensors_path
        except Exception as error:
            raise CheckpointError(f"{safetensors_path} is corrupt or truncated ({error}).") from error
    if bin_path.is_file():
        try:
            return torch.load(bin_path, map_location="cpu", weights_only=True), bin_path
        except Exception as error:
            raise CheckpointError(f"{bin_path} could not be read safely ({type(error).__name__}: "
                                  f"{error}); re-save it as model.safetensors.") from error
    raise CheckpointError(f"No {WEIGHTS_NAME} (or pytorch_model.bin) in {directory}.")


def load_config(directory: Path) -> AlbertConfig:
    path = directory / "config.json"
    try:
        data = read_config_json(path)
    except ConfigError as error:
        raise CheckpointError(str(error)) from error
    if isinstance(data.get("num_hidden_groups"), str) and data.get("sharing") in ("attention", "ffn"):
        data["num_hidden_groups"] = 1  # the refusal sentence written for transformers
    return AlbertConfig.from_dict(data, source=str(path))


class PretrainedMixin:
    """Adds `save_pretrained` and `from_pretrained` to every ALBERT Lab model class."""

    config: AlbertConfig

    def save_pretrained(self, directory: str | os.PathLike, tokenizer: Any = None,
                        dtype: torch.dtype | None = None) -> Path:
        """Write config, weights (optionally cast, e.g. fp16 to halve the size) and tokenizer."""
        from safetensors.torch import save_file

        from albert.hf import to_hf_state_dict

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v).detach().cpu().contiguous()
                 for k, v in self.state_dict().items()}
        config_dict = self.config.to_dict()
        config_dict["architectures"] = [type(self).__name__]
        # The dtype to compute in (what the model had), even when the file stores fp16 to halve
        # its size: transformers' `dtype="auto"` reads this instead of the stored tensors' dtype.
        config_dict["dtype"] = str(next(self.parameters()).dtype).removeprefix("torch.")
        if hasattr(self, "sentence_pair_head") and self.config.num_labels != 2:
            # transformers sizes its SOP head by num_labels; ours is binary, so say 2 labels
            # or transformers would refuse the (2, H) head weights of this checkpoint.
            config_dict["id2label"] = {"0": "LABEL_0", "1": "LABEL_1"}
            config_dict["label2id"] = {"LABEL_0": 0, "LABEL_1": 1}
        if self.config.transformers_compatible:
            state = to_hf_state_dict(state, self.config)
            layout = "transformers"
        else:
            config_dict["num_hidden_groups"] = REFUSAL.format(sharing=self.config.sharing,
                                                              cls=type(self).__name__)
            layout = "albert-lab"
        atomic_write(directory / WEIGHTS_NAME,
                     lambda temp: save_file(state, str(temp), metadata={"format": "pt", "layout": layout}))
        import json

        from albert.io import atomic_write_text

        atomic_write_text(directory / "config.json", json.dumps(config_dict, indent=2, sort_keys=True) + "\n")
        if tokenizer is not None:
            tokenizer.save_pretrained(str(directory))
            _copy_sentencepiece_model(tokenizer, directory)
        logger.info("saved %s (%s layout) to %s", type(self).__name__, layout, directory)
        return directory

    @classmethod
    def from_pretrained(cls: type[M], name_or_path: str | os.PathLike, **config_changes: Any) -> M:
        """Load a directory saved by ALBERT Lab or transformers, or a hub id when online.

        `config_changes` override config fields (e.g. `num_labels=3` for a new classifier).
        Heads missing from the checkpoint are freshly initialised (and logged).
        """
        from albert.hf import from_hf_state_dict, looks_like_hf

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
                raise CheckpointError(f"{weights_path}: {key} has shape {tuple(tensor.shape)}, but the config "
                                      f"in {directory / 'config.json'} needs {tuple(own[key].shape)}.")
        unexpected = [k for k in state if k not in own]
        # A model without a pooler (token classification, masked LM) ignores a checkpoint's pooler,
        # as it ignores the heads it does not have.
        unknown = [k for k in unexpected if not k.startswith(_HEAD_PREFIXES)
                   and not k.removeprefix("albert.").startswith("pooler.")]
        if unknown:
            raise CheckpointError(f"{weights_path} holds tensors this model does not have: {unknown[:3]}.")
        missing = [k for k in own if k not in state]
        missing_body = [k for k in missing if not k.startswith(_HEAD_PREFIXES)]
        if missing_body:
            raise CheckpointError(f"{weights_path} lacks weights for {missing_body[:3]} "
                                  f"({len(missing_body)} in all); the file does not match its config.")
        if missing:
            logger.info("%s: new head weights initialised: %s", weights_path, missing)
        if unexpected:
            logger.info("%s: head weights not used by %s: %s", weights_path, cls.__name__, unexpected)
        model.load_state_dict({k: v.to(own[k].dtype) for k, v in state.items() if k in own}, strict=False)
        model.eval()
        model.source_directory = directory
        return model


def _copy_sentencepiece_model(tokenizer: Any, directory: Path) -> None:
    """transformers' fast ALBERT tokenizer saves only tokenizer.json; the slow `AlbertTokenizer`
    (and SentencePiece users) need `spiece.model`, so copy it from where the tokenizer came from."""
    import shutil

    target = directory / "spiece.model"
    candidates = [getattr(tokenizer, "vocab_file", None),
                  Path(str(getattr(tokenizer, "name_or_path", ""))) / "spiece.model"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and Path(candidate).resolve() != target.resolve():
            atomic_write(target, lambda temp, source=Path(candidate): shutil.copyfile(source, temp))
            return


def _match_prefix(state: dict[str, torch.Tensor], model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Add or strip the `albert.` prefix so a backbone and a head model load each other's files."""
    wants_prefix = hasattr(model, "albert")
    has_prefix = any(k.startswith("albert.") for k in state)
    if wants_prefix and not has_prefix:
        return {f"albert.{k}": v for k, v in state.items()}
    if not wants_prefix and has_prefix:
        return {k.removeprefix("albert."): v for k, v in state.items() if k.startswith("albert.")}
    return state
