"""Throughput of the Euchre env under uniformly random play, next to OpenSpiel's ``euchre``.

Every measurement plays episodes for ``--seconds`` (the last one may stop midway) and counts
*decisions* (actions chosen by a seat), never the ``step(None)`` of a finished agent nor a
chance outcome. The reported rate is the median of ``--repeats`` runs; the rows are measured
round-robin (one run of every row per round), so background load skews the ratios less.

Rows:

* ``wrapped``: ``euchre_env.env(rules=...)``, the env users get (PettingZoo's
  TerminateIllegal, AssertOutOfBounds and OrderEnforcing wrappers), driven exactly like an
  RL loop: ``agent_iter()``, ``last()``, read ``observation`` and ``action_mask``, pick
  uniformly among the legal actions with a seeded ``numpy.random.Generator``, ``step()``.
* ``raw``: ``euchre_env.raw_env(rules=...)`` driven by the same loop.
* ``wrapped-reseed``: ``wrapped`` with ``reset(seed=episode)`` at every hand instead of ``reset()``, as a
  held-out evaluation loop reseeds.
* ``readme``: the README's AEC loop as it stands there, defaults and all: ``euchre_env.env(rules=...)`` (whole
  games), ``reset(seed=episode)`` per game, the loop's own random choice.
* ``readme-vector N``: the README's ``VectorEuchre`` loop as it stands there: ``observation="structured"``,
  ``threads=None`` and the default ``copy=True`` (every step returns new arrays), ``venv.sample_legal()``.
* ``engine``: ``GameState.legal_actions()`` / ``apply()`` only (no observation, no mask),
  for reference.
* ``floor``: a do-nothing four-agent AEC env (no rules: a fixed mask, a copied observation of knock's size,
  20 decisions a hand, PettingZoo's own dead-agent steps) in the same loop: what the loop and PettingZoo's
  protocol cost by themselves, the most any AEC env could run at here. Not measured unless asked for.
* ``vector N``: :class:`euchre_env.envs.vector.VectorEuchre` with ``N`` games stepped at once (one hand per
  episode, auto-reset), the absolute observation and the mask of every game's seat to act returned at
  every step, a uniformly random legal action per game; ``vector-structured N`` the same with the
  structured observation, ``vector-noobs N`` with ``observation="none"`` (masks only). Each on one
  thread (``threads=1``, the default) and on every core (``threads=None``: Numba's parallel kernels),
  as ``--vector-threads`` says; the compile (cached on disk) happens in the warm-up.
* ``single-seat OPP``: ``SingleSeatEnv(observation="structured", opponents=OPP)``, a random learner (its own
  ``rng.choice`` over the mask) and ``reset()`` at every episode's end; counts the learner's decisions only.
* ``single-seat-vector OPP N``: ``SingleSeatVectorEnv`` with ``N`` games, the structured observation and the
  opponents ``OPP`` (``random``, ``rules``, or ``checkpoint``: the preset's published network), a random
  learner over ``infos["action_mask"]``; learner decisions only, on one thread and every core as
  ``--vector-threads`` says.
* ``OpenSpiel``: ``pyspiel`` ``euchre`` driven from Python by the fastest loop we know a user to write, doing
  the AEC rows' work: at every decision its perfect-recall observer filled for the seat to act
  (``make_observation(...).set_from``, a float32 array a network reads; ``information_state_tensor()`` builds a
  Python list and runs at a fifth of the speed) and the legal ids (``legal_actions()``, a list: what
  ``np.flatnonzero`` makes of our mask), then the AEC rows' own pick, ``legal[rng.integers(n)]``. A chance node
  applies ``random.choice(state.legal_actions())`` (not counted): exact, since every chance outcome of
  OpenSpiel's euchre is equally likely (:func:`check_uniform_chance` checks that at start). Until 2026-12-06
  this row sampled ``chance_outcomes()`` by their probabilities in Python and read ``legal_actions_mask``
  through ``np.flatnonzero``: this loop runs 2.56x that one, and the README's AEC loop, 1.22x the old loop,
  is 0.52x this one (docs/speed.md).
  ``OpenSpiel no-obs`` skips the observer, the counterpart of ``engine``.

The OpenSpiel game is matched to each turn-up preset by its two parameters
(``stick_the_dealer``, ``allow_lone_defender``); it has no Bid Euchre, so ``bid`` is compared
with the default ``euchre``. Rules still differ in detail: OpenSpiel plays one hand per
episode (ours a whole game) and asks "go alone?" as a separate decision.

The AEC rows but ``readme`` play one hand per episode (``episode="hand"``, a reset every hand), as OpenSpiel does.

``ratio`` is ours / OpenSpiel: the AEC rows (``floor`` too) and the vector rows with an observation against
``OpenSpiel``, ``engine`` and ``vector-noobs`` against ``OpenSpiel no-obs``; the ratio of the medians, and the
``paired ratio``, the median over the rounds of the two rows' ratio in each round (they ran seconds apart:
on a machine whose speed drifts by the minute the paired one moves less). ``--clock cpu`` times every row by
this process's CPU time instead of the wall clock: on a machine shared with other work it moves far less (rows
on all cores are refused then: their threads' time would add up).

    .venv/bin/python benchmarks/bench_env.py --seconds 5 --repeats 3 --num-envs 256 4096 \
        --json benchmarks/results/bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

# Run as a script, sys.path[0] is benchmarks/; import the checkout's package, not whatever an
# editable install of another layout resolves to.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Measure the compiled engine, never the reference twin an env runs on while its kernels build in the background
# (euchre_env.envs.game_core): compile first where they are not built yet, in the warm-up.
os.environ.setdefault("EUCHRE_ENV_ENGINE", "compiled")

from pettingzoo import AECEnv

import euchre_env
from euchre_env.game.engine import GameState
from euchre_env.game.rules import PRESETS, Rules

# OpenSpiel euchre parameters closest to each of our presets.
OPENSPIEL_PARAMS: dict[str, dict[str, bool]] = {
    "knock": {"stick_the_dealer": True, "allow_lone_defender": False},
    "classic": {"stick_the_dealer": False, "allow_lone_defender": False},
    "multiplayer": {"stick_the_dealer": False, "allow_lone_defender": True},
    "bid": {"stick_the_dealer": True, "allow_lone_defender": False},  # no Bid Euchre in OpenSpiel
}
KINDS = ("readme", "readme-vector", "wrapped", "wrapped-reseed", "raw", "engine", "vector", "vector-structured",
         "vector-noobs", "single-seat", "single-seat-vector", "openspiel", "floor")
# The opponents of the single-seat rows; "checkpoint" is the preset's published network.
SINGLE_SEAT_OPPONENTS = ("random", "rules", "checkpoint")
CHECKPOINTS = {"knock": "checkpoints/knock.pt", "bid": "checkpoints/bid.pt"}
DEFAULT_KINDS = KINDS[:-1]
VECTOR_OBSERVATION = {"vector": "absolute", "vector-structured": "structured", "vector-noobs": "none"}
ONE_THREAD, ALL_CORES = "1 thread", "all cores"
VECTOR_THREADS = (ONE_THREAD, ALL_CORES)
CHECK_EVERY = 64  # decisions between two reads of the clock
# The clock every row is timed by: wall time, or with --clock cpu this process's CPU time, which the other
# processes of a shared machine slow less (their time slices do not count; their load on caches still does).
clock: Callable[[], float] = time.perf_counter
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class Run:
    """One timed run: decisions (and hands, episodes) played in ``seconds``."""

    decisions: int
    hands: int
    episodes: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds


@dataclass
class Result:
    preset: str
    env: str
    runs: list[Run] = field(default_factory=list)
    note: str = ""

    @property
    def rate(self) -> float:
        return statistics.median(r.rate for r in self.runs)

    @property
    def spread(self) -> float:
        """Half the range of the runs, relative to the median."""
        rates = [r.rate for r in self.runs]
        return (max(rates) - min(rates)) / 2 / self.rate

    @property
    def per_hand(self) -> float:
        return sum(r.decisions for r in self.runs) / max(1, sum(r.hands for r in self.runs))


# ---------------------------------------------------------------------------- our env
def run_aec(make: Callable[[], Any], seconds: float, seed: int, reseed: bool = False) -> Run:
    """Random play through the AEC API, as an RL rollout loop does, for ``seconds``.

    The clock is read every ``CHECK_EVERY`` decisions and may stop an episode midway: under
    random play a Bid Euchre game to 32 practically never ends (both scores drift negative).
    """
    env = make()
    rng = np.random.default_rng(seed)
    decisions = hands = episodes = 0
    env.reset(seed=seed)
    start = clock()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            _x = obs["observation"]  # what a policy network would read
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
            if decisions % CHECK_EVERY == 0 and clock() >= deadline:
                break
        # Hands finished: those before the one on the table, and that one if the episode ended.
        hands += env.unwrapped.hand_number + (not env.agents)
        if not env.agents:
            episodes += 1
        if clock() >= deadline:
            break
        if reseed:
            env.reset(seed=seed + episodes)  # a held-out loop's seed per episode
        else:
            env.reset()  # the env's generator carries on from the seeded first reset
    return Run(decisions, hands, episodes, clock() - start)


def run_readme(preset: str, seconds: float, seed: int) -> Run:
    """The README's AEC loop (section "Use it"), as a user runs it: whole games, a seed per game."""
    env = euchre_env.env(rules=preset)
    rng = np.random.default_rng(seed)
    decisions = hands = episode = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        env.reset(seed=seed + episode)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
            if decisions % CHECK_EVERY == 0 and clock() >= deadline:
                break
        hands += env.unwrapped.hand_number + (not env.agents)
        episode += not env.agents
    return Run(decisions, hands, episode, clock() - start)


