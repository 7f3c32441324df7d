"""Invariants over thousands of seeded random games for every preset and the main option sets."""

from __future__ import annotations

import pickle
from collections import Counter

import numpy as np
import pytest

import euchre_env
from euchre_env.game.engine import GameState, Phase, team_of
from euchre_env.game.rules import Rules

TURN_UP = [
    ("knock", {}),
    ("classic", {}),
    ("multiplayer", {}),
    ("classic", {"joker": True}),
    ("classic", {"deck": 32}),
    ("classic", {"joker": True, "deck": 32}),
    ("classic", {"rubber": True, "game_target": 5}),
    ("multiplayer", {"stick_the_dealer": True}),
    ("knock", {"dealer_partner_must_go_alone": True}),
]
# Configurations where random players rarely finish a game (reneges and sets cost points):
# many hands of many games, with the same checks.
LONG = [
    ("knock", {"renege": "penalize"}),
    ("classic", {"renege": "penalize", "joker": True}),
    ("bid", {}),
    ("bid", {"stick_the_dealer": True, "ace_no_face": True}),
    ("bid", {"joker": True}),
    ("bid", {"double_deck": True}),
    ("bid", {"renege": "penalize"}),
]


def _ids(configs):
    return [f"{p}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for p, kw in configs]


def cards_in_play(s: GameState) -> Counter:
    """Every physical card, wherever it is now."""
    where = Counter()
    for hand in s.hands:
        where.update(hand)
    where.update(s.kitty)
    for _, _, cards in s.tricks:
        where.update(cards)
    where.update(s.trick)
    if s.discarded is not None:
        where[s.discarded] += 1
    if s.upcard is not None and not s.upcard_taken:
        where[s.upcard] += 1
    return where


def check_decision_point(s: GameState, full_deck: Counter) -> None:
    assert cards_in_play(s) == full_deck
    legal = s.legal_actions()
    assert legal, f"empty mask in phase {s.phase.name}"
    assert 0 <= s.current_player < 4 and not s.out[s.current_player]
    assert len(set(legal)) == len(legal)


def check_hand_end(s: GameState, rules: Rules, scores_before: list[int]) -> None:
    r = s.hand_result
    thrown_in = r.get("thrown_in") is not None
    assert sum(r["tricks"]) == (0 if thrown_in else rules.tricks_per_hand)
    assert [scores_before[i] + r["points"][i] for i in (0, 1)] == r["scores"]
    if not rules.is_bid and not thrown_in and rules.renege == "masked":
        makers = r["maker_team"]
        # Exactly one team scores in a turn-up hand, and a positive amount.
        assert (r["points"][makers] > 0) != (r["points"][1 - makers] > 0)
    target = rules.game_target
    ended = "game_winner" in r
    hi, lo = max(r["scores"]), min(r["scores"])
    assert ended == (hi >= target and hi != lo), f"game end rule broken at {r['scores']}"
    if ended and not rules.is_bid and rules.renege == "masked":
        assert hi <= target - 1 + 4  # reached during the hand that crossed the target, no earlier


def play_random(rules: Rules, seed: int, max_hands: int, check_every_decision: bool) -> GameState:
    rng = np.random.default_rng(seed)
    s = GameState(rules, rng)
    full_deck = Counter(rules.deck_spec.cards())
    hands = 0
    while True:
        scores_before = list(s.scores)
        while not s.hand_over:
            if check_every_decision:
                check_decision_point(s, full_deck)
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        assert cards_in_play(s) == full_deck
        check_hand_end(s, rules, scores_before)
        hands += 1
        if s.is_over or hands >= max_hands:
            return s
        s.next_hand()


@pytest.mark.parametrize(("preset", "kwargs"), TURN_UP, ids=_ids(TURN_UP))
def test_random_games_turn_up(preset, kwargs):
    rules = Rules.preset(preset, **kwargs)
    for g in range(1000):
        s = play_random(rules, seed=g, max_hands=10_000, check_every_decision=g < 100)
        assert s.is_over and s.winner in (0, 1)
        if rules.rubber:
            w = s.winner
            assert s.games_won[w] == 2 and s.games_won[1 - w] <= 1
            assert s.rubber_margin == s.rubber_points[w] + 2 - s.rubber_points[1 - w] >= 1
        else:
            assert s.scores[s.winner] >= rules.game_target > s.scores[1 - s.winner]


@pytest.mark.parametrize(("preset", "kwargs"), LONG, ids=_ids(LONG))
def test_random_hands_long_games(preset, kwargs):
    rules = Rules.preset(preset, **kwargs)
    for g in range(150):
        play_random(rules, seed=g, max_hands=20, check_every_decision=g < 30)


def test_bid_games_reach_target_with_small_target():
    # check_hand_end asserts at every hand that the game ends exactly when the rule says.
    rules = Rules.preset("bid", game_target=6)
    finished = 0
    for g in range(300):
        s = play_random(rules, seed=g, max_hands=200, check_every_decision=False)
        if s.is_over:
            finished += 1
            assert s.scores[s.winner] >= 6 and s.scores[s.winner] > s.scores[1 - s.winner]
    assert finished >= 200


@pytest.mark.parametrize("preset", euchre_env.PRESETS)
def test_env_random_play_invariants(preset):
    """Through the AEC API: one acting agent with a non-empty mask, zero-sum team rewards."""
    env = euchre_env.env(rules=preset, episode="hand")
    rng = np.random.default_rng(0)
    for episode in range(150):
        env.reset(seed=episode)
        totals = dict.fromkeys(env.agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _info = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            acting = [a for a in env.agents if env.observe(a)["action_mask"].any()]
            assert acting == [agent]
            assert env.observation_space(agent).contains(obs)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert sum(totals.values()) == 0
        assert totals["player_0"] == totals["player_2"] and totals["player_1"] == totals["player_3"]


def test_env_rewards_add_up_to_game_score_difference():
    env = euchre_env.env(rules="knock")
    rng = np.random.default_rng(1)
    for episode in range(30):
        env.reset(seed=100 + episode)
        total0 = 0.0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _info = env.last()
            if agent == "player_0":
                total0 += reward
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        s = env.unwrapped.game.scores
        assert total0 == s[0] - s[1]


def test_win_reward_is_plus_minus_one_at_game_end():
    env = euchre_env.env(rules="knock", reward="win")
    rng = np.random.default_rng(2)
    env.reset(seed=5)
    got = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        if term or trunc:
            got[agent] = reward
            env.step(None)
            continue
        assert reward == 0
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winner = env.unwrapped.game.winner
    assert got == {f"player_{i}": (1.0 if team_of(i) == winner else -1.0) for i in range(4)}


def test_max_steps_truncates():
    env = euchre_env.env(rules="knock", max_steps=25)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 25


def test_engine_determinism_for_a_seed():
    rules = Rules.preset("multiplayer", joker=True)
    a = play_random(rules, seed=42, max_hands=50, check_every_decision=False)
    b = play_random(rules, seed=42, max_hands=50, check_every_decision=False)
    assert a.scores == b.scores and a.history == b.history and a.hand_number == b.hand_number
    assert a.phase == Phase.GAME_OVER


@pytest.mark.parametrize(("preset", "kwargs"), [("multiplayer", {"rubber": True}), ("bid", {"joker": True})])
def test_clone_is_independent_and_replays_identically(preset, kwargs):
    rules = Rules.preset(preset, **kwargs)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s = GameState(rules, seed)
        for _ in range(int(rng.integers(0, 30))):
            if s.hand_over:
                break
            s.apply(s.legal_actions()[0])
        before = pickle.dumps(s)
        c = s.clone()
        for state in (c, s):  # the same random continuation, the next deal included
            steps = np.random.default_rng(seed)
            while not state.hand_over:
                legal = state.legal_actions()
                state.apply(legal[steps.integers(len(legal))])
            if not state.is_over:
                state.next_hand()
        assert pickle.dumps(c) == pickle.dumps(s)
        assert pickle.loads(before).history != s.history or s.hand_number > 0


def test_bad_scripted_next_deal_leaves_the_game_unchanged():
    rules = Rules.preset("knock")
    s = GameState(rules, 3)
    rng = np.random.default_rng(3)
    while not s.hand_over:
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])

    def snapshot(state):  # the game's own fields (the shared deck caches its lookup tables lazily)
        return pickle.dumps({k: v for k, v in vars(state).items() if k not in ("deck", "table", "rules")})

    before = snapshot(s)
    with pytest.raises(ValueError, match="ZZ"):
        s.next_hand({"dealer": 2, "hands": [["ZZ"] * 5] * 4, "upcard": "9H"})
    assert snapshot(s) == before
