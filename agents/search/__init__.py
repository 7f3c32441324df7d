"""Search agents: PIMC (``pimc:N``) over worlds sampled consistent with the seat's knowledge (``worlds``),
each solved by the double-dummy solver (``double_dummy``)."""

from euchre_env.agents.search.pimc import PIMCAgent

__all__ = ["PIMCAgent"]
