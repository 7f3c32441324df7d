"""Chance-sampled CFR over the calling decisions: the tables of the CFR bidding agent.

    euchre cfr --preset knock --minutes 20 --out tables/knock_cfr.npz          # or --deals N; --resume goes on

What is solved is the calling game of one hand, in the abstraction of
:mod:`euchre_env.agents.search.cfr_bidding`: each iteration samples a deal (chance sampling), builds every path
of abstract calls through it (round one, round two, the defend-alone round, or Bid Euchre's auction; the
dealer's discard, the joker's suit and the help exchange by the rule-based agent, the winning bidder's trump the
auction's candidate suit) and values each path's end by *playing the hand out*: the rule-based agent's
compiled twin plays every card of every path's hand, all the paths of a batch of deals at once on a
:class:`~euchre_env.envs.vector.VectorEuchre`. The leaf value is the hand's points for team 0 minus team 1 (a
thrown-in hand is 0). Then one CFR pass over the deal's tree updates every seat's regrets (regret matching+,
each seat's payoff its team's) and the average strategies (weighted by the iteration, as linear CFR does).

The leaves are played by the rule-based agent, not by PIMC, which the agent plays with: PIMC is thousands of
times slower, and the calls are learned against a fixed, reasonable card play. The four seats are four CFR
players whose payoffs are their team's: the partners' regrets are not coordinated, as in any CFR on a team game.

Reproducible: batch ``b``'s deals and rollouts are drawn from ``default_rng([seed, b])``, and the tables file
records the batches done, so a resumed run (``--resume``) continues exactly where the file left it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from euchre_env.agents.registry import make_agent
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.agents.search.cfr_bidding import COVERED, Tables, abstract_decision, named_trump
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.deals import scripted_deal
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.views.decision import ask_agent
from euchre_env.views.structured import make_observer


@dataclass
class Node:
    """A covered decision of one deal's calling tree: who decides, where in the tables, and each abstract
    action's child (a Node, or the index of a leaf; None where the action is not legal)."""

    seat: int
    infoset: int
    children: list[Any]  # one slot per abstract action of the rule set (cfr_bidding.layout)


class CallingTrees:
    """The calling trees of a batch of deals and the action path to each of their leaves."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.rule_agent = RuleBasedAgent()
        self.observer = make_observer(rules, "absolute")
        self.paths: list[list[int]] = []  # each leaf's actions from the deal
        self.deal_of: list[int] = []  # each leaf's deal
        self.thrown_in: list[bool] = []  # the leaf is a hand thrown in (no play)

    def build(self, state: GameState, deal: int, path: list[int]) -> Node | int:
        """The tree below ``state`` (its calls so far: ``path``); a leaf is an index into ``paths``."""
        while not state.hand_over and state.phase not in COVERED and state.phase != Phase.PLAY:
            if state.phase == Phase.NAME_TRUMP:  # the suit the winning bid was judged on, as the agent names it
                action = named_trump(self.rules, list(state.hands[state.current]))
            else:  # the joker's suit, the dealer's discard, the help exchange: the rule-based agent
                action = ask_agent(self.rule_agent, state, self.observer)
            state.apply(action)
            path = [*path, action]
        if state.hand_over or state.phase == Phase.PLAY:
            self.paths.append(path)
            self.deal_of.append(deal)
            self.thrown_in.append(state.hand_over)
            return len(self.paths) - 1
        legal = state.legal_actions()
        if len(legal) == 1:  # a forced call: not a decision
            state.apply(legal[0])
            return self.build(state, deal, [*path, legal[0]])
        seat = state.current
        d = abstract_decision(self.rules, state.phase, seat, state.dealer, list(state.hands[seat]), state.upcard,
                              state.upcard_suit, state.trump, state.maker, legal, state.contract, state.bidder)
        node = Node(seat, d.infoset, [None] * len(d.concrete))
        for a, concrete in enumerate(d.concrete):
            if concrete >= 0:
                child = state.clone()
                child.apply(concrete)
                node.children[a] = self.build(child, deal, [*path, concrete])
        return node


def leaf_values(rules: Any, deals: list[dict[str, Any]], trees: CallingTrees, rng: np.random.Generator
                ) -> np.ndarray:
    """Team 0's margin at each leaf of ``trees``: its path replayed from its deal, then every card played by the
    rule-based agent's compiled twin, all the leaves at once."""
    values = np.zeros(len(trees.paths))
    played = [i for i, over in enumerate(trees.thrown_in) if not over]
    if not played:
        return values
    venv = VectorEuchre(rules, len(played), observation="none")
    venv.reset(options={"deals": [deals[trees.deal_of[i]] for i in played]})
    observe = np.zeros((len(played), NUM_SEATS), bool)
    paths = [trees.paths[i] for i in played]
    for step in range(max(map(len, paths))):
        games = np.array([g for g, p in enumerate(paths) if len(p) > step], np.int64)
        venv.step_games(games, np.array([paths[g][step] for g in games], np.int64), observe)
    twin = make_agent("rules").batch_twin(rules)(venv)
    every = np.arange(len(played))
    margin = np.zeros(len(played))
    pending = np.ones(len(played), bool)
    while pending.any():
        _, _, _, rewards, _, info = venv.step(twin.actions(every, venv.masks(), rng))
        ended = info["hand_over"] & pending
        margin[ended] = rewards[ended, 0]
        pending &= ~ended
    values[played] = margin
    return values


