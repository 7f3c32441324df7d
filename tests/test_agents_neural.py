"""NeuralAgent: one plain constructor for a checkpoint path or an in-memory network; clear errors otherwise."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import euchre_env  # noqa: E402
from euchre_env.actions import action_table  # noqa: E402
from euchre_env.agents.checkpoint import CheckpointError, model_payload, save_checkpoint  # noqa: E402
from euchre_env.agents.neural import NeuralAgent  # noqa: E402
from euchre_env.agents.policy import ActorCritic  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.observation import Observer  # noqa: E402
from euchre_env.rules import Rules  # noqa: E402

KNOCK = Rules.preset("knock")
PUBLISHED = os.path.join(os.path.dirname(__file__), "..", "docs", "checkpoints", "knock_ppo.pt")


@pytest.fixture(scope="module")
def model() -> ActorCritic:
    torch.manual_seed(1)
    return ActorCritic(Observer(KNOCK).size, len(action_table(KNOCK)), [8]).eval()


@pytest.fixture(scope="module")
def path(model, tmp_path_factory) -> str:
    out = str(tmp_path_factory.mktemp("neural") / "small.pt")
    save_checkpoint(model_payload(model, KNOCK, [8]), out)
    return out


def play(agent, rules: str = "knock", seed: int = 0, decisions: int = 30) -> list[int]:
    """The agent's actions for every seat of one seeded game (stopping after ``decisions``)."""
    env = euchre_env.env(rules=rules, info_state=True)
    env.reset(seed=seed)
    actions = []
    for _seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        action = None if term or trunc else agent.act(obs, info)
        if action is not None:
            assert obs["action_mask"][action] == 1
            actions.append(action)
        env.step(action)
        if len(actions) == decisions:
            break
    return actions


def test_a_path_loads_the_checkpoint_with_its_rules(path, model):
    agent = NeuralAgent(path)
    assert agent.rules == KNOCK and agent.name == "neural" and agent.greedy and agent.source == path
    assert play(agent) == play(NeuralAgent(model, KNOCK))  # same weights, same greedy play


def test_the_published_checkpoint_loads_and_plays():
    agent = NeuralAgent(PUBLISHED)
    assert len(play(agent, seed=3)) == 30


def test_an_in_memory_network_needs_its_rules(model):
    agent = NeuralAgent(model, KNOCK, seed=2, greedy=False, name="live")
    assert agent.model is model and agent.name == "live" and agent.source == "live"
    with pytest.raises(ValueError, match=r"an in-memory network needs the rules it plays: NeuralAgent\(model, rules\)"):
        NeuralAgent(model)


def test_sampling_is_seeded(path):
    first = play(NeuralAgent(path, greedy=False, seed=5))
    assert play(NeuralAgent(path, greedy=False, seed=5)) == first
    agent = NeuralAgent(path, greedy=False, seed=6)
    agent.reset(5)
    assert play(agent) == first


def test_bad_arguments_are_one_clear_line(path):
    with pytest.raises(TypeError, match=r"rules must be a euchre_env Rules or None, got int 3 \(pass the seed as"):
        NeuralAgent(path, 3)
    with pytest.raises(TypeError, match=r"must be a path to a \.pt file or an ActorCritic network, got dict"):
        NeuralAgent({})
    with pytest.raises(CheckpointError, match=r"^no checkpoint file at 'missing\.pt'$"):
        NeuralAgent("missing.pt")


def test_given_rules_must_be_the_checkpoints(path):
    assert NeuralAgent(path, KNOCK).rules == KNOCK
    with pytest.raises(CheckpointError, match="was trained for other rules: stick_the_dealer=True there, False here"):
        NeuralAgent(path, Rules.preset("classic"))


def test_playing_other_rules_fails_at_the_first_decision(path):
    with pytest.raises(CheckpointError, match="expects observations of"):
        play(NeuralAgent(path), rules="bid")


def test_the_registry_builds_a_named_greedy_agent(path):
    agent = make_agent(path, seed=0)
    assert isinstance(agent, NeuralAgent) and agent.name == path and agent.greedy
    assert not make_agent(path, greedy=False).greedy


def test_a_rewritten_checkpoint_is_read_again(model, tmp_path):
    out = str(tmp_path / "moving.pt")
    save_checkpoint(model_payload(model, KNOCK, [8]), out)
    first = NeuralAgent(out)
    assert NeuralAgent(out).model is first.model  # one read per file version
    other = ActorCritic(Observer(KNOCK).size, len(action_table(KNOCK)), [4])
    save_checkpoint(model_payload(other, KNOCK, [4]), out)
    os.utime(out, ns=(1, 1))  # a different modification time even on a coarse clock
    assert NeuralAgent(out).model is not first.model


def test_observations_of_the_wrong_size_are_refused(path):
    agent = NeuralAgent(path)
    obs = {"observation": np.zeros(5, np.float32), "action_mask": np.ones(len(action_table(KNOCK)), np.int8)}
    with pytest.raises(CheckpointError, match=r"expects observations of \d+ floats, got 5"):
        agent.act(obs, {})
