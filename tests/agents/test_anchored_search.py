"""The anchored search (``anchored:[N:]CKPT``): its spec, the one-action path, seeding, the confidence gate, the
double-dummy values of a card play, and Bid Euchre refused."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("torch", reason="the search plays a network: it needs the train extra (torch)")

from euchre_env.agents.neural.agent import NeuralAgent
from euchre_env.agents.registry import build_for_rules, check_spec, make_agent
from euchre_env.agents.search.anchored import AnchoredSearchAgent
from euchre_env.agents.search.double_dummy import DoubleDummy, hand_value
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import team_of
from euchre_env.views.infostate import information_state

CHECKPOINTS = os.path.join(os.path.dirname(__file__), "..", "..", "checkpoints")
KNOCK = os.path.join(CHECKPOINTS, "knock.pt")
BID = os.path.join(CHECKPOINTS, "bid.pt")


def _decisions(seeds: range, every: int = 1, single: bool = False) -> list:
    """Information states of random knock hands at every ``every``-th decision with a choice (``single``: the
    decisions with one legal action instead)."""
    rules = Rules.preset("knock")
    rng = np.random.default_rng(0)
    out, k = [], 0
    for seed in seeds:
        state = GameState(rules, seed)
        while not state.hand_over:
            legal = state.legal_actions()
            if (len(legal) == 1) == single:
                if k % every == 0:
                    out.append(information_state(state, state.current))
                k += 1
            state.apply(int(rng.choice(legal)))
    return out


def test_the_spec_builds_the_agent_and_bad_input_is_one_line():
    agent = make_agent(f"anchored:6:{KNOCK}", seed=1)
    assert isinstance(agent, AnchoredSearchAgent) and agent.worlds == 6 and agent.name == f"anchored:6:{KNOCK}"
    assert make_agent("anchored:knock.pt").worlds == 32  # a published checkpoint by name, the default worlds
    assert agent.budget("call") == agent.budget("lead") == 6 and agent.budget("play") == 4
    assert make_agent(f"anchored:64:{KNOCK}").budget("play") == 16
    for spec, message in [(f"anchored:0:{KNOCK}", "worlds must be at least 1"),
                          ("anchored:8:missing.pt", "no checkpoint file at 'missing.pt'")]:
        for call in (check_spec, make_agent):
            with pytest.raises(ValueError, match=message) as err:
                call(spec)
            assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="worlds must be an integer of at least 1"):
        AnchoredSearchAgent(KNOCK, worlds=0)


def test_bid_euchre_is_refused_in_one_line():
    with pytest.raises(ValueError, match="does not cover") as err:
        build_for_rules(f"anchored:4:{BID}")
    assert "\n" not in str(err.value)


def test_one_legal_action_is_played_without_a_search():
    agent = AnchoredSearchAgent(KNOCK, worlds=4, seed=0)
    for info in _decisions(range(2), every=3, single=True):
        assert agent.search(info) == (info.legal_actions[0], None)
    assert not agent.searched and not agent.changed


def test_a_seeded_search_repeats():
    infos = _decisions(range(3), every=4)
    first, second = (AnchoredSearchAgent(KNOCK, worlds=4, z=0.0, seed=7) for _ in range(2))
    assert [first.search(i) for i in infos] == [second.search(i) for i in infos]
    assert first.searched == second.searched and sum(first.searched.values()) == len(infos)


def test_the_gate_keeps_the_network_unless_told_to_take_the_argmax():
    """A huge z never leaves the network; z = -inf plays the best weighted mean (the network kept on ties)."""
    infos = _decisions(range(4), every=2)
    network = NeuralAgent(KNOCK)
    stubborn = AnchoredSearchAgent(KNOCK, worlds=4, z=1e9, seed=2)
    greedy = AnchoredSearchAgent(KNOCK, worlds=4, z=-math.inf, seed=2)
    changed = 0
    for info in infos:
        mine = network.act(None, {"information_state": info})
        assert stubborn.act(None, {"information_state": info}) == mine
        action, values = greedy.search(info)
        best = max(values.values())
        assert values[action] >= best - 1e-9
        assert action == mine or values[mine] < best - 1e-9
        changed += action != mine
    assert not stubborn.changed and sum(stubborn.searched.values()) == len(infos)
    assert sum(greedy.changed.values()) == changed > 0
    assert set(greedy.searched) <= {"call", "alone", "discard", "lead", "play"}


def test_kinds_not_searched_are_the_networks_choice():
    """``kinds`` limits the search to those decision kinds; the network plays the others, counted nowhere."""
    infos = _decisions(range(4), every=2)
    network = NeuralAgent(KNOCK)
    calls = AnchoredSearchAgent(KNOCK, worlds=4, z=-math.inf, kinds=["call", "alone", "discard"], seed=2)
    full = AnchoredSearchAgent(KNOCK, worlds=4, z=-math.inf, seed=2)
    played = 0
    for info in infos:
        mine = network.act(None, {"information_state": info})
        kind = full.kind(info, mine)
        action, values = calls.search(info)
        if kind in ("lead", "play"):
            played += 1
            assert (action, values) == (mine, None)
            assert "not searched" in calls.explain(None, {"information_state": info})[1]
        else:
            assert (action, values) == full.search(info)  # the same worlds and values as the full search
    assert set(calls.searched) <= {"call", "alone", "discard"} and sum(calls.searched.values()) > 0
    assert played > 0
    for bad in (["call", "bid"], [], "call", None, 3):
        with pytest.raises(ValueError, match="kinds must be a non-empty list of call, alone") as err:
            AnchoredSearchAgent(KNOCK, kinds=bad)
        assert "\n" not in str(err.value)
    for bad in ("x", None, float("nan"), True):
        with pytest.raises(ValueError, match=r"AnchoredSearchAgent: the gate's standard errors must be a number "
                                             r"\(-inf: no gate\), got") as err:
            AnchoredSearchAgent(KNOCK, z=bad)
        assert "\n" not in str(err.value)


def test_card_plays_are_valued_by_the_double_dummy_solver_in_their_world():
    """One world: the values are the solver's tricks for each card, as the seat team's points margin."""
    agent = AnchoredSearchAgent(KNOCK, worlds=1, plies=0, seed=11)
    base = agent._table.play_base
    infos = [i for i in _decisions(range(6)) if i.phase == Phase.PLAY and i.trick]
    distinct = 0
    for info in infos:
        _, values = agent.search(info)
        [world], _, _ = agent.draw(info, 1, agent._rng(info))  # the same generator: the world the search drew
        assert sorted(world.hands[info.seat]) == sorted(info.hand)
        maker_team = team_of(info.maker)
        tricks = DoubleDummy(info.rules.deck_spec, info.trump).card_values(world.hands, info.seat, maker_team,
                                                                           trick=info.trick, out=info.out)
        expected = {a: hand_value(info.rules, info.tricks_won[maker_team] + tricks[a - base], maker_team,
                                  team_of(info.seat), None, info.maker_alone, info.defender_alone >= 0)
                    for a in info.legal_actions}
        assert values == expected
        distinct += len(set(values.values())) > 1
    assert len(infos) >= 10 and distinct >= 2  # some decisions where the card matters


@pytest.mark.parametrize("preset, options", [
    ("classic", {"joker": True}), ("classic", {"defend_alone": True}), ("multiplayer", {}),
    ("knock", {"dealer_partner_must_go_alone": True}),
])
def test_every_decision_is_answered_legally(preset, options, tmp_path):
    """The replay and the calling rollouts reach play (or a hand thrown in) in every rules option: the joker's
    suit, defending alone, a partner sitting out; a small random network is enough for that."""
    import torch

    from euchre_env.agents.neural.checkpoint import model_payload, save_checkpoint
    from euchre_env.agents.neural.network import PolicyNet
    from euchre_env.game.actions import action_table
    from euchre_env.views.structured import make_observer

    rules = Rules.preset(preset, **options)
    torch.manual_seed(0)
    actor = PolicyNet(make_observer(rules, "structured").size, len(action_table(rules)), [8])
    save_checkpoint(model_payload(actor, rules, "structured"), str(tmp_path / "net.pt"))
    agent = AnchoredSearchAgent(str(tmp_path / "net.pt"), worlds=2, z=-math.inf, seed=3)
    rng = np.random.default_rng(1)
    for seed in range(3):
        state = GameState(rules, seed)
        while not state.hand_over:
            action = agent.act(None, {"information_state": information_state(state, state.current)})
            assert action in state.legal_actions()
            state.apply(action if rng.random() < 0.5 else int(rng.choice(state.legal_actions())))
    assert agent.searched["call"] + agent.searched["alone"] and agent.searched["play"], agent.searched


def _with_belief(tmp_path, bias: dict[tuple[int, int], float] | None = None) -> str:
    """knock.pt with a belief head of zero weights (uniform beliefs) and ``bias`` on (card, place) logits."""
    import torch

    from euchre_env.agents.neural.belief import BeliefHead
    from euchre_env.agents.neural.checkpoint import load_checkpoint, save_checkpoint
    from euchre_env.game.seats import CARD_PLACES

    data = load_checkpoint(KNOCK)
    head = BeliefHead(int(data["hidden"][-1]), data["rules"].deck_spec.num_ids)
    with torch.no_grad():
        head.out.weight.zero_()
        for (card, place), value in (bias or {}).items():
            head.out.bias[card * len(CARD_PLACES) + place] = value
    data["rules"] = data["rules"].to_dict()
    data["belief"] = head.state_dict()
    path = str(tmp_path / "knock_belief.pt")
    save_checkpoint(data, path)
    return path


def test_worlds_from_is_checked_and_auto_follows_the_checkpoint(tmp_path):
    assert AnchoredSearchAgent(KNOCK, worlds=4).worlds_from == "policy"  # no head
    assert AnchoredSearchAgent(_with_belief(tmp_path), worlds=4).worlds_from == "belief"
    with pytest.raises(ValueError, match="has no belief head to draw worlds from"):
        AnchoredSearchAgent(KNOCK, worlds_from="belief")
    with pytest.raises(ValueError, match="worlds_from must be one of 'auto', 'belief', 'policy', 'uniform'"):
        AnchoredSearchAgent(KNOCK, worlds_from="head")


def test_belief_worlds_are_consistent_and_follow_the_head(tmp_path):
    """Worlds resampled by a head sure that one unseen card lies with the partner put it there far more often than
    uniform worlds do, and every world still agrees with what the seat knows."""
    from euchre_env.agents.search.worlds import world_places
    from euchre_env.game.seats import partner_of

    info = next(i for i in _decisions(range(3)) if i.phase == Phase.PLAY and len(i.hand) == 5)
    rules = info.rules
    unseen = next(c for c in range(rules.deck_spec.num_ids)
                  if c not in info.hand and c not in info.played and c != info.upcard)
    frame = NeuralAgent(KNOCK).encode(info)[2]  # the head speaks in the seat's canonical suit frame
    row = unseen if frame is None else int(frame.card_to_canonical[unseen])
    sure = AnchoredSearchAgent(_with_belief(tmp_path, {(row, 1): 20.0}), worlds=40, seed=3)
    plain = AnchoredSearchAgent(KNOCK, worlds=40, worlds_from="uniform", seed=3)
    rng = np.random.default_rng(0)
    with_partner = {}
    for name, agent in (("belief", sure), ("uniform", plain)):
        worlds, _, _ = agent.draw(info, 40, rng)
        for w in worlds:
            assert w.hands[info.seat] == tuple(sorted(info.hand))
            assert [len(h) for h in w.hands] == list(info.hand_sizes)
        with_partner[name] = np.mean([unseen in w.hands[partner_of(info.seat)] for w in worlds])
        assert all(world_places(w, info.seat, rules.deck_spec.num_ids)[list(info.hand)].sum() == 0 for w in worlds)
    assert with_partner["belief"] == 1.0 and with_partner["uniform"] < 0.6


def test_a_search_on_belief_worlds_answers_legally_and_repeats(tmp_path):
    path = _with_belief(tmp_path)
    for info in _decisions(range(2), every=3):
        a = AnchoredSearchAgent(path, worlds=4, seed=9).act(None, {"information_state": info})
        assert a in info.legal_actions
        assert AnchoredSearchAgent(path, worlds=4, seed=9).act(None, {"information_state": info}) == a


def _engine_at(agent: AnchoredSearchAgent, info, n: int, candidates: list[int]):
    """The search's own setup for a rollout: ``n`` worlds, each copied per candidate, replayed to ``info``."""
    rng = np.random.default_rng(4)
    worlds, deals, discards = agent.draw(info, n, rng)
    venv, policy = agent._engine(n * len(candidates))
    venv.reset(options={"deals": [d for d in deals for _ in candidates]})
    agent._replay(info, venv, policy, np.repeat(discards, len(candidates)), len(candidates))
    return worlds, venv, policy, np.tile(candidates, n), rng