class DoNothingEnv(AECEnv):
    """Four agents, no rules: the ``floor`` row. Each decision only passes the turn; a hand is
    ``DECISIONS_PER_HAND`` decisions, then every agent is terminated (PettingZoo's ``_was_dead_step`` removes
    them). ``observe`` copies an observation of the rules' size and shares one fixed mask, as the env does."""

    metadata = {"name": "do_nothing_v0"}
    DECISIONS_PER_HAND = 20

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(4)]
        like = euchre_env.raw_env(rules=rules)  # the sizes of the env's observation and mask
        self._obs = np.zeros(like.observer.size, np.float32)
        self._mask = np.zeros(len(like.table), np.int8)
        self._mask[:5] = 1
        self.hand_number = 0  # run_aec reads env.unwrapped.hand_number: hands before the one on the table

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs.copy(), "action_mask": self._mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._decisions = 0

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._decisions += 1
        if self._decisions == self.DECISIONS_PER_HAND:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self._decisions % 4]


def run_engine(rules: Rules, seconds: float, seed: int) -> Run:
    """The rules engine alone: legal_actions() / apply(), no observation or mask."""
    rng = np.random.default_rng(seed)
    decisions = hands = episodes = 0
    start = clock()
    deadline = start + seconds
    while True:
        game = GameState(rules, rng)
        while not game.is_over:
            if game.hand_over:
                game.next_hand()
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            decisions += 1
            if decisions % CHECK_EVERY == 0 and clock() >= deadline:
                break
        episodes += game.is_over
        hands += game.hand_number + game.hand_over
        if clock() >= deadline:
            break
    return Run(decisions, hands, episodes, clock() - start)


