"""NeuralAgent: one plain constructor for a checkpoint path or an in-memory network; clear errors otherwise.

It encodes its input from the seat's information state, so it plays a checkpoint of either observation in an
env of either observation option; a structured one is invariant under the colour-preserving relabellings and
blind to hidden cards, and the agent holds the actor alone."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.views.test_structured import _relabel_deal

torch = pytest.importorskip("torch")

import euchre_env  # noqa: E402
from euchre_env.agents.neural.agent import NeuralAgent  # noqa: E402
from euchre_env.agents.neural.checkpoint import CheckpointError, model_payload, save_checkpoint  # noqa: E402
from euchre_env.agents.neural.network import ActorCritic, PolicyNet, ValueNet  # noqa: E402
from euchre_env.agents.registry import make_agent  # noqa: E402
from euchre_env.evaluation import evaluate  # noqa: E402
from euchre_env.game.actions import action_table  # noqa: E402
from euchre_env.game.deals import random_deal  # noqa: E402
from euchre_env.game.engine import GameState  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.views.decision import decision_inputs  # noqa: E402
from euchre_env.views.observation import Observer  # noqa: E402
from euchre_env.views.structured import StructuredObserver, colour_relabellings  # noqa: E402

KNOCK = Rules.preset("knock")
V1 = os.path.join(os.path.dirname(__file__), "..", "fixtures", "knock_absolute_v1.pt")  # a version-1 file


@pytest.fixture(scope="module")
def model() -> PolicyNet:
    torch.manual_seed(1)
    return PolicyNet(Observer(KNOCK).size, len(action_table(KNOCK)), [8]).eval()


@pytest.fixture(scope="module")
def path(model, tmp_path_factory) -> str:
    out = str(tmp_path_factory.mktemp("neural") / "small.pt")
    save_checkpoint(model_payload(model, KNOCK), out)
    return out


def structured_checkpoint(folder, rules: Rules, seed: int = 2) -> str:
    """A tiny random actor of the structured observation, saved as a version-2 checkpoint."""
    torch.manual_seed(seed)
    actor = PolicyNet(StructuredObserver(rules).size, len(action_table(rules)), [8])
    out = str(folder / f"structured-{rules.preset_name}.pt")
    save_checkpoint(model_payload(actor, rules, "structured"), out)
    return out


@pytest.fixture(scope="module")
def structured(tmp_path_factory) -> str:
    return structured_checkpoint(tmp_path_factory.mktemp("structured"), KNOCK)


def play(agent, rules: str = "knock", seed: int = 0, decisions: int = 30, observation: str = "absolute",
         info_state: bool = True) -> list[int]:
    """The agent's (absolute) actions for every seat of one seeded game (stopping after ``decisions``)."""
    env = euchre_env.env(rules=rules, info_state=info_state, observation=observation)
    env.reset(seed=seed)
    actions = []
    for _seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        action = None if term or trunc else agent.act(obs, info)
        if action is not None:
            if info_state:
                assert action in info["information_state"].legal_actions
            step = env.to_canonical_action(action)  # the id the env takes (canonical when structured)
            assert obs["action_mask"][step] == 1
            actions.append(action)
            action = step
        env.step(action)
        if len(actions) == decisions:
            break
    return actions


def test_a_path_loads_the_checkpoint_with_its_rules(path, model):
    agent = NeuralAgent(path)
    assert agent.rules == KNOCK and agent.name == "neural" and agent.greedy and agent.source == path
    assert play(agent) == play(NeuralAgent(model, KNOCK))  # same weights, same greedy play


def test_a_version_1_checkpoint_loads_and_plays():
    agent = NeuralAgent(V1)
    assert len(play(agent, seed=3)) == 30


def test_an_in_memory_network_needs_its_rules(model):
    agent = NeuralAgent(model, KNOCK, seed=2, greedy=False, name="live")
    assert agent.model is model and agent.name == "live" and agent.source == "live"
    assert agent.observation == "absolute"
    with pytest.raises(ValueError, match=r"an in-memory network needs the rules it plays: NeuralAgent\(model, rules\)"):
        NeuralAgent(model)
    with pytest.raises(ValueError, match=r"the network takes \d+ inputs, the structured observation of these rules"):
        NeuralAgent(model, KNOCK, observation="structured")
    with pytest.raises(ValueError, match="observation"):
        NeuralAgent(model, KNOCK, observation="pixels")


