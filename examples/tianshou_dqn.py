"""Train a masked DQN with Tianshou, through its PettingZoo wrapper, on one team of Euchre
against the rule-based agent.

Install the extra, then run from the repository root:

    pip install -c constraints.txt -e ".[tianshou]"
    python examples/tianshou_dqn.py                                           # 10 epochs of 5,000 steps
    python examples/tianshou_dqn.py --epochs 2 --epoch-steps 64 --envs 2 --test-episodes 2   # smoke run

The env is ``SingleSeatAEC``: the AEC view of a ``SingleSeatEnv`` whose agents are the two
seats of team 0, while ``--opponent`` plays team 1 inside each step. Tianshou's
``PettingZooEnv`` credits a transition with the reward of its own step and takes the next
agent's observation as its next observation; with the four-seat AEC env both would be wrong
(the hand rewards that land on another seat's card would be lost, and the next observation
would often be an opponent's). Here the next agent is always the team again, and each
step's reward is all the team got until then. One DQN plays both seats (the same algorithm
for both agents); it masks illegal actions through the wrapper's ``obs.mask``, in its
choice, its exploration and the target's max.

Tianshou compiles its replay-buffer helpers with numba on first use (about 15 s here);
``NUMBA_DISABLE_JIT=1`` skips that for short runs. The lines between ``readme-start`` and
``readme-end`` comments are the snippet shown in docs/integrations.md.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

# readme-start: tianshou
import numpy as np
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, InfoStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from euchre_env.envs.single_seat import SingleSeatAEC, SingleSeatEnv


def make_env(rules: str = "knock", opponent: str = "rules") -> PettingZooEnv:
    """Team 0's two seats are the agents; ``opponent`` plays team 1 inside each step."""
    return PettingZooEnv(SingleSeatAEC(SingleSeatEnv(rules, opponents=opponent, team=0, episode="hand")))


def team_dqn(env: PettingZooEnv, seed: int = 0) -> MultiAgentOffPolicyAlgorithm:
    """One masked DQN, the same algorithm for both agents (seats) of the team."""
    np.random.seed(seed)  # Tianshou's epsilon-greedy draws from numpy's global generator
    torch.manual_seed(seed)
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, target_update_freq=200)
    return MultiAgentOffPolicyAlgorithm(algorithms=[dqn] * len(env.agents), env=env)


def train(algorithm: MultiAgentOffPolicyAlgorithm, rules: str = "knock", opponent: str = "rules", epochs: int = 10,
          epoch_steps: int = 5000, num_envs: int = 4, test_episodes: int = 100, seed: int = 0,
          verbose: bool = True) -> tuple[InfoStats, DummyVectorEnv, DummyVectorEnv]:
    train_envs = DummyVectorEnv([lambda: make_env(rules, opponent)] * num_envs)
    test_envs = DummyVectorEnv([lambda: make_env(rules, opponent)] * num_envs)
    train_envs.seed(seed)
    test_envs.seed(seed + num_envs)
    stats = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=Collector(algorithm, train_envs, VectorReplayBuffer(20_000, num_envs),
                                     exploration_noise=True),
        test_collector=Collector(algorithm, test_envs),
        max_epochs=epochs, epoch_num_steps=epoch_steps, collection_step_num_env_steps=4 * num_envs,
        update_step_num_gradient_steps_per_sample=0.25, batch_size=64, test_step_num_episodes=test_episodes,
        multi_agent_return_reduction=lambda returns: returns[:, 0],  # both agents hold the team's return
        verbose=verbose, show_progress=verbose,
    ))
    return stats, train_envs, test_envs
# readme-end: tianshou


@dataclass
class RunResult:
    env_steps: int
    update_steps: int  # Tianshou's update steps, each of several gradient steps
    weights_changed: bool
    illegal_actions: int  # counted by the envs (SingleSeatEnv penalizes an illegal action instead of raising)
    test_reward: float  # mean team reward per hand of greedy play after training
    model_path: Path


def run(rules: str = "knock", opponent: str = "rules", epochs: int = 10, epoch_steps: int = 5000, seed: int = 0,
        num_envs: int = 4, test_episodes: int = 100, out: str | Path = "runs/tianshou_dqn",
        verbose: bool = True) -> RunResult:
    algorithm = team_dqn(make_env(rules, opponent), seed)
    initial = [p.detach().clone() for p in algorithm.parameters()]
    stats, train_envs, test_envs = train(algorithm, rules, opponent, epochs, epoch_steps, num_envs, test_episodes,
                                         seed, verbose)
    changed = any(not a.equal(b) for a, b in zip(initial, algorithm.parameters()))
    path = Path(out) / "dqn.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(algorithm.state_dict(), path)
    final = Collector(algorithm, test_envs).collect(n_episode=test_episodes, reset_before_collect=True)
    # get_env_attr("env") gives each worker's SingleSeatAEC (what PettingZooEnv wraps).
    illegal = sum(aec.env.num_illegal_actions for envs in (train_envs, test_envs) for aec in envs.get_env_attr("env"))
    return RunResult(stats.train_step, stats.update_step, changed, illegal, float(final.returns[:, 0].mean()), path)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; a bad value ends it with one line (nothing heavy is needed to check it)."""
    # Imported here, not at the top: docs/integrations.md shows the import block as it is.
    from euchre_env.cli.arguments import OneLineParser, agent_spec, non_negative_int, positive_int
    from euchre_env.game.rules import PRESETS

    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock", choices=PRESETS, help="rule preset (default: knock)")
    parser.add_argument("--opponent", type=agent_spec, default="rules",
                        help="agent spec playing team 1 (rules, random, pimc:N)")
    parser.add_argument("--epochs", type=positive_int, default=10)
    parser.add_argument("--epoch-steps", type=positive_int, default=5000, help="env steps (team decisions) per epoch")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--envs", type=positive_int, default=4, help="training envs, and as many test envs")
    parser.add_argument("--test-episodes", type=positive_int, default=100,
                        help="greedy test hands after each epoch")
    parser.add_argument("--out", default="runs/tianshou_dqn", help="folder for dqn.pt")
    parser.add_argument("--quiet", action="store_true", help="no per-epoch output")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> RunResult:
    args = parse_args(argv)
    result = run(args.rules, args.opponent, args.epochs, args.epoch_steps, args.seed, args.envs, args.test_episodes,
                 args.out, verbose=not args.quiet)
    print(f"{result.env_steps} env steps, {result.update_steps} update steps, {result.illegal_actions} illegal "
          f"actions, greedy test: {result.test_reward:+.3f} points per hand vs {args.opponent}; "
          f"saved {result.model_path}")
    return result


if __name__ == "__main__":
    main()
