"""The ``Rules`` dataclass: every option of the rule sources, validated, with presets.

Option names are exactly those of the project's rules table (docs/RULES.md), so the same
keywords work in ``Rules.preset(...)``, ``euchre_env.env(...)`` and configs. One option is a
house rule no source has, off by default: ``minus_target_loses`` (Bid Euchre; seeds/001).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from functools import cache
from typing import Any

from euchre_env.game.cards import RANKS_24, RANKS_32, Deck
from euchre_env.game.errors import UnknownOptionError

# The two families of deal and calling. The turn-up family (knock, classic,
# multiplayer) turns a card up and calls trump in two rounds; Bid Euchre auctions
# a number of tricks.
TURN_UP = "turnup"
BID = "bid"

# The highest game target: the compiled engine keeps scores in int32, and a game that never ends is cut after 20
# times its target in hands (episodes.max_hands_per_game): at 1,000 that is 20,000 hands, seconds on the compiled
# engine, where a target of 10**6 ran for hours and 10**20 overflowed (issue 54). Real games play to 5-15 (32 in
# Bid Euchre).
MAX_GAME_TARGET = 1_000

_PRESETS: dict[str, dict[str, Any]] = {
    "knock": dict(family=TURN_UP, stick_the_dealer=True, lone_maker=True, game_target=10),
    "classic": dict(family=TURN_UP, stick_the_dealer=False, lone_maker=True, game_target=10),
    "multiplayer": dict(
        family=TURN_UP, stick_the_dealer=False, lone_maker=True, defend_alone=True, game_target=10
    ),
    "bid": dict(family=BID, stick_the_dealer=False, lone_maker=False, game_target=32),
}
PRESETS = tuple(_PRESETS)
RENEGE_MODES = ("masked", "penalize")
BID_ONLY_OPTIONS = ("ace_no_face", "double_deck", "minus_target_loses")


@dataclass(frozen=True)
class Rules:
    """One complete rule set. Build it with :meth:`preset`; construction validates."""

    family: str = TURN_UP
    deck: int = 24
    joker: bool = False
    stick_the_dealer: bool = True
    lone_maker: bool = True
    defend_alone: bool = False
    dealer_partner_must_go_alone: bool = False
    game_target: int = 10
    rubber: bool = False
    ace_no_face: bool = False
    double_deck: bool = False
    renege: str = "masked"
    # A house rule, not from the source (seeds/001): a Bid Euchre team at -game_target or below loses.
    minus_target_loses: bool = False
    preset_name: str = "custom"

    def __post_init__(self) -> None:
        _validate(self)

    # --- construction -----------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "knock", **overrides: Any) -> Rules:
        """The preset ``name`` with ``overrides`` applied (option names of docs/RULES.md)."""
        if name not in _PRESETS:
            raise ValueError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
        check_option_names(overrides)
        return cls(**{**_PRESETS[name], "preset_name": name, **overrides})

    def replace(self, **changes: Any) -> Rules:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for checkpoints, logs and configs)."""
        return asdict(self)

    def unlabelled(self) -> dict[str, Any]:
        """:meth:`to_dict` without the preset label: two names for one rule set give equal dicts."""
        data = self.to_dict()
        data.pop("preset_name")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rules field(s) {unknown}; known: {sorted(known)}")
        return cls(**data)

    def changed_options(self) -> dict[str, Any]:
        """The options whose value differs from this rule set's preset (all of them for custom rules)."""
        if self.preset_name not in _PRESETS:
            return {name: getattr(self, name) for name in option_names()}
        preset = Rules.preset(self.preset_name)
        return {name: getattr(self, name) for name in option_names() if getattr(self, name) != getattr(preset, name)}

    # --- derived quantities -------------------------------------------------------
    @property
    def is_bid(self) -> bool:
        return self.family == BID

    @property
    def deck_spec(self) -> Deck:
        """The deck these rules play with (one shared instance, so its tables are built once)."""
        return _deck(RANKS_32 if self.deck == 32 else RANKS_24, self.joker, 2 if self.double_deck else 1)

    @property
    def hand_size(self) -> int:
        if self.is_bid:
            return 12 if self.double_deck else 6
        return 5

    @property
    def tricks_per_hand(self) -> int:
        return self.hand_size

    @property
    def max_plain_bid(self) -> int:
        """Highest numeric bid; six (or twelve) is only bid as help or moon."""
        return self.tricks_per_hand - 1


@cache
def _deck(ranks: str, joker: bool, copies: int) -> Deck:
    return Deck(ranks=ranks, joker=joker, copies=copies)


