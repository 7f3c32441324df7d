"""The observers on arrays of games: :class:`~euchre_env.views.observation.Observer` (the absolute encoding) and
:class:`~euchre_env.views.structured.StructuredObserver` (its extra blocks and the canonical suit frame) ported to
Numba, and one decision's observation and mask in its frame.

References: :mod:`euchre_env.views.observation`, :mod:`euchre_env.views.structured`. Proven equal to them by
``tests/differential/kernels_vs_engine.py`` (every observation of random games of ten rule sets) and
``tests/differential/test_observe_sparse_vs_observe_dense.py`` (the sparse read of the same encodings).
"""

from __future__ import annotations

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.layout import (
    B_CT,
    B_DEALER,
    B_DISCARD,
    B_FATE,
    B_GIVEN,
    B_GIVEN_BACK,
    B_HAND,
    B_LEADS,
    B_LED,
    B_MAKER,
    B_OUT,
    B_PHASE,
    B_PLAYED,
    B_PWIN,
    B_RUBBER,
    B_SCORES,
    B_TN,
    B_TO_ACT,
    B_TRUMP,
    B_TW,
    B_UNSEEN,
    B_UPCARD,
    B_UPSUIT,
    B_VOIDS,
    B_WINNING,
    BIDDER,
    CORE_FILES,
    CUR,
    DEALER,
    DISC,
    FRAME,
    GAME_OVER,
    GIVEN,
    GIVENBACK,
    GW,
    HAND_OVER,
    MAKER,
    NCUR,
    NTR,
    O_BID,
    O_COPIES,
    O_NIDS,
    O_RUBBER,
    O_TARGET,
    O_TRICKS,
    OUT,
    PH,
    PLAY,
    RP,
    SC,
    SCORE_BOUND,
    TDOWN,
    TRUMP,
    TW,
    UP,
    UPSUIT,
    UPTAKEN,
)
from euchre_env.compiled.rules import active_seats, legal_mask, partner, trick_winner

jit = keyed(CORE_FILES)


@jit(inline="always")
def encode(s, g, seat, t, raw, structured):
    """The absolute observation of ``seat`` (``Observer.encode``), then with ``structured`` the structured
    observation's extra blocks in absolute suits (``StructuredObserver._absolute``), into ``raw``."""
    st, hands, tc, ts, calls = s.st, s.hands, s.tc, s.ts, s.calls
    opt, off, eff, leader_at, card_at, rnd_off, rnd_width, col = (t.opt, t.off, t.eff, t.leader_at, t.card_at,
                                                                   t.rnd_off, t.rnd_width, t.col)
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
    if st[g, GIVEN] >= 0 and (seat == bidder or seat == partner(bidder)):
        raw[off[B_GIVEN] + st[g, GIVEN]] = 1.0
        if st[g, GIVENBACK] >= 0:
            raw[off[B_GIVEN_BACK] + st[g, GIVENBACK]] = 1.0
    if trump >= 0:
        raw[off[B_TRUMP] + trump] = 1.0
    if st[g, MAKER] >= 0:
        raw[off[B_MAKER] + (st[g, MAKER] - seat) % 4] = 1.0
    for q in range(4):
        if st[g, OUT + q]:
            raw[off[B_OUT] + (q - seat) % 4] = 1.0
    ntr = st[g, NTR]
    ncur = st[g, NCUR]
    active = active_seats(st, g)
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
        w = (trick_winner(tc, ts, g, ntr, ncur, trump, eff, t.power) - seat) % 4
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


@jit(inline="always")
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


@jit(inline="always")
def in_frame(raw, perm, out):
    """``raw`` in a frame: ``out[j] = raw[perm[j]]`` (``perm``: the frame's row of ``perms``)."""
    for j in range(out.shape[0]):
        out[j] = raw[perm[j]]


@jit(inline="always")
def canonical(raw, perms, cands, ncands, ref, out):
    """``StructuredObserver.encode_with_frame``: write the lexicographically largest candidate frame's
    encoding of ``raw`` into ``out``; return that frame's index."""
    best = choose_frame(raw, perms, cands, ncands, ref, out.shape[0])
    in_frame(raw, perms[best], out)
    return best


@jit(inline="always")
def _reference_suit(st, g, opt):
    """The suit a structured observation's frame is chosen around (``StructuredObserver``'s reference)."""
    trump = st[g, TRUMP]
    return trump if trump >= 0 else (st[g, UPSUIT] if not opt[O_BID] else -1)


# =============================================================================== one decision
@jit(inline="always")
def decide(s, g, obs, mask, raw, amask, t, with_obs):
    """Observation (with ``with_obs``) and mask of game ``g``'s seat to act, in its frame; sets ``st[g, FRAME]``.
    Scratch: ``raw`` (the structured encoding in absolute suits) and ``amask`` (the mask in absolute ids)."""
    st = s.st
    seat = st[g, CUR]
    if not t.structured:  # absolute ids: the mask is written in place, no frame to map it through
        legal_mask(s, g, t, mask)
        st[g, FRAME] = 0
        if with_obs:  # the absolute observation is the encoding itself
            encode(s, g, seat, t, obs, False)
        return
    legal_mask(s, g, t, amask)
    # The frame is the encoding's: encoded even without with_obs.
    encode(s, g, seat, t, raw, True)
    frame = canonical(raw, t.perms, t.cands, t.ncands, _reference_suit(st, g, t.opt), obs)
    st[g, FRAME] = frame
    to_abs = t.to_abs
    for a in range(mask.shape[0]):
        mask[a] = amask[to_abs[frame, a]] > 0


@jit
def encode_seat(s, g, seat, out, raw, t):
    """The observation of any ``seat`` of game ``g`` (final observations): as :func:`decide` writes it."""
    if t.structured:
        encode(s, g, seat, t, raw, True)
        canonical(raw, t.perms, t.cands, t.ncands, _reference_suit(s.st, g, t.opt), out)
    else:
        encode(s, g, seat, t, out, False)
