"""What a match comes to: :class:`MatchResult`, from its records or from the JSON of several runs."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from euchre_env.evaluation.match import DealRecord, Match, spec_name
from euchre_env.evaluation.stats import ratio_ci, wilson_interval
from euchre_env.game.rules import Rules


@dataclass
class MatchResult:
    """A duplicate match and its statistics (margins are A's points minus B's, per hand).

    The margin's 95% interval is over the duplicate pairs (:func:`~euchre_env.evaluation.stats.ratio_ci`);
    in game mode A's game win rate has a Wilson interval.
    """

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
    workers: int  # worker processes (local) or the Ray cluster's CPUs
    records: list[DealRecord] = field(default_factory=list, repr=False)
    backend: str = "local"  # "local" (this machine's processes) or "ray"
    retries: int = 0  # chunks played again after their worker died (Ray)

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


def summarize(match: Match, records: Sequence[DealRecord], seconds: float, workers: int, backend: str = "local",
              retries: int = 0) -> MatchResult:
    """The statistics of a match's records."""
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
        seconds=seconds, workers=workers, records=list(records), backend=backend, retries=retries,
    )


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
    backends = sorted({res.get("backend", "local") for res in results})
    return summarize(match, records, seconds, max(res["workers"] for res in results), "+".join(backends),
                     sum(res.get("retries", 0) for res in results))
