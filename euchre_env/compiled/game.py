"""One game on the compiled core: what the AEC env (:mod:`euchre_env.env`) steps at every decision.

The rules are the reference engine's (:class:`~euchre_env.game.engine.GameState`) and its observers', ported once to
the compiled core in C (``euchre_env/compiled/c/engine.h``, built when the package is installed) and proven equal to
them by tests/differential/test_compiled_game_vs_engine.py. A decision costs one C call (``_core.Game.step``:
apply the action, then the next seat's mask and observation), a fraction of a microsecond, against some 15 for
the engine and observers in Python.

The game also keeps a log of its deals and actions, so that a :class:`GameState` of the same game can
be replayed on demand (:meth:`CompiledGame.replay`) for everything that reads the reference state:
rendering, information states for rule-based and search agents, inspection.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from euchre_env.compiled import layout as K
from euchre_env.compiled import seeding
from euchre_env.compiled.layout import GameArrays
from euchre_env.compiled.native import CORE, extension
from euchre_env.compiled.tables import hand_result, kernel_tables
from euchre_env.game.deals import deal_from_order, scripted_deal
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, left_of

ILLEGAL = -2  # step(): the action is not legal now
_PHASES = tuple(Phase)  # by value: a lookup, where Phase(value) costs more than a step's rules
MAX_DECISIONS = 128  # decisions in one hand, with room: a double-deck Bid Euchre hand has 48 plays and a few calls


class CompiledGame:
    """One game (or rubber) under ``rules``, observed as ``observation`` (``"absolute"`` / ``"structured"``).

    After :meth:`start` (and each :meth:`step` that leaves the hand going), ``current_player`` is the seat to
    act (-1 when the hand is over), and ``mask`` (int8) and ``obs`` (float32) hold its legal actions and
    observation, in the frame ``frame`` (0 when absolute). They are buffers, overwritten by the next step:
    copy what you keep.

    ``step(action)`` carries out ``action`` (an int id in the decision's frame, ``0 <= action < len(mask)``) and
    returns the seat to act next, whose ``mask`` / ``obs`` these now are; -1 when the hand ended; ``ILLEGAL``
    (nothing changed) when ``mask`` does not allow the action. It is the compiled call itself (no Python
    frame around it): the AEC env makes it at every decision.
    """

    reseed = staticmethod(seeding.reseed)  # default_rng(seed)'s state set in place by a compiled call

    def __init__(self, rules: Rules, observation: str) -> None:
        self.rules = rules
        self.observation = observation
        tables = kernel_tables(rules, observation)
        n, tricks, rounds = rules.deck_spec.num_ids, rules.tricks_per_hand, tables.rounds
        obs_size = int(tables.off[K.B_SIZE] if tables.structured else tables.off[K.B_BASE_SIZE])
        # The game's state (one game of the batch's layout) and the buffers each decision writes, held by the C
        # game (compiled/c/core.c) for its life; the views read here.
        self._st = np.zeros((1, K.NF), np.int32)
        hands = np.zeros((1, NUM_SEATS, n), np.int8)
        tricks_played = np.zeros((1, tricks, NUM_SEATS), np.int8)
        self._arrays = GameArrays(self._st, hands, np.zeros_like(hands), tricks_played, np.zeros_like(tricks_played),
                                  np.full((1, rounds, NUM_SEATS), -1, np.int16))
        self.mask = np.zeros(len(tables.akind), np.int8)
        self.obs = np.zeros(obs_size, np.float32)
        self._history = np.zeros(MAX_DECISIONS + 1, np.int16)  # this hand's absolute actions: the count, then the ids
        self._seats = np.zeros((NUM_SEATS, obs_size), np.float32)  # every seat's observation, when valid
        # the extension imported here, not with the module: an env falls back on ReferenceGame where it is not built
        game = extension(CORE).Game(self._arrays, tables.kernel, self.mask, self.obs, self._history)
        self.step: Callable[[int], int] = game.step
        self._start = game.start
        self._start_shuffled = game.deal
        self._encode_seats = game.encode_seats
        self._seats_at = -1  # the decision count of this hand at which _seats was written (-1: not this hand)
        self._scores = [0, 0]  # the episode's starting score, for replay
        self._result: dict[str, Any] | None = None  # the finished hand's result, built once
        # (deal, absolute actions) of each hand, the one on the table last with its actions still in the kernel's
        # history; a deal is parsed (card ids, its dealer) or (dealer, shuffled pack), laid out when read.
        self._log: list[tuple[dict[str, Any] | tuple[int, np.ndarray], list[int]]] = []

    # ------------------------------------------------------------------ dealing
    def start(self, deal: dict[str, Any], scores: list[int]) -> int:
        """A new game from ``deal`` (parsed: card ids, with its dealer) and the starting ``scores``; returns the
        seat to act."""
        self._new_game(scores)
        return self._deal(deal, True)

    def start_shuffled(self, pack: np.ndarray, dealer: int, scores: list[int]) -> int:
        """A new game dealt by ``dealer`` from ``pack`` (``deals.shuffled_pack``) as ``deals.random_deal`` deals it.

        The same game as ``start(random_deal(...))`` from the same generator, without laying the deal out in
        Python at every hand (a tenth of a one-hand episode's cost): the deal is built only when read. Returns
        the seat to act."""
        self._new_game(scores)
        self._st[0, K.DEALER] = dealer
        return self._shuffled(pack, True, dealer)

    def next_hand(self, deal: dict[str, Any]) -> None:
        """The next hand of the game (after a hand ended and the game goes on), from ``deal``."""
        self._end_of_hand()
        self._deal(deal, False)

    def next_hand_shuffled(self, pack: np.ndarray) -> None:
        """:meth:`next_hand` dealt from ``pack`` by the next dealer (see :meth:`start_shuffled`)."""
        self._end_of_hand()
        dealer = self._st[0, K.DEALER] = self.next_dealer()
        self._shuffled(pack, False, dealer)

    def _new_game(self, scores: list[int]) -> None:
        self._scores = list(scores)
        self._log = []

    def _end_of_hand(self) -> None:
        self._log[-1] = (self._log[-1][0], self._actions())  # the hand that ended: its actions join its deal
        self._st[0, K.HANDNO] += 1

    def _shuffled(self, pack: np.ndarray, new_game: bool, dealer: int) -> int:
        self._result = None
        self._seats_at = -1
        seat = self._start_shuffled(pack, new_game, *self._scores)
        self._log.append(((dealer, pack), []))
        return seat

    def _deal(self, deal: dict[str, Any], new_game: bool) -> int:
        self._result = None
        self._seats_at = -1
        hands = deal["hands"]
        try:
            cards = np.array(hands, np.int16)
        except ValueError:  # a Bid Euchre joker dealer holds one card more: pad the others
            width = max(map(len, hands))
            cards = np.array([list(h) + [-1] * (width - len(h)) for h in hands], np.int16)
        self._st[0, K.DEALER] = deal["dealer"]
        upcard = deal.get("upcard")
        seat = self._start(cards, -1 if upcard is None else upcard, new_game, *self._scores)
        self._log.append((deal, []))  # the parsed deal: fresh, never changed (the kitty is dropped on reading)
        return seat

    # ------------------------------------------------------------------ decisions
    @property
    def current_player(self) -> int:
        """The seat to act, -1 when the hand is over."""
        return -1 if self.hand_over else int(self._st[0, K.CUR])

    def last_action(self) -> int:
        """The absolute id of the last action carried out in this hand."""
        return int(self._history[self._history[0]])

    def encode(self, seat: int) -> np.ndarray:
        """A new array: the observation of any ``seat`` now (as the env shows it)."""
        at = int(self._history[0])  # one more each step: the four written at this count are current
        if at != self._seats_at:  # all four at once: at a hand's end each is read in turn
            self._encode_seats(self._seats)
            self._seats_at = at
        return self._seats[seat].copy()

    # ------------------------------------------------------------------ state (what episodes.py reads)
    @property
    def frame(self) -> int:
        """Index (in ``structured.suit_frames``) of the current decision's canonical frame."""
        return int(self._st[0, K.FRAME])

    @property
    def phase(self) -> Phase:
        return _PHASES[self._st[0, K.PH]]

    @property
    def hand_over(self) -> bool:
        return self._st[0, K.PH] >= K.HAND_OVER

    @property
    def hand_number(self) -> int:
        return int(self._st[0, K.HANDNO])

    @property
    def dealer(self) -> int:
        return int(self._st[0, K.DEALER])

    @property
    def winner(self) -> int | None:
        """The winning team once the game (or rubber) is over, else None."""
        w = int(self._st[0, K.WINNER])
        return None if w < 0 else w

    @property
    def hand_result(self) -> dict[str, Any] | None:
        """The finished hand's result, as ``GameState.hand_result`` (None while the hand is played)."""
        if self._result is None and self.hand_over:
            self._result = hand_result(self.rules, self._st[0])
        return self._result

    def current_deal(self) -> dict[str, Any]:
        """The deal of the hand on the table, in the format of the env's ``options["deal"]`` (card ids)."""
        return self._as_deal(self._log[-1][0])

    def next_dealer(self) -> int:
        return left_of(self.dealer)

    # ------------------------------------------------------------------ the reference state
    def replay(self, rng: np.random.Generator) -> GameState:
        """The reference engine's state of this game, replayed from its deals and actions (``rng`` deals on if
        its caller asks it to)."""
        hands = [*self._log[:-1], (self._log[-1][0], self._actions())]
        game = GameState(self.rules, rng, deal=self._as_deal(hands[0][0]), scores=self._scores)
        for i, (deal, actions) in enumerate(hands):
            if i:
                game.next_hand(self._as_deal(deal))
            for a in actions:
                game.apply(a)
        return game

    def _actions(self) -> list[int]:
        return self._history[1:1 + self._history[0]].tolist()

    def _as_deal(self, entry: dict[str, Any] | tuple[int, np.ndarray]) -> dict[str, Any]:
        """A deal of the log as the env's ``options["deal"]`` takes it: a new dict, card ids."""
        if isinstance(entry, tuple):
            dealer, pack = entry
            entry = deal_from_order(self.rules, pack.tolist(), dealer)
        return as_scripted(entry)


def as_scripted(parsed: dict[str, Any]) -> dict[str, Any]:
    """A parsed deal (with its kitty) as the env's ``options["deal"]`` takes it: a copy, card ids."""
    return scripted_deal(int(parsed["dealer"]), [list(h) for h in parsed["hands"]], parsed.get("upcard"))
