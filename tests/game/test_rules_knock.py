"""Scenario tests of the ``knock`` preset (sources 000 FR / 003 ES, RULES.md "Preset knock").

One test per rule. Every test scripts a deal card by card and plays action strings
through ``GameState`` (or the PettingZoo env at the end of the file); each action is
checked against the legal actions before it is applied (``scenario.act``).

Seats run clockwise, seat 1 at seat 0's left; teams {0, 2} and {1, 3}. Unless a test
says otherwise seat 0 deals, so seat 1 speaks first and leads first.
"""

from __future__ import annotations

import numpy as np
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
    trick,
)

import euchre_env
from euchre_env import GameState, Rules

# ----------------------------------------------------------------------------- deals
# RANK: the three top hearts are in three hands (kitty TH JC JS).
RANK = ("KH 9C TC QC KC", "AH QH AC AS AD", "JD 9S TS QS KS", "JH 9D TD QD KD")

# LEFT: the left bower JD sits beside QD in seat 2 (kitty JH TH AS).
LEFT = ("9C TC QC KC AC", "AD KD 9S TS QS", "JD QD JC JS KS", "9D TD AH KH QH")

# LEAD: seat 1 can lead the left bower JD; seat 2 holds diamonds and one heart (kitty JH TH AS).
LEAD = ("9C TC QC KC AC", "JD AD 9S TS QS", "KD QD AH JC JS", "9D TD KH QH KS")


def ordered(hands, *calls, preset="knock", discard="discard 9C", **options) -> GameState:
    """A game on ``hands`` (up-card 9H, seat 0 deals) after ``calls`` and the dealer's discard."""
    state = game(preset, hands, "9H", **options)
    act(state, *calls)
    if discard:
        act(state, "0:" + discard)
    return state


# ============================================================================ deal
def test_random_deal_is_seeded_and_the_first_dealer_drawn_at_random():
    rules = Rules.preset("knock")
    assert {GameState(rules, seed).dealer for seed in range(40)} == {0, 1, 2, 3}
    a, b = GameState(rules, 7), GameState(rules, 7)
    assert (a.dealer, a.hands, a.upcard) == (b.dealer, b.hands, b.upcard)
    dealt = [c for h in a.hands for c in h] + [a.upcard]
    assert all(len(h) == 5 for h in a.hands) and len(set(dealt)) == 21
    assert a.phase == Phase.CALL1 and a.current_player == (a.dealer + 1) % 4


# ============================================================================ card ranking
def test_right_bower_beats_left_bower_beats_ace():
    state = ordered(RANK, "1:order")
    act(state, "1:play AH", "2:play JD", "3:play JH", "0:play KH")
    assert last_trick(state) == (3, [1, 2, 3, 0], ["AH", "JD", "JH", "KH"])
    assert state.tricks_won == [0, 1]


def test_left_bower_beats_ace_of_trump():
    state = ordered(LEAD, "1:order")
    act(state, "1:play JD", "2:play AH", "3:play KH", "0:play 9H")
    assert last_trick(state)[0] == 1


def test_left_bower_must_follow_a_trump_lead():
    # Seat 2's only heart is the left bower JD; seat 3's the right bower JH (its diamonds do not count).
    state = ordered(RANK, "1:order")
    act(state, "1:play AH")
    assert legal(state) == ["play JD"]
    act(state, "2:play JD")
    assert legal(state) == ["play JH"]


def test_leading_the_left_bower_leads_trump():
    # JD led with hearts trump: seat 2 must play its heart AH, not its diamonds KD QD.
    state = ordered(LEAD, "1:order")
    act(state, "1:play JD")
    assert legal(state) == ["play AH"]
    act(state, "2:play AH")
    assert sorted(legal(state)) == ["play KH", "play QH"]


def test_left_bower_is_not_a_card_of_its_printed_suit():
    # Diamonds led, hearts trump: seat 2 holds JD and QD and must play QD; JD is no diamond.
    state = ordered(LEFT, "1:order")
    act(state, "1:play AD")
    assert legal(state) == ["play QD"]


