"""The views of ``euchre_env.openspiel``'s games: the information-state and observation strings, and the
observer OpenSpiel fills tensors from (our encoders, ``absolute`` or ``structured``)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from euchre_env.game.actions import DISCARD, GIVE, action_table
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS
from euchre_env.views.structured import OBSERVATIONS

if TYPE_CHECKING:  # game.py builds on this module: a runtime import would be circular
    from euchre_env.openspiel.game import EuchreState, Spec


@lru_cache(maxsize=64)
def _move_texts(rules: Rules) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...]]:
    """``"seat:action"`` for every seat and action id, and the hidden discard and give of each seat: the
    pieces of :func:`information_string`, built once per rule set (it runs at every decision of MCCFR)."""
    strings = action_table(rules).strings
    moves = tuple(tuple(f"{seat}:{text}" for text in strings) for seat in range(NUM_SEATS))
    return (moves, tuple(f"{seat}:{DISCARD} ??" for seat in range(NUM_SEATS)),
            tuple(f"{seat}:{GIVE} ??" for seat in range(NUM_SEATS)))


_HIDDEN_UNLESS_SEEN = (Phase.DISCARD, Phase.GIVE, Phase.GIVE_BACK)


def information_string(engine: GameState | None, seat: int) -> str:
    """``seat``'s information state as text: the dealt hand, the up-card and every move it saw, in order.

    Equal for two states exactly when the seat cannot tell them apart within the hand (perfect recall of the
    hand; earlier hands are summarised by the score, as in the tensors). Hidden moves (another seat's
    discard, a help exchange between others) appear as ``discard ??`` / ``give ??``.
    """
    if engine is None:
        return f"seat {seat} dealing"
    names = engine.deck.names
    moves_of, hidden_discard, hidden_give = _move_texts(engine.rules)
    text = f"seat {seat} dealer {engine.dealer} scores {engine.scores[0]}-{engine.scores[1]}"
    if engine.rules.rubber:
        text += (f" games {engine.games_won[0]}-{engine.games_won[1]} "
                 f"rubber {engine.rubber_points[0]}-{engine.rubber_points[1]}")
    text += " hand " + " ".join([names[c] for c in sorted(engine.initial_hands[seat])])
    if engine.upcard is not None:
        text += " up " + names[engine.upcard]
    sees_exchange = engine.sees_exchange(seat)
    moves = []
    for phase, who, action in engine.history:
        if phase in _HIDDEN_UNLESS_SEEN:
            if phase == Phase.DISCARD:
                if who != seat:
                    moves.append(hidden_discard[who])
                    continue
            elif not sees_exchange:
                moves.append(hidden_give[who])
                continue
        moves.append(moves_of[who][action])
    return text + " | " + " ".join(moves)


def observation_string(engine: GameState | None, seat: int) -> str:
    """What ``seat`` sees now (not the history): its cards, the up-card, trump and maker, the trick in
    progress, tricks won and the score."""
    if engine is None:
        return f"seat {seat} dealing"
    d = engine.deck
    e = engine
    text = (f"seat {seat} {e.phase.name} dealer {e.dealer} hand {' '.join(d.name(c) for c in e.hands[seat])}"
            f" scores {e.scores[0]}-{e.scores[1]}")
    if e.upcard is not None:
        text += f" up {d.name(e.upcard)}{' down' if e.turned_down else ''}"
    if e.trump >= 0:
        text += f" trump {'CDHS'[e.trump]} maker {e.maker}{' alone' if e.maker_alone else ''}"
    if e.phase == Phase.PLAY and e.trick:
        text += " trick " + " ".join(f"{s}:{d.name(c)}" for s, c in zip(e.trick_seats, e.trick))
    return text + f" tricks {e.tricks_won[0]}-{e.tricks_won[1]}"


class EuchreObserver:
    """OpenSpiel's observer for our game: the tensor is our encoder's (``absolute`` or ``structured``), the
    string :func:`information_string` (perfect recall) or :func:`observation_string`."""

    def __init__(self, spec: Spec, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - {"observation"})
        if unknown:
            raise ValueError(f"unknown observer parameter(s) {unknown}; allowed: 'observation'")
        kind = params.get("observation", spec.observation)
        if kind not in OBSERVATIONS:
            raise ValueError(f"unknown observation {kind!r}; allowed: {', '.join(OBSERVATIONS)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError("euchre_env's observers are one seat's view (public and its own private information); "
                             "other observation types are not provided")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.encoder = spec.encoders[kind]
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {name: self.tensor[off:off + size] for name, (off, size) in self.encoder.layout.items()}

    def set_from(self, state: EuchreState, player: int) -> None:
        engine = state.engine
        if engine is None:
            self.tensor.fill(0.0)
            return
        self.encoder.encode(engine, player, out=self.tensor)

    def string_from(self, state: EuchreState, player: int) -> str:
        if self.perfect_recall:
            return information_string(state.engine, player)
        return observation_string(state.engine, player)
