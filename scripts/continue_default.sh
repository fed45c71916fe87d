#!/usr/bin/env bash
# The default model of issue 15: the best ablation arm (albert-lab-e128) continued past the family's 20M tokens
# (README, "Ablations at CPU scale", *The continued run*: protocol written before it runs).
# usage: scripts/continue_default.sh MINUTES        (from the repository root; resumes when a checkpoint exists)
#        PROCS=2 scripts/continue_default.sh MINUTES   (two processes, one thread each, 32 sequences each: the same
#        global batch of 64, the same examples in each step, since every rank reads its slice of one seeded order)
# Its shipped fp16 weights start the run (--init-from: config and tokenizer from there, a fresh AdamW); peak lr 5e-4,
# 3% warm-up, linear decay over 11,100 steps (40M more tokens, 60M in all, the budget of albert-lab-base), data seed 2;
# the arms' data, sequence length, batch and evaluation. Package with scripts.package_model; the protocol's rule
# decides whether it replaces albert-lab-base.
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
