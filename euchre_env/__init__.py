"""Euchre for reinforcement learning: the rules engine and its environments.

``euchre_env.env(rules="knock", **options)`` is the wrapped PettingZoo AEC env, ``raw_env`` the bare one;
``pettingzoo.make("aec", "euchre/euchre_v0", ...)`` works after ``import euchre_env`` (PettingZoo 1.27 on), and so do
``gymnasium.make("euchre/SingleSeat-v0", ...)`` (``SingleSeatEnv``: one seat against given opponents) and
``gymnasium.make_vec("euchre/SingleSeat-v0", num_envs=n, ...)`` (``SingleSeatVectorEnv``: a learner in many
games at once). Exported here too, loaded on first use: ``SingleSeatEnv``, ``SingleSeatVectorEnv``,
``VectorEuchre`` (many games, every seat), ``SB3VecEnv`` (Stable-Baselines3's ``VecEnv``, the ``[sb3]``
extra) and ``InfoState`` (what a seat knows, as agents read it). The subpackages: ``game`` (the rules),
``views`` (what a seat may know), ``compiled`` (the C copy of the game), ``envs`` (the environments);
``agents``, ``evaluation``, ``training``, ``play`` and ``cli`` build on them (docs/design.md).

``import euchre_env`` imports NumPy, Gymnasium and PettingZoo, not the C extensions (docs/design.md has the time).
"""

from typing import Any

from euchre_env.envs.aec import env, raw_env
from euchre_env.game.actions import ActionTable
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.rules import PRESETS, Rules
from euchre_env.views.blocks import ENV_VERSION

__all__ = ["PRESETS", "ActionTable", "GameState", "IllegalActionError", "InfoState", "Phase", "Rules", "SB3VecEnv",
           "SingleSeatEnv", "SingleSeatVectorEnv", "VectorEuchre", "env", "raw_env"]
__version__ = "0.3.0.dev0"

_LAZY = {"SingleSeatEnv": "euchre_env.envs.single_seat", "VectorEuchre": "euchre_env.envs.vector",
         "SingleSeatVectorEnv": "euchre_env.envs.single_seat_vector", "SB3VecEnv": "euchre_env.envs.sb3_vec_env",
         "InfoState": "euchre_env.views.infostate"}


def __getattr__(name: str) -> Any:
    # the Gymnasium views (and SB3VecEnv's Stable-Baselines3) load on first use: a plain AEC user never pays
    # for them
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The envs' version: bumped with a new default observation version (views/blocks.py: ENV_VERSION).
_AEC_ID = f"euchre/euchre_v{ENV_VERSION}"
_SINGLE_SEAT_ID = f"euchre/SingleSeat-v{ENV_VERSION}"


def _register() -> None:
    import gymnasium  # already loaded: the AEC env's spaces are Gymnasium's
    import pettingzoo

    # PettingZoo's registry (register, spec, make) came in 1.27; on 1.25 and 1.26, which pyproject.toml allows
    # (AgileRL pins pettingzoo<1.27), there is nothing to register with, and euchre_env.env() is the way in.
    if hasattr(pettingzoo, "register"):
        try:
            pettingzoo.spec("aec", _AEC_ID)
        except Exception:  # not registered yet (a re-import must not register twice)
            pettingzoo.register("aec", _AEC_ID, entry_point="euchre_env:env")
    if _SINGLE_SEAT_ID not in gymnasium.registry:
        # Strings: the env modules load when an env is made, not on ``import euchre_env``. make_vec's default
        # (and vectorization_mode="vector_entry_point") builds the compiled many-games env; "sync" / "async"
        # wrap single envs.
        gymnasium.register(_SINGLE_SEAT_ID, entry_point="euchre_env.envs.single_seat:SingleSeatEnv",
                           vector_entry_point="euchre_env.envs.single_seat_vector:SingleSeatVectorEnv")


_register()
