"""Tests of ``euchre_env.agents.rule_based.agent.RuleBasedAgent``: legality everywhere, key strategy points, strength.

Seats run clockwise, seat 1 at seat 0's left; teams {0, 2} and {1, 3}. Scripted deals use
``GameState(rules, seed, deal=...)``; the agent is asked for the decision of the seat to act
through its ``InfoState`` only.
"""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env import GameState, Rules
from euchre_env.agents.random_agent import RandomAgent
from euchre_env.agents.registry import make_agent
from euchre_env.agents.rule_based import agent as rule_based
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.views.infostate import information_state

# ============================================================================ helpers


def turnup(hands, upcard, dealer=0, preset="knock", **options) -> GameState:
    deal = {"dealer": dealer, "hands": [h.split() for h in hands], "upcard": upcard}
    return GameState(Rules.preset(preset, **options), 0, deal=deal)


def bid_game(hands, dealer=0, **options) -> GameState:
    deal = {"dealer": dealer, "hands": [h.split() for h in hands]}
    return GameState(Rules.preset("bid", **options), 0, deal=deal)


def script(state: GameState, *moves: str) -> GameState:
    """Apply ``"seat:action"`` moves, checking the seat to act and legality."""
    for move in moves:
        seat, _, text = move.partition(":")
        assert state.current_player == int(seat), f"{move!r}: seat {state.current_player} is to act"
        action = state.table.from_str(text)
        assert action in state.legal_actions(), f"{move!r} is illegal in {state.phase.name}"
        state.apply(action)
    return state


def decide(state: GameState, agent: RuleBasedAgent | None = None) -> str:
    """The rule-based agent's choice for the seat to act, as an action string."""
    agent = agent or RuleBasedAgent(seed=0)
    seat = state.current_player
    mask = np.zeros(len(state.table), np.int8)
    mask[state.legal_actions()] = 1
    info = {"action_mask": mask, "information_state": information_state(state, seat)}
    action = agent.act({"action_mask": mask}, info)
    assert action in state.legal_actions()
    return state.table.to_str(action)


# A knock deal, dealer 0, up-card 9H; the kitty is TH QH AH.
BOWERS = ("9C TC QC KC 9D", "JH JD KH AC 9S", "TS JS QS KS AS", "TD QD KD AD JC")

# ============================================================================ interface


def test_interface_and_registry():
    agent = make_agent("rules", seed=3)
    assert isinstance(agent, RuleBasedAgent)
    assert agent.name == "rules" and RuleBasedAgent.name == "rules"
    assert RuleBasedAgent.needs_observation is False
    with pytest.raises(ValueError, match="info_state=True"):
        agent.act({}, {"action_mask": np.ones(3, np.int8)})
    assert make_agent("rules", seed=1).name == "rules" and RuleBasedAgent(name="team A").name == "team A"


def test_an_illegal_choice_raises_instead_of_playing_something_else(monkeypatch):
    """A bug in a rule must surface: act() never replaces the rule's choice by another legal action."""
    state = turnup(BOWERS, "9H")
    legal = state.legal_actions()
    monkeypatch.setitem(rule_based._DECISIONS, state.phase, lambda T, s, legal: (T.table.play_base, "a bug"))
    with pytest.raises(RuntimeError, match=r"chose 'play 9C' in CALL1, which is not legal; legal: pass, order"):
        decide(state)
    assert state.legal_actions() == legal  # nothing was applied


def test_reset_is_a_no_op():
    """The agent keeps no state: reset(seed) exists for the protocol, and choices do not depend on it."""
    agent = RuleBasedAgent(seed=1)
    before = decide(turnup(BOWERS, "9H"), agent)
    agent.reset(99)
    assert decide(turnup(BOWERS, "9H"), agent) == before == decide(turnup(BOWERS, "9H"), RuleBasedAgent())
    assert not hasattr(agent, "rng")


# ============================================================================ legality

