"""``euchre serve``: play in a browser against the bots. A small Flask app; the server holds every game.

The page (``play/web_page.html``, one file, no build step) asks the server for everything: the engine
checks each move and the page only draws what the JSON says (the person's cards, the legal choices, the
bots' moves one by one as the person's seat saw them, the hand's end with every hand shown). Each browser tab
starts its own game (``POST /api/games``) and keeps its id and its token; a game's score over games (games
won by each team) stays with it.

API (JSON in and out):

- ``POST /api/games`` ``{}`` or ``{"client": ...}`` -> ``{"token": ..., "client": ..., "moves": [...], "state":
  ...}``: a new game (the bots play up to the person's first decision), its token, which every other request
  on the game sends back in the ``X-Euchre-Token`` header, and its client: the id that a browser's later
  ``POST /api/games`` sends back, so that its games are counted together (a client the server holds no
  game of, or none, gets a new id);
- ``GET /api/games/<id>`` -> its state;
- ``GET /api/games/<id>/hint`` -> ``{"hint": "hint (rules): order: <why>"}``, the terminal's hint;
- ``POST /api/games/<id>/act`` ``{"action": id, "decision": n}`` -> ``{"moves": [...], "state": ...}``: the
  person's move then the bots' up to the person's next decision or the hand's end. ``decision`` is the
  state's own count of decisions taken: a request made from an older state (a second click, another tab
  of the same game) is stale and refused with 409;
- ``POST /api/games/<id>/next`` ``{"decision": n}`` -> the next hand after a hand's end, or a new game
  (the score over games kept) after the game's end;
- ``POST /api/games/<id>/new`` ``{}`` -> a new game now (the one in progress dropped), the score over games kept.

Every error, from a bad request to a bug, is ``{"error": "one line"}`` with its status (400 malformed or
illegal, 403 no or wrong token, another site's request or another name in ``Host``, 404 no such game, 405,
409 stale or out of turn, 413 over the size limit, 415 not JSON, 429 the address holds all the games it may,
500, 503 the server holds all the games it may), and changes nothing.

What keeps the server safe to leave running: game ids and tokens are random (``secrets``), so no page can
guess another tab's game, and one that is not this page cannot act on any (the browser refuses a
cross-site request with a custom header and a JSON body unless the server allows it, which it never does;
an ``Origin`` or ``Sec-Fetch-Site`` header naming another site is refused outright). A ``Host`` that is not a
name of this server is refused too: a DNS-rebinding page (its own name pointed at 127.0.0.1) sends its name
there, and its ``Origin`` matches it. The games held are bounded without one client evicting another's: a
game unused for ``idle_seconds`` is dropped, one the person never moved in after ``unplayed_seconds``; a client
past ``max_games_per_client`` games loses its own least recently used one; past ``max_games_per_address`` games
of one network address (client ids cost nothing) or ``max_games`` in all, a new game is refused (429, 503)
rather than another client's game dropped. A request body is at most ``MAX_BODY`` bytes, chunked or not. Binds
to 127.0.0.1 by default: the page is for the person at this machine.
"""

from __future__ import annotations

import hmac
import itertools
import json
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from euchre_env.agents.registry import build_for_rules
from euchre_env.game.cards import SUITS
from euchre_env.game.errors import IllegalActionError
from euchre_env.game.rules import Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.play.table import Move, Table, hand_end_text, sorted_hand
from euchre_env.play.web_address import host_allowed

TOKEN_HEADER = "X-Euchre-Token"
MAX_BODY = 4096  # bytes; the largest request the page sends is about 70
MAX_GAMES = 100  # games held at once, all clients together
MAX_GAMES_PER_CLIENT = 10  # one browser's games (its tabs share a client); a person plays in a few tabs
# One network address's games, all its clients together: a client id costs nothing (a POST without one gets a new
# one), so without this one script could take every game slot (issue 54). Behind a reverse proxy every visitor
# has the proxy's address; the server is meant for the people who reach it directly.
MAX_GAMES_PER_ADDRESS = 30
IDLE_SECONDS = 6 * 3600.0  # a game unused this long is dropped
UNPLAYED_SECONDS = 600.0  # a game in which the person never moved, unused this long, is dropped


