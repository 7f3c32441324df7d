"""VectorEuchre: safe against bad input, seeded, its random draws; its equality with the reference engine and the env is
tests/differential/test_vector_euchre_vs_engine.py."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.envs.vector import VectorEuchre


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
    ({"num_envs": 0}, "'num_envs' must be an int from 1 to 1,048,576, got 0"),
    ({"num_envs": 10**12}, "'num_envs' must be an int from 1 to 1,048,576, got 1000000000000"),
    ({"threads": 10**9}, r"'threads' must be an int from 1 to 256 or None \(every core\), got 1000000000"),
    ({"observation": "pixels"}, "'observation' must be one of"),
    ({"episode": "rubber"}, "'episode' must be one of"),
    ({"reward": "money"}, "'reward' must be one of"),
    ({"trumps": 5}, "VectorEuchre\\(\\) got an unexpected keyword argument 'trumps'; its arguments: rules, num_envs"),
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


def test_random_actions_pick_the_legal_id_the_uniform_falls_on():
    """The benchmarks' random policy: with ``k`` legal ids, a uniform ``u`` picks the ``int(u * k)``-th of them, on one
    thread and in slices on several."""
    from euchre_env.compiled import kernels as K
    from euchre_env.compiled.batch import core
    from euchre_env.compiled.native import run_slices

    rng = np.random.default_rng(11)
    mask = rng.random((500, 59)) < 0.1
    mask[np.arange(500), rng.integers(59, size=500)] = True  # every row allows something
    u = rng.random(500)
    u[:2] = [0.0, 0.999999]  # the first and the last legal id
    want = [np.flatnonzero(m)[int(x * m.sum())] for m, x in zip(mask, u)]
    picks = [K.random_actions, K.random_actions_serial,
             *(lambda m, x, o, t=threads: run_slices(core.random_actions, 500, t, m, x, o) for threads in (2, 3))]
    for pick in picks:
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
