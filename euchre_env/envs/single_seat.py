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
  by the seats it plays. Opponents are asked through :func:`euchre_env.views.decision.ask_agent`,
  with the inputs every driver gives; an illegal answer raises ``IllegalActionError`` naming
  the opponent's seat.
- Episodes: ``episode="hand"`` by default (one hand per episode; ``"game"`` for a whole
  game), ``max_steps`` and ``max_hands`` as in :mod:`euchre_env.envs.episodes`, where the
  defaults are explained (``max_hands="auto"`` truncates whole games of Bid Euchre, or with
  ``renege="penalize"``, after 200 hands; ``info["truncated"]`` names the limit that cut an
  episode short, and a truncated game is not won: ``reward="win"`` gives 0).
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
  sees either. A value that is no action id (a string, an id out of range) always raises.
- Every call returns new data, as Gymnasium 1.x requires (callers keep it: replay buffers, wrappers):
  ``observation["action_mask"]`` and ``info["action_mask"]`` are one new copy of the decision's mask, and
  ``action_masks()`` another (bool); writing to one changes nothing in the env, which checks actions against
  its own. The same holds after an illegal attempt, whose decision and mask stay.
- Infos have one type per key in every preset, so that Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv``,
  which batch an info key by key, take them: ``info["hand_result"]`` (and each of ``info["hand_results"]``) is
  the engine's ``hand_result`` as :func:`euchre_env.game.scoring.typed_hand_result` gives it (no None fields;
  Bid Euchre's ``contract`` an int, the bid in ``bid``).
- ``observation="structured"`` (default ``"absolute"``): the learner's observation is
  :mod:`euchre_env.views.structured`'s, and its masks and the ids ``step`` takes are in the canonical
  frame of the acting seat (``info["suit_order"]``; ``to_absolute_action`` / ``to_canonical_action``
  convert, ``action_to_str`` reads absolute ids). The opponents are agents and are asked
  exactly as always (absolute observation and mask), whatever the learner's option.
- ``render_mode="rgb_array"`` draws the table (:mod:`euchre_env.views.picture`; the ``render`` extra),
  ``"ansi"`` writes it as text. ``render_seat``: whose view, by default the learner's (the acting learner seat's
  cards face up, its team's first seat at the bottom); a seat 0..3; ``"table"`` (an onlooker: no hand until the
  hand is over); or ``"all"`` (the god view, every hand).
- ``reset`` never returns a finished episode: when the learner would get no decision at
  all (e.g. its partner went alone and the hand ended with ``episode="hand"``), a fresh
  deal is drawn; with a scripted ``options["deal"]`` that is an error instead.

:class:`SingleSeatAEC` shows the same game through PettingZoo's AEC API, with the learner's
seats as the only agents, for multi-agent libraries that take AEC envs.

Compiled twin: :class:`~euchre_env.envs.single_seat_vector.SingleSeatVectorEnv`, many of these games at once on
``VectorEuchre`` (the opponents' compiled twins, or this env's Python agents on its slow path). Proven equal by
tests/differential/test_single_seat_vector_vs_single_seat.py.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from euchre_env.envs import episodes
from euchre_env.envs.agent_specs import make_agent_from_spec
from euchre_env.envs.episodes import AUTO, SINGLE_SEAT_EPISODE
from euchre_env.envs.legal_space import LegalDiscrete
from euchre_env.game.actions import action_table
from euchre_env.game.deals import parse_deal, parse_scores
from euchre_env.game.engine import GameState
from euchre_env.game.errors import IllegalActionError, check_choice
from euchre_env.game.rules import Rules, resolve_rules
from euchre_env.game.scoring import typed_hand_result
from euchre_env.game.seats import NUM_SEATS, team_of, team_seats
from euchre_env.views.decision import ask_agent, illegal_choice, legal_mask
from euchre_env.views.picture import require_pillow, table_picture
from euchre_env.views.render import VIEWERS, render_text
from euchre_env.views.structured import CanonicalActions, Frame, make_observer

MAX_REDEALS = 1000  # reset(): fresh deals tried when the learner would get no decision
LEARNER = "learner"  # render_seat: the learner's view
ILLEGAL_ACTIONS = ("penalize", "raise")


