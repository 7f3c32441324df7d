"""The CFR bidding agent and its trainer: leaf values against the Python engine, seeded and resumed training,
the tables file, the agent spec and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

from euchre_env.agents.registry import build_for_rules, check_spec, make_agent
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.agents.search.cfr_bidding import (
    AUCTION_ABSTRACT,
    AUCTION_INFOSETS,
    CALL1_CONTEXTS,
    ESTIMATE_BUCKETS,
    FEATURES,
    NUM_INFOSETS,
    STANDING_CLASSES,
    Tables,
    abstract_decision,
    layout,
    named_trump,
)
from euchre_env.cli.main import main
from euchre_env.evaluation import evaluate
from euchre_env.game.actions import action_table
from euchre_env.game.deals import scripted_deal
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.training.cfr import CallingTrees, cfr_pass, leaf_values, train, train_batch
from euchre_env.views.decision import ask_agent
from euchre_env.views.observation import Observer


def _deal(rules, state):
    return scripted_deal(state.dealer, [list(h) for h in state.hands], None if rules.is_bid else state.upcard)


@pytest.mark.parametrize("preset, options", [("knock", {}), ("classic", {"joker": True}),
                                             ("multiplayer", {}), ("knock", {"dealer_partner_must_go_alone": True}),
                                             ("bid", {}), ("bid", {"joker": True, "ace_no_face": True}),
                                             ("bid", {"double_deck": True, "stick_the_dealer": True})])
def test_each_leaf_is_the_hand_the_rule_based_agent_plays_from_its_calls(preset, options):
    """Every path of the calling trees, played out on the batched engine, scores what the Python engine and the
    Python rule-based agent score on the same deal and calls: the leaves' values are right."""
    rules = Rules.preset(preset, **options)
    rng = np.random.default_rng(4)
    trees, deals = CallingTrees(rules), []
    for d in range(6):
        state = GameState(rules, rng)
        deals.append(_deal(rules, state))
        trees.build(state, d, [])
    values = leaf_values(rules, deals, trees, np.random.default_rng(0))
    agent, observer = RuleBasedAgent(), Observer(rules)
    assert len(trees.paths) > 6 * 4  # every order-up and every naming of each deal
    for leaf, path in enumerate(trees.paths):
        state = GameState(rules, deal=deals[trees.deal_of[leaf]])
        for a in path:
            state.apply(a)
        while not state.hand_over:
            state.apply(ask_agent(agent, state, observer))
        points = state.hand_result["points"] if state.hand_result and "points" in state.hand_result else [0, 0]
        assert values[leaf] == points[0] - points[1], (leaf, path)


@pytest.mark.parametrize("preset", ["knock", "classic"])
def test_no_information_set_repeats_in_a_turn_up_tree(preset):
    """Each seat speaks once a round and the rounds have their own contexts, so a turn-up deal's tree meets each
    information set once: applying a node's update at once or after the pass gives the same tables (the published
    knock tables were begun under the first rule)."""
    rules = Rules.preset(preset)
    rng = np.random.default_rng(11)
    trees = CallingTrees(rules)
    for d in range(100):
        state = GameState(rules, rng)
        stack, seen = [trees.build(state, d, [])], []
        while stack:
            node = stack.pop()
            if not isinstance(node, int):
                seen.append(node.infoset)
                stack.extend(c for c in node.children if c is not None)
        assert len(seen) == len(set(seen)) > 0


def test_a_seeded_run_repeats_and_a_resumed_one_goes_on_exactly(tmp_path):
    rules = Rules.preset("knock")
    straight = Tables.empty(rules, seed=9, batch_size=8)
    for _ in range(3):
        train_batch(straight)
    split = Tables.empty(rules, seed=9, batch_size=8)
    train_batch(split)
    split.save(str(tmp_path / "t.npz"))
    resumed = Tables.load(str(tmp_path / "t.npz"))
    for _ in range(2):
        train_batch(resumed)
    assert resumed.deals == straight.deals == 24 and resumed.batches == 3
    assert np.array_equal(resumed.regret, straight.regret) and np.array_equal(resumed.strategy, straight.strategy)
    assert 0 < straight.reached() < NUM_INFOSETS
    assert (straight.regret >= 0).all()  # regret matching+


def test_training_moves_the_strategy_towards_what_wins():
    """After a few hundred deals, the round-one information sets of strong hands (an estimate of four tricks or
    more) call far more often than those of weak ones (under one trick), weighted by how often each was met."""
    tables = Tables.empty(Rules.preset("knock"), seed=1, batch_size=64)
    for _ in range(6):
        train_batch(tables)
    per_estimate = FEATURES // ESTIMATE_BUCKETS
    call1 = tables.strategy[:CALL1_CONTEXTS * FEATURES].reshape(CALL1_CONTEXTS, ESTIMATE_BUCKETS, per_estimate, 3)
    weak, strong = call1[:, :2].sum((0, 1, 2)), call1[:, 8:].sum((0, 1, 2))
    assert weak.sum() > 0 and strong.sum() > 0
    assert strong[1:].sum() / strong.sum() > 0.6 and weak[1:].sum() / weak.sum() < 0.25


