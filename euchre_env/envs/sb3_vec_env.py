"""``SB3VecEnv``: a :class:`~euchre_env.envs.single_seat_vector.SingleSeatVectorEnv` as a Stable-Baselines3 ``VecEnv``.

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from euchre_env import SingleSeatVectorEnv
    from euchre_env.envs.sb3_vec_env import SB3VecEnv

    env = VecMonitor(SB3VecEnv(SingleSeatVectorEnv("knock", num_envs=64, learner="team", opponents="rules")))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64)  # 16 decisions x 64 games per rollout
    model.learn(total_timesteps=50_000)

SB3 steps every game of the vector env at once: one ``step`` is one learner decision in each of its
``num_envs`` games, and the opponents' moves happen inside it, on the compiled engine. It needs the
``[sb3]`` extra; the core package never imports this module.

- Spaces: ``observation_space`` and ``action_space`` are the vector env's single spaces (``Box``,
  ``Discrete``), as SB3 expects; use ``"MlpPolicy"``.
- ``step``: SB3's conventions. ``dones`` is terminated or truncated; a finished game's info dict holds its last
  observation as ``"terminal_observation"`` and ``"TimeLimit.truncated"`` (True when the episode was cut,
  e.g. by ``max_hands``), and the game is already dealt anew (the vector env's same-step autoreset). The other
  games' info dicts are empty. ``reset()`` returns the observations only.
- Masks: ``action_masks()`` (and ``env_method("action_masks")``, which sb3-contrib's ``get_action_masks``
  calls) return the vector env's mask array, ``bool [num_envs, num_actions]``, in one piece.
- ``seed(s)``: the next ``reset()`` is the vector env's ``reset(seed=s)`` (MaskablePPO's ``seed=`` does this).
  ``set_options({"deals": [...]})``: the vector env's reset options for the next ``reset()``, one dict.
- ``get_attr``/``set_attr``/``env_method`` reach the one vector env, which holds every game: a value or a
  method's result is the same for each index asked (``env_method("action_masks")`` gives each game its row).
  ``envs`` is the vector env itself, for per-game queries (``envs.opponent_of(g)``, ``envs.current_deal(g)``).
- ``env_is_wrapped`` is False (no Gymnasium wrappers inside); wrap the ``VecEnv`` instead (``VecMonitor`` for
  SB3's episode statistics, ``VecNormalize``, ...). Rendering is not offered.
- Misuse is one line: a vector env of another kind, ``step_wait`` without ``step_async``, an unknown attribute.
  An illegal action raises the vector env's ``IllegalActionError``, naming its game (a masked policy never
  picks one); with the vector env's ``illegal_action="penalize"`` it is penalized instead, and that game's info
  dict holds ``"illegal_action": True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv

MASKS = "action_masks"  # the method sb3-contrib's MaskablePPO reads the legal actions from


class SB3VecEnv(VecEnv):
    """``envs``'s games as an SB3 ``VecEnv``, one game per env index; see the module docstring."""

    def __init__(self, envs: SingleSeatVectorEnv) -> None:
        if not isinstance(envs, SingleSeatVectorEnv):
            raise TypeError(f"SB3VecEnv wraps a SingleSeatVectorEnv, got {type(envs).__name__}")
        self.envs = envs
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None
        self._next_options: dict[str, Any] | None = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    # ------------------------------------------------------------------ reset & step
    def reset(self) -> VecEnvObs:
        obs, _ = self.envs.reset(seed=self._next_seed, options=self._next_options)
        self._next_seed = self._next_options = None
        self._actions = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs if self.envs.copy else obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("SB3VecEnv.step_wait() without step_async(actions) before it")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.envs.step(actions)
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in infos:
            final = infos["final_obs"]
            for g in np.flatnonzero(infos["_final_obs"]).tolist():
                out[g] = {"terminal_observation": final[g], "TimeLimit.truncated": bool(truncated[g])}
        if "illegal_action" in infos:  # illegal_action="penalize": the games whose action was penalized
            for g in np.flatnonzero(infos["illegal_action"]).tolist():
                out[g]["illegal_action"] = True
        # SB3 keeps obs as the next rollout entry while the env steps again: never hand it the env's own buffer
        return obs if self.envs.copy else obs.copy(), rewards, dones, out

    def close(self) -> None:
        self.envs.close()

    # ------------------------------------------------------------------ masks, seeds, options
    def action_masks(self) -> np.ndarray:
        """``bool [num_envs, num_actions]``: every game's legal actions (the vector env's array)."""
        return self.envs.action_masks()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._next_seed = seed
        return [seed] * self.num_envs

    def set_options(self, options: dict[str, Any] | None = None) -> None:
        if options is not None and not isinstance(options, dict):
            raise TypeError("SB3VecEnv.set_options takes one dict for the vector env's reset (e.g. {'deals': [...]}), "
                            f"got {type(options).__name__}")
        self._next_options = options or None

    # ------------------------------------------------------------------ SB3's attribute access
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [self._attr(attr_name)] * len(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.envs, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None and len(set(self._get_indices(indices))) != self.num_envs:
            raise ValueError(f"SB3VecEnv.set_attr({attr_name!r}): the games share one vector env, set it for all "
                             "(indices=None)")
        setattr(self.envs, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any] | np.ndarray:
        method = self._attr(method_name)
        if method_name == MASKS:  # one array; get_action_masks' np.stack copies it row by row
            masks = method(*method_args, **method_kwargs)
            return masks if indices is None else masks[list(self._get_indices(indices))]
        return [method(*method_args, **method_kwargs)] * len(self._get_indices(indices))

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _attr(self, name: str) -> Any:
        try:
            return getattr(self.envs, name)
        except AttributeError:
            raise AttributeError(f"SingleSeatVectorEnv has no attribute {name!r}") from None
