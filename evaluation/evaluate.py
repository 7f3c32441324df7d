"""Duplicate matches between two agents, with their statistics.

Every deal is played twice with the same cards in the same seats: in play 0 agent A holds
team 0 (seats 0 and 2) and B team 1 (seats 1 and 3); in play 1 the teams are swapped. Card
luck then cancels within the pair, and what remains is the difference in play.

Two kinds of match:

- ``episode="hand"``: each deal is one hand. Deal ``i`` comes from the engine's own dealer
  (``GameState(rules, rng)`` seeded from the master seed and ``i``) and is re-seated so that
  seat ``i % 4`` deals: the dealer rotates over the deals.
- ``episode="game"``: each duplicate pair is two whole games (rubbers with ``rubber=True``)
  started from the same ``GameState`` seed, so both games see the same sequence of deals
  (the engine's generator only deals).

The game is driven through :class:`~euchre_env.engine.GameState` directly. At each decision
only the acting seat's agent is asked, with ``info = {"action_mask", "information_state"}``
and ``observation = {"action_mask"}`` plus the ``"observation"`` vector unless the agent sets
``needs_observation = False``. Each seat has its own agent instance, reset before every deal
(or game) with a seed derived from (master seed, deal index, play index, seat), so a result
depends only on the master seed, never on the number of workers or the chunking.

Statistics (see :class:`MatchResult`): the points-per-hand margin of A over B with a 95%
interval over duplicate pairs, A's share of the points, and in game mode A's game win rate
with a Wilson interval.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TextIO

import numpy as np

from euchre_env.actions import action_table
from euchre_env.engine import NUM_SEATS, GameState
from euchre_env.infostate import information_state
from euchre_env.observation import Observer
from euchre_env.rules import Rules

EPISODES = ("hand", "game")

# An agent spec: a string for euchre_env.agents.registry.make_agent, or a factory ``f(seed) -> agent``.
AgentSpec = str | Callable[[int | None], Any]


class IllegalActionError(ValueError):
    """An agent chose an action that is not legal at its turn."""


class GameTooLongError(RuntimeError):
    """A game went on past :func:`max_hands_per_game` (agents that never reach the target)."""


def max_hands_per_game(rules: Rules) -> int:
    """Hands after which a game (a whole rubber with ``rubber=True``) is abandoned as endless.

    Normal games take a few dozen hands; weak agents may never reach the target at all, e.g.
    random bidders in Bid Euchre, whose failed bids drive both scores down.
    """
    return max(1000, 20 * rules.game_target) * (3 if rules.rubber else 1)


# ---------------------------------------------------------------------------------- seeds
_TAG_DEAL = 0
_TAG_AGENT = 1


def derive_seed(*keys: int) -> int:
    """A 63-bit seed from non-negative integer keys (independent streams for distinct keys)."""
    state = np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def deal_seed(seed: int, index: int) -> int:
    """Seed of the ``GameState`` generator for deal (or game pair) ``index``."""
    return derive_seed(seed, _TAG_DEAL, index)


def agent_seed(seed: int, index: int, play: int, seat: int) -> int:
    """Seed passed to ``agent.reset`` of ``seat`` before deal ``index``, play ``play``."""
    return derive_seed(seed, _TAG_AGENT, index, play, seat)


# ---------------------------------------------------------------------------------- agents
def spec_name(spec: AgentSpec) -> str:
    """A short label for an agent spec."""
    if isinstance(spec, str):
        return spec.strip()
    return str(getattr(spec, "name", None) or getattr(spec, "__name__", None) or repr(spec))


def build_agent(spec: AgentSpec, seed: int | None = None) -> Any:
    """An agent from a registry spec (``random``, ``rules``, ``pimc:50``) or a factory."""
    if isinstance(spec, str):
        from euchre_env.agents.registry import make_agent

        agent = make_agent(spec, seed)
    elif callable(spec):
        agent = spec(seed)
    else:
        raise ValueError(f"an agent spec must be a string or a factory f(seed) -> agent, got {spec!r}")
    for method in ("act", "reset"):
        if not callable(getattr(agent, method, None)):
            raise ValueError(f"agent {spec_name(spec)!r} has no {method}() method (see agents/base.py)")
    return agent


# ---------------------------------------------------------------------------------- match
@dataclass(frozen=True)
class Match:
    """What one duplicate match plays: agents, rules, kind of episode and master seed."""

    agent_a: AgentSpec
    agent_b: AgentSpec
    rules: Rules
    episode: str = "hand"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {list(EPISODES)}, got {self.episode!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {self.seed!r}")


class DealRecord(NamedTuple):
    """One duplicate pair: a deal (hand mode) or a seeded game (game mode), played twice.

    ``diff[p]`` is A's points minus B's in play ``p`` (play 0: A holds team 0, play 1: team 1);
    ``hands[p]`` the hands that play took; ``a_points`` / ``b_points`` the points each side won
    over both plays (a negative score, e.g. a failed bid or a renege penalty, counts as points
    won by the other side); ``a_games`` the games A won of the two (-1 in hand mode).
    """

    index: int
    diff0: int
    diff1: int
    hands0: int
    hands1: int
    a_points: int
    b_points: int
    a_games: int


def hand_deal(rules: Rules, seed: int, dealer: int) -> dict[str, Any]:
    """A deal drawn by the engine from ``seed``, re-seated so that ``dealer`` deals.

    The engine draws its own first dealer; the hands keep their places relative to the
    dealer, so this is the same deal as the engine's, turned around the table.
    """
    dealt = GameState(rules, np.random.default_rng(seed))
    shift = dealer - dealt.dealer
    hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    for seat in range(NUM_SEATS):
        hands[(seat + shift) % NUM_SEATS] = list(dealt.initial_hands[seat])
    deal: dict[str, Any] = {"dealer": dealer, "hands": hands}
    if not rules.is_bid:
        deal["upcard"] = dealt.upcard
    return deal


class MatchRunner:
    """Plays the deals of one match; holds one agent instance per side and seat."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.rules = match.rules
        self.observer = Observer(self.rules)
        self.table = action_table(self.rules)
        self.deck = self.table.deck
        self.num_actions = len(self.table)
        self.max_hands = max_hands_per_game(self.rules)
        self.names = (spec_name(match.agent_a), spec_name(match.agent_b))
        # agents[side][seat], side 0 = A, 1 = B; every seat has its own instance
        self.agents = [[build_agent(spec, None) for _ in range(NUM_SEATS)] for spec in (match.agent_a, match.agent_b)]
        self.needs_obs = [[bool(getattr(a, "needs_observation", True)) for a in side] for side in self.agents]

    def play_deals(self, start: int, stop: int) -> list[DealRecord]:
        return [self.play_deal(i) for i in range(start, stop)]

    def play_deal(self, index: int) -> DealRecord:
        m = self.match
        seed = deal_seed(m.seed, index)
        deal = hand_deal(self.rules, seed, index % NUM_SEATS) if m.episode == "hand" else None
        diffs, hands, a_games = [0, 0], [0, 0], 0
        a_points = b_points = 0
        for play in (0, 1):
            a_team = play  # play 0: A holds team 0 (seats 0, 2); play 1: A holds team 1
            seats = [self._seat(play, seat) for seat in range(NUM_SEATS)]
            for seat, (agent, _, _) in enumerate(seats):
                agent.reset(agent_seed(m.seed, index, play, seat))
            state = GameState(self.rules, np.random.default_rng(seed), deal=deal)
            while True:
                self._play_hand(state, seats)
                pts = state.hand_result["points"]
                pa, pb = pts[a_team], pts[1 - a_team]
                diffs[play] += pa - pb
                a_points += max(pa, 0) + max(-pb, 0)
                b_points += max(pb, 0) + max(-pa, 0)
                hands[play] += 1
                if m.episode == "hand" or state.is_over:
                    break
                if hands[play] >= self.max_hands:
                    raise GameTooLongError(
                        f"game pair {index}, play {play}: no result after {self.max_hands} hands with "
                        f"game_target={self.rules.game_target} (scores {state.scores}); these agents may never "
                        "reach the target: use single hands (no --games) or a smaller game_target")
                state.next_hand()
            if m.episode == "game" and state.winner == a_team:
                a_games += 1
        return DealRecord(index, diffs[0], diffs[1], hands[0], hands[1], a_points, b_points,
                          a_games if m.episode == "game" else -1)

    def _seat(self, play: int, seat: int) -> tuple[Any, bool, str]:
        side = 0 if (seat % 2) == play else 1  # play 0: A on even seats; play 1: A on odd seats
        return self.agents[side][seat], self.needs_obs[side][seat], self.names[side]

    def _play_hand(self, state: GameState, seats: list[tuple[Any, bool, str]]) -> None:
        while not state.hand_over:
            seat = state.current_player
            legal = state.legal_actions()
            mask = np.zeros(self.num_actions, np.int8)
            mask[legal] = 1
            agent, needs_obs, name = seats[seat]
            info = {"action_mask": mask, "information_state": information_state(state, seat)}
            observation: dict[str, np.ndarray] = {"action_mask": mask}
            if needs_obs:
                observation["observation"] = self.observer.encode(state, seat)
            action = agent.act(observation, info)
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
                raise IllegalActionError(_illegal_message(state, name, seat, action, legal))
            state.apply(int(action))


