"""Where the time of ``SingleSeatVectorEnv`` with a checkpoint opponent goes: the README's loop (a random learner,
knock, structured observation) under cProfile, and the learner decisions a second without it.

    python experiments/profile_checkpoint_opponent.py --num-envs 4096 --threads 1
    python experiments/profile_checkpoint_opponent.py --num-envs 4096 --threads 2 --compare

docs/results/vector_history.md reads the shares this prints (the rate is the machine's; the shares are the code's).
``--compare`` instead times the network's two input paths in one process, alternating, so that a busy machine
slows both alike: the observer's non-zero entries handed to the first layer (the default), and the dense rows the
layer scans itself (every path before ``observe_games_sparse``; what a network without the sparse first layer
still takes).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np
import torch
from alternating import alternate, report

from euchre_env import SingleSeatVectorEnv
from euchre_env.agents.neural import agent as neural_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="the env's and torch's threads")
    parser.add_argument("--steps", type=int, default=20, help="learner steps timed, then profiled")
    parser.add_argument("--checkpoint", default="checkpoints/knock.pt")
    parser.add_argument("--top", type=int, default=18, help="functions listed, by own time")
    parser.add_argument("--compare", action="store_true", help="time the entries path against the dense rows")
    parser.add_argument("--rounds", type=int, default=7, help="--compare: alternating timings of each path")
    parser.add_argument("--seconds", type=float, default=2.0, help="--compare: seconds a timing")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.compare:
        compare(args)
        return
    envs = SingleSeatVectorEnv("knock", num_envs=args.num_envs, opponents=args.checkpoint, observation="structured",
                               seed=0, threads=args.threads)
    rng = np.random.default_rng(0)
    _obs, infos = envs.reset()

    def play(steps: int) -> None:
        nonlocal infos
        for _ in range(steps):
            mask = infos["action_mask"]
            _obs, _rewards, _terminated, _truncated, infos = envs.step((rng.random(mask.shape) * mask).argmax(1))

    play(5)  # compiles and warms the caches
    start = time.perf_counter()
    play(args.steps)
    rate = args.steps * args.num_envs / (time.perf_counter() - start)
    print(f"{args.num_envs} games, {args.threads} thread(s): {rate:,.0f} learner decisions a second")
    profile = cProfile.Profile()
    profile.runcall(play, args.steps)
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


def compare(args: argparse.Namespace) -> None:
    entries = neural_agent._reads_entries
    ways = {"entries": entries, "dense rows": lambda layer: False}
    runs = {}
    for name, reads in ways.items():
        envs = SingleSeatVectorEnv("knock", num_envs=args.num_envs, opponents=args.checkpoint,
                                   observation="structured", seed=0, threads=args.threads)
        runs[name] = (envs, lambda reads=reads: setattr(neural_agent, "_reads_entries", reads))
    try:
        rates = alternate(runs, args.num_envs, args.rounds, args.seconds)
    finally:
        neural_agent._reads_entries = entries
    report(f"{args.num_envs} games, {args.threads} thread(s), {args.rounds} alternating timings of "
           f"{args.seconds:g} s; learner decisions a second:", rates, "entries", "dense rows")


if __name__ == "__main__":
    main()
