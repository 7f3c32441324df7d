"""Solver-supervised targets: the double-dummy value of every legal card on the true deal.

At a play decision the trainer knows the whole deal, so the double-dummy solver
(:mod:`euchre_env.agents.search.double_dummy`) can say what each legal card is worth with every hand open and
perfect play afterwards: the hand's point difference for the seat's team (march, euchre and lone
bonuses included, through :func:`~euchre_env.agents.search.double_dummy.hand_value`). The trainer regresses an
auxiliary head on the actor's hidden features onto these values (``solver.coef`` in the config): the
actor, which sees only its own observation, learns the average double-dummy value of each card over
the deals it cannot tell apart, which is what PIMC estimates by sampling. The targets shape the
actor's features only; the policy is still trained by PPO, and the head is not part of what plays.

Only play decisions are labelled (calls would need a solve of each contract: left for later), and only
a ``solver.fraction`` of them, drawn from a stream of their own so that the rest of an update's data is
the same with or without targets. The solver follows suit, so under ``renege="penalize"`` the cards that
renege get no target. The double deck's 12-card hands are searched to the same depth PIMC uses there.
"""

from __future__ import annotations

from euchre_env.agents.search.double_dummy import DoubleDummy, hand_value
from euchre_env.agents.search.pimc import DOUBLE_DECK_DEPTH
from euchre_env.game.cards import follow_suit
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import team_of

# A solver's transposition table is dropped beyond this many positions (memory stays bounded).
MAX_CACHED = 400_000


class SolverTargets:
    """``values(state)``: ``{absolute action id: points}`` for the legal cards of the seat to play."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deck = rules.deck_spec
        self.depth = DOUBLE_DECK_DEPTH if rules.double_deck else None
        self._solvers: dict[int, DoubleDummy] = {}

    def _solver(self, trump: int) -> DoubleDummy:
        solver = self._solvers.get(trump)
        if solver is None or solver.cached_positions() > MAX_CACHED:
            solver = self._solvers[trump] = DoubleDummy(self.deck, trump)
        return solver

    def values(self, state: GameState) -> dict[int, float]:
        """The double-dummy hand value (the seat's team's points minus the other team's) of each card the
        seat to play may play by the rules; empty outside the play phase."""
        if state.phase != Phase.PLAY:
            return {}
        seat, trump = state.current, state.trump
        base = state.table.play_base
        suits = self.deck.effective_suits(trump)
        led = suits[state.trick[0]] if state.trick else None
        honest = set(follow_suit(list(state.hands[seat]), led, suits))
        maker_team, team = team_of(state.maker), team_of(seat)
        made = self._solver(trump).card_values(state.hands, seat, maker_team,
                                               trick=list(zip(state.trick_seats, state.trick)), out=state.out,
                                               max_tricks=self.depth)
        return {base + card: hand_value(self.rules, state.tricks_won[maker_team] + tricks, maker_team, team,
                                        state.contract, state.maker_alone, state.defender_alone >= 0)
                for card, tricks in made.items() if card in honest}
