#!/usr/bin/env bash
# Issue 46, item 2: the anchored search's gate (z) and its worlds (belief head, the network's policy likelihood),
# chosen on a seed of their own (47300, never used for training, selection or any reported match) before the
# 2,000-deal match on the diagnosis seed. Each row: the search against PIMC-50 on 500 duplicate deals, its override
# counts by decision kind: JSON and log under runs/anchored_sweep/, the JSON gzipped into docs/results/anchored_sweep/
# (docs/results/README.md). Run from the project root.
set -euo pipefail
cd "$(dirname "$0")/.."
DEALS=${DEALS:-500}
SEED=${SEED:-47300}
RAW=runs/anchored_sweep DOCS=docs/results/anchored_sweep
mkdir -p "$RAW"
run() {
    local name=$1; shift
    [ -f "$DOCS/$name.json.gz" ] && { echo "$name: done already"; return; }
    OMP_NUM_THREADS=1 python experiments/search_overrides.py --search anchored --opponent pimc:50 --deals "$DEALS" \
        --seed "$SEED" --json "$RAW/$name.json" "$@" > "$RAW/$name.log" 2>&1
    gzip -9nc "$RAW/$name.json" > "$DOCS/$name.json.gz"  # -n: no name or time, the same records give the same bytes
    head -n 1 "$RAW/$name.log"
}
# The network alone, for the paired differences: an `euchre eval` match, published as its summary and records.
network() {
    local name=$1 b=$2 hands=$3 seed=$4
    [ -f "$DOCS/$name/eval.summary.json" ] && return
    OMP_NUM_THREADS=1 euchre eval knock_150m.pt "$b" --hands "$hands" --seed "$seed" --workers 1 --no-progress \
        --out "$RAW/$name" > "$RAW/$name.log" 2>&1
    python experiments/summarize_match.py "$RAW/$name" --to "$DOCS/$name" --command "OMP_NUM_THREADS=1 euchre eval \
knock_150m.pt $b --hands $hands --seed $seed --workers 1 (experiments/anchored_sweep.sh)"
}
network network pimc:50 "$DEALS" "$SEED"
run belief_z1.64 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 1.64
run policy_z1.64 --checkpoint checkpoints/knock_belief.pt --worlds-from policy --z 1.64
run belief_z0 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 0
run policy_z0 --checkpoint checkpoints/knock_belief.pt --worlds-from policy --z 0
run belief_z1.64_plies4 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 1.64 --plies 4
run belief_z0_plies4 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 0 --plies 4
run belief_z0_plies8 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 0 --plies 8
# Added after the choice below was made (not part of it): more plies behind the gate, and plies past the hand's
# last card (no solve: the network's own rollouts, as the guided search's values, on belief worlds).
run belief_z1.64_plies8 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 1.64 --plies 8
run belief_z1.64_plies40 --checkpoint checkpoints/knock_belief.pt --worlds-from belief --z 1.64 --plies 40
# Added on 2026-12-06 (fifth session), after the choice below: the budget spent where the stakes are, 256 worlds at
# the calls, going alone and the discard, the network unsearched in the card play (the card play's edge over PIMC is
# nil, docs/agents.md#where-the-edge-over-pimc-comes-from): the network's rollouts to the end (no solve), and 4 plies.
run calls_w256_plies40 --checkpoint checkpoints/knock_belief.pt --worlds 256 --plies 40 --kinds call,alone,discard
run calls_w256_plies4 --checkpoint checkpoints/knock_belief.pt --worlds 256 --plies 4 --kinds call,alone,discard
# The better of the two (paired with the network: +0.031 [+0.012, +0.050] and +0.019 [-0.008, +0.046]) on the
# diagnosis's 2,000 deals, and against the CFR bidding agent on seed 46200's.
DEALS=2000 SEED=46100 run final_calls_w256_plies40_seed46100 --checkpoint checkpoints/knock_belief.pt --worlds 256 \
    --plies 40 --kinds call,alone,discard
DEALS=2000 SEED=46200 run final_calls_w256_plies40_vs_cfr_seed46200 --checkpoint checkpoints/knock_belief.pt \
    --opponent cfr:knock_cfr.npz --worlds 256 --plies 40 --kinds call,alone,discard
# The choice (best paired gain over the network above: belief worlds, z 1.64, 4 plies) on the diagnosis's 2,000
# deals of seed 46100 (docs/agents.md#where-the-edge-over-pimc-comes-from), paired with its rows there.
DEALS=2000 SEED=46100 run final_belief_z1.64_plies4_seed46100 --checkpoint checkpoints/knock_belief.pt \
    --worlds-from belief --z 1.64 --plies 4
# The same search against the CFR bidding agent (issue 46's second target for a search: 52% of the points), 2,000
# deals of seed 46200.
DEALS=2000 SEED=46200 run final_vs_cfr_seed46200 --checkpoint checkpoints/knock_belief.pt --opponent cfr:knock_cfr.npz
# The network alone on those deals, for the paired difference.
network network_vs_cfr_seed46200 cfr:knock_cfr.npz 2000 46200
