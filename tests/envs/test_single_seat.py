"""The single-seat Gymnasium env: API conformance, masks, rewards, opponents, validation."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils import env_checker
from pettingzoo.test import api_test, seed_test

from euchre_env.envs.single_seat import SingleSeatAEC, SingleSeatEnv
from euchre_env.game.errors import IllegalActionError


def _check_env(env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from the checker either
        env_checker.check_env(env, skip_render_check=True)


def _random_action(env, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.action_masks())))


@pytest.mark.parametrize("rules", ["knock", "multiplayer", "bid", "classic"])
@pytest.mark.parametrize("mode", [{}, {"seat": 1}, {"seat": 3, "episode": "game"}, {"team": 0},
                                  {"team": 1, "reward": "win"}])
def test_check_env(rules, mode):
    _check_env(SingleSeatEnv(rules, **mode))


def test_check_env_steps_an_illegal_action():
    """The stock checker samples its step-determinism action before ``reset(seed=123)``, in another
    decision: after the reset that action is illegal, and the check passes through the penalize path
    (with ``illegal_action="raise"`` it fails there)."""
    env = SingleSeatEnv("knock")
    env.action_space.seed(0)
    _check_env(env)
    assert env.num_illegal_actions == 2  # the checker's two identical steps
    strict = SingleSeatEnv("knock", illegal_action="raise")
    strict.action_space.seed(0)
    with pytest.raises(ValueError, match="illegal action"):
        env_checker.check_env(strict, skip_render_check=True)


def test_spaces_and_mask_match_engine():
    env = SingleSeatEnv("multiplayer", seat=2, episode="game")
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    n = env.action_space.n
    assert env.observation_space["action_mask"].shape == (n,)
    for _ in range(3):
        done = False
        while not done:
            legal = env.state.legal_actions()
            assert env.state.current_player == 2 == info["seat"]
            assert np.flatnonzero(obs["action_mask"]).tolist() == list(legal)
            assert np.flatnonzero(info["action_mask"]).tolist() == list(legal)
            assert env.action_masks().dtype == bool and np.flatnonzero(env.action_masks()).tolist() == list(legal)
            assert obs in env.observation_space
            obs, _, term, trunc, info = env.step(_random_action(env, rng))
            done = term or trunc
        assert not obs["action_mask"].any() and not env.action_masks().any() and not info["action_mask"].any()
        obs, info = env.reset()


def test_action_space_sample_is_legal():
    env = SingleSeatEnv("bid", team=1)
    env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(50):
        a = env.action_space.sample()
        assert env.action_masks()[a]
        _, _, term, trunc, _ = env.step(a)
        if term or trunc:
            env.reset()


def _trajectory(seed: int, **kwargs) -> list:
    env = SingleSeatEnv(**kwargs)
    rng = np.random.default_rng(7)
    out = []
    obs, _ = env.reset(seed=seed)
    for _ in range(3):
        done = False
        out.append(obs["observation"].copy())
        while not done:
            a = _random_action(env, rng)
            obs, r, term, trunc, info = env.step(a)
            out += [a, r, obs["observation"].copy(), [h["scores"] for h in info["hand_results"]]]
            done = term or trunc
        obs, _ = env.reset()
    return out


@pytest.mark.parametrize("kwargs", [dict(rules="knock", episode="game"), dict(rules="bid", team=0, opponents="rules")])
def test_reproducible(kwargs):
    a, b = _trajectory(11, **kwargs), _trajectory(11, **kwargs)
    c = _trajectory(12, **kwargs)
    assert env_checker.data_equivalence(a, b)
    assert not env_checker.data_equivalence(a, c)


def _snapshot(env: SingleSeatEnv) -> tuple:
    state = env.state
    return state.phase, state.current_player, list(state.history), [list(h) for h in state.hands]


def test_illegal_action_raise_mode_leaves_state_unchanged():
    env = SingleSeatEnv("knock", seat=1, illegal_action="raise")
    obs, _ = env.reset(seed=5)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    before = _snapshot(env)
    with pytest.raises(ValueError, match="legal: "):
        env.step(illegal)
    assert before == _snapshot(env)
    assert env.num_steps == 0 and env.num_illegal_actions == 0
    assert env_checker.data_equivalence(obs, env._observe())
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # still usable


def test_illegal_action_penalized_by_default():
    env = SingleSeatEnv("knock", seat=1, episode="game", illegal_reward=-2.5, max_steps=3)
    obs, _ = env.reset(seed=5)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    before = _snapshot(env)
    obs2, r, term, trunc, info = env.step(illegal)
    assert before == _snapshot(env)
    assert (r, term, trunc, info["illegal_action"], env.num_illegal_actions) == (-2.5, False, False, True, 1)
    assert info["hand_results"] == [] and env_checker.data_equivalence(obs, obs2)
    _, _, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert info["illegal_action"] is False and env.num_illegal_actions == 1
    _, _, _, trunc, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert trunc and info["illegal_action"]  # attempts count towards max_steps
    env.reset(seed=5)
    with pytest.raises(ValueError, match=rf"action {len(env.table)} is out of range 0\.\.{len(env.table) - 1}$"):
        env.step(len(env.table))  # not in the action space: always an error


def _reset_with_pending_hand(env: SingleSeatEnv) -> dict:
    """Reset to a deal where a hand ends before the learner's first decision; returns the info."""
    for seed in range(200):
        _, info = env.reset(seed=seed)
        if "pending_hand_results" in info:
            return info
    pytest.fail("no deal where a hand ends before the learner's first decision")