def test_the_agent_plays_and_bad_tables_are_one_line(tmp_path):
    path = str(tmp_path / "knock.npz")
    tables = Tables.empty(Rules.preset("knock"), seed=2, batch_size=16)
    train(tables, path, deals=32, progress=False)
    agent = make_agent(f"cfr:5:{path}", seed=1)
    assert agent.pimc.worlds == 5 and agent.name == f"cfr:5:{path}"
    result = evaluate(f"cfr:5:{path}", "random", "knock", n=2, seed=3, workers=1)
    assert result.deals == 2
    with pytest.raises(ValueError, match="were trained for other rules"):
        build_for_rules(f"cfr:{path}", Rules.preset("classic"))
    (tmp_path / "junk.npz").write_bytes(b"not a zip file at all")
    (tmp_path / "other.npz").write_bytes(b"")
    np.savez(tmp_path / "foreign.npz", regret=np.zeros(3))
    for bad, message in [("junk.npz", "is not a readable CFR tables file"),
                         ("other.npz", "is not a readable CFR tables file"),
                         ("foreign.npz", "is not a readable CFR tables file")]:
        with pytest.raises(ValueError) as err:
            build_for_rules(f"cfr:{tmp_path / bad}")
        assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("spec, message", [
    ("cfr:missing.npz", "no CFR tables file at 'missing.npz'"),
    ("cfr:0:x.npz", "worlds must be at least 1"),
    ("cfr:tables.pt", "write cfr:TABLES.npz or cfr:WORLDS:TABLES.npz"),
])
def test_bad_cfr_specs_are_one_line(spec, message):
    with pytest.raises(ValueError) as err:
        check_spec(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_euchre_cfr_trains_resumes_and_refuses_bad_input(tmp_path, capsys):
    out = str(tmp_path / "t.npz")
    assert main(["cfr", "--out", out, "--deals", "16", "--batch", "8", "--no-progress"]) == 0
    assert "CFR tables: 16 deals" in capsys.readouterr().out
    assert main(["cfr", "--out", out, "--deals", "24", "--resume", "--no-progress"]) == 0
    assert Tables.load(out).deals == 24
    bid = str(tmp_path / "bid.npz")
    assert main(["cfr", "--out", bid, "--preset", "bid", "--set", "joker=true", "--deals", "4", "--batch", "4",
                 "--no-progress"]) == 0
    assert f"of {AUCTION_INFOSETS:,} information sets" in capsys.readouterr().out
    assert Tables.load(bid).rules == Rules.preset("bid", joker=True)
    # without --preset a match plays the rules the tables were trained for
    assert main(["eval", f"cfr:2:{bid}", "random", "--hands", "1", "--workers", "1", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith(f"Duplicate evaluation, rules from cfr:2:{bid}: preset bid (joker=True)")
    for argv, message in [(["cfr", "--out", out, "--deals", "8"], "exists: --resume to continue it"),
                          (["cfr", "--out", str(tmp_path / "n.npz")], "give --deals N or --minutes M"),
                          (["cfr", "--out", out, "--deals", "8", "--resume"], "already holds 24 deals"),
                          (["cfr", "--out", str(tmp_path / "b.npz"), "--deals", "8", "--preset", "nope"],
                           "unknown preset")]:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def _auction(rules, seed, bids):
    """A Bid Euchre hand dealt from ``seed`` after the auction calls ``bids`` (action texts) and the decision of the
    seat to speak next."""
    state = GameState(rules, np.random.default_rng(seed))
    strings = action_table(rules).strings
    for text in bids:
        state.apply(strings.index(text))
    seat = state.current
    return state, abstract_decision(rules, state.phase, seat, state.dealer, list(state.hands[seat]), None, -1, -1, -1,
                                    state.legal_actions(), state.contract, state.bidder)


@pytest.mark.parametrize("options, bids, offered, context", [
    # (rules options, the calls so far, the concrete actions of the six abstract ones, the standing-bid class)
    ({}, [], ["pass", "bid 3", "bid 4", "bid 5", "bid help", "bid moon"], 0),
    ({}, ["bid 5"], ["pass", None, None, None, "bid help", "bid moon"], 3),  # an opponent's 5
    ({}, ["bid 3", "pass"], ["pass", "bid 4", "bid 5", None, "bid help", "bid moon"], 5),  # the partner's 3
    ({}, ["bid help"], ["pass", None, None, None, None, "bid moon"], 4),  # an opponent's help
    ({"double_deck": True}, ["bid 8"], ["pass", "bid 9", "bid 10", "bid 11", "bid help", "bid moon"], 3),
    ({"stick_the_dealer": True}, ["pass"] * 3, [None, "bid 3", "bid 4", "bid 5", "bid help", "bid moon"], 0),
])
def test_the_auction_abstraction_maps_each_abstract_bid(options, bids, offered, context):
    rules = Rules.preset("bid", **options)
    state, decision = _auction(rules, 2, bids)
    strings = action_table(rules).strings
    assert [strings[a] if a >= 0 else None for a in decision.concrete] == offered
    position = (state.current - state.dealer - 1) % 4
    assert decision.infoset // FEATURES == position * STANDING_CLASSES + context
    assert decision.infoset < layout(rules)[0]


def test_the_tables_never_claim_an_ace_no_face_redeal():
    """Whatever the hand, the abstract actions map to legal ids and never to the claim."""
    rules = Rules.preset("bid", ace_no_face=True)
    claim, claimable = action_table(rules).ace_no_face_id, 0
    for seed in range(300):
        state, decision = _auction(rules, seed, [])
        claimable += claim in state.legal_actions()
        assert claim not in decision.concrete
        assert all(a in state.legal_actions() for a in decision.concrete if a >= 0)
    assert claimable > 0  # some of those hands could have claimed


def test_a_bid_tree_meets_information_sets_twice_and_the_pass_uses_one_strategy():
    """Seat 2 can face an opponent's 4 after two different histories with the same hand: the same information set
    twice in one tree. The pass reads the tables only (every node of an information set sees the strategy from
    before the deal) and adds the increments of all its nodes into one entry."""
    rules = Rules.preset("bid")
    tables = Tables.empty(rules, seed=0, batch_size=1)
    rng = np.random.default_rng(3)
    tables.regret[:] = rng.random(tables.regret.shape)  # a non-uniform strategy everywhere
    repeated = 0
    for _ in range(8):
        state, trees = GameState(rules, rng), CallingTrees(rules)
        deal = _deal(rules, state)
        root = trees.build(state, 0, [])
        values = leaf_values(rules, [deal], trees, np.random.default_rng(0))
        nodes, stack = [], [root]
        while stack:
            node = stack.pop()
            if not isinstance(node, int):
                nodes.append(node)
                stack.extend(c for c in node.children if c is not None)
        repeated += len(nodes) - len({n.infoset for n in nodes})
        before = tables.regret.copy()
        updates = {}
        cfr_pass(tables, root, values, np.ones(4), 1.0, updates)
        assert np.array_equal(tables.regret, before)  # nothing applied during the pass
        assert set(updates) == {n.infoset for n in nodes}
    assert repeated > 0


def test_bid_euchre_tables_train_and_play_the_auction(tmp_path):
    """Bid Euchre: the auction's information sets are trained, the agent bids from them, names the suit its bid
    was judged on, and plays a match; the file knows its rules and shape."""
    rules = Rules.preset("bid")
    path = str(tmp_path / "bid.npz")
    tables = train(Tables.empty(rules, seed=3, batch_size=8), path, deals=16, progress=False)
    assert tables.regret.shape == layout(rules) == (AUCTION_INFOSETS, AUCTION_ABSTRACT) and tables.reached() > 0
    loaded = Tables.load(path)
    assert loaded.rules == rules and np.array_equal(loaded.strategy, tables.strategy)
    agent = make_agent(f"cfr:2:{path}", seed=1)
    state = GameState(rules, np.random.default_rng(7))
    observer = Observer(rules)
    while state.phase == Phase.AUCTION:
        decision = abstract_decision(rules, state.phase, state.current, state.dealer, list(state.hands[state.current]),
                                     None, -1, -1, -1, state.legal_actions(), state.contract, state.bidder)
        action = ask_agent(agent, state, observer)
        average = tables.average(decision.infoset)
        if average is not None and len(state.legal_actions()) > 1:  # the agent plays its tables' best action
            legal = [a for a, c in enumerate(decision.concrete) if c >= 0]
            assert action == decision.concrete[max(legal, key=lambda a: (average[a], -a))]
        state.apply(action)
    if state.phase == Phase.NAME_TRUMP:
        assert ask_agent(agent, state, observer) == named_trump(rules, list(state.hands[state.current]))
    result = evaluate(f"cfr:2:{path}", "rules", rules, n=2, seed=5, workers=1)
    assert result.deals == 2
    with pytest.raises(ValueError, match="were trained for other rules"):
        build_for_rules(f"cfr:{path}", Rules.preset("knock"))


@pytest.mark.parametrize("name, preset, deals", [("knock_cfr.npz", "knock", 500_000), ("bid_cfr.npz", "bid", 30_000)])
def test_the_published_tables_load_for_their_preset(name, preset, deals):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "checkpoints", name)
    tables = Tables.load(path)
    assert tables.rules == Rules.preset(preset) and tables.deals > deals and tables.reached() > 1000
