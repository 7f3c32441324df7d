"""A person in the terminal (play/terminal.py, play/table.py, `euchre play`), driven by scripted input."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from euchre_env.cli.main import main
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import PRESETS, Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.play.table import Table, hand_end_text, table_text
from euchre_env.play.terminal import HumanAgent, play_in_terminal
from euchre_env.views.decision import decision_inputs
from euchre_env.views.infostate import information_state

BAD_LINES = ["fly", "99", "", "play ZZ", "bid 99"]  # an unknown word, out of range, empty, no such card, no such bid


def _answers(first: list[str], then: str = "1", n: int = 3000) -> io.StringIO:
    return io.StringIO("\n".join(first + [then] * n) + "\n")


@pytest.mark.parametrize("preset", PRESETS)
def test_a_whole_game_from_scripted_input_in_every_preset(preset: str) -> None:
    out = io.StringIO()
    rules = Rules.preset(preset)
    table = play_in_terminal(rules, seat=1, partner="rules", opponents="random", seed=5,
                             input=_answers(["help", "history", "hint", *BAD_LINES]), output=out)
    text = out.getvalue()
    assert table.state.is_over, text[-2000:]
    assert f"game over: team {table.state.winner} wins" in text
    hands = table.state.hand_number + 1
    assert len(re.findall(r"^hand \d+ over: ", text, re.M)) == hands
    # The last hand's summary is the engine's own account of it, and the score line its score.
    assert f"hand {hands} over: {describe_hand(rules, table.state.hand_result)}" in text
    s0, s1 = table.state.scores
    assert text.rstrip().endswith(f"score: team 0 (seats 0+2) {s0}, team 1 (seats 1+3) {s1}\n"
                                  f"game over: team {table.state.winner} wins")
    # Each bad line got one line back, and the prompt again.
    for message in ("unknown answer 'fly'", "no choice 99: pick 1..", "nothing typed", "unknown answer 'play ZZ'"):
        assert message in text
    assert ("'bid 99'" in text) and "Traceback" not in text


def test_bad_input_changes_nothing_and_the_next_answer_counts() -> None:
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1,
                             input=_answers([*BAD_LINES, "order"], then="1"), output=out)
    mine = [m for m in table.state.history if m[1] == 0]
    assert table.state.table.to_str(mine[0][2]) == "order"  # the first answer that was an action
    assert "seat 0 (you): order" in out.getvalue()


def test_an_action_not_legal_now_is_refused_with_the_legal_ones() -> None:
    out = io.StringIO()
    play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1, input=_answers(["play AC", "quit"]), output=out)
    assert "'play AC' is not legal now; legal: pass, order, order alone" in out.getvalue()


@pytest.mark.parametrize("line, said", [("quit", "you left the game"), (None, "end of input: the game stops here")])
def test_quit_and_the_end_of_the_input_stop_cleanly(line: str | None, said: str) -> None:
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("knock"), seat=0, seed=3,
                             input=io.StringIO(f"{line}\n" if line else ""), output=out)
    assert out.getvalue().rstrip().endswith(said)
    assert not table.finished and table.state.history == []  # nothing was played for the person


def test_hint_gives_the_rule_based_reason_and_pimc_values() -> None:
    out = io.StringIO()
    play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1, input=io.StringIO("hint\nquit\n"), output=out)
    assert re.search(r"hint \(rules\): (pass|order|order alone): .*tricks", out.getvalue())
    out = io.StringIO()
    play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1, hint="pimc:8",
                     input=io.StringIO("hint\nquit\n"), output=out)
    hint = re.search(r"hint \(pimc:8\): .*over 8 sampled deals: (.*)", out.getvalue())
    assert hint and {v.rsplit(" ", 1)[0] for v in hint.group(1).split(", ")} == {"pass", "order", "order alone"}


def test_history_shows_the_hand_so_far() -> None:
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("knock"), seat=2, seed=3, hands=1, input=io.StringIO("history\nquit\n"),
                             output=out)
    state = table.state
    shown = out.getvalue().split("\n> ")[1]  # what 'history' printed, up to the next prompt
    calls = [f"  seat {seat} ({table.label(seat)}): {state.table.to_str(a)}" for phase, seat, a in state.history
             if phase not in (Phase.PLAY, Phase.DISCARD)]
    tricks = [f"  trick {k}: " + ", ".join(f"seat {x} {state.deck.name(c)}" for x, c in zip(seats, cards))
              + f" -> seat {winner}" for k, (winner, seats, cards) in enumerate(state.tricks, 1)]
    assert calls and tricks and shown.splitlines() == calls + tricks
    # The dealer's discard is face down: seat 2 is told that it happened, not which card.
    (discard,) = [a for phase, _, a in state.history if phase == Phase.DISCARD]
    assert state.table.to_str(discard) not in out.getvalue()
    assert "seat 3 (rules, opponent): discard, face down" in out.getvalue()


def test_the_table_shows_what_the_seat_may_see_and_no_more() -> None:
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1, input=io.StringIO("quit\n"), output=out)
    screen = out.getvalue()
    deck = table.state.deck
    mine = " ".join(deck.name(c) for c in sorted(table.state.hands[0], key=lambda c: (deck.printed_suit(c), -c)))
    assert f"your hand (seat 0): {mine}" in screen
    for seat in (1, 2, 3):
        assert not any(deck.name(c) in screen.split("your choices")[0].split("your hand")[1].split("\n")[0]
                       for c in table.state.hands[seat])
    assert f"up-card: {deck.name(table.state.upcard)}" in screen


def test_the_hand_end_reveals_every_hand_and_explains_the_points() -> None:
    table = Table(Rules.preset("knock"), seat=0, seed=4, hands=1, person=HumanAgent(io.StringIO("1\n" * 50),
                                                                                       io.StringIO()))
    table.advance()
    text = hand_end_text(table.state, table.labels())
    for seat in range(4):
        held = " ".join(table.state.deck.name(c) for c in table.state.initial_hands[seat])
        assert f"seat {seat} ({table.label(seat)}) held: {held}" in text
    assert re.search(r"(march|made it|euchred|thrown in)", text)


def test_a_bad_agent_spec_is_one_line_before_anything_is_dealt(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--opponents", "nobody"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown agent spec 'nobody'" in err
    with pytest.raises(ValueError, match=r"seat must be 0\.\.3"):
        Table(Rules.preset("knock"), seat=4)


def test_euchre_play_reads_the_standard_input(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--preset", "classic", "--seed", "1", "--hands", "2", "--set", "game_target=5"]) == 0
    out = capsys.readouterr().out
    assert "hand 2 over:" in out and "hand 3" not in out



def _decision(rules: Rules, phase: Phase, seed: int = 0) -> GameState:
    """A seeded random hand played up to a decision of ``phase`` with more than one legal action."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        state = GameState(rules, rng=rng)
        while not state.hand_over:
            legal = state.legal_actions()
            if state.phase == phase and len(legal) > 1:
                return state
            state.apply(int(rng.choice(legal)))
    raise AssertionError(f"no {phase.name} decision met")


