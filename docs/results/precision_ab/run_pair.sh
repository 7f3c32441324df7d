#!/bin/bash
# one seed: float32 and bfloat16 side by side, one torch thread each
seed=$1
cd /work/main
for p in float32 bfloat16; do
  .venv/bin/euchre train --config configs/knock_scratch.yaml --runs-dir /tmp/prec/runs --run-name ${p}_s${seed} --no-progress \
    --set run.torch_threads=1 run.total_decisions=3000000 run.max_minutes=30 run.seed=$seed ppo.matmul_precision=$p \
    'final_eval.opponents={rules: 10000, random: 2000}' > /tmp/prec/${p}_s${seed}.log 2>&1 &
done
wait
