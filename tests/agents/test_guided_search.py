"""The network-guided search (``search:[N:]CKPT``): its spec, replays that reach every decision, belief weights,
seeding and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the search plays a network: it needs the train extra (torch)")

from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import PolicyNet  # noqa: E402
from euchre_env.agents.registry import build_for_rules, check_spec, make_agent  # noqa: E402
from euchre_env.agents.search.guided import GuidedSearchAgent  # noqa: E402
from euchre_env.envs.vector import VectorEuchre  # noqa: E402
from euchre_env.evaluation import evaluate  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.engine import GameState  # noqa: E402
from euchre_env.game.phases import Phase  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.views.infostate import information_state  # noqa: E402
from euchre_env.views.structured import make_observer  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
KNOCK = os.path.join(FIXTURES, "knock_structured.pt")
BID = os.path.join(FIXTURES, "bid_structured.pt")


@pytest.mark.parametrize("spec, message", [
    ("search:0:" + KNOCK, "worlds must be at least 1"),
    ("search:8", "write search:CHECKPOINT.pt or search:WORLDS:CHECKPOINT.pt"),
    ("search:8:missing.pt", "no checkpoint file at 'missing.pt'"),
])
def test_bad_search_specs_are_one_line(spec, message):
    for call in (check_spec, make_agent):
        with pytest.raises(ValueError) as err:
            call(spec)
        assert message in str(err.value) and "\n" not in str(err.value)


def test_the_spec_sets_the_worlds_and_bid_euchre_is_refused():
    agent = make_agent(f"search:6:{KNOCK}", seed=1)
    assert isinstance(agent, GuidedSearchAgent) and agent.worlds == 6 and agent.name == f"search:6:{KNOCK}"
    assert make_agent(f"search:{KNOCK}").worlds == 32
    with pytest.raises(ValueError, match="does not cover") as err:
        build_for_rules(f"search:4:{BID}")
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="trained for other rules"):
        build_for_rules(f"search:4:{KNOCK}", Rules.preset("classic"))


def _decisions(rules: Rules, seeds: range, every: int = 1) -> list:
    """Information states of random hands at every ``every``-th decision with a choice."""
    rng = np.random.default_rng(0)
    out, k = [], 0
    for seed in seeds:
        state = GameState(rules, seed)
        while not state.hand_over:
            legal = state.legal_actions()
            if len(legal) > 1:
                if k % every == 0:
                    out.append(information_state(state, state.current))
                k += 1
            state.apply(int(rng.choice(legal)))
    return out


def _network(rules: Rules, path) -> str:
    """A small random network for ``rules`` saved at ``path`` (what is checked is the replay, not the play)."""
    torch.manual_seed(0)
    actor = PolicyNet(make_observer(rules, "structured").size, len(action_table(rules)), [8])
    save_checkpoint(model_payload(actor, rules, "structured"), str(path))
    return str(path)


@pytest.mark.parametrize("preset, options", [
    ("knock", {}), ("knock", {"defend_alone": True}), ("classic", {"joker": True}), ("multiplayer", {"deck": 32}),
    ("knock", {"dealer_partner_must_go_alone": True}),
])
def test_every_decision_is_replayed_and_answered_legally(preset, options, tmp_path):
    """Each world's replay must reach the seat's decision (a wrong dealt hand or hidden discard would make a
    move illegal on the batched engine, or end elsewhere): every phase, mid-trick too, the joker, defending
    alone, the dealer's discard and a partner sitting out."""
    rules = Rules.preset(preset, **options)
    agent = GuidedSearchAgent(_network(rules, tmp_path / "net.pt"), worlds=4, seed=3)
    infos = _decisions(rules, range(10), every=2)
    assert {i.phase for i in infos} >= {Phase.CALL1, Phase.PLAY}
    for info in infos:
        assert agent.act(None, {"information_state": info}) in info.legal_actions


def test_a_seeded_search_repeats_and_the_belief_changes_the_weights():
    infos = _decisions(Rules.preset("knock"), range(4), every=5)
    a = [make_agent(f"search:8:{KNOCK}", seed=5).act(None, {"information_state": i}) for i in infos]
    b = [make_agent(f"search:8:{KNOCK}", seed=5).act(None, {"information_state": i}) for i in infos]
    assert a == b
    weighted = make_agent(f"search:8:{KNOCK}", seed=5)
    uniform = GuidedSearchAgent(KNOCK, worlds=8, belief=False, seed=5)
    late = [i for i in infos if len(i.tricks) >= 1]  # moves seen: the worlds' weights differ
    differ = 0
    for info in late:
        _, with_belief = weighted.search(info)
        _, without = uniform.search(info)
        assert with_belief.keys() == without.keys()  # the same worlds and candidates, other weights
        differ += any(abs(with_belief[a] - without[a]) > 1e-6 for a in with_belief)
    assert differ > 0
    _, why = weighted.explain(None, {"information_state": late[0]})
    assert why.startswith("mean hand margin for your team over 8 weighted worlds")


def test_the_network_is_left_only_for_an_action_better_in_the_worlds():
    """``confidence`` decides when the search overrides its network: never at a huge threshold; at zero, whenever
    another action's weighted mean margin beats the network's own (then the best such action)."""
    infos = _decisions(Rules.preset("knock"), range(3), every=2)
    network = NeuralAgent(KNOCK)
    stubborn = GuidedSearchAgent(KNOCK, worlds=6, confidence=1e9, seed=2)
    eager = GuidedSearchAgent(KNOCK, worlds=6, confidence=0.0, seed=2)
    overrides = 0
    for info in infos:
        mine = network.act(None, {"information_state": info})
        assert stubborn.act(None, {"information_state": info}) == mine
        action, values = eager.search(info)
        if values is None:
            continue
        best = max(values, key=lambda a: (values[a], -a))
        expected = best if values[best] > values[mine] else mine
        assert action == expected or values[action] == values[expected]
        overrides += action != mine
    assert overrides > 0  # a random network is often beaten in its own rollouts
    # The counters by phase: every searched decision, and those where the search left the network.
    searched = sum(len(info.legal_actions) > 1 for info in infos)
    assert sum(eager.searched.values()) == sum(stubborn.searched.values()) == searched
    assert sum(eager.changed.values()) == overrides and not stubborn.changed


def test_the_network_probabilities_are_its_softmax_over_the_legal_actions():
    agent = NeuralAgent(KNOCK)
    rules = agent.rules
    state = GameState(rules, 4)
    venv = VectorEuchre(rules, 1, observation="none")
    venv.reset(options={"deals": [{"dealer": state.dealer, "hands": state.hands, "upcard": state.upcard}]})
    policy = agent.batch_twin(rules)(venv)
    info = information_state(state, state.current)
    obs, mask, frame = agent.encode(info)
    with torch.no_grad():
        probs = torch.softmax(agent.model.masked_logits(torch.as_tensor(obs)[None], torch.as_tensor(mask)[None])[0],
                              -1).double().numpy()
    for a in state.legal_actions():
        got = policy.probabilities(np.array([0]), np.array([a]))[0]
        assert got == pytest.approx(probs[frame.to_canonical_action(a)], rel=1e-5)


def test_it_plays_a_duplicate_match():
    result = evaluate(f"search:4:{KNOCK}", "random", "knock", n=3, seed=2, workers=1)
    assert result.deals == 3 and result.hands == 6