class SingleSeatEnv(CanonicalActions, gymnasium.Env):
    """One learner seat (or team) against fixed opponents; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "euchre_single_seat_v0", "render_fps": 2}

    def __init__(
        self,
        rules: str | Rules = "knock",
        opponents: Any = "random",
        seat: int | None = None,
        team: int | None = None,
        episode: str = SINGLE_SEAT_EPISODE,
        reward: str = "points",
        max_steps: int | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        max_hands: int | str | None = AUTO,
        observation: str = "absolute",
        render_mode: str | None = None,
        render_seat: int | str = LEARNER,
        **rule_options: Any,
    ) -> None:
        self.rules = resolve_rules(rules, rule_options, type(self))
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        check_choice("render_seat", render_seat, (LEARNER, *VIEWERS))
        if render_mode == "rgb_array":
            require_pillow()
        self.render_mode, self.render_seat = render_mode, render_seat
        # The hand limit (None: none) as max_hands resolves under these rules (see euchre_env.envs.episodes).
        self.max_hands = episodes.check_episode_args(self.rules, episode, reward, max_steps, max_hands)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise ValueError(f"'illegal_reward' must be a number, got {illegal_reward!r}")
        if seat is not None and team is not None:
            raise ValueError(f"give either 'seat' or 'team', not both (got seat={seat!r}, team={team!r})")
        if team is not None:
            if isinstance(team, bool) or team not in (0, 1):
                raise ValueError(f"'team' must be 0 (seats 0, 2) or 1 (seats 1, 3), got {team!r}")
            self.learner_seats: tuple[int, ...] = team_seats(team)
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
        self.observer = make_observer(self.rules, observation)  # the learner's (validates the option)
        self.observation = observation
        # Opponents are agents: they get the agent protocol's absolute encoding whatever the learner's.
        self.agent_observer = make_observer(self.rules, "absolute")
        self._frame: Frame | None = None  # structured: the frame of the learner's current decision
        self._obs: np.ndarray | None = None  # structured: its observation, encoded with the frame
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
        self._ending: str | None = None  # what ended the episode: episodes.hand_ending(), or "max_steps"
        self._mask = np.zeros(n, np.int8)  # the current decision's legal actions, built once per step
        self._pending_reward = 0.0
        self._pending_results: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- queries
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a new bool array (all False at the end); for MaskablePPO."""
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        """The learner's legal ids as ``step`` takes them (canonical when structured)."""
        return self._accepted(list(self.state.legal_actions())) if self.state is not None and not self._done else []

    def action_to_str(self, action: int) -> str:
        return self.table.to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.table.from_str(text)

    @property
    def observation_layout(self) -> dict[str, tuple[int, int]]:
        return dict(self.observer.layout)

    # ---------------------------------------------------------------- reset & step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        options = episodes.check_reset_options(options)
        deal, scores = options.get("deal"), options.get("scores")
        if deal is not None:  # checked before the seed is used: a bad deal or score changes nothing
            parse_deal(self.rules, deal)
        parse_scores(self.rules, scores)
        super().reset(seed=seed)
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
            self._done, self._ending = False, None
            self._pending_reward = 0.0
            self._pending_results = []
            self._advance()
            if not self._done:
                break
            if deal is not None:
                raise ValueError("the scripted deal ends the episode before the learner has a decision")
        else:  # pragma: no cover - needs MAX_REDEALS deals in a row without a learner decision
            raise RuntimeError("no deal gave the learner a decision")
        self._decide()
        obs = self._observe()
        info = self._info([], obs["action_mask"])
        if self._pending_results:
            info["pending_hand_results"] = self._typed(self._pending_results)
        return obs, info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.state is None or self._done:
            raise ValueError("the episode is over (or not started): call reset() first")
        a = self.table.check_id(action)  # a string or an id out of range: one line saying so
        illegal = self.illegal_action == "penalize" and not self._mask[a]
        if not illegal:
            if self._frame is not None:
                a = self._legal_absolute(a, self.state)
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
        if not self._done and self.max_steps is not None and self.num_steps >= self.max_steps:
            self._done, self._ending = True, "max_steps"
        if self._done:
            self._mask = np.zeros(len(self.table), np.int8)
            self._frame = self._obs = None
        elif not illegal:  # an illegal attempt changed nothing: the decision and its mask stay
            self._decide()
        truncated = self._done and self._ending != episodes.TERMINATED
        obs = self._observe()
        info = self._info(results, obs["action_mask"])
        info["illegal_action"] = illegal
        if truncated:
            info[episodes.TRUNCATED] = self._ending
        return obs, float(reward), self._done and not truncated, truncated, info

    def _advance(self) -> tuple[float, list[dict[str, Any]]]:
        """Score ended hands and let opponents act until the learner's decision or the episode's end.

        Before the learner's first decision (in reset) the rewards are kept for its first step.
        """
        state = self.state
        reward = 0.0
        results: list[dict[str, Any]] = []
        while True:
            if state.hand_over:
                results.append(dict(state.hand_result))
                ending = episodes.hand_ending(state, self.episode, self.max_hands)
                reward += episodes.hand_end_reward(state, self.team, self.reward_mode, ending)
                if ending is not None:
                    self._done, self._ending = True, ending
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
        try:
            action = ask_agent(self.opponents[seat], self.state, self.agent_observer)
        except IllegalActionError as e:
            raise IllegalActionError(f"opponent at seat {seat} ({e.agent}) chose an illegal action: "
                                     f"{illegal_choice(self.state, e.action)}", seat, e.agent, e.action) from None
        self.state.apply(action)

    def _decide(self) -> None:
        """The mask of the learner's new decision (and, structured, its frame and observation)."""
        self._mask = legal_mask(self.state)
        if self.observation == "structured":
            self._obs, self._frame = self.observer.encode_with_frame(self.state, self.acting_seat)
            self._mask = self._frame.canonical_mask(self._mask)

    def _observe(self) -> dict[str, np.ndarray]:
        """The learner's observation, in new arrays: its mask is a copy, so that a caller who writes to it
        changes nothing in what the env accepts (it checks actions against its own)."""
        mask = self._mask.copy()
        if self._obs is not None:
            return {"observation": self._obs.copy(), "action_mask": mask}
        return {"observation": self.observer.encode(self.state, self.acting_seat), "action_mask": mask}

    def _info(self, results: list[dict[str, Any]], mask: np.ndarray) -> dict[str, Any]:
        typed = self._typed(results)
        info: dict[str, Any] = {"action_mask": mask, "seat": self.acting_seat, "hand_results": typed}
        if self._frame is not None:
            info["suit_order"] = self._frame.suit_order
        if typed:
            info["hand_result"] = typed[-1]
            info["scores"] = list(typed[-1]["scores"])
        return info

    def _typed(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The engine's hand results as infos give them: typed, and new at every call (reset's pending
        results come again in the first step's ``hand_results``)."""
        return [typed_hand_result(self.rules, r) for r in results]

    def render(self) -> str | np.ndarray | None:
        """The table as ``render_seat`` sees it: ``"ansi"`` returns the text, ``"rgb_array"`` a (480, 640, 3)
        uint8 picture."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'rgb_array'")
            return None
        if self.state is None:
            raise ValueError("render() before reset()")
        seat = self.acting_seat if self.render_seat == LEARNER else self.render_seat
        if self.render_mode == "ansi":
            return render_text(self.state, seat)
        # The learner's first seat stays at the bottom, so that a team's pictures do not turn with the turn.
        return table_picture(self.state, seat, seat if isinstance(self.render_seat, int) else self.learner_seats[0])

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
    was an illegal attempt); hand results stay in ``env.state``, and why an episode was
    truncated in the ``truncations`` and the single-seat env's last info.
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

    def action_to_str(self, action: int) -> str:
        return self.env.action_to_str(action)

    def str_to_action(self, text: str) -> int:
        return self.env.str_to_action(text)

    def to_absolute_action(self, action: int) -> int:
        return self.env.to_absolute_action(action)

    def to_canonical_action(self, action: int) -> int:
        return self.env.to_canonical_action(action)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self.env.observer.encode(self.env.state, self._seats[agent]),
                "action_mask": self._mask(agent)}

    def _mask(self, agent: str) -> np.ndarray:
        if self._seats[agent] == self.env.acting_seat:
            # A copy of the env's mask of this decision (all zeros once the episode is over): a caller that
            # writes to it must not change which actions the env accepts.
            return self.env._mask.copy()
        return np.zeros(len(self.env.table), np.int8)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Unknown options warn here, as in euchre_env.env: PettingZoo's api_test passes an arbitrary one.
        self.env.reset(seed=seed, options=episodes.check_reset_options(options))
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
