"""Uniformly random legal play: the floor every other agent must beat.

Compiled twin: :class:`RandomBatchPolicy` (what ``batch_twin`` returns) and ``VectorEuchre.sample_legal``
(``random_actions`` of ``euchre_env/compiled/c/core.c``): the same distribution from the caller's stream, other draws by
design, so no test compares them draw for draw; tests/differential/test_vector_euchre_vs_engine.py and
tests/training/test_train.py check the distribution, and tests/differential/test_single_seat_vector_vs_single_seat.py
replays the twin's draws in ``SingleSeatEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class RandomAgent:
    """Picks uniformly among the legal actions of the mask, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        if name is not None:
            self.name = name
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action (is it this seat's turn?)")
        return int(legal[self.rng.integers(legal.size)])

    def batch_twin(self, rules: Any) -> type[RandomBatchPolicy]:
        """Uniform legal play for many games at once (:class:`~euchre_env.agents.base.BatchPolicy`), drawn
        from the caller's stream: the same distribution as :meth:`act`, other draws."""
        return RandomBatchPolicy


class RandomBatchPolicy:
    """A uniformly random legal action per game, from the masks alone."""

    deterministic = False

    def __init__(self, venv: Any) -> None:
        pass

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return uniform_legal(mask, rng)


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``mask [k, num_actions]``, uniform among that row's legal ones: the k-th legal
    action, k drawn uniformly below the number of legal actions."""
    pick = (rng.random(len(mask)) * mask.sum(1)).astype(np.int64)
    return (mask.cumsum(1) > pick[:, None]).argmax(1)
