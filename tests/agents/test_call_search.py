"""The call search (``calls:[N:]CKPT``): its spec, the network's cards unsearched, its calls valued by the network's
own play to the end of the hand, and its equality with the anchored search so configured."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("torch", reason="the search plays a network: it needs the train extra (torch)")

from test_anchored_search import KNOCK, _decisions  # the same random knock decisions

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.registry import check_spec, make_agent
from euchre_env.agents.search.anchored import AnchoredSearchAgent
from euchre_env.agents.search.calls import CALL_KINDS, DEFAULT_CALL_WORLDS, CallSearchAgent
from euchre_env.game.phases import Phase


def test_the_spec_builds_the_agent_and_bad_input_is_one_line():
    agent = make_agent(f"calls:6:{KNOCK}", seed=1)
    assert isinstance(agent, CallSearchAgent) and agent.worlds == 6 and agent.name == f"calls:6:{KNOCK}"
    assert agent.plies is None and agent.kinds == set(CALL_KINDS)
    assert make_agent("calls:knock_belief.pt").worlds == DEFAULT_CALL_WORLDS == 256  # published, by name
    assert make_agent("calls:knock_belief.pt").worlds_from == "belief"  # its head draws the worlds
    for spec, message in [(f"calls:0:{KNOCK}", "worlds must be at least 1"),
                          ("calls:8:missing.pt", "no checkpoint file at 'missing.pt'"),
                          ("calls:8:knock_cfr.npz", "write calls:CHECKPOINT.pt or calls:WORLDS:CHECKPOINT.pt")]:
        for call in (check_spec, make_agent):
            with pytest.raises(ValueError, match=message) as err:
                call(spec)
            assert "\n" not in str(err.value)


def test_cards_are_the_networks_and_calls_are_the_configured_anchored_search():
    """A card play is the network's own, unsearched; a call is the anchored search with the call kinds, no solve
    (``plies=None``) and the same seed: the same action and values."""
    network = NeuralAgent(KNOCK)
    calls = CallSearchAgent(KNOCK, worlds=4, z=-math.inf, seed=5)
    same = AnchoredSearchAgent(KNOCK, worlds=4, z=-math.inf, plies=None, kinds=CALL_KINDS, seed=5)
    kinds = set()
    for info in _decisions(range(5), every=2):
        mine = network.act(None, {"information_state": info})
        action, values = calls.search(info)
        if info.phase == Phase.PLAY:
            assert (action, values) == (mine, None)
        else:
            kinds.add(calls.kind(info, mine))
            assert values is not None and set(values) == set(info.legal_actions)
            assert (action, values) == same.search(info)
            assert "the network's rollouts' mean hand margin" in calls.explain(None, {"information_state": info})[1]
    assert kinds >= {"call", "discard"} and set(calls.searched) <= set(CALL_KINDS)


def test_no_plies_limit_plays_the_hand_out():
    """``plies=None`` values a candidate by the network's play to the end of the hand: the same values as a
    limit past the hand's last card (no solve is reached either way)."""
    infos = [i for i in _decisions(range(4), every=3) if i.phase != Phase.PLAY][:4]
    assert infos
    for info in infos:
        none = AnchoredSearchAgent(KNOCK, worlds=3, z=-math.inf, worlds_from="uniform", plies=None, seed=8)
        past = AnchoredSearchAgent(KNOCK, worlds=3, z=-math.inf, worlds_from="uniform", plies=40, seed=8)
        assert none.search(info) == past.search(info)
    with pytest.raises(ValueError, match="plies must be an integer of at least 0 or None"):
        AnchoredSearchAgent(KNOCK, plies=2.5)