class _Game:
    """One browser tab's games: the current :class:`Table`, the games won so far by each team, the token."""

    def __init__(self, make_table: Callable[[], Table], client: str) -> None:
        self.make_table = make_table
        self.client = client  # whose game: the store drops a client's games only to make room for its own
        self.address = ""  # the network address that created it, set by the store (which caps each address's games)
        self.played = False  # the person has moved in it: until then it is dropped sooner (UNPLAYED_SECONDS)
        self.table: Table = make_table()
        self.won = [0, 0]
        self.games = 1
        self.counted = False  # the current game's result is in ``won``
        self.token = secrets.token_urlsafe(24)
        self.used = 0.0  # when a request last used it (the store's clock)

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


class StoreFull(Exception):
    """No room for a new game: the store holds ``max_games`` (503), or this address its ``max_games_per_address``
    (429), none of them the creating client's to drop. ``retry_after``: seconds until the first of them expires."""

    def __init__(self, message: str, status: int, retry_after: int) -> None:
        super().__init__(f"{message}; the first of them is dropped if still unused in {_duration(retry_after)}")
        self.status = status
        self.retry_after = retry_after


class GameStore:
    """The games the server holds, least recently used first, each owned by a client (a browser) and created from a
    network address: none unused for more than ``idle_seconds`` of ``clock``, nor one the person never moved in
    unused for more than ``unplayed_seconds`` (both dropped when the store is next used); at most
    ``max_games_per_client`` of one client (its least recently used dropped for its new one); at most
    ``max_games_per_address`` from one address and ``max_games`` in all (a new game refused past either: a client
    that floods the server cannot drop another's game, only take the room still free, and one address cannot take
    all of it with fresh client ids). Callers hold the app's lock."""

    def __init__(self, max_games: int, idle_seconds: float, clock: Callable[[], float],
                 max_games_per_client: int = MAX_GAMES_PER_CLIENT,
                 max_games_per_address: int = MAX_GAMES_PER_ADDRESS,
                 unplayed_seconds: float = UNPLAYED_SECONDS) -> None:
        for name, value in (("max_games", max_games), ("max_games_per_client", max_games_per_client),
                            ("max_games_per_address", max_games_per_address)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        for name, seconds in (("idle_seconds", idle_seconds), ("unplayed_seconds", unplayed_seconds)):
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
                raise ValueError(f"{name} must be a positive number, got {seconds!r}")
        self.max_games, self.idle_seconds, self.clock = max_games, float(idle_seconds), clock
        self.unplayed_seconds = min(float(unplayed_seconds), self.idle_seconds)
        self.max_games_per_client = max_games_per_client
        self.max_games_per_address = max_games_per_address
        self._games: OrderedDict[str, _Game] = OrderedDict()

    def __len__(self) -> int:
        return len(self._games)

    def __iter__(self) -> Iterator[str]:
        return iter(self._games)

    def client(self, claimed: str | None) -> str:
        """The client a new game belongs to: ``claimed`` when it owns a game held now, else a new random id
        (so a client id is only ever one the server gave, and a stale one from before a restart is replaced)."""
        self._expire()
        if claimed is not None and any(g.client == claimed for g in self._games.values()):
            return claimed
        return secrets.token_urlsafe(18)

    def add(self, client: str, make: Callable[[str], _Game], address: str = "") -> tuple[str, _Game]:
        """Make room for a new game of ``client`` from ``address`` (dropping the client's own least recently used
        game past ``max_games_per_client``; :class:`StoreFull` past ``max_games_per_address`` or ``max_games``,
        before ``make`` is called: a refused game costs no deal), then hold ``make(client)`` under a new random
        id; the id and the game."""
        self._expire()
        own = [game_id for game_id, g in self._games.items() if g.client == client]  # least recently used first
        replaced = own[0] if len(own) >= self.max_games_per_client else None
        if replaced is None:
            from_address = [g for g in self._games.values() if g.address == address]
            if len(from_address) >= self.max_games_per_address:
                raise StoreFull(f"this address holds its limit of {self.max_games_per_address} games, none of them "
                                "this client's to replace", 429, self._retry_after(from_address))
            if len(self._games) >= self.max_games:
                raise StoreFull(f"the server holds its limit of {self.max_games} games, none of them this client's "
                                "to replace", 503, self._retry_after(list(self._games.values())))
        game = make(client)
        game.address = address
        if replaced is not None:  # dropped only once the new game exists: a failed deal changes nothing
            del self._games[replaced]
        game_id = secrets.token_urlsafe(12)
        game.used = self.clock()
        self._games[game_id] = game
        return game_id, game

    def get(self, game_id: str) -> _Game | None:
        """The game, now its most recently used; None when there is none (never was, or dropped)."""
        self._expire()
        game = self._games.get(game_id)
        if game is not None:
            game.used = self.clock()
            self._games.move_to_end(game_id)
        return game

    def _lifetime(self, game: _Game) -> float:
        return self.idle_seconds if game.played else self.unplayed_seconds

    def _retry_after(self, games: list[_Game]) -> int:
        """The first whole second at which one of ``games`` is unused for longer than its lifetime."""
        return math.floor(min(g.used + self._lifetime(g) for g in games) - self.clock()) + 1

    def _expire(self) -> None:
        now = self.clock()
        for game_id in [i for i, g in self._games.items() if g.used < now - self._lifetime(g)]:
            del self._games[game_id]


class Refused(Exception):
    """A request refused before it reaches a game: the status and the one line to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(rules: Rules, seat: int = 0, partner: str = "rules", opponents: str = "rules",
               seed: int = 0, hands: int | None = None, hint: str = "rules", max_games: int = MAX_GAMES,
               idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic,
               max_games_per_client: int = MAX_GAMES_PER_CLIENT, host: str = "127.0.0.1",
               max_games_per_address: int = MAX_GAMES_PER_ADDRESS,
               unplayed_seconds: float = UNPLAYED_SECONDS) -> Flask:
    """The app; every tab's ``k``-th game is dealt from ``seed`` and ``k`` (so a seeded server replays).
    ``hint`` is the agent spec of the hint; ``max_games``, ``idle_seconds``, ``clock``, ``max_games_per_client``,
    ``max_games_per_address`` and ``unplayed_seconds`` bound the games held (:class:`GameStore`); ``host`` is the
    address the server binds (``--host``): requests must name it or a loopback name in ``Host``
    (:func:`.web_address.host_allowed`).
    A bad agent spec or bound raises ``ValueError`` here, before the server starts."""
    counter = itertools.count()
    lock = threading.Lock()  # one request at a time uses the games (Flask serves requests in threads)
    games = GameStore(max_games, idle_seconds, clock, max_games_per_client, max_games_per_address, unplayed_seconds)

    def make_table() -> Table:
        return Table(rules, seat, partner, opponents, seed=seed * 1_000_003 + next(counter), hands=hands)

    make_table()  # the agent specs are checked now, with their own one-line messages
    # One hint agent for every game: it reads only the InfoState it is given, and the lock serialises it.
    hint_agent = build_for_rules(hint, rules, seed)
    app = Flask(__name__)
    # One byte over the limit: a chunked body (no Content-Length) is read up to this many bytes and then
    # stops without an error (Werkzeug's LimitedStream), so a body of MAX_BODY + 1 bytes is the only way to
    # tell "too large" from "exactly at the limit"; body() answers 413 for it.
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY + 1
    app.config["euchre_games"] = games  # tests read the engine's state through this

    def error(message: str, status: int) -> tuple[Response, int]:
        return jsonify(error=message), status

    messages_413 = f"the request body is over the limit of {MAX_BODY} bytes"

    @app.errorhandler(Refused)
    def refused(exc: Refused) -> tuple[Response, int]:
        return error(str(exc), exc.status)

    @app.errorhandler(StoreFull)
    def full(exc: StoreFull) -> tuple[Response, int, dict[str, str]]:
        return *error(str(exc), exc.status), {"Retry-After": str(exc.retry_after)}

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        """Flask's own refusals (no such page, wrong method, too large) as JSON, in one line."""
        messages = {
            404: f"no such page {request.path!r}: the API is under /api/games (docs/play.md)",
            413: messages_413,
        }
        if isinstance(exc, MethodNotAllowed):
            allowed = sorted(exc.valid_methods or ())
            response = jsonify(error=f"method {request.method} is not allowed on {request.path}; "
                                     f"allowed: {', '.join(allowed)}")
            response.headers["Allow"] = ", ".join(allowed)
            return response, 405
        code = exc.code or 500
        return error(messages.get(code) or " ".join(f"{exc.name}: {exc.description}".split()), code)

    @app.errorhandler(Exception)
    def internal_error(exc: Exception) -> tuple[Response, int]:
        """A bug: logged with its traceback, answered in one line of JSON (never Flask's HTML page)."""
        app.logger.exception("error in %s %s", request.method, request.path)
        return error(" ".join(f"internal error: {type(exc).__name__}: {exc}".split()), 500)

    @app.before_request
    def this_server_only() -> None:
        """Refuse a request for another name than this server's (the page too: a DNS-rebinding page is served
        nothing), then an API request another site's page made (its browser says so in Origin or
        Sec-Fetch-Site), then a body over the limit, however it is sent."""
        if not host_allowed(request.host, host):
            raise Refused(403, f"refused: Host {request.host[:100]!r} is not a name of this server; open the "
                               f"page at http://127.0.0.1 or http://localhost (or the --host it was served on)")
        origin = request.headers.get("Origin")
        fetch_site = request.headers.get("Sec-Fetch-Site")
        if request.path.startswith("/api/") and (
                (origin is not None and origin != request.host_url.rstrip("/"))
                or fetch_site not in (None, "same-origin", "none")):
            raise Refused(403, f"refused: a request from another site ({origin or fetch_site}); "
                               f"only this server's page may use the API")
        # Read (and cache) the body now, whatever the route, so that an oversized one is refused before any route
        # runs: one with a Content-Length over the limit raises 413 here, a chunked one stops one byte over it.
        if len(request.get_data(cache=True)) > MAX_BODY:
            raise Refused(413, messages_413)

    def json_body() -> dict[str, Any]:
        """The request's JSON object; a body of another type, not JSON (nested past Python's recursion limit
        included) or not an object is refused with 415 or 400. Requiring JSON keeps other sites' forms out: a
        browser sends a cross-site JSON request only after asking the server, which never allows it."""
        if not request.is_json:
            raise Refused(415, f"the request body must be JSON (Content-Type: application/json), "
                               f"got {request.mimetype or 'none'!r}")
        try:
            body = json.loads(request.get_data(cache=True))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            reason = "nested too deeply" if isinstance(exc, RecursionError) else "not valid JSON"
            raise Refused(400, f"the request body is {reason}: send a JSON object") from None
        if not isinstance(body, dict):
            raise Refused(400, f"the request body must be a JSON object, got {type(body).__name__}")
        return body

    def decision_of(body: dict[str, Any], game: _Game) -> None:
        """Refuse a request without ``decision`` (400) or made at another decision than the game's (409)."""
        n = body.get("decision")
        if isinstance(n, bool) or not isinstance(n, int):
            raise Refused(400, "the request needs \"decision\": the state's decision count, an integer")
        if n != game.table.decisions:
            raise Refused(409, f"stale request: it was made at decision {n}, the game is at decision "
                               f"{game.table.decisions}; reload the state")

    def answer(game_id: str, game: _Game, moves: list[Move]) -> dict[str, Any]:
        game.count_result()
        return {"moves": [_move(m) for m in moves], "state": _state(game_id, game)}

    def with_game(handler: Callable[[str, _Game], Any]) -> Callable[[str], Any]:
        """A route on one game: 404 for an unknown (or dropped) id, 403 without the game's token; one
        request at a time."""
        def route(game_id: str) -> Any:
            with lock:
                game = games.get(game_id)
                if game is None:
                    raise Refused(404, f"no game {game_id!r}: never started, or dropped (unused for "
                                       f"{_duration(games.idle_seconds)}, {_duration(games.unplayed_seconds)} "
                                       f"before its first move, or the least recently used of more "
                                       f"than {games.max_games_per_client} of its client's); start one with "
                                       f"POST /api/games")
                token = request.headers.get(TOKEN_HEADER, "")
                if not hmac.compare_digest(token.encode(), game.token.encode()):
                    raise Refused(403, f"{'wrong' if token else 'no'} {TOKEN_HEADER} header: send the "
                                       f"token POST /api/games gave with this game")
                return handler(game_id, game)
        route.__name__ = handler.__name__
        return route

    @app.get("/")
    def page() -> Response:
        html = resources.files("euchre_env.play").joinpath("web_page.html").read_text(encoding="utf-8")
        return Response(html, mimetype="text/html")

    @app.post("/api/games")
    def new_game() -> Any:
        claimed = json_body().get("client")
        if claimed is not None and not isinstance(claimed, str):
            raise Refused(400, f"\"client\" must be the string a POST /api/games gave, got {type(claimed).__name__}")
        with lock:
            game_id, game = games.add(games.client(claimed), lambda client: _Game(make_table, client),
                                      request.remote_addr or "")
            # (a hand the person sits out can end a one-hand game at once: answer() counts it)
            return {"token": game.token, "client": game.client, **answer(game_id, game, game.table.advance())}

    @app.get("/api/games/<game_id>")
    @with_game
    def get_game(game_id: str, game: _Game) -> Any:
        return _state(game_id, game)

    @app.get("/api/games/<game_id>/hint")
    @with_game
    def get_hint(game_id: str, game: _Game) -> Any:
        try:
            return {"hint": game.table.hint(hint_agent)}
        except IllegalActionError as exc:  # not the person's turn
            raise Refused(409, str(exc)) from None

    @app.post("/api/games/<game_id>/act")
    @with_game
    def act(game_id: str, game: _Game) -> Any:
        body = json_body()
        decision_of(body, game)
        action = body.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refused(400, f"\"action\" must be an integer action id, got {action!r}")
        try:
            moves = [game.table.play(action)]
        except IllegalActionError as exc:  # not the person's turn, or not a legal action
            raise Refused(409 if "not your turn" in str(exc) else 400, str(exc)) from None
        game.played = True
        return answer(game_id, game, moves + game.table.advance())

    @app.post("/api/games/<game_id>/next")
    @with_game
    def next_hand(game_id: str, game: _Game) -> Any:
        decision_of(json_body(), game)
        if not game.table.hand_over:
            raise Refused(409, "the hand is still being played: next is for after a hand's end")
        if game.table.finished:
            game.new_table()
        else:
            game.table.next_hand()
        return answer(game_id, game, game.table.advance())

    @app.post("/api/games/<game_id>/new")
    @with_game
    def restart(game_id: str, game: _Game) -> Any:
        """A new game for this tab (the one in progress is dropped, uncounted); the score over games stays."""
        json_body()
        game.new_table()
        return answer(game_id, game, game.table.advance())

    return app


def _duration(seconds: float) -> str:
    """``6 hours``, ``10 minutes``, ``90 seconds``: the largest unit that counts it whole."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            return f"{seconds / size:g} {unit}{'s' if seconds != size else ''}"
    return f"{seconds:g} seconds"


def _move(m: Move) -> dict[str, Any]:
    return {"seat": m.seat, "who": m.who, "action": m.action, "text": m.text, "forced": m.forced,
            "took_trick": m.took_trick}


def _state(game_id: str, game: _Game) -> dict[str, Any]:
    """What the person's seat may see, as JSON: its InfoState, never another seat's cards before the hand's end."""
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
        "upcard_taken": s.upcard_taken,
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
