"""The compiled core's view of the rules: every table the kernels read (:class:`~euchre_env.compiled.layout.Tables`),
built from the reference modules (the action table, the deck's effective suits and trick powers, the observers'
layouts, the canonical frames), and the way back: a finished hand's scalar fields as the env's ``hand_result``.

Used by :mod:`euchre_env.envs.vector` (many games) and :mod:`euchre_env.compiled.game` (the AEC env's one game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.compiled import layout as K
from euchre_env.compiled.layout import Tables
from euchre_env.game.actions import (
    ACE_NO_FACE,
    BID,
    DEFEND,
    DISCARD,
    GIVE,
    HELP,
    MOON,
    NAME,
    ORDER,
    PASS,
    PLAY,
    action_table,
)
from euchre_env.game.cards import SUITS
from euchre_env.game.rules import Rules, packed_value
from euchre_env.views.blocks import BLOCK_NAMES
from euchre_env.views.structured import make_observer

_KINDS = {PASS: K.K_PASS, ORDER: K.K_ORDER, NAME: K.K_NAME, DEFEND: K.K_DEFEND, DISCARD: K.K_DISCARD,
          PLAY: K.K_PLAY, BID: K.K_BID, GIVE: K.K_GIVE, ACE_NO_FACE: K.K_ANF}
_THROWN = {1: "all passed", 2: "ace no face"}


def hand_result(rules: Rules, row: np.ndarray) -> dict[str, Any]:
    """``GameState.hand_result`` from a game's scalar fields just after its hand ended."""
    row = row.tolist()  # Python ints: read a field at a time, faster than NumPy scalars
    thrown = row[K.THROWN]
    maker = row[K.MAKER]
    result: dict[str, Any] = {
        "maker_team": None if thrown else maker % 2,
        "trump": None if thrown else SUITS[row[K.TRUMP]],
        "maker_alone": False if thrown else bool(row[K.MALONE]),
        "defender_alone": bool(row[K.DEFALONE] >= 0),
        "tricks": [row[K.TW], row[K.TW + 1]],
        "points": [row[K.RES_PTS], row[K.RES_PTS + 1]],
        "dealer": row[K.DEALER],
        "scores": [row[K.RES_SC], row[K.RES_SC + 1]],
    }
    if thrown:
        result["thrown_in"] = _THROWN[thrown]
    reneged = row[K.REN:K.REN + row[K.NREN]]
    if rules.is_bid:
        result["bidder"] = None if thrown else row[K.BIDDER]
        result["contract"] = None if thrown else _contract(rules, row[K.CONTRACT])
        result["reneged"] = reneged
        if row[K.CLAIMANT] >= 0:
            result["claimant"] = row[K.CLAIMANT]
    elif rules.renege == "penalize":
        result["reneged"] = reneged
    if row[K.GWIN] >= 0:
        result["game_winner"] = row[K.GWIN]
        if rules.rubber:
            result["games_won"] = [row[K.GW], row[K.GW + 1]]
            if row[K.PH] == K.GAME_OVER:
                result["rubber_margin"] = row[K.RMARGIN]
    return result


def _contract(rules: Rules, rank: int) -> int | str:
    if rank == rules.tricks_per_hand:
        return HELP
    if rank == rules.tricks_per_hand + 1:
        return MOON
    return rank


