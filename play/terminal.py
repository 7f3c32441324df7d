"""A person at the table: the agent protocol, answered by a person typing into a stream.

``HumanAgent(input, output).act(observation, info)`` draws the seat's table (from
``info["information_state"]``), lists the legal actions with short numbers and reads answers until one is
an action: its number (``2``), its text (``order alone``, ``play JH``, ``bid 4``; any case, ``10H`` for
``TH``) or the last word of its text alone where that names exactly one legal action (``9h`` for ``play 9H``
or ``discard 9H``, ``h`` for ``name H``). Other answers:

- ``hint``: what the hint agent would do here, and why when it can say (the rule-based agent names the
  rule it follows; PIMC gives its average points per action over its sampled deals);
- ``history``: the hand so far as this seat saw it;
- ``help``: these commands; ``quit``: stop the game (:class:`QuitGame`).

Anything else (an unknown word, an illegal action, a number out of range, an empty line) gets one line
saying what is allowed, and the prompt again; nothing changes. The end of the input stops the game as
``quit`` does (:class:`QuitGame`, with ``reason`` saying so), since nobody is left to answer. Ctrl-C is
left to the ``euchre`` command (``cli/main.py``), which ends with one line and status 130.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from euchre_env.agents.base import require_information_state
from euchre_env.agents.registry import make_agent
from euchre_env.game.actions import ActionTable, action_table
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, partner_of, team_of
from euchre_env.play.table import Move, Table, hand_end_text, hint_text, history_text, table_text

COMMANDS = "a number or an action as listed (a card alone will do), or: hint, history, help, quit"


class QuitGame(Exception):
    """The person stopped the game (``quit``) or the input ended."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class HumanAgent:
    """The agent of a person's seat (see the module docstring). ``hint`` is the agent spec whose advice
    ``hint`` shows (default ``rules``); ``labels`` names the seats in the table (``{1: "rules, opponent"}``)."""

    name = "human"
    # The table is drawn from the information state, and the hint agents read it too (a checkpoint encodes
    # its own observation from it), so no observation vector is needed.
    needs_observation = False

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None, hint: str = "rules",
                 labels: dict[int, str] | None = None, seed: int | None = None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.hint_agent = make_agent(hint, seed=seed)
        self.labels = labels or {s: f"seat {s}" for s in range(NUM_SEATS)}

    def reset(self, seed: int | None = None) -> None:
        self.hint_agent.reset(seed)

    def say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        s = require_information_state(info, "HumanAgent")
        table = action_table(s.rules)
        legal = list(s.legal_actions)
        self.say("")
        self.say(table_text(s, self.labels))
        self.say("your choices: " + "   ".join(f"{k}) {table.strings[a]}" for k, a in enumerate(legal, 1)))
        while True:
            self.output.write("> ")
            self.output.flush()
            line = self.input.readline()
            if not line:
                raise QuitGame("end of input: the game stops here")
            answer = line.strip()
            word = answer.lower()
            if word in ("quit", "exit", "q"):
                raise QuitGame("you left the game")
            if word == "help":
                self.say(f"answer with {COMMANDS}")
            elif word == "history":
                self.say(history_text(s, self.labels))
            elif word == "hint":
                self.say(self.hint(observation, info))
            elif not word:
                self.say(f"nothing typed: answer with {COMMANDS}")
            elif word.isdigit():
                k = int(word)
                if 1 <= k <= len(legal):
                    return legal[k - 1]
                self.say(f"no choice {k}: pick 1..{len(legal)}, or {COMMANDS}")
            else:
                try:
                    action = table.from_str(answer)
                except ValueError:
                    action = _named_by_last_word(table, answer, legal)
                    if action is not None:
                        return action
                    self.say(f"{answer!r} is not legal now; legal: {table.names(legal)}" if _is_card(table, answer)
                             else f"unknown answer {answer!r}: {COMMANDS}")
                    continue
                if action in legal:
                    return action
                self.say(f"{table.strings[action]!r} is not legal now; legal: {table.names(legal)}")

    def hint(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """What the hint agent would do here, and why when it says (``explain``)."""
        return hint_text(self.hint_agent, observation, info)


def _named_by_last_word(table: ActionTable, answer: str, legal: list[int]) -> int | None:
    """The legal action ``answer`` names as the last word of its text (``9h``: ``play 9H``) when it names
    exactly one, else None; the action table parses it, so ``10h`` is ``TH`` here too."""
    named = set()
    for verb in {table.strings[a].split()[0] for a in legal}:
        try:
            action = table.from_str(f"{verb} {answer}")
        except ValueError:
            continue
        if action in legal:
            named.add(action)
    return named.pop() if len(named) == 1 else None


def _is_card(table: ActionTable, answer: str) -> bool:
    try:
        table.deck.parse(answer)
    except ValueError:
        return False
    return True


def play_in_terminal(rules: Rules, seat: int = 0, partner: str = "rules", opponents: str = "rules",
                     seed: int | None = None, hands: int | None = None, hint: str = "rules",
                     input: TextIO | None = None, output: TextIO | None = None) -> Table:
    """A whole game (or ``hands`` hands) with a person at ``seat``, in the terminal; returns the table.

    Every decision is printed as it is taken; each hand ends with every hand shown and the points
    explained. ``quit`` or the end of the input stops the game after one line saying so. A bad agent
    spec raises ``ValueError`` (one line) before anything is dealt.
    """
    person = HumanAgent(input, output, hint=hint, seed=seed)
    table = Table(rules, seat, partner, opponents, seed=seed, hands=hands, person=person)
    person.labels = labels = table.labels()
    mate = partner_of(seat)
    person.say(f"Euchre, {rules.preset_name}: you are seat {seat} (team {team_of(seat)}), your partner seat {mate} "
               f"({table.specs[mate]}), opponents {opponents}. Answer {COMMANDS}.")
    try:
        while True:
            dealer = table.state.dealer
            person.say(f"\nhand {table.state.hand_number + 1}: seat {dealer} ({labels[dealer]}) deals")
            table.advance(on_move=lambda m: person.say(move_lines(table, m)))
            person.say(hand_end_text(table.state, labels))
            if table.finished:
                return table
            table.next_hand()
    except QuitGame as stop:
        person.say(stop.reason)
        return table


def move_lines(table: Table, move: Move) -> str:
    """A move as the person sees it: its line, marked when it was the person's only legal move, then who
    took the trick when it ended one."""
    lines = f"  seat {move.seat} ({move.who}): {move.text}"
    if move.forced:
        lines += " (your only legal move, played for you)"
    if move.took_trick is not None:
        w = move.took_trick
        lines += f"\n  trick {len(table.state.tricks)} to seat {w} ({table.label(w)})"
    return lines
