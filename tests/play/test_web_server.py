"""`euchre serve` bounded and safe (play/web.py), in-process: the games held, the ids and tokens, other sites'
requests, the size limit, JSON errors for everything, the hint. One client's flood, the Host allow-list, the
chunked size limit and the serve command's bind and banner: tests/play/test_web_hardening.py."""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest

pytest.importorskip("flask")

from euchre_env.agents.registry import make_agent
from euchre_env.cli.main import main
from euchre_env.game.engine import GameState
from euchre_env.game.rules import Rules
from euchre_env.play.table import Table, hint_text
from euchre_env.play.web import MAX_BODY, TOKEN_HEADER, create_app
from euchre_env.views.decision import decision_inputs


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _new(client, owner: str | None = None, **headers):
    """A new game (of the client ``owner``, a new client when None): its state and its token header."""
    response = client.post("/api/games", json={} if owner is None else {"client": owner}, headers=headers)
    assert response.status_code == 200, response.get_json()
    created = response.get_json()
    return created["state"], {TOKEN_HEADER: created["token"]}


def _live_games() -> int:
    gc.collect()
    return sum(type(o) is GameState for o in gc.get_objects())  # (isinstance would wake lazy modules)


def test_a_clients_held_games_stay_bounded_over_3000_new_games() -> None:
    """Past ``max_games_per_client`` a client's own least recently used game is dropped: 3,000 games started by
    one client, 50 held, its first one gone, and the memory the games hold flat (traced over the last 300: an
    unbounded store grew by about 9 KB a game)."""
    app = create_app(Rules.preset("knock"), seed=1, max_games=100, max_games_per_client=50, max_games_per_address=100)
    client = app.test_client()
    games = app.config["euchre_games"]
    created = client.post("/api/games", json={}).get_json()
    owner, first, first_headers = created["client"], created["state"], {TOKEN_HEADER: created["token"]}
    before = _live_games()
    counts, traced = [], {}
    for k in range(2, 3_001):
        _new(client, owner)
        if k % 1000 == 0:
            counts.append(len(games))
        if k == 2_700:  # steady state reached long ago: trace what the last 300 games leave behind
            tracemalloc.start()
        elif k in (2_800, 3_000):  # by 2,800 all 50 held games were made while traced
            gc.collect()
            traced[k] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert counts == [50, 50, 50]
    # The engine states alive grew by fewer than the 50 games held: the first game's went with it.
    assert _live_games() - before < 50
    # Unbounded, the 200 games between the two marks would add about 1.9 MB.
    assert abs(traced[3_000] - traced[2_800]) < 200_000, traced
    gone = client.get(f"/api/games/{first['id']}", headers=first_headers)
    assert gone.status_code == 404 and "least recently used of more than 50 of its client's" in gone.get_json()["error"]


def test_a_game_used_recently_is_kept_and_one_unused_for_the_idle_time_is_dropped() -> None:
    clock = Clock()
    app = create_app(Rules.preset("knock"), seed=1, max_games=10, max_games_per_client=3, idle_seconds=600,
                     clock=clock)
    client = app.test_client()
    created = client.post("/api/games", json={}).get_json()
    owner, kept, kept_h = created["client"], created["state"], {TOKEN_HEADER: created["token"]}
    idle, idle_h = _new(client, owner)
    for _ in range(5):  # 5 x 200 s: the kept game is used each time, the idle one never
        clock.now += 200
        assert client.get(f"/api/games/{kept['id']}", headers=kept_h).status_code == 200
    assert len(app.config["euchre_games"]) == 1
    response = client.get(f"/api/games/{idle['id']}", headers=idle_h)
    assert response.status_code == 404 and "unused for 10 minutes" in response.get_json()["error"]
    # Past the client's limit its least recently used game goes, not its oldest: the kept game was used after
    # this one.
    _new(client, owner)
    clock.now += 1
    assert client.get(f"/api/games/{kept['id']}", headers=kept_h).status_code == 200
    b, _ = _new(client, owner)
    c, _ = _new(client, owner)
    assert set(app.config["euchre_games"]) == {kept["id"], b["id"], c["id"]}


def test_ids_are_random_and_every_request_on_a_game_needs_its_token() -> None:
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    state, h = _new(client)
    other, _ = _new(client)
    assert len(state["id"]) >= 16 and state["id"] != other["id"]
    assert len(h[TOKEN_HEADER]) >= 32 and h[TOKEN_HEADER] not in json.dumps(state)  # only the creator holds it
    gid, n = state["id"], state["decision"]
    before = client.get(f"/api/games/{gid}", headers=h).get_json()
    requests = [("get", f"/api/games/{gid}", None), ("get", f"/api/games/{gid}/hint", None),
                ("post", f"/api/games/{gid}/act", {"action": state["legal"][0]["id"], "decision": n}),
                ("post", f"/api/games/{gid}/next", {"decision": n}), ("post", f"/api/games/{gid}/new", {})]
    for method, path, body in requests:
        for headers, word in (({}, "no"), ({TOKEN_HEADER: "x" * 32}, "wrong")):
            response = getattr(client, method)(path, json=body, headers=headers)
            error = response.get_json()["error"]
            assert response.status_code == 403 and error.startswith(f"{word} {TOKEN_HEADER} header"), (path, error)
    assert client.get(f"/api/games/{gid}", headers=h).get_json() == before  # nothing changed


