"""Scoring on arrays of games: :mod:`euchre_env.game.scoring` (a hand's points, the game's and the rubber's end) and
``GameState._finish_hand`` ported to Numba.

Reference: :mod:`euchre_env.game.scoring` (and :meth:`euchre_env.game.engine.GameState._finish_hand`). Proven equal
to it by ``tests/differential/kernels_vs_engine.py`` (hand results and scores at every hand's end of random
games of ten rule sets, rubbers and Bid Euchre among them).
"""

from __future__ import annotations

from euchre_env.compiled.builds import keyed
from euchre_env.compiled.layout import (
    CLAIMANT,
    CONTRACT,
    CORE_FILES,
    CUR,
    DEFALONE,
    GAME_OVER,
    GW,
    GWIN,
    HAND_OVER,
    MAKER,
    MALONE,
    NREN,
    O_BID,
    O_MINUS,
    O_RUBBER,
    O_TARGET,
    O_TRICKS,
    PH,
    REN,
    RES_PTS,
    RES_SC,
    RMARGIN,
    RP,
    RUBBER_BONUS,
    SC,
    THROWN,
    TW,
    WINNER,
)

jit = keyed(CORE_FILES)

@jit
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


@jit
def _game_winner(s0, s1, opt):
    target = opt[O_TARGET]
    ended = max(s0, s1) >= target or (opt[O_MINUS] and min(s0, s1) <= -target)
    if not ended or s0 == s1:
        return -1
    return 0 if s0 > s1 else 1


@jit
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
    st[g, PH] = HAND_OVER
    st[g, CUR] = -1
    winner = _game_winner(st[g, SC], st[g, SC + 1], opt)
    st[g, GWIN] = winner
    if winner < 0:
        return 1
    if not opt[O_RUBBER]:
        st[g, WINNER] = winner
        st[g, PH] = GAME_OVER
        st[g, CUR] = -1
        return 1
    loser_score = st[g, SC + 1 - winner]
    st[g, RP + winner] += 3 if loser_score <= 0 else (2 if loser_score <= 2 else 1)
    st[g, GW + winner] += 1
    if st[g, GW + winner] == 2:
        st[g, WINNER] = winner
        st[g, RMARGIN] = st[g, RP + winner] + RUBBER_BONUS - st[g, RP + 1 - winner]
        st[g, PH] = GAME_OVER
        st[g, CUR] = -1
    else:
        st[g, SC] = 0
        st[g, SC + 1] = 0
    return 1
