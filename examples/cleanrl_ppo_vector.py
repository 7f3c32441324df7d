"""Masked PPO in one file, CleanRL style, on ``SingleSeatVectorEnv``: one team of Euchre learns against the
rule-based agent, then ``euchre eval`` measures it on duplicate deals it never saw.

    python examples/cleanrl_ppo_vector.py                        # 30 minutes, then 10,000 duplicate deals
    python examples/cleanrl_ppo_vector.py --minutes 0.2 --eval-deals 50   # smoke run
    python examples/cleanrl_ppo_vector.py --clone-decisions 0 --lr 3e-4 --ent-coef 0.01   # from scratch

The actor first clones the rule-based agent's choices (``--clone-decisions``, a few seconds), then PPO
improves on it; docs/integrations.md has both runs' results.

Read it top to bottom: the config, the network, the rollout, the update. Team 0 (both partner seats, one
policy: ``learner="team"``) plays ``--num-envs`` games at once against ``--opponent`` (team 1, on the compiled
engine inside each ``step``); one hand an episode, the reward the team's points minus the other team's. The
observation is the structured one (the acting seat's canonical suit frame), the action mask comes in
``infos["action_mask"]`` and masks the logits. The actor is the project's ``PolicyNet`` in its plain-torch form,
so the result is a checkpoint that every tool of the project plays: ``euchre eval OUT/cleanrl.pt rules``.
TensorBoard scalars go to ``OUT/tb`` when tensorboard is installed (``charts/``, ``losses/``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from euchre_env import SingleSeatVectorEnv
from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.cli.arguments import OneLineParser
from euchre_env.envs.agent_specs import make_agent_from_spec
from euchre_env.game.rules import Rules


@dataclass
class Config:
    preset: str = "knock"
    opponent: str = "rules"  # any agent spec with a compiled twin: rules, random, a checkpoint .pt
    minutes: float = 30.0  # training time (the cloning included); the evaluation comes after
    clone_decisions: int = 300_000  # first clone the rule-based agent's choices at this many decisions (0: no)
    clone_epochs: int = 5
    seed: int = 1
    num_envs: int = 512  # games stepped at once
    num_steps: int = 32  # learner decisions per game per rollout: a batch of num_envs * num_steps
    hidden: int = 256
    lr: float = 2e-4  # PPO refines the cloned policy (from scratch: 3e-4 and ent_coef 0.01)
    anneal_lr: bool = True
    gamma: float = 1.0  # one hand an episode: its points are the return
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatch_size: int = 4096
    clip_coef: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 0.25  # points (up to 4 a hand) to about unit scale
    torch_threads: int = 1
    eval_deals: int = 10_000  # duplicate deals of euchre eval, each played twice
    eval_seed: int = 90_210  # never used by training
    out: str = "runs/cleanrl_ppo"


POSITIVE = {"minutes", "num_envs", "num_steps", "hidden", "lr", "update_epochs", "minibatch_size", "torch_threads"}


def _typed(kind: type, name: str) -> Any:
    """An argparse type: ``kind`` (a bool from true/false), positive where ``name`` must be, non-negative else."""
    def parse(text: str) -> Any:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
            return text.lower() in ("true", "1")
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if value < 0 or (name in POSITIVE and value == 0):
            raise argparse.ArgumentTypeError(f"expected a {'positive' if name in POSITIVE else 'non-negative'} "
                                             f"{kind.__name__}, got {text!r}")
        return value
    return parse


def _agent_spec(text: str) -> str:
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
        flag = "--" + f.name.replace("_", "-")
        kind = type(f.default)
        parser.add_argument(flag, type=_agent_spec if f.name == "opponent" else str if kind is str
                            else _typed(kind, f.name), default=f.default)
    return Config(**vars(parser.parse_args(argv)))


@dataclass
class Result:
    decisions: int
    updates: int
    weights_changed: bool
    checkpoint: Path
    evaluation: Path  # euchre eval's eval.json


class Agent(nn.Module):
    """The actor (a ``PolicyNet`` in torch's own layers, what a checkpoint holds) and a critic of the same view."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.actor = PolicyNet(obs_size, num_actions, [hidden, hidden], dense=True)
        self.critic = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                    nn.Linear(hidden, 1))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        dist = torch.distributions.Categorical(logits=self.actor.masked_logits(obs, mask))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def tensorboard(folder: Path) -> Any:  # a SummaryWriter, or None without tensorboard
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder))


