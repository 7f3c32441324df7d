"""Timing two ways of running the same ``SingleSeatVectorEnv`` loop in one process, alternating every few seconds,
so that a busy machine slows both alike (the comparison that holds on a shared host). Used by
``profile_checkpoint_opponent.py --compare`` and ``compare_whole_step.py``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def alternate(runs: dict[str, tuple[Any, Callable[[], Any]]], num_envs: int, rounds: int, seconds: float
              ) -> dict[str, list[float]]:
    """``runs``: name -> (an env, a function that switches to that way, called before each of its timings). A
    random learner steps each env; returns each way's learner decisions a second, ``rounds`` timings each."""
    rng = np.random.default_rng(0)
    infos = {name: envs.reset()[1] for name, (envs, _) in runs.items()}

    def timed(name: str, limit: float) -> float:
        envs, switch = runs[name]
        switch()
        start, steps = time.perf_counter(), 0
        while time.perf_counter() - start < limit:
            mask = infos[name]["action_mask"]
            _obs, _rewards, _terminated, _truncated, infos[name] = envs.step((rng.random(mask.shape) * mask).argmax(1))
            steps += 1
        return steps * num_envs / (time.perf_counter() - start)

    for name in runs:
        timed(name, 1.0)  # compiles and warms the caches
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name in runs:
            rates[name].append(timed(name, seconds))
    return rates


def report(title: str, rates: dict[str, list[float]], new: str, old: str) -> None:
    """Print each way's median and timings, and the ratio of ``new``'s median to ``old``'s."""
    print(title)
    for name, values in rates.items():
        print(f"  {name:>10}: median {np.median(values):>9,.0f}   ({', '.join(f'{v:,.0f}' for v in values)})")
    print(f"  ratio of the medians: {np.median(rates[new]) / np.median(rates[old]):.2f}x")
