#!/usr/bin/env bash
# Trains the first demo models with our own pipeline (python -m albert.pretrain); resumable with RESUME=--resume.
# Usage: scripts/train_demo_models.sh default|ablations [CORPUS_DIR] [RUNS_DIR]
# Notes: docs/protocols/demo-models.md
set -euo pipefail
what=${1:?default or ablations}
corpus=${2:-../shared/corpus}
runs=${3:-runs}
threads=${THREADS:-2}
resume=${RESUME:-}

# One architecture for every run: V 8k, E 128, H 128, 2 heads, FFN 512, 6 passes.
model=(--model albert-base --model.embedding-size 128 --model.hidden-size 128 --model.num-attention-heads 2
       --model.intermediate-size 512 --model.num-hidden-layers 6)
common=(--corpus "$corpus/gutenberg-train.txt.xz" --valid-corpus "$corpus/gutenberg-valid.txt.xz"
        --tokenizer "$runs/tokenizer-8k" --cache-dir "$runs/cache"
        --optim.learning-rate 1e-3 --optim.warmup-fraction 0.03 --threads "$threads"
        --eval-examples 1024 --log-every 10 $resume)
# The default model trains on 64-token sequences (twice the tokens per second of 128 on a CPU, and
# SST-2 sentences fit); the ablations keep the 128-token recipe their recorded curves came from.
default_data=(--model.max-position-embeddings 64 --data.max-seq-length 64 --batch-size "${BATCH:-64}")
ablation_data=(--model.max-position-embeddings 128 --data.max-seq-length 128 --batch-size "${BATCH:-32}")

if [ ! -f "$runs/tokenizer-8k/spiece.model" ]; then
  python -c "from albert.data.tokenizer import train_tokenizer; train_tokenizer(['$corpus/gutenberg-train.txt.xz'], '$runs/tokenizer-8k', vocab_size=8000, max_sentences=1_000_000)"
fi

case "$what" in
  default)
    python -m albert.pretrain "${common[@]}" "${model[@]}" "${default_data[@]}" --output-dir "$runs/albert-lab-base" \
      --max-steps "${DEFAULT_STEPS:-7800}" --eval-every 500 --checkpoint-every 250 ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ;;
  ablations)
    steps=${ABLATION_STEPS:-350}
    for sharing in all attention ffn none; do
      python -m albert.pretrain "${common[@]}" "${model[@]}" "${ablation_data[@]}" --model.sharing "$sharing" \
        --output-dir "$runs/ablation-$sharing-sop" --max-steps "$steps" --eval-every 50 --checkpoint-every 50
    done
    python -m albert.pretrain "${common[@]}" "${model[@]}" "${ablation_data[@]}" --data.objective nsp \
      --output-dir "$runs/ablation-all-nsp" --max-steps "$steps" --eval-every 50 --checkpoint-every 50 ;;
  *) echo "usage: $0 default|ablations [CORPUS_DIR] [RUNS_DIR]" >&2; exit 2 ;;
esac
