"""VectorEuchre: equal to the reference engine and the env at every step, and safe against bad input."""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.rules import Rules
from tests.differential.vector_differential import RULE_SETS, play, rules_of

# per rule set and observation in CI; tests/differential/vector_differential.py --hands 100000 is the full run
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


def _snapshot(venv):
    return [a.copy() for a in (venv._st, venv._hands, venv._tc, venv._ts, venv._calls)]


def test_an_illegal_action_names_the_game_and_changes_nothing():
    venv = VectorEuchre("knock", num_envs=3, seed=1, observation="structured")
    _, mask, _ = venv.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in mask])
    actions[1] = np.flatnonzero(~mask[1])[0]
    before = _snapshot(venv)
    with pytest.raises(ValueError, match=r"illegal action in game 1: .*legal ids: \[.*no game was changed"):
        venv.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, _snapshot(venv)))
    actions[1] = np.flatnonzero(mask[1])[0]
    venv.step(actions)  # and play goes on


@pytest.mark.parametrize("actions, message", [
    (np.zeros(2, np.int64), "must be 3 integer action ids"),
    (np.zeros(3, np.float32), "must be 3 integer action ids"),
    (np.array([0, 0, 99]), "out of range 0..58"),
    (np.array([0, 0, -1]), "out of range 0..58"),
])
def test_malformed_actions_get_one_line(actions, message):
    venv = VectorEuchre("knock", num_envs=3, seed=1)
    _, mask, _ = venv.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in mask])
    if actions.shape == (3,) and np.issubdtype(actions.dtype, np.integer):
        actions = np.where(actions == 0, legal, actions)
    with pytest.raises(ValueError, match=message) as err:
        venv.step(actions)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_envs": 0}, "'num_envs' must be a positive int"),
    ({"observation": "pixels"}, "'observation' must be one of"),
    ({"episode": "rubber"}, "'episode' must be one of"),
    ({"reward": "money"}, "'reward' must be one of"),
    ({"trumps": 5}, "unknown rules option 'trumps'"),
    ({"rules": "rook"}, "unknown preset 'rook'"),
])
def test_bad_construction_gets_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VectorEuchre(**{"rules": "knock", "num_envs": 2, **kwargs})


def test_bad_deals_are_refused_before_anything_changes():
    venv = VectorEuchre("knock", num_envs=2, seed=1)
    venv.reset()
    good = [venv.current_deal(0), venv.current_deal(1)]
    before = _snapshot(venv)
    bad = dict(good[1], upcard=good[1]["hands"][0][0])
    with pytest.raises(ValueError, match=r"deals\[1\]: deal: card .* is dealt 2 times"):
        venv.reset(options={"deals": [good[0], bad]})
    with pytest.raises(ValueError, match="must be a list of 2 deals"):
        venv.reset(options={"deals": good[:1]})
    assert all(np.array_equal(a, b) for a, b in zip(before, _snapshot(venv)))
    # an unknown option is ignored with a warning, as in every view (PettingZoo's api_test passes one)
    with pytest.warns(UserWarning, match=r"ignoring unknown reset option\(s\) \['deal'\]; known: \['deals'\]"):
        venv.reset(options={"deal": good[0]})
    with pytest.raises(ValueError, match="step\\(\\) before reset\\(\\)"):
        VectorEuchre("knock", num_envs=1).step(np.zeros(1, np.int64))


def test_seeded_runs_repeat():
    def run(seed):
        venv = VectorEuchre("classic", num_envs=16, seed=seed, observation="structured")
        obs, mask, _ = venv.reset()
        rng = np.random.default_rng(0)
        total = np.zeros(4)
        for _ in range(60):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, _, rewards, _, _ = venv.step(actions)
            total += rewards.sum(0)
        return obs, total

    a, b, c = run(1), run(1), run(2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_without_observation_the_masks_and_results_are_the_same():
    """observation="none" plays the very same games (same seed, same actions): only the encoding is skipped."""
    runs = []
    for observation in ("absolute", "none"):
        venv = VectorEuchre("multiplayer", num_envs=8, seed=3, observation=observation)
        obs, mask, seat = venv.reset()
        rng = np.random.default_rng(0)
        log = []
        for _ in range(80):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, seat, rewards, done, info = venv.step(actions)
            log.append((mask.copy(), seat.copy(), rewards.copy(), done.copy(), dict(info["hand_result"])))
        runs.append(log)
        assert obs.shape == ((8, 0) if observation == "none" else (8, venv.obs_size))
    for a, b in zip(*runs):
        assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4])) and a[4] == b[4]


