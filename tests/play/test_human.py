"""A person in the terminal (play/terminal.py, play/table.py, `euchre play`), driven by scripted input."""

from __future__ import annotations

import io
import re

import pytest

from euchre_env.cli.main import main
from euchre_env.game.rules import PRESETS, Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.play.table import Table, hand_end_text
from euchre_env.play.terminal import HumanAgent, play_in_terminal

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
    calls = [f"seat {seat} ({table.label(seat)}): {table.state.table.to_str(a)}" for _, seat, a in table.state.history]
    assert calls and all(f"  {c}" in out.getvalue() for c in calls)


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

