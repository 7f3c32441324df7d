"""What RL libraries assume of every env without reading its docs (issue 55): an unknown keyword is Python's
``TypeError`` naming what is known, and a mask is int8 wherever an observation or an info carries it."""

from __future__ import annotations

import functools

import gymnasium
import numpy as np
import pytest

import euchre_env
from euchre_env import SingleSeatEnv, SingleSeatVectorEnv, VectorEuchre
from euchre_env.envs.single_seat import SingleSeatAEC
from euchre_env.game.errors import UnknownOptionError

CONSTRUCTORS = {
    "env": (euchre_env.env, "raw_env", "render_mode"),
    "raw_env": (euchre_env.raw_env, "raw_env", "render_mode"),
    "SingleSeatEnv": (SingleSeatEnv, "SingleSeatEnv", "opponents"),
    "SingleSeatVectorEnv": (SingleSeatVectorEnv, "SingleSeatVectorEnv", "illegal_action"),
    "VectorEuchre": (VectorEuchre, "VectorEuchre", "num_envs"),
    "gymnasium.make": (functools.partial(gymnasium.make, "euchre/SingleSeat-v0"), "SingleSeatEnv", "opponents"),
    "gymnasium.make_vec": (functools.partial(gymnasium.make_vec, "euchre/SingleSeat-v0", num_envs=2),
                           "SingleSeatVectorEnv", "illegal_action"),
}


@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_an_unknown_keyword_is_a_type_error_that_names_the_known_ones(name):
    make, owner, argument = CONSTRUCTORS[name]
    with pytest.raises(TypeError) as err:
        make(rules="knock", frameskip=4)
    message = str(err.value)
    assert isinstance(err.value, UnknownOptionError) and isinstance(err.value, ValueError)  # 0.2 raised ValueError
    assert f"{owner}() got an unexpected keyword argument 'frameskip'; its arguments: rules, " in message
    assert argument in message and "; rules options: deck, joker, " in message and "\n" not in message


def test_torchrls_frameskip_retry_builds_the_env_by_id():
    """TorchRL's GymEnv passes ``frameskip=`` and, on a TypeError whose message holds "unexpected keyword argument
    'frameskip'", builds again without it (torchrl/envs/libs/gym.py, ACCEPTED_TYPE_ERRORS): its loop, here."""
    kwargs = {"opponents": "rules", "frameskip": 1}
    try:
        env = gymnasium.make("euchre/SingleSeat-v0", **kwargs)
    except TypeError as err:
        assert "unexpected keyword argument 'frameskip'" in str(err)
        kwargs.pop("frameskip")
        env = gymnasium.make("euchre/SingleSeat-v0", **kwargs)
    obs, _ = env.reset(seed=0)
    assert "frameskip" not in kwargs and obs["observation"].shape == env.observation_space["observation"].shape


def test_several_unknown_keywords_are_named_together_and_a_config_keeps_its_words():
    with pytest.raises(TypeError, match=r"^SingleSeatEnv\(\) got unexpected keyword arguments 'a', 'frameskip'; "):
        SingleSeatEnv(frameskip=1, a=2)
    with pytest.raises(ValueError, match=r"^unknown rules option 'trumps'; allowed: deck, joker, "):
        euchre_env.Rules.preset("knock", trumps=3)  # not a constructor: a config's or --set's rules option


def test_every_mask_in_an_observation_or_an_info_is_int8():
    aec = euchre_env.env(rules="knock")
    aec.reset(seed=0)
    obs, *_, info = aec.last()
    assert obs["action_mask"].dtype == info["action_mask"].dtype == np.int8
    assert aec.observation_space("player_0")["action_mask"].dtype == np.int8

    single = SingleSeatEnv("knock", opponents="rules")
    obs, info = single.reset(seed=0)
    assert obs["action_mask"].dtype == info["action_mask"].dtype == np.int8
    assert single.action_masks().dtype == np.bool_  # MaskablePPO's hook
    obs, *_, info = single.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert obs["action_mask"].dtype == info["action_mask"].dtype == np.int8

    wrapped = SingleSeatAEC(SingleSeatEnv("knock", opponents="rules"))
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    assert wrapped.observe(agent)["action_mask"].dtype == wrapped.infos[agent]["action_mask"].dtype == np.int8

    vector = SingleSeatVectorEnv("knock", num_envs=2, opponents="rules", seed=0)
    _, infos = vector.reset()
    assert infos["action_mask"].dtype == np.int8 and vector.action_masks().dtype == np.bool_
    # Gymnasium's masked sample takes the info's row as it is
    assert infos["action_mask"][0, vector.single_action_space.sample(mask=infos["action_mask"][0])] == 1
