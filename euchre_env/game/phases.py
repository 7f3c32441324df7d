"""The phases of a hand: which kind of decision the seat to act faces."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    JOKER_SUIT = 0  # the dealer names the suit of a turned-up joker
    CALL1 = 1  # order the up-card's suit or pass
    DISCARD = 2  # the dealer discards (after taking the up-card, or a joker dealer in Bid Euchre)
    CALL2 = 3  # name any suit but the turned-down one, or pass
    DEFEND = 4  # defenders may defend alone against a lone maker
    AUCTION = 5  # Bid Euchre: pass or outbid
    NAME_TRUMP = 6  # Bid Euchre: the winning bidder names trump
    GIVE = 7  # help: the bidder gives the partner a card
    GIVE_BACK = 8  # help: the partner gives back the best trump
    PLAY = 9
    HAND_OVER = 10
    GAME_OVER = 11


# The calling rounds: every seat speaks at most once in each (the observation keeps one row per seat).
CALLING_ROUNDS = (Phase.CALL1, Phase.CALL2, Phase.DEFEND, Phase.AUCTION)
