"""Python agents beside a batched game: a reference ``GameState`` per game of a ``VectorEuchre``, kept in step.

An agent that decides one game at a time (PIMC, the search agents, OpenSpiel's bots, any agent of the protocol
without a compiled twin) reads its seat's ``InfoState``, which the batched engine's arrays do not hold.
:class:`MirroredAgents` keeps, for each game of a :class:`~euchre_env.envs.vector.VectorEuchre` that has such an agent
(or whose driver reads the true game: a teacher, the solver's targets), a reference
:class:`~euchre_env.game.engine.GameState` dealt the batched game's cards and stepped with its absolute actions, and
asks the agent of the seat to act through :func:`~euchre_env.views.decision.ask_agent`, with the inputs every driver
gives. It is the one home of that bookkeeping for the evaluation's batched match (``evaluation/batch_play.py``),
self-play (``training/selfplay.py``) and ``SingleSeatVectorEnv``'s slow path (:class:`SlowOpponents`,
:class:`MirroredPolicy`).

The slow path: such games decide one decision at a time in Python (60-100 µs for ``ask_agent`` on the rule-based
agent, far more for a search), while an agent with a compiled twin decides all its games in one call.

The driver tells it what happens to its games: :meth:`MirroredAgents.start` when a game is dealt a new episode,
:meth:`~MirroredAgents.follow` with the absolute actions of every step, :meth:`~MirroredAgents.next_hand` when a hand
ends and the episode goes on. It resets no agent: seeding is the driver's (each has its own streams).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from euchre_env.game.engine import GameState
from euchre_env.game.seats import NUM_SEATS
from euchre_env.views.decision import ask_agent
from euchre_env.views.structured import make_observer

if TYPE_CHECKING:
    from euchre_env.envs.vector import VectorEuchre


class MirroredAgents:
    """Per game of ``venv``: an agent per seat (None: decided elsewhere) and, where one sits or the driver asks, a
    reference ``GameState`` kept in step. The agents are given the absolute observation, as every driver gives
    agents."""

    def __init__(self, venv: VectorEuchre) -> None:
        self.venv = venv
        self.observer = make_observer(venv.rules, "absolute")
        n = venv.num_envs
        self.states: list[GameState | None] = [None] * n  # each kept game's reference state
        self.kept = np.zeros(n, bool)  # the games whose state is kept in step
        self._agents: list[list[Any]] = [[None] * NUM_SEATS for _ in range(n)]
        self._names: list[list[str | None]] = [[None] * NUM_SEATS for _ in range(n)]

    def start(self, g: int, agents: Sequence[Any] | None = None, names: Sequence[str | None] | None = None,
              keep: bool = False) -> None:
        """Game ``g`` was just dealt a new episode (scores 0): ``agents[seat]`` plays that seat (None: not asked
        here), ``names[seat]`` names it in an illegal-action error (default: the agent's own name). The game is kept
        in step where an agent sits, or with ``keep`` (a driver that reads :attr:`states` itself)."""
        self._agents[g] = list(agents) if agents is not None else [None] * NUM_SEATS
        self._names[g] = list(names) if names is not None else [None] * NUM_SEATS
        keep = keep or any(agent is not None for agent in self._agents[g])
        self.states[g] = GameState(self.venv.rules, deal=self.venv.current_deal(g)) if keep else None
        self.kept[g] = keep

    def agent(self, g: int, seat: int) -> Any:
        """The agent at ``seat`` of game ``g`` (None: decided elsewhere)."""
        return self._agents[g][seat]

    def decide(self, g: int) -> int:
        """The choice of the agent at game ``g``'s seat to act, in the ids ``venv.step`` takes now."""
        seat = self.states[g].current_player
        return self.ask(g, self._agents[g][seat], self._names[g][seat])

    def ask(self, g: int, agent: Any, name: str | None = None) -> int:
        """What ``agent`` (any agent: a teacher too) chooses for game ``g``'s seat to act, in the ids ``venv.step``
        takes now; an :class:`~euchre_env.game.errors.IllegalActionError` naming ``name`` for an illegal answer."""
        return self.venv.to_canonical(g, ask_agent(agent, self.states[g], self.observer, name))

    def follow(self, games: np.ndarray, absolute: np.ndarray) -> None:
        """The step that applied ``absolute[i]`` (an absolute id) in game ``games[i]``, onto the kept games among
        them; before their hands' ends are handled (:meth:`next_hand`, :meth:`start`)."""
        for g, action in zip(games.tolist(), absolute.tolist()):
            if self.kept[g]:
                self.states[g].apply(action)

    def next_hand(self, g: int) -> None:
        """Game ``g``'s hand ended and its episode goes on: its state deals the batched game's next hand."""
        if self.kept[g]:
            self.states[g].next_hand(deal=self.venv.current_deal(g))


class MirroredPolicy:
    """A :class:`~euchre_env.agents.base.BatchPolicy` for an agent without a compiled twin (``SingleSeatVectorEnv``'s
    slow path): each game is asked one at a time through :class:`MirroredAgents` (``mirror``), whose agents at those
    games' seats it is; ``mask`` and ``rng`` are not read (the agents read their own state and draw from their own
    seeded generators)."""

    deterministic = False

    def __init__(self, mirror: MirroredAgents) -> None:
        self.mirror = mirror

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.array([self.mirror.decide(g) for g in games.tolist()], np.int64)


class SlowOpponents:
    """``SingleSeatVectorEnv``'s slow path: the games whose opponent has no compiled twin (PIMC, the search agents,
    OpenSpiel's bots), each with its own agent per opponent seat (one per game and seat from a spec string, as
    ``SingleSeatEnv`` builds one per seat; an agent object is shared), asked one decision at a time on a reference
    game kept in step (:class:`MirroredAgents`). Each agent is reset at the start of every episode of its game with a
    seed of its own from the env's stream ``[seed, 2]``, so a seeded env repeats.

    ``opponents``: opponent index -> its agent spec or object, for the slow ones; ``of_game``: each game's opponent
    index; ``seats``: the opponent seats."""

    def __init__(self, venv: VectorEuchre, opponents: dict[int, Any], of_game: np.ndarray, seats: Sequence[int],
                 seed: int | None, build: Any) -> None:
        self.mirror = MirroredAgents(venv)
        self.games = np.flatnonzero(np.isin(of_game, list(opponents)))
        self._agents: dict[int, list[Any]] = {}
        for g in self.games.tolist():
            spec = opponents[int(of_game[g])]
            self._agents[g] = [(build(spec) if isinstance(spec, str) else spec) if s in seats else None
                               for s in range(NUM_SEATS)]
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """The agents' seeds from now on: the stream ``[seed, 2]`` (None: fresh entropy)."""
        self._seeds = np.random.default_rng(None if seed is None else [seed, 2])

    def start(self, games: np.ndarray | None = None) -> None:
        """A new episode in each of ``games`` (default: every slow game), just dealt: the agents reset, the reference
        games dealt."""
        for g in (self.games if games is None else games).tolist():
            agents = self._agents[g]
            for agent in agents:
                if agent is not None and callable(getattr(agent, "reset", None)):
                    agent.reset(seed=int(self._seeds.integers(2**63)))
            self.mirror.start(g, agents)

    def after_step(self, games: np.ndarray, absolute: np.ndarray, done: np.ndarray, hand_over: np.ndarray) -> None:
        """The engine stepped ``games`` with the absolute ids ``absolute``; ``done`` / ``hand_over`` (over every
        game) are what the step returned: the reference games follow, deal their next hand or start anew."""
        self.mirror.follow(games, absolute)
        for g in games[hand_over[games] & self.mirror.kept[games]].tolist():
            if done[g]:
                self.start(np.array([g]))
            else:
                self.mirror.next_hand(g)
