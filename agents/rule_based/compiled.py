"""The compiled rule-based player: :class:`~euchre_env.agents.rule_based.agent.RuleBasedAgent`'s decisions on the
games of a :class:`~euchre_env.envs.vector.VectorEuchre`, many games per call.

    from euchre_env.agents.rule_based.compiled import RuleBasedBatchPolicy, supports
    if supports(venv.rules):
        scripted = RuleBasedBatchPolicy(venv)
        ids = scripted.absolute_actions(games)   # absolute action ids, one per listed game, for its seat to act
        ids = scripted.actions(games, mask, rng)  # the same choices in the env's action frame

A second implementation of the rule-based agent, written for speed (no ``GameState``, no ``InfoState``, no Python per
decision) and proven equal to it by ``tests/differential/test_rule_based_batch_policy_vs_rule_based_agent.py``. The
decisions are C (``agents/rule_based/c/twin.c``, the extension ``euchre_env.agents.rule_based._twin`` that
``pip install`` builds; reference: ``agent.py`` and ``heuristics.py``); this module builds their tables from the
Python agent's (imported, never retyped: :func:`rule_tables`), runs them over a batch of games (on the vector env's
threads from :data:`PARALLEL_FROM` games), and offers them to the env's single-seat whole step as a compiled
decision (:class:`RuleBasedDecision`: a capsule of ``engine.h``'s ``Decision``).

Coverage (:func:`supports`): every preset (``knock``, ``classic``, ``multiplayer``, ``bid``) and the values of each
option its declaration says the twin covers (``Option.twin`` in :mod:`euchre_env.game.rules`: every value of every
option today). Rules outside that make :func:`supports` False: callers fall back to the Python agent, and
:meth:`RuleBasedAgent.batch_twin <euchre_env.agents.rule_based.agent.RuleBasedAgent.batch_twin>` warns, naming the
option. Speed: ``experiments/bench_rule_decisions.py``.
"""

from __future__ import annotations

import itertools
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from euchre_env.agents.rule_based.agent import (
    ALONE_LOSERS,
    DEFEND_ALONE_TRICKS,
    DEFEND_ALONE_TRUMPS,
    FORCED_ALONE_TRICKS,
    HELP_LOSERS,
    _setting,
)
from euchre_env.agents.rule_based.heuristics import (
    ACE_VALUE,
    BARE_KING_VALUE,
    GUARDED_KING_VALUE,
    LENGTH_BONUS,
    SECOND_MASTER_VALUE,
    TRUMP_FLOOR,
    TRUMP_VALUE,
    VOID_VALUE,
    upcard_value,
)
from euchre_env.compiled.layout import CUR, PH
from euchre_env.compiled.native import default_threads, extension, run_slices
from euchre_env.compiled.tables import kernel_tables
from euchre_env.game.actions import BID, HELP, MOON
from euchre_env.game.cards import NUM_SUITS
from euchre_env.game.phases import Phase
from euchre_env.game.rules import ANY, OPTIONS, Rules

if TYPE_CHECKING:
    from euchre_env.envs.vector import VectorEuchre

EXTENSION = "agents.rule_based._twin"  # euchre_env.agents.rule_based._twin, built from agents/rule_based/c/twin.c


@cache
def _native() -> ModuleType:
    """The C extension (:class:`~euchre_env.compiled.native.NotBuiltError` in one line when it is not built)."""
    return extension(EXTENSION)


class RuleTables(NamedTuple):
    """The agent's tables and weights for one rule set, as twin.c's ``Policy`` takes them (:func:`rule_tables`)."""

    ids: np.ndarray  # int64 [14]: the action table's blocks (twin.c's A_*; -1: absent)
    iopt: np.ndarray  # int64 [4]: tricks, card ids, copies, DEFEND_ALONE_TRUMPS (twin.c's I_*)
    level: np.ndarray  # int64 [actions]: plain bid level of each id (-1: not a plain bid)
    eff: np.ndarray  # int64 [5, cards]: suit_tables' effective suits, under trump - 1 .. 3
    power: np.ndarray  # int64 [4, cards]: suit_tables' powers
    ranking: np.ndarray  # int64 [4, 4, width]: SuitTables.ranking, padded with -1
    rlen: np.ndarray  # int64 [4, 4]: each ranking's length
    upval: np.ndarray  # float64 [4, cards]: upcard_value, tabulated
    w: np.ndarray  # float64 [12]: thresholds and scalar weights (twin.c's W_*)
    trump_value: np.ndarray  # float64: heuristics.TRUMP_VALUE
    ace_value: np.ndarray  # float64 [3]: heuristics.ACE_VALUE


