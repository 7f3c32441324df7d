"""euchre_env.openspiel: OpenSpiel's own checks on every preset, serialization, and a differential against our
engine (same deals and moves: same seat to act, legal actions, tensors, returns)."""

from __future__ import annotations

import pickle
import random
import zlib

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'euchre-env[openspiel]')")

import euchre_env.openspiel as eo  # noqa: E402
from euchre_env.game.deals import deal_from_order  # noqa: E402
from euchre_env.game.engine import GameState  # noqa: E402
from euchre_env.game.phases import Phase  # noqa: E402
from euchre_env.game.rules import PRESETS, Rules  # noqa: E402
from euchre_env.game.scoring import hand_reward  # noqa: E402
from euchre_env.game.seats import left_of, team_of  # noqa: E402
from euchre_env.views.observation import Observer  # noqa: E402
from euchre_env.views.structured import StructuredObserver  # noqa: E402

# (game, parameters) for OpenSpiel's random simulation test: every preset and the options the issue names.
SIM_CASES = [
    *[(eo.preset_game_name(p), {}) for p in PRESETS],
    ("python_euchre", {"rules": "classic", "joker": True}),
    ("python_euchre_knock", {"deck": 32, "observation": "structured"}),
    ("python_euchre_multiplayer", {"stick_the_dealer": True}),
    ("python_euchre_classic", {"dealer_partner_must_go_alone": True, "renege": "penalize"}),
    ("python_euchre_bid", {"joker": True, "ace_no_face": True}),
    ("python_euchre_bid", {"double_deck": True}),
    ("python_euchre_knock", {"whole_game": True, "game_target": 5}),
    ("python_euchre_classic", {"whole_game": True, "rubber": True, "game_target": 3}),
    # Random play sets nearly every Bid Euchre contract: without minus_target_loses a random game hardly ends.
    ("python_euchre_bid", {"whole_game": True, "game_target": 8, "minus_target_loses": True}),
]


@pytest.mark.parametrize(("name", "params"), SIM_CASES, ids=[f"{n}-{p}" for n, p in SIM_CASES])
def test_random_sim(name: str, params: dict) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)  # serializes states as it goes


def test_parameter_scheme() -> None:
    game = pyspiel.load_game("python_euchre", {"rules": "classic", "joker": True})
    assert game.rules == Rules.preset("classic", joker=True)
    assert pyspiel.load_game("python_euchre", {"rules": "bid"}).rules.game_target == 32
    assert pyspiel.load_game("python_euchre", {"rules": "bid", "game_target": 20}).rules.game_target == 20
    game = pyspiel.load_game("python_euchre_multiplayer", {"stick_the_dealer": True})
    assert game.rules == Rules.preset("multiplayer", stick_the_dealer=True)
    assert eo.load("knock", stick_the_dealer=False).rules == Rules.preset("knock", stick_the_dealer=False)
    assert game.num_distinct_actions() == len(game.spec.table)
    assert game.information_state_tensor_shape() == [Observer(game.rules).size]
    structured = pyspiel.load_game("python_euchre_knock", {"observation": "structured"})
    assert structured.information_state_tensor_shape() == [StructuredObserver(structured.rules).size]


@pytest.mark.parametrize(("name", "params", "message"), [
    ("python_euchre", {"rules": "euchre"}, "unknown rules 'euchre'"),
    ("python_euchre", {"observation": "flat"}, "unknown observation 'flat'"),
    ("python_euchre_bid", {"joker": True, "double_deck": True}, "cannot be combined"),
    ("python_euchre", {"stick_the_dealer": True}, "stick_the_dealer"),
])
def test_bad_parameters_are_one_line(name: str, params: dict, message: str) -> None:
    with pytest.raises(Exception, match=message) as err:
        pyspiel.load_game(name, params)
    assert "\n" not in str(err.value)


def dealt(state, rng: random.Random):
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        assert abs(sum(probs) - 1.0) < 1e-9
        state.apply_action(rng.choice(outcomes))
    return state


def test_illegal_actions_are_refused_in_one_line() -> None:
    game = pyspiel.load_game("python_euchre_knock")
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="illegal chance outcome 7"):
        state.apply_action(7)
    dealt(state, random.Random(1))
    message = r"illegal action 'play 9C' \(id \d+\) for seat \d in phase CALL1; legal: pass"
    with pytest.raises(ValueError, match=message):
        state.apply_action(game.spec.table.play_base)


@pytest.mark.parametrize("name", [eo.preset_game_name(p) for p in PRESETS])
def test_serialization_round_trips(name: str) -> None:
    game = pyspiel.load_game(name)
    rng = random.Random(5)
    state = dealt(game.new_initial_state(), rng)
    for _ in range(6):
        state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state) and state2.history() == state.history()
    assert pickle.loads(pickle.dumps(game)).rules == game.rules
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state)
    assert copy.information_state_tensor(0) == state.information_state_tensor(0)
    # The copies go on independently of the original.
    while not copy.is_terminal():
        copy.apply_action(copy.legal_actions()[0])
    assert not state.is_terminal() and state2.legal_actions() == state.legal_actions()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[-1])
    assert str(clone) != str(state) and clone.history()[:-1] == state.history()


def deal_order(rules: Rules, rng: random.Random) -> tuple[int, list[int]]:
    """A dealer and the drawn cards (as many as the game draws), from ``rng``."""
    pack = list(rules.deck_spec.pack)
    rng.shuffle(pack)
    return rng.randrange(4), pack[:eo.game._cards_per_deal(rules)]


