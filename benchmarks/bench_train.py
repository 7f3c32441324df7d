"""Self-play training throughput, end to end, and where the time goes.

Runs the trainer on a config (default ``configs/knock.yaml``) for ``--updates`` updates with
the periodic evaluation switched off, in a temporary run folder, and reports:

* end-to-end learner decisions per second (collection plus learning; forced moves, which
  the collector applies without asking the network, are not counted), over all measured updates
  and for the median update (a shared machine's slow minutes move the first much more);
* the share of time in the environment, in inference (the batched forward passes of the learner
  and frozen snapshots) and in learning (the PPO epochs). The environment is the engine itself
  (``VectorEuchre``: rules, observations, masks) and the scripted league opponents (their agents and
  the reference games kept for them), and the collector's own loop (dispatch, buffers, the critic's
  features) has its own row.

``--device`` (``run.device``: ``auto``, the default, ``cpu``, ``cuda``, ``cuda:N``, ``mps``, or ``cpu-dense``, the
accelerator's code path on the CPU) says where the networks run; the report names the device it resolved to.

    .venv/bin/python benchmarks/bench_train.py --updates 20
    .venv/bin/python benchmarks/bench_train.py --updates 20 --device cpu-dense
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

import torch

from euchre_env.training.config import load_config
from euchre_env.training.ppo import ppo_update
from euchre_env.training.train import Trainer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "..", "configs", "knock.yaml"))
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--set", dest="overrides", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument("--device", default="auto",
                        help="where the networks run (run.device): auto (default), cpu, cuda, cuda:N, mps, or "
                             "cpu-dense (the accelerator's code path on the CPU)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config, ["eval.every=0", "eval.select_last=0", *args.overrides,
                                           f"run.device={args.device}"])
    except ValueError as e:  # a device this machine lacks: the config's one line
        parser.error(str(e))
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(config, os.path.join(tmp, "bench"), log=lambda text: None)
        ppo = config.ppo
        collect = infer = learn = engine = scripted = 0.0
        decisions = forced = 0
        rates = []  # each measured update's learner decisions per second
        for update in range(args.updates):
            t0 = time.perf_counter()
            trainer.update = update
            rollout = trainer.collect()  # in this process, or on the Ray rollout workers (run.backend: ray)
            t1 = time.perf_counter()
            ppo_update(trainer.model, trainer.optimizer, rollout, ppo, torch.Generator().manual_seed(update))
            t2 = time.perf_counter()
            if update == 0:
                continue  # warm-up (and, on Ray, the workers' start)
            collect += t1 - t0
            infer += rollout.inference_seconds
            engine += rollout.engine_seconds
            scripted += rollout.scripted_seconds
            learn += t2 - t1
            decisions += len(rollout)
            forced += rollout.forced
            rates.append(len(rollout) / (t2 - t0))
        trainer.close()
    total = collect + learn
    print(f"config {os.path.basename(args.config)} ({config.rules.preset}), device {trainer.device_label}, "
          f"{args.updates - 1} updates after a warm-up, {decisions:,} learner decisions (+{forced:,} forced moves), "
          f"torch {torch.__version__}, {config.run.torch_threads} torch thread(s), Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs")
    print()
    print("| measure | value |")
    print("|---|---|")
    print(f"| learner decisions/s on {config.run.device}, end to end | {decisions / total:,.0f} |")
    if rates:  # a shared machine's slow minutes move the total; the median update much less
        print(f"| end to end, the median update (slowest-fastest) | {statistics.median(rates):,.0f} "
              f"({min(rates):,.0f}-{max(rates):,.0f}) |")
    print(f"| collection decisions/s (no learning) | {decisions / collect:,.0f} |")
    if config.run.backend == "ray":  # the workers' own times add up over processes running side by side
        print(f"| time in collection ({config.ray.rollout_workers} Ray rollout workers) | {collect / total:.0%} |")
        print(f"| time in learning (PPO epochs) | {learn / total:.0%} |")
        return
    # the collector times the engine and the scripted seats apart from its own loop
    print(f"| time in the environment (engine and scripted opponents) | {(engine + scripted) / total:.0%} |")
    print(f"| of which the engine (VectorEuchre: rules, observations, masks) | {engine / total:.0%} |")
    print(f"| of which the scripted opponents and their reference games | {scripted / total:.0%} |")
    print(f"| time in the collector's own loop (dispatch, buffers, critic features) | "
          f"{(collect - infer - engine - scripted) / total:.0%} |")
    print(f"| time in inference (batched forward passes) | {infer / total:.0%} |")
    print(f"| time in learning (PPO epochs) | {learn / total:.0%} |")


if __name__ == "__main__":
    main()
