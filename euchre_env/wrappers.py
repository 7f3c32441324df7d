"""PettingZoo's standard wrappers, with the per-decision attribute reads made cheap.

``env()`` wraps the raw env in TerminateIllegal, AssertOutOfBounds and OrderEnforcing, as
every PettingZoo classic env does. AssertOutOfBounds reports an action that is no action id
(a string, an id out of range) with the raw env's one-line ValueError, not an assertion.
Those wrappers find ``agent_selection``, ``rewards``, ``terminations``... through
``__getattr__``, which fails over one level at a time; an RL loop reads such attributes
about eight times a decision, and the misses cost more than the whole rules engine (see
docs/speed.md). The subclasses below forward those attributes to the raw env
with plain properties. Otherwise behaviour is PettingZoo's: before
``reset()`` the raw env lacks the attribute, the property raises AttributeError, and
Python falls back to the wrapper's own ``__getattr__`` (OrderEnforcing's "cannot be
accessed before reset" included).
"""

from __future__ import annotations

import operator
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

# Read on every decision by agent_iter(), last() and the wrappers themselves.
_FORWARDED = ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
              "infos", "possible_agents", "num_agents", "max_num_agents")


def _forward(name: str) -> property:
    get = operator.attrgetter(name)
    return property(lambda self: get(self._raw), doc=f"``{name}`` of the raw env")


class _ForwardHotAttributes:
    """Mixin: read the hot attributes straight from the raw env."""

    _raw: AECEnv

    def _bind_raw(self) -> None:
        self._raw = self.env.unwrapped


for _name in _FORWARDED:
    setattr(_ForwardHotAttributes, _name, _forward(_name))


class TerminateIllegalWrapper(_ForwardHotAttributes, wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._bind_raw()


class AssertOutOfBoundsWrapper(_ForwardHotAttributes, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._bind_raw()
        self._num_actions = self._raw.action_space(self._raw.possible_agents[0]).n

    def step(self, action: Any) -> None:
        # A plain in-range int is what Discrete.contains accepts; anything else takes the full check.
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
        elif self._pettingzoo_accepts(action):
            super().step(action)
        else:
            # Not an action id (a string, an id out of range, None for an agent to act): the action
            # table's one-line error instead of PettingZoo's bare "action is not in action space".
            self.env.step(self._raw.table.check_id(action))

    def _pettingzoo_accepts(self, action: Any) -> bool:
        agent = self._raw.agent_selection
        if action is None:
            return self._raw.terminations[agent] or self._raw.truncations[agent]
        # Discrete.contains takes True for 1; the mask check below the wrapper would index with it.
        return not isinstance(action, bool) and self.action_space(agent).contains(action)


class OrderEnforcingWrapper(_ForwardHotAttributes, wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._bind_raw()

    def __str__(self) -> str:
        return str(self.env)  # the stock outermost wrapper prints the env's own name


# The subclasses keep PettingZoo's class names, so str(env) and isinstance checks read as before.
def standard_wrappers(env: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """TerminateIllegal, AssertOutOfBounds, OrderEnforcing: the chain of PettingZoo's classic envs."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, illegal_reward)))
