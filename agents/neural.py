"""An agent that plays a trained checkpoint (needs the ``train`` extra: torch).

``NeuralAgent("runs/knock/checkpoints/best.pt")`` plays the network's most probable legal
action; ``greedy=False`` samples from its masked policy with the agent's seeded generator.
As an agent spec, a path to a ``.pt`` file is a greedy NeuralAgent.

The checkpoint is read with ``torch.load(weights_only=True)`` and checked (format, observation
fingerprint); the first decision also checks that the game's rules are the ones it was
trained for, and fails with a message naming the differences otherwise.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_MODELS: dict[tuple[str, int, int], tuple[Any, Any]] = {}  # (path, mtime, size) -> (network, rules)


def _load(path: str):
    from euchre_env.agents.checkpoint import build_model, load_checkpoint

    st = os.stat(path) if os.path.isfile(path) else None
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size) if st else None
    if key not in _MODELS:  # the harness builds one agent per seat: read the file once
        data = load_checkpoint(path)
        _MODELS[key] = (build_model(data), data["rules"])
    return _MODELS[key]


class NeuralAgent:
    """Plays a checkpoint's policy: greedy by default, or sampled."""

    name = "neural"
    needs_observation = True

    def __init__(self, path: str, seed: int | None = None, greedy: bool = True) -> None:
        import torch

        self._torch = torch
        self.path = path
        self.model, self.rules = _load(path)
        self.greedy = greedy
        self._checked = False
        self.reset(seed)

    @classmethod
    def from_model(cls, model: Any, rules: Any, seed: int | None = None, greedy: bool = True,
                   name: str = "neural") -> NeuralAgent:
        """An agent playing an in-memory network (the trainer's evaluations use it)."""
        import torch

        agent = cls.__new__(cls)
        agent._torch, agent.path, agent.model, agent.rules = torch, name, model, rules
        agent.greedy, agent._checked, agent.name = greedy, False, name
        agent.reset(seed)
        return agent

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        torch = self._torch
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
        from euchre_env.agents.checkpoint import CheckpointError

        size = np.asarray(observation["observation"]).shape[-1]
        if size != self.model.obs_size:
            raise CheckpointError(
                f"checkpoint {self.path!r} expects observations of {self.model.obs_size} floats, got {size}: "
                "it was trained for other rules"
            )
        state = (info or {}).get("information_state")
        if state is not None:
            self.check_rules(state.rules)
        self._checked = True

    def check_rules(self, rules: Any) -> None:
        """Raise a CheckpointError unless the network was trained for ``rules``."""
        from euchre_env.agents.checkpoint import check_rules

        check_rules(self.path, self.rules, rules)
