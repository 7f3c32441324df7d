"""Train Euchre with RLlib: one PPO policy per team on the four-seat PettingZoo AEC env, with
action masking, then save a checkpoint.

Install the extra, then run from the repository root:

    pip install -c constraints.txt -e ".[rllib]"
    python examples/rllib_multiagent.py                                  # 20 iterations of 4,000 steps
    python examples/rllib_multiagent.py --iterations 1 --batch 256       # smoke run

``euchre_env.env(...)`` goes through RLlib's ``PettingZooEnv``, which hands each seat its
observation when it is to act, with everything it was rewarded since its last turn (hands
that ended on another seat's card included), and every seat's final reward at the end.
``policy_mapping_fn`` maps seats 0 and 2 to ``team_0`` and seats 1 and 3 to ``team_1``; both
policies learn. ``MaskedPPOModule`` reads the Dict observation: its networks see the
``"observation"`` vector and the ``"action_mask"`` removes illegal actions from the action
distribution. Work stays in this process (``num_env_runners=0``, local learner), though RLlib
starts a local Ray instance. ``run`` also counts, in the envs, the actions that a seat's mask
forbade (none). The lines between ``readme-start`` and ``readme-end`` comments are the snippet shown in
docs/integrations.md.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

# readme-start: rllib
from pathlib import Path
from typing import Any

import gymnasium
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

import euchre_env


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default networks on the ``"observation"`` vector; illegal actions get no probability."""

    def __init__(self, *, observation_space: gymnasium.spaces.Dict, **kwargs: Any) -> None:
        super().__init__(observation_space=observation_space["observation"], **kwargs)  # builds the networks
        self.observation_space = observation_space  # what the env hands over

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        return self._mask(super()._forward(self._vector(batch), **kwargs), batch)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        return self._mask(super()._forward_train(self._vector(batch), **kwargs), batch)

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        return super().compute_values(self._vector(batch), embeddings)

    @staticmethod
    def _vector(batch: dict) -> dict:
        return {**batch, Columns.OBS: batch[Columns.OBS]["observation"]}

    @staticmethod
    def _mask(out: dict, batch: dict) -> dict:
        legal = batch[Columns.OBS]["action_mask"].bool()
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS].masked_fill(~legal, FLOAT_MIN)
        return out


class EuchreEnv(PettingZooEnv):
    """``euchre_env.env(**env_config)`` as an RLlib ``MultiAgentEnv``."""

    def __init__(self, env_config: dict | None = None) -> None:
        super().__init__(euchre_env.env(**(env_config or {})))


def team_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return f"team_{int(agent_id.removeprefix('player_')) % 2}"  # seats 0, 2 -> team_0; 1, 3 -> team_1


def ppo_config(rules: str = "knock", batch: int = 4000, seed: int = 0) -> PPOConfig:
    return (
        PPOConfig()
        # RLlib's env pre-check steps one random unmasked action, which the env answers as PettingZoo's
        # illegal-move rule does (game over, a warning); the masked policy never picks one.
        .environment(EuchreEnv, env_config={"rules": rules, "episode": "hand"}, disable_env_checking=True)
        .env_runners(num_env_runners=0)
        .multi_agent(policies={"team_0", "team_1"}, policy_mapping_fn=team_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "team_0": RLModuleSpec(module_class=MaskedPPOModule),
            "team_1": RLModuleSpec(module_class=MaskedPPOModule),
        }))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch), num_epochs=4)
        .debugging(seed=seed)
    )


def train(algo: Algorithm, iterations: int = 20, out: str | Path = "runs/rllib_multiagent") -> tuple[dict, Path]:
    for _ in range(iterations):
        result = algo.train()
    return result, Path(algo.save_to_path(Path(out).resolve()))
# readme-end: rllib


class CountingEuchreEnv(EuchreEnv):
    """Counts the actions it receives and those the acting seat's mask forbids, before the env
    (whose ``TerminateIllegalWrapper`` would end the game on one) sees them."""

    def __init__(self, env_config: dict | None = None) -> None:
        super().__init__(env_config)
        self.actions = self.illegal_actions = 0

    def step(self, action: dict[str, int]) -> tuple:
        agent = self.env.agent_selection
        self.actions += 1
        self.illegal_actions += int(self.env.infos[agent]["action_mask"][action[agent]] == 0)
        return super().step(action)


@dataclass
class RunResult:
    env_steps: int
    module_steps_trained: dict[str, int]
    weights_changed: dict[str, bool]
    actions_checked: int  # actions the sampling envs received
    illegal_actions: int  # of those, the ones the acting seat's mask forbade
    checkpoint: Path


def run(rules: str = "knock", iterations: int = 20, batch: int = 4000, seed: int = 0,
        out: str | Path = "runs/rllib_multiagent") -> RunResult:
    algo = ppo_config(rules, batch, seed).environment(CountingEuchreEnv).build_algo()
    policies = ("team_0", "team_1")
    initial = {p: [w.detach().clone() for w in algo.get_module(p).parameters()] for p in policies}
    result, checkpoint = train(algo, iterations, out)
    changed = {p: any(not a.equal(b) for a, b in zip(initial[p], algo.get_module(p).parameters())) for p in policies}
    envs = [env.unwrapped for env in algo.env_runner.env.envs]  # num_env_runners=0: the local runner samples
    algo.stop()
    return RunResult(
        env_steps=int(result["env_runners"]["num_env_steps_sampled_lifetime"]),
        module_steps_trained={p: int(result["learners"][p]["num_module_steps_trained_lifetime"]) for p in policies},
        weights_changed=changed,
        actions_checked=sum(env.actions for env in envs),
        illegal_actions=sum(env.illegal_actions for env in envs),
        checkpoint=checkpoint,
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; a bad value ends it with one line (nothing heavy is needed to check it)."""
    # Imported here, not at the top: docs/integrations.md shows the import block as it is.
    from euchre_env.cli.arguments import OneLineParser, non_negative_int, positive_int
    from euchre_env.game.rules import PRESETS

    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock", choices=PRESETS, help="rule preset (default: knock)")
    parser.add_argument("--iterations", type=positive_int, default=20, help="training iterations")
    parser.add_argument("--batch", type=positive_int, default=4000, help="env steps (all seats) per iteration")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", default="runs/rllib_multiagent", help="checkpoint folder")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> RunResult:
    args = parse_args(argv)
    result = run(args.rules, args.iterations, args.batch, args.seed, args.out)
    print(f"{args.iterations} iterations, {result.env_steps} env steps, module steps trained "
          f"{result.module_steps_trained}, {result.illegal_actions} illegal actions of {result.actions_checked}; "
          f"checkpoint {result.checkpoint}")
    return result


if __name__ == "__main__":
    main()
