"""The compiled rule-based agent's decisions, timed by phase: ``RuleBasedBatchPolicy._decide`` (one thread: each game's
legal mask and the agent's action, one C call) on the states of ``--num-envs`` games the agent plays in every seat
(``VectorEuchre``, observation ``"none"``), each phase's games in one call, timed on its second call (the first
warms the caches); wall and CPU time.

    python experiments/bench_rule_decisions.py --rules knock --steps 400

docs/results/vector_history.md reports its output (0.76 -> 0.22 us a decision, knock, once the Numba kernels were
inlined and built without reference counting; the legal masks were computed before and not counted then, by the
engine's observer: the C twin computes them in the same call, and they are counted).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from euchre_env.agents.rule_based import compiled
from euchre_env.compiled.layout import PH
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.phases import Phase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=400, help="steps of every game (a decision each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    venv = VectorEuchre(args.rules, num_envs=args.num_envs, seed=args.seed, observation="none")
    venv.reset()
    twin = compiled.RuleBasedBatchPolicy(venv)
    spent: dict[int, float] = {}
    cpu: dict[int, float] = {}
    count: dict[int, int] = {}
    for _ in range(args.steps):
        phases = venv.engine.arrays.st[:, PH].copy()
        actions = np.empty(args.num_envs, np.int64)
        for phase in np.unique(phases):
            chosen = np.flatnonzero(phases == phase).astype(np.int64)
            twin._decide(chosen)  # warms the caches
            start, start_cpu = time.perf_counter(), time.process_time()
            actions[chosen] = twin._decide(chosen)
            spent[phase] = spent.get(phase, 0.0) + time.perf_counter() - start
            cpu[phase] = cpu.get(phase, 0.0) + time.process_time() - start_cpu
            count[phase] = count.get(phase, 0) + chosen.size
        venv.step(venv.to_canonical_batch(np.arange(args.num_envs), actions))
    total, n = sum(spent.values()), sum(count.values())
    print(f"{args.rules}, {args.num_envs} games, {n:,} decisions: {total / n * 1e6:.3f} us a decision "
          f"({n / total:,.0f} a second; CPU {sum(cpu.values()) / n * 1e6:.3f} us a decision)")
    for phase in sorted(spent):
        print(f"  {Phase(phase).name:11s} {count[phase]:>10,} decisions  {spent[phase] / count[phase] * 1e6:.3f} us"
              f"  {spent[phase] / total:4.0%} of the time")


if __name__ == "__main__":
    main()
