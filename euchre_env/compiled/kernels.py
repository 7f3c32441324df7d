"""The compiled core: the rules of :mod:`euchre_env.game.engine` on arrays of games, for
:mod:`euchre_env.envs.vector` (many games) and :mod:`euchre_env.compiled.game` (the AEC env's one game).

This is a second implementation of the reference engine, written for speed and proven equal to it by
``tests/differential/kernels_vs_engine.py`` (run by ``tests/differential/test_vector_euchre_vs_engine.py`` and
``tests/differential/test_compiled_game_vs_engine.py``: masks, observations, rewards and hand results at every step
of random games of ten rule sets). It defines no rule of its own: every function ports one method of
:class:`~euchre_env.game.engine.GameState` (the name says which), and every table it reads (effective suits,
trick powers, the action table, the observation layout, the canonical frames) is built in Python from the
game's and the views' modules by :mod:`euchre_env.compiled.tables` and passed in. A rule change goes into
the engine first; the differential test then shows this file what to follow.

State of game ``g`` (all ``int32`` unless said):

- ``st[g, F]``: scalar fields, ``F`` one of the constants below (phase, seat to act, dealer, ...);
- ``hands[g, seat, card]`` (int8): copies of each card id in each hand now; ``dealt`` the same as dealt;
- ``tc[g, k, j]`` / ``ts[g, k, j]`` (int8): card and seat of the ``j``-th play of trick ``k`` (done tricks,
  then the one in progress at ``k = st[g, NTR]`` with ``st[g, NCUR]`` cards);
- ``calls[g, r, seat]`` (int16): the action id ``seat`` took in calling round ``r`` (-1: not spoken);
  every seat speaks at most once a round, which is what the observation records.

Why one module: Numba keeps its disk cache per source file and checks only that file's date, so a kernel
that called one in another file would keep stale machine code after that file changed; the kernels inline
one another (``inline="always"``) across the whole port. The sections below are the engine's phases.

Numba compiles the functions on first use and caches the machine code on disk (``cache=True``), so only
the very first run on a machine pays the compile time. Numba is a core dependency; with ``NUMBA_DISABLE_JIT=1``
the same functions run as plain Python (same results, far slower).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.lib.stride_tricks import as_strided

from euchre_env.compiled.builds import two_builds

# ---- scalar fields of st[g, :] ------------------------------------------------------------------------
PH, CUR, DEALER, UP, UPSUIT, UPTAKEN, TDOWN, TRUMP, MAKER, MALONE, DEFALONE = range(11)
OUT = 11  # 11..14: seat sits out this hand
SPK, DISC, NTR, NCUR = 15, 16, 17, 18  # speakers this round, discard (-1), tricks done, cards in the trick
TW = 19  # 19, 20: tricks won per team
SC = 21  # 21, 22: game score per team
HANDNO = 23
GW = 24  # 24, 25: games won (rubbers)
RP = 26  # 26, 27: rubber points
NREN, REN = 28, 29  # reneged seats in order: count, then 29..32
CONTRACT, BIDDER, GIVEN, GIVENBACK = 33, 34, 35, 36  # Bid Euchre: contract as its bid rank (-1: none)
WINNER, RMARGIN = 37, 38  # game (rubber) winner, -1 while playing; rubber margin
RES_PTS = 39  # 39, 40: points of the hand just finished
RES_SC = 41  # 41, 42: scores after it (the finished game's, for rubbers)
THROWN, CLAIMANT, GWIN = 43, 44, 45  # 0 played / 1 all passed / 2 ace no face; claimant; game winner of it
FRAME = 46  # structured observation: the canonical frame of the seat to act
NF = 47

# ---- phases (euchre_env.game.phases.Phase) --------------------------------------------------------------
JOKER_SUIT, CALL1, DISCARD, CALL2, DEFEND, AUCTION, NAME_TRUMP, GIVE, GIVE_BACK, PLAY, HAND_OVER, GAME_OVER = (
    range(12))

# ---- opt[:]: the rules as numbers -----------------------------------------------------------------
O_BID, O_STICK, O_DPGA, O_DEFEND, O_PENALIZE, O_RUBBER, O_TARGET, O_MINUS = range(8)
O_TRICKS, O_NIDS, O_JOKER, O_COPIES, O_NRANKS, O_JACK, O_QUEEN, O_KING, O_ACE = range(8, 17)
NOPT = 17

# ---- tab[:]: first ids of the action table's blocks (-1: absent) -------------------------------------
T_PASS, T_ORDER, T_ORDER_ALONE, T_NAME, T_NAME_ALONE, T_DEFEND, T_DISCARD, T_PLAY, T_BID, T_GIVE, T_ANF = range(11)
T_NBIDS, T_SIZE = 11, 12
NTAB = 13

# ---- action kinds (akind[a]); aarg[a] is the card, suit or bid rank -----------------------------------
K_PASS, K_ORDER, K_NAME, K_DEFEND, K_DISCARD, K_PLAY, K_BID, K_GIVE, K_ANF = range(9)

# ---- observation offsets off[:] (-1: no such block) --------------------------------------------------
(B_PHASE, B_TO_ACT, B_DEALER, B_HAND, B_UPCARD, B_UPSUIT, B_FATE, B_DISCARD, B_GIVEN, B_GIVEN_BACK, B_TRUMP,
 B_MAKER, B_OUT, B_TRICKS, B_TW, B_SCORES, B_RUBBER, B_CT, B_LED, B_WINNING, B_PWIN, B_PLAYED, B_UNSEEN,
 B_VOIDS, B_TN, B_LEADS, B_BASE_SIZE, B_SIZE) = range(28)
NOFF = 28

SCORE_BOUND = 8.0  # euchre_env.views.observation.SCORE_BOUND (passed in as a float by the caller would cost a lookup)


# =============================================================================== small helpers
@njit(cache=True, inline="always")
def _left(s):
    return (s + 1) % 4


@njit(cache=True, inline="always")
def _partner(s):
    return (s + 2) % 4


@njit(cache=True, inline="always")
def _next_active(st, g, s):
    n = (s + 1) % 4
    while st[g, OUT + n]:
        n = (n + 1) % 4
    return n


@njit(cache=True, inline="always")
def _active(st, g):
    return 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]


@njit(cache=True, inline="always")
def _set(st, g, phase, seat):
    st[g, PH] = phase
    st[g, CUR] = seat


@njit(cache=True, inline="always")
def _trick_winner(tc, ts, g, k, ncards, trump, eff, power):
    """Seat taking trick ``k`` of game ``g`` so far (``cards.trick_winner``: the first of equal cards wins)."""
    first = tc[g, k, 0]
    led = eff[trump + 1, first]
    best = 0
    best_key = power[trump, first]
    for j in range(1, ncards):
        c = tc[g, k, j]
        s = eff[trump + 1, c]
        if s == trump or s == led:  # noqa: SIM109 (numba: the operands' int types differ)
            key = power[trump, c]
            if key > best_key:
                best = j
                best_key = key
    return ts[g, k, best]


# =============================================================================== dealing
@njit(cache=True)
def start_hand(st, hands, dealt, tc, ts, calls, g, deal, upcard, opt, printed):
    """``GameState._start_hand`` for game ``g``: ``deal[seat]`` its cards (-1 padded), ``upcard`` (-1: none)."""
    nids = opt[O_NIDS]
    for s in range(4):
        for c in range(nids):
            hands[g, s, c] = 0
        for j in range(deal.shape[1]):
            c = deal[s, j]
            if c >= 0:
                hands[g, s, c] += 1
        for c in range(nids):
            dealt[g, s, c] = hands[g, s, c]
        st[g, OUT + s] = 0
    for r in range(calls.shape[1]):
        for s in range(4):
            calls[g, r, s] = -1
    st[g, UP] = upcard
    st[g, UPSUIT] = -1
    st[g, UPTAKEN] = 0
    st[g, TDOWN] = 0
    st[g, TRUMP] = -1
    st[g, MAKER] = -1
    st[g, MALONE] = 0
    st[g, DEFALONE] = -1
    st[g, SPK] = 0
    st[g, DISC] = -1
    st[g, NTR] = 0
    st[g, NCUR] = 0
    st[g, TW] = 0
    st[g, TW + 1] = 0
    st[g, NREN] = 0
    st[g, CONTRACT] = -1
    st[g, BIDDER] = -1
    st[g, GIVEN] = -1
    st[g, GIVENBACK] = -1
    st[g, THROWN] = 0
    st[g, CLAIMANT] = -1
    st[g, GWIN] = -1
    dealer = st[g, DEALER]
    first = _left(dealer)
    if opt[O_BID]:
        if opt[O_JOKER] >= 0:
            _set(st, g, DISCARD, dealer)
        else:
            _set(st, g, AUCTION, first)
    elif upcard == opt[O_JOKER]:
        _set(st, g, JOKER_SUIT, dealer)
    else:
        st[g, UPSUIT] = printed[upcard]
        _set(st, g, CALL1, first)


# =============================================================================== legal actions
@njit(cache=True, inline="always")
def legal_mask(st, hands, dealt, tc, g, opt, tab, akind, aarg, eff, power, rank, mask):
    """``GameState._compute_legal`` as a 0/1 mask over the absolute action ids (zeroed first)."""
    for a in range(mask.shape[0]):
        mask[a] = 0
    p = st[g, PH]
    seat = st[g, CUR]
    nids = opt[O_NIDS]
    if p == PLAY:
        base = tab[T_PLAY]
        trump = st[g, TRUMP]
        if st[g, NCUR] > 0 and not opt[O_PENALIZE]:
            led = eff[trump + 1, tc[g, st[g, NTR], 0]]
            follows = 0
            for c in range(nids):  # branch-free: a held card's suit is as good as random to the predictor
                f = (hands[g, seat, c] > 0) & (eff[trump + 1, c] == led)
                mask[base + c] = f
                follows += f
            if follows:
                return
        _held(hands, g, seat, nids, base, mask)
    elif p == CALL1:
        mask[tab[T_PASS]] = 1
        if opt[O_DPGA] and seat == _partner(st[g, DEALER]):
            mask[tab[T_ORDER_ALONE]] = 1
            return
        mask[tab[T_ORDER]] = 1
        if tab[T_ORDER_ALONE] >= 0:
            mask[tab[T_ORDER_ALONE]] = 1
    elif p == CALL2:
        if not (seat == st[g, DEALER] and opt[O_STICK]):
            mask[tab[T_PASS]] = 1
        for s in range(4):
            if s != st[g, UPSUIT]:
                mask[tab[T_NAME] + s] = 1
                if tab[T_NAME_ALONE] >= 0:
                    mask[tab[T_NAME_ALONE] + s] = 1
    elif p == DISCARD:
        _held(hands, g, seat, nids, tab[T_DISCARD], mask)
    elif p == DEFEND:
        mask[tab[T_PASS]] = 1
        mask[tab[T_DEFEND]] = 1
    elif p == JOKER_SUIT or p == NAME_TRUMP:  # noqa: SIM109 (numba compiles plain comparisons)
        for s in range(4):
            mask[tab[T_NAME] + s] = 1
    elif p == AUCTION:
        if not (opt[O_STICK] and seat == st[g, DEALER] and st[g, CONTRACT] < 0):
            mask[tab[T_PASS]] = 1
        if tab[T_ANF] >= 0 and ace_no_face_eligible(dealt, g, seat, opt, rank):
            mask[tab[T_ANF]] = 1
        floor = st[g, CONTRACT] if st[g, CONTRACT] >= 0 else 0
        for i in range(tab[T_NBIDS]):
            if aarg[tab[T_BID] + i] > floor:
                mask[tab[T_BID] + i] = 1
    elif p == GIVE:
        _held(hands, g, seat, nids, tab[T_GIVE], mask)
    elif p == GIVE_BACK:
        given = st[g, GIVEN]
        trump = st[g, TRUMP]
        best = -1
        for c in range(nids):
            held = hands[g, seat, c] - (1 if c == given else 0)  # the partner gives from its own cards
            if held > 0 and eff[trump + 1, c] == trump and (best < 0 or power[trump, c] > power[trump, best]):
                best = c
        if best >= 0:
            mask[tab[T_GIVE] + best] = 1
            return
        for c in range(nids):
            if hands[g, seat, c] - (1 if c == given else 0) > 0:
                mask[tab[T_GIVE] + c] = 1


@njit(cache=True, inline="always")
def _held(hands, g, seat, nids, base, mask):
    """``engine._unique_ids(base, hand)``: the ids ``base + card`` of every card ``seat`` holds."""
    for c in range(nids):  # the block is this kind's alone: writing its zeros too changes nothing
        mask[base + c] = hands[g, seat, c] > 0


@njit(cache=True)
def ace_no_face_eligible(dealt, g, seat, opt, rank):
    """``GameState.ace_no_face_eligible``: dealt at least one ace and no J, Q or K (the joker is no face)."""
    ace = False
    for c in range(opt[O_NIDS]):
        if dealt[g, seat, c] > 0 and c != opt[O_JOKER]:
            r = rank[c]
            if r == opt[O_JACK] or r == opt[O_QUEEN] or r == opt[O_KING]:
                return False
            if r == opt[O_ACE]:
                ace = True
    return ace


# =============================================================================== acting
@njit(cache=True, inline="always")
def apply(st, hands, dealt, tc, ts, calls, g, action, opt, tab, akind, aarg, aalone, eff, power, rank, rnd):
    """``GameState.apply`` for a legal ``action`` (absolute id) of game ``g``. Returns 1 if the hand ended."""
    p = st[g, PH]
    seat = st[g, CUR]
    kind = akind[action]
    arg = aarg[action]
    if rnd[p] >= 0:  # a calling round: the observation records each seat's call
        calls[g, rnd[p], seat] = action
    if p == PLAY:
        return _play(st, hands, tc, ts, g, seat, arg, opt, eff, power)
    if p == CALL1:
        if kind == K_PASS:
            st[g, SPK] += 1
            if st[g, SPK] == 4:
                st[g, SPK] = 0
                st[g, TDOWN] = 1
                _set(st, g, CALL2, _left(st[g, DEALER]))
            else:
                _set(st, g, CALL1, _left(seat))
            return 0
        _fix_trump(st, g, seat, st[g, UPSUIT], aalone[action])
        dealer = st[g, DEALER]
        if st[g, OUT + dealer]:
            return _after_trump_fixed(st, g, opt)
        hands[g, dealer, st[g, UP]] += 1
        st[g, UPTAKEN] = 1
        _set(st, g, DISCARD, dealer)
        return 0
    if p == CALL2:
        if kind == K_PASS:
            st[g, SPK] += 1
            if st[g, SPK] == 4:
                return _finish_hand(st, g, opt, 1, -1)
            _set(st, g, CALL2, _left(seat))
            return 0
        _fix_trump(st, g, seat, arg, aalone[action])
        return _after_trump_fixed(st, g, opt)
    if p == DISCARD:
        hands[g, seat, arg] -= 1
        st[g, DISC] = arg
        if opt[O_BID]:
            _set(st, g, AUCTION, _left(st[g, DEALER]))
            return 0
        return _after_trump_fixed(st, g, opt)
    if p == DEFEND:
        if kind == K_DEFEND:
            st[g, DEFALONE] = seat
            st[g, OUT + _partner(seat)] = 1
            _start_play(st, g)
            return 0
        st[g, SPK] += 1
        if st[g, SPK] == 2:
            _start_play(st, g)
            return 0
        _set(st, g, DEFEND, _next_defender(st, g, _left(seat)))
        return 0
    if p == JOKER_SUIT:
        st[g, UPSUIT] = arg
        _set(st, g, CALL1, _left(st[g, DEALER]))
        return 0
    if p == AUCTION:
        if kind == K_ANF:
            return _finish_hand(st, g, opt, 2, seat)
        if kind == K_BID:
            st[g, CONTRACT] = arg
            st[g, BIDDER] = seat
        st[g, SPK] += 1
        tricks = opt[O_TRICKS]
        if st[g, CONTRACT] == tricks + 1 or st[g, SPK] == 4:  # moon, or everyone has spoken
            st[g, SPK] = 0
            if st[g, CONTRACT] < 0:
                return _finish_hand(st, g, opt, 1, -1)
            st[g, MAKER] = st[g, BIDDER]
            st[g, MALONE] = 1 if st[g, CONTRACT] >= tricks else 0  # help and moon play without the partner
            _set(st, g, NAME_TRUMP, st[g, BIDDER])
            return 0
        _set(st, g, AUCTION, _left(seat))
        return 0
    if p == NAME_TRUMP:
        st[g, TRUMP] = arg
        if st[g, CONTRACT] == opt[O_TRICKS]:  # help
            _set(st, g, GIVE, seat)
        else:
            if st[g, CONTRACT] == opt[O_TRICKS] + 1:  # moon
                st[g, OUT + _partner(seat)] = 1
            _set(st, g, PLAY, seat)
        return 0
    if p == GIVE:
        hands[g, seat, arg] -= 1
        hands[g, _partner(seat), arg] += 1
        st[g, GIVEN] = arg
        _set(st, g, GIVE_BACK, _partner(seat))
        return 0
    if p == GIVE_BACK:
        hands[g, seat, arg] -= 1
        hands[g, st[g, BIDDER], arg] += 1
        st[g, GIVENBACK] = arg
        st[g, OUT + seat] = 1
        _set(st, g, PLAY, st[g, BIDDER])
        return 0
    return 0


@njit(cache=True)
def _fix_trump(st, g, seat, suit, alone):
    st[g, SPK] = 0
    st[g, TRUMP] = suit
    st[g, MAKER] = seat
    st[g, MALONE] = alone
    if alone:
        st[g, OUT + _partner(seat)] = 1


@njit(cache=True)
def _after_trump_fixed(st, g, opt):
    if opt[O_DEFEND] and st[g, MALONE]:
        _set(st, g, DEFEND, _next_defender(st, g, _left(st[g, DEALER])))
        return 0
    _start_play(st, g)
    return 0


@njit(cache=True)
def _next_defender(st, g, seat):
    while seat % 2 == st[g, MAKER] % 2:
        seat = _left(seat)
    return seat


@njit(cache=True)
def _start_play(st, g):
    st[g, SPK] = 0
    _set(st, g, PLAY, _next_active(st, g, st[g, DEALER]))


@njit(cache=True, inline="always")
def _play(st, hands, tc, ts, g, seat, card, opt, eff, power):
    k = st[g, NTR]
    n = st[g, NCUR]
    trump = st[g, TRUMP]
    if n > 0 and opt[O_PENALIZE]:
        led = eff[trump + 1, tc[g, k, 0]]
        if eff[trump + 1, card] != led:
            holds = False
            for c in range(opt[O_NIDS]):
                if hands[g, seat, c] > 0 and eff[trump + 1, c] == led:
                    holds = True
            already = False
            for i in range(st[g, NREN]):
                if st[g, REN + i] == seat:
                    already = True
            if holds and not already:
                st[g, REN + st[g, NREN]] = seat
                st[g, NREN] += 1
    hands[g, seat, card] -= 1
    tc[g, k, n] = card
    ts[g, k, n] = seat
    n += 1
    st[g, NCUR] = n
    if n < _active(st, g):
        _set(st, g, PLAY, _next_active(st, g, seat))
        return 0
    winner = _trick_winner(tc, ts, g, k, n, trump, eff, power)
    st[g, TW + winner % 2] += 1
    st[g, NTR] = k + 1
    st[g, NCUR] = 0
    if k + 1 == opt[O_TRICKS]:
        return _finish_hand(st, g, opt, 0, -1)
    _set(st, g, PLAY, winner)
    return 0


# =============================================================================== scoring
@njit(cache=True)
def _score_hand(st, g, opt):
    """``scoring.score_hand``: (makers' points, defenders' points)."""
    tricks = opt[O_TRICKS]
    made = st[g, TW + st[g, MAKER] % 2]
    if opt[O_BID]:
        defenders = tricks - made
        contract = st[g, CONTRACT]
        if contract >= tricks:  # help (2x) or moon (4x)
            bonus = (2 if contract == tricks else 4) * tricks
            return (bonus if made == tricks else -tricks), defenders
        return (made if made >= contract else -contract), defenders
    if made < tricks // 2 + 1:
        return 0, (4 if st[g, DEFALONE] >= 0 else 2)
    if made >= tricks:
        return (4 if st[g, MALONE] else 2), 0
    return 1, 0


@njit(cache=True)
def _game_winner(s0, s1, opt):
    target = opt[O_TARGET]
    ended = max(s0, s1) >= target or (opt[O_MINUS] and min(s0, s1) <= -target)
    if not ended or s0 == s1:
        return -1
    return 0 if s0 > s1 else 1


@njit(cache=True)
def _finish_hand(st, g, opt, thrown, claimant):
    """``GameState._finish_hand`` and ``_check_game_end``; always returns 1 (the hand is over)."""
    # Two scalars, not a 2-array: the serial batch kernels are built without the runtime (no allocation).
    p0 = p1 = 0
    if thrown == 0:
        mp, dp = _score_hand(st, g, opt)
        p0, p1 = (dp, mp) if st[g, MAKER] % 2 else (mp, dp)
    penalised0 = penalised1 = False
    for i in range(st[g, NREN]):
        if st[g, REN + i] % 2:
            penalised1 = True
        else:
            penalised0 = True
    p0 -= 2 if penalised0 else 0
    p1 -= 2 if penalised1 else 0
    st[g, SC] += p0
    st[g, SC + 1] += p1
    st[g, RES_PTS] = p0
    st[g, RES_PTS + 1] = p1
    st[g, RES_SC] = st[g, SC]
    st[g, RES_SC + 1] = st[g, SC + 1]
    st[g, THROWN] = thrown
    st[g, CLAIMANT] = claimant
    _set(st, g, HAND_OVER, -1)
    winner = _game_winner(st[g, SC], st[g, SC + 1], opt)
    st[g, GWIN] = winner
    if winner < 0:
        return 1
    if not opt[O_RUBBER]:
        st[g, WINNER] = winner
        _set(st, g, GAME_OVER, -1)
        return 1
    loser_score = st[g, SC + 1 - winner]
    st[g, RP + winner] += 3 if loser_score <= 0 else (2 if loser_score <= 2 else 1)
    st[g, GW + winner] += 1
    if st[g, GW + winner] == 2:
        st[g, WINNER] = winner
        st[g, RMARGIN] = st[g, RP + winner] + 2 - st[g, RP + 1 - winner]  # scoring.RUBBER_BONUS
        _set(st, g, GAME_OVER, -1)
    else:
        st[g, SC] = 0
        st[g, SC + 1] = 0
    return 1


# =============================================================================== observation
@njit(cache=True, inline="always")
def encode(st, hands, tc, ts, calls, g, seat, opt, off, eff, power, leader_at, card_at, rnd_off, rnd_width,
           col, raw, structured):
    """The absolute observation of ``seat`` (``Observer.encode``), then with ``structured`` the structured
    observation's extra blocks in absolute suits (``StructuredObserver._absolute``), into ``raw``."""
    for i in range(raw.shape[0]):
        raw[i] = 0.0
    nids = opt[O_NIDS]
    p = st[g, PH]
    raw[off[B_PHASE] + p] = 1.0
    raw[off[B_DEALER] + (st[g, DEALER] - seat) % 4] = 1.0
    if p != HAND_OVER and p != GAME_OVER:
        raw[off[B_TO_ACT] + (st[g, CUR] - seat) % 4] = 1.0
    for c in range(nids):
        raw[off[B_HAND] + c] = hands[g, seat, c]
    for r in range(calls.shape[1]):
        for w in range(4):
            a = calls[g, r, w]
            if a >= 0:
                raw[rnd_off[r] + ((w - seat) % 4) * rnd_width[r] + col[r, a]] = 1.0
    up = st[g, UP]
    trump = st[g, TRUMP]
    if up >= 0:
        raw[off[B_UPCARD] + up] = 1.0
        if st[g, UPSUIT] >= 0:
            raw[off[B_UPSUIT] + st[g, UPSUIT]] = 1.0
        if st[g, UPTAKEN]:
            raw[off[B_FATE]] = 1.0
        elif st[g, TDOWN]:
            raw[off[B_FATE] + 1] = 1.0
        elif trump >= 0:
            raw[off[B_FATE] + 2] = 1.0
    if st[g, DISC] >= 0 and seat == st[g, DEALER]:
        raw[off[B_DISCARD] + st[g, DISC]] = 1.0
    bidder = st[g, BIDDER]
    if st[g, GIVEN] >= 0 and (seat == bidder or seat == _partner(bidder)):
        raw[off[B_GIVEN] + st[g, GIVEN]] = 1.0
        if st[g, GIVENBACK] >= 0:
            raw[off[B_GIVEN_BACK] + st[g, GIVENBACK]] = 1.0
    if trump >= 0:
        raw[off[B_TRUMP] + trump] = 1.0
    if st[g, MAKER] >= 0:
        raw[off[B_MAKER] + (st[g, MAKER] - seat) % 4] = 1.0
    for s in range(4):
        if st[g, OUT + s]:
            raw[off[B_OUT] + (s - seat) % 4] = 1.0
    ntr = st[g, NTR]
    ncur = st[g, NCUR]
    active = _active(st, g)
    for k in range(ntr + (1 if ncur > 0 else 0)):
        cards = active if k < ntr else ncur
        raw[leader_at[k] + (ts[g, k, 0] - seat) % 4] = 1.0
        for j in range(cards):
            raw[card_at[k, (ts[g, k, j] - seat) % 4] + tc[g, k, j]] = 1.0
    mine = seat % 2
    tricks = opt[O_TRICKS]
    raw[off[B_TW]] = st[g, TW + mine] / tricks
    raw[off[B_TW] + 1] = st[g, TW + 1 - mine] / tricks
    target = opt[O_TARGET]
    raw[off[B_SCORES]] = min(max(st[g, SC + mine] / target, -SCORE_BOUND), SCORE_BOUND)
    raw[off[B_SCORES] + 1] = min(max(st[g, SC + 1 - mine] / target, -SCORE_BOUND), SCORE_BOUND)
    if opt[O_RUBBER]:
        raw[off[B_RUBBER]] = st[g, GW + mine] / 2
        raw[off[B_RUBBER] + 1] = st[g, GW + 1 - mine] / 2
        raw[off[B_RUBBER] + 2] = st[g, RP + mine] / 6
        raw[off[B_RUBBER] + 3] = st[g, RP + 1 - mine] / 6
    if not structured:
        return
    # ---- the structured observation's derived blocks, in absolute suits
    if ncur > 0:
        for j in range(ncur):
            raw[off[B_CT] + ((ts[g, ntr, j] - seat) % 4) * nids + tc[g, ntr, j]] = 1.0
        raw[off[B_LED] + eff[trump + 1, tc[g, ntr, 0]]] = 1.0
        w = (_trick_winner(tc, ts, g, ntr, ncur, trump, eff, power) - seat) % 4
        raw[off[B_WINNING] + w] = 1.0
        if w == 2:
            raw[off[B_PWIN]] = 1.0
    any_played = ntr > 0 or ncur > 0
    copies = opt[O_COPIES]
    for c in range(nids):
        raw[off[B_UNSEEN] + c] = copies - hands[g, seat, c]
    for k in range(ntr + (1 if ncur > 0 else 0)):
        cards = active if k < ntr else ncur
        for j in range(cards):
            c = tc[g, k, j]
            raw[off[B_PLAYED] + c] += 1.0
            raw[off[B_UNSEEN] + c] -= 1.0
    if st[g, DISC] >= 0 and seat == st[g, DEALER]:
        raw[off[B_UNSEEN] + st[g, DISC]] -= 1.0
    if up >= 0 and not st[g, UPTAKEN]:
        raw[off[B_UNSEEN] + up] -= 1.0
    if any_played and trump >= 0:
        for k in range(ntr + (1 if ncur > 0 else 0)):
            cards = active if k < ntr else ncur
            led = eff[trump + 1, tc[g, k, 0]]
            for j in range(1, cards):
                who = ts[g, k, j]
                if who != seat and eff[trump + 1, tc[g, k, j]] != led:
                    raw[off[B_VOIDS] + ((who - seat) % 4 - 1) * 4 + led] = 1.0
    if p == PLAY:
        raw[off[B_TN] + ntr] = 1.0
        if st[g, CUR] == seat and ncur == 0:
            raw[off[B_LEADS]] = 1.0


