"""The double-dummy solver compiled with Numba: :class:`CompiledDoubleDummy`, a twin of
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
:meth:`DoubleDummy._winner`). They reach the kernels as arrays, so the cached machine code never holds a rule.

The transposition table is open addressing over two int64 words a position (buckets of 4 slots, the shallowest
entry replaced when a bucket is full): a fixed 4 MiB a solver (``table_bits``), so no solver has to be dropped
for growing (``cached_positions`` is 0). It lasts as long as the solver, across positions and deals, as the
reference's does.

Coverage (:func:`supports`): decks of one copy of each card (24 or 32 cards, the joker or not; every preset but the
double deck), any hand size, seats sitting out, a trick in progress. Not served, callers keep the Python solver:
``max_tricks`` (depth-limited search and its estimate: raises ``ValueError`` here) and the double deck (copies of
cards; its 12-card hands are searched depth-limited anyway). :class:`euchre_env.agents.search.pimc.PIMCAgent` picks
this solver where :func:`supports` holds and :data:`DOUBLE_DUMMY_BUILD` is built (``use_compiled``), else the
reference (docs/compiling.md: a first use never waits on a compile).

Proven equal by ``tests/differential/test_compiled_double_dummy_vs_double_dummy.py`` (random positions of every
preset at every trick count, tricks in progress, lone players; ``card_values``, ``value``, ``value_at_thresholds``).

Measured on the 2-core machine under load (2026-12-06), reference solver -> this one, the same actions:
``EUCHRE_ENV_ENGINE=reference`` (or ``compiled``) ``python benchmarks/bench_pimc.py --rules knock --worlds 50
--hands 8``: a play decision's median 21.2 -> 5.4 ms, a calling decision's 350 -> 38 ms (what is left is mostly
sampling and replaying the worlds); a knock deal with four PIMC-50 seats (12 deals of
``evaluation.duplicate.hand_deal``, two runs) 1.90 -> 0.19 s and 1.47 -> 0.21 s; the solver alone,
``card_values`` at the first lead of 200 random deals (one solver): knock 3.7 -> 0.11 ms, Bid Euchre 15.2 -> 0.32 ms.

Why it is written as it is: one recursive kernel (:func:`_node`, a trick boundary or a card to play; its move,
:func:`_play`, inlined) with scalar arguments and the hands as a tuple, so a call passes no array it did not get
and nothing is allocated (built without reference counting). Every call of it passes int64 values, never a
literal (``_ZERO``, ``_NONE``): a literal argument compiles a second version of a recursive kernel, and its calls
to itself crash once loaded from Numba's disk cache (numba#6061, #6713); ``tests/differential/...`` checks that
the kernel is compiled once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from euchre_env.agents.search.double_dummy import DoubleDummy
from euchre_env.compiled.builds import Family, use_compiled
from euchre_env.game.cards import NUM_SUITS, Deck, follow_suit
from euchre_env.game.seats import NUM_SEATS, team_of

# The kernels of this file, built by warm() below (ahead with `euchre compile`, or in the background while PIMC
# searches with the reference solver). The tables are arguments, so this file alone keys the build.
DOUBLE_DUMMY_BUILD = Family("double_dummy", (__file__,), "euchre_env.agents.search.double_dummy_compiled:warm")

MAX_BITS = 62  # cards of a deck: each is a bit of an int64 (with room for the shift of the reduction)
MAX_LIVE = 31  # cards in the hands and the trick: two bits each in the first word of a table key
TABLE_BITS = 18  # 2**18 slots of 16 bytes a solver

# layout of the tables array (int64): per bit its suit, per suit its mask and the cards that follow it when led,
# per bit the cards that take a trick from it
_SUIT, _SUIT_MASK, _FOLLOW, _BEATEN_BY, _TAB_SIZE = 0, 64, 68, 72, 136
# layout of a search's settings (int64): maker team, active seats, out seats (bits), next active seat, team of seat
_MAKER, _ACTIVE, _OUT, _NEXT, _TEAM, _CFG_SIZE = 0, 1, 2, 3, 7, 11
# second word of a table entry: the key's live counts (6 bits a suit), leader, out seats, maker team, a flag that
# the slot is taken; then the bounds and the tricks left (for replacement)
_KEY_MASK = (1 << 32) - 1
_TAKEN = 1 << 31
_LO, _HI, _LEFT = 40, 48, 56
_MUL_A = 0x9E3779B97F4A7C15 - (1 << 64)
_MUL_B = 0xC2B2AE3D27D4EB4F - (1 << 64)
_BUCKET = 4
# constants passed to _node as int64, not as literals (the module docstring says why)
_ZERO, _NONE = np.int64(0), np.int64(-1)

if numba.config.DISABLE_JIT:  # the kernels run as Python functions
    def _popcount(x: int) -> int:
        return bin(int(x) & ((1 << 64) - 1)).count("1")

    def _low_index(x: int) -> int:
        return (int(x) & -int(x)).bit_length() - 1

    def _high_index(x: int) -> int:
        return int(x).bit_length() - 1
else:
    @intrinsic
    def _popcount(typingctx: Any, x: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.ctpop(args[0])
        return types.int64(types.int64), codegen

    @intrinsic
    def _low_index(typingctx: Any, x: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return types.int64(types.int64), codegen

    @intrinsic
    def _high_index(typingctx: Any, x: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.sub(ir.Constant(ir.IntType(64), 63), builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1)))
        return types.int64(types.int64), codegen


@njit(cache=True, _nrt=False)
def _with(h, seat, hand):
    """The hands ``h`` with ``seat``'s replaced by ``hand``."""
    return (hand if seat == 0 else h[0], hand if seat == 1 else h[1], hand if seat == 2 else h[2],
            hand if seat == 3 else h[3])


