"""The structured observation: seat-relative, suits relabelled canonically, with derived blocks.

``StructuredObserver(rules)`` has the interface of :class:`~euchre_env.views.observation.Observer`
(``layout``, ``size``, ``low``, ``high``, ``encode(state, seat, out=None)``) and the envs pick one
with their ``observation`` option (``"absolute"``, the default, or ``"structured"``).

Why: the 8 colour-preserving suit relabellings (swap C <-> S, swap D <-> H, swap the colours,
and their compositions) are exact symmetries of Euchre. Writing every suit in a canonical
frame makes the seat's information states that such a relabelling relates encode identically,
so a network does not have to learn each symmetric case separately.

Canonical frame (``Frame``: ``order`` = the absolute suits of slots 0..3, e.g. ``"HDCS"``):

- trump fixed: trump in slot 0, its same-colour suit in slot 1;
- turn-up family before trump: the suit offered in round 1 (the up-card's, or the one the
  dealer named for a turned-up joker) in slot 0, its colour mate in slot 1;
- slots 2 and 3 hold the other colour pair; which of its two suits goes first, and with no
  reference suit at all (Bid Euchre before trump is named, a turned-up joker before the dealer
  names its suit) the whole frame among the 8, is the candidate frame whose encoding is the
  lexicographically largest (compared numerically, first differing entry decides; the blocks
  from ``hand`` on are suit-dependent, so the seat's own cards decide first, then everything
  else the seat knows). Two candidates give the same vector only when the relabelling between
  them is a symmetry of the seat's information state; then the first of them in
  :func:`suit_frames` order is used (``canonical_frames`` lists all of them).

Card ids in the encoding are in the frame: a card of absolute suit ``s`` and rank ``r`` is
``slot(s) * ranks + r``; the joker stays the joker. Action ids map the same way (``name S``,
``name S alone``, ``discard c``, ``play c``, ``give c``; pass, order, bids are unchanged):
``Frame.to_canonical_action`` / ``to_absolute_action`` and ``Frame.canonical_mask`` are the one
home of that arithmetic, for the envs, the trainer and agents alike.

Blocks (``layout`` maps name -> (offset, size)): first every block of the absolute
:class:`~euchre_env.views.observation.Observer` (same names, sizes and meaning, in the canonical frame;
``call2``'s ``name S`` columns follow the frame), then:

- ``current_trick`` (4 x n): the trick in progress, one card block per relative seat;
- ``led_suit`` (4): effective suit led to the trick in progress (canonical slot);
- ``winning`` (4): relative seat taking the trick in progress so far;
- ``partner_winning`` (1): that seat is the partner;
- ``played`` (n): cards played so far this hand (counts with the double deck);
- ``unseen`` (n): copies of each card the seat has not seen leave the game's hidden places:
  every copy, less those in its hand now, those played, its own discard (seen by the dealer
  only), and the up-card unless the dealer took it (face up, turned down or set aside, it is
  out of every hand). Cards the seat knows to be in another hand (the up-card the dealer took,
  a help exchange) still count as unseen: where they are is in ``upcard`` / ``given``;
- ``voids`` (3 x 4): per other relative seat (left, partner, right), the canonical effective
  suits it has shown void in by not following (as ``InfoState.voids``);
- ``trick_number`` (tricks per hand): one-hot of the trick being played (PLAY only);
- ``leads`` (1): the seat is to lead the trick.

``n`` is the deck's number of card ids (24 for knock). For ``knock`` (834 values), as
``name offset+size``: the Observer's blocks ``phase 0+12`` .. ``scores 661+2`` (see
docs/environment.md), then ``current_trick 663+96``, ``led_suit 759+4``, ``winning 763+4``,
``partner_winning 767+1``, ``played 768+24``, ``unseen 792+24``, ``voids 816+12``,
``trick_number 828+5``, ``leads 833+1``. The encoding stays a perfect-recall
information state of the seat (the ``tricks`` block keeps every trick by number), up to the
colour-preserving relabellings.

Compiled twin: ``choose_frame``, ``canonical`` and ``in_frame`` after ``encode`` in
``euchre_env/compiled/c/engine.h`` (the frame and the encoding), over the frames and layouts of
``euchre_env.compiled.tables.kernel_tables``. Proven equal by tests/differential/test_vector_euchre_vs_engine.py and
tests/differential/test_compiled_game_vs_engine.py with ``observation="structured"``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import NamedTuple

import numpy as np

from euchre_env.game.actions import DISCARD, GIVE, NAME, PLAY, ActionTable, action_table
from euchre_env.game.cards import NUM_SUITS, SUITS, same_colour_suit, trick_winner
from euchre_env.game.engine import GameState
from euchre_env.game.errors import IllegalActionError, check_choice
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, relative_seat
from euchre_env.views.blocks import KINDS, VERSIONS, Round, Unit, blocks_of, check_version
from euchre_env.views.infostate import shown_voids
from euchre_env.views.observation import Observer, unit_size
from euchre_env.views.seat_view import SeatView

OBSERVATIONS = tuple(KINDS)


class Frame:
    """One colour-preserving suit relabelling: absolute suit ``order[k]`` sits in canonical slot ``k``.

    The arrays map ids of the rule set's deck and action table: ``card_to_canonical[c]``,
    ``card_to_absolute[c]``, ``action_to_canonical[a]``, ``action_to_absolute[a]``.
    """

    def __init__(self, rules: Rules, order: tuple[int, ...]) -> None:
        self.order = order
        self.slot = tuple(order.index(s) for s in range(NUM_SUITS))  # absolute suit -> slot
        self.suit_order = "".join(SUITS[s] for s in order)
        deck = rules.deck_spec
        r = deck.num_ranks
        self.card_to_canonical = np.array(
            [c if c == deck.joker_id else self.slot[c // r] * r + c % r for c in range(deck.num_ids)], np.int64)
        self.card_to_absolute = np.argsort(self.card_to_canonical)
        table = action_table(rules)
        canon = []
        for a, act in enumerate(table.actions):
            if act.kind == NAME:
                canon.append(a - act.arg + self.slot[act.arg])
            elif act.kind in (DISCARD, PLAY, GIVE):
                canon.append(a - act.arg + int(self.card_to_canonical[act.arg]))
            else:
                canon.append(a)
        self.action_to_canonical = np.array(canon, np.int64)
        self.action_to_absolute = np.argsort(self.action_to_canonical)

    def __repr__(self) -> str:
        return f"Frame({self.suit_order!r})"

    def to_canonical_action(self, action: int) -> int:
        return int(self.action_to_canonical[action])

    def to_absolute_action(self, action: int) -> int:
        return int(self.action_to_absolute[action])

    def canonical_mask(self, mask: np.ndarray) -> np.ndarray:
        """An absolute action mask in this frame (entry ``j`` = the absolute action ``j`` stands for)."""
        return mask[self.action_to_absolute]


@lru_cache(maxsize=64)
def suit_frames(rules: Rules) -> tuple[Frame, ...]:
    """The 8 colour-preserving frames of ``rules`` in a fixed order: by the suit of slot 0 (C, D, H, S),
    then by that of slot 2.

    Slot 0 holds suit ``a``, slot 1 its colour mate, slots 2 and 3 the other colour pair in
    either order. (Slots are not suits: slot 1 is ``a``'s colour mate whatever ``a`` is.)
    """
    frames = []
    for a in range(NUM_SUITS):
        others = [s for s in range(NUM_SUITS) if s not in (a, same_colour_suit(a))]
        for b in others:
            frames.append(Frame(rules, (a, same_colour_suit(a), b, same_colour_suit(b))))
    return tuple(frames)


@lru_cache(maxsize=64)
def colour_relabellings(rules: Rules) -> tuple[Frame, ...]:
    """The 8 colour-preserving relabellings of the absolute suits, the identity first, as frames whose
    ``card_to_canonical`` / ``action_to_canonical`` map a deal's cards and a game's actions (the game's symmetries,
    e.g. for data augmentation and for tests)."""
    perms = [p for p in permutations(range(NUM_SUITS))
             if all(p[same_colour_suit(s)] == same_colour_suit(p[s]) for s in range(NUM_SUITS))]
    return tuple(Frame(rules, tuple(p.index(s) for s in range(NUM_SUITS))) for p in perms)


class FrameLayout(NamedTuple):
    """The structured observation's frames, public: what a second encoder (:mod:`euchre_env.compiled.tables`)
    gathers by. The absolute blocks' layout is the base observer's ``encoding``."""

    sources: np.ndarray  # [8, size]: entry i of the encoding in frame f is entry sources[f, i] of the absolute one
    candidates: tuple[tuple[int, ...], ...]  # [reference suit + 1] -> the frames that compete for the canonical one


class StructuredObserver:
    """Encodes a :class:`GameState` (or a :class:`~euchre_env.views.seat_view.SeatView`) for one seat in its canonical
    suit frame; see the module docstring."""

    def __init__(self, rules: Rules, version: int | None = None) -> None:
        self.rules = rules
        self.version = check_version("structured", version)
        # The absolute blocks, shared, not re-derived: the structured version v holds the absolute blocks of v.
        self.base = make_observer(rules, "absolute", min(self.version, VERSIONS["absolute"]))
        n = rules.deck_spec.num_ids
        self.copies = rules.deck_spec.copies
        declared = blocks_of("structured", rules, self.version)  # the declarations (views/blocks.py)
        extras = declared[len(self.base.units):]
        self.layout: dict[str, tuple[int, int]] = dict(self.base.layout)
        offset = self.base.size
        low, high = [self.base.low], [self.base.high]
        for block in extras:
            size = sum(unit_size(u, n, self.base.columns) for u in block.units(rules))
            self.layout[block.name] = (offset, size)
            low.append(np.full(size, block.low, np.float32))
            high.append(np.full(size, block.high(rules), np.float32))
            offset += size
        self.size = offset
        self.low, self.high = np.concatenate(low), np.concatenate(high)
        self.units: dict[str, list[Unit]] = {**self.base.units, **{b.name: b.units(rules) for b in extras}}
        self.frames = suit_frames(rules)
        # perm[f][i]: the index of the absolute-frame vector that canonical entry i of frame f reads.
        self._perm = np.array([self._sources(f, self.units, n) for f in self.frames], np.int64)
        self._candidates = {-1: tuple(range(len(self.frames)))}
        for s in range(NUM_SUITS):
            self._candidates[s] = tuple(i for i, f in enumerate(self.frames) if f.order[0] == s)
        # reference suit (-1: none) -> the index rows of its candidate frames, gathered in one call per encode
        self._perms = {ref: self._perm[list(cands)] for ref, cands in self._candidates.items()}
        self._off = {name: off for name, (off, _) in self.layout.items()}
        self._rel = tuple(tuple(relative_seat(s, seat) for s in range(NUM_SEATS)) for seat in range(NUM_SEATS))
        self._scratch = np.zeros(self.size, np.float32)

    @property
    def frame_layout(self) -> FrameLayout:
        """The frames as a second encoder reads them (:class:`FrameLayout`)."""
        return FrameLayout(self._perm, tuple(self._candidates[ref] for ref in range(-1, NUM_SUITS)))

    @property
    def sources(self) -> np.ndarray:
        """``[8, size]``: entry ``i`` of the encoding in frame ``f`` is entry ``sources[f, i]`` of the absolute-suit
        vector (for a second encoder, such as :mod:`euchre_env.envs.vector`, that gathers the same way)."""
        return self._perm

    def candidate_frames(self, reference_suit: int) -> tuple[int, ...]:
        """Indices in ``frames`` of the frames that compete for the canonical one when ``reference_suit`` (trump,
        or the suit offered in round 1; -1: none) is fixed."""
        return self._candidates[reference_suit]

    def _sources(self, frame: Frame, units: dict[str, list[Unit]], n: int) -> list[int]:
        src: list[int] = []
        for name, (offset, _) in self.layout.items():
            at = offset
            for u in units[name]:
                if u == "card":
                    src += [at + int(c) for c in frame.card_to_absolute]
                    at += n
                elif u == "suit":
                    src += [at + s for s in frame.order]
                    at += NUM_SUITS
                elif isinstance(u, Round):  # a seat's row of a calling round, a column per action id of the round
                    column = self.base.columns[u.phase]
                    src += [at + column[frame.to_absolute_action(a)] for a in column]
                    at += len(column)
                else:
                    src += range(at, at + u)
                    at += u
        return src

    # ---------------------------------------------------------------- encoding
    def encode(self, state: GameState | SeatView, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The structured observation of ``seat``; written into ``out`` when given."""
        return self.encode_with_frame(state, seat, out)[0]

    def encode_with_frame(self, state: GameState | SeatView, seat: int, out: np.ndarray | None = None
                          ) -> tuple[np.ndarray, Frame]:
        """The observation of ``seat`` and the frame it is in (the frame of that seat's actions)."""
        cands, rows = self._rows(state, seat)
        best = _largest(rows)
        if out is None:
            out = rows[best].copy()
        else:
            out[:] = rows[best]
        return out, self.frames[cands[best]]

    def canonical_frames(self, state: GameState | SeatView, seat: int) -> list[Frame]:
        """Every frame giving the canonical encoding: more than one only at a symmetry of the seat's state."""
        cands, rows = self._rows(state, seat)
        best = rows[_largest(rows)]
        return [self.frames[c] for c, row in zip(cands, rows) if np.array_equal(row, best)]

    def frame(self, state: GameState | SeatView, seat: int) -> Frame:
        """The canonical frame of ``seat`` now."""
        return self.encode_with_frame(state, seat)[1]

    def _rows(self, state: GameState | SeatView, seat: int) -> tuple[tuple[int, ...], np.ndarray]:
        """The candidate frames and the encoding in each (one row per candidate)."""
        raw = self._absolute(state, seat)
        ref = state.trump if state.trump >= 0 else (state.upcard_suit if not self.rules.is_bid else -1)
        cands = self._candidates[ref]
        return cands, raw[self._perms[ref]]

    def _absolute(self, state: GameState | SeatView, seat: int) -> np.ndarray:
        """Every block in absolute suits (the Observer's, then the derived ones)."""
        raw = self._scratch
        base = self.base.size
        self.base.encode(state, seat, raw[:base])
        raw[base:] = 0.0
        o = self._off
        n = self.rules.deck_spec.num_ids
        rel = self._rel[seat]
        ones = []
        if state.trick:
            ones += [o["current_trick"] + rel[s] * n + c for s, c in zip(state.trick_seats, state.trick)]
            ones.append(o["led_suit"] + state.deck.effective_suits(state.trump)[state.trick[0]])
            winner = rel[state.trick_seats[trick_winner(state.trick, state.deck, state.trump)]]
            ones.append(o["winning"] + winner)
            if winner == 2:
                ones.append(o["partner_winning"])
        played = [c for _, _, cards in state.tricks for c in cards] + state.trick
        if self.copies == 1:
            ones += [o["played"] + c for c in played]
        else:
            raw[o["played"]:o["played"] + n] = np.bincount(played, minlength=n)
        gone = played + state.hands[seat]  # the copies the seat knows are out of the hidden places
        if state.discarded is not None and state.sees_discard(seat):
            gone.append(state.discarded)
        if state.upcard is not None and not state.upcard_taken:
            gone.append(state.upcard)
        raw[o["unseen"]:o["unseen"] + n] = self.copies - np.bincount(gone, minlength=n)
        if played and state.trump >= 0:  # no void is shown before a card is played
            voids = shown_voids(state)
            for s in range(NUM_SEATS):
                if s != seat:
                    ones += [o["voids"] + (rel[s] - 1) * NUM_SUITS + suit for suit in voids[s]]
        if state.phase == Phase.PLAY:
            ones.append(o["trick_number"] + len(state.tricks))
            if state.current == seat and not state.trick:
                ones.append(o["leads"])
        raw[ones] = 1.0
        return raw


def _largest(rows: np.ndarray) -> int:
    """Index of the lexicographically largest row (the first of equal ones)."""
    best = 0
    for i in range(1, len(rows)):
        diff = np.flatnonzero(rows[i] != rows[best])
        if diff.size and rows[i, diff[0]] > rows[best, diff[0]]:
            best = i
    return best


def make_observer(rules: Rules, observation: str, version: int | None = None) -> Observer | StructuredObserver:
    """The encoder an env's ``observation`` option names, of ``version`` (None: the latest; views/blocks.py);
    ValueError in one line for anything else.

    Built once per rule set, kind and version, as :func:`suit_frames` and the action table are: an env, its compiled
    tables (:mod:`euchre_env.compiled.tables`), its opponents and a checkpoint's checks all read the same observer.
    An observer never changes after its construction (its bounds are read-only arrays), so sharing it is safe."""
    check_choice("observation", observation, OBSERVATIONS)
    return _observer(rules, observation, check_version(observation, version))  # None and the latest: one entry


@lru_cache(maxsize=64)
def _observer(rules: Rules, observation: str, version: int) -> Observer | StructuredObserver:
    observer = Observer(rules, version) if observation == "absolute" else StructuredObserver(rules, version)
    observer.low.flags.writeable = observer.high.flags.writeable = False
    return observer


class CanonicalActions:
    """The action-frame helpers of an env with an ``observation`` option (mixed into the envs).

    With ``observation="structured"`` the ids an env accepts and its masks are in the canonical
    frame of the seat to act; ``action_to_str`` / ``str_to_action`` stay on the absolute ids of
    the action table. With ``"absolute"`` both helpers return the id unchanged.
    """

    table: ActionTable
    observation: str
    _frame: Frame | None  # the current decision's frame (structured), None when nobody acts

    def _decision_frame(self) -> Frame:
        if self._frame is None:
            raise ValueError("no decision in progress: the action frame is that of the seat to act")
        return self._frame

    def to_absolute_action(self, action: int) -> int:
        """The absolute id (the action table's, as ``action_to_str`` reads it) of an id the env accepts now."""
        a = self.table.check_id(action)
        return self._decision_frame().to_absolute_action(a) if self.observation == "structured" else a

    def to_canonical_action(self, action: int) -> int:
        """The id the env accepts now for an absolute action id (e.g. ``str_to_action("play JH")``)."""
        a = self.table.check_id(action)
        return self._decision_frame().to_canonical_action(a) if self.observation == "structured" else a

    def _accepted(self, legal: list[int]) -> list[int]:
        """``legal`` absolute ids as the ids the env accepts now (canonical when structured), ascending."""
        return sorted(self._frame.to_canonical_action(a) for a in legal) if self._frame is not None else legal

    def _legal_absolute(self, action: int, state: GameState) -> int:
        """The absolute id of the canonical id ``action``; ValueError in canonical ids when it is not legal."""
        frame = self._decision_frame()
        a = frame.to_absolute_action(action)
        if a not in state.legal_actions():
            legal = sorted(frame.to_canonical_action(x) for x in state.legal_actions())
            raise IllegalActionError(f"illegal action {action} in the canonical frame {frame.suit_order} (absolute "
                             f"{self.table.describe(a)}) in phase {state.phase.name}; legal canonical ids: {legal}")
        return a

    @property
    def suit_order(self) -> str:
        """The absolute suits of the canonical slots 0..3 of the current decision (``"CDHS"`` when absolute)."""
        return self._decision_frame().suit_order if self.observation == "structured" else SUITS