def run_vector(preset: str, observation: str, num_envs: int, seconds: float, seed: int, threads: int | None
               ) -> Run:
    """``VectorEuchre`` under random play: every game's seat to act gets a random legal action each step."""
    from euchre_env.compiled.kernels import random_actions, random_actions_serial
    from euchre_env.envs.vector import VectorEuchre

    venv = VectorEuchre(preset, num_envs=num_envs, seed=seed, observation=observation, copy=False, threads=threads)
    pick = random_actions if threads != 1 else random_actions_serial  # the "policy" on the same threads
    rng = np.random.default_rng(seed)
    actions = np.zeros(num_envs, np.int64)
    decisions = hands = episodes = 0
    obs, mask, _ = venv.reset()
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        pick(mask, rng.random(num_envs), actions)
        obs, mask, _, _, done, info = venv.step(actions)
        _x = obs  # what a policy network would read
        decisions += num_envs
        hands += int(info["hand_over"].sum())
        episodes += int(done.sum())
    return Run(decisions, hands, episodes, clock() - start)


def run_readme_vector(preset: str, num_envs: int, seconds: float, seed: int) -> Run:
    """The README's ``VectorEuchre`` loop (section "Batched engine"), its arguments as there."""
    from euchre_env import VectorEuchre

    venv = VectorEuchre(preset, num_envs=num_envs, seed=seed, observation="structured", threads=None)
    _obs, _mask, _seat = venv.reset()
    decisions = hands = episodes = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        actions = venv.sample_legal()
        _obs, _mask, _seat, _rewards, done, info = venv.step(actions)  # what a learner reads
        decisions += num_envs
        hands += int(info["hand_over"].sum())
        episodes += int(done.sum())
    return Run(decisions, hands, episodes, clock() - start)


