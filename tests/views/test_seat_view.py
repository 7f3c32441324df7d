"""A seat view of the information state encodes exactly like the game state, for both observers.

So an agent holding only ``info["information_state"]`` builds the observation a network was
trained on, and the encoders read nothing the seat may not know (the view holds nothing else).
"""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import PRESETS, Rules
from euchre_env.views.infostate import information_state
from euchre_env.views.observation import Observer
from euchre_env.views.seat_view import seat_view
from euchre_env.views.structured import StructuredObserver

CONFIGS = [(p, {}) for p in PRESETS] + [
    ("knock", {"joker": True}),
    ("classic", {"deck": 32}),
    ("knock", {"defend_alone": True}),
    ("classic", {"defend_alone": True, "joker": True, "deck": 32}),
    ("knock", {"rubber": True, "game_target": 5}),
    ("knock", {"dealer_partner_must_go_alone": True, "renege": "penalize"}),
    ("bid", {"joker": True, "ace_no_face": True}),
    ("bid", {"double_deck": True}),
    ("classic", {"rubber": True, "deck": 32, "game_target": 5}),
]
IDS = [f"{p}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for p, kw in CONFIGS]


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_the_seat_view_encodes_like_the_state(preset, kwargs):
    """Random games (several hands, so scores and rubber counts move): every seat at every decision."""
    rules = Rules.preset(preset, **kwargs)
    observers = (Observer(rules), StructuredObserver(rules))
    rng = np.random.default_rng(11)
    decisions, phases, games_won = 0, set(), 0
    for game in range(3):
        state = GameState(rules, game)
        for _ in range(8):  # hands per game
            while not state.hand_over:
                for seat in range(4):
                    view = seat_view(information_state(state, seat))
                    for obs in observers:
                        assert np.array_equal(obs.encode(view, seat), obs.encode(state, seat)), (type(obs), seat)
                structured = observers[1]
                seat = state.current_player
                view = seat_view(information_state(state, seat))
                # the frame too: the agent maps its action ids with it
                assert structured.canonical_frames(view, seat) == structured.canonical_frames(state, seat)
                legal = state.legal_actions()
                phases.add(state.phase)
                passes = [a for a in legal if state.table.strings[a] == "pass"]
                # passing more often than uniformly reaches the later calling rounds and the defend-alone round
                state.apply(passes[0] if passes and rng.random() < 0.6 else legal[rng.integers(len(legal))])
                decisions += 1
            games_won = max(games_won, *state.games_won)
            if state.is_over:
                break
            state.next_hand()
    assert decisions > 150
    assert Phase.PLAY in phases and (Phase.AUCTION in phases or Phase.CALL2 in phases)
    assert Phase.DEFEND in phases or not rules.defend_alone
    assert games_won > 0 or not rules.rubber


def test_the_view_holds_the_seats_own_hand_only():
    state = GameState(Rules.preset("knock"), 0)
    view = seat_view(information_state(state, 1))
    assert view.hands[1] == list(state.hands[1])
    with pytest.raises(KeyError):
        view.hands[0]
    with pytest.raises(ValueError, match="a seat view of seat 1 cannot tell what seat 2 saw"):
        view.sees_discard(2)
