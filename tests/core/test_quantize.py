"""INT8 dynamic quantization: every Linear is quantized, outputs stay close to fp32, the
original model is untouched, the file shrinks, latency is measured for both."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from albert import AlbertForSequenceClassification, AlbertForTokenClassification
from albert.core.quantize import count_quantized_linears, measure_latency, model_size_bytes, quantize_model


def _trained_like(model: nn.Module, seed: int = 0) -> nn.Module:
    """Weights of a realistic scale (std 0.02 fresh init, but non-zero biases and gains)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name.endswith("bias"):
                parameter.copy_(0.02 * torch.randn(parameter.shape, generator=generator))
            elif "norm" in name:
                parameter.copy_(1.0 + 0.1 * torch.randn(parameter.shape, generator=generator))
    return model.eval()


@pytest.mark.parametrize("sharing", ["all", "none", "attention", "ffn"])
def test_every_linear_is_quantized_and_outputs_stay_close(make_config, batch, sharing: str) -> None:
    torch.manual_seed(0)
    model = _trained_like(AlbertForSequenceClassification(make_config(sharing=sharing, num_labels=3)))
    linears = sum(type(m) is nn.Linear for m in model.modules())
    quantized = quantize_model(model)
    assert count_quantized_linears(quantized) == linears
    assert not any(type(m) is nn.Linear for m in quantized.modules())
    assert all(type(m) is nn.Linear for m in model.modules() if isinstance(m, nn.Linear))  # original untouched
    with torch.no_grad():
        expected = model(**batch, output_hidden_states=True)
        got = quantized(**batch, output_hidden_states=True)
    # int8 weights and activations: relative error of a few percent at most
    last = expected.hidden_states[-1]
    assert (got.hidden_states[-1] - last).abs().max() < 0.05 * last.abs().max()
    assert (got.logits - expected.logits).abs().max() < 0.05 * expected.logits.abs().max() + 1e-3


def test_token_classifier_quantizes_and_predicts_the_same(make_config, batch) -> None:
    torch.manual_seed(1)
    model = _trained_like(AlbertForTokenClassification(make_config(num_labels=5)))
    quantized = quantize_model(model)
    with torch.no_grad():
        expected, got = model(**batch).logits, quantized(**batch).logits
    assert got.shape == expected.shape
    agreement = (got.argmax(-1) == expected.argmax(-1)).float().mean()
    assert agreement >= 0.9


def test_size_shrinks_and_latency_is_measured(make_config, batch) -> None:
    # Linear-heavy (no sharing, wide FFN): int8 weights are a quarter of fp32's
    config = make_config(sharing="none", hidden_size=64, intermediate_size=256)
    model = AlbertForSequenceClassification(config).eval()
    quantized = quantize_model(model)
    fp32_bytes, int8_bytes = model_size_bytes(model), model_size_bytes(quantized)
    assert int8_bytes < 0.45 * fp32_bytes
    latency = measure_latency({"fp32": model, "int8": quantized}, batch, rounds=2, warmup=1)
    assert set(latency) == {"fp32", "int8"} and all(t > 0 for t in latency.values())
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        measure_latency({"fp32": model}, batch, rounds=0)
