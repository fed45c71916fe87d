"""Guards on a loaded model: no silent NaN (weights or outputs), and a loader's refusal without the folder's path.

Used by every model the app loads: the pretraining models (`app.models.load`) and the Sentiment tab's classifier.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from albert.core.config import ConfigError
from app.i18n import safe, t
from app.models import budget
from app.models.files import ModelError

logger = logging.getLogger(__name__)


def _short(text: str, limit: int = 80) -> str:
    return safe(text, limit)


def _without_paths(message: str, directory: Path) -> str:
    """A library's message with the model folder's full path replaced by its last part."""
    for form in {str(directory), str(directory.resolve())}:
        message = message.replace(form + os.sep, "").replace(form, directory.name)
    return message


def load_refusal(error: Exception, name: str, directory: Path, lang: str) -> ModelError:
    """The sentence for a model `from_pretrained` refused: its own for NaN or infinite weights (the library's
    `not_finite` code), else the library's reason without the folder's full path."""
    if isinstance(error, ConfigError) and error.code == "not_finite":
        tensor, count = str(error.params.get("tensor", "?")), error.params.get("count", 0)
        return ModelError(t("model.err.not_finite", lang, name=_short(name), tensor=_short(tensor), n=f"{count:,}"))
    reason = safe(_without_paths(str(error), directory), 300)
    return ModelError(t("model.err.load", lang, name=_short(name), reason=reason))


def refuse_non_finite_outputs(model: Any, name: str) -> Any:
    """Make every forward pass of `model`, and of its encoder (which the attention views call directly), refuse
    NaN or infinite outputs with one sentence (a `ModelError` in the request's language): otherwise they come out
    as probabilities `null`, an argmax of NaN ('.') or a comparison of NaNs read as an order. One place for every
    tab; the check costs a pass over outputs the request computed anyway. Returns the model."""
    import torch

    def check(_module: Any, _inputs: Any, output: Any) -> None:
        if not all(bool(torch.isfinite(tensor).all()) for tensor in _tensors(output)):
            logger.warning("%s: non-finite outputs refused", name)
            raise ModelError(t("model.err.not_finite_output", budget.language(), name=_short(name)))

    for module in dict.fromkeys([model, getattr(model, "albert", model)]):
        module.register_forward_hook(check)
    return model


def _tensors(output: Any) -> Iterator[Any]:
    """The floating-point tensors of a forward pass's output (a dataclass, a tuple of them, a tensor) that an answer
    reads; losses are left out (the mean over no labelled position is NaN by definition, and no tab shows one)."""
    import torch

    if isinstance(output, torch.Tensor):
        if output.is_floating_point():
            yield output
    elif is_dataclass(output) and not isinstance(output, type):
        for item in fields(output):
            if not item.name.endswith("loss"):
                yield from _tensors(getattr(output, item.name))
    elif isinstance(output, (tuple, list)):
        for item in output:
            yield from _tensors(item)
