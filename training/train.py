"""Self-play PPO training, top to bottom: ``euchre train --config configs/knock.yaml``.

One update = collect a rollout (:mod:`euchre_env.training.selfplay`), run the PPO epochs on it
(:mod:`euchre_env.training.ppo`), log, and every so often snapshot the learner into the league, evaluate
it in duplicate against fixed agents, and write a checkpoint.

A run lives in ``runs/<run-name>/``: ``config.yaml`` (the resolved config), TensorBoard event
files, and ``checkpoints/`` with ``latest.pt`` (every ``run.checkpoint_every`` updates and at
the end), ``best.pt`` (the best evaluation margin against ``eval.opponents[-1]``, normally
``rules``; with ``eval.select_last`` the winner of a final selection on fresh deals among the last
evaluated updates, :meth:`Trainer.select`, kept in ``candidates/``) and ``league/`` (the snapshots the
league plays). ``resume=True`` continues from
``latest.pt``: weights, optimizer, counters and league come back, and since every random
stream of an update is seeded from (seed, update), the resumed run takes the same updates as
one that was never interrupted.

Every checkpoint is the play payload of the actor (:func:`~euchre_env.agents.neural.checkpoint.model_payload`:
its weights, the observation kind, the rules), which is all a player loads; ``latest.pt`` and
``best.pt`` add the trainer's own keys (``critic`` weights, ``optimizer``, ``config``, ``counters``,
``league``). The critic, which may have seen hidden cards (``model.critic: oracle``), never plays.
``model.init`` starts a new run's actor from a checkpoint (a published one holds the actor alone), and its belief
head where both have one, its critic fresh, which ``ppo.critic_warmup`` fits for some updates before the actor
learns. ``expert.every`` inserts an
expert-iteration phase every so many updates (:mod:`~euchre_env.training.expert`): a search labels the network's
decisions and the actor learns them, then PPO resumes.

Why one module: the file is one concept, the :class:`Trainer`, readable top to bottom as CleanRL's trainers are:
its start, resume, checkpoints, league, evaluations and loop share the run's state. What is not the
loop lives beside it: the config (:mod:`~euchre_env.training.config`), collection
(:mod:`~euchre_env.training.selfplay`), the update (:mod:`~euchre_env.training.ppo`), cloning
(:mod:`~euchre_env.training.imitation`), the expert phases (:mod:`~euchre_env.training.expert`), the critic's
inputs (:mod:`~euchre_env.training.oracle`) and Ctrl-C (:mod:`~euchre_env.training.interrupt`).
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm.auto import tqdm

from euchre_env import published
from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.neural.checkpoint import (
    CheckpointError,
    build_belief,
    build_model,
    check_rules,
    load_checkpoint,
    model_payload,
    save_checkpoint,
)
from euchre_env.agents.neural.network import PolicyNet, fastest_precision
from euchre_env.agents.registry import make_agent
from euchre_env.evaluation import MatchResult, evaluate
from euchre_env.evaluation.progress import progress_bar
from euchre_env.training.allocator import keep_freed_memory
from euchre_env.training.build import check_later_agents, make_model, make_oracle, make_selfplay, scripted_agents
from euchre_env.training.config import RANGES, RESUMABLE_CHANGES, TrainConfig, config_changes, with_defaults
from euchre_env.training.device import AUTO_DEVICE, describe_device, resolve_device, threads_here
from euchre_env.training.expert import distill, distill_generator, label_decisions, search_class
from euchre_env.training.imitation import clone
from euchre_env.training.interrupt import InterruptGuard, TrainingInterrupted
from euchre_env.training.ppo import ppo_update
from euchre_env.training.sections import AUTO_PRECISION
from euchre_env.training.selfplay import PAST, SELF, SelfPlay


@dataclass
class TrainResult:
    run_dir: str
    updates: int
    decisions: int
    seconds: float
    best_margin: float
    best_path: str
    # the time limit's report when it ended the run (Trainer.over_limit): the limit, the phase it passed in and
    # how far over it training ran
    over_limit: dict[str, Any] | None = None


class Trainer:
    """Holds the learner, its optimizer, the league and the counters of one run."""

    def __init__(self, config: TrainConfig, run_dir: str, resume: bool = False,
                 log: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.run_dir = run_dir
        self.ckpt_dir = os.path.join(run_dir, "checkpoints")
        # tqdm.write prints above a progress bar instead of through it (and like print without one)
        self.log = log or (lambda text: tqdm.write(text, file=sys.stderr))
        self.rules = config.make_rules()
        # Every agent the run meets, built first: a bad or refused one is one line before anything is set or made.
        scripted = scripted_agents(config, self.rules)
        check_later_agents(config, self.rules)
        threads, warning = threads_here(config.run.torch_threads)  # torch crashes when given far too many
        if warning:
            self.log(warning)
        torch.set_num_threads(threads)
        keep_freed_memory()  # the PPO minibatches' activations without page faults (training/allocator.py)
        # Where the networks run; dense: in the accelerator's form (every device but the plain cpu). Before
        # config.yaml is written: a run started with "auto" records the device it got.
        self.device, self.dense = resolve_device(config.run.device)
        if config.run.device == AUTO_DEVICE:
            config.run.device = self.device.type
        self.device_label = describe_device(self.device, self.dense)
        if config.ppo.matmul_precision == AUTO_PRECISION:  # before config.yaml is written: the run keeps the choice
            on_cpu = self.device.type == "cpu"  # an accelerator's products are timed there
            config.ppo.matmul_precision = fastest_precision() if on_cpu else fastest_precision(device=self.device)
            self.log(f"ppo.matmul_precision auto: {config.ppo.matmul_precision}, the faster product on this machine")
        self.oracle = make_oracle(config, self.rules, scripted)
        # a resumed run loads its own weights over these
        self.model = make_model(config, self.rules, self.oracle, dense=self.dense).to(self.device)
        # foreach: each of its operations over every tensor at once (0.8 ms a step against 1.4 for the loop over
        # tensors, 2 cores; fused, 0.3 ms, does not resume bit for bit)
        self.optimizer = torch.optim.Adam(self._param_groups(), lr=config.ppo.lr, eps=1e-5, foreach=True)
        self.update = 0
        self.decisions = 0  # learner decisions trained on
        self.hands = 0
        self.seconds = 0.0  # training time before this process (resumed runs)
        self._started: float | None = None  # when this process started training
        self.cloned = False  # the behaviour cloning has run (a run cut at update 0 resumes without redoing it)
        # Expert iteration (expert.every > 0): the update after which the last phase ran (-1: none yet; a run cut
        # during a phase redoes it, from the same weights), and the decisions labelled so far. The search's class is
        # imported now: a missing one fails before the run's folder is written.
        self.expert_update = -1
        self.expert_labels = 0
        self.expert_search = search_class(config.expert.search) if config.expert.every else None
        self._phase: str | None = None  # what training is doing: the time limit's report names it
        self.over_limit: dict[str, Any] | None = None  # that report, once the time limit has ended the run
        self.best_margin = -math.inf
        self.league: list[str] = []  # snapshot file names in checkpoints/league/, oldest first
        self._saved_update: int | None = None  # the update latest.pt holds (None: there is none yet)
        self._progress = False  # bars for the periodic evaluations too (set by train)
        self.selection: dict[str, Any] | None = None  # the final selection's summary, once made
        self.selfplay = self._selfplay(config.league.mix, scripted)
        self.ray_collector = None  # the Ray actors of run.backend "ray", started with the training
        if resume:
            self._resume()
        else:
            self._start()
        # purge_step drops events logged after the checkpoint a resumed run restarts from
        self.writer = SummaryWriter(run_dir, purge_step=self.update if resume else None)
        if not resume:
            self.writer.add_text("config", "```\n" + yaml.safe_dump(config.to_dict(), sort_keys=False) + "```")
        self.writer.add_text("device", self.device_label, self.update)  # each start: a resume may move the run

    def _param_groups(self) -> list[dict[str, Any]]:
        """One group at ``ppo.lr``, or with ``ppo.critic_lr`` (or ``ppo.critic_warmup``) the actor's and the
        critic's apart (in that order): the value regression of the oracle critic can take a larger step than the
        policy, and the critic's warm-up holds the actor's group alone."""
        ppo = self.config.ppo
        if not ppo.critic_lr and not ppo.critic_warmup:
            return [{"params": list(self.model.parameters()), "lr": ppo.lr}]
        head = list(self.model.solver_head.parameters()) if self.model.solver_head is not None else []
        # The belief head learns with the critic (a supervised fit, as the value is), so during the critic's
        # warm-up it fits the actor's features while they stay still.
        belief = list(self.model.belief_head.parameters()) if self.model.belief_head is not None else []
        return [{"params": list(self.model.actor.parameters()) + head, "lr": ppo.lr},  # the head trains the actor
                {"params": list(self.model.critic.parameters()) + belief, "lr": ppo.critic_lr}]

    def _set_learning_rates(self, fraction: float) -> None:
        """Every group's learning rate at ``fraction`` of its configured value; the actor's at 0 during the
        critic's warm-up (``ppo.critic_warmup``: its first updates, the critic alone learns)."""
        ppo = self.config.ppo
        actor = 0.0 if self.update < ppo.critic_warmup else 1.0
        for group, lr in zip(self.optimizer.param_groups, [ppo.lr * actor, ppo.critic_lr or ppo.lr]):
            group["lr"] = lr * fraction

    # ------------------------------------------------------------------ run folder
    def _start(self) -> None:
        """A new run's folder, refused over another run. ``model.init`` is read first: a checkpoint that cannot
        start the run leaves no folder behind. (Only a new run reads it: a resumed run has its own weights, so
        one whose init file has since moved still resumes.)"""
        if os.path.exists(os.path.join(self.ckpt_dir, "latest.pt")):
            raise ValueError(f"run folder {self.run_dir!r} already holds a run: pass --resume, or another --run-name")
        if self.config.model.init:
            self._init_actor(self.config.model.init)
        os.makedirs(os.path.join(self.ckpt_dir, "league"), exist_ok=True)
        with open(os.path.join(self.run_dir, "config.yaml"), "w") as f:
            yaml.safe_dump(self.config.to_dict(), f, sort_keys=False)

    def _resume(self) -> None:
        path = os.path.join(self.ckpt_dir, "latest.pt")
        data = self._read_latest(path)
        check_rules(path, data["rules"], self.rules)
        try:
            saved = with_defaults(data["config"])
        except ValueError as e:
            raise ValueError(f"--resume cannot read the config saved in {path!r}: {e}") from None
        changed = config_changes(saved, self.config.to_dict())
        if changed:
            raise ValueError(
                f"--resume keeps the run's config; these values differ from {path!r}: {', '.join(changed)} "
                f"(only {', '.join(RESUMABLE_CHANGES)} may change)"
            )
        try:
            self.model.actor.load_state_dict(data["actor"])
            self.model.critic.load_state_dict(data["critic"])
            if self.model.solver_head is not None:
                self.model.solver_head.load_state_dict(data["solver_head"])
            if self.model.belief_head is not None:
                self.model.belief_head.load_state_dict(data["belief"])
            self.optimizer.load_state_dict(data["optimizer"])
            counters = data["counters"]
            self.update, self.decisions, self.hands = counters["update"], counters["decisions"], counters["hands"]
            self.seconds, self.best_margin = counters["seconds"], counters["best_margin"]
            self.cloned = counters.get("cloned", True)  # older checkpoints: only runs past the cloning saved one
            self.expert_update = counters.get("expert_update", -1)
            self.expert_labels = counters.get("expert_labels", 0)
            self.league = list(data["league"])
            self._saved_update = self.update
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise CheckpointError(f"{path!r} is not a trainer checkpoint this code can resume: {e}") from None
        for name in self.league:
            self.selfplay.snapshots.append((name, self._load_snapshot(name)))
        self.log(f"resumed {self.run_dir} at update {self.update} ({self.decisions:,} decisions)")

    def _init_actor(self, path: str) -> None:
        """``model.init``: the actor's weights from the checkpoint at ``path`` (its rules, observation and hidden
        layers the run's, else one line saying which differ), and its belief head's where the run trains one
        (``ppo.belief_coef``) and the checkpoint has one; the critic keeps its fresh weights."""
        try:
            data = load_checkpoint(published.find(path, published.CHECKPOINTS), self.rules)  # a name: the package's
        except CheckpointError as e:
            raise CheckpointError(f"config model.init: {e}") from None
        model = self.config.model
        hidden = [int(h) for h in data["hidden"]]
        if data["observation"] != model.observation or hidden != list(model.hidden):
            raise ValueError(f"config model.init {path!r} is a network of the {data['observation']} observation with "
                             f"hidden layers {hidden}; this run's is {model.observation} with {list(model.hidden)} "
                             "(set model.observation and model.hidden to match)")
        actor = build_model(data, path).copy(dense=self.dense, device=self.device)
        self.model.actor.load_state_dict(actor.state_dict())
        head = ""
        if self.model.belief_head is not None and "belief" in data:  # ppo.belief_coef, and a head there to start from
            belief = build_belief(data, path).state_dict()  # a CheckpointError in one line where it does not fit
            ours = self.model.belief_head.state_dict()
            if any(belief[k].shape != ours[k].shape for k in ours):
                raise ValueError(f"config model.init {path!r}: its belief head has {belief['hidden.weight'].shape[0]} "
                                 f"hidden units, this run's {ours['hidden.weight'].shape[0]}")
            self.model.belief_head.load_state_dict(belief)
            head = ", its belief head too"
        self.log(f"the actor starts from {path}{head} (its critic fresh; no behaviour cloning)")

    def _read_latest(self, path: str) -> dict[str, Any]:
        """The checkpoint to resume from; one that cannot be used (damaged, foreign) fails with what to do instead."""
        try:
            return load_checkpoint(path)
        except (CheckpointError, OSError) as e:
            what = str(e) if isinstance(e, CheckpointError) else f"{path!r} cannot be read ({e.strerror or e})"
            best = os.path.join(self.ckpt_dir, "best.pt")
            instead = (f"copy {best!r} over it to resume from the update of the best evaluation, or "
                       if os.path.isfile(best) else "")
            raise CheckpointError(f"cannot resume: {what}; to continue, {instead}"
                                  "start a new run with another --run-name") from None

    def _load_snapshot(self, name: str) -> PolicyNet:
        actor = build_model(load_checkpoint(os.path.join(self.ckpt_dir, "league", name + ".pt"), self.rules))
        return actor.copy(dense=True, device=self.device) if self.dense else actor  # on the learner's device

    def _selfplay(self, mix: dict[str, float], scripted: dict[str, Any]) -> SelfPlay:
        """A collector of this run's model, observation and oracle against ``mix``."""
        return make_selfplay(self.config, self.rules, self.model, self.oracle, mix, scripted)

    # ------------------------------------------------------------------ checkpoints
    def play_payload(self) -> dict[str, Any]:
        """What a player of the current actor needs (league snapshots are exactly this): no critic; the belief
        head, where the run has one (a search samples its worlds from it)."""
        return model_payload(self.model.actor, self.rules, self.config.model.observation, self.model.belief_head)

    def checkpoint_payload(self) -> dict[str, Any]:
        """The play payload and the trainer's keys, every tensor on the CPU (a checkpoint names no device)."""
        payload = self.play_payload()
        payload["critic"] = {k: v.detach().to("cpu", copy=True) for k, v in self.model.critic.state_dict().items()}
        if self.model.solver_head is not None:
            payload["solver_head"] = {k: v.detach().to("cpu", copy=True)
                                      for k, v in self.model.solver_head.state_dict().items()}
        payload["optimizer"] = _on_cpu(self.optimizer.state_dict())
        payload["config"] = self.config.to_dict()
        payload["league"] = list(self.league)
        payload["counters"] = {
            "update": self.update, "decisions": self.decisions, "hands": self.hands,
            "seconds": self.seconds_so_far(), "best_margin": self.best_margin, "cloned": self.cloned,
        }
        if self.config.expert.every:  # only runs with phases: every other checkpoint stays as it was
            payload["counters"].update(expert_update=self.expert_update, expert_labels=self.expert_labels)
        # No generator state to keep: every random stream of an update is seeded from (seed, update).
        return payload

    @property
    def latest_path(self) -> str:
        return os.path.join(self.ckpt_dir, "latest.pt")

    def save(self, name: str = "latest.pt") -> str:
        path = os.path.join(self.ckpt_dir, name)
        save_checkpoint(self.checkpoint_payload(), path)
        if name == "latest.pt":
            self._saved_update = self.update
            self._prune_league()
        return path

    def _prune_league(self) -> None:
        """Delete the snapshot files the latest.pt just saved no longer names: a resume starts only from
        latest.pt (best.pt holds no league), so nothing can load them again, and disk use stays bounded."""
        folder = os.path.join(self.ckpt_dir, "league")
        keep = {name + ".pt" for name in self.league}
        for file in os.listdir(folder):
            if file.endswith(".pt") and file not in keep:
                os.remove(os.path.join(folder, file))

    def _snapshot(self) -> None:
        name = f"update_{self.update:06d}"
        save_checkpoint(self.play_payload(), os.path.join(self.ckpt_dir, "league", name + ".pt"))
        self.selfplay.snapshots.append((name, copy.deepcopy(self.model.actor).eval()))
        self.league.append(name)
        if len(self.league) > self.config.league.max_snapshots:
            drop = _dropped_snapshot(self.league, self.config.league.keep)
            self.league.pop(drop)
            self.selfplay.snapshots.pop(drop)  # its file stays until a latest.pt without it is saved (_prune_league)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, opponents: dict[str, int], seed: int, workers: int,
                 path: str | None = None, progress: bool = False, leave: bool = True) -> list[MatchResult]:
        """Duplicate matches of the learner (greedy) against each opponent: ``{spec: deals}``, each with its
        bar on stderr if ``progress`` (erased at its end unless ``leave``)."""
        if path is None:  # the current weights, played in this process (on the CPU, as a checkpoint plays)
            actor = self.model.actor.copy() if self.dense else self.model.actor
            spec: Any = _GreedyFactory(actor, self.rules, self.config.model.observation, f"update {self.update}")
            workers = 1
        else:
            spec = path
        return [evaluate(spec, opp, self.rules, n=n, seed=seed, workers=workers, progress=progress, leave=leave)
                for opp, n in opponents.items()]

    def _periodic_eval(self) -> None:
        cfg = self.config.eval
        results = self.evaluate({o: cfg.hands for o in cfg.opponents}, cfg.seed, cfg.workers,
                                progress=self._progress, leave=False)  # the line below says what they found
        parts = []
        for opp, r in zip(cfg.opponents, results):
            self.writer.add_scalar(f"eval/margin_vs_{opp}", r.margin, self.update)
            self.writer.add_scalar(f"eval/margin_low_vs_{opp}", r.margin_low, self.update)
            self.writer.add_scalar(f"eval/margin_high_vs_{opp}", r.margin_high, self.update)
            parts.append(f"vs {opp} {r.margin:+.3f} [{r.margin_low:+.3f}, {r.margin_high:+.3f}]")
        margin = results[-1].margin
        if margin > self.best_margin:
            self.best_margin = margin
            if not cfg.select_last:  # with a final selection, best.pt is written by select()
                self.save("best.pt")
        if cfg.select_last:
            self._save_candidate()
        self.log(f"eval at update {self.update}: " + ", ".join(parts))

    # ------------------------------------------------------------------ final selection
    @property
    def candidates_dir(self) -> str:
        return os.path.join(self.ckpt_dir, "candidates")

    def _save_candidate(self) -> None:
        """The current update as a candidate of the final selection; only the last ``eval.select_last``
        stay on disk (the final weights are added by :meth:`select`)."""
        os.makedirs(self.candidates_dir, exist_ok=True)
        self.save(os.path.join("candidates", f"update_{self.update:06d}.pt"))
        files = sorted(f for f in os.listdir(self.candidates_dir) if f.endswith(".pt"))
        for file in files[:-self.config.eval.select_last]:
            os.remove(os.path.join(self.candidates_dir, file))

    def select(self, progress: bool = False) -> dict[str, Any]:
        """The final selection: each candidate (the last ``eval.select_last`` evaluated updates and the final
        weights) plays ``eval.select_hands`` duplicate deals of ``eval.select_seed``, deals that neither
        training nor the periodic evaluations saw, against ``eval.opponents[-1]``; the best is copied to
        best.pt. Its margin here is still a maximum over the candidates (biased up a little): the unbiased
        figure is the final evaluation's, on ``final_eval.seed``. Written to ``checkpoints/selection.json``.
        """
        cfg = self.config.eval
        final = os.path.join("candidates", f"update_{self.update:06d}.pt")
        if not os.path.isfile(os.path.join(self.ckpt_dir, final)):
            self.save(final)
        opponent = cfg.opponents[-1]
        rows = []
        for file in sorted(f for f in os.listdir(self.candidates_dir) if f.endswith(".pt")):
            path = os.path.join(self.candidates_dir, file)
            result = evaluate(path, opponent, self.rules, n=cfg.select_hands, seed=cfg.select_seed,
                              workers=cfg.workers, progress=progress, leave=False)
            update = int(file.removesuffix(".pt").rpartition("_")[2])
            self.writer.add_scalar(f"select/margin_vs_{opponent}", result.margin, update)
            rows.append({"update": update, "file": file, "margin": result.margin, "low": result.margin_low,
                         "high": result.margin_high})
            self.log(f"selection, update {update}: vs {opponent} {result.margin:+.3f} "
                     f"[{result.margin_low:+.3f}, {result.margin_high:+.3f}]")
        chosen = max(rows, key=lambda row: row["margin"])
        shutil.copyfile(os.path.join(self.candidates_dir, chosen["file"]), os.path.join(self.ckpt_dir, "best.pt"))
        summary = {"opponent": opponent, "deals": cfg.select_hands, "seed": cfg.select_seed,
                   "chosen_update": chosen["update"], "chosen_margin": chosen["margin"], "candidates": rows}
        with open(os.path.join(self.ckpt_dir, "selection.json"), "w") as f:
            json.dump(summary, f, indent=2)
        self.log(f"selected update {chosen['update']} as best.pt: {chosen['margin']:+.3f} vs {opponent} over "
                 f"{cfg.select_hands:,} selection deals (seed {cfg.select_seed})")
        self.selection = summary
        return summary

    # ------------------------------------------------------------------ loop
    def _pretrain(self, progress: bool = False) -> None:
        """Behaviour cloning of ``pretrain.teacher`` (training/imitation.py), before the first update.

        ``progress``: bars for the teacher's demonstrations and for the cloning epochs. The time limit
        bounds both: past it the demonstrations end with the hands in progress and the epochs before the next
        minibatch, and the run goes on to its end with what was learned (no PPO update).
        """
        cfg = self.config
        self._phase = "behaviour cloning"
        start = time.perf_counter()
        teacher = make_agent(cfg.pretrain.teacher)
        demo_play = self._selfplay({SELF: 1.0}, {})
        budget = cfg.pretrain.decisions
        bar = progress_bar(budget, f"demonstrations of {cfg.pretrain.teacher}", "decisions", enabled=progress,
                           unit_scale=True)
        with bar:
            demos = demo_play.collect(budget, cfg.run.seed, 0, teacher=teacher, stream=1,
                                      on_step=lambda n: bar.update(min(n, budget) - bar.n), stop=self.past_limit)
        collected = time.perf_counter()
        generator = torch.Generator().manual_seed(int(np.random.default_rng([cfg.run.seed, 0, 2]).integers(2**62)))
        stats = clone(self.model, demos, cfg.pretrain, generator, progress=progress, stop=self.past_limit)
        self.cloned = True
        stats["decisions"] = len(demos)
        for key, value in stats.items():
            self.writer.add_scalar(f"pretrain/{key}", value, 0)
        end = time.perf_counter()
        done = f"{len(demos):,} decisions"
        if len(demos) < budget or stats["epochs"] < cfg.pretrain.epochs:
            done = (f"cut short by the time limit at {len(demos):,} of {budget:,} decisions and "
                    f"{stats['epochs']:.2f} of {cfg.pretrain.epochs} epochs")
        accuracy = f"accuracy {stats['accuracy']:.1%}, " if "accuracy" in stats else ""
        self.log(f"behaviour cloning of {cfg.pretrain.teacher!r}: {done}, {accuracy}{end - start:.0f} s "
                 f"(demonstrations {collected - start:.0f} s, epochs {end - collected:.0f} s)")

    def _expert_due(self) -> bool:
        """Whether an expert phase runs before the next update: every ``expert.every`` updates once the critic's
        warm-up is over (a phase moves the actor, which the warm-up holds), once per update."""
        every = self.config.expert.every
        return (every > 0 and self.update >= self.config.ppo.critic_warmup and self.update % every == 0
                and self.expert_update < self.update)

    def _expert_phase(self, guard: InterruptGuard) -> None:
        """An expert-iteration phase (training/expert.py) after the current update: the search labels decisions of
        the network's self-play, then the actor is distilled toward its policy. Ctrl-C during the labels abandons
        the phase as a collection is (the network is untouched; a resumed run redoes it); the distillation, which
        changes the network, finishes first, as an update's learning does."""
        cfg, ex = self.config, self.config.expert
        self._phase = f"the expert phase after update {self.update}"
        start = time.perf_counter()
        bar = progress_bar(ex.decisions, f"expert labels ({ex.search}, {ex.worlds} worlds)", "decisions",
                           enabled=self._progress, leave=False)  # the log line below says what it found
        with bar:
            labels = label_decisions(self._selfplay({SELF: 1.0}, {}), self.model.actor, self.rules, cfg,
                                     self.expert_search, self.update, stop=self.past_limit,
                                     on_label=lambda k: bar.update(k - bar.n), belief=self.model.belief_head)
        with guard.finishing(self.update):
            t = time.perf_counter()
            stats = distill(self.model.actor, labels, ex, cfg.ppo.max_grad_norm,
                            distill_generator(cfg.run.seed, self.update))
            end = time.perf_counter()
            self.expert_update = self.update
            self.expert_labels += len(labels)
            stats.update(decisions_played=float(len(labels.mask)), hands=float(labels.hands),
                         label_seconds=labels.seconds, distill_seconds=end - t, seconds=end - start)
            for key, value in stats.items():
                self.writer.add_scalar(f"expert/{key}", value, self.update)
            moved = (f", agreement {1 - stats['disagreement']:.1%} -> {stats['agreement_after']:.1%}, KL to the "
                     f"target {stats['kl_before']:.3f} -> {stats['kl_after']:.3f}, the other decisions moved KL "
                     f"{stats['anchor_kl']:.4f}" if len(labels) else "")
            self.log(f"expert phase after update {self.update} ({ex.search}, {ex.worlds} worlds): {len(labels):,} "
                     f"decisions labelled of {len(labels.mask):,} played, the search disagreed with the network at "
                     f"{stats['disagreement']:.1%}{moved}; {end - start:.0f} s (labels {labels.seconds:.0f} s, "
                     f"distillation {end - t:.1f} s)")

    def past_limit(self) -> bool:
        """Whether the training time has reached ``run.max_minutes`` (never without one)."""
        return self.config.run.max_minutes > 0 and self.seconds_so_far() >= self.config.run.max_minutes * 60

    def _report_limit(self, seconds: float) -> None:
        """The time limit ended the run after ``seconds`` of training time: say in which phase it passed and
        how far over it training ran (a phase stops only where it can stop cleanly: an update, once started,
        finishes with its evaluation and checkpoint), in the log, TensorBoard and :attr:`over_limit`."""
        limit = self.config.run.max_minutes * 60
        phase = self._phase or "an earlier process of the run (resumed with no time left)"
        self.over_limit = {"minutes": self.config.run.max_minutes, "reached_during": phase,
                           "over_seconds": round(seconds - limit, 1)}
        line = (f"time limit of {self.config.run.max_minutes:g} min reached during {phase}; training ended "
                f"{seconds - limit:.0f} s over it, after {self.update} PPO update{'s' * (self.update != 1)}")
        self.writer.add_text("budget", line, self.update)
        self.log(line)

    def seconds_so_far(self) -> float:
        return self.seconds + (time.perf_counter() - self._started if self._started is not None else 0.0)

    def train(self, progress: bool = False, stop_at_update: int | None = None) -> TrainResult:
        """Train until the decision budget or the time limit is spent (or ``stop_at_update``, which
        leaves the run resumable exactly as if it had been killed right after that update's checkpoint).

        ``progress``: bars on stderr for the behaviour cloning, the updates (in minutes of training time
        when ``run.max_minutes`` is set, so that the eta counts toward whichever stop comes first; else in
        decisions) and the periodic evaluations.

        Ctrl-C (SIGINT, in the main thread): during a collection it abandons the update, which has not
        touched the network yet; during the rest of an update (learning, snapshot, evaluation,
        checkpoint) it lets the update finish, so that the saved state is always that of a completed
        update. Then ``latest.pt`` is saved and :class:`TrainingInterrupted` raised. A second Ctrl-C
        quits at once, without saving.
        """
        cfg = self.config
        run, ppo = cfg.run, cfg.ppo
        self._started = time.perf_counter()
        self._progress = progress
        limit = run.max_minutes * 60 if run.max_minutes > 0 else math.inf
        stops = f"{run.total_decisions:,} decisions"
        if run.max_minutes > 0:  # the largest decision budget means "no budget" (as euchre exploit sets it)
            stops = (f"{run.max_minutes:g} minutes" if run.total_decisions == RANGES["run.total_decisions"].high
                     else f"{stops} or {run.max_minutes:g} minutes, whichever comes first")
        self.log(f"training {self.run_dir} on {self.device_label} until {stops} (Ctrl-C saves the last completed "
                 "update and stops)")
        guard = InterruptGuard(self.log)
        with guard.installed():
            try:
                if self.update == 0 and not self.cloned and cfg.pretrain.teacher and not cfg.model.init:
                    self._pretrain(progress)
                with self._training_bar(progress) as bar:
                    while self.decisions < run.total_decisions and self.seconds_so_far() < limit:
                        if self._expert_due():
                            self._expert_phase(guard)
                            continue  # the stops again: the phase's time counts
                        self._phase = f"update {self.update + 1}"
                        fraction = 1.0
                        if ppo.anneal_lr:  # linear decay to 5% over the budget, or the time limit if it comes first
                            done = max(self.decisions / run.total_decisions, self.seconds_so_far() / limit)
                            fraction = max(0.05, 1 - done)
                        self._set_learning_rates(fraction)
                        t0 = time.perf_counter()
                        rollout = self.collect()
                        with guard.finishing(self.update + 1):
                            self._learn(rollout, t0)
                            bar.advance(self, rollout)  # before a pending Ctrl-C stops: the bar shows the saved update
                        if self.update == stop_at_update:
                            self.save()
                            self.close()
                            return self._result()
                with guard.finishing(self.update):
                    if not math.isfinite(self.best_margin):  # never evaluated: the final weights are the best we know
                        self._periodic_eval()
                    self.save()
                    trained = self.seconds_so_far()  # the selection below is not training time
                    if trained >= limit:
                        self._report_limit(trained)
                    if cfg.eval.select_last:
                        self.select(progress)
            except KeyboardInterrupt:
                # Abandoned mid-update on a second Ctrl-C: what is in memory is no update's state, keep the file.
                if self.update > 0 and not guard.quit_at_once:
                    self.save()
                self.close()
                raise TrainingInterrupted(self.update, self._saved_update, self.latest_path) from None
        self.close()
        return self._result(trained)

    def close(self) -> None:
        """Flush the TensorBoard log and stop the Ray rollout workers, if any (train() does it at its end)."""
        self.writer.close()
        if self.ray_collector is not None:
            self.ray_collector.close()
            self.ray_collector = None

    def start_workers(self) -> Any:
        """The Ray rollout workers of run.backend "ray", started on first use (``ConnectionError`` for a cluster
        nobody answers at, ``RuntimeError`` when it has too few CPUs, both one line)."""
        if self.ray_collector is None:
            from euchre_env.training.ray_collect import RayCollector  # Ray: only for this backend

            cfg = self.config
            self.ray_collector = RayCollector(cfg, cfg.ray.rollout_workers, cfg.ray.address or None)
        return self.ray_collector

    def collect(self) -> Any:
        """This update's rollout: collected here, or by the Ray rollout workers (run.backend "ray")."""
        cfg = self.config
        if cfg.run.backend == "local":
            return self.selfplay.collect(cfg.ppo.rollout_decisions, cfg.run.seed, self.update)
        collector = self.start_workers()
        rollout = collector.collect(cfg.ppo.rollout_decisions, cfg.run.seed, self.update, self.model,
                                    self.selfplay.snapshots)
        for k, (seconds, decisions) in enumerate(zip(collector.seconds, collector.decisions)):
            if k not in collector.died:
                self.writer.add_scalar(f"workers/decisions_per_second/{k}", decisions / seconds, self.update + 1)
        self.writer.add_scalar("workers/died", len(collector.died), self.update + 1)
        if collector.died:
            self.log(f"update {self.update + 1}: rollout worker(s) {', '.join(map(str, collector.died))} died "
                     f"(Ray restarts them); the update goes on with the others' {len(rollout):,} decisions")
        return rollout

    def _learn(self, rollout: Any, collect_start: float) -> None:
        """The rest of an update once its rollout is collected: PPO, counters, logs, snapshot, evaluation,
        checkpoint."""
        cfg = self.config
        t1 = time.perf_counter()
        generator = torch.Generator().manual_seed(int(np.random.default_rng([cfg.run.seed, self.update, 1])
                                                      .integers(2**62)))
        stats = ppo_update(self.model, self.optimizer, rollout, cfg.ppo, generator, self.oracle)
        t2 = time.perf_counter()
        self.update += 1
        self.decisions += len(rollout)
        self.hands += rollout.hands
        self._log_update(rollout, stats, t1 - collect_start, t2 - t1)
        if self.update % cfg.league.snapshot_every == 0 and PAST in cfg.league.mix:
            self._snapshot()
        if cfg.eval.every and self.update % cfg.eval.every == 0:
            self._periodic_eval()
        if self.update % cfg.run.checkpoint_every == 0:
            self.save()

    def _training_bar(self, progress: bool) -> _TrainingBar:
        run = self.config.run
        # no delay: the evaluations' log lines redraw the bar anyway (tqdm.write), and close then draws the end
        if run.max_minutes > 0:
            # at most full: a limit spent before the first update (in the cloning) shows a full bar, not 10,000%
            bar = progress_bar(run.max_minutes, "training", "min", enabled=progress, unit_scale=True,
                               initial=min(self.seconds_so_far() / 60, run.max_minutes), delay=0.0)
        else:
            bar = progress_bar(run.total_decisions, "training", "decisions", enabled=progress, unit_scale=True,
                               initial=min(self.decisions, run.total_decisions), delay=0.0)
        return _TrainingBar(bar, self.decisions, self.seconds_so_far())

    def _result(self, seconds: float | None = None) -> TrainResult:
        """The run's summary; ``seconds``: its training time (default: until now)."""
        margin = self.selection["chosen_margin"] if self.selection else self.best_margin
        return TrainResult(self.run_dir, self.update, self.decisions,
                           self.seconds_so_far() if seconds is None else seconds, margin,
                           os.path.join(self.ckpt_dir, "best.pt"), self.over_limit)

    def _log_update(self, rollout: Any, stats: dict[str, float], collect_s: float, learn_s: float) -> None:
        w, step = self.writer, self.update
        for key, value in stats.items():
            w.add_scalar(f"losses/{key}", value, step)
        w.add_scalar("charts/learning_rate", self.optimizer.param_groups[0]["lr"], step)
        if len(self.optimizer.param_groups) > 1:
            w.add_scalar("charts/critic_learning_rate", self.optimizer.param_groups[1]["lr"], step)
        w.add_scalar("charts/decisions", self.decisions, step)
        w.add_scalar("charts/hands", self.hands, step)
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

    def _postfix(self, rollout: Any) -> str:
        """The bar's live part: update, train margin against each opponent of the league, best evaluation."""
        live = " ".join(f"{o} {np.mean(m):+.2f}" for o, m in sorted(rollout.margins.items()))
        best = f", best {self.best_margin:+.3f}" if math.isfinite(self.best_margin) else ""
        return f"update {self.update}, train margin {live or '-'}{best}"


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