def test_an_actor_critic_plays_its_actor_and_the_agent_holds_no_critic(structured):
    pair = ActorCritic(Observer(KNOCK).size, len(action_table(KNOCK)), [8])
    for agent in (NeuralAgent(pair, KNOCK), NeuralAgent(structured), NeuralAgent(V1)):
        assert isinstance(agent.model, PolicyNet)
        held = [v for v in vars(agent).values() if isinstance(v, torch.nn.Module)]
        assert held == [agent.model]
        assert not any(isinstance(m, (ValueNet, ActorCritic)) for m in agent.model.modules())
    assert NeuralAgent(pair, KNOCK).model is pair.actor


def test_sampling_is_seeded(path):
    first = play(NeuralAgent(path, greedy=False, seed=5))
    assert play(NeuralAgent(path, greedy=False, seed=5)) == first
    agent = NeuralAgent(path, greedy=False, seed=6)
    agent.reset(5)
    assert play(agent) == first


@pytest.mark.parametrize("kind", ["absolute", "structured"])
def test_action_probabilities_are_the_policy_act_plays(path, structured, kind):
    """Over absolute action ids: greedy, 1 at act's choice; sampling, the softmax it draws from, on the legal
    actions only, and the frequencies of its draws follow it."""
    from euchre_env.views.infostate import information_state

    source = path if kind == "absolute" else structured
    state = GameState(KNOCK, 3)
    info = information_state(state, state.current_player)
    greedy = NeuralAgent(source)
    probs = greedy.action_probabilities(info)
    assert probs.sum() == 1 and probs[greedy.act(None, {"information_state": info})] == 1
    sampler = NeuralAgent(source, greedy=False, seed=0)
    probs = sampler.action_probabilities(info)
    legal = list(info.legal_actions)
    assert np.isclose(probs.sum(), 1) and probs[legal].sum() == probs.sum() and (probs[legal] > 0).all()
    draws = np.bincount([sampler.act(None, {"information_state": info}) for _ in range(2000)],
                        minlength=len(probs)) / 2000
    assert np.abs(draws - probs).max() < 0.05


def test_bad_arguments_are_one_clear_line(path):
    with pytest.raises(TypeError, match=r"rules must be a euchre_env Rules or None, got int 3 \(pass the seed as"):
        NeuralAgent(path, 3)
    with pytest.raises(TypeError, match=r"a path to a \.pt file or a PolicyNet / ActorCritic network, got dict"):
        NeuralAgent({})
    with pytest.raises(CheckpointError, match=r"^no checkpoint file at 'missing\.pt'$"):
        NeuralAgent("missing.pt")


def test_given_rules_must_be_the_checkpoints(path):
    assert NeuralAgent(path, KNOCK).rules == KNOCK
    with pytest.raises(CheckpointError, match="was trained for other rules: stick_the_dealer=True there, False here"):
        NeuralAgent(path, Rules.preset("classic"))


def test_playing_other_rules_fails_at_the_first_decision(path):
    with pytest.raises(CheckpointError, match="was trained for other rules: "):
        play(NeuralAgent(path), rules="bid")
    with pytest.raises(CheckpointError, match="expects observations of"):  # no information state to check them
        play(NeuralAgent(path), rules="bid", info_state=False)


def test_the_registry_builds_a_named_greedy_agent(path):
    agent = make_agent(path, seed=0)
    assert isinstance(agent, NeuralAgent) and agent.name == path and agent.greedy
    assert not make_agent(path, greedy=False).greedy


def test_a_rewritten_checkpoint_is_read_again(model, tmp_path):
    out = str(tmp_path / "moving.pt")
    save_checkpoint(model_payload(model, KNOCK), out)
    first = NeuralAgent(out)
    assert NeuralAgent(out).model is first.model  # one read per file version
    other = PolicyNet(Observer(KNOCK).size, len(action_table(KNOCK)), [4])
    save_checkpoint(model_payload(other, KNOCK), out)
    os.utime(out, ns=(1, 1))  # a different modification time even on a coarse clock
    assert NeuralAgent(out).model is not first.model


def test_observations_of_the_wrong_size_are_refused(path):
    agent = NeuralAgent(path)
    obs = {"observation": np.zeros(5, np.float32), "action_mask": np.ones(len(action_table(KNOCK)), np.int8)}
    with pytest.raises(CheckpointError, match=r"expects observations of \d+ floats \(the absolute observation of its "
                                              r"rules\), got 5: create the env with info_state=True"):
        agent.act(obs, {})


