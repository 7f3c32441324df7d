"""The deals of a hand match played all at once on :class:`~euchre_env.envs.vector.VectorEuchre`.

:meth:`MatchRunner.play_deals <euchre_env.evaluation.match.MatchRunner.play_deals>` uses it for matches of
single hands between agents that do not search: each deal of the range is two games of the batch (play 0 and
play 1, the same cards), every game steps at once, and a greedy :class:`~euchre_env.agents.neural.agent.NeuralAgent`
side decides all its games in one forward pass, on the batch's own observations (exactly the env's, so exactly
what the agent would encode for itself), and a rule-based side all its games in one call of its compiled copy
(:class:`~euchre_env.agents.rule_based.compiled.RuleBasedVector`, the same choices, on the batch's arrays). Every
other agent is asked as in the one-by-one path, through
:func:`~euchre_env.views.decision.ask_agent` on a reference ``GameState`` kept in step with its game, with its own
instance per game and seat, reset with the same seed (:mod:`.seeds`). The deals, the agents' seeds and their
inputs are those of the one-by-one path, so a seeded match gives the same records on either
(``tests/evaluation/test_evaluate.py`` checks it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from euchre_env.agents.base import batch_twin
from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.envs.vector import VectorEuchre
from euchre_env.evaluation.streams import agent_seed, deal_seed
from euchre_env.game.engine import GameState, team_margin
from euchre_env.game.seats import NUM_SEATS, other_team, team_of
from euchre_env.views.decision import ask_agent


def batched_network(agent: Any) -> NeuralAgent | None:
    """``agent`` when its decisions can be batched (a greedy network), else None."""
    return agent if isinstance(agent, NeuralAgent) and agent.greedy else None


def deterministic_twin(agent: Any, rules: Any) -> Any:
    """``agent``'s compiled twin under ``rules`` when its choices depend on the game alone (the rule-based
    agent's), else None: only such a twin gives the records the agent itself would give."""
    twin = batch_twin(agent, rules)
    return twin if twin is not None and twin.deterministic else None


def batched(agent: Any, rules: Any) -> bool:
    """Whether a side of ``agent`` decides all its games at once here (a greedy network, a deterministic twin)."""
    return batched_network(agent) is not None or deterministic_twin(agent, rules) is not None


def play_hand_deals(runner: Any, start: int, stop: int) -> list[Any]:
    """The :class:`~euchre_env.evaluation.match.DealRecord` of deals ``start..stop`` of ``runner``'s hand match."""
    from euchre_env.evaluation.match import DealRecord, build_agent, hand_deal  # the match module imports this one

    m = runner.match
    rules = runner.rules
    specs = (m.agent_a, m.agent_b)
    networks = [batched_network(runner.agents[side][0]) for side in (0, 1)]
    observation = next((net.observation for net in networks if net is not None), "none")
    on_network = [net is not None and net.observation == observation for net in networks]
    for net, used in zip(networks, on_network):
        if used:
            net.check_rules(rules)  # what its first act() would check
    twins = [None if used else deterministic_twin(runner.agents[side][0], rules)
             for side, used in enumerate(on_network)]
    compiled = [twin is not None for twin in twins]
    indices = list(range(start, stop))
    deals = [hand_deal(rules, deal_seed(m.seed, i), i % NUM_SEATS) for i in indices]
    games = 2 * len(indices)  # game 2k + p: deal indices[k], play p (play p: A holds team p)
    sides = np.array([[0 if team_of(seat) == g % 2 else 1 for seat in range(NUM_SEATS)] for g in range(games)])
    agents: list[list[Any]] = []
    mirrors: list[GameState | None] = []
    for g in range(games):
        index, play = indices[g // 2], g % 2
        seated = []
        for seat in range(NUM_SEATS):
            side = sides[g, seat]
            agent = None if on_network[side] or compiled[side] else build_agent(specs[side], None)
            if agent is not None:
                agent.reset(agent_seed(m.seed, index, play, seat))
            seated.append(agent)
        agents.append(seated)
        needs_state = any(a is not None for a in seated)
        mirrors.append(GameState(rules, np.random.default_rng(deal_seed(m.seed, index)), deal=deals[g // 2])
                       if needs_state else None)
    venv = VectorEuchre(rules, games, observation=observation, episode="hand", copy=False, threads=1)
    obs, mask, seat = venv.reset(options={"deals": [d for d in deals for _ in (0, 1)]})
    policies = [twin(venv) if twin is not None else None for twin in twins]
    live = np.ones(games, bool)
    points = [None] * games
    while live.any():
        actions = mask.argmax(1)
        side_now = sides[np.arange(games), seat]
        for side in (0, 1):
            if not (on_network[side] or compiled[side]):
                continue
            rows = np.flatnonzero(live & (side_now == side) & (mask.sum(1) > 1))
            if not rows.size:
                continue
            if compiled[side]:
                actions[rows] = policies[side].actions(rows, mask[rows], None)
                continue
            net = networks[side].model
            with torch.no_grad():
                logits = net.masked_logits(torch.from_numpy(obs[rows]), torch.from_numpy(mask[rows]))
            actions[rows] = logits.argmax(-1).numpy()
        for g in np.flatnonzero(live):
            agent = agents[g][seat[g]]
            if agent is not None:
                side = side_now[g]
                actions[g] = venv.to_canonical(g, ask_agent(agent, mirrors[g], runner.observer, runner.names[side]))
        absolute = venv.to_absolute(actions)
        obs, mask, seat, _, done, info = venv.step(actions)
        for g in np.flatnonzero(live):
            if mirrors[g] is not None:
                mirrors[g].apply(int(absolute[g]))
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
