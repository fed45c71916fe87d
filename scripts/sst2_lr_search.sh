#!/usr/bin/env bash
# SST-2: each arm's learning rate chosen on held-out *training* sentences, then pretrained vs from scratch on dev.
# Usage: scripts/sst2_lr_search.sh [GLUE_DIR] [RUNS_DIR]   STAGE=search|final|report|all; THREADS, PARALLEL, SEEDS
# Protocol: docs/protocols/sst2.md
set -euo pipefail
glue=${1:-../shared/glue}/SST-2
runs=${2:-runs}/lrsel
model=${BASE_MODEL:-assets/models/albert-lab-base}
stage=${STAGE:-all}
lrs=${LRS:-1e-4 2e-4 5e-4}
mkdir -p "$runs"

# The command of one search run (arm: pretrained|scratch, at rate lr, seed 0); nothing if it is done already.
search_job() {
  local arm=$1 lr=$2 out="$runs/search-$1-lr$2" extra=()
  [ "$arm" = scratch ] && extra+=(--from-scratch)
  [ -f "$out/results.json" ] && return 0
  echo "python -m albert.finetune --model $model --train-file $runs/holdout/train.tsv \
--dev-file $runs/holdout/dev.tsv --task classification \
--label-names negative positive --output-dir $out --max-seq-length 64 --epochs 1 --batch-size 32 \
--optim.learning-rate $lr --optim.warmup-fraction 0.1 --eval-every 500 --seed 0 --threads ${THREADS:-1} \
${extra[*]} > $out.log 2>&1"
}

run_all() { xargs -0 -P "${PARALLEL:-2}" -I{} bash -c '{} || echo "failed: {}" >&2'; }

if [ "$stage" = search ] || [ "$stage" = all ]; then
  python -m experiments.sst2_holdout --source "$glue/train.tsv" --output-dir "$runs/holdout"
  jobs=()
  for arm in pretrained scratch; do
    for lr in $lrs; do
      job=$(search_job "$arm" "$lr")
      [ -n "$job" ] && jobs+=("$job")
    done
  done
  [ ${#jobs[@]} -gt 0 ] && printf '%s\0' "${jobs[@]}" | run_all
fi

if [ "$stage" = final ] || [ "$stage" = all ]; then
  choice=$(python -m experiments.sst2_lr_choice --runs "$runs" --rates $lrs)  # also writes $runs/lr_choice.json
  read -r lr scratch_lr <<< "$choice"
  jobs=()
  for arm in pretrained scratch; do  # the arms run as separate jobs, so two run side by side
    skip=$([ "$arm" = pretrained ] && echo --skip-scratch || echo --skip-pretrained)
    for seed in $(seq 0 $((${SEEDS:-5} - 1))); do
      out="$runs/final-$arm-seed$seed"
      [ -f "$out/sst2_results.json" ] && continue  # done already: the stage can be rerun
      jobs+=("python -m scripts.finetune_sentiment --model $model --glue-dir $glue --max-train-examples 0 --epochs 1 \
--learning-rate $lr --scratch-learning-rate $scratch_lr --eval-every 500 --latency-rounds 1 $skip \
--threads ${THREADS:-1} --seed $seed --output-dir $out > $out.log 2>&1")
    done
  done
  [ ${#jobs[@]} -gt 0 ] && printf '%s\0' "${jobs[@]}" | run_all
fi

if [ "$stage" != search ]; then
  python - "$runs" <<'EOF'
import glob, json, statistics, sys
runs = sys.argv[1]
for arm in ("pretrained", "scratch"):
    for path in sorted(glob.glob(f"{runs}/search-{arm}-*/results.json")):
        best = json.load(open(path))["best"]
        print(f"{path.split('/')[-2]:32s} held-out {best['accuracy']:.2%} (step {best['step']})")
arms = {arm: {r["budget"]["seed"]: r[key]["accuracy"] for r in
              (json.load(open(p)) for p in glob.glob(f"{runs}/final-{arm}-seed*/sst2_results.json"))}
        for arm, key in (("pretrained", "pretrained"), ("scratch", "from_scratch"))}
seeds = sorted(set(arms["pretrained"]) & set(arms["scratch"]))
for seed in seeds:
    pre, scratch = arms["pretrained"][seed], arms["scratch"][seed]
    print(f"seed {seed}: dev pretrained {pre:.2%}, from scratch {scratch:.2%} ({100 * (pre - scratch):+.2f} points)")
if seeds:
    pre, scratch = (statistics.mean(arms[arm][s] for s in seeds) for arm in ("pretrained", "scratch"))
    print(f"mean over {len(seeds)} seeds: pretrained {pre:.2%}, from scratch {scratch:.2%}: "
          f"{100 * (pre - scratch):+.2f} points")
EOF
fi
