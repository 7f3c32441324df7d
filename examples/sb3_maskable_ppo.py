"""Train sb3-contrib's MaskablePPO on one team of Euchre against the rule-based agent, then
measure it with the project's duplicate evaluation.

Install the extra, then run from the repository root:

    pip install -c constraints.txt -e ".[sb3]"
    python examples/sb3_maskable_ppo.py                     # 50,000 steps, then 1,000 duplicate deals
    python examples/sb3_maskable_ppo.py --timesteps 256 --n-steps 128 --eval-deals 10   # smoke run

Team 0 of a ``SingleSeatEnv`` learns (both partner seats share the policy; one hand per
episode; reward: the team's points minus the other team's) and ``--opponent`` plays team 1:
an agent spec (``rules``, ``random``, ``pimc:N``, a trainer checkpoint ``.pt``) or a model saved
by this script (a ``.zip``).
``MaskablePPO`` reads the legal actions from the env's ``action_masks()``. The model is saved
as ``--out``/model.zip, then plays both seats of a team in a duplicate match against
``--eval-opponent`` (``euchre_env.evaluation.evaluate``: every deal twice, the teams swapped).

The lines between ``readme-start`` and ``readme-end`` comments are the snippet shown in docs/integrations.md.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

# readme-start: sb3
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from euchre_env import SingleSeatEnv
from euchre_env.evaluation.evaluate import MatchResult, evaluate

# readme-end: sb3


# readme-start: sb3
class MaskablePPOAgent:
    """A trained model as a project agent (agents/base.py): for evaluate() and as an opponent."""

    def __init__(self, model: MaskablePPO, name: str = "maskable_ppo") -> None:
        self.model, self.name = model, name

    def reset(self, seed: int | None = None) -> None:
        pass  # greedy play: nothing random to seed

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        mask = observation["action_mask"] == 1
        action, _ = self.model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)
# readme-end: sb3

    @classmethod
    def load(cls, path: str | Path) -> MaskablePPOAgent:
        return cls(MaskablePPO.load(path, device="cpu"), name=f"maskable_ppo:{Path(path).stem}")


# readme-start: sb3
def train(rules: str = "knock", opponent: Any = "rules", timesteps: int = 50_000, n_steps: int = 1024,
          seed: int = 0, callback: BaseCallback | None = None) -> tuple[MaskablePPO, SingleSeatEnv]:
    """Team 0 learns, one policy for both partner seats; ``opponent`` plays team 1."""
    env = SingleSeatEnv(rules, opponents=opponent, team=0, episode="hand")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=n_steps, batch_size=min(64, n_steps), seed=seed)
    model.learn(total_timesteps=timesteps, callback=callback)
    return model, env


def duplicate_match(model: MaskablePPO, rules: str = "knock", opponent: str = "rules", deals: int = 1000,
                    seed: int = 0) -> MatchResult:
    """The model holds both seats of a team; each deal is played twice with the teams swapped."""

    def maskable_ppo(seed: int | None) -> MaskablePPOAgent:  # an agent factory f(seed) -> agent
        return MaskablePPOAgent(model)

    return evaluate(maskable_ppo, opponent, rules, n=deals, seed=seed, workers=1)
# readme-end: sb3


class WeightWatch(BaseCallback):
    """Records whether training changed the policy's weights."""

    def _on_training_start(self) -> None:
        self.initial = [p.detach().clone() for p in self.model.policy.parameters()]

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self.changed = any(not a.equal(b) for a, b in zip(self.initial, self.model.policy.parameters()))


@dataclass
class RunResult:
    model_path: Path
    timesteps: int
    updates: int  # SB3's train/n_updates: PPO epochs over the rollouts, each of several gradient steps
    weights_changed: bool
    illegal_actions: int  # counted by the env (SingleSeatEnv penalizes an illegal action instead of raising)
    evaluation: MatchResult | None


def run(rules: str = "knock", opponent: str = "rules", timesteps: int = 50_000, n_steps: int = 1024, seed: int = 0,
        eval_deals: int = 1000, eval_opponent: str = "rules", out: str | Path = "runs/sb3_maskable_ppo") -> RunResult:
    opp = MaskablePPOAgent.load(opponent) if opponent.endswith(".zip") else opponent
    watch = WeightWatch()
    model, env = train(rules, opp, timesteps, n_steps, seed, callback=watch)
    path = Path(out) / "model.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    evaluation = duplicate_match(model, rules, eval_opponent, eval_deals, seed) if eval_deals else None
    return RunResult(path, model.num_timesteps, model._n_updates, watch.changed, env.num_illegal_actions, evaluation)


def opponent_spec(text: str) -> str:
    """--opponent: a model .zip saved by this script, or an agent spec (checked without building it)."""
    from euchre_env.cli.arguments import agent_spec  # here: docs/integrations.md shows the import block

    if text.endswith(".zip"):
        if not Path(text).is_file():
            raise argparse.ArgumentTypeError(f"no model file at {text!r} (a .zip saved by this script)")
        return text
    return agent_spec(text)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; a bad value ends it with one line (nothing heavy is needed to check it)."""
    # Imported here, not at the top: docs/integrations.md shows the import block as it is.
    from euchre_env.cli.arguments import OneLineParser, agent_spec, non_negative_int, positive_int
    from euchre_env.game.rules import PRESETS

    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="knock", choices=PRESETS, help="rule preset (default: knock)")
    parser.add_argument("--opponent", type=opponent_spec, default="rules", help="team 1 in training: agent spec "
                        "(rules, random, pimc:N, a checkpoint .pt) or a model .zip saved by this script")
    parser.add_argument("--timesteps", type=positive_int, default=50_000, help="learner decisions to train on")
    parser.add_argument("--n-steps", type=positive_int, default=1024, help="rollout length between PPO updates")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--eval-deals", type=non_negative_int, default=1000,
                        help="duplicate deals (0: no evaluation)")
    parser.add_argument("--eval-opponent", type=agent_spec, default="rules", help="agent spec to evaluate against")
    parser.add_argument("--out", default="runs/sb3_maskable_ppo", help="folder for model.zip")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> RunResult:
    args = parse_args(argv)
    result = run(args.rules, args.opponent, args.timesteps, args.n_steps, args.seed, args.eval_deals,
                 args.eval_opponent, args.out)
    print(f"trained {result.timesteps} steps: {result.updates} PPO updates, {result.illegal_actions} illegal "
          f"actions; saved {result.model_path}")
    if result.evaluation is not None:
        e = result.evaluation
        print(f"{e.agent_a} vs {e.agent_b}, {e.deals} duplicate deals: margin {e.margin:+.3f} "
              f"[{e.margin_low:+.3f}, {e.margin_high:+.3f}] points per hand, points share {e.points_share:.1%}")
    return result


if __name__ == "__main__":
    main()