@njit(cache=True, inline="always")
def choose_frame(raw, perms, cands, ncands, ref, size):
    """The candidate frame of reference suit ``ref`` whose encoding of ``raw`` (its first ``size`` entries) is
    lexicographically largest (``StructuredObserver.encode_with_frame``'s choice)."""
    row = ref + 1
    best = cands[row, 0]
    for i in range(1, ncands[row]):
        f = cands[row, i]
        for j in range(size):
            x = raw[perms[f, j]]
            y = raw[perms[best, j]]
            if x != y:
                if x > y:
                    best = f
                break
    return best


@njit(cache=True, inline="always")
def in_frame(raw, perm, out):
    """``raw`` in a frame: ``out[j] = raw[perm[j]]`` (``perm``: the frame's row of ``perms``)."""
    for j in range(out.shape[0]):
        out[j] = raw[perm[j]]


@njit(cache=True, inline="always")
def canonical(raw, perms, cands, ncands, ref, out):
    """``StructuredObserver.encode_with_frame``: write the lexicographically largest candidate frame's
    encoding of ``raw`` into ``out``; return that frame's index."""
    best = choose_frame(raw, perms, cands, ncands, ref, out.shape[0])
    in_frame(raw, perms[best], out)
    return best


# =============================================================================== one decision
@njit(cache=True, inline="always")
def _decide(st, hands, dealt, tc, ts, calls, g, obs, mask, raw, amask, opt, tab, akind, aarg, eff, power, rank, off,
            leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands, to_abs, structured, with_obs):
    """Observation (with ``with_obs``) and mask of game ``g``'s seat to act, in its frame; sets ``st[g, FRAME]``.
    Scratch: ``raw`` (the structured encoding in absolute suits) and ``amask`` (the mask in absolute ids)."""
    seat = st[g, CUR]
    if not structured:  # absolute ids: the mask is written in place, no frame to map it through
        legal_mask(st, hands, dealt, tc, g, opt, tab, akind, aarg, eff, power, rank, mask)
        st[g, FRAME] = 0
        if with_obs:  # the absolute observation is the encoding itself
            encode(st, hands, tc, ts, calls, g, seat, opt, off, eff, power, leader_at, card_at, rnd_off, rnd_width,
                   col, obs, False)
        return
    legal_mask(st, hands, dealt, tc, g, opt, tab, akind, aarg, eff, power, rank, amask)
    # The frame is the encoding's: encoded even without with_obs.
    encode(st, hands, tc, ts, calls, g, seat, opt, off, eff, power, leader_at, card_at, rnd_off, rnd_width, col, raw,
           True)
    trump = st[g, TRUMP]
    ref = trump if trump >= 0 else (st[g, UPSUIT] if not opt[O_BID] else -1)
    frame = canonical(raw, perms, cands, ncands, ref, obs)
    st[g, FRAME] = frame
    for a in range(mask.shape[0]):
        mask[a] = amask[to_abs[frame, a]] > 0


