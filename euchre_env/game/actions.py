"""The action table of a rule set: action id <-> meaning <-> text.

One ``Discrete`` space covers every decision of a hand. The table holds only the
actions the rules can produce (no ``order alone`` when nobody may go alone, no
``bid`` actions in the turn-up family), laid out in blocks:

turn-up family: ``pass``, ``order``, ``order alone``, ``name S`` x4, ``name S alone`` x4,
``defend alone``, ``discard <card>`` x cards, ``play <card>`` x cards.

Bid Euchre: ``pass``, ``ace no face``, ``bid 3`` .. ``bid 5`` (``bid 11`` with the double
deck), ``bid help``, ``bid moon``, ``name S`` x4, ``discard <card>`` x cards (joker
dealer), ``give <card>`` x cards, ``play <card>`` x cards.

Blocks that the options rule out are left out, so ids depend on the rules; always
convert through the table (``str_to_action`` / ``action_to_str``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from euchre_env.game.cards import SUITS
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules

PASS = "pass"
ORDER = "order"
NAME = "name"
DEFEND = "defend"
DISCARD = "discard"
PLAY = "play"
BID = "bid"
GIVE = "give"
ACE_NO_FACE = "ace_no_face"

HELP = "help"
MOON = "moon"


@dataclass(frozen=True)
class Action:
    kind: str
    arg: int | str | None = None  # card id, suit index, or bid level
    alone: bool = False


class ActionTable:
    """Every action of one rule set, with the first id of each block for fast lookup."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deck = rules.deck_spec
        n = self.deck.num_ids
        acts: list[Action] = []

        def block(items: list[Action]) -> int:
            start = len(acts)
            acts.extend(items)
            return start

        self.pass_id = block([Action(PASS)])
        self.order_id = self.order_alone_id = self.name_alone_base = -1
        self.defend_id = self.ace_no_face_id = self.bid_base = self.give_base = -1
        self.bid_levels: list[int | str] = []
        if rules.is_bid:
            if rules.ace_no_face:
                self.ace_no_face_id = block([Action(ACE_NO_FACE)])
            self.bid_levels = [*range(3, rules.max_plain_bid + 1), HELP, MOON]
            self.bid_base = block([Action(BID, level) for level in self.bid_levels])
            self.name_base = block([Action(NAME, s) for s in range(4)])
            self.discard_base = block([Action(DISCARD, c) for c in range(n)]) if rules.joker else -1
            self.give_base = block([Action(GIVE, c) for c in range(n)])
        else:
            self.order_id = block([Action(ORDER)])
            if rules.lone_maker:
                self.order_alone_id = block([Action(ORDER, alone=True)])
            self.name_base = block([Action(NAME, s) for s in range(4)])
            if rules.lone_maker:
                self.name_alone_base = block([Action(NAME, s, alone=True) for s in range(4)])
            if rules.defend_alone:
                self.defend_id = block([Action(DEFEND, alone=True)])
            self.discard_base = block([Action(DISCARD, c) for c in range(n)])
        self.play_base = block([Action(PLAY, c) for c in range(n)])
        self.actions: tuple[Action, ...] = tuple(acts)
        self.strings: tuple[str, ...] = tuple(self._text(a) for a in acts)
        self._ids = {s.lower(): i for i, s in enumerate(self.strings)}

    def __len__(self) -> int:
        return len(self.actions)

    def round_actions(self, phase: Phase) -> tuple[int, ...]:
        """Every action id a calling round can offer under these rules, in table order.

        Which of them a given seat may take at a given moment (stick the dealer, the
        turned-down suit, ace no face) is the engine's rule; this is the round's menu.
        """
        if phase == Phase.CALL1:
            ids = [self.pass_id, self.order_id, self.order_alone_id]
        elif phase == Phase.CALL2:
            ids = [self.pass_id, *self.suit_ids(self.name_base), *self.suit_ids(self.name_alone_base)]
        elif phase == Phase.DEFEND:
            ids = [self.pass_id, self.defend_id] if self.defend_id >= 0 else []
        elif phase == Phase.AUCTION:
            ids = [self.pass_id, self.ace_no_face_id, *range(self.bid_base, self.bid_base + len(self.bid_levels))]
        else:
            raise ValueError(f"{phase!r} is not a calling round")
        return tuple(a for a in ids if a >= 0)

    @staticmethod
    def suit_ids(base: int) -> range:
        """The four ids of a per-suit block (``name S``, ``name S alone``) starting at ``base``; empty if absent."""
        return range(base, base + 4) if base >= 0 else range(0)

    def bid_rank(self, level: int | str) -> int:
        """Order of bids: plain bids by number, then help, then moon (which outranks help)."""
        if level == HELP:
            return self.rules.tricks_per_hand
        if level == MOON:
            return self.rules.tricks_per_hand + 1
        return int(level)

    def _text(self, a: Action) -> str:
        if a.kind == PASS:
            return "pass"
        if a.kind == ACE_NO_FACE:
            return "ace no face"
        if a.kind == ORDER:
            return "order alone" if a.alone else "order"
        if a.kind == NAME:
            return f"name {SUITS[a.arg]}" + (" alone" if a.alone else "")
        if a.kind == DEFEND:
            return "defend alone"
        if a.kind == BID:
            return f"bid {a.arg}"
        return f"{a.kind} {self.deck.name(a.arg)}"

    def to_str(self, action: int) -> str:
        return self.strings[self.check_id(action)]

    def check_id(self, action: Any, convert: str = "env.unwrapped.str_to_action") -> int:
        """``action`` as an id of this table; otherwise ValueError, one line saying what is wrong.

        An id is an int, a NumPy integer or a one-element integer array, in ``0..len - 1``. A
        string is refused with the call that converts it (``convert``) and the id it stands for.
        """
        n = len(self.actions)
        if type(action) is int and 0 <= action < n:  # the common case first: this runs at every step
            return action
        if isinstance(action, str):
            try:
                hint = f"use {convert}({action!r}) (= {self.from_str(action)})"
            except ValueError:
                hint = f"and {action!r} is no action of these rules either; forms: {', '.join(self._forms())}"
            raise ValueError(f"actions are integer ids, got {action!r}; {hint}")
        if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
            action = action.item()  # a batch of one, as vectorised RL loops hand out
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            done = " (None is only for an agent that is done)" if action is None else ""
            raise ValueError(f"actions are integer ids 0..{n - 1}, got {action!r}{done}")
        if not 0 <= action < n:
            raise ValueError(f"action {action} is out of range 0..{n - 1}")
        return int(action)

    def describe(self, action: Any) -> str:
        """``'play 9C' (id 40)`` for an id of this table, the plain value for anything else (in messages)."""
        try:
            return f"{self.to_str(action)!r} (id {int(action)})"
        except (ValueError, TypeError):
            return repr(action)

    def names(self, ids: list[int] | tuple[int, ...]) -> str:
        """The actions ``ids`` as text, comma-separated (the legal actions of an error message)."""
        return ", ".join(self.strings[a] for a in ids)

    def from_str(self, text: str) -> int:
        """Action id of a string such as ``order alone``, ``name H``, ``play JH`` (any case)."""
        words = str(text).strip().split()
        if len(words) == 2 and words[0].lower() in (DISCARD, PLAY, GIVE):
            words[1] = self.deck.name(self.deck.parse(words[1]))  # accepts "10h" for "TH"
        key = " ".join(words).lower()
        try:
            return self._ids[key]
        except KeyError:
            raise ValueError(
                f"unknown action {text!r} for these rules; forms: {', '.join(self._forms())}"
            ) from None

    def _forms(self) -> list[str]:
        """One example string per block, for error messages."""
        seen: dict[str, str] = {}
        for a, s in zip(self.actions, self.strings):
            seen.setdefault(f"{a.kind}{a.alone}", s)
        return list(seen.values())


@lru_cache(maxsize=64)
def action_table(rules: Rules) -> ActionTable:
    """The shared action table of ``rules`` (read-only; built once per rule set)."""
    return ActionTable(rules)
