"""The world sampler respects everything the seat knows and reaches every consistent deal."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import numpy as np
import pytest

from euchre_env.agents.search.worlds import WorldSampler, world_deal
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import information_state

CASES = [
    ("knock", {}), ("multiplayer", {"joker": True}), ("classic", {"deck": 32}),
    ("bid", {}), ("bid", {"joker": True}), ("bid", {"double_deck": True}),
]


def _random_state(rules: Rules, rng: np.random.Generator, max_steps: int = 40) -> GameState:
    state = GameState(rules, int(rng.integers(1 << 30)))
    for _ in range(int(rng.integers(0, max_steps))):
        if state.hand_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state


def _check_world(state: GameState, seat: int, world) -> None:
    info = information_state(state, seat)
    deck = state.deck
    assert world.hands[seat] == tuple(sorted(state.hands[seat]))
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands] == list(info.hand_sizes)
    everything = Counter(c for h in world.hands for c in h) + Counter(world.pile) + Counter(info.played)
    assert everything == Counter(deck.cards())
    suits = deck.effective_suits(state.trump)
    for s in range(4):
        if s != seat:
            assert not {suits[c] for c in world.hands[s]} & info.voids[s]
    if info.discarded is not None:
        assert info.discarded in world.pile
    if info.upcard is not None and info.upcard not in info.played:
        if not info.upcard_taken:
            assert info.upcard in world.pile
        elif info.upcard in state.hands[state.dealer]:
            assert info.upcard in world.hands[state.dealer]


@pytest.mark.parametrize("preset,options", CASES)
def test_worlds_never_contradict_the_seat(preset, options):
    rules = Rules.preset(preset, **options)
    rng = np.random.default_rng(5)
    for _ in range(30):
        state = _random_state(rules, rng, 60 if rules.double_deck else 40)
        if state.hand_over:
            continue
        for seat in range(4):
            info = information_state(state, seat)
            sampler = WorldSampler(info)
            assert sampler.count() > 0
            for _ in range(5):
                _check_world(state, seat, sampler.sample(rng))


def test_an_info_state_without_hand_sizes_is_refused_clearly():
    info = information_state(GameState(Rules.preset("knock"), 0), 1)
    with pytest.raises(ValueError, match=r"needs the InfoState's hand_sizes \(one per seat\), got \(\)"):
        WorldSampler(dataclasses.replace(info, hand_sizes=()))


def test_world_deal_rebuilds_the_hand_before_play():
    rules = Rules.preset("multiplayer")
    rng = np.random.default_rng(8)
    built = 0
    for _ in range(200):
        state = _random_state(rules, rng, 8)
        if state.hand_over or state.phase == Phase.PLAY:
            continue
        info = information_state(state, state.current)
        world = WorldSampler(info).sample(rng)
        deal, discard = world_deal(info, world, rng)
        rebuilt = GameState(rules, 0, deal=deal)  # the engine validates the deal
        assert rebuilt.upcard == state.upcard
        if discard is not None and discard != state.upcard:
            assert discard in deal["hands"][state.dealer]
        if discard is not None:
            assert sorted(deal["hands"][state.dealer]) == sorted(state.initial_hands[state.dealer]) or (
                state.current != state.dealer)
        built += 1
    assert built > 50


def _late_states(rules: Rules, rng: np.random.Generator):
    """States deep in the play with a handful of unknown cards."""
    for _ in range(2000):
        state = GameState(rules, int(rng.integers(1 << 30)))
        target = int(rng.integers(6, 12))
        while not state.hand_over:
            if state.phase == Phase.PLAY and sum(len(h) for h in state.hands) <= target:
                yield state
                break
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])


def _all_consistent(sampler: WorldSampler, info) -> set:
    """Brute force: every placement of the unknown cards that fits the sizes and the voids."""
    deck = info.rules.deck_spec
    suits = deck.effective_suits(info.trump)
    unknown = []
    for g in sampler.groups:
        unknown.extend(g)
    slots = [*sampler.slots, "pile"]
    labels = [k for k, n in enumerate(sampler.needs) for _ in range(n)]
    found = set()
    for perm in set(itertools.permutations(labels)):
        hands = {s: list(sampler.fixed[s]) for s in range(4)}
        hands[info.seat] = list(info.hand)
        pile = list(sampler.pile_fixed)
        ok = True
        for card, k in zip(unknown, perm):
            if slots[k] == "pile":
                pile.append(card)
            elif suits[card] in info.voids[slots[k]]:
                ok = False
                break
            else:
                hands[slots[k]].append(card)
        if ok:
            found.add((tuple(tuple(sorted(hands[s])) for s in range(4)), tuple(sorted(pile))))
    return found


@pytest.mark.parametrize("preset,options", [("bid", {}), ("bid", {"joker": True}), ("knock", {})])
def test_every_consistent_deal_appears_and_nothing_else(preset, options):
    """Late in a hand few cards are unknown: compare the draws with a brute-force enumeration."""
    rules = Rules.preset(preset, **options)
    rng = np.random.default_rng(21)
    checked = 0
    for state in _late_states(rules, rng):
        info = information_state(state, state.current)
        sampler = WorldSampler(info)
        if sum(sampler.needs) > 7:
            continue
        expected = _all_consistent(sampler, info)
        if not 2 <= len(expected) <= 60:
            continue
        draws = Counter((w.hands, w.pile) for w in (sampler.sample(rng) for _ in range(40 * len(expected))))
        assert set(draws) == expected
        assert sampler.count() == len(expected)
        assert min(draws.values()) > 0.3 * 40  # roughly uniform
        checked += 1
        if checked == 6:
            break
    assert checked == 6
