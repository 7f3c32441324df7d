"""Self-play training, the run: ``euchre train --config configs/knock.yaml``.

A run is the learner (the network and its optimizer) and everything around it: the folder, the config, the
counters, the league, the evaluations, the checkpoints, TensorBoard, Ctrl-C and the time limit. The algorithms
that change the learner are phases (:mod:`~euchre_env.training.phase`), each in its own module: the PPO update
(:class:`~euchre_env.training.ppo.PPOUpdate`: collect a rollout against the league, run the epochs on it), the
behaviour cloning before the first update (:class:`~euchre_env.training.imitation.BehaviourCloning`) and the
expert phases of ``expert.every`` (:class:`~euchre_env.training.expert.ExpertIteration`). The loop runs the first
phase that is due (:func:`make_phases` lists them) until the decision budget or the time limit is spent. After
each update the run snapshots the learner into its league every so often (:mod:`~euchre_env.training.league`),
evaluates it in duplicate against fixed agents (:mod:`~euchre_env.training.evaluations`) and writes a checkpoint
(:mod:`~euchre_env.training.checkpoints`).

A run lives in ``runs/<run-name>/``: ``config.yaml`` (the resolved config), TensorBoard event
files, and ``checkpoints/`` with ``latest.pt`` (every ``run.checkpoint_every`` updates and at
the end), ``best.pt`` (the best evaluation margin against ``eval.opponents[-1]``, normally
``rules``; with ``eval.select_last`` the winner of a final selection on fresh deals among the last
evaluated updates, kept in ``candidates/``) and ``league/`` (the snapshots the league plays). ``resume=True``
continues from ``latest.pt``: weights, optimizer, counters, the phases' state and league come back, and since
every random stream of an update is seeded from (seed, update), the resumed run takes the same updates as one
that was never interrupted.

The critic, which may have seen hidden cards (``model.critic: oracle``), never plays. ``model.init`` starts a new
run's actor from a checkpoint (a published one holds the actor alone), and its belief head where both have one,
its critic fresh, which ``ppo.critic_warmup`` fits for some updates before the actor learns.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm.auto import tqdm

from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint
from euchre_env.agents.neural.network import fastest_precision
from euchre_env.training import checkpoints, evaluations
from euchre_env.training.allocator import keep_freed_memory
from euchre_env.training.build import check_later_agents, make_model, make_oracle, make_selfplay, scripted_agents
from euchre_env.training.config import RANGES, TrainConfig
from euchre_env.training.device import AUTO_DEVICE, describe_device, resolve_device, threads_here
from euchre_env.training.expert import ExpertIteration
from euchre_env.training.imitation import BehaviourCloning
from euchre_env.training.interrupt import InterruptGuard, TrainingInterrupted
from euchre_env.training.league import League
from euchre_env.training.phase import Phase
from euchre_env.training.ppo import PPOUpdate, make_optimizer
from euchre_env.training.sections import AUTO_PRECISION
from euchre_env.training.selfplay import PAST, SelfPlay
from euchre_env.training.training_bar import TrainingBar


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


def make_phases(config: TrainConfig) -> list[Phase]:
    """The algorithms of a run, in the order the loop asks them whether they are due (a new one is added here)."""
    expert = [ExpertIteration(config.expert)] if config.expert.every else []
    return [BehaviourCloning(), *expert, PPOUpdate()]


class Trainer:
    """Holds the learner, its optimizer, the league and the counters of one run, and runs its phases."""

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
        self.optimizer = make_optimizer(self.model, config.ppo)
        self.update = 0
        self.decisions = 0  # learner decisions trained on
        self.hands = 0
        self.seconds = 0.0  # training time before this process (resumed runs)
        self._started: float | None = None  # when this process started training
        # The phases are made before the run's folder is written: an expert phase's missing search fails first.
        self.phases = make_phases(config)
        self.doing: str | None = None  # what training is doing (set by the phases): the time limit's report names it
        self.over_limit: dict[str, Any] | None = None  # that report, once the time limit has ended the run
        self.best_margin = -math.inf
        self.saved_update: int | None = None  # the update latest.pt holds (None: there is none yet)
        self.progress = False  # bars for the phases and the periodic evaluations too (set by train)
        self.selection: dict[str, Any] | None = None  # the final selection's summary, once made
        self.selfplay = self.selfplay_for(config.league.mix, scripted)
        self.league = League(os.path.join(self.ckpt_dir, "league"), config.league, self.selfplay.snapshots)
        self.ray_collector = None  # the Ray actors of run.backend "ray", started with the training
        self._bar: TrainingBar | None = None  # the bar over the updates, while train runs its loop
        if resume:
            checkpoints.resume(self)
        else:
            checkpoints.start(self)
        # purge_step drops events logged after the checkpoint a resumed run restarts from
        self.writer = SummaryWriter(run_dir, purge_step=self.update if resume else None)
        if not resume:
            self.writer.add_text("config", "```\n" + yaml.safe_dump(config.to_dict(), sort_keys=False) + "```")
        self.writer.add_text("device", self.device_label, self.update)  # each start: a resume may move the run

    def selfplay_for(self, mix: dict[str, float], scripted: dict[str, Any]) -> SelfPlay:
        """A collector of this run's model, observation and oracle against ``mix``."""
        return make_selfplay(self.config, self.rules, self.model, self.oracle, mix, scripted)

    # ------------------------------------------------------------------ checkpoints
    def play_payload(self) -> dict[str, Any]:
        """What a player of the current actor needs (league snapshots are exactly this): no critic; the belief
        head, where the run has one (a search samples its worlds from it)."""
        return model_payload(self.model.actor, self.rules, self.config.model.observation, self.model.belief_head)

    @property
    def latest_path(self) -> str:
        return os.path.join(self.ckpt_dir, "latest.pt")

    def save(self, name: str = "latest.pt") -> str:
        path = os.path.join(self.ckpt_dir, name)
        save_checkpoint(checkpoints.payload(self), path)
        if name == "latest.pt":
            self.saved_update = self.update
            self.league.prune()
        return path

    def end_update(self, rollout: Any) -> None:
        """The run's part of an update, once a phase has counted it: the league's snapshot, the periodic
        evaluation and the checkpoint when they are due, then the bar."""
        cfg = self.config
        if self.update % cfg.league.snapshot_every == 0 and PAST in cfg.league.mix:
            self.league.add(self.update, self.play_payload(), self.model.actor)
        if cfg.eval.every and self.update % cfg.eval.every == 0:
            evaluations.periodic_eval(self)
        if self.update % cfg.run.checkpoint_every == 0:
            self.save()
        if self._bar is not None:
            self._bar.advance(self, rollout)

    # ------------------------------------------------------------------ time
    @property
    def time_limit(self) -> float:
        """``run.max_minutes`` in seconds (infinite without one)."""
        return self.config.run.max_minutes * 60 if self.config.run.max_minutes > 0 else math.inf

    def past_limit(self) -> bool:
        """Whether the training time has reached ``run.max_minutes`` (never without one)."""
        return self.seconds_so_far() >= self.time_limit

    def seconds_so_far(self) -> float:
        return self.seconds + (time.perf_counter() - self._started if self._started is not None else 0.0)

    def _report_limit(self, seconds: float) -> None:
        """The time limit ended the run after ``seconds`` of training time: say in which phase it passed and
        how far over it training ran (a phase stops only where it can stop cleanly: an update, once started,
        finishes with its evaluation and checkpoint), in the log, TensorBoard and :attr:`over_limit`."""
        limit = self.config.run.max_minutes * 60
        phase = self.doing or "an earlier process of the run (resumed with no time left)"
        self.over_limit = {"minutes": self.config.run.max_minutes, "reached_during": phase,
                           "over_seconds": round(seconds - limit, 1)}
        line = (f"time limit of {self.config.run.max_minutes:g} min reached during {phase}; training ended "
                f"{seconds - limit:.0f} s over it, after {self.update} PPO update{'s' * (self.update != 1)}")
        self.writer.add_text("budget", line, self.update)
        self.log(line)

    # ------------------------------------------------------------------ loop
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
        run = cfg.run
        self._started = time.perf_counter()
        self.progress = progress
        stops = f"{run.total_decisions:,} decisions"
        if run.max_minutes > 0:  # the largest decision budget means "no budget" (as euchre exploit sets it)
            stops = (f"{run.max_minutes:g} minutes" if run.total_decisions == RANGES["run.total_decisions"].high
                     else f"{stops} or {run.max_minutes:g} minutes, whichever comes first")
        self.log(f"training {self.run_dir} on {self.device_label} until {stops} (Ctrl-C saves the last completed "
                 "update and stops)")
        guard = InterruptGuard(self.log)
        with guard.installed():
            try:
                for phase in self.phases:
                    if phase.opening and phase.due(self):
                        phase.run(self, guard)
                with TrainingBar(self, progress) as self._bar:
                    while self.decisions < run.total_decisions and not self.past_limit():
                        phase = next(p for p in self.phases if not p.opening and p.due(self))
                        if phase.run(self, guard).update and self.update == stop_at_update:
                            self.save()
                            self.close()
                            return self._result()
                self._bar = None
                with guard.finishing(self.update):
                    if not math.isfinite(self.best_margin):  # never evaluated: the final weights are the best we know
                        evaluations.periodic_eval(self)
                    self.save()
                    trained = self.seconds_so_far()  # the selection below is not training time
                    if trained >= self.time_limit:
                        self._report_limit(trained)
                    if cfg.eval.select_last:
                        evaluations.select(self, progress)
            except KeyboardInterrupt:
                # Abandoned mid-update on a second Ctrl-C: what is in memory is no update's state, keep the file.
                if self.update > 0 and not guard.quit_at_once:
                    self.save()
                self.close()
                raise TrainingInterrupted(self.update, self.saved_update, self.latest_path) from None
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
        """This update's rollout against the league: collected here, or by the Ray rollout workers (run.backend
        "ray")."""
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

    def _result(self, seconds: float | None = None) -> TrainResult:
        """The run's summary; ``seconds``: its training time (default: until now)."""
        margin = self.selection["chosen_margin"] if self.selection else self.best_margin
        return TrainResult(self.run_dir, self.update, self.decisions,
                           self.seconds_so_far() if seconds is None else seconds, margin,
                           os.path.join(self.ckpt_dir, "best.pt"), self.over_limit)


