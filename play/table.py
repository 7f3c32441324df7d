"""A person's game against three agents: the state both ways of playing hold (``euchre play``, ``euchre serve``).

A :class:`Table` keeps one :class:`~euchre_env.game.engine.GameState` (the engine checks every move), the agents
of the three other seats, and the person's seat. In the terminal the person's seat has an agent too (a
:class:`~euchre_env.play.terminal.HumanAgent` reading a stream), so :meth:`Table.advance` plays every seat
through the same agent protocol; the web server gives it none, so :meth:`advance` stops where the person is
to act and :meth:`play` takes the person's move.

The text views of what a seat may see (the table, the hand so far, each move as the person saw it, the hand's
end) are here too, written from the seat's :class:`~euchre_env.views.infostate.InfoState` and the engine's
own rule of who sees a face-down card (``GameState.sees_discard``, ``sees_exchange``), or from a finished
hand, where every hand is shown. So is the hint both ways of playing give (:func:`hint_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import numpy as np

from euchre_env.agents.registry import CHECKPOINT_SUFFIX, build_for_rules
from euchre_env.game.actions import action_table
from euchre_env.game.engine import GameState
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.game.seats import NUM_SEATS, partner_of, team_of
from euchre_env.views.decision import agent_name, ask_agent, decision_inputs, illegal_choice
from euchre_env.views.infostate import InfoState, information_state
from euchre_env.views.render import contract_text


@dataclass(frozen=True)
class Move:
    """One decision taken at the table, as the person's seat saw it: who, what (the action id and its text:
    a face-down card the seat may not see is left out of the text), whether it was the person's only legal
    action, and the seat that took the trick when the move ended one."""

    seat: int
    who: str  # "you", or the agent's short label and its role, e.g. "rules, partner"
    action: int
    text: str
    forced: bool = False  # the person's only legal action, played for them
    took_trick: int | None = None


class Table:
    """One game (or ``hands`` hands) between the person at ``seat`` and agents in the other seats.

    ``partner`` and ``opponents`` are agent specs (``random``, ``rules``, ``pimc:50``, a checkpoint path); a
    bad spec, or a checkpoint trained for other rules, raises ``ValueError`` in one line before anything is
    dealt. ``person`` is the agent of the person's seat (a ``HumanAgent``) or None: then the caller plays
    the seat with :meth:`play`. The deals and the agents' seeds come from ``seed``.
    """

    def __init__(self, rules: Rules, seat: int = 0, partner: str = "rules", opponents: str = "rules",
                 seed: int | None = None, hands: int | None = None, person: Any = None) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0..{NUM_SEATS - 1}, got {seat!r}")
        if hands is not None and (isinstance(hands, bool) or not isinstance(hands, int) or hands < 1):
            raise ValueError(f"hands must be a positive int or None (a whole game), got {hands!r}")
        self.rules, self.seat, self.hands = rules, seat, hands
        rng = np.random.default_rng(seed)
        self.specs: dict[int, str] = {}
        self.agents: dict[int, Any] = {}
        for s in range(NUM_SEATS):
            if s == seat:
                continue
            spec = partner if s == partner_of(seat) else opponents
            self.specs[s] = spec
            self.agents[s] = _build(spec, rules, int(rng.integers(2**62)))
        self.person = person
        self.state = GameState(rules, rng=rng)
        self.moves: list[Move] = []  # this hand's, in order
        self.decisions = 0  # every decision taken so far: a request naming an older count is stale

    # --- who sits where ------------------------------------------------------------------------------
    def label(self, seat: int) -> str:
        """``"you"``, or the agent's short name and its role: ``"rules, partner"``, ``"pimc:50, opponent"``,
        ``"knock, opponent"`` for ``checkpoints/knock.pt`` (a path is too long for a seat's name)."""
        if seat == self.seat:
            return "you"
        role = "partner" if seat == partner_of(self.seat) else "opponent"
        spec = self.specs[seat]
        return f"{PurePath(spec).stem if spec.endswith(CHECKPOINT_SUFFIX) else spec}, {role}"

    def labels(self) -> dict[int, str]:
        return {s: self.label(s) for s in range(NUM_SEATS)}

    # --- the game ----------------------------------------------------------------------------------------
    @property
    def hand_over(self) -> bool:
        return self.state.hand_over

    @property
    def finished(self) -> bool:
        """The game is over, or the ``hands`` asked for have been played."""
        return self.state.is_over or (self.hands is not None and self.hand_over
                                      and self.state.hand_number + 1 >= self.hands)

    @property
    def person_to_act(self) -> bool:
        return not self.hand_over and self.state.current_player == self.seat

    def view(self) -> InfoState:
        """What the person's seat knows now."""
        return information_state(self.state, self.seat)

    def advance(self, on_move: Any = None) -> list[Move]:
        """Play the seats that have an agent until the hand ends or the person (without one) is to act.

        ``on_move(move)`` is called after each move (the terminal prints it). A seat with a single legal
        action plays it without asking its agent (the person is not asked either: the move says ``forced``).
        """
        made = []
        while not self.hand_over:
            s = self.state.current_player
            legal = self.state.legal_actions()
            agent = self.person if s == self.seat else self.agents[s]
            if len(legal) == 1:
                action = legal[0]
            elif agent is None:
                break
            else:
                action = ask_agent(agent, self.state, None, agent_name(agent) if s == self.seat else self.specs[s])
            made.append(self._apply(s, action, forced=len(legal) == 1))
            if on_move is not None:
                on_move(made[-1])
        return made

    def play(self, action: int) -> Move:
        """The person's move; the engine checks it. Raises ``IllegalActionError`` (a ValueError, one line
        naming the legal actions) and changes nothing when it is not the person's turn or not legal."""
        if not self.person_to_act:
            who = "nobody" if self.hand_over else f"seat {self.state.current_player}"
            raise IllegalActionError(f"it is not your turn (seat {self.seat}): {who} is to act")
        legal = self.state.legal_actions()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
            raise IllegalActionError(f"illegal action {illegal_choice(self.state, action)}")
        return self._apply(self.seat, int(action))

    def hint(self, agent: Any) -> str:
        """What ``agent`` (built for these rules) advises the person now, from the person's InfoState only: the
        web page's hint, the same text as the terminal's. ``IllegalActionError`` when the person is not to act."""
        if not self.person_to_act:
            who = "nobody" if self.hand_over else f"seat {self.state.current_player}"
            raise IllegalActionError(f"no hint: it is not your turn (seat {self.seat}): {who} is to act")
        # No observer: a checkpoint encodes its observation from the InfoState, as in the terminal.
        return hint_text(agent, *decision_inputs(self.state, None))

    def _apply(self, seat: int, action: int, forced: bool = False) -> Move:
        tricks = len(self.state.tricks)
        self.state.apply(action)
        move = Move(seat, self.label(seat), action, move_text(self.state, self.seat),
                    # Only the person's own forced move is announced: that a bot had one choice is hidden.
                    forced=forced and seat == self.seat,
                    took_trick=self.state.tricks[-1][0] if len(self.state.tricks) > tricks else None)
        self.moves.append(move)
        self.decisions += 1
        return move

    def next_hand(self) -> None:
        """Deal the next hand (after a hand's end, unless :attr:`finished`)."""
        if self.finished:
            raise ValueError("the game is over: start a new one")
        self.state.next_hand()
        self.moves = []


def _build(spec: str, rules: Rules, seed: int) -> Any:
    """The agent of ``spec``, checked against the rules now (a checkpoint for other rules fails here)."""
    agent = build_for_rules(spec, rules, seed)
    agent.reset(seed)
    return agent


def hint_text(agent: Any, observation: dict[str, Any], info: dict[str, Any]) -> str:
    """``hint (rules): order: <why>``: what ``agent`` would do at this decision, and why when it can say
    (an ``explain`` method: the rule-based agent's rule, PIMC's values); the terminal's and the web page's hint."""
    strings = action_table(info["information_state"].rules).strings
    explain = getattr(agent, "explain", None)
    if explain is not None:
        action, why = explain(observation, info)
        return f"hint ({agent_name(agent)}): {strings[action]}: {why}"
    return f"hint ({agent_name(agent)}): {strings[agent.act(observation, info)]}"


# --- text views ------------------------------------------------------------------------------------------
def move_text(state: GameState, viewer: int) -> str:
    """The last move of ``state`` as the seat ``viewer`` saw it. A discard and the help exchange are face
    down: to a seat the engine does not let see the card, the text leaves it out (``discard, face down``)."""
    phase, _, action = state.history[-1]
    text = state.table.strings[action]
    sees = {Phase.DISCARD: state.sees_discard, Phase.GIVE: state.sees_exchange, Phase.GIVE_BACK: state.sees_exchange}
    if phase in sees and not sees[phase](viewer):
        return f"{text.split()[0]}, face down"
    return text


def sorted_hand(s: InfoState) -> list[int]:
    """The seat's cards grouped by suit, trump first, high to low (before trump: by printed suit)."""
    deck = s.rules.deck_spec
    trump = s.trump
    if trump >= 0:
        suits, power = deck.effective_suits(trump), deck.powers(trump)
        return sorted(s.hand, key=lambda c: (suits[c] != trump, suits[c], -power[c], c))
    return sorted(s.hand, key=lambda c: (deck.printed_suit(c) < 0, deck.printed_suit(c), -c))


def table_text(s: InfoState, labels: dict[int, str]) -> str:
    """The table as the seat sees it: scores, dealer, up-card, trump and maker, who sits out, the trick
    in progress, tricks won and the seat's hand."""
    deck = s.rules.deck_spec
    us = team_of(s.seat)
    lines = [f"{s.rules.preset_name}  score: your team {s.scores[us]}, theirs {s.scores[1 - us]} "
             f"(to {s.rules.game_target})   tricks: yours {s.tricks_won[us]}, theirs {s.tricks_won[1 - us]}"]
    call = f"dealer: seat {s.dealer} ({labels[s.dealer]})"
    if s.upcard is not None:
        call += f"   up-card: {deck.name(s.upcard)}" + (" (turned down)" if s.turned_down else
                                                             " (taken by the dealer)" if s.upcard_taken else "")
    if s.trump >= 0:
        call += contract_text(s.trump, s.maker, s.contract, s.maker_alone, s.defender_alone,
                              lambda seat: f"seat {seat} ({labels[seat]})")
    lines.append(call)
    out = [f"seat {x} ({labels[x]})" for x in range(NUM_SEATS) if s.out[x]]
    if out:
        lines.append(f"sits out: {', '.join(out)}")
    if s.trick:
        lines.append("trick: " + ", ".join(f"seat {x} ({labels[x]}) {deck.name(c)}" for x, c in s.trick))
    elif s.tricks:
        winner, plays = s.tricks[-1]
        lines.append("last trick: " + ", ".join(f"seat {x} {deck.name(c)}" for x, c in plays)
                     + f" -> seat {winner} ({labels[winner]})")
    lines.append(f"your hand (seat {s.seat}): {' '.join(deck.name(c) for c in sorted_hand(s))}")
    return "\n".join(lines)


def history_text(s: InfoState, labels: dict[int, str]) -> str:
    """The hand so far as the seat saw it: the calls, then each trick and who took it."""
    deck = s.rules.deck_spec
    lines = [f"  seat {x} ({labels[x]}): {text}" for x, text in s.calls] or ["  no calls yet"]
    for k, (winner, plays) in enumerate(s.tricks, 1):
        lines.append(f"  trick {k}: " + ", ".join(f"seat {x} {deck.name(c)}" for x, c in plays)
                     + f" -> seat {winner}")
    if s.trick:
        lines.append(f"  trick {len(s.tricks) + 1}: " + ", ".join(f"seat {x} {deck.name(c)}" for x, c in s.trick))
    return "\n".join(lines)


def hand_end_text(state: GameState, labels: dict[int, str]) -> str:
    """A finished hand: every hand as dealt, the tricks, the points and why, the score."""
    if state.phase not in (Phase.HAND_OVER, Phase.GAME_OVER) or state.hand_result is None:
        raise ValueError("hand_end_text needs a finished hand")
    deck, result = state.deck, state.hand_result
    lines = [f"hand {state.hand_number + 1} over: {describe_hand(state.rules, result)}"]
    for x in range(NUM_SEATS):
        lines.append(f"  seat {x} ({labels[x]}) held: {' '.join(deck.name(c) for c in state.initial_hands[x])}")
    if state.upcard is not None:
        lines.append(f"  up-card {deck.name(state.upcard)}" + (", undealt: " if state.kitty else "")
                     + " ".join(deck.name(c) for c in state.kitty if c != state.upcard))
    scores = result["scores"]
    lines.append(f"score: team 0 (seats 0+2) {scores[0]}, team 1 (seats 1+3) {scores[1]}")
    if state.winner is not None:
        lines.append(f"game over: team {state.winner} wins")
    return "\n".join(lines)
