"""Behaviour cloning before PPO: start the learner from a teacher agent's play.

The teacher (an agent spec, normally ``rules``) plays all four seats of lockstep games
(:meth:`SelfPlay.collect` with ``teacher=``); its decisions are recorded like the learner's.
The actor learns the teacher's choices (cross-entropy over the masked logits; with the structured
observation, choices and masks are in the seat's canonical frame, as the actor sees them) and the
critic (on its own input, the oracle's features included) the hand results that followed (the
Monte Carlo return along each seat's decisions). PPO then starts from a policy that plays like
the teacher and a value function that already knows what hands are worth, instead of from
uniform play.

:class:`BehaviourCloning` is the trainer's opening phase: it records the teacher's demonstrations and clones
them once, before the first PPO update.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from euchre_env.agents.neural.network import ActorCritic
from euchre_env.agents.registry import make_agent
from euchre_env.evaluation.progress import progress_bar
from euchre_env.training.config import PretrainConfig
from euchre_env.training.phase import PhaseResult
from euchre_env.training.ppo import advantages
from euchre_env.training.selfplay import SELF, Rollout

if TYPE_CHECKING:
    from euchre_env.training.interrupt import InterruptGuard
    from euchre_env.training.train import Trainer


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


class BehaviourCloning:
    """Behaviour cloning of ``pretrain.teacher``, once, before the first update (``model.init`` replaces it). Its
    state: whether it has run (a run cut at update 0 resumes without redoing it)."""

    opening = True

    def __init__(self) -> None:
        self.cloned = False

    def due(self, run: Trainer) -> bool:
        cfg = run.config
        return run.update == 0 and not self.cloned and bool(cfg.pretrain.teacher) and not cfg.model.init

    def run(self, run: Trainer, guard: InterruptGuard) -> PhaseResult:
        """Bars (``run.progress``) for the teacher's demonstrations and for the cloning epochs. The time limit
        bounds both: past it the demonstrations end with the hands in progress and the epochs before the next
        minibatch, and the run goes on to its end with what was learned (no PPO update). Nothing to finish on
        Ctrl-C: the run has no update to save yet."""
        cfg, progress = run.config, run.progress
        run.doing = "behaviour cloning"
        start = time.perf_counter()
        teacher = make_agent(cfg.pretrain.teacher)
        demo_play = run.selfplay_for({SELF: 1.0}, {})
        budget = cfg.pretrain.decisions
        bar = progress_bar(budget, f"demonstrations of {cfg.pretrain.teacher}", "decisions", enabled=progress,
                           unit_scale=True)
        with bar:
            demos = demo_play.collect(budget, cfg.run.seed, 0, teacher=teacher, stream=1,
                                      on_step=lambda n: bar.update(min(n, budget) - bar.n), stop=run.past_limit)
        collected = time.perf_counter()
        generator = torch.Generator().manual_seed(int(np.random.default_rng([cfg.run.seed, 0, 2]).integers(2**62)))
        stats = clone(run.model, demos, cfg.pretrain, generator, progress=progress, stop=run.past_limit)
        self.cloned = True
        stats["decisions"] = len(demos)
        for key, value in stats.items():
            run.writer.add_scalar(f"pretrain/{key}", value, 0)
        end = time.perf_counter()
        done = f"{len(demos):,} decisions"
        if len(demos) < budget or stats["epochs"] < cfg.pretrain.epochs:
            done = (f"cut short by the time limit at {len(demos):,} of {budget:,} decisions and "
                    f"{stats['epochs']:.2f} of {cfg.pretrain.epochs} epochs")
        accuracy = f"accuracy {stats['accuracy']:.1%}, " if "accuracy" in stats else ""
        run.log(f"behaviour cloning of {cfg.pretrain.teacher!r}: {done}, {accuracy}{end - start:.0f} s "
                f"(demonstrations {collected - start:.0f} s, epochs {end - collected:.0f} s)")
        return PhaseResult(stats)

    def state_dict(self) -> dict[str, Any]:
        return {"cloned": self.cloned}

    def load_state_dict(self, counters: dict[str, Any]) -> None:
        self.cloned = counters.get("cloned", True)  # older checkpoints: only runs past the cloning saved one
