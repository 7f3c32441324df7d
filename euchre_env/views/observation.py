"""One seat's view of the game as a flat float32 vector with named blocks.

The vector is a perfect-recall information state for the current hand: everything
the seat has seen since the deal (its cards, every call, its own discard, every card
of every trick and who led it) plus the game score. Seats are relative to the
observer: index 0 is the observer, 1 the left-hand opponent, 2 the partner, 3 the
right-hand opponent. Earlier hands are summarised by the score only: they have no
bearing on the current one.

``Observer(rules).layout`` maps each block name to ``(offset, size)``; which blocks
exist depends on the rules (no ``upcard`` in Bid Euchre, no ``defend`` without
defend-alone, ...): they are declared once, with their units, bounds and version, in
:mod:`euchre_env.views.blocks`. docs/environment.md lists them for each preset.

Compiled twin: ``encode`` of ``euchre_env/compiled/c/engine.h`` (many games: ``compiled._core.Batch.observe_games``;
the AEC env's game: ``compiled._core.Game.encode_seats``; the non-zero entries alone:
``Batch.observe_games_sparse``). Proven equal by tests/differential/test_vector_euchre_vs_engine.py and
tests/differential/test_compiled_game_vs_engine.py (every decision's observation and mask), the entries by
tests/differential/test_observe_sparse_vs_observe_dense.py.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from euchre_env.game.actions import action_table
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, other_team, relative_seat, team_of
from euchre_env.views.blocks import SCORE_BOUND, Round, Unit, blocks_of, check_version
from euchre_env.views.seat_view import SeatView


def unit_size(unit: Unit, cards: int, columns: dict[Phase, dict[int, int]]) -> int:
    """The entries of one unit of a block (views/blocks.py): a card block's ``cards``, a suit block's 4, a calling
    round's columns, or the int itself."""
    if unit == "card":
        return cards
    if unit == "suit":
        return 4
    return len(columns[unit.phase]) if isinstance(unit, Round) else unit


class CallRound(NamedTuple):
    """One calling round's block: a row per relative seat, a column per action of the round."""

    phase: Phase
    offset: int  # the block's offset
    width: int  # columns per seat
    columns: dict[int, int]  # action id -> its column


class EncodingLayout(NamedTuple):
    """Where :meth:`Observer.encode` writes each thing: the public layout a second encoder (the compiled one,
    :mod:`euchre_env.compiled.tables`) reads, so that it re-derives nothing."""

    blocks: dict[str, tuple[int, int]]  # block name -> (offset, size), as Observer.layout
    size: int
    rounds: tuple[CallRound, ...]  # the calling rounds the observation records, in layout order
    leader_at: tuple[int, ...]  # [trick] -> offset of its leader's one-hot (relative seats)
    card_at: tuple[tuple[int, ...], ...]  # [trick][relative seat] -> offset of that seat's card one-hot


