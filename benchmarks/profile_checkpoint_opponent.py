"""Where the time of ``SingleSeatVectorEnv`` with a checkpoint opponent goes: the README's loop (a random learner,
knock, structured observation) under cProfile, and the learner decisions a second without it.

    python benchmarks/profile_checkpoint_opponent.py --num-envs 4096 --threads 1

docs/vector.md reads the shares this prints (the rate is the machine's; the shares are the code's).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np
import torch

from euchre_env import SingleSeatVectorEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="the env's and torch's threads")
    parser.add_argument("--steps", type=int, default=20, help="learner steps timed, then profiled")
    parser.add_argument("--checkpoint", default="checkpoints/knock.pt")
    parser.add_argument("--top", type=int, default=18, help="functions listed, by own time")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
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


if __name__ == "__main__":
    main()