def test_holder_of_only_the_left_bower_is_void_in_its_printed_suit():
    state = ordered(LEFT, "1:order")
    act(
        state,
        "1:play AD", "2:play QD", "3:play 9D", "0:play 9H",  # seat 0 trumps the diamond lead
        "0:play TC", "1:play 9S", "2:play JC", "3:play AH",  # JC is a plain club: seat 2 must play it
        "3:play TD", "0:play QC", "1:play KD",
    )
    # Seat 2 now holds JD JS KS: no diamond, so any card, and JD trumps the diamond trick.
    assert sorted(legal(state)) == ["play JD", "play JS", "play KS"]
    act(state, "2:play JD")
    assert last_trick(state) == (2, [3, 0, 1, 2], ["TD", "QC", "KD", "JD"])


def test_follow_suit_when_able_else_any_card():
    state = ordered(LEFT, "1:order")
    act(state, "1:play AD", "2:play QD")
    assert sorted(legal(state)) == ["play 9D", "play TD"]  # seat 3 must follow diamonds
    act(state, "3:play 9D")
    assert sorted(legal(state)) == ["play 9H", "play AC", "play KC", "play QC", "play TC"]  # seat 0 is void


# ============================================================================ trick winner
def test_highest_card_of_the_led_suit_wins_without_trump():
    state = ordered(LEFT, "1:order")
    act(state, "1:play AD", "2:play QD", "3:play 9D", "0:play AC")  # the off-suit ace does not win
    assert last_trick(state) == (1, [1, 2, 3, 0], ["AD", "QD", "9D", "AC"])
    assert state.current_player == 1


def test_lowest_trump_beats_the_led_ace_and_the_winner_leads_next():
    state = ordered(LEFT, "1:order")
    act(state, "1:play AD", "2:play QD", "3:play 9D", "0:play 9H")
    assert last_trick(state)[0] == 0
    assert state.tricks_won == [1, 0]
    assert state.current_player == 0 and state.phase == Phase.PLAY


# ============================================================================ round 1
def test_order_in_round_one_ends_calling_at_once():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:order")
    assert state.phase == Phase.DISCARD and state.current_player == 0  # seat 3 never speaks
    assert [seat for _, seat, _ in state.history] == [1, 2]
    assert state.trump == "CDHS".index("H") and state.maker == 2 and not state.maker_alone


def test_dealer_takes_the_upcard_and_may_discard_any_of_six():
    state = game("knock", MARCH, "9H")
    act(state, "1:order")
    assert hand(state, 0) == sorted(["9C", "TC", "JC", "QC", "KC", "9H"])
    assert sorted(legal(state)) == sorted(f"discard {c}" for c in ["9C", "TC", "JC", "QC", "KC", "9H"])


def test_dealer_may_discard_the_upcard_itself():
    state = game("knock", MARCH, "9H")
    act(state, "1:order", "0:discard 9H")
    assert hand(state, 0) == sorted(MARCH[0].split())
    assert state.discarded == state.deck.parse("9H")
    assert state.phase == Phase.PLAY and state.current_player == 1
    act(state, "1:play JH")
    assert sorted(legal(state)) == sorted(f"play {c}" for c in MARCH[2].split())  # seat 2 has no heart


def test_dealer_may_order_the_upcard_himself():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:pass", "0:order")
    assert state.phase == Phase.DISCARD and state.maker == 0 and len(state.hands[0]) == 6


# ============================================================================ round 2
def test_round_two_cannot_name_the_turned_down_suit():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:pass", "0:pass")
    assert state.phase == Phase.CALL2 and state.current_player == 1
    names = [a for a in legal(state) if a.startswith("name")]
    assert names == ["name C", "name D", "name S", "name C alone", "name D alone", "name S alone"]
    with pytest.raises(ValueError, match="illegal action 'name H'"):
        state.apply_str("name H")


def test_round_two_name_fixes_trump_without_taking_the_upcard():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:pass", "0:pass", "1:pass", "2:name S")
    assert state.phase == Phase.PLAY and state.current_player == 1
    assert state.trump == "CDHS".index("S") and state.maker == 2
    assert all(len(h) == 5 for h in state.hands) and not state.upcard_taken


