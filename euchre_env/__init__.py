"""Euchre for reinforcement learning: the rules engine and its environments.

``euchre_env.env(rules="knock", **options)`` is the wrapped PettingZoo AEC env, ``raw_env`` the bare one;
``pettingzoo.make("aec", "euchre/euchre_v0", ...)`` works after ``import euchre_env``. ``SingleSeatEnv``
(one seat against given opponents, Gymnasium) and ``VectorEuchre`` (many games at once) are exported here
too. The subpackages: ``game`` (the rules), ``views`` (what a seat may know), ``compiled`` (the Numba copy
of the game), ``envs`` (the environments); ``agents``, ``evaluation``, ``training``, ``play`` and ``cli``
build on them (docs/design.md).

``import euchre_env`` imports Numba, which the AEC env steps on: the import takes about 0.5 s, Numba about
0.2 s of it (``python -X importtime -c "import euchre_env"``, warm disk; docs/design.md).
"""

import sys
from types import ModuleType
from typing import Any

from euchre_env import _moved
from euchre_env.envs.aec import env, raw_env
from euchre_env.game.actions import ActionTable
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.rules import PRESETS, Rules

__all__ = ["PRESETS", "ActionTable", "GameState", "IllegalActionError", "Phase", "Rules", "SingleSeatEnv",
           "SingleSeatVectorEnv", "VectorEuchre", "env", "raw_env"]
__version__ = "0.2.0"

_LAZY = {"SingleSeatEnv": "euchre_env.envs.single_seat", "VectorEuchre": "euchre_env.envs.vector",
         "SingleSeatVectorEnv": "euchre_env.envs.single_seat_vector"}


def __getattr__(name: str) -> Any:
    # the Gymnasium views load on first use: a plain AEC user never pays for them
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Package(ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # Importing the 0.1 module path ``euchre_env.env`` (now euchre_env.envs.aec) makes the import system
        # bind the module here as ``env``: the function env() must stay what ``euchre_env.env`` names.
        if name == "env" and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
_moved.install()


def _register() -> None:
    import pettingzoo

    try:
        pettingzoo.spec("aec", "euchre/euchre_v0")
    except Exception:  # not registered yet (a re-import must not register twice)
        pettingzoo.register("aec", "euchre/euchre_v0", entry_point="euchre_env:env")


_register()
