"""The statistics of matches and ladders: quantiles and intervals from SciPy, Bradley-Terry ratings.

A match's margin is a ratio, points over hands, summed over independent duplicate pairs: its
interval is the delta-method standard error with a Student-t quantile (:func:`ratio_ci`). Game
win rates get a Wilson score interval. Ladders rate agents with a Bradley-Terry model on the
Elo scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

ELO_SCALE = 400.0 / math.log(10.0)  # rating = ELO_SCALE * ln(strength)


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal distribution."""
    return float(stats.norm.ppf(p))


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (p > 0.5) of Student's t with ``df`` degrees of freedom."""
    if not 0.5 < p < 1:
        raise ValueError(f"p must be in (0.5, 1), got {p}")
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    return float(stats.t.ppf(p, df))


def ratio_half_width(ss: float, n: int, mean_den: float, level: float = 0.95) -> float:
    """Half-width of the t interval of a ratio over ``n`` units (nan for n < 2).

    ``ss``: the sum of squared residuals ``(num - r * den)**2``; ``mean_den``: the mean
    denominator. The standard error is the delta method's, ``sqrt(ss / (n - 1) / n) / mean_den``.
    """
    if n < 2:
        return math.nan
    se = math.sqrt(max(ss, 0.0) / (n - 1) / n) / mean_den
    return t_quantile((1 + level) / 2, n - 1) * se


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
    half = ratio_half_width(float(resid @ resid), n, float(h.mean()), level)
    return r, r - half, r + half


def mean_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` with a Student-t interval: (mean, low, high); nan bounds for n < 2."""
    x = np.asarray(values, dtype=float)
    return ratio_ci(x, np.ones_like(x), level)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n``; (nan, nan) when n == 0.

    The bounds are exactly 0 when k == 0 and exactly 1 when k == n.
    """
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    low = 0.0 if k == 0 else max(0.0, float(ci.low))
    high = 1.0 if k == n else min(1.0, float(ci.high))
    return low, high


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
