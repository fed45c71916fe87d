#!/usr/bin/env bash
# The Chinese NSP arm (albert-lab-zh-nsp), for the Sentence order tab's SOP/NSP side by side in 中文 (issue 30).
# Usage: scripts/train_zh_nsp_arm.sh [SHARED_DIR] [RUNS_DIR]     (resumable: RESUME=--resume, MAX_MINUTES=N)
#
# Protocol (written on 2026-12-03 before its run). The English tab compares albert-lab-e128-continued (SOP) with
# albert-lab-nsp (NSP); Chinese had only an SOP model. Training an NSP model from zero would take the 67.7M tokens
# albert-lab-zh took (several sessions), so this arm starts from albert-lab-zh's encoder (--init-from; its SOP head is
# replaced by the NSP objective's head, which starts where SOP's ended) and trains the NSP objective ("B is the next
# text" against "B from another article") with albert-lab-zh's stage-4 data and masks (single characters, lr 5e-4), for
# ZH_NSP_STEPS (default 3,600 steps of 32 × 128, about 12M tokens) or MAX_MINUTES, on one thread. What it is for: the
# NSP head reads topic. Expected: balanced "prefers the real next text over another article's" well above 50%, and
# balanced "prefers the true order" at chance. It ships as albert-lab-zh-nsp whichever way both figures come out, its
# card giving cumulative tokens (albert-lab-zh's 67.7M plus this run's); it is the tab's Chinese NSP model only if the
# topic figure's interval is above 50% (otherwise the tab says Chinese has no working NSP model).
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
