"""Reports of matches and ladders: number formats, markdown tables, and the JSON / CSV / PNG files."""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from euchre_env.evaluation.ladder import LadderResult
from euchre_env.evaluation.match import DealRecord
from euchre_env.evaluation.results import MatchResult


# ---------------------------------------------------------------------------------- numbers
def _finite(*xs: float | None) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def fmt_signed(x: float | None) -> str:
    return f"{x:+.3f}" if _finite(x) else "n/a"


def fmt_interval(lo: float | None, hi: float | None) -> str:
    return f"[{lo:+.3f}, {hi:+.3f}]" if _finite(lo, hi) else "n/a"


def fmt_pct(x: float | None) -> str:
    return f"{100 * x:.1f}%" if _finite(x) else "n/a"


def fmt_pct_interval(lo: float | None, hi: float | None) -> str:
    return f"[{100 * lo:.1f}%, {100 * hi:.1f}%]" if _finite(lo, hi) else "n/a"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- match tables
MATCH_HEADERS = ("A", "B", "deals", "hands", "margin A-B (pts/hand)", "95% CI", "A points share",
                 "games", "A win rate", "95% CI (Wilson)", "time")
GAME_HEADERS = ("games", "A win rate", "95% CI (Wilson)")  # game mode only


def match_row(r: MatchResult) -> list[str]:
    """A row under :data:`MATCH_HEADERS` ("-" in the game columns of a hand-mode match)."""
    game = r.episode == "game"
    return [
        r.agent_a, r.agent_b, str(r.deals), str(r.hands), fmt_signed(r.margin),
        fmt_interval(r.margin_low, r.margin_high), fmt_pct(r.points_share),
        str(r.games) if game else "-", fmt_pct(r.win_rate) if game else "-",
        fmt_pct_interval(r.win_low, r.win_high) if game else "-", f"{r.seconds:.1f} s",
    ]


def match_table(results: Iterable[MatchResult]) -> str:
    """The matches as a markdown table; the game columns only when a match was played in games."""
    results = list(results)
    keep = [i for i, h in enumerate(MATCH_HEADERS)
            if h not in GAME_HEADERS or any(r.episode == "game" for r in results)]
    rows = [[row[i] for i in keep] for row in map(match_row, results)]
    return markdown_table([MATCH_HEADERS[i] for i in keep], rows)


# ---------------------------------------------------------------------------------- ladder tables
def _rating_interval(lo: float, hi: float) -> str:
    return f"[{lo:+.0f}, {hi:+.0f}]" if _finite(lo, hi) else "n/a"


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


def _write_json(data: Any, path: str) -> None:
    with open(path, "w") as f:
        json.dump(jsonable(data), f, indent=2)


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
    _write_json(result.to_dict(), paths[0])
    write_summary_csv([result.summary()], paths[1])
    with open(paths[2], "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(DealRecord._fields)
        writer.writerows(result.records)
    return paths


def write_ladder(result: LadderResult, out_dir: str, plot: bool = True) -> list[str]:
    """ladder.json (everything), ladder.csv (ratings), matches.csv (one row per pairing) and
    ladder.png (when ``plot``; needs matplotlib). Returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = [os.path.join(out_dir, name) for name in ("ladder.json", "ladder.csv", "matches.csv")]
    summary = result.summary()
    _write_json(summary, written[0])
    with open(written[1], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(summary["ratings"][0]))
        writer.writeheader()
        writer.writerows(summary["ratings"])
    write_summary_csv([m.summary() for m in result.matches], written[2])
    if plot:
        written.append(os.path.join(out_dir, "ladder.png"))
        plot_ladder(result, written[-1])
    return written


def plot_ladder(result: LadderResult, path: str) -> None:
    """A horizontal plot of the ratings with their bootstrap intervals (matplotlib, Agg)."""
    import matplotlib  # imported here: slow to import, and only the plot needs it

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
