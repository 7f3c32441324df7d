"""Cards, decks and the trump-aware tables every rule lookup goes through.

A card is a small int. Plain cards are numbered ``suit * num_ranks + rank``, where
suits run C, D, H, S (0..3) and ranks run from lowest to highest (``9 T J Q K A``,
or ``7 8 9 T J Q K A`` in the 32-card deck); the joker, when the deck has one, is
the last id. The double deck (Bid Euchre) holds two copies of every card id, so a
hand is a list of ids that may repeat.

Notation: rank then suit, ``JH``, ``TC``, ``9S``; the joker is ``JO``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

SUITS = "CDHS"
NUM_SUITS = 4
JOKER_NAME = "JO"
RANKS_24 = "9TJQKA"
RANKS_32 = "789TJQKA"


def same_colour_suit(suit: int) -> int:
    """The other suit of the same colour: clubs <-> spades, diamonds <-> hearts."""
    return 3 - suit


@dataclass(frozen=True)
class Deck:
    """One deck layout: which ranks exist, whether there is a joker, how many copies.

    Every table a rule needs (effective suit, trick-taking power) is
    computed once per deck and trump suit, so the engine never re-derives a rule
    from card text.
    """

    ranks: str = RANKS_24
    joker: bool = False
    copies: int = 1

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_ids(self) -> int:
        """Distinct card ids (the size of every per-card block and action range)."""
        return NUM_SUITS * self.num_ranks + (1 if self.joker else 0)

    @property
    def size(self) -> int:
        """Physical cards in the pack."""
        return self.num_ids * self.copies

    @property
    def joker_id(self) -> int | None:
        return NUM_SUITS * self.num_ranks if self.joker else None

    def cards(self) -> list[int]:
        """The whole pack, sorted, duplicates included."""
        return list(self.pack)

    @cached_property
    def pack(self) -> tuple[int, ...]:
        """:meth:`cards` as a tuple, built once (every deal reads it)."""
        return tuple(sorted(list(range(self.num_ids)) * self.copies))

    # --- notation -------------------------------------------------------------
    @cached_property
    def names(self) -> tuple[str, ...]:
        names = [r + s for s in SUITS for r in self.ranks]
        if self.joker:
            names.append(JOKER_NAME)
        return tuple(names)

    @cached_property
    def _ids_by_name(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    def name(self, card: int) -> str:
        return self.names[card]

    def parse(self, text: str) -> int:
        """Card id of ``text`` (case-insensitive, ``10`` accepted for ``T``)."""
        key = str(text).strip().upper().replace("10", "T")
        try:
            return self._ids_by_name[key]
        except KeyError:
            raise ValueError(
                f"unknown card {text!r} for this deck; cards are {', '.join(self.names)}"
            ) from None

    # --- plain properties -----------------------------------------------------
    def printed_suit(self, card: int) -> int:
        """Printed suit of a plain card (the joker has none: -1)."""
        return -1 if card == self.joker_id else card // self.num_ranks

    def rank_char(self, card: int) -> str:
        return self.names[card][0]

    def is_jack(self, card: int) -> bool:
        return card != self.joker_id and self.rank_char(card) == "J"

    # --- trump-aware tables ---------------------------------------------------
    @cached_property
    def _effective_suit(self) -> dict[int, tuple[int, ...]]:
        return {t: tuple(self._eff_suit(c, t) for c in range(self.num_ids)) for t in range(-1, 4)}

    def _eff_suit(self, card: int, trump: int) -> int:
        if card == self.joker_id:
            # Before trump is fixed the joker has no suit; afterwards it is trump.
            return trump
        suit = self.printed_suit(card)
        if trump >= 0 and self.is_jack(card) and suit == same_colour_suit(trump):
            return trump  # the left bower belongs to trump for every purpose
        return suit

    def effective_suits(self, trump: int) -> tuple[int, ...]:
        """Per card id, the suit it belongs to when ``trump`` is trump (-1: none yet)."""
        return self._effective_suit[trump]

    @cached_property
    def _trump_power(self) -> dict[int, tuple[int, ...]]:
        return {t: tuple(self._power(c, t) for c in range(self.num_ids)) for t in range(4)}

    def _power(self, card: int, trump: int) -> int:
        """Strength within the card's effective suit; higher wins. Trumps are >= 100."""
        if card == self.joker_id:
            return 200
        suit = self.printed_suit(card)
        rank = card % self.num_ranks
        if self.is_jack(card) and suit == trump:
            return 150  # right bower
        if self.is_jack(card) and suit == same_colour_suit(trump):
            return 140  # left bower
        return rank + (100 if suit == trump else 0)

    def powers(self, trump: int) -> tuple[int, ...]:
        """Per card id, its strength under ``trump``: trumps >= 100, plain cards by rank."""
        return self._trump_power[trump]


def trick_winner(cards: list[int], deck: Deck, trump: int) -> int:
    """Index in ``cards`` (in play order) of the card that takes the trick.

    Highest trump wins, else the highest card of the suit led. Of two identical
    cards (double deck) the first played wins, which the strict comparison gives.
    """
    suits = deck.effective_suits(trump)
    power = deck.powers(trump)
    led = suits[cards[0]]
    best = 0
    best_key = power[cards[0]]
    for i in range(1, len(cards)):
        c = cards[i]
        if suits[c] == trump or suits[c] == led:
            key = power[c]
            if key > best_key:
                best, best_key = i, key
    return best


def beats(card: int, winning: int, deck: Deck, trump: int) -> bool:
    """Whether ``card``, played after ``winning`` (the card taking the trick so far), takes the trick from it."""
    return trick_winner([winning, card], deck, trump) == 1


def follow_suit(hand: list[int], led_suit: int | None, suits: tuple[int, ...]) -> list[int]:
    """Cards of ``hand`` that may be played to a trick whose led effective suit is ``led_suit``.

    A player must follow the suit led when able; leading (``led_suit`` None) or holding
    none of it, any card may be played. ``suits`` is ``Deck.effective_suits(trump)``.
    """
    if led_suit is not None:
        follow = [c for c in hand if suits[c] == led_suit]
        if follow:
            return follow
    return list(hand)
