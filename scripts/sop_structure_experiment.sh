#!/usr/bin/env bash
# albert-lab-zh continued with SOP on the training reviews, scored on dev reviews and news against two baselines.
# Usage: scripts/sop_structure_experiment.sh [SHARED_DIR] [RUNS_DIR]      (STEP=train|score|all|ship, default all)
# Protocol: docs/protocols/sop-structure-experiment.md; results: docs/results/sop-structure-experiment.md
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/sop-structure}
step=${STEP:-all}
reviews="$shared/glue/zh-reviews"
news="$shared/corpus/zh/peoples-daily-199801-valid.txt.xz"
mkdir -p "$runs"
[ -f "$runs/reviews-train.txt" ] || python -m albert.task_text --source "$reviews/train.tsv" \
  --output "$runs/reviews-train.txt" --heldout "$runs/reviews-train-heldout.txt" --heldout-fraction 0.05 --seed 0
[ -f "$runs/reviews-dev.txt" ] || python -m albert.task_text --source "$reviews/dev.tsv" --output "$runs/reviews-dev.txt"
if [ "$step" = train ] || [ "$step" = all ]; then
  python -m albert.pretrain --init-from assets/models/albert-lab-zh --no-data.whole-word-masking --data.max-ngram 1 \
    --corpus "$runs/reviews-train.txt" --valid-corpus "$runs/reviews-train-heldout.txt" \
    --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-sop-reviews" \
    --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 \
    --sentence-loss-weight 5 --max-steps 4000 --eval-every 500 --eval-examples 1024 --checkpoint-every 500 \
    --log-every 10 --seed 0 --threads 1 --max-minutes 40 ${RESUME:-}
fi
# The run stopped at its time cap (3,029 of 4,000 steps) without writing final/: its weights are checkpoint/'s.
trained="$runs/albert-lab-zh-sop-reviews/final"
[ -d "$trained" ] || trained="$runs/albert-lab-zh-sop-reviews/checkpoint"
if [ "$step" = score ] || [ "$step" = all ]; then
  python -m scripts.score_order_experiment baselines --train "$runs/reviews-train.txt" --dev "$runs/reviews-dev.txt" \
    --tokenizer assets/models/albert-lab-zh --output "$runs/baselines.json"
  for arm in "shipped assets/models/albert-lab-zh" "reviews-sop $trained"; do
    read -r name model <<< "$arm"
    python -m scripts.score_order_experiment model --model "$model" --corpus "reviews-dev=$runs/reviews-dev.txt" \
      --corpus "news-valid=$news" --pairs 1000 --output "$runs/score-$name.json"
    python -m scripts.score_order_experiment compare --scores "$runs/score-$name.json" \
      --baselines "$runs/baselines.json" --output "$runs/compare-$name.json"
  done
fi
# Shipping (only because arm (b) met both rules): fp16 folder and card, then the deciding figures again on that file
# (they went into its card's "reviews only" section and metrics.json's structure_experiment by hand).
if [ "$step" = ship ]; then
  python -m scripts.package_model "$runs/albert-lab-zh-sop-reviews" albert-lab-zh-sop-reviews \
    --valid "$runs/reviews-train-heldout.txt" --language zh
  shipped=assets/models/albert-lab-zh-sop-reviews
  python -m scripts.score_order_experiment model --model "$shipped" --corpus "reviews-dev=$runs/reviews-dev.txt" \
    --corpus "news-valid=$news" --pairs 1000 --output "$runs/score-shipped-reviews-sop.json"
  python -m scripts.score_order_experiment compare --scores "$runs/score-shipped-reviews-sop.json" \
    --baselines "$runs/baselines.json" --output "$runs/compare-shipped-reviews-sop.json"
fi