class Observer:
    """Encodes a :class:`GameState` (or a :class:`~euchre_env.views.seat_view.SeatView`) for one seat under fixed
    rules."""

    def __init__(self, rules: Rules, version: int | None = None) -> None:
        self.rules = rules
        self.version = check_version("absolute", version)
        table = action_table(rules)
        n = rules.deck_spec.num_ids
        declared = blocks_of("absolute", rules, self.version)  # the declarations (views/blocks.py)
        # Their units, by block name (the declarations themselves are not kept: an observer pickles with its env).
        self.units: dict[str, list[Unit]] = {block.name: block.units(rules) for block in declared}
        # Calling rounds (the blocks made of Round units): one row per relative seat, one column per action.
        round_block = {u.phase: name for name, units in self.units.items() for u in units if isinstance(u, Round)}
        self.columns: dict[Phase, dict[int, int]] = {
            phase: {a: i for i, a in enumerate(table.round_actions(phase))} for phase in round_block}
        self.layout: dict[str, tuple[int, int]] = {}
        self.low = np.zeros(0, np.float32)
        self.high = np.zeros(0, np.float32)
        offset = 0
        for block in declared:
            size = sum(unit_size(u, n, self.columns) for u in self.units[block.name])
            self.layout[block.name] = (offset, size)
            self.low = np.append(self.low, np.full(size, block.low, np.float32))
            self.high = np.append(self.high, np.full(size, block.high(rules), np.float32))
            offset += size
        self.size = offset
        self.trick_size = NUM_SEATS + NUM_SEATS * n  # leader one-hot, then each seat's card
        # Everything encode() needs, precomputed: it runs at every decision of every RL loop.
        self._off = {name: off for name, (off, _) in self.layout.items()}
        # calling phase -> (block offset, row width per seat, action id -> column)
        self._calls = {p: (self._off[round_block[p]], len(cols), cols) for p, cols in self.columns.items()}
        self._rel = tuple(tuple(relative_seat(s, seat) for s in range(NUM_SEATS)) for seat in range(NUM_SEATS))
        first = self._off["tricks"]
        self._leader_at = tuple(first + k * self.trick_size for k in range(rules.tricks_per_hand))
        # [trick][relative seat] -> offset of that seat's card one-hot
        self._card_at = tuple(tuple(at + NUM_SEATS + q * n for q in range(NUM_SEATS)) for at in self._leader_at)
        self.encoding = EncodingLayout(
            dict(self.layout), self.size,
            tuple(CallRound(p, at, width, dict(cols)) for p, (at, width, cols) in self._calls.items()),
            self._leader_at, self._card_at)

    def encode(self, state: GameState | SeatView, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat``; written into ``out`` when given."""
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0.0)
        o = self._off
        rules = self.rules
        rel = self._rel[seat]
        # Indices of the 1.0 entries, written in one numpy call (item-by-item writes cost more).
        ones = [o["phase"] + state.phase, o["dealer"] + rel[state.dealer]]
        add = ones.append
        if state.current_player >= 0:
            add(o["to_act"] + rel[state.current])
        hand = o["hand"]
        if rules.double_deck:
            np.add.at(out, [hand + c for c in state.hands[seat]], 1.0)  # a hand may hold two copies
        else:
            ones += [hand + c for c in state.hands[seat]]
        # Calls, in the order they were made: each seat speaks at most once per round.
        calls = self._calls
        for phase, who, action in state.history:
            call = calls.get(phase)
            if call is not None:
                at, width, cols = call
                add(at + rel[who] * width + cols[action])
        if state.upcard is not None:
            add(o["upcard"] + state.upcard)
            if state.upcard_suit >= 0:
                add(o["upcard_suit"] + state.upcard_suit)
            if state.upcard_taken:
                add(o["upcard_fate"])
            elif state.turned_down:
                add(o["upcard_fate"] + 1)
            elif state.trump >= 0:  # ordered, but the dealer sits out and never takes it
                add(o["upcard_fate"] + 2)
        # The None tests first: the visibility rules are the engine's, but most decisions have no discard yet.
        if state.discarded is not None and state.sees_discard(seat):
            add(o["discard"] + state.discarded)
        if state.given is not None and state.sees_exchange(seat):
            add(o["given"] + state.given)
            if state.given_back is not None:
                add(o["given_back"] + state.given_back)
        if state.trump >= 0:
            add(o["trump"] + state.trump)
        if state.maker >= 0:
            add(o["maker"] + rel[state.maker])
        ones += [o["sitting_out"] + rel[s] for s in range(NUM_SEATS) if state.out[s]]
        for k, (_, seats, cards) in enumerate(state.tricks):
            add(self._leader_at[k] + rel[seats[0]])
            row = self._card_at[k]
            ones += [row[rel[s]] + c for s, c in zip(seats, cards)]
        if state.trick:
            k = len(state.tricks)
            add(self._leader_at[k] + rel[state.trick_seats[0]])
            row = self._card_at[k]
            ones += [row[rel[s]] + c for s, c in zip(state.trick_seats, state.trick)]
        out[ones] = 1.0
        mine = team_of(seat)
        theirs = other_team(mine)
        t = rules.tricks_per_hand
        out[o["tricks_won"]] = state.tricks_won[mine] / t
        out[o["tricks_won"] + 1] = state.tricks_won[theirs] / t
        target = rules.game_target
        out[o["scores"]] = min(max(state.scores[mine] / target, -SCORE_BOUND), SCORE_BOUND)
        out[o["scores"] + 1] = min(max(state.scores[theirs] / target, -SCORE_BOUND), SCORE_BOUND)
        if rules.rubber:
            r = o["rubber"]
            out[r] = state.games_won[mine] / 2
            out[r + 1] = state.games_won[theirs] / 2
            out[r + 2] = state.rubber_points[mine] / 6
            out[r + 3] = state.rubber_points[theirs] / 6
        return out