CONFIGS = [
    ("knock", {}),
    ("knock", {"joker": True}),
    ("knock", {"deck": 32}),
    ("knock", {"dealer_partner_must_go_alone": True}),
    ("knock", {"renege": "penalize"}),
    ("classic", {}),
    ("classic", {"joker": True, "deck": 32}),
    ("classic", {"rubber": True}),
    ("multiplayer", {}),
    ("multiplayer", {"joker": True, "dealer_partner_must_go_alone": True}),
    ("bid", {}),
    ("bid", {"ace_no_face": True}),
    ("bid", {"joker": True}),
    ("bid", {"double_deck": True}),
    ("bid", {"stick_the_dealer": True, "renege": "penalize"}),
    ("bid", {"ace_no_face": True, "joker": True, "stick_the_dealer": True}),
]


@pytest.mark.parametrize(("preset", "options"), CONFIGS, ids=[f"{p}-{o}" for p, o in CONFIGS])
def test_only_legal_actions_mixed_with_random_players(preset, options):
    """Over many hands with rule-based and random players mixed, every choice is legal."""
    env = euchre_env.env(rules=preset, info_state=True, episode="hand", **options)
    decisions = 0
    for episode in range(40):
        env.reset(seed=1000 + episode)
        seats = np.random.default_rng(episode).permutation(4)[:2]  # two rule-based seats, anywhere
        players = {
            a: RuleBasedAgent(seed=i) if i in seats else RandomAgent(seed=episode * 4 + i)
            for i, a in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            player = players[agent]
            # act() raises if a rule proposes an illegal action, so every rule-based call checks itself
            action = player.act(obs, info)
            decisions += isinstance(player, RuleBasedAgent)
            assert obs["action_mask"][action] == 1, (preset, options, env.unwrapped.action_to_str(action))
            env.step(action)
    assert decisions > 250


def test_deterministic():
    """The same seeds give the same game, move for move."""

    def run() -> list[int]:
        env = euchre_env.env(rules="classic", info_state=True, joker=True)
        env.reset(seed=5)
        agents = {a: RuleBasedAgent(seed=i) for i, a in enumerate(env.possible_agents)}
        moves = []
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            action = None if term or trunc else agents[agent].act(obs, info)
            moves.append(action)
            env.step(action)
        return moves

    assert run() == run()


# ============================================================================ calling


def test_orders_up_with_both_bowers():
    assert decide(turnup(BOWERS, "9H")) == "order"


def test_passes_with_junk():
    hands = ("JH JD KH AC 9S", "9C TC TS QD 9D", "QS JS KS AS TD", "KD AD JC QC KC")
    assert decide(turnup(hands, "9H")) == "pass"


def test_goes_alone_with_a_near_march():
    hands = ("9C TC QC KC 9D", "JH JD AH KH AC", "TS JS QS KS AS", "TD QD KD AD JC")
    assert decide(turnup(hands, "9H")) == "order alone"


def test_upcard_value_depends_on_the_dealer_side():
    """A borderline hand orders the right bower up to its partner, not to an opponent."""
    hands = ("9C TC QC KC 9D", "AH KH 9H KS 9S", "TS JS QS AS AC", "TD QD KD AD JC")
    to_opponent = turnup(hands, "JH", dealer=0)  # seat 1 speaks first; the dealer (seat 0) is an opponent
    assert decide(to_opponent) == "pass"
    to_partner = turnup(hands, "JH", dealer=3)  # seat 1 is the dealer's partner
    script(to_partner, "0:pass")
    assert decide(to_partner) == "order"


def test_round_two_names_best_suit_never_the_turned_down_one():
    hands = ("9C TC QC KC 9D", "JS JC AS KS AD", "TS QS TD KD AH", "QD 9H TH JH KH")
    state = turnup(hands, "AC")
    script(state, "1:pass", "2:pass", "3:pass", "0:pass")
    assert decide(state).startswith("name S")  # seat 1 holds both black bowers; clubs is out


def test_stick_the_dealer_forced_call():
    hands = ("9C TC 9S TS 9D", "JS JC AS KS AD", "QS TD KD AH KC", "QD 9H TH JH KH")
    state = turnup(hands, "AC")
    script(state, *(f"{s}:pass" for s in (1, 2, 3, 0, 1, 2, 3)))
    choice = decide(state)
    assert choice.startswith("name ") and choice != "name C"


def test_defends_alone_only_with_strong_trumps():
    hands = ("9C TC QC KC 9D", "JH JD AH KH AC", "TS JS QS KS AS", "TD QD KD AD JC")
    state = turnup(hands, "9H", preset="multiplayer")
    script(state, "1:order alone", "0:discard 9D")
    assert decide(state) == "pass"  # seat 2: no trumps


def test_defends_alone_with_three_top_trumps():
    hands = ("9D TD QD KD AD", "KH QH TH AC AS", "JH JD AH 9C 9S", "TC JC QC KC TS")
    state = turnup(hands, "9H", preset="multiplayer")
    script(state, "1:order alone", "0:discard 9D")
    assert decide(state) == "defend alone"


def test_dealers_partner_orders_alone_only_when_strong():
    strong = turnup(BOWERS, "9H", dealer=3, dealer_partner_must_go_alone=True)  # seat 1 is the partner
    script(strong, "0:pass")
    assert decide(strong) == "order alone"
    weak = turnup(BOWERS, "9H", dealer=1, dealer_partner_must_go_alone=True)  # seat 3 is the partner
    script(weak, "2:pass")
    assert decide(weak) == "pass"


# ============================================================================ discards and the joker


def test_dealer_discards_to_void_a_suit():
    hands = ("JH KS 9C TC AD", "QS 9S TS AS JS", "QC KC AC JC 9D", "TD QD KD JD AH")
    state = turnup(hands, "9H")
    script(state, "1:order")
    assert decide(state) == "discard KS"  # the lone spade goes, clubs (two low) stay


def test_dealer_keeps_trumps_and_aces():
    hands = ("JH AH AC AS 9D", "QS 9S TS KS JS", "QC KC TC JC 9C", "TD QD KD JD AD")
    state = turnup(hands, "9H")
    script(state, "1:order")
    assert decide(state) == "discard 9D"


def test_joker_upcard_names_the_dealers_strongest_suit():
    hands = ("JS JC AS 9D TD", "9C TC QC KC AC", "TS QS KS 9H TH", "QD KD AD JD JH")
    state = turnup(hands, "JO", joker=True)
    assert decide(state) == "name S"


# ============================================================================ card play

# Dealer 0, up-card AH ordered by seat 1; the kitty is JD 9H TH.
NO_TRUMP_OVER_PARTNER = ("JH QH KH 9D TD", "9C 9S TS QS KS", "AC QC KC JS AS", "TC JC QD KD AD")


def test_does_not_trump_a_partners_winning_trick():
    state = turnup(NO_TRUMP_OVER_PARTNER, "AH")
    script(state, "1:order", "0:discard 9D", "1:play 9C", "2:play AC", "3:play TC")
    assert decide(state) == "play TD"  # void in clubs: throws off instead of trumping


def test_plays_lowest_winning_card():
    hands = ("KS AS JH QH 9D", "QS 9C TC JC QC", "9S KC AC TD QD", "TS JS KD AD JD")
    state = turnup(hands, "AH")
    script(state, "1:order", "0:discard 9D", "1:play QS", "2:play 9S", "3:play TS")
    assert decide(state) == "play KS"


def test_last_hand_trumps_an_opponents_trick_low():
    hands = ("JH QH KH 9D TD", "AS 9C TS QS KS", "9S AC QC KC JS", "TC JC QD KD AD")
    state = turnup(hands, "AH")
    script(state, "1:order", "0:discard 9D", "1:play AS", "2:play 9S", "3:play QD")
    assert decide(state) == "play QH"  # void in spades: the cheapest trump takes the ace


def test_leads_right_bower_as_maker():
    state = turnup(BOWERS, "9H")
    script(state, "1:order", "0:discard 9D")
    assert decide(state) == "play JH"


def test_leads_trump_to_a_maker_partner():
    hands = ("QC KC AC QD KD", "9H AS KS TC 9D", "9S TS QS JS AD", "JH AH KH JD 9C")
    state = turnup(hands, "TH")
    script(state, "1:pass", "2:pass", "3:order", "0:discard QD")
    assert decide(state) == "play 9H"  # seat 1 leads its trump to the maker (seat 3), not its ace


# Dealer 0, up-card JH ordered by seat 1; the kitty is KH AH QH.
SECOND_HAND = ("9C TC QC KC 9D", "KS 9S AC AD KD", "TS QS JS AS TD", "QD JD JC 9H TH")


def test_second_hand_low():
    state = turnup(SECOND_HAND, "JH")
    script(state, "1:order", "0:discard 9D", "1:play 9S")
    assert decide(state) == "play TS"


def test_second_hand_takes_a_high_lead_with_the_ace():
    state = turnup(SECOND_HAND, "JH")
    script(state, "1:order", "0:discard 9D", "1:play KS")
    assert decide(state) == "play AS"


# ============================================================================ Bid Euchre


def test_bid_moon_with_a_monster():
    hands = ("9C TC JC QC KC AC", "JH JD AH KH QH AS", "9D TD QD KD AD 9S", "9H TH TS JS QS KS")
    state = bid_game(hands)
    assert decide(state) == "bid moon"
    script(state, "1:bid moon")
    assert decide(state) == "name H"


def test_bid_passes_with_junk():
    hands = ("JC QC KC AC JH JD", "9C TC 9S TS 9D TD", "QD KD AD AH KH QH", "9H TH JS QS KS AS")
    assert decide(bid_game(hands)) == "pass"


def test_bid_from_a_trick_estimate():
    hands = ("9C TC JC QC KC AC", "JH JD AH 9S TS 9D", "TD QD KD AD KH QH", "9H TH JS QS KS AS")
    choice = decide(bid_game(hands))
    assert choice in ("bid 3", "bid 4")


def test_ace_no_face_with_a_weak_eligible_hand():
    hands = ("JC QC KC JH JD QD", "AC 9C TC 9S TS 9D", "KD AD AH KH QH TD", "9H TH JS QS KS AS")
    assert decide(bid_game(hands, ace_no_face=True)) == "ace no face"


def test_help_exchange_gives_weakest_then_best():
    hands = ("9C TC JC QC KC AC", "JH JD AH KH 9S TS", "9D TD QD KD AD AS", "9H TH QH JS QS KS")
    state = bid_game(hands)
    script(state, "1:bid help", "2:pass", "3:pass", "0:pass", "1:name H")
    assert decide(state) == "give 9S"
    script(state, "1:give 9S")
    assert decide(state) == "give QH"  # seat 3's best trump is forced


# ============================================================================ strength


def duplicate_margin(n_deals: int, preset: str = "knock", seed: int = 0) -> float:
    """Average points per hand of a rule-based team over random players, each deal played twice
    with the teams swapped (duplicate), so the luck of the cards cancels."""
    rules = Rules.preset(preset)
    agent = RuleBasedAgent(seed=0)
    total = 0
    for deal in range(seed, seed + n_deals):
        for rule_team in (0, 1):
            state = GameState(rules, deal)
            rng = np.random.default_rng(deal * 2 + rule_team)
            while not state.hand_over:
                seat = state.current_player
                if seat % 2 == rule_team:
                    info = {"information_state": information_state(state, seat)}
                    action = agent.act(None, info)
                else:
                    legal = state.legal_actions()
                    action = legal[rng.integers(len(legal))]
                state.apply(action)
            points = state.hand_result["points"]
            total += points[rule_team] - points[1 - rule_team]
    return total / (2 * n_deals)


def test_beats_random_players_in_duplicate():
    margin = duplicate_margin(1000)  # 2,000 knock hands
    assert margin > 0.8, margin
