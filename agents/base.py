"""The protocol every agent follows, usable from a plain PettingZoo loop.

An agent sees what its seat may see and nothing else:

- ``observation``: the env's observation dict (``"observation"`` vector, ``"action_mask"``);
- ``info``: the seat's info dict; it holds ``"action_mask"`` and, when the env was made
  with ``info_state=True`` (the evaluation harness always provides it), the structured
  ``"information_state"`` (:class:`euchre_env.views.infostate.InfoState`).

``reset(seed)`` is called before every deal the evaluation plays, so that results depend
only on the seed and the deal, never on which worker played what before.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from euchre_env.views.infostate import InfoState


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int: ...


def require_information_state(info: dict[str, Any], who: str) -> InfoState:
    """The seat's InfoState from ``info``, or a clear error saying how to get it."""
    try:
        return info["information_state"]
    except (KeyError, TypeError):
        raise ValueError(
            f"{who} needs info['information_state']: create the env with info_state=True "
            "(euchre_env.env(..., info_state=True))"
        ) from None
