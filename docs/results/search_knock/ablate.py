"""Search variants against their own network (the runs of docs/agents.md#network-guided-search).

    OMP_NUM_THREADS=1 python docs/results/search_knock/ablate.py NAME CONFIDENCE belief|uniform DEALS [SEED]

writes runs/search_try/NAME (the match's JSON and CSV) and prints the margin with its interval.
"""

import sys

from euchre_env.agents.search.guided import GuidedSearchAgent
from euchre_env.evaluation import evaluate, write_match

name, confidence, belief = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "belief"
deals, seed = int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 555


class Factory:
    name = f"search:32 confidence {confidence:g} {'belief' if belief else 'uniform'}"

    def __call__(self, seed):
        return GuidedSearchAgent("checkpoints/knock_long.pt", worlds=32, belief=belief, confidence=confidence,
                                 seed=seed, name=self.name)


result = evaluate(Factory(), "checkpoints/knock_long.pt", "knock", n=deals, seed=seed, workers=1)
write_match(result, f"runs/search_try/{name}")
print(name, result.margin, result.margin_low, result.margin_high, result.seconds, flush=True)
