"""Self-play collection on Ray actors (``run.backend: ray``): the learner stays in this process.

Each of ``ray.rollout_workers`` actors builds the run's collector once (:mod:`.build`: the same league,
oracle and networks as the trainer) and, at every update, receives the current weights through the object
store (put once per update; the league's frozen snapshots only when the league changes), collects its share
of the update's learner decisions in lockstep games, and sends back its :class:`~.selfplay.Rollout`. The
driver joins the rollouts in worker order and runs PPO on them as on one machine.

Reproducible for a fixed number of workers: worker ``k``'s random streams are keyed by (seed, update,
``WORKER_STREAM + k``), so its games depend on nothing else. A worker that dies during an update is restarted
by Ray (its actor is rebuilt from the config) and the update goes on with what the others collected; the
trainer logs it. If every worker dies the update raises, rather than train on nothing.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import numpy as np

from euchre_env.training.config import TrainConfig
from euchre_env.training.selfplay import Rollout

RESTART_WAIT = 120  # seconds an update waits for a worker lost in the previous one to be restarted
WORKER_STREAM = 100  # streams of the workers' collections: 100 + k (0 is the local collector's, 1 cloning's)


class _RolloutWorker:
    """One actor: the run's collector, rebuilt from the config (also when Ray restarts it)."""

    def __init__(self, config: dict[str, Any], index: int) -> None:
        import torch

        from euchre_env.training.build import make_model, make_oracle, make_selfplay, scripted_agents

        torch.set_num_threads(1)  # one actor per CPU
        cfg = TrainConfig.from_dict(config)
        rules = cfg.make_rules()
        scripted = scripted_agents(cfg, rules)
        oracle = make_oracle(cfg, rules, scripted)
        self.model = make_model(cfg, rules, oracle)
        self.selfplay = make_selfplay(cfg, rules, self.model, oracle, cfg.league.mix, scripted)
        self.index = index
        self.league: dict[str, Any] = {}

    def ready(self) -> bool:
        return True

    def collect(self, weights: dict[str, Any], league: list[tuple[str, Any]], budget: int, seed: int,
                update: int) -> tuple[Rollout, float]:
        import copy

        self.model.load_state_dict(weights)
        for name, state in league:
            if name not in self.league:
                actor = copy.deepcopy(self.model.actor)
                actor.load_state_dict(state)
                self.league[name] = actor.eval()
        self.selfplay.snapshots = [(name, self.league[name]) for name, _ in league]
        start = time.perf_counter()
        rollout = self.selfplay.collect(budget, seed, update, stream=WORKER_STREAM + self.index)
        return rollout, time.perf_counter() - start


