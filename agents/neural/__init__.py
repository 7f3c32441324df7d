"""The network and the agent that plays it (needs torch: the ``train`` extra).

``network`` (``PolicyNet``, the actor a checkpoint plays; ``ValueNet``; ``ActorCritic``), its first layer
computed from the observation's non-zero entries (``sparse_input``) and that layer's CPU kernels
(``cpu_kernels``), the checkpoint format (``checkpoint``) and ``NeuralAgent`` (``agent``).
"""

from typing import Any

__all__ = ["NeuralAgent"]


def __getattr__(name: str) -> Any:
    # lazy: ``euchre_env.agents.neural.checkpoint`` and the rest import without building the agent module
    if name == "NeuralAgent":
        from euchre_env.agents.neural.agent import NeuralAgent

        return NeuralAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
