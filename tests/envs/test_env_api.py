"""PettingZoo conformance: api_test, seed_test, render_test, registry, pickling, bad input."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, render_test, seed_test

import euchre_env
from euchre_env.envs.wrappers import standard_wrappers

CONFIGS = [
    ("knock", {}),
    ("classic", {}),
    ("multiplayer", {}),
    ("bid", {}),
    ("knock", {"episode": "hand"}),
    ("classic", {"joker": True}),
    ("classic", {"deck": 32}),
    ("classic", {"rubber": True, "game_target": 5}),
    ("classic", {"joker": True, "deck": 32, "renege": "penalize"}),
    ("knock", {"dealer_partner_must_go_alone": True}),
    ("multiplayer", {"stick_the_dealer": True, "reward": "win"}),
    ("knock", {"lone_maker": False}),
    ("bid", {"stick_the_dealer": True, "ace_no_face": True}),
    ("bid", {"joker": True}),
    ("bid", {"double_deck": True}),
    ("bid", {"renege": "penalize", "episode": "hand"}),
]
IDS = [f"{p}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for p, kw in CONFIGS]


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_api(preset, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's soft warnings (e.g. all-zero masks)
        api_test(euchre_env.env(rules=preset, **kwargs), num_cycles=250)


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_seed(preset, kwargs):
    seed_test(lambda **kw: euchre_env.env(rules=preset, **kwargs, **kw), num_cycles=250)


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS[:4], ids=IDS[:4])
def test_render(preset, kwargs, capsys):
    render_test(lambda render_mode=None: euchre_env.env(rules=preset, render_mode=render_mode, **kwargs))


def test_registry_make():
    env = pettingzoo.make("aec", "euchre/euchre_v0", rules="classic", joker=True)
    assert env.unwrapped.rules.preset_name == "classic" and env.unwrapped.rules.joker
    env.reset(seed=3)
    assert env.agent_selection in env.possible_agents


def _play(env, seed, steps=400):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter(steps):
        obs, rew, term, trunc, _info = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, action, rew, obs["observation"].tobytes()))
        env.step(action)
    return trace


def test_pickle_round_trip():
    env = euchre_env.env(rules="multiplayer")
    clone = pickle.loads(pickle.dumps(env))
    assert _play(env, 11) == _play(clone, 11)


def test_pickle_mid_game_raw_env_keeps_rules():
    env = euchre_env.raw_env(rules="classic", joker=True, game_target=7)
    env.reset(seed=2)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.rules == env.rules


def test_same_seed_same_game_and_different_seed_differs():
    a = _play(euchre_env.env(rules="knock"), 5)
    b = _play(euchre_env.env(rules="knock"), 5)
    c = _play(euchre_env.env(rules="knock"), 6)
    assert a == b
    assert a != c


def test_reset_without_seed_continues_the_generator():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=1)
    first = [list(h) for h in env.game.hands]
    env.reset()
    assert [list(h) for h in env.game.hands] != first


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"rules": "hearts"}, "unknown preset 'hearts'"),
        ({"rules": "knock", "game_target": 0}, "game_target"),
        ({"rules": "knock", "trump_on_table": True}, "unexpected keyword argument 'trump_on_table'; its arguments"),
        ({"rules": "knock", "lone_maker": False, "defend_alone": True}, "defend_alone"),
        ({"rules": "knock", "deck": 36}, "deck"),
        ({"rules": "knock", "renege": "ignore"}, "renege"),
        ({"rules": "knock", "episode": "match"}, "episode"),
        ({"rules": "knock", "reward": "tricks"}, "reward"),
        ({"rules": "knock", "max_steps": 0}, "max_steps"),
        ({"rules": "bid", "lone_maker": True}, "lone_maker"),
        ({"rules": "classic", "double_deck": True}, "double_deck"),
    ],
)
def test_bad_options_name_the_option(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        euchre_env.raw_env(**kwargs)


def test_bad_deal_leaves_previous_episode_untouched():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=0)
    before = (env.agent_selection, [list(h) for h in env.game.hands])
    bad = {"dealer": 0, "hands": [["9C", "TC", "JC", "QC", "KC"]] * 4, "upcard": "AH"}
    with pytest.raises(ValueError, match="9C"):
        env.reset(options={"deal": bad})
    assert (env.agent_selection, [list(h) for h in env.game.hands]) == before


def test_unknown_reset_option_warns_with_its_name():
    env = euchre_env.raw_env(rules="knock")
    with pytest.warns(UserWarning, match="'shuffle'"):
        env.reset(seed=0, options={"shuffle": False})


def test_illegal_action_raw_env_raises_and_keeps_state():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=4)
    snapshot = pickle.dumps(env.game)
    agent = env.agent_selection
    bad = env.str_to_action("play 9C")
    with pytest.raises(ValueError, match="legal: pass, order, order alone"):
        env.step(bad)
    assert pickle.dumps(env.game) == snapshot
    assert env.agent_selection == agent


def test_illegal_action_wrapped_env_terminates_with_penalty():
    env = euchre_env.env(rules="knock")
    env.reset(seed=4)
    agent = env.agent_selection
    env.last()  # the wrapper reads the mask of the last observation
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(env.unwrapped.str_to_action("play 9C"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1


def test_action_strings_round_trip_and_errors():
    for preset in euchre_env.PRESETS:
        env = euchre_env.raw_env(rules=preset)
        for a in range(env.action_space("player_0").n):
            assert env.str_to_action(env.action_to_str(a)) == a
    env = euchre_env.raw_env(rules="knock")
    assert env.str_to_action("PLAY 10h") == env.str_to_action("play TH")
    for bad in ("order up", "play ZZ", "name X", "bid 3"):
        with pytest.raises(ValueError):
            env.str_to_action(bad)


def test_mask_mirrored_in_info_and_zero_for_others():
    env = euchre_env.env(rules="knock")
    env.reset(seed=9)
    for _ in range(30):
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            break
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() > 0
        for other in env.agents:
            if other != agent:
                assert env.observe(other)["action_mask"].sum() == 0
                assert env.infos[other]["action_mask"].sum() == 0
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def _choose(obs, dead: bool, illegal: bool, rng: np.random.Generator) -> int | None:
    """None for a dead agent, an illegal action when asked for one, else a random legal one."""
    if dead:
        return None
    if illegal:
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def _step_quietly(env, action: int | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TerminateIllegal's warning on the illegal move
        env.step(action)


def _stock_env(**kwargs):
    from pettingzoo.utils import wrappers

    e = euchre_env.raw_env(**kwargs)
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(e, illegal_reward=-1))
    )


@pytest.mark.parametrize("illegal_at", [None, 7])
def test_fast_wrappers_behave_like_pettingzoo_stock_wrappers(illegal_at):
    """euchre_env.env() forwards hot attributes with properties; everything observable is PettingZoo's."""

    def trace(env):
        env.reset(seed=21)
        rng = np.random.default_rng(0)
        out = []
        for i, agent in enumerate(env.agent_iter(300)):
            obs, rew, term, trunc, info = env.last()
            action = _choose(obs, term or trunc, i == illegal_at, rng)
            out.append((agent, action, rew, term, trunc, obs["observation"].tobytes(), sorted(info)))
            _step_quietly(env, action)
        return out, dict(env.rewards), list(env.agents)

    assert trace(euchre_env.env(rules="multiplayer")) == trace(_stock_env(rules="multiplayer"))


