"""Masked PPO with TorchRL's own pieces on ``SingleSeatTorchRLEnv``: one team of Euchre learns against the rule-based
agent, then ``euchre eval`` measures it on duplicate deals it never saw (the ``[torchrl]`` extra).

    python examples/torchrl_ppo.py                              # 25 minutes, then 10,000 duplicate deals
    python examples/torchrl_ppo.py --minutes 0.2 --eval-deals 50   # smoke run

TorchRL does the work: its ``Collector`` (0.14's in-process collector, where older releases had
``SyncDataCollector``) steps ``--num-envs`` games of :class:`euchre_env.torchrl.SingleSeatTorchRLEnv` (team 0's two
seats, one policy: ``learner="team"``; team 1 is ``--opponent``, played inside each step on the compiled engine),
a ``ProbabilisticActor`` samples from a
``MaskedCategorical`` over the logits and the TensorDict's ``"action_mask"``, ``GAE`` gives the advantages and
``ClipPPOLoss`` the loss. The actor first clones the rule-based agent's choices (``--clone-decisions``, read from
the env's own games: ``env.games.agent_actions("rules")``), then PPO improves on it. The actor is the project's
``PolicyNet``, so the result is a checkpoint that every tool of the project plays (``euchre eval OUT/torchrl.pt
rules``); docs/integrations.md has the run's result.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.cli.arguments import OneLineParser
from euchre_env.envs.agent_specs import make_agent_from_spec
from euchre_env.game.rules import Rules
from euchre_env.torchrl import SingleSeatTorchRLEnv


@dataclass
class Config:
    preset: str = "knock"
    opponent: str = "rules"  # an agent spec with a compiled twin: rules, random, a checkpoint .pt
    minutes: float = 25.0  # training time, the cloning included; the evaluation comes after
    clone_decisions: int = 300_000  # first clone the rule-based agent's choices at this many decisions (0: no)
    clone_epochs: int = 5
    seed: int = 1
    num_envs: int = 512  # games stepped at once
    num_steps: int = 32  # learner decisions per game per batch: frames_per_batch = num_envs * num_steps
    hidden: int = 256
    lr: float = 2e-4  # PPO refines the cloned policy
    gamma: float = 1.0  # one hand an episode: its points are the return
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatch_size: int = 4096
    clip_epsilon: float = 0.2
    entropy_coeff: float = 0.003
    critic_coeff: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 0.25  # points (up to 4 a hand) to about unit scale
    torch_threads: int = 1
    eval_deals: int = 10_000  # duplicate deals of euchre eval, each played twice
    eval_seed: int = 90_210  # never used by training
    out: str = "runs/torchrl_ppo"


POSITIVE = {"minutes", "num_envs", "num_steps", "hidden", "lr", "update_epochs", "minibatch_size", "torch_threads"}


def _number(kind: type, name: str) -> Callable[[str], Any]:
    """An argparse type: a ``kind``, positive where ``name`` must be, non-negative else."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if value < 0 or (name in POSITIVE and value == 0):
            raise argparse.ArgumentTypeError(f"expected a {'positive' if name in POSITIVE else 'non-negative'} "
                                             f"{kind.__name__}, got {text!r}")
        return value
    return parse


def _opponent(text: str) -> str:
    try:
        agent = make_agent_from_spec(text)  # an unknown spec or a missing checkpoint: one line
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if getattr(agent, "batch_twin", None) is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no compiled twin to play in the vector env (random, rules and "
                                         "checkpoints have one)")
    return text


def parse_config(argv: list[str] | None = None) -> Config:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])  # errors in one line
    for f in fields(Config):
        kind = type(f.default)
        parser.add_argument("--" + f.name.replace("_", "-"), default=f.default, type=_opponent
                            if f.name == "opponent" else str if kind is str else _number(kind, f.name))
    return Config(**vars(parser.parse_args(argv)))


@dataclass
class Result:
    decisions: int
    updates: int
    weights_changed: bool
    checkpoint: Path
    evaluation: Path  # euchre eval's eval.json


def make_modules(env: SingleSeatTorchRLEnv, hidden: int) -> tuple[PolicyNet, ProbabilisticActor, ValueOperator]:
    """The actor (the project's ``PolicyNet`` giving logits, masked by ``MaskedCategorical``) and the critic."""
    obs_size = env.observation_spec["observation"].shape[-1]
    num_actions = env.action_spec.space.n
    net = PolicyNet(obs_size, num_actions, [hidden, hidden], dense=True)
    actor = ProbabilisticActor(
        TensorDictModule(net, in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},  # MaskedCategorical(logits=..., mask=...)
        distribution_class=MaskedCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )
    critic = ValueOperator(nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                                         nn.Tanh(), nn.Linear(hidden, 1)), in_keys=["observation"])
    return net, actor, critic