# =============================================================================== the batch
@njit(cache=True, inline="always")
def slice_of(n, c, chunks):
    """``(lo, hi)``: slice ``c`` of ``chunks`` near-equal slices of ``n`` games (a batch kernel's ``prange`` unit)."""
    return n * c // chunks, n * (c + 1) // chunks


def _observe_games(st, hands, dealt, tc, ts, calls, games, obs, mask, raw, opt, tab, akind, aarg, eff, power, rank,
                   off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands, to_abs, structured,
                   with_obs):
    """Observation (with ``with_obs``) and mask of the seat to act in each of ``games``, in its frame; in
    ``len(raw)`` slices, slice ``c`` with the scratch row ``raw[c]`` (see :func:`_step_all`)."""
    n, chunks, size = games.shape[0], raw.shape[0], off[B_SIZE]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        for i in range(lo, hi):
            _decide(st, hands, dealt, tc, ts, calls, games[i], obs[games[i]], mask[games[i]], raw[c, :size],
                    raw[c, size:], opt, tab, akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off,
                    rnd_width, col, perms, cands, ncands, to_abs, structured, with_obs)


def _observe_games_sparse(st, hands, dealt, tc, ts, calls, games, chunks, size, rows, mask, raw, ptr, col, val, opt,
                          tab, akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, rcol, perms,
                          cands, ncands, to_abs, structured):
    """:func:`_observe_games` for a reader of non-zero entries (a network's first layer): the observation of the
    seat to act in each of ``games`` as compressed sparse rows, row ``i`` (game ``games[i]``) being the columns
    ``col[ptr[i]:ptr[i + 1]]`` in ascending order with the values ``val[...]``, and its mask in ``mask[i]``.

    Each observation is encoded into a scratch row that stays in the cache and read back there, so no dense
    batch is written to memory, copied and scanned again (on a 4,096-game batch that was two thirds of the time
    of observing and finding the entries). The read skips 8 entries at a time while they are all zero (a
    knock observation has about 46 non-zero entries of 834) and takes the rest without a branch per entry.

    ``chunks`` slices of the games run at once in the parallel build, slice ``c`` with the scratch ``rows[c]``
    (the observation's ``size`` rounded up to a multiple of 8 floats, zero beyond it) and ``raw[c]``; each writes
    its entries from position ``lo * rows.shape[1]`` on (its first game's index times the row width, room for
    every entry of its rows), then the slices are moved together. ``col`` and ``val`` hold at least
    ``len(games) * rows.shape[1]`` entries; ``ptr`` ``len(games) + 1``."""
    n = games.shape[0]
    width = rows.shape[1]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        row = rows[c]
        words = row.view(np.uint64)
        p = lo * width
        for i in range(lo, hi):
            _decide(st, hands, dealt, tc, ts, calls, games[i], row[:size], mask[i], raw[c, :off[B_SIZE]],
                    raw[c, off[B_SIZE]:], opt, tab, akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off,
                    rnd_width, rcol, perms, cands, ncands, to_abs, structured, True)
            for w in range(0, words.shape[0], 4):
                if words[w] | words[w + 1] | words[w + 2] | words[w + 3]:
                    for j in range(2 * w, 2 * w + 8):
                        x = row[j]
                        col[p] = j
                        val[p] = x
                        p += x != 0
            ptr[i + 1] = p
    ptr[0] = 0
    end = 0
    for c in range(chunks):  # the slices' entries moved together, in order (a slice only moves down)
        lo, hi = slice_of(n, c, chunks)
        start = lo * width
        count = (ptr[hi] - start) if hi > lo else 0
        for q in range(count):
            col[end + q] = col[start + q]
            val[end + q] = val[start + q]
        for i in range(lo, hi):
            ptr[i + 1] += end - start
        end += count


