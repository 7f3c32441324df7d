"""Our engine as an OpenSpiel game: the Game and the State (their views: :mod:`euchre_env.openspiel.observer`).

The State drives a :class:`~euchre_env.game.engine.GameState` and defines no rule: legal actions, their
effects, the hand's points and the game's end are the engine's; the deal is drawn card by card at chance
nodes and handed to the engine as a scripted deal; the tensors are our observation encoders' output.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel

from euchre_env.game.actions import action_table
from euchre_env.game.deals import deal_from_order
from euchre_env.game.engine import GameState
from euchre_env.game.rules import PRESETS, Rules, option_names, preset_options
from euchre_env.game.scoring import hand_reward
from euchre_env.game.seats import NUM_SEATS, left_of, team_of
from euchre_env.openspiel.observer import EuchreObserver, information_string, observation_string
from euchre_env.views.structured import OBSERVATIONS, make_observer

GAME_NAME = "python_euchre"
# Options whose default differs between presets (some preset sets them): parameters of the per-preset games only
# (OpenSpiel fills every unset parameter with its default before the game sees it, so a shared game cannot tell
# "unset" from "set to the default"); ``python_euchre`` takes ``game_target`` with 0 meaning the preset's. The
# other options (their default the same in every preset) are parameters of every game. Both lists come from the
# options' declarations (euchre_env.game.rules), so a new option is a parameter without a line here.
PRESET_OPTIONS = preset_options()
COMMON_OPTIONS = tuple(name for name in option_names() if name not in PRESET_OPTIONS)
# Parameters of ours that are no rules option.
GAME_OPTIONS = {"whole_game": False, "observation": "absolute"}
# A whole game has no hard length bound (hands can be thrown in); OpenSpiel needs one: this many hands.
MAX_HANDS = 200


def preset_game_name(preset: str) -> str:
    """The short name of the game of one preset: ``python_euchre_classic``."""
    return f"{GAME_NAME}_{preset}"


def parameter_specification(preset: str | None) -> dict[str, Any]:
    """The parameters (with defaults) of ``python_euchre`` (``preset`` None) or of one preset's game."""
    if preset is None:
        base = Rules()
        spec: dict[str, Any] = {"rules": "knock", **{o: getattr(base, o) for o in COMMON_OPTIONS}, "game_target": 0}
    else:
        rules = Rules.preset(preset)
        spec = {o: getattr(rules, o) for o in (*COMMON_OPTIONS, *PRESET_OPTIONS)}
    return {**spec, **GAME_OPTIONS}


def game_for_rules(rules: Rules, whole_game: bool = False, observation: str = "absolute") -> EuchreGame:
    """The game of any :class:`Rules` (a preset's or a custom one): its family's per-preset game with every
    option given."""
    preset = rules.preset_name if rules.preset_name in PRESETS else ("bid" if rules.is_bid else "knock")
    params = {o: getattr(rules, o) for o in (*COMMON_OPTIONS, *PRESET_OPTIONS)}
    return pyspiel.load_game(preset_game_name(preset), {**params, "whole_game": whole_game,
                                                        "observation": observation})


def rules_from_parameters(params: dict[str, Any], preset: str | None) -> Rules:
    """The :class:`Rules` a game's parameters describe (one ValueError line for a bad combination)."""
    if preset is None:
        name = params.get("rules", "knock")
        if name not in PRESETS:
            raise ValueError(f"{GAME_NAME}: unknown rules {name!r}; allowed: {', '.join(PRESETS)}")
        options = {o: params[o] for o in COMMON_OPTIONS if o in params}
        if params.get("game_target", 0):
            options["game_target"] = params["game_target"]
        return Rules.preset(name, **options)
    return Rules.preset(preset, **{o: params[o] for o in (*COMMON_OPTIONS, *PRESET_OPTIONS) if o in params})


def _cards_per_deal(rules: Rules) -> int:
    """Cards drawn at chance nodes per hand: the hands, the Bid Euchre joker dealer's extra card, the up-card."""
    return NUM_SEATS * rules.hand_size + (1 if rules.is_bid and rules.joker else 0) + (0 if rules.is_bid else 1)