def test_stick_the_dealer_dealer_cannot_pass_in_round_two():
    state = game("knock", MARCH, "9H")
    act(state, *["pass"] * 4, "1:pass", "2:pass", "3:pass")
    assert state.current_player == 0
    assert "pass" not in legal(state)
    assert sorted(legal(state)) == sorted(
        ["name C", "name D", "name S", "name C alone", "name D alone", "name S alone"]
    )
    with pytest.raises(ValueError, match="illegal action 'pass'"):
        state.apply_str("pass")
    act(state, "0:name C")
    assert state.phase == Phase.PLAY and state.maker == 0


# ============================================================================ going alone
def test_going_alone_is_declared_with_the_order_or_the_name():
    state = game("knock", MARCH, "9H")
    assert legal(state) == ["pass", "order", "order alone"]
    act(state, *["pass"] * 4)
    assert "name S alone" in legal(state)
    act(state, "1:name S alone")
    assert state.maker_alone and state.out == [False, False, False, True]


def test_only_the_maker_may_go_alone_and_only_with_the_call():
    state = game("knock", MARCH, "9H")
    act(state, "1:order")
    seen = []
    while state.phase != Phase.HAND_OVER:
        seen += legal(state)
        act(state, legal(state)[0])
    assert not [a for a in seen if "alone" in a]  # no later chance for anyone to go alone
    with pytest.raises(ValueError, match="unknown action 'defend alone'"):
        state.table.from_str("defend alone")  # knock has no defend-alone


def test_partner_of_a_lone_maker_sits_out_and_is_skipped():
    state = ordered(MARCH, "1:order alone")
    assert state.out == [False, False, False, True]
    act(state, *MARCH_PLAY_ALONE)
    assert trick(state, 0) == (1, [1, 2, 0], ["JH", "9S", "9H"])
    assert all(seats == [1, 2, 0] for _, seats, _ in state.tricks)
    assert hand(state, 3) == sorted(MARCH[3].split())  # seat 3 never played a card


def test_sitting_out_player_never_leads():
    # Seat 3 goes alone, so seat 1 (dealer's left) sits out: seat 2 opens, and play skips seat 1.
    state = ordered(MARCH, "1:pass", "2:pass", "3:order alone")
    assert state.out == [False, True, False, False]
    assert state.current_player == 2
    act(state, "2:play 9S", "3:play 9D", "0:play 9H")
    assert last_trick(state) == (0, [2, 3, 0], ["9S", "9D", "9H"])
    assert state.current_player == 0


def test_opening_lead_is_the_first_active_player_at_the_dealers_left():
    state = game("knock", MARCH, "9H", dealer=2)
    act(state, "3:order", "2:discard 9S")
    assert state.current_player == 3


def test_dealers_partner_alone_dealer_does_not_take_the_upcard():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:order alone")
    assert state.out == [True, False, False, False]
    assert state.phase == Phase.PLAY and state.current_player == 1  # no discard phase
    assert hand(state, 0) == sorted(MARCH[0].split()) and not state.upcard_taken
    assert all(state.deck.parse("9H") not in h for h in state.hands)


def test_dealer_going_alone_still_takes_up_and_discards():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:pass", "0:order alone")
    assert state.out == [False, False, True, False]
    assert state.phase == Phase.DISCARD and "9H" in hand(state, 0)
    act(state, "0:discard 9C")
    assert state.phase == Phase.PLAY and state.current_player == 1


# ============================================================================ scoring table
def test_score_makers_take_three_tricks_one_point():
    state = ordered(THREE, "1:order", discard="discard TC")
    act(state, *THREE_PLAY)
    assert state.tricks_won == [2, 3]
    assert state.hand_result["points"] == [0, 1] and state.scores == [0, 1]


def test_score_makers_take_four_tricks_one_point():
    state = ordered(FOUR, "1:order", discard="discard TC")
    act(state, *FOUR_PLAY)
    assert state.tricks_won == [1, 4]
    assert state.hand_result["points"] == [0, 1]


def test_score_makers_march_two_points():
    state = ordered(MARCH, "1:order")
    act(state, *MARCH_PLAY)
    assert state.tricks_won == [0, 5]
    assert state.hand_result["points"] == [0, 2] and state.scores == [0, 2]


def test_score_lone_maker_takes_three_tricks_one_point():
    state = ordered(THREE, "1:order alone", discard="discard TC")
    act(state, *THREE_PLAY_ALONE)
    assert state.tricks_won == [2, 3]
    assert state.hand_result["points"] == [0, 1] and state.hand_result["maker_alone"]