def _step_all(st, hands, dealt, tc, ts, calls, actions, ended, obs, mask, raw, opt, tab, akind, aarg, aalone, eff,
              power, rank, rnd, off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands, to_abs,
              structured, with_obs):
    """Apply every game's action (in its frame; all legal); ``ended[g]``: the hand ended. The games that go on
    get their next observation and mask at once (the game's state is still in cache).

    The games go in ``len(raw)`` slices (run at once in the parallel build), slice ``c`` encoding into the
    scratch row ``raw[c]`` (the absolute encoding, then the absolute mask): one row per slice stays in the
    cache, where a row per game was written to memory and read back at every observation."""
    n, chunks, size = st.shape[0], raw.shape[0], off[B_SIZE]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        for g in range(lo, hi):
            a = to_abs[st[g, FRAME], actions[g]]
            ended[g] = apply(st, hands, dealt, tc, ts, calls, g, a, opt, tab, akind, aarg, aalone, eff, power, rank,
                             rnd)
            if not ended[g]:
                _decide(st, hands, dealt, tc, ts, calls, g, obs[g], mask[g], raw[c, :size], raw[c, size:], opt, tab,
                        akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms,
                        cands, ncands, to_abs, structured, with_obs)


def _step_games(st, hands, dealt, tc, ts, calls, games, actions, ended, observe, identity, obs, mask, raw, opt, tab,
                akind, aarg, aalone, eff, power, rank, rnd, off, leader_at, card_at, rnd_off, rnd_width, col, perms,
                cands, ncands, to_abs, structured, with_obs):
    """:func:`_step_all` for the games ``games`` alone (``actions[i]`` for ``games[i]``; ``ended[i]``), and a game
    that goes on is observed only for a seat that ``observe[g, seat]`` marks: any other seat to act gets its
    legal mask in absolute ids and the frame ``identity`` (whose ids are the absolute ones), not encoded. Slices
    and their scratch rows ``raw[c]`` as in :func:`_step_all`."""
    n, chunks, size = games.shape[0], raw.shape[0], off[B_SIZE]
    for c in prange(chunks):
        lo, hi = slice_of(n, c, chunks)
        for i in range(lo, hi):
            g = games[i]
            a = to_abs[st[g, FRAME], actions[i]]
            ended[i] = apply(st, hands, dealt, tc, ts, calls, g, a, opt, tab, akind, aarg, aalone, eff, power, rank,
                             rnd)
            if ended[i]:
                continue
            if observe[g, st[g, CUR]]:
                _decide(st, hands, dealt, tc, ts, calls, g, obs[g], mask[g], raw[c, :size], raw[c, size:], opt, tab,
                        akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms,
                        cands, ncands, to_abs, structured, with_obs)
            else:
                legal_mask(st, hands, dealt, tc, g, opt, tab, akind, aarg, eff, power, rank, mask[g])
                st[g, FRAME] = identity


