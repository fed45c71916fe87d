"""Knowledge distillation: a student with fewer passes learns a fine-tuned teacher's soft labels.

    python -m albert.finetune --teacher runs/sst2/best --model assets/models/albert-lab-none-s1 \\
        --student-passes 3 --distill-temperature 2 --distill-alpha 0.5 --train-file ... --dev-file ...

loss = alpha · CE(student, hard labels) + (1 − alpha) · T² · KL(softmax(teacher / T) ‖ softmax(student / T))
(Hinton et al., 2015; T² keeps the soft term's gradients on the scale of the hard one's). The teacher's logits are
computed once, in eval mode, before training. The student starts from --model (the pretrained backbone, not the
teacher), made by `albert.core.student.make_student`: without sharing it keeps evenly spaced layers, with `all`
sharing the one layer runs fewer times. Sequence classification only.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from albert.core.config import ConfigError
from albert.core.heads import AlbertForSequenceClassification
from albert.core.student import make_student

logger = logging.getLogger("albert.finetune")


def distillation_loss(
    student_logits: torch.Tensor, teacher_logits: torch.Tensor, labels: torch.Tensor, temperature: float, alpha: float
) -> torch.Tensor:
    """alpha · CE(hard) + (1 − alpha) · T² · KL(teacher_T ‖ student_T), averaged over the batch."""
    hard = F.cross_entropy(student_logits.float(), labels)
    soft = F.kl_div(
        F.log_softmax(student_logits.float() / temperature, dim=-1),
        F.log_softmax(teacher_logits.float() / temperature, dim=-1),
        reduction="batchmean",
        log_target=True,
    )
    return alpha * hard + (1 - alpha) * temperature**2 * soft


@torch.no_grad()
def teacher_logits(
    teacher: torch.nn.Module, examples: list[dict[str, Any]], batch_size: int, pad_id: int, device: torch.device
) -> torch.Tensor:
    """(N, C) logits of the teacher on every example, in eval mode (no dropout)."""
    from albert.data.tasks import collate

    teacher.eval()
    rows = []
    for start in range(0, len(examples), batch_size):
        batch = {k: v.to(device) for k, v in collate(examples[start : start + batch_size], pad_id).items()}
        rows.append(teacher(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).logits.float().cpu())
    return torch.cat(rows)


def run_distillation(cfg: Any, load_data: Callable[..., dict[str, Any]], task_of: Callable[[Any], str]) -> Any:
    """Train a --student-passes student of --model on --teacher's soft labels; save output_dir/best
    (`load_data` and `task_of`, a checkpoint's task, are `albert.finetune`'s)."""
    from albert.commands.practices import dev_report, start_run, train_steps, write_results
    from albert.core.checkpoint import load_config, resolve_directory
    from albert.data.tasks import collate
    from albert.data.tokenizer import load_tokenizer
    from albert.training.distributed import epoch_order
    from albert.training.loop import RunResult

    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    teacher_dir, base_dir = resolve_directory(cfg.teacher), resolve_directory(cfg.model)
    teacher_config = load_config(teacher_dir)
    if task_of(teacher_config) != "classification":
        raise ConfigError(
            f"{teacher_dir} is a {task_of(teacher_config)} model; distillation takes a sequence classifier."
        )
    tokenizer = load_tokenizer(cfg.tokenizer or teacher_dir)
    data = load_data(cfg, tokenizer, teacher_config)
    teacher = AlbertForSequenceClassification.from_pretrained(teacher_dir).to(dist.device)
    passes = cfg.student_passes or max(1, teacher_config.num_hidden_layers // 2)
    label_config = {
        k: teacher_config.extra[k] for k in ("id2label", "label2id", "problem_type") if k in teacher_config.extra
    }
    torch.manual_seed(cfg.seed)
    base = AlbertForSequenceClassification.from_pretrained(
        base_dir, num_labels=teacher_config.num_labels, extra={**load_config(base_dir).extra, **label_config}
    )
    student = make_student(base, passes).to(dist.device)
    train, pad = data["train"], tokenizer.pad_token_id
    soft = teacher_logits(teacher, train, cfg.eval_batch_size, pad, dist.device)
    per_epoch = math.ceil(len(train) / cfg.batch_size)

    def loss_of_step(step: int) -> torch.Tensor:
        epoch, position = divmod(step, per_epoch)
        chosen = epoch_order(len(train), cfg.seed, epoch)[position * cfg.batch_size : (position + 1) * cfg.batch_size]
        batch = {k: v.to(dist.device) for k, v in collate([train[i] for i in chosen], pad).items()}
        logits = student(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).logits
        return distillation_loss(
            logits, soft[chosen].to(dist.device), batch["labels"], cfg.distill_temperature, cfg.distill_alpha
        )

    logger.info(
        "distillation: %d-pass student of %s, T %.1f, alpha %.2f",
        passes,
        teacher_dir,
        cfg.distill_temperature,
        cfg.distill_alpha,
    )
    stats = train_steps(student, cfg.epochs * per_epoch, loss_of_step, cfg, dist.device)
    dev = (
        dev_report(student, data["dev"], "classification", data["label_names"], cfg, dist.device, pad)
        if data["dev"]
        else None
    )
    teacher_dev = (
        dev_report(teacher, data["dev"], "classification", data["label_names"], cfg, dist.device, pad)
        if data["dev"]
        else None
    )
    student.cpu().save_pretrained(Path(out) / "best", tokenizer=tokenizer)
    results = {
        "practice": "distill",
        "teacher": str(cfg.teacher),
        "student_passes": passes,
        "teacher_passes": teacher_config.num_hidden_layers,
        "temperature": cfg.distill_temperature,
        "alpha": cfg.distill_alpha,
        "student_parameters": sum(p.numel() for p in student.parameters()),
        "teacher_parameters": sum(p.numel() for p in teacher.parameters()),
        "train_examples": len(train),
        "steps": stats.steps,
        "step_seconds": stats.step_seconds,
        "dev": dev,
        "teacher_dev": teacher_dev,
    }
    write_results(Path(out), results)
    report = (
        f"student ({passes} passes): dev accuracy {dev['accuracy']:.4f}; teacher {teacher_dev['accuracy']:.4f}"
        if dev
        else ""
    )
    return RunResult(model=student, summary={**results, "report": report})
