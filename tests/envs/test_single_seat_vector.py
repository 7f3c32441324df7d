"""SingleSeatVectorEnv as a Gymnasium VectorEnv: spaces, infos, episodes, opponents and bad input.

Its games are SingleSeatEnv's: tests/differential/test_single_seat_vector_vs_single_seat.py compares them step by step.
"""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from euchre_env import SingleSeatVectorEnv
from euchre_env.agents.rule_based import RuleBasedAgent
from euchre_env.game.engine import GameState
from euchre_env.game.errors import IllegalActionError
from euchre_env.views.decision import ask_agent
from euchre_env.views.observation import Observer

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def random_actions(infos: dict, rng: np.random.Generator) -> np.ndarray:
    mask = infos["action_mask"]
    return (rng.random(mask.shape) * mask).argmax(1)


def snapshot(envs: SingleSeatVectorEnv) -> list[np.ndarray]:
    return [a.copy() for a in envs.venv.engine.arrays]


def trajectory(envs: SingleSeatVectorEnv, seed: int, steps: int) -> list[np.ndarray]:
    """What a random learner (seeded ``seed``) sees over ``steps`` steps: observations, rewards and ends."""
    obs, infos = envs.reset()
    rng = np.random.default_rng(seed)
    out = [obs]
    for _ in range(steps):
        obs, rewards, terminated, truncated, infos = envs.step(random_actions(infos, rng))
        out += [obs, rewards, terminated, truncated]
    return out


def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_it_is_a_gymnasium_vector_env_with_batched_spaces():
    envs = SingleSeatVectorEnv("knock", num_envs=8, opponents="rules", observation="structured", seed=1)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space.shape == (834,) and envs.observation_space.shape == (8, 834)
    assert envs.single_action_space.n == 59 and list(envs.action_space.nvec) == [59] * 8
    obs, infos = envs.reset(seed=1)
    assert obs.dtype == np.float32 and envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (8, 59) and infos["action_mask"].any(1).all()
    assert np.array_equal(envs.action_masks(), infos["action_mask"])
    assert (infos["seat"] == 0).all()  # the learner's seat; the partner is an opponent in seat mode


def test_episodes_end_with_a_final_observation_and_the_next_one_is_under_way():
    envs = SingleSeatVectorEnv("bid", num_envs=16, opponents={"random": 1, "rules": 1}, learner="team", seed=2)
    assert [envs.opponent_of(g) for g in (0, 15)] == ["random", "rules"]
    obs, infos = envs.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        obs, rewards, terminated, truncated, infos = envs.step(random_actions(infos, rng))
        done = terminated | truncated
        assert np.isin(infos["seat"], (0, 2)).all() and infos["action_mask"].any(1).all()
        assert (rewards[~done] == 0).all()  # episode="hand": a hand's points come with its end
        if done.any():
            assert np.array_equal(infos["_final_obs"], done)
            assert not np.array_equal(infos["final_obs"][done], obs[done])  # the new episode's first decision
        ended += int(done.sum())
    assert ended > 16


def test_whole_games_and_win_rewards():
    envs = SingleSeatVectorEnv("knock", num_envs=8, opponents="random", episode="game", reward="win", seed=4)
    _, infos = envs.reset()
    rng = np.random.default_rng(1)
    results = []
    for _ in range(400):
        _, rewards, terminated, truncated, infos = envs.step(random_actions(infos, rng))
        results += rewards[terminated].tolist()
        assert (rewards[~(terminated | truncated)] == 0).all()
    assert results and set(results) <= {-1.0, 1.0}


def test_a_network_opponent_and_a_seeded_run_repeats():
    def run() -> list[np.ndarray]:
        envs = SingleSeatVectorEnv("knock", num_envs=6, opponents=os.path.join(FIXTURES, "knock_structured.pt"),
                                   seed=7)
        return trajectory(envs, 7, 30)

    assert same(run(), run())


