"""Scenario tests of the ``classic`` preset (source 002 FI, RULES.md "Preset classic").

Classic is knock without stick-the-dealer, with game targets 5/7/10, rubbers, the joker
and the 32-card deck as options. One test per rule; every test scripts a deal and plays
action strings checked against the legal actions (``scenario.act``).
"""

from __future__ import annotations

import pytest
from scenario import (
    FOUR,
    FOUR_PLAY,
    FOUR_PLAY_ALONE,
    MARCH,
    MARCH_PLAY,
    MARCH_PLAY_ALONE,
    MARCH_PLAY_DEALER_OUT,
    THREE,
    THREE_PLAY,
    THREE_PLAY_ALONE,
    Phase,
    act,
    deal,
    game,
    hand,
    last_trick,
    legal,
    rotate,
    shift,
)

from euchre_env import GameState, Rules


def test_preset_classic_defaults():
    r = Rules.preset("classic")
    assert (r.deck, r.joker, r.stick_the_dealer, r.lone_maker, r.defend_alone) == (24, False, False, True, False)
    assert (r.game_target, r.rubber, r.renege) == (10, False, "masked")


# ============================================================================ calling
def test_all_pass_twice_throws_the_hand_in_and_the_next_dealer_deals():
    state = game("classic", MARCH, "9H", scores=[3, 4])
    act(state, *["pass"] * 4, "1:pass", "2:pass", "3:pass")
    assert "pass" in legal(state)  # no stick-the-dealer: the dealer may pass
    act(state, "0:pass")
    assert state.phase == Phase.HAND_OVER and state.current_player == -1
    result = state.hand_result
    assert result["thrown_in"] == "all passed"
    assert result["points"] == [0, 0] and result["maker_team"] is None and result["tricks"] == [0, 0]
    assert state.scores == [3, 4] and state.tricks == []
    state.next_hand()
    assert state.dealer == 1 and state.phase == Phase.CALL1 and state.current_player == 2
    assert all(len(h) == 5 for h in state.hands)


def test_order_up_or_assist_both_make_the_dealer_take_up():
    # The dealer's opponent "orders it up", the dealer's partner "assists": one action, `order`.
    for calls, maker in (("1:order",), 1), (("1:pass", "2:order"), 2):
        state = game("classic", MARCH, "9H")
        act(state, *calls)
        assert state.phase == Phase.DISCARD and state.maker == maker and len(state.hands[0]) == 6


def test_round_two_cannot_name_the_rejected_suit():
    state = game("classic", MARCH, "9H")
    act(state, *["pass"] * 4)
    assert [a for a in legal(state) if a.startswith("name") and "alone" not in a] == ["name C", "name D", "name S"]
    with pytest.raises(ValueError, match="illegal action 'name H alone'"):
        state.apply_str("name H alone")


def test_dealer_may_discard_the_upcard():
    state = game("classic", MARCH, "9H")
    act(state, "1:order")
    assert "discard 9H" in legal(state) and len(legal(state)) == 6
    act(state, "0:discard 9H")
    assert hand(state, 0) == sorted(MARCH[0].split()) and state.phase == Phase.PLAY


