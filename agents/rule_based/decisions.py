"""The rule-based agent's decisions compiled: :class:`~euchre_env.agents.rule_based.agent.RuleBasedAgent`'s rules for
each phase ported to Numba over the engine's arrays, one function per function there (the docstring names it).

Reference: :mod:`euchre_env.agents.rule_based.agent` (the estimates: :mod:`~euchre_env.agents.rule_based.estimates`).
Proven equal to it by ``tests/differential/test_rule_based_vector_vs_rule_based_agent.py`` (every decision with more
than one legal action, in random and in rule-driven games of every preset). It defines no rule of its own: a change to
the agent goes into the Python agent first; the differential test then shows this file what to follow. Only the action
is ported, not the reason strings of ``RuleBasedAgent.explain``.

What the seat knows is what its ``InfoState`` holds, read from the engine's arrays (a
:class:`~euchre_env.compiled.layout.GameArrays`): its own hand (``hands[g, seat]``, no other seat's), the up-card
and its fate, its own discard (the dealer), the help exchange (the bidder), the public calls, the cards played and
the voids shown by them. Sums and comparisons of estimates are done in float64 in the Python's order, so that every
threshold test comes out the same, and ties go as Python's ``max`` / ``min`` with the same keys.

:func:`decide` is the agent's compiled decision as a driver takes it (``agents.base.CompiledDecision``): the batch
of :mod:`~euchre_env.agents.rule_based.compiled` and the env's single-seat whole step
(:mod:`euchre_env.envs.whole_step`) call it. Why it is written as it is (inlined kernels, no allocation, builds
without reference counting): docs/rule_based_twin.md.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from euchre_env.agents.rule_based.card_play import HELD, _gone, _play
from euchre_env.agents.rule_based.estimates import (
    A_ANF,
    A_BID,
    A_DEFEND,
    A_DISCARD,
    A_GIVE,
    A_HELP,
    A_MOON,
    A_NAME,
    A_NAME_ALONE,
    A_NBIDS,
    A_ORDER,
    A_ORDER_ALONE,
    A_PASS,
    I_DEFEND_TRUMPS,
    I_NIDS,
    I_TRICKS,
    W_ALONE_LOSERS,
    W_DEFEND_TRICKS,
    W_FORCED,
    W_HELP_LOSERS,
    W_PARTNER,
    W_TARGET,
    alone_losers,
    best_discard,
    jit,
    trick_estimate,
)
from euchre_env.compiled.layout import (
    AUCTION,
    BIDDER,
    CALL1,
    CALL2,
    CONTRACT,
    CUR,
    DEALER,
    DEFEND,
    DISCARD,
    GIVE,
    GIVE_BACK,
    JOKER_SUIT,
    NAME_TRUMP,
    PH,
    PLAY,
    TRUMP,
    UP,
    UPSUIT,
)
from euchre_env.game.cards import NUM_SUITS

# What a game's answer may be besides an action id (the wrapper turns them into exceptions).
NO_ACTION, NOT_LEGAL, NO_RULE = -1, -2, -3
NUM_COUNTS = 5  # the card-count rows of a decision's scratch (hand, tmp, gone, nogone, cards)


class RuleTables(NamedTuple):
    """The agent's tables and weights for one rule set (built from the Python agent's by ``RuleBasedVector``)."""

    ids: np.ndarray  # int64 [14]: the action table's blocks (A_*)
    iopt: np.ndarray  # int64 [4]: integers of the rules and the agent (I_*)
    level: np.ndarray  # int64 [actions]: plain bid level of each id (-1: not a plain bid)
    eff: np.ndarray  # int64 [5, cards]: suit_tables' effective suits, under trump - 1 .. 3
    power: np.ndarray  # int64 [4, cards]: suit_tables' powers
    ranking: np.ndarray  # int64 [4, 4, width]: SuitTables.ranking, padded with -1
    rlen: np.ndarray  # int64 [4, 4]: each ranking's length
    upval: np.ndarray  # float64 [4, cards]: upcard_value, tabulated
    w: np.ndarray  # float64 [12]: thresholds and scalar weights (estimates.W_*)
    trump_value: np.ndarray  # float64: heuristics.TRUMP_VALUE
    ace_value: np.ndarray  # float64: heuristics.ACE_VALUE


class RuleScratch(NamedTuple):
    """A decision's scratch, one row per slice of a batch (a decision allocates nothing)."""

    counts: np.ndarray  # int64 [slices, NUM_COUNTS, cards]
    suit_rows: np.ndarray  # int64 [slices, HELD + 1, suits]: _play's suit rows


def rule_scratch(slices: int, cards: int) -> RuleScratch:
    """The scratch of ``slices`` slices for a deck of ``cards`` ids."""
    return RuleScratch(np.zeros((slices, NUM_COUNTS, cards), np.int64),
                       np.zeros((slices, HELD + 1, NUM_SUITS), np.int64))


# =============================================================================== agent.py: calling
@jit(inline="always")
def _dealer_hand(hand, upcard, trump, eff, power, ranking, rlen, out):
    """``rule_based._dealer_hand`` into ``out``: the dealer's hand after picking up ``upcard`` and discarding."""
    for c in range(hand.shape[0]):  # a loop: a slice assignment may copy through a temporary array
        out[c] = hand[c]
    out[upcard] += 1
    out[best_discard(out, trump, eff, power, ranking, rlen)] -= 1
    return out


@jit(inline="always")
def _alone_ok(hand, trump, gone, ranking, rlen, w):
    """``rule_based._alone_ok``: three or more trumps and at most ALONE_LOSERS expected losers."""
    lost, n_trumps = alone_losers(hand, trump, gone, ranking, rlen)
    return n_trumps >= 3 and lost <= w[W_ALONE_LOSERS]


