"""``split:BIDDER:PLAYER``: one agent that bids like one agent and plays its cards like another.

Every decision before the hand's first card (the calls, going or defending alone, the dealer's discard, naming
trump, Bid Euchre's auction, help exchanges and the ace-no-face claim) goes to ``BIDDER``; every card play
(``Phase.PLAY``) goes to ``PLAYER``. Both are agent specs (``split:knock_150m.pt:pimc:50`` bids with the network
and plays like PIMC-50), each its own instance, both reset with the seat's seed before every deal.

Why: to find where an agent's strength comes from (issue 46's diagnosis, docs/agents.md): a network's bidding
with PIMC's card play against PIMC, and the other way round, splits its edge between the two halves of the game.

Spec parsing: the text after ``split:`` is cut at the one colon where both halves are valid specs
(``split:pimc:50:rules`` is ``pimc:50`` and ``rules``); where no cut, or more than one, makes two valid specs,
the spec is refused in one line.
"""

from __future__ import annotations

from typing import Any

from euchre_env.agents.base import require_information_state
from euchre_env.agents.registry import SPLIT_PREFIX, check_spec, make_agent
from euchre_env.game.phases import Phase


def split_halves(text: str) -> tuple[str, str]:
    """``(BIDDER, PLAYER)`` of a ``split:BIDDER:PLAYER`` spec; ValueError naming the spec where no single cut at
    a colon gives two valid specs."""
    rest = text[len(SPLIT_PREFIX):]
    cuts, errors = [], []
    for i, ch in enumerate(rest):
        if ch != ":":
            continue
        bidder, player = rest[:i].strip(), rest[i + 1:].strip()
        if not bidder or not player or bidder.startswith(SPLIT_PREFIX) or player.startswith(SPLIT_PREFIX):
            continue
        try:
            check_spec(bidder)
            check_spec(player)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        cuts.append((bidder, player))
    if len(cuts) == 1:
        return cuts[0]
    if not cuts:
        why = f" ({errors[-1]})" if errors else ""
        raise ValueError(f"agent spec {text!r}: write split:BIDDER:PLAYER with two agent specs, e.g. "
                         f"split:knock_150m.pt:pimc:50{why}")
    raise ValueError(f"agent spec {text!r} reads more than one way: {', '.join(f'{b!r} + {p!r}' for b, p in cuts)}")


class SplitAgent:
    """Bids with ``bidder`` and plays cards with ``player`` (agent specs); see the module docstring."""

    def __init__(self, bidder: str, player: str, seed: int | None = None, name: str | None = None) -> None:
        self.name = name or f"{SPLIT_PREFIX}{bidder}:{player}"
        self.bidder = make_agent(bidder, seed)
        self.player = make_agent(player, seed)
        self.needs_observation = any(getattr(a, "needs_observation", True) for a in (self.bidder, self.player))

    def reset(self, seed: int | None = None) -> None:
        self.bidder.reset(seed)
        self.player.reset(seed)

    @property
    def rules(self) -> Any:
        """The rules a trained half was made for (the bidder's first), so that a match whose spec ends in a
        checkpoint (``split:pimc:50:knock_150m.pt``) reads its rules from it like any checkpoint agent;
        AttributeError where neither half has any (both are rule-free agents)."""
        for agent in (self.bidder, self.player):
            rules = getattr(agent, "rules", None)
            if rules is not None:
                return rules
        raise AttributeError(f"{self.name}: neither half was trained for particular rules")

    def check_rules(self, rules: Any) -> None:
        """What each half checks of the rules it plays (a network: the rules it was trained for)."""
        for agent in (self.bidder, self.player):
            check = getattr(agent, "check_rules", None)
            if check is not None:
                check(rules)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        state = require_information_state(info, "SplitAgent")
        agent = self.player if state.phase == Phase.PLAY else self.bidder
        return agent.act(observation, info)
