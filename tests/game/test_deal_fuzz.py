"""Scripted deals under arbitrary input (hypothesis): valid deals play, broken ones name the bad card."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules

RULES = {
    "knock": Rules.preset("knock"),
    "classic-joker-32": Rules.preset("classic", joker=True, deck=32),
    "bid": Rules.preset("bid"),
    "bid-double": Rules.preset("bid", double_deck=True),
}


def _deal_from(rules: Rules, order: list[int], dealer: int) -> dict:
    deck = rules.deck_spec
    pack = [deck.name(c) for c in (deck.cards()[i] for i in order)]
    n = rules.hand_size
    deal = {"dealer": dealer, "hands": [pack[k * n:(k + 1) * n] for k in range(4)]}
    if rules.is_bid and rules.joker:
        deal["hands"][dealer].append(pack[4 * n])
    if not rules.is_bid:
        deal["upcard"] = pack[4 * n]
    return deal


@pytest.mark.parametrize("name", list(RULES))
@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_permutation_deals_and_conserves_cards(name, data):
    rules = RULES[name]
    size = rules.deck_spec.size
    order = data.draw(st.permutations(range(size)))
    dealer = data.draw(st.integers(0, 3))
    s = GameState(rules, 0, deal=_deal_from(rules, order, dealer))
    held = Counter(c for h in s.hands for c in h) + Counter(s.kitty)
    if s.upcard is not None:
        held[s.upcard] += 1
    assert held == Counter(rules.deck_spec.cards())
    assert s.dealer == dealer and s.legal_actions()


@pytest.mark.parametrize("name", list(RULES))
@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_duplicated_card_is_rejected_by_name(name, data):
    rules = RULES[name]
    deck = rules.deck_spec
    deal = _deal_from(rules, data.draw(st.permutations(range(deck.size))), 0)
    seat_a, seat_b = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    i = data.draw(st.integers(0, len(deal["hands"][seat_a]) - 1))
    j = data.draw(st.integers(0, len(deal["hands"][seat_b]) - 1))
    if deal["hands"][seat_a][i] == deal["hands"][seat_b][j]:
        return  # double deck: copying a card onto its twin changes nothing
    copied = deal["hands"][seat_a][i]
    deal["hands"][seat_b][j] = copied
    with pytest.raises(ValueError, match=copied):
        GameState(rules, 0, deal=deal)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(text=st.text(min_size=1, max_size=4))
def test_unknown_card_text_is_rejected_by_name(text):
    deck = RULES["knock"].deck_spec
    key = text.strip().upper().replace("10", "T")
    if key in deck.names:
        return
    with pytest.raises(ValueError, match="unknown card"):
        deck.parse(text)