PARALLEL_FROM = 256  # fewer games than this are decided on the caller's thread: handing out slices costs more


def supports(rules: Rules) -> bool:
    """Whether :class:`RuleBasedBatchPolicy` covers ``rules`` (otherwise use :class:`RuleBasedAgent`)."""
    return not not_covered(rules)


def not_covered(rules: Rules) -> list[str]:
    """The options of ``rules`` whose value this port does not cover (their declarations' ``twin``)."""
    return [name for name, spec in OPTIONS.items() if spec.twin != ANY and getattr(rules, name) not in spec.twin]


def rule_tables(rules: Rules) -> RuleTables:
    """The compiled decisions' tables for ``rules``, from the Python agent's own tables and targets."""
    T = _setting(rules)
    table, cards = T.table, T.cards
    n = cards.n_ids
    ids = np.array([table.pass_id, table.order_id, table.order_alone_id, table.name_base, table.name_alone_base,
                    table.defend_id, table.discard_base, table.play_base, table.bid_base, len(table.bid_levels),
                    table.give_base, table.ace_no_face_id, _bid_id(table, HELP), _bid_id(table, MOON)], np.int64)
    iopt = np.array([T.tricks, n, cards.copies, DEFEND_ALONE_TRUMPS], np.int64)
    level = np.array([a.arg if a.kind == BID and a.arg not in (HELP, MOON) else -1 for a in table.actions], np.int64)
    w = np.array([T.partner_share, T.call_target, ALONE_LOSERS, HELP_LOSERS, DEFEND_ALONE_TRICKS,
                  FORCED_ALONE_TRICKS, TRUMP_FLOOR, LENGTH_BONUS, SECOND_MASTER_VALUE, GUARDED_KING_VALUE,
                  BARE_KING_VALUE, VOID_VALUE], np.float64)
    ranking, rlen = _ranking_arrays(cards)
    # upcard_value itself, tabulated: [trump, card] for every card of the trump suit (0 elsewhere, never read)
    upval = np.zeros((NUM_SUITS, n), np.float64)
    for t in range(NUM_SUITS):
        for c in range(n):
            if cards.suits[t][c] == t:
                upval[t, c] = upcard_value(cards.deck, c, t)
    return RuleTables(ids, iopt, level, np.array([cards.suits[t] for t in range(-1, NUM_SUITS)], np.int64),
                      np.array([cards.power[t] for t in range(NUM_SUITS)], np.int64), ranking, rlen, upval, w,
                      np.array(TRUMP_VALUE, np.float64), np.array(ACE_VALUE, np.float64))