def test_illegal_step_delivers_rewards_pending_from_reset():
    env = SingleSeatEnv("knock", episode="game")
    pending = _reset_with_pending_hand(env)["pending_hand_results"]
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, r, _, _, info = env.step(illegal)
    assert r == sum(h["points"][0] - h["points"][1] for h in pending) - 1.0
    assert info["hand_results"] == pending
    _, r, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert r == sum(h["points"][0] - h["points"][1] for h in info["hand_results"])  # delivered once


def test_action_space_pickles_as_plain_discrete_and_deepcopies_bound():
    env = SingleSeatEnv("knock", opponents=lambda obs, info: int(np.flatnonzero(obs["action_mask"])[0]))
    env.reset(seed=0)
    space = pickle.loads(pickle.dumps(env.action_space))
    assert type(space) is spaces.Discrete and space == env.action_space
    clone = copy.deepcopy(env)
    assert clone.action_space._legal_mask.__self__ is clone
    clone.action_space.seed(1)
    for _ in range(20):
        a = clone.action_space.sample()
        assert clone.action_masks()[a]
        _, _, term, _, _ = clone.step(a)
        if term:
            clone.reset()


@pytest.mark.parametrize("rules", ["knock", "multiplayer", "bid"])
@pytest.mark.parametrize("mode", [{"seat": 0}, {"seat": 3}, {"team": 1}])
def test_every_hand_reward_reaches_learner(rules, mode):
    # Random Bid Euchre rarely reaches 32 (random bidders are set, scores drift down): a short game.
    extra = {"game_target": 5} if rules == "bid" else {}
    env = SingleSeatEnv(rules, episode="game", **mode, **extra)
    team = env.team
    rng = np.random.default_rng(1)
    env.reset(seed=2)
    for _ in range(10):
        total, done, last = 0.0, False, None
        while not done:
            _, r, done, trunc, info = env.step(_random_action(env, rng))
            assert not trunc
            total += r
            if info["hand_results"]:
                last = info["scores"]
        assert env.state.is_over and last == env.state.scores
        assert total == last[team] - last[1 - team]
        env.reset()


def test_win_reward_and_hand_episode():
    env = SingleSeatEnv("knock", reward="win", episode="game", team=0)
    rng = np.random.default_rng(4)
    env.reset(seed=4)
    rewards, done = [], False
    while not done:
        _, r, done, _, info = env.step(_random_action(env, rng))
        rewards.append(r)
    assert rewards[-1] == (1.0 if env.state.winner == 0 else -1.0) and not any(rewards[:-1])
    env = SingleSeatEnv("knock", episode="hand")
    env.reset(seed=4)
    done = False
    while not done:
        _, r, done, _, info = env.step(_random_action(env, rng))
    assert len(info["hand_results"]) == 1
    pts = info["hand_result"]["points"]
    assert r == pts[0] - pts[1]


