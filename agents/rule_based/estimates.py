"""The rule-based agent's hand estimates compiled: :mod:`euchre_env.agents.rule_based.heuristics` ported to Numba over
card-count arrays, one function per function there (the docstring names it).

Reference: :mod:`euchre_env.agents.rule_based.heuristics`. Proven equal to it, through the decisions that read these
estimates, by ``tests/differential/test_rule_based_vector_vs_rule_based_agent.py``. The weights are the reference
module's, passed in as arrays (:class:`~euchre_env.agents.rule_based.decisions.RuleTables`), never retyped; only
:func:`alone_losers`'s numbers are inline, as they are inline there. """

from __future__ import annotations

import os

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.layout import CORE_FILES
from euchre_env.game.cards import NUM_SUITS

# The sources the agent's compiled decisions hold (builds.keyed: a change in any of them compiles anew).
_HERE = os.path.dirname(__file__)
RULE_FILES = (*CORE_FILES, *(os.path.join(_HERE, name)
                             for name in ("estimates.py", "decisions.py", "card_play.py", "compiled.py")))
jit = keyed(RULE_FILES)

# ---- w[:]: the agent's float thresholds and the estimate's scalar weights -------------------------------
(W_PARTNER, W_TARGET, W_ALONE_LOSERS, W_HELP_LOSERS, W_DEFEND_TRICKS, W_FORCED, W_FLOOR, W_LENGTH, W_SECOND,
 W_GUARDED, W_BARE, W_VOID) = range(12)
# ---- ids[:]: action ids of the table's blocks (-1: absent) ---------------------------------------------
(A_PASS, A_ORDER, A_ORDER_ALONE, A_NAME, A_NAME_ALONE, A_DEFEND, A_DISCARD, A_PLAY, A_BID, A_NBIDS, A_GIVE, A_ANF,
 A_HELP, A_MOON) = range(14)
# ---- iopt[:]: integers of the rule set and the agent -----------------------------------------------------
I_TRICKS, I_NIDS, I_COPIES, I_DEFEND_TRUMPS = range(4)
KS_BITS, KS_MASK = 4, 15  # _walk's counts, packed into one integer: a suit's ranking holds at most 15 cards


@jit(inline="always")
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


@jit(inline="always")
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


@jit(inline="always")
def _k(ks, j):
    """The higher cards still out above the ``j``-th held card of a :func:`_walk`."""
    return (ks >> (KS_BITS * j)) & KS_MASK


@jit(inline="always")
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


@jit(inline="always")
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


@jit(inline="always")
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
