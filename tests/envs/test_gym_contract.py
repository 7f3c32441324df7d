"""Gymnasium's contract for the single-seat envs: new data on every call, infos of one type per key (so that
Gymnasium's own vector envs batch them), the registry ids, and a clear error for a num_envs too big to hold."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections import defaultdict
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_returned_data_not_reused
from gymnasium.utils.passive_env_checker import data_shares_objects

import euchre_env
from euchre_env.envs import single_seat_vector
from euchre_env.envs.single_seat import SingleSeatAEC, SingleSeatEnv
from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import typed_hand_result

PRESETS = ["knock", "classic", "multiplayer", "bid"]
ENV_ID = "euchre/SingleSeat-v0"


def passer(observation: dict, info: dict) -> int:
    """Pass whenever it may, else the first legal action: the calling rounds go round empty, so classic,
    multiplayer and bid hands are thrown in (a hand result without maker, trump or contract)."""
    mask = observation["action_mask"]
    return 0 if mask[0] else int(np.flatnonzero(mask)[0])  # id 0 is "pass" in every action table


def learner_action(mask: np.ndarray, passes: bool, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    if not legal.size:  # the episode ended: SyncVectorEnv's next step resets this env and ignores the action
        return 0
    return 0 if passes and mask[0] else int(rng.choice(legal))


class IllegalSampler(spaces.Discrete):
    """A Discrete space whose samples are illegal in ``env``'s current decision: Gymnasium's data-reuse check
    then steps the penalize path, where the decision (and its mask) stays."""

    def __init__(self, env: SingleSeatEnv) -> None:
        super().__init__(env.action_space.n)
        self._env = env

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        return np.flatnonzero(~self._env.action_masks())[0]


# ------------------------------------------------------------------ new data on every call
@pytest.mark.parametrize("observation", ["absolute", "structured"])
def test_gymnasium_data_reuse_check_passes_after_illegal_actions(observation):
    env = SingleSeatEnv("knock", observation=observation)
    env.action_space = IllegalSampler(env)
    check_returned_data_not_reused(env)
    assert env.num_illegal_actions == 2  # the check's two steps both went through the penalize path


def test_an_illegal_step_returns_new_arrays():
    env = SingleSeatEnv("bid", team=1)
    obs, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, _, _, info2 = env.step(illegal)
    assert info2["illegal_action"] and reward == -1.0
    np.testing.assert_array_equal(obs2["action_mask"], obs["action_mask"])  # the same decision...
    assert not data_shares_objects(obs, obs2) and not data_shares_objects(info, info2)  # ...in new arrays
    assert not np.shares_memory(env.action_masks(), obs2["action_mask"])


def test_writing_to_returned_masks_changes_nothing_the_env_accepts():
    env = SingleSeatEnv("knock")
    obs, info = env.reset(seed=0)
    legal = np.flatnonzero(obs["action_mask"])
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    # A replay buffer or wrapper that recycles what it was given: every mask it holds is zeroed, then set.
    obs["action_mask"][:] = 0
    info["action_mask"][:] = 0
    env.action_masks()[:] = False
    assert np.array_equal(np.flatnonzero(env.action_masks()), legal)
    _, _, _, _, info = env.step(int(legal[0]))
    assert not info["illegal_action"]  # still legal to the env
    info["action_mask"][:] = 1
    _, reward, _, _, info = env.step(illegal if env.action_masks()[illegal] == 0 else
                                     int(np.flatnonzero(~env.action_masks())[0]))
    assert info["illegal_action"] and reward <= -1.0  # still illegal to the env


def test_single_seat_aec_hands_out_copies_of_the_mask():
    aec = SingleSeatAEC(SingleSeatEnv("classic", team=0))
    aec.reset(seed=1)
    agent = aec.agent_selection
    legal = np.flatnonzero(aec.observe(agent)["action_mask"])
    aec.observe(agent)["action_mask"][:] = 0
    aec.infos[agent]["action_mask"][:] = 0
    np.testing.assert_array_equal(np.flatnonzero(aec.observe(agent)["action_mask"]), legal)
    aec.step(int(legal[0]))
    assert not aec.infos[aec.agent_selection]["illegal_action"]


def test_vector_env_returns_new_arrays_every_step():
    envs = SingleSeatVectorEnv("knock", num_envs=3, seed=0)
    obs, infos = envs.reset(seed=0)
    calls = [(obs, infos)]
    for _ in range(3):
        obs, _, _, _, infos = envs.step(envs.agent_actions("random"))
        calls.append((obs, infos))
    for i, (obs_a, infos_a) in enumerate(calls):
        for obs_b, infos_b in calls[i + 1:]:
            assert not data_shares_objects(obs_a, obs_b) and not data_shares_objects(infos_a, infos_b)


# ------------------------------------------------------------------ infos of one type per key
def info_types(info: dict, types: dict[str, set[type]], prefix: str = "") -> None:
    """Every key path of ``info`` (nested dicts as Gymnasium's vector envs recurse into them) -> its value types."""
    for key, value in info.items():
        if isinstance(value, dict):
            info_types(value, types, f"{prefix}{key}.")
        else:
            types[prefix + key].add(type(value))


@pytest.mark.parametrize("preset", PRESETS)
def test_info_values_have_one_type_per_key(preset):
    """Random play and passing play (thrown-in hands where the preset has them) in one env's infos: each key
    keeps one type, so the first value a vector env batches types the array right for all the others."""
    types: dict[str, set[type]] = defaultdict(set)
    thrown = bids = 0
    for opponents, passes in (("random", False), (passer, True)):
        env = SingleSeatEnv(preset, opponents=opponents)
        rng = np.random.default_rng(0)
        for episode in range(30):
            obs, info = env.reset(seed=episode)
            info_types(info, types)
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(learner_action(obs["action_mask"], passes, rng))
                info_types(info, types)
                for result in info["hand_results"]:
                    info_types(result, types, "hand_results[].")
                    thrown += "thrown_in" in result
                    bids += "bid" in result
                done = terminated or truncated
    assert {key: kinds for key, kinds in types.items() if len(kinds) > 1} == {}
    assert thrown > 0 if preset != "knock" else thrown == 0  # stick the dealer: knock throws no hand in
    if preset == "bid":
        assert bids > 0 and types["hand_result.contract"] == {int} and types["hand_result.bid"] == {str}


def test_typed_hand_result_of_bid_euchre():
    rules = Rules.preset("bid")
    moon = {"maker_team": 1, "trump": "H", "bidder": 3, "contract": "moon", "tricks": [0, 6], "points": [0, 24],
            "reneged": []}
    typed = typed_hand_result(rules, moon)
    assert (typed["contract"], typed["bid"]) == (6, "moon")  # moon needs every trick
    plain = typed_hand_result(rules, {**moon, "contract": 4})
    assert (plain["contract"], plain["bid"]) == (4, "4")
    assert typed["tricks"] == moon["tricks"] and typed["tricks"] is not moon["tricks"]  # new lists
    thrown = {"maker_team": None, "trump": None, "bidder": None, "contract": None, "tricks": [0, 0],
              "thrown_in": "all passed"}
    assert typed_hand_result(rules, thrown) == {"tricks": [0, 0], "thrown_in": "all passed"}


@pytest.mark.parametrize("preset", PRESETS)
def test_sync_vector_env_runs_every_preset(preset):
    """Even games play randomly, odd ones pass (thrown-in hands next to played ones at the same steps): the
    batching that failed on Bid Euchre's "help" / "moon" contracts (int() of a str) and on a thrown-in hand's
    None maker after an int one."""
    fns = [functools.partial(SingleSeatEnv, preset, opponents="random" if g % 2 == 0 else passer) for g in range(4)]
    envs = gymnasium.vector.SyncVectorEnv(fns)
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = batched = contracts = 0
    for _ in range(200):
        actions = [learner_action(mask, g % 2 == 1, rng) for g, mask in enumerate(infos["action_mask"])]
        _, _, terminated, truncated, infos = envs.step(np.array(actions))
        ends += int((terminated | truncated).sum())
        if "hand_result" in infos:
            result = infos["hand_result"]
            batched += int(infos["_hand_result"].sum())
            if "contract" in result:
                assert result["contract"].dtype == int and result["bid"].dtype == object
                contracts += int(result["_contract"].sum())
    assert ends > 50 and batched == ends  # every episode is one hand here, and each result was batched
    assert contracts > 0 if preset == "bid" else contracts == 0
    envs.close()


def test_async_vector_env_runs_bid_euchre():
    envs = gymnasium.vector.AsyncVectorEnv([functools.partial(SingleSeatEnv, "bid") for _ in range(2)])
    try:
        _, infos = envs.reset(seed=1)
        rng = np.random.default_rng(1)
        ends = 0
        for _ in range(60):
            actions = [learner_action(mask, False, rng) for mask in infos["action_mask"]]
            _, _, terminated, truncated, infos = envs.step(np.array(actions))
            ends += int((terminated | truncated).sum())
        assert ends >= 4
    finally:
        envs.close()


# ------------------------------------------------------------------ the registry and the public names
def test_gymnasium_make_builds_single_seat_env():
    env = gymnasium.make(ENV_ID, rules="bid", opponents="rules", seat=2)
    assert isinstance(env.unwrapped, SingleSeatEnv)
    assert env.unwrapped.rules.is_bid and env.unwrapped.learner_seats == (2,)
    obs, info = env.reset(seed=0)
    _, _, _, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert info["seat"] == 2 and not info["illegal_action"]
    env.close()


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
def test_make_vec_builds_single_seat_vector_env(mode):
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode=mode, rules="classic", learner="team", seed=0)
    assert isinstance(envs.unwrapped, SingleSeatVectorEnv)
    assert envs.num_envs == 3 and envs.unwrapped.learner_seats == (0, 2)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (3, envs.single_observation_space.shape[0])
    envs.step(envs.unwrapped.agent_actions("random"))
    envs.close()


