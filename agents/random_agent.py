"""Uniformly random legal play: the floor every other agent must beat."""

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
