#!/usr/bin/env bash
# Issue 45's speed target, "bench_env's rows within 5%, side by side": bench_env.py on the tree before the seam
# refactor and on this one, alternating three times, CPU clock; then the pooled medians and their ratios.
#   git worktree add /tmp/before e2236ac && bash experiments/seam_speed_check.sh /tmp/before OUT_DIR
# The other tree runs this checkout's venv, with its own modules first on the path (an editable install maps
# euchre_env.* to this checkout: point a sitecustomize at the other tree, as the 2026-12-06 run did).
set -euo pipefail
BEFORE=$1 OUT=${2:-docs/results/bench/seam_check}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
ARGS=(--seconds 1.5 --repeats 3 --presets knock --num-envs 4096 --kinds readme raw vector vector-structured
      vector-noobs single-seat-vector --vector-threads "1 thread" --clock cpu)
for round in 1 2 3; do
  (cd "$BEFORE" && OMP_NUM_THREADS=1 python benchmarks/bench_env.py "${ARGS[@]}" --json "$HERE/$OUT/old_$round.json")
  (cd "$HERE" && OMP_NUM_THREADS=1 python benchmarks/bench_env.py "${ARGS[@]}" --json "$HERE/$OUT/new_$round.json")
done
python "$HERE/experiments/compare_bench_runs.py" "$OUT"
