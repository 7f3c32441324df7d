"""A single-agent Gymnasium view of Euchre: the learner holds one seat (or one team).

``SingleSeatEnv(rules="knock", opponents="random", seat=0)`` drives the engine directly
(``GameState`` + ``Observer``) and lets the given opponents play every other seat, so a
standard single-agent RL loop (e.g. sb3-contrib ``MaskablePPO``) can train against them.

- ``seat=s``: the learner is seat ``s`` (0 when neither ``seat`` nor ``team`` is given);
  ``team=t``: both seats of team ``t`` are the learner, which is asked for whichever of
  them is to act (the observation and ``info["seat"]`` are that seat's).
- ``opponents``: one opponent for every other seat, or a dict ``seat -> opponent``. An
  opponent is an agent object (``act(observation, info) -> int``, ``reset(seed)``), a
  plain callable ``(observation, info) -> int``, or a spec string of
  ``euchre_env.agents.registry.make_agent`` (``"random"``, ``"rules"``, ``"pimc:N"``, a checkpoint
  ``"path.pt"``); a spec string builds one agent per seat, an object or callable is shared
  by the seats it plays.
- Rewards: with ``reward="points"`` every hand that ends gives the learner its team's
  points minus the other team's; with ``reward="win"``, +1 / -1 when the game ends (the
  sign of the hand's points for ``episode="hand"`` when the game goes on). Every hand's
  reward reaches the learner: a step returns the sum over the hands that ended since its
  previous step, including those that ended while only opponents were acting (hands that
  end before the learner's first decision of an episode count in its first step).
- ``action_space.sample()`` draws among the legal actions of the current decision (a
  plain ``Discrete`` sample when given an explicit ``mask``); pickled, the space becomes a
  plain ``Discrete`` (the link to a live env is not data).
- Illegal actions: every action of the ``Discrete`` space is accepted, as Gymnasium's API
  expects (``check_env`` steps an action it drew before a seeded ``reset``, in another
  decision). With ``illegal_action="penalize"`` (default), an action that the current
  decision does not allow changes nothing in the game: the step returns the same decision
  with reward ``illegal_reward`` (-1; plus any hand rewards still pending from ``reset``),
  ``info["illegal_action"]`` is True and ``num_illegal_actions`` counts it; the attempt
  counts towards ``max_steps``. With ``illegal_action="raise"``, ``step`` raises
  ``ValueError`` listing the legal actions and changes nothing. A masked learner never
  sees either.
- ``reset`` never returns a finished episode: when the learner would get no decision at
  all (e.g. its partner went alone and the hand ended with ``episode="hand"``), a fresh
  deal is drawn; with a scripted ``options["deal"]`` that is an error instead.

:class:`SingleSeatAEC` shows the same game through PettingZoo's AEC API, with the learner's
seats as the only agents, for multi-agent libraries that take AEC envs.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from euchre_env.actions import action_table
from euchre_env.agent_specs import make_agent_from_spec
from euchre_env.engine import NUM_SEATS, GameState, Phase, team_of
from euchre_env.env import (
    EPISODES,
    RESET_OPTIONS,
    REWARDS,
    _check_choice,
    _check_max_steps,
    _win_reward,
    resolve_rules,
)
from euchre_env.infostate import information_state
from euchre_env.observation import Observer
from euchre_env.rules import Rules

MAX_REDEALS = 1000  # reset(): fresh deals tried when the learner would get no decision
ILLEGAL_ACTIONS = ("penalize", "raise")


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


class SingleSeatEnv(gymnasium.Env):
    """One learner seat (or team) against fixed opponents; see the module docstring."""

    metadata = {"render_modes": [], "name": "euchre_single_seat_v0"}

    def __init__(
        self,
        rules: str | Rules = "knock",
        opponents: Any = "random",
        seat: int | None = None,
        team: int | None = None,
        episode: str = "hand",
        reward: str = "points",
        max_steps: int | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        **rule_options: Any,
    ) -> None:
        self.rules = resolve_rules(rules, rule_options)
        _check_choice("episode", episode, EPISODES)
        _check_choice("reward", reward, REWARDS)
        _check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise ValueError(f"'illegal_reward' must be a number, got {illegal_reward!r}")
        _check_max_steps(max_steps)
        if seat is not None and team is not None:
            raise ValueError(f"give either 'seat' or 'team', not both (got seat={seat!r}, team={team!r})")
        if team is not None:
            if isinstance(team, bool) or team not in (0, 1):
                raise ValueError(f"'team' must be 0 (seats 0, 2) or 1 (seats 1, 3), got {team!r}")
            self.learner_seats: tuple[int, ...] = (team, team + 2)
        else:
            seat = 0 if seat is None else seat
            if isinstance(seat, bool) or seat not in range(NUM_SEATS):
                raise ValueError(f"'seat' must be a seat 0..{NUM_SEATS - 1}, got {seat!r}")
            self.learner_seats = (seat,)
        self.seat = self.learner_seats[0] if team is None else None
        self.team = team_of(self.learner_seats[0])
        self.episode = episode
        self.reward_mode = reward
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.num_illegal_actions = 0  # illegal attempts since construction (penalize mode)
        self.table = action_table(self.rules)
        self.observer = Observer(self.rules)
        n = len(self.table)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(self.observer.low, self.observer.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        })
        self.action_space = LegalDiscrete(n, self.action_masks)
        self.opponent_seats = tuple(s for s in range(NUM_SEATS) if s not in self.learner_seats)
        self.opponents: dict[int, Any] = _resolve_opponents(opponents, self.opponent_seats)
        self.state: GameState | None = None
        self.acting_seat = self.learner_seats[0]  # the learner seat of the current (or last) decision
        self.num_steps = 0
        self._done = True
        self._pending_reward = 0.0
        self._pending_results: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- queries
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (all False at the end); for MaskablePPO."""
        mask = np.zeros(len(self.table), bool)
        if self.state is not None and not self._done:
            mask[self.state.legal_actions()] = True
        return mask

    def legal_actions(self) -> list[int]:
        return list(self.state.legal_actions()) if self.state is not None and not self._done else []

    def action_to_str(self, action: int) -> str:
        return self.table.to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.table.from_str(text)

    @property
    def observation_layout(self) -> dict[str, tuple[int, int]]:
        return dict(self.observer.layout)

    # ---------------------------------------------------------------- reset & step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}")
        deal, scores = options.get("deal"), options.get("scores")
        for _ in range(MAX_REDEALS):
            # Every episode's randomness comes from one draw of np_random: deals and opponents.
            episode_seed = int(self.np_random.integers(2**63))
            deal_seq, *opp_seqs = np.random.SeedSequence(episode_seed).spawn(1 + NUM_SEATS)
            state = GameState(self.rules, np.random.default_rng(deal_seq), deal=deal, scores=scores)
            seen: set[int] = set()
            for s in self.opponent_seats:
                opp = self.opponents[s]
                if id(opp) not in seen and callable(getattr(opp, "reset", None)):
                    seen.add(id(opp))
                    opp.reset(seed=int(opp_seqs[s].generate_state(1)[0]))
            self.state = state
            self.num_steps = 0
            self._done = False
            self._pending_reward = 0.0
            self._pending_results = []
            self._advance()
            if not self._done:
                break
            if deal is not None:
                raise ValueError("the scripted deal ends the episode before the learner has a decision")
        else:  # pragma: no cover - needs MAX_REDEALS deals in a row without a learner decision
            raise RuntimeError("no deal gave the learner a decision")
        info = self._info([])
        if self._pending_results:
            info["pending_hand_results"] = list(self._pending_results)
        return self._observe(), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.state is None or self._done:
            raise ValueError("the episode is over (or not started): call reset() first")
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action must be an integer id, got {action!r}") from None
        illegal = self.illegal_action == "penalize" and a in range(len(self.table)) and a not in self.legal_actions()
        if not illegal:
            self.state.apply(a)  # raises ValueError listing the legal actions; state unchanged
        self.num_steps += 1
        reward, results = self._pending_reward, self._pending_results
        self._pending_reward, self._pending_results = 0.0, []
        if illegal:
            self.num_illegal_actions += 1
            reward += self.illegal_reward
        else:
            r, more = self._advance()
            reward += r
            results += more
        terminated = self._done
        truncated = False
        if not terminated and self.max_steps is not None and self.num_steps >= self.max_steps:
            truncated = True
            self._done = True
        info = self._info(results)
        info["illegal_action"] = illegal
        return self._observe(), float(reward), terminated, truncated, info

    def _advance(self) -> tuple[float, list[dict[str, Any]]]:
        """Score ended hands and let opponents act until the learner's decision or the episode's end.

        Before the learner's first decision (in reset) the rewards are kept for its first step.
        """
        state = self.state
        reward = 0.0
        results: list[dict[str, Any]] = []
        while True:
            if state.hand_over:
                result = dict(state.hand_result)
                results.append(result)
                finished = state.phase == Phase.GAME_OVER or self.episode == "hand"
                if self.reward_mode == "points":
                    pts = result["points"]
                    reward += float(pts[self.team] - pts[1 - self.team])
                elif finished:
                    reward += _win_reward(state, self.team)
                if finished:
                    self._done = True
                    break
                state.next_hand()
                continue
            seat = state.current_player
            if seat in self.learner_seats:
                self.acting_seat = seat
                break
            self._opponent_act(seat)
        if self.num_steps == 0:  # still in reset
            self._pending_reward += reward
            self._pending_results += results
            return 0.0, []
        return reward, results

    def _opponent_act(self, seat: int) -> None:
        state = self.state
        opp = self.opponents[seat]
        mask = np.zeros(len(self.table), np.int8)
        mask[state.legal_actions()] = 1
        observation: dict[str, np.ndarray] = {"action_mask": mask}
        if getattr(opp, "needs_observation", True):
            observation["observation"] = self.observer.encode(state, seat)
        info = {"action_mask": mask, "information_state": information_state(state, seat)}
        act = opp.act if hasattr(opp, "act") else opp
        action = act(observation, info)
        try:
            state.apply(action)
        except ValueError as e:
            raise ValueError(f"opponent at seat {seat} ({_name(opp)}) chose an illegal action: {e}") from None

    def _observe(self) -> dict[str, np.ndarray]:
        mask = np.zeros(len(self.table), np.int8)
        if not self._done:
            mask[self.state.legal_actions()] = 1
        return {"observation": self.observer.encode(self.state, self.acting_seat), "action_mask": mask}

    def _info(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        mask = np.zeros(len(self.table), np.int8)
        if not self._done:
            mask[self.state.legal_actions()] = 1
        info: dict[str, Any] = {"action_mask": mask, "seat": self.acting_seat, "hand_results": results}
        if results:
            info["hand_result"] = results[-1]
            info["scores"] = list(results[-1]["scores"])
        return info

    def close(self) -> None:
        pass


class SingleSeatAEC(AECEnv):
    """A :class:`SingleSeatEnv` through PettingZoo's AEC API: the learner's seats are the only agents.

    Agents are ``player_s`` for each learner seat (both partners with ``team=t``). The
    opponents act inside ``step``, so each step's reward is everything the learner's team got
    until its next decision, and the next agent to act is the learner again. That is what
    AEC consumers that credit a transition with its own step's reward need (Tianshou's
    ``PettingZooEnv``): with the four-seat env they would lose every hand reward that lands
    while another seat acts. Partners share every reward (an illegal-action penalty too).
    Observations follow :mod:`euchre_env.env` (the mask is zero but for the agent to act).
    Infos have a fixed set of keys, as libraries that store them in arrays (Tianshou) need:
    ``action_mask`` (mirrors the observation's), ``seat`` and ``illegal_action`` (the last step
    was an illegal attempt); hand results stay in ``env.state``.
    """

    metadata = {"render_modes": [], "name": "euchre_single_seat_aec_v0", "is_parallelizable": False}

    def __init__(self, env: SingleSeatEnv) -> None:
        super().__init__()
        self.env = env
        self.possible_agents = [f"player_{s}" for s in env.learner_seats]
        self._seats = dict(zip(self.possible_agents, env.learner_seats))

    def observation_space(self, agent: str) -> spaces.Space:
        return self.env.observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self.env.action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self.env.observer.encode(self.env.state, self._seats[agent]),
                "action_mask": self._mask(agent)}

    def _mask(self, agent: str) -> np.ndarray:
        if self._seats[agent] == self.env.acting_seat:
            return self.env.action_masks().astype(np.int8)  # all zeros once the episode is over
        return np.zeros(len(self.env.table), np.int8)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # Like euchre_env.env: PettingZoo's api_test passes an arbitrary option.
            warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}", stacklevel=2)
        self.env.reset(seed=seed, options={k: v for k, v in options.items() if k in RESET_OPTIONS})
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._set_infos(illegal=False)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        _, reward, terminated, truncated, info = self.env.step(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, reward)
        self._accumulate_rewards()
        if terminated or truncated:
            self.terminations = dict.fromkeys(self.agents, terminated)
            self.truncations = dict.fromkeys(self.agents, truncated)
        self._set_infos(illegal=info["illegal_action"])

    def _set_infos(self, illegal: bool) -> None:
        self.agent_selection = f"player_{self.env.acting_seat}"
        self.infos = {
            agent: {"action_mask": self._mask(agent), "seat": self._seats[agent],
                    "illegal_action": illegal}
            for agent in self.agents
        }

    def close(self) -> None:
        self.env.close()


def _name(opp: Any) -> str:
    return str(getattr(opp, "name", None) or getattr(opp, "__name__", None) or type(opp).__name__)


def _resolve_opponents(opponents: Any, seats: tuple[int, ...]) -> dict[int, Any]:
    """seat -> agent object or callable, for every seat in ``seats``."""
    if isinstance(opponents, dict):
        bad = sorted((k for k in opponents if k not in seats), key=repr)
        if bad:
            raise ValueError(f"opponents given for seat(s) {bad} that are not opponent seats; opponent seats: "
                             f"{list(seats)}")
        missing = [s for s in seats if s not in opponents]
        if missing:
            raise ValueError(f"no opponent given for seat(s) {missing}")
        specs = dict(opponents)
    else:
        specs = dict.fromkeys(seats, opponents)
    return {s: _resolve_one(spec) for s, spec in specs.items()}


def _resolve_one(spec: Any) -> Any:
    if isinstance(spec, str):
        return make_agent_from_spec(spec)
    if callable(getattr(spec, "act", None)) or callable(spec):
        return spec
    raise ValueError(f"an opponent must be an agent spec string, an agent with act(), or a callable; got {spec!r}")
