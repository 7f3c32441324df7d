"""VectorEuchre against the reference engine and the AEC env: the same observations, masks, rewards, hand results and
episode ends at every step (tests/differential/kernels_vs_engine.py plays them), and the same deals.

Its twins: the C core's (``euchre_env/compiled/c/engine.h``: ``apply``, ``legal_mask``, ``encode``, the scoring and the
deals of ``compiled._core.Batch``'s ends of hands) of :class:`~euchre_env.game.engine.GameState`,
:mod:`euchre_env.game.scoring` and the observers."""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.rules import Rules
from tests.differential.kernels_vs_engine import RULE_SETS, play, rules_of

# per rule set and observation in CI; tests/differential/kernels_vs_engine.py --hands 100000 is the full run
HANDS = 300


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_identical_to_the_reference_engine(name, observation):
    episode = "game" if observation == "absolute" else "hand"
    counts = play(rules_of(name), observation, episode, HANDS, num_envs=8, seed=11)
    assert counts["hands"] >= HANDS
    if episode == "hand":  # whole games end (and auto-reset) in test_win_rewards_and_the_hand_limit_as_the_env
        assert counts["episodes"] == counts["hands"]


@pytest.mark.parametrize("observation", ["absolute", "structured"])
def test_win_rewards_and_the_hand_limit_as_the_env(observation):
    counts = play(Rules.preset("bid"), observation, "game", 200, num_envs=8, seed=5, reward="win", max_hands=3)
    assert counts["truncated"] > 0 and counts["episodes"] > counts["truncated"] // 2
    counts = play(Rules.preset("knock"), observation, "game", 200, num_envs=8, seed=6, reward="win")
    assert counts["episodes"] > 0 and counts["truncated"] == 0


def test_the_check_catches_a_difference(monkeypatch):
    """The differential check is not vacuous: one flipped observation entry fails it."""
    venv = VectorEuchre("knock", num_envs=4, seed=0)
    step = venv.step

    def corrupted(actions):
        out = step(actions)
        out[0][2, 100] += 1.0
        return out

    monkeypatch.setattr(venv, "step", corrupted)
    with pytest.raises(AssertionError, match="observation differs"):
        play(venv.rules, "absolute", "hand", 50, venv=venv)


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("preset", ["knock", "multiplayer", "bid"])
def test_scripted_deals_play_as_in_the_env(preset, observation):
    """Through the env's own API: the same scripted deal and actions give the same observations, masks,
    rewards and hand result."""
    seeds = [3, 4]
    probe = VectorEuchre(preset, num_envs=2, seed=99)
    probe.reset()
    deals = [probe.current_deal(g) for g in range(2)]
    venv = VectorEuchre(preset, num_envs=2, observation=observation)
    obs, mask, seat = venv.reset(options={"deals": deals})
    assert [venv.current_deal(g) for g in range(2)] == deals
    envs = []
    for g in range(2):
        env = euchre_env.raw_env(rules=preset, episode="hand", observation=observation)
        env.reset(seed=seeds[g], options={"deal": deals[g]})
        envs.append(env)
    rng = np.random.default_rng(0)
    finished = [False, False]
    while not all(finished):
        actions = np.zeros(2, np.int64)
        for g, env in enumerate(envs):
            if finished[g]:
                actions[g] = rng.choice(np.flatnonzero(mask[g]))
                continue
            agent = env.agent_selection
            seen = env.observe(agent)
            assert seat[g] == env.agent_name_mapping[agent]
            np.testing.assert_array_equal(obs[g], seen["observation"])
            np.testing.assert_array_equal(mask[g], seen["action_mask"].astype(bool))
            actions[g] = rng.choice(np.flatnonzero(mask[g]))
            env.step(int(actions[g]))
        obs, mask, seat, rewards, done, info = venv.step(actions)
        for g, env in enumerate(envs):
            if finished[g] or not all(env.terminations.values()):
                continue
            finished[g] = True
            assert done[g]
            assert rewards[g].tolist() == [env.rewards[a] for a in env.possible_agents]
            assert info["hand_result"][g] == env.infos["player_0"]["hand_result"]
            row = list(info["final_index"]).index(g)
            for s, a in enumerate(env.possible_agents):
                np.testing.assert_array_equal(info["final_observation"][row, s], env.observe(a)["observation"])


@pytest.mark.parametrize("preset, options", [("knock", {}), ("classic", {"deck": 32}), ("bid", {"joker": True}),
                                             ("bid", {"double_deck": True})])
def test_the_kernels_deals_are_laid_out_as_the_engines(preset, options):
    """shuffled_deals shuffles in the kernel but lays the cards out as deals.deal_from_order does: with zero
    uniforms (no swap) it deals a given order exactly as the engine deals that order."""
    from euchre_env.compiled.batch import core
    from euchre_env.game.deals import deal_from_order

    rules = Rules.preset(preset, **options)
    extra = rules.is_bid and rules.joker
    rng = np.random.default_rng(5)
    for dealer in range(4):
        order = rng.permutation(np.asarray(rules.deck_spec.pack, np.int16))
        cards = np.full((1, 4, rules.hand_size + extra), -1, np.int16)
        upcard = np.empty(1, np.int32)
        core.shuffled_deals(np.zeros((1, order.size)), order, np.array([dealer]), rules.hand_size, extra,
                            rules.is_bid, cards, upcard)
        want = deal_from_order(rules, order.tolist(), dealer)
        assert [[c for c in hand if c >= 0] for hand in cards[0].tolist()] == want["hands"]
        assert (int(upcard[0]) if not rules.is_bid else None) == want.get("upcard")