def test_score_lone_maker_takes_four_tricks_one_point():
    state = ordered(FOUR, "1:order alone", discard="discard TC")
    act(state, *FOUR_PLAY_ALONE)
    assert state.tricks_won == [1, 4]
    assert state.hand_result["points"] == [0, 1]


def test_score_lone_maker_march_four_points():
    state = ordered(MARCH, "1:order alone")
    act(state, *MARCH_PLAY_ALONE)
    assert state.hand_result["points"] == [0, 4] and state.scores == [0, 4]


def test_score_defenders_euchre_two_points():
    state = ordered(MARCH, "1:pass", "2:order")  # team 0 makes hearts; seat 1 holds every top heart
    act(state, *MARCH_PLAY)
    assert state.hand_result["maker_team"] == 0 and state.tricks_won == [0, 5]
    assert state.hand_result["points"] == [0, 2]


def test_score_lone_maker_euchred_defenders_two_points():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass", "2:order alone", *MARCH_PLAY_DEALER_OUT)
    assert state.hand_result["points"] == [0, 2]
    assert state.hand_result["maker_alone"] and not state.hand_result["defender_alone"]


@pytest.mark.parametrize("four", [True, False])
def test_euchred_loner_four_gives_the_defenders_four_against_a_lone_maker_only(four):
    """The house rule of seeds/000 ("4 points for an error on a called loner"), off by default."""
    state = game("knock", MARCH, "9H", euchred_loner_four=four)
    act(state, "1:pass", "2:order alone", *MARCH_PLAY_DEALER_OUT)
    assert state.hand_result["points"] == [0, 4 if four else 2]
    state = ordered(MARCH, "1:pass", "2:order", euchred_loner_four=four)  # a maker with a partner: 2 either way
    act(state, *MARCH_PLAY)
    assert state.hand_result["points"] == [0, 2]


def test_euchred_loner_four_is_off_by_default_turn_up_only_and_needs_lone_maker():
    assert not Rules.preset("knock").euchred_loner_four
    with pytest.raises(ValueError, match="'euchred_loner_four': only available in the turn-up presets"):
        Rules.preset("bid", euchred_loner_four=True)
    with pytest.raises(ValueError, match="'euchred_loner_four' needs 'lone_maker'=True"):
        Rules.preset("classic", lone_maker=False, euchred_loner_four=True)


# ============================================================================ game end
def test_game_ends_as_soon_as_a_team_reaches_ten_no_win_by_two():
    state = ordered(FOUR, "1:order", discard="discard TC", scores=[9, 9])
    act(state, *FOUR_PLAY)
    assert state.scores == [9, 10]
    assert state.phase == Phase.GAME_OVER and state.winner == 1 and state.is_over
    assert state.hand_result["game_winner"] == 1
    assert state.current_player == -1 and state.legal_actions() == []
    with pytest.raises(ValueError, match="HAND_OVER"):
        state.next_hand()
    with pytest.raises(ValueError, match="for nobody in phase GAME_OVER; legal: none"):
        state.apply_str("pass")


def test_game_goes_on_below_ten_and_the_deal_passes_left():
    state = ordered(FOUR, "1:order", discard="discard TC", scores=[5, 8])
    act(state, *FOUR_PLAY)
    assert state.scores == [5, 9] and state.phase == Phase.HAND_OVER
    assert "game_winner" not in state.hand_result and state.winner is None
    state.next_hand()
    assert state.dealer == 1 and state.phase == Phase.CALL1 and state.current_player == 2
    assert all(len(h) == 5 for h in state.hands)


def test_game_target_is_ten_by_default():
    assert Rules.preset("knock").game_target == 10
    state = ordered(MARCH, "1:order", scores=[0, 8])
    act(state, *MARCH_PLAY)
    assert state.scores == [0, 10] and state.winner == 1


# ============================================================================ variant: dealer's partner
def test_dealer_partner_must_go_alone_in_round_one():
    state = game("knock", MARCH, "9H", dealer_partner_must_go_alone=True)
    assert legal(state) == ["pass", "order", "order alone"]  # seat 1 is not the dealer's partner
    act(state, "1:pass")
    assert legal(state) == ["pass", "order alone"]
    with pytest.raises(ValueError, match="illegal action 'order'"):
        state.apply_str("order")
    act(state, "2:order alone")
    assert state.out == [True, False, False, False]


