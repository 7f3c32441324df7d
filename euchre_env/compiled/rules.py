"""The rules on arrays of games: :class:`~euchre_env.game.engine.GameState`'s methods (and
:mod:`euchre_env.game.scoring`) ported to Numba, one function per method (the docstring names it).

Reference: :mod:`euchre_env.game.engine`. Proven equal to it by ``tests/differential/kernels_vs_engine.py`` (run by
``tests/differential/test_vector_euchre_vs_engine.py`` and ``tests/differential/test_compiled_game_vs_engine.py``:
masks, observations, rewards and hand results at every step of random games of ten rule sets). It defines no rule of its
own: a rule change goes into the engine first; the differential test then shows this file what to follow. Scoring is
:mod:`~euchre_env.compiled.scoring`. The state and the tables are one value each
(:class:`~euchre_env.compiled.layout.GameArrays` ``s``, :class:`~euchre_env.compiled.layout.Tables` ``t``; their layout:
:mod:`euchre_env.compiled.layout`). """

from __future__ import annotations

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.layout import (
    AUCTION,
    BIDDER,
    CALL1,
    CALL2,
    CLAIMANT,
    CONTRACT,
    CORE_FILES,
    CUR,
    DEALER,
    DEFALONE,
    DEFEND,
    DISC,
    DISCARD,
    GIVE,
    GIVE_BACK,
    GIVEN,
    GIVENBACK,
    GWIN,
    JOKER_SUIT,
    K_ANF,
    K_BID,
    K_DEFEND,
    K_PASS,
    MAKER,
    MALONE,
    NAME_TRUMP,
    NCUR,
    NREN,
    NTR,
    O_ACE,
    O_BID,
    O_DEFEND,
    O_DPGA,
    O_JACK,
    O_JOKER,
    O_KING,
    O_NIDS,
    O_PENALIZE,
    O_QUEEN,
    O_STICK,
    O_TRICKS,
    OUT,
    PH,
    PLAY,
    REN,
    SPK,
    T_ANF,
    T_BID,
    T_DEFEND,
    T_DISCARD,
    T_GIVE,
    T_NAME,
    T_NAME_ALONE,
    T_NBIDS,
    T_ORDER,
    T_ORDER_ALONE,
    T_PASS,
    T_PLAY,
    TDOWN,
    THROWN,
    TRUMP,
    TW,
    UP,
    UPSUIT,
    UPTAKEN,
)
from euchre_env.compiled.scoring import _finish_hand

jit = keyed(CORE_FILES)


# =============================================================================== small helpers
@jit(inline="always")
def left(s):
    return (s + 1) % 4


@jit(inline="always")
def partner(s):
    return (s + 2) % 4


@jit(inline="always")
def _next_active(st, g, s):
    n = (s + 1) % 4
    while st[g, OUT + n]:
        n = (n + 1) % 4
    return n


@jit(inline="always")
def active_seats(st, g):
    return 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]


@jit(inline="always")
def _set(st, g, phase, seat):
    st[g, PH] = phase
    st[g, CUR] = seat


@jit(inline="always")
def trick_winner(tc, ts, g, k, ncards, trump, eff, power):
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
@jit
def start_hand(s, g, deal, upcard, t):
    """``GameState._start_hand`` for game ``g``: ``deal[seat]`` its cards (-1 padded), ``upcard`` (-1: none)."""
    st, hands, dealt, calls, opt = s.st, s.hands, s.dealt, s.calls, t.opt
    nids = opt[O_NIDS]
    for p in range(4):
        for c in range(nids):
            hands[g, p, c] = 0
        for j in range(deal.shape[1]):
            c = deal[p, j]
            if c >= 0:
                hands[g, p, c] += 1
        for c in range(nids):
            dealt[g, p, c] = hands[g, p, c]
        st[g, OUT + p] = 0
    for r in range(calls.shape[1]):
        for p in range(4):
            calls[g, r, p] = -1
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
    first = left(dealer)
    if opt[O_BID]:
        if opt[O_JOKER] >= 0:
            _set(st, g, DISCARD, dealer)
        else:
            _set(st, g, AUCTION, first)
    elif upcard == opt[O_JOKER]:
        _set(st, g, JOKER_SUIT, dealer)
    else:
        st[g, UPSUIT] = t.printed[upcard]
        _set(st, g, CALL1, first)


# =============================================================================== legal actions
@jit(inline="always")
def legal_mask(s, g, t, mask):
    """``GameState._compute_legal`` as a 0/1 mask over the absolute action ids (zeroed first)."""
    st, hands, tc, opt, tab, eff, power = s.st, s.hands, s.tc, t.opt, t.tab, t.eff, t.power
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
        if opt[O_DPGA] and seat == partner(st[g, DEALER]):
            mask[tab[T_ORDER_ALONE]] = 1
            return
        mask[tab[T_ORDER]] = 1
        if tab[T_ORDER_ALONE] >= 0:
            mask[tab[T_ORDER_ALONE]] = 1
    elif p == CALL2:
        if not (seat == st[g, DEALER] and opt[O_STICK]):
            mask[tab[T_PASS]] = 1
        for u in range(4):
            if u != st[g, UPSUIT]:
                mask[tab[T_NAME] + u] = 1
                if tab[T_NAME_ALONE] >= 0:
                    mask[tab[T_NAME_ALONE] + u] = 1
    elif p == DISCARD:
        _held(hands, g, seat, nids, tab[T_DISCARD], mask)
    elif p == DEFEND:
        mask[tab[T_PASS]] = 1
        mask[tab[T_DEFEND]] = 1
    elif p == JOKER_SUIT or p == NAME_TRUMP:  # noqa: SIM109 (numba compiles plain comparisons)
        for u in range(4):
            mask[tab[T_NAME] + u] = 1
    elif p == AUCTION:
        if not (opt[O_STICK] and seat == st[g, DEALER] and st[g, CONTRACT] < 0):
            mask[tab[T_PASS]] = 1
        if tab[T_ANF] >= 0 and ace_no_face_eligible(s.dealt, g, seat, opt, t.rank):
            mask[tab[T_ANF]] = 1
        floor = st[g, CONTRACT] if st[g, CONTRACT] >= 0 else 0
        for i in range(tab[T_NBIDS]):
            if t.aarg[tab[T_BID] + i] > floor:
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


