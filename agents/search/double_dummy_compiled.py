"""The double-dummy solver in C: :class:`CompiledDoubleDummy`, a twin of
:class:`euchre_env.agents.search.double_dummy.DoubleDummy` (the reference) with the same ``card_values``, ``value``
and ``value_at_thresholds``.

    solver = CompiledDoubleDummy(rules.deck_spec, trump)    # where supports(rules.deck_spec)
    solver.card_values(hands, to_play, maker_team, trick=..., out=...)   # == DoubleDummy(...).card_values(...)

The same search as the reference's full solve (``max_tricks=None``): fail-soft alpha-beta over bitmasks, a
transposition table at trick boundaries keyed on relative ranks (:meth:`DoubleDummy._relative_key`'s squeezed
hands, written here as each live card's seat, suit by suit, plus the suits' live counts), the same equivalent-card
reduction and move ordering. Exact minimax values are unique, so the values are the reference's, and PIMC's actions
with either solver are the same. No rule is written here: the bit order and the suit masks are the reference
solver's own (a ``DoubleDummy`` is built for them), the cards that may follow a suit come from
:func:`euchre_env.game.cards.follow_suit` (the cards of the whole pack it keeps when a suit is led; a hand holding
none of them plays anything), and who takes a trick from :func:`euchre_env.game.cards.trick_winner` (a table of
which card, played after the card winning the trick so far, takes it: the two-card trick of
:meth:`DoubleDummy._winner`). They reach the C search as arrays (``tab``, and the settings of a maker team and
seats sitting out), so the machine code holds no rule.

The transposition table is open addressing over two 64-bit words a position (buckets of 4 slots, the shallowest
entry replaced when a bucket is full): a fixed 4 MiB a solver (``table_bits``), so no solver has to be dropped
for growing (``cached_positions`` is 0). It lasts as long as the solver, across positions and deals, as the
reference's does.

Coverage (:func:`supports`): decks of one copy of each card (24 or 32 cards, the joker or not; every preset but the
double deck), any hand size, seats sitting out, a trick in progress. Not served, callers keep the Python solver:
``max_tricks`` (depth-limited search and its estimate: raises ``ValueError`` here) and the double deck (copies of
cards; its 12-card hands are searched depth-limited anyway). :func:`solver_for` (the choice of PIMC and the
searches built on it) picks this solver where :func:`supports` holds and the C extension is built (by ``pip
install``: ``setup.py``), else the reference.

Proven equal by ``tests/differential/test_compiled_double_dummy_vs_double_dummy.py`` (random positions of every
preset at every trick count, tricks in progress, lone players; ``card_values``, ``value``, ``value_at_thresholds``).

Measured on the 2-core machine under load (2026-12-06), reference solver -> the twin when it was compiled by Numba,
the same actions: ``python benchmarks/bench_pimc.py --rules knock --worlds 50 --hands 8``: a play decision's median
21.2 -> 5.4 ms, a calling decision's 350 -> 38 ms (what is left is mostly sampling and replaying the worlds); a
knock deal with four PIMC-50 seats (12 deals of ``evaluation.duplicate.hand_deal``, two runs) 1.90 -> 0.19 s and
1.47 -> 0.21 s. The solver alone, ``card_values`` at the first lead of 200 random deals (one solver a trump,
created before the clock starts), CPU ms a call: reference 3.7 (knock), 15.2 (Bid Euchre); Numba 0.11-0.15,
0.32-0.35; C 0.09, 0.27 (2026-12-07, the 2-core machine loaded by other jobs: medians of 16 alternated runs, the
Numba twin from its disk cache, the same values). A process's first call: Numba's 0.3 s load of its cached
machine code (after a first compile of ~10 s), C's 1 ms.

Why it is written as it is: the search is one C file, ``agents/search/c/double_dummy.c`` (the extension
``_double_dummy``, built in a third of a CPU second by ``pip install``; nothing compiles at run time), one
recursive function for a trick boundary or a card to play with its move inlined, the four hands played in place
and put back, so a search allocates nothing. Its ``Solver`` owns the transposition table (freed with it) and
releases the GIL while it searches (two threads sharing a solver take turns: a lock). The table is read at random
all over its 4 MiB, so on Linux it lies in transparent huge pages (as NumPy's large arrays do): with 4 KiB pages a
search spent as long in page faults and TLB misses as in the search. This class keeps what is Python's: the tables
and settings (built from the reference and :mod:`euchre_env.game`), the card ids turned into bits and the checks of
the input, the values turned back into card ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from types import ModuleType

import numpy as np

from euchre_env.agents.search.double_dummy import DoubleDummy
from euchre_env.compiled.native import available, extension
from euchre_env.game.cards import NUM_SUITS, Deck, follow_suit
from euchre_env.game.seats import NUM_SEATS, team_of

EXTENSION = "agents.search._double_dummy"  # euchre_env.agents.search._double_dummy, built from agents/search/c
MAX_BITS = 62  # cards of a deck: each is a bit of a 64-bit word (with room for the shift of the reduction)
MAX_LIVE = 31  # cards in the hands and the trick: two bits each in the first word of a table key
TABLE_BITS = 18  # 2**18 slots of 16 bytes a solver

# layout of the tables array (int64): per bit its suit, per suit its mask and the cards that follow it when led,
# per bit the cards that take a trick from it (double_dummy.c's T_* read the same)
_SUIT, _SUIT_MASK, _FOLLOW, _BEATEN_BY, _TAB_SIZE = 0, 64, 68, 72, 136
# layout of a search's settings (int64): maker team, active seats, out seats (bits), next active seat, team of seat
# (double_dummy.c's C_*)
_MAKER, _ACTIVE, _OUT, _NEXT, _TEAM, _CFG_SIZE = 0, 1, 2, 3, 7, 11


@cache
def _native() -> ModuleType:
    """The C extension (:class:`~euchre_env.compiled.native.NotBuiltError` in one line when it is not built)."""
    return extension(EXTENSION)


@cache
def _built() -> bool:
    return available(EXTENSION)


def supports(deck: Deck) -> bool:
    """Whether :class:`CompiledDoubleDummy` serves ``deck``: one copy of each card, every card a bit of a word."""
    return deck.copies == 1 and deck.size <= MAX_BITS


MAX_PYTHON_POSITIONS = 400_000  # a Python solver's transposition table is dropped beyond this many positions


def solver_for(deck: Deck, trump: int, current: DoubleDummy | CompiledDoubleDummy | None = None
               ) -> DoubleDummy | CompiledDoubleDummy:
    """The solver a search keeps for ``deck`` and ``trump``, given the one it has (``current``): the compiled one
    where it applies and its extension is built, else the Python one (a new one once its table holds more than
    ``MAX_PYTHON_POSITIONS``). The one choice of solver for PIMC and the searches."""
    if isinstance(current, CompiledDoubleDummy):
        return current
    if supports(deck) and _built():
        return CompiledDoubleDummy(deck, trump)
    if current is None or current.cached_positions() > MAX_PYTHON_POSITIONS:
        return DoubleDummy(deck, trump)
    return current


class CompiledDoubleDummy:
    """:class:`DoubleDummy`'s full solves for one deck and trump suit, in C (reuse it across positions)."""

    def __init__(self, deck: Deck, trump: int, table_bits: int = TABLE_BITS) -> None:
        if not supports(deck):
            raise ValueError("CompiledDoubleDummy: the deck has copies of cards or too many cards; use DoubleDummy")
        self.deck, self.trump = deck, trump
        reference = DoubleDummy(deck, trump)  # its bit order and suit masks
        self.bit_card = reference.bit_card
        self.card_bit = {c: b for b, c in enumerate(self.bit_card)}
        n = len(self.bit_card)
        tab = np.zeros(_TAB_SIZE, np.int64)
        tab[_SUIT:_SUIT + n] = reference.bit_suit
        tab[_SUIT_MASK:_SUIT_MASK + NUM_SUITS] = reference.suit_mask
        pack = list(self.bit_card)
        for led in range(NUM_SUITS):
            tab[_FOLLOW + led] = sum(1 << self.card_bit[c] for c in follow_suit(pack, led, reference.suits))
        for a in range(n):
            tab[_BEATEN_BY + a] = sum(1 << b for b in range(n) if b != a and reference._winner((a, b)) == 1)
        self.tab = tab
        self._solver = _native().Solver(tab, table_bits)  # owns the transposition table
        self._cfg: dict[tuple[int, tuple[bool, ...]], np.ndarray] = {}

    def _settings(self, maker_team: int, out: Sequence[bool]) -> np.ndarray:
        key = (maker_team, tuple(bool(o) for o in out))
        cfg = self._cfg.get(key)
        if cfg is None:
            cfg = np.zeros(_CFG_SIZE, np.int64)
            cfg[_MAKER] = maker_team
            cfg[_ACTIVE] = NUM_SEATS - sum(key[1])
            cfg[_OUT] = sum(1 << s for s in range(NUM_SEATS) if key[1][s])
            for s in range(NUM_SEATS):
                n = (s + 1) % NUM_SEATS
                while key[1][n]:
                    n = (n + 1) % NUM_SEATS
                cfg[_NEXT + s] = n
                cfg[_TEAM + s] = team_of(s)
            cfg = self._cfg[key] = cfg
        return cfg

    def _masks(self, groups: Sequence[Sequence[int]]) -> list[int]:
        """One bitmask per group of card ids (DoubleDummy.to_masks for one copy of each card)."""
        used = 0
        masks = []
        for cards in groups:
            mask = 0
            for c in cards:
                bit = 1 << self.card_bit[c]
                if used & bit:
                    raise ValueError(f"card {self.deck.name(c)} appears more often than the deck holds it")
                used |= bit
                mask |= bit
            masks.append(mask)
        if bin(used).count("1") > MAX_LIVE:
            raise ValueError(f"CompiledDoubleDummy: more than {MAX_LIVE} cards in play; use DoubleDummy")
        return masks

    def card_values(
        self,
        hands: Sequence[Sequence[int]],
        to_play: int,
        maker_team: int,
        trick: Sequence[tuple[int, int]] = (),
        out: Sequence[bool] = (False,) * NUM_SEATS,
        max_tricks: int | None = None,
    ) -> dict[int, float]:
        """:meth:`DoubleDummy.card_values` (full solves only: ``max_tricks`` raises ``ValueError``)."""
        if max_tricks is not None:
            raise ValueError("CompiledDoubleDummy solves whole hands only: use DoubleDummy for max_tricks")
        masks = self._masks([*(() if out[s] else hands[s] for s in range(NUM_SEATS)), [c for _, c in trick]])
        t_bits = tuple(self.card_bit[c] for _, c in trick)
        t_seats = tuple(int(s) for s, _ in trick)
        pairs = self._solver.card_values(self._settings(maker_team, out), tuple(masks[:NUM_SEATS]), int(to_play),
                                         t_bits, t_seats)
        bit_card = self.bit_card
        return {bit_card[b]: float(v) for b, v in pairs}

    def value(
        self,
        hands: Sequence[Sequence[int]],
        leader: int,
        maker_team: int,
        out: Sequence[bool] = (False,) * NUM_SEATS,
        max_tricks: int | None = None,
    ) -> float:
        """:meth:`DoubleDummy.value` (full solves only: ``max_tricks`` raises ``ValueError``)."""
        if max_tricks is not None:
            raise ValueError("CompiledDoubleDummy solves whole hands only: use DoubleDummy for max_tricks")
        masks = tuple(self._masks([() if out[s] else hands[s] for s in range(NUM_SEATS)]))
        left = bin(masks[leader]).count("1")
        return float(self._solver.boundary_value(self._settings(maker_team, out), masks, int(leader), -1, left + 1))

    def value_at_thresholds(
        self,
        hands: Sequence[Sequence[int]],
        leader: int,
        maker_team: int,
        thresholds: Sequence[int],
        out: Sequence[bool] = (False,) * NUM_SEATS,
    ) -> int:
        """:meth:`DoubleDummy.value_at_thresholds`: null-window searches at each threshold in turn."""
        masks = tuple(self._masks([() if out[s] else hands[s] for s in range(NUM_SEATS)]))
        cfg = self._settings(maker_team, out)
        reached = 0
        for k in thresholds:
            if self._solver.boundary_value(cfg, masks, int(leader), int(k) - 1, int(k)) < k:
                break
            reached = k
        return reached

    def cached_positions(self) -> int:
        """0: the transposition table has a fixed size (callers never need to drop this solver)."""
        return 0
