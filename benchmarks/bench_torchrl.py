"""Learner decisions a second: ``SingleSeatVectorEnv`` alone, next to the TorchRL env over it (``[torchrl]`` extra).

    python benchmarks/bench_torchrl.py                       # 4,096 games of knock against rules, 5 rounds
    python benchmarks/bench_torchrl.py --games 1024 --opponents random --rounds 3

Rows, measured round-robin (one run of each per round, so the machine's drift hits them alike), each a median:

* ``SingleSeatVectorEnv``: the vector env's own loop, ``step`` with a uniformly random legal action per game drawn
  from ``infos["action_mask"]`` (``(rng.random(mask.shape) * mask).argmax(1)``, as benchmarks/bench_env.py).
* ``TorchRL rollout``: ``SingleSeatTorchRLEnv.rollout(--steps, policy, break_when_any_done=False)``, the policy the
  same draw in torch over the TensorDict's ``"action_mask"``: the whole rollout stacked into one TensorDict, as
  a user collects it.
* ``TorchRL Collector``: TorchRL's collector (``torchrl.collectors.Collector``, 0.14's in-process collector)
  with that policy, ``frames_per_batch`` = ``--steps`` x ``--games``: one batch per run, written into the buffer the
  collector allocated once, then cloned for the caller (the collector's default, ``return_same_td=False``).
* ``TorchRL Collector, same td``: the same with ``return_same_td=True``: the buffer itself, no clone (a loop that
  uses each batch before asking for the next, as examples/torchrl_ppo.py).
* ``TorchRL step_and_maybe_reset``: the loop TorchRL's collectors run, storing nothing.

Every row plays ``--steps`` steps of all the games per run (after a warm-up run); ratio is the row's rate over the
vector env's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from torchrl.collectors import Collector

from euchre_env import SingleSeatVectorEnv
from euchre_env.torchrl import SingleSeatTorchRLEnv


def random_legal(td: torch.Tensor) -> torch.Tensor:
    """TorchRL's side of the draw: a uniformly random legal action per game, written into the TensorDict."""
    mask = td.get("action_mask")
    td.set("action", (torch.rand(mask.shape) * mask).argmax(-1))
    return td


def vector_run(envs: SingleSeatVectorEnv, steps: int, rng: np.random.Generator) -> None:
    _obs, infos = envs.reset()
    for _ in range(steps):
        mask = infos["action_mask"]
        _obs, _rewards, _terminated, _truncated, infos = envs.step((rng.random(mask.shape) * mask).argmax(1))


def rollout_run(env: SingleSeatTorchRLEnv, steps: int) -> None:
    env.rollout(steps, random_legal, break_when_any_done=False)


def loop_run(env: SingleSeatTorchRLEnv, steps: int) -> None:
    td = env.reset()
    for _ in range(steps):
        _data, td = env.step_and_maybe_reset(random_legal(td))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="knock")
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--opponents", default="rules")
    parser.add_argument("--observation", default="structured")
    parser.add_argument("--steps", type=int, default=32, help="steps of every game per run")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(0)
    options = {"num_envs": args.games, "opponents": args.opponents, "observation": args.observation, "seed": 0}
    envs = SingleSeatVectorEnv(args.rules, **options)
    env = SingleSeatTorchRLEnv(args.rules, **options)
    rng = np.random.default_rng(0)
    frames = args.steps * args.games
    collector = iter(Collector(SingleSeatTorchRLEnv(args.rules, **options), random_legal, frames_per_batch=frames))
    same_td = iter(Collector(SingleSeatTorchRLEnv(args.rules, **options), random_legal, frames_per_batch=frames,
                             return_same_td=True))
    rows: dict[str, Callable[[], None]] = {
        "SingleSeatVectorEnv": lambda: vector_run(envs, args.steps, rng),
        "TorchRL rollout": lambda: rollout_run(env, args.steps),
        "TorchRL Collector": lambda: next(collector),
        "TorchRL Collector, same td": lambda: next(same_td),
        "TorchRL step_and_maybe_reset": lambda: loop_run(env, args.steps),
    }
    for run in rows.values():  # warm-up: first-touch allocations, the whole step's tables
        run()
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):
        for name, run in rows.items():
            start = time.perf_counter()
            run()
            rates[name].append(args.steps * args.games / (time.perf_counter() - start))
    base = statistics.median(rates["SingleSeatVectorEnv"])
    print(f"{args.rules}, {args.games:,} games, opponents={args.opponents}, observation={args.observation}, "
          f"{args.steps} steps a run, median of {args.rounds} rounds, torch threads {args.torch_threads}")
    print(f"{'row':<30} {'learner steps/s':>16} {'ratio':>7}")
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:<30} {rate:>16,.0f} {rate / base:>7.2f}")


if __name__ == "__main__":
    main()