def run_single_seat(preset: str, opponents: str, seconds: float, seed: int) -> Run:
    """``SingleSeatEnv`` (one game, the engine in Python) under a random learner: learner decisions a second."""
    from euchre_env import SingleSeatEnv

    env = SingleSeatEnv(preset, opponents=opponents, observation="structured")
    rng = np.random.default_rng(seed)
    _obs, info = env.reset(seed=seed)
    decisions = episodes = 0
    start = clock()
    deadline = start + seconds
    while True:
        _obs, _reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        decisions += 1
        if terminated or truncated:
            episodes += 1
            _obs, info = env.reset()
        if decisions % CHECK_EVERY == 0 and clock() >= deadline:
            break
    return Run(decisions, episodes, episodes, clock() - start)


def run_single_seat_vector(preset: str, opponents: str, num_envs: int, seconds: float, seed: int,
                           threads: int | None) -> Run:
    """``SingleSeatVectorEnv`` under a random learner: learner decisions a second over all the games."""
    from euchre_env import SingleSeatVectorEnv

    envs = SingleSeatVectorEnv(preset, num_envs=num_envs, opponents=opponents, observation="structured", seed=seed,
                               threads=threads)
    rng = np.random.default_rng(seed)
    _obs, infos = envs.reset()
    decisions = episodes = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        mask = infos["action_mask"]
        _obs, _rewards, terminated, truncated, infos = envs.step((rng.random(mask.shape) * mask).argmax(1))
        decisions += num_envs
        episodes += int((terminated | truncated).sum())
    return Run(decisions, episodes, episodes, clock() - start)


# ---------------------------------------------------------------------------- OpenSpiel
def openspiel_available() -> bool:
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.observation import make_observation  # noqa: F401
    except ImportError:
        return False
    return True


def load_openspiel(params: dict[str, bool]) -> Any:
    import pyspiel

    return pyspiel.load_game("euchre", dict(params))


def check_uniform_chance(game: Any, seed: int, hands: int = 20) -> None:
    """Raise if a chance node of ``game`` has outcomes of unequal probability in ``hands`` random hands: the
    OpenSpiel loop's uniform choice among the legal chance actions is exact only for uniform outcomes."""
    rng = random.Random(seed)
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                probs = {p for _, p in state.chance_outcomes()}
                if max(probs) - min(probs) > 1e-12:
                    raise RuntimeError(f"{game} has a chance node with unequal outcomes: the loop would be biased")
            state.apply_action(rng.choice(state.legal_actions()))


