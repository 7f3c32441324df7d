"""Human play shows the person's seat what that seat may know and nothing else, in every preset and option.

Whole hands are played in the terminal (``play_in_terminal``) and through the web API, the bots random and
seeded (they make every kind of call: alone, defend alone, help, moon), the person's answers drawn from a
seeded stream. Every line written to the terminal and every string of every answer of the API is checked,
at the moment it is produced, against what the engine lets the person's seat know: the cards of its
:class:`~euchre_env.views.infostate.InfoState` (its hand, the up-card, the cards played, its own discard
and exchange) and the face-down moves ``GameState.sees_discard`` and ``sees_exchange`` hide from it.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import numpy as np
import pytest

from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.play import terminal
from euchre_env.play.table import Table
from euchre_env.views.infostate import information_state

# Every preset, the joker in each family, defend alone outside its preset, Bid Euchre's double deck.
OPTION_SETS = [
    ("knock", {}), ("knock", {"joker": True}), ("classic", {"defend_alone": True}), ("multiplayer", {}),
    ("multiplayer", {"joker": True}), ("bid", {}), ("bid", {"joker": True}), ("bid", {"double_deck": True}),
]
IDS = [preset + "".join(f"-{k}" for k in options) for preset, options in OPTION_SETS]


def known_cards(state: GameState, seat: int) -> set[str]:
    """The names of the cards the seat's InfoState holds."""
    s = information_state(state, seat)
    cards = set(s.hand) | set(s.initial_hand) | set(s.played)
    cards |= {c for c in (s.upcard, s.discarded, s.given, s.given_back) if c is not None}
    return {state.deck.name(c) for c in cards}


def face_down(state: GameState) -> dict[Phase, Any]:
    """The engine's rule for each face-down move: does a seat see it."""
    return {Phase.DISCARD: state.sees_discard, Phase.GIVE: state.sees_exchange, Phase.GIVE_BACK: state.sees_exchange}


def hidden_moves(state: GameState, seat: int) -> list[tuple[Phase, str]]:
    """This hand's face-down moves the engine hides from ``seat``: (phase, the action's full text)."""
    sees = face_down(state)
    return [(phase, state.table.strings[a]) for phase, _, a in state.history
            if phase in sees and not sees[phase](seat)]


def leaks(text: str, state: GameState, seat: int, cards: bool = True) -> list[str]:
    """What ``text`` shows that ``seat`` may not know now: a card outside its InfoState (when ``cards``),
    or the full text of a face-down move hidden from it (``discard 9H`` names a card all saw turned up)."""
    found = []
    if cards:
        unknown = set(state.deck.names) - known_cards(state, seat)
        found = [c for c in sorted(unknown) if re.search(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])", text)]
    return found + [move for _, move in hidden_moves(state, seat) if move in text]


class Coverage:
    """Which hidden moves the games made, so the test shows it checked each kind."""

    def __init__(self) -> None:
        self.hidden: set[Phase] = set()
        self.calls: set[str] = set()

    def note(self, state: GameState, seat: int) -> None:
        self.hidden |= {phase for phase, _ in hidden_moves(state, seat)}
        self.calls |= {state.table.strings[a] for phase, _, a in state.history if phase != Phase.PLAY}


def assert_covered(rules: Rules, coverage: Coverage) -> None:
    """The games met what these rules hide and the calls that change who sees what: a face-down move hidden
    from the person, a help bid (the partner exchange) in Bid Euchre, a lone defender where allowed."""
    if rules.is_bid:
        assert coverage.hidden & {Phase.GIVE, Phase.GIVE_BACK} and "bid help" in coverage.calls, coverage.calls
        assert Phase.DISCARD in coverage.hidden or not rules.joker
    else:
        assert Phase.DISCARD in coverage.hidden
        assert "defend alone" in coverage.calls or not rules.defend_alone, coverage.calls


class WatchedOutput(io.StringIO):
    """The terminal: every write is checked against the person's seat at that moment. The cards are not
    checked once the hand is over (its end shows every hand); the hidden moves always are."""

    def __init__(self, coverage: Coverage) -> None:
        super().__init__()
        self.table: Table | None = None
        self.problems: list[str] = []
        self.coverage = coverage

    def write(self, text: str) -> int:
        table = self.table
        if table is not None:
            self.coverage.note(table.state, table.seat)
            for leak in leaks(text, table.state, table.seat, cards=not table.hand_over):
                self.problems.append(f"hand {table.state.hand_number + 1}: {leak!r} in {text!r}")
        return super().write(text)