class RuleBasedBatchPolicy:
    """``RuleBasedAgent().act`` for the seat to act in many games of ``venv`` at once: the rule-based agent's batch
    policy (:class:`~euchre_env.agents.base.BatchPolicy`: :meth:`actions` in the vector env's action frame), the
    absolute ids beneath it (:meth:`absolute_actions`), and its compiled decision for the env's whole single-seat
    step (:class:`~euchre_env.agents.base.CompiledDecision`); see the module docstring."""

    deterministic = True

    def __init__(self, venv: VectorEuchre) -> None:
        rules = venv.rules
        missing = not_covered(rules)
        if missing:
            shown = ", ".join(f"{name}={getattr(rules, name)!r}" for name in missing)
            raise ValueError(f"RuleBasedBatchPolicy does not cover the rules option(s) {shown}; use RuleBasedAgent")
        self.venv = venv
        self.tables = rule_tables(rules)
        # The engine's tables for the legal masks (absolute ids, whatever the env's observation).
        self.engine_tables = kernel_tables(rules, "absolute").kernel
        self.threads = 1 if venv.threads == 1 else (venv.threads or default_threads())
        self.policy = _native().Policy(self.tables, self.engine_tables, self.threads)  # a slice a thread

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.venv.to_canonical_batch(games, self.absolute_actions(games))

    def absolute_actions(self, games: np.ndarray) -> np.ndarray:
        """``int64 [len(games)]``: the absolute action id ``RuleBasedAgent().act`` picks for the seat to act in
        each game of ``games`` (indices into the vector env's games)."""
        games = np.asarray(games)
        if games.ndim != 1 or not (np.issubdtype(games.dtype, np.integer) and games.dtype != np.bool_):
            raise ValueError(f"games must be a 1-d array of game indices, got shape {games.shape} of {games.dtype}")
        games = np.ascontiguousarray(games, np.int64)  # what the C reads
        if games.size and (games.min() < 0 or games.max() >= self.venv.num_envs):
            raise ValueError(f"game indices must be in 0..{self.venv.num_envs - 1}, got {games.min()}..{games.max()}")
        out = self._decide(games)
        if games.size and out.min() < 0:
            self.check(games, out)
        return out

    def _decide(self, games: np.ndarray) -> np.ndarray:
        """The decisions of ``games`` (C-ordered int64, checked): each game's legal mask and the agent's action id,
        or a code of twin.c's (:meth:`check`), in one C call a slice."""
        out = np.empty(games.size, np.int64)
        threads = self.threads if games.size >= PARALLEL_FROM else 1
        run_slices(self.policy.decide_games, games.size, threads, self.venv.engine.arrays, games, out)
        return out

    def check(self, games: np.ndarray, codes: np.ndarray) -> None:
        """Raise for the first negative code of ``codes`` (``codes[i]``: game ``games[i]``'s); nothing if none."""
        bad = np.flatnonzero(codes < 0)
        if not bad.size:
            return
        i = int(bad[0])
        g = int(games[i])
        st = self.venv.engine.arrays.st
        where = f"RuleBasedBatchPolicy: game {g}, seat {st[g, CUR]} in phase {Phase(st[g, PH]).name}"
        native = _native()
        if codes[i] == native.NO_ACTION:
            raise ValueError(f"{where}: no legal action (is the hand over?)")
        raise RuntimeError(f"{where}: " + ("a rule chose an illegal action (a bug)" if codes[i] == native.NOT_LEGAL
                                           else "no rule for this phase"))

    def compiled_decision(self) -> RuleBasedDecision:
        return RuleBasedDecision(self)


class RuleBasedDecision:
    """The agent's compiled decision as a driver takes it (:class:`~euchre_env.agents.base.CompiledDecision`).

    ``capsule``: a PyCapsule named ``engine.h``'s ``DECISION_CAPSULE`` (``"euchre_env.decision"``) holding a
    ``Decision``, ``decide(policy, slice, games, g, mask)`` with ``slice`` in ``0 .. slices - 1``; the capsule keeps
    its policy (its own scratch, not the batch policy's) alive. ``check`` explains a negative code."""

    name = "rules"
    parallel_from = PARALLEL_FROM

    def __init__(self, twin: RuleBasedBatchPolicy, slices: int | None = None) -> None:
        self.slices = slices or twin.threads  # slices the driver may use at once (a slice a thread)
        self.policy = _native().Policy(twin.tables, twin.engine_tables, self.slices)
        self.capsule = self.policy.decision()
        self.check = twin.check


def _bid_id(table, level) -> int:
    return table.bid_base + table.bid_levels.index(level) if level in table.bid_levels else -1


def _ranking_arrays(cards) -> tuple[np.ndarray, np.ndarray]:
    """``SuitTables.ranking`` as ``[trump, suit, i]`` (padded with -1) and the length of each list."""
    width = max(len(r) for t in range(NUM_SUITS) for r in cards.ranking[t].values())
    ks_mask = _native().KS_MASK
    if width > ks_mask:  # twin.c's walk packs a count (at most the ranking's length) per held card into 64 bits
        raise RuntimeError(f"a suit ranking of {width} cards is longer than the {ks_mask} twin.c's walk can pack")
    ranking = np.full((NUM_SUITS, NUM_SUITS, width), -1, np.int64)
    rlen = np.zeros((NUM_SUITS, NUM_SUITS), np.int64)
    for t in range(NUM_SUITS):
        for s in range(NUM_SUITS):
            r = cards.ranking[t][s]
            # twin.c walks a card's copies as one run (heuristics._walk counts them): they must be adjacent.
            if len({c for c, _ in itertools.groupby(r)}) != len(list(itertools.groupby(r))):
                raise RuntimeError(f"suit_tables ranking[{t}][{s}] does not list a card's copies together: {r}")
            ranking[t, s, :len(r)] = r
            rlen[t, s] = len(r)
    return ranking, rlen


__all__ = ["RuleBasedBatchPolicy", "RuleBasedDecision", "RuleTables", "rule_tables", "supports"]
