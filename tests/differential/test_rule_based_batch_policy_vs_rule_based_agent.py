"""RuleBasedBatchPolicy against RuleBasedAgent: the same action at every decision, in every preset and main
option set.

Games run in a ``VectorEuchre`` (observation ``"none"``, whole games) with a reference ``GameState`` per game kept
in step, dealt each hand the vector engine's ``current_deal`` (as
``tests/differential/kernels_vs_engine.py`` does). At every decision with more than one legal action,
``RuleBasedBatchPolicy.absolute_actions`` (all games at once, in a shuffled order) must equal
``RuleBasedAgent``'s choice through ``euchre_env.views.decision.ask_agent`` (the trainer's path); at a
forced decision, the one legal action. Who acts how is set per game: all four seats rule-based, one team, one
seat, or nobody (uniformly random legal actions); the agent's own choices reach what random play rarely does
(made contracts, lone hands, hands defended alone, moons and help bids).

CI compares ``DECISIONS`` decisions per rule set; the full run (the module docstring of
``euchre_env.agents.rule_based.compiled`` gives its result) is

    nice .venv/bin/python -m tests.differential.test_rule_based_batch_policy_vs_rule_based_agent --decisions 100000
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import gc
import sys
import time
from collections import Counter
from typing import Any

import numpy as np
import pytest

from euchre_env.agents.rule_based import compiled
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.agents.rule_based.compiled import RuleBasedBatchPolicy, supports
from euchre_env.compiled import kernels as K
from euchre_env.envs.vector import VectorEuchre
from euchre_env.game.engine import GameState
from euchre_env.game.phases import Phase
from euchre_env.game.rules import OPTIONS, PRESETS, Rules
from euchre_env.views.decision import ask_agent
from tests.differential.kernels_vs_engine import RULE_SETS

DECISIONS = 10_000  # compared per rule set in CI

# The vector engine's rule sets, and the options they leave out or never combine.
RULES: dict[str, dict[str, Any]] = {
    **RULE_SETS,
    "classic+no_lone": {"lone_maker": False},
    "knock+deck32+joker": {"deck": 32, "joker": True},
    "multiplayer+joker+penalize": {"joker": True, "renege": "penalize"},
    "bid+double_deck+ace_no_face": {"double_deck": True, "ace_no_face": True},
    "bid+joker+stick+penalize": {"joker": True, "stick_the_dealer": True, "renege": "penalize"},
}
RULE_BASED_SEATS = ((0, 1, 2, 3), (0, 2), (1,), ())  # per game g: RULE_BASED_SEATS[g % 4] follow the agent


def rules_of(name: str) -> Rules:
    return Rules.preset(name.split("+")[0], **RULES[name])


def compare(name: str, decisions: int, num_envs: int = 16, seed: int = 0, observation: str = "none") -> Counter:
    """Play until ``decisions`` decisions with a choice were compared; AssertionError at the first difference.
    Returns the compared decisions per phase name. With ``observation="structured"`` the vector env takes its
    actions in each seat's canonical frame (as the trainer's), while absolute_actions answers in absolute ids."""
    rules = rules_of(name)
    venv = VectorEuchre(rules, num_envs=num_envs, seed=seed, observation=observation, episode="game", threads=1)
    scripted = RuleBasedBatchPolicy(venv)
    agent = RuleBasedAgent()
    _, _, seat = venv.reset()
    refs = [GameState(rules, deal=venv.current_deal(g)) for g in range(num_envs)]
    rng = np.random.default_rng(seed + 1)
    table = venv.table
    compared: Counter = Counter()
    while sum(compared.values()) < decisions:
        order = rng.permutation(num_envs)
        frames = venv.engine.arrays.st[:, K.FRAME].copy()
        got = dict(zip(order.tolist(), scripted.absolute_actions(order).tolist()))
        assert np.array_equal(venv.engine.arrays.st[:, K.FRAME], frames), f"{name}: actions() changed a frame"
        actions = np.zeros(num_envs, np.int64)
        for g, ref in enumerate(refs):
            assert seat[g] == ref.current_player, f"{name} game {g}: seat {seat[g]} vs {ref.current_player}"
            legal = ref.legal_actions()
            want = ask_agent(agent, ref, None)
            if got[g] != want:
                raise AssertionError(
                    f"{name} game {g} hand {ref.hand_number} step {len(ref.history)} seat {ref.current_player} "
                    f"phase {ref.phase.name}: RuleBasedBatchPolicy {table.describe(got[g])} vs RuleBasedAgent "
                    f"{table.describe(want)}; legal: {table.names(legal)}")
            if len(legal) > 1:
                compared[ref.phase.name] += 1
            rule_based = ref.current_player in RULE_BASED_SEATS[g % len(RULE_BASED_SEATS)]
            actions[g] = want if rule_based else rng.choice(legal)
            ref.apply(int(actions[g]))
            actions[g] = venv.to_canonical(g, int(actions[g]))
        _, _, seat, _, done, info = venv.step(actions)
        for g, ref in enumerate(refs):
            assert bool(info["hand_over"][g]) == ref.hand_over, f"{name} game {g}: hand over"
            if done[g]:
                refs[g] = GameState(rules, deal=venv.current_deal(g))
            elif ref.hand_over:
                ref.next_hand(deal=venv.current_deal(g))
    return compared


def _phases(rules: Rules) -> set[str]:
    """The decision phases of ``rules`` that the CI run must reach with a choice to make."""
    if rules.is_bid:
        return {"AUCTION", "NAME_TRUMP", "PLAY"} | ({"DISCARD"} if rules.joker else set())
    return ({"CALL1", "CALL2", "DISCARD", "PLAY"} | ({"DEFEND"} if rules.defend_alone else set())
            | ({"JOKER_SUIT"} if rules.joker else set()))


@pytest.mark.parametrize("name", list(RULES))
def test_the_same_choice_as_the_python_agent_at_every_decision(name):
    compared = compare(name, DECISIONS, seed=len(name))
    assert sum(compared.values()) >= DECISIONS
    assert _phases(rules_of(name)) <= set(compared), f"phases reached: {dict(compared)}"


def test_absolute_answers_under_the_structured_observation():
    """The trainer's setting: the env's ids are canonical, the answers absolute, the env's frames untouched."""
    assert sum(compare("knock", 3000, seed=5, observation="structured").values()) >= 3000


