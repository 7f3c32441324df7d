"""The one entry point for a duplicate match: :func:`evaluate`.

``evaluate("rules", "random", "knock", n=1000)`` plays 1000 duplicate deals of A against B
(:mod:`.match`), in worker processes (:mod:`.pool`), and returns their statistics
(:class:`~euchre_env.evaluation.results.MatchResult`): the points-per-hand margin of A over
B with a 95% interval over duplicate pairs, A's share of the points, and in game mode A's
game win rate with a Wilson interval.
"""

from __future__ import annotations

import sys
import time

from euchre_env.evaluation.match import AgentSpec, Match, spec_name
from euchre_env.evaluation.pool import chunk_bounds, play_match
from euchre_env.evaluation.progress import Progress
from euchre_env.evaluation.results import MatchResult, summarize
from euchre_env.game.rules import Rules

# Match and play_match stay importable from here (older scripts and tests import them from this module).
__all__ = ["Match", "MatchResult", "evaluate", "play_match"]

BACKENDS = ("local", "ray")


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
    leave: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> MatchResult:
    """A duplicate match of ``n`` pairs (deals, or games with ``episode="game"``) of A against B.

    ``progress``: True draws a bar on stderr (with the live margin) for runs over a second, None
    does so only when stderr is a terminal, False never. ``first``: play the pairs
    ``first .. first+n-1`` (a long match split into runs; see ``merge_results``). ``leave=False``
    erases the bar at the end (the trainer's periodic evaluations, which log a line of their own).
    ``backend="ray"`` plays the chunks as Ray tasks (:mod:`.ray_backend`; ``address``: None starts a local
    instance with ``workers`` CPUs, ``"auto"`` or ``HOST:PORT`` joins a cluster); the records are the same.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("an address is for backend='ray' (a Ray cluster)")
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    match = Match(agent_a, agent_b, rules, episode, seed)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        unit = "deals" if episode == "hand" else "game pairs"
        bar = Progress(n, f"{spec_name(agent_a)} vs {spec_name(agent_b)}", unit, leave=leave)
    start = time.perf_counter()
    if backend == "local":
        records = play_match(match, n, workers, chunk, bar, first)
        return summarize(match, records, time.perf_counter() - start, workers)
    from euchre_env.evaluation.ray_backend import connect, play_match_ray  # Ray: only for this backend

    cpus = connect(address, workers)
    bounds = chunk_bounds(n, cpus, episode, chunk, first)
    records, retries = play_match_ray(match, bounds, bar)
    return summarize(match, records, time.perf_counter() - start, cpus, "ray", retries)
