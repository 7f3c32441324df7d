"""The compiled rule-based agent's decisions, timed by phase: ``decide_games`` (serial) on the states of ``--num-envs``
games the agent plays in every seat (``VectorEuchre``, observation ``"none"``), one thread, each phase's games in
one call, timed on its second call (the first warms the caches). The engine's legal masks are computed before
and not counted.

    python benchmarks/bench_rule_decisions.py --rules knock --steps 400

docs/vector.md reports its output (0.76 -> 0.22 us a decision, knock, once the kernels were inlined and built
without reference counting).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from euchre_env.agents.rule_based import compiled
from euchre_env.compiled import kernels as K
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
    twin = compiled.RuleBasedVector(venv)
    games = np.arange(args.num_envs, dtype=np.int64)
    spent: dict[int, float] = {}
    count: dict[int, int] = {}
    for _ in range(args.steps):
        st, hands, _, tc, ts, _ = venv.state_arrays()
        masks_of(twin, games)
        actions = np.empty(args.num_envs, np.int64)
        phases = st[:, K.PH].copy()
        for phase in np.unique(phases):
            chosen = np.flatnonzero(phases == phase)
            out = np.empty(chosen.size, np.int64)
            call = (1, chosen, out, st, hands, tc, ts, twin._mask, twin._layout, twin._ids, twin._iopt,
                    twin._level, twin._eff, twin._power, twin._ranking, twin._rlen, twin._upval, twin._w,
                    twin._trump_value, twin._ace_value, *twin._scratch(1))
            compiled.decide_games(*call)
            start = time.perf_counter()
            compiled.decide_games(*call)
            spent[phase] = spent.get(phase, 0.0) + time.perf_counter() - start
            count[phase] = count.get(phase, 0) + chosen.size
            actions[chosen] = out
        venv.step(actions)
    total, n = sum(spent.values()), sum(count.values())
    print(f"{args.rules}, {args.num_envs} games, {n:,} decisions: {total / n * 1e6:.3f} us a decision")
    for phase in sorted(spent):
        print(f"  {Phase(phase).name:11s} {count[phase]:>10,} decisions  {spent[phase] / count[phase] * 1e6:.3f} us"
              f"  {spent[phase] / total:4.0%} of the time")


def masks_of(twin: compiled.RuleBasedVector, games: np.ndarray) -> None:
    """The engine's legal masks (absolute ids) of ``games`` into ``twin._mask``, as ``RuleBasedVector.actions``
    computes them."""
    st, hands, dealt, tc, ts, calls = twin.venv.state_arrays()
    twin._st[:] = st  # the observer writes each game's frame field: it runs on a copy
    t = twin._engine
    K.observe_games_serial(twin._st, hands, dealt, tc, ts, calls, games, twin._obs, twin._mask, twin._raw, t.opt,
                           t.tab, t.akind, t.aarg, t.eff, t.power, t.rank, t.off, t.leader_at, t.card_at,
                           t.rnd_off, t.rnd_width, t.col, t.perms, t.cands, t.ncands, t.to_abs, False, False)


if __name__ == "__main__":
    main()
