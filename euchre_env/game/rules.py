"""The ``Rules`` dataclass: every option of the rule sources, validated, with presets.

Option names are exactly those of the project's rules table (docs/RULES.md), so the same
keywords work in ``Rules.preset(...)``, ``euchre_env.env(...)`` and configs. Two options are
house rules the five sources do not play, off by default: ``minus_target_loses`` (Bid Euchre;
seeds/001) and ``euchred_loner_four`` (the turn-up presets; seeds/000).

Each option is declared once, as its field of :class:`Rules` made by :func:`option`: its default, its doc line,
the values it takes, the family it exists in, whether the compiled engine reads it from its packed options
(``euchre_env/compiled/layout.py`` numbers those ``O_<NAME>``) and which of its values the rule-based agent's
compiled twin covers. Everything else reads :data:`OPTIONS`: the validation below, the kernels' tables
(``compiled/tables.py``), the twin's coverage (``agents/rule_based/compiled.py``, which turns itself off with a
warning naming an option it does not cover), the OpenSpiel game's parameters and the command line's ``--set``.
A new option is its declaration here, its logic in the reference engine and its logic in the C engine.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
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
FAMILY_NAMES = {TURN_UP: "the turn-up presets", BID: "Bid Euchre"}
ANY = "any"  # Option.twin: the rule-based twin covers every value of the option


@dataclass(frozen=True)
class Option:
    """What one rules option is, beside its field of :class:`Rules` (its name and default are the field's).

    ``values``: the values it takes (None: any of its default's type, an int from 1 to ``high``); ``family``: the
    one family it exists in (None: both); ``packed``: the compiled engine reads it as a number from its options
    array (``compiled/layout.py`` gives each such option its index ``O_<NAME>``: a bool as 0/1, an int as it is, a
    string as its index in ``values``); ``twin``: the values the rule-based agent's compiled twin covers
    (:data:`ANY`, or a tuple)."""

    doc: str
    twin: tuple[Any, ...] | str
    values: tuple[Any, ...] | None = None
    high: int | None = None
    family: str | None = None
    packed: bool = False


def option(default: Any, doc: str, *, twin: tuple[Any, ...] | str, values: tuple[Any, ...] | None = None,
           high: int | None = None, family: str | None = None, packed: bool = False) -> Any:
    """A field of :class:`Rules` that is a rules option (:class:`Option` says what each argument means)."""
    return field(default=default, metadata={"option": Option(doc, twin, values, high, family, packed)})


@dataclass(frozen=True)
class Rules:
    """One complete rule set. Build it with :meth:`preset`; construction validates."""

    family: str = TURN_UP  # TURN_UP or BID: set by the preset, not an option
    deck: int = option(24, "cards: 24 (9 to ace) or 32 (7 to ace; the turn-up presets)", values=(24, 32), twin=ANY)
    joker: bool = option(False, "a joker, the highest trump", twin=ANY)
    stick_the_dealer: bool = option(True, "the dealer must name trump when all others pass twice", twin=ANY,
                                    packed=True)
    lone_maker: bool = option(True, "the maker may go alone (Bid Euchre: help and moon instead)", twin=ANY)
    defend_alone: bool = option(False, "one defender may defend alone against a lone maker", twin=ANY, packed=True)
    dealer_partner_must_go_alone: bool = option(
        False, "the dealer's partner who orders the up-card up must go alone (a variant source 000 mentions)",
        twin=ANY, packed=True)
    game_target: int = option(10, "the points that win a game", high=MAX_GAME_TARGET, twin=ANY, packed=True)
    rubber: bool = option(False, "best of three games, with rubber points", family=TURN_UP, twin=ANY, packed=True)
    ace_no_face: bool = option(False, "a player dealt an ace and no face card may claim a redeal",
                               family=BID, twin=ANY)
    double_deck: bool = option(False, "two 24-card decks, twelve cards a hand", family=BID, twin=ANY)
    renege: str = option("masked", "masked: only legal cards can be played; penalize: a renege is played and "
                         "penalized", values=RENEGE_MODES, twin=ANY, packed=True)
    # A house rule, not from the source (seeds/001): a Bid Euchre team at -game_target or below loses.
    minus_target_loses: bool = option(False, "a team at minus the target or below loses (house rule)", family=BID,
                                      twin=ANY, packed=True)
    # A house rule (seeds/000): "4 points for an error on a called loner". The rule-based agent's calls do not weigh
    # the points at stake, so its twin covers both values.
    euchred_loner_four: bool = option(False, "a lone maker euchred gives the defenders 4 points, not 2 (house rule)",
                                      family=TURN_UP, twin=ANY, packed=True)
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


# Every rules option by name, in declaration order: the fields of Rules made by option().
OPTIONS: dict[str, Option] = {f.name: f.metadata["option"] for f in fields(Rules) if "option" in f.metadata}
DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Rules) if f.name in OPTIONS}


def option_names() -> tuple[str, ...]:
    """Public option names (every field but the bookkeeping ones)."""
    return tuple(OPTIONS)


def preset_options() -> tuple[str, ...]:
    """The options some preset sets (their defaults differ between presets), in declaration order."""
    return tuple(name for name in OPTIONS if any(name in overrides for overrides in _PRESETS.values()))


def packed_value(rules: Rules, name: str) -> int:
    """Option ``name`` of ``rules`` as the compiled engine reads it (:class:`Option`'s ``packed``)."""
    value = getattr(rules, name)
    values = OPTIONS[name].values
    return values.index(value) if isinstance(value, str) and values else int(value)


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


def _check_value(name: str, value: Any) -> None:
    """One line naming the option and what it takes, unless ``value`` is one of its values."""
    spec, kind = OPTIONS[name], type(DEFAULTS[name])
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"rules option {name!r} must be True or False, got {value!r}")
    elif kind is int and spec.values is not None:
        if value not in spec.values or type(value) is not int:
            raise ValueError(f"rules option {name!r} must be {' or '.join(map(str, spec.values))}, got {value!r}")
    elif kind is int:
        if type(value) is not int or not 1 <= value <= (spec.high or value):
            raise ValueError(f"rules option {name!r} must be an int from 1 to {spec.high:,}, got {value!r}")
    elif value not in spec.values or type(value) is not kind:
        raise ValueError(f"rules option {name!r} must be one of {spec.values}, got {value!r}")


def _validate(r: Rules) -> None:
    if r.family not in (TURN_UP, BID):
        raise ValueError(f"rules option 'family' must be one of {TURN_UP!r}, {BID!r}; got {r.family!r}")
    for name in OPTIONS:
        _check_value(name, getattr(r, name))
    elsewhere = [name for name, spec in OPTIONS.items()  # set in a family they do not exist in
                 if spec.family not in (None, r.family) and getattr(r, name) != DEFAULTS[name]]
    if elsewhere:
        family = OPTIONS[elsewhere[0]].family
        theirs = [name for name, spec in OPTIONS.items() if spec.family == family]
        raise ValueError(f"rules option(s) {', '.join(map(repr, elsewhere))}: only available in "
                         f"{FAMILY_NAMES[family]} (its own options: {', '.join(theirs)})")
    if r.is_bid:
        if r.deck != 24:
            raise ValueError("rules option 'deck' must be 24 for Bid Euchre (use double_deck=True for 48)")
        if r.lone_maker or r.defend_alone or r.dealer_partner_must_go_alone:
            raise ValueError(
                "rules options 'lone_maker', 'defend_alone' and 'dealer_partner_must_go_alone' "
                "must be False for Bid Euchre (going alone is the 'moon' bid)"
            )
        if r.joker and r.double_deck:
            raise ValueError("rules options 'joker' and 'double_deck' cannot be combined (no source deals them)")
    else:
        if r.defend_alone and not r.lone_maker:
            raise ValueError(
                "rules option 'defend_alone' needs 'lone_maker'=True: one defends alone only against a lone maker"
            )
        if r.dealer_partner_must_go_alone and not r.lone_maker:
            raise ValueError("rules option 'dealer_partner_must_go_alone' needs 'lone_maker'=True")
        if r.euchred_loner_four and not r.lone_maker:
            raise ValueError("rules option 'euchred_loner_four' needs 'lone_maker'=True: only a lone maker is a loner")
