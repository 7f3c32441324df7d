#!/usr/bin/env bash
# Issue 46, item 1: where the edge over PIMC-50 comes from. Every match: knock, 2,000 duplicate deals of seed
# 46100 (never used for training or selection), so the rows are paired deal by deal. Run from the project root;
# each match writes its JSON/CSV and log under runs/diagnosis/, then its summary and gzipped per-deal records go to
# docs/results/diagnosis/<name>/ (experiments/summarize_match.py; docs/results/README.md). Needs `euchre` on PATH
# (the project's virtual environment activated). The anchored search's 2,000 deals: experiments/anchored_sweep.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
HANDS=${HANDS:-2000}
SEED=${SEED:-46100}
mkdir -p runs/diagnosis
run() {
    local name=$1 a=$2 b=$3
    [ -f "docs/results/diagnosis/$name/eval.summary.json" ] && { echo "$name: done already"; return; }
    echo "$(date -u +%FT%TZ) $name: $a vs $b"
    /usr/bin/time -v euchre eval "$a" "$b" --hands "$HANDS" --seed "$SEED" --workers "${WORKERS:-1}" --no-progress \
        --out "runs/diagnosis/$name" > "runs/diagnosis/$name.log" 2>&1
    python experiments/summarize_match.py "runs/diagnosis/$name" --to "docs/results/diagnosis/$name" --command \
        "euchre eval $a $b --hands $HANDS --seed $SEED --workers ${WORKERS:-1} (experiments/diagnosis.sh)"
    tail -n 12 "runs/diagnosis/$name.log" \
        | grep -v "^\s*\(Page\|Vol\|Invol\|Swaps\|File\|Socket\|Signals\|Average\|Exit\|Minor\|Major\)" || true
}
run network_vs_pimc50 knock_150m.pt pimc:50
run omniscient_vs_pimc50 omniscient pimc:50
run netbid_pimcplay_vs_pimc50 split:knock_150m.pt:pimc:50 pimc:50
run pimcbid_netplay_vs_pimc50 split:pimc:50:knock_150m.pt pimc:50
run cfrbid_pimcplay_vs_pimc50 split:cfr:knock_cfr.npz:pimc:50 pimc:50
run cfrbid_netplay_vs_pimc50 split:cfr:knock_cfr.npz:knock_150m.pt pimc:50