@njit(cache=True, _nrt=False)
def _slot(tt, ka, kb):
    """First slot of the key's bucket in the transposition table."""
    x = ka * _MUL_A ^ kb * _MUL_B
    return (x ^ (x >> 31)) & (tt.shape[0] - 1)


if numba.config.DISABLE_JIT:
    def _slot(tt, ka, kb):  # the products as int64 give them: Python's ints do not wrap
        x = ((int(ka) * _MUL_A ^ int(kb) * _MUL_B) + (1 << 63)) % (1 << 64) - (1 << 63)
        return (x ^ (x >> 31)) & (tt.shape[0] - 1)


@njit(cache=True, _nrt=False)
def _store(tt, ka, kb, lo, hi, left):
    """Enter the bounds of key (ka, kb) in its bucket: its own slot, else an empty one, else the shallowest."""
    word = kb | lo << _LO | hi << _HI | left << _LEFT
    first = _slot(tt, ka, kb)
    victim, victim_left = first, 99
    for j in range(_BUCKET):
        i = (first + j) & (tt.shape[0] - 1)
        w = tt[i, 1]
        if w == 0 or (tt[i, 0] == ka and w & _KEY_MASK == kb):
            victim = i
            break
        if (w >> _LEFT) & 0x3F < victim_left:
            victim, victim_left = i, (w >> _LEFT) & 0x3F
    tt[victim, 0] = ka
    tt[victim, 1] = word


