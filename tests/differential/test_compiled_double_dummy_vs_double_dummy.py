"""CompiledDoubleDummy against DoubleDummy: the same ``card_values``, ``value`` and ``value_at_thresholds``.

Random positions (seeded) of every preset and its deck variants (the joker, the 32-card deck), at every number
of cards left in the hands, with 0 to 3 cards of the trick already played, with everybody in, a lone maker, and
a lone maker against a lone defender. The compiled solvers are shared across the positions of a rule set (their
transposition table carries over, as PIMC uses them), one of them with a 16-slot table so that entries are
replaced all the time. Where the compiled solver does not apply (the double deck, ``max_tricks``, the extension not
built) it says so and PIMC keeps the Python solver; bad input to the C extension is refused with a Python exception.
"""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.agents.search import double_dummy_compiled, pimc
from euchre_env.agents.search.double_dummy import DoubleDummy
from euchre_env.agents.search.double_dummy_compiled import CompiledDoubleDummy, supports
from euchre_env.game.cards import follow_suit, trick_winner
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, team_of

CASES = [
    ("knock", {}), ("classic", {"joker": True}), ("classic", {"deck": 32}), ("multiplayer", {}),
    ("multiplayer", {"deck": 32, "joker": True}), ("bid", {}), ("bid", {"joker": True}),
]
REPEATS = 3  # positions per rule set, number of cards left and cards of the trick played


def _position(rules: Rules, rng: np.random.Generator, cards_each: int, played: int):
    """(hands, to_play, maker team, trick, out, trump): ``cards_each`` cards a seat before the trick in progress,
    ``played`` of its cards already played (legally) by the seats before ``to_play``."""
    deck = rules.deck_spec
    trump = int(rng.integers(4))
    suits = deck.effective_suits(trump)
    maker = int(rng.integers(NUM_SEATS))
    out = [False] * NUM_SEATS
    lone = int(rng.integers(3))  # 0 everybody, 1 a lone maker, 2 a lone maker against a lone defender
    if lone:
        out[(maker + 2) % NUM_SEATS] = True
    if lone == 2:
        out[(maker + 1 + 2 * int(rng.integers(2))) % NUM_SEATS] = True
    active = [s for s in range(NUM_SEATS) if not out[s]]
    played = min(played, len(active) - 1)
    pack = [int(c) for c in rng.permutation(deck.cards())]
    hands = [[] if out[s] else sorted(pack[s * cards_each:(s + 1) * cards_each]) for s in range(NUM_SEATS)]
    seat = active[int(rng.integers(len(active)))]
    trick = []
    for _ in range(played):
        legal = follow_suit(hands[seat], suits[trick[0][1]] if trick else None, suits)
        card = legal[int(rng.integers(len(legal)))]
        hands[seat].remove(card)
        trick.append((seat, card))
        seat = active[(active.index(seat) + 1) % len(active)]
    return hands, seat, team_of(maker), trick, out, trump


