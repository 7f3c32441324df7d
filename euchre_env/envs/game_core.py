"""The one game an AEC env steps: the compiled game, or its reference twin where the compiled core is not built.

:class:`~euchre_env.compiled.game.CompiledGame` makes a decision in one call of the C core, built when the package
is installed. :class:`ReferenceGame` is its reference twin: the same interface over the reference engine
(:class:`~euchre_env.game.engine.GameState` and the observers). :func:`game_core` picks the compiled game unless
the core was not built (no C compiler at install: said once on stderr) or the user chose the reference engine
(``EUCHRE_ENV_ENGINE=reference``; :func:`euchre_env.compiled.native.use_compiled`). Both give the same
observations, masks, rewards and deals for the same seeds: tests/differential/test_reference_game_vs_compiled_game.py
plays them side by side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.compiled.game import ILLEGAL, CompiledGame, as_scripted
from euchre_env.compiled.native import CORE, use_compiled
from euchre_env.game.actions import action_table
from euchre_env.game.deals import deal_from_order
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import left_of
from euchre_env.views.decision import legal_mask
from euchre_env.views.structured import make_observer, suit_frames


class ReferenceGame:
    """:class:`~euchre_env.compiled.game.CompiledGame`'s interface on the reference engine (see that class): the
    same buffers (``mask``, ``obs``, in the decision's frame), the same ``step`` results, the same deal log."""

    @staticmethod
    def reseed(generator: np.random.Generator | None, seed: Any) -> np.random.Generator:
        """``np.random.default_rng(seed)``: the compiled game's :func:`~euchre_env.compiled.seeding.reseed` gives
        the same state, but is itself part of the compiled core."""
        return np.random.default_rng(seed)

    def __init__(self, rules: Rules, observation: str) -> None:
        self.rules = rules
        self.observation = observation
        self._observer = make_observer(rules, observation)
        self._structured = observation == "structured"
        self._frames = suit_frames(rules)
        self._frame_index = {id(f): i for i, f in enumerate(self._frames)}
        self._rng = np.random.default_rng(0)  # GameState's own generator: never drawn, every deal is given
        self._state: GameState | None = None
        self._frame = 0
        self.mask = np.zeros(len(action_table(rules)), np.int8)
        self.obs = np.zeros(self._observer.size, np.float32)
        self._scores = [0, 0]
        self._log: list[dict[str, Any]] = []  # each hand's deal (the env's options["deal"] format)
        self._actions: list[list[int]] = []  # each finished hand's absolute actions

    # ------------------------------------------------------------------ dealing
    def start(self, deal: dict[str, Any], scores: list[int]) -> int:
        """A new game from a parsed deal (card ids, its dealer, its kitty) and the starting ``scores``."""
        self._scores, self._log, self._actions = list(scores), [], []
        return self._begin(as_scripted(deal), None)

    def start_shuffled(self, pack: np.ndarray, dealer: int, scores: list[int]) -> int:
        """A new game dealt by ``dealer`` from ``pack`` (``deals.shuffled_pack``)."""
        return self.start(deal_from_order(self.rules, pack.tolist(), dealer), scores)

    def next_hand(self, deal: dict[str, Any]) -> None:
        self._begin(as_scripted(deal), self._state)

    def next_hand_shuffled(self, pack: np.ndarray) -> None:
        self.next_hand(deal_from_order(self.rules, pack.tolist(), self.next_dealer()))

    def _begin(self, deal: dict[str, Any], state: GameState | None) -> int:
        if state is None:
            self._state = GameState(self.rules, self._rng, deal=deal, scores=self._scores)
        else:
            self._actions.append(self._hand_actions())
            state.next_hand(deal)
        self._log.append(deal)
        return self._decision()

    # ------------------------------------------------------------------ decisions
    def step(self, action: int) -> int:
        """Carry out ``action`` (an id in the decision's frame); the seat to act next, -1 at the hand's end,
        ``ILLEGAL`` (nothing changed) when the mask does not allow it."""
        if not (0 <= action < len(self.mask)) or not self.mask[action]:
            return ILLEGAL
        if self._structured:
            action = self._frames[self._frame].to_absolute_action(action)
        self._state.apply(action)
        return self._decision()

    def _decision(self) -> int:
        """The mask and observation of the seat to act now, in its frame; that seat, or -1 at the hand's end."""
        state = self._state
        if state.hand_over:
            self.mask[:] = 0
            return -1
        seat = state.current_player
        absolute = legal_mask(state)
        if self._structured:
            _, frame = self._observer.encode_with_frame(state, seat, self.obs)
            self._frame = self._frame_index[id(frame)]
            self.mask[:] = frame.canonical_mask(absolute)
        else:
            self._observer.encode(state, seat, self.obs)
            self.mask[:] = absolute
        return seat

    @property
    def current_player(self) -> int:
        return -1 if self._state.hand_over else self._state.current_player

    def last_action(self) -> int:
        return self._state.history[-1][2]

    def encode(self, seat: int) -> np.ndarray:
        """A new array: the observation of any ``seat`` now."""
        return self._observer.encode(self._state, seat)

    # ------------------------------------------------------------------ state (what episodes.py reads)
    @property
    def frame(self) -> int:
        return self._frame

    @property
    def phase(self) -> Phase:
        return self._state.phase

    @property
    def hand_over(self) -> bool:
        return self._state.hand_over

    @property
    def hand_number(self) -> int:
        return self._state.hand_number

    @property
    def dealer(self) -> int:
        return self._state.dealer

    @property
    def winner(self) -> int | None:
        return self._state.winner

    @property
    def hand_result(self) -> dict[str, Any] | None:
        return self._state.hand_result if self._state.hand_over else None

    def current_deal(self) -> dict[str, Any]:
        return as_scripted(self._log[-1])

    def next_dealer(self) -> int:
        return left_of(self._state.dealer)

    def replay(self, rng: np.random.Generator) -> GameState:
        """A new reference state of this game, replayed from its deals and actions (as the compiled game's)."""
        actions = [*self._actions, self._hand_actions()]
        game = GameState(self.rules, rng, deal=self._log[0], scores=self._scores)
        for i, (deal, hand) in enumerate(zip(self._log, actions)):
            if i:
                game.next_hand(deal)
            for a in hand:
                game.apply(a)
        return game

    def _hand_actions(self) -> list[int]:
        return [a for _, _, a in self._state.history]


def game_core(rules: Rules, observation: str) -> CompiledGame | ReferenceGame:
    """The game an env steps: compiled, or the reference twin where the core is not built or not chosen."""
    return CompiledGame(rules, observation) if use_compiled(CORE) else ReferenceGame(rules, observation)
