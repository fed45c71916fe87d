"""INT8 dynamic-range quantization of the Linear layers, for CPU inference.

    int8_model = quantize_model(model)          # a copy; `model` is left as it was
    model_size_bytes(model), model_size_bytes(int8_model)
    measure_latency({"fp32": model, "int8": int8_model}, batch)

Dynamic-range quantization stores each Linear weight as int8 with one scale per output row
(per channel) and quantizes the activations on the fly, per batch, from their observed range;
the matmul runs in int8 and the result returns to fp32. Embeddings, LayerNorms, softmax and
GELU stay fp32, so no calibration data is needed and nothing else in the model changes. It is
not full-integer quantization. In ALBERT almost every FLOP is in a Linear, but in a model with
`all` sharing most of the *parameters* are in the V×E embedding table, so the file shrinks
less than the 4× of the Linear weights alone.

API: PyTorch's eager `torch.ao.quantization.quantize_dynamic`. It still works in torch 2.13 on
x86 (fbgemm/onednn) and ARM (qnnpack), but is deprecated in favour of the `torchao` package
(`torchao.quantization.quantize_(model, Int8DynamicActivationInt8WeightConfig())`), which is
where this module should go if a later torch removes `torch.ao.quantization`; its deprecation
warnings are silenced here, not hidden from the report. The quantized model runs on CPU only and
is for inference: save the fp32 model and quantize after loading.
"""

from __future__ import annotations

import copy
import logging
import os
import statistics
import tempfile
import time
import warnings
from collections.abc import Mapping

import torch
from torch import nn

logger = logging.getLogger(__name__)


def _dynamic_quantization_api():
    try:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic
    except ImportError as error:  # a torch without the eager API
        raise RuntimeError(
            "This torch has no torch.ao.quantization.quantize_dynamic; install torchao and use "
            "torchao.quantization.quantize_ with Int8DynamicActivationInt8WeightConfig."
        ) from error
    return quantize_dynamic, per_channel_dynamic_qconfig


def quantize_model(model: nn.Module) -> nn.Module:
    """A CPU copy of `model` in eval mode with every `nn.Linear` replaced by a dynamic INT8 Linear."""
    quantize_dynamic, qconfig = _dynamic_quantization_api()
    engines = torch.backends.quantized.supported_engines
    if torch.backends.quantized.engine not in engines or torch.backends.quantized.engine == "none":
        torch.backends.quantized.engine = "qnnpack" if "qnnpack" in engines else engines[0]
    fp32 = copy.deepcopy(model).cpu().float().eval()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated")
        warnings.filterwarnings("ignore", message=r"torch\.quantize_per_(tensor|channel)", category=UserWarning)
        quantized = quantize_dynamic(fp32, {nn.Linear: qconfig}, dtype=torch.qint8)
    logger.info(
        "quantized %d Linear layers to dynamic INT8 (engine %s)",
        count_quantized_linears(quantized),
        torch.backends.quantized.engine,
    )
    return quantized


def count_quantized_linears(model: nn.Module) -> int:
    """How many modules of `model` are dynamic-quantized Linear layers."""
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    return sum(isinstance(module, DynamicLinear) for module in model.modules())


def model_size_bytes(model: nn.Module) -> int:
    """Size on disk of `model`'s state dict saved with `torch.save` (the same measure for fp32 and INT8)."""
    handle, name = tempfile.mkstemp(suffix=".pt")
    os.close(handle)
    try:
        torch.save(model.state_dict(), name)
        return os.path.getsize(name)
    finally:
        os.unlink(name)


@torch.inference_mode()
def measure_latency(
    models: Mapping[str, nn.Module], batch: Mapping[str, torch.Tensor], rounds: int = 20, warmup: int = 3
) -> dict[str, float]:
    """Median seconds per forward pass of each model on `batch` (CPU).

    The models take turns within each round, in alternating order, so that other load on the
    machine and thermal drift affect all of them alike.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}.")
    inputs = {k: v.cpu() for k, v in batch.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
    names = list(models)
    for name in names:
        models[name].eval()
        for _ in range(warmup):
            models[name](**inputs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        for name in names if round_index % 2 == 0 else reversed(names):
            start = time.perf_counter()
            models[name](**inputs)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}
