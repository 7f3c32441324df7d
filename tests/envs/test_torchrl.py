"""The TorchRL envs (``euchre_env.torchrl``, the ``[torchrl]`` extra): specs, the games they play, resets, masks.

Each env is checked against the env it wraps, step by step: ``SingleSeatTorchRLEnv`` against
``SingleSeatVectorEnv`` and ``SelfPlayTorchRLEnv`` against ``VectorEuchre``, on the same seeds and actions.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl", reason="the [torchrl] extra is not installed: pip install -e '.[torchrl]'")

from tensordict import TensorDict  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs import TransformedEnv  # noqa: E402
from torchrl.envs.transforms import ActionMask  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402
from torchrl.modules import MaskedCategorical, ProbabilisticActor  # noqa: E402

from euchre_env import SingleSeatVectorEnv  # noqa: E402
from euchre_env.envs.vector import VectorEuchre  # noqa: E402
from euchre_env.torchrl import SelfPlayTorchRLEnv, SingleSeatTorchRLEnv  # noqa: E402

PRESETS = ("knock", "classic", "multiplayer", "bid")
ENVS = (SingleSeatTorchRLEnv, SelfPlayTorchRLEnv)


def random_policy(seed: int):
    """A uniformly random legal action per game from the TensorDict's mask; the actions it took, in order."""
    generator = torch.Generator().manual_seed(seed)
    taken: list[torch.Tensor] = []

    def policy(td):
        action = torch.multinomial(td["action_mask"].float(), 1, generator=generator).squeeze(-1)
        taken.append(action.clone())
        td["action"] = action
        return td

    return policy, taken


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("cls", ENVS)
def test_check_env_specs_passes(cls, preset):
    env = cls(preset, num_envs=8, seed=0, observation="structured")
    check_env_specs(env, seed=0)
    check_env_specs(cls(preset, num_envs=3, seed=1, episode="game"), break_when_any_done="both")
    assert env.batch_size == torch.Size([8])
    assert env.observation_spec["action_mask"].dtype == torch.bool and env.action_spec.dtype == torch.int64
    assert env.reward_spec.shape == ((8, 1) if cls is SingleSeatTorchRLEnv else (8, 2))


@pytest.mark.parametrize("learner", ["seat", "team"])
def test_single_seat_plays_the_vector_envs_games(learner):
    n, steps = 32, 30
    env = SingleSeatTorchRLEnv("knock", num_envs=n, learner=learner, opponents="rules", seed=3,
                               observation="structured")
    ref = SingleSeatVectorEnv("knock", num_envs=n, learner=learner, opponents="rules", seed=3,
                              observation="structured")
    policy, taken = random_policy(0)
    td = env.rollout(steps, policy, break_when_any_done=False)
    obs, infos = ref.reset(seed=3)
    ended_any = False
    for t in range(steps):
        assert np.array_equal(td["observation"][:, t].numpy(), obs)
        assert np.array_equal(td["action_mask"][:, t].numpy(), infos["action_mask"] == 1)
        assert np.array_equal(td["seat"][:, t].numpy(), infos["seat"])
        obs, reward, terminated, truncated, infos = ref.step(taken[t].numpy())
        nxt = td["next"][:, t]
        assert np.array_equal(nxt["reward"][:, 0].numpy(), reward)
        assert np.array_equal(nxt["terminated"][:, 0].numpy(), terminated)
        assert np.array_equal(nxt["done"][:, 0].numpy(), terminated | truncated)
        ended = terminated | truncated
        assert np.array_equal(nxt["observation"][~ended].numpy(), obs[~ended])
        if ended.any():  # the episode's last observation; the new deal's first is the next root
            ended_any = True
            assert np.array_equal(nxt["observation"][ended].numpy(), infos["final_obs"][ended])
            assert not nxt["action_mask"][ended].any()
    assert ended_any


def test_self_play_plays_vector_euchres_games():
    n, steps = 16, 40
    env = SelfPlayTorchRLEnv("classic", num_envs=n, seed=5)
    ref = VectorEuchre("classic", num_envs=n, seed=5)
    policy, taken = random_policy(1)
    td = env.rollout(steps, policy, break_when_any_done=False)
    obs, mask, seat = ref.reset()
    ends = 0
    for t in range(steps):
        assert np.array_equal(td["observation"][:, t].numpy(), obs)
        assert np.array_equal(td["action_mask"][:, t].numpy(), mask)
        assert np.array_equal(td["seat"][:, t].numpy(), seat) and np.array_equal(td["team"][:, t].numpy(), seat % 2)
        mover = seat
        obs, mask, seat, rewards, done, info = ref.step(taken[t].numpy())
        nxt = td["next"][:, t]
        assert np.array_equal(nxt["reward"].numpy(), rewards[:, :2]) and (rewards[:, 0] == -rewards[:, 1]).all()
        assert np.array_equal(nxt["done"][:, 0].numpy(), done)
        assert np.array_equal(nxt["observation"][~done].numpy(), obs[~done])
        games = info["final_index"]
        ends += games.size
        # the episode's end as the seat that acted sees it
        assert np.array_equal(nxt["observation"][games].numpy(),
                              info["final_observation"][np.arange(games.size), mover[games]])
        assert np.array_equal(nxt["seat"][games].numpy(), mover[games])
    assert ends > 0


