"""Behaviour cloning before PPO: start the learner from a teacher agent's play.

The teacher (an agent spec, normally ``rules``) plays all four seats of lockstep games
(:meth:`SelfPlay.collect` with ``teacher=``); its decisions are recorded like the learner's.
The actor learns the teacher's choices (cross-entropy over the masked logits; with the structured
observation, choices and masks are in the seat's canonical frame, as the actor sees them) and the
critic (on its own input, the oracle's features included) the hand results that followed (the
Monte Carlo return along each seat's decisions). PPO then starts from a policy that plays like
the teacher and a value function that already knows what hands are worth, instead of from
uniform play.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from euchre_env.agents.neural.network import ActorCritic
from euchre_env.evaluation.progress import progress_bar
from euchre_env.training.config import PretrainConfig
from euchre_env.training.ppo import advantages
from euchre_env.training.selfplay import Rollout


def clone(model: ActorCritic, demos: Rollout, cfg: PretrainConfig, generator: torch.Generator,
          progress: bool = False, stop: Callable[[], bool] | None = None) -> dict[str, float]:
    """Fit ``model`` to the demonstrations; returns the last epoch's loss and accuracy (over the minibatches it
    ran) and ``epochs``, how many epochs ran (a fraction when cut short).

    ``progress``: a bar on stderr over the minibatches of all epochs, with the epoch and the
    running accuracy of the epoch. ``stop``: asked before each minibatch; once it answers true the cloning
    ends there (the run's time limit: a budget bounds the cloning as it bounds the updates). Cut before its
    first minibatch, the model is untouched and only ``epochs`` (0) is returned.
    """
    _, returns = advantages(demos, gamma=1.0, lam=1.0)
    obs, mask, extra = torch.from_numpy(demos.obs), torch.from_numpy(demos.mask), torch.from_numpy(demos.extra)
    actions, ret = torch.from_numpy(demos.action), torch.from_numpy(returns)
    device = model.actor[0].weight.device if model.dense else None  # the dense form's: the demonstrations go there
    if device is not None:
        obs, mask, extra, actions, ret = (t.to(device) for t in (obs, mask, extra, actions, ret))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)
    n = len(demos)
    batches = math.ceil(n / cfg.minibatch_size)
    bar = progress_bar(cfg.epochs * batches, "behaviour cloning", "batches", enabled=progress)
    losses: list[tuple[float, float]] = []
    correct = seen = done = 0
    cut = False
    model.train()
    with bar:  # closed on Ctrl-C too, so that no bar tail is left before the message
        for epoch in range(cfg.epochs):
            order = torch.randperm(n, generator=generator)
            for start in range(0, n, cfg.minibatch_size):
                cut = stop is not None and stop()
                if cut:
                    break
                if start == 0:  # an epoch that runs: the figures returned are its own
                    losses, correct, seen = [], 0, 0
                mb = order[start:start + cfg.minibatch_size]
                if device is not None:
                    mb = mb.to(device)
                logits, value = model(obs[mb], mask[mb], extra[mb])
                policy_loss = torch.nn.functional.cross_entropy(logits, actions[mb])
                value_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
                loss = policy_loss + value_loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append((policy_loss.item(), value_loss.item()))
                correct += (logits.argmax(-1) == actions[mb]).sum().item()
                seen += len(mb)
                done += 1
                bar.set_postfix_str(f"epoch {epoch + 1}/{cfg.epochs}, accuracy {correct / seen:.1%}", refresh=False)
                bar.update()
            if cut:
                break
    model.eval()
    epochs = done / batches if batches else 0.0
    if not losses:  # cut before any minibatch (or no demonstrations): nothing learned, nothing to report
        return {"epochs": epochs}
    policy_loss, value_loss = np.mean(losses, axis=0)
    return {"policy_loss": float(policy_loss), "value_loss": float(value_loss), "accuracy": correct / seen,
            "epochs": epochs}
