"""A rating ladder: a round robin of duplicate matches and a Bradley-Terry fit.

Every pair of agents plays one duplicate match (:func:`~euchre_env.evaluation.evaluate.evaluate`),
all matches with the same master seed and so on the same deals. Each duplicate pair (a deal
played twice with the teams swapped; in game mode, two games from the same seed) is one
"board": a win for the agent that scored more points over its two plays (game mode: won both
games), a tie when even.

Ratings come from a Bradley-Terry model fitted to the board results, ties counting half a
win, with one virtual tied board added to every pairing so that an agent winning every board
still gets a finite rating. They are on the Elo scale (a 400-point gap means 10:1 odds of
winning a board) and **anchored at the first listed agent = 0**. The 95% intervals are
bootstrap percentiles: the deals are resampled with replacement (the same resampled deals for
every pairing, since the pairings share their deals) and the model refitted; the anchor's
interval is therefore [0, 0] and the others' are relative to it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from euchre_env.evaluation.evaluate import evaluate
from euchre_env.evaluation.match import AgentSpec, spec_name
from euchre_env.evaluation.results import MatchResult
from euchre_env.evaluation.stats import bradley_terry
from euchre_env.evaluation.streams import bootstrap_seed
from euchre_env.game.rules import Rules


@dataclass
class LadderResult:
    agents: list[str]
    rules: dict[str, Any]
    episode: str
    seed: int
    deals: int
    bootstrap: int
    ratings: list[float]
    low: list[float]
    high: list[float]
    record: list[tuple[int, int, int]]  # boards won, tied, lost by each agent, all pairings
    margin_vs_field: list[float]  # mean of the agent's points-per-hand margins over its matches
    matches: list[MatchResult] = field(repr=False)
    pair_index: list[tuple[int, int]] = field(repr=False)  # (i, j) of each match, i < j
    seconds: float = 0.0
    anchor: str = "first agent = 0"

    def order(self) -> list[int]:
        return sorted(range(len(self.agents)), key=lambda i: -self.ratings[i])

    def summary(self) -> dict[str, Any]:
        rows = [
            {"agent": a, "rating": self.ratings[i], "low": self.low[i], "high": self.high[i],
             "boards_won": self.record[i][0], "boards_tied": self.record[i][1], "boards_lost": self.record[i][2],
             "margin_vs_field": self.margin_vs_field[i]}
            for i, a in enumerate(self.agents)
        ]
        return {
            "agents": self.agents, "rules": self.rules, "episode": self.episode, "seed": self.seed,
            "deals": self.deals, "bootstrap": self.bootstrap, "seconds": self.seconds,
            "model": "Bradley-Terry on duplicate boards (ties = half), Elo scale, one virtual tied board per pairing",
            "anchor": self.anchor, "ratings": rows,
            "matches": [m.summary() for m in self.matches],
        }


def _labels(specs: Sequence[AgentSpec]) -> list[str]:
    """Spec names, made unique with #2, #3, ... when the same spec is listed twice."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        name = spec_name(s)
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def run_ladder(
    specs: Sequence[AgentSpec],
    rules: Rules | str = "knock",
    n: int = 1000,
    seed: int = 0,
    episode: str = "hand",
    workers: int = 2,
    bootstrap: int = 200,
    progress: bool | None = False,
    backend: str = "local",
    address: str | None = None,
) -> LadderResult:
    """Round robin of duplicate matches (``n`` pairs each) and Bradley-Terry ratings."""
    if len(specs) < 2:
        raise ValueError(f"a ladder needs at least two agents, got {len(specs)}")
    if not isinstance(bootstrap, int) or bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative int, got {bootstrap!r}")
    labels = _labels(specs)
    k = len(specs)
    start = time.perf_counter()
    matches: list[MatchResult] = []
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    for i, j in pairs:
        m = evaluate(specs[i], specs[j], rules, n, seed, episode, workers, progress=progress, backend=backend,
                     address=address)
        m.agent_a, m.agent_b = labels[i], labels[j]
        matches.append(m)
    outcomes = [m.outcomes() for m in matches]

    def fit(weights: np.ndarray) -> np.ndarray:
        scores = np.zeros((k, k))
        boards = np.zeros((k, k))
        total = weights.sum()
        for (i, j), o in zip(pairs, outcomes):
            s = float(weights @ o)
            scores[i, j], scores[j, i] = s, total - s
            boards[i, j] = boards[j, i] = total
        return bradley_terry(scores, boards)

    ratings = fit(np.ones(n))
    low, high = [math.nan] * k, [math.nan] * k
    if bootstrap > 0:
        rng = np.random.default_rng(bootstrap_seed(seed, n))
        samples = np.array([fit(np.bincount(rng.integers(n, size=n), minlength=n).astype(float))
                            for _ in range(bootstrap)])
        low = list(np.percentile(samples, 2.5, axis=0))
        high = list(np.percentile(samples, 97.5, axis=0))
    record = [[0, 0, 0] for _ in range(k)]
    margins: list[list[float]] = [[] for _ in range(k)]
    for (i, j), o, m in zip(pairs, outcomes, matches):
        won, tied, lost = int((o == 1).sum()), int((o == 0.5).sum()), int((o == 0).sum())
        record[i] = [record[i][0] + won, record[i][1] + tied, record[i][2] + lost]
        record[j] = [record[j][0] + lost, record[j][1] + tied, record[j][2] + won]
        margins[i].append(m.margin)
        margins[j].append(-m.margin)
    return LadderResult(
        agents=labels, rules=matches[0].rules, episode=episode, seed=seed, deals=n, bootstrap=bootstrap,
        ratings=[float(r) for r in ratings], low=[float(x) for x in low], high=[float(x) for x in high],
        record=[(a, b, c) for a, b, c in record], margin_vs_field=[float(np.mean(x)) for x in margins],
        matches=matches, pair_index=pairs, seconds=time.perf_counter() - start,
    )