def _utility_bound(rules: Rules) -> float:
    """Largest team margin of one hand: the biggest score (a lone march / lone defence, a made moon) plus a
    renege penalty of the other team."""
    best = 4 * rules.tricks_per_hand if rules.is_bid else 4
    return float(best + 2)


def _hand_length(rules: Rules) -> int:
    """Most decisions in one hand: the calling (with discards, defences, the help exchange) and the play."""
    calls = 3 + NUM_SEATS + 2 if rules.is_bid else 2 * NUM_SEATS + 1 + 2 + 1  # bid: discard, auction, name, give x2
    return calls + NUM_SEATS * rules.tricks_per_hand


class Spec:
    """What every state of one game shares (rules, tables, encoders): built once per parameter set."""

    def __init__(self, rules: Rules, whole_game: bool, observation: str) -> None:
        self.key = (rules, whole_game, observation)
        self.rules = rules
        self.whole_game = whole_game
        self.observation = observation
        self.table = action_table(rules)
        self.deck = rules.deck_spec
        self.draws = _cards_per_deal(rules)
        self.encoders = {kind: make_observer(rules, kind) for kind in ("absolute", "structured")}
        n = self.deck.num_ids
        self.cards = range(n)
        self.first_draws = [(c, 1.0 / n) for c in range(n)]  # every copy count is equal before the first draw


@lru_cache(maxsize=64)
def spec_for(rules: Rules, whole_game: bool, observation: str) -> Spec:
    return Spec(rules, whole_game, observation)


# Every state's engine gets this generator and then none: its deals are always scripted (drawn at chance
# nodes), so it never draws, and ``GameState.clone`` would otherwise deep-copy a generator at every clone.
_UNUSED_RNG = np.random.default_rng(0)


CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class Core:
    """The Python side of one state: the engine, the deal in progress, and the player to act.

    OpenSpiel clones a Python state by deep-copying each attribute; this one copies itself with
    ``GameState.clone`` (ten times faster than a deep copy) and shares the :class:`Spec`. Pickled, it keeps
    the spec's key, and finds the spec again on loading. ``player`` is kept up to date after every action:
    OpenSpiel asks for the current player several times per action (``is_chance_node``, ``is_terminal``,
    ``apply_action``, ``legal_actions`` all do), so it must cost one attribute read.
    """

    __slots__ = ("dealer", "drawn", "engine", "left", "player", "spec")

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.engine: GameState | None = None
        self.dealer = -1  # the first dealer, once chance has drawn it
        self.drawn: list[int] = []  # cards drawn for the hand being dealt
        self.left: list[int] | None = None  # copies left of each card id (double deck only)
        self.player = CHANCE

    def __deepcopy__(self, memo: dict) -> Core:
        c = Core.__new__(Core)
        c.spec = self.spec
        c.engine = self.engine.clone() if self.engine is not None else None
        c.dealer = self.dealer
        c.drawn = list(self.drawn)
        c.left = list(self.left) if self.left is not None else None
        c.player = self.player
        return c

    def __getstate__(self) -> dict[str, Any]:
        return {"key": self.spec.key, "engine": self.engine, "dealer": self.dealer, "drawn": self.drawn,
                "left": self.left, "player": self.player}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.spec = spec_for(*data["key"])
        self.engine = data["engine"]
        self.dealer, self.drawn, self.left, self.player = data["dealer"], data["drawn"], data["left"], data["player"]

    def update_player(self) -> None:
        """Who acts now: chance while dealing (a whole game deals again after each hand), nobody once over."""
        e = self.engine
        if e is None:
            self.player = CHANCE
        elif not e.hand_over:
            self.player = e.current
        elif self.spec.whole_game and not e.is_over:
            self.player = CHANCE
        else:
            self.player = TERMINAL

    @property
    def dealing(self) -> bool:
        return self.player == CHANCE


def _game_type(name: str, preset: str | None) -> pyspiel.GameType:
    what = "any preset (parameter 'rules')" if preset is None else f"the {preset!r} preset"
    return pyspiel.GameType(
        short_name=name,
        long_name=f"Python Euchre, {what} (euchre_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=NUM_SEATS,
        min_num_players=NUM_SEATS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(preset),
    )


