"""What a duplicate match is and what it records, shared by both ways of playing its deals: one by one on the engine
(:mod:`.match`) and all at once on the batched engine (:mod:`.batch_play`), which both import it.

The agents come from their specs (:func:`build_agent`), a hand match's deals from the engine's own dealer
(:func:`hand_deal`), and each duplicate pair is one :class:`DealRecord`. :mod:`.match` exports every name here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from euchre_env.agents.registry import make_agent
from euchre_env.envs.episodes import EPISODES
from euchre_env.game.deals import scripted_deal
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS

# An agent spec: a string for euchre_env.agents.registry.make_agent, or a factory ``f(seed) -> agent``.
AgentSpec = str | Callable[[int | None], Any]


def spec_name(spec: AgentSpec) -> str:
    """A short label for an agent spec."""
    if isinstance(spec, str):
        return spec.strip()
    return str(getattr(spec, "name", None) or getattr(spec, "__name__", None) or repr(spec))


def build_agent(spec: AgentSpec, seed: int | None = None) -> Any:
    """An agent from a registry spec (``random``, ``rules``, ``pimc:50``) or a factory."""
    if isinstance(spec, str):
        agent = make_agent(spec, seed)
    elif callable(spec):
        agent = spec(seed)
    else:
        raise ValueError(f"an agent spec must be a string or a factory f(seed) -> agent, got {spec!r}")
    for method in ("act", "reset"):
        if not callable(getattr(agent, method, None)):
            raise ValueError(f"agent {spec_name(spec)!r} has no {method}() method (see agents/base.py)")
    return agent


@dataclass(frozen=True)
class Match:
    """What one duplicate match plays: agents, rules, kind of episode and master seed."""

    agent_a: AgentSpec
    agent_b: AgentSpec
    rules: Rules
    episode: str = "hand"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {list(EPISODES)}, got {self.episode!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {self.seed!r}")


class DealRecord(NamedTuple):
    """One duplicate pair: a deal (hand mode) or a seeded game (game mode), played twice.

    ``diff[p]`` is A's points minus B's in play ``p`` (play 0: A holds team 0, play 1: team 1);
    ``hands[p]`` the hands that play took; ``a_points`` / ``b_points`` the points each side won
    over both plays (a negative score, e.g. a failed bid or a renege penalty, counts as points
    won by the other side); ``a_games`` the games A won of the two (-1 in hand mode).
    """

    index: int
    diff0: int
    diff1: int
    hands0: int
    hands1: int
    a_points: int
    b_points: int
    a_games: int


def hand_deal(rules: Rules, seed: int, dealer: int) -> dict[str, Any]:
    """A deal drawn by the engine from ``seed``, re-seated so that ``dealer`` deals.

    The engine draws its own first dealer; the hands keep their places relative to the
    dealer, so this is the same deal as the engine's, turned around the table.
    """
    dealt = GameState(rules, np.random.default_rng(seed))
    shift = dealer - dealt.dealer
    hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    for seat in range(NUM_SEATS):
        hands[(seat + shift) % NUM_SEATS] = list(dealt.initial_hands[seat])
    return scripted_deal(dealer, hands, None if rules.is_bid else dealt.upcard)
