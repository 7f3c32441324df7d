"""``euchre serve``: play in a browser against the bots. A small Flask app; the server holds every game.

The page (``play/web_page.html``, one file, no build step) asks the server for everything: the engine
checks each move and the page only draws what the JSON says (the person's cards, the legal choices, the
bots' moves one by one, the hand's end with every hand shown). Each browser tab starts its own game
(``POST /api/games``) and keeps its id; a game's score over games (games won by each team) stays with it.

API (JSON in and out; every error is ``{"error": "one line"}`` with status 400, 404 or 409, and changes
nothing):

- ``POST /api/games`` -> a new game's state (the bots play up to the person's first decision);
- ``GET /api/games/<id>`` -> its state;
- ``POST /api/games/<id>/act`` ``{"action": id, "decision": n}`` -> ``{"moves": [...], "state": ...}``: the
  person's move then the bots' up to the person's next decision or the hand's end. ``decision`` is the
  state's own count of decisions taken: a request made from an older state (a second click, another tab
  of the same game) is stale and refused with 409;
- ``POST /api/games/<id>/next`` ``{"decision": n}`` -> the next hand after a hand's end, or a new game
  (the score over games kept) after the game's end;
- ``POST /api/games/<id>/new`` -> a new game now (the one in progress dropped), the score over games kept.

Binds to 127.0.0.1 by default: the page is for the person at this machine.
"""

from __future__ import annotations

import itertools
import threading
from importlib import resources
from typing import Any

from flask import Flask, Response, jsonify, request

from euchre_env.game.cards import SUITS
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.play.table import Move, Table, hand_end_text, sorted_hand


class _Game:
    """One browser tab's games: the current :class:`Table` and the games won so far by each team."""

    def __init__(self, make_table: Any) -> None:
        self.make_table = make_table
        self.table: Table = make_table()
        self.won = [0, 0]
        self.games = 1
        self.counted = False  # the current game's result is in ``won``

    def new_table(self) -> None:
        self.table = self.make_table()
        self.games += 1
        self.counted = False

    def count_result(self) -> None:
        """Add the current game to the games won once it is finished (once: at the move that finished it)."""
        if self.counted or not self.table.finished:
            return
        self.counted = True
        winner = self.table.state.winner
        if winner is None:  # ended by --hands: the team ahead, if any
            s0, s1 = self.table.state.scores
            winner = None if s0 == s1 else int(s1 > s0)
        if winner is not None:
            self.won[winner] += 1


