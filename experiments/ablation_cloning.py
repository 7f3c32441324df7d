"""Behaviour cloning of the rule-based agent under each observation: held-out accuracy and the clone's play.

    .venv/bin/python experiments/ablation_cloning.py --observation absolute --decisions 150000 --out DIR
    .venv/bin/python experiments/ablation_cloning.py --observation structured --decisions 150000 --out DIR

The trainer's own cloning (``Trainer`` with ``pretrain.teacher: rules``, the knock config otherwise)
fits the network to ``--decisions`` teacher decisions; then it is scored on teacher decisions of
other deals it never saw (held-out accuracy) and plays a duplicate match against its teacher on a
seed that neither the demonstrations nor the held-out set used. Writes ``DIR/clone.pt`` and
``DIR/cloning.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch

from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint
from euchre_env.agents.registry import make_agent
from euchre_env.evaluation import evaluate
from euchre_env.training.config import load_config
from euchre_env.training.imitation import BehaviourCloning
from euchre_env.training.interrupt import InterruptGuard
from euchre_env.training.selfplay import SELF
from euchre_env.training.train import Trainer

HELD_OUT_SEED = 9_001  # demonstrations for the held-out accuracy (training uses run.seed)
MATCH_SEED = 31_337  # the clone against its teacher (the trainer's evaluations use 12345 and 2026)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observation", choices=("absolute", "structured"), required=True)
    parser.add_argument("--decisions", type=int, default=150_000)
    parser.add_argument("--held-out", type=int, default=30_000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals of the clone against rules")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    config = load_config("configs/knock.yaml", [
        f"model.observation={args.observation}", "model.critic=seat", f"pretrain.decisions={args.decisions}",
        f"pretrain.epochs={args.epochs}", "run.torch_threads=1"])
    trainer = Trainer(config, os.path.join(args.out, "run"), log=print)
    start = time.perf_counter()
    cloning = next(phase for phase in trainer.phases if isinstance(phase, BehaviourCloning))
    cloning.run(trainer, InterruptGuard(print))
    seconds = time.perf_counter() - start

    held = trainer.selfplay_for({SELF: 1.0}, {}).collect(args.held_out, HELD_OUT_SEED, 0, teacher=make_agent("rules"))
    with torch.no_grad():
        logits = trainer.model.actor.masked_logits(torch.from_numpy(held.obs), torch.from_numpy(held.mask))
    accuracy = float((logits.argmax(-1).numpy() == held.action).mean())
    path = os.path.join(args.out, "clone.pt")
    save_checkpoint(model_payload(trainer.model.actor, trainer.rules, args.observation), path)
    match = evaluate(path, "rules", trainer.rules, n=args.deals, seed=MATCH_SEED, workers=args.workers)
    result = {
        "observation": args.observation, "demonstrations": args.decisions, "epochs": args.epochs,
        "held_out_decisions": len(held), "held_out_accuracy": accuracy, "cloning_seconds": seconds,
        "vs_rules": {"deals": match.deals, "seed": MATCH_SEED, "margin": match.margin,
                     "low": match.margin_low, "high": match.margin_high, "points_share": match.points_share},
    }
    with open(os.path.join(args.out, "cloning.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