@njit(cache=True, _nrt=False)
def _node(tab, cfg, tt, h, seat, count, led, win_bit, win_seat, alive, alpha, beta):
    """Makers' tricks from here (fail-soft in ``(alpha, beta)``) with ``seat`` to play the ``count``-th card of the
    trick (0: a trick boundary, ``seat`` leads); ``led`` the suit led, ``win_bit`` / ``win_seat`` the card taking
    the trick so far and its seat, ``alive`` the cards not in a finished trick. DoubleDummy's boundary and play."""
    maker = cfg[_MAKER]
    hand = h[seat]
    lo, hi, ka, kb = 0, 0, 0, 0
    if count == 0:  # the reference's boundary: the transposition table
        if hand == 0:
            return 0
        left = _popcount(hand)
        alive = h[0] | h[1] | h[2] | h[3]
        shift = 0
        kb = cfg[_OUT] << 26 | maker << 30 | seat << 24 | _TAKEN
        for s in range(NUM_SUITS):  # each live card's seat, suit by suit, low cards first: the squeezed hands
            rest = alive & tab[_SUIT_MASK + s]
            kb |= _popcount(rest) << (6 * s)
            while rest != 0:
                low = rest & -rest
                rest ^= low
                owner = 0 if h[0] & low else (1 if h[1] & low else (2 if h[2] & low else 3))
                ka |= owner << shift
                shift += 2
        lo, hi = 0, left
        first = _slot(tt, ka, kb)
        for j in range(_BUCKET):
            i = (first + j) & (tt.shape[0] - 1)
            w = tt[i, 1]
            if w == 0:
                break
            if tt[i, 0] == ka and w & _KEY_MASK == kb:
                lo, hi = (w >> _LO) & 0xFF, (w >> _HI) & 0xFF
                break
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        alpha, beta = max(alpha, lo), min(beta, hi)
        allowed = hand
    else:
        follow = hand & tab[_FOLLOW + led]
        allowed = follow if follow != 0 else hand
    moves = 0
    m = allowed
    while m != 0:  # skip a card when the next higher live card of its suit is ours too
        low = m & -m
        m ^= low
        above = alive & tab[_SUIT_MASK + tab[_SUIT + _low_index(low)]] & ~((low << 1) - 1)
        if above != 0 and hand & (above & -above) != 0:
            continue
        moves |= low
    team = cfg[_TEAM + seat]
    first_move = 0
    if count > 0 and cfg[_TEAM + win_seat] != team and moves & (moves - 1) != 0:
        takers = moves & tab[_BEATEN_BY + win_bit]  # the cheapest card that takes the trick from the other side
        first_move = takers & -takers
    maximize = team == maker
    best = -1 if maximize else 1 << 20
    a, b = alpha, beta
    rest = moves & ~first_move
    while True:
        if first_move != 0:
            low, first_move = first_move, 0
        elif rest == 0:
            break
        elif count == 0:  # leading: high cards first
            low = 1 << _high_index(rest)
            rest ^= low
        else:  # following: low cards first
            low = rest & -rest
            rest ^= low
        v = _play(tab, cfg, tt, h, seat, hand, low, count, (led, win_bit, win_seat), alive, a, b)
        if maximize:
            if v > best:
                best = v
                if v > a:
                    a = v
        elif v < best:
            best = v
            if v < b:
                b = v
        if a >= b:
            break
    if count == 0:
        if best <= alpha:
            hi = min(hi, best)
        elif best >= beta:
            lo = max(lo, best)
        else:
            lo = hi = best
        _store(tt, ka, kb, lo, hi, _popcount(hand))
    return best


@njit(cache=True, _nrt=False, inline="always")
def _play(tab, cfg, tt, h, seat, hand, low, count, trick, alive, alpha, beta):
    """Makers' tricks from ``seat`` playing the card ``low`` of its ``hand`` as the ``count``-th card of the trick
    on (fail-soft in ``(alpha, beta)``; ``trick``: the suit led, the bit and the seat of the card taking the trick
    so far): the trick's state after it, then the next seat's turn, or, after the trick's last card, the next
    trick's boundary with this trick counted. The one move of :func:`_node` and of :func:`_card_values`; inlined
    into both (numba's inliner), so :func:`_node` recurses into itself alone."""
    led, win_bit, win_seat = trick
    bit = _low_index(low)
    nh = _with(h, seat, hand ^ low)
    if count == 0:
        n_led, n_bit, n_seat = tab[_SUIT + bit], bit, seat
    elif tab[_BEATEN_BY + win_bit] & low:
        n_led, n_bit, n_seat = led, bit, seat
    else:
        n_led, n_bit, n_seat = led, win_bit, win_seat
    if count + 1 == cfg[_ACTIVE]:
        base = 1 if cfg[_TEAM + n_seat] == cfg[_MAKER] else 0
        return base + _node(tab, cfg, tt, nh, n_seat, _ZERO, _NONE, _ZERO, _ZERO, _ZERO, alpha - base, beta - base)
    return _node(tab, cfg, tt, nh, cfg[_NEXT + seat], count + 1, n_led, n_bit, n_seat, alive, alpha, beta)


@njit(cache=True, _nrt=False)
def _boundary_value(tab, cfg, tt, h, leader, alpha, beta):
    """Makers' tricks from a trick boundary, ``leader`` to lead (fail-soft in ``(alpha, beta)``)."""
    return _node(tab, cfg, tt, h, leader, _ZERO, _NONE, _ZERO, _ZERO, _ZERO, alpha, beta)


