"""Scripted-deal helpers for the rule scenario tests (tests/test_rules_*.py).

A scenario is a deal written out card by card plus a list of action strings. Every
action is checked against ``legal_actions()`` before it is applied, so a script that
drifts from the rules fails at the first wrong step with the seat, the phase and the
legal actions in the message.

Hands are written as one string per seat, ``"JH JD AH KH QH"``; seats run 0..3
clockwise (seat 1 sits at seat 0's left), teams are {0, 2} and {1, 3}.
"""

from __future__ import annotations

from typing import Any

from euchre_env import GameState, Phase, Rules

__all__ = [
    "FOUR", "FOUR_PLAY", "FOUR_PLAY_ALONE", "MARCH", "MARCH_PLAY", "MARCH_PLAY_ALONE",
    "MARCH_PLAY_DEALER_OUT", "THREE", "THREE_PLAY", "THREE_PLAY_ALONE", "Phase", "act", "deal",
    "game", "hand", "last_trick", "legal", "rotate", "shift", "trick",
]

# ----------------------------------------------------------------------------- shared deals
# Up-card 9H and seat 0 dealing in all three; hearts become trump (ordered in round 1).
# The ``*_PLAY`` scripts are the twenty plays of the hand, "seat:play card".

# MARCH: seat 1 holds the five top hearts. Up-card 9H (kitty TH AC AS).
# Hearts trump, seat 1 leading: every trick goes to seat 1 whoever made trump.
MARCH = ("9C TC JC QC KC", "JH JD AH KH QH", "9S TS JS QS KS", "9D TD QD KD AD")
# The dealer (seat 0) has taken 9H and discarded 9C: 9H TC JC QC KC.
MARCH_PLAY = (
    "1:play JH", "2:play 9S", "3:play 9D", "0:play 9H",
    "1:play JD", "2:play TS", "3:play TD", "0:play TC",
    "1:play AH", "2:play JS", "3:play QD", "0:play JC",
    "1:play KH", "2:play QS", "3:play KD", "0:play QC",
    "1:play QH", "2:play KS", "3:play AD", "0:play KC",
)
# The same hand with seat 3 sitting out (seat 1 alone).
MARCH_PLAY_ALONE = tuple(m for m in MARCH_PLAY if not m.startswith("3:"))
# The same hand when seat 0 sits out (seat 2 alone) and never took the up-card.
MARCH_PLAY_DEALER_OUT = tuple(m for m in MARCH_PLAY if not m.startswith("0:"))

# FOUR: seat 1 makes hearts with JH JD AH KH and a losing 9C (kitty TH AC AS).
FOUR = ("QH TC JC QC KC", "JH JD AH KH 9C", "9S TS JS QS KS", "9D TD QD KD AD")
# Dealer discards TC and keeps 9H QH JC QC KC. Seat 1 wins four trumps, seat 0's KC the 9C.
FOUR_PLAY = (
    "1:play JH", "2:play 9S", "3:play 9D", "0:play 9H",
    "1:play JD", "2:play TS", "3:play TD", "0:play QH",
    "1:play AH", "2:play JS", "3:play QD", "0:play JC",
    "1:play KH", "2:play QS", "3:play KD", "0:play QC",
    "1:play 9C", "2:play KS", "3:play AD", "0:play KC",
)
FOUR_PLAY_ALONE = tuple(m for m in FOUR_PLAY if not m.startswith("3:"))

# THREE: seat 1 makes hearts with JH JD AH and two losers (kitty TH AC AS).
THREE = ("QH TC JC QC KC", "JH JD AH 9C 9S", "TS JS QS KS KH", "9D TD QD KD AD")
# Dealer discards TC: 9H QH JC QC KC. Seat 1 takes three trump tricks; seat 0 the last two.
THREE_PLAY = (
    "1:play JH", "2:play KH", "3:play 9D", "0:play 9H",
    "1:play JD", "2:play TS", "3:play TD", "0:play QH",
    "1:play AH", "2:play JS", "3:play QD", "0:play JC",
    "1:play 9C", "2:play QS", "3:play KD", "0:play KC",
    "0:play QC", "1:play 9S", "2:play KS", "3:play AD",
)
THREE_PLAY_ALONE = tuple(m for m in THREE_PLAY if not m.startswith("3:"))


def deal(hands: list[str] | tuple[str, ...], upcard: str, dealer: int = 0) -> dict[str, Any]:
    """The ``deal`` dict of :class:`GameState` from four space-separated hands."""
    return {"dealer": dealer, "hands": [h.split() for h in hands], "upcard": upcard}


def game(
    preset: str,
    hands: list[str] | tuple[str, ...],
    upcard: str,
    dealer: int = 0,
    scores: list[int] | None = None,
    **options: Any,
) -> GameState:
    """A fresh game of ``preset`` (with rule ``options``) whose first hand is scripted."""
    rules = Rules.preset(preset, **options)
    return GameState(rules, 0, deal=deal(hands, upcard, dealer), scores=scores)


def legal(state: GameState) -> list[str]:
    """The legal actions of the seat to act, as strings."""
    return [state.table.to_str(a) for a in state.legal_actions()]


def act(state: GameState, *moves: str) -> GameState:
    """Apply ``moves`` in order; ``"2:play JH"`` also checks that seat 2 is the one to act.

    Each move must be legal (it is looked up in ``legal_actions()`` first), so a scenario
    tests the legal-action mask on every step it takes.
    """
    for move in moves:
        seat_text, sep, text = move.partition(":")
        if not sep:
            seat_text, text = "", move
        seat = state.current_player
        if seat_text:
            assert seat == int(seat_text), (
                f"{move!r}: seat {seat} is to act in phase {state.phase.name}, not seat {seat_text}"
            )
        action = state.table.from_str(text)
        assert action in state.legal_actions(), (
            f"{move!r} is not legal for seat {seat} in phase {state.phase.name}; legal: {legal(state)}"
        )
        state.apply(action)
    return state


def hand(state: GameState, seat: int) -> list[str]:
    """The cards seat ``seat`` holds now, sorted by notation."""
    return sorted(state.deck.name(c) for c in state.hands[seat])


def trick(state: GameState, k: int) -> tuple[int, list[int], list[str]]:
    """Trick ``k`` (0-based) of the current hand as (winner, seats in play order, cards)."""
    winner, seats, cards = state.tricks[k]
    return winner, list(seats), [state.deck.name(c) for c in cards]


def last_trick(state: GameState) -> tuple[int, list[int], list[str]]:
    return trick(state, len(state.tricks) - 1)


def rotate(hands: list[str] | tuple[str, ...], k: int) -> tuple[str, ...]:
    """The same hands moved ``k`` seats to the left (seat s's hand goes to seat s + k)."""
    return tuple(hands[(s - k) % 4] for s in range(4))


def shift(moves: list[str] | tuple[str, ...], k: int) -> tuple[str, ...]:
    """``"seat:action"`` moves renumbered for a deal rotated by ``k`` seats."""
    out = []
    for move in moves:
        seat, sep, text = move.partition(":")
        out.append(f"{(int(seat) + k) % 4}:{text}" if sep else move)
    return tuple(out)
