#!/usr/bin/env bash
# The best ablation arm (albert-lab-e128) continued past the family's 20M tokens (albert-lab-e128-continued).
# Usage: [PROCS=1|2|4] scripts/continue_default.sh MINUTES        (from the repository root; resumes from a checkpoint)
# Protocol: docs/protocols/ablations.md (*The continued run* and its two amendments)
set -euo pipefail
minutes=$1
out=runs/ablation/e128-continued
resume=""; [ -d "$out/checkpoint" ] && resume=--resume
procs=${PROCS:-1}
case $procs in 1|2|4) ;; *) echo "PROCS must be 1, 2 or 4 (the global batch of 64 is split evenly), not $procs." >&2; exit 2;; esac
batch=$((64 / procs))
launch=python; [ "$procs" -gt 1 ] && launch="torchrun --standalone --nproc-per-node $procs"
exec $launch -m albert.pretrain --init-from assets/models/albert-lab-e128 \
  --corpus ../shared/corpus/gutenberg-train.txt.xz --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz \
  --cache-dir runs/cache --data.max-seq-length 64 --batch-size "$batch" \
  --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 --max-steps 11100 --threads 1 --seed 2 --data.seed 2 \
  --eval-examples 2048 --eval-every 500 --log-every 10 --checkpoint-every 250 --max-minutes "$minutes" \
  --output-dir "$out" $resume