@njit(cache=True, _nrt=False)
def _card_values(tab, cfg, tt, h, to_play, t_bits, t_seats, n_trick, values):
    """``values[bit]``: the makers' tricks from now on after ``to_play`` plays ``bit`` (-1: not legal), the trick in
    progress being ``t_bits`` / ``t_seats`` (its first ``n_trick``). DoubleDummy._root."""
    hand = h[to_play]
    left = _popcount(hand)
    alive = h[0] | h[1] | h[2] | h[3]
    led, win_bit, win_seat = -1, 0, 0
    for i in range(n_trick):
        alive |= 1 << t_bits[i]
        if i == 0:
            led, win_bit, win_seat = tab[_SUIT + t_bits[0]], t_bits[0], t_seats[0]
        elif tab[_BEATEN_BY + win_bit] >> t_bits[i] & 1:
            win_bit, win_seat = t_bits[i], t_seats[i]
    allowed = hand
    if n_trick > 0 and hand & tab[_FOLLOW + led] != 0:
        allowed = hand & tab[_FOLLOW + led]
    for bit in range(values.shape[0]):
        values[bit] = -1
    m = allowed
    while m != 0:
        low = m & -m
        m ^= low
        values[_low_index(low)] = _play(tab, cfg, tt, h, to_play, hand, low, n_trick, (led, win_bit, win_seat),
                                        alive, _NONE, left + 1)


def supports(deck: Deck) -> bool:
    """Whether :class:`CompiledDoubleDummy` serves ``deck``: one copy of each card, every card a bit of an int64."""
    return deck.copies == 1 and deck.size <= MAX_BITS


MAX_PYTHON_POSITIONS = 400_000  # a Python solver's transposition table is dropped beyond this many positions


def solver_for(deck: Deck, trump: int, current: DoubleDummy | CompiledDoubleDummy | None = None
               ) -> DoubleDummy | CompiledDoubleDummy:
    """The solver a search keeps for ``deck`` and ``trump``, given the one it has (``current``): the compiled one
    where it applies and is built (a Python one is replaced once it is), else the Python one (a new one once its
    table holds more than ``MAX_PYTHON_POSITIONS``). The one choice of solver for PIMC and the searches."""
    if isinstance(current, CompiledDoubleDummy):
        return current
    if supports(deck) and use_compiled(DOUBLE_DUMMY_BUILD):
        return CompiledDoubleDummy(deck, trump)
    if current is None or current.cached_positions() > MAX_PYTHON_POSITIONS:
        return DoubleDummy(deck, trump)
    return current


class CompiledDoubleDummy:
    """:class:`DoubleDummy`'s full solves for one deck and trump suit, compiled (reuse it across positions)."""

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
        self.tt = np.zeros((1 << table_bits, 2), np.int64)
        self._cfg: dict[tuple[int, tuple[bool, ...]], np.ndarray] = {}
        self._values = np.zeros(n, np.int64)
        self._t_bits = np.zeros(NUM_SEATS, np.int64)
        self._t_seats = np.zeros(NUM_SEATS, np.int64)

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
        for i, (seat, card) in enumerate(trick):
            self._t_bits[i], self._t_seats[i] = self.card_bit[card], seat
        values = self._values
        _card_values(self.tab, self._settings(maker_team, out), self.tt, tuple(masks[:NUM_SEATS]), int(to_play),
                     self._t_bits, self._t_seats, len(trick), values)
        return {self.bit_card[b]: float(values[b]) for b in range(len(values)) if values[b] >= 0}

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
        cfg = self._settings(maker_team, out)
        return float(_boundary_value(self.tab, cfg, self.tt, masks, int(leader), -1, left + 1))

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
            if _boundary_value(self.tab, cfg, self.tt, masks, int(leader), int(k) - 1, int(k)) < k:
                break
            reached = k
        return reached

    def cached_positions(self) -> int:
        """0: the transposition table has a fixed size (callers never need to drop this solver)."""
        return 0


def warm() -> None:
    """Compile (or load) the kernels with the argument types every caller passes: a knock deal, a trick in
    progress, a lone maker, and the threshold searches."""
    from euchre_env.game.engine import GameState
    from euchre_env.game.rules import Rules

    rules = Rules.preset("knock")
    hands = [list(h) for h in GameState(rules, 0).hands]
    solver = CompiledDoubleDummy(rules.deck_spec, 1, table_bits=10)
    solver.card_values(hands, 0, 0)
    solver.value(hands, 1, 1, out=(False, False, False, True))
    solver.value_at_thresholds(hands, 2, 0, (3, 5))
