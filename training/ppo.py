"""PPO: advantages over each seat's own decisions, clipped policy epochs, and the run's update phase.

:class:`PPOUpdate` is the trainer's default phase (due whenever no other is): collect a rollout against the league
(the run's), run the epochs on it (:func:`ppo_update`) with the optimizer of :func:`make_optimizer` at the step's
learning rates, count and log it, and hand the update back to the run (snapshot, evaluation, checkpoint).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from euchre_env.agents.neural.belief import belief_loss
from euchre_env.agents.neural.network import ActorCritic, log_prob_and_entropy, matmul_precision
from euchre_env.agents.neural.sparse_input import SparseRows
from euchre_env.compiled.native import extension
from euchre_env.training.config import PPOConfig
from euchre_env.training.oracle import Oracle
from euchre_env.training.phase import PhaseResult
from euchre_env.training.selfplay import Rollout

if TYPE_CHECKING:
    from euchre_env.training.interrupt import InterruptGuard
    from euchre_env.training.train import Trainer

_kernels = extension("agents.neural._kernels")  # the networks' CPU kernels, the advantages' pass among them


def advantages(rollout: Rollout, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's decision sequence within a hand; returns (advantages, value targets).

    ``next_index`` points forward, so one backward pass over the buffer sees every successor
    before its predecessor.
    """
    adv = np.empty_like(rollout.value)
    # C (agents/neural/c/kernels.c): the loop over a 16,384-decision rollout took ~12 ms in Python. float32
    # throughout, the roundings of NumPy's loop with float32 gamma and gamma * lambda.
    _kernels.gae(rollout.value, rollout.reward, rollout.next_index.astype(np.int64, copy=False), np.float32(gamma),
                 np.float32(gamma * lam), adv)
    return adv, adv + rollout.value


def ppo_update(
    model: ActorCritic, optimizer: torch.optim.Optimizer, rollout: Rollout, cfg: PPOConfig,
    generator: torch.Generator, oracle: Oracle | None = None,
) -> dict[str, float]:
    """Run the PPO epochs on one rollout; returns the losses and diagnostics to log.

    With a belief head and ``ppo.belief_coef``, ``oracle`` (the run's, whose features the rollout's ``extra``
    holds) gives the head's targets: the true place of every card the seat cannot see.

    On the CPU the observations become their non-zero entries for the sparse first layer; a model in the dense
    form runs on its device: the rollout moves there once and every minibatch is indexed there (the
    minibatches' order is drawn by ``generator`` on the CPU, the same on every device)."""
    adv_np, ret_np = advantages(rollout, cfg.gamma, cfg.gae_lambda)
    device = model.actor[0].weight.device if model.dense else None
    if device is None:
        # The observations as their non-zero entries, once for all epochs (the networks' first layer reads
        # them; agents/neural/sparse_input.py).
        obs = SparseRows.from_dense(rollout.obs)
        extra = SparseRows.from_dense(rollout.extra)  # the critic's privileged features (none with the seat critic)
    else:
        obs = torch.from_numpy(rollout.obs).to(device)
        extra = torch.from_numpy(rollout.extra).to(device)

    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a) if device is None else torch.from_numpy(a).to(device)

    mask = tensor(rollout.mask)
    actions = tensor(rollout.action)
    old_log_prob = tensor(rollout.log_prob)
    old_value = tensor(rollout.value)
    adv_all = tensor(adv_np)
    ret = tensor(ret_np)
    n = len(rollout)
    keys = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"]
    solver = rollout.solver_target is not None and model.solver_head is not None and cfg.solver_coef > 0
    if solver:
        target_all = tensor(rollout.solver_target)
        keys.append("solver_loss")
    belief = model.belief_head is not None and cfg.belief_coef > 0
    if belief:
        if oracle is None:
            raise ValueError("ppo_update: the belief head's targets come from the oracle's features: pass oracle")
        share_np, hidden_np = oracle.card_places(rollout.extra)
        share_all, hidden_all = tensor(share_np), tensor(hidden_np)
        keys.append("belief_loss")
    stats: dict[str, list[float]] = {k: [] for k in keys}
    model.train()
    with matmul_precision(model, cfg.matmul_precision):  # float32 again for the collection
        for _ in range(cfg.epochs):
            order = torch.randperm(n, generator=generator)
            kl_epoch = []
            for start in range(0, n, cfg.minibatch_size):
                mb = order[start:start + cfg.minibatch_size]
                if device is not None:
                    mb = mb.to(device)
                if solver or belief:  # the actor's features once, for the logits and the heads
                    logits, q, beliefs = model.heads(obs[mb], mask[mb])
                    value = model.value(obs[mb], extra[mb])
                else:
                    logits, value = model(obs[mb], mask[mb], extra[mb])
                log_prob, entropy = log_prob_and_entropy(logits, actions[mb])
                log_ratio = log_prob - old_log_prob[mb]
                ratio = log_ratio.exp()
                adv = adv_all[mb]
                if cfg.norm_adv and len(mb) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                if cfg.clip_value:
                    clipped = old_value[mb] + (value - old_value[mb]).clamp(-cfg.clip, cfg.clip)
                    value_loss = 0.5 * torch.max((value - ret[mb]) ** 2, (clipped - ret[mb]) ** 2).mean()
                else:
                    value_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
                loss = policy_loss - cfg.ent_coef * entropy.mean() + cfg.vf_coef * value_loss
                if solver:  # regression onto the double-dummy values where a target was recorded
                    target = target_all[mb]
                    has = ~torch.isnan(target)
                    solver_loss = 0.5 * ((q - target.nan_to_num()) ** 2)[has].mean() if has.any() else q.sum() * 0
                    loss = loss + cfg.solver_coef * solver_loss
                    stats["solver_loss"].append(solver_loss.item())
                if belief:  # cross-entropy of each unseen card's place against the true deal
                    belief_loss_mb = belief_loss(beliefs, share_all[mb], hidden_all[mb])
                    loss = loss + cfg.belief_coef * belief_loss_mb
                    stats["belief_loss"].append(belief_loss_mb.item())
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean().item()  # the low-variance estimator
                    stats["clipfrac"].append(((ratio - 1).abs() > cfg.clip).float().mean().item())
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(entropy.mean().item())
                stats["approx_kl"].append(approx_kl)
                kl_epoch.append(approx_kl)
            if cfg.target_kl > 0 and np.mean(kl_epoch) > cfg.target_kl:
                break
    model.eval()
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var = float(np.var(ret_np))
    out["explained_variance"] = float("nan") if var == 0 else 1 - float(np.var(ret_np - rollout.value)) / var
    return out