def test_max_steps_truncates():
    env = SingleSeatEnv("knock", episode="game", max_steps=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        _, _, term, trunc, _ = env.step(_random_action(env, rng))
    assert trunc and not term and not env.action_masks().any()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_reset_options():
    env = SingleSeatEnv("knock", episode="game")
    env.reset(seed=0, options={"scores": [9, 9]})
    assert env.state.scores == [9, 9]
    with pytest.warns(UserWarning, match="ignoring unknown reset option.*'bogus'"):  # as in every view
        env.reset(options={"bogus": 1})


def test_rules_opponents_and_callable():
    seen = []

    def first_legal(observation, info):
        assert set(info) >= {"action_mask", "information_state"}
        seen.append("observation" in observation)
        return int(np.flatnonzero(observation["action_mask"])[0])

    class Blind:
        needs_observation = False
        name = "blind"

        def __init__(self):
            self.seeds = []

        def reset(self, seed=None):
            self.seeds.append(seed)

        def act(self, observation, info):
            assert "observation" not in observation
            return int(info["information_state"].legal_actions[-1])

    blind = Blind()
    env = SingleSeatEnv("multiplayer", opponents={1: "rules", 2: first_legal, 3: blind}, episode="game")
    rng = np.random.default_rng(0)
    env.reset(seed=9)
    done = False
    while not done:
        _, _, done, _, _ = env.step(_random_action(env, rng))
    assert seen and all(seen)
    assert len(blind.seeds) == 1 and blind.seeds[0] is not None
    env.reset(seed=9)
    assert blind.seeds[1] == blind.seeds[0]
    assert type(env.opponents[1]).__name__ == "RuleBasedAgent"


def test_illegal_opponent_action_is_reported():
    env = SingleSeatEnv("knock", seat=0, opponents=lambda obs, info: 10_000)
    with pytest.raises(IllegalActionError, match="opponent at seat") as caught:
        for s in range(20):  # some deal lets an opponent speak first
            env.reset(seed=s)
    seat = caught.value.seat
    assert str(caught.value) == (f"opponent at seat {seat} (<lambda>) chose an illegal action: 10000 in phase CALL1; "
                                 f"legal: {', '.join(env.table.strings[a] for a in env.state.legal_actions())}")
    assert isinstance(caught.value, ValueError) and caught.value.action == 10_000


def test_mask_is_built_once_per_step_and_copied_out(monkeypatch):
    """One legal_mask call a step; what the caller gets are copies (tests/envs/test_gym_contract.py: writing
    to them changes nothing), one shared by the observation and the info."""
    import euchre_env.envs.single_seat as single_seat

    calls = []
    real = single_seat.legal_mask
    monkeypatch.setattr(single_seat, "legal_mask", lambda state: calls.append(1) or real(state))
    env = SingleSeatEnv("knock", episode="game", opponents="rules")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    assert len(calls) == 1
    for step in range(2, 12):
        masks = env.action_masks()
        assert obs["action_mask"] is info["action_mask"] and not np.shares_memory(masks, obs["action_mask"])
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
        obs, _, _, _, info = env.step(_random_action(env, rng))
        assert len(calls) == step  # the opponents' masks come from decision.ask_agent, not counted here
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs, _, _, _, info = env.step(illegal)  # changes nothing: the mask stays as it was
    assert info["illegal_action"] and len(calls) == 11


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (dict(rules="nope"), "nope"),
        (dict(rules=3), "3"),
        (dict(seat=4), "4"),
        (dict(seat=0, team=1), "both"),
        (dict(team=2), "2"),
        (dict(episode="match"), "match"),
        (dict(reward="money"), "money"),
        (dict(max_steps=0), "0"),
        (dict(opponents="robot"), "robot"),
        (dict(opponents=5), "5"),
        (dict(opponents={1: "random", 2: "random"}), r"\[3\]"),
        (dict(opponents={0: "random", 1: "random", 2: "random", 3: "random"}), r"\[0\]"),
        (dict(trumpless=True), "trumpless"),
        (dict(illegal_action="ignore"), "ignore"),
        (dict(illegal_reward="-1"), "illegal_reward"),
    ],
)
def test_bad_arguments(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        SingleSeatEnv(**kwargs)


def test_hand_ended_before_first_decision_counts_in_first_step():
    env = SingleSeatEnv("knock", episode="game")
    pending = _reset_with_pending_hand(env)["pending_hand_results"]
    expected = sum(h["points"][0] - h["points"][1] for h in pending)
    before = list(env.state.scores)
    _, r, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    later = sum(h["points"][0] - h["points"][1] for h in info["hand_results"][len(pending):])
    assert info["hand_results"][:len(pending)] == pending and before == pending[-1]["scores"]
    assert r == expected + later


# ---------------------------------------------------------------- SingleSeatAEC
@pytest.mark.parametrize("mode", [{"team": 0}, {"seat": 3, "episode": "game"}, {"team": 1, "rules": "bid"}])
def test_aec_view_passes_pettingzoo_tests(mode):
    kwargs = {"rules": "knock", **mode}
    with warnings.catch_warnings():
        # api_test's generic advice for Dict observations and no render(), and its arbitrary reset option
        warnings.filterwarnings("ignore", message=r"(Observation|ignoring unknown reset|Environment has not)")
        api_test(SingleSeatAEC(SingleSeatEnv(opponents="rules", **kwargs)), num_cycles=100)
    seed_test(lambda: SingleSeatAEC(SingleSeatEnv(**kwargs)), num_cycles=100)


def test_aec_view_gives_the_team_every_hand_reward():
    """The AEC view of a team: the partners take turns as agents and each step rewards both with
    everything the team got until its next decision, as SingleSeatEnv does."""
    aec = SingleSeatAEC(SingleSeatEnv("knock", team=1, episode="game", opponents="rules"))
    rng = np.random.default_rng(3)
    aec.reset(seed=3)
    assert aec.possible_agents == ["player_1", "player_3"]
    step_rewards, final = [], {}
    for agent in aec.agent_iter():
        obs, cum, term, trunc, info = aec.last()
        assert info["seat"] == int(agent[-1]) and set(info) == {"action_mask", "seat", "illegal_action"}
        if term or trunc:
            final[agent] = cum
            aec.step(None)
            continue
        assert obs["action_mask"].any() and np.array_equal(obs["action_mask"], info["action_mask"])
        other = next(a for a in aec.agents if a != agent)
        assert not aec.observe(other)["action_mask"].any()
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert aec.rewards[agent] == aec.rewards[other]
        step_rewards.append(aec.rewards[agent])
    game = aec.env.state
    assert game.is_over and sum(step_rewards) == game.scores[1] - game.scores[0]
    assert set(final) == {"player_1", "player_3"}
