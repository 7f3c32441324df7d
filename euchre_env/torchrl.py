"""TorchRL environments over the compiled engine: many games in one batched ``EnvBase`` (the ``[torchrl]`` extra).

    from torchrl.envs.utils import check_env_specs
    from euchre_env.torchrl import SingleSeatTorchRLEnv, SelfPlayTorchRLEnv

    env = SingleSeatTorchRLEnv("knock", num_envs=4096, opponents="rules", seed=0)   # batch_size [4096]
    check_env_specs(env)
    data = env.rollout(16, policy)          # policy: a TensorDictModule reading "observation" and "action_mask"

- :class:`SingleSeatTorchRLEnv` is :class:`~euchre_env.envs.single_seat_vector.SingleSeatVectorEnv` (every keyword
  but ``copy`` is its own, with its checks and messages): a learner seat (or team) in ``num_envs`` games, the
  opponents played inside each step on the compiled engine.
- :class:`SelfPlayTorchRLEnv` is :class:`~euchre_env.envs.vector.VectorEuchre` (its keywords likewise): every seat
  acts through the policy; each game shows its seat to act (``"seat"``, ``"team"``), and ``"reward"`` holds both
  teams' rewards, ``[num_envs, 2]``.

Keys (batch ``[num_envs]``): ``"observation"`` (``float32 [num_envs, obs_size]``, the ``observation`` option's
encoding), ``"action_mask"`` (``bool [num_envs, num_actions]``, True: legal; what ``MaskedCategorical`` and the
``ActionMask`` transform read), ``"seat"`` (``int64``, the seat to act), ``"action"`` (``int64 [num_envs]``, a
``Categorical`` spec: the ids the engine takes, no one-hot to build or undo), ``"reward"``, ``"done"``,
``"terminated"``, ``"truncated"`` (``[num_envs, 1]``).

Episode ends follow TorchRL's convention although the engine deals a finished game anew in the same step: at the
step that ends an episode, ``("next", "observation")`` is the last observation of that episode (its mask all
False: no decision is left) and the new episode's first observation waits inside the env until ``reset`` asks for
it (the collector's partial reset, ``"_reset"`` marking the games that are done). A reset of every game deals
anew; a partial reset may name only games whose episode has ended (one line otherwise: the engine cannot restart
a game in the middle of its episode).

``set_seed(s)`` reseeds the deals (and the opponents' draws) at the next reset of every game. The action spec's mask
(``update_mask``) is each game's pending decision, so ``rand_action``, ``rollout()`` without a policy and
``check_env_specs`` step legal actions.
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from euchre_env.envs.single_seat_vector import SingleSeatVectorEnv
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.seats import NUM_SEATS

__all__ = ["SelfPlayTorchRLEnv", "SingleSeatTorchRLEnv"]


class _Batched(EnvBase):
    """What both envs share: the specs, the new episodes held until ``reset`` asks for them, seeding and the action
    spec's mask. A subclass steps its engine (``_advance``) and deals every game anew (``_deal``)."""

    def __init__(self, num_envs: int, observer: Any, num_actions: int, reward_shape: tuple[int, ...]) -> None:
        super().__init__(batch_size=torch.Size([num_envs]), device="cpu")
        n = num_envs
        size = observer.size
        # Copies: the observer's bounds are read-only arrays, shared by every env of these rules (views/structured.py).
        low = torch.tensor(observer.low, dtype=torch.float32).expand(n, size)
        high = torch.tensor(observer.high, dtype=torch.float32).expand(n, size)
        self.observation_spec = Composite(
            observation=Bounded(low, high, shape=(n, size), dtype=torch.float32),
            action_mask=Binary(n=num_actions, shape=(n, num_actions), dtype=torch.bool),
            seat=Categorical(NUM_SEATS, shape=(n,), dtype=torch.int64),
            **self._extra_specs(n),
            shape=(n,),
        )
        self.action_spec = Categorical(num_actions, shape=(n,), dtype=torch.int64)
        self.reward_spec = Unbounded(shape=(n, *reward_shape), dtype=torch.float32)
        self.done_spec = Composite(
            done=Categorical(2, shape=(n, 1), dtype=torch.bool),
            terminated=Categorical(2, shape=(n, 1), dtype=torch.bool),
            truncated=Categorical(2, shape=(n, 1), dtype=torch.bool),
            shape=(n,),
        )
        self._num_envs = n
        self._seed: int | None = None  # set_seed's: the next full reset deals from it
        # The games whose episode ended at the last step: the engine dealt them anew at once, and their first
        # observations wait here (whole arrays, only those rows meaningful) for the partial reset that asks.
        self._waiting = np.zeros(n, bool)
        self._fresh: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ what a subclass provides
    def _extra_specs(self, n: int) -> dict[str, Any]:
        return {}

    @abc.abstractmethod
    def _deal(self, seed: int | None) -> dict[str, np.ndarray]:
        """Every game dealt anew (from ``seed``, or the engine's stream): the first decisions' arrays."""

    @abc.abstractmethod
    def _advance(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        """One step of every game: the next decisions' arrays, the rewards, and which games' episodes ended
        (terminated, truncated)."""

    # ------------------------------------------------------------------ EnvBase
    def _set_seed(self, seed: int | None) -> None:
        self._seed = seed

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        reset = None if tensordict is None else tensordict.get("_reset", None)
        games = None if reset is None else reset.reshape(self._num_envs).numpy()
        if games is not None and not games.any():
            return self.full_observation_spec.zero().update(self.full_done_spec.zero())  # nothing to reset
        if games is not None and not games.all() and not (games <= self._waiting).all():
            g = int(np.flatnonzero(games & ~self._waiting)[0])
            raise ValueError(f"partial reset of game {g} in the middle of its episode: the engine deals a game anew "
                             "only when its episode ends (reset every game instead)")
        if games is None or not (games <= self._waiting).all():  # every game, some in mid-episode: deal anew
            fresh = self._deal(self._seed)
            self._seed = None  # a seed deals once; later resets go on from its stream
            self._waiting[:] = False
        else:  # the rows reset marks are the new episodes' (TorchRL takes only those rows)
            fresh = self._fresh
            self._waiting[games] = False
        self.action_spec.update_mask(torch.from_numpy(fresh["action_mask"]))
        return self._tensordict(fresh, **{key: torch.zeros((self._num_envs, 1), dtype=torch.bool)
                                          for key in ("done", "terminated", "truncated")})

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = tensordict.get("action").numpy()
        out, reward, terminated, truncated = self._advance(actions)
        ended = terminated | truncated
        self._waiting[:] = False  # a game stepped without its reset played its new episode: nothing waits for it
        pending = out
        if ended.any():
            pending = self._fresh = {key: value.copy() for key, value in out.items()}
            self._waiting[ended] = True
            self._finish(out, ended)
        # the decisions pending now (the new episodes' where games ended): what rand_action draws among
        self.action_spec.update_mask(torch.from_numpy(pending["action_mask"]))
        n = self._num_envs
        return self._tensordict(out, reward=torch.from_numpy(reward).view(n, -1),
                                done=torch.from_numpy(ended).view(n, 1),
                                terminated=torch.from_numpy(terminated).view(n, 1),
                                truncated=torch.from_numpy(truncated).view(n, 1))

    def maybe_reset(self, tensordict: TensorDictBase) -> TensorDictBase:
        """The collectors' reset after a step (``step_and_maybe_reset``), without TorchRL's merge of every row:
        the step kept the engine's own arrays, the new episodes' rows where games ended and the same rows as
        ``"next"`` elsewhere, so they are the next root as they are (a partial ``reset`` would rebuild them)."""
        done = tensordict.get("done", None)
        games = None if done is None else done.reshape(self._num_envs).numpy()
        if games is None or not games.any() or not (games <= self._waiting).all():
            return super().maybe_reset(tensordict)
        for key, value in self._fresh.items():
            tensordict.set(key, torch.from_numpy(value))
        for key in ("done", "terminated", "truncated"):
            tensordict.set(key, torch.zeros((self._num_envs, 1), dtype=torch.bool))
        self._waiting[games] = False
        return tensordict

    # ------------------------------------------------------------------ internals
    def _finish(self, out: dict[str, np.ndarray], ended: np.ndarray) -> None:
        """Rows of the games whose episode ended: their last observation (a subclass's), no legal action."""
        out["action_mask"][ended] = False

    def _tensordict(self, arrays: dict[str, np.ndarray], **tensors: torch.Tensor) -> TensorDict:
        source = {key: torch.from_numpy(value) for key, value in arrays.items()}  # zero-copy: the arrays are new
        source.update(tensors)
        return TensorDict(source, batch_size=self.batch_size)


class SingleSeatTorchRLEnv(_Batched):
    """A learner seat (or team) in ``num_envs`` games against compiled opponents, as a batched TorchRL env.

    Every keyword is :class:`~euchre_env.envs.single_seat_vector.SingleSeatVectorEnv`'s (``learner``,
    ``opponents``, ``seat``, ``observation``, ``episode``, ``reward``, ``max_hands``, ``seed``, ``threads``,
    ``illegal_action``, rules options), except ``copy``: each step's arrays are new, handed to torch without a
    copy. ``"seat"`` is the learner seat to act (it changes only with ``learner="team"``); ``"reward"`` is the
    learner's, ``[num_envs, 1]``. ``env.games`` is the vector env itself, for per-game queries."""

    def __init__(self, rules: Any = "knock", num_envs: int = 1, **kwargs: Any) -> None:
        self.games = SingleSeatVectorEnv(rules, num_envs, copy=True, **kwargs)
        venv = self.games.venv
        super().__init__(self.games.num_envs, venv.observer, venv.num_actions, (1,))

    def _deal(self, seed: int | None) -> dict[str, np.ndarray]:
        obs, infos = self.games.reset(seed=seed)
        return {"observation": obs, "action_mask": self.games.action_masks(), "seat": infos["seat"]}

    def _advance(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        obs, reward, terminated, truncated, infos = self.games.step(actions)
        self._final = infos.get("final_obs")
        return ({"observation": obs, "action_mask": self.games.action_masks(), "seat": infos["seat"]}, reward,
                terminated, truncated)

    def _finish(self, out: dict[str, np.ndarray], ended: np.ndarray) -> None:
        super()._finish(out, ended)
        out["observation"][ended] = self._final[ended]  # the learner's last observation of the episode
        self._final = None


class SelfPlayTorchRLEnv(_Batched):
    """Every seat of ``num_envs`` games through one policy, as a batched TorchRL env.

    Every keyword is :class:`~euchre_env.envs.vector.VectorEuchre`'s (``observation``, ``episode``, ``reward``,
    ``max_hands``, ``seed``, ``threads``, rules options), except ``copy``. Each game shows the seat to act:
    ``"observation"`` and ``"action_mask"`` are that seat's, ``"seat"`` names it and ``"team"`` its team
    (``seat % 2``). ``("next", "reward")`` is ``float32 [num_envs, 2]``, each team's reward from that step (team 0,
    team 1; zero-sum: a hand's points go to both seats of a team). The acting team's share of a step is
    ``td["next", "reward"].gather(-1, td["team"].unsqueeze(-1))``. At the step that ends an episode,
    ``("next", "observation")``, ``"seat"`` and ``"team"`` are those of the seat that acted, seeing the end.
    ``env.games`` is the ``VectorEuchre``."""

    def __init__(self, rules: Any = "knock", num_envs: int = 1, **kwargs: Any) -> None:
        self.games = VectorEuchre(rules, num_envs, copy=False, **kwargs)  # copy=False: _swap gives new arrays
        if self.games.obs_size == 0:
            raise ValueError("observation='none' gives the policy nothing to read: use 'absolute' or 'structured'")
        self._seat = np.zeros(self.games.num_envs, np.int64)  # each game's seat to act now
        super().__init__(self.games.num_envs, self.games.observer, self.games.num_actions, (2,))

    def _extra_specs(self, n: int) -> dict[str, Any]:
        return {"team": Categorical(2, shape=(n,), dtype=torch.int64)}

    def _swap(self) -> None:
        """A new observation buffer for the next call (every game's row is written): the one returned is ours."""
        self.games.swap_observations(np.empty_like(self.games.observations()))

    def _arrays(self, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> dict[str, np.ndarray]:
        self._seat = seat
        return {"observation": obs, "action_mask": mask.copy(), "seat": seat, "team": seat % 2}

    def _deal(self, seed: int | None) -> dict[str, np.ndarray]:
        self._swap()
        return self._arrays(*self.games.reset(seed=seed))

    def _advance(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        mover = self._seat
        self._swap()
        obs, mask, seat, rewards, done, info = self.games.step(actions)
        per_team = np.ascontiguousarray(rewards[:, :2])  # seats 0 and 1: one of each team (partners share)
        self._final = (info["final_index"], info["final_observation"], mover)
        truncated = info["truncated"]
        return self._arrays(obs, mask, seat), per_team, done & ~truncated, truncated

    def _finish(self, out: dict[str, np.ndarray], ended: np.ndarray) -> None:
        super()._finish(out, ended)
        games, final, mover = self._final
        seats = mover[games]
        out["observation"][games] = final[np.arange(games.size), seats]  # what the seat that acted sees at the end
        out["seat"][games] = seats
        out["team"][games] = seats % 2
        self._final = None