def run_openspiel(params: dict[str, bool], seconds: float, seed: int, observe: bool = True) -> Run:
    """Random play of OpenSpiel's euchre from Python, the fastest loop we know (see the module's docstring)."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = load_openspiel(params)
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True)) if observe else None
    rng = np.random.default_rng(seed)
    chance = random.Random(seed).choice
    decisions = episodes = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance(state.legal_actions()))  # uniform outcomes: see check_uniform_chance
                continue
            if obs is not None:
                obs.set_from(state, state.current_player())
                _x = obs.tensor  # what a policy network would read
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])  # the AEC rows' pick
            decisions += 1
        episodes += 1
        if clock() >= deadline:
            break
    return Run(decisions, episodes, episodes, clock() - start)  # one hand per episode


# ---------------------------------------------------------------------------- driver
Job = Callable[[int, float], Run]  # (seed, seconds) -> Run
WARMUP_S = 0.3


def benchmark(presets: list[str], kinds: list[str], seconds: float, repeats: int, seed: int,
              num_envs: tuple[int, ...] = (256, 4096), vector_threads: tuple[str, ...] = VECTOR_THREADS
              ) -> list[Result]:
    """Every row once per round, ``repeats`` rounds: a burst of background load hits all rows alike."""
    has_os = "openspiel" in kinds and openspiel_available()
    if "openspiel" in kinds and not has_os:
        print("pyspiel not importable: OpenSpiel rows skipped", file=sys.stderr)
    rows: list[tuple[Result, Job]] = []  # measured rows, in table order
    table_rows: list[Result] = []  # what the table shows (OpenSpiel rows shared between presets)
    os_rows: dict[tuple, list[Result]] = {}
    for preset in presets:
        rules = Rules.preset(preset)
        jobs: list[tuple[str, Job]] = []
        if "readme" in kinds:
            jobs.append(("readme", lambda s, t, p=preset: run_readme(p, t, s)))
        if "readme-vector" in kinds:
            for n in num_envs:
                jobs.append((f"readme-vector {n}", lambda s, t, p=preset, n=n: run_readme_vector(p, n, t, s)))
        if "wrapped" in kinds:
            jobs.append(("wrapped", lambda s, t, p=preset: run_aec(lambda: euchre_env.env(rules=p, episode="hand"),
                                                                    t, s)))
        if "wrapped-reseed" in kinds:
            jobs.append(("wrapped-reseed", lambda s, t, p=preset: run_aec(
                lambda: euchre_env.env(rules=p, episode="hand"), t, s, reseed=True)))
        if "raw" in kinds:
            jobs.append(("raw", lambda s, t, p=preset: run_aec(lambda: euchre_env.raw_env(rules=p, episode="hand"),
                                                                t, s)))
        if "engine" in kinds:
            jobs.append(("engine", lambda s, t, r=rules: run_engine(r, t, s)))
        if "floor" in kinds:
            jobs.append(("floor", lambda s, t, r=rules: run_aec(lambda: DoNothingEnv(r), t, s)))
        for kind, observation in VECTOR_OBSERVATION.items():
            if kind in kinds:
                for n in num_envs:
                    for threads in vector_threads:
                        jobs.append((f"{kind} {n} ({threads})",
                                     lambda s, t, p=preset, o=observation, n=n, th=threads:
                                     run_vector(p, o, n, t, s, None if th == ALL_CORES else 1)))
        if "single-seat" in kinds:
            for opp in SINGLE_SEAT_OPPONENTS[:2]:
                jobs.append((f"single-seat {opp}", lambda s, t, p=preset, o=opp: run_single_seat(p, o, t, s)))
        if "single-seat-vector" in kinds:
            for opp in SINGLE_SEAT_OPPONENTS:
                spec = CHECKPOINTS.get(preset) if opp == "checkpoint" else opp
                if spec is None:
                    continue
                for n in num_envs:
                    for threads in vector_threads:
                        jobs.append((f"single-seat-vector {opp} {n} ({threads})",
                                     lambda s, t, p=preset, o=spec, n=n, th=threads:
                                     run_single_seat_vector(p, o, n, t, s, None if th == ALL_CORES else 1)))
        for name, job in jobs:
            rows.append((Result(preset, name), job))
            table_rows.append(rows[-1][0])
        if not has_os:
            continue
        params = OPENSPIEL_PARAMS[preset]
        key = tuple(sorted(params.items()))
        pstr = ",".join(f"{k}={str(v).lower()}" for k, v in params.items())
        if key not in os_rows:
            check_uniform_chance(load_openspiel(params), seed)
            os_rows[key] = []
            for name, observe in (("OpenSpiel", True), ("OpenSpiel no-obs", False)):
                res = Result(preset, name, note=f"euchre({pstr})")
                rows.append((res, lambda s, t, pr=params, ob=observe: run_openspiel(pr, t, s, observe=ob)))
                os_rows[key].append(res)
        note = f"euchre({pstr})" + (", no Bid Euchre in OpenSpiel" if preset == "bid" else "")
        table_rows += [Result(preset, r.env, r.runs, note) for r in os_rows[key]]  # shares the runs list
    for _res, job in rows:
        job(seed - 1, WARMUP_S)  # warm-up (first-call caches, allocator), not reported
    for k in range(repeats):
        for res, job in rows:
            run = job(seed + k, seconds)
            res.runs.append(run)
            label = f"{res.preset} {res.env}" + (f" {res.note}" if res.note else "")
            print(f"  round {k + 1}/{repeats} {label:<72} {run.rate:>9,.0f} decisions/s "
                  f"({run.decisions} in {run.seconds:.2f} s)", file=sys.stderr, flush=True)
    return table_rows


def _reference(results: list[Result], r: Result) -> Result | None:
    """The OpenSpiel row that ``r`` is compared with (None: none)."""
    kind = r.env.split()[0]
    ref_env = {"readme": "OpenSpiel", "readme-vector": "OpenSpiel", "wrapped": "OpenSpiel",
               "wrapped-reseed": "OpenSpiel", "raw": "OpenSpiel", "floor": "OpenSpiel", "engine": "OpenSpiel no-obs",
               "vector": "OpenSpiel", "vector-structured": "OpenSpiel", "vector-noobs": "OpenSpiel no-obs"}.get(kind)
    return next((o for o in results if o.preset == r.preset and o.env == ref_env), None)


def ratio(results: list[Result], r: Result) -> float | None:
    """Median rate of ``r`` over the median rate of its OpenSpiel row."""
    o = _reference(results, r)
    return None if o is None else r.rate / o.rate


def paired_ratio(results: list[Result], r: Result) -> float | None:
    """The median over the rounds of ``r``'s rate over its OpenSpiel row's in the same round: the two ran
    seconds apart, so a slow minute of a shared machine moves both."""
    o = _reference(results, r)
    if o is None or len(o.runs) != len(r.runs):
        return None
    return statistics.median(a.rate / b.rate for a, b in zip(r.runs, o.runs))


def table(results: list[Result]) -> str:
    lines = [
        "| preset | env | decisions/s | µs/decision | spread | decisions/hand | ratio ours/OpenSpiel | paired ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        q, p = ratio(results, r), paired_ratio(results, r)
        env = r.env + (f" ({r.note})" if r.note else "")
        lines.append(f"| {r.preset} | {env} | {r.rate:,.0f} | {1e6 / r.rate:.2f} | ±{r.spread:.0%} | "
                     f"{r.per_hand:.1f} | {'' if q is None else f'{q:.2f}'} | {'' if p is None else f'{p:.2f}'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per measurement (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement; the median is reported")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS,
                        help="rule presets (default: all; knock is the headline)")
    parser.add_argument("--kinds", nargs="+", default=list(DEFAULT_KINDS), choices=KINDS,
                        help="which rows to measure (default: all but floor)")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[256, 4096], help="games per VectorEuchre row")
    parser.add_argument("--vector-threads", nargs="+", default=list(VECTOR_THREADS), choices=VECTOR_THREADS,
                        help="VectorEuchre rows on one thread and/or every core (default both)")
    parser.add_argument("--clock", default="wall", choices=list(CLOCKS),
                        help="time rows by the wall clock (default) or by this process's CPU time")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be > 0 and --repeats >= 1")

    if min(args.num_envs) < 1:
        parser.error("--num-envs must be positive")
    if args.clock == "cpu" and ALL_CORES in args.vector_threads and {
            "readme-vector", "vector", "vector-structured", "vector-noobs", "single-seat-vector"} & set(args.kinds):
        parser.error("--clock cpu times one thread's work: add --vector-threads '1 thread' or drop the vector rows")
    global clock
    clock = CLOCKS[args.clock]
    results = benchmark(args.presets, args.kinds, args.seconds, args.repeats, args.seed, tuple(args.num_envs),
                        tuple(args.vector_threads))
    cmd = " ".join([os.path.relpath(sys.executable), *sys.argv]) if argv is None else "bench_env.main()"
    print(f"\n`{cmd}`  (Python {platform.python_version()}, {platform.machine()}, "
          f"median of {args.repeats} x {args.seconds:g} s, {args.clock} clock)\n")
    print(table(results))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        payload = {
            "command": cmd,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "seed": args.seed,
            "clock": args.clock,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "numpy": np.__version__,
            "results": [
                {"preset": r.preset, "env": r.env, "note": r.note, "decisions_per_s": r.rate,
                 "decisions_per_hand": r.per_hand, "ratio_vs_openspiel": ratio(results, r),
                 "paired_ratio_vs_openspiel": paired_ratio(results, r),
                 "runs": [{**asdict(run), "rate": run.rate} for run in r.runs]}
                for r in results
            ],
        }
        with open(args.json, "w") as f:
            json.dump(payload, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
