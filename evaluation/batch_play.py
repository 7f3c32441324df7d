"""The deals of a hand match played all at once on :class:`~euchre_env.envs.vector.VectorEuchre`.

:meth:`MatchRunner.play_deals <euchre_env.evaluation.match.MatchRunner.play_deals>` uses it for matches of
single hands between agents that do not search: each deal of the range is two games of the batch (play 0 and
play 1, the same cards), every game steps at once, and a side whose agent has a deterministic compiled twin (the
agent protocol's ``batch_twin``: the rule-based agent's kernels, a greedy network's one forward pass over the
seats it encodes with the compiled observer) decides all its games in one call, with the choices the agent
itself makes (each twin is proven equal to its agent). Every other agent is asked as in the one-by-one path, through
:func:`~euchre_env.views.decision.ask_agent` on a reference ``GameState`` kept in step with its game
(:class:`~euchre_env.envs.mirror.MirroredAgents`), with its own instance per game and seat, reset with the same seed
(:mod:`.streams`). The deals, the agents' seeds and their inputs are those of the one-by-one path, so a seeded match
gives the same records on either (``tests/differential/test_batch_play_vs_match.py`` checks it). It imports what
both paths share from :mod:`.duplicate`, never :mod:`.match`, which imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from euchre_env.agents.base import batch_twin
from euchre_env.envs.mirror import MirroredAgents
from euchre_env.envs.vector import VectorEuchre
from euchre_env.evaluation.duplicate import DealRecord, Match, build_agent, hand_deal, spec_name
from euchre_env.evaluation.streams import agent_seed, deal_seed
from euchre_env.game.engine import team_margin
from euchre_env.game.seats import NUM_SEATS, other_team, team_of


def deterministic_twin(agent: Any, rules: Any) -> Any:
    """``agent``'s compiled twin under ``rules`` when its choices depend on the game alone (the rule-based
    agent's), else None: only such a twin gives the records the agent itself would give."""
    twin = batch_twin(agent, rules)
    return twin if twin is not None and twin.deterministic else None


def batched(agent: Any, rules: Any) -> bool:
    """Whether a side of ``agent`` decides all its games at once here (it has a deterministic twin)."""
    return deterministic_twin(agent, rules) is not None


def play_hand_deals(match: Match, sides: Sequence[Any], start: int, stop: int) -> list[DealRecord]:
    """The :class:`~euchre_env.evaluation.duplicate.DealRecord` of deals ``start..stop`` of ``match``, a hand match;
    ``sides``: an agent of A and one of B (their twins and rules checks; every game and seat gets its own instance
    of a side asked through :class:`~euchre_env.envs.mirror.MirroredAgents`, given the absolute observation of the
    match's rules)."""
    rules = match.rules
    specs = (match.agent_a, match.agent_b)
    names = tuple(spec_name(spec) for spec in specs)
    for side in (0, 1):
        check = getattr(sides[side], "check_rules", None)
        if check is not None:
            check(rules)  # what a network's first act() would check: the rules it was trained on
    twins = [deterministic_twin(sides[side], rules) for side in (0, 1)]
    compiled = [twin is not None for twin in twins]
    indices = list(range(start, stop))
    deals = [hand_deal(rules, deal_seed(match.seed, i), i % NUM_SEATS) for i in indices]
    games = 2 * len(indices)  # game 2k + p: deal indices[k], play p (play p: A holds team p)
    sides_of = np.array([[0 if team_of(seat) == g % 2 else 1 for seat in range(NUM_SEATS)] for g in range(games)])
    venv = VectorEuchre(rules, games, observation="none", episode="hand", copy=False, threads=1)
    _, mask, seat = venv.reset(options={"deals": [d for d in deals for _ in (0, 1)]})
    mirror = MirroredAgents(venv)
    for g in range(games):
        index, play = indices[g // 2], g % 2
        seated = []
        for s in range(NUM_SEATS):
            side = sides_of[g, s]
            agent = None if compiled[side] else build_agent(specs[side], None)
            if agent is not None:
                agent.reset(agent_seed(match.seed, index, play, s))
            seated.append(agent)
        mirror.start(g, seated, [names[side] for side in sides_of[g]])
    policies = [twin(venv) if twin is not None else None for twin in twins]
    live = np.ones(games, bool)
    points = [None] * games
    while live.any():
        actions = mask.argmax(1)
        side_now = sides_of[np.arange(games), seat]
        for side in (0, 1):
            if not compiled[side]:
                continue
            rows = np.flatnonzero(live & (side_now == side) & (mask.sum(1) > 1))
            if rows.size:
                actions[rows] = policies[side].actions(rows, mask[rows], None)
        for g in np.flatnonzero(live).tolist():
            if mirror.agent(g, seat[g]) is not None:
                actions[g] = mirror.decide(g)
        absolute = venv.to_absolute(actions)
        _, mask, seat, _, done, info = venv.step(actions)
        stepped = np.flatnonzero(live)
        mirror.follow(stepped, absolute[stepped])
        for g in np.flatnonzero(live & done):
            points[g] = info["hand_result"][g]["points"]
            live[g] = False
    records = []
    for k, index in enumerate(indices):
        diffs, a_points, b_points = [0, 0], 0, 0
        for play in (0, 1):
            pts = points[2 * k + play]
            pa, pb = pts[play], pts[other_team(play)]
            diffs[play] = team_margin(pts, play)
            a_points += max(pa, 0) + max(-pb, 0)
            b_points += max(pb, 0) + max(-pa, 0)
        records.append(DealRecord(index, diffs[0], diffs[1], 1, 1, a_points, b_points, -1))
    return records
