"""What an algorithm of the trainer is to the run: a phase, asked in turn whether it is due, then run.

The run (:class:`~euchre_env.training.train.Trainer`) owns the folder, the config, the learner (network and
optimizer), the counters, the league, the evaluations, the checkpoints and the time limit; an algorithm owns how it
changes the learner. The run's loop asks its phases in order and runs the first one due, until the decision
budget or the time limit is spent; an ``opening`` phase is asked once, before the loop (the behaviour cloning).
Docs: docs/training.md, "Adding an algorithm".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from euchre_env.training.interrupt import InterruptGuard
    from euchre_env.training.train import Trainer


@dataclass
class PhaseResult:
    """What a phase did: its figures (as it logged them), and whether it completed an update of the run's
    counters (the loop's ``stop_at_update`` counts those)."""

    stats: dict[str, float] = field(default_factory=dict)
    update: bool = False


class Phase(Protocol):
    """An algorithm of the trainer. ``run`` changes the learner, logs (its own TensorBoard section and log line)
    and says which part of the run it is doing (``run.doing``, which the time limit's report names). Ctrl-C: what
    only collects may be abandoned; what changes the network runs inside ``guard.finishing(update)``, so that a
    checkpoint is always a completed step. Its state, numbers kept in the checkpoint's counters (``state_dict``),
    comes back on resume (``load_state_dict``, from those counters: a key an older checkpoint lacks gets a
    default); every random stream it draws is seeded from (run seed, update), so it keeps no generator."""

    opening: bool  # asked once, before the loop (and before the training bar), instead of at each step

    def due(self, run: Trainer) -> bool:
        """Whether the phase runs now (the loop runs the first of its phases that is due)."""
        ...

    def run(self, run: Trainer, guard: InterruptGuard) -> PhaseResult:
        ...

    def state_dict(self) -> dict[str, Any]:
        ...

    def load_state_dict(self, counters: dict[str, Any]) -> None:
        ...