def test_wrapped_env_errors_before_reset_as_pettingzoo():
    env = euchre_env.env(rules="knock")
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = env.agent_selection
    assert str(env) == str(_stock_env(rules="knock"))


def test_a_removed_agent_can_still_be_observed_after_an_illegal_move():
    env = euchre_env.env(rules="knock")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))  # illegal: the game ends
    while env.agents:
        env.step(None)
    seen = env.unwrapped.observe(agent)
    assert seen["observation"].shape == env.observation_space(agent)["observation"].shape
    assert not seen["action_mask"].any()


def test_raw_env_without_an_episode_says_so_in_one_line():
    env = euchre_env.raw_env(rules="knock")
    for call, name in ((lambda: env.step(0), "step"), (lambda: env.last(), "last")):
        with pytest.raises(RuntimeError, match=rf"^{name}\(\) before reset\(\): call reset\(\) first$"):
            call()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    for call, name in ((lambda: env.step(0), "step"), (lambda: env.last(), "last")):
        with pytest.raises(RuntimeError, match=rf"^{name}\(\) after the episode ended .*: call reset\(\)$"):
            call()
    env.reset(seed=1)  # and the env plays again
    assert env.agents == env.possible_agents


class _PettingZooDeadStep(euchre_env.raw_env):
    """The raw env with PettingZoo's own ``_was_dead_step``, to compare ours with."""

    _was_dead_step = AECEnv._was_dead_step


@pytest.mark.parametrize(("wrap", "kwargs", "illegal_at"), [
    (False, {"episode": "hand"}, None),
    (False, {"max_steps": 9}, None),
    (True, {"episode": "hand"}, 5),
    (True, {}, None),
])
def test_dead_steps_are_pettingzoos(wrap, kwargs, illegal_at):
    """raw_env._was_dead_step (a faster copy) leaves every attribute as AECEnv._was_dead_step does."""

    def trace(raw):
        env = standard_wrappers(raw) if wrap else raw
        out = []
        for seed in range(3):
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            for i, agent in enumerate(env.agent_iter(400)):
                obs, rew, term, trunc, _ = env.last()
                action = _choose(obs, term or trunc, i == illegal_at, rng)
                _step_quietly(env, action)
                out.append((agent, action, rew, list(raw.agents), raw.agent_selection, dict(raw.rewards),
                            dict(raw._cumulative_rewards), dict(raw.terminations), dict(raw.truncations),
                            sorted(raw.infos), getattr(raw, "_skip_agent_selection", None)))
        return out

    ours = trace(euchre_env.raw_env(rules="knock", **kwargs))
    assert ours == trace(_PettingZooDeadStep(rules="knock", **kwargs))
    assert sum(step[1] is None for step in ours) >= 12  # the dead steps were taken
    with pytest.raises(ValueError, match="only valid action is None"):
        env = euchre_env.raw_env(rules="knock", episode="hand")
        env.reset(seed=0)
        while not env.terminations[env.agent_selection]:
            env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        env._was_dead_step(0)
