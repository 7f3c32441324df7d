"""`euchre serve` against a flood, another name and an oversized body, and the serve command's bind and banner
(play/web.py, cli/play.py): one client cannot drop another's game, a DNS-rebinding page is refused, a chunked
body over the limit gets 413 like one with a length, and the banner comes after the bind with a URL a browser
can open. Every server here listens on 127.0.0.1 only."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("flask")

from werkzeug.serving import BaseWSGIServer

from euchre_env.cli.main import main
from euchre_env.game.rules import Rules
from euchre_env.play import web_address
from euchre_env.play.web import MAX_BODY, TOKEN_HEADER, create_app
from euchre_env.play.web_address import bind, host_allowed, page_url
from tests.play.test_web_server import Clock


def _create(client, owner: str | None = None):
    return client.post("/api/games", json={} if owner is None else {"client": owner})


def _game(client, owner: str | None = None) -> tuple[dict[str, Any], dict[str, str], str]:
    """A new game: its state, its token header and its client."""
    response = _create(client, owner)
    assert response.status_code == 200, response.get_json()
    created = response.get_json()
    return created["state"], {TOKEN_HEADER: created["token"]}, created["client"]


def _act(client, state: dict[str, Any], headers: dict[str, str]):
    return client.post(f"/api/games/{state['id']}/act", headers=headers,
                       json={"action": state["legal"][0]["id"], "decision": state["decision"]})


def _owners(app) -> list[str]:
    """The client of every game held, least recently used first."""
    store = app.config["euchre_games"]
    return [store._games[game_id].client for game_id in store]


def test_101_new_games_without_a_client_fill_the_room_then_are_refused_and_drop_nothing() -> None:
    """The finding: about 101 POST /api/games wiped another tab's game. Now they fill the free room, then get
    503 with Retry-After (when the least recently used game would go idle), and the game in progress plays on."""
    clock = Clock()
    app = create_app(Rules.preset("knock"), seed=1, max_games=20, max_games_per_client=5, idle_seconds=600,
                     clock=clock)
    client = app.test_client()
    state, headers, _ = _game(client)
    state = _act(client, state, headers).get_json()["state"]
    clock.now += 100
    statuses = [_create(client).status_code for _ in range(101)]
    assert statuses == [200] * 19 + [503] * 82 and len(app.config["euchre_games"]) == 20
    refused = _create(client)
    assert refused.headers["Retry-After"] == "501"  # the person's game, used at 1000: idle past 1600
    assert refused.get_json()["error"] == ("the server holds its limit of 20 games, none of them this client's "
                                           "to replace; the first of them is dropped if still unused in "
                                           "501 seconds")
    clock.now += 300
    assert _act(client, state, headers).status_code == 200
    # Once the flood's games (made at 1100) are unused for more than the idle time, there is room again.
    clock.now += 301
    _game(client)
    assert len(app.config["euchre_games"]) == 2  # the person's game (used at 1400) and the new one


def test_101_new_games_of_one_client_replace_only_its_own() -> None:
    app = create_app(Rules.preset("knock"), seed=1, max_games=20, max_games_per_client=5)
    client = app.test_client()
    state, headers, person = _game(client)
    state = _act(client, state, headers).get_json()["state"]
    _, _, flooder = _game(client)
    for _ in range(101):
        assert _create(client, flooder).get_json()["client"] == flooder
    assert sorted(_owners(app)) == sorted([person] + [flooder] * 5)
    assert _act(client, state, headers).status_code == 200
    # The person's own sixth game replaces the person's least recently used one, not the flooder's.
    first, first_headers, _ = _game(client, person)
    for _ in range(5):
        _game(client, person)
    assert _owners(app).count(person) == 5 and _owners(app).count(flooder) == 5
    gone = client.get(f"/api/games/{first['id']}", headers=first_headers)
    assert gone.status_code == 404 and "least recently used of more than 5 of its client's" in gone.get_json()["error"]


def test_fresh_client_ids_from_one_address_cannot_take_every_game() -> None:
    """The probe of issue 54: 120 POST /api/games without a client id took all 100 games, and a new visitor got 503.
    One address now holds at most its 30; a visitor from another address still gets a game."""
    app = create_app(Rules.preset("knock"), seed=1)
    flood = app.test_client()
    flood.environ_base["REMOTE_ADDR"] = "10.0.0.66"
    statuses = [_create(flood).status_code for _ in range(120)]
    assert statuses == [200] * 30 + [429] * 90 and len(app.config["euchre_games"]) == 30
    refused = _create(flood)
    assert refused.get_json()["error"] == ("this address holds its limit of 30 games, none of them this client's "
                                           "to replace; the first of them is dropped if still unused in 10 minutes")
    assert refused.headers["Retry-After"] == "600"
    visitor = app.test_client()
    visitor.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    state, headers, _ = _game(visitor)
    assert _act(visitor, state, headers).status_code == 200


def test_a_game_nobody_moved_in_is_dropped_sooner_than_one_in_play() -> None:
    clock = Clock()
    app = create_app(Rules.preset("knock"), seed=1, idle_seconds=3600, unplayed_seconds=60, clock=clock)
    client = app.test_client()
    played, played_headers, _ = _game(client)
    played = _act(client, played, played_headers).get_json()["state"]
    unplayed, unplayed_headers, _ = _game(client)
    clock.now += 61
    assert client.get(f"/api/games/{played['id']}", headers=played_headers).status_code == 200
    gone = client.get(f"/api/games/{unplayed['id']}", headers=unplayed_headers)
    assert gone.status_code == 404 and "unused for 1 hour, 1 minute before its first move" in \
        gone.get_json()["error"]
    clock.now += 3601
    assert client.get(f"/api/games/{played['id']}", headers=played_headers).status_code == 404


def test_a_client_id_counts_only_when_the_server_gave_it_and_holds_its_games() -> None:
    clock = Clock()
    app = create_app(Rules.preset("knock"), seed=1, max_games_per_client=1, idle_seconds=600, clock=clock)
    client = app.test_client()
    state, headers, owner = _game(client)
    _, _, made_up = _game(client, "made-up-id")
    assert made_up not in ("made-up-id", owner) and len(owner) >= 24
    # Sent back, the id's one game is replaced by the new one.
    _, _, again = _game(client, owner)
    assert again == owner and client.get(f"/api/games/{state['id']}", headers=headers).status_code == 404
    # Once its games are dropped (here: unused for the idle time), the id is forgotten: a new one is given.
    clock.now += 601
    assert _game(client, owner)[2] != owner
    response = _create(client, 7)  # type: ignore[arg-type]
    assert response.status_code == 400 and response.get_json() == {
        "error": "\"client\" must be the string a POST /api/games gave, got int"}
    assert len(app.config["euchre_games"]) == 1


@pytest.mark.parametrize(("header", "host", "allowed"), [
    ("localhost", "127.0.0.1", True),
    ("localhost:8000", "127.0.0.1", True),
    ("LOCALHOST.:8000", "127.0.0.1", True),
    ("127.0.0.1:8000", "127.0.0.1", True),
    ("127.0.0.2", "127.0.0.1", True),  # all of 127/8 is this machine
    ("[::1]:8000", "127.0.0.1", True),
    ("[0:0::1]", "127.0.0.1", True),
    ("attacker.example", "127.0.0.1", False),  # a DNS-rebinding page: its own name, pointed at 127.0.0.1
    ("attacker.example:8000", "127.0.0.1", False),
    ("localhost.attacker.example", "127.0.0.1", False),
    ("192.168.1.5:8000", "127.0.0.1", False),
    ("", "127.0.0.1", False),
    ("mybox.lan:8000", "mybox.lan", True),  # the name given to --host
    ("192.168.1.5:8000", "192.168.1.5", True),
    ("192.168.1.6:8000", "192.168.1.5", False),
    ("192.168.1.5:8000", "0.0.0.0", True),  # bound to every address: any address, this machine's name
    ("[fe80::1]:8000", "::", True),
    ("attacker.example", "0.0.0.0", False),
    ("attacker.example", "::", False),
])
def test_the_host_allow_list(header: str, host: str, allowed: bool) -> None:
    assert host_allowed(header, host) is allowed


def test_a_dns_rebinding_page_is_refused_and_this_machines_name_is_allowed_on_every_address() -> None:
    """The finding: Host and Origin both ``attacker.example`` passed the Origin check (it compared them)."""
    app = create_app(Rules.preset("knock"), seed=1)
    client = app.test_client()
    state, headers, _ = _game(client)
    rebound = {"Host": "attacker.example", "Origin": "http://attacker.example"}
    for response in (client.post("/api/games", json={}, headers=rebound), client.get("/", headers=rebound),
                     client.get(f"/api/games/{state['id']}", headers={**headers, **rebound})):
        assert response.status_code == 403 and response.get_json() == {
            "error": "refused: Host 'attacker.example' is not a name of this server; open the page at "
                     "http://127.0.0.1 or http://localhost (or the --host it was served on)"}
    assert len(app.config["euchre_games"]) == 1
    everywhere = create_app(Rules.preset("knock"), seed=1, host="0.0.0.0").test_client()
    assert everywhere.get("/", headers={"Host": f"{socket.gethostname()}:8000"}).status_code == 200
    assert everywhere.get("/", headers={"Host": "attacker.example"}).status_code == 403


@pytest.fixture
def served() -> Iterator[int]:
    """The app served for real on 127.0.0.1 (a free port), as ``euchre serve`` serves it; the port."""
    server = bind(create_app(Rules.preset("knock"), seed=1), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.port
    server.shutdown()
    thread.join(5)


def _post(port: int, body: bytes, chunked: bool, host: str | None = None) -> tuple[int, bytes]:
    """POST /api/games with ``body``, chunked (64 KB chunks, no Content-Length) or with its length."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.putrequest("POST", "/api/games", skip_host=host is not None)
    if host is not None:
        connection.putheader("Host", host)
    connection.putheader("Content-Type", "application/json")
    connection.putheader(*(("Transfer-Encoding", "chunked") if chunked else ("Content-Length", str(len(body)))))
    connection.endheaders()
    if chunked:
        for k in range(0, len(body), 65536):
            chunk = body[k:k + 65536]
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")
    else:
        connection.send(body)
    response = connection.getresponse()
    answer = response.status, response.read()
    connection.close()
    return answer


