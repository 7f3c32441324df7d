#!/bin/bash
# Four seeds of knock_scratch for 3 million learner decisions, two side by side, one torch thread each
# (docs/speed.md, "Page faults, a one-pass tanh, the critic after the collection"). new_*: this tree (c127e28);
# previous_*: 4ac9305, run from a worktree of that commit.
for seed in "$@"; do
  .venv/bin/euchre train --config configs/knock_scratch.yaml --runs-dir /tmp/fused/runs --run-name bfloat16_s${seed} \
    --no-progress --set run.torch_threads=1 run.total_decisions=3000000 run.max_minutes=30 run.seed=$seed \
    ppo.matmul_precision=bfloat16 'final_eval.opponents={rules: 10000, random: 2000}' > new_bfloat16_s${seed}.log 2>&1 &
done
wait
