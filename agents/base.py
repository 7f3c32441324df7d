"""The protocol every agent follows, usable from a plain PettingZoo loop.

An agent sees what its seat may see and nothing else:

- ``observation``: the env's observation dict (``"observation"`` vector, ``"action_mask"``);
- ``info``: the seat's info dict; it holds ``"action_mask"`` and, when the env was made
  with ``info_state=True`` (the evaluation harness always provides it), the structured
  ``"information_state"`` (:class:`euchre_env.views.infostate.InfoState`).

``reset(seed)`` is called before every deal the evaluation plays, so that results depend
only on the seed and the deal, never on which worker played what before.

An agent that can also decide for many games of a :class:`~euchre_env.envs.vector.VectorEuchre` at once
says so with ``batch_twin(rules)``, which returns its compiled twin, a :class:`BatchTwin` (called with the
vector env, it gives the :class:`BatchPolicy`), or None where it has none for those rules: the rule-based
agent's kernels, uniform random play, a network's batched forward pass. Self-play, the evaluation and
``SingleSeatVectorEnv`` find an agent's twin through :func:`batch_twin`, never by its type. A twin whose
decision is compiled code also offers it (:class:`CompiledDecision`, through ``compiled_decision()``), and
``SingleSeatVectorEnv`` then plays its seats inside one compiled step.

Names (a twin is named after its reference, as OpenSpiel's ``python_kuhn_poker`` after ``kuhn_poker``): the twin
of ``<Name>Agent`` is ``<Name>BatchPolicy`` (``RandomBatchPolicy``, ``RuleBasedBatchPolicy``, ``NeuralBatchPolicy``),
its compiled decision ``<Name>Decision`` (``RuleBasedDecision``); a class whose twin offers its very methods is
``Compiled<Name>`` (``CompiledGame``, ``CompiledDoubleDummy``); the equality test is
``tests/differential/test_<twin>_vs_<reference>.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from euchre_env.game.actions import action_table
from euchre_env.views.infostate import InfoState

if TYPE_CHECKING:
    from euchre_env.envs.vector import VectorEuchre
    from euchre_env.game.rules import Rules


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int: ...


class BatchPolicy(Protocol):
    """An agent's decisions for the seat to act in many games of one ``VectorEuchre`` at once. A policy whose
    decision is compiled code may also define ``compiled_decision() -> CompiledDecision | None`` (below)."""

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One action id per game of ``games`` (indices into the vector env), in the env's action frame (what
        ``venv.step`` takes); ``mask`` holds those games' masks as the env gives them, ``rng`` is the
        caller's stream for a policy that draws."""
        ...


class CompiledDecision(Protocol):
    """A batch policy's decision as compiled code, for the env's single-seat whole step
    (:mod:`euchre_env.envs.whole_step`), which plays the opponents' seats with it inside one C call.

    A :class:`BatchPolicy` offers one with a method ``compiled_decision()`` (returning it, or None); the env asks
    for it where every game has that one opponent, and otherwise plays in rounds of :meth:`BatchPolicy.actions`.
    The rule-based agent's twin has one (``agents.rule_based.compiled.RuleBasedDecision``).
    """

    name: str  # the decision's name, for messages
    # A PyCapsule named "euchre_env.decision" holding engine.h's ``Decision``: a C function
    # ``decide(policy, slice, games, g, mask)`` -> an absolute action id for the seat to act in game ``g`` (``mask``
    # its legal actions, absolute ids), or a negative code (:meth:`check` explains it), and the ``policy`` it
    # reads. The capsule keeps that policy alive. The env never links the agent's extension: it calls the pointer.
    capsule: Any
    slices: int  # the slices the decision's scratch serves at once: the driver uses slices 0 .. slices - 1
    parallel_from: int  # fewer games than this are stepped on the caller's thread

    def check(self, games: np.ndarray, codes: np.ndarray) -> None:
        """Raise for the first negative code of ``codes`` (game ``games[i]``'s); nothing where none is."""
        ...


class BatchTwin(Protocol):
    """What ``batch_twin(rules)`` returns: the batch policy's class, or a :class:`BoundTwin` of it.

    ``deterministic``: the choice depends on the game alone (no random draw), so a seeded evaluation may batch
    it and get the records the agent itself would give.
    """

    deterministic: bool

    def __call__(self, venv: VectorEuchre) -> BatchPolicy: ...


class BoundTwin:
    """A :class:`BatchTwin` whose batch policy takes its agent too: ``policy(agent, venv)`` for each vector env. A
    network's batch policy needs the network, so its twin cannot be the class alone, as ``RandomBatchPolicy`` and
    ``RuleBasedBatchPolicy`` are."""

    def __init__(self, policy: Callable[[Any, VectorEuchre], BatchPolicy], agent: Any, deterministic: bool) -> None:
        self.policy, self.agent, self.deterministic = policy, agent, deterministic

    def __call__(self, venv: VectorEuchre) -> BatchPolicy:
        return self.policy(self.agent, venv)


def batch_twin(agent: Any, rules: Rules) -> BatchTwin | None:
    """``agent``'s compiled twin under ``rules`` (make it with the vector env), or None where the agent decides
    one game at a time."""
    twin = getattr(agent, "batch_twin", None)
    return None if twin is None else twin(rules)


def require_information_state(info: dict[str, Any], who: str) -> InfoState:
    """The seat's InfoState from ``info``, or a clear error saying how to get it."""
    try:
        return info["information_state"]
    except (KeyError, TypeError):
        raise ValueError(
            f"{who} needs info['information_state']: create the env with info_state=True "
            "(euchre_env.env(..., info_state=True))"
        ) from None


def ranked_values(values: dict[int, float], rules: Rules) -> str:
    """``"order alone +1.20, pass -0.35"``: each action's value, best first (ties by id), as a search's
    ``explain`` shows them."""
    strings = action_table(rules).strings
    return ", ".join(f"{strings[a]} {values[a]:+.2f}" for a in sorted(values, key=lambda a: (-values[a], a)))