def test_dealer_partner_must_go_alone_does_not_bind_round_two():
    state = game("knock", MARCH, "9H", dealer_partner_must_go_alone=True)
    act(state, *["pass"] * 4, "1:pass")
    assert "name S" in legal(state)
    act(state, "2:name S")
    assert not state.maker_alone and state.out == [False] * 4


def test_dealer_partner_must_go_alone_is_off_by_default():
    state = game("knock", MARCH, "9H")
    act(state, "1:pass")
    assert legal(state) == ["pass", "order", "order alone"]


# ============================================================================ renege option
def test_masked_play_rejects_a_renege():
    state = ordered(MARCH, "1:order")
    act(state, "1:play JH", "2:play 9S", "3:play 9D")
    assert legal(state) == ["play 9H"]
    with pytest.raises(ValueError, match="illegal action 'play TC'"):
        state.apply_str("play TC")


def test_renege_penalize_any_card_playable_and_two_points_off():
    state = ordered(MARCH, "1:order", renege="penalize")
    act(state, "1:play JH", "2:play 9S", "3:play 9D")
    assert sorted(legal(state)) == ["play 9H", "play JC", "play KC", "play QC", "play TC"]
    act(state, "0:play TC")  # seat 0 holds 9H and does not follow hearts
    act(
        state,
        "1:play JD", "2:play TS", "3:play TD", "0:play 9H",
        "1:play AH", "2:play JS", "3:play QD", "0:play JC",
        "1:play KH", "2:play QS", "3:play KD", "0:play QC",
        "1:play QH", "2:play KS", "3:play AD", "0:play KC",
    )
    result = state.hand_result
    assert result["reneged"] == [0]
    assert result["points"] == [-2, 2] and state.scores == [-2, 2]


def test_renege_penalize_clean_hand_reports_no_renege():
    state = ordered(MARCH, "1:order", renege="penalize")
    act(state, *MARCH_PLAY)
    assert state.hand_result["reneged"] == [] and state.hand_result["points"] == [0, 2]


# ============================================================================ bad input
def test_deal_with_a_duplicated_card_names_it():
    hands = ("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS KS", "9D TD QD KD JH")
    with pytest.raises(ValueError, match="card JH is dealt 2 times"):
        GameState(Rules.preset("knock"), 0, deal=deal(hands, "9H"))


def test_deal_with_the_upcard_also_in_a_hand_names_it():
    with pytest.raises(ValueError, match="card QH is dealt 2 times"):
        GameState(Rules.preset("knock"), 0, deal=deal(MARCH, "QH"))


def test_deal_with_an_unknown_card_names_it():
    hands = ("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS ZS", "9D TD QD KD AD")
    with pytest.raises(ValueError, match="unknown card 'ZS'"):
        GameState(Rules.preset("knock"), 0, deal=deal(hands, "9H"))
    with pytest.raises(ValueError, match="unknown card 'JO'"):  # no joker in the knock deck
        GameState(Rules.preset("knock"), 0, deal=deal(MARCH, "JO"))


def test_deal_with_a_missing_card_or_upcard_is_rejected():
    hands = ("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS", "9D TD QD KD AD")
    with pytest.raises(ValueError, match="hand of seat 2 has 4 cards, needs 5"):
        GameState(Rules.preset("knock"), 0, deal=deal(hands, "9H"))
    no_upcard = {"dealer": 0, "hands": [h.split() for h in MARCH]}
    with pytest.raises(ValueError, match="'upcard' is missing"):
        GameState(Rules.preset("knock"), 0, deal=no_upcard)


@pytest.mark.parametrize("scores", [[8, 12], [10, 0], [10, 10], [0, 11]])
def test_starting_scores_of_a_finished_game_are_refused(scores):
    # At 10 the game is over; [10, 10] cannot even be reached: only one team scores in a hand.
    with pytest.raises(ValueError, match=rf"^'scores' \[{scores[0]}, {scores[1]}\]: the game would already be "
                                         r"over; each team's score must be below game_target 10$"):
        game("knock", MARCH, "9H", scores=scores)
    assert game("knock", MARCH, "9H", scores=[9, 9]).scores == [9, 9]
    assert game("knock", MARCH, "9H", scores=[-2, 9]).scores == [-2, 9]  # reneges may take a team below 0
    assert game("knock", MARCH, "9H", scores=[4, 4], game_target=5).scores == [4, 4]


