"""Train sb3-contrib's MaskablePPO on one team of Euchre against the rule-based agent, then
measure it with the project's duplicate evaluation.

Install the extra, then run from the repository root:

    pip install -c constraints.txt -e ".[sb3]"
    python examples/sb3_maskable_ppo.py                     # 50,000 steps, then 1,000 duplicate deals
    python examples/sb3_maskable_ppo.py --timesteps 256 --n-steps 128 --eval-deals 10   # smoke run

Team 0 learns in ``--num-envs`` games at once: ``SB3VecEnv``, SB3's ``VecEnv`` over a
``SingleSeatVectorEnv`` (both partner seats share the policy; one hand per episode; reward: the
team's points minus the other team's). ``--opponent`` plays team 1 inside each step, on the
compiled engine: an agent spec with a compiled twin (``rules``, ``random``, a trainer checkpoint
``.pt``). An opponent without one (``pimc:N``, a model ``.zip`` saved by this script) plays one
game at a time on ``SingleSeatEnv`` instead, many times slower.
``MaskablePPO`` reads the legal actions from the env's ``action_masks()``; it updates every
``--n-steps`` learner decisions, shared among the games. The model is saved as ``--out``/model.zip,
then plays both seats of a team in a duplicate match against ``--eval-opponent``
(``euchre_env.evaluation.evaluate``: every deal twice, the teams swapped).

The lines between ``readme-start`` and ``readme-end`` comments are the snippet shown in docs/integrations.md.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

# readme-start: sb3
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from euchre_env import SingleSeatVectorEnv
from euchre_env.envs.sb3_vec_env import SB3VecEnv
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
        action, _ = self.model.predict(observation["observation"], action_masks=mask, deterministic=True)
        return int(action)
# readme-end: sb3

    @classmethod
    def load(cls, path: str | Path) -> MaskablePPOAgent:
        return cls(MaskablePPO.load(path, device="cpu"), name=f"maskable_ppo:{Path(path).stem}")


# readme-start: sb3
def make_env(rules: str = "knock", opponent: Any = "rules", num_envs: int = 64) -> VecEnv:
    """Team 0 learns in ``num_envs`` games at once, one policy for both partner seats; ``opponent`` plays team 1
    inside each step."""
    games = SingleSeatVectorEnv(rules, num_envs, learner="team", seat=0, opponents=opponent, episode="hand")
    return VecMonitor(SB3VecEnv(games))  # VecMonitor: SB3's episode statistics (rollout/ep_rew_mean)


def train(env: VecEnv, timesteps: int = 50_000, n_steps: int = 1024, seed: int = 0,
          callback: BaseCallback | None = None) -> MaskablePPO:
    """A PPO update every ``n_steps`` learner decisions, shared among the env's games (at least one each)."""
    per_game = max(1, n_steps // env.num_envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=per_game, batch_size=min(64, n_steps), seed=seed)
    model.learn(total_timesteps=timesteps, callback=callback)  # seed=: the env's games are reset with it
    return model


def duplicate_match(model: MaskablePPO, rules: str = "knock", opponent: str = "rules", deals: int = 1000,
                    seed: int = 0) -> MatchResult:
    """The model holds both seats of a team; each deal is played twice with the teams swapped."""

    def maskable_ppo(seed: int | None) -> MaskablePPOAgent:  # an agent factory f(seed) -> agent
        return MaskablePPOAgent(model)

    return evaluate(maskable_ppo, opponent, rules, n=deals, seed=seed, workers=1)
# readme-end: sb3


def has_compiled_twin(rules: str, opponent: Any) -> bool:
    """Whether ``opponent`` can play many games at once (agents/base.py's ``batch_twin``)."""
    from euchre_env.agents.base import batch_twin
    from euchre_env.agents.registry import make_agent
    from euchre_env.game.rules import Rules

    return batch_twin(make_agent(opponent) if isinstance(opponent, str) else opponent, Rules.preset(rules)) is not None


def one_game_env(rules: str, opponent: Any) -> VecEnv:
    """Team 0 in one ``SingleSeatEnv`` (the observation vector alone, as on the fast path), for an opponent
    with no compiled twin: it is asked one decision at a time."""
    from gymnasium.wrappers import TransformObservation
    from stable_baselines3.common.vec_env import DummyVecEnv

    from euchre_env import SingleSeatEnv

    def make() -> TransformObservation:
        env = SingleSeatEnv(rules, opponents=opponent, team=0, episode="hand")
        return TransformObservation(env, lambda obs: obs["observation"], env.observation_space["observation"])

    return VecMonitor(DummyVecEnv([make]))


class Watch(BaseCallback):
    """Records whether training changed the policy's weights, and counts actions outside the masks."""

    illegal = 0

    def _on_training_start(self) -> None:
        self.initial = [p.detach().clone() for p in self.model.policy.parameters()]

    def _on_step(self) -> bool:
        actions, masks = self.locals["actions"], self.locals["action_masks"]  # this step's, in collect_rollouts
        self.illegal += int((~masks[np.arange(len(actions)), actions.reshape(-1)]).sum())
        return True

    def _on_training_end(self) -> None:
        self.changed = any(not a.equal(b) for a, b in zip(self.initial, self.model.policy.parameters()))


@dataclass
class RunResult:
    model_path: Path
    timesteps: int
    num_envs: int  # games stepped at once: 1 for an opponent with no compiled twin
    seconds: float  # wall time of MaskablePPO.learn
    updates: int  # SB3's train/n_updates: PPO epochs over the rollouts, each of several gradient steps
    weights_changed: bool
    illegal_actions: int  # actions outside the masks (the vector env would refuse one, SingleSeatEnv penalize it)
    evaluation: MatchResult | None


def run(rules: str = "knock", opponent: str = "rules", timesteps: int = 50_000, n_steps: int = 1024,
        num_envs: int = 64, seed: int = 0, eval_deals: int = 1000, eval_opponent: str = "rules",
        out: str | Path = "runs/sb3_maskable_ppo") -> RunResult:
    opp = MaskablePPOAgent.load(opponent) if opponent.endswith(".zip") else opponent
    env = make_env(rules, opp, num_envs) if has_compiled_twin(rules, opp) else one_game_env(rules, opp)
    watch = Watch()
    start = time.perf_counter()
    model = train(env, timesteps, n_steps, seed, callback=watch)
    seconds = time.perf_counter() - start
    path = Path(out) / "model.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    evaluation = duplicate_match(model, rules, eval_opponent, eval_deals, seed) if eval_deals else None
    return RunResult(path, model.num_timesteps, env.num_envs, seconds, model._n_updates, watch.changed,
                     watch.illegal, evaluation)


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
    parser.add_argument("--n-steps", type=positive_int, default=1024,
                        help="learner decisions between PPO updates, shared among the games")
    parser.add_argument("--num-envs", type=positive_int, default=64,
                        help="games stepped at once (default: 64); must divide --n-steps")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--eval-deals", type=non_negative_int, default=1000,
                        help="duplicate deals (0: no evaluation)")
    parser.add_argument("--eval-opponent", type=agent_spec, default="rules", help="agent spec to evaluate against")
    parser.add_argument("--out", default="runs/sb3_maskable_ppo", help="folder for model.zip")
    args = parser.parse_args(argv)
    if args.n_steps % args.num_envs:
        parser.error(f"argument --n-steps: {args.n_steps} is not a multiple of --num-envs {args.num_envs}")
    return args


def main(argv: list[str] | None = None) -> RunResult:
    args = parse_args(argv)
    result = run(args.rules, args.opponent, args.timesteps, args.n_steps, args.num_envs, args.seed, args.eval_deals,
                 args.eval_opponent, args.out)
    games = f"{result.num_envs} games at once" if result.num_envs > 1 else "one game at a time"
    print(f"trained {result.timesteps} steps, {games} ({result.seconds:.1f} s, "
          f"{result.timesteps / result.seconds:,.0f} steps/s): {result.updates} PPO updates, "
          f"{result.illegal_actions} illegal actions; saved {result.model_path}")
    if result.evaluation is not None:
        e = result.evaluation
        print(f"{e.agent_a} vs {e.agent_b}, {e.deals} duplicate deals: margin {e.margin:+.3f} "
              f"[{e.margin_low:+.3f}, {e.margin_high:+.3f}] points per hand, points share {e.points_share:.1%}")
    return result


if __name__ == "__main__":
    main()