def test_make_vec_sync_wraps_single_seat_envs():
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", rules="multiplayer")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    assert all(isinstance(env.unwrapped, SingleSeatEnv) for env in envs.envs)
    obs, _ = envs.reset(seed=0)
    assert obs["action_mask"].shape == (2, 60)
    envs.close()


def test_registration_loads_no_env_module():
    """``import euchre_env`` registers the id with strings: the Gymnasium views and SB3 load when used."""
    code = ("import sys, gymnasium, euchre_env\n"
            f"assert {ENV_ID!r} in gymnasium.registry\n"
            "print(sorted(m for m in sys.modules if m.endswith(('single_seat', 'single_seat_vector', "
            "'sb3_vec_env')) or m == 'stable_baselines3'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_names():
    from euchre_env.views.infostate import InfoState

    assert euchre_env.InfoState is InfoState and "InfoState" in euchre_env.__all__
    assert euchre_env.SingleSeatVectorEnv is SingleSeatVectorEnv
    pytest.importorskip("stable_baselines3")
    from euchre_env.envs.sb3_vec_env import SB3VecEnv

    assert euchre_env.SB3VecEnv is SB3VecEnv and "SB3VecEnv" in euchre_env.__all__


# ------------------------------------------------------------------ too many games
def test_num_envs_beyond_memory_is_one_clear_line(monkeypatch):
    monkeypatch.setattr(single_seat_vector, "physical_memory", lambda: 16 * 2**30)
    with pytest.raises(MemoryError) as err:
        SingleSeatVectorEnv("knock", num_envs=10**7)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("num_envs=10,000,000 needs about 83.6 GiB of memory (8.8 KiB a game)")
    assert message.endswith("this machine has 16.0 GiB, enough for about 1,900,000 games")


def test_a_failed_allocation_is_the_same_clear_line(monkeypatch):
    def no_memory(*args: Any, **kwargs: Any) -> None:
        raise MemoryError("Unable to allocate 24.7 GiB for an array with shape (10000000, 663)")

    monkeypatch.setattr(single_seat_vector, "physical_memory", lambda: 128 * 2**30)
    monkeypatch.setattr(single_seat_vector, "VectorEuchre", no_memory)
    with pytest.raises(MemoryError, match=r"^num_envs=10,000,000 needs about 83\.6 GiB of memory \(8\.8 KiB a game\), "
                                          r"more than is free now \(this machine has 128\.0 GiB"):
        SingleSeatVectorEnv("knock", num_envs=10**7)
