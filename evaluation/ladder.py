"""A rating ladder: a round robin of duplicate matches and a Bradley-Terry fit.

Every pair of agents plays one duplicate match (:mod:`euchre_env.evaluation.evaluate`), all matches with
the same master seed and so on the same deals. Each duplicate pair (a deal played twice with
the teams swapped; in game mode, two games from the same seed) is one "board": a win for the
agent that scored more points over its two plays (game mode: won both games), a tie when even.

Ratings come from a Bradley-Terry model fitted to the board results, ties counting half a
win, with one virtual tied board added to every pairing so that an agent winning every board
still gets a finite rating. They are on the Elo scale (a 400-point gap means 10:1 odds of
winning a board) and **anchored at the first listed agent = 0**. The 95% intervals are
bootstrap percentiles: the deals are resampled with replacement (the same resampled deals for
every pairing, since the pairings share their deals) and the model refitted; the anchor's
interval is therefore [0, 0] and the others' are relative to it.
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from euchre_env.evaluation.evaluate import (
    AgentSpec,
    MatchResult,
    derive_seed,
    evaluate,
    fmt_signed,
    jsonable,
    markdown_table,
    match_table,
    spec_name,
    write_summary_csv,
)

ELO_SCALE = 400.0 / math.log(10.0)  # rating = ELO_SCALE * ln(strength)
_TAG_BOOTSTRAP = 2


def bradley_terry(scores: np.ndarray, boards: np.ndarray, prior: float = 1.0, tol: float = 1e-10,
                  max_iter: int = 10_000) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings, the first agent anchored at 0.

    ``scores[i, j]``: boards i won against j (ties as one half); ``boards[i, j]``: boards i and
    j played (symmetric). ``prior`` virtual tied boards are added to every pairing that played.
    Fitted by the minorization-maximization iteration of Hunter (2004).
    """
    k = scores.shape[0]
    played = boards > 0
    w = scores + np.where(played, prior / 2, 0.0)
    n = boards + np.where(played, prior, 0.0)
    wins = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(max_iter):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= math.exp(np.log(new).mean())
        done = np.max(np.abs(new - p) / p) < tol
        p = new
        if done:
            break
    ratings = ELO_SCALE * np.log(p)
    return ratings - ratings[0]


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
    rules: Any = "knock",
    n: int = 1000,
    seed: int = 0,
    episode: str = "hand",
    workers: int = 2,
    bootstrap: int = 200,
    progress: bool | None = False,
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
        m = evaluate(specs[i], specs[j], rules, n, seed, episode, workers, progress=progress)
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
        rng = np.random.default_rng(derive_seed(seed, _TAG_BOOTSTRAP, n))
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


# ---------------------------------------------------------------------------------- tables
def ladder_table(result: LadderResult) -> str:
    rows = []
    for rank, i in enumerate(result.order(), 1):
        w, t, loss = result.record[i]
        rows.append([rank, result.agents[i], f"{result.ratings[i]:+.0f}",
                     _rating_interval(result.low[i], result.high[i]), f"{w}-{t}-{loss}",
                     fmt_signed(result.margin_vs_field[i])])
    headers = ("rank", "agent", f"rating (Elo, {result.anchor})", "95% CI (bootstrap)", "boards W-T-L",
               "margin vs field (pts/hand)")
    return markdown_table(headers, rows)


def _rating_interval(lo: float, hi: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    return f"[{lo:+.0f}, {hi:+.0f}]"


def pairwise_table(result: LadderResult) -> str:
    """Margin (points per hand) of the row agent over the column agent."""
    k = len(result.agents)
    grid = [["-"] * k for _ in range(k)]
    for (i, j), m in zip(result.pair_index, result.matches):
        grid[i][j] = fmt_signed(m.margin)
        grid[j][i] = fmt_signed(-m.margin)
    rows = [[a, *grid[i]] for i, a in enumerate(result.agents)]
    return markdown_table(("row vs column", *result.agents), rows)


def ladder_report(result: LadderResult) -> str:
    return "\n\n".join([
        ladder_table(result),
        "Margin of the row agent over the column agent (points per hand):\n\n" + pairwise_table(result),
        "Matches:\n\n" + match_table(result.matches),
    ])


# ---------------------------------------------------------------------------------- files
def write_ladder(result: LadderResult, out_dir: str, plot: bool = True) -> list[str]:
    """ladder.json (everything), ladder.csv (ratings), matches.csv (one row per pairing) and
    ladder.png (when ``plot`` and matplotlib is installed). Returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    path = os.path.join(out_dir, "ladder.json")
    with open(path, "w") as f:
        json.dump(jsonable(result.summary()), f, indent=2)
    written.append(path)
    path = os.path.join(out_dir, "ladder.csv")
    with open(path, "w", newline="") as f:
        rows = result.summary()["ratings"]
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    written.append(path)
    path = os.path.join(out_dir, "matches.csv")
    write_summary_csv([m.summary() for m in result.matches], path)
    written.append(path)
    if plot:
        path = os.path.join(out_dir, "ladder.png")
        plot_ladder(result, path)
        written.append(path)
    return written


def plot_ladder(result: LadderResult, path: str) -> None:
    """A horizontal plot of the ratings with their bootstrap intervals (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = result.order()[::-1]  # best at the top
    y = np.arange(len(order))
    r = np.array([result.ratings[i] for i in order])
    lo = np.array([result.low[i] for i in order])
    hi = np.array([result.high[i] for i in order])
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(order)))
    if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
        err = np.vstack([np.maximum(r - lo, 0), np.maximum(hi - r, 0)])
        ax.errorbar(r, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
    else:
        ax.plot(r, y, "o", color="tab:blue")
    ax.axvline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [result.agents[i] for i in order])
    ax.set_xlabel(f"rating (Elo scale, {result.anchor}); 95% bootstrap intervals")
    unit = "deals" if result.episode == "hand" else "game pairs"
    ax.set_title(f"{result.rules.get('preset_name', '')}: {result.deals} duplicate {unit} per pairing, "
                 f"seed {result.seed}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

