"""Evaluating fine-tuned models: predictions, task metrics (computed by scikit-learn and SciPy,
not by hand), the INT8 quantization report, and the final report a person reads.

classification: accuracy, F1 (of label 1 for two labels, macro-averaged otherwise), Matthews
correlation (CoLA's metric); regression: Pearson and Spearman correlation (STS-B's), MSE;
token classification: token accuracy and token-level F1 over the tags other than `O`
(micro-averaged; entity-level F1 as in seqeval would need span matching on top).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from albert.core.config import IGNORE_INDEX
from albert.data.tasks import collate
from albert.training.distributed import autocast, unwrap

METRICS: dict[str, tuple[str, ...]] = {
    "classification": ("accuracy", "f1", "matthews"),
    "regression": ("pearson", "spearman", "mse"),
    "token": ("accuracy", "f1"),
}
DEFAULT_METRIC = {"classification": "accuracy", "regression": "pearson", "token": "f1"}
LOWER_IS_BETTER = {"mse", "loss"}


def task_metrics(
    task: str, predictions: np.ndarray, labels: np.ndarray, label_names: Sequence[str] = ()
) -> dict[str, float]:
    """Metrics of `predictions` against `labels` (class ids, or numbers for regression).

    Token classification takes flat arrays of the labelled tokens only. A correlation of
    constant predictions is undefined and reported as NaN.
    """
    from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef

    if len(labels) == 0:
        raise ValueError("No labelled examples to evaluate.")
    if task == "regression":
        from scipy.stats import pearsonr, spearmanr

        predictions, labels = predictions.astype(np.float64), labels.astype(np.float64)
        with warnings.catch_warnings():  # constant input: SciPy warns and returns NaN, which we report
            warnings.simplefilter("ignore")
            pearson = float(pearsonr(predictions, labels)[0]) if len(labels) > 1 else math.nan
            spearman = float(spearmanr(predictions, labels)[0]) if len(labels) > 1 else math.nan
        return {"pearson": pearson, "spearman": spearman, "mse": float(np.mean((predictions - labels) ** 2))}
    accuracy = float(accuracy_score(labels, predictions))
    if task == "token":
        tagged = [i for i, name in enumerate(label_names) if name != "O"]
        if len(tagged) == len(label_names):
            f1 = f1_score(labels, predictions, average="macro", zero_division=0)
        else:
            f1 = f1_score(labels, predictions, labels=tagged, average="micro", zero_division=0)
        return {"accuracy": accuracy, "f1": float(f1)}
    binary = len(label_names) <= 2
    f1 = f1_score(
        labels,
        predictions,
        average="binary" if binary else "macro",
        labels=None if binary else list(range(len(label_names))),
        zero_division=0,
    )
    return {"accuracy": accuracy, "f1": float(f1), "matthews": float(matthews_corrcoef(labels, predictions))}


class NonFiniteOutputError(ValueError):
    """A model whose outputs came out NaN or infinite during an evaluation: no metric is computed from them."""


def require_finite(outputs: torch.Tensor, where: str) -> None:
    """Stop an evaluation with one sentence when `outputs` hold NaN or infinite values: the argmax of NaN logits is
    an arbitrary class and a correlation of NaN is NaN, so the metrics would be silently wrong or null."""
    if not bool(torch.isfinite(outputs).all()):
        raise NonFiniteOutputError(
            f"the model's outputs are NaN or infinite on {where}, so no metrics were computed from them; check the "
            "model's weights (a run's last checkpoint stays as it was), or evaluate with --precision fp32 if it ran "
            "in bf16."
        )


def is_better(value: float, best: float | None, metric: str) -> bool:
    """Whether `value` improves on `best`: the first evaluation always does, a later NaN never does."""
    if best is None:
        return True
    if math.isnan(value):
        return False
    if math.isnan(best):
        return True
    return value < best if metric in LOWER_IS_BETTER else value > best


@torch.no_grad()
def predict(
    model: torch.nn.Module,
    examples: list[dict[str, Any]],
    task: str,
    batch_size: int,
    device: torch.device,
    precision: str = "fp32",
    pad_id: int = 0,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Predictions, labels (token tasks: flattened labelled tokens) and mean loss over `examples`."""
    was_training = model.training
    model.eval()
    predictions, labels, loss_sum = [], [], 0.0
    for start in range(0, len(examples), batch_size):
        batch = {k: v.to(device) for k, v in collate(examples[start : start + batch_size], pad_id).items()}
        with autocast(device, precision):
            out = model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], labels=batch["labels"])
        logits = out.logits.float()
        require_finite(logits, f"examples {start + 1}-{start + len(batch['labels'])} of {len(examples)}")
        loss_sum += float(out.loss) * len(batch["labels"])
        if task == "regression":
            predictions.append(logits.squeeze(-1).cpu())
            labels.append(batch["labels"].cpu())
        elif task == "token":
            keep = batch["labels"] != IGNORE_INDEX
            predictions.append(logits.argmax(-1)[keep].cpu())
            labels.append(batch["labels"][keep].cpu())
        else:
            predictions.append(logits.argmax(-1).cpu())
            labels.append(batch["labels"].cpu())
    model.train(was_training)
    return torch.cat(predictions).numpy(), torch.cat(labels).numpy(), loss_sum / max(1, len(examples))