def test_another_sites_requests_are_refused() -> None:
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "same-site"}):
        response = client.post("/api/games", json={}, headers=headers)
        assert response.status_code == 403 and "another site" in response.get_json()["error"], headers
    assert len(app.config["euchre_games"]) == 0
    # This server's own page: its origin, or a same-origin fetch; Sec-Fetch-Site none is the address bar.
    for headers in ({"Origin": "http://localhost"}, {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}):
        _new(client, **headers)
    assert len(app.config["euchre_games"]) == 3


def test_state_changing_requests_need_a_json_object() -> None:
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    cases = [
        (client.post("/api/games"), 415, "must be JSON (Content-Type: application/json), got 'none'"),
        (client.post("/api/games", data="{}", content_type="text/plain"), 415, "got 'text/plain'"),
        (client.post("/api/games", data={"a": "1"}), 415, "got 'application/x-www-form-urlencoded'"),
        (client.post("/api/games", json=[]), 400, "must be a JSON object, got list"),
        (client.post("/api/games", data=b"\xff{", content_type="application/json"), 400, "not valid JSON"),
    ]
    for response, status, words in cases:
        body = response.get_json()
        assert response.status_code == status and words in body["error"], body
    assert len(app.config["euchre_games"]) == 0


def test_every_bad_request_is_one_line_of_json() -> None:
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    state, h = _new(client)
    act = f"/api/games/{state['id']}/act"
    before = client.get(f"/api/games/{state['id']}", headers=h).get_json()
    deep = "[" * 100_000 + "]" * 100_000
    cases = [
        (client.post(act, data="[" * 2000 + "]" * 2000, headers=h, content_type="application/json"), 400,
         "nested too deeply"),
        (client.post(act, data=deep, headers=h, content_type="application/json"), 413,
         f"over the limit of {MAX_BODY} bytes"),
        (client.post(act, data=b"{" + b" " * 10_000_000 + b"}", headers=h, content_type="application/json"), 413,
         "over the limit"),
        (client.get("/nowhere"), 404, "no such page '/nowhere'"),
        (client.get("/api/games"), 405, "method GET is not allowed on /api/games; allowed: OPTIONS, POST"),
        (client.delete(f"/api/games/{state['id']}", headers=h), 405, "allowed: GET, HEAD, OPTIONS"),
    ]
    for response, status, words in cases:
        body = response.get_json()
        assert response.status_code == status and response.mimetype == "application/json", response.data[:200]
        assert words in body["error"] and "\n" not in body["error"], body
    assert cases[4][0].headers["Allow"] == "OPTIONS, POST"
    assert client.get(f"/api/games/{state['id']}", headers=h).get_json() == before


def test_a_bug_is_one_line_of_json_too(monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    state, h = _new(client)

    def broken(self: Table, on_move: object = None) -> list:
        raise KeyError("a bug\nover two lines")

    monkeypatch.setattr(Table, "advance", broken)
    response = client.post(f"/api/games/{state['id']}/new", json={}, headers=h)
    assert response.status_code == 500 and response.mimetype == "application/json"
    assert response.get_json() == {"error": "internal error: KeyError: 'a bug\\nover two lines'"}


@pytest.mark.parametrize("spec", ["rules", "pimc:8"])
def test_the_hint_is_the_terminals_hint(spec: str) -> None:
    app = create_app(Rules.preset("knock"), seed=3, hint=spec)
    client = app.test_client()
    state, h = _new(client)
    table = app.config["euchre_games"].get(state["id"]).table
    response = client.get(f"/api/games/{state['id']}/hint", headers=h)
    assert response.status_code == 200
    hint = response.get_json()["hint"]
    assert hint == hint_text(make_agent(spec, seed=3), *decision_inputs(table.state, None))
    assert hint.startswith(f"hint ({spec}): ") and (": " in hint[len(spec) + 8:])
    assert client.get(f"/api/games/{state['id']}", headers=h).get_json() == state  # asking changes nothing


def test_a_bad_hint_spec_or_bound_fails_before_serving() -> None:
    with pytest.raises(ValueError, match="unknown agent spec 'nobody'"):
        create_app(Rules.preset("knock"), hint="nobody")
    with pytest.raises(ValueError, match="max_games must be a positive int, got 0"):
        create_app(Rules.preset("knock"), max_games=0)
    with pytest.raises(ValueError, match="max_games_per_client must be a positive int, got True"):
        create_app(Rules.preset("knock"), max_games_per_client=True)
    with pytest.raises(ValueError, match="idle_seconds must be a positive number, got -1"):
        create_app(Rules.preset("knock"), idle_seconds=-1)


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_serve_checks_the_port_before_it_says_where_to_open(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", port])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"expected a port number 1..65535, got '{port}'" in err


def test_serve_refuses_a_bad_hint_spec_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--hint", "nobody"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == "" and err.count("\n") == 1 and "unknown agent spec 'nobody'" in err
