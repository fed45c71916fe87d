#!/usr/bin/env bash
# Task-adaptive pretraining on SST-2's training text, then SST-2 fine-tuning, with its from-scratch control.
# Usage: scripts/sst2_task_adaptive.sh [GLUE_DIR] [RUNS_DIR]   STAGE=pretrain|finetune|all; THREADS, PARALLEL, SEEDS
# Protocol: docs/protocols/sst2.md
set -euo pipefail
glue=${1:-../shared/glue}
runs=${2:-runs}/tapt
threads=${THREADS:-1}
stage=${STAGE:-all}
base=${BASE_MODEL:-assets/models/albert-lab-base}
mkdir -p "$runs"

if [ "$stage" != finetune ]; then
  python -m albert.task_text --source "$glue/SST-2/train.tsv" --output "$runs/sst2-train-text.txt" \
    --heldout "$runs/sst2-train-heldout.txt" --heldout-fraction 0.02
  common=(--corpus "$runs/sst2-train-text.txt" --valid-corpus "$runs/sst2-train-heldout.txt" --cache-dir "$runs/cache"
          --data.max-seq-length 64 --batch-size 128 --max-steps "${TAPT_STEPS:-1000}" --eval-every 250
          --eval-examples 1024 --log-every 20 --checkpoint-every 250 --threads "$threads"
          --optim.learning-rate 5e-4 --optim.warmup-fraction 0.06 ${RESUME:-})
  python -m albert.pretrain --init-from "$base" "${common[@]}" --output-dir "$runs/base-tapt" &
  python -m albert.pretrain --model "$base/config.json" --tokenizer "$base" "${common[@]}" \
    --output-dir "$runs/scratch-tapt" &
  wait
fi

if [ "$stage" != pretrain ]; then
  jobs=()
  for arm in base scratch; do
    for seed in $(seq 0 $((${SEEDS:-3} - 1))); do
      out="$runs/sst2-$arm-tapt-seed$seed"
      jobs+=("python -m scripts.finetune_sentiment --model $runs/$arm-tapt/final --glue-dir $glue/SST-2 --skip-scratch \
--max-train-examples 0 --epochs 1 --learning-rate 2e-4 --eval-every 500 --latency-rounds 1 \
--threads $threads --seed $seed --output-dir $out > $out.log 2>&1")
    done
  done
  printf '%s\0' "${jobs[@]}" | xargs -0 -P "${PARALLEL:-2}" -I{} bash -c '{} || echo "failed: {}" >&2'
fi
