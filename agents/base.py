"""The protocol every agent follows, usable from a plain PettingZoo loop."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Picks an action for one seat from what that seat may see.

    ``observation`` is the env's observation dict (``"observation"`` and ``"action_mask"``),
    ``info`` the seat's info dict. An agent never reads another seat's hidden cards.
    """

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int: ...
