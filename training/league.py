"""The league's past snapshots: frozen copies of the learner that hold one team in ``past`` games.

Every ``league.snapshot_every`` updates the run adds the learner's play payload to ``checkpoints/league/`` and its
actor to the collector's snapshots; past ``league.max_snapshots`` one is dropped, as ``league.keep`` says. A
snapshot's file stays until a ``latest.pt`` that no longer names it is saved (:meth:`League.prune`), so a resume
always finds the league its checkpoint names.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import torch

from euchre_env.agents.neural.checkpoint import build_model, load_checkpoint, save_checkpoint
from euchre_env.agents.neural.network import PolicyNet
from euchre_env.game.rules import Rules
from euchre_env.training.sections import LeagueConfig


class League:
    """The snapshots' names (``update_NNNNNN``, oldest first), their files in ``folder`` and the frozen actors in
    ``snapshots``, the collector's list of ``(name, actor)`` that ``past`` games draw from."""

    def __init__(self, folder: str, cfg: LeagueConfig, snapshots: list[tuple[str, Any]]) -> None:
        self.folder, self.cfg, self.snapshots = folder, cfg, snapshots
        self.names: list[str] = []

    def add(self, update: int, payload: dict[str, Any], actor: PolicyNet) -> None:
        """The learner after ``update`` (its play ``payload`` and ``actor``) joins the league."""
        name = f"update_{update:06d}"
        save_checkpoint(payload, os.path.join(self.folder, name + ".pt"))
        self.snapshots.append((name, copy.deepcopy(actor).eval()))
        self.names.append(name)
        if len(self.names) > self.cfg.max_snapshots:
            drop = dropped_snapshot(self.names, self.cfg.keep)
            self.names.pop(drop)
            self.snapshots.pop(drop)  # its file stays until a latest.pt without it is saved (prune)

    def restore(self, names: list[str], rules: Rules, device: torch.device, dense: bool) -> None:
        """A resumed run's league: the snapshots ``names``, loaded from their files (on the learner's device)."""
        self.names = list(names)
        for name in self.names:
            actor = build_model(load_checkpoint(os.path.join(self.folder, name + ".pt"), rules))
            self.snapshots.append((name, actor.copy(dense=True, device=device) if dense else actor))

    def prune(self) -> None:
        """Delete the snapshot files the latest.pt just saved no longer names: a resume starts only from
        latest.pt (best.pt holds no league), so nothing can load them again, and disk use stays bounded."""
        keep = {name + ".pt" for name in self.names}
        for file in os.listdir(self.folder):
            if file.endswith(".pt") and file not in keep:
                os.remove(os.path.join(self.folder, file))


def dropped_snapshot(league: list[str], keep: str) -> int:
    """The index of the snapshot to drop from a league one over its size (names ``update_NNNNNN``, oldest
    first): the oldest under ``"recent"``; under ``"spread"`` the one nearest its elder neighbour, never
    the oldest or the newest (ties: the elder), which keeps the league spread evenly over the whole run."""
    if keep == "recent" or len(league) < 3:
        return 0
    updates = [int(name.rpartition("_")[2]) for name in league]
    gaps = [updates[i] - updates[i - 1] for i in range(1, len(updates) - 1)]
    return 1 + gaps.index(min(gaps))
