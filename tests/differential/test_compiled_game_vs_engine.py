"""The AEC env steps its game on the compiled core: equal to the reference engine and its observers at every step."""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from tests.differential.kernels_vs_engine import RULE_SETS, play_env, rules_of

# per rule set and observation in CI; tests/differential/kernels_vs_engine.py --env --hands 100000 is the full run
HANDS = 150


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_env_identical_to_the_reference_engine(name, observation):
    episode = "game" if observation == "absolute" else "hand"
    counts = play_env(rules_of(name), observation, episode, HANDS, seed=13, replay_every=41)
    assert counts["hands"] >= HANDS
    if episode == "hand":  # whole games end (or are cut) in test_env_win_rewards_and_the_hand_limit
        assert counts["episodes"] == counts["hands"]


@pytest.mark.parametrize("observation", ["absolute", "structured"])
def test_env_win_rewards_and_the_hand_limit(observation):
    counts = play_env(Rules.preset("bid"), observation, "game", 120, seed=5, reward="win", max_hands=3)
    assert counts["truncated"] > 0 and counts["episodes"] > counts["truncated"] // 2


def test_the_replayed_game_follows_every_step_once_read():
    env = euchre_env.raw_env(rules="classic", episode="game", info_state=True)
    env.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(200):  # several hands: info_state reads the reference state at every decision
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        info = env.infos[agent]
        assert info["information_state"] == env.information_state(agent)
        assert env.game.legal_actions() == env.legal_actions()
        env.step(int(rng.choice(env.legal_actions())))
    assert env.game.hand_number == env.hand_number >= 3


def test_masks_of_seats_not_to_act_are_read_only_zeros():
    env = euchre_env.env(rules="knock")
    env.reset(seed=1)
    other = env.possible_agents[(env.possible_agents.index(env.agent_selection) + 1) % 4]
    mask = env.observe(other)["action_mask"]
    assert not mask.any()
    with pytest.raises(ValueError, match="read-only"):
        mask[0] = 1
    acting = env.observe(env.agent_selection)["action_mask"]
    legal = env.legal_actions()
    acting[:] = 0  # the acting seat's mask is a copy of the env's: the rules still allow what they allowed
    assert env.legal_actions() == legal
    env.step(legal[0])
    assert not env.terminations[other]


@pytest.mark.parametrize("preset, options", [("knock", {}), ("bid", {"joker": True}), ("bid", {"double_deck": True})])
def test_seeded_deals_are_the_reference_engines(preset, options):
    """The env draws its deals as GameState does (dealer, then cards, from the same generator): a seed deals
    the same hands as before the compiled core, hand after hand."""
    rules = Rules.preset(preset, **options)
    env = euchre_env.raw_env(rules=rules, episode="game")
    env.reset(seed=42)
    ref = GameState(rules, np.random.default_rng(42))
    rng = np.random.default_rng(1)
    for _ in range(6):  # hands
        deal = env.current_deal()
        assert (deal["dealer"], [sorted(h) for h in deal["hands"]]) == (ref.dealer, ref.initial_hands)
        assert deal.get("upcard") == ref.upcard
        while env.hand_number == ref.hand_number and env.agents:
            action = int(rng.choice(env.legal_actions()))
            ref.apply(action)
            env.step(action)
        if not env.agents or env.terminations[env.agent_selection]:
            break
        ref.next_hand()