@pytest.mark.parametrize("preset, phase", [("knock", Phase.PLAY), ("knock", Phase.DISCARD), ("bid", Phase.GIVE),
                                           ("knock", Phase.CALL2), ("bid", Phase.NAME_TRUMP)],
                         ids=["play", "discard", "give", "name-round-2", "name-trump"])
def test_a_bare_card_or_suit_is_the_one_legal_action_it_names(preset: str, phase: Phase) -> None:
    state = _decision(Rules.preset(preset), phase)
    observation, info = decision_inputs(state, None)
    legal = state.legal_actions()
    want = max(a for a in legal if len(state.table.strings[a].split()) == 2)  # not "pass" nor "name S alone"
    text = state.table.strings[want]  # "play 9H", "discard TC", "name S"
    bare = text.split()[1].lower().replace("t", "10")  # "9h", "10c", "s": any case, 10 for T
    out = io.StringIO()
    nowhere = "zz" if phase in (Phase.CALL2, Phase.NAME_TRUMP) else "9z"
    agent = HumanAgent(io.StringIO(f"{nowhere}\n{bare}\n"), out)
    assert agent.act(observation, info) == want
    assert f"unknown answer {nowhere!r}" in out.getvalue()


def test_a_bare_card_that_names_no_legal_action_is_refused_with_the_legal_ones() -> None:
    state = _decision(Rules.preset("knock"), Phase.PLAY)
    legal = state.legal_actions()
    held = {state.table.actions[a].arg for a in legal}
    other = next(c for c in range(state.deck.num_ids) if c not in held and c not in state.hands[state.current_player])
    out = io.StringIO()
    agent = HumanAgent(io.StringIO(f"{state.deck.name(other)}\n1\n"), out)
    assert agent.act(*decision_inputs(state, None)) == legal[0]
    assert f"{state.deck.name(other)!r} is not legal now; legal: {state.table.names(legal)}" in out.getvalue()