class RayCollector:
    """``collect(budget, seed, update, model, snapshots)`` on ``workers`` Ray actors (see the module docstring)."""

    def __init__(self, config: TrainConfig, workers: int, address: str | None = None) -> None:
        import ray

        from euchre_env.evaluation.ray_backend import connect

        connect(address, workers)
        total = ray.cluster_resources().get("CPU", 0)
        if total < workers:  # an actor without a CPU would wait for one forever
            raise RuntimeError(f"ray.rollout_workers={workers} needs {workers} CPUs; the Ray cluster has "
                               f"{total:g}: lower it or add nodes")
        free = ray.available_resources().get("CPU", 0)
        deadline = time.monotonic() + 15  # CPUs of actors just stopped come back within a few seconds
        while free < workers and time.monotonic() < deadline:
            time.sleep(0.2)
            free = ray.available_resources().get("CPU", 0)
        if free < workers:
            raise RuntimeError(f"ray.rollout_workers={workers} needs {workers} free CPUs; the Ray cluster has "
                               f"{free:g} free of {total:g} (other tasks or actors hold the rest)")
        # One CPU each, and one thread: torch's (OpenMP) pool would otherwise start a thread per core in every
        # worker, and their spinning threads slow the other workers on the same node.
        one_thread = {"env_vars": {"OMP_NUM_THREADS": "1"}}
        actor = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0, runtime_env=one_thread)(_RolloutWorker)
        worker_config = config.to_dict()
        worker_config["run"]["device"] = "cpu"  # each collects on its CPU, with the sparse first layer
        self.workers = [actor.remote(worker_config, k) for k in range(workers)]
        self._league_key: tuple[str, ...] | None = None
        self._league_ref: Any = None
        self.died: list[int] = []  # the workers lost during the last update
        self.seconds: list[float] = []  # each worker's collection time in the last update (nan: lost)
        self.decisions: list[int] = []

    def close(self) -> None:
        """Stop the actors (their CPUs go back to the cluster)."""
        import ray

        for worker in self.workers:
            ray.kill(worker, no_restart=True)
        self.workers = []

    def _await_restart(self, k: int) -> None:
        """Wait (at most RESTART_WAIT seconds) until worker ``k`` answers again; still down, the update goes on
        without it. A call sent before Ray has seen the death fails at once, so it is sent again until then."""
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError

        deadline = time.monotonic() + RESTART_WAIT
        while time.monotonic() < deadline:
            try:
                ray.get(self.workers[k].ready.remote(), timeout=max(0.1, deadline - time.monotonic()))
                return
            except GetTimeoutError:
                return
            except RayActorError:
                time.sleep(0.5)

    def collect(self, budget: int, seed: int, update: int, model: Any, snapshots: list[tuple[str, Any]]) -> Rollout:
        import ray
        from ray.exceptions import RayActorError

        for k in self.died:  # lost last update: let Ray finish restarting it (bounded) before sending it work
            self._await_restart(k)
        # CPU copies: the learner may live on an accelerator (run.device); the workers collect on their CPUs
        weights = ray.put({k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()})
        key = tuple(name for name, _ in snapshots)
        if key != self._league_key:  # the league changed (a snapshot added or dropped): send it once
            self._league_ref = ray.put([(name, {k: v.cpu() for k, v in net.state_dict().items()})
                                        for name, net in snapshots])
            self._league_key = key
        n = len(self.workers)
        shares = [budget // n + (1 if k < budget % n else 0) for k in range(n)]
        refs = [w.collect.remote(weights, self._league_ref, share, seed, update)
                for w, share in zip(self.workers, shares)]
        parts: list[Rollout] = []
        self.died, self.seconds, self.decisions = [], [], []
        for k, ref in enumerate(refs):
            try:
                rollout, seconds = ray.get(ref)
            except RayActorError:  # the actor died; Ray restarts it for the next update
                self.died.append(k)
                self.seconds.append(float("nan"))
                self.decisions.append(0)
                continue
            parts.append(rollout)
            self.seconds.append(seconds)
            self.decisions.append(len(rollout))
        if not parts:
            raise RuntimeError(f"update {update}: every rollout worker died; nothing was collected")
        return join_rollouts(parts)


def join_rollouts(parts: list[Rollout]) -> Rollout:
    """The rollouts of several collectors as one, in order (each seat's ``next_index`` shifted with its rows)."""
    offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
    next_index = np.concatenate([np.where(p.next_index >= 0, p.next_index + off, -1)
                                 for p, off in zip(parts, offsets)])
    margins: dict[str, list[float]] = defaultdict(list)
    for p in parts:
        for opponent, values in p.margins.items():
            margins[opponent].extend(values)
    targets = [p.solver_target for p in parts]
    return Rollout(
        obs=np.concatenate([p.obs for p in parts]), mask=np.concatenate([p.mask for p in parts]),
        action=np.concatenate([p.action for p in parts]), log_prob=np.concatenate([p.log_prob for p in parts]),
        value=np.concatenate([p.value for p in parts]), reward=np.concatenate([p.reward for p in parts]),
        next_index=next_index, extra=np.concatenate([p.extra for p in parts]),
        hands=sum(p.hands for p in parts), forced=sum(p.forced for p in parts),
        inference_seconds=sum(p.inference_seconds for p in parts), margins=dict(margins),
        solver_target=None if any(t is None for t in targets) else np.concatenate(targets),
        engine_seconds=sum(p.engine_seconds for p in parts), scripted_seconds=sum(p.scripted_seconds for p in parts),
    )
