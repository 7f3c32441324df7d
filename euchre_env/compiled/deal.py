"""Dealing on arrays of games: :mod:`euchre_env.game.deals` (the shuffle and ``deal_from_order``'s layout) ported
to Numba, each game's own stream of uniforms, and a game's next deal once its hand is over.

Reference: :mod:`euchre_env.game.deals`. Proven equal to it by ``tests/differential/test_vector_euchre_vs_engine.py``
(the deals laid out as ``deals.random_deal`` lays them out) and ``tests/differential/test_reseed_vs_default_rng.py``
(the streams), and the next deals by ``tests/differential/test_single_seat_vector_vs_single_seat.py``.
"""

from __future__ import annotations

import numpy as np

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.layout import CORE_FILES, DEALER, HANDNO, O_BID, O_JOKER, O_TRICKS, RMARGIN, SC, WINNER
from euchre_env.compiled.rules import left, start_hand

jit = keyed(CORE_FILES)


@jit
def shuffled_deals(u, pack, dealers, tricks, extra, is_bid, cards, upcards):
    """Random deals in ``deals.random_deal``'s layout (blocks of ``tricks`` cards from the dealer's left, then
    with ``extra`` a 25th card for the dealer, then the up-card unless ``is_bid``), one per row of ``u``: the
    pack shuffled by Fisher-Yates with the uniforms ``u[i]``. ``cards [k, 4, tricks + extra]``, ``upcards [k]``."""
    order = np.empty(pack.shape[0], np.int16)
    for i in range(u.shape[0]):
        shuffle(u[i], pack, order)
        upcards[i] = lay_out(order, dealers[i], tricks, extra, is_bid, cards[i])


@jit(inline="always")
def shuffle(u, pack, order):
    """``order``: the cards of ``pack`` shuffled by Fisher-Yates with the uniforms ``u[0 .. len(pack) - 2]``."""
    n = pack.shape[0]
    for j in range(n):
        order[j] = pack[j]
    for j in range(n - 1):
        r = j + int(u[j] * (n - j))
        order[j], order[r] = order[r], order[j]


@jit(inline="always")
def lay_out(order, dealer, tricks, extra, is_bid, cards):
    """``deals.deal_from_order``: the pack in ``order`` dealt into ``cards [4, tricks + extra]``; the up-card."""
    seat = dealer
    pos = 0
    for _ in range(4):
        seat = (seat + 1) % 4
        for j in range(tricks):
            cards[seat, j] = order[pos]
            pos += 1
    if extra:
        cards[dealer, tricks] = order[pos]
        pos += 1
    return -1 if is_bid else order[pos]


@jit(inline="always")
def deal_on(s, g, new_episode, u, d, t):
    """Game ``g``'s next deal once its hand is over: the next hand by the next dealer, or with ``new_episode`` a
    new game (scores 0) whose dealer is drawn from ``u[len(pack)]``; the pack (``d``, a
    :class:`~euchre_env.compiled.layout.DealBuffers`) shuffled with ``u`` into the game's scratch rows."""
    st, opt, pack = s.st, t.opt, d.pack
    if new_episode:
        for f in range(SC, RMARGIN + 1):  # scores, hand number, games and rubber points, reneges, ...
            st[g, f] = 0
        st[g, WINNER] = -1
        st[g, DEALER] = int(u[pack.shape[0]] * 4)  # u < 1
    else:  # the deal passes left
        st[g, DEALER] = left(st[g, DEALER])
        st[g, HANDNO] += 1
    order, deal = d.order[g], d.deal[g]
    shuffle(u, pack, order)
    for p in range(4):
        for j in range(deal.shape[1]):
            deal[p, j] = -1
    is_bid = opt[O_BID] != 0
    extra = 1 if is_bid and opt[O_JOKER] >= 0 else 0  # Bid Euchre with the joker: the dealer takes the 25th card
    upcard = lay_out(order, st[g, DEALER], opt[O_TRICKS], extra, is_bid, deal)
    start_hand(s, g, deal, upcard, t)


# splitmix64 (Steele, Lea and Flood 2014): each game's own stream of uniforms for its next deals, drawn inside the
# parallel loops that end hands (one NumPy generator shared by the games could not be drawn from there), so that a
# game's deals do not depend on which other games ended a hand at the same step or on how the games are sliced.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@jit(inline="always")
def stream_uniforms(streams, g, out):
    """``out``: uniforms in [0, 1) drawn from game ``g``'s stream, whose state ``streams[g]`` (uint64) moves on."""
    x = streams[g]
    for j in range(out.shape[0]):
        x += _GOLDEN
        z = (x ^ (x >> _S30)) * _MIX1
        z = (z ^ (z >> _S27)) * _MIX2
        z = z ^ (z >> _S31)
        out[j] = float(z >> _S11) * _TO_UNIT
    streams[g] = x
