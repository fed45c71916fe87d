#!/usr/bin/env bash
# One arm of the fresh-model recipe experiment (issue 51) per call: NAME, then the flags that make the arm.
# Usage: scripts/recipe_arm.sh U1-unigram-bias --output-bias unigram; table: python -m experiments.pretraining_recipe
# Protocol (the shape, every tenth training book, the hidden books held out): docs/protocols/pretraining-recipe.md
set -euo pipefail
name=$1; shift
cd "$(dirname "$0")/.."
mkdir -p runs/recipe
if [ ! -f runs/recipe/train-12m.txt ]; then
  python - <<'PY'
import lzma
books = [b for b in lzma.open("../shared/corpus/gutenberg-train.txt.xz", "rt", encoding="utf-8").read().split("\n\n") if b.strip()]
open("runs/recipe/train-12m.txt", "w", encoding="utf-8").write("\n\n".join(books[::10]) + "\n")
PY
fi
exec nice -n 19 python -m albert.pretrain --corpus runs/recipe/train-12m.txt \
  --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz --tokenizer assets/models/albert-lab-base \
  --cache-dir runs/recipe/cache --model albert-base --model.hidden-size 128 --model.num-attention-heads 2 \
  --model.intermediate-size 512 --model.num-hidden-layers 12 --model.max-position-embeddings 64 \
  --data.max-seq-length 64 --batch-size 32 --max-steps 500 --threads 1 --eval-examples 2048 --eval-every 100 \
  --log-every 20 --checkpoint-every 500 --output-dir "runs/recipe/$name" --overwrite "$@" > "runs/recipe/$name.log" 2>&1