@njit(cache=True)
def first_illegal(mask, actions):
    """Index of the first game whose action is not legal in its mask (-1: all legal)."""
    for g in range(mask.shape[0]):
        a = actions[g]
        if a < 0 or a >= mask.shape[1] or not mask[g, a]:
            return g
    return -1


@njit(cache=True)
def encode_seat(st, hands, tc, ts, calls, g, seat, out, raw, opt, off, eff, power, leader_at, card_at, rnd_off,
                rnd_width, col, perms, cands, ncands, structured):
    """The observation of any ``seat`` of game ``g`` (final observations): as :func:`observe_all` writes it."""
    if structured:
        encode(st, hands, tc, ts, calls, g, seat, opt, off, eff, power, leader_at, card_at, rnd_off, rnd_width, col,
               raw, True)
        trump = st[g, TRUMP]
        ref = trump if trump >= 0 else (st[g, UPSUIT] if not opt[O_BID] else -1)
        canonical(raw, perms, cands, ncands, ref, out)
    else:
        encode(st, hands, tc, ts, calls, g, seat, opt, off, eff, power, leader_at, card_at, rnd_off, rnd_width, col,
               out, False)


def _random_actions(mask, u, out):
    """A uniformly random legal action per game from the uniforms ``u`` (for benchmarks and tests; every row of
    ``mask`` allows one, as every game's does)."""
    for g in prange(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[g, a]
        pick = int(u[g] * count)
        # The pick-th legal id (from 0) is the number of ids up to which at most pick are legal: counted without
        # a branch (a branch on each legal id is a guess the predictor mostly loses).
        seen = 0
        at = 0
        for a in range(mask.shape[1]):
            seen += mask[g, a]
            at += seen <= pick
        out[g] = at


@njit(cache=True)
def shuffled_deals(u, pack, dealers, tricks, extra, is_bid, cards, upcards):
    """Random deals in ``deals.random_deal``'s layout (blocks of ``tricks`` cards from the dealer's left, then
    with ``extra`` a 25th card for the dealer, then the up-card unless ``is_bid``), one per row of ``u``: the
    pack shuffled by Fisher-Yates with the uniforms ``u[i]``. ``cards [k, 4, tricks + extra]``, ``upcards [k]``."""
    order = np.empty(pack.shape[0], np.int16)
    for i in range(u.shape[0]):
        _shuffle(u[i], pack, order)
        upcards[i] = _lay_out(order, dealers[i], tricks, extra, is_bid, cards[i])


@njit(cache=True, inline="always")
def _shuffle(u, pack, order):
    """``order``: the cards of ``pack`` shuffled by Fisher-Yates with the uniforms ``u[0 .. len(pack) - 2]``."""
    n = pack.shape[0]
    for j in range(n):
        order[j] = pack[j]
    for j in range(n - 1):
        r = j + int(u[j] * (n - j))
        order[j], order[r] = order[r], order[j]


@njit(cache=True, inline="always")
def _lay_out(order, dealer, tricks, extra, is_bid, cards):
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


def _start_hands(st, hands, dealt, tc, ts, calls, games, deals, upcards, opt, printed):
    """:func:`start_hand` for each of ``games`` with its row of ``deals`` / ``upcards``."""
    for i in prange(games.shape[0]):
        start_hand(st, hands, dealt, tc, ts, calls, games[i], deals[i], upcards[i], opt, printed)


@njit(cache=True, inline="always")
def hand_outcome(st, g, episode_hand, max_hands, win_reward):
    """What the hand game ``g`` just finished does: ``(team0, ended, cut)``. ``team0``: team 0's reward
    (``episodes.hand_end_reward``: its margin, or with ``win_reward`` the game's result when the episode ends);
    ``ended``: the episode is over (``episode_hand``, or the game decided); ``cut``: it is cut short by
    ``max_hands`` hands (0: no limit) with the game undecided."""
    margin = st[g, RES_PTS] - st[g, RES_PTS + 1]  # team 0's
    ended = episode_hand or st[g, PH] == GAME_OVER
    cut = (not ended) and max_hands > 0 and st[g, HANDNO] + 1 >= max_hands
    team0 = float(margin)
    if win_reward:
        if not ended:  # the game goes on, or was cut undecided: nobody won
            team0 = 0.0
        elif st[g, WINNER] >= 0:
            team0 = 1.0 if st[g, WINNER] == 0 else -1.0
        else:  # a single hand with no game winner yet: the sign of its margin
            team0 = float((margin > 0) - (margin < 0))
    return team0, ended, cut


@njit(cache=True, inline="always")
def deal_on(st, hands, dealt, tc, ts, calls, g, new_episode, u, pack, order, deal, opt, printed):
    """Game ``g``'s next deal once its hand is over: the next hand by the next dealer, or with ``new_episode`` a
    new game (scores 0) whose dealer is drawn from ``u[len(pack)]``; the pack shuffled with ``u`` (``order`` and
    ``deal [4, cards]`` are scratch rows)."""
    if new_episode:
        for f in range(SC, RMARGIN + 1):  # scores, hand number, games and rubber points, reneges, ...
            st[g, f] = 0
        st[g, WINNER] = -1
        st[g, DEALER] = int(u[pack.shape[0]] * 4)  # u < 1
    else:  # the deal passes left
        st[g, DEALER] = _left(st[g, DEALER])
        st[g, HANDNO] += 1
    _shuffle(u, pack, order)
    for s in range(4):
        for j in range(deal.shape[1]):
            deal[s, j] = -1
    is_bid = opt[O_BID] != 0
    extra = 1 if is_bid and opt[O_JOKER] >= 0 else 0  # Bid Euchre with the joker: the dealer takes the 25th card
    upcard = _lay_out(order, st[g, DEALER], opt[O_TRICKS], extra, is_bid, deal)
    start_hand(st, hands, dealt, tc, ts, calls, g, deal, upcard, opt, printed)


# splitmix64 (Steele, Lea and Flood 2014): each game's own stream of uniforms for its next deals, drawn inside the
# parallel loops that end hands (one NumPy generator shared by the games could not be drawn from there), so that a
# game's deals do not depend on which other games ended a hand at the same step or on how the games are sliced.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@njit(cache=True, inline="always")
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


def _end_hands(st, hands, dealt, tc, ts, calls, games, streams, uniforms, pack, order, deal, episode_hand, max_hands,
               win_reward, rewards, done, truncated, slot, final, observe, identity, obs, mask, raw, opt, printed, tab,
               akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands,
               to_abs, structured, with_obs):
    """The end of the hands of ``games`` (they ended at this step), as the env ends them, then their next deal.

    Rewards (:func:`hand_outcome`: team 0's, seats 0 and 2; the other team's the opposite), ``done`` (the
    episode ended) and ``truncated`` (cut by ``max_hands``). ``slot[i]``: the row of ``final`` that holds
    the last observations of the seats of ``games[i]`` when its episode ended (with ``with_obs``), else -1; only
    the seats ``observe[g]`` marks are encoded (a single-seat driver reads its learner's alone), the other
    rows of ``final`` are left as they were.
    Then every game deals on (:func:`deal_on`, with uniforms from its stream ``streams[g]``, drawn into the slice's
    scratch row ``uniforms[c]``; ``order`` and ``deal`` are each game's scratch rows), and the new hand's first
    mask is written, with its observation if ``observe`` marks the seat to act, else (as :func:`_step_games`
    leaves an unmarked seat) in absolute ids under the frame ``identity``, not encoded."""
    m = 0
    for i in range(games.shape[0]):  # the rewards and the episodes' ends: a few reads a game
        g = games[i]
        team0, ended, cut = hand_outcome(st, g, episode_hand, max_hands, win_reward)
        rewards[g, 0] = team0
        rewards[g, 2] = team0
        rewards[g, 1] = -team0
        rewards[g, 3] = -team0
        done[g] = ended or cut
        truncated[g] = cut
        slot[i] = m if ended or cut else -1
        if ended or cut:
            m += 1
    k, chunks, size = games.shape[0], raw.shape[0], off[B_SIZE]
    for c in prange(chunks):  # the final observations and the next deal: each game on its own, in slices
        lo, hi = slice_of(k, c, chunks)
        for i in range(lo, hi):
            g = games[i]
            if slot[i] >= 0 and with_obs:
                for seat in range(4):
                    if not observe[g, seat]:
                        continue
                    encode_seat(st, hands, tc, ts, calls, g, seat, final[slot[i], seat], raw[c, :size], opt, off,
                                eff, power, leader_at, card_at, rnd_off, rnd_width, col, perms, cands, ncands,
                                structured)
            stream_uniforms(streams, g, uniforms[c])
            deal_on(st, hands, dealt, tc, ts, calls, g, slot[i] >= 0, uniforms[c], pack, order[g], deal[g], opt,
                    printed)
            if observe[g, st[g, CUR]]:
                _decide(st, hands, dealt, tc, ts, calls, g, obs[g], mask[g], raw[c, :size], raw[c, size:], opt, tab,
                        akind, aarg, eff, power, rank, off, leader_at, card_at, rnd_off, rnd_width, col, perms, cands,
                        ncands, to_abs, structured, with_obs)
            else:
                legal_mask(st, hands, dealt, tc, g, opt, tab, akind, aarg, eff, power, rank, mask[g])
                st[g, FRAME] = identity


# The batch kernels in two builds: parallel over games (every core), and serial, for callers whose cores are
# already busy (a trainer's learner): a parallel region waits for its slowest thread, and its idle threads spin.
observe_games, observe_games_serial = two_builds(_observe_games, allocates=False)
observe_games_sparse, observe_games_sparse_serial = two_builds(_observe_games_sparse, allocates=False)
step_all, step_all_serial = two_builds(_step_all, allocates=False)
step_games, step_games_serial = two_builds(_step_games, allocates=False)
start_hands, start_hands_serial = two_builds(_start_hands, allocates=False)
end_hands, end_hands_serial = two_builds(_end_hands, allocates=False)
random_actions, random_actions_serial = two_builds(_random_actions, allocates=False)


# =============================================================================== one game, few arguments
# The AEC env steps one game per call, so what it pays is Numba's dispatch, about 50 ns per array argument:
# with the arrays above a call would cost more than the rules. It passes five arrays instead, one per dtype,
# and the kernels cut views out of them (by as_strided: a reshape costs some 17 ns, a runtime check):
#   st   int32 [1, NF]   the scalar fields, as the batch's
#   s8   int8            hands, dealt, trick cards, trick seats (as the batch's, one game), then the mask
#   s16  int16           calls [1, rounds, 4], then the hand's history (count, then the absolute ids)
#   f32  float32         the observation, then the scratch encoding and the absolute mask
#   T    int64           every table, flat, behind a header of (offset, rows, columns) per table
PACKED_TABLES = ("opt", "tab", "akind", "aarg", "aalone", "eff", "power", "rank", "rnd", "off", "leader_at", "card_at",
                 "rnd_off", "rnd_width", "col", "perms", "cands", "ncands", "to_abs", "printed")
(P_OPT, P_TAB, P_AKIND, P_AARG, P_AALONE, P_EFF, P_POWER, P_RANK, P_RND, P_OFF, P_LEADER_AT, P_CARD_AT, P_RND_OFF,
 P_RND_WIDTH, P_COL, P_PERMS, P_CANDS, P_NCANDS, P_TO_ABS, P_PRINTED) = range(len(PACKED_TABLES))
P_STRUCTURED = 3 * len(PACKED_TABLES)  # the header's last field: the structured observation (0 / 1)
P_HEADER = P_STRUCTURED + 1


def pack_tables(tables) -> np.ndarray:
    """``T`` for the one-game kernels: every table of ``tables`` (a ``KernelTables``) in one int64 array."""
    arrays = [np.atleast_2d(np.asarray(getattr(tables, name), np.int64)) for name in PACKED_TABLES]
    header = np.zeros(P_HEADER, np.int64)
    pos = P_HEADER
    for i, a in enumerate(arrays):
        header[3 * i:3 * i + 3] = pos, a.shape[0], a.shape[1]
        pos += a.size
    header[P_STRUCTURED] = bool(tables.structured)
    return np.concatenate([header, *(a.ravel() for a in arrays)])


def packed_sizes(tables) -> tuple[int, int, int, int]:
    """Where the one game's buffers split: the mask's offset in ``s8``, the history's in ``s16``, the
    observation's size (the scratch's offset in ``f32``), and the length of ``f32``."""
    n, k = int(tables.opt[O_NIDS]), int(tables.opt[O_TRICKS])
    obs = int(tables.off[B_SIZE] if tables.structured else tables.off[B_BASE_SIZE])
    return 8 * n + 8 * k, 4 * int(tables.rounds), obs, obs + int(tables.raw_size) + len(tables.akind)


@njit(cache=True)
def _t1(T, i):
    o = T[3 * i]
    return T[o:o + T[3 * i + 1] * T[3 * i + 2]]


@njit(cache=True)
def _t2(T, i):
    o, r, c = T[3 * i], T[3 * i + 1], T[3 * i + 2]
    return as_strided(T[o:o + r * c], shape=(r, c), strides=(8 * c, 8))


@njit(cache=True, inline="always")
def _unpack(s8, s16, f32, T):
    """The one game's views: hands, dealt, tc, ts, mask, calls, history, obs, raw (scratch), amask (scratch)."""
    opt = _t1(T, P_OPT)
    n, k = opt[O_NIDS], opt[O_TRICKS]
    h, t = 4 * n, 4 * k
    hands = as_strided(s8[:h], shape=(1, 4, n), strides=(h, n, 1))
    dealt = as_strided(s8[h:2 * h], shape=(1, 4, n), strides=(h, n, 1))
    tc = as_strided(s8[2 * h:2 * h + t], shape=(1, k, 4), strides=(t, 4, 1))
    ts = as_strided(s8[2 * h + t:2 * h + 2 * t], shape=(1, k, 4), strides=(t, 4, 1))
    mask = s8[2 * h + 2 * t:]
    rounds = T[3 * P_RND_OFF + 2]
    calls = as_strided(s16[:4 * rounds], shape=(1, rounds, 4), strides=(8 * rounds, 8, 2))
    history = s16[4 * rounds:]
    off = _t1(T, P_OFF)
    size = off[B_SIZE] if T[P_STRUCTURED] != 0 else off[B_BASE_SIZE]
    obs = f32[:size]
    raw = f32[size:size + off[B_SIZE]]
    amask = f32[size + off[B_SIZE]:]
    return hands, dealt, tc, ts, mask, calls, history, obs, raw, amask


@njit(cache=True, inline="always")
def _game_decide(st, hands, dealt, tc, ts, calls, obs, mask, raw, amask, T):
    opt = _t1(T, P_OPT)
    _decide(st, hands, dealt, tc, ts, calls, 0, obs, mask, raw, amask, opt, _t1(T, P_TAB), _t1(T, P_AKIND),
            _t1(T, P_AARG), _t2(T, P_EFF), _t2(T, P_POWER), _t1(T, P_RANK), _t1(T, P_OFF), _t1(T, P_LEADER_AT),
            _t2(T, P_CARD_AT), _t1(T, P_RND_OFF), _t1(T, P_RND_WIDTH), _t2(T, P_COL), _t2(T, P_PERMS),
            _t2(T, P_CANDS), _t1(T, P_NCANDS), _t2(T, P_TO_ABS), T[P_STRUCTURED] != 0, True)


@njit(cache=True)
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
    hands, dealt, tc, ts, mask, calls, history, obs, raw, amask = _unpack(s8, s16, f32, T)
    history[0] = 0
    start_hand(st, hands, dealt, tc, ts, calls, 0, deal, upcard, _t1(T, P_OPT), _t1(T, P_PRINTED))
    _game_decide(st, hands, dealt, tc, ts, calls, obs, mask, raw, amask, T)
    return st[0, CUR]


@njit(cache=True)
def game_deal(st, s8, s16, f32, T, order, new_game, score0, score1):
    """:func:`game_start` with the pack in ``order`` (card ids) dealt as ``deals.deal_from_order`` does."""
    opt = _t1(T, P_OPT)
    tricks, extra = opt[O_TRICKS], opt[O_BID] != 0 and opt[O_JOKER] >= 0
    deal = np.full((4, tricks + extra), -1, np.int16)
    upcard = _lay_out(order, st[0, DEALER], tricks, extra, opt[O_BID] != 0, deal)
    return game_start(st, s8, s16, f32, T, deal, upcard, new_game, score0, score1)


@njit(cache=True)
def game_step(st, s8, s16, f32, T, action):
    """Apply ``action`` (an id in the frame of the decision, in range), then unless the hand ended decide the
    next seat's observation and mask. Returns that seat, -1 if the hand ended, -2 (and nothing changes) if the
    mask does not allow ``action``. The absolute id joins the history."""
    hands, dealt, tc, ts, mask, calls, history, obs, raw, amask = _unpack(s8, s16, f32, T)
    if not mask[action]:
        return -2
    a = _t2(T, P_TO_ABS)[st[0, FRAME], action]
    history[0] += 1
    history[history[0]] = a
    if apply(st, hands, dealt, tc, ts, calls, 0, a, _t1(T, P_OPT), _t1(T, P_TAB), _t1(T, P_AKIND), _t1(T, P_AARG),
             _t1(T, P_AALONE), _t2(T, P_EFF), _t2(T, P_POWER), _t1(T, P_RANK), _t1(T, P_RND)):
        return -1
    _game_decide(st, hands, dealt, tc, ts, calls, obs, mask, raw, amask, T)
    return st[0, CUR]


@njit(cache=True)
def game_encode_seats(st, s8, s16, f32, T, out):
    """:func:`encode_seat` of every seat of the one game: ``out[seat]``."""
    hands, _, tc, ts, _, calls, _, _, raw, _ = _unpack(s8, s16, f32, T)
    opt, off = _t1(T, P_OPT), _t1(T, P_OFF)
    eff, power, leader_at, card_at = _t2(T, P_EFF), _t2(T, P_POWER), _t1(T, P_LEADER_AT), _t2(T, P_CARD_AT)
    rnd_off, rnd_width, col = _t1(T, P_RND_OFF), _t1(T, P_RND_WIDTH), _t2(T, P_COL)
    perms, cands, ncands = _t2(T, P_PERMS), _t2(T, P_CANDS), _t1(T, P_NCANDS)
    for seat in range(4):
        encode_seat(st, hands, tc, ts, calls, 0, seat, out[seat], raw, opt, off, eff, power, leader_at, card_at,
                    rnd_off, rnd_width, col, perms, cands, ncands, T[P_STRUCTURED] != 0)
