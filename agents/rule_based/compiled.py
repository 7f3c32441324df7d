"""The compiled rule-based player: :class:`~euchre_env.agents.rule_based.agent.RuleBasedAgent`'s decisions on the arrays
of :class:`~euchre_env.envs.vector.VectorEuchre`, many games per call.

    from euchre_env.agents.rule_based.compiled import RuleBasedVector, supports
    if supports(venv.rules):
        scripted = RuleBasedVector(venv)
        ids = scripted.actions(games)   # absolute action ids, one per listed game, for its seat to act

This is a second implementation of the rule-based agent, written for speed (no ``GameState``, no ``InfoState``,
no Python per decision) and proven equal to it by
``tests/differential/test_rule_based_vector_vs_rule_based_agent.py`` (every decision with more than one legal
action, in random and in rule-driven games of every preset). It defines no rule of its own: the
Python agent stays the single source of truth, and every kernel below ports one function of
:mod:`euchre_env.agents.rule_based.agent` or :mod:`euchre_env.agents.rule_based.heuristics` (its docstring names it), as
:mod:`euchre_env.compiled.kernels` ports the engine. A change to the heuristics goes into the Python agent
first; the differential test then shows this file what to follow. Only the action is ported, not the reason
strings of ``RuleBasedAgent.explain``.

What the seat knows is what its ``InfoState`` holds, read from the engine's arrays (layout: the docstring of
:mod:`euchre_env.compiled.kernels`): its own hand (``hands[g, seat]``, no other seat's), the up-card and its fate,
its own discard (the dealer), the help exchange (the bidder), the public calls, the cards played and the voids
shown by them (a seat that did not follow the effective suit led, as :func:`euchre_env.views.infostate.shown_voids`).
The legal actions come from the engine's own kernel (:func:`euchre_env.compiled.kernels.observe_games_serial`,
absolute ids). Sums and comparisons of estimates are done in float64 in the Python's order, so that every
threshold test comes out the same, and ties go as Python's ``max`` / ``min`` with the same keys.

Tables and constants come from the Python side, converted once per rule set: the card tables of
:func:`~euchre_env.agents.rule_based.heuristics.suit_tables`, the action table, the thresholds of ``rule_based`` and the
weights of ``heuristics`` (imported, never retyped; only :func:`~euchre_env.agents.rule_based.heuristics.alone_losers`
keeps its numbers inline there, so they are inline here too). They are passed to the kernels as arguments, not
read as globals: Numba freezes a global into the machine code it caches, and its cache is keyed on this file
alone, so a weight changed in ``heuristics.py`` would never reach a cached kernel. For the same reason the
kernels check the engine's state layout they were compiled with against the live one at every call.

Coverage (:func:`supports`): every preset (``knock``, ``classic``, ``multiplayer``, ``bid``) and every option
of :class:`~euchre_env.game.rules.Rules` today (joker, 32-card deck, going alone or not, defend alone, dealer's
partner alone, stick the dealer, renege penalized, rubbers, ace no face, double deck, the scoring options,
which no decision reads). A rules field this file does not know (an option added later) makes
:func:`supports` False, and callers fall back to the Python agent.

The long run of the equality test and the decision times are in docs/results/module_measurements.md
(``python -m tests.differential.test_rule_based_vector_vs_rule_based_agent --decisions 100000``,
``experiments/bench_rule_decisions.py``). The first call on a machine compiles (once per install; docs/compiling.md)
and caches the result, as :mod:`euchre_env.compiled.kernels` does.

Why one module: as for :mod:`euchre_env.compiled.kernels`, Numba's disk cache is checked per source file, and the
decision kernels call one another; split across files, a changed helper would leave its callers' cached machine code
stale.

Why it is written as it is: a call between compiled functions passes each array as a structure and, in a build with
the runtime's reference counting, counts a reference to it on the way in and out, and so does every view of a
game's rows; at a dozen arrays a call that cost more than the decisions' own work. So the kernels of one decision
are inlined (``inline="always"``) into :func:`_decide_one` (0.76 -> 0.61 us a decision with the per-suit rows of
``_play``, -> 0.44 inlined), and the two batch kernels that call it, :func:`_decide_games` and
:func:`_single_seat_step`, allocate nothing (the caller passes their scratch; ``_walk`` packs its counts into an
integer; no slice assignment, which may copy through a temporary) and are built without reference counting
(``two_builds(..., allocates=False)``: 0.44 -> 0.22 us). A kernel called from them is compiled in that build too,
so an allocation anywhere in a decision fails to compile there ("NRT required but not enabled").
:func:`_decide_one` itself stays a call: inlined into the loop as well its parallel and serial builds took 12
minutes to compile instead of about one.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numba
import numpy as np
from numba import njit, prange

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
from euchre_env.compiled import kernels as K
from euchre_env.compiled.builds import SLICES_PER_THREAD, two_builds
from euchre_env.compiled.tables import kernel_tables
from euchre_env.envs import learner_account
from euchre_env.envs.learner_account import LEARNER_END, account_hand, learner_decides
from euchre_env.game.actions import BID, HELP, MOON
from euchre_env.game.cards import NUM_SUITS
from euchre_env.game.phases import Phase
from euchre_env.game.rules import BID as BID_FAMILY
from euchre_env.game.rules import RENEGE_MODES, TURN_UP, Rules

if TYPE_CHECKING:
    from euchre_env.envs.vector import VectorEuchre

# ---- the rules fields this port covers, with the values it covers (None: any value) --------------------
_PORTED: dict[str, tuple | None] = {
    "family": (TURN_UP, BID_FAMILY), "deck": (24, 32), "renege": RENEGE_MODES, "joker": None,
    "stick_the_dealer": None, "lone_maker": None, "defend_alone": None, "dealer_partner_must_go_alone": None,
    "ace_no_face": None, "double_deck": None,
    # Scores, targets and rubbers never enter a decision of the agent.
    "game_target": None, "rubber": None, "minus_target_loses": None, "preset_name": None,
}

# ---- ids[:]: action ids of the table's blocks (-1: absent) ---------------------------------------------
(A_PASS, A_ORDER, A_ORDER_ALONE, A_NAME, A_NAME_ALONE, A_DEFEND, A_DISCARD, A_PLAY, A_BID, A_NBIDS, A_GIVE, A_ANF,
 A_HELP, A_MOON) = range(14)
# ---- iopt[:]: integers of the rule set and the agent -----------------------------------------------------
I_TRICKS, I_NIDS, I_COPIES, I_DEFEND_TRUMPS = range(4)
# ---- w[:]: the agent's float thresholds and the estimate's scalar weights -------------------------------
(W_PARTNER, W_TARGET, W_ALONE_LOSERS, W_HELP_LOSERS, W_DEFEND_TRICKS, W_FORCED, W_FLOOR, W_LENGTH, W_SECOND,
 W_GUARDED, W_BARE, W_VOID) = range(12)

# The engine's layout as the kernels below read it (fields of st, phases), compiled into them: checked against
# the live values at every call, since a renumbering in compiled/kernels.py would not refresh this file's cache.
_LAYOUT = (K.PH, K.CUR, K.DEALER, K.UP, K.UPSUIT, K.UPTAKEN, K.TRUMP, K.MAKER, K.OUT, K.DISC, K.NTR, K.NCUR,
           K.CONTRACT, K.BIDDER, K.GIVEN, K.JOKER_SUIT, K.CALL1, K.DISCARD, K.CALL2, K.DEFEND, K.AUCTION,
           K.NAME_TRUMP, K.GIVE, K.GIVE_BACK, K.PLAY)
PH, CUR, DEALER, UP, UPSUIT, UPTAKEN, TRUMP, MAKER, OUT, DISC, NTR, NCUR, CONTRACT, BIDDER, GIVEN = _LAYOUT[:15]
JOKER_SUIT, CALL1, DISCARD, CALL2, DEFEND, AUCTION, NAME_TRUMP, GIVE, GIVE_BACK, PLAY = _LAYOUT[15:]

# What a game's answer may be besides an action id (the wrapper turns them into exceptions).
NO_ACTION, NOT_LEGAL, NO_RULE, STALE = -1, -2, -3, -4
PARALLEL_FROM = 256  # fewer games than this are decided on the caller's thread: a parallel region costs more
KS_BITS, KS_MASK = 4, 15  # _walk's counts, packed into one integer: a suit's ranking holds at most 15 cards


def supports(rules: Rules) -> bool:
    """Whether :class:`RuleBasedVector` covers ``rules`` (otherwise use :class:`RuleBasedAgent`)."""
    return not _not_ported(rules)


def _not_ported(rules: Rules) -> list[str]:
    """The fields of ``rules`` whose value this port does not cover."""
    return [f.name for f in fields(rules) if f.name not in _PORTED
            or (_PORTED[f.name] is not None and getattr(rules, f.name) not in _PORTED[f.name])]


class RuleBasedVector:
    """``RuleBasedAgent().act`` for the seat to act in many games of ``venv`` at once; see the module docstring."""

    def __init__(self, venv: VectorEuchre) -> None:
        rules = venv.rules
        missing = _not_ported(rules)
        if missing:
            shown = ", ".join(f"{name}={getattr(rules, name)!r}" for name in missing)
            raise ValueError(f"RuleBasedVector does not cover the rules option(s) {shown}; use RuleBasedAgent")
        self.venv = venv
        T = _setting(rules)  # the agent's own tables and targets
        table, cards = T.table, T.cards
        n = cards.n_ids
        self._ids = np.array([table.pass_id, table.order_id, table.order_alone_id, table.name_base,
                              table.name_alone_base, table.defend_id, table.discard_base, table.play_base,
                              table.bid_base, len(table.bid_levels), table.give_base, table.ace_no_face_id,
                              _bid_id(table, HELP), _bid_id(table, MOON)], np.int64)
        self._iopt = np.array([T.tricks, n, cards.copies, DEFEND_ALONE_TRUMPS], np.int64)
        # plain bid level of each action id (-1: not a plain bid)
        self._level = np.array([a.arg if a.kind == BID and a.arg not in (HELP, MOON) else -1 for a in table.actions],
                               np.int64)
        self._w = np.array([T.partner_share, T.call_target, ALONE_LOSERS, HELP_LOSERS, DEFEND_ALONE_TRICKS,
                            FORCED_ALONE_TRICKS, TRUMP_FLOOR, LENGTH_BONUS, SECOND_MASTER_VALUE, GUARDED_KING_VALUE,
                            BARE_KING_VALUE, VOID_VALUE], np.float64)
        self._trump_value = np.array(TRUMP_VALUE, np.float64)
        self._ace_value = np.array(ACE_VALUE, np.float64)
        self._eff = np.array([cards.suits[t] for t in range(-1, NUM_SUITS)], np.int64)
        self._power = np.array([cards.power[t] for t in range(NUM_SUITS)], np.int64)
        self._ranking, self._rlen = _ranking_arrays(cards)
        # upcard_value itself, tabulated: [trump, card] for every card of the trump suit (0 elsewhere, never read)
        self._upval = np.zeros((NUM_SUITS, n), np.float64)
        for t in range(NUM_SUITS):
            for c in range(n):
                if cards.suits[t][c] == t:
                    self._upval[t, c] = upcard_value(cards.deck, c, t)
        self._layout = np.array(_LAYOUT, np.int64)
        # The engine's legal masks (absolute ids) come from its observation kernel with no observation encoded;
        # it also writes each game's frame field, so it runs on a copy of the scalar fields.
        self._engine = kernel_tables(rules, "absolute")
        raw_size = self._engine.raw_size + len(table)
        self._st = np.zeros((venv.num_envs, K.NF), np.int32)
        self._obs = np.zeros((venv.num_envs, 0), np.float32)
        self._mask = np.zeros((venv.num_envs, len(table)), np.bool_)
        self._raw = np.zeros((1, raw_size), np.float32)  # the serial observer's one slice of scratch
        self._whole_scratch: _WholeStepScratch | None = None  # single_seat_step's, for its number of slices

    def actions(self, games: np.ndarray) -> np.ndarray:
        """``int64 [len(games)]``: the absolute action id ``RuleBasedAgent().act`` picks for the seat to act in
        each game of ``games`` (indices into the vector env's games)."""
        games = np.asarray(games)
        if games.ndim != 1 or not (np.issubdtype(games.dtype, np.integer) and games.dtype != np.bool_):
            raise ValueError(f"games must be a 1-d array of game indices, got shape {games.shape} of {games.dtype}")
        games = np.ascontiguousarray(games, np.int64)  # one compiled signature, whatever the caller passes
        if games.size and (games.min() < 0 or games.max() >= self.venv.num_envs):
            raise ValueError(f"game indices must be in 0..{self.venv.num_envs - 1}, got {games.min()}..{games.max()}")
        self._legal_masks(games)
        out = self._decide(games)
        if games.size and out.min() < 0:
            self._raise(games, out)
        return out

    def _legal_masks(self, games: np.ndarray) -> None:
        """The engine's legal masks (absolute ids) of the seats to act in ``games`` into ``self._mask``."""
        st, hands, dealt, tc, ts, calls = self.venv.state_arrays()
        self._st[games] = st[games]  # the rows the observer reads (and writes each frame into)
        t = self._engine
        K.observe_games_serial(self._st, hands, dealt, tc, ts, calls, games, self._obs, self._mask, self._raw, t.opt,
                               t.tab, t.akind, t.aarg, t.eff, t.power, t.rank, t.off, t.leader_at, t.card_at,
                               t.rnd_off, t.rnd_width, t.col, t.perms, t.cands, t.ncands, t.to_abs, False, False)

    def _decide(self, games: np.ndarray) -> np.ndarray:
        """The decisions of ``games`` from the masks :meth:`_legal_masks` left (action ids or the kernel's codes)."""
        st, hands, _, tc, ts, _ = self.venv.state_arrays()
        out = np.empty(games.size, np.int64)
        chunks, kernel = 1, decide_games
        if self.venv.threads != 1 and games.size >= PARALLEL_FROM:  # on the vector env's threads
            self.venv.use_threads()
            chunks, kernel = SLICES_PER_THREAD * numba.get_num_threads(), decide_games_parallel
        kernel(chunks, games, out, st, hands, tc, ts, self._mask, self._layout, self._ids, self._iopt, self._level,
               self._eff, self._power, self._ranking, self._rlen, self._upval, self._w, self._trump_value,
               self._ace_value, *self._scratch(chunks))
        return out

    def single_seat_step(self, actions: np.ndarray, observe: np.ndarray, learner_team: int, rewards: np.ndarray,
                         pending: np.ndarray, decided: np.ndarray, acting: np.ndarray, terminated: np.ndarray,
                         truncated: np.ndarray, has_final: np.ndarray, final_obs: np.ndarray) -> None:
        """A whole ``SingleSeatVectorEnv`` step of every game in one compiled call (``_single_seat_step``): the
        learner's ``actions`` (checked legal by the caller), this agent in every seat ``observe`` does not mark,
        the hands that end accounted to the learner of team ``learner_team`` and dealt on as the vector env deals.
        The arrays after ``learner_team`` are the env's accounts (``float32``, ``bool``, ``int64`` ``[num_envs]``)
        and this step's ends (``final_obs``: ``float32 [num_envs, obs_size]``, zeros), written in place."""
        venv = self.venv
        st, hands, dealt, tc, ts, calls = venv.state_arrays()
        obs, mask, rows, t = venv.driver_buffers()
        pack, order, deal, streams = venv.deal_buffers()
        n = venv.num_envs
        chunks, kernel = 1, single_seat_step_serial
        if venv.threads != 1 and n >= PARALLEL_FROM:
            venv.use_threads()
            chunks, kernel = SLICES_PER_THREAD * numba.get_num_threads(), single_seat_step
        s = self._whole_scratch
        if s is None or s.chunks != chunks:
            # The kernel's scratch, made here (a kernel that allocates nothing is built without reference
            # counting) and kept: the kernel reuses it game after game within a step, so it may across steps.
            counts, suit_rows = self._scratch(chunks)
            s = self._whole_scratch = _WholeStepScratch(
                chunks=chunks, codes=np.zeros(n, np.int64), active=np.zeros(n, np.int64), picks=np.zeros(n, np.int64),
                amasks=np.zeros((n, self._mask.shape[1]), np.bool_), counts=counts, suit_rows=suit_rows,
                raw=np.zeros((chunks, rows.shape[1]), np.float32),
                uniforms=np.zeros((chunks, pack.shape[0] + 1), np.float64))
        kernel(chunks, actions, observe, learner_team, venv.episode == "hand", venv.max_hands or 0,
               venv.reward_mode == "win", streams, s.uniforms, rewards, pending, decided, acting, terminated,
               truncated, has_final, final_obs, s.codes, s.active, s.picks, s.amasks, s.counts, s.suit_rows, st, hands,
               dealt, tc, ts, calls, obs, mask, s.raw, order, deal, pack, t.opt, t.printed, t.tab, t.akind, t.aarg,
               t.aalone, t.eff, t.power, t.rank, t.rnd, t.off, t.leader_at, t.card_at, t.rnd_off, t.rnd_width, t.col,
               t.perms, t.cands, t.ncands, t.to_abs, t.structured, venv.observation != "none", self._layout,
               self._ids, self._iopt, self._level, self._eff, self._power, self._ranking, self._rlen, self._upval,
               self._w, self._trump_value, self._ace_value)
        if s.codes.min() < 0:
            self._raise(np.arange(n), s.codes)

    def _scratch(self, chunks: int) -> tuple[np.ndarray, np.ndarray]:
        """Each slice's scratch for ``_decide_one``: five card-count rows and the suit rows."""
        return (np.zeros((chunks, 5, self._iopt[I_NIDS]), np.int64),
                np.zeros((chunks, HELD + 1, NUM_SUITS), np.int64))

    def _raise(self, games: np.ndarray, out: np.ndarray) -> None:
        if out[0] == STALE:
            raise RuntimeError("RuleBasedVector: the compiled kernels are stale (the engine's state layout changed): "
                               "delete agents/rule_based/__pycache__/compiled.*.nbi and .nbc")
        i = int(np.flatnonzero(out < 0)[0])
        g = int(games[i])
        st = self.venv.state_arrays()[0]
        where = f"RuleBasedVector: game {g}, seat {st[g, K.CUR]} in phase {Phase(st[g, K.PH]).name}"
        if out[i] == NO_ACTION:
            raise ValueError(f"{where}: no legal action (is the hand over?)")
        raise RuntimeError(f"{where}: " + ("a rule chose an illegal action (a bug)" if out[i] == NOT_LEGAL
                                           else "no rule for this phase"))


@dataclass
class _WholeStepScratch:
    """``single_seat_step``'s scratch for ``chunks`` slices (``_single_seat_step`` names each array's use)."""

    chunks: int
    codes: np.ndarray  # int64 [num_envs]: a failed decision's code, per game
    active: np.ndarray  # int64 [num_envs]: each slice's games waiting on an opponent
    picks: np.ndarray  # int64 [num_envs]: their decisions
    amasks: np.ndarray  # bool [num_envs, num_actions]: their legal masks (absolute ids)
    counts: np.ndarray  # int64 [chunks, 5, cards]: _decide_one's card counts
    suit_rows: np.ndarray  # int64 [chunks, HELD + 1, suits]: _decide_one's suit rows
    raw: np.ndarray  # float32 [chunks, raw size]: the engine's encoding row
    uniforms: np.ndarray  # float64 [chunks, deal size]: a deal's uniforms


class CompiledRuleBased:
    """:class:`RuleBasedVector` as the rule-based agent's batch policy (:class:`~euchre_env.agents.base.BatchPolicy`):
    its choices in the vector env's action frame."""

    deterministic = True

    def __init__(self, venv: VectorEuchre) -> None:
        self.venv = venv
        self.twin = RuleBasedVector(venv)

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.venv.to_canonical_batch(games, self.twin.actions(games))

    def single_seat_step(self, *args: np.ndarray) -> None:
        """:meth:`RuleBasedVector.single_seat_step`: a vector env's whole single-seat step in one compiled call."""
        self.twin.single_seat_step(*args)


def _bid_id(table, level) -> int:
    return table.bid_base + table.bid_levels.index(level) if level in table.bid_levels else -1


def _ranking_arrays(cards) -> tuple[np.ndarray, np.ndarray]:
    """``SuitTables.ranking`` as ``[trump, suit, i]`` (padded with -1) and the length of each list."""
    width = max(len(r) for t in range(NUM_SUITS) for r in cards.ranking[t].values())
    if width > KS_MASK:  # _walk packs a count (at most the ranking's length) per held card into 64 bits
        raise RuntimeError(f"a suit ranking of {width} cards is longer than the {KS_MASK} _walk can pack")
    ranking = np.full((NUM_SUITS, NUM_SUITS, width), -1, np.int64)
    rlen = np.zeros((NUM_SUITS, NUM_SUITS), np.int64)
    for t in range(NUM_SUITS):
        for s in range(NUM_SUITS):
            r = cards.ranking[t][s]
            # The kernels walk a card's copies as one run (heuristics._walk counts them): they must be adjacent.
            if len({c for c, _ in itertools.groupby(r)}) != len(list(itertools.groupby(r))):
                raise RuntimeError(f"suit_tables ranking[{t}][{s}] does not list a card's copies together: {r}")
            ranking[t, s, :len(r)] = r
            rlen[t, s] = len(r)
    return ranking, rlen


# =============================================================================== heuristics.py
@njit(cache=True, inline="always")
def _suit_length(hand, trump, s, ranking, rlen):
    """Cards ``hand`` holds of effective suit ``s`` under ``trump`` (``sum(_by_suit(...)[s].values())``)."""
    n = 0
    prev = -1
    for i in range(rlen[trump, s]):
        c = ranking[trump, s, i]
        if c != prev:
            n += hand[c]
            prev = c
    return n


@njit(cache=True, inline="always")
def _walk(hand, gone, trump, s, ranking, rlen):
    """``heuristics._walk``: ``(j, ks)``, the number of cards ``hand`` holds of suit ``s`` under ``trump`` and,
    for the ``j``-th of them, best first, the higher cards still out (neither held nor in ``gone``) as
    ``_k(ks, j)``. A card's copies are adjacent in the ranking, so each run starts from the card's held and gone
    counts. ``ks`` packs the counts KS_BITS to a card into one integer (a suit's ranking is at most 15 cards
    long: ``_ranking_arrays``) so that no kernel of a decision allocates an array (they run in builds without
    reference counting)."""
    j = k = ks = 0
    prev = held = out = -1
    for i in range(rlen[trump, s]):
        c = ranking[trump, s, i]
        if c != prev:
            prev, held, out = c, hand[c], gone[c]
        if held > 0:
            held -= 1
            ks |= k << (KS_BITS * j)
            j += 1
        elif out > 0:
            out -= 1
        else:
            k += 1
    return j, ks


@njit(cache=True, inline="always")
def _k(ks, j):
    """The higher cards still out above the ``j``-th held card of a :func:`_walk`."""
    return (ks >> (KS_BITS * j)) & KS_MASK


@njit(cache=True, inline="always")
def trick_estimate(hand, trump, gone, ranking, rlen, w, trump_value, ace_value):
    """``heuristics.trick_estimate``: tricks ``hand`` should take with ``trump`` (``hand`` and ``gone``: copies of
    each card id)."""
    value = 0.0
    n_trumps, ks = _walk(hand, gone, trump, trump, ranking, rlen)
    for j in range(n_trumps):
        k = _k(ks, j)
        value += trump_value[k] if k < trump_value.shape[0] else w[W_FLOOR]
    value += w[W_LENGTH] * max(0, n_trumps - 2)
    voids = 0
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        length, ks = _walk(hand, gone, trump, s, ranking, rlen)
        if length == 0:
            voids += 1
            continue
        for j in range(length):
            k = _k(ks, j)
            if j == 0 and k == 0:
                value += ace_value[min(length, 3) - 1]
            elif j == 1 and k == 0:
                value += w[W_SECOND]
            elif j == 0 and k == 1:
                value += w[W_GUARDED] if length >= 2 else w[W_BARE]
            else:
                break
    if n_trumps >= 2:
        value += w[W_VOID] * min(voids, n_trumps - 1)
    return value


@njit(cache=True, inline="always")
def alone_losers(hand, trump, gone, ranking, rlen):
    """``heuristics.alone_losers``: (expected losing tricks playing ``hand`` alone, trumps held)."""
    n_trumps, ks = _walk(hand, gone, trump, trump, ranking, rlen)
    top_run = 0
    for j in range(n_trumps):
        top_run += _k(ks, j) == 0
    missing_above = _k(ks, n_trumps - 1) if n_trumps else 0
    lost = 0.8 * min(n_trumps - top_run, missing_above)
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        held, ks = _walk(hand, gone, trump, s, ranking, rlen)
        for j in range(held):
            lost += (0.15 if j == 0 else 0.35 * j) if _k(ks, j) == 0 else 1.0
    return lost, n_trumps


@njit(cache=True, inline="always")
def best_discard(hand, trump, eff, power, ranking, rlen):
    """``heuristics.best_discard``: the card of ``hand`` to throw away with ``trump`` as trump."""
    suits, pw = eff[trump + 1], power[trump]
    side = False
    n_trumps = 0
    for c in range(hand.shape[0]):
        if hand[c] > 0:
            if suits[c] == trump:
                n_trumps += hand[c]
            else:
                side = True
    best = -1
    if not side:  # min(hand, key=(power, c)): ids ascending, so a strict < keeps the lowest id of a tie
        for c in range(hand.shape[0]):
            if hand[c] > 0 and (best < 0 or pw[c] < pw[best]):
                best = c
        return best
    best_len = 0
    for c in range(hand.shape[0]):  # the low side cards (not the best of their suit): (length, power, c)
        if hand[c] > 0 and suits[c] != trump and c != ranking[trump, suits[c], 0]:
            length = _suit_length(hand, trump, suits[c], ranking, rlen)
            if best < 0 or length < best_len or (length == best_len and pw[c] < pw[best]):
                best, best_len = c, length
    if best >= 0:
        return best
    if n_trumps >= 3:
        for c in range(hand.shape[0]):
            if hand[c] > 0 and suits[c] == trump and (best < 0 or pw[c] < pw[best]):
                best = c
        return best
    for c in range(hand.shape[0]):  # side aces only: (-length, c)
        if hand[c] > 0 and suits[c] != trump:
            length = _suit_length(hand, trump, suits[c], ranking, rlen)
            if best < 0 or length > best_len:
                best, best_len = c, length
    return best


# =============================================================================== rule_based.py: calling
@njit(cache=True, inline="always")
def _dealer_hand(hand, upcard, trump, eff, power, ranking, rlen, out):
    """``rule_based._dealer_hand`` into ``out``: the dealer's hand after picking up ``upcard`` and discarding."""
    for c in range(hand.shape[0]):  # a loop: a slice assignment may copy through a temporary array
        out[c] = hand[c]
    out[upcard] += 1
    out[best_discard(out, trump, eff, power, ranking, rlen)] -= 1
    return out


@njit(cache=True, inline="always")
def _alone_ok(hand, trump, gone, ranking, rlen, w):
    """``rule_based._alone_ok``: three or more trumps and at most ALONE_LOSERS expected losers."""
    lost, n_trumps = alone_losers(hand, trump, gone, ranking, rlen)
    return n_trumps >= 3 and lost <= w[W_ALONE_LOSERS]


@njit(cache=True, inline="always")
def _best_suit(hand, every, options, gone, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._best_suit``: (the suit with the best estimate, that estimate) of the suits ``x`` with
    ``options[x]``, or with ``every`` of all four. Suits ascending with a strict > give ties to the lowest."""
    best = -1
    best_value = 0.0
    for x in range(NUM_SUITS):
        if every or options[x]:
            v = trick_estimate(hand, x, gone, ranking, rlen, w, trump_value, ace_value)
            if best < 0 or v > best_value:
                best, best_value = x, v
    return best, best_value


@njit(cache=True, inline="always")
def _on(mask, a):
    """``a in legal`` for an id of the action table, -1 (a block the rules leave out) included."""
    return a >= 0 and mask[a]


@njit(cache=True, inline="always")
def _call1(st, g, seat, hand, mask, ids, nogone, tmp, eff, power, ranking, rlen, upval, w, trump_value, ace_value):
    """``rule_based._call1``: order the up-card's suit (alone or not) or pass."""
    trump = st[g, UPSUIT]
    upcard = st[g, UP]
    dealer = st[g, DEALER]
    if not _on(mask, ids[A_ORDER]):  # the dealer's partner must go alone to order
        own = trick_estimate(hand, trump, nogone, ranking, rlen, w, trump_value, ace_value)
        if _on(mask, ids[A_ORDER_ALONE]) and (own >= w[W_FORCED] or _alone_ok(hand, trump, nogone, ranking, rlen, w)):
            return ids[A_ORDER_ALONE]
        return ids[A_PASS]
    if seat == dealer:
        h = _dealer_hand(hand, upcard, trump, eff, power, ranking, rlen, tmp)
        own = trick_estimate(h, trump, nogone, ranking, rlen, w, trump_value, ace_value)
    else:
        h = hand
        up = upval[trump, upcard]
        own = trick_estimate(h, trump, nogone, ranking, rlen, w, trump_value, ace_value) + (
            up if seat == (dealer + 2) % 4 else -up)
    if _on(mask, ids[A_ORDER_ALONE]) and _alone_ok(h, trump, nogone, ranking, rlen, w):
        return ids[A_ORDER_ALONE]
    if own + w[W_PARTNER] >= w[W_TARGET]:
        return ids[A_ORDER]
    return ids[A_PASS]


@njit(cache=True, inline="always")
def _call2(hand, mask, ids, gone, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._call2``: name the best suit left (alone or not), or pass."""
    best, own = _best_suit(hand, False, mask[ids[A_NAME]:ids[A_NAME] + NUM_SUITS], gone, ranking, rlen, w,
                           trump_value, ace_value)
    if ids[A_NAME_ALONE] >= 0 and mask[ids[A_NAME_ALONE] + best] and _alone_ok(hand, best, gone, ranking, rlen, w):
        return ids[A_NAME_ALONE] + best
    if not mask[ids[A_PASS]]:  # the dealer is stuck
        return ids[A_NAME] + best
    if own + w[W_PARTNER] >= w[W_TARGET]:
        return ids[A_NAME] + best
    return ids[A_PASS]


@njit(cache=True, inline="always")
def _defend(hand, trump, mask, ids, iopt, gone, eff, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._defend``: defend alone with enough trumps and tricks, else pass."""
    own = trick_estimate(hand, trump, gone, ranking, rlen, w, trump_value, ace_value)
    n_trumps = 0
    for c in range(hand.shape[0]):
        if eff[trump + 1, c] == trump:
            n_trumps += hand[c]
    if _on(mask, ids[A_DEFEND]) and n_trumps >= iopt[I_DEFEND_TRUMPS] and own >= w[W_DEFEND_TRICKS]:
        return ids[A_DEFEND]
    return ids[A_PASS]


@njit(cache=True, inline="always")
def _discard(hand, trump, ids, nogone, tmp, eff, power, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._discard``: the best discard once trump is known; the joker dealer of Bid Euchre, before
    the auction, keeps the hand whose best suit is strongest (key: that estimate, then -power[0][c], -c)."""
    if trump >= 0:
        return ids[A_DISCARD] + best_discard(hand, trump, eff, power, ranking, rlen)
    best = -1
    best_after = 0.0
    for c in range(hand.shape[0]):  # sorted(set(hand))
        if hand[c] == 0:
            continue
        for x in range(hand.shape[0]):  # tmp[:] = hand, without a temporary array
            tmp[x] = hand[x]
        tmp[c] -= 1
        after = trick_estimate(tmp, 0, nogone, ranking, rlen, w, trump_value, ace_value)
        for x in range(1, NUM_SUITS):
            after = max(after, trick_estimate(tmp, x, nogone, ranking, rlen, w, trump_value, ace_value))
        # max: a higher estimate, then a lower power[0], then (ids ascending, strict) the lower id
        if best < 0 or after > best_after or (after == best_after and power[0, c] < power[0, best]):
            best, best_after = c, after
    return ids[A_DISCARD] + best


@njit(cache=True, inline="always")
def _joker_suit(st, g, hand, ids, nogone, tmp, eff, power, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._joker_suit``: the suit in which the hand, with the joker picked up and the best discard,
    is strongest (ties: the lowest suit)."""
    best = -1
    best_value = 0.0
    for x in range(NUM_SUITS):
        h = _dealer_hand(hand, st[g, UP], x, eff, power, ranking, rlen, tmp)
        v = trick_estimate(h, x, nogone, ranking, rlen, w, trump_value, ace_value)
        if best < 0 or v > best_value:
            best, best_value = x, v
    return ids[A_NAME] + best


@njit(cache=True, inline="always")
def _auction(st, g, seat, hand, mask, ids, iopt, level_of, nogone, ranking, rlen, w, trump_value, ace_value):
    """``rule_based._auction``: moon, help, the cheapest plain bid the hand is worth, ace no face, or pass."""
    best, own = _best_suit(hand, True, mask, nogone, ranking, rlen, w, trump_value, ace_value)
    lost, n_trumps = alone_losers(hand, best, nogone, ranking, rlen)
    enough_trumps = n_trumps >= (iopt[I_TRICKS] + 1) // 2
    partner_holds = st[g, CONTRACT] >= 0 and st[g, BIDDER] == (seat + 2) % 4
    if _on(mask, ids[A_MOON]) and enough_trumps and lost <= w[W_ALONE_LOSERS]:
        return ids[A_MOON]
    if _on(mask, ids[A_HELP]) and enough_trumps and lost <= w[W_HELP_LOSERS]:
        return ids[A_HELP]
    level = math.floor(own + w[W_PARTNER])
    cheapest = -1  # the legal plain bid of the lowest level (plain[0])
    for i in range(ids[A_NBIDS]):
        a = ids[A_BID] + i
        if mask[a] and level_of[a] >= 0 and (cheapest < 0 or level_of[a] < level_of[cheapest]):
            cheapest = a
    if not mask[ids[A_PASS]]:  # stick the dealer: the cheapest bid
        if cheapest >= 0:
            return cheapest
        for a in range(mask.shape[0]):  # min(legal)
            if mask[a]:
                return a
    if not partner_holds and cheapest >= 0 and level_of[cheapest] <= level:
        return cheapest
    if _on(mask, ids[A_ANF]) and not partner_holds and (cheapest < 0 or level_of[cheapest] > level):
        return ids[A_ANF]
    return ids[A_PASS]


@njit(cache=True, inline="always")
def _give_back(trump, mask, ids, power):
    """``rule_based._give_back``: the legal card of the highest power (ties: the lowest id)."""
    best = -1
    for c in range(power.shape[1]):
        if mask[ids[A_GIVE] + c] and (best < 0 or power[trump, c] > power[trump, best]):
            best = c
    return ids[A_GIVE] + best


@njit(cache=True, inline="always")
def _gone(st, tc, g, seat, gone):
    """``rule_based._gone`` into ``gone`` (copies per card id): played, own discard, a turned-down card, and for
    the help bidder the card its partner sits out with."""
    gone[:] = 0
    ntr, ncur = st[g, NTR], st[g, NCUR]
    active = 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]
    for k in range(ntr + 1):
        for j in range(active if k < ntr else ncur):
            gone[tc[g, k, j]] += 1
    if st[g, DISC] >= 0 and seat == st[g, DEALER]:
        gone[st[g, DISC]] += 1
    if st[g, UP] >= 0 and not st[g, UPTAKEN] and (st[g, PH] == CALL2 or st[g, TRUMP] >= 0):
        gone[st[g, UP]] += 1
    if st[g, GIVEN] >= 0 and seat == st[g, BIDDER]:
        gone[st[g, GIVEN]] += 1
    return gone


# =============================================================================== rule_based.py: card play
# The play kernels read what the Python agent recomputes per card from two per-suit rows, filled once a
# decision by _play: the highest power among the cards still out (``master`` and ``safe`` ask only whether some
# card out of a suit is higher) and the cards held (``Counter(suits[c] for c in hand)``). Rows of ``suit_rows``:
# the shown voids of seats 0-3, then these two.
TOP_OUT, HELD = 4, 5
NOTHING_OUT = -(1 << 40)  # TOP_OUT of a suit with no card out: below every power


@njit(cache=True, inline="always")
def _beats(card, winning, suits, pw, trump):
    """``cards.beats``: ``card`` played after ``winning`` takes the trick from it."""
    return (suits[card] == trump or suits[card] == suits[winning]) and pw[card] > pw[winning]


@njit(cache=True, inline="always")
def _master(c, rows, suits, pw):
    """``_PlayContext.master``: no card still out is higher in ``c``'s suit."""
    return rows[TOP_OUT, suits[c]] <= pw[c]


@njit(cache=True, inline="always")
def _safe(c, me, behind, rows, suits, pw, trump):
    """``_PlayContext.safe``: no opponent among the seats of the bit set ``behind`` can hold a card that beats
    ``c`` (as far as its shown voids tell): a higher card out of ``c``'s suit, or of trump."""
    for o in range(4):
        if not (behind >> o) & 1 or o % 2 == me % 2:
            continue
        s = suits[c]
        if not rows[o, s] and rows[TOP_OUT, s] > pw[c]:
            return False
        if trump >= 0 and trump != s and not rows[o, trump] and rows[TOP_OUT, trump] > pw[c]:
            return False
    return True


@njit(cache=True, inline="always")
def _throw_less(a, b, rows, suits, pw, trump):
    """``_PlayContext.throw_key(a) < throw_key(b)``: side suits before trumps, non-masters first, low first."""
    ta, tb = suits[a] == trump, suits[b] == trump
    if ta != tb:
        return tb
    ma, mb = _master(a, rows, suits, pw), _master(b, rows, suits, pw)
    if ma != mb:
        return mb
    if pw[a] != pw[b]:
        return pw[a] < pw[b]
    return a < b


@njit(cache=True, inline="always")
def _play(st, tc, ts, g, seat, hand, mask, ids, iopt, gone, cards, rows, eff, power):
    """``rule_based._play``: the candidate cards (following suit even when reneging is allowed), the cards still
    out (no copy held or gone), the shown voids; then ``_PlayContext.follow`` or ``.lead``."""
    trump = st[g, TRUMP]
    suits, pw = eff[trump + 1], power[trump]
    nids = iopt[I_NIDS]
    ntr, ncur = st[g, NTR], st[g, NCUR]
    n = 0
    for c in range(nids):
        if mask[ids[A_PLAY] + c]:
            cards[n] = c
            n += 1
    if ncur > 0:  # cards.follow_suit
        led = suits[tc[g, ntr, 0]]
        m = 0
        for i in range(n):
            if suits[cards[i]] == led:
                cards[m] = cards[i]
                m += 1
        if m > 0:
            n = m
    _gone(st, tc, g, seat, gone)
    rows[:] = 0
    rows[TOP_OUT, :] = NOTHING_OUT
    for c in range(nids):
        s = suits[c]
        rows[HELD, s] += hand[c]
        if iopt[I_COPIES] - hand[c] - gone[c] > 0 and pw[c] > rows[TOP_OUT, s]:
            rows[TOP_OUT, s] = pw[c]
    active = 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]
    for k in range(ntr + 1):  # infostate.shown_voids
        count = active if k < ntr else ncur
        if count > 0:
            led = suits[tc[g, k, 0]]
            for j in range(1, count):
                if suits[tc[g, k, j]] != led:
                    rows[ts[g, k, j], led] = 1
    if ncur > 0:
        return ids[A_PLAY] + _follow(st, tc, ts, g, seat, cards, n, rows, suits, pw, trump)
    return ids[A_PLAY] + _lead(st, g, seat, cards, n, rows, suits, pw, trump)


@njit(cache=True, inline="always")
def _lead(st, g, me, cards, n, rows, suits, pw, trump):
    """``_PlayContext.lead`` over ``cards[:n]`` (ids ascending)."""
    partner = (me + 2) % 4
    partner_in = st[g, OUT + partner] == 0
    top = low = -1  # trumps[0] and trumps[-1]: the highest and the lowest trump
    n_trumps = n_side = 0
    for i in range(n):
        c = cards[i]
        if suits[c] == trump:
            n_trumps += 1
            if top < 0 or pw[c] > pw[top]:
                top = c
            if low < 0 or pw[c] < pw[low]:
                low = c
        else:
            n_side += 1
    trumps_out = trump >= 0 and rows[TOP_OUT, trump] != NOTHING_OUT
    all_void = True  # every active opponent has shown void in trump
    for o in range(4):
        if o % 2 != me % 2 and st[g, OUT + o] == 0 and not rows[o, trump]:
            all_void = False
    opp_have_trump = trumps_out and not all_void
    maker = st[g, MAKER]
    we_made = maker >= 0 and maker % 2 == me % 2
    if we_made and n_trumps > 0 and opp_have_trump:
        if maker == me:
            if _master(top, rows, suits, pw):
                return top
            if n_trumps >= 3:
                return low
        elif partner_in:
            return top if _master(top, rows, suits, pw) else low
    best = -1  # the side-suit masters: min by (opponents shown void, cards held of the suit, -power, id)
    best_void = best_held = 0
    for i in range(n):
        c = cards[i]
        if suits[c] == trump or not _master(c, rows, suits, pw):
            continue
        shown_void = 0
        for o in range(4):
            if o % 2 != me % 2 and st[g, OUT + o] == 0 and rows[o, suits[c]]:
                shown_void += 1
        held = rows[HELD, suits[c]]
        if (best < 0 or shown_void < best_void or (shown_void == best_void and (
                held < best_held or (held == best_held and pw[c] > pw[best])))):
            best, best_void, best_held = c, shown_void, held
    if best >= 0:
        return best
    if n_trumps > 0 and _master(top, rows, suits, pw) and opp_have_trump and we_made:
        return top
    if n_side > 0:
        if partner_in:  # low in a suit the partner is void in and no opponent is: min by (power, id)
            for i in range(n):
                c = cards[i]
                if suits[c] == trump or not rows[partner, suits[c]]:
                    continue
                opp_void = False
                for o in range(4):
                    if o % 2 != me % 2 and st[g, OUT + o] == 0 and rows[o, suits[c]]:
                        opp_void = True
                if not opp_void and (best < 0 or pw[c] < pw[best]):
                    best = c
            if best >= 0:
                return best
        best_len = 0  # the lowest card of the shortest side suit: min by (cards held of the suit, power, id)
        for i in range(n):
            c = cards[i]
            if suits[c] == trump:
                continue
            length = rows[HELD, suits[c]]
            if best < 0 or length < best_len or (length == best_len and pw[c] < pw[best]):
                best, best_len = c, length
        return best
    return top if _master(top, rows, suits, pw) else low


@njit(cache=True, inline="always")
def _follow(st, tc, ts, g, me, cards, n, rows, suits, pw, trump):
    """``_PlayContext.follow`` over ``cards[:n]`` (ids ascending)."""
    ntr, ncur = st[g, NTR], st[g, NCUR]
    partner = (me + 2) % 4
    behind = 0  # _order_after(me) less the seats that played, as a bit set (only membership is asked)
    partner_behind = False
    for step in range(1, 4):
        x = (me + step) % 4
        if st[g, OUT + x]:
            continue
        played = False
        for j in range(ncur):
            if ts[g, ntr, j] == x:
                played = True
        if not played:
            behind |= 1 << x
            partner_behind = partner_behind or x == partner
    w = 0  # cards.trick_winner: the first of equal cards wins
    for j in range(1, ncur):
        c = tc[g, ntr, j]
        if (suits[c] == trump or suits[c] == suits[tc[g, ntr, 0]]) and pw[c] > pw[tc[g, ntr, w]]:
            w = j
    winner_seat, winning = ts[g, ntr, w], tc[g, ntr, w]
    led = suits[tc[g, ntr, 0]]
    low = cards[0]
    for i in range(1, n):
        if _throw_less(cards[i], low, rows, suits, pw, trump):
            low = cards[i]
    if winner_seat == partner:
        if _safe(winning, me, behind, rows, suits, pw, trump):
            return low
        cover = -1  # the lowest safe winner of the suit led
        for i in range(n):
            c = cards[i]
            if (_beats(c, winning, suits, pw, trump) and suits[c] == led
                    and _safe(c, me, behind, rows, suits, pw, trump)
                    and (cover < 0 or pw[c] < pw[cover])):
                cover = c
        return cover if cover >= 0 else low
    cheapest = -1  # min(safe_winners or winners, key=(power, id))
    cheapest_safe = False
    highest = -1  # max(winners, key=(power, -id))
    for i in range(n):
        c = cards[i]
        if not _beats(c, winning, suits, pw, trump):
            continue
        if highest < 0 or pw[c] > pw[highest]:
            highest = c
        is_safe = _safe(c, me, behind, rows, suits, pw, trump)
        if (cheapest < 0 or (is_safe and not cheapest_safe)
                or (is_safe == cheapest_safe and pw[c] < pw[cheapest])):
            cheapest, cheapest_safe = c, is_safe
    if highest < 0:  # cannot win the trick
        return low
    if partner_behind:
        return cheapest if _master(winning, rows, suits, pw) else low
    if cheapest_safe:
        return cheapest
    return highest


# =============================================================================== the batch
@njit(cache=True, inline="always")
def _layout_ok(layout):
    """The engine's layout compiled into these kernels is the live one (see _LAYOUT)."""
    if layout.shape[0] != len(_LAYOUT):
        return False
    for i in range(len(_LAYOUT)):  # noqa: SIM110 (numba compiles no generator expressions)
        if layout[i] != _LAYOUT[i]:
            return False
    return True


def _decide_games(chunks, games, out, st, hands, tc, ts, masks, layout, ids, iopt, level_of, eff, power, ranking,
                  rlen, upval, w, trump_value, ace_value, counts, suit_rows):
    """``RuleBasedAgent.explain``'s action for the seat to act in each of ``games`` into ``out`` (absolute ids;
    ``masks[g]``: game ``g``'s legal actions). -1: nothing legal, -2: a rule chose an illegal action (a bug),
    -3: no rule for the phase, -4 (every game): the engine's layout is not the one compiled in.

    ``chunks`` slices of ``games`` at once in the parallel build (on Numba's threads), slice ``c`` with the
    scratch of :func:`_decide_one` ``counts[c]`` (five card-count rows) and ``suit_rows[c]``. It allocates
    nothing, so both builds run without the runtime's reference counting (as the loop below)."""
    if not _layout_ok(layout):
        out[:] = STALE
        return
    n = games.shape[0]
    for c in prange(chunks):
        lo, hi = K.slice_of(n, c, chunks)
        cnt, rows = counts[c], suit_rows[c]
        for i in range(lo, hi):
            g = games[i]
            out[i] = _decide_one(g, masks[g], st, hands, tc, ts, ids, iopt, level_of, eff, power, ranking, rlen,
                                 upval, w, trump_value, ace_value, cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], rows)


decide_games_parallel, decide_games = two_builds(_decide_games, allocates=False)


@njit(cache=True)
def _decide_one(g, mask, st, hands, tc, ts, ids, iopt, level_of, eff, power, ranking, rlen, upval, w, trump_value,
                ace_value, hand, tmp, gone, nogone, cards, rows):
    """The action of game ``g``'s seat to act (absolute id; ``mask``: its legal actions), or a code as
    :func:`decide_games` writes it. Scratch: the card counts ``hand`` ... ``cards`` and the suit rows ``rows``
    (``_play``)."""
    nids = iopt[I_NIDS]
    n_legal = 0
    first = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            n_legal += 1
            if first < 0:
                first = a
            elif n_legal == 2:  # a choice: the count is not needed further
                break
    if n_legal <= 1:  # the only legal action (or none: NO_ACTION)
        return first
    seat, p, trump = st[g, CUR], st[g, PH], st[g, TRUMP]
    for c in range(nids):
        hand[c] = hands[g, seat, c]
    if p == PLAY:
        a = _play(st, tc, ts, g, seat, hand, mask, ids, iopt, gone, cards, rows, eff, power)
    elif p == CALL1:
        a = _call1(st, g, seat, hand, mask, ids, nogone, tmp, eff, power, ranking, rlen, upval, w, trump_value,
                   ace_value)
    elif p == CALL2:
        a = _call2(hand, mask, ids, _gone(st, tc, g, seat, gone), ranking, rlen, w, trump_value, ace_value)
    elif p == DISCARD:
        a = _discard(hand, trump, ids, nogone, tmp, eff, power, ranking, rlen, w, trump_value, ace_value)
    elif p == DEFEND:
        a = _defend(hand, trump, mask, ids, iopt, _gone(st, tc, g, seat, gone), eff, ranking, rlen, w,
                    trump_value, ace_value)
    elif p == JOKER_SUIT:
        a = _joker_suit(st, g, hand, ids, nogone, tmp, eff, power, ranking, rlen, w, trump_value, ace_value)
    elif p == AUCTION:
        a = _auction(st, g, seat, hand, mask, ids, iopt, level_of, nogone, ranking, rlen, w, trump_value,
                     ace_value)
    elif p == NAME_TRUMP:  # rule_based._name_trump
        best, _ = _best_suit(hand, True, mask, _gone(st, tc, g, seat, gone), ranking, rlen, w, trump_value,
                             ace_value)
        a = ids[A_NAME] + best
    elif p == GIVE:  # rule_based._give
        a = ids[A_GIVE] + best_discard(hand, trump, eff, power, ranking, rlen)
    elif p == GIVE_BACK:
        a = _give_back(trump, mask, ids, power)
    else:
        return NO_RULE
    return a if 0 <= a < mask.shape[0] and mask[a] else NOT_LEGAL




# =============================================================================== a single-seat step
def _learner_hand_over(g, learner_team, episode_hand, max_hands, win_reward, streams, u, rewards, pending, decided,
                       acting, terminated, truncated, has_final, final_obs, st, hands, dealt, tc, ts, calls, order,
                       deal, pack, raw, opt, printed, off, eff, power, leader_at, card_at, rnd_off, rnd_width, col,
                       perms, cands, ncands, structured, with_obs):
    """Game ``g``'s hand is over: the learner's account of it (``learner_account.account_hand``, the Python
    rounds' accounting too) with its final observation if its episode ended, then the next deal, from the game's
    own stream of uniforms. Compiled on its own (below), not inlined: Numba's inlining pass refused it inside the
    parallel loop ("Calling a closure with *args is unsupported")."""
    team0, ended, cut = K.hand_outcome(st, g, episode_hand, max_hands, win_reward)
    over = ended or cut
    if account_hand(g, team0 if learner_team == 0 else -team0, over, cut, rewards, pending, decided, has_final,
                    terminated, truncated) == LEARNER_END and with_obs:
        K.encode_seat(st, hands, tc, ts, calls, g, acting[g], final_obs[g], raw, opt, off, eff, power, leader_at,
                      card_at, rnd_off, rnd_width, col, perms, cands, ncands, structured)
    K.stream_uniforms(streams, g, u)
    K.deal_on(st, hands, dealt, tc, ts, calls, g, over, u, pack, order[g], deal[g], opt, printed)


def _single_seat_step(chunks, actions, observe, learner_team, episode_hand, max_hands, win_reward, streams, uniforms,
                      rewards, pending, decided, acting, terminated, truncated, has_final, final_obs, codes, active,
                      picks, amasks, counts, suit_rows, st, hands, dealt, tc, ts, calls, obs, mask, raw, order, deal,
                      pack, opt, printed, tab, akind, aarg, aalone, eff, power, rank, rnd, off, leader_at, card_at,
                      rnd_off, rnd_width, col, perms, cands, ncands, to_abs, structured, with_obs, layout, ids, iopt,
                      level_of, reff, rpower, ranking, rlen, upval, w, trump_value, ace_value):
    """``SingleSeatVectorEnv.step`` in one call, for games whose every seat but the learner's (``observe``) is this
    agent: each game ``g`` applies the learner's ``actions[g]`` (in its frame, legal), then plays on until a
    learner seat is to act, whose observation and mask are written (``obs[g]``, ``mask[g]``, ``acting[g]``) as the
    engine's ``step_games`` writes them. The learner's moves and the hands that end are accounted to the learner
    as the env's Python rounds account them (``learner_account.learner_decides``, and ``account_hand`` in
    :func:`_learner_hand_over`): ``rewards`` (the pending
    rewards of hands before the learner's first decision first), ``pending``, ``decided``, ``terminated``,
    ``truncated``, ``has_final`` and ``final_obs``, the learner's last observation, in the seat ``acting[g]`` of its
    last decision. Then the game deals on, from its stream ``streams[g]`` (:func:`compiled.kernels.stream_uniforms`),
    so no hand end returns to Python.

    The games go in ``chunks`` slices (at once in the parallel build), each with its scratch: ``uniforms[c]``, the
    deal's uniforms; ``counts[c]``, ``suit_rows[c]`` (:func:`_decide_one`); ``raw[c]`` (the engine's encoding
    row). A slice plays its opponents' decisions in rounds (every waiting game's legal mask, then every
    decision, then every move), not one game to its learner's turn after another: that ran slower on one thread
    (the decisions', moves' and observations' code in turn does not stay in the instruction cache). ``active``,
    ``picks`` and ``amasks`` hold the slice's waiting games from its first index on. ``codes[g]``: 0, or the code
    of a decision that failed (:func:`decide_games`; a bug), the game left where it was. It allocates nothing."""
    if not _layout_ok(layout):
        codes[:] = STALE
        return
    n = st.shape[0]
    size = off[K.B_SIZE]
    for c in prange(chunks):
        lo, hi = K.slice_of(n, c, chunks)
        cnt, rows, u = counts[c], suit_rows[c], uniforms[c]
        hand, tmp, gone, nogone, cards = cnt[0], cnt[1], cnt[2], cnt[3], cnt[4]
        scratch, amask = raw[c, :size], raw[c, size:]
        k = lo  # the slice's waiting games are active[lo:k]
        for g in range(lo, hi):  # the learner's moves
            learner_decides(g, rewards, pending, decided)
            codes[g] = 0
            if K.apply(st, hands, dealt, tc, ts, calls, g, to_abs[st[g, K.FRAME], actions[g]], opt, tab, akind, aarg,
                       aalone, eff, power, rank, rnd):
                _learner_hand_over(g, learner_team, episode_hand, max_hands, win_reward, streams, u, rewards,
                                   pending, decided, acting, terminated, truncated, has_final, final_obs, st, hands,
                                   dealt, tc, ts, calls, order, deal, pack, scratch, opt, printed, off, eff, power,
                                   leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands, structured,
                                   with_obs)
            seat = st[g, K.CUR]
            if observe[g, seat]:
                acting[g] = seat
                K._decide(st, hands, dealt, tc, ts, calls, g, obs[g], mask[g], scratch, amask, opt, tab, akind, aarg,
                          eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands,
                          to_abs, structured, with_obs)
            else:
                active[k] = g
                k += 1
        while k > lo:  # rounds of the opponents' decisions
            for j in range(lo, k):
                K.legal_mask(st, hands, dealt, tc, active[j], opt, tab, akind, aarg, eff, power, rank, amasks[j])
            for j in range(lo, k):
                picks[j] = _decide_one(active[j], amasks[j], st, hands, tc, ts, ids, iopt, level_of, reff, rpower,
                                       ranking, rlen, upval, w, trump_value, ace_value, hand, tmp, gone, nogone,
                                       cards, rows)
            m = lo
            for j in range(lo, k):  # every move; a game still waiting on an opponent moves down the list
                g = active[j]
                a = picks[j]
                if a < 0:
                    codes[g] = a
                    continue
                if K.apply(st, hands, dealt, tc, ts, calls, g, a, opt, tab, akind, aarg, aalone, eff, power, rank,
                           rnd):
                    _learner_hand_over(g, learner_team, episode_hand, max_hands, win_reward, streams, u, rewards,
                                       pending, decided, acting, terminated, truncated, has_final, final_obs, st,
                                       hands, dealt, tc, ts, calls, order, deal, pack, scratch, opt, printed, off, eff,
                                       power, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands,
                                       structured, with_obs)
                seat = st[g, K.CUR]
                if observe[g, seat]:
                    acting[g] = seat
                    K._decide(st, hands, dealt, tc, ts, calls, g, obs[g], mask[g], scratch, amask, opt, tab, akind,
                              aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands,
                              ncands, to_abs, structured, with_obs)
                else:
                    active[m] = g
                    m += 1
            k = m


# Numba's disk cache knows only this file's date (the module docstring), and the whole step inlines the engine's
# kernels and the learner's account: its builds are named after a digest of both files, so a kernel changed on disk
# is compiled in anew rather than loaded stale.
_INLINED = hashlib.sha1()
for _module in (K, learner_account):
    with open(_module.__file__, "rb") as _source:
        _INLINED.update(_source.read())
for _inlining in (_single_seat_step, _learner_hand_over):
    _inlining.__qualname__ += "_" + _INLINED.hexdigest()[:12]
_learner_hand_over = njit(cache=True, _nrt=False)(_learner_hand_over)
single_seat_step, single_seat_step_serial = two_builds(_single_seat_step, allocates=False)


__all__ = ["RuleBasedVector", "supports"]