def clone_rules(envs: SingleSeatVectorEnv, agent: Agent, cfg: Config, deadline: float) -> None:
    """Behaviour cloning: the rule-based agent plays the learner's seats (its compiled twin, in the learner's
    action frame) for ``clone_decisions`` decisions; the actor learns its choices by cross-entropy. Both stop at
    ``deadline`` (``time.time()``): ``--minutes`` counts the cloning."""
    steps, start = -(-cfg.clone_decisions // envs.num_envs), time.time()
    print(f"cloning the rule-based agent: {steps * envs.num_envs:,} decisions of its play, then {cfg.clone_epochs} "
          "epochs", flush=True)
    obs, infos = envs.reset(seed=cfg.seed + 1)  # deals of their own
    xs, masks, targets = [], [], []
    for step in range(steps):
        if step and time.time() >= deadline:  # one step at least: something to fit
            break
        target = envs.agent_actions("rules")
        xs.append(torch.from_numpy(obs))
        masks.append(torch.from_numpy(infos["action_mask"]).bool())
        targets.append(torch.from_numpy(target))
        obs, _, _, _, infos = envs.step(target)
    x, mask, y = torch.cat(xs), torch.cat(masks), torch.cat(targets)
    print(f"cloning: recorded {x.shape[0]:,} decisions in {time.time() - start:.0f} s", flush=True)
    optimizer = torch.optim.Adam(agent.actor.parameters(), lr=1e-3)
    for epoch in range(cfg.clone_epochs):
        for idx in torch.randperm(x.shape[0]).split(1024):
            if time.time() >= deadline:
                break
            loss = nn.functional.cross_entropy(agent.actor.masked_logits(x[idx], mask[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        late = time.time() >= deadline
        print(f"cloning: epoch {epoch + 1}/{cfg.clone_epochs}{', time is up' if late else ''}, "
              f"{time.time() - start:.0f} s", flush=True)
        if late:
            break
    with torch.no_grad():
        agree = (agent.actor.masked_logits(x, mask).argmax(-1) == y).float().mean().item()
    print(f"cloned the rule-based agent: {x.shape[0]:,} decisions, {agree:.1%} of its choices matched", flush=True)


def main(argv: list[str] | None = None) -> Result:
    cfg = parse_config(argv)
    # A line at once: the envs' first reset may compile the engine's kernels (minutes, once per machine)
    print(f"cleanrl_ppo_vector: {cfg.minutes:g} min of training on {cfg.preset} against {cfg.opponent}, "
          f"{cfg.num_envs} games at once; starting the envs", flush=True)
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    writer = tensorboard(out / "tb")

    envs = SingleSeatVectorEnv(cfg.preset, num_envs=cfg.num_envs, learner="team", opponents=cfg.opponent,
                               observation="structured", seed=cfg.seed)
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_size, num_actions, cfg.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    first_weights = [p.detach().clone() for p in agent.actor.parameters()]
    envs.reset(seed=cfg.seed)  # loads those kernels (seconds each time, minutes once) before the clock starts
    start = time.time()  # the clock runs from here: the cloning counts against --minutes
    deadline = start + cfg.minutes * 60
    if cfg.clone_decisions:
        clone_rules(envs, agent, cfg, deadline)

    n, t_len = cfg.num_envs, cfg.num_steps
    obs_buf = torch.zeros((t_len, n, obs_size))
    mask_buf = torch.zeros((t_len, n, num_actions), dtype=torch.bool)
    act_buf = torch.zeros((t_len, n), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((t_len, n)) for _ in range(4))

    obs, infos = envs.reset(seed=cfg.seed)
    next_obs, next_mask = torch.from_numpy(obs), torch.from_numpy(infos["action_mask"]).bool()
    decisions = update = 0
    printed = 0.0  # when the last progress line went out
    hand_points: list[float] = []
    while time.time() < deadline:
        update += 1
        if cfg.anneal_lr:  # to zero at the deadline
            optimizer.param_groups[0]["lr"] = cfg.lr * max(0.05, 1.0 - (time.time() - start) / (cfg.minutes * 60))

        # ---- rollout: num_steps learner decisions in every game
        for t in range(t_len):
            obs_buf[t], mask_buf[t] = next_obs, next_mask
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            rew_buf[t] = torch.from_numpy(reward * cfg.reward_scale)
            done = terminated | truncated
            done_buf[t] = torch.from_numpy(done.astype(np.float32))  # the episode ended after decision t
            hand_points.extend(reward[done].tolist())
            next_obs, next_mask = torch.from_numpy(obs), torch.from_numpy(infos["action_mask"]).bool()
        decisions += n * t_len

        # ---- advantages (GAE); an episode's end cuts the bootstrap
        with torch.no_grad():
            next_value = agent.value(next_obs)
            adv = torch.zeros_like(rew_buf)
            last = torch.zeros(n)
            for t in reversed(range(t_len)):
                following = next_value if t == t_len - 1 else val_buf[t + 1]
                live = 1.0 - done_buf[t]
                delta = rew_buf[t] + cfg.gamma * following * live - val_buf[t]
                last = delta + cfg.gamma * cfg.gae_lambda * live * last
                adv[t] = last
            returns = adv + val_buf

        # ---- PPO update over the flattened batch
        b_obs, b_mask = obs_buf.reshape(-1, obs_size), mask_buf.reshape(-1, num_actions)
        b_act, b_logp, b_adv, b_ret = act_buf.reshape(-1), logp_buf.reshape(-1), adv.reshape(-1), returns.reshape(-1)
        batch = b_obs.shape[0]
        for _epoch in range(cfg.update_epochs):
            for idx in torch.randperm(batch).split(cfg.minibatch_size):
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                mb_adv = b_adv[idx]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - cfg.ent_coef * entropy.mean() + cfg.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
                optimizer.step()

        elapsed = time.time() - start
        recent = float(np.mean(hand_points[-5000:])) if hand_points else 0.0
        if writer is not None:
            writer.add_scalar("charts/points_per_hand", recent, decisions)
            writer.add_scalar("charts/decisions_per_s", decisions / elapsed, decisions)
            writer.add_scalar("losses/policy", pg_loss.item(), decisions)
            writer.add_scalar("losses/value", v_loss.item(), decisions)
            writer.add_scalar("losses/entropy", entropy.mean().item(), decisions)
        if update == 1 or time.time() - printed >= 30:  # a line after the first update, then every 30 s
            printed = time.time()
            print(f"update {update:5d}  {decisions:>11,} decisions  {decisions / elapsed:7,.0f}/s  "
                  f"points a hand vs {cfg.opponent} (last 5,000 hands): {recent:+.3f}", flush=True)

    path = out / "cleanrl.pt"
    save_checkpoint(model_payload(agent.actor, Rules.preset(cfg.preset), "structured"), str(path))
    print(f"trained {decisions:,} decisions in {(time.time() - start) / 60:.1f} min; saved {path}", flush=True)
    if writer is not None:
        writer.close()
    # The project's duplicate match on a seed training never used: every deal twice, the teams swapped.
    command = [sys.executable, "-m", "euchre_env.cli", "eval", str(path), cfg.opponent, "--hands",
               str(cfg.eval_deals), "--seed", str(cfg.eval_seed), "--no-progress", "--out", str(out / "eval")]
    print("$ euchre eval " + " ".join(command[4:]), flush=True)
    subprocess.run(command, check=True)
    changed = any(not torch.equal(a, b) for a, b in zip(first_weights, agent.actor.parameters()))
    return Result(decisions, update, changed, path, out / "eval" / "eval.json")


if __name__ == "__main__":
    main()
