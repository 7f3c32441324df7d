"""SB3VecEnv: SingleSeatVectorEnv as a Stable-Baselines3 VecEnv that sb3-contrib's MaskablePPO trains on."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the [sb3] extra is not installed: pip install -e '.[sb3]'")
pytest.importorskip("sb3_contrib", reason="the [sb3] extra is not installed: pip install -e '.[sb3]'")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecMonitor

from euchre_env import IllegalActionError, SingleSeatEnv, SingleSeatVectorEnv
from euchre_env.envs.sb3_vec_env import SB3VecEnv

N = 8


def make(**kwargs) -> SingleSeatVectorEnv:
    return SingleSeatVectorEnv("knock", **{"num_envs": N, "learner": "team", "opponents": "rules", **kwargs})


def legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize("options", [{}, {"episode": "game", "max_hands": 1}, {"copy": False}],
                         ids=["hand", "game-truncated", "no-copy"])
def test_steps_as_the_vector_env_in_sb3_conventions(options):
    """The same seed and actions through SB3VecEnv and a bare twin: the same observations, rewards and episode
    ends; a finished game's info holds its last observation and whether it was cut short, the others none."""
    env, twin = SB3VecEnv(make(**options)), make(**options)
    assert (env.num_envs, env.observation_space, env.action_space) == (
        N, twin.single_observation_space, twin.single_action_space)
    env.seed(5)
    obs = env.reset()
    twin_obs, infos = twin.reset(seed=5)
    assert obs.shape == (N, twin.single_observation_space.shape[0]) and obs.dtype == np.float32
    np.testing.assert_array_equal(obs, twin_obs)
    rng = np.random.default_rng(0)
    ends = truncations = 0
    for _ in range(40):
        masks = get_action_masks(env)
        np.testing.assert_array_equal(masks, infos["action_mask"])
        actions = legal(masks, rng)
        previous, snapshot = obs, obs.copy()
        obs, rewards, dones, sb3_infos = env.step(actions)
        np.testing.assert_array_equal(previous, snapshot)  # SB3 stores the last obs after the step: never reused
        twin_obs, twin_rewards, terminated, truncated, infos = twin.step(actions)
        np.testing.assert_array_equal(obs, twin_obs)
        np.testing.assert_array_equal(rewards, twin_rewards)
        np.testing.assert_array_equal(dones, terminated | truncated)
        assert isinstance(sb3_infos, list) and len(sb3_infos) == N
        for g, info in enumerate(sb3_infos):
            if dones[g]:
                np.testing.assert_array_equal(info["terminal_observation"], infos["final_obs"][g])
                assert info["TimeLimit.truncated"] == bool(truncated[g])
            else:
                assert info == {}
        ends += int(dones.sum())
        truncations += int(truncated.sum())
    assert ends > N  # every game finished episodes
    assert (truncations > 0) == ("max_hands" in options)


def test_masks_are_one_array_and_masking_is_supported():
    inner = make()
    env = VecMonitor(SB3VecEnv(inner))  # SB3's own wrapper passes the calls through
    env.reset()
    assert is_masking_supported(env)
    masks = env.env_method("action_masks")
    assert isinstance(masks, np.ndarray) and masks.shape == (N, inner.single_action_space.n) and masks.dtype == bool
    np.testing.assert_array_equal(get_action_masks(env), inner.action_masks())
    np.testing.assert_array_equal(env.env_method("action_masks", indices=[1, 3]), inner.action_masks()[[1, 3]])
    np.testing.assert_array_equal(env.unwrapped.action_masks(), inner.action_masks())


def test_penalized_actions_step_and_say_so_in_their_games_info():
    """With the vector env's ``illegal_action="penalize"``, SB3's unmasked samples of the space step: a penalized
    game's info dict says so, and its reward holds the penalty."""
    env = SB3VecEnv(make(illegal_action="penalize", seed=4))
    env.reset()
    env.action_space.seed(4)
    penalized = 0
    for _ in range(10):
        masks = env.action_masks()
        actions = np.array([env.action_space.sample() for _ in range(N)])
        _, rewards, _, infos = env.step(actions)
        illegal = ~masks[np.arange(N), actions]
        assert [bool(i.get("illegal_action")) for i in infos] == illegal.tolist() and (rewards[illegal] <= -1).all()
        penalized += int(illegal.sum())
    assert penalized == env.envs.num_illegal_actions > 0


def test_attributes_seeds_and_options():
    inner = make()
    env = SB3VecEnv(inner)
    assert env.envs is inner and env.render_mode is None
    assert env.get_attr("learner") == ["team"] * N and env.get_attr("learner", indices=[0, 2]) == ["team"] * 2
    assert env.env_method("opponent_of", 3, indices=0) == ["rules"]
    assert env.has_attr("opponent_of") and not env.has_attr("nosuch")
    env.set_attr("copy", True)
    assert inner.copy is True
    assert env.env_is_wrapped(Monitor) == [False] * N
    env.seed(7)
    first = env.reset()
    env.seed(7)
    np.testing.assert_array_equal(env.reset(), first)  # seed() seeds the next reset
    deals = [inner.current_deal(g) for g in range(N)]
    env.step(legal(env.action_masks(), np.random.default_rng(1)))
    env.set_options({"deals": deals})
    np.testing.assert_array_equal(env.reset(), first)  # the options go to the next reset, once
    env.close()


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


def test_misuse_is_one_line():
    with pytest.raises(TypeError) as exc:
        SB3VecEnv(SingleSeatEnv("knock"))
    assert _one_line(exc) == "SB3VecEnv wraps a SingleSeatVectorEnv, got SingleSeatEnv"
    env = SB3VecEnv(make())
    env.reset()
    with pytest.raises(RuntimeError) as exc:
        env.step_wait()
    assert "without step_async" in _one_line(exc)
    with pytest.raises(AttributeError) as exc:
        env.get_attr("nosuch")
    assert _one_line(exc) == "SingleSeatVectorEnv has no attribute 'nosuch'"
    with pytest.raises(AttributeError):
        env.env_method("nosuch")
    with pytest.raises(ValueError) as exc:
        env.set_attr("copy", True, indices=[0])
    assert "share one vector env" in _one_line(exc)
    with pytest.raises(TypeError) as exc:
        env.set_options([{}] * N)
    assert "one dict" in _one_line(exc)
    illegal = np.array([np.flatnonzero(~row)[0] for row in env.action_masks()])
    with pytest.raises(IllegalActionError) as exc:
        env.step(illegal)
    assert "illegal action in game 0" in _one_line(exc)


class _Legal(BaseCallback):
    """Counts rollout actions outside the masks MaskablePPO was given."""

    illegal = steps = 0

    def _on_step(self) -> bool:
        actions, masks = self.locals["actions"], self.locals["action_masks"]
        self.illegal += int((~masks[np.arange(len(actions)), actions]).sum())
        self.steps += len(actions)
        return True


def test_maskable_ppo_trains_on_it():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = VecMonitor(SB3VecEnv(make(num_envs=16)))
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=2, seed=0)
        before = [p.detach().clone() for p in model.policy.parameters()]
        watch = _Legal()
        model.learn(total_timesteps=512, callback=watch)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps == watch.steps == 512 and watch.illegal == 0
    assert model._n_updates > 0 and any(not a.equal(b) for a, b in zip(before, model.policy.parameters()))
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw whole episodes
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    assert get_action_masks(env)[np.arange(16), actions].all()


def test_the_core_package_never_imports_sb3():
    code = ("import sys, euchre_env; euchre_env.SingleSeatVectorEnv; "
            "print(sorted(m for m in ('stable_baselines3', 'sb3_contrib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
