"""A run's folder and checkpoints: a new run's start, ``latest.pt``'s payload, and the resume from it.

Every checkpoint is the play payload of the actor (:func:`~euchre_env.agents.neural.checkpoint.model_payload`:
its weights, the observation kind, the rules), which is all a player loads; ``latest.pt`` and ``best.pt`` add the
trainer's own keys (``critic`` weights, ``optimizer``, ``config``, ``counters`` with each phase's state,
``league``). No generator state is kept: every random stream of an update is seeded from (seed, update).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import torch
import yaml

from euchre_env import published
from euchre_env.agents.neural.checkpoint import (
    CheckpointError,
    build_belief,
    build_model,
    check_rules,
    load_checkpoint,
)
from euchre_env.training.config import RESUMABLE_CHANGES, config_changes, with_defaults
from euchre_env.views.blocks import VERSIONS

if TYPE_CHECKING:
    from euchre_env.training.train import Trainer


def start(run: Trainer) -> None:
    """A new run's folder, refused over another run. ``model.init`` is read first: a checkpoint that cannot
    start the run leaves no folder behind. (Only a new run reads it: a resumed run has its own weights, so
    one whose init file has since moved still resumes.)"""
    if os.path.exists(os.path.join(run.ckpt_dir, "latest.pt")):
        raise ValueError(f"run folder {run.run_dir!r} already holds a run: pass --resume, or another --run-name")
    if run.config.model.init:
        _init_actor(run, run.config.model.init)
    os.makedirs(os.path.join(run.ckpt_dir, "league"), exist_ok=True)
    with open(os.path.join(run.run_dir, "config.yaml"), "w") as f:
        yaml.safe_dump(run.config.to_dict(), f, sort_keys=False)


def resume(run: Trainer) -> None:
    """The run's weights, optimizer, counters, phases' state and league from its ``latest.pt``, whose config must be
    the run's but for :data:`~euchre_env.training.config.RESUMABLE_CHANGES`."""
    path = os.path.join(run.ckpt_dir, "latest.pt")
    data = _read_latest(run, path)
    check_rules(path, data["rules"], run.rules)
    try:
        saved = with_defaults(data["config"])
    except ValueError as e:
        raise ValueError(f"--resume cannot read the config saved in {path!r}: {e}") from None
    changed = config_changes(saved, run.config.to_dict())
    if changed:
        raise ValueError(
            f"--resume keeps the run's config; these values differ from {path!r}: {', '.join(changed)} "
            f"(only {', '.join(RESUMABLE_CHANGES)} may change)"
        )
    model = run.model
    try:
        model.actor.load_state_dict(data["actor"])
        model.critic.load_state_dict(data["critic"])
        if model.solver_head is not None:
            model.solver_head.load_state_dict(data["solver_head"])
        if model.belief_head is not None:
            model.belief_head.load_state_dict(data["belief"])
        run.optimizer.load_state_dict(data["optimizer"])
        counters = data["counters"]
        run.update, run.decisions, run.hands = counters["update"], counters["decisions"], counters["hands"]
        run.seconds, run.best_margin = counters["seconds"], counters["best_margin"]
        for phase in run.phases:
            phase.load_state_dict(counters)
        league = list(data["league"])
        run.saved_update = run.update
    except (KeyError, RuntimeError, ValueError, TypeError) as e:
        raise CheckpointError(f"{path!r} is not a trainer checkpoint this code can resume: {e}") from None
    run.league.restore(league, run.rules, run.device, run.dense)
    run.log(f"resumed {run.run_dir} at update {run.update} ({run.decisions:,} decisions)")


def payload(run: Trainer) -> dict[str, Any]:
    """The play payload and the trainer's keys, every tensor on the CPU (a checkpoint names no device)."""
    data = run.play_payload()
    model = run.model
    data["critic"] = {k: v.detach().to("cpu", copy=True) for k, v in model.critic.state_dict().items()}
    if model.solver_head is not None:
        data["solver_head"] = {k: v.detach().to("cpu", copy=True) for k, v in model.solver_head.state_dict().items()}
    data["optimizer"] = _on_cpu(run.optimizer.state_dict())
    data["config"] = run.config.to_dict()
    data["league"] = list(run.league.names)
    data["counters"] = {
        "update": run.update, "decisions": run.decisions, "hands": run.hands,
        "seconds": run.seconds_so_far(), "best_margin": run.best_margin,
    }
    for phase in run.phases:  # a run without expert phases keeps the counters it always had
        data["counters"].update(phase.state_dict())
    return data


def _init_actor(run: Trainer, path: str) -> None:
    """``model.init``: the actor's weights from the checkpoint at ``path`` (its rules, observation and hidden
    layers the run's, else one line saying which differ), and its belief head's where the run trains one
    (``ppo.belief_coef``) and the checkpoint has one; the critic keeps its fresh weights."""
    try:
        data = load_checkpoint(published.find(path, published.CHECKPOINTS), run.rules)  # a name: the package's
    except CheckpointError as e:
        raise CheckpointError(f"config model.init: {e}") from None
    model = run.config.model
    latest = VERSIONS[data["observation"]]
    if data["observation_version"] != latest:  # its input layout is not the one this run trains on
        raise ValueError(f"config model.init {path!r} was trained on version {data['observation_version']} of the "
                         f"{data['observation']} observation; a run trains on version {latest}: it can play, not "
                         "start a run")
    hidden = [int(h) for h in data["hidden"]]
    if data["observation"] != model.observation or hidden != list(model.hidden):
        raise ValueError(f"config model.init {path!r} is a network of the {data['observation']} observation with "
                         f"hidden layers {hidden}; this run's is {model.observation} with {list(model.hidden)} "
                         "(set model.observation and model.hidden to match)")
    actor = build_model(data, path).copy(dense=run.dense, device=run.device)
    run.model.actor.load_state_dict(actor.state_dict())
    head = ""
    belief_head = run.model.belief_head
    if belief_head is not None and "belief" in data:  # ppo.belief_coef, and a head there to start from
        belief = build_belief(data, path).state_dict()  # a CheckpointError in one line where it does not fit
        ours = belief_head.state_dict()
        if any(belief[k].shape != ours[k].shape for k in ours):
            raise ValueError(f"config model.init {path!r}: its belief head has {belief['hidden.weight'].shape[0]} "
                             f"hidden units, this run's {ours['hidden.weight'].shape[0]}")
        belief_head.load_state_dict(belief)
        head = ", its belief head too"
    run.log(f"the actor starts from {path}{head} (its critic fresh; no behaviour cloning)")


def _read_latest(run: Trainer, path: str) -> dict[str, Any]:
    """The checkpoint to resume from; one that cannot be used (damaged, foreign) fails with what to do instead."""
    try:
        return load_checkpoint(path)
    except (CheckpointError, OSError) as e:
        what = str(e) if isinstance(e, CheckpointError) else f"{path!r} cannot be read ({e.strerror or e})"
        best = os.path.join(run.ckpt_dir, "best.pt")
        instead = (f"copy {best!r} over it to resume from the update of the best evaluation, or "
                   if os.path.isfile(best) else "")
        raise CheckpointError(f"cannot resume: {what}; to continue, {instead}"
                              "start a new run with another --run-name") from None


def _on_cpu(state: Any) -> Any:
    """``state`` (an optimizer's state dict: dicts, lists and tuples of tensors and numbers) with every tensor on the
    CPU: a tensor already there is kept as it is."""
    if isinstance(state, torch.Tensor):
        return state.cpu()
    if isinstance(state, dict):
        return {k: _on_cpu(v) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(_on_cpu(v) for v in state)
    return state
