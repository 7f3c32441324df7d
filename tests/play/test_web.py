"""The web server's API, in-process (play/web.py): the engine decides, bad requests change nothing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("flask")

from euchre_env.game.rules import PRESETS, Rules
from euchre_env.game.scoring import describe_hand
from euchre_env.play.web import create_app


def _client(preset: str = "knock", **kwargs):
    app = create_app(Rules.preset(preset), seed=kwargs.pop("seed", 1), **kwargs)
    return app, app.test_client()


def _act(client, state, k: int = 0):
    return client.post(f"/api/games/{state['id']}/act",
                       json={"action": state["legal"][k]["id"], "decision": state["decision"]})


def _play_hand(client, state):
    while not state["hand_over"]:
        response = _act(client, state)
        assert response.status_code == 200, response.get_json()
        state = response.get_json()["state"]
    return state


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_through_the_api_ends_as_the_engine_scored_it(preset: str) -> None:
    app, client = _client(preset)
    state = client.post("/api/games").get_json()["state"]
    assert state["legal"] and state["to_act"] == state["seat"] == 0
    state = _play_hand(client, state)
    table = app.config["euchre_games"][state["id"]].table
    assert state["hand_end"]["summary"] == describe_hand(table.state.rules, table.state.hand_result)
    assert state["scores"] == list(table.state.scores)
    assert state["hand_end"]["hands"][1] == [table.state.deck.name(c) for c in table.state.initial_hands[1]]


def test_the_state_shows_only_the_persons_cards_before_the_hand_ends() -> None:
    app, client = _client()
    state = client.post("/api/games").get_json()["state"]
    table = app.config["euchre_games"][state["id"]].table
    names = table.state.deck.name
    assert sorted(state["hand"]) == sorted(names(c) for c in table.state.hands[0])
    shown = json.dumps(state)
    assert "hand_end" not in state
    hidden = {names(c) for seat in (1, 2, 3) for c in table.state.hands[seat]}
    played = {p["card"] for p in state["trick"]} | {names(table.state.upcard)}
    assert not {c for c in hidden - played if f'"{c}"' in shown}


def test_bad_requests_get_one_line_and_change_nothing() -> None:
    _, client = _client()
    state = client.post("/api/games").get_json()["state"]
    gid, n = state["id"], state["decision"]
    before = client.get(f"/api/games/{gid}").get_json()
    cases = [
        (client.post(f"/api/games/{gid}/act", json={"action": state["legal"][0]["id"], "decision": n - 1}), 409,
         "stale request"),
        (client.post(f"/api/games/{gid}/act", json={"action": 58, "decision": n}), 400, "illegal action 'play"),
        (client.post(f"/api/games/{gid}/act", json={"action": "order", "decision": n}), 400, "must be an integer"),
        (client.post(f"/api/games/{gid}/act", json={"action": 0}), 400, "needs \"decision\""),
        (client.post(f"/api/games/{gid}/act", data="{not json"), 400, "must be a JSON object"),
        (client.post("/api/games/g99/act", json={"action": 0, "decision": 0}), 404, "no game 'g99'"),
        (client.post(f"/api/games/{gid}/next", json={"decision": n}), 409, "still being played"),
        (client.get("/api/games/zzz"), 404, "no game 'zzz'"),
    ]
    for response, status, words in cases:
        body = response.get_json()
        assert response.status_code == status and words in body["error"] and "\n" not in body["error"], body
    assert client.get(f"/api/games/{gid}").get_json() == before


def test_after_the_hand_the_person_cannot_act_and_next_deals() -> None:
    _, client = _client()
    state = _play_hand(client, client.post("/api/games").get_json()["state"])
    late = client.post(f"/api/games/{state['id']}/act", json={"action": 0, "decision": state["decision"]})
    assert late.status_code == 409 and "not your turn" in late.get_json()["error"]
    nxt = client.post(f"/api/games/{state['id']}/next", json={"decision": state["decision"]}).get_json()["state"]
    assert nxt["hand_number"] == 2 and not nxt["hand_over"]


def test_tabs_play_separate_games_and_a_seeded_server_replays() -> None:
    _, client = _client()
    a = client.post("/api/games").get_json()["state"]
    b = client.post("/api/games").get_json()["state"]
    assert a["id"] != b["id"]
    _act(client, a)
    assert client.get(f"/api/games/{b['id']}").get_json() == b
    _, again = _client()
    assert again.post("/api/games").get_json()["state"] == a


def test_the_score_over_games_counts_each_finished_game_once() -> None:
    _, client = _client(hands=1)
    state = _play_hand(client, client.post("/api/games").get_json()["state"])
    assert state["finished"] and sum(state["won"]) == (state["scores"][0] != state["scores"][1])
    again = client.get(f"/api/games/{state['id']}").get_json()
    assert again["won"] == state["won"]
    new = client.post(f"/api/games/{state['id']}/next", json={"decision": state["decision"]}).get_json()["state"]
    assert new["games"] == 2 and new["won"] == state["won"] and new["hand_number"] == 1
    restarted = client.post(f"/api/games/{state['id']}/new").get_json()["state"]
    assert restarted["games"] == 3 and restarted["won"] == state["won"]


def test_the_page_is_served() -> None:
    _, client = _client()
    page = client.get("/")
    assert page.status_code == 200 and b"/api/games" in page.data


def test_a_bad_agent_spec_fails_before_serving() -> None:
    with pytest.raises(ValueError, match="unknown agent spec 'nobody'"):
        create_app(Rules.preset("knock"), opponents="nobody")