def test_opening_lead_passes_opposite_the_dealer_when_the_dealers_left_sits_out():
    # Seat 3 goes alone, so its partner seat 1 (the dealer's left) sits out; seat 2 leads.
    state = game("classic", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:order alone", "0:discard 9C")
    assert state.out == [False, True, False, False] and state.current_player == 2


def test_going_alone_is_declared_with_the_call():
    state = game("classic", MARCH, "9H")
    act(state, *["pass"] * 4, "1:pass", "2:name C alone")
    assert state.maker == 2 and state.maker_alone and state.out == [True, False, False, False]
    assert state.phase == Phase.PLAY and state.current_player == 1


# ============================================================================ scoring
SCORING = {
    "partnership 3 tricks": (THREE, ("1:order", "0:discard TC"), THREE_PLAY, [0, 1]),
    "partnership 4 tricks": (FOUR, ("1:order", "0:discard TC"), FOUR_PLAY, [0, 1]),
    "partnership march": (MARCH, ("1:order", "0:discard 9C"), MARCH_PLAY, [0, 2]),
    "lone hand 3 tricks": (THREE, ("1:order alone", "0:discard TC"), THREE_PLAY_ALONE, [0, 1]),
    "lone hand 4 tricks": (FOUR, ("1:order alone", "0:discard TC"), FOUR_PLAY_ALONE, [0, 1]),
    "lone hand march": (MARCH, ("1:order alone", "0:discard 9C"), MARCH_PLAY_ALONE, [0, 4]),
    "partnership euchred": (MARCH, ("1:pass", "2:order", "0:discard 9C"), MARCH_PLAY, [0, 2]),
    "lone hand euchred": (MARCH, ("1:pass", "2:order alone"), MARCH_PLAY_DEALER_OUT, [0, 2]),
}


@pytest.mark.parametrize("row", list(SCORING))
def test_scoring_table(row):
    hands, calls, plays, points = SCORING[row]
    state = game("classic", hands, "9H")
    act(state, *calls, *plays)
    assert state.hand_result["points"] == points and state.scores == points


# ============================================================================ game target
@pytest.mark.parametrize("target", [5, 7, 10])
def test_game_target_option(target):
    state = game("classic", FOUR, "9H", scores=[0, target - 1], game_target=target)
    act(state, "1:order", "0:discard TC", *FOUR_PLAY)
    assert state.scores == [0, target]
    assert state.phase == Phase.GAME_OVER and state.winner == 1
    assert state.hand_result["game_winner"] == 1


@pytest.mark.parametrize("target", [5, 7, 10])
def test_game_goes_on_below_the_target(target):
    state = game("classic", FOUR, "9H", scores=[target - 1, target - 2], game_target=target)
    act(state, "1:order", "0:discard TC", *FOUR_PLAY)
    assert state.scores == [target - 1, target - 1]
    assert state.phase == Phase.HAND_OVER and state.winner is None


def test_game_target_must_be_positive():
    with pytest.raises(ValueError, match="game_target"):
        Rules.preset("classic", game_target=0)
    with pytest.raises(ValueError, match="game_target"):
        Rules.preset("classic", game_target=-5)


# ============================================================================ rubbers
# Team 1 scores one point on FOUR (seat 1 makes); team 0 scores one point on FOUR moved a
# seat to the left (seat 1 deals, seat 2 makes).
TEAM1_POINT = (FOUR, 0, ("1:order", "0:discard TC", *FOUR_PLAY))
TEAM0_POINT = (rotate(FOUR, 1), 1, shift(("1:order", "0:discard TC", *FOUR_PLAY), 1))


def play_game_winning_hand(state, scores, hand_script):
    """Script the score of the game in progress (as ``GameState(scores=...)`` does for the first), deal, play."""
    hands, dealer, moves = hand_script
    state.scores = list(scores)
    state.next_hand(deal=deal(hands, "9H", dealer))
    act(state, *moves)


@pytest.mark.parametrize(("loser_score", "rubber_points"), [(-2, 3), (0, 3), (1, 2), (2, 2), (3, 1), (9, 1)])
def test_rubber_points_by_the_losers_score(loser_score, rubber_points):
    state = game("classic", FOUR, "9H", scores=[loser_score, 9], rubber=True)
    act(state, *TEAM1_POINT[2])
    assert state.rubber_points == [0, rubber_points] and state.games_won == [0, 1]
    result = state.hand_result
    assert result["game_winner"] == 1 and result["games_won"] == [0, 1]
    assert result["scores"] == [loser_score, 10]  # the finished game's score
    # The rubber goes on: a new game from 0-0, the deal still passing left.
    assert state.phase == Phase.HAND_OVER and state.winner is None and state.scores == [0, 0]
    state.next_hand()
    assert state.dealer == 1 and state.phase == Phase.CALL1


def test_rubber_is_best_of_three_with_margin():
    state = game("classic", FOUR, "9H", scores=[0, 9], rubber=True)
    act(state, *TEAM1_POINT[2])  # game 1: team 1, loser 0 -> 3
    play_game_winning_hand(state, [9, 4], TEAM0_POINT)  # game 2: team 0, loser 4 -> 1
    assert state.rubber_points == [1, 3] and state.games_won == [1, 1] and state.phase == Phase.HAND_OVER
    play_game_winning_hand(state, [2, 9], TEAM1_POINT)  # game 3: team 1, loser 2 -> 2
    assert state.games_won == [1, 2] and state.rubber_points == [1, 5]
    assert state.phase == Phase.GAME_OVER and state.winner == 1
    assert state.rubber_margin == 5 + 2 - 1
    assert state.hand_result["rubber_margin"] == 6 and state.game_winners == [1, 0, 1]


def test_rubber_won_in_two_straight_games():
    state = game("classic", FOUR, "9H", scores=[0, 9], rubber=True)
    act(state, *TEAM1_POINT[2])
    play_game_winning_hand(state, [1, 9], TEAM1_POINT)
    assert state.phase == Phase.GAME_OVER and state.winner == 1 and state.games_won == [0, 2]
    assert state.rubber_points == [0, 5] and state.rubber_margin == 7


def test_without_rubbers_the_first_game_ends_everything():
    state = game("classic", FOUR, "9H", scores=[0, 9])
    act(state, *TEAM1_POINT[2])
    assert state.phase == Phase.GAME_OVER and state.rubber_points == [0, 0]
    assert "games_won" not in state.hand_result


# ============================================================================ joker
# JOKER_LEAD: seat 1 holds the joker; seat 2 the right bower JH; seat 3 the left bower JD.
JOKER_LEAD = ("9C TC QC KC AC", "JO AD 9S TS QS", "JH KD QD JC JS", "JD TD 9D KH QH")
# JOKER_FOLLOW: seat 1 holds the right bower; seat 2's only trump is the joker.
JOKER_FOLLOW = ("9C TC QC KC AC", "JH AD 9S TS QS", "JO KD QD JC JS", "JD TD 9D KH QH")
# JOKER_UP: the joker is turned up; the 24 plain cards minus the kitty AH TH AS KS are dealt.
JOKER_UP = ("9C TC QC KC AC", "JH AD 9S TS QS", "9H KD QD JC JS", "JD TD 9D KH QH")


def test_joker_deck_has_25_cards():
    rules = Rules.preset("classic", joker=True)
    assert rules.deck_spec.size == 25 and "JO" in rules.deck_spec.names
    state = GameState(rules, 11)
    dealt = [c for h in state.hands for c in h] + [state.upcard]
    assert len(dealt) == len(set(dealt)) == 21 and all(len(h) == 5 for h in state.hands)


def test_joker_is_the_highest_trump_above_the_right_bower():
    state = game("classic", JOKER_FOLLOW, "9H", joker=True)
    act(state, "1:order", "0:discard 9C", "1:play JH")
    assert legal(state) == ["play JO"]  # the joker is seat 2's only trump and must follow
    act(state, "2:play JO", "3:play JD", "0:play 9H")
    assert last_trick(state) == (2, [1, 2, 3, 0], ["JH", "JO", "JD", "9H"])


def test_joker_led_leads_trump():
    state = game("classic", JOKER_LEAD, "9H", joker=True)
    act(state, "1:order", "0:discard 9C", "1:play JO")
    assert legal(state) == ["play JH"]  # seat 2 must follow trump, not its diamonds or black cards
    act(state, "2:play JH")
    assert sorted(legal(state)) == ["play JD", "play KH", "play QH"]  # the left bower follows trump
    act(state, "3:play JD", "0:play 9H")
    assert last_trick(state)[0] == 1


def test_joker_does_not_follow_a_plain_suit():
    state = game("classic", JOKER_FOLLOW, "9H", joker=True)
    act(state, "1:order", "0:discard 9C", "1:play AD")
    assert sorted(legal(state)) == ["play KD", "play QD"]


def test_joker_upcard_dealer_names_the_offered_suit_then_takes_the_joker():
    state = game("classic", JOKER_UP, "JO", joker=True)
    assert state.phase == Phase.JOKER_SUIT and state.current_player == 0
    assert legal(state) == ["name C", "name D", "name H", "name S"]  # no pass, no alone
    act(state, "0:name H")
    assert state.phase == Phase.CALL1 and state.current_player == 1 and state.trump == -1
    act(state, "1:order")
    assert state.trump == "CDHS".index("H") and "JO" in hand(state, 0)
    assert "discard JO" in legal(state) and len(legal(state)) == 6
    act(state, "0:discard 9C", "1:play JH", "2:play 9H", "3:play KH")
    assert legal(state) == ["play JO"]  # the dealer's only trump now is the joker
    act(state, "0:play JO")
    assert last_trick(state)[0] == 0


def test_joker_upcard_turned_down_bars_the_named_suit_in_round_two():
    state = game("classic", JOKER_UP, "JO", joker=True)
    act(state, "0:name S", *["pass"] * 4)
    assert state.phase == Phase.CALL2
    assert [a for a in legal(state) if a.startswith("name") and "alone" not in a] == ["name C", "name D", "name H"]


def test_joker_needs_the_joker_option():
    with pytest.raises(ValueError, match="unknown card 'JO'"):
        game("classic", JOKER_UP, "JO")


# ============================================================================ 32-card deck
# THIRTY_TWO: clubs 9C/8C/7C in seats 1/2/3; trumps 7H (seat 2) and 8H (seat 3); spades with the dealer.
THIRTY_TWO = ("AS KS QS JS TS", "9C AD KD QD 9S", "8C 7H AC KC QC", "7C 8H TD 9D 8D")


def test_deck_32_ranks_7_and_8_below_9():
    state = game("classic", THIRTY_TWO, "9H", deck=32)
    act(state, "1:order", "0:discard 9H", "1:play 9C", "2:play 8C", "3:play 7C", "0:play TS")
    assert last_trick(state) == (1, [1, 2, 3, 0], ["9C", "8C", "7C", "TS"])


def test_deck_32_seven_and_eight_of_trump_are_trumps():
    state = game("classic", THIRTY_TWO, "9H", deck=32)
    act(state, "1:order", "0:discard 9H", "1:play 9C", "2:play 8C", "3:play 7C", "0:play TS")
    act(state, "1:play 9S", "2:play 7H", "3:play 8H")
    assert sorted(legal(state)) == ["play AS", "play JS", "play KS", "play QS"]
    act(state, "0:play AS")
    assert last_trick(state) == (3, [1, 2, 3, 0], ["9S", "7H", "8H", "AS"])  # 8H > 7H > the led ace


def test_deck_32_deals_five_cards_each():
    rules = Rules.preset("classic", deck=32)
    assert rules.deck_spec.size == 32
    state = GameState(rules, 5)
    dealt = [c for h in state.hands for c in h] + [state.upcard]
    assert all(len(h) == 5 for h in state.hands) and len(set(dealt)) == 21


def test_deck_24_rejects_7s_and_8s():
    with pytest.raises(ValueError, match="unknown card '8C'"):  # seat 2's 8C is the first 7 or 8 dealt
        game("classic", THIRTY_TWO, "9H")
    with pytest.raises(ValueError, match="deck"):
        Rules.preset("classic", deck=28)


# ============================================================================ bad input
def test_deal_with_a_duplicated_card_names_it():
    hands = ("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS KS", "9D TD QD KD KC")
    with pytest.raises(ValueError, match="card KC is dealt 2 times"):
        game("classic", hands, "9H")


def test_illegal_action_is_rejected_and_the_state_kept():
    state = game("classic", THREE, "9H")
    act(state, "1:order", "0:discard TC", "1:play JH")
    with pytest.raises(ValueError, match="seat 2 in phase PLAY; legal: play KH"):
        state.apply_str("play 9S")
    assert hand(state, 2) == sorted(THREE[2].split()) and state.trick == [state.deck.parse("JH")]
    assert state.current_player == 2
