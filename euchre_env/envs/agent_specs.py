"""Agent spec strings (``"random"``, ``"rules"``, ``"pimc:50"``, ``"path.pt"``) for the env's opponents.

The environment package defines no agent and imports none: ``SingleSeatEnv(opponents="rules")``
turns the string into an agent through the resolvers registered here. They are filled from
above, as Gymnasium's registry is: the agents package declares its resolver
(``euchre_env.agents.registry:make_agent``) under the entry-point group
``euchre_env.agent_specs`` in ``pyproject.toml``, and any installed package may add its own
the same way; :func:`register_resolver` adds one at run time.

A resolver is ``f(spec, seed=None) -> agent`` and raises :class:`UnknownAgentSpec` for a spec
it does not know (any other error is the spec's fault and is reported as is).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

ENTRY_POINT_GROUP = "euchre_env.agent_specs"

Resolver = Callable[..., Any]
_resolvers: list[Resolver] = []
_loaded = False


class UnknownAgentSpec(ValueError):
    """No resolver knows this agent spec."""


def register_resolver(resolver: Resolver) -> None:
    """Add ``resolver`` (tried after the installed ones, in registration order)."""
    if resolver not in _resolvers:
        _resolvers.append(resolver)


def _installed() -> list[Resolver]:
    global _loaded
    if not _loaded:
        _loaded = True
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            _resolvers.insert(0, ep.load())
    return _resolvers


def make_agent_from_spec(spec: str, seed: int | None = None) -> Any:
    """The agent ``spec`` names, from the first resolver that knows it."""
    resolvers = _installed()
    if not resolvers:
        raise UnknownAgentSpec(
            f"cannot build agent spec {spec!r}: no agent resolver is installed (install euchre-env with pip, "
            "or pass an agent object instead of a string)")
    first: UnknownAgentSpec | None = None
    for resolve in resolvers:
        try:
            return resolve(spec, seed=seed)
        except UnknownAgentSpec as exc:
            first = first or exc
    raise first
