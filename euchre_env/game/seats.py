"""Seats, teams and partners: the one home of the table's arithmetic.

Seats are 0..3 clockwise (seat 1 sits at seat 0's left); partners sit opposite, so the
teams are {0, 2} and {1, 3}. A seat's view numbers the others relative to itself:
0 = itself, 1 = left-hand opponent, 2 = partner, 3 = right-hand opponent.
"""

from __future__ import annotations

NUM_SEATS = 4
NOBODY = -1  # "no seat": nobody to act, no maker yet, nobody defending alone
# Where a card a seat does not hold and has not seen played may lie, from that seat's chair: the three other hands
# (relative seats 1, 2, 3), then out of play (undealt, or the dealer's discard). The order of the belief head's
# outputs (agents/neural/belief.py) and of a world's card places (agents/search/worlds.py).
CARD_PLACES = ("left", "partner", "right", "out")
OUT_OF_PLAY = 3


def team_of(seat: int) -> int:
    """The team of ``seat``: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def other_team(team: int) -> int:
    """The team that is not ``team`` (hands, scores and tricks are kept per team, 0 and 1)."""
    return 1 - team


def partner_of(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def left_of(seat: int) -> int:
    """The seat at ``seat``'s left: the next one clockwise, where the deal and every turn pass."""
    return (seat + 1) % NUM_SEATS


def same_team(a: int, b: int) -> bool:
    return team_of(a) == team_of(b)


def relative_seat(seat: int, viewer: int) -> int:
    """Where ``seat`` sits from ``viewer``'s chair: 0 itself, 1 left, 2 partner, 3 right."""
    return (seat - viewer) % NUM_SEATS


def card_place(holder: int, viewer: int) -> int:
    """The index in :data:`CARD_PLACES` of a card in ``holder``'s hand, seen from ``viewer``'s chair (another seat)."""
    return relative_seat(holder, viewer) - 1


def team_seats(team: int) -> tuple[int, int]:
    return (team, team + 2)
