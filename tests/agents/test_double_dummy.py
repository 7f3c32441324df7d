"""The double-dummy solver agrees with plain minimax over the engine on small endgames."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from euchre_env.agents.rule_based.heuristics import trump_count
from euchre_env.agents.search.double_dummy import DoubleDummy, hand_value
from euchre_env.game.engine import GameState, Phase, team_of
from euchre_env.game.rules import Rules


def _endgame(rules: Rules, rng: np.random.Generator, cards_each: int) -> GameState:
    """A GameState in the play phase with ``cards_each`` cards per hand, a random trick in progress."""
    deck = rules.deck_spec
    while True:
        state = GameState(rules, int(rng.integers(1 << 30)))
        pack = [int(c) for c in rng.permutation(deck.cards())]
        state.hands = [sorted(pack[k * cards_each:(k + 1) * cards_each]) for k in range(4)]
        state.trump = int(rng.integers(4))
        state.maker = int(rng.integers(4))
        state.out = [False] * 4
        if rng.random() < 0.4:
            state.out[(state.maker + 2) % 4] = True
            state.maker_alone = True
        state.tricks = [(0, [], [])] * (rules.tricks_per_hand - cards_each)
        state.tricks_won = [0, 0]
        state.contract = int(rng.integers(1, cards_each + 1)) if rules.is_bid else None
        state.trick, state.trick_seats = [], []
        state._set(Phase.PLAY, state.next_active(int(rng.integers(4))))
        for _ in range(int(rng.integers(0, 3 - sum(state.out) + 1))):  # part of a trick already played
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        if state.phase == Phase.PLAY:
            return state


def _clone(state: GameState) -> GameState:
    """A copy of the play-phase fields apply() changes (deepcopy is too slow for a full tree)."""
    c = copy.copy(state)
    c.hands = [list(h) for h in state.hands]
    c.trick, c.trick_seats, c.tricks = list(state.trick), list(state.trick_seats), list(state.tricks)
    c.tricks_won, c.history = list(state.tricks_won), list(state.history)
    return c


def _minimax(state: GameState, maker_team: int) -> int:
    """Makers' tricks under perfect play, by exhaustive search over the engine (no pruning)."""
    if state.hand_over:
        return state.tricks_won[maker_team]
    values = []
    for a in state.legal_actions():
        child = _clone(state)
        child.apply(a)
        values.append(_minimax(child, maker_team))
    return max(values) if team_of(state.current) == maker_team else min(values)


def _child_values(state: GameState) -> dict[int, int]:
    maker_team = team_of(state.maker)
    out = {}
    for a in state.legal_actions():
        child = _clone(state)
        child.apply(a)
        out[state.table.actions[a].arg] = _minimax(child, maker_team) - state.tricks_won[maker_team]
    return out


@pytest.mark.parametrize(
    "preset,options",
    [("knock", {}), ("multiplayer", {"joker": True}), ("classic", {"deck": 32}), ("bid", {}),
     ("bid", {"double_deck": True})],
)
def test_solver_matches_brute_force(preset, options):
    rules = Rules.preset(preset, **options)
    rng = np.random.default_rng(11)
    for trial in range(25):
        cards_each = 2 + trial % 2
        state = _endgame(rules, rng, cards_each)
        dd = DoubleDummy(rules.deck_spec, state.trump)
        got = dd.card_values(
            state.hands, state.current, team_of(state.maker),
            trick=list(zip(state.trick_seats, state.trick)), out=state.out,
        )
        assert got == pytest.approx(_child_values(state)), (trial, state.hands, state.trick)


def test_transposition_table_is_reused_across_positions():
    rules = Rules.preset("knock")
    rng = np.random.default_rng(3)
    state = _endgame(rules, rng, 3)
    dd = DoubleDummy(rules.deck_spec, state.trump)
    args = (state.hands, state.current, team_of(state.maker), list(zip(state.trick_seats, state.trick)), state.out)
    first = dd.card_values(*args)
    nodes = dd.nodes
    assert dd.card_values(*args) == first
    assert dd.nodes - nodes <= nodes


