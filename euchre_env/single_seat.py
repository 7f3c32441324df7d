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
  ``agents.registry.make_agent`` (``"random"``, ``"rules"``, ``"pimc:N"``); a spec string
  builds one agent per seat, an object or callable is shared by the seats it plays.
- Rewards: with ``reward="points"`` every hand that ends gives the learner its team's
  points minus the other team's; with ``reward="win"``, +1 / -1 when the game ends (the
  sign of the hand's points for ``episode="hand"`` when the game goes on). Every hand's
  reward reaches the learner: a step returns the sum over the hands that ended since its
  previous step, including those that ended while only opponents were acting (hands that
  end before the learner's first decision of an episode count in its first step).
- ``action_space.sample()`` draws among the legal actions of the current decision (a
  plain ``Discrete`` sample when given an explicit ``mask``). An illegal action in
  ``step`` raises ``ValueError`` listing the legal ones and changes nothing.
- ``reset`` never returns a finished episode: when the learner would get no decision at
  all (e.g. its partner went alone and the hand ended with ``episode="hand"``), a fresh
  deal is drawn; with a scripted ``options["deal"]`` that is an error instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from euchre_env.actions import action_table
from euchre_env.engine import NUM_SEATS, GameState, Phase, team_of
from euchre_env.env import EPISODES, RESET_OPTIONS, REWARDS, _check_choice, _check_options, _win_reward
from euchre_env.infostate import information_state
from euchre_env.observation import Observer
from euchre_env.rules import Rules

MAX_REDEALS = 1000  # reset(): fresh deals tried when the learner would get no decision


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
        **rule_options: Any,
    ) -> None:
        if isinstance(rules, Rules):
            _check_options(rule_options)
            self.rules = rules.replace(**rule_options)
        elif isinstance(rules, str):
            self.rules = Rules.preset(rules, **rule_options)
        else:
            raise ValueError(f"'rules' must be a preset name or a Rules instance, got {rules!r}")
        _check_choice("episode", episode, EPISODES)
        _check_choice("reward", reward, REWARDS)
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"'max_steps' must be a positive int or None, got {max_steps!r}")
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
        self.state.apply(a)  # raises ValueError listing the legal actions; state unchanged
        self.num_steps += 1
        reward, results = self._pending_reward, self._pending_results
        self._pending_reward, self._pending_results = 0.0, []
        r, more = self._advance()
        reward += r
        results += more
        terminated = self._done
        truncated = False
        if not terminated and self.max_steps is not None and self.num_steps >= self.max_steps:
            truncated = True
            self._done = True
        return self._observe(), float(reward), terminated, truncated, self._info(results)

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
        from agents.registry import make_agent  # not at module load: euchre_env must not need agents

        return make_agent(spec)
    if callable(getattr(spec, "act", None)) or callable(spec):
        return spec
    raise ValueError(f"an opponent must be an agent spec string, an agent with act(), or a callable; got {spec!r}")