def test_action_that_is_no_id_names_what_is_wrong():
    state = game("knock", MARCH, "9H")
    with pytest.raises(ValueError, match=r"^action 59 is out of range 0\.\.58$"):
        state.apply(59)
    with pytest.raises(ValueError, match=r"^actions are integer ids, got 'pass'; use apply_str\('pass'\) \(= 0\)$"):
        state.apply("pass")
    assert state.history == [] and state.current_player == 1


def test_illegal_action_lists_the_legal_ones_and_leaves_the_state_unchanged():
    state = ordered(MARCH, "1:order")
    act(state, "1:play JH", "2:play 9S", "3:play 9D")
    before = (state.phase, state.current_player, [list(h) for h in state.hands], list(state.trick),
              len(state.history), list(state.legal_actions()))
    with pytest.raises(ValueError, match=r"illegal action 'play KC' .* seat 0 in phase PLAY; legal: play 9H$"):
        state.apply_str("play KC")
    with pytest.raises(ValueError, match="legal: play 9H"):
        state.apply(state.table.from_str("order"))
    after = (state.phase, state.current_player, [list(h) for h in state.hands], list(state.trick),
             len(state.history), list(state.legal_actions()))
    assert after == before
    act(state, "0:play 9H")  # the game goes on normally
    assert last_trick(state)[0] == 1


def test_illegal_call_lists_the_legal_calls():
    state = game("knock", MARCH, "9H")
    with pytest.raises(ValueError, match="phase CALL1; legal: pass, order, order alone"):
        state.apply_str("play JH")
    assert state.phase == Phase.CALL1 and state.current_player == 1 and state.history == []


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="unknown preset 'nosuch'"):
        Rules.preset("nosuch")
    with pytest.raises(ValueError, match="game_target"):
        Rules.preset("knock", game_target=0)
    with pytest.raises(ValueError, match="defend_alone"):
        Rules.preset("knock", defend_alone=True, lone_maker=False)
    with pytest.raises(ValueError, match="deck"):
        Rules.preset("knock", deck=36)
    with pytest.raises(ValueError, match="renege"):
        Rules.preset("knock", renege="ignore")
    with pytest.raises(ValueError, match="'no_such_option'"):
        Rules.preset("knock", no_such_option=True)


def test_preset_knock_defaults():
    r = Rules.preset("knock")
    assert (r.deck, r.joker, r.stick_the_dealer, r.lone_maker, r.defend_alone) == (24, False, True, True, False)
    assert (r.dealer_partner_must_go_alone, r.game_target, r.rubber, r.renege) == (False, 10, False, "masked")


# ============================================================================ environment
def _mask_strs(env, agent):
    mask = env.observe(agent)["action_mask"]
    return [env.unwrapped.action_to_str(a) for a in np.flatnonzero(mask)]


def _script(env, moves):
    """Step the env through ``moves`` ("seat:action"), checking the agent and its mask each time."""
    for move in moves:
        seat, _, text = move.partition(":")
        agent = env.agent_selection
        assert agent == f"player_{seat}", (move, agent)
        assert text in _mask_strs(env, agent), (move, _mask_strs(env, agent))
        env.step(env.unwrapped.str_to_action(text))


MARCH_MOVES = ("1:order", "0:discard 9C", *MARCH_PLAY)


def test_env_reset_scripts_the_deal_and_the_scores():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=3, options={"deal": deal(MARCH, "9H"), "scores": [4, 7]})
    assert env.game.scores == [4, 7] and env.game.dealer == 0
    assert hand(env.game, 1) == sorted(MARCH[1].split())
    assert env.agent_selection == "player_1"
    assert _mask_strs(env, "player_1") == ["pass", "order", "order alone"]
    assert _mask_strs(env, "player_2") == []  # only the agent to act has a mask
    assert list(np.flatnonzero(env.infos["player_1"]["action_mask"])) == env.legal_actions()


