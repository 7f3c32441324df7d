"""The PPO update: advantages over each seat's own decisions, then clipped policy epochs."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from euchre_env.agents.neural.belief import belief_loss
from euchre_env.agents.neural.network import ActorCritic, log_prob_and_entropy, matmul_precision
from euchre_env.agents.neural.sparse_input import SparseRows
from euchre_env.compiled.native import extension
from euchre_env.training.config import PPOConfig
from euchre_env.training.oracle import Oracle
from euchre_env.training.selfplay import Rollout

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
