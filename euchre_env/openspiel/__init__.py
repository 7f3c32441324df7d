"""Every rule set of ours as an OpenSpiel game. ``import euchre_env.openspiel`` registers the games.

Needs the ``openspiel`` extra (``pip install 'euchre-env[openspiel]'``); the core package never imports it.
docs/openspiel.md is the user guide; in short:

Games and parameters
    ``pyspiel.load_game("python_euchre", {"rules": "classic", "joker": True})``: ``rules`` names the preset
    (knock, classic, multiplayer, bid) and every rules option whose default is the same in every preset is a
    parameter (deck, joker, dealer_partner_must_go_alone, rubber, ace_no_face, double_deck, renege,
    minus_target_loses), plus ``game_target`` (0: the preset's). The options whose default depends on the
    preset (stick_the_dealer, lone_maker, defend_alone) are parameters of the per-preset games
    ``python_euchre_knock``, ``python_euchre_classic``, ``python_euchre_multiplayer``, ``python_euchre_bid``,
    whose defaults are that preset's (OpenSpiel fills unset parameters with their defaults before a game sees
    them, so one game cannot take them for every preset): ``pyspiel.load_game("python_euchre_multiplayer",
    {"stick_the_dealer": True})``. Every game also takes ``whole_game`` (False: one hand; True: a whole
    game, or rubber) and ``observation`` (``absolute`` or ``structured``: the encoder of the tensors).

Players, actions, returns
    Players are our seats 0..3 (partners 0+2 and 1+3). Player action ids and strings are our action table's
    (``euchre_env.game.actions``). One hand: each seat's return is its team's points for the hand minus the
    other team's (zero-sum); a whole game: +1 for the seats of the winning team, -1 for the others.

Chance
    The first dealer (4 outcomes), then the cards one at a time (outcome = card id, probability = copies
    left / cards left): the hands in blocks from the dealer's left, the Bid Euchre joker dealer's extra card,
    the up-card. OpenSpiel's chance nodes must list their outcomes, and a sampler materialises that list, so
    one event per hand (42,504 five-card hands) costs far more than five-card draws (docs/openspiel.md).

Tensors and strings
    Information-state and observation tensors are our encoders' output (a perfect-recall view of the hand
    plus the score); the information-state string is the seat's dealt hand, the up-card and every move it
    saw, the observation string what it sees now.
"""

from __future__ import annotations

try:
    import pyspiel
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        f"euchre_env.openspiel needs OpenSpiel: pip install 'euchre-env[openspiel]' ({exc})", name=exc.name
    ) from exc

from euchre_env.openspiel.game import (
    GAME_NAME,
    EuchreGame,
    EuchreObserver,
    EuchreState,
    game_for_rules,
    information_string,
    observation_string,
    parameter_specification,
    preset_game_name,
    rules_from_parameters,
)

__all__ = [
    "GAME_NAME", "EuchreGame", "EuchreObserver", "EuchreState", "game_for_rules", "information_string", "load",
    "observation_string", "parameter_specification", "preset_game_name", "rules_from_parameters",
]


def load(rules: str = "knock", **params: object) -> EuchreGame:
    """``pyspiel.load_game`` of the preset ``rules``'s game with ``params`` (rules options, ``whole_game``,
    ``observation``): ``load("multiplayer", stick_the_dealer=True, whole_game=True)``."""
    return pyspiel.load_game(preset_game_name(rules), dict(params))
