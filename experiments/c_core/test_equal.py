"""The C twin (euchre_core.Game) equals Numba's one-game kernels (one_game.game_start / game_deal / game_step /
game_encode_seats): same return values and all five buffers bitwise equal after every call, over random games.

    .venv/bin/python -m pytest experiments/c_core/test_equal.py -q
"""

from __future__ import annotations

import numpy as np
import pytest

from common import Pair  # noqa: I001 (sets the environment first)
from euchre_env.compiled import layout as K
from euchre_env.compiled.tables import kernel_tables
from euchre_env.game.deals import random_deal, shuffled_pack
from euchre_env.game.rules import Rules
from tests.differential.kernels_vs_engine import RULE_SETS

CONFIGS = {**RULE_SETS, "classic+stick": {"stick_the_dealer": True}}
GAMES = 150  # games per rule set and observation (a game: until it is won or 12 hands)
TOTALS = {"decisions": 0, "hands": 0, "games": 0}


def rules_of(name):
    return Rules.preset(name.split("+")[0], **CONFIGS[name])


def check(pair, rn, rc, where):
    assert rn == rc, f"{where}: returned {rn} (Numba) vs {rc} (C)"
    diff = pair.differences()
    assert not diff, f"{where}: buffers differ: {diff}"


def play(rules, observation, games, seed):
    pair = Pair(rules, observation)
    cg, c = pair.cg, pair.c
    rng = np.random.default_rng(seed)
    tables = kernel_tables(rules, observation)
    pass_id = int(tables.tab[K.T_PASS])  # absolute; to_abs maps a decision's ids to absolute ones
    pass_bias = 0.5  # half the time pass when passing is legal: thrown-in hands, stick the dealer, defenders pass
    target = rules.game_target
    decisions = hands = 0
    for game in range(games):
        dealer = int(rng.integers(4))
        pair.set_field(K.DEALER, dealer)
        scores = [0, 0]
        if rng.random() < 0.3:  # games started near the end (and below zero), as the env's options allow
            scores = [int(x) for x in rng.integers(-target + 1, target, 2)]
        shuffled = rng.random() < 0.5
        for hand in range(12):
            where = f"{rules.preset_name} {observation} game {game} hand {hand}"
            if shuffled:
                pack = shuffled_pack(rules, rng)
                rn = cg._start_shuffled(pack, hand == 0, *scores)
                rc = c.deal(pack, hand == 0, *scores)
            else:
                deal = random_deal(rules, rng, pair.field(K.DEALER))
                hs = deal["hands"]
                width = max(map(len, hs))
                cards = np.array([list(h) + [-1] * (width - len(h)) for h in hs], np.int16)
                upcard = deal.get("upcard")
                upcard = -1 if upcard is None else int(upcard)
                rn = cg._start(cards, upcard, hand == 0, *scores)
                rc = c.start(cards, upcard, hand == 0, *scores)
            check(pair, rn, rc, where + " start")
            seat = rn
            while seat >= 0:
                legal = np.flatnonzero(cg.mask)
                if rng.random() < 0.1:  # an illegal action: -2 and nothing changes
                    illegal = np.flatnonzero(cg.mask == 0)
                    if len(illegal):
                        a = int(rng.choice(illegal))
                        check(pair, cg.step(a), c.step(a), f"{where} illegal {a}")
                if rng.random() < 0.1:
                    cg._encode_seats()
                    c.encode_seats(pair.c_seats)
                    check(pair, 0, 0, where + " encode_seats")
                a = int(rng.choice(legal))
                passes = legal[tables.to_abs[cg.frame, legal] == pass_id]
                if len(passes) and rng.random() < pass_bias:
                    a = int(passes[0])
                rn, rc = cg.step(a), c.step(a)
                decisions += 1
                check(pair, rn, rc, f"{where} step {decisions} action {a}")
                seat = rn
            hands += 1
            cg._encode_seats()  # the final observations of every seat
            c.encode_seats(pair.c_seats)
            check(pair, 0, 0, where + " final encode_seats")
            if pair.field(K.PH) == K.GAME_OVER:
                break
            pair.set_field(K.HANDNO, pair.field(K.HANDNO) + 1)  # CompiledGame._end_of_hand / next_dealer
            pair.set_field(K.DEALER, (pair.field(K.DEALER) + 1) % 4)
    TOTALS["decisions"] += decisions
    TOTALS["hands"] += hands
    TOTALS["games"] += games
    return decisions, hands


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_c_twin_equals_numba(name, observation):
    decisions, hands = play(rules_of(name), observation, GAMES, seed=hash((name, observation)) % 2**32)
    assert decisions > 0 and hands >= GAMES


def test_report_totals():
    print(f"\nchecked {TOTALS}")  # run last (pytest keeps the file's order): pytest -s shows it


if __name__ == "__main__":
    import sys

    for n in CONFIGS:
        for o in ("absolute", "structured"):
            print(n, o, play(rules_of(n), o, GAMES, seed=1), flush=True)
    print(TOTALS)
    sys.exit(0)
