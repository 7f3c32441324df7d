"""The rule-based opponents' compiled whole step against the rounds of Python it replaces, in one process,
alternating every few seconds so that a busy machine slows both alike: ``SingleSeatVectorEnv`` knock, structured,
a random learner, 4,096 games.

    python experiments/compare_whole_step.py --threads 1
    python experiments/compare_whole_step.py --threads 0      # every core (threads=None)

The env uses the whole step (``SingleSeatVectorEnv._whole_steps``, True by default); this script times both paths.
docs/results/vector_history.md reports its output.
"""

from __future__ import annotations

import argparse

from alternating import alternate, report

from euchre_env import SingleSeatVectorEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="the env's threads (0: every core)")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=7, help="alternating timings of each path")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds a timing")
    args = parser.parse_args()
    threads = args.threads or None
    runs = {}
    for path in ("rounds", "whole step"):
        envs = SingleSeatVectorEnv("knock", num_envs=args.num_envs, opponents="rules", observation="structured",
                                   seed=0, threads=threads)
        runs[path] = (envs, lambda envs=envs, on=path == "whole step": setattr(envs, "_whole_steps", on))
    rates = alternate(runs, args.num_envs, args.rounds, args.seconds)
    report(f"{args.num_envs} games, threads={threads}, {args.rounds} alternating timings of {args.seconds:g} s; "
           "learner decisions a second:", rates, "whole step", "rounds")


if __name__ == "__main__":
    main()
