"""Ray scale-out on this machine: evaluation and self-play collection throughput against the number of workers.

* evaluation: a duplicate match of ``--agent`` (default PIMC-50) against the rule-based agent, ``--deals``
  deals, on the local backend (1 and 2 processes) and on a local Ray instance (1 and 2 workers); deals per
  second, and whether the records equal the local backend's;
* self-play: the knock_scratch config's collection of ``--decisions`` learner decisions per update, in this
  process and on 1 and 2 Ray rollout workers (after one warm-up update); learner decisions per second.

    .venv/bin/python benchmarks/bench_ray.py --deals 40 --decisions 16384
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import ray

from euchre_env.evaluation import evaluate
from euchre_env.training.config import load_config
from euchre_env.training.train import Trainer

CONFIG = os.path.join(os.path.dirname(__file__), "..", "configs", "knock_scratch.yaml")


def _ray(cpus: int) -> None:
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)


def bench_eval(agent: str, deals: int) -> None:
    print(f"| evaluation: {agent} vs rules, {deals} deals | workers | seconds | deals/s | records = local |")
    print("|---|---:|---:|---:|---|")
    reference = None
    for backend, workers in (("local", 1), ("local", 2), ("ray", 1), ("ray", 2)):
        if backend == "ray":
            _ray(workers)
        start = time.perf_counter()
        result = evaluate(agent, "rules", "knock", n=deals, seed=9, workers=workers, backend=backend)
        seconds = time.perf_counter() - start
        reference = reference or result.records
        print(f"| {backend} | {workers} | {seconds:.1f} | {deals / seconds:.2f} | {result.records == reference} |")
    ray.shutdown()


def bench_selfplay(decisions: int, updates: int) -> None:
    print(f"\n| self-play collection ({decisions:,} decisions an update) | workers | learner decisions/s |")
    print("|---|---:|---:|")
    for backend, workers in (("local", 1), ("ray", 1), ("ray", 2)):
        if backend == "ray":
            _ray(workers)
        overrides = ["eval.every=0", "eval.select_last=0", f"ppo.rollout_decisions={decisions}",
                     f"run.backend={backend}", f"ray.rollout_workers={workers}", "run.torch_threads=1"]
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(load_config(CONFIG, overrides), os.path.join(tmp, "bench"), log=lambda text: None)
            trainer.collect()  # warm-up: the workers start and load the compiled kernels
            n, start = 0, time.perf_counter()
            for _ in range(updates):
                trainer.update += 1  # a new update's streams each time, as training does
                n += len(trainer.collect())
            seconds = time.perf_counter() - start
            trainer.close()
        print(f"| {backend} | {workers} | {n / seconds:,.0f} |")
    ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="pimc:50")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--decisions", type=int, default=16384)
    parser.add_argument("--updates", type=int, default=3)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, Ray {ray.__version__}\n")
    bench_eval(args.agent, args.deals)
    bench_selfplay(args.decisions, args.updates)


if __name__ == "__main__":
    main()