def clone_rules(env: SingleSeatTorchRLEnv, net: PolicyNet, cfg: Config, deadline: float) -> None:
    """Behaviour cloning: the rule-based agent's compiled twin chooses at the learner's decisions (in the learner's
    frame) for ``clone_decisions`` decisions, stepped through the TorchRL env; the actor learns its choices by
    cross-entropy. Both stop at ``deadline``: ``--minutes`` counts the cloning."""
    steps, start = -(-cfg.clone_decisions // env.batch_size[0]), time.time()
    env.set_seed(cfg.seed + 1)  # deals of their own
    td = env.reset()
    xs, masks, targets = [], [], []
    for step in range(steps):
        if step and time.time() >= deadline:
            break
        td["action"] = torch.from_numpy(env.games.agent_actions("rules"))
        xs.append(td["observation"])
        masks.append(td["action_mask"])
        targets.append(td["action"])
        _, td = env.step_and_maybe_reset(td)
    x, mask, y = torch.cat(xs), torch.cat(masks), torch.cat(targets)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _epoch in range(cfg.clone_epochs):
        for idx in torch.randperm(x.shape[0]).split(1024):
            if time.time() >= deadline:
                break
            loss = nn.functional.cross_entropy(net.masked_logits(x[idx], mask[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        agree = (net.masked_logits(x, mask).argmax(-1) == y).float().mean().item()
    print(f"cloned the rule-based agent: {x.shape[0]:,} decisions, {agree:.1%} of its choices matched, "
          f"{time.time() - start:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> Result:
    cfg = parse_config(argv)
    print(f"torchrl_ppo: {cfg.minutes:g} min of training on {cfg.preset} against {cfg.opponent}, {cfg.num_envs} games "
          "at once", flush=True)
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    env = SingleSeatTorchRLEnv(cfg.preset, num_envs=cfg.num_envs, learner="team", opponents=cfg.opponent,
                               observation="structured", seed=cfg.seed)
    net, actor, critic = make_modules(env, cfg.hidden)
    first_weights = [p.detach().clone() for p in net.parameters()]
    start = time.time()
    deadline = start + cfg.minutes * 60
    if cfg.clone_decisions:
        clone_rules(env, net, cfg, deadline)

    env.set_seed(cfg.seed)
    advantage = GAE(gamma=cfg.gamma, lmbda=cfg.gae_lambda, value_network=critic, average_gae=False)
    loss_module = ClipPPOLoss(actor, critic, clip_epsilon=cfg.clip_epsilon, entropy_coeff=cfg.entropy_coeff,
                              critic_coeff=cfg.critic_coeff, loss_critic_type="l2", normalize_advantage=True)
    optimizer = torch.optim.Adam(loss_module.parameters(), lr=cfg.lr, eps=1e-5)
    # return_same_td: each batch is used before the next is asked for, so the collector's buffer needs no copy;
    # no InitTracker (which TorchRL 0.14 asks for of every policy): this one keeps no state between steps
    collector = Collector(env, actor, frames_per_batch=cfg.num_envs * cfg.num_steps, return_same_td=True,
                          auto_register_policy_transforms=False)
    decisions = updates = 0
    printed = 0.0
    hand_points: list[torch.Tensor] = []
    for data in collector:
        decisions += data.numel()
        done = data["next", "done"].squeeze(-1)
        hand_points.append(data["next", "reward"].squeeze(-1)[done])  # the team's points of each hand that ended
        data["next", "reward"].mul_(cfg.reward_scale)
        optimizer.param_groups[0]["lr"] = cfg.lr * max(0.05, 1.0 - (time.time() - start) / (cfg.minutes * 60))
        for _epoch in range(cfg.update_epochs):
            with torch.no_grad():
                advantage(data)  # GAE over the time dimension, an episode's end cutting the bootstrap
            flat = data.reshape(-1)
            for idx in torch.randperm(flat.numel()).split(cfg.minibatch_size):
                losses = loss_module(flat[idx])
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_module.parameters(), cfg.max_grad_norm)
                optimizer.step()
        updates += 1
        now = time.time()
        if updates == 1 or now - printed >= 30 or now >= deadline:
            printed = now
            recent = torch.cat(hand_points[-20:])
            print(f"update {updates:5d}  {decisions:>11,} decisions  {decisions / (now - start):7,.0f}/s  points a "
                  f"hand vs {cfg.opponent} (sampled, last {recent.numel():,} hands): {recent.mean().item():+.3f}",
                  flush=True)
        if now >= deadline:
            break
    collector.shutdown()

    path = out / "torchrl.pt"
    save_checkpoint(model_payload(net, Rules.preset(cfg.preset), "structured"), str(path))
    print(f"trained {decisions:,} decisions in {(time.time() - start) / 60:.1f} min; saved {path}", flush=True)
    # The project's duplicate match on a seed training never used: every deal twice, the teams swapped.
    command = [sys.executable, "-m", "euchre_env.cli", "eval", str(path), cfg.opponent, "--hands",
               str(cfg.eval_deals), "--seed", str(cfg.eval_seed), "--no-progress", "--out", str(out / "eval")]
    print("$ euchre eval " + " ".join(command[4:]), flush=True)
    subprocess.run(command, check=True)
    changed = any(not torch.equal(a, b) for a, b in zip(first_weights, net.parameters()))
    return Result(decisions, updates, changed, path, out / "eval" / "eval.json")


if __name__ == "__main__":
    main()