@pytest.mark.parametrize("preset, options", [("knock", {}), ("classic", {"deck": 32}), ("bid", {"joker": True}),
                                             ("bid", {"double_deck": True})])
def test_the_kernels_deals_are_laid_out_as_the_engines(preset, options):
    """shuffled_deals shuffles in the kernel but lays the cards out as deals.deal_from_order does: with zero
    uniforms (no swap) it deals a given order exactly as the engine deals that order."""
    from euchre_env.compiled import kernels as K
    from euchre_env.game.deals import deal_from_order

    rules = Rules.preset(preset, **options)
    extra = rules.is_bid and rules.joker
    rng = np.random.default_rng(5)
    for dealer in range(4):
        order = rng.permutation(np.asarray(rules.deck_spec.pack, np.int16))
        cards = np.full((1, 4, rules.hand_size + extra), -1, np.int16)
        upcard = np.empty(1, np.int32)
        K.shuffled_deals(np.zeros((1, order.size)), order, np.array([dealer]), rules.hand_size, extra,
                         rules.is_bid, cards, upcard)
        want = deal_from_order(rules, order.tolist(), dealer)
        assert [[c for c in hand if c >= 0] for hand in cards[0].tolist()] == want["hands"]
        assert (int(upcard[0]) if not rules.is_bid else None) == want.get("upcard")


def test_random_actions_pick_the_legal_id_the_uniform_falls_on():
    """The benchmarks' random policy: with ``k`` legal ids, a uniform ``u`` picks the ``int(u * k)``-th of them."""
    from euchre_env.compiled import kernels as K

    rng = np.random.default_rng(11)
    mask = rng.random((500, 59)) < 0.1
    mask[np.arange(500), rng.integers(59, size=500)] = True  # every row allows something
    u = rng.random(500)
    u[:2] = [0.0, 0.999999]  # the first and the last legal id
    want = [np.flatnonzero(m)[int(x * m.sum())] for m, x in zip(mask, u)]
    for pick in (K.random_actions, K.random_actions_serial):
        out = np.full(500, -1, np.int64)
        pick(mask, u, out)
        assert out.tolist() == want


@pytest.mark.parametrize("threads", [1, 2])
def test_sample_legal_draws_uniformly_among_each_games_legal_actions(threads):
    venv = VectorEuchre("bid", num_envs=64, seed=3, observation="none", threads=threads)
    with pytest.raises(ValueError, match=r"sample_legal\(\) before reset\(\)"):
        venv.sample_legal()
    _, mask, _ = venv.reset()
    counts = np.zeros(mask.shape, np.int64)
    for _ in range(300):  # the same decisions, drawn again and again
        actions = venv.sample_legal(np.random.default_rng(len(counts) + _))
        assert mask[np.arange(64), actions].all()
        counts[np.arange(64), actions] += 1
    share = counts[mask] / 300
    legal = np.repeat(mask.sum(1), mask.sum(1))
    assert np.allclose(share, 1 / legal, atol=0.12)  # about 1/k each of a game's k legal actions
    for _ in range(50):  # and it plays: every draw is legal as the games go on
        _, mask, _, _, _, _ = venv.step(venv.sample_legal())
    again = VectorEuchre("bid", num_envs=64, seed=3, observation="none", threads=threads)
    again.reset()
    first = VectorEuchre("bid", num_envs=64, seed=3, observation="none", threads=threads)
    first.reset()
    assert np.array_equal(again.sample_legal(), first.sample_legal())  # the env's own generator, seeded