def test_a_chunked_body_over_the_limit_gets_413_like_one_with_a_length(served: int) -> None:
    """The finding: a 50 MB chunked body got 400 (read up to the limit, then parsed), the same with a length 413."""
    big = b"{}" + b" " * 50_000_000
    for chunked in (True, False):
        status, body = _post(served, big, chunked)
        assert status == 413 and json.loads(body) == {"error": "the request body is over the limit of 4096 bytes"}
        assert _post(served, b"{}" + b" " * (MAX_BODY - 1), chunked)[0] == 413  # one byte over
        status, body = _post(served, b"{}" + b" " * (MAX_BODY - 2), chunked)  # exactly at the limit
        assert status == 200 and b'"token"' in body
    # Over a real socket too, a request for another name is refused before its body is read.
    assert _post(served, b"{}", False, host="attacker.example")[0] == 403


def test_a_get_with_a_body_over_the_limit_gets_413_too() -> None:
    client = create_app(Rules.preset("knock"), seed=1).test_client()
    for path in ("/", "/api/games/none"):
        response = client.get(path, data=b"x" * (MAX_BODY + 1))
        assert response.status_code == 413 and "over the limit" in response.get_json()["error"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_prints_the_url_once_the_port_is_bound(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    seen: dict[str, str] = {}

    def serve_once(self: BaseWSGIServer, poll_interval: float = 0.5) -> None:
        """Instead of serving: what was printed by now, and a connection the bound socket accepts."""
        seen["out"], seen["err"] = capsys.readouterr()
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        self.server_close()

    monkeypatch.setattr(BaseWSGIServer, "serve_forever", serve_once)
    assert main(["serve", "--port", str(port), "--seed", "1"]) == 0
    assert seen == {"out": f"euchre: open http://127.0.0.1:{port}/ in a browser (Ctrl-C stops the server)\n",
                    "err": ""}


def test_serve_on_a_busy_port_says_so_in_one_line_and_prints_no_url(capsys: pytest.CaptureFixture[str]) -> None:
    """The finding: the banner pointed at the program holding the port, then Werkzeug printed its own text."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(SystemExit) as stop:
            main(["serve", "--port", str(port)])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err == f"euchre: error: cannot serve on 127.0.0.1:{port}: Address already in use\n"


def test_serve_on_a_bad_address_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def no_such_name(*args: object, **kwargs: object) -> list[Any]:  # the resolver's answer, without asking one
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--host", "no-such-host.invalid"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err == "euchre: error: cannot serve on no-such-host.invalid:8000: Name or service not known\n"


@pytest.mark.parametrize(("host", "address", "url", "exposed"), [
    ("127.0.0.1", ("127.0.0.1", 8000), "http://127.0.0.1:8000/", False),
    ("localhost", ("127.0.0.1", 8000), "http://localhost:8000/", False),
    ("::1", ("::1", 8000, 0, 0), "http://[::1]:8000/", False),
    ("0.0.0.0", ("0.0.0.0", 8000), "http://127.0.0.1:8000/", True),
    ("::", ("::", 8000, 0, 0), "http://[::1]:8000/", True),
    ("192.168.1.5", ("192.168.1.5", 8000), "http://192.168.1.5:8000/", True),
])
def test_the_url_to_open_and_whether_the_network_reaches_it(host: str, address: tuple[Any, ...], url: str,
                                                            exposed: bool) -> None:
    assert page_url(host, address) == (url, exposed)


@pytest.mark.parametrize(("host", "url"), [("0.0.0.0", "http://127.0.0.1:8000/"), ("::", "http://[::1]:8000/")])
def test_serve_on_every_address_warns_and_prints_a_url_a_browser_can_open(
        host: str, url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The finding: ``--host 0.0.0.0`` said to open http://0.0.0.0:PORT/ and warned of nothing. (Bound here to
    nothing: a test listens on loopback only, so the server is one that says it is bound to every address.)"""
    class Bound:
        server_address = (host, 8000)
        port = 8000

        def serve_forever(self) -> None:
            pass

    made: dict[str, str] = {}

    def fake_bind(app: object, bind_host: str, port: int) -> Bound:
        made["host"] = bind_host
        return Bound()

    monkeypatch.setattr(web_address, "bind", fake_bind)
    assert main(["serve", "--host", host, "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert made == {"host": host}
    assert out == f"euchre: open {url} in a browser (Ctrl-C stops the server)\n"
    assert err == (f"euchre: warning: --host {host}: the page is reachable from the network, with no login: "
                   f"anyone who can reach this machine on port 8000 can play and start games on it\n")
