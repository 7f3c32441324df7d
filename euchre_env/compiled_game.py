"""One game on the compiled core: what the AEC env (:mod:`euchre_env.env`) steps at every decision.

The rules are the reference engine's (:class:`~euchre_env.engine.GameState`), ported once to
:mod:`euchre_env.vector_kernels` and proven equal to it by the differential tests. A decision costs
one Numba call (:func:`~euchre_env.vector_kernels.game_step`: apply the action, then the next seat's
mask and observation), about a microsecond, against some 15 for the engine and observers in Python.

The game also keeps a log of its deals and actions, so that a :class:`GameState` of the same game can
be replayed on demand (:meth:`CompiledGame.replay`) for everything that reads the reference state:
rendering, information states for rule-based and search agents, inspection.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env import vector_kernels as K
from euchre_env.engine import GameState
from euchre_env.kernel_tables import hand_result, kernel_tables
from euchre_env.phases import Phase
from euchre_env.rules import Rules
from euchre_env.seats import NUM_SEATS, left_of

MAX_DECISIONS = 128  # decisions in one hand, with room: a double-deck Bid Euchre hand has 48 plays and a few calls

class CompiledGame:
    """One game (or rubber) under ``rules``, observed as ``observation`` (``"absolute"`` / ``"structured"``).

    After :meth:`start` (and each :meth:`step` that leaves the hand going), ``current_player`` is the seat to
    act (-1 when the hand is over), and ``mask`` (int8) and ``obs`` (float32) hold its legal actions and
    observation, in the frame ``frame`` (0 when absolute). They are buffers, overwritten by the next step:
    copy what you keep.
    """

    def __init__(self, rules: Rules, observation: str) -> None:
        self.rules = rules
        tables = kernel_tables(rules, observation)
        self._to_abs = tables.to_abs
        self._opt = tables.opt
        self._T = K.pack_tables(tables)
        self._st = np.zeros((1, K.NF), np.int32)
        self._s8 = np.zeros(K.state8_size(tables.opt), np.int8)
        self._calls = np.full((1, tables.rounds, NUM_SEATS), -1, np.int16)
        self.current_player = -1
        self.obs = np.zeros(tables.off[K.B_BASE_SIZE] if not tables.structured else tables.off[K.B_SIZE], np.float32)
        self.mask = np.zeros(len(tables.akind), np.int8)
        self._seats = np.zeros((NUM_SEATS, self.obs.size), np.float32)  # every seat's observation, when valid
        self._seats_valid = False
        self._raw = np.zeros(tables.raw_size + len(tables.akind), np.float32)
        self._history = np.zeros(MAX_DECISIONS + 1, np.int16)  # this hand's absolute actions (see game_step)
        self._scores = [0, 0]  # the episode's starting score, for replay
        self._result: dict[str, Any] | None = None  # the finished hand's result, built once
        self._log: list[tuple[dict[str, Any], list[int]]] = []  # (deal, absolute actions) of the earlier hands

    # ------------------------------------------------------------------ dealing
    def start(self, deal: dict[str, Any], scores: list[int]) -> None:
        """A new game from ``deal`` (parsed: card ids, with its dealer) and the starting ``scores``."""
        st = self._st
        st[:] = 0
        st[0, K.WINNER] = -1
        st[0, K.SC], st[0, K.SC + 1] = scores
        self._scores = list(scores)
        self._log = []
        self._deal(deal)

    def next_hand(self, deal: dict[str, Any]) -> None:
        """The next hand of the game (after a hand ended and the game goes on), from ``deal``."""
        self._st[0, K.HANDNO] += 1
        self._deal(deal)

    def _deal(self, deal: dict[str, Any]) -> None:
        if self._log:  # the hand that ended: its actions join its deal
            self._log[-1] = (self._log[-1][0], self._actions())
        self._history[0] = 0
        self._result = None
        self._seats_valid = False
        hands = [list(h) for h in deal["hands"]]
        width = max(map(len, hands))  # one more card for a Bid Euchre joker dealer
        cards = np.array([h + [-1] * (width - len(h)) for h in hands], np.int16)
        dealer = self._st[0, K.DEALER] = deal["dealer"]
        upcard = deal.get("upcard")
        self.current_player = K.game_start(self._st, self._s8, self._calls, self._T, cards,
                                           -1 if upcard is None else upcard, self.obs, self.mask, self._raw)
        record = {"dealer": int(dealer), "hands": hands}
        if upcard is not None:
            record["upcard"] = upcard
        self._log.append((record, []))

    # ------------------------------------------------------------------ decisions
    def step(self, action: int) -> int:
        """Carry out ``action`` (an id in the decision's frame whose ``mask`` entry is 1; not checked here).
        Returns the seat to act next, whose ``mask`` / ``obs`` these now are; -1 when the hand ended."""
        self._seats_valid = False
        seat = self.current_player = K.game_step(self._st, self._s8, self._calls, self._T, action, self.obs,
                                                 self.mask, self._raw, self._history)
        return seat

    def to_absolute(self, action: int) -> int:
        """The absolute id of ``action``, an id in the current decision's frame."""
        return int(self._to_abs[self._st[0, K.FRAME], action])

    def encode(self, seat: int) -> np.ndarray:
        """A new array: the observation of any ``seat`` now (as the env shows it)."""
        if not self._seats_valid:  # all four at once: at a hand's end each is read in turn
            K.game_encode_seats(self._st, self._s8, self._calls, self._T, self._seats, self._raw)
            self._seats_valid = True
        return self._seats[seat].copy()

    # ------------------------------------------------------------------ state (what episodes.py reads)
    @property
    def frame(self) -> int:
        """Index (in ``structured.suit_frames``) of the current decision's canonical frame."""
        return int(self._st[0, K.FRAME])

    @property
    def phase(self) -> Phase:
        return Phase(int(self._st[0, K.PH]))

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
        deal = self._log[-1][0]
        return {**deal, "hands": [list(h) for h in deal["hands"]]}

    def next_dealer(self) -> int:
        return left_of(self.dealer)

    # ------------------------------------------------------------------ the reference state
    def replay(self, rng: np.random.Generator) -> GameState:
        """The reference engine's state of this game, replayed from its deals and actions (``rng`` deals on if
        its caller asks it to)."""
        hands = [*self._log[:-1], (self._log[-1][0], self._actions())]
        game = GameState(self.rules, rng, deal=hands[0][0], scores=self._scores)
        for i, (deal, actions) in enumerate(hands):
            if i:
                game.next_hand(deal)
            for a in actions:
                game.apply(a)
        return game

    def _actions(self) -> list[int]:
        return self._history[1:1 + self._history[0]].tolist()