class EuchreGame(pyspiel.Game):
    """One rule set of ours as an OpenSpiel game (built by ``pyspiel.load_game``; see the package docstring)."""

    preset: str | None = None  # the per-preset games set their preset
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        observation = params.get("observation", "absolute")
        if observation not in OBSERVATIONS:
            raise ValueError(f"{self.game_type.short_name}: unknown observation {observation!r}; "
                             f"allowed: {', '.join(OBSERVATIONS)}")
        rules = rules_from_parameters(params, self.preset)
        whole_game = bool(params.get("whole_game", False))
        self._spec = spec_for(rules, whole_game, observation)
        bound = 1.0 if whole_game else _utility_bound(rules)
        length = _hand_length(rules) * (MAX_HANDS if whole_game else 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.spec.table),
            max_chance_outcomes=max(NUM_SEATS, rules.deck_spec.num_ids),
            num_players=NUM_SEATS,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=length,
        )
        super().__init__(self.game_type, info, params)

    @property
    def spec(self) -> Spec:
        """Rules, action table and encoders of this game (shared by its states)."""
        spec = self.__dict__.get("_spec")
        if spec is None:  # an unpickled game: OpenSpiel rebuilt it without calling __init__
            params = self.get_parameters()
            spec = self._spec = spec_for(rules_from_parameters(params, self.preset), bool(params["whole_game"]),
                                         params["observation"])
        return spec

    @property
    def rules(self) -> Rules:
        return self.spec.rules

    @property
    def whole_game(self) -> bool:
        return self.spec.whole_game

    def new_initial_state(self, params: Any = None) -> EuchreState:
        """The state before the deal: chance draws the dealer, then the cards."""
        return EuchreState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> EuchreObserver:
        """The tensor and string views; ``params`` may pick the encoder: ``{"observation": "structured"}``."""
        return EuchreObserver(self.spec, iig_obs_type, params)


