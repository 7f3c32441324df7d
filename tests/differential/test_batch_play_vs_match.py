"""The evaluation's batched hand match (``evaluation/batch_play.py``: compiled twins, and every other agent asked on a
reference game kept in step beside the batch) against its one-by-one path on the engine (``MatchRunner.play_deal``):
the same records, deal for deal."""

from __future__ import annotations

import os

import pytest

from euchre_env.evaluation.batch_play import play_hand_deals
from euchre_env.evaluation.match import Match, MatchRunner
from euchre_env.game.rules import Rules

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")  # small checkpoints of the tests


@pytest.mark.parametrize("a, b, preset", [
    (f"{FIXTURES}/knock_structured.pt", "rules", "knock"),     # structured network against the rule-based agent
    ("random", f"{FIXTURES}/knock_absolute_v1.pt", "knock"),   # absolute network as B
    (f"{FIXTURES}/knock_structured.pt", f"{FIXTURES}/knock_absolute_v1.pt", "knock"),  # two observations: one batched
    (f"{FIXTURES}/bid_structured.pt", "rules", "bid"),
    ("rules", "random", "classic"),                           # the compiled rule-based agent, no network
    ("random", "rules", "multiplayer"),
])
def test_batched_deals_give_the_one_by_one_records(a, b, preset):
    """Hand matches with a greedy network or the rule-based agent run on the batched engine; the records are
    those of the plain path."""
    runner = MatchRunner(Match(a, b, Rules.preset(preset), seed=17))
    batched = play_hand_deals(runner.match, [side[0] for side in runner.agents], 5, 45)
    assert batched == [runner.play_deal(i) for i in range(5, 45)]
    assert runner.play_deals(5, 45) == batched  # and play_deals takes that path
    assert any(r.diff0 != 0 for r in batched)


def test_a_search_agent_beside_the_batch_gives_the_one_by_one_records():
    """PIMC has no compiled twin: it is asked one game at a time on a reference game kept in step with the batch,
    against the rule-based agent's twin deciding all its games at once."""
    runner = MatchRunner(Match("pimc:2", "rules", Rules.preset("knock"), seed=3))
    assert play_hand_deals(runner.match, [side[0] for side in runner.agents], 0, 4) == \
        [runner.play_deal(i) for i in range(4)]