def scripted(rules: Rules, cards: list[int], dealer: int) -> dict:
    """Our scripted deal of ``cards`` (drawn in this order), as the engine takes it."""
    deal = deal_from_order(rules, cards, dealer)
    del deal["kitty"]
    return deal


DIFF_CASES = [
    ("python_euchre_knock", {}),
    ("python_euchre_classic", {"joker": True}),
    ("python_euchre_multiplayer", {"deck": 32, "observation": "structured"}),
    ("python_euchre_bid", {"ace_no_face": True}),
    ("python_euchre_bid", {"joker": True}),
    ("python_euchre_classic", {"whole_game": True, "game_target": 4}),
]


@pytest.mark.parametrize(("name", "params"), DIFF_CASES, ids=[f"{n}-{p}" for n, p in DIFF_CASES])
def test_same_as_our_engine(name: str, params: dict) -> None:
    """The same deals and random moves in our engine and through the game: the same seat to act, legal
    actions, action strings, tensors of every seat and returns."""
    game = pyspiel.load_game(name, params)
    rules = game.rules
    encoder = (StructuredObserver if params.get("observation") == "structured" else Observer)(rules)
    rng = random.Random(zlib.crc32(f"{name}{params}".encode()))
    hands = 0
    for _ in range(25 if not params.get("whole_game") else 8):
        state = game.new_initial_state()
        dealer, cards = deal_order(rules, rng)
        state.apply_action(dealer)
        for c in cards:
            state.apply_action(c)
        ours = GameState(rules, 0, deal=scripted(rules, cards, dealer))
        while True:
            while not ours.hand_over:
                seat = ours.current_player
                assert state.current_player() == seat
                assert state.legal_actions() == ours.legal_actions()
                assert [state.action_to_string(seat, a) for a in state.legal_actions()] == [
                    ours.table.to_str(a) for a in ours.legal_actions()]
                for viewer in range(4):
                    np.testing.assert_array_equal(state.information_state_tensor(viewer), encoder.encode(ours, viewer))
                    np.testing.assert_array_equal(state.observation_tensor(viewer), encoder.encode(ours, viewer))
                    assert state.information_state_string(viewer) == eo.information_string(ours, viewer)
                    assert state.observation_string(viewer) == eo.observation_string(ours, viewer)
                action = rng.choice(ours.legal_actions())
                ours.apply(action)
                state.apply_action(action)
            hands += 1
            if not game.whole_game:
                assert state.is_terminal()
                assert state.returns() == [hand_reward(ours.hand_result["points"], p) for p in range(4)]
                break
            if ours.is_over:
                assert state.is_terminal()
                assert state.returns() == [1.0 if team_of(p) == ours.winner else -1.0 for p in range(4)]
                break
            assert state.is_chance_node() and not state.is_terminal()
            _, cards = deal_order(rules, rng)
            for c in cards:
                state.apply_action(c)
            ours.next_hand(scripted(rules, cards, left_of(ours.dealer)))
        assert sum(state.returns()) == 0
    assert hands >= 25


def test_information_state_hides_other_hands() -> None:
    """Two deals that differ only in cards seat 0 cannot see give seat 0 the same information state (string
    and tensor) after the same calls, and seat 1 different ones."""
    game = pyspiel.load_game("python_euchre_classic")
    rules = game.rules
    rng = random.Random(3)
    checked = 0
    for _ in range(20):
        dealer, cards = deal_order(rules, rng)
        swapped = list(cards)
        # Seat (dealer + 2)'s first card and seat (dealer + 3)'s first card change places (blocks of five).
        a, b = 5, 10
        swapped[a], swapped[b] = swapped[b], swapped[a]
        viewer = (dealer + 4) % 4  # the dealer's block is the last one: cards 15..19
        states = []
        for order in (cards, swapped):
            s = game.new_initial_state()
            for x in [dealer, *order]:
                s.apply_action(x)
            states.append(s)
        for _ in range(3):  # passes: the same public moves in both
            if states[0].current_player() < 0 or game.spec.table.pass_id not in states[0].legal_actions():
                break
            for s in states:
                s.apply_action(game.spec.table.pass_id)
        assert states[0].information_state_string(viewer) == states[1].information_state_string(viewer)
        assert states[0].information_state_tensor(viewer) == states[1].information_state_tensor(viewer)
        seer = left_of(left_of(dealer))  # holds card a
        assert states[0].information_state_string(seer) != states[1].information_state_string(seer)
        checked += 1
    assert checked == 20


def test_chance_is_a_uniform_deal() -> None:
    """Each card is equally likely to reach each place, the double deck's copies counted."""
    game = pyspiel.load_game("python_euchre_bid", {"double_deck": True})
    state = game.new_initial_state()
    state.apply_action(0)
    first = dict(state.chance_outcomes())
    assert len(first) == 24 and all(abs(p - 1 / 24) < 1e-12 for p in first.values())
    state.apply_action(5)
    after = dict(state.chance_outcomes())
    assert after[5] == pytest.approx(1 / 47) and after[6] == pytest.approx(2 / 47)
    state.apply_action(5)
    assert 5 not in dict(state.chance_outcomes())
    assert state.chance_outcomes()[0][1] == pytest.approx(2 / 46)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 5) == "deal AC"
    assert game.new_initial_state().action_to_string(pyspiel.PlayerId.CHANCE, 2) == "dealer 2"


def test_phase_after_deal_matches_engine() -> None:
    game = pyspiel.load_game("python_euchre_bid", {"joker": True})
    state = dealt(game.new_initial_state(), random.Random(9))
    assert state.engine.phase == Phase.DISCARD and state.current_player() == state.engine.dealer
    assert len(state.engine.hands[state.engine.dealer]) == 7
