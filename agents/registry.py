"""Agent specs on the command line and in configs: ``random``, ``rules``, ``pimc:50``, a checkpoint path (``.pt``)."""

from __future__ import annotations

import importlib
from typing import Any

from euchre_env.agent_specs import UnknownAgentSpec

# spec name -> (module, class, name of the integer parameter after the colon or None)
_AGENTS: dict[str, tuple[str, str, str | None]] = {
    "random": ("euchre_env.agents.random_agent", "RandomAgent", None),
    "rules": ("euchre_env.agents.rule_based", "RuleBasedAgent", None),
    "pimc": ("euchre_env.agents.pimc", "PIMCAgent", "worlds"),
}


def agent_names() -> list[str]:
    return sorted(_AGENTS)


def make_agent(spec: str, seed: int | None = None, **kwargs: Any):
    """Build the agent a spec names. Unknown specs raise ValueError listing the known ones."""
    text = str(spec).strip()
    if text.endswith(".pt"):
        from euchre_env.agents.neural import NeuralAgent

        agent = NeuralAgent(text, seed=seed, **kwargs)
        agent.name = text
        return agent
    name, _, param = text.partition(":")
    if name not in _AGENTS:
        raise UnknownAgentSpec(
            f"unknown agent spec {spec!r}; known: {', '.join(agent_names())} (e.g. 'pimc:50'), or a checkpoint path "
            "ending in .pt"
        )
    module, cls, param_name = _AGENTS[name]
    if param:
        if param_name is None:
            raise ValueError(f"agent {name!r} takes no parameter, got {spec!r}")
        try:
            kwargs[param_name] = int(param)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: {param_name} must be an integer") from None
        if kwargs[param_name] < 1:
            raise ValueError(f"agent spec {spec!r}: {param_name} must be at least 1")
    agent_cls = getattr(importlib.import_module(module), cls)
    agent = agent_cls(seed=seed, **kwargs)
    agent.name = text
    return agent