def create_app(rules: Rules, seat: int = 0, partner: str = "rules", opponents: str = "rules",
               seed: int = 0, hands: int | None = None) -> Flask:
    """The app; every tab's ``k``-th game is dealt from ``seed`` and ``k`` (so a seeded server replays).
    A bad agent spec raises ``ValueError`` here, before the server starts."""
    counter = itertools.count()
    lock = threading.Lock()  # one request at a time changes a game (Flask serves requests in threads)

    def make_table() -> Table:
        return Table(rules, seat, partner, opponents, seed=seed * 1_000_003 + next(counter), hands=hands)

    make_table()  # the agent specs are checked now, with their own one-line messages
    games: dict[str, _Game] = {}
    app = Flask(__name__)
    app.config["euchre_games"] = games  # tests read the engine's state through this

    def error(message: str, status: int) -> tuple[Response, int]:
        return jsonify(error=message), status

    def problem_with_decision(body: Any, game: _Game) -> tuple[Response, int] | None:
        """The error answer when the request's ``decision`` is missing (400) or not the game's (409: stale)."""
        n = body.get("decision") if isinstance(body, dict) else None
        if isinstance(n, bool) or not isinstance(n, int):
            return error("the request needs \"decision\": the state's decision count, an integer", 400)
        if n != game.table.decisions:
            return error(f"stale request: it was made at decision {n}, the game is at decision "
                         f"{game.table.decisions}; reload the state", 409)
        return None

    def answer(game_id: str, game: _Game, moves: list[Move]) -> Response:
        game.count_result()
        return jsonify(moves=[_move(m) for m in moves], state=_state(game_id, game))

    def with_game(handler: Any) -> Any:
        """A route on one game: 404 for an unknown id; one request at a time."""
        def route(game_id: str) -> Any:
            with lock:
                game = games.get(game_id)
                if game is None:
                    return error(f"no game {game_id!r}: start one with POST /api/games", 404)
                return handler(game_id, game)
        route.__name__ = handler.__name__
        return route

    @app.get("/")
    def page() -> Response:
        html = resources.files("euchre_env.play").joinpath("web_page.html").read_text(encoding="utf-8")
        return Response(html, mimetype="text/html")

    @app.post("/api/games")
    def new_game() -> Any:
        with lock:
            game_id = f"g{len(games) + 1}"
            game = games[game_id] = _Game(make_table)
            # (a hand the person sits out can end a one-hand game at once: answer() counts it)
            return answer(game_id, game, game.table.advance())

    @app.get("/api/games/<game_id>")
    @with_game
    def get_game(game_id: str, game: _Game) -> Any:
        return jsonify(_state(game_id, game))

    @app.post("/api/games/<game_id>/act")
    @with_game
    def act(game_id: str, game: _Game) -> Any:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return error("the request body must be a JSON object {\"action\": id, \"decision\": n}", 400)
        problem = problem_with_decision(body, game)
        if problem is not None:
            return problem
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            return error(f"\"action\" must be an integer action id, got {action!r}", 400)
        try:
            moves = [game.table.play(action)]
        except ValueError as exc:  # IllegalActionError: not the person's turn, or not a legal action
            return error(str(exc), 409 if "not your turn" in str(exc) else 400)
        return answer(game_id, game, moves + game.table.advance())

    @app.post("/api/games/<game_id>/next")
    @with_game
    def next_hand(game_id: str, game: _Game) -> Any:
        problem = problem_with_decision(request.get_json(silent=True), game)
        if problem is not None:
            return problem
        if not game.table.hand_over:
            return error("the hand is still being played: next is for after a hand's end", 409)
        if game.table.finished:
            game.new_table()
        else:
            game.table.next_hand()
        return answer(game_id, game, game.table.advance())

    @app.post("/api/games/<game_id>/new")
    @with_game
    def restart(game_id: str, game: _Game) -> Any:
        """A new game for this tab (the one in progress is dropped, uncounted); the score over games stays."""
        game.new_table()
        return answer(game_id, game, game.table.advance())

    return app


def _move(m: Move) -> dict[str, Any]:
    return {"seat": m.seat, "who": m.who, "action": m.action, "text": m.text}


def _state(game_id: str, game: _Game) -> dict[str, Any]:
    """What the person's seat may see, as JSON: never another seat's cards before the hand's end."""
    table = game.table
    s = table.view()
    deck = s.rules.deck_spec
    strings = table.state.table.strings
    name = deck.name
    legal = list(s.legal_actions) if table.person_to_act else []
    over = table.hand_over
    out: dict[str, Any] = {
        "id": game_id,
        "decision": table.decisions,
        "preset": s.rules.preset_name,
        "seat": table.seat,
        "team": team_of(table.seat),
        "labels": [table.label(x) for x in range(NUM_SEATS)],
        "hand_number": table.state.hand_number + 1,
        "scores": list(s.scores),
        "target": s.rules.game_target,
        "dealer": s.dealer,
        "upcard": None if s.upcard is None else name(s.upcard),
        "turned_down": s.turned_down,
        "trump": None if s.trump < 0 else SUITS[s.trump],
        "maker": None if s.maker < 0 else s.maker,
        "maker_alone": s.maker_alone,
        "contract": s.contract,
        "out": list(s.out),
        "to_act": None if over else table.state.current_player,
        "trick": [{"seat": x, "card": name(c)} for x, c in s.trick],
        "last_trick": None if not s.tricks else {
            "winner": s.tricks[-1][0], "plays": [{"seat": x, "card": name(c)} for x, c in s.tricks[-1][1]]},
        "tricks_won": list(s.tricks_won),
        "hand": [name(c) for c in sorted_hand(s)],
        "legal": [{"id": a, "text": strings[a]} for a in legal],
        "hand_over": over,
        "finished": table.finished,
        "games": game.games,
        "won": list(game.won),
    }
    if over:
        result = table.state.hand_result
        out["hand_end"] = {
            "summary": describe_hand(s.rules, result),
            "text": hand_end_text(table.state, table.labels()),
            "hands": [[name(c) for c in table.state.initial_hands[x]] for x in range(NUM_SEATS)],
            "points": list(result["points"]),
            "winner": table.state.winner,
        }
    return out