class EuchreState(pyspiel.State):
    """A position of the game: the engine's, or a deal in progress (a chance node)."""

    def __init__(self, game: EuchreGame) -> None:
        super().__init__(game)
        self._core = Core(game.spec)

    # ---------------------------------------------------------------- the engine, read-only for callers
    @property
    def engine(self) -> GameState | None:
        """The engine's state (None until the first hand is dealt). Read it; never change it."""
        return self._core.engine

    @property
    def rules(self) -> Rules:
        return self._core.spec.rules

    # ---------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        return self._core.player

    def is_terminal(self) -> bool:
        return self._core.player == TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        return self._core.engine.legal_actions()  # pybind11 copies it into a C++ vector: no aliasing

    def chance_outcomes(self) -> list[tuple[int, float]]:
        core = self._core
        if not core.dealing:
            raise ValueError("chance_outcomes() is only for chance nodes (the deal); a seat acts here")
        if core.dealer < 0:
            return [(s, 1.0 / NUM_SEATS) for s in range(NUM_SEATS)]
        if core.left is None:  # one copy of each card: every card not drawn yet, equally likely
            if not core.drawn:
                return list(core.spec.first_draws)
            drawn = core.drawn
            p = 1.0 / (core.spec.deck.num_ids - len(drawn))
            return [(c, p) for c in core.spec.cards if c not in drawn]
        total = sum(core.left)
        return [(c, k / total) for c, k in enumerate(core.left) if k]

    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.player != CHANCE:
            core.engine.apply(action)  # the engine checks legality and says what is legal
            core.update_player()
            return
        if not self._chance_legal(action):
            what = "dealer (0..3)" if core.dealer < 0 else "card not drawn yet"
            raise ValueError(f"illegal chance outcome {action}: not a {what}; legal: "
                             f"{[a for a, _ in self.chance_outcomes()]}")
        action = int(action)
        if core.dealer < 0:
            core.dealer = action
            return
        spec = core.spec
        if core.left is None and not core.drawn and spec.deck.copies > 1:
            core.left = [spec.deck.copies] * spec.deck.num_ids
        core.drawn.append(action)
        if core.left is not None:
            core.left[action] -= 1
        if len(core.drawn) == spec.draws:
            self._deal()
            core.update_player()

    def _chance_legal(self, action: Any) -> bool:
        core = self._core
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            return False
        if core.dealer < 0:
            return 0 <= action < NUM_SEATS
        if not 0 <= action < core.spec.deck.num_ids:
            return False
        return core.left[action] > 0 if core.left is not None else action not in core.drawn

    def _deal(self) -> None:
        """Hand the drawn cards to the engine as a scripted deal."""
        core = self._core
        rules = core.spec.rules
        e = core.engine
        dealer = core.dealer if e is None else left_of(e.dealer)
        deal = deal_from_order(rules, core.drawn, dealer)
        deal.pop("kitty")  # the engine works out the undealt cards itself
        if e is None:
            e = GameState(rules, _UNUSED_RNG, deal=deal)
            e.rng = None  # never drawn from: every deal is scripted (see _UNUSED_RNG)
            core.engine = e
        else:
            e.next_hand(deal)
        core.drawn = []
        core.left = None

    def _action_to_string(self, player: int, action: int) -> str:
        spec = self._core.spec
        if player == pyspiel.PlayerId.CHANCE:
            if self._core.dealer < 0:
                return f"dealer {action}"
            return f"deal {spec.deck.name(action)}"
        return spec.table.to_str(action)

    def returns(self) -> list[float]:
        e = self._core.engine
        if not self.is_terminal():
            return [0.0] * NUM_SEATS
        if self._core.spec.whole_game:
            return [1.0 if team_of(p) == e.winner else -1.0 for p in range(NUM_SEATS)]
        points = e.hand_result["points"]
        return [float(hand_reward(points, p)) for p in range(NUM_SEATS)]

    def __str__(self) -> str:
        core = self._core
        e = core.engine
        d = core.spec.deck
        if e is None or core.dealing:
            dealer = core.dealer if e is None else left_of(e.dealer)
            return f"dealing (dealer {dealer}): {' '.join(d.name(c) for c in core.drawn)}".rstrip()
        hands = " | ".join(" ".join(d.name(c) for c in h) for h in e.hands)
        moves = " ".join(f"{s}:{e.table.strings[a]}" for _, s, a in e.history)
        return (f"hand {e.hand_number + 1} dealer {e.dealer} scores {e.scores[0]}-{e.scores[1]} "
                f"{e.phase.name} hands [{hands}] up {d.name(e.upcard) if e.upcard is not None else '-'} "
                f"moves {moves}").rstrip()

    # ---------------------------------------------------------------- for bots: a state from a seat's view
    def set_engine(self, engine: GameState) -> None:
        """Put ``engine`` (a dealt hand of these rules) in place of the state's deal and history.

        For search bots that build the states they explore from a seat's knowledge; OpenSpiel's own action
        history of the state is left as it was (a state built this way has no chance history to replay).
        The state takes ``engine`` over (and drops its generator: the state deals through chance nodes).
        """
        if engine.rules.replace(preset_name="") != self._core.spec.rules.replace(preset_name=""):
            raise ValueError(f"set_engine: the engine plays {engine.rules.preset_name} rules, not this game's")
        engine.rng = None
        self._core.engine = engine
        self._core.dealer = engine.dealer
        self._core.drawn, self._core.left = [], None
        self._core.update_player()


def _register() -> None:
    games = [(GAME_NAME, None)] + [(preset_game_name(p), p) for p in PRESETS]
    for name, preset in games:
        game_type = _game_type(name, preset)
        cls = type(f"EuchreGame_{preset or 'any'}", (EuchreGame,), {"preset": preset, "game_type": game_type})
        cls.__module__ = __name__
        globals()[cls.__name__] = cls  # pickling finds the class by name
        pyspiel.register_game(game_type, cls)


_register()

__all__ = [
    "GAME_NAME", "EuchreGame", "EuchreObserver", "EuchreState", "game_for_rules", "information_string",
    "observation_string", "parameter_specification", "preset_game_name", "rules_from_parameters",
]