def test_the_help_exchange_and_lone_hands_are_compared():
    """The rare decisions: the help bidder's give and the partner's give-back, defending alone."""
    assert {"GIVE", "GIVE_BACK"} <= set(compare("bid", 6000, seed=3))
    assert compare("multiplayer", 4000, seed=4)["DEFEND"] > 50


def test_the_check_catches_a_wrong_choice(monkeypatch):
    """The differential check is not vacuous: one card played differently fails it, naming where."""
    actions = RuleBasedBatchPolicy.absolute_actions

    def another_card(self, games):
        out = actions(self, games)
        for i, g in enumerate(games):
            legal = np.flatnonzero(self.venv.engine.mask[g])  # observation "none": the absolute legal ids
            if self.venv.engine.arrays.st[g, K.PH] == Phase.PLAY and len(legal) > 1:
                out[i] = legal[legal != out[i]][0]
                break
        return out

    monkeypatch.setattr(RuleBasedBatchPolicy, "absolute_actions", another_card)
    with pytest.raises(AssertionError, match=r"knock game \d+ hand \d+ step \d+ seat \d phase PLAY: "
                                             r"RuleBasedBatchPolicy 'play \w+' \(id \d+\) "
                                             r"vs RuleBasedAgent 'play \w+'"):
        compare("knock", 200)


def test_supports_every_preset_and_option_and_refuses_one_it_does_not_cover(monkeypatch):
    assert all(supports(Rules.preset(p)) for p in PRESETS)
    assert all(supports(rules_of(name)) for name in RULES)
    venv = VectorEuchre("bid", num_envs=2, observation="none")
    # As if double_deck were declared (euchre_env/game/rules.py) with the twin covering True only.
    monkeypatch.setitem(OPTIONS, "double_deck", dataclasses.replace(OPTIONS["double_deck"], twin=(True,)))
    assert not supports(venv.rules)
    with pytest.raises(ValueError, match=r"does not cover the rules option\(s\) double_deck=False; use RuleBasedAgent"):
        RuleBasedBatchPolicy(venv)
    with pytest.warns(UserWarning, match=r"compiled twin does not cover double_deck=False .*: the Python agent plays"):
        assert RuleBasedAgent().batch_twin(venv.rules) is None


