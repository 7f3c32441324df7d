"""Scenario tests of the ``multiplayer`` preset (source 004 FR, RULES.md "Preset multiplayer").

Multiplayer is classic to 10 plus "defend alone" against a lone maker, with its own
scoring row (a lone defender who beats a lone maker scores 4). One test per rule; every
test scripts a deal and plays action strings checked against the legal actions.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenario import (
    FOUR,
    FOUR_PLAY,
    MARCH,
    MARCH_PLAY,
    MARCH_PLAY_ALONE,
    MARCH_PLAY_DEALER_OUT,
    THREE,
    Phase,
    act,
    deal,
    game,
    last_trick,
    legal,
)

import euchre_env
from euchre_env import Rules

# Seat 1 alone against seat 2 alone (seats 3 and 0 out): seat 1 takes every trick.
MARCH_PLAY_SEAT1_VS_SEAT2 = tuple(m for m in MARCH_PLAY if m[0] in "12")


def test_preset_multiplayer_defaults():
    r = Rules.preset("multiplayer")
    assert (r.deck, r.joker, r.stick_the_dealer, r.lone_maker, r.defend_alone) == (24, False, False, True, True)
    assert (r.game_target, r.rubber, r.dealer_partner_must_go_alone) == (10, False, False)


# ============================================================================ defend alone
def test_defenders_are_asked_after_the_dealers_discard_from_the_dealers_left():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone")
    assert state.phase == Phase.DISCARD and state.current_player == 0  # the discard comes first
    act(state, "0:discard 9C")
    # From the dealer's left: seat 1 is the maker, so seat 2 is asked first, then seat 0.
    assert state.phase == Phase.DEFEND and state.current_player == 2
    assert legal(state) == ["pass", "defend alone"]
    act(state, "2:pass")
    assert state.phase == Phase.DEFEND and state.current_player == 0
    assert legal(state) == ["pass", "defend alone"]


def test_first_defender_to_accept_plays_alone_and_the_partner_sits_out():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:defend alone")
    assert state.phase == Phase.PLAY  # seat 0 is not asked any more
    assert state.out == [True, False, False, True] and state.defender_alone == 2
    assert state.current_player == 1  # first active seat at the dealer's left
    act(state, "1:play JH", "2:play 9S")
    assert last_trick(state) == (1, [1, 2], ["JH", "9S"])


def test_second_defender_may_defend_alone_after_the_first_passes():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:pass", "0:defend alone")
    assert state.out == [False, False, True, True] and state.defender_alone == 0
    act(state, "1:play JH", "0:play 9H")
    assert last_trick(state) == (1, [1, 0], ["JH", "9H"])


def test_both_defenders_pass_and_play_together():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:pass", "0:pass")
    assert state.phase == Phase.PLAY and state.out == [False, False, False, True]
    act(state, *MARCH_PLAY_ALONE)
    assert state.hand_result["defender_alone"] is False and state.hand_result["points"] == [0, 4]


def test_defend_order_when_the_dealers_partner_goes_alone():
    # Seat 2 alone: the dealer sits out and takes no card, so the defenders are asked at once,
    # seat 1 (the dealer's left) first, then seat 3.
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:pass", "2:order alone")
    assert state.phase == Phase.DEFEND and state.current_player == 1
    act(state, "1:pass")
    assert state.current_player == 3
    act(state, "3:defend alone")
    assert state.out == [True, True, False, False] and state.current_player == 2  # seat 1 out: seat 2 leads


def test_defend_order_when_the_dealer_goes_alone():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:pass", "2:pass", "3:pass", "0:order alone", "0:discard 9C")
    assert state.phase == Phase.DEFEND and state.current_player == 1
    act(state, "1:pass", "3:pass")
    assert state.phase == Phase.PLAY and state.out == [False, False, True, False] and state.current_player == 1


def test_defend_alone_against_a_lone_maker_named_in_round_two():
    state = game("multiplayer", MARCH, "9H")
    act(state, *["pass"] * 4, "1:name S alone")
    assert state.phase == Phase.DEFEND and state.current_player == 2
    act(state, "2:pass", "0:defend alone")
    assert state.out == [False, False, True, True]


def test_no_defend_alone_against_a_partnership():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order", "0:discard 9C")
    assert state.phase == Phase.PLAY and state.current_player == 1
    seen = []
    while state.phase != Phase.HAND_OVER:
        seen += legal(state)
        act(state, legal(state)[0])
    assert "defend alone" not in seen and state.out == [False] * 4


def test_makers_are_never_asked_to_defend():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:pass", "0:pass")
    asked = [seat for phase, seat, _ in state.history if phase == Phase.DEFEND]
    assert asked == [2, 0]


def test_defend_alone_needs_lone_maker():
    with pytest.raises(ValueError, match="defend_alone"):
        Rules.preset("multiplayer", lone_maker=False)


# ============================================================================ scoring
def test_score_makers_take_zero_to_two_defenders_two():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:pass", "2:order", "0:discard 9C", *MARCH_PLAY)
    assert state.tricks_won == [0, 5] and state.hand_result["points"] == [0, 2]


def test_score_lone_defender_beats_lone_maker_four():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:pass", "2:order alone", "1:defend alone")
    assert state.out == [True, False, False, True]
    act(state, *MARCH_PLAY_SEAT1_VS_SEAT2)
    result = state.hand_result
    assert result["maker_alone"] and result["defender_alone"]
    assert result["tricks"] == [0, 5] and result["points"] == [0, 4] and state.scores == [0, 4]


def test_score_lone_maker_euchred_by_two_defenders_two():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:pass", "2:order alone", "1:pass", "3:pass", *MARCH_PLAY_DEALER_OUT)
    assert state.hand_result["points"] == [0, 2]


def test_score_makers_take_three_or_four_one():
    state = game("multiplayer", FOUR, "9H")
    act(state, "1:order", "0:discard TC", *FOUR_PLAY)
    assert state.tricks_won == [1, 4] and state.hand_result["points"] == [0, 1]


def test_score_lone_maker_takes_three_against_a_lone_defender_one():
    state = game("multiplayer", THREE, "9H")
    act(state, "1:order alone", "0:discard TC", "2:pass", "0:defend alone")
    act(
        state,
        "1:play JH", "0:play 9H",
        "1:play JD", "0:play QH",
        "1:play AH", "0:play JC",
        "1:play 9C", "0:play KC",
        "0:play QC", "1:play 9S",
    )
    assert state.tricks_won == [2, 3] and state.hand_result["points"] == [0, 1]


def test_score_makers_march_two():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order", "0:discard 9C", *MARCH_PLAY)
    assert state.hand_result["points"] == [0, 2]


def test_score_lone_maker_march_four():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:pass", "0:pass", *MARCH_PLAY_ALONE)
    assert state.hand_result["points"] == [0, 4]


def test_score_lone_maker_march_against_a_lone_defender_four():
    state = game("multiplayer", MARCH, "9H")
    act(state, "1:order alone", "0:discard 9C", "2:defend alone", *MARCH_PLAY_SEAT1_VS_SEAT2)
    assert state.hand_result["defender_alone"] and state.hand_result["points"] == [0, 4]


# ============================================================================ calling and game
def test_all_pass_twice_annuls_the_hand():
    state = game("multiplayer", MARCH, "9H", scores=[6, 2])
    act(state, *["pass"] * 8)
    assert state.phase == Phase.HAND_OVER and state.hand_result["thrown_in"] == "all passed"
    assert state.hand_result["points"] == [0, 0] and state.scores == [6, 2]
    state.next_hand()
    assert state.dealer == 1 and state.current_player == 2


def test_round_two_names_any_suit_but_the_upcards():
    state = game("multiplayer", MARCH, "9H")
    act(state, *["pass"] * 4)
    assert "name H" not in legal(state) and {"name C", "name D", "name S"} <= set(legal(state))


def test_game_ends_when_a_team_reaches_ten():
    state = game("multiplayer", MARCH, "9H", scores=[9, 7])
    act(state, "1:pass", "2:order alone", "1:defend alone", *MARCH_PLAY_SEAT1_VS_SEAT2)
    assert state.scores == [9, 11] and state.phase == Phase.GAME_OVER
    assert state.winner == 1 and state.hand_result["game_winner"] == 1


# ============================================================================ environment
def _step(env, *moves):
    for move in moves:
        seat, _, text = move.partition(":")
        assert env.agent_selection == f"player_{seat}", (move, env.agent_selection)
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask[env.unwrapped.str_to_action(text)] == 1, (move, np.flatnonzero(mask))
        env.step(env.unwrapped.str_to_action(text))


def test_env_defend_alone_mask_and_rewards():
    env = euchre_env.env(rules="multiplayer", episode="hand")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H")})
    _step(env, "1:pass", "2:order alone")
    mask = env.observe("player_1")["action_mask"]
    assert [env.unwrapped.action_to_str(a) for a in np.flatnonzero(mask)] == ["pass", "defend alone"]
    _step(env, "1:defend alone", *MARCH_PLAY_SEAT1_VS_SEAT2)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -4.0, "player_1": 4.0, "player_2": -4.0, "player_3": 4.0}
    assert env.infos["player_3"]["hand_result"]["defender_alone"] is True


def test_env_step_limit_truncates_in_place_of_the_turn_timer():
    env = euchre_env.env(rules="multiplayer", max_steps=3)
    env.reset(seed=0, options={"deal": deal(MARCH, "9H")})
    _step(env, "1:pass", "2:pass")
    assert not any(env.truncations.values())
    _step(env, "3:pass")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        assert trunc and not term
        env.step(None)
    assert env.agents == []


def test_env_thrown_in_hand_gives_zero_rewards():
    env = euchre_env.raw_env(rules="multiplayer", episode="hand")
    env.reset(seed=0, options={"deal": deal(MARCH, "9H"), "scores": [2, 3]})
    _step(env, "1:pass", "2:pass", "3:pass", "0:pass", "1:pass", "2:pass", "3:pass", "0:pass")
    assert all(env.terminations.values())
    assert env.rewards == dict.fromkeys(env.agents, 0.0)
    assert env.infos["player_0"]["hand_result"]["thrown_in"] == "all passed"
    assert env.infos["player_0"]["scores"] == [2, 3]