def test_without_an_information_state_it_plays_its_own_encoding_only(path, structured):
    """A plain loop (no info_state): the absolute env's vector is the absolute checkpoint's own input."""
    assert play(NeuralAgent(path), info_state=False) == play(NeuralAgent(path))
    with pytest.raises(CheckpointError, match="expects observations of"):
        play(NeuralAgent(path), info_state=False, observation="structured")
    with pytest.raises(ValueError, match=r"plays the structured observation from info\['information_state'\]: "
                                         "create the env with info_state=True"):
        play(NeuralAgent(structured), info_state=False)


@pytest.mark.parametrize("kind", ["absolute", "structured"])
def test_a_checkpoint_plays_alike_in_envs_of_either_observation(path, structured, kind):
    """It encodes from the information state: the env's own observation option changes nothing."""
    agent = NeuralAgent(path if kind == "absolute" else structured)
    assert agent.observation == kind and not agent.needs_observation
    for seed in range(3):
        first = play(agent, seed=seed, decisions=200)
        assert play(agent, seed=seed, decisions=200, observation="structured") == first


def test_a_structured_checkpoint_through_the_evaluation_harness(structured):
    result = evaluate(structured, "rules", "knock", n=6, seed=0, workers=1)  # raises on any illegal action
    assert result.hands == 12
    sampled = evaluate(lambda seed: NeuralAgent(structured, seed=seed, greedy=False), "random", "knock", n=4,
                       seed=1, workers=1)
    assert sampled.hands == 8


@pytest.mark.parametrize("preset", ["knock", "bid"])
def test_a_structured_agent_is_invariant_under_the_colour_relabellings(tmp_path, preset):
    """On each of the 8 relabellings of a deal it picks the relabelled action (any of them at a symmetry)."""
    rules = Rules.preset(preset)
    agent = NeuralAgent(structured_checkpoint(tmp_path, rules))
    observer = StructuredObserver(rules)
    rng = np.random.default_rng(5)
    decisions = 0
    for _ in range(3):
        deal = random_deal(rules, rng, int(rng.integers(4)))
        deal.pop("kitty")
        for g in colour_relabellings(rules):
            a, b = GameState(rules, 0, deal=deal), GameState(rules, 0, deal=_relabel_deal(deal, g))
            while not a.hand_over:
                seat = a.current_player
                action = agent.act(*decision_inputs(a, None, False))
                chosen = agent.act(*decision_inputs(b, None, False))
                j = observer.frame(a, seat).to_canonical_action(action)  # what the network chose, in its frame
                # Several frames tie only at a symmetry of the seat's state; any of them is then as good.
                assert chosen in {g.to_canonical_action(f.to_absolute_action(j))
                                  for f in observer.canonical_frames(a, seat)}
                a.apply(action)
                b.apply(g.to_canonical_action(action))
                decisions += 1
    assert decisions > 150


@pytest.mark.parametrize("kind", ["absolute", "structured"])
def test_hidden_cards_never_change_the_action(path, structured, kind):
    """Swap unplayed cards between two other hands and between a hand and the kitty: seat 0 acts the same."""
    agent = NeuralAgent(path if kind == "absolute" else structured)
    rng = np.random.default_rng(8)
    compared = 0
    for _ in range(80):
        full = random_deal(KNOCK, rng, int(rng.integers(4)))
        kitty = full.pop("kitty")
        hands = [list(h) for h in full["hands"]]
        x, y = (int(v) for v in rng.choice([1, 2, 3], 2, replace=False))
        i, j = int(rng.integers(len(hands[x]))), int(rng.integers(len(hands[y])))
        hands[x][i], hands[y][j] = hands[y][j], hands[x][i]
        hands[y][int(rng.integers(len(hands[y])))] = int(rng.choice(kitty))
        a, b = GameState(KNOCK, 0, deal=full), GameState(KNOCK, 0, deal=dict(full, hands=hands))
        while not a.hand_over:
            if a.current_player == 0:
                assert agent.act(*decision_inputs(a, None, False)) == agent.act(*decision_inputs(b, None, False))
                compared += 1
            legal = a.legal_actions()
            action = legal[rng.integers(len(legal))]
            if action not in b.legal_actions():
                break  # a moved card was played (or changed what is legal): the histories part here
            a.apply(action)
            b.apply(action)
    assert compared > 40
