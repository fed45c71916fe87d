#!/usr/bin/env bash
# One arm of the ablation family (issue 15) per call, run from a frozen snapshot of main; resumes from a checkpoint.
# Usage: scripts/run_ablation_arm.sh NAME MINUTES [extra pretrain flags: --model.embedding-size 64 --model.sharing all ...]
# Protocol: docs/protocols/ablations.md
name=$1; minutes=$2; shift 2
main=$(cd "$(dirname "$0")/.." && pwd)  # the checkout this script is in; the snapshot goes beside it
sha=${SNAPSHOT:-$(git -C "$main" rev-parse --short HEAD)}
snap=$(dirname "$main")/snap-$sha
[ -d "$snap" ] || git -C "$main" worktree add -q --detach "$snap" "$sha"
[ -e "$snap/runs" ] || ln -s "$main/runs" "$snap/runs"
cd "$snap"; . "$main/.venv/bin/activate"
resume=""; [ -d "runs/ablation/$name/checkpoint" ] && resume=--resume
echo "code snapshot $snap ($sha)"
exec python -m albert.pretrain --corpus ../shared/corpus/gutenberg-train.txt.xz --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz \
  --tokenizer assets/models/albert-lab-base --cache-dir runs/cache \
  --model albert-base --model.hidden-size 128 --model.num-attention-heads 2 --model.intermediate-size 512 \
  --model.num-hidden-layers 6 --model.max-position-embeddings 64 --data.max-seq-length 64 --batch-size 64 \
  --optim.learning-rate 1e-3 --optim.warmup-fraction 0.03 --max-steps 5600 --threads 1 \
  --eval-examples 2048 --eval-every 500 --log-every 10 --checkpoint-every 250 --max-minutes $minutes \
  --output-dir runs/ablation/$name $resume "$@"
