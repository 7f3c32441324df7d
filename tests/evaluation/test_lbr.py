"""The local best response probe (evaluation/lbr.py): its posterior against brute-force enumeration of every
consistent deal, reproducibility, the match and the command line, one-line errors."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest

from euchre_env.agents.registry import make_agent
from euchre_env.agents.search.worlds import World
from euchre_env.evaluation.lbr import LBRAgent, LBRSpec, exploitability, policy_probability
from euchre_env.game.deals import scripted_deal
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, team_of
from euchre_env.views.decision import ask_agent
from euchre_env.views.infostate import information_state

KNOCK = Rules.preset("knock")


def _endgame(frozen: str, seed: int) -> GameState | None:
    """A knock hand played by ``frozen`` (seats 1, 3) and the rule-based agent (seats 0, 2) up to seat 0's play
    in the fourth trick, where seat 0 sees every discard (it dealt, or the up-card was turned down); None if
    this deal gets no such decision."""
    agents = {seat: make_agent(frozen if seat % 2 else "rules", seed + seat) for seat in range(NUM_SEATS)}
    state = GameState(KNOCK, np.random.default_rng(seed))
    while not state.hand_over:
        if state.current == 0 and state.phase == Phase.PLAY and len(state.tricks) == 3:
            hidden_discard = state.upcard_taken and state.dealer != 0
            return None if hidden_discard else state
        state.apply(ask_agent(agents[state.current], state, None))
    return None


def _scenario(frozen: str) -> GameState:
    for seed in range(200):
        state = _endgame(frozen, seed)
        if state is not None and not any(state.out) and len(state.legal_actions()) > 1:
            return state
    raise AssertionError("no endgame found")


def _brute_force(state: GameState, frozen: str) -> dict[tuple, float]:
    """Seat 0's exact posterior over the other seats' current hands: every way to deal the cards it has not seen,
    the hand's true history replayed in each (a deal where a move is illegal has probability 0) and weighed by
    the frozen policy's probability of each of seats 1 and 3's moves (1 or 0 for rules, 1/legal for random)."""
    info = information_state(state, 0)
    agent = make_agent(frozen, 0)
    known = set(info.hand) | set(info.played) | {info.upcard} | ({info.discarded} - {None})
    unknown = [c for c in KNOCK.deck_spec.cards() if c not in known]
    sizes = {s: len(state.hands[s]) for s in (1, 2, 3)}
    played = defaultdict(list)
    for _, plays in (*info.tricks, (None, info.trick)):
        for seat, card in plays:
            played[seat].append(card)
    posterior: dict[tuple, float] = defaultdict(float)
    for c1 in itertools.combinations(unknown, sizes[1]):
        rest = [c for c in unknown if c not in c1]
        for c2 in itertools.combinations(rest, sizes[2]):
            for c3 in itertools.combinations([c for c in rest if c not in c2], sizes[3]):
                now = {1: c1, 2: c2, 3: c3}
                hands = [list(info.initial_hand)] + [list(now[s]) + played[s] for s in (1, 2, 3)]
                game = GameState(KNOCK, 0, deal=scripted_deal(info.dealer, hands, info.upcard))
                weight = 1.0
                for _, seat, action in state.history:
                    legal = game.legal_actions()
                    if action not in legal:
                        weight = 0.0
                        break
                    if seat % 2 and len(legal) > 1:
                        weight *= (1 / len(legal)) if frozen == "random" else float(ask_agent(agent, game, None)
                                                                                   == action)
                    game.apply(action)
                if weight:
                    posterior[tuple(tuple(sorted(now[s])) for s in (1, 2, 3))] += weight
    total = sum(posterior.values())
    return {k: v / total for k, v in posterior.items()}


def _worlds(state: GameState) -> list[World]:
    """Every assignment of seat 0's unseen cards to the other hands and the pile (voids not applied)."""
    info = information_state(state, 0)
    known = set(info.hand) | set(info.played) | {info.upcard} | ({info.discarded} - {None})
    unknown = [c for c in KNOCK.deck_spec.cards() if c not in known]
    sizes = [len(state.hands[s]) for s in (1, 2, 3)]
    out = []
    for c1 in itertools.combinations(unknown, sizes[0]):
        rest = [c for c in unknown if c not in c1]
        for c2 in itertools.combinations(rest, sizes[1]):
            rest2 = [c for c in rest if c not in c2]
            for c3 in itertools.combinations(rest2, sizes[2]):
                pile = [c for c in rest2 if c not in c3] + [c for c in known - set(info.hand) - set(info.played)]
                out.append(World((tuple(sorted(info.hand)), c1, c2, c3), tuple(sorted(pile))))
    return out


def _probe_posterior(bases: list[GameState], weights: np.ndarray) -> dict[tuple, float]:
    out: dict[tuple, float] = defaultdict(float)
    for base, w in zip(bases, weights):
        out[tuple(tuple(sorted(base.hands[s])) for s in (1, 2, 3))] += float(w)
    return {k: v for k, v in out.items() if v > 0}


