"""``SingleSeatVectorEnv``: a single-agent learner in thousands of games at once, as a Gymnasium ``VectorEnv``.

    from euchre_env import SingleSeatVectorEnv
    envs = SingleSeatVectorEnv("knock", num_envs=4096, opponents="rules", observation="structured", seed=0)
    obs, infos = envs.reset()
    while training:
        actions = policy(obs, infos["action_mask"])           # one id per game, the learner's decision
        obs, rewards, terminated, truncated, infos = envs.step(actions)

Each game is :class:`~euchre_env.envs.single_seat.SingleSeatEnv`'s game: the learner holds one seat
(``learner="seat"``, the seat ``seat``, 0 by default) or both seats of that seat's team (``learner="team"``);
the other seats (the partner too, in seat mode) are played by the opponents inside ``step``, on the compiled
engine of :class:`~euchre_env.envs.vector.VectorEuchre`, so every game returned waits on a learner decision.
The differential test (tests/differential/test_single_seat_vector_vs_single_seat.py) plays the same deals and
actions through both envs and compares every observation, mask, reward and episode end.

- ``opponents``: an agent spec (``"random"``, ``"rules"``, a checkpoint ``"path.pt"``), an agent object, or a
  mix across games: a list of specs (equal shares) or a dict ``spec -> weight``; the games are shared out in
  proportion (game ``g`` keeps its opponent; ``opponent_of(g)`` names it). An opponent plays through its compiled
  twin (the agent protocol's ``batch_twin``): the rule-based agent's kernels, uniform random play over the
  legal actions (drawn from this env's generator), or a network (one forward pass per step for all the games
  waiting on it; a ``NeuralAgent`` of a live network serves self-play snapshots). An opponent without one (PIMC,
  the search agents, OpenSpiel's bots) plays on the slow path, one decision at a time in Python: its games keep a
  reference ``GameState`` in step and ask its agents (one per game and opponent seat from a spec string, reset at
  every episode from the stream ``[seed, 2]``) through :class:`~euchre_env.envs.mirror.SlowOpponents`, at
  ``SingleSeatEnv``'s cost per decision. Where every game's opponent has a compiled decision (the batch policy's
  ``compiled_decision()``, ``agents.base.CompiledDecision``: ``rules``), a whole step (the learner's moves, the
  opponents', the hands that end and the next deals) is one compiled call (:mod:`euchre_env.envs.whole_step`);
  other opponents play in rounds, each round one batch of decisions and one engine step.
- Spaces: ``single_observation_space`` is the ``observation`` option's ``Box`` (``"absolute"`` or
  ``"structured"``, as the AEC env shows it), ``single_action_space`` ``Discrete(num_actions)``; batched,
  ``observation_space`` and ``action_space`` (``MultiDiscrete``). With ``"structured"`` the masks and the ids
  ``step`` takes are in the canonical frame of the learner's seat, as in ``SingleSeatEnv``.
- ``infos`` (arrays over the games): ``"action_mask"`` (``int8 [num_envs, num_actions]``, as every env's
  observations and infos give the mask; :meth:`action_masks` gives it as ``bool``, for MaskablePPO), ``"seat"``
  (the learner seat to act), and where an episode ended at this step ``"final_obs"`` (``float32 [num_envs,
  obs_size]``, the learner seat's last observation) with its mask ``"_final_obs"``; with ``illegal_action=
  "penalize"``, ``"illegal_action"`` at every step (``bool [num_envs]``).
- Episodes (``episode="hand"``, the default, or ``"game"``), ``reward`` (``"points"`` or ``"win"``) and
  ``max_hands`` are ``SingleSeatEnv``'s; so is the reward of a hand that ends while only opponents act (the
  learner's next step gets it), and so is the rule that an episode in which the learner gets no decision is
  dealt again, not returned. ``metadata["autoreset_mode"]`` is ``SAME_STEP``: a game whose episode ended is
  dealt anew in the same step, ``obs`` holds the new episode's first decision and ``infos["final_obs"]`` the
  old one's end.
- ``agent_actions(spec)``: what an agent with a compiled twin would choose at each game's learner decision, in
  the ids ``step`` takes: a teacher for behaviour cloning (examples/cleanrl_ppo_vector.py clones ``rules``).
- ``reset(seed=..., options={"deals": [deal, ...]})``: one scripted deal per game (the env's deal format). A
  scripted deal in which the learner gets no decision is an error (``reset`` again).
- Bad input is one line and changes no game: actions of the wrong shape or dtype, an illegal action (named
  with its game), ``num_envs < 1``, an unknown opponent, an ``agent_actions`` agent with no compiled twin. A
  ``num_envs`` whose arrays outgrow this machine's memory is a ``MemoryError`` in one line, before anything is
  allocated: how much it needs (about three float32 observation rows and 1 KiB a game) and how many games the
  memory allows.
- With ``copy=True`` (the default) every observation and info array returned is new; ``copy=False`` returns
  the engine's observation buffer itself, overwritten by the next step.
- ``gymnasium.make_vec("euchre/SingleSeat-v0", num_envs=n, ...)`` builds this env (after ``import euchre_env``).
- Illegal actions, ``SingleSeatEnv``'s option: ``illegal_action="raise"`` (the default here: a masked learner never
  meets it, and a bug is one line) raises ``IllegalActionError`` naming the game, and no game changes. With
  ``"penalize"`` any sample of ``action_space`` steps (TorchRL's ``GymWrapper`` steps random ones): a game whose id
  its decision does not allow changes nothing, as in ``SingleSeatEnv``; its reward is ``illegal_reward`` (-1) plus
  any hand reward pending from before the learner's first decision, ``infos["illegal_action"]`` marks it and
  ``num_illegal_actions`` counts it. An id out of range, or actions of the wrong shape or dtype, are refused in both
  modes. A step with a penalized game runs in rounds from Python, the penalized games left out (the whole step
  moves every game); a step without one is the usual step.
- ``SingleSeatEnv``'s ``max_steps`` and starting ``scores`` are not offered.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from euchre_env.envs.agent_specs import make_agent_from_spec
from euchre_env.envs.episodes import AUTO, check_reset_options
from euchre_env.envs.learner_account import DEALT_AGAIN, LEARNER_END, account_hands, learner_decisions
from euchre_env.envs.mirror import MirroredPolicy, SlowOpponents
from euchre_env.envs.vector import VectorEuchre
from euchre_env.envs.whole_step import Learner, WholeStep
from euchre_env.game.errors import check_choice
from euchre_env.game.rules import resolve_rules
from euchre_env.game.seats import NUM_SEATS, team_of, team_seats
from euchre_env.views.structured import make_observer

LEARNERS = ("seat", "team")
ILLEGAL_ACTIONS = ("raise", "penalize")
RESET_OPTIONS = ("deals",)
# A game's memory, roughly: float32 observation rows (the engine's, the one a step returns, the final one of
# same-step autoreset) and about 1 KiB of everything else (state, masks, scratch, the opponents' buffers;
# measured 0.75 KiB in knock and bid).
OBS_ROWS_PER_GAME = 3
OTHER_BYTES_PER_GAME = 1024


class SingleSeatVectorEnv(gymnasium.vector.VectorEnv):
    """A learner seat (or team) in ``num_envs`` games against compiled opponents; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        rules: Any = "knock",
        num_envs: int = 1,
        learner: str = "seat",
        opponents: Any = "random",
        seat: int = 0,
        observation: str = "absolute",
        episode: str = "hand",
        reward: str = "points",
        max_hands: int | str | None = AUTO,
        seed: int | None = None,
        threads: int | None = 1,
        copy: bool = True,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **options: Any,
    ) -> None:
        self.rules = resolve_rules(rules, options, type(self))
        check_choice("learner", learner, LEARNERS)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise ValueError(f"'illegal_reward' must be a number, got {illegal_reward!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.num_illegal_actions = 0  # illegal attempts since construction (penalize mode)
        if isinstance(seat, bool) or seat not in range(NUM_SEATS):
            raise ValueError(f"'seat' must be a seat 0..{NUM_SEATS - 1}, got {seat!r}")
        self.learner = learner
        self.learner_seats = (seat,) if learner == "seat" else team_seats(team_of(seat))
        game_bytes = OBS_ROWS_PER_GAME * 4 * make_observer(self.rules, observation).size + OTHER_BYTES_PER_GAME
        memory = physical_memory()
        if isinstance(num_envs, (int, np.integer)) and memory is not None and int(num_envs) * game_bytes > memory:
            raise MemoryError(_memory_message(int(num_envs), game_bytes, memory))
        try:
            self.venv = VectorEuchre(self.rules, num_envs, seed=seed, observation=observation, episode=episode,
                                     reward=reward, max_hands=max_hands, copy=False, threads=threads)
        except MemoryError:  # within the machine's memory, but not free now: NumPy's message names one array
            raise MemoryError(_memory_message(int(num_envs), game_bytes, memory)) from None
        self.num_envs = self.venv.num_envs
        self.observation = observation
        self.copy = bool(copy)
        self._team = team_of(seat)
        self._learner = np.zeros(NUM_SEATS, bool)
        self._learner[list(self.learner_seats)] = True
        self._observe = np.tile(self._learner, (self.num_envs, 1))  # which seats' decisions are encoded
        self._names, factories, self._opponent = _opponents(opponents, self.rules, self.num_envs)
        # The slow path: opponents without a compiled twin (a factory of None), asked one game at a time.
        slow = {k: spec for k, (spec, factory) in enumerate(factories) if factory is None}
        opponent_seats = [s for s in range(NUM_SEATS) if not self._learner[s]]
        self._slow = SlowOpponents(self.venv, slow, self._opponent, opponent_seats, seed, make_agent_from_spec) \
            if slow else None
        self._policies = [MirroredPolicy(self._slow.mirror) if factory is None else factory(self.venv)
                          for _, factory in factories]
        self._agents: dict[Any, Any] = {}  # agent_actions' twins, by spec or agent object
        self._rng = np.random.default_rng(None if seed is None else [seed, 1])  # random opponents' draws
        observer = self.venv.observer
        self.single_observation_space = spaces.Box(observer.low, observer.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._everyone = np.arange(self.num_envs)
        self._pending = np.zeros(self.num_envs, np.float32)  # rewards of hands before the learner's first decision
        self._decided = np.zeros(self.num_envs, bool)  # the learner has decided in its current episode
        self._acting = np.zeros(self.num_envs, np.int64)  # the learner seat of each game's current decision
        self._mask: np.ndarray | None = None
        self._started = False
        self._whole_steps = True  # the compiled whole step where the opponent has a compiled decision (False:
        # rounds of Python; a benchmark times both ways: experiments/compare_whole_step.py)
        self._whole: WholeStep | bool | None = None  # _whole_step's, once made (False: the opponent has none)

    # ------------------------------------------------------------------ queries
    def opponent_of(self, g: int) -> str:
        """The name of the opponent that plays the other seats of game ``g``."""
        return self._names[self._opponent[g]]

    def action_masks(self) -> np.ndarray:
        """``bool [num_envs, num_actions]``: each game's legal learner actions (MaskablePPO's hook)."""
        if not self._started:
            raise ValueError("action_masks() before reset()")
        return self._mask.copy()

    def agent_actions(self, agent: Any, rng: np.random.Generator | None = None) -> np.ndarray:
        """``int64 [num_envs]``: what ``agent`` would choose at each game's current learner decision, as ``step``
        takes it (a teacher for behaviour cloning, or a baseline in the learner's seats). ``agent``: a spec or
        an agent object with a compiled twin, as for ``opponents``; its twin is built on the first call and
        kept. ``rng``: the draws of a random agent (default: the env's opponents' stream)."""
        if not self._started:
            raise ValueError("agent_actions() before reset()")
        policy = self._agents.get(agent)
        if policy is None:
            policy = self._agents[agent] = _twin(agent, self.rules, "agent")[1](self.venv)
        return policy.actions(self._everyone, self._mask, self._rng if rng is None else rng)

    def to_absolute(self, actions: Any) -> np.ndarray:
        """The absolute ids (the action table's) of one id per game as ``step`` takes them now."""
        return self.venv.to_absolute(np.asarray(actions, np.int64))

    def current_deal(self, g: int) -> dict[str, Any]:
        """The deal of game ``g``'s current hand (the env's deal format)."""
        return self.venv.current_deal(g)

    # ------------------------------------------------------------------ reset & step
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        deals = check_reset_options(options, RESET_OPTIONS).get("deals")
        if seed is not None:
            self._rng = np.random.default_rng([seed, 1])
        self.venv.reset(seed=seed, options=None if deals is None else {"deals": deals})
        if self._slow is not None:
            if seed is not None:
                self._slow.reseed(seed)
            self._slow.start()
        self._started = True
        self._pending[:] = 0.0
        self._decided[:] = False
        ended = self._play_opponents(np.zeros(self.num_envs, np.float32), _Ends(self.num_envs, self.venv.obs_size))
        if deals is not None and ended.discarded.any():
            g = int(np.flatnonzero(ended.discarded)[0])
            raise ValueError(f"deals[{g}]: the scripted deal ends the episode before the learner has a decision "
                             "(reset again)")
        obs = self.venv.observations()
        return obs.copy() if self.copy else obs, self._infos(None)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise ValueError("step() before reset()")
        if self.illegal_action == "penalize":
            return self._step_penalizing(actions)
        whole = self._whole_step()
        if whole is not None:
            return self._step_whole(whole, actions)
        return self._step_rounds(self._everyone, actions)

    def close_extras(self, **kwargs: Any) -> None:
        pass

    # ------------------------------------------------------------------ internals
    def _step_rounds(self, games: np.ndarray, actions: Any, illegal: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """:meth:`step` in rounds of Python decisions and engine steps, the learner's moves those of ``games``
        (``actions[i]`` for ``games[i]``; every game but those ``illegal`` marks, penalized, which stay as they
        are)."""
        if self.copy:  # every game's row is written in this step: into a new array, returned without a copy
            previous = self.venv.swap_observations(np.empty_like(self.venv.observations()))
        try:
            step = self._step_games(games, actions)  # checks first: nothing changed
        except Exception:  # a bad action: the checks raise before any game or row changes
            if self.copy:
                self.venv.swap_observations(previous)
            raise
        if self.copy and illegal is not None:  # the penalized games' rows: their decision stays, and so does its row
            self.venv.observations()[illegal] = previous[illegal]
        rewards = np.empty(self.num_envs, np.float32)
        learner_decisions(rewards, self._pending, self._decided)  # every game was at a learner decision
        ends = _Ends(self.num_envs, self.venv.obs_size)
        self._account(step, rewards, ends)
        self._play_opponents(rewards, ends)
        if illegal is not None:
            rewards[illegal] += self.illegal_reward
        return self.venv.observations(), rewards, ends.terminated, ends.truncated, self._infos(ends)

    def _step_penalizing(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                      dict[str, Any]]:
        """:meth:`step` with ``illegal_action="penalize"``: a game whose action its decision does not allow stays
        as it is (SingleSeatEnv's rule), with ``illegal_reward`` added to its reward and ``infos["illegal_action"]``
        marking it; the others step. A step without an illegal action is the usual one."""
        a = np.asarray(actions)
        if (a.shape != (self.num_envs,) or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_)
                or (a.size and (a.min() < 0 or a.max() >= self.venv.num_actions))):
            self.venv.check_actions(actions)  # no action id per game: its one line (penalize takes only ids)
        a = np.ascontiguousarray(a, np.int64)
        illegal = ~self._mask[self._everyone, a]
        if not illegal.any():
            whole = self._whole_step()
            out = self._step_whole(whole, a) if whole is not None else self._step_rounds(self._everyone, a)
        else:
            # Rounds, with the penalized games left out: the whole step moves every game, and a few penalized
            # steps (a random action of the space, a check_env) need no compiled speed.
            legal = np.flatnonzero(~illegal)
            out = self._step_rounds(legal, a[legal], illegal)
            self.num_illegal_actions += int(illegal.sum())
        out[4]["illegal_action"] = illegal
        return out

    def _whole_step(self) -> WholeStep | None:
        """The whole step against the opponent's compiled decision, where every game has that one opponent and it
        has one (``BatchPolicy.compiled_decision``, ``agents.base``); made on the first step and kept."""
        if not (self._whole_steps and len(self._policies) == 1):
            return None
        if self._whole is None:
            hook = getattr(self._policies[0], "compiled_decision", None)
            decision = hook() if hook is not None else None
            self._whole = False if decision is None else WholeStep(self.venv, decision)
        return self._whole or None

    def _step_whole(self, whole: WholeStep, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                             dict[str, Any]]:
        """:meth:`step` as one compiled call: the learner's moves, the opponents', the hands that end (accounted
        by ``learner_account`` as in the rounds) and their next deals, as the engine's ends of hands deal them."""
        venv = self.venv
        actions = venv.check_actions(actions)  # checks first: nothing changed
        if self.copy:  # every game's row is written in this step: into a new array, returned without a copy
            venv.swap_observations(np.empty_like(venv.observations()))
        n = self.num_envs
        rewards = np.empty(n, np.float32)
        ends = _Ends(n, venv.obs_size)
        ends.final_obs = np.zeros((n, venv.obs_size), np.float32)  # calloc: the rows no episode end writes are free
        whole(Learner(actions, self._observe, self._team, rewards, self._pending, self._decided, self._acting,
                      ends.terminated, ends.truncated, ends.has_final, ends.final_obs))
        self._mask = venv.masks()
        return venv.observations(), rewards, ends.terminated, ends.truncated, self._infos(ends)

    def _play_opponents(self, rewards: np.ndarray, ends: _Ends) -> _Ends:
        """Let the opponents act in every game until its seat to act is a learner seat."""
        venv = self.venv
        while True:
            seat = venv.seats()
            waiting = np.flatnonzero(~self._learner[seat])
            if not waiting.size:
                break
            mask = venv.masks()
            actions = np.empty(waiting.size, np.int64)
            who = self._opponent[waiting]
            for k, policy in enumerate(self._policies):
                rows = np.flatnonzero(who == k)
                if rows.size:
                    games = waiting[rows]
                    actions[rows] = policy.actions(games, mask[games], self._rng)
            self._account(self._step_games(waiting, actions), rewards, ends)
        self._acting = venv.seats()
        self._mask = venv.masks()
        return ends

    def _step_games(self, games: np.ndarray, actions: Any) -> tuple:
        """``venv.step_games`` for ``games``; on the slow path the reference games follow it."""
        if self._slow is None:
            return self.venv.step_games(games, actions, self._observe)
        if games.size == self.num_envs:  # the learner's step: checked before its frames are read
            actions = self.venv.check_actions(actions)
        absolute = self.venv.to_absolute(actions, games)
        step = self.venv.step_games(games, actions, self._observe)
        self._slow.after_step(games, absolute, step[4], step[5]["hand_over"])
        return step

    def _account(self, step: tuple, rewards: np.ndarray, ends: _Ends) -> None:
        """The hands and episodes that ended at one step of the engine, from the learner's side
        (``learner_account``, the compiled whole step's accounting too)."""
        hand_rewards, info = step[3], step[5]
        over = np.flatnonzero(info["hand_over"])
        if not over.size:
            return
        finished = info["final_index"]  # ascending, as ``over``
        episode_over = np.isin(over, finished, assume_unique=True)
        codes = np.empty(over.size, np.int64)
        account_hands(over, hand_rewards[over, self.learner_seats[0]], episode_over, info["truncated"][over],
                      rewards, self._pending, self._decided, ends.has_final, ends.terminated, ends.truncated, codes)
        if finished.size:
            games = over[codes == LEARNER_END]
            slots = np.searchsorted(finished, games)  # the engine's final observations: a row per ended game
            ends.record(games, info["final_observation"][slots, self._acting[games]])
            ends.discarded[over[codes == DEALT_AGAIN]] = True

    def _infos(self, ends: _Ends | None) -> dict[str, Any]:
        # int8, as every other env's observations and infos give the mask (PettingZoo's, Gymnasium's
        # Discrete.sample(mask=)); action_masks() keeps bool for MaskablePPO
        infos: dict[str, Any] = {"action_mask": self._mask.astype(np.int8), "seat": self._acting.copy()}
        if ends is not None and ends.final_obs is not None and ends.has_final.any():
            infos["final_obs"], infos["_final_obs"] = ends.final_obs, ends.has_final
        return infos


class _Ends:
    """The learner's episode ends of one step: the flags ``learner_account`` writes and the final observations."""

    def __init__(self, n: int, obs_size: int) -> None:
        self.terminated = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        self.has_final = np.zeros(n, bool)
        self.discarded = np.zeros(n, bool)  # episodes with no learner decision, dealt again (reset refuses them)
        self._shape = (n, obs_size)
        self.final_obs: np.ndarray | None = None

    def record(self, games: np.ndarray, final: np.ndarray) -> None:
        """The learner's last observations of ``games``, whose episodes ended (``final[i]``: that of ``games[i]``)."""
        if not games.size:
            return
        if self.final_obs is None:
            self.final_obs = np.zeros(self._shape, np.float32)  # calloc: the rows no end writes are free
        self.final_obs[games] = final


def physical_memory() -> int | None:
    """This machine's memory in bytes; None where the OS does not say (then only a failed allocation tells)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None


def _memory_message(num_envs: int, game_bytes: int, memory: int | None) -> str:
    """One line: the games asked for, about how much memory they need, and how many this machine allows."""
    need = f"num_envs={num_envs:,} needs about {num_envs * game_bytes / 2**30:,.1f} GiB of memory " \
           f"({game_bytes / 1024:.1f} KiB a game)"
    if memory is None:
        return f"{need}, more than is free: ask for fewer games"
    fits = int(float(f"{memory // game_bytes:.2g}"))  # two significant digits: the estimate is rough
    allowed = f"this machine has {memory / 2**30:,.1f} GiB, enough for about {fits:,} games"
    if num_envs * game_bytes > memory:
        return f"{need}; {allowed}"
    return f"{need}, more than is free now ({allowed} when nothing else runs)"


def _opponents(opponents: Any, rules: Any, n: int) -> tuple[list[str], list[Any], np.ndarray]:
    """The opponents' names, each one's ``(spec, factory of its compiled twin)`` (None: the slow path) and each game's
    opponent (an index into both)."""
    if isinstance(opponents, dict):
        entries = list(opponents.items())
    elif isinstance(opponents, (list, tuple)):
        entries = [(spec, 1.0) for spec in opponents]
    else:
        entries = [(opponents, 1.0)]
    if not entries:
        raise ValueError("opponents must name at least one opponent")
    names, factories, weights = [], [], []
    for spec, weight in entries:
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
            raise ValueError(f"opponent {spec!r}: its weight must be a positive number, got {weight!r}")
        name, factory = _twin(spec, rules, "opponent", slow=True)
        names.append(name)
        factories.append((spec, factory))
        weights.append(float(weight))
    # Each opponent's share of the games, by largest remainder, in the order given.
    share = np.array(weights) / sum(weights) * n
    counts = np.floor(share).astype(np.int64)
    counts[np.argsort(-(share - counts), kind="stable")[:n - counts.sum()]] += 1
    return names, factories, np.repeat(np.arange(len(entries)), counts)


def _twin(spec: Any, rules: Any, role: str, slow: bool = False) -> tuple[str, Any]:
    """The name of an agent spec (or agent object) and the factory of its compiled twin; ValueError in one line
    for an unknown spec, or for an agent without a twin unless ``slow`` (then None: it plays on the slow path;
    ``role`` names it in the message)."""
    agent = make_agent_from_spec(spec) if isinstance(spec, str) else spec
    name = spec if isinstance(spec, str) else getattr(agent, "name", type(agent).__name__)
    twin = getattr(agent, "batch_twin", None)
    factory = twin(rules) if twin is not None else None
    if factory is None and not slow:
        raise ValueError(f"{role} {name!r} has no compiled twin to play many games at once (random, rules and "
                         "checkpoints have one); use SingleSeatEnv for it")
    return name, factory