def _deal_positions(rules: Rules, n: int, seed: int) -> list[tuple[list[list[int]], int, int, int]]:
    """``n`` full deals as (hands, trump, leader, maker team)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        hands = [list(h) for h in GameState(rules, int(rng.integers(1 << 30))).hands]
        out.append((hands, int(rng.integers(4)), int(rng.integers(4)), int(rng.integers(2))))
    return out


@pytest.mark.parametrize(
    "preset,options", [("knock", {}), ("bid", {}), ("multiplayer", {"joker": True, "deck": 32})]
)
def test_a_solver_shared_across_deals_gives_the_values_of_fresh_solvers(preset, options):
    """The transposition table (keyed on relative ranks) carries over from deal to deal without error."""
    rules = Rules.preset(preset, **options)
    shared: dict[int, DoubleDummy] = {}
    for hands, trump, leader, maker_team in _deal_positions(rules, 12, seed=5):
        solver = shared.setdefault(trump, DoubleDummy(rules.deck_spec, trump))
        exact = DoubleDummy(rules.deck_spec, trump).value(hands, leader, maker_team)
        assert solver.value(hands, leader, maker_team) == exact
        tricks = rules.tricks_per_hand
        reached = solver.value_at_thresholds(hands, leader, maker_team, (tricks // 2 + 1, tricks))
        assert reached == max([0] + [k for k in (tricks // 2 + 1, tricks) if exact >= k])


@pytest.mark.parametrize("preset,options", [("knock", {}), ("multiplayer", {"joker": True, "deck": 32})])
def test_relative_keys_tell_apart_positions_that_differ_in_who_holds_a_card(preset, options):
    """Swapping any two live cards between two seats changes the key (the longest suit included)."""
    rules = Rules.preset(preset, **options)
    rng = np.random.default_rng(4)
    dd = DoubleDummy(rules.deck_spec, trump=1)
    trumps = [b for b in range(len(dd.bit_card)) if dd.bit_suit[b] == 1]
    others = [int(b) for b in rng.permutation([b for b in range(len(dd.bit_card)) if dd.bit_suit[b] != 1])]
    live = trumps + others[:20 - len(trumps)]  # every trump live: the widest suit slot is full
    seats = [k % 4 for k in range(20)]
    for _ in range(3):
        rng.shuffle(seats)
        masks = [0, 0, 0, 0]
        for b, s in zip(live, seats):
            masks[s] |= 1 << b
        key = dd._relative_key(tuple(masks))
        for i in range(20):
            for j in range(i + 1, 20):
                if seats[i] == seats[j]:
                    continue
                swapped = list(masks)
                for b, s, t in ((live[i], seats[i], seats[j]), (live[j], seats[j], seats[i])):
                    swapped[s] &= ~(1 << b)
                    swapped[t] |= 1 << b
                assert dd._relative_key(tuple(swapped)) != key, (live[i], live[j])


def test_positions_differing_only_in_played_cards_share_table_entries():
    """Same live cards in the same relative order and seats: the second solve is all table hits."""
    rules = Rules.preset("knock")
    rng = np.random.default_rng(8)
    dd = DoubleDummy(rules.deck_spec, trump=2)
    bits = [int(b) for b in rng.permutation(len(dd.bit_card))[:12]]  # three cards each, 12 of 24 live
    owner = {b: k % 4 for k, b in enumerate(bits)}
    # the same live cards moved to the bottom of their suits: other cards dead, same order, same seats
    moved = {}
    for suit in range(4):
        live = sorted(b for b in bits if dd.bit_suit[b] == suit)
        bottom = [b for b in range(len(dd.bit_card)) if dd.bit_suit[b] == suit][:len(live)]
        moved.update(zip(live, bottom))
    first = [[dd.bit_card[b] for b in bits if owner[b] == s] for s in range(4)]
    second = [[dd.bit_card[moved[b]] for b in bits if owner[b] == s] for s in range(4)]
    assert first != second
    value = dd.value(first, 1, 0)
    entries = len(dd.tt)
    assert dd.value(second, 1, 0) == value == DoubleDummy(rules.deck_spec, 2).value(second, 1, 0)
    assert len(dd.tt) == entries


def test_the_depth_limit_estimate_shares_the_tricks_by_trump_count():
    """Beyond ``max_tricks`` the makers get the remaining tricks in proportion to their team's trump count."""
    rules = Rules.preset("bid", double_deck=True)
    deck = rules.deck_spec
    hands = [list(h) for h in GameState(rules, 3).hands]
    for trump, maker_team in ((0, 0), (2, 1)):
        count = [trump_count(deck, hands[t] + hands[t + 2], trump) for t in (0, 1)]
        expected = rules.tricks_per_hand * count[maker_team] / sum(count)
        assert DoubleDummy(deck, trump).value(hands, 1, maker_team, max_tricks=0) == pytest.approx(expected)


def test_hand_value_follows_the_scoring():
    knock = Rules.preset("knock")
    assert hand_value(knock, 5, 0, 0, maker_alone=True) == 4
    assert hand_value(knock, 3, 0, 1) == -1
    assert hand_value(knock, 2, 1, 0, defender_alone=True) == 4
    bid = Rules.preset("bid")
    assert hand_value(bid, 4, 0, 0, contract=4) == 4 - 2
    assert hand_value(bid, 3, 0, 0, contract=4) == -4 - 3