def test_forced_moves_are_announced_and_each_trick_says_who_took_it() -> None:
    out = io.StringIO()
    table = play_in_terminal(Rules.preset("knock"), seat=0, seed=3, hands=1, input=_answers([]), output=out)
    text, state = out.getvalue(), table.state
    lines = text.splitlines()
    forced = [line for line in lines if line.endswith("(your only legal move, played for you)")]
    # The person's last card is always forced; a bot's single choice is never announced (it is hidden).
    assert forced and lines[max(k for k, line in enumerate(lines) if line.startswith("  seat 0 (you): play"))] \
        == forced[-1] and all(line.startswith("  seat 0 (you): ") for line in forced)
    took = [line for line in lines if re.match(r"  trick \d to seat", line)]
    assert took == [f"  trick {k} to seat {w} ({table.label(w)})" for k, (w, _, _) in enumerate(state.tricks, 1)]
    assert len(took) == state.rules.tricks_per_hand


def test_a_checkpoint_is_named_by_its_file_and_the_taken_up_card_is_marked() -> None:
    pytest.importorskip("torch")
    checkpoint = str(Path(__file__).parents[2] / "checkpoints" / "knock.pt")
    table = Table(Rules.preset("knock"), seat=0, opponents=checkpoint, seed=1)
    assert table.labels() == {0: "you", 1: "knock, opponent", 2: "rules, partner", 3: "knock, opponent"}
    state = _decision(Rules.preset("knock"), Phase.DISCARD)
    assert state.upcard_taken
    assert f"up-card: {state.deck.name(state.upcard)} (taken by the dealer)" in table_text(
        information_state(state, 0), table.labels())


@pytest.mark.parametrize("prompt", [1, 6])
def test_ctrl_c_at_a_prompt_is_one_line_and_status_130(prompt: int, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    class Keyboard(io.StringIO):
        """The person answers '1' and presses Ctrl-C at the ``prompt``-th prompt."""

        def __init__(self) -> None:
            super().__init__()
            self.prompts = 0

        def readline(self, size: int | None = -1) -> str:
            self.prompts += 1
            if self.prompts == prompt:
                raise KeyboardInterrupt
            return "1\n"

    keyboard = Keyboard()
    monkeypatch.setattr("sys.stdin", keyboard)
    assert main(["play", "--seed", "2"]) == 130
    captured = capsys.readouterr()
    assert keyboard.prompts == prompt and captured.err == "euchre: interrupted\n"
    assert captured.out.endswith("> ") and "Traceback" not in captured.out


def test_ctrl_c_from_the_terminal_ends_euchre_play_with_one_line() -> None:
    """A real SIGINT at the prompt of ``euchre play`` in its own process: one line on stderr, status 130."""
    process = subprocess.Popen([sys.executable, "-m", "euchre_env.cli", "play", "--seed", "2"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    while not seen.endswith("\n> "):  # the first prompt: the process is waiting for the person
        char = process.stdout.read(1)
        assert char, f"euchre play ended before its prompt: {seen[-500:]}"
        seen += char
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err == "euchre: interrupted\n"
