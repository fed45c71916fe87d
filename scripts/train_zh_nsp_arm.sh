#!/usr/bin/env bash
# The Chinese NSP arm (albert-lab-zh-nsp): albert-lab-zh's encoder continued with the NSP objective.
# Usage: scripts/train_zh_nsp_arm.sh [SHARED_DIR] [RUNS_DIR]     (resumable: RESUME=--resume, MAX_MINUTES=N)
# Protocol: docs/protocols/zh-nsp-arm.md
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/zh}
mkdir -p "$runs"
python -m albert.pretrain --init-from "${ZH_NSP_FROM:-assets/models/albert-lab-zh}" --word-segmented \
  --no-data.whole-word-masking --data.max-ngram 1 --data.objective nsp \
  --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-nsp" \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 \
  --max-steps "${ZH_NSP_STEPS:-3600}" --eval-every 400 --eval-examples 2048 --checkpoint-every 200 --log-every 10 \
  --threads "${THREADS:-1}" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME:-}
