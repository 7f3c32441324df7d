"""Hand-strength heuristics: the one home of "how good is this hand with that trump".

Three users need a guess at a hand's worth, at two levels of cost, so there are two families
here, and they deliberately stay apart:

- **The trick estimate** (:func:`trick_estimate`, :func:`alone_losers`, :func:`upcard_value`,
  :func:`best_discard`), for :class:`~euchre_env.agents.rule_based.agent.RuleBasedAgent`. It counts
  tricks, knows which higher cards are already gone, values side-suit aces, guarded kings and
  ruffing voids, and discards so as to void a suit. It is rich because the rule-based agent
  has nothing else to decide with.
- **The trump count** (:func:`trump_count`, :func:`count_values`, :func:`weakest_card`), for
  PIMC's calling rollouts (:func:`euchre_env.agents.search.pimc.rollout_action`), which take every
  later call of every world for every candidate action, so they need a count that costs one
  table look-up per card; and for the double-dummy solver's depth-limit estimate
  (:class:`euchre_env.agents.search.double_dummy.DoubleDummy` with ``max_tricks``), which shares the
  remaining tricks out by each team's total of the same per-card values.

The two cannot become one without changing recorded behaviour: the rule-based agent's and
PIMC's decisions are published results (``docs/results``) that the tests replay exactly, so
each family keeps its exact numbers (and :func:`best_discard` and :func:`weakest_card` stay
two discards). Only the depth-limit estimate, used for the double-deck Bid Euchre fallback,
which has no recorded results, was free to move: it now uses the trump count instead of a
third set of weights.

Compiled twin: ``trick_estimate``, ``alone_losers`` and ``best_discard`` in ``agents/rule_based/c/twin.c`` (the C
of :mod:`euchre_env.agents.rule_based.compiled`, one C function per Python function; :func:`upcard_value` reaches
it tabulated by ``compiled.rule_tables``). The trump count has none: its readers, PIMC's calling rollouts and the
solver's depth-limited search, run in Python. Proven equal through the rule-based agent's decisions by
tests/differential/test_rule_based_batch_policy_vs_rule_based_agent.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from euchre_env.game.cards import NUM_SUITS, Deck

# ----------------------------------------------------------------------------- the trick estimate
# Every estimate is in tricks. A held trump is worth TRUMP_VALUE[k] tricks, where k is the
# number of higher trumps neither held nor known gone (0: it is the best trump left).
TRUMP_VALUE = (1.0, 0.75, 0.5, 0.35, 0.25, 0.2)
TRUMP_FLOOR = 0.15
LENGTH_BONUS = 0.2  # per trump beyond the second: long trumps pull the others' and then win
ACE_VALUE = (0.8, 0.7, 0.5)  # best card of a side suit, by how many cards of that suit are held (1, 2, 3+)
SECOND_MASTER_VALUE = 0.45  # the king under one's own ace
GUARDED_KING_VALUE = 0.25  # second-best card of a side suit with a guard
BARE_KING_VALUE = 0.15
VOID_VALUE = 0.3  # a side-suit void when holding at least two trumps (a ruff)


class SuitTables:
    """Per deck: each card's effective suit and power under every trump, and each suit's ranking."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.copies = deck.copies
        self.n_ids = deck.num_ids
        self.suits = {t: deck.effective_suits(t) for t in range(-1, NUM_SUITS)}
        self.power = {t: deck.powers(t) for t in range(NUM_SUITS)}
        # ranking[t][s]: card ids of effective suit s under trump t, best first, one entry per copy
        self.ranking: dict[int, dict[int, list[int]]] = {}
        for t in range(NUM_SUITS):
            suits, power = self.suits[t], self.power[t]
            self.ranking[t] = {
                s: [c for c in sorted(range(self.n_ids), key=lambda c: -power[c]) if suits[c] == s
                    for _ in range(self.copies)]
                for s in range(NUM_SUITS)
            }


@cache
def suit_tables(deck: Deck) -> SuitTables:
    """The shared :class:`SuitTables` of ``deck`` (built once per deck)."""
    return SuitTables(deck)


def _walk(ranking: list[int], held: Counter, gone: Counter) -> Iterator[tuple[int, int, int]]:
    """(j, k, card) for each held card of a suit, best first: j-th held, k higher cards still out."""
    held = Counter(held)
    gone = Counter(gone)
    j = k = 0
    for c in ranking:
        if held[c] > 0:
            held[c] -= 1
            yield j, k, c
            j += 1
        elif gone[c] > 0:
            gone[c] -= 1
        else:
            k += 1


def _by_suit(T: SuitTables, hand: Iterable[int], trump: int) -> dict[int, Counter]:
    """The hand's cards grouped by effective suit under ``trump`` (with their counts)."""
    by_suit: dict[int, Counter] = {s: Counter() for s in range(NUM_SUITS)}
    for c, n in Counter(hand).items():
        by_suit[T.suits[trump][c]][c] = n
    return by_suit