class KernelTables:
    """Every table the kernels read, built once per rule set from the reference modules."""

    def __init__(self, rules: Rules) -> None:
        deck = rules.deck_spec
        table = action_table(rules)
        n = deck.num_ids
        tricks = rules.tricks_per_hand
        opt = np.zeros(K.NOPT, np.int64)
        for index, name in enumerate(K.PACKED_OPTIONS):  # O_<NAME> is its place (layout.py)
            opt[index] = packed_value(rules, name)
        opt[K.O_BID] = rules.is_bid
        opt[K.O_TRICKS] = tricks
        opt[K.O_NIDS] = n
        opt[K.O_JOKER] = -1 if deck.joker_id is None else deck.joker_id
        opt[K.O_COPIES] = deck.copies
        opt[K.O_NRANKS] = deck.num_ranks
        for key, char in ((K.O_JACK, "J"), (K.O_QUEEN, "Q"), (K.O_KING, "K"), (K.O_ACE, "A")):
            opt[key] = deck.ranks.index(char)
        self.opt = opt
        tab = np.full(K.NTAB, -1, np.int64)
        tab[K.T_PASS], tab[K.T_ORDER], tab[K.T_ORDER_ALONE] = table.pass_id, table.order_id, table.order_alone_id
        tab[K.T_NAME], tab[K.T_NAME_ALONE], tab[K.T_DEFEND] = table.name_base, table.name_alone_base, table.defend_id
        tab[K.T_DISCARD], tab[K.T_PLAY], tab[K.T_BID] = table.discard_base, table.play_base, table.bid_base
        tab[K.T_GIVE], tab[K.T_ANF] = table.give_base, table.ace_no_face_id
        tab[K.T_NBIDS], tab[K.T_SIZE] = len(table.bid_levels), len(table)
        self.tab = tab
        self.akind = np.array([_KINDS[a.kind] for a in table.actions], np.int64)
        self.aarg = np.array([table.bid_rank(a.arg) if a.kind == BID else (-1 if a.arg is None else a.arg)
                              for a in table.actions], np.int64)
        self.aalone = np.array([int(a.alone) for a in table.actions], np.int64)
        self.eff = np.array([deck.effective_suits(t) for t in range(-1, 4)], np.int64)
        self.power = np.array([deck.powers(t) for t in range(4)], np.int64)
        self.rank = np.array([-1 if c == deck.joker_id else c % deck.num_ranks for c in range(n)], np.int64)
        self.printed = np.array([deck.printed_suit(c) for c in range(n)], np.int64)
        # The observation, from the observers' public layouts (views.observation.EncodingLayout,
        # views.structured.FrameLayout): the structured layout holds the absolute one as its first blocks.
        structured = make_observer(rules, "structured")  # the env's own where it encodes structured
        base = structured.base.encoding
        frame_layout = structured.frame_layout
        layout = structured.layout
        off = np.full(K.NOFF, -1, np.int64)
        for key, name in enumerate(BLOCK_NAMES):  # B_<NAME> is its place (layout.py)
            if name in layout:
                off[key] = layout[name][0]
        off[K.B_BASE_SIZE] = base.size
        off[K.B_SIZE] = structured.size
        self.off = off
        self.raw_size = structured.size
        self.leader_at = np.array(base.leader_at, np.int64)
        self.card_at = np.array(base.card_at, np.int64)
        self.rounds = max(len(base.rounds), 1)
        self.rnd = np.full(K.NUM_PHASES, -1, np.int64)
        self.rnd_off = np.zeros(self.rounds, np.int64)
        self.rnd_width = np.zeros(self.rounds, np.int64)
        self.col = np.full((self.rounds, len(table)), -1, np.int64)
        for r, call_round in enumerate(base.rounds):
            self.rnd[call_round.phase] = r
            self.rnd_off[r], self.rnd_width[r] = call_round.offset, call_round.width
            for a, c in call_round.columns.items():
                self.col[r, a] = c
        self.structured = False
        self.perms = frame_layout.sources
        self.cands = np.zeros((5, 8), np.int64)
        self.ncands = np.zeros(5, np.int64)
        for row, frames in enumerate(frame_layout.candidates):
            self.cands[row, :len(frames)] = frames
            self.ncands[row] = len(frames)
        self.frames = structured.frames
        self.to_abs = np.arange(len(table), dtype=np.int64)[None, :]
        self.identity_frame = 0  # the frame whose ids are the absolute ones (see kernel_tables)

    def bundle(self) -> Tables:
        """The tables as the kernels take them: one :class:`~euchre_env.compiled.layout.Tables`."""
        return Tables(**{name: getattr(self, name) for name in Tables._fields if name != "identity"},
                      identity=self.identity_frame)


def kernel_tables(rules: Rules, observation: str) -> KernelTables:
    """The tables of ``rules``, with the action and card maps of ``observation``'s frames."""
    t = KernelTables(rules)
    n = rules.deck_spec.num_ids
    t.to_canonical = t.to_abs
    t.card_to_canonical = np.arange(n, dtype=np.int64)[None, :]
    if observation == "structured":
        frames = t.frames
        t.structured = True
        # The 8 frames, then the identity: the "frame" of a decision taken in absolute ids (an opponent of
        # SingleSeatVectorEnv, whose decisions nobody encodes), so that every id maps through one table.
        t.identity_frame = len(frames)
        identity = np.arange(len(t.akind), dtype=np.int64)
        t.to_abs = np.stack([*(f.action_to_absolute for f in frames), identity]).astype(np.int64)
        t.to_canonical = np.stack([*(f.action_to_canonical for f in frames), identity]).astype(np.int64)
        t.card_to_canonical = np.stack([*(f.card_to_canonical for f in frames), np.arange(n)]).astype(np.int64)
    t.kernel = t.bundle()
    return t
