"""What one seat knows, as plain structured data, for rule-based and search agents.

``information_state(state, seat)`` reads a :class:`GameState` and keeps exactly what the
seat has seen: its own cards, every call, its own discard (dealer) or exchange (help
partners), every card played and by whom, and the voids other seats have shown by
failing to follow suit. Hidden cards never enter it, so an agent that only reads an
``InfoState`` cannot cheat. It holds everything the observation encoders read for the
seat, so they can encode from it too (``euchre_env.views.seat_view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from euchre_env.game.cards import follow_suit
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS

if TYPE_CHECKING:  # seat_view builds on InfoState: a runtime import would be circular
    from euchre_env.views.seat_view import SeatView


@dataclass(frozen=True)
class InfoState:
    rules: Rules
    seat: int
    phase: Phase
    to_act: int  # seat to act, -1 when nobody acts
    dealer: int
    hand: tuple[int, ...]  # own cards now
    initial_hand: tuple[int, ...]  # own cards as dealt
    upcard: int | None  # turn-up family only
    upcard_suit: int  # suit offered in round 1 (-1 before a joker's suit is named)
    upcard_taken: bool  # the dealer took it into hand
    calls: tuple[tuple[int, str], ...]  # (seat, action text) of every public non-play decision
    trump: int  # -1 before trump is fixed
    maker: int  # -1 before
    maker_alone: bool
    defender_alone: int  # seat defending alone, or -1
    out: tuple[bool, ...]  # seats sitting out
    bidder: int  # Bid Euchre: winning bidder, -1 otherwise
    contract: int | str | None
    discarded: int | None  # own discard (the dealer only)
    given: int | None  # help exchange, seen by the bidder and the partner only
    given_back: int | None
    tricks: tuple[tuple[int, tuple[tuple[int, int], ...]], ...]  # (winner, ((seat, card), ...)) done
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick in progress
    tricks_won: tuple[int, int]
    scores: tuple[int, int]
    legal_actions: tuple[int, ...]
    hand_sizes: tuple[int, ...] = ()  # cards each seat holds now (public: everyone sees them)
    voids: tuple[frozenset[int], ...] = field(default=())  # per seat, effective suits shown void
    # The public facts the observation encoders read beyond the fields above (seat_view.SeatView):
    call_actions: tuple[tuple[Phase, int, int], ...] = ()  # (phase, seat, action id) of each of ``calls``
    turned_down: bool = False  # all four passed the up-card
    games_won: tuple[int, int] = (0, 0)  # rubbers: games each team has won
    rubber_points: tuple[int, int] = (0, 0)

    @property
    def plays(self) -> list[tuple[int, int]]:
        """``(seat, card)`` of every card played so far this hand, in order."""
        return [play for _, plays in self.tricks for play in plays] + list(self.trick)

    @property
    def played(self) -> list[int]:
        """Every card played so far this hand, in order."""
        return [card for _, card in self.plays]

    def honest_plays(self, legal: Sequence[int], play_base: int) -> list[int]:
        """Of the legal card plays ``legal`` (action ids; ``play_base``: the action table's first play id), those
        that follow suit, in their order. Under ``renege="penalize"`` the legal actions also hold reneges, which a
        double-dummy solver (playing by the rules) never values: the searches value these only."""
        suits = self.rules.deck_spec.effective_suits(self.trump)
        cards = follow_suit([a - play_base for a in legal], suits[self.trick[0][1]] if self.trick else None, suits)
        return [play_base + card for card in cards]

    def seen_moves(self, play_base: int) -> list[int]:
        """The hand's moves this seat has seen, in order, as action ids: every call, then every card played
        (``play_base``: the action table's first play id). For a search replaying the hand in a world; the dealer's
        discard is not among them (the seat may not have seen it): where :meth:`discard_due` says, a replay plays
        the world's own."""
        return [action for _, _, action in self.call_actions] + [play_base + card for _, card in self.plays]

    def discard_due(self, phase: Phase, seat: int) -> bool:
        """Whether a replay of this hand, reaching ``phase`` with ``seat`` to act, plays the dealer's discard there
        (the world's, or the seat's own) rather than the next of :meth:`seen_moves`: every discard but the one
        this seat is deciding now."""
        return phase == Phase.DISCARD and not (seat == self.seat and self.phase == Phase.DISCARD)


def information_state(state: GameState, seat: int) -> InfoState:
    """The structured view of ``seat``; nothing in it depends on another seat's hidden cards."""
    t = state.table
    # Play, discards and the help exchange are not calls (the last two are hidden from most seats).
    call_actions = tuple((phase, who, action) for phase, who, action in state.history
                         if phase not in (Phase.PLAY, Phase.DISCARD, Phase.GIVE, Phase.GIVE_BACK))
    sees_exchange = state.sees_exchange(seat)
    tricks = tuple((w, tuple(zip(seats, cards))) for w, seats, cards in state.tricks)
    trick = tuple(zip(state.trick_seats, state.trick))
    return InfoState(
        rules=state.rules,
        seat=seat,
        phase=state.phase,
        to_act=state.current_player,
        dealer=state.dealer,
        hand=tuple(state.hands[seat]),
        initial_hand=tuple(state.initial_hands[seat]),
        upcard=state.upcard,
        upcard_suit=state.upcard_suit,
        upcard_taken=state.upcard_taken,
        calls=tuple((who, t.strings[action]) for _, who, action in call_actions),
        trump=state.trump,
        maker=state.maker,
        maker_alone=state.maker_alone,
        defender_alone=state.defender_alone,
        out=tuple(state.out),
        bidder=state.bidder,
        contract=state.contract,
        discarded=state.discarded if state.sees_discard(seat) else None,
        given=state.given if sees_exchange else None,
        given_back=state.given_back if sees_exchange else None,
        tricks=tricks,
        trick=trick,
        tricks_won=(state.tricks_won[0], state.tricks_won[1]),
        scores=(state.scores[0], state.scores[1]),
        legal_actions=tuple(state.legal_actions()) if state.current_player == seat else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        voids=shown_voids(state),
        call_actions=call_actions,
        turned_down=state.turned_down,
        games_won=(state.games_won[0], state.games_won[1]),
        rubber_points=(state.rubber_points[0], state.rubber_points[1]),
    )


def shown_voids(state: GameState | SeatView) -> tuple[frozenset[int], ...]:
    """Per seat, the effective suits it has shown it lacks, by not following the suit led.

    Shared by :class:`InfoState` and the structured observation. With ``renege="penalize"``
    a player may fail to follow while holding the suit, so these are then what the play
    suggests, not a certainty.
    """
    if state.trump < 0:
        return tuple(frozenset() for _ in range(NUM_SEATS))
    suits = state.deck.effective_suits(state.trump)
    void: list[set[int]] = [set() for _ in range(NUM_SEATS)]
    done = [(seats, cards) for _, seats, cards in state.tricks]
    for seats, cards in done + ([(state.trick_seats, state.trick)] if state.trick else []):
        led = suits[cards[0]]
        for who, card in zip(seats[1:], cards[1:]):
            if suits[card] != led:
                void[who].add(led)
    return tuple(frozenset(v) for v in void)
