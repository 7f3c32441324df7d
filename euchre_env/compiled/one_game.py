"""One game, few arguments: the kernels the AEC env (:mod:`euchre_env.compiled.game`) calls at every decision.

Reference: :class:`~euchre_env.game.engine.GameState` and the observers, through the same ports as the batch
(:mod:`~euchre_env.compiled.rules`, :mod:`~euchre_env.compiled.observe`, :mod:`~euchre_env.compiled.deal`); proven equal
to them by ``tests/differential/test_compiled_game_vs_engine.py`` (``tests/differential/kernels_vs_engine.py``'s checks
over the AEC env) and ``tests/differential/test_reference_game_vs_compiled_game.py``.

The AEC env steps one game per call, so what it pays is Numba's dispatch, about 50 ns per array argument: with
the batch's arrays a call would cost more than the rules. It passes five arrays instead, one per dtype, and the
kernels cut the :class:`~euchre_env.compiled.layout.GameArrays` and the
:class:`~euchre_env.compiled.layout.Tables` out of them (reshaped slices). The per-decision kernels are built
without the runtime's reference counting (``_nrt=False``; they allocate nothing): with it, the two dozen views of
the bundles cost an atomic add and subtract each, which took 16% of the README loop's time (perf, 2026-12-06)
and made the step 10-15% slower than before the bundles. ``as_strided`` needs the runtime, ``reshape`` does not.

- ``st``  int32 [1, NF]: the scalar fields, as the batch's;
- ``s8``  int8: hands, dealt, trick cards, trick seats (as the batch's, one game), then the mask;
- ``s16`` int16: calls [1, rounds, 4], then the hand's history (count, then the absolute ids);
- ``f32`` float32: the observation, then the scratch encoding and the absolute mask;
- ``T``   int64: every table of :class:`~euchre_env.compiled.layout.Tables`, flat, behind a header of
  (offset, rows, columns) per table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.deal import lay_out
from euchre_env.compiled.layout import (
    B_BASE_SIZE,
    B_SIZE,
    CORE_FILES,
    CUR,
    DEALER,
    FRAME,
    O_BID,
    O_JOKER,
    O_NIDS,
    O_TRICKS,
    SC,
    WINNER,
    GameArrays,
    Tables,
)
from euchre_env.compiled.observe import decide, encode_seat
from euchre_env.compiled.rules import apply, start_hand

jit = keyed((*CORE_FILES, __file__))  # its own file is not in the core's key: the batch kernels hold none of it

# Every array of Tables, in its field order (a table added there is packed here without an edit).
PACKED_TABLES = tuple(name for name in Tables._fields if name not in ("structured", "identity"))
(P_OPT, P_TAB, P_AKIND, P_AARG, P_AALONE, P_EFF, P_POWER, P_RANK, P_PRINTED, P_RND, P_OFF, P_LEADER_AT, P_CARD_AT,
 P_RND_OFF, P_RND_WIDTH, P_COL, P_PERMS, P_CANDS, P_NCANDS, P_TO_ABS) = range(len(PACKED_TABLES))
P_STRUCTURED = 3 * len(PACKED_TABLES)  # the header's last field: the structured observation (0 / 1)
P_HEADER = P_STRUCTURED + 1
assert PACKED_TABLES[P_TO_ABS] == "to_abs" and PACKED_TABLES[P_PRINTED] == "printed"  # the names follow Tables


def pack_tables(tables: Any) -> np.ndarray:
    """``T`` for the one-game kernels: every table of ``tables`` (a ``Tables`` or ``KernelTables``) in one int64
    array."""
    arrays = [np.atleast_2d(np.asarray(getattr(tables, name), np.int64)) for name in PACKED_TABLES]
    header = np.zeros(P_HEADER, np.int64)
    pos = P_HEADER
    for i, a in enumerate(arrays):
        header[3 * i:3 * i + 3] = pos, a.shape[0], a.shape[1]
        pos += a.size
    header[P_STRUCTURED] = bool(tables.structured)
    return np.concatenate([header, *(a.ravel() for a in arrays)])


def packed_sizes(tables: Any) -> tuple[int, int, int, int]:
    """Where the one game's buffers split (``tables``: a ``KernelTables``): the mask's offset in ``s8``, the
    history's in ``s16``, the observation's size (the scratch's offset in ``f32``), and the length of ``f32``."""
    n, k = int(tables.opt[O_NIDS]), int(tables.opt[O_TRICKS])
    obs = int(tables.off[B_SIZE] if tables.structured else tables.off[B_BASE_SIZE])
    return 8 * n + 8 * k, 4 * int(tables.rounds), obs, obs + int(tables.raw_size) + len(tables.akind)


@jit(inline="always")
def _t1(T, i):
    o = T[3 * i]
    return T[o:o + T[3 * i + 1] * T[3 * i + 2]]


@jit(inline="always")
def _t2(T, i):
    o, r, c = T[3 * i], T[3 * i + 1], T[3 * i + 2]
    return T[o:o + r * c].reshape((r, c))


@jit(inline="always")
def _tables(T):
    """The :class:`Tables` packed in ``T`` (views)."""
    return Tables(_t1(T, P_OPT), _t1(T, P_TAB), _t1(T, P_AKIND), _t1(T, P_AARG), _t1(T, P_AALONE), _t2(T, P_EFF),
                  _t2(T, P_POWER), _t1(T, P_RANK), _t1(T, P_PRINTED), _t1(T, P_RND), _t1(T, P_OFF),
                  _t1(T, P_LEADER_AT), _t2(T, P_CARD_AT), _t1(T, P_RND_OFF), _t1(T, P_RND_WIDTH), _t2(T, P_COL),
                  _t2(T, P_PERMS), _t2(T, P_CANDS), _t1(T, P_NCANDS), _t2(T, P_TO_ABS), T[P_STRUCTURED] != 0, 0)


@jit(inline="always")
def _unpack(st, s8, s16, f32, T):
    """The one game's views: its GameArrays, mask, history, obs, raw (scratch), amask (scratch)."""
    opt = _t1(T, P_OPT)
    n, k = opt[O_NIDS], opt[O_TRICKS]
    h, t = 4 * n, 4 * k
    hands = s8[:h].reshape((1, 4, n))
    dealt = s8[h:2 * h].reshape((1, 4, n))
    tc = s8[2 * h:2 * h + t].reshape((1, k, 4))
    ts = s8[2 * h + t:2 * h + 2 * t].reshape((1, k, 4))
    mask = s8[2 * h + 2 * t:]
    rounds = T[3 * P_RND_OFF + 2]
    calls = s16[:4 * rounds].reshape((1, rounds, 4))
    history = s16[4 * rounds:]
    off = _t1(T, P_OFF)
    size = off[B_SIZE] if T[P_STRUCTURED] != 0 else off[B_BASE_SIZE]
    obs = f32[:size]
    raw = f32[size:size + off[B_SIZE]]
    amask = f32[size + off[B_SIZE]:]
    return GameArrays(st, hands, dealt, tc, ts, calls), mask, history, obs, raw, amask


@jit
def game_start(st, s8, s16, f32, T, deal, upcard, new_game, score0, score1):
    """A hand of the one game (``deal``: ``[4, cards]``, -1 padded; ``st[0, DEALER]`` set), then its first
    decision; with ``new_game`` a new game first, at ``score0`` / ``score1``. Returns the seat to act."""
    if new_game:
        dealer = st[0, DEALER]
        for f in range(st.shape[1]):
            st[0, f] = 0
        st[0, DEALER] = dealer
        st[0, WINNER] = -1
        st[0, SC] = score0
        st[0, SC + 1] = score1
    s, mask, history, obs, raw, amask = _unpack(st, s8, s16, f32, T)
    t = _tables(T)
    history[0] = 0
    start_hand(s, 0, deal, upcard, t)
    decide(s, 0, obs, mask, raw, amask, t, True)
    return st[0, CUR]


@jit
def game_deal(st, s8, s16, f32, T, order, new_game, score0, score1):
    """:func:`game_start` with the pack in ``order`` (card ids) dealt as ``deals.deal_from_order`` does."""
    opt = _t1(T, P_OPT)
    tricks, extra = opt[O_TRICKS], opt[O_BID] != 0 and opt[O_JOKER] >= 0
    deal = np.full((4, tricks + extra), -1, np.int16)
    upcard = lay_out(order, st[0, DEALER], tricks, extra, opt[O_BID] != 0, deal)
    return game_start(st, s8, s16, f32, T, deal, upcard, new_game, score0, score1)


@jit(_nrt=False)
def game_step(st, s8, s16, f32, T, action):
    """Apply ``action`` (an id in the frame of the decision, in range), then unless the hand ended decide the
    next seat's observation and mask. Returns that seat, -1 if the hand ended, -2 (and nothing changes) if the
    mask does not allow ``action``. The absolute id joins the history."""
    s, mask, history, obs, raw, amask = _unpack(st, s8, s16, f32, T)
    if not mask[action]:
        return -2
    t = _tables(T)
    a = t.to_abs[st[0, FRAME], action]
    history[0] += 1
    history[history[0]] = a
    if apply(s, 0, a, t):
        return -1
    decide(s, 0, obs, mask, raw, amask, t, True)
    return st[0, CUR]


@jit(_nrt=False)
def game_encode_seats(st, s8, s16, f32, T, out):
    """:func:`~euchre_env.compiled.observe.encode_seat` of every seat of the one game: ``out[seat]``."""
    s, _, _, _, raw, _ = _unpack(st, s8, s16, f32, T)
    t = _tables(T)
    for seat in range(4):
        encode_seat(s, 0, seat, out[seat], raw, t)
