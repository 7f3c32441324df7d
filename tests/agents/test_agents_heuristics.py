"""The shared hand-strength heuristics: the trick estimate (rule-based agent) and the trump count (PIMC, solver)."""

from __future__ import annotations

import pytest

from euchre_env.agents.rule_based.heuristics import (
    alone_losers,
    best_discard,
    count_values,
    suit_tables,
    trick_estimate,
    trump_count,
    upcard_value,
    weakest_card,
)
from euchre_env.game.rules import Rules

HEARTS = 2  # suit index of "CDHS"
DECK = Rules.preset("knock").deck_spec
JOKER_DECK = Rules.preset("knock", joker=True).deck_spec


def cards(text: str, deck=DECK) -> list[int]:
    return [deck.parse(c) for c in text.split()]


def test_count_values_rank_the_trumps_and_count_side_aces():
    values = count_values(DECK, HEARTS)
    named = {c: values[DECK.parse(c)] for c in ("JH", "JD", "AH", "KH", "9H", "AS", "KS", "9C", "JC")}
    assert named == pytest.approx({"JH": 3.0, "JD": 2.5, "AH": 2.0, "KH": 1.9, "9H": 1.5, "AS": 1.0,
                                   "KS": 0.0, "9C": 0.0, "JC": 0.0})
    assert count_values(JOKER_DECK, HEARTS)[JOKER_DECK.parse("JO")] == 3.5


def test_trump_count_is_the_sum_of_the_count_values():
    hand = cards("JH JD AS KS 9C")
    assert trump_count(DECK, hand, HEARTS) == pytest.approx(3.0 + 2.5 + 1.0)
    assert trump_count(DECK, hand, 0) == pytest.approx(1.0 + 1.5)  # clubs: red jacks count nothing, AS, 9C


def test_weakest_card_keeps_trumps_and_aces():
    assert DECK.name(weakest_card(DECK, cards("JH AS KS 9C AD"), HEARTS)) == "9C"
    assert DECK.name(weakest_card(DECK, cards("JH AH AS AD 9H"), HEARTS)) == "AD"  # aces before trumps, lowest id
    assert DECK.name(weakest_card(DECK, cards("JH JD AH KH 9H"), HEARTS)) == "9H"


def test_trick_estimate_counts_top_trumps_and_knows_what_is_gone():
    strong = trick_estimate(DECK, cards("JH JD AH AC AS"), HEARTS)
    junk = trick_estimate(DECK, cards("9C TC 9S TS 9D"), HEARTS)
    assert strong > 4 > 0.5 > junk
    king = cards("KH 9C TC 9S TS")
    assert trick_estimate(DECK, king, HEARTS, gone=cards("JH JD AH")) > trick_estimate(DECK, king, HEARTS)


def test_alone_losers_of_a_near_march():
    lost, trumps = alone_losers(DECK, cards("JH JD AH KH AC"), HEARTS)
    assert trumps == 4 and lost <= 0.5
    lost, trumps = alone_losers(DECK, cards("JH 9H KS QS 9D"), HEARTS)
    assert trumps == 2 and lost >= 3


def test_upcard_value_by_rank_in_trump():
    values = [upcard_value(DECK, DECK.parse(c), HEARTS) for c in ("JH", "JD", "AH", "KH", "QH", "9H")]
    assert values == [0.95, 0.95, 0.75, 0.75, 0.5, 0.5]
    double = Rules.preset("bid", double_deck=True).deck_spec  # two copies: the rank, not the position, counts
    assert upcard_value(double, double.parse("JD"), HEARTS) == 0.95


def test_best_discard_voids_a_suit_and_keeps_aces():
    assert DECK.name(best_discard(DECK, cards("JH KS 9C TC AD 9H"), HEARTS)) == "KS"  # the lone spade
    assert DECK.name(best_discard(DECK, cards("JH AH AC AS 9D 9H"), HEARTS)) == "9D"
    assert DECK.name(best_discard(DECK, cards("JH JD AH AC AS KH"), HEARTS)) == "KH"  # only aces aside: a trump


def test_suit_tables_are_built_once_per_deck():
    assert suit_tables(DECK) is suit_tables(Rules.preset("classic").deck_spec)
    ranking = suit_tables(DECK).ranking[HEARTS][HEARTS]
    assert [DECK.name(c) for c in ranking[:3]] == ["JH", "JD", "AH"]
