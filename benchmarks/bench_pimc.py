"""Median time of a PIMCAgent decision (or any agent's, ``--agent SPEC``), play and calling apart, over seeded hands.

Every seat is the agent; only decisions with more than one legal action are timed.

    .venv/bin/python benchmarks/bench_pimc.py --rules knock --worlds 50 --hands 8
    .venv/bin/python benchmarks/bench_pimc.py --agent search:32:checkpoints/knock_long.pt --hands 8
"""

from __future__ import annotations

import argparse
import statistics
import time

from euchre_env.agents.registry import make_agent
from euchre_env.agents.search.pimc import PIMCAgent
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import information_state


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="knock")
    parser.add_argument("--worlds", type=int, default=50)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", default=None, metavar="SPEC", help="another agent spec (then --worlds is unused)")
    args = parser.parse_args(argv)
    rules = Rules.preset(args.rules)
    agent = make_agent(args.agent, seed=args.seed) if args.agent else PIMCAgent(seed=args.seed, worlds=args.worlds)
    play, call = [], []
    for h in range(args.hands):
        state = GameState(rules, args.seed * 1000 + h)
        while not state.hand_over:
            info = {"information_state": information_state(state, state.current)}
            start = time.perf_counter()
            action = agent.act(None, info)
            elapsed = time.perf_counter() - start
            if len(state.legal_actions()) > 1:
                (play if state.phase == Phase.PLAY else call).append(elapsed)
            state.apply(action)
    for label, times in (("play", play), ("calling", call)):
        if times:
            who = args.agent or f"worlds={args.worlds}"
            print(f"{args.rules} {who} {label}: median {1000 * statistics.median(times):.1f} ms, "
                  f"max {1000 * max(times):.1f} ms over {len(times)} decisions")


if __name__ == "__main__":
    main()
