"""Asking an agent for its action: what it is shown at its turn, and the check of its answer.

Every driver of agents (the single-seat env's opponents, the evaluation's matches, the
trainer's league and teacher) goes through :func:`ask_agent`, so an agent sees the same
inputs everywhere and a wrong answer is reported the same way:

- ``observation = {"action_mask": mask, "observation": vector}`` (the vector is left out
  when the agent sets ``needs_observation = False``: search and rule agents never read it,
  and encoding it is most of a decision's cost);
- ``info = {"action_mask": mask, "information_state": InfoState}``.

One agent is shown more, by design: an agent that sets ``sees_every_hand = True`` (only
:class:`~euchre_env.agents.search.omniscient.OmniscientAgent`, a ceiling for the diagnosis of an agent's
strength, never a player) also gets ``info["game_state"]``, a copy of the true game.

The mask is an ``int8`` array over the rule set's action table, 1 for the legal actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.game.engine import GameState
from euchre_env.game.errors import IllegalActionError
from euchre_env.views.infostate import information_state
from euchre_env.views.observation import Observer


def legal_mask(state: GameState) -> np.ndarray:
    """The legal actions of the seat to act as an ``int8`` mask (all zeros when nobody acts)."""
    mask = np.zeros(len(state.table), np.int8)
    mask[state.legal_actions()] = 1
    return mask


def decision_inputs(state: GameState, observer: Observer | None, needs_observation: bool = True
                    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``(observation, info)`` for the seat to act in ``state``, as the agent protocol defines them."""
    seat = state.current_player
    mask = legal_mask(state)
    observation: dict[str, np.ndarray] = {"action_mask": mask}
    if needs_observation and observer is not None:
        observation["observation"] = observer.encode(state, seat)
    return observation, {"action_mask": mask, "information_state": information_state(state, seat)}


def agent_name(agent: Any) -> str:
    """A short label for an agent object or callable (its ``name``, else its type)."""
    return str(getattr(agent, "name", None) or getattr(agent, "__name__", None) or type(agent).__name__)


def ask_agent(agent: Any, state: GameState, observer: Observer | None, name: str | None = None) -> int:
    """The action ``agent`` (an object with ``act`` or a plain callable) picks for the seat to act.

    Raises :class:`IllegalActionError` naming the agent, the seat, the action and the legal
    ones when the answer is not a legal action id; ``state`` is not changed either way.
    """
    needs = bool(getattr(agent, "needs_observation", True))
    observation, info = decision_inputs(state, observer, needs)
    if getattr(agent, "sees_every_hand", False):  # the omniscient ceiling (module docstring)
        info["game_state"] = state.clone()
    act = agent.act if callable(getattr(agent, "act", None)) else agent
    action = act(observation, info)
    legal = state.legal_actions()
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
        name = name or agent_name(agent)
        raise IllegalActionError(illegal_action_message(state, name, action), state.current_player, name, action)
    return int(action)


def illegal_action_message(state: GameState, name: str, action: Any) -> str:
    """``agent 'x' at seat 3 chose the illegal action 'play 9C' (id 40) in phase PLAY; legal: ...``."""
    return f"agent {name!r} at seat {state.current_player} chose the illegal action {illegal_choice(state, action)}"


def illegal_choice(state: GameState, action: Any) -> str:
    """What was wrong with ``action`` at this decision: the action, the phase and the legal ones."""
    table = state.table
    return f"{table.describe(action)} in phase {state.phase.name}; legal: {table.names(state.legal_actions())}"
