"""The web server's API, in-process (play/web.py): the engine decides, bad requests change nothing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("flask")

from euchre_env.game.rules import PRESETS, Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.play.web import TOKEN_HEADER, create_app


def _client(preset: str = "knock", **kwargs):
    app = create_app(Rules.preset(preset), seed=kwargs.pop("seed", 1), **kwargs)
    return app, app.test_client()


def _new(client):
    """A new game: its state and the headers that carry its token."""
    created = client.post("/api/games", json={}).get_json()
    return created["state"], {TOKEN_HEADER: created["token"]}


def _act(client, state, headers, k: int = 0):
    return client.post(f"/api/games/{state['id']}/act", headers=headers,
                       json={"action": state["legal"][k]["id"], "decision": state["decision"]})


def _play_hand(client, state, headers):
    while not state["hand_over"]:
        response = _act(client, state, headers)
        assert response.status_code == 200, response.get_json()
        state = response.get_json()["state"]
    return state


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_through_the_api_ends_as_the_engine_scored_it(preset: str) -> None:
    app, client = _client(preset)
    state, headers = _new(client)
    assert state["legal"] and state["to_act"] == state["seat"] == 0
    state = _play_hand(client, state, headers)
    table = app.config["euchre_games"].get(state["id"]).table
    assert state["hand_end"]["summary"] == describe_hand(table.state.rules, table.state.hand_result)
    assert state["scores"] == list(table.state.scores)
    assert state["hand_end"]["hands"][1] == [table.state.deck.name(c) for c in table.state.initial_hands[1]]


def test_the_state_shows_only_the_persons_cards_before_the_hand_ends() -> None:
    app, client = _client()
    state, _ = _new(client)
    table = app.config["euchre_games"].get(state["id"]).table
    names = table.state.deck.name
    assert sorted(state["hand"]) == sorted(names(c) for c in table.state.hands[0])
    shown = json.dumps(state)
    assert "hand_end" not in state
    hidden = {names(c) for seat in (1, 2, 3) for c in table.state.hands[seat]}
    played = {p["card"] for p in state["trick"]} | {names(table.state.upcard)}
    assert not {c for c in hidden - played if f'"{c}"' in shown}


def test_bad_requests_get_one_line_and_change_nothing() -> None:
    _, client = _client()
    state, h = _new(client)
    gid, n = state["id"], state["decision"]
    before = client.get(f"/api/games/{gid}", headers=h).get_json()
    cases = [
        (client.post(f"/api/games/{gid}/act", headers=h, json={"action": state["legal"][0]["id"], "decision": n - 1}),
         409, "stale request"),
        (client.post(f"/api/games/{gid}/act", headers=h, json={"action": 58, "decision": n}), 400,
         "illegal action 'play"),
        (client.post(f"/api/games/{gid}/act", headers=h, json={"action": "order", "decision": n}), 400,
         "must be an integer"),
        (client.post(f"/api/games/{gid}/act", headers=h, json={"action": 0}), 400, "needs \"decision\""),
        (client.post(f"/api/games/{gid}/act", headers=h, data="{not json", content_type="application/json"), 400,
         "not valid JSON"),
        (client.post(f"/api/games/{gid}/act", headers=h, json=[1, 2]), 400, "must be a JSON object, got list"),
        (client.post("/api/games/g99/act", headers=h, json={"action": 0, "decision": 0}), 404, "no game 'g99'"),
        (client.post(f"/api/games/{gid}/next", headers=h, json={"decision": n}), 409, "still being played"),
        (client.get("/api/games/zzz", headers=h), 404, "no game 'zzz'"),
    ]
    for response, status, words in cases:
        body = response.get_json()
        assert response.status_code == status and words in body["error"] and "\n" not in body["error"], body
    assert client.get(f"/api/games/{gid}", headers=h).get_json() == before


def test_after_the_hand_the_person_cannot_act_and_next_deals() -> None:
    _, client = _client()
    state, h = _new(client)
    state = _play_hand(client, state, h)
    late = client.post(f"/api/games/{state['id']}/act", headers=h, json={"action": 0, "decision": state["decision"]})
    assert late.status_code == 409 and "not your turn" in late.get_json()["error"]
    hint = client.get(f"/api/games/{state['id']}/hint", headers=h)
    assert hint.status_code == 409 and "no hint: it is not your turn" in hint.get_json()["error"]
    nxt = client.post(f"/api/games/{state['id']}/next", headers=h,
                      json={"decision": state["decision"]}).get_json()["state"]
    assert nxt["hand_number"] == 2 and not nxt["hand_over"]


def test_tabs_play_separate_games_and_a_seeded_server_replays() -> None:
    _, client = _client()
    a, ha = _new(client)
    b, hb = _new(client)
    assert a["id"] != b["id"] and ha != hb
    _act(client, a, ha)
    assert client.get(f"/api/games/{b['id']}", headers=hb).get_json() == b
    # A tab cannot act on another's game: the token is the game's own.
    refused = _act(client, b, ha)
    assert refused.status_code == 403 and f"wrong {TOKEN_HEADER} header" in refused.get_json()["error"]
    _, again = _client()
    replayed, _ = _new(again)
    assert {**replayed, "id": a["id"]} == a  # the same deal and bots' moves; only the random id differs


def test_the_score_over_games_counts_each_finished_game_once() -> None:
    _, client = _client(hands=1)
    state, h = _new(client)
    state = _play_hand(client, state, h)
    assert state["finished"] and sum(state["won"]) == (state["scores"][0] != state["scores"][1])
    again = client.get(f"/api/games/{state['id']}", headers=h).get_json()
    assert again["won"] == state["won"]
    new = client.post(f"/api/games/{state['id']}/next", headers=h,
                      json={"decision": state["decision"]}).get_json()["state"]
    assert new["games"] == 2 and new["won"] == state["won"] and new["hand_number"] == 1
    restarted = client.post(f"/api/games/{state['id']}/new", headers=h, json={}).get_json()["state"]
    assert restarted["games"] == 3 and restarted["won"] == state["won"]


def test_the_page_is_served() -> None:
    _, client = _client()
    page = client.get("/")
    assert page.status_code == 200 and b"/api/games" in page.data


def test_a_bad_agent_spec_fails_before_serving() -> None:
    with pytest.raises(ValueError, match="unknown agent spec 'nobody'"):
        create_app(Rules.preset("knock"), opponents="nobody")