def test_a_partial_reset_hands_over_the_new_episodes_and_refuses_a_game_in_mid_episode():
    n = 64
    env = SingleSeatTorchRLEnv("knock", num_envs=n, opponents="rules", seed=2)
    ref = SingleSeatVectorEnv("knock", num_envs=n, opponents="rules", seed=2)
    td = env.reset()
    ref.reset()
    for _ in range(20):  # until some hand ends
        action = torch.from_numpy(ref.action_masks().argmax(1))
        td = env.step(td.set("action", action))
        obs, *_ = ref.step(action.numpy())
        done = td["next", "done"].squeeze(-1)
        if done.any():
            break
        td = env.step_mdp(td)
    assert done.any() and not done.all()
    root = env.step_mdp(td)
    out = env.reset(root.clone().set("_reset", done.unsqueeze(-1)))  # TorchRL's own merge of the reset rows
    assert np.array_equal(out["observation"].numpy(), obs)
    assert not out["done"].any()
    with pytest.raises(ValueError, match=r"^partial reset of game \d+ in the middle of its episode"):
        env.reset(root.clone().set("_reset", (~done).unsqueeze(-1)))
    # every game at once deals anew (from the seed set_seed gives)
    env.set_seed(11)
    again = env.reset(TensorDict({"_reset": torch.ones(n, 1, dtype=torch.bool)}, batch_size=[n]))
    assert np.array_equal(again["observation"].numpy(), SingleSeatVectorEnv("knock", n, opponents="rules")
                          .reset(seed=11)[0])


def test_a_seed_gives_the_same_rollout():
    def rollout(seed):
        env = SelfPlayTorchRLEnv("bid", num_envs=8)
        env.set_seed(seed)
        return env.rollout(12, random_policy(0)[0], break_when_any_done=False)

    a, b, c = rollout(4), rollout(4), rollout(5)
    assert (a == b).all() and not (a["observation"] == c["observation"]).all()


def test_masked_policies_step_only_legal_actions():
    """MaskedCategorical through TorchRL's Collector, and the ActionMask transform's masked action spec; the env
    raises on an illegal action (illegal_action="raise", the vector env's default)."""
    env = SingleSeatTorchRLEnv("knock", num_envs=16, learner="team", opponents="random", seed=0)
    n_obs, n_act = env.observation_spec["observation"].shape[-1], env.action_spec.space.n
    from tensordict.nn import TensorDictModule

    actor = ProbabilisticActor(TensorDictModule(torch.nn.Linear(n_obs, n_act), ["observation"], ["logits"]),
                               in_keys={"logits": "logits", "mask": "action_mask"},
                               distribution_class=MaskedCategorical, return_log_prob=True)
    collector = Collector(env, actor, frames_per_batch=16 * 8, total_frames=16 * 16,
                          auto_register_policy_transforms=False)
    batches = list(collector)
    collector.shutdown()
    assert len(batches) == 2 and batches[0].shape == (16, 8)
    legal = batches[0]["action_mask"].gather(-1, batches[0]["action"].unsqueeze(-1))
    assert legal.all()
    masked = TransformedEnv(SelfPlayTorchRLEnv("multiplayer", num_envs=4, seed=0), ActionMask())
    masked.rollout(30, break_when_any_done=False)  # the spec's own random actions, masked


@pytest.mark.parametrize("cls", ENVS)
def test_bad_arguments_are_the_wrapped_envs_one_line(cls):
    with pytest.raises(ValueError, match=r"^unknown preset 'nosuch'; allowed: knock"):
        cls("nosuch", num_envs=2)
    with pytest.raises(ValueError, match="'num_envs' must be an int"):
        cls("knock", num_envs=0)
    with pytest.raises(TypeError, match="copy"):
        cls("knock", num_envs=2, copy=False)


def test_self_play_wants_an_observation():
    with pytest.raises(ValueError, match="observation='none' gives the policy nothing"):
        SelfPlayTorchRLEnv("knock", num_envs=2, observation="none")


def test_the_core_package_does_not_load_torch():
    import subprocess
    import sys

    code = "import sys, euchre_env; euchre_env.SingleSeatVectorEnv; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