def _dropped_snapshot(league: list[str], keep: str) -> int:
    """The index of the snapshot to drop from a league one over its size (names ``update_NNNNNN``, oldest
    first): the oldest under ``"recent"``; under ``"spread"`` the one nearest its elder neighbour, never
    the oldest or the newest (ties: the elder), which keeps the league spread evenly over the whole run."""
    if keep == "recent" or len(league) < 3:
        return 0
    updates = [int(name.rpartition("_")[2]) for name in league]
    gaps = [updates[i] - updates[i - 1] for i in range(1, len(updates) - 1)]
    return 1 + gaps.index(min(gaps))


class _TrainingBar:
    """The bar over the updates. With a time limit it counts minutes of training time and its total is
    the projected length of the run, the time limit or, if the decision budget runs out first at the pace
    so far, that moment: the eta then counts toward whichever stop comes first. Without one it counts
    decisions."""

    def __init__(self, bar: tqdm, decisions: int, seconds: float) -> None:
        self.bar = bar
        self.start_decisions, self.start_seconds = decisions, seconds

    def __enter__(self) -> _TrainingBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()

    def advance(self, trainer: Trainer, rollout: Any) -> None:
        run, bar = trainer.config.run, self.bar
        postfix = trainer._postfix(rollout)
        if run.max_minutes > 0:
            seconds = trainer.seconds_so_far()
            pace = (trainer.decisions - self.start_decisions) / max(seconds - self.start_seconds, 1e-9)
            budget_end = seconds + max(run.total_decisions - trainer.decisions, 0) / pace if pace > 0 else math.inf
            bar.total = min(run.max_minutes, budget_end / 60)
            done = min(seconds / 60, bar.total)
            postfix += (f", {tqdm.format_sizeof(trainer.decisions)}/{tqdm.format_sizeof(run.total_decisions)} "
                        "decisions")
        else:
            done = min(trainer.decisions, run.total_decisions)
        bar.set_postfix_str(postfix, refresh=False)
        bar.update(done - bar.n)


class _GreedyFactory:
    """An agent spec (``f(seed) -> agent``) playing the live actor greedily, for in-process evaluation."""

    def __init__(self, actor: PolicyNet, rules: Any, observation: str, name: str) -> None:
        self.actor, self.rules, self.observation, self.name = actor, rules, observation, name

    def __call__(self, seed: int | None) -> Any:
        return NeuralAgent(self.actor, self.rules, observation=self.observation, seed=seed, name=self.name)


def run_dir_for(config: TrainConfig, run_name: str | None, runs_dir: str = "runs") -> str:
    name = run_name or f"{config.rules.preset}-seed{config.run.seed}"
    return os.path.join(runs_dir, name)
