"""One duplicate match: what it plays, and the playing of its deals.

Every deal is played twice with the same cards in the same seats: in play 0 agent A holds
team 0 (seats 0 and 2) and B team 1 (seats 1 and 3); in play 1 the teams are swapped. Card
luck then cancels within the pair, and what remains is the difference in play.

Two kinds of match:

- ``episode="hand"``: each deal is one hand. Deal ``i`` comes from the engine's own dealer
  (``GameState(rules, rng)`` seeded from the master seed and ``i``) and is re-seated so that
  seat ``i % 4`` deals: the dealer rotates over the deals.
- ``episode="game"``: each duplicate pair is two whole games (rubbers with ``rubber=True``)
  started from the same ``GameState`` seed, so both games see the same sequence of deals
  (the engine's generator only deals).

The game is driven through :class:`~euchre_env.game.engine.GameState` directly (or, for a greedy network playing
single hands, all deals of a range at once on the batched engine, :mod:`.batch_play`); at each decision
only the acting seat's agent is asked, through :func:`euchre_env.views.decision.ask_agent` (the
same inputs as everywhere else, and an :class:`IllegalActionError` naming the agent for a
wrong answer). Each seat has its own agent instance, reset before every deal (or game) with
a seed derived from (master seed, deal index, play index, seat) (:mod:`.seeds`).
"""

from __future__ import annotations

import numpy as np

from euchre_env.compiled.native import CORE, use_compiled
from euchre_env.envs.episodes import EPISODES
from euchre_env.evaluation.batch_play import batched, play_hand_deals
from euchre_env.evaluation.duplicate import AgentSpec, DealRecord, Match, build_agent, hand_deal, spec_name
from euchre_env.evaluation.streams import agent_seed, deal_seed
from euchre_env.game.engine import GameState, team_margin
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, other_team, team_of
from euchre_env.views.decision import ask_agent
from euchre_env.views.structured import make_observer

__all__ = [
    "EPISODES", "AgentSpec", "DealRecord", "GameTooLongError", "IllegalActionError", "Match", "MatchRunner",
    "build_agent", "hand_deal", "max_hands_per_game", "spec_name",
]


class GameTooLongError(RuntimeError):
    """A game went on past :func:`max_hands_per_game` (agents that never reach the target)."""


def max_hands_per_game(rules: Rules) -> int:
    """Hands after which a game (a whole rubber with ``rubber=True``) is abandoned as endless.

    Normal games take a few dozen hands; weak agents may never reach the target at all, e.g.
    random bidders in Bid Euchre, whose failed bids drive both scores down.
    """
    return max(1000, 20 * rules.game_target) * (3 if rules.rubber else 1)


class MatchRunner:
    """Plays the deals of one match; holds one agent instance per side and seat."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.rules = match.rules
        self.observer = make_observer(self.rules, "absolute")
        self.max_hands = max_hands_per_game(self.rules)
        self.names = (spec_name(match.agent_a), spec_name(match.agent_b))
        # agents[side][seat], side 0 = A, 1 = B; every seat has its own instance
        self.agents = [[build_agent(spec, None) for _ in range(NUM_SEATS)] for spec in (match.agent_a, match.agent_b)]
        self._batches: bool | None = None  # see batches

    @property
    def batches(self) -> bool:
        """Whether this match's deals play all at once on the batched engine: single hands with a side that has a
        deterministic compiled twin, on the compiled core (without it, one by one on the reference engine: the same
        records)."""
        if self._batches is None:
            self._batches = (self.match.episode == "hand" and any(batched(side[0], self.rules) for side in self.agents)
                             and use_compiled(CORE))
        return self._batches

    def play_deals(self, start: int, stop: int) -> list[DealRecord]:
        """Deals ``start..stop``: all at once on the batched engine when a side is a greedy network or the
        rule-based agent playing single hands (:mod:`.batch_play`, the same records), else one by one."""
        if self.batches:
            return play_hand_deals(self.match, [side[0] for side in self.agents], start, stop)
        return [self.play_deal(i) for i in range(start, stop)]

    def play_deal(self, index: int) -> DealRecord:
        m = self.match
        seed = deal_seed(m.seed, index)
        deal = hand_deal(self.rules, seed, index % NUM_SEATS) if m.episode == "hand" else None
        diffs, hands, a_games = [0, 0], [0, 0], 0
        a_points = b_points = 0
        for play in (0, 1):
            a_team = play  # play 0: A holds team 0 (seats 0, 2); play 1: A holds team 1
            # side of each seat: 0 (A) on A's team, 1 (B) on the other
            sides = [0 if team_of(seat) == a_team else 1 for seat in range(NUM_SEATS)]
            for seat, side in enumerate(sides):
                self.agents[side][seat].reset(agent_seed(m.seed, index, play, seat))
            state = GameState(self.rules, np.random.default_rng(seed), deal=deal)
            while True:
                self._play_hand(state, sides)
                pts = state.hand_result["points"]
                pa, pb = pts[a_team], pts[other_team(a_team)]
                diffs[play] += team_margin(pts, a_team)
                a_points += max(pa, 0) + max(-pb, 0)
                b_points += max(pb, 0) + max(-pa, 0)
                hands[play] += 1
                if m.episode == "hand" or state.is_over:
                    break
                if hands[play] >= self.max_hands:
                    raise GameTooLongError(
                        f"game pair {index}, play {play}: no result after {self.max_hands} hands with "
                        f"game_target={self.rules.game_target} (scores {state.scores}); these agents may never "
                        "reach the target: use single hands (no --games) or a smaller game_target")
                state.next_hand()
            if m.episode == "game" and state.winner == a_team:
                a_games += 1
        return DealRecord(index, diffs[0], diffs[1], hands[0], hands[1], a_points, b_points,
                          a_games if m.episode == "game" else -1)

    def _play_hand(self, state: GameState, sides: list[int]) -> None:
        while not state.hand_over:
            seat = state.current_player
            side = sides[seat]
            state.apply(ask_agent(self.agents[side][seat], state, self.observer, self.names[side]))