@pytest.mark.parametrize("preset,options", CASES)
def test_compiled_solver_gives_the_reference_values(preset, options):
    rules = Rules.preset(preset, **options)
    deck = rules.deck_spec
    assert supports(deck)
    rng = np.random.default_rng(2024)
    reference, shared, tiny = {}, {}, {}
    compared = 0
    for cards_each in range(1, rules.hand_size + 1):
        for played in [p for p in range(4) for _ in range(REPEATS)]:
            hands, to_play, maker_team, trick, out, trump = _position(rules, rng, cards_each, played)
            ref = reference.setdefault(trump, DoubleDummy(deck, trump))
            solvers = (shared.setdefault(trump, CompiledDoubleDummy(deck, trump)),
                       tiny.setdefault(trump, CompiledDoubleDummy(deck, trump, table_bits=4)))
            expected = ref.card_values(hands, to_play, maker_team, trick=trick, out=out)
            for solver in solvers:
                got = solver.card_values(hands, to_play, maker_team, trick=trick, out=out)
                assert got == expected and list(got) == list(expected), (cards_each, trick, out, hands)
            compared += 1
            if not trick:  # a trick boundary: the leader's value, and the threshold searches
                value = ref.value(hands, to_play, maker_team, out)
                thresholds = (cards_each // 2 + 1, cards_each)
                reached = ref.value_at_thresholds(hands, to_play, maker_team, thresholds, out)
                for solver in solvers:
                    assert solver.value(hands, to_play, maker_team, out) == value
                    assert solver.value_at_thresholds(hands, to_play, maker_team, thresholds, out) == reached
    assert compared == 4 * REPEATS * rules.hand_size


@pytest.mark.parametrize("preset,options", [("knock", {}), ("multiplayer", {"deck": 32, "joker": True})])
def test_the_tables_give_the_rules_of_follow_suit_and_trick_winner(preset, options):
    """The two tables the kernels read (the cards that follow a suit led, the cards that take a trick from the card
    winning it) give follow_suit's legal cards and trick_winner's winner on random hands and tricks."""
    rules = Rules.preset(preset, **options)
    deck = rules.deck_spec
    rng = np.random.default_rng(7)
    for trump in range(4):
        solver = CompiledDoubleDummy(deck, trump, table_bits=4)
        suits = deck.effective_suits(trump)
        bit = solver.card_bit
        for _ in range(200):
            cards = [int(c) for c in rng.permutation(deck.cards())]
            hand, led = cards[:int(rng.integers(1, 7))], int(rng.integers(4))
            follow = sum(1 << bit[c] for c in hand) & int(solver.tab[68 + led])  # _FOLLOW
            allowed = {solver.bit_card[b] for b in range(len(solver.bit_card)) if follow >> b & 1} or set(hand)
            assert allowed == set(follow_suit(hand, led, suits))
            trick = cards[6:6 + int(rng.integers(2, 5))]
            win = 0
            for i in range(1, len(trick)):
                if int(solver.tab[72 + bit[trick[win]]]) >> bit[trick[i]] & 1:  # _BEATEN_BY
                    win = i
            assert win == trick_winner(trick, deck, trump)


def test_where_the_compiled_solver_does_not_apply_callers_keep_the_python_solver(monkeypatch):
    double = Rules.preset("bid", double_deck=True).deck_spec
    assert not supports(double)
    with pytest.raises(ValueError):
        CompiledDoubleDummy(double, 0)
    knock = Rules.preset("knock").deck_spec
    solver = CompiledDoubleDummy(knock, 0, table_bits=4)
    hands = [[0, 1], [2, 3], [6, 7], [8, 9]]
    with pytest.raises(ValueError):
        solver.card_values(hands, 0, 0, max_tricks=1)
    with pytest.raises(ValueError):
        solver.value(hands, 0, 0, max_tricks=1)
    agent = pimc.PIMCAgent(seed=0, worlds=2)
    assert isinstance(agent._solver(double, 0), DoubleDummy)  # the double deck: the Python solver
    assert isinstance(agent._solver(knock, 0), CompiledDoubleDummy)  # the extension is built (pip install)
    monkeypatch.setattr(double_dummy_compiled, "_built", lambda: False)  # installed without a C compiler
    agent = pimc.PIMCAgent(seed=0, worlds=2)
    assert type(agent._solver(knock, 0)) is DoubleDummy


def test_the_extension_refuses_bad_input_in_one_python_exception():
    """Arrays of the wrong type or size, cards past the deck's bits, seats out of range: ValueError, no crash."""
    knock = Rules.preset("knock").deck_spec
    solver = CompiledDoubleDummy(knock, 0, table_bits=4)
    native = solver._solver
    cfg = solver._settings(0, (False,) * NUM_SEATS)
    hands = (0b11, 0b1100, 0b110000, 0b11000000)
    assert native.boundary_value(cfg, hands, 0, -1, 3) in (0, 1, 2)  # well-formed: two tricks to play
    for bad_cfg in (cfg.astype(np.int32), cfg[:5], cfg.reshape(1, -1), np.full_like(cfg, 7)):
        with pytest.raises(ValueError):
            native.boundary_value(bad_cfg, hands, 0, -1, 3)
    for bad_hands in ((1 << 62, 0, 0, 0), (-1, 0, 0, 0), (1, 2, 4)):
        with pytest.raises((ValueError, TypeError)):
            native.boundary_value(cfg, bad_hands, 0, -1, 3)
    with pytest.raises(ValueError):
        native.boundary_value(cfg, hands, 4, -1, 3)
    with pytest.raises(ValueError):
        native.card_values(cfg, hands, 0, (70,), (1,))
    with pytest.raises(ValueError):
        type(native)(solver.tab[:10], 4)
    with pytest.raises(ValueError):
        type(native)(solver.tab, 40)
