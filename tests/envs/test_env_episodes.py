"""Episodes of both envs (euchre_env.envs.episodes): max_hands truncation, reset options, bad actions, bad scores.

The AEC env (``euchre_env.env`` / ``raw_env``), ``SingleSeatEnv`` and ``SingleSeatAEC`` share
one home for these facts; every test checks the views side by side where they all apply.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import euchre_env
from euchre_env.envs import episodes
from euchre_env.envs.single_seat import SingleSeatAEC, SingleSeatEnv
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.rules import Rules


def _random_aec_episode(env, seed: int) -> dict[str, tuple]:
    """Play ``env`` (AEC) with uniformly random legal actions; agent -> (term, trunc, info, reward) at its end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ends = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            ends[agent] = (term, trunc, dict(info), reward)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return ends


def _random_single_seat_episode(env: SingleSeatEnv, seed: int) -> tuple[float, bool, bool, dict]:
    """(last reward, terminated, truncated, last info) of one random episode."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        _, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            return reward, term, trunc, info


# ---------------------------------------------------------------------------------- max_hands
def test_random_bid_games_terminate_or_truncate_within_the_default():
    env = euchre_env.env(rules="bid")
    assert env.unwrapped.max_hands == episodes.AUTO_MAX_HANDS == 200
    outcomes = []
    for seed in range(4):
        ends = _random_aec_episode(env, seed)
        game = env.unwrapped.game
        assert set(ends) == set(env.possible_agents) and game.hand_number + 1 <= 200
        terms = {term for term, _, _, _ in ends.values()}
        truncs = {trunc for _, trunc, _, _ in ends.values()}
        assert len(terms) == len(truncs) == 1 and terms != truncs  # every agent alike: one or the other
        if truncs == {True}:
            assert game.hand_number + 1 == 200 and game.winner is None
            assert {info["truncated"] for _, _, info, _ in ends.values()} == {"max_hands"}
        else:
            assert game.is_over and all("truncated" not in info for _, _, info, _ in ends.values())
        outcomes.append(truncs == {True})
    assert outcomes == [True, False, True, True]  # random bidders rarely finish a game; seed 1 does


def test_max_hands_override_and_none():
    env = euchre_env.raw_env(rules="bid", max_hands=3)
    _random_aec_episode(env, 0)
    assert env.game.hand_number == 2 and env.game.winner is None  # truncated after its third hand
    unlimited = euchre_env.raw_env(rules="bid", max_hands=None)
    assert unlimited.max_hands is None
    unlimited.reset(seed=0)
    rng = np.random.default_rng(0)
    while unlimited.game.hand_number < 210:  # seed 0 is truncated at 200 by default (test above)
        assert not any(unlimited.truncations.values()) and not any(unlimited.terminations.values())
        unlimited.step(int(rng.choice(np.flatnonzero(unlimited.observe(unlimited.agent_selection)["action_mask"]))))


def test_truncated_game_is_not_won_and_the_last_hand_still_pays():
    win = _random_aec_episode(euchre_env.env(rules="bid", reward="win", max_hands=2), 5)
    assert all(trunc and not term and reward == 0.0 for term, trunc, _, reward in win.values())
    env = euchre_env.raw_env(rules="bid", max_hands=1)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    points = env.game.hand_result["points"]
    assert env.rewards["player_0"] == points[0] - points[1] == -env.rewards["player_1"]
    assert all(env.infos[a]["truncated"] == "max_hands" for a in env.agents)
    assert env.game.phase == euchre_env.Phase.HAND_OVER  # the last hand stays on the table


@pytest.mark.parametrize(
    ("rules", "options", "episode", "limit"),
    [
        ("bid", {}, "game", 200),
        ("bid", {}, "hand", None),
        ("bid", {"game_target": 64}, "game", 400),
        ("bid", {"game_target": 5}, "game", 200),
        ("knock", {}, "game", None),
        ("classic", {"rubber": True}, "game", None),
        ("classic", {"renege": "penalize"}, "game", 200),  # random reneges never let a game end
    ],
)
def test_auto_max_hands_only_for_games_that_need_not_end(rules, options, episode, limit):
    assert euchre_env.raw_env(rules=rules, episode=episode, **options).max_hands == limit
    assert SingleSeatEnv(rules, episode=episode, **options).max_hands == limit
    assert episodes.auto_max_hands(Rules.preset(rules, **options), episode) == limit


def test_single_seat_env_default_episode_is_a_hand_and_a_game_truncates():
    assert SingleSeatEnv("bid").max_hands is None  # episode="hand" by default
    env = SingleSeatEnv("bid", episode="game", reward="win", max_hands=2, team=0)
    reward, term, trunc, info = _random_single_seat_episode(env, 3)
    assert trunc and not term and reward == 0.0 and info["truncated"] == "max_hands"
    assert env.state.hand_number == 1 and env.state.winner is None and not env.action_masks().any()
    aec = SingleSeatAEC(SingleSeatEnv("bid", episode="game", max_hands=2))
    ends = _random_aec_episode(aec, 3)
    assert set(ends) == {"player_0"} and ends["player_0"][:2] == (False, True)
    assert set(ends["player_0"][2]) == {"action_mask", "seat", "illegal_action"}  # fixed keys (Tianshou)


def test_max_steps_truncation_names_its_limit():
    env = euchre_env.raw_env(rules="knock", max_steps=2)
    env.reset(seed=0)
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert all(env.truncations.values()) and {i["truncated"] for i in env.infos.values()} == {"max_steps"}
    single = SingleSeatEnv("knock", episode="game", max_steps=1)
    single.reset(seed=0)
    _, _, term, trunc, info = single.step(single.legal_actions()[0])
    assert trunc and not term and info["truncated"] == "max_steps"


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "200", "Auto"])
def test_bad_max_hands_gets_one_line(bad):
    message = "^" + re.escape(f"'max_hands' must be a positive int, 'auto' or None, got {bad!r}") + "$"
    with pytest.raises(ValueError, match=message):
        euchre_env.env(rules="bid", max_hands=bad)
    with pytest.raises(ValueError, match="'max_hands' must be"):
        SingleSeatEnv("bid", episode="game", max_hands=bad)


def test_max_hands_survives_pickling():
    env = euchre_env.env(rules="bid", max_hands=7)
    assert pickle.loads(pickle.dumps(env)).unwrapped.max_hands == 7


# ---------------------------------------------------------------------------------- reset options
def test_an_unknown_reset_option_warns_in_every_view():
    known = r"\['shuffle'\]; known: \['deal', 'scores'\]"
    for env in (euchre_env.raw_env(), SingleSeatAEC(SingleSeatEnv()), SingleSeatEnv()):
        with pytest.warns(UserWarning, match=rf"^ignoring unknown reset option\(s\) {known}$"):
            env.reset(seed=0, options={"shuffle": True})
    with pytest.warns(UserWarning, match=r"^ignoring unknown reset option\(s\) \['shuffle'\]; known: \['deals'\]$"):
        VectorEuchre("knock", num_envs=2).reset(seed=0, options={"shuffle": True})
    for env in (euchre_env.raw_env(), SingleSeatEnv()):
        with pytest.raises(ValueError, match=r"reset 'options' must be a dict"):
            env.reset(seed=0, options=[("scores", [1, 2])])


# ---------------------------------------------------------------------------------- scripted scores
def test_bad_scores_change_nothing_in_either_env():
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=1)
    game, agent = env.game, env.agent_selection
    with pytest.raises(ValueError, match=r"^'scores' \[8, 12\]: the game would already be over"):
        env.reset(seed=99, options={"scores": [8, 12]})
    assert env.game is game and env.agent_selection == agent
    env.reset()  # the generator was not reseeded by the failed reset
    fresh = euchre_env.raw_env(rules="knock")
    fresh.reset(seed=1)
    fresh.reset()
    assert env.game.hands == fresh.game.hands

    single, twin = SingleSeatEnv("bid", episode="game"), SingleSeatEnv("bid", episode="game")
    single.reset(seed=2)
    twin.reset(seed=2)
    with pytest.raises(ValueError, match=r"^'scores' \[40, 2\]: the game would already be over"):
        single.reset(seed=50, options={"scores": [40, 2]})
    assert single.reset()[0]["observation"].tobytes() == twin.reset()[0]["observation"].tobytes()
    assert single.reset(options={"scores": [33, 33]})[0] is not None  # a tie past 32 plays on


# ---------------------------------------------------------------------------------- bad actions
def _views():
    raw = euchre_env.raw_env(rules="knock")
    wrapped = euchre_env.env(rules="knock")
    single = SingleSeatEnv("knock")
    aec = SingleSeatAEC(SingleSeatEnv("knock"))
    for view in (raw, wrapped, single, aec):
        view.reset(seed=0)
    return {"raw_env": raw, "env": wrapped, "SingleSeatEnv": single, "SingleSeatAEC": aec}


@pytest.mark.parametrize("view", ["raw_env", "env", "SingleSeatEnv", "SingleSeatAEC"])
@pytest.mark.parametrize(
    ("action", "message"),
    [
        (999, r"^action 999 is out of range 0\.\.58$"),
        (-1, r"^action -1 is out of range 0\.\.58$"),
        ("pass", r"^actions are integer ids, got 'pass'; use env\.unwrapped\.str_to_action\('pass'\) \(= 0\)$"),
        ("order up", r"^actions are integer ids, got 'order up'; and 'order up' is no action of these rules either; "
                     r"forms: pass, order"),
        (1.0, r"^actions are integer ids 0\.\.58, got 1\.0$"),
        (True, r"^actions are integer ids 0\.\.58, got True$"),
    ],
)
def test_an_action_that_is_no_id_gets_one_line_and_changes_nothing(view, action, message):
    env = _views()[view]
    raw = env.unwrapped
    state = raw.game if view in ("raw_env", "env") else (raw.env.state if view == "SingleSeatAEC" else raw.state)
    before = (pickle.dumps(state), env.agent_selection if hasattr(env, "agent_selection") else None)
    with pytest.raises(ValueError, match=message):
        env.step(action)
    assert (pickle.dumps(state), env.agent_selection if hasattr(env, "agent_selection") else None) == before
    assert env.unwrapped.str_to_action("pass") == 0  # the conversion the message points to exists


def test_none_for_an_agent_to_act_is_refused_by_both_aec_views():
    for env in (euchre_env.raw_env(), euchre_env.env()):
        env.reset(seed=0)
        with pytest.raises(ValueError, match=r"got None \(None is only for an agent that is done\)$"):
            env.step(None)


def test_numpy_ids_are_actions():
    views = _views()
    for name in ("raw_env", "env"):
        env = views[name]
        agent = env.agent_selection
        env.step(np.int64(env.unwrapped.legal_actions()[0]))
        assert env.agent_selection != agent
    single = views["SingleSeatEnv"]
    _, _, _, _, info = single.step(np.array([single.legal_actions()[0]]))  # a batch of one
    assert info["illegal_action"] is False
