"""The training curve of a run: its periodic duplicate evaluations, read back from TensorBoard."""

from __future__ import annotations

import os


def eval_curves(run_dir: str) -> dict[str, list[tuple[float, float, float, float]]]:
    """``{opponent: [(millions of decisions, margin, low, high), ...]}`` from the run's scalars."""
    # Imported here: the command line imports this module, and eval must work without the train extra.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(run_dir, size_guidance={"scalars": 0}).Reload()
    tags = set(events.Tags()["scalars"])
    # Step 0 is before any update: no decision trained on. A run that ended there (its time limit spent in the
    # behaviour cloning) logged no charts/decisions at all, only the evaluation of its final weights.
    decisions = {0: 0.0}
    if "charts/decisions" in tags:
        decisions.update({e.step: e.value / 1e6 for e in events.Scalars("charts/decisions")})
    curves = {}
    for tag in sorted(t for t in tags if t.startswith("eval/margin_vs_")):
        opponent = tag.removeprefix("eval/margin_vs_")
        low = {e.step: e.value for e in events.Scalars(f"eval/margin_low_vs_{opponent}")}
        high = {e.step: e.value for e in events.Scalars(f"eval/margin_high_vs_{opponent}")}
        curves[opponent] = [(decisions[e.step], e.value, low[e.step], high[e.step])
                            for e in events.Scalars(tag) if e.step in decisions]
    return curves


def plot_curves(run_dir: str, out: str | None = None) -> str:
    """Plot the margin against each evaluation opponent with its 95% interval; returns the PNG path.

    Raises ImportError without matplotlib (the caller says which extra to install).
    """
    import matplotlib  # imported here: slow to import, and only the plot needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = eval_curves(run_dir)
    if not curves:
        raise ValueError(f"run {run_dir!r} has no evaluations to plot")
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent, points in curves.items():
        x = [p[0] for p in points]
        ax.plot(x, [p[1] for p in points], marker=".", label=f"vs {opponent}")
        ax.fill_between(x, [p[2] for p in points], [p[3] for p in points], alpha=0.25)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("learner decisions (millions)")
    ax.set_ylabel("duplicate margin, points per hand")
    ax.set_title(f"{os.path.basename(os.path.normpath(run_dir))}: greedy policy in duplicate evaluation (95% CI)")
    ax.grid(alpha=0.3)
    ax.legend()
    out = out or os.path.join(run_dir, "curves.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
