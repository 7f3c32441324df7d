"""Where a ``SingleSeatVectorEnv`` step goes: the compiled kernels' share against the Python between them.

The README's loop (rules opponents, structured observation, a random learner choosing over the mask) runs for
``--seconds``; each kernel call is timed by a wrapper (a microsecond against calls of milliseconds). What is
left over is Python and NumPy between the calls: the env's checks and arrays, the learner's choice. By default it
times the env's path, the rule-based opponents' whole step as one kernel call; ``--rounds`` times the rounds of
Python decisions and engine steps it replaced (the rewards and episode ends then accounted in Python).

    .venv/bin/python experiments/ablate_single_seat_vector.py --num-envs 4096 --seconds 10 [--rounds]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import euchre_env.agents.rule_based.compiled as rule_kernels
import euchre_env.compiled.batch as engine_kernels
from euchre_env import SingleSeatVectorEnv
from euchre_env.envs import whole_step


def timed(spent: dict[str, float], key: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        out = f(*args, **kwargs)
        spent[key] = spent.get(key, 0.0) + time.perf_counter() - t
        return out

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--opponents", default="rules")
    parser.add_argument("--rounds", action="store_true", help="rounds of Python, not the compiled whole step")
    args = parser.parse_args()
    spent: dict[str, float] = {}
    envs = SingleSeatVectorEnv("knock", num_envs=args.num_envs, opponents=args.opponents, observation="structured",
                               seed=0)
    envs._whole_steps = not args.rounds
    venv = envs.venv
    venv._step_games = timed(spent, "engine steps (with the learner's observation)", venv._step_games)
    venv._end_hands_kernel = timed(spent, "ends of hands and new deals", venv._end_hands_kernel)
    rule_kernels.decide_games = timed(spent, "rule-based decisions", rule_kernels.decide_games)
    whole = whole_step.WholeStep.__call__
    whole_step.WholeStep.__call__ = timed(spent, "the whole step (one kernel call)", whole)
    engine_kernels.observe_games_serial = timed(spent, "the rule-based twin's legal masks",
                                                engine_kernels.observe_games_serial)
    _, infos = envs.reset()
    rng = np.random.default_rng(0)

    def step() -> None:
        nonlocal infos
        mask = infos["action_mask"]
        _, _, _, _, infos = envs.step((rng.random(mask.shape) * mask).argmax(1))

    for _ in range(20):  # compiled and warm
        step()
    spent.clear()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < args.seconds:
        step()
        n += envs.num_envs
    total = time.perf_counter() - start
    print(f"{n / total:,.0f} learner decisions/s, {total / n * 1e6:.2f} us each, {args.num_envs} games, one thread")
    for key, seconds in spent.items():
        print(f"  {key}: {seconds / n * 1e6:.2f} us ({seconds / total:.0%})")
    rest = total - sum(spent.values())
    print(f"  Python and NumPy between the calls: {rest / n * 1e6:.2f} us ({rest / total:.0%})")


if __name__ == "__main__":
    main()
