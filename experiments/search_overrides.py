"""How often a search leaves its network's choice: a duplicate match of the search against an opponent, counting,
by phase (the guided search) or decision kind (the anchored search), the decisions it searched (more than one
legal action) and those it changed.

    python experiments/search_overrides.py --checkpoint checkpoints/knock_long.pt --opponent rules --deals 100 \
        --seed 30109
    python experiments/search_overrides.py --search anchored --checkpoint checkpoints/knock_belief.pt \
        --opponent pimc:50 --deals 100 --seed 30100

docs/agents.md#network-guided-search reports the counts. One process (``workers=1``): the counters are the
agents' own (``GuidedSearchAgent.searched`` and ``.changed``), summed over the agents the match builds.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from euchre_env.agents.search.anchored import DEFAULT_Z, KINDS, WORLDS_FROM, AnchoredSearchAgent
from euchre_env.agents.search.guided import DEFAULT_WORLDS, GuidedSearchAgent
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.evaluation.pool import one_torch_thread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="checkpoints/knock_long.pt")
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    parser.add_argument("--opponent", default="rules", help="an agent spec")
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals (each played twice)")
    parser.add_argument("--seed", type=int, default=30109)
    parser.add_argument("--json", help="write the counts and the match's margin here")
    parser.add_argument("--search", choices=("search", "anchored"), default="search")
    parser.add_argument("--worlds-from", choices=WORLDS_FROM, default="auto", help="the anchored search's worlds")
    parser.add_argument("--z", type=float, default=DEFAULT_Z, help="the anchored search's gate")
    parser.add_argument("--plies", type=int, default=0, help="the anchored search's network plies before a solve")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="the anchored search's kinds searched, comma-separated (the network plays the rest)")
    args = parser.parse_args()
    agents: list[GuidedSearchAgent] = []

    def search(seed: int | None) -> GuidedSearchAgent:
        agent = (GuidedSearchAgent(args.checkpoint, worlds=args.worlds, seed=seed) if args.search == "search" else
                 AnchoredSearchAgent(args.checkpoint, worlds=args.worlds, z=args.z, worlds_from=args.worlds_from,
                                     plies=args.plies, kinds=args.kinds.split(","), seed=seed))
        agents.append(agent)
        return agent

    start = time.perf_counter()
    with one_torch_thread():
        result = evaluate(search, args.opponent, "knock", n=args.deals, seed=args.seed, workers=1)
    searched, changed = Counter(), Counter()
    for agent in agents:
        searched.update(agent.searched)
        changed.update(agent.changed)
    total_searched, total_changed = sum(searched.values()), sum(changed.values())
    print(f"{args.search}:{args.worlds}:{args.checkpoint} against {args.opponent}, {args.deals} duplicate deals of "
          f"seed {args.seed}: margin {result.margin:+.3f} [{result.margin_low:+.3f}, {result.margin_high:+.3f}], "
          f"{time.perf_counter() - start:.0f} s")
    print(f"{'phase':<12}{'searched':>10}{'changed':>10}{'share':>8}")
    for phase in sorted(searched, key=lambda p: -searched[p]):
        print(f"{phase:<12}{searched[phase]:>10}{changed[phase]:>10}{changed[phase] / searched[phase]:>8.1%}")
    print(f"{'all':<12}{total_searched:>10}{total_changed:>10}{total_changed / max(1, total_searched):>8.1%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": vars(args), "searched": dict(searched), "changed": dict(changed),
                       "margin": [result.margin, result.margin_low, result.margin_high],
                       "points_share": result.points_share, "seconds": result.seconds,
                       # [deal index, margin per hand] of each duplicate deal: paired comparisons on the same deals
                       "deal_margins": sorted([r.index, (r.diff0 + r.diff1) / (r.hands0 + r.hands1)]
                                              for r in result.records)},
                      f, indent=1)


if __name__ == "__main__":
    main()