def _illegal_message(state: GameState, name: str, seat: int, action: Any, legal: list[int]) -> str:
    try:
        what = f"{state.table.to_str(action)!r} (id {int(action)})"
    except (ValueError, TypeError):
        what = repr(action)
    allowed = ", ".join(state.table.strings[a] for a in legal)
    return (f"agent {name!r} at seat {seat} chose the illegal action {what} in phase {state.phase.name}; "
            f"legal: {allowed}")


# ---------------------------------------------------------------------------------- workers
_WORKER: MatchRunner | None = None


def _init_worker(match: Match) -> None:
    global _WORKER
    torch = sys.modules.get("torch")  # imported by the parent when a checkpoint agent plays
    if torch is not None:
        # One process per core already: intra-op threads only add synchronisation to batch-1 forward
        # passes (a checkpoint agent played 2.7x slower with two threads than with one).
        torch.set_num_threads(1)
    _WORKER = MatchRunner(match)


def _work(bounds: tuple[int, int]) -> list[DealRecord]:
    assert _WORKER is not None
    return _WORKER.play_deals(*bounds)


def default_chunk(n: int, workers: int, episode: str) -> int:
    """Deals per task: small enough to balance the workers and update the progress bar."""
    cap = 200 if episode == "hand" else 10
    return max(1, min(cap, n // max(1, workers * 16)))


def play_match(
    match: Match,
    n: int,
    workers: int = 2,
    chunk: int | None = None,
    progress: Progress | None = None,
    first: int = 0,
) -> list[DealRecord]:
    """Play duplicate pairs ``first .. first+n-1``; the records are in index order.

    A pair's cards and agent seeds depend only on the master seed and its index, so a long
    match can be played in ranges (in separate runs) and merged (:func:`merge_results`).
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of deals must be a positive int, got {n!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if not isinstance(first, int) or first < 0:
        raise ValueError(f"the first deal index must be a non-negative int, got {first!r}")
    chunk = chunk or default_chunk(n, workers, match.episode)
    bounds = [(s, min(s + chunk, first + n)) for s in range(first, first + n, chunk)]
    records: list[DealRecord] = []
    tally = _Tally()

    def take(part: list[DealRecord]) -> None:
        records.extend(part)
        tally.add(part)
        if progress is not None:
            progress.update(len(records), tally.margin(), tally.half_width())

    if workers == 1 or len(bounds) == 1:
        runner = MatchRunner(match)
        for b in bounds:
            take(runner.play_deals(*b))
    else:
        ctx = mp.get_context()
        with ctx.Pool(min(workers, len(bounds)), initializer=_init_worker, initargs=(match,)) as pool:
            for part in pool.imap(_work, bounds):
                take(part)
    if progress is not None:
        progress.close()
    return records


class _Tally:
    """Running sums for the live margin of the progress bar."""

    def __init__(self) -> None:
        self.n = 0
        self.d = self.h = self.dd = self.dh = self.hh = 0.0

    def add(self, part: Iterable[DealRecord]) -> None:
        for r in part:
            d, h = r.diff0 + r.diff1, r.hands0 + r.hands1
            self.n += 1
            self.d += d
            self.h += h
            self.dd += d * d
            self.dh += d * h
            self.hh += h * h

    def margin(self) -> float:
        return self.d / self.h if self.h else 0.0

    def half_width(self) -> float:
        if self.n < 2:
            return math.nan
        r = self.margin()
        ss = self.dd - 2 * r * self.dh + r * r * self.hh  # sum of (d - r h)^2
        se = math.sqrt(max(ss, 0.0) / (self.n - 1) / self.n) / (self.h / self.n)
        return 1.959963984540054 * se


# ---------------------------------------------------------------------------------- progress
class Progress:
    """A one-line progress bar on stderr with the live margin; silent for short runs.

    It draws only after ``delay`` seconds and at most every ``interval`` seconds.
    """

    def __init__(self, total: int, label: str = "", unit: str = "deals", stream: TextIO | None = None,
                 delay: float = 1.0, interval: float = 0.2, width: int = 24) -> None:
        self.total, self.label, self.unit = total, label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.delay, self.interval, self.width = delay, interval, width
        self.start = time.perf_counter()
        self.last = 0.0
        self.drawn = False

    def update(self, done: int, margin: float, half: float) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay or (now - self.last < self.interval and done < self.total):
            return
        self.last = now
        filled = int(self.width * done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        eta = elapsed * (self.total - done) / done if done else math.nan
        pm = f" ±{half:.3f}" if math.isfinite(half) else ""
        text = (f"\r{self.label} [{bar}] {done}/{self.total} {self.unit}  margin {margin:+.3f}{pm}"
                f"  {elapsed:.0f}s, eta {eta:.0f}s ")
        self.stream.write(text)
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


# ---------------------------------------------------------------------------------- statistics
Z95 = 1.959963984540054


def normal_quantile(p: float) -> float:
    return statistics.NormalDist().inv_cdf(p)


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` (closed forms of Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2 == 1:
        total, term = 0.0, c
        if df > 1:
            total = term
            for k in range(3, df - 1, 2):  # coefficients 2/3, 2*4/(3*5), ...
                term *= c * c * (k - 1) / k
                total += term
        return 2.0 / math.pi * (theta + s * total)
    total, term = 1.0, 1.0
    for k in range(2, df, 2):  # coefficients 1/2, 1*3/(2*4), ...
        term *= c * c * (k - 1) / k
        total += term
    return s * total


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (p > 0.5) of Student's t with ``df`` degrees of freedom."""
    if not 0.5 < p < 1:
        raise ValueError(f"p must be in (0.5, 1), got {p}")
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    level = 2 * p - 1
    if df > 1000:  # Cornish-Fisher expansion in 1/df; error far below 1e-9 here
        z = normal_quantile(p)
        return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
                + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, df) < level:
        lo, hi = hi, hi * 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if _t_two_sided(mid, df) < level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def mean_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` with a Student-t interval: (mean, low, high); nan bounds for n < 2."""
    x = np.asarray(values, dtype=float)
    return ratio_ci(x, np.ones_like(x), level)


def ratio_ci(num: Sequence[float], den: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """``sum(num) / sum(den)`` over independent units with a delta-method t interval.

    With ``den`` all equal this is the plain mean of ``num / den`` and its t interval.
    """
    d = np.asarray(num, dtype=float)
    h = np.asarray(den, dtype=float)
    n = d.size
    if n == 0 or h.sum() == 0:
        return math.nan, math.nan, math.nan
    r = float(d.sum() / h.sum())
    if n < 2:
        return r, math.nan, math.nan
    resid = d - r * h
    se = math.sqrt(float(resid @ resid) / (n - 1) / n) / float(h.mean())
    half = t_quantile((1 + level) / 2, n - 1) * se
    return r, r - half, r + half


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n``; (nan, nan) when n == 0."""
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    z = normal_quantile((1 + level) / 2)
    p = k / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n else min(1.0, center + half)
    return low, high


# ---------------------------------------------------------------------------------- results
@dataclass
class MatchResult:
    """A duplicate match and its statistics (margins are A's points minus B's, per hand)."""

    agent_a: str
    agent_b: str
    rules: dict[str, Any]
    episode: str
    seed: int
    deals: int  # duplicate pairs (hand mode: deals; game mode: seeded game pairs)
    hands: int  # hands played, both plays together
    games: int  # games played (game mode), else 0
    margin: float  # mean points-per-hand margin of A over B
    margin_low: float
    margin_high: float
    points_a: int
    points_b: int
    points_share: float  # A's share of all points won
    games_won_a: int
    win_rate: float  # A's game win rate (game mode), else nan
    win_low: float
    win_high: float
    seconds: float
    workers: int
    records: list[DealRecord] = field(default_factory=list, repr=False)

    def summary(self) -> dict[str, Any]:
        """Everything but the per-deal records (plain JSON-friendly values)."""
        out = {k: v for k, v in self.__dict__.items() if k != "records"}
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary(), "deal_records": [r._asdict() for r in self.records]}

    def outcomes(self) -> np.ndarray:
        """Per duplicate pair: 1 if A did better, 0.5 if even, 0 if worse.

        Hand mode compares the points over the two plays; game mode the games won (2, 1, 0).
        """
        if self.episode == "game":
            return np.array([r.a_games / 2 for r in self.records], dtype=float)
        d = np.array([r.diff0 + r.diff1 for r in self.records], dtype=float)
        return (np.sign(d) + 1) / 2


def summarize(match: Match, records: Sequence[DealRecord], seconds: float, workers: int) -> MatchResult:
    diffs = [r.diff0 + r.diff1 for r in records]
    hands = [r.hands0 + r.hands1 for r in records]
    margin, lo, hi = ratio_ci(diffs, hands)
    pa = sum(r.a_points for r in records)
    pb = sum(r.b_points for r in records)
    game_mode = match.episode == "game"
    games = 2 * len(records) if game_mode else 0
    won = sum(r.a_games for r in records) if game_mode else 0
    win_lo, win_hi = wilson_interval(won, games) if game_mode else (math.nan, math.nan)
    return MatchResult(
        agent_a=spec_name(match.agent_a), agent_b=spec_name(match.agent_b), rules=match.rules.to_dict(),
        episode=match.episode, seed=match.seed, deals=len(records), hands=int(sum(hands)), games=games,
        margin=margin, margin_low=lo, margin_high=hi, points_a=pa, points_b=pb,
        points_share=pa / (pa + pb) if pa + pb else math.nan, games_won_a=won,
        win_rate=won / games if games else math.nan, win_low=win_lo, win_high=win_hi,
        seconds=seconds, workers=workers, records=list(records),
    )


def evaluate(
    agent_a: AgentSpec,
    agent_b: AgentSpec,
    rules: Rules | str = "knock",
    n: int = 1000,
    seed: int = 0,
    episode: str = "hand",
    workers: int = 2,
    chunk: int | None = None,
    progress: bool | None = False,
    first: int = 0,
) -> MatchResult:
    """A duplicate match of ``n`` pairs (deals, or games with ``episode="game"``) of A against B.

    ``progress``: True draws a bar on stderr for runs over a second, None does so only when
    stderr is a terminal, False never.
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    match = Match(agent_a, agent_b, rules, episode, seed)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        unit = "deals" if episode == "hand" else "game pairs"
        bar = Progress(n, f"{spec_name(agent_a)} vs {spec_name(agent_b)}", unit)
    start = time.perf_counter()
    records = play_match(match, n, workers, chunk, bar, first)
    return summarize(match, records, time.perf_counter() - start, workers)


def merge_results(results: Sequence[dict[str, Any]]) -> MatchResult:
    """One match from the JSON of several runs of the same match over disjoint deal ranges."""
    if not results:
        raise ValueError("nothing to merge")
    keys = ("agent_a", "agent_b", "rules", "episode", "seed")
    head = results[0]
    for other in results[1:]:
        for key in keys:
            if other.get(key) != head.get(key):
                raise ValueError(f"runs of different matches: {key} {head.get(key)!r} vs {other.get(key)!r}")
    records = sorted((DealRecord(**r) for res in results for r in res["deal_records"]), key=lambda r: r.index)
    for a, b in itertools.pairwise(records):
        if a.index == b.index:
            raise ValueError(f"deal {a.index} was played in more than one run")
    match = Match(head["agent_a"], head["agent_b"], Rules.from_dict(head["rules"]), head["episode"], head["seed"])
    seconds = sum(res["seconds"] for res in results)
    return summarize(match, records, seconds, max(res["workers"] for res in results))


# ---------------------------------------------------------------------------------- tables
def fmt_signed(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:+.{digits}f}"


def fmt_interval(lo: float, hi: float, digits: int = 3, signed: bool = True) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    f = (lambda v: f"{v:+.{digits}f}") if signed else (lambda v: f"{v:.{digits}f}")
    return f"[{f(lo)}, {f(hi)}]"


def fmt_pct(x: float) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


def fmt_pct_interval(lo: float, hi: float) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    return f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


MATCH_HEADERS = ("A", "B", "deals", "hands", "margin A-B (pts/hand)", "95% CI", "A points share",
                 "games", "A win rate", "95% CI (Wilson)", "time")


def match_row(r: MatchResult) -> list[str]:
    game = r.episode == "game"
    return [
        r.agent_a, r.agent_b, str(r.deals), str(r.hands), fmt_signed(r.margin),
        fmt_interval(r.margin_low, r.margin_high), fmt_pct(r.points_share),
        str(r.games) if game else "-", fmt_pct(r.win_rate) if game else "-",
        fmt_pct_interval(r.win_low, r.win_high) if game else "-", f"{r.seconds:.1f} s",
    ]


def match_table(results: Iterable[MatchResult]) -> str:
    return markdown_table(MATCH_HEADERS, [match_row(r) for r in results])


# ---------------------------------------------------------------------------------- files
def jsonable(x: Any) -> Any:
    """``x`` with numpy scalars as Python numbers and nan / inf as None."""
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def write_summary_csv(summaries: list[dict[str, Any]], path: str) -> None:
    """One row per match summary; the rules dict goes in one JSON-encoded column."""
    flat = [{k: (json.dumps(v, sort_keys=True) if isinstance(v, dict) else v) for k, v in jsonable(s).items()}
            for s in summaries]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(flat[0]))
        writer.writeheader()
        writer.writerows(flat)


def write_match(result: MatchResult, out_dir: str) -> list[str]:
    """eval.json (summary and every duplicate pair), eval.csv (the summary) and deals.csv
    (one row per duplicate pair). Returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, name) for name in ("eval.json", "eval.csv", "deals.csv")]
    with open(paths[0], "w") as f:
        json.dump(jsonable(result.to_dict()), f, indent=2)
    write_summary_csv([result.summary()], paths[1])
    with open(paths[2], "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(DealRecord._fields)
        writer.writerows(result.records)
    return paths