def test_games_are_checked_and_answered_in_order():
    venv = VectorEuchre("knock", num_envs=4, seed=2, observation="none")
    venv.reset()
    scripted = RuleBasedBatchPolicy(venv)
    both = scripted.absolute_actions(np.arange(4))
    assert scripted.absolute_actions(np.array([3, 1])).tolist() == [both[3], both[1]]
    assert scripted.absolute_actions(np.zeros(0, np.int64)).shape == (0,)
    for games, message in [(np.array([4]), r"in 0\.\.3"), (np.array([-1]), r"in 0\.\.3"),
                           (np.zeros((2, 2), np.int64), "1-d array"), (np.array([0.5]), "1-d array")]:
        with pytest.raises(ValueError, match=message):
            scripted.absolute_actions(games)


@pytest.mark.parametrize("name", ["knock", "bid"])
def test_the_parallel_build_answers_as_the_serial_one(name):
    """A vector env on several threads decides in slices, a thread each: the same answers, game for game."""
    serial = VectorEuchre(name, num_envs=600, seed=5, observation="none")
    parallel = VectorEuchre(name, num_envs=600, seed=5, observation="none", threads=2)
    one, many = RuleBasedBatchPolicy(serial), RuleBasedBatchPolicy(parallel)
    serial.reset()
    parallel.reset()
    games = np.arange(0, 600, 2)  # 300 games: above PARALLEL_FROM
    assert games.size >= compiled.PARALLEL_FROM
    for _ in range(60):  # through the calls and the play of several hands
        a, b = one.absolute_actions(np.arange(600)), many.absolute_actions(np.arange(600))
        assert a.tolist() == b.tolist()
        assert one.absolute_actions(games).tolist() == many.absolute_actions(games).tolist() == a[games].tolist()
        serial.step(serial.to_canonical_batch(np.arange(600), a))
        parallel.step(parallel.to_canonical_batch(np.arange(600), b))


def test_the_capsule_decides_as_the_batch_and_keeps_its_policy_alive():
    """The env's whole step calls the decision through ``RuleBasedDecision.capsule`` (engine.h's ``Decision`` in a
    capsule named ``DECISION_CAPSULE``): called here through ctypes, game by game, it answers as ``actions()``, also
    once every other reference to its policy is gone (the capsule holds it)."""
    venv = VectorEuchre("bid", num_envs=64, seed=7, observation="none")
    venv.reset()
    twin = RuleBasedBatchPolicy(venv)
    decision = RuleBasedBatchPolicy(venv).compiled_decision()
    assert decision.slices == 1 and decision.name == "rules"
    capsule = decision.capsule
    del decision
    gc.collect()
    name = b"euchre_env.decision"
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    decide_fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                 ctypes.c_void_p)

    class Decision(ctypes.Structure):
        _fields_ = [("decide", decide_fn), ("policy", ctypes.c_void_p)]

    class Games(ctypes.Structure):  # engine.h's Games
        _fields_ = [*((f, ctypes.c_void_p) for f in ("st", "hands", "dealt", "tc", "ts", "calls")),
                    *((f, ctypes.c_int64) for f in ("n", "nids", "tricks", "rounds"))]

    d = Decision.from_address(get(capsule, name))
    rng = np.random.default_rng(7)
    for _ in range(80):
        a = venv.engine.arrays
        games = Games(*(x.ctypes.data for x in a), a.st.shape[0], a.hands.shape[2], a.tc.shape[1], a.calls.shape[1])
        masks = np.ascontiguousarray(venv.engine.mask, np.uint8)  # observation "none": the absolute legal ids
        got = [d.decide(d.policy, 0, ctypes.byref(games), g, masks[g].ctypes.data) for g in range(64)]
        want = twin.absolute_actions(np.arange(64))
        assert got == want.tolist()
        random = [rng.choice(np.flatnonzero(m)) for m in masks]  # half the games play on at random
        venv.step(venv.to_canonical_batch(np.arange(64), np.where(np.arange(64) % 2, want, random)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=100_000, help="decisions compared per rule set")
    parser.add_argument("--only", default=None, help="one rule set name (default: all)")
    args = parser.parse_args(argv)
    total = 0
    for name in [args.only] if args.only else RULES:
        start = time.perf_counter()
        compared = compare(name, args.decisions, num_envs=64, seed=len(name))
        total += sum(compared.values())
        phases = ", ".join(f"{phase} {n:,}" for phase, n in sorted(compared.items()))
        print(f"{name:30s} {sum(compared.values()):,} decisions identical ({phases}; "
              f"{time.perf_counter() - start:.0f} s)", flush=True)
    print(f"all identical: {total:,} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
