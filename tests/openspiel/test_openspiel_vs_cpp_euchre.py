"""``python_euchre_knock`` (our engine through OpenSpiel) against OpenSpiel's built-in C++ ``euchre``.

The same deals and the same decisions in both games must give the same seat to act, corresponding legal
actions and the same returns. The mapping is tests/differential/test_openspiel_euchre_vs_engine.py's (which
compares the engines directly): cards ``suit * 6 + rank`` <-> ``rank * 4 + suit``; C++ deals round-robin from
the dealer and asks the maker about going alone after the call (and the dealer's discard), where we take
``order alone`` / ``name S alone``; C++'s dealer may not discard the up-card and discards even when sitting
out (our dealer then does not pick up).
"""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'euchre-env[openspiel]')")

import euchre_env.openspiel  # noqa: E402,F401  (registers the games)
from euchre_env.game.actions import DISCARD, NAME, ORDER, PASS, PLAY  # noqa: E402
from euchre_env.game.phases import Phase  # noqa: E402

cpp = pyspiel.euchre
HANDS = 400


def to_cpp_card(card: int) -> int:
    return (card % 6) * 4 + card // 6


def cpp_action(engine, action: int) -> int:
    a = engine.table.actions[action]
    if a.kind == PASS:
        return cpp.PASS_ACTION
    if a.kind == ORDER:
        return cpp.CLUBS_TRUMP_ACTION + engine.upcard_suit
    if a.kind == NAME:
        return cpp.CLUBS_TRUMP_ACTION + a.arg
    if a.kind in (DISCARD, PLAY):
        return to_cpp_card(a.arg)
    raise AssertionError(f"unexpected action {engine.table.to_str(action)!r}")


def catch_up(ours, theirs, rng: random.Random) -> None:
    """C++ decisions with no counterpart of ours: the maker's alone question, a sitting-out dealer's discard."""
    engine = ours.engine
    while not theirs.is_terminal():
        phase = theirs.current_phase()
        if phase == cpp.Phase.GO_ALONE:
            assert theirs.current_player() == engine.maker
            theirs.apply_action(cpp.GO_ALONE_ACTION if engine.maker_alone else cpp.PLAY_WITH_PARTNER_ACTION)
        elif phase == cpp.Phase.DISCARD and engine.phase != Phase.DISCARD:
            assert engine.out[engine.dealer]  # the dealer's partner went alone: our dealer never picked up
            theirs.apply_action(rng.choice(theirs.legal_actions()))
        else:
            return


@pytest.mark.parametrize(("ours_name", "stick"), [("python_euchre_knock", True), ("python_euchre_classic", False)])
def test_same_hands_same_results_as_cpp_euchre(ours_name: str, stick: bool) -> None:
    game = pyspiel.load_game(ours_name)
    cpp_game = pyspiel.load_game("euchre", {"stick_the_dealer": stick})
    rng = random.Random(31)
    outcomes = set()
    for _ in range(HANDS):
        cards = list(range(24))
        rng.shuffle(cards)
        dealer = rng.randrange(4)
        ours = game.new_initial_state()
        for x in [dealer, *cards[:21]]:
            ours.apply_action(x)
        engine = ours.engine
        theirs = cpp_game.new_initial_state()
        theirs.apply_action(dealer)
        for k in range(20):  # C++ deals its k-th card to seat (dealer + k) % 4
            theirs.apply_action(to_cpp_card(engine.initial_hands[(dealer + k) % 4][k // 4]))
        theirs.apply_action(to_cpp_card(engine.upcard))
        while not ours.is_terminal():
            catch_up(ours, theirs, rng)
            seat = ours.current_player()
            assert theirs.current_player() == seat
            legal = ours.legal_actions()
            mapped = {cpp_action(engine, a) for a in legal}
            cpp_legal = set(theirs.legal_actions())
            if engine.phase == Phase.DISCARD:  # C++'s dealer may not discard the up-card
                mapped.discard(to_cpp_card(engine.upcard))
                legal = [a for a in legal if cpp_action(engine, a) in cpp_legal]
            assert mapped == cpp_legal
            action = rng.choice(legal)
            theirs.apply_action(cpp_action(engine, action))
            ours.apply_action(action)
        catch_up(ours, theirs, rng)
        assert theirs.is_terminal()
        assert ours.returns() == theirs.returns()
        outcomes.add(tuple(ours.returns()))
    assert len(outcomes) >= 6  # makes, marches, euchres, lone marches (and throw-ins in classic) all happened