def make_optimizer(model: ActorCritic, cfg: PPOConfig) -> torch.optim.Optimizer:
    """The learner's Adam. One group at ``ppo.lr``, or with ``ppo.critic_lr`` (or ``ppo.critic_warmup``) the actor's
    and the critic's apart (in that order): the value regression of the oracle critic can take a larger step than
    the policy, and the critic's warm-up holds the actor's group alone."""
    if not cfg.critic_lr and not cfg.critic_warmup:
        groups = [{"params": list(model.parameters()), "lr": cfg.lr}]
    else:
        head = list(model.solver_head.parameters()) if model.solver_head is not None else []
        # The belief head learns with the critic (a supervised fit, as the value is), so during the critic's
        # warm-up it fits the actor's features while they stay still.
        belief = list(model.belief_head.parameters()) if model.belief_head is not None else []
        groups = [{"params": list(model.actor.parameters()) + head, "lr": cfg.lr},  # the head trains the actor
                  {"params": list(model.critic.parameters()) + belief, "lr": cfg.critic_lr}]
    # foreach: each of its operations over every tensor at once (0.8 ms a step against 1.4 for the loop over
    # tensors, 2 cores; fused, 0.3 ms, does not resume bit for bit)
    return torch.optim.Adam(groups, lr=cfg.lr, eps=1e-5, foreach=True)


def set_learning_rates(optimizer: torch.optim.Optimizer, cfg: PPOConfig, update: int, fraction: float) -> None:
    """Every group's learning rate at ``fraction`` of its configured value; the actor's at 0 during the
    critic's warm-up (``ppo.critic_warmup``: its first updates, the critic alone learns)."""
    actor = 0.0 if update < cfg.critic_warmup else 1.0
    for group, lr in zip(optimizer.param_groups, [cfg.lr * actor, cfg.critic_lr or cfg.lr]):
        group["lr"] = lr * fraction


class PPOUpdate:
    """One PPO update of the run's learner; due whenever no other phase is. Its state is the run's optimizer."""

    opening = False

    def due(self, run: Trainer) -> bool:
        return True

    def run(self, run: Trainer, guard: InterruptGuard) -> PhaseResult:
        """Ctrl-C during the collection abandons the update, which has not touched the network yet; during the
        rest (learning, the run's snapshot, evaluation and checkpoint) it lets the update finish."""
        cfg = run.config
        ppo = cfg.ppo
        run.doing = f"update {run.update + 1}"
        fraction = 1.0
        if ppo.anneal_lr:  # linear decay to 5% over the budget, or the time limit if it comes first
            done = max(run.decisions / cfg.run.total_decisions, run.seconds_so_far() / run.time_limit)
            fraction = max(0.05, 1 - done)
        set_learning_rates(run.optimizer, ppo, run.update, fraction)
        t0 = time.perf_counter()
        rollout = run.collect()
        with guard.finishing(run.update + 1):
            t1 = time.perf_counter()
            generator = torch.Generator().manual_seed(int(np.random.default_rng([cfg.run.seed, run.update, 1])
                                                          .integers(2**62)))
            stats = ppo_update(run.model, run.optimizer, rollout, ppo, generator, run.oracle)
            t2 = time.perf_counter()
            run.update += 1
            run.decisions += len(rollout)
            run.hands += rollout.hands
            _log_update(run, rollout, stats, t1 - t0, t2 - t1)
            run.end_update(rollout)  # before a pending Ctrl-C stops: the saved state is this update's
        return PhaseResult(stats, update=True)

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, counters: dict[str, Any]) -> None:
        pass


def _log_update(run: Trainer, rollout: Rollout, stats: dict[str, float], collect_s: float, learn_s: float) -> None:
    w, step, groups = run.writer, run.update, run.optimizer.param_groups
    for key, value in stats.items():
        w.add_scalar(f"losses/{key}", value, step)
    w.add_scalar("charts/learning_rate", groups[0]["lr"], step)
    if len(groups) > 1:
        w.add_scalar("charts/critic_learning_rate", groups[1]["lr"], step)
    w.add_scalar("charts/decisions", run.decisions, step)
    w.add_scalar("charts/hands", run.hands, step)
    w.add_scalar("charts/decisions_per_second", len(rollout) / (collect_s + learn_s), step)
    w.add_scalar("charts/collect_decisions_per_second", len(rollout) / collect_s, step)
    w.add_scalar("time/collect_seconds", collect_s, step)
    w.add_scalar("time/learn_seconds", learn_s, step)
    w.add_scalar("time/inference_seconds", rollout.inference_seconds, step)
    if rollout.engine_seconds:
        w.add_scalar("time/engine_seconds", rollout.engine_seconds, step)
        w.add_scalar("time/scripted_seconds", rollout.scripted_seconds, step)
    for opp, margins in rollout.margins.items():
        w.add_scalar(f"charts/train_margin_vs_{opp}", float(np.mean(margins)), step)
