"""``split:BIDDER:PLAYER``: the bidder decides every decision before the first card, the player every card play."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.agents.registry import check_spec, make_agent
from euchre_env.agents.split import SplitAgent, split_halves
from euchre_env.evaluation.evaluate import evaluate
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.views.decision import decision_inputs
from euchre_env.views.observation import Observer


@pytest.mark.parametrize("spec, halves", [
    ("split:rules:random", ("rules", "random")),
    ("split:pimc:50:rules", ("pimc:50", "rules")),
    ("split:rules:pimc:8", ("rules", "pimc:8")),
])
def test_the_spec_cuts_at_the_one_colon_that_gives_two_specs(spec, halves):
    assert split_halves(spec) == halves
    check_spec(spec)
    agent = make_agent(spec, seed=1)
    assert isinstance(agent, SplitAgent) and agent.name == spec


@pytest.mark.parametrize("spec, message", [
    ("split:rules", "write split:BIDDER:PLAYER"),
    ("split:rules:nobody", "unknown agent spec 'nobody'"),
    ("split:pimc:0:rules", "worlds must be at least 1"),
])
def test_a_bad_split_is_one_line(spec, message):
    with pytest.raises(ValueError, match=message) as exc:
        check_spec(spec)
    assert "\n" not in str(exc.value)


def test_bidding_goes_to_the_bidder_and_card_play_to_the_player():
    rules = Rules.preset("knock")
    observer = Observer(rules)
    split = make_agent("split:rules:random", seed=3)
    rules_agent, random_agent = make_agent("rules"), make_agent("random")
    split.reset(7)
    random_agent.reset(7)
    rng = np.random.default_rng(0)
    kinds = set()
    for deal in range(6):
        state = GameState(rules, np.random.default_rng(deal))
        while not state.hand_over:
            observation, info = decision_inputs(state, observer)
            want = (random_agent if state.phase == Phase.PLAY else rules_agent).act(observation, info)
            assert split.act(observation, info) == want
            kinds.add(state.phase == Phase.PLAY)
            state.apply(int(rng.choice(state.legal_actions())))
    assert kinds == {True, False}


def test_a_split_of_one_agent_is_that_agent():
    """The rule-based agent split with itself plays every duplicate deal as the rule-based agent does: a margin
    of exactly zero against it."""
    result = evaluate("split:rules:rules", "rules", "knock", n=12, seed=5, workers=1)
    assert result.margin == 0.0 and all(r.diff0 + r.diff1 == 0 for r in result.records)


def test_a_match_reads_its_rules_from_a_split_that_ends_in_a_checkpoint():
    """``euchre eval split:rules:CKPT rules`` takes its rules from the checkpoint half, as for any checkpoint agent
    (it failed with AttributeError when the network was the card player)."""
    from euchre_env.cli.evaluate import match_rules

    rules, text = match_rules(None, [], ["split:rules:knock_150m.pt", "rules"])
    assert rules.preset_name == "knock" and "split:rules:knock_150m.pt" in text
    assert make_agent("split:knock_150m.pt:rules").rules.unlabelled() == rules.unlabelled()