@pytest.mark.parametrize("preset, options", OPTION_SETS, ids=IDS)
def test_the_terminal_shows_no_card_the_seat_may_not_know(preset: str, options: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules.preset(preset, **options)
    coverage = Coverage()
    rng = np.random.default_rng(11)
    for seat in range(4):
        out = WatchedOutput(coverage)

        def watched_table(*args: Any, out: WatchedOutput = out, **kwargs: Any) -> Table:
            out.table = Table(*args, **kwargs)
            return out.table

        monkeypatch.setattr(terminal, "Table", watched_table)
        # Numbers (some out of range), hints and the history: every kind of line the person is shown.
        answers = [str(rng.integers(1, 8)) if rng.random() < 0.9 else str(rng.choice(["hint", "history"]))
                   for _ in range(4000)]
        table = terminal.play_in_terminal(rules, seat=seat, partner="random", opponents="random", seed=seat + 20,
                                          hands=6, input=io.StringIO("\n".join(answers) + "\n"), output=out)
        assert table.finished, out.getvalue()[-1500:]
        assert not out.problems, out.problems[:5]
    assert_covered(rules, coverage)


@pytest.mark.parametrize("preset, options", OPTION_SETS, ids=IDS)
def test_the_web_api_shows_no_card_the_seat_may_not_know(preset: str, options: dict[str, Any]) -> None:
    pytest.importorskip("flask")
    from euchre_env.play.web import TOKEN_HEADER, create_app

    rules = Rules.preset(preset, **options)
    coverage = Coverage()
    rng = np.random.default_rng(12)
    for seat in range(4):
        app = create_app(rules, seat=seat, partner="random", opponents="random", seed=seat + 30, hands=6)
        client = app.test_client()
        created = client.post("/api/games", json={}).get_json()
        headers = {TOKEN_HEADER: created["token"]}
        game = app.config["euchre_games"].get(created["state"]["id"])

        def check(answer: dict[str, Any], game: Any = game, seat: int = seat) -> None:
            state = game.table.state
            coverage.note(state, seat)
            # (not the game's id: random letters, it may hold "-9H_" by chance)
            shown = {k: v for k, v in answer.get("state", answer).items() if k not in ("hand_end", "id")}
            shown["moves"] = answer.get("moves", [])
            assert not leaks(json.dumps(shown), state, seat), (leaks(json.dumps(shown), state, seat), shown)

        answer = created
        while True:
            check(answer)
            state = answer["state"]
            if state["finished"]:
                break
            if state["hand_over"]:
                answer = client.post(f"/api/games/{state['id']}/next", json={"decision": state["decision"]},
                                     headers=headers).get_json()
                continue
            if rng.random() < 0.2:
                hint = client.get(f"/api/games/{state['id']}/hint", headers=headers)
                assert hint.status_code == 200, hint.get_json()
                check(hint.get_json())
            choice = state["legal"][int(rng.integers(len(state["legal"])))]["id"]
            answer = client.post(f"/api/games/{state['id']}/act", json={"action": choice,
                                                                        "decision": state["decision"]},
                                 headers=headers).get_json()
            assert "error" not in answer, answer
    assert_covered(rules, coverage)


def test_each_move_names_a_face_down_card_exactly_to_the_seats_that_see_it() -> None:
    """The move feed against the engine's rule, both ways: the person's own discard and the exchange of the
    person's team are shown with the card, every other face-down move without it."""
    seen: dict[tuple[Phase, bool], int] = {}
    for (preset, options), seed in zip(OPTION_SETS, range(40, 48)):
        rules = Rules.preset(preset, **options)
        for seat in range(4):
            table = Table(rules, seat, partner="random", opponents="random", seed=seed, hands=5)
            rng = np.random.default_rng(seed)
            while True:
                table.advance()
                if table.person_to_act:
                    table.play(int(rng.choice(table.state.legal_actions())))
                    continue
                state = table.state
                sees = face_down(state)
                assert len(table.moves) == len(state.history)
                for move, (phase, who, action) in zip(table.moves, state.history):
                    full = state.table.strings[action]
                    assert (move.seat, move.action) == (who, action)
                    if phase in sees:
                        shown = sees[phase](seat)
                        seen[phase, shown] = seen.get((phase, shown), 0) + 1
                        assert move.text == (full if shown else f"{full.split()[0]}, face down"), (move, full)
                    else:
                        assert move.text == full
                if table.finished:
                    break
                table.next_hand()
    # Every face-down move was met both as the seat that sees it and as one that does not.
    assert set(seen) == {(p, b) for p in (Phase.DISCARD, Phase.GIVE, Phase.GIVE_BACK) for b in (True, False)}, seen
