"""Deals and starting scores: the random deal of a hand, and the checks of scripted ones.

A scripted deal (``{"dealer": 0, "hands": [[...] x4], "upcard": "9H"}``) and a scripted
starting score are checked in full before a game uses them, so a bad one is reported in
one line naming the first bad card or field, and nothing of the game has changed.

Compiled twin: ``shuffle``, ``lay_out`` and ``deal_on`` of ``euchre_env/compiled/c/engine.h`` (the pack shuffled
from a game's stream and dealt as :func:`deal_from_order` deals it) and ``shuffled_deals`` of
``euchre_env/compiled/c/core.c``. Proven equal by tests/differential/test_vector_euchre_vs_engine.py (each hand's
cards against ``GameState``'s, and the laid-out deals against :func:`deal_from_order`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.game.cards import Deck
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import game_winner
from euchre_env.game.seats import NUM_SEATS, left_of


def dealt_size(rules: Rules, seat: int, dealer: int) -> int:
    """Cards ``seat`` is dealt: the hand size, one more for a Bid Euchre joker dealer (the 25th card)."""
    return rules.hand_size + (1 if rules.is_bid and rules.joker and seat == dealer else 0)


def random_deal(rules: Rules, rng: np.random.Generator, dealer: int) -> dict[str, Any]:
    """A shuffled deal from ``rng``: blocks of cards from the dealer's left, the up-card, the kitty."""
    return deal_from_order(rules, shuffled_pack(rules, rng).tolist(), dealer)


def shuffled_pack(rules: Rules, rng: np.random.Generator) -> np.ndarray:
    """The pack's card ids (int64) in a random order from ``rng``: what :func:`random_deal` deals out."""
    order = rng.permutation(len(rules.deck_spec.pack))
    return order if rules.deck_spec.copies == 1 else np.asarray(rules.deck_spec.pack)[order]  # one copy: pack[i] == i


def scripted_deal(dealer: int, hands: list[list[int]], upcard: int | None = None) -> dict[str, Any]:
    """A deal in the form the env's ``options["deal"]`` takes (card ids): ``upcard`` only where a card is turned
    up (the turn-up family; None in Bid Euchre). The one place that writes the format's fields."""
    deal: dict[str, Any] = {"dealer": dealer, "hands": hands}
    if upcard is not None:
        deal["upcard"] = upcard
    return deal


def deal_from_order(rules: Rules, cards: list[int], dealer: int) -> dict[str, Any]:
    """The deal of the whole pack in the order ``cards``: a block of cards to each seat from the dealer's
    left, with the Bid Euchre joker the next card to the dealer, then the up-card (turn-up family); the rest
    is the kitty. (``compiled._core.shuffled_deals`` lays out its deals the same way; a test checks it.)"""
    hands: list[list[int]] = [[], [], [], []]
    seat, start, size = dealer, 0, rules.hand_size
    for _ in range(NUM_SEATS):
        seat = left_of(seat)
        hands[seat], start = cards[start:start + size], start + size
    rest = cards[start:]
    if rules.is_bid and rules.joker:  # 25 cards: the dealer gets the 25th
        hands[dealer].append(rest.pop(0))
    deal = scripted_deal(dealer, hands, None if rules.is_bid else rest.pop(0))
    deal["kitty"] = sorted(rest)
    return deal


def parse_deal(rules: Rules, deal: Any) -> dict[str, Any]:
    """A scripted deal as card ids, with its kitty; ValueError naming the first bad card or field."""
    deck = rules.deck_spec
    if not isinstance(deal, dict):
        raise ValueError(f"'deal' must be a dict with 'dealer', 'hands' (and 'upcard'), got {deal!r}")
    allowed = {"dealer", "hands"} | ({"upcard"} if not rules.is_bid else set())
    unknown = set(deal) - allowed
    if unknown:
        raise ValueError(f"unknown deal key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    dealer = deal.get("dealer")
    if dealer not in range(NUM_SEATS) or isinstance(dealer, bool):
        raise ValueError(f"deal 'dealer' must be a seat 0..{NUM_SEATS - 1}, got {dealer!r}")
    hands_in = deal.get("hands")
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != NUM_SEATS:
        raise ValueError(f"deal 'hands' must be a list of {NUM_SEATS} hands, got {hands_in!r}")
    counts = [0] * deck.num_ids
    hands = []
    for seat, hand in enumerate(hands_in):
        cards = [_card_id(deck, c) for c in hand]
        need = dealt_size(rules, seat, dealer)
        if len(cards) != need:
            raise ValueError(f"deal: hand of seat {seat} has {len(cards)} cards, needs {need}")
        hands.append(cards)
        for c in cards:
            counts[c] += 1
    upcard = None
    if not rules.is_bid:
        if "upcard" not in deal:
            raise ValueError("deal: 'upcard' is missing (the turned-up card)")
        upcard = _card_id(deck, deal["upcard"])
        counts[upcard] += 1
    parsed = scripted_deal(dealer, hands, upcard)
    parsed["kitty"] = [c for c, n in enumerate(counts) for _ in range(deck.copies - n)]
    for c, n in enumerate(counts):  # duplicates first: a duplicate also makes some card missing
        if n > deck.copies:
            raise ValueError(f"deal: card {deck.name(c)} is dealt {n} times (the deck has {deck.copies})")
    for c, n in enumerate(counts):
        if rules.is_bid and n < deck.copies:
            raise ValueError(f"deal: card {deck.name(c)} is missing (every card is dealt in Bid Euchre)")
    return parsed


def parse_scores(rules: Rules, scores: Any) -> list[int]:
    """A scripted starting score ``[team 0, team 1]`` (default ``[0, 0]``), checked against the target.

    A score at which the game would already be over is refused: in the turn-up family each
    score must be below ``game_target`` (only one team scores in a hand, so even equal scores
    at the target cannot be reached); in Bid Euchre equal scores at or past the target are
    a tie that plays on, and so allowed, and unequal ones are refused once a team is at the
    target (or, with ``minus_target_loses``, at minus the target or below).
    """
    if scores is None:
        return [0, 0]
    try:
        a, b = scores
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (a, b)):
            raise TypeError
    except (TypeError, ValueError):
        raise ValueError(f"'scores' must be two ints [team0, team1], got {scores!r}") from None
    parsed = [int(a), int(b)]
    target = rules.game_target
    if not rules.is_bid and max(parsed) >= target:
        raise ValueError(f"'scores' {parsed}: the game would already be over; each team's score must be below "
                         f"game_target {target}")
    if rules.is_bid and game_winner(rules, parsed) is not None:
        floor = f" and above -{target}" if rules.minus_target_loses else ""
        raise ValueError(f"'scores' {parsed}: the game would already be over; allowed: scores below game_target "
                         f"{target}{floor}, or two equal scores (a tie plays on)")
    return parsed


def _card_id(deck: Deck, c: Any) -> int:
    if isinstance(c, str):
        return deck.parse(c)
    if isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < deck.num_ids:
        return int(c)
    raise ValueError(f"deal: unknown card {c!r}")