def _strategy(tables: Tables, node: Node) -> np.ndarray:
    """Regret matching+ at ``node`` over its legal abstract actions."""
    legal = np.array([c is not None for c in node.children])
    positive = np.where(legal, np.maximum(tables.regret[node.infoset], 0.0), 0.0)
    total = positive.sum()
    return positive / total if total > 0 else legal / legal.sum()


def cfr_pass(tables: Tables, node: Node | int, values: np.ndarray, reach: np.ndarray, weight: float,
             updates: dict[int, np.ndarray]) -> float:
    """One CFR pass below ``node`` under the tables' current strategies: team 0's expected value. Each node's
    regret and weighted average-strategy increments are added to ``updates[infoset]`` (``[2, actions]``), applied by
    the caller after the pass, so that an information set met twice in one deal's tree (a defend-alone
    decision after several calls) uses one strategy throughout, as CFR's iteration does. ``reach``: each
    seat's probability of playing to ``node``."""
    if not isinstance(node, Node):
        return float(values[node])
    sigma = _strategy(tables, node)
    child_values = np.zeros(len(node.children))
    for a, child in enumerate(node.children):
        if child is not None:
            next_reach = reach.copy()
            next_reach[node.seat] *= sigma[a]
            child_values[a] = cfr_pass(tables, child, values, next_reach, weight, updates)
    value = float(sigma @ child_values)
    sign = 1.0 if team_of(node.seat) == 0 else -1.0
    others = float(np.prod(np.delete(reach, node.seat)))
    legal = np.array([c is not None for c in node.children])
    delta = updates.setdefault(node.infoset, np.zeros((2, len(node.children))))
    delta[0] += np.where(legal, others * sign * (child_values - value), 0.0)
    delta[1] += weight * reach[node.seat] * sigma
    return value


def apply_updates(tables: Tables, updates: dict[int, np.ndarray]) -> None:
    """Add one pass's increments: regrets clipped at zero afterwards (regret matching+), strategy sums."""
    for infoset, (regret, strategy) in updates.items():
        np.maximum(tables.regret[infoset] + regret, 0.0, out=tables.regret[infoset])
        tables.strategy[infoset] += strategy


def train_batch(tables: Tables) -> float:
    """One batch of deals: build their calling trees, play out every leaf, one CFR pass each. Returns team 0's
    mean value of the batch's deals under the strategies before the update."""
    rules = tables.rules
    rng = np.random.default_rng([tables.seed, tables.batches])
    trees = CallingTrees(rules)
    deals, roots = [], []
    for d in range(tables.batch_size):
        state = GameState(rules, rng)
        upcard = None if rules.is_bid else state.upcard
        deals.append(scripted_deal(state.dealer, [list(h) for h in state.hands], upcard))
        state.rng = None  # the hand is dealt and a calling tree deals no other: its clones need no generator
        roots.append(trees.build(state, d, []))
    values = leaf_values(rules, deals, trees, rng)
    weight = float(tables.batches + 1)  # linear averaging: later, better strategies count more
    total = 0.0
    for root in roots:  # one CFR iteration per deal
        updates: dict[int, np.ndarray] = {}
        total += cfr_pass(tables, root, values, np.ones(NUM_SEATS), weight, updates)
        apply_updates(tables, updates)
    tables.batches += 1
    tables.deals += tables.batch_size
    return total / tables.batch_size


def train(tables: Tables, out: str, deals: int | None = None, minutes: float | None = None,
          progress: bool = True, save_every: float = 60.0) -> Tables:
    """Train ``tables`` until they hold ``deals`` deals or ``minutes`` have passed (whichever is given; both:
    whichever comes first), saving them to ``out`` every ``save_every`` seconds and at the end. On Ctrl-C the
    file keeps the last save (always after a whole batch, so that a resumed run goes on exactly)."""
    from euchre_env.evaluation.progress import progress_bar

    limit = time.monotonic() + (minutes * 60 if minutes else float("inf"))
    bar = progress_bar(deals or 0, "cfr", "deal", enabled=progress, initial=tables.deals if deals else 0,
                       unit_scale=True)
    saved = time.monotonic()
    try:
        while (deals is None or tables.deals < deals) and time.monotonic() < limit:
            train_batch(tables)
            bar.update(tables.batch_size)
            bar.set_postfix_str(f"{tables.reached():,} information sets reached", refresh=False)
            if time.monotonic() - saved > save_every:
                tables.save(out)
                saved = time.monotonic()
    finally:
        bar.close()
    tables.save(out)
    return tables