def option_names() -> tuple[str, ...]:
    """Public option names (every field but the bookkeeping ones)."""
    return tuple(f.name for f in fields(Rules) if f.name not in ("family", "preset_name"))


def check_option_names(options: dict[str, Any], caller: Callable[..., Any] | None = None) -> None:
    """:class:`UnknownOptionError` (a TypeError and a ValueError) naming the keys of ``options`` that are no rules
    option, with the allowed ones. ``caller``: the env constructor whose extra keywords ``options`` holds; its
    message is then Python's "got an unexpected keyword argument" (what TorchRL's ``GymEnv`` looks for), naming the
    constructor's own arguments too."""
    unknown = sorted((k for k in options if k not in option_names()), key=repr)
    if not unknown:
        return
    names, allowed = ", ".join(map(repr, unknown)), ", ".join(option_names())
    if caller is None:
        raise UnknownOptionError(f"unknown rules option {names}; allowed: {allowed}")
    arguments = [p.name for p in inspect.signature(caller).parameters.values()
                 if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    got = f"an unexpected keyword argument {names}" if len(unknown) == 1 else f"unexpected keyword arguments {names}"
    raise UnknownOptionError(f"{caller.__name__}() got {got}; its arguments: {', '.join(arguments)}; rules options: "
                             f"{allowed}")


def resolve_rules(rules: Rules | str, overrides: dict[str, Any], caller: Callable[..., Any] | None = None) -> Rules:
    """The rules an env is made with: a preset name or a ``Rules``, with rules options over it. ``caller``: the env
    class, named by the error for a keyword that is neither its argument nor a rules option."""
    check_option_names(overrides, caller)
    if isinstance(rules, Rules):
        return rules.replace(**overrides)
    if isinstance(rules, str):
        return Rules.preset(rules, **overrides)
    raise ValueError(f"'rules' must be a preset name or a Rules instance, got {rules!r}")


def _check_bool(rules: Rules, name: str) -> None:
    value = getattr(rules, name)
    if not isinstance(value, bool):
        raise ValueError(f"rules option {name!r} must be True or False, got {value!r}")


def _validate(r: Rules) -> None:
    if r.family not in (TURN_UP, BID):
        raise ValueError(f"rules option 'family' must be one of {TURN_UP!r}, {BID!r}; got {r.family!r}")
    for name in (
        "joker", "stick_the_dealer", "lone_maker", "defend_alone",
        "dealer_partner_must_go_alone", "rubber", "ace_no_face", "double_deck", "minus_target_loses",
    ):
        _check_bool(r, name)
    if r.deck not in (24, 32) or isinstance(r.deck, bool):
        raise ValueError(f"rules option 'deck' must be 24 or 32, got {r.deck!r}")
    if (not isinstance(r.game_target, int) or isinstance(r.game_target, bool)
            or not 1 <= r.game_target <= MAX_GAME_TARGET):
        raise ValueError(f"rules option 'game_target' must be an int from 1 to {MAX_GAME_TARGET:,}, "
                         f"got {r.game_target!r}")
    if r.renege not in RENEGE_MODES:
        raise ValueError(f"rules option 'renege' must be one of {RENEGE_MODES}, got {r.renege!r}")
    if r.is_bid:
        if r.deck != 24:
            raise ValueError("rules option 'deck' must be 24 for Bid Euchre (use double_deck=True for 48)")
        if r.lone_maker or r.defend_alone or r.dealer_partner_must_go_alone:
            raise ValueError(
                "rules options 'lone_maker', 'defend_alone' and 'dealer_partner_must_go_alone' "
                "must be False for Bid Euchre (going alone is the 'moon' bid)"
            )
        if r.rubber:
            raise ValueError("rules option 'rubber' is only available in the turn-up presets")
        if r.joker and r.double_deck:
            raise ValueError("rules options 'joker' and 'double_deck' cannot be combined (no source deals them)")
    else:
        bid_only = [name for name in BID_ONLY_OPTIONS if getattr(r, name)]
        if bid_only:
            raise ValueError(f"rules option(s) {', '.join(map(repr, bid_only))}: only available in Bid Euchre "
                             f"(the Bid Euchre options: {', '.join(BID_ONLY_OPTIONS)})")
        if r.defend_alone and not r.lone_maker:
            raise ValueError(
                "rules option 'defend_alone' needs 'lone_maker'=True: one defends alone only against a lone maker"
            )
        if r.dealer_partner_must_go_alone and not r.lone_maker:
            raise ValueError("rules option 'dealer_partner_must_go_alone' needs 'lone_maker'=True")