def trick_estimate(deck: Deck, hand: Iterable[int], trump: int, gone: Iterable[int] = ()) -> float:
    """Tricks ``hand`` should take with ``trump`` as trump, on its own (the rule-based agent's calls).

    ``gone``: cards known out of play, so that the cards under them count as higher. Each trump
    counts by how many higher trumps are still out, trumps beyond the second add length, the
    best card of a side suit counts (less in long suits), a king under its ace or a guarded
    king a little, and each void side suit a ruff when holding two or more trumps.
    """
    T = suit_tables(deck)
    by_suit, gone = _by_suit(T, hand, trump), Counter(gone)
    value = 0.0
    n_trumps = 0
    for _, k, _c in _walk(T.ranking[trump][trump], by_suit[trump], gone):
        value += TRUMP_VALUE[k] if k < len(TRUMP_VALUE) else TRUMP_FLOOR
        n_trumps += 1
    value += LENGTH_BONUS * max(0, n_trumps - 2)
    voids = 0
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        length = sum(by_suit[s].values())
        if length == 0:
            voids += 1
            continue
        for j, k, _c in _walk(T.ranking[trump][s], by_suit[s], gone):
            if j == 0 and k == 0:
                value += ACE_VALUE[min(length, 3) - 1]
            elif j == 1 and k == 0:
                value += SECOND_MASTER_VALUE
            elif j == 0 and k == 1:
                value += GUARDED_KING_VALUE if length >= 2 else BARE_KING_VALUE
            else:
                break
    if n_trumps >= 2:
        value += VOID_VALUE * min(voids, n_trumps - 1)
    return value


def alone_losers(deck: Deck, hand: Iterable[int], trump: int, gone: Iterable[int] = ()) -> tuple[float, int]:
    """Expected losing tricks playing ``hand`` alone with ``trump``, and the number of trumps held.

    The rule-based agent's going-alone test (and its Bid Euchre moon / help bids): a side card
    that is not the best of its suit is a loser, a side-suit master a small risk, a trump under
    a missing higher one most of a loser.
    """
    T = suit_tables(deck)
    by_suit, gone = _by_suit(T, hand, trump), Counter(gone)
    trumps = list(_walk(T.ranking[trump][trump], by_suit[trump], gone))
    n_trumps = len(trumps)
    top_run = sum(1 for _, k, _c in trumps if k == 0)
    missing_above = trumps[-1][1] if trumps else 0
    lost = 0.8 * min(n_trumps - top_run, missing_above)
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        for j, k, _c in _walk(T.ranking[trump][s], by_suit[s], gone):
            lost += (0.15 if j == 0 else 0.35 * j) if k == 0 else 1.0
    return lost, n_trumps


def upcard_value(deck: Deck, upcard: int, trump: int) -> float:
    """What the turned-up card adds to the dealer's side, in tricks: a trump plus a discarded loser.

    The rule-based agent adds it to its estimate when ordering up to its partner and subtracts
    it when ordering up to an opponent: 0.95 for the two best trumps, 0.75 for the next two,
    0.5 below.
    """
    T = suit_tables(deck)
    order = T.ranking[trump][trump].index(upcard) // T.copies
    if order <= 1:
        return 0.95
    if order <= 3:
        return 0.75
    return 0.5


def best_discard(deck: Deck, hand: Sequence[int], trump: int) -> int:
    """The rule-based agent's card to throw away: a lone side-suit loser (voiding its suit), else the lowest loser.

    Trumps and side-suit aces are kept; with nothing else, the lowest trump goes when three or
    more trumps remain, else the lowest ace.
    """
    T = suit_tables(deck)
    suits, power = T.suits[trump], T.power[trump]
    side = [c for c in hand if suits[c] != trump]
    trumps = [c for c in hand if suits[c] == trump]
    if not side:
        return min(hand, key=lambda c: (power[c], c))
    length = Counter(suits[c] for c in side)
    aces = [c for c in side if c == T.ranking[trump][suits[c]][0]]
    low = [c for c in side if c not in aces]
    if low:
        return min(low, key=lambda c: (length[suits[c]], power[c], c))
    if len(trumps) >= 3:
        return min(trumps, key=lambda c: (power[c], c))
    return min(aces, key=lambda c: (-length[suits[c]], c))


# ----------------------------------------------------------------------------- the trump count
@cache
def count_values(deck: Deck, trump: int) -> tuple[float, ...]:
    """Per card id, what it adds to :func:`trump_count` with ``trump`` as trump.

    Joker 3.5, right bower 3, left bower 2.5, other trumps 1.5 plus 0.1 per power step (the
    ace of trump 2.0, the nine 1.5), a side-suit ace 1, anything else nothing.
    """
    suits = deck.effective_suits(trump)
    power = deck.powers(trump)
    values = []
    for c in range(deck.num_ids):
        if suits[c] == trump:
            p = power[c]
            values.append(3.5 if p >= 200 else 3.0 if p >= 150 else 2.5 if p >= 140 else 1.5 + 0.1 * (p - 100))
        elif deck.rank_char(c) == "A":
            values.append(1.0)
        else:
            values.append(0.0)
    return tuple(values)


def trump_count(deck: Deck, hand: Iterable[int], trump: int) -> float:
    """The cheap strength of ``hand`` with ``trump`` as trump: the sum of its :func:`count_values`.

    PIMC's rollouts order, name, go alone and bid on it (thresholds in :mod:`euchre_env.agents.search.pimc`).
    """
    values = count_values(deck, trump)
    total = 0.0
    for c in hand:  # summed in hand order, as the recorded PIMC results were computed
        total += values[c]
    return total


def weakest_card(deck: Deck, hand: Iterable[int], trump: int) -> int:
    """The cheap discard of PIMC's rollouts: the lowest side-suit non-ace, else the lowest ace, else the lowest trump.

    Unlike :func:`best_discard` it does not try to void a suit.
    """
    suits = deck.effective_suits(trump)
    power = deck.powers(trump)
    return min(hand, key=lambda c: (suits[c] == trump, deck.rank_char(c) == "A", power[c], c))


__all__ = [
    "SuitTables", "alone_losers", "best_discard", "count_values", "suit_tables", "trick_estimate", "trump_count",
    "upcard_value", "weakest_card",
]
