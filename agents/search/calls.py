"""The call search: the network's calls checked by its own rollouts on many worlds drawn from its belief head.

    agent = make_agent("calls:256:knock_belief.pt")   # 256 worlds at each calling decision
    agent = make_agent("calls:knock_belief.pt")       # the default, 256

Where the network's edge over PIMC lies, measured: in its calls (its bidding is worth +0.106 a hand over PIMC-50's,
its card play is PIMC-50's equal; docs/agents.md#where-the-edge-over-pimc-comes-from). So this search spends its
whole budget on the calling decisions (``CALL_KINDS``: order / pass / alone, name, defend alone, the dealer's
discard) and plays the network's cards unsearched. At a calling decision with more than one legal action, from its
seat's ``InfoState`` only:

1. **Worlds**: ``worlds`` (N) deals consistent with what the seat knows, sampled from the network's belief head
   (:mod:`euchre_env.agents.neural.belief`; a checkpoint without one: uniform worlds weighed by the network's
   likelihood of the other seats' moves), as the anchored search draws them.
2. **Values**: each candidate is applied in each world and the greedy network plays the hand out, every seat from
   its own view of its world (the calls still to come, then every card), on the batched engine; a candidate's value
   is its mean hand margin for the seat's team (euchres and marches count; a hand thrown in is 0). No
   double-dummy solve: on the seed the variant was chosen on, solving after 4 of the network's card plays did no
   better (docs/agents.md).
3. **The network unless the evidence says otherwise**: its call stands unless another's mean gain over it on the
   same worlds has a lower confidence bound above zero (``z`` 1.64, one-sided 95%); then the best such call.

It is :class:`~euchre_env.agents.search.anchored.AnchoredSearchAgent` with ``kinds=CALL_KINDS``, ``plies=None``
and its own default worlds; ``searched`` and ``changed`` count the calling decisions by kind (``call``, ``alone``,
``discard``). What differs from the guided search, whose rollouts of the same network gained nothing: the worlds
come from the belief head, 256 of them rather than 32 (a smaller standard error for the gate), and no card play is
overruled. Measured (docs/agents.md#the-call-search): +0.031 [+0.012, +0.050] a hand over the network on the seed
the variant was chosen on, +0.011 [-0.000, +0.022] on 2,000 fresh deals against PIMC-50 (53.9% of the points) and
+0.009 [-0.002, +0.019] against the CFR bidding agent: a small gain at the edge of the noise.
"""

from __future__ import annotations

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.search.anchored import DEFAULT_Z, AnchoredSearchAgent

CALL_KINDS = ("call", "alone", "discard")  # the calling decisions (AnchoredSearchAgent.kind)
DEFAULT_CALL_WORLDS = 256  # the worlds of the variant measured (docs/agents.md#the-call-search)


class CallSearchAgent(AnchoredSearchAgent):
    """The network, its calls checked by its own rollouts on belief-sampled worlds; see the module docstring."""

    name = "calls"
    # A little under the share of calling decisions among those with a choice (25% in 300 hands of rule-based
    # self-play): an expert phase, which sees the decisions with a choice, sizes its games by it (training/expert.py).
    searched_share = 0.2

    def __init__(self, checkpoint: str | NeuralAgent, worlds: int = DEFAULT_CALL_WORLDS, z: float = DEFAULT_Z,
                 worlds_from: str = "auto", seed: int | None = None, name: str | None = None) -> None:
        super().__init__(checkpoint, worlds=worlds, z=z, worlds_from=worlds_from, plies=None, kinds=CALL_KINDS,
                         seed=seed, name=name)
