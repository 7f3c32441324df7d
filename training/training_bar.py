"""The progress bar over a run's updates (``euchre train``'s bar on stderr)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm.auto import tqdm

from euchre_env.evaluation.progress import progress_bar

if TYPE_CHECKING:
    from euchre_env.training.train import Trainer


class TrainingBar:
    """The bar over the updates. With a time limit it counts minutes of training time and its total is
    the projected length of the run, the time limit or, if the decision budget runs out first at the pace
    so far, that moment: the eta then counts toward whichever stop comes first. Without one it counts
    decisions."""

    def __init__(self, run: Trainer, enabled: bool) -> None:
        cfg = run.config.run
        # no delay: the evaluations' log lines redraw the bar anyway (tqdm.write), and close then draws the end
        if cfg.max_minutes > 0:
            # at most full: a limit spent before the first update (in the cloning) shows a full bar, not 10,000%
            self.bar = progress_bar(cfg.max_minutes, "training", "min", enabled=enabled, unit_scale=True,
                                    initial=min(run.seconds_so_far() / 60, cfg.max_minutes), delay=0.0)
        else:
            self.bar = progress_bar(cfg.total_decisions, "training", "decisions", enabled=enabled, unit_scale=True,
                                    initial=min(run.decisions, cfg.total_decisions), delay=0.0)
        self.start_decisions, self.start_seconds = run.decisions, run.seconds_so_far()

    def __enter__(self) -> TrainingBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()

    def advance(self, run: Trainer, rollout: Any) -> None:
        cfg, bar = run.config.run, self.bar
        postfix = _postfix(run, rollout)
        if cfg.max_minutes > 0:
            seconds = run.seconds_so_far()
            pace = (run.decisions - self.start_decisions) / max(seconds - self.start_seconds, 1e-9)
            budget_end = seconds + max(cfg.total_decisions - run.decisions, 0) / pace if pace > 0 else math.inf
            bar.total = min(cfg.max_minutes, budget_end / 60)
            done = min(seconds / 60, bar.total)
            postfix += (f", {tqdm.format_sizeof(run.decisions)}/{tqdm.format_sizeof(cfg.total_decisions)} "
                        "decisions")
        else:
            done = min(run.decisions, cfg.total_decisions)
        bar.set_postfix_str(postfix, refresh=False)
        bar.update(done - bar.n)


def _postfix(run: Trainer, rollout: Any) -> str:
    """The bar's live part: update, train margin against each opponent of the league, best evaluation."""
    live = " ".join(f"{o} {np.mean(m):+.2f}" for o, m in sorted(rollout.margins.items()))
    best = f", best {run.best_margin:+.3f}" if math.isfinite(run.best_margin) else ""
    return f"update {run.update}, train margin {live or '-'}{best}"