def test_rollout_values_with_no_plies_are_the_card_play_values():
    """A card play valued through the engine with ``plies=0`` (the candidate, then the solve) equals the
    double-dummy value of that card on the world's hands (:meth:`play_values`)."""
    agent = AnchoredSearchAgent(KNOCK, worlds=4, worlds_from="uniform", plies=0, seed=2)
    infos = [i for i in _decisions(range(6)) if i.phase == Phase.PLAY][::3][:6]
    assert infos
    for info in infos:
        candidates = info.honest_plays(list(info.legal_actions), agent._table.play_base)
        worlds, venv, policy, tiled, rng = _engine_at(agent, info, 4, candidates)
        through_engine = agent.rollout_values(info, venv, policy, tiled, rng).reshape(4, len(candidates))
        assert np.array_equal(through_engine, agent.play_values(info, candidates, worlds))


def test_rollout_values_past_the_last_card_are_the_networks_own_play():
    """With more plies than cards left, no solve: each value is the margin of the hand the greedy network plays
    out in that world (the guided search's rollout)."""
    agent = AnchoredSearchAgent(KNOCK, worlds=3, worlds_from="uniform", plies=40, seed=2)
    for info in _decisions(range(4), every=9)[:5]:
        legal = list(info.legal_actions)
        candidates = info.honest_plays(legal, agent._table.play_base) if info.phase == Phase.PLAY else legal
        _, venv, policy, tiled, rng = _engine_at(agent, info, 3, candidates)
        values = agent.rollout_values(info, venv, policy, tiled, rng)
        _, venv2, policy2, tiled2, rng2 = _engine_at(agent, info, 3, candidates)
        assert np.array_equal(values, agent._rollouts(info, venv2, policy2, tiled2, rng2))
    with pytest.raises(ValueError, match="plies must be an integer of at least 0"):
        AnchoredSearchAgent(KNOCK, plies=-1)
