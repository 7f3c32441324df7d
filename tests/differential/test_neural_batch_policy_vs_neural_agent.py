"""A greedy network's compiled twin (``NeuralBatchPolicy``: the seats encoded from the engine's arrays by the compiled
observer, one forward pass for many games) against ``NeuralAgent`` (the seat's ``InfoState`` encoded by the Python
observer), asked on a reference game kept in step (``euchre_env.envs.mirror.MirroredAgents``): the same action at
every decision with more than one legal action, in random games, under both observations."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("torch", reason="the network agent needs the train extra (torch)")

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.envs.mirror import MirroredAgents
from euchre_env.envs.vector import VectorEuchre

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


@pytest.mark.parametrize(("checkpoint", "preset", "observation"), [
    ("knock_structured.pt", "knock", "structured"), ("knock_absolute_v1.pt", "knock", "absolute"),
    ("bid_structured.pt", "bid", "absolute"),  # the env's observation need not be the network's
])
def test_the_same_choice_as_the_agent_at_every_decision(checkpoint, preset, observation):
    agent = NeuralAgent(os.path.join(FIXTURES, checkpoint))
    venv = VectorEuchre(preset, num_envs=16, seed=2, observation=observation, episode="game", max_hands=None)
    _, mask, _ = venv.reset()
    policy = agent.batch_twin(venv.rules)(venv)
    mirror = MirroredAgents(venv)
    for g in range(venv.num_envs):
        mirror.start(g, [agent] * 4)
    rng = np.random.default_rng(2)
    compared = 0
    for _ in range(150):
        games = np.flatnonzero(mask.sum(1) > 1)
        twin = policy.actions(games, mask[games], rng)
        assert twin.tolist() == [mirror.decide(g) for g in games.tolist()]
        compared += games.size
        actions = (rng.random(mask.shape) * mask).argmax(1)  # random play: decisions the network would not reach
        absolute = venv.to_absolute(actions)
        _, mask, _, _, done, info = venv.step(actions)
        mirror.follow(np.arange(venv.num_envs), absolute)
        for g in np.flatnonzero(info["hand_over"]).tolist():
            if done[g]:
                mirror.start(g, [agent] * 4)
            else:
                mirror.next_hand(g)
    assert compared > 1000