def evaluate(
    model: torch.nn.Module,
    examples: list[dict[str, Any]],
    task: str,
    label_names: list[str],
    batch_size: int,
    device: torch.device,
    precision: str = "fp32",
    pad_id: int = 0,
) -> dict[str, float]:
    """Task metrics (`task_metrics`) and the mean loss of `model` on `examples`."""
    predictions, labels, loss = predict(model, examples, task, batch_size, device, precision, pad_id)
    return {**task_metrics(task, predictions, labels, label_names), "loss": loss}


def quantization_report(
    model: torch.nn.Module,
    examples: list[dict[str, Any]],
    task: str,
    label_names: list[str],
    fp32_metrics: dict[str, float],
    batch_size: int,
    pad_id: int,
    rounds: int,
) -> dict[str, Any]:
    """Evaluate an INT8 dynamic-quantized copy on CPU: metrics and their change, size, latency vs fp32."""
    from albert.core.quantize import count_quantized_linears, measure_latency, model_size_bytes, quantize_model

    cpu = torch.device("cpu")
    fp32 = unwrap(model).cpu().eval()
    int8 = quantize_model(fp32)
    metrics = evaluate(int8, examples, task, label_names, batch_size, cpu, pad_id=pad_id)
    report: dict[str, Any] = {
        "metrics": metrics,
        "change": {k: metrics[k] - fp32_metrics[k] for k in metrics if k in fp32_metrics},
        "quantized_linear_layers": count_quantized_linears(int8),
        "fp32_bytes": model_size_bytes(fp32),
        "int8_bytes": model_size_bytes(int8),
        "torch_threads": torch.get_num_threads(),
    }
    for size in (1, min(batch_size, len(examples))):
        latency = measure_latency({"fp32": fp32, "int8": int8}, collate(examples[:size], pad_id), rounds=rounds)
        report[f"latency_batch_{size}"] = {
            "fp32_ms": latency["fp32"] * 1e3,
            "int8_ms": latency["int8"] * 1e3,
            "speedup": latency["fp32"] / latency["int8"],
        }
    return report


def format_report(summary: dict[str, Any]) -> str:
    """The final lines a person reads: best dev metrics and, with --quantize, INT8 against fp32."""
    task, best = summary["task"], summary.get("best") or {}
    lines = [
        f"{task}: dev "
        + ", ".join(f"{k} {best[k]:.4f}" for k in METRICS[task] if k in best)
        + (f" (step {best['step']})" if "step" in best else "")
    ]
    quantized = summary.get("quantized")
    if quantized:
        change = ", ".join(f"{k} {v:+.4f}" for k, v in quantized["change"].items() if k in METRICS[task])
        lines.append(
            f"INT8 dynamic: {change}; size {quantized['fp32_bytes'] / 2**20:.2f} MiB → "
            f"{quantized['int8_bytes'] / 2**20:.2f} MiB "
            f"({quantized['quantized_linear_layers']} Linear layers quantized)"
        )
        for key in (k for k in quantized if k.startswith("latency_batch_")):
            t = quantized[key]
            lines.append(
                f"  latency, batch {key.rsplit('_', 1)[1]}: fp32 {t['fp32_ms']:.1f} ms, "
                f"int8 {t['int8_ms']:.1f} ms ({t['speedup']:.2f}×, {quantized['torch_threads']} threads)"
            )
    return "\n".join(lines)
