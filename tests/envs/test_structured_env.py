"""The envs' ``observation`` option: the absolute default is unchanged, "structured" passes the API checks,
shows canonical masks and takes canonical ids, and the single-seat env's opponents stay on the agent protocol."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils import env_checker
from pettingzoo.test import api_test

import euchre_env
from euchre_env.envs.single_seat import SingleSeatAEC, SingleSeatEnv
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.views.decision import legal_mask
from euchre_env.views.observation import Observer
from euchre_env.views.structured import StructuredObserver

CONFIGS = [("knock", {}), ("multiplayer", {"joker": True}), ("bid", {}), ("bid", {"double_deck": True}),
           ("classic", {"deck": 32, "rubber": True, "game_target": 5})]
IDS = [f"{p}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for p, kw in CONFIGS]


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_api_test_passes_structured(preset, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's soft warnings (e.g. all-zero masks)
        api_test(euchre_env.env(rules=preset, observation="structured", **kwargs), num_cycles=150)
        api_test(SingleSeatAEC(SingleSeatEnv(preset, observation="structured", team=0, **kwargs)), num_cycles=60)


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS[:3], ids=IDS[:3])
def test_check_env_passes_structured(preset, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env_checker.check_env(SingleSeatEnv(preset, observation="structured", **kwargs), skip_render_check=True)


def test_pickled_envs_keep_the_option():
    env = pickle.loads(pickle.dumps(euchre_env.env(rules="bid", observation="structured")))
    assert env.unwrapped.observation == "structured" and isinstance(env.unwrapped.observer, StructuredObserver)
    single = pickle.loads(pickle.dumps(SingleSeatEnv("knock", observation="structured")))
    assert single.observation == "structured" and isinstance(single.agent_observer, Observer)


def test_bad_option_is_one_line():
    for make in (lambda: euchre_env.env(observation="canonical"), lambda: SingleSeatEnv(observation=1)):
        with pytest.raises(ValueError, match=r"^'observation' must be one of \['absolute', 'structured'\], got"):
            make()


@pytest.mark.parametrize("preset", euchre_env.PRESETS)
def test_absolute_default_is_the_observer_byte_for_byte(preset):
    env = euchre_env.raw_env(rules=preset)
    observer = Observer(env.rules)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if env.terminations[env.agent_selection]:
            break
        for agent in env.agents:
            expected = observer.encode(env.game, env.agent_name_mapping[agent])
            assert env.observe(agent)["observation"].tobytes() == expected.tobytes()
        mask = env.infos[env.agent_selection]["action_mask"]
        assert np.array_equal(mask, legal_mask(env.game)) and "suit_order" not in env.infos[env.agent_selection]
        a = int(rng.choice(np.flatnonzero(mask)))
        assert env.to_absolute_action(a) == a == env.to_canonical_action(a)
        env.step(a)
    assert env.observation_layout == observer.layout


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_structured_steps_apply_the_mapped_absolute_action(preset, kwargs):
    env = euchre_env.raw_env(rules=preset, observation="structured", **kwargs)
    enc = StructuredObserver(env.rules)
    assert env.observation_layout == enc.layout
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(120):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seat = env.agent_name_mapping[agent]
        vec, frame = enc.encode_with_frame(env.game, seat)
        obs = env.observe(agent)
        info = env.infos[agent]
        assert np.array_equal(obs["observation"], vec) and info["suit_order"] == frame.suit_order == env.suit_order
        assert np.array_equal(obs["action_mask"], frame.canonical_mask(legal_mask(env.game)))
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert env.legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
        other = env.possible_agents[(seat + 1) % 4]
        assert np.array_equal(env.observe(other)["observation"], enc.encode(env.game, (seat + 1) % 4))
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        absolute = env.to_absolute_action(a)
        assert env.to_canonical_action(absolute) == a
        assert env.action_to_str(absolute) == env.table.to_str(frame.to_absolute_action(a))
        hand = env.game.hand_number
        env.step(a)
        if env.game.hand_number == hand and env.game.history:
            assert env.game.history[-1][2] == absolute


def test_structured_refuses_an_illegal_canonical_id_in_canonical_words():
    env = euchre_env.raw_env(rules="knock", observation="structured")
    env.reset(seed=0)
    bad = int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"] == 0)[-1])
    with pytest.raises(ValueError, match="canonical frame"):
        env.step(bad)


def test_single_seat_structured_learner_and_absolute_opponents():
    seen = []

    def opponent(observation, info):
        """Checks the agent protocol at once: absolute mask, absolute Observer encoding."""
        state = env.state
        assert np.array_equal(observation["action_mask"], legal_mask(state))
        assert np.array_equal(observation["observation"], absolute.encode(state, state.current_player))
        seen.append(info["information_state"].seat)
        return int(np.flatnonzero(observation["action_mask"])[0])

    absolute = Observer(Rules.preset("knock"))
    env = SingleSeatEnv("knock", opponents=opponent, observation="structured", episode="game")
    enc = StructuredObserver(env.rules)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(80):
        state = env.state
        vec, frame = enc.encode_with_frame(state, env.acting_seat)
        assert np.array_equal(obs["observation"], vec) and info["suit_order"] == frame.suit_order
        assert np.array_equal(env.action_masks(), frame.canonical_mask(legal_mask(state)).view(bool))
        assert env.legal_actions() == np.flatnonzero(env.action_masks()).tolist()
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        expected = env.to_absolute_action(a)
        before, hand = len(state.history), state.hand_number
        obs, _, terminated, truncated, info = env.step(a)
        if state.hand_number == hand:
            assert state.history[before][2] == expected
        if terminated or truncated:
            break
    assert set(seen) == {1, 2, 3}


def test_single_seat_structured_raise_mode_and_helpers():
    env = SingleSeatEnv("bid", observation="structured", illegal_action="raise")
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
    with pytest.raises(ValueError, match="canonical frame"):
        env.step(bad)
    aec = SingleSeatAEC(env)
    assert aec.to_canonical_action(aec.to_absolute_action(bad)) == bad
    assert env.suit_order == info["suit_order"]


def test_no_frame_without_a_decision():
    env = euchre_env.raw_env(rules="knock", observation="structured")
    with pytest.raises(ValueError, match="no decision"):
        env.to_absolute_action(0)
    state = GameState(env.rules, 0)
    assert StructuredObserver(env.rules).frame(state, 0).suit_order[0] == "CDHS"[state.upcard_suit]