@jit(inline="always")
def _held(hands, g, seat, nids, base, mask):
    """``engine._unique_ids(base, hand)``: the ids ``base + card`` of every card ``seat`` holds."""
    for c in range(nids):  # the block is this kind's alone: writing its zeros too changes nothing
        mask[base + c] = hands[g, seat, c] > 0


@jit
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
@jit(inline="always")
def apply(s, g, action, t):
    """``GameState.apply`` for a legal ``action`` (absolute id) of game ``g``. Returns 1 if the hand ended."""
    st, hands, opt = s.st, s.hands, t.opt
    p = st[g, PH]
    seat = st[g, CUR]
    kind = t.akind[action]
    arg = t.aarg[action]
    rnd = t.rnd
    if rnd[p] >= 0:  # a calling round: the observation records each seat's call
        s.calls[g, rnd[p], seat] = action
    if p == PLAY:
        return _play(st, hands, s.tc, s.ts, g, seat, arg, opt, t.eff, t.power)
    if p == CALL1:
        if kind == K_PASS:
            st[g, SPK] += 1
            if st[g, SPK] == 4:
                st[g, SPK] = 0
                st[g, TDOWN] = 1
                _set(st, g, CALL2, left(st[g, DEALER]))
            else:
                _set(st, g, CALL1, left(seat))
            return 0
        _fix_trump(st, g, seat, st[g, UPSUIT], t.aalone[action])
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
            _set(st, g, CALL2, left(seat))
            return 0
        _fix_trump(st, g, seat, arg, t.aalone[action])
        return _after_trump_fixed(st, g, opt)
    if p == DISCARD:
        hands[g, seat, arg] -= 1
        st[g, DISC] = arg
        if opt[O_BID]:
            _set(st, g, AUCTION, left(st[g, DEALER]))
            return 0
        return _after_trump_fixed(st, g, opt)
    if p == DEFEND:
        if kind == K_DEFEND:
            st[g, DEFALONE] = seat
            st[g, OUT + partner(seat)] = 1
            _start_play(st, g)
            return 0
        st[g, SPK] += 1
        if st[g, SPK] == 2:
            _start_play(st, g)
            return 0
        _set(st, g, DEFEND, _next_defender(st, g, left(seat)))
        return 0
    if p == JOKER_SUIT:
        st[g, UPSUIT] = arg
        _set(st, g, CALL1, left(st[g, DEALER]))
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
        _set(st, g, AUCTION, left(seat))
        return 0
    if p == NAME_TRUMP:
        st[g, TRUMP] = arg
        if st[g, CONTRACT] == opt[O_TRICKS]:  # help
            _set(st, g, GIVE, seat)
        else:
            if st[g, CONTRACT] == opt[O_TRICKS] + 1:  # moon
                st[g, OUT + partner(seat)] = 1
            _set(st, g, PLAY, seat)
        return 0
    if p == GIVE:
        hands[g, seat, arg] -= 1
        hands[g, partner(seat), arg] += 1
        st[g, GIVEN] = arg
        _set(st, g, GIVE_BACK, partner(seat))
        return 0
    if p == GIVE_BACK:
        hands[g, seat, arg] -= 1
        hands[g, st[g, BIDDER], arg] += 1
        st[g, GIVENBACK] = arg
        st[g, OUT + seat] = 1
        _set(st, g, PLAY, st[g, BIDDER])
        return 0
    return 0


@jit
def _fix_trump(st, g, seat, suit, alone):
    st[g, SPK] = 0
    st[g, TRUMP] = suit
    st[g, MAKER] = seat
    st[g, MALONE] = alone
    if alone:
        st[g, OUT + partner(seat)] = 1


@jit
def _after_trump_fixed(st, g, opt):
    if opt[O_DEFEND] and st[g, MALONE]:
        _set(st, g, DEFEND, _next_defender(st, g, left(st[g, DEALER])))
        return 0
    _start_play(st, g)
    return 0


@jit
def _next_defender(st, g, seat):
    while seat % 2 == st[g, MAKER] % 2:
        seat = left(seat)
    return seat


@jit
def _start_play(st, g):
    st[g, SPK] = 0
    _set(st, g, PLAY, _next_active(st, g, st[g, DEALER]))


@jit(inline="always")
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
    if n < active_seats(st, g):
        _set(st, g, PLAY, _next_active(st, g, seat))
        return 0
    winner = trick_winner(tc, ts, g, k, n, trump, eff, power)
    st[g, TW + winner % 2] += 1
    st[g, NTR] = k + 1
    st[g, NCUR] = 0
    if k + 1 == opt[O_TRICKS]:
        return _finish_hand(st, g, opt, 0, -1)
    _set(st, g, PLAY, winner)
    return 0