def test_env_hand_result_scores_and_zero_sum_rewards_through_last():
    env = euchre_env.env(rules="knock")
    env.reset(seed=3, options={"deal": deal(MARCH, "9H"), "scores": [4, 7]})
    _script(env, MARCH_MOVES)
    for agent in env.agents:
        info = env.infos[agent]
        assert info["hand_result"]["points"] == [0, 2] and info["hand_result"]["maker_team"] == 1
        assert info["scores"] == [4, 9]
    assert env.rewards == {"player_0": -2.0, "player_1": 2.0, "player_2": -2.0, "player_3": 2.0}
    assert sum(env.rewards.values()) == 0
    # The game goes on (episode="game"): the next dealer is seat 1, so seat 2 speaks first.
    # Every seat collects the hand's reward through last() at its next turn.
    got = {}
    for _ in range(4):
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        got[agent] = reward
        assert not term and not trunc
        env.step(env.unwrapped.str_to_action("pass"))
    assert got == {"player_2": -2.0, "player_3": 2.0, "player_0": -2.0, "player_1": 2.0}


def test_env_episode_ends_when_the_game_is_won():
    env = euchre_env.env(rules="knock")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H"), "scores": [0, 9]})
    _script(env, MARCH_MOVES)
    assert all(env.terminations.values())
    assert env.infos["player_0"]["hand_result"]["game_winner"] == 1
    rewards = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        rewards[agent] = reward
        env.step(None)
    assert rewards == {"player_0": -2.0, "player_1": 2.0, "player_2": -2.0, "player_3": 2.0}
    assert env.agents == []


def test_env_single_hand_episode():
    env = euchre_env.env(rules="knock", episode="hand")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H")})
    _script(env, ("1:order alone", "0:discard 9C", *MARCH_PLAY_ALONE))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -4.0, "player_1": 4.0, "player_2": -4.0, "player_3": 4.0}


def test_wrapped_env_terminates_on_an_illegal_action():
    env = euchre_env.env(rules="knock")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H")})
    _script(env, ("1:order",))
    assert env.agent_selection == "player_0"
    env.step(env.unwrapped.str_to_action("play JH"))  # a play during the dealer's discard
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != "player_0")


def test_raw_env_raises_on_an_illegal_action_and_keeps_its_state():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H")})
    _script(env, ("1:order",))
    game_before = (env.game.phase, env.game.current_player, [list(h) for h in env.game.hands],
                   len(env.game.history))
    with pytest.raises(ValueError, match=r"illegal action 'play JH'.*legal: discard"):
        env.step(env.str_to_action("play JH"))
    assert env.agent_selection == "player_0" and env.num_steps == 1
    assert (env.game.phase, env.game.current_player, [list(h) for h in env.game.hands],
            len(env.game.history)) == game_before
    assert not any(env.terminations.values())
    _script(env, ("0:discard 9C", "1:play JH"))  # still playable


def test_env_reset_rejects_a_bad_deal_naming_the_card():
    env = euchre_env.raw_env(rules="knock")
    bad = deal(("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS KS", "9D TD QD KD 9C"), "9H")
    with pytest.raises(ValueError, match="9C"):
        env.reset(options={"deal": bad})


def test_env_options_name_the_bad_option():
    with pytest.raises(ValueError, match="unknown preset 'nosuch'"):
        euchre_env.raw_env(rules="nosuch")
    with pytest.raises(ValueError, match="game_target"):
        euchre_env.raw_env(rules="knock", game_target=0)



def test_game_target_is_bounded_where_it_enters():
    """1 to 1,000 (rules.MAX_GAME_TARGET): 10**20 overflowed the engine and 10**6 never ended (issue 54)."""
    import euchre_env
    from euchre_env.game.rules import MAX_GAME_TARGET

    assert Rules.preset("knock", game_target=MAX_GAME_TARGET).game_target == 1_000
    message = "rules option 'game_target' must be an int from 1 to 1,000, got "
    for bad in (10**20, MAX_GAME_TARGET + 1, 0, -5):
        for make in (lambda v: Rules.preset("knock", game_target=v),
                     lambda v: euchre_env.env(rules="knock", game_target=v),
                     lambda v: euchre_env.VectorEuchre("knock", num_envs=2, game_target=v)):
            with pytest.raises(ValueError) as info:
                make(bad)
            assert str(info.value) == message + repr(bad)