@pytest.mark.parametrize("threads", [1, 2])
def test_a_network_plays_the_same_from_the_observers_entries_as_from_dense_rows(threads):
    """A checkpoint's CPU form takes the observer's non-zero entries (serial, or in slices on the env's threads
    from 256 waiting games); the same weights in the dense form take dense rows: the same games."""
    torch = pytest.importorskip("torch")
    from euchre_env.agents.neural.agent import NeuralAgent

    path = os.path.join(FIXTURES, "knock_structured.pt")
    sparse = NeuralAgent(path)
    dense = NeuralAgent(sparse.model.copy(dense=True), sparse.rules, observation=sparse.observation)

    def run(agent) -> list[np.ndarray]:
        envs = SingleSeatVectorEnv("knock", num_envs=300, opponents=agent, observation="structured", seed=11,
                                   threads=threads)
        return trajectory(envs, 11, 25)

    before = torch.get_num_threads()
    try:
        assert same(run(sparse), run(dense))
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("preset", ["knock", "bid"])
def test_agent_actions_are_the_agents_choices_in_the_learners_frame(preset):
    """A teacher's choice (the rule-based agent's) at each game's first learner decision, as ``step`` takes it:
    through ``to_absolute`` it is the Python agent's choice on the same deal, with rules in every seat."""
    envs = SingleSeatVectorEnv(preset, num_envs=48, opponents="rules", observation="structured", seed=11)
    _, infos = envs.reset()
    chosen = envs.agent_actions("rules")
    assert infos["action_mask"][np.arange(48), chosen].all()
    absolute = envs.to_absolute(chosen)
    agent = RuleBasedAgent()
    observer = Observer(envs.rules)
    for g in range(48):
        state = GameState(envs.rules, deal=envs.current_deal(g))
        while state.current_player != 0:  # the opponents' and the partner's moves before the learner's first
            state.apply(ask_agent(agent, state, observer))
        assert absolute[g] == ask_agent(agent, state, observer), g
    assert envs.agent_actions("rules") is not chosen and np.array_equal(envs.agent_actions("rules"), chosen)
    with pytest.raises(ValueError, match="agent 'pimc:5' has no compiled twin"):
        envs.agent_actions("pimc:5")


def test_scripted_deals():
    envs = SingleSeatVectorEnv("knock", num_envs=2, opponents="rules", seed=5)
    envs.reset()
    deals = [envs.current_deal(0), envs.current_deal(1)]
    obs, _ = envs.reset(options={"deals": deals})
    again, _ = envs.reset(options={"deals": deals})
    assert np.array_equal(obs, again)
    with pytest.raises(ValueError, match=r"deals\[1\]: deal: card .* is dealt 2 times"):
        envs.reset(options={"deals": [deals[0], dict(deals[1], upcard=deals[1]["hands"][0][0])]})


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
@pytest.mark.parametrize(("actions", "message"), [
    (np.zeros(3, np.int64), r"actions must be 4 integer action ids .*shape \(3,\)"),
    (np.zeros(4, np.float32), r"actions must be 4 integer action ids .*float32"),
    ("play JH", r"actions must be 4 integer action ids"),
    (np.array([0, 0, 59, 0]), r"^illegal action in game 2: 59, out of range 0..58 for seat 0 .* no game was changed$"),
])
def test_bad_actions_are_one_line_and_change_nothing(actions, message, illegal_action):
    """Under ``penalize`` too: what is no action id of the space (SingleSeatEnv's rule) is refused, not penalized."""
    envs = SingleSeatVectorEnv("knock", num_envs=4, opponents="rules", seed=3, illegal_action=illegal_action)
    envs.reset()
    before = snapshot(envs)
    with pytest.raises(ValueError, match=message):
        envs.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(envs)))
    assert envs.num_illegal_actions == 0


def test_an_opponent_without_a_twin_plays_on_the_slow_path_beside_a_compiled_one():
    """PIMC (no compiled twin) in a mix with the rule-based agent: a seeded run repeats, a bad action on the slow path
    is one line and changes nothing (its games' SingleSeatEnv equality: tests/differential)."""
    def run() -> tuple[SingleSeatVectorEnv, list[np.ndarray]]:
        envs = SingleSeatVectorEnv("knock", num_envs=4, opponents={"rules": 1, "pimc:2": 1}, seed=5)
        return envs, trajectory(envs, 5, 12)

    envs, first = run()
    assert [envs.opponent_of(g) for g in range(4)] == ["rules", "rules", "pimc:2", "pimc:2"]
    assert same(first, run()[1])
    actions = envs.action_masks().argmax(1)
    actions[3] = int(np.flatnonzero(~envs.action_masks()[3])[0])
    before = snapshot(envs)
    with pytest.raises(IllegalActionError, match=r"^illegal action in game 3: "):
        envs.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(envs)))


def test_an_illegal_action_names_its_game_and_changes_nothing():
    envs = SingleSeatVectorEnv("knock", num_envs=4, opponents="rules", seed=3)
    _, infos = envs.reset()
    actions = infos["action_mask"].argmax(1)
    actions[2] = int(np.flatnonzero(infos["action_mask"][2] == 0)[0])
    before = snapshot(envs)
    with pytest.raises(IllegalActionError, match=r"^illegal action in game 2: .* no game was changed$"):
        envs.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(envs)))


@pytest.mark.parametrize(("opponents", "copy"), [("rules", True), ("rules", False), ("random", False),
                                                 ("pimc:2", True)])
