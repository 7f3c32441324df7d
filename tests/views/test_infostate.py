"""The structured information state hides what the seat cannot know."""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import information_state


def _random_prefix(rules: Rules, deal: dict, actions_seed: int, steps: int) -> GameState:
    s = GameState(rules, 0, deal=deal)
    rng = np.random.default_rng(actions_seed)
    for _ in range(steps):
        if s.hand_over:
            break
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    return s


@pytest.mark.parametrize("preset", ["knock", "multiplayer", "bid"])
def test_swapping_hidden_cards_leaves_the_information_state_unchanged(preset):
    """Deal the other seats' unplayed cards differently: seat 0's view must not change."""
    rules = Rules.preset(preset)
    deck = rules.deck_spec
    rng = np.random.default_rng(1)
    checked = 0
    for trial in range(200):
        pack = [deck.name(c) for c in rng.permutation(deck.cards())]
        n = rules.hand_size
        hands = [pack[k * n:(k + 1) * n] for k in range(4)]
        deal = {"dealer": int(rng.integers(4)), "hands": hands}
        if not rules.is_bid:
            deal["upcard"] = pack[4 * n]
        steps = int(rng.integers(0, 25))
        a = _random_prefix(rules, deal, trial, steps)
        # Same actions on a deal where seats 1 and 3 exchanged one card each that neither has
        # played nor could have been forced to play differently: replay and compare when legal.
        other = dict(deal, hands=[list(h) for h in hands])
        i, j = int(rng.integers(n)), int(rng.integers(n))
        other["hands"][1][i], other["hands"][3][j] = other["hands"][3][j], other["hands"][1][i]
        b = GameState(rules, 0, deal=other)
        try:
            for _, _, action in a.history:
                b.apply(action)
        except ValueError:
            continue  # the swap made a recorded action illegal: not the same history
        assert information_state(a, 0) == information_state(b, 0)
        checked += 1
    assert checked > 50


def test_voids_shown_by_failing_to_follow():
    rules = Rules.preset("knock")
    deal = {"dealer": 3, "upcard": "9S",
            "hands": [["AC", "KC", "QC", "JC", "TC"], ["9C", "9D", "TD", "JD", "QD"],
                      ["KD", "AD", "9H", "TH", "JH"], ["QH", "KH", "AH", "TS", "JS"]]}
    s = GameState(rules, 0, deal=deal)
    s.apply_str("order")  # seat 0 orders spades; the dealer (seat 3) takes 9S
    s.apply_str("discard QH")
    s.apply_str("play AC")
    s.apply_str("play 9C")
    s.apply_str("play KD")  # seat 2 has no club
    info = information_state(s, 1)
    assert info.voids[2] == frozenset({0}) and info.voids[1] == frozenset()
    assert info.discarded is None and information_state(s, 3).discarded == rules.deck_spec.parse("QH")
    assert info.played == [rules.deck_spec.parse(c) for c in ("AC", "9C", "KD")]


def test_env_offers_the_information_state_when_asked():
    env = euchre_env.env(rules="knock", info_state=True)
    env.reset(seed=3)
    _, _, _, _, info = env.last()
    state = info["information_state"]
    assert state.seat == env.unwrapped.agent_name_mapping[env.agent_selection]
    assert list(state.legal_actions) == list(np.flatnonzero(info["action_mask"]))
    plain = euchre_env.env(rules="knock")
    plain.reset(seed=3)
    assert "information_state" not in plain.last()[4]
