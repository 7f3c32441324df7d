"""Euchre for reinforcement learning: rules engine and PettingZoo AEC environment.

``euchre_env.env(rules="knock", **options)`` is the wrapped AEC env, ``raw_env`` the bare one.
``pettingzoo.make("aec", "euchre/euchre_v0", ...)`` works after ``import euchre_env``.
"""

from euchre_env.actions import ActionTable
from euchre_env.engine import GameState, Phase
from euchre_env.env import env, raw_env
from euchre_env.rules import PRESETS, Rules

__all__ = ["PRESETS", "ActionTable", "GameState", "Phase", "Rules", "env", "raw_env"]
__version__ = "0.1.0"


def _register() -> None:
    import pettingzoo

    try:
        pettingzoo.spec("aec", "euchre/euchre_v0")
    except Exception:  # not registered yet (a re-import must not register twice)
        pettingzoo.register("aec", "euchre/euchre_v0", entry_point="euchre_env.env:env")


_register()
