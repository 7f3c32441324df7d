"""PettingZoo's standard wrappers in one layer, for speed.

Every PettingZoo classic env wraps its raw env in TerminateIllegal, AssertOutOfBounds and
OrderEnforcing. Three layers cost more per decision than the whole rules engine: each call
goes down the chain, and the attributes an RL loop reads about eight times a decision
(``agent_selection``, ``terminations``...) miss on every level's ``__getattr__`` first (see
docs/speed.md). A do-nothing env behind the stock chain runs slower than OpenSpiel's euchre.

:class:`StandardWrapper` does what the three do, in their order, in one layer over the raw
env, and reads the hot attributes from it through plain properties. It needs a raw env that
raises :class:`~euchre_env.game.actions.IllegalActionError` for an illegal action before changing
anything (that is the check TerminateIllegal makes with the last mask) and has ``_act(agent,
action)``, its ``step`` for the live agent to act and an int id, which the wrapper calls once it
has made ``step``'s checks itself (the Euchre env does both). It is an
``OrderEnforcingWrapper`` (PettingZoo's ``agent_iter`` requires one), and
``tests/envs/test_env_api.py`` checks that everything observable (observations, rewards, the
end of the game on an illegal move, the errors before ``reset()``, ``str()``) is the stock
chain's. One deliberate difference: an action that is no action id (a string, an id out of
range, ``None`` for an agent to act) gets the raw env's one-line ValueError naming what is
allowed, not a bare assertion.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterator
from itertools import repeat
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable

from euchre_env.game.errors import IllegalActionError

# Read on every decision by agent_iter(), last() and the wrapper itself.
_FORWARDED = ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
              "infos", "possible_agents", "num_agents", "max_num_agents")


def _forward(name: str) -> property:
    get = operator.attrgetter(name)
    return property(lambda self: get(self._raw), doc=f"``{name}`` of the raw env")


class StandardWrapper(OrderEnforcingWrapper):
    """TerminateIllegal + AssertOutOfBounds + OrderEnforcing over ``env``, in one layer.

    Before ``reset()`` the raw env lacks the hot attributes: their property raises
    AttributeError and Python falls back to OrderEnforcing's ``__getattr__`` and its
    "cannot be accessed before reset".
    """

    def __init__(self, env: AECEnv, illegal_reward: float = -1) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._num_actions = self._raw.action_space(self._raw.possible_agents[0]).n
        self._illegal_value = illegal_reward
        self._terminated = False  # the game was ended by an illegal move

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        self._has_reset = self._has_updated = True  # OrderEnforcingWrapper.reset, without its chain of supers
        self._raw.reset(seed=seed, options=options)
        if "last" not in self.__dict__:
            # Before reset, AECEnv.last() reads agent_selection and gets OrderEnforcing's error; after it there
            # is nothing left to enforce: the raw env's own last(), one call less a decision.
            self.last = self._raw.last

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def step(self, action: Any) -> None:
        raw = self._raw
        if type(action) is int and 0 <= action < self._num_actions and self._has_reset:
            # The common case first: an action id while the game is on. The raw env's _turn is the live agent
            # whose decision is on the table (None at a hand's end, after a truncation or an illegal move's end,
            # and before reset()): the agent selected is that one and not dead. raw.step's checks in two reads.
            agent = raw.agent_selection
            if agent is raw._turn:
                self._has_updated = True
                try:
                    raw._act(agent, action)  # raw.step without the checks just made
                except IllegalActionError:
                    self._terminate_illegal(agent)
                return
        elif action is None and self._has_reset and raw.agents:  # a dead agent's step, as the stock chain ends it
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                self._has_updated = True
                raw._was_dead_step(None)
                return
        # OrderEnforcing
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        # AssertOutOfBounds: what Discrete.contains takes (numpy ints...).
        if not self._pettingzoo_accepts(action):
            # Not an action id: the action table's one-line error instead of a bare assertion.
            raw.step(raw.table.check_id(action))
            return
        # TerminateIllegal. Its test, the mask of the agent's last observation, is the raw env's own
        # legality check: the raw env raises IllegalActionError before it changes anything.
        if self._terminated and dead:
            raw._was_dead_step(action)
            return
        try:
            raw.step(action)
        except IllegalActionError:
            self._terminate_illegal(agent)

    def _terminate_illegal(self, agent: str) -> None:
        """TerminateIllegal: every agent done, ``illegal_reward`` to ``agent``, the dead agents stepped first."""
        raw = self._raw
        EnvLogger.warn_on_illegal_move()
        raw._turn = None  # no decision on the table: under this wrapper raw_env._turn is never a dead agent
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True

    def _pettingzoo_accepts(self, action: Any) -> bool:
        # Discrete.contains takes True for 1 and numpy ints; the mask check would index with a bool.
        return (action is not None and not isinstance(action, bool)
                and self._raw.action_space(self._raw.agent_selection).contains(action))

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def __str__(self) -> str:
        return str(self._raw)  # the stock chain prints the env's own name


for _name in _FORWARDED:
    setattr(StandardWrapper, _name, _forward(_name))


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> Iterator[str]:
        return _agents(self.env, self.max_iter)


def _agents(env: StandardWrapper, max_iter: int) -> Iterator[str]:
    """PettingZoo's ``AECOrderEnforcingIterator`` as a generator, reading the raw env's attributes directly: a
    generator resumes for a quarter less than a Python ``__next__`` method is called (about 50 ns a decision).
    ``max_iter`` above ``sys.maxsize`` (the default 2**63) counts as ``sys.maxsize``: one iteration never reached."""
    raw = env._raw
    for _ in repeat(None, min(max_iter, sys.maxsize)):
        if not raw.agents:
            return
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        yield raw.agent_selection


def standard_wrappers(env: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """PettingZoo's TerminateIllegal, AssertOutOfBounds and OrderEnforcing over ``env``, as one layer."""
    return StandardWrapper(env, illegal_reward)