@jit(inline="always")
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


@jit(inline="always")
def _on(mask, a):
    """``a in legal`` for an id of the action table, -1 (a block the rules leave out) included."""
    return a >= 0 and mask[a]


@jit(inline="always")
def _call1(st, g, seat, hand, mask, p, nogone, tmp):
    """``rule_based._call1``: order the up-card's suit (alone or not) or pass (``p``: the :class:`RuleTables`)."""
    ids, eff, power, ranking, rlen, upval = p.ids, p.eff, p.power, p.ranking, p.rlen, p.upval
    w, trump_value, ace_value = p.w, p.trump_value, p.ace_value
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


@jit(inline="always")
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


@jit(inline="always")
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


@jit(inline="always")
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


@jit(inline="always")
def _joker_suit(st, g, hand, p, nogone, tmp):
    """``rule_based._joker_suit``: the suit in which the hand, with the joker picked up and the best discard,
    is strongest (ties: the lowest suit)."""
    ids, eff, power, ranking, rlen = p.ids, p.eff, p.power, p.ranking, p.rlen
    w, trump_value, ace_value = p.w, p.trump_value, p.ace_value
    best = -1
    best_value = 0.0
    for x in range(NUM_SUITS):
        h = _dealer_hand(hand, st[g, UP], x, eff, power, ranking, rlen, tmp)
        v = trick_estimate(h, x, nogone, ranking, rlen, w, trump_value, ace_value)
        if best < 0 or v > best_value:
            best, best_value = x, v
    return ids[A_NAME] + best


@jit(inline="always")
def _auction(st, g, seat, hand, mask, p, nogone):
    """``rule_based._auction``: moon, help, the cheapest plain bid the hand is worth, ace no face, or pass."""
    ids, iopt, level_of, ranking, rlen = p.ids, p.iopt, p.level, p.ranking, p.rlen
    w, trump_value, ace_value = p.w, p.trump_value, p.ace_value
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


@jit(inline="always")
def _give_back(trump, mask, ids, power):
    """``rule_based._give_back``: the legal card of the highest power (ties: the lowest id)."""
    best = -1
    for c in range(power.shape[1]):
        if mask[ids[A_GIVE] + c] and (best < 0 or power[trump, c] > power[trump, best]):
            best = c
    return ids[A_GIVE] + best


@jit
def _decide_one(g, mask, s, p, counts, rows):
    """The action of game ``g``'s seat to act (absolute id; ``mask``: its legal actions), or a code as
    :func:`decide` returns it. ``s``: the games' GameArrays, ``p``: the RuleTables; scratch: the card-count rows
    ``counts`` (hand, tmp, gone, nogone, cards) and the suit rows ``rows`` (``_play``). A call, not inlined: the
    bundles are read here, not in a caller's parallel loop body (compiled/batch.py)."""
    st, tc = s.st, s.tc
    ids, iopt, eff, power, ranking, rlen = p.ids, p.iopt, p.eff, p.power, p.ranking, p.rlen
    w, trump_value, ace_value = p.w, p.trump_value, p.ace_value
    hand, tmp, gone, nogone = counts[0], counts[1], counts[2], counts[3]
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
    seat, phase, trump = st[g, CUR], st[g, PH], st[g, TRUMP]
    for c in range(nids):
        hand[c] = s.hands[g, seat, c]
    if phase == PLAY:
        a = _play(s, g, seat, hand, mask, p, gone, counts[4], rows)
    elif phase == CALL1:
        a = _call1(st, g, seat, hand, mask, p, nogone, tmp)
    elif phase == CALL2:
        a = _call2(hand, mask, ids, _gone(st, tc, g, seat, gone), ranking, rlen, w, trump_value, ace_value)
    elif phase == DISCARD:
        a = _discard(hand, trump, ids, nogone, tmp, eff, power, ranking, rlen, w, trump_value, ace_value)
    elif phase == DEFEND:
        a = _defend(hand, trump, mask, ids, iopt, _gone(st, tc, g, seat, gone), eff, ranking, rlen, w,
                    trump_value, ace_value)
    elif phase == JOKER_SUIT:
        a = _joker_suit(st, g, hand, p, nogone, tmp)
    elif phase == AUCTION:
        a = _auction(st, g, seat, hand, mask, p, nogone)
    elif phase == NAME_TRUMP:  # rule_based._name_trump
        best, _ = _best_suit(hand, True, mask, _gone(st, tc, g, seat, gone), ranking, rlen, w, trump_value,
                             ace_value)
        a = ids[A_NAME] + best
    elif phase == GIVE:  # rule_based._give
        a = ids[A_GIVE] + best_discard(hand, trump, eff, power, ranking, rlen)
    elif phase == GIVE_BACK:
        a = _give_back(trump, mask, ids, power)
    else:
        return NO_RULE
    return a if 0 <= a < mask.shape[0] and mask[a] else NOT_LEGAL


@jit(inline="always")
def decide(p, scratch, c, g, mask, s):
    """The agent's action for game ``g``'s seat to act (absolute id; ``mask``: its legal actions, absolute), or a
    code (``NO_ACTION``, ``NOT_LEGAL``, ``NO_RULE``): ``p`` the :class:`RuleTables`, ``scratch`` the
    :class:`RuleScratch` (slice ``c``'s rows), ``s`` the games' :class:`~euchre_env.compiled.layout.GameArrays`.
    The signature of a compiled decision (``agents.base.CompiledDecision``)."""
    return _decide_one(g, mask, s, p, scratch.counts[c], scratch.suit_rows[c])
