"""One seat's knowledge in the shape of a :class:`GameState`, so the observation encoders can read it.

``Observer(rules).encode(seat_view(info), info.seat)`` (and the same with a
:class:`~euchre_env.views.structured.StructuredObserver`) equals ``encode(state, seat)`` for
``info = information_state(state, seat)``: an agent holding only an :class:`InfoState` (what
``info["information_state"]`` gives it) can build the observation a network was trained on,
whatever observation the env in front of it encodes.

A :class:`SeatView` offers exactly the ``GameState`` attributes the encoders read, filled from
the information state: the seat's own hand only (``hands`` holds no other seat, so an encoder
reading another hand fails with a KeyError instead of seeing a made-up one), the public calls
as ``history``, the discard and help exchange only where the seat saw them. That the views
encode like the states (tests/views/test_seat_view.py) is also the proof that the encoders read
nothing the seat may not know.

A view is a snapshot: its lists are copies, so changing them changes nothing in the InfoState.
"""

from __future__ import annotations

from euchre_env.views.infostate import InfoState


class SeatView:
    """The :class:`GameState` attributes the encoders read, as ``info.seat`` knows them."""

    def __init__(self, info: InfoState) -> None:
        self.seat = info.seat
        self.rules = info.rules
        self.deck = info.rules.deck_spec
        self.phase = info.phase
        # GameState.current is the seat to act; the encoders read it only while someone acts.
        self.current = self.current_player = info.to_act
        self.dealer = info.dealer
        self.hands = {info.seat: list(info.hand)}
        self.history = list(info.call_actions)  # the encoders read the calling rounds of the history only
        self.upcard = info.upcard
        self.upcard_suit = info.upcard_suit
        self.upcard_taken = info.upcard_taken
        self.turned_down = info.turned_down
        self.trump = info.trump
        self.maker = info.maker
        self.out = list(info.out)
        self.discarded = info.discarded  # None unless the seat saw it
        self.given = info.given
        self.given_back = info.given_back
        self.tricks = [(w, [s for s, _ in plays], [c for _, c in plays]) for w, plays in info.tricks]
        self.trick_seats = [s for s, _ in info.trick]
        self.trick = [c for _, c in info.trick]
        self.tricks_won = info.tricks_won
        self.scores = info.scores
        self.games_won = info.games_won
        self.rubber_points = info.rubber_points

    def sees_discard(self, seat: int) -> bool:
        """Whether the viewing seat saw the dealer's discard (asked of the viewing seat only)."""
        return self._own(seat) and self.discarded is not None

    def sees_exchange(self, seat: int) -> bool:
        """Whether the viewing seat saw the help exchange (asked of the viewing seat only)."""
        return self._own(seat) and self.given is not None

    def _own(self, seat: int) -> bool:
        # What another seat saw is not part of this seat's knowledge: refuse rather than guess.
        if seat != self.seat:
            raise ValueError(f"a seat view of seat {self.seat} cannot tell what seat {seat} saw")
        return True


def seat_view(info: InfoState) -> SeatView:
    """The encoders' view of what ``info.seat`` knows (see the module docstring)."""
    return SeatView(info)
