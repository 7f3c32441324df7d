"""An agent that plays a trained policy network (needs the ``train`` extra: torch).

``NeuralAgent("runs/knock/checkpoints/best.pt")`` plays the network's most probable legal
action; ``greedy=False`` samples from its masked policy with the agent's seeded generator.
As an agent spec, a path to a ``.pt`` file is a greedy NeuralAgent. The trainer's own
evaluations pass the live network instead of a path: ``NeuralAgent(model, rules)``.

The checkpoint is read with ``torch.load(weights_only=True)`` and checked (format, observation
fingerprint); the first decision also checks that the game's rules are the ones it was
trained for, and fails with a message naming the differences otherwise.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from euchre_env.agents.checkpoint import CheckpointError, build_model, check_rules, load_checkpoint
from euchre_env.agents.policy import ActorCritic
from euchre_env.rules import Rules

_MODELS: dict[tuple[str, int, int], tuple[ActorCritic, Rules]] = {}  # (path, mtime, size) -> (network, rules)


def _load(path: str) -> tuple[ActorCritic, Rules]:
    """The network and rules of the checkpoint at ``path``, read once per file version.

    The harness builds one agent per seat and per deal: the cache keeps that to one read, and
    the file's modification time and size in the key make a rewritten checkpoint load afresh.
    """
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None  # missing or unreadable: load_checkpoint says which
    if key is None or key not in _MODELS:
        data = load_checkpoint(path)
        loaded = (build_model(data, path), data["rules"])
        if key is None:
            return loaded
        _MODELS[key] = loaded
    return _MODELS[key]


class NeuralAgent:
    """Plays a policy network: greedy by default, or sampled.

    ``checkpoint`` is a path to a checkpoint file (read and checked; the rules come from the
    file, and ``rules``, if given, must be the same) or an in-memory :class:`ActorCritic`
    (then ``rules``, the rules it plays, is required). ``name`` is the label evaluation
    tables print (default ``"neural"``).
    """

    name = "neural"
    needs_observation = True

    def __init__(
        self,
        checkpoint: str | os.PathLike | ActorCritic,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        greedy: bool = True,
        name: str | None = None,
    ) -> None:
        if rules is not None and not isinstance(rules, Rules):
            raise TypeError(f"NeuralAgent: rules must be a euchre_env Rules or None, got {type(rules).__name__} "
                            f"{rules!r} (pass the seed as seed=...)")
        if isinstance(checkpoint, ActorCritic):
            if rules is None:
                raise ValueError("NeuralAgent: an in-memory network needs the rules it plays: "
                                 "NeuralAgent(model, rules)")
            self.source = name or "in-memory network"
            self.model, self.rules = checkpoint, rules
        elif isinstance(checkpoint, (str, os.PathLike)):
            self.source = os.fspath(checkpoint)
            self.model, self.rules = _load(self.source)
            if rules is not None:
                check_rules(self.source, self.rules, rules)
        else:
            raise TypeError("NeuralAgent: checkpoint must be a path to a .pt file or an ActorCritic network, "
                            f"got {type(checkpoint).__name__}")
        if name is not None:
            self.name = name
        self.greedy = greedy
        self._checked = False
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        if not self._checked:
            self._check(observation, info)
        obs = torch.as_tensor(np.asarray(observation["observation"], np.float32)).unsqueeze(0)
        mask = torch.as_tensor(np.asarray(observation["action_mask"]).astype(bool)).unsqueeze(0)
        if not mask.any():
            raise ValueError("NeuralAgent.act: the action mask has no legal action (is it this seat's turn?)")
        with torch.no_grad():
            logits = self.model.masked_logits(obs, mask)[0]
        if self.greedy:
            return int(logits.argmax())
        probs = torch.softmax(logits, -1).numpy().astype(np.float64)
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def _check(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None) -> None:
        size = np.asarray(observation["observation"]).shape[-1]
        if size != self.model.obs_size:
            raise CheckpointError(
                f"checkpoint {self.source!r} expects observations of {self.model.obs_size} floats, got {size}: "
                "it was trained for other rules"
            )
        state = (info or {}).get("information_state")
        if state is not None:
            self.check_rules(state.rules)
        self._checked = True

    def check_rules(self, rules: Rules) -> None:
        """Raise a CheckpointError unless the network was trained for ``rules``."""
        check_rules(self.source, self.rules, rules)
