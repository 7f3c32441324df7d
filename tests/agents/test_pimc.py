"""PIMCAgent picks legal actions in every preset and is reproducible for a seed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from euchre_env.agents.registry import make_agent
from euchre_env.agents.search.pimc import PIMCAgent
from euchre_env.evaluation.evaluate import Match, play_match
from euchre_env.game.cards import follow_suit
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import information_state

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"

CASES = [
    ("knock", {}), ("classic", {"joker": True}), ("multiplayer", {}), ("multiplayer", {"deck": 32}),
    ("bid", {}), ("bid", {"joker": True}), ("bid", {"double_deck": True}),
]


def _info(state: GameState) -> dict:
    mask = np.zeros(len(state.table), dtype=np.int8)
    mask[state.legal_actions()] = 1
    return {"action_mask": mask, "information_state": information_state(state, state.current)}


@pytest.mark.parametrize("preset,options", CASES)
def test_pimc_only_plays_legal_actions(preset, options):
    rules = Rules.preset(preset, **options)
    agent = PIMCAgent(seed=3, worlds=2)
    rng = np.random.default_rng(4)
    hands = 2 if rules.double_deck else 4
    for h in range(hands):
        state = GameState(rules, h)
        while not state.hand_over:
            if rng.random() < 0.5:  # PIMC for some seats, random for the others
                action = agent.act(None, _info(state))
            else:
                legal = state.legal_actions()
                action = legal[rng.integers(len(legal))]
            assert action in state.legal_actions()
            state.apply(action)


def test_pimc_follows_suit_when_reneging_is_only_penalized():
    """Under renege="penalize" the mask allows every card; PIMC (solving by the rules) still follows suit."""
    rules = Rules.preset("knock", renege="penalize")
    agent = PIMCAgent(seed=3, worlds=2)
    suits_played = 0
    for h in range(3):
        state = GameState(rules, h)
        while not state.hand_over:
            action = agent.act(None, _info(state))
            assert action in state.legal_actions()
            if state.phase == Phase.PLAY and state.trick:
                suits = state.deck.effective_suits(state.trump)
                honest = follow_suit(state.hands[state.current], suits[state.trick[0]], suits)
                assert state.table.actions[action].arg in honest
                suits_played += len(honest) < len(state.legal_actions())  # a renege was on offer
            state.apply(action)
    assert suits_played > 0


def test_pimc_is_reproducible():
    rules = Rules.preset("knock")
    rng = np.random.default_rng(9)
    for g in range(3):
        state = GameState(rules, g)
        while not state.hand_over:
            info = _info(state)
            a = PIMCAgent(seed=5, worlds=4).act(None, info)
            assert PIMCAgent(seed=5, worlds=4).act(None, info) == a
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])


def test_pimc_needs_the_information_state_and_is_in_the_registry():
    agent = make_agent("pimc:3", seed=1)
    assert isinstance(agent, PIMCAgent) and agent.worlds == 3 and not agent.needs_observation
    with pytest.raises(ValueError, match="information_state"):
        agent.act(None, {"action_mask": np.ones(3)})



def test_pimc_gives_back_a_card_when_the_help_partner_has_no_trump():
    # Seat 1 bids help in hearts and gives 9C; seat 3 holds no heart and no left bower, so it may give back
    # any of its own cards: a decision after the exchange began, solved on the worlds of the exchange.
    hands = ["QH KH AC KC QC JC", "JH JD AH 9C 9S 9D", "TH 9H AS KS QS JS", "TC TS TD AD KD QD"]
    state = GameState(Rules.preset("bid"), 0, deal={"dealer": 0, "hands": [h.split() for h in hands]})
    for text in ("bid help", "pass", "pass", "pass", "name H", "give 9C"):
        state.apply_str(text)
    assert state.current_player == 3 and len(state.legal_actions()) == 6
    action = PIMCAgent(seed=1, worlds=8).act(None, _info(state))
    assert action in state.legal_actions()
    state.apply(action)
    assert state.out[3] and len(state.hands[1]) == 6


def test_pimc_replays_the_recorded_knock_match():
    """The README's PIMC-vs-rules figure stays reproducible: the first deals give the recorded records.

    Eight deals (12 s) are enough for a changed rollout threshold or tie-break to show.
    """
    with gzip.open(RESULTS / "pimc50_vs_rules_knock_seed1" / "deals_0000-0299.json.gz", "rt") as f:
        recorded = json.load(f)
    assert recorded["agent_a"] == "pimc:50" and recorded["agent_b"] == "rules" and recorded["seed"] == 1
    match = Match("pimc:50", "rules", Rules.preset("knock"), seed=1)
    records = [r._asdict() for r in play_match(match, 8, workers=1)]
    assert records == recorded["deal_records"][:8]