def test_penalize_leaves_an_illegal_game_as_it_was_with_the_penalty(opponents, copy):
    """``illegal_action="penalize"``: game 1's id is not allowed at its decision. It stays where it was (state,
    observation, mask, seat), gets ``illegal_reward`` and ``infos["illegal_action"]``; the other games step as they
    would have without it (a twin stepped with game 1 legal, rows compared but for game 1's)."""
    kw = {"num_envs": 4, "opponents": opponents, "seed": 7, "copy": copy}
    envs = SingleSeatVectorEnv("classic", illegal_action="penalize", illegal_reward=-2.5, **kw)
    twin = SingleSeatVectorEnv("classic", **kw)
    obs, infos = envs.reset(seed=7)
    twin.reset(seed=7)
    obs, infos = obs.copy(), {k: v.copy() for k, v in infos.items()}
    actions = infos["action_mask"].argmax(1)
    twin_obs, twin_rewards, *_ = twin.step(actions)
    actions[1] = int(np.flatnonzero(infos["action_mask"][1] == 0)[0])
    state = [a[1].copy() for a in snapshot(envs)]
    after, rewards, terminated, truncated, step_infos = envs.step(actions)
    assert step_infos["illegal_action"].tolist() == [False, True, False, False]
    assert rewards[1] == -2.5 and not terminated[1] and not truncated[1] and envs.num_illegal_actions == 1
    assert all(np.array_equal(a[1], b) for a, b in zip(snapshot(envs), state))
    assert np.array_equal(after[1], obs[1]) and np.array_equal(step_infos["action_mask"][1], infos["action_mask"][1])
    assert step_infos["seat"][1] == infos["seat"][1]
    others = [0, 2, 3]
    if opponents != "random":  # random opponents draw from one stream for all games: one game fewer, other draws
        assert np.array_equal(after[others], twin_obs[others])
        assert np.array_equal(rewards[others], twin_rewards[others])


def test_penalize_steps_any_sample_of_the_action_space():
    """TorchRL's GymWrapper and checkers step random samples of ``action_space``: each steps, the games whose id was
    illegal penalized, and the masked games play on; the spaces hold what comes back."""
    envs = SingleSeatVectorEnv("bid", num_envs=8, opponents="rules", illegal_action="penalize", seed=2)
    obs, infos = envs.reset(seed=2)
    envs.action_space.seed(2)
    penalized = ends = 0
    for _ in range(40):
        actions = envs.action_space.sample()
        was_legal = infos["action_mask"][np.arange(8), actions] == 1
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert np.array_equal(infos["illegal_action"], ~was_legal)
        assert (rewards[~was_legal] <= -1).all() and envs.observation_space.contains(obs)
        penalized += int((~was_legal).sum())
        ends += int((terminated | truncated).sum())
    assert penalized == envs.num_illegal_actions > 200 and penalized < 8 * 40
    for _ in range(60):  # masked from here: the episodes go on to their ends
        obs, rewards, terminated, truncated, infos = envs.step(envs.action_masks().argmax(1))
        assert not infos["illegal_action"].any()
        ends += int((terminated | truncated).sum())
    assert ends > 0


def test_masks_are_int8_in_infos_and_bool_from_action_masks():
    """int8 in infos, as the other envs' observations and infos and PettingZoo's classic envs give it (and as
    ``Discrete.sample(mask=)`` takes it); ``action_masks()`` stays bool for MaskablePPO. The same legal actions."""
    envs = SingleSeatVectorEnv("knock", num_envs=3, opponents="rules", seed=1)
    _, infos = envs.reset()
    for step in range(3):  # reset's infos, then two steps'
        if step:
            infos = envs.step(envs.action_masks().argmax(1))[4]
        assert infos["action_mask"].dtype == np.int8 and envs.action_masks().dtype == np.bool_
        assert np.array_equal(infos["action_mask"].astype(bool), envs.action_masks())
        assert all(infos["action_mask"][g, envs.single_action_space.sample(mask=infos["action_mask"][g])]
                   for g in range(3))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"illegal_action": "ignore"}, r"'illegal_action' must be one of \['raise', 'penalize'\], got 'ignore'"),
    ({"illegal_reward": "-1"}, r"'illegal_reward' must be a number, got '-1'"),
    ({"num_envs": 0}, r"'num_envs' must be an int from 1 to 1,048,576, got 0"),
    ({"opponents": "nobody"}, r"unknown agent spec 'nobody'"),
    ({"opponents": {"rules": 0}}, r"opponent 'rules': its weight must be a positive number, got 0"),
    ({"opponents": []}, r"opponents must name at least one opponent"),
    ({"learner": "both"}, r"'learner' must be one of \['seat', 'team'\], got 'both'"),
    ({"seat": 4}, r"'seat' must be a seat 0..3, got 4"),
    ({"observation": "none"}, r"'observation' must be one of"),
    ({"rules": "bid", "opponents": os.path.join(FIXTURES, "knock_structured.pt")}, r"trained for other rules"),
])
def test_bad_arguments_are_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SingleSeatVectorEnv(**{"rules": "knock", "num_envs": 2, **kwargs})
    with pytest.raises(ValueError, match=r"step\(\) before reset\(\)"):
        SingleSeatVectorEnv("knock", num_envs=1).step(np.zeros(1, np.int64))
