"""Self-play's league opponents: the rule-based agent's compiled twin deciding all its games at once against the Python
agent asked one game at a time on a reference game kept in step (``euchre_env.envs.mirror.MirroredAgents``): the
same rollout, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="self-play needs the train extra (torch)")

from euchre_env.agents.neural.network import ActorCritic
from euchre_env.agents.registry import make_agent
from euchre_env.agents.rule_based import RuleBasedAgent
from euchre_env.game.rules import Rules
from euchre_env.training.selfplay import SelfPlay


@pytest.mark.parametrize(("preset", "observation"), [("knock", "structured"), ("multiplayer", "absolute"),
                                                    ("bid", "structured")])
def test_the_compiled_rule_based_opponent_gives_the_rollout_of_the_python_one(preset, observation):
    from euchre_env.game.actions import action_table
    from euchre_env.views.structured import make_observer

    rules = Rules.preset(preset)
    model = ActorCritic(make_observer(rules, observation).size, len(action_table(rules)), [16])
    scripted = {"rules": make_agent("rules"), "random": make_agent("random")}
    sp = SelfPlay(rules, model, 8, {"self": 1, "rules": 3, "random": 1}, scripted, reward_scale=1.0,
                  observation=observation)
    fast = sp.collect(600, seed=5, update=1)
    assert sp._batched == {"rules", "random"}

    class PythonRules(RuleBasedAgent):
        """The same play with no compiled twin (a subclass gets none): the Python agent on a reference game."""

    sp.scripted["rules"] = PythonRules()
    slow = sp.collect(600, seed=5, update=1)
    assert sp._batched == {"random"}
    assert fast.margins["rules"] and fast.margins == slow.margins
    for name in ("obs", "mask", "action", "reward", "next_index"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
