"""The run's evaluations: the periodic duplicate matches of the learner, best.pt, and the final selection.

Every ``eval.every`` updates the learner (greedy) plays ``eval.hands`` duplicate deals against each of
``eval.opponents``; the best margin against the last one is ``best.pt``, or with ``eval.select_last`` the update
is kept as a candidate (``checkpoints/candidates/``) of the final selection (:func:`select`), which plays the last
candidates and the final weights on fresh deals and copies the winner to ``best.pt``.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import TYPE_CHECKING, Any

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.evaluation import MatchResult, evaluate

if TYPE_CHECKING:
    from euchre_env.training.train import Trainer


def matches(run: Trainer, opponents: dict[str, int], seed: int, workers: int, path: str | None = None,
            progress: bool = False, leave: bool = True) -> list[MatchResult]:
    """Duplicate matches of the learner (greedy; or the checkpoint at ``path``) against each opponent: ``{spec:
    deals}``, each with its bar on stderr if ``progress`` (erased at its end unless ``leave``)."""
    if path is None:  # the current weights, played in this process (on the CPU, as a checkpoint plays)
        actor = run.model.actor.copy() if run.dense else run.model.actor
        spec: Any = _GreedyFactory(actor, run.rules, run.config.model.observation, f"update {run.update}")
        workers = 1
    else:
        spec = path
    return [evaluate(spec, opp, run.rules, n=n, seed=seed, workers=workers, progress=progress, leave=leave)
            for opp, n in opponents.items()]


def periodic_eval(run: Trainer) -> None:
    """The evaluation after the current update: logged, and best.pt or a candidate saved."""
    cfg = run.config.eval
    results = matches(run, {o: cfg.hands for o in cfg.opponents}, cfg.seed, cfg.workers, progress=run.progress,
                      leave=False)  # the line below says what they found
    parts = []
    for opp, r in zip(cfg.opponents, results):
        run.writer.add_scalar(f"eval/margin_vs_{opp}", r.margin, run.update)
        run.writer.add_scalar(f"eval/margin_low_vs_{opp}", r.margin_low, run.update)
        run.writer.add_scalar(f"eval/margin_high_vs_{opp}", r.margin_high, run.update)
        parts.append(f"vs {opp} {r.margin:+.3f} [{r.margin_low:+.3f}, {r.margin_high:+.3f}]")
    margin = results[-1].margin
    if margin > run.best_margin:
        run.best_margin = margin
        if not cfg.select_last:  # with a final selection, best.pt is written by select()
            run.save("best.pt")
    if cfg.select_last:
        _save_candidate(run)
    run.log(f"eval at update {run.update}: " + ", ".join(parts))


def _candidates(run: Trainer) -> str:
    return os.path.join(run.ckpt_dir, "candidates")


def _save_candidate(run: Trainer) -> None:
    """The current update as a candidate of the final selection; only the last ``eval.select_last``
    stay on disk (the final weights are added by :func:`select`)."""
    os.makedirs(_candidates(run), exist_ok=True)
    run.save(os.path.join("candidates", f"update_{run.update:06d}.pt"))
    files = sorted(f for f in os.listdir(_candidates(run)) if f.endswith(".pt"))
    for file in files[:-run.config.eval.select_last]:
        os.remove(os.path.join(_candidates(run), file))


def select(run: Trainer, progress: bool = False) -> dict[str, Any]:
    """The final selection: each candidate (the last ``eval.select_last`` evaluated updates and the final
    weights) plays ``eval.select_hands`` duplicate deals of ``eval.select_seed``, deals that neither
    training nor the periodic evaluations saw, against ``eval.opponents[-1]``; the best is copied to
    best.pt. Its margin here is still a maximum over the candidates (biased up a little): the unbiased
    figure is the final evaluation's, on ``final_eval.seed``. Written to ``checkpoints/selection.json`` and kept
    as ``run.selection``.
    """
    cfg = run.config.eval
    final = os.path.join("candidates", f"update_{run.update:06d}.pt")
    if not os.path.isfile(os.path.join(run.ckpt_dir, final)):
        run.save(final)
    opponent = cfg.opponents[-1]
    rows = []
    for file in sorted(f for f in os.listdir(_candidates(run)) if f.endswith(".pt")):
        path = os.path.join(_candidates(run), file)
        result = evaluate(path, opponent, run.rules, n=cfg.select_hands, seed=cfg.select_seed,
                          workers=cfg.workers, progress=progress, leave=False)
        update = int(file.removesuffix(".pt").rpartition("_")[2])
        run.writer.add_scalar(f"select/margin_vs_{opponent}", result.margin, update)
        rows.append({"update": update, "file": file, "margin": result.margin, "low": result.margin_low,
                     "high": result.margin_high})
        run.log(f"selection, update {update}: vs {opponent} {result.margin:+.3f} "
                f"[{result.margin_low:+.3f}, {result.margin_high:+.3f}]")
    chosen = max(rows, key=lambda row: row["margin"])
    shutil.copyfile(os.path.join(_candidates(run), chosen["file"]), os.path.join(run.ckpt_dir, "best.pt"))
    summary = {"opponent": opponent, "deals": cfg.select_hands, "seed": cfg.select_seed,
               "chosen_update": chosen["update"], "chosen_margin": chosen["margin"], "candidates": rows}
    with open(os.path.join(run.ckpt_dir, "selection.json"), "w") as f:
        json.dump(summary, f, indent=2)
    run.log(f"selected update {chosen['update']} as best.pt: {chosen['margin']:+.3f} vs {opponent} over "
            f"{cfg.select_hands:,} selection deals (seed {cfg.select_seed})")
    run.selection = summary
    return summary


class _GreedyFactory:
    """An agent spec (``f(seed) -> agent``) playing the live actor greedily, for in-process evaluation."""

    def __init__(self, actor: PolicyNet, rules: Any, observation: str, name: str) -> None:
        self.actor, self.rules, self.observation, self.name = actor, rules, observation, name

    def __call__(self, seed: int | None) -> Any:
        return NeuralAgent(self.actor, self.rules, observation=self.observation, seed=seed, name=self.name)