@pytest.mark.parametrize("frozen", ["rules", "random"])
def test_posterior_matches_brute_force_enumeration(frozen):
    state = _scenario(frozen)
    exact = _brute_force(state, frozen)
    assert 1 < len(exact) <= 7560  # 9 unseen cards: 2, 2, 2 in hand and 3 in the pile at most
    probe = LBRAgent(frozen, floor=0.0, seed=1)
    info = information_state(state, 0)
    bases, weights = probe.posterior(info, worlds=_worlds(state))
    got = _probe_posterior(bases, weights)
    assert got.keys() == exact.keys()
    for key, p in exact.items():
        assert got[key] == pytest.approx(p, rel=1e-9)


def test_sampled_posterior_converges_to_the_exact_one():
    """Uniform worlds weighted by the frozen policy (the probe's default path): the marginal of each card in
    each hand within sampling error of the exact posterior."""
    state = _scenario("rules")
    exact = _brute_force(state, "rules")
    bases, weights = LBRAgent("rules", worlds=1500, floor=0.0, seed=3).posterior(information_state(state, 0))
    got = _probe_posterior(bases, weights)
    for k in range(3):
        for card in KNOCK.deck_spec.cards():
            p = sum(v for key, v in exact.items() if card in key[k])
            q = sum(v for key, v in got.items() if card in key[k])
            assert abs(p - q) < 0.08, (k, card, p, q)


def test_policy_probability():
    state = GameState(KNOCK, np.random.default_rng(0))
    legal = state.legal_actions()
    rules = make_agent("rules", 0)
    chosen = ask_agent(rules, state, None)
    assert [policy_probability(rules, state, a) for a in legal] == [float(a == chosen) for a in legal]
    assert policy_probability(make_agent("random", 0), state, legal[0]) == pytest.approx(1 / len(legal))


def test_decisions_are_seeded_and_beat_nothing_illegal():
    state = _scenario("rules")
    info = {"information_state": information_state(state, 0)}
    first = LBRAgent("rules", worlds=8, rollouts=3, seed=7).explain(None, info)
    again = LBRAgent("rules", worlds=8, rollouts=3, seed=7).explain(None, info)
    assert first == again and first[0] in state.legal_actions()
    assert "posterior worlds" in first[1]


def test_an_unbeatable_guard_plays_the_default_policy():
    """With the guard out of reach the probe plays the rule-based agent's choice; with none, its argmax."""
    state = _scenario("rules")
    info = information_state(state, 0)
    rules_choice = ask_agent(make_agent("rules", 0), state, None)
    assert LBRAgent("rules", worlds=8, rollouts=8, confidence=1e9, seed=2).search(info)[0] == rules_choice
    action, values, _ = LBRAgent("rules", worlds=8, rollouts=8, confidence=0, seed=2).search(info)
    assert values[action] == max(values.values())


def test_match_against_random_is_reproducible():
    a = exploitability("random", KNOCK, 2, seed=5, worlds=4, rollouts=2, workers=1)
    b = exploitability("random", KNOCK, 2, seed=5, worlds=4, rollouts=2, workers=1)
    assert a.deals == 2 and a.agent_a == "lbr(4/2)" and a.agent_b == "random"
    assert [r.diff0 + r.diff1 for r in a.records] == [r.diff0 + r.diff1 for r in b.records]
    assert team_of(0) == 0  # the probe holds team 0 in play 0, team 1 in play 1 (the duplicate layout)


@pytest.mark.parametrize("call,message", [
    (lambda: LBRAgent("nonsense"), "unknown agent spec 'nonsense'"),
    (lambda: LBRAgent("rules", worlds=0), "worlds must be an integer of at least 1"),
    (lambda: LBRAgent("rules", rollouts=True), "rollouts must be an integer of at least 1"),
    (lambda: LBRSpec("rules", rules=Rules.preset("bid"))(0), "Bid Euchre is not covered"),
    (lambda: exploitability("rules", KNOCK, 1, 0), "deals must be at least 2"),
    (lambda: exploitability("knock.pt", Rules.preset("classic"), 2, 0), "knock"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError, match=message) as err:
        call()
    assert "\n" not in str(err.value)


def test_command_line(capsys):
    from euchre_env.cli.main import main

    assert main(["exploit", "random", "--method", "lbr", "--deals", "2", "--worlds", "4", "--rollouts", "2",
                 "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "lbr(4/2)" in out and "points a hand from random" in out
    with pytest.raises(SystemExit) as exit_:
        main(["exploit", "random", "--method", "lbr", "--minutes", "5"])
    assert exit_.value.code == 2
    assert "--minutes is not an option of --method lbr" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["exploit", "rules", "--confidence", "1"])
    assert exit_.value.code == 2
    assert "--confidence is not an option of --method ppo" in capsys.readouterr().err
