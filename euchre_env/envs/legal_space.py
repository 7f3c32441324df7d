"""``LegalDiscrete``: a ``Discrete`` action space whose ``sample()`` draws a legal action.

Gymnasium's checker and many training scripts call ``action_space.sample()`` without a mask;
for a card game most of the space is illegal at any decision, so the single-seat env's space
samples among the legal actions of the env's current decision instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask picks among the env's legal actions."""

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray], seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, spaces.Discrete) and self.n == other.n and self.start == other.start

    __hash__ = spaces.Discrete.__hash__

    def __reduce__(self) -> tuple:
        # Libraries pickle spaces with their models (SB3's save); the link to the env would
        # drag the whole env, opponents included, into the file.
        return spaces.Discrete, (int(self.n), None, int(self.start))

    def __deepcopy__(self, memo: dict) -> LegalDiscrete:
        # A deep-copied env keeps a legal sampler, bound to the copy (the method's env goes through memo).
        clone = LegalDiscrete(int(self.n), copy.deepcopy(self._legal_mask, memo))
        clone._np_random = copy.deepcopy(self._np_random, memo)
        return clone
