"""Differential test: our engine against OpenSpiel's ``euchre`` (open-spiel >= 2.0.2).

Each hand is dealt identically in both engines, then played with the same random
decisions, and must end with the same result. OpenSpiel plays one hand of
four-player turn-up Euchre; its known differences from our rules are mapped, not
copied (see shared/research/openspiel.md):

* cards: ours ``suit * 6 + rank``, OpenSpiel ``rank * 4 + suit``;
* the deal: OpenSpiel's k-th card goes to seat ``(dealer + k) % 4`` and the up-card
  comes last; we feed it our hands in that order and read its ``card_holder()`` back;
* going alone: we declare it with the order or the name; OpenSpiel asks the declarer
  (29 alone / 30 with partner) after the bid and after the dealer's discard;
* the discard: our dealer may discard the up-card, OpenSpiel's may not, so both
  engines get a discard from the intersection; when our dealer sits out (the
  partner ordered alone in round 1) our dealer does not pick up, while OpenSpiel
  still asks for a discard: any OpenSpiel-legal one is made there;
* defending alone: our ``defend alone`` / ``pass`` map to OpenSpiel's 29 / 30, asked
  of the same defenders in the same order. OpenSpiel (``allow_lone_defender``) also
  asks both defenders when the declarer plays with the partner (its
  ``ApplyGoAloneAction``); our rules allow it only against a lone maker, so there
  both decline (30) and the test checks who is asked;
* scores: OpenSpiel's returns are zero-sum per player; ours are points per team, so
  ``returns[p] == points[team(p)] - points[other team]``.

At every decision the test asserts that the same seat acts and that the legal sets
correspond under this mapping; at the end, the same tricks (leader, cards in play
order, winner), the same trick counts, maker, trump, lone flags, discard and points.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install open-spiel)")

from pyspiel import euchre as os_euchre  # noqa: E402

from euchre_env.game.actions import DEFEND, DISCARD, NAME, ORDER, PASS, PLAY  # noqa: E402
from euchre_env.game.engine import GameState, Phase, partner_of, team_of  # noqa: E402
from euchre_env.game.rules import Rules  # noqa: E402

# At least 2,000 hands per setting; set EUCHRE_DIFF_HANDS higher for a deeper run.
HANDS_PER_SETTING = max(2000, int(os.environ.get("EUCHRE_DIFF_HANDS", "2000")))
PASS_PROBABILITY = 0.7  # chance to pass in a calling round when passing is legal

OS_PASS = os_euchre.PASS_ACTION  # 24
OS_SUIT_BASE = os_euchre.CLUBS_TRUMP_ACTION  # 25..28 = C D H S
OS_ALONE = os_euchre.GO_ALONE_ACTION  # 29
OS_WITH_PARTNER = os_euchre.PLAY_WITH_PARTNER_ACTION  # 30
OS_PHASE = os_euchre.Phase

# (stick_the_dealer, defend_alone) -> our preset with those options for one hand.
SETTINGS = {
    (True, False): ("knock", {}),
    (False, False): ("classic", {}),
    (False, True): ("multiplayer", {}),
    (True, True): ("multiplayer", {"stick_the_dealer": True}),
}
SEEDS = {(True, False): 11, (False, False): 22, (False, True): 33, (True, True): 44}

# Our decision phase -> the OpenSpiel phase that must be current at the same time.
PHASE_MAP = {
    Phase.CALL1: OS_PHASE.BIDDING,
    Phase.CALL2: OS_PHASE.BIDDING,
    Phase.DISCARD: OS_PHASE.DISCARD,
    Phase.DEFEND: OS_PHASE.GO_ALONE,
    Phase.PLAY: OS_PHASE.PLAY,
}


def to_os_card(card: int) -> int:
    """Our card id (suit * 6 + rank) -> OpenSpiel's (rank * 4 + suit)."""
    return (card % 6) * 4 + card // 6


def from_os_card(card: int) -> int:
    return (card % 4) * 6 + card // 4


def make_rules(stick: bool, defend: bool) -> Rules:
    name, overrides = SETTINGS[(stick, defend)]
    rules = Rules.preset(name, **overrides)
    assert (rules.stick_the_dealer, rules.defend_alone, rules.lone_maker) == (stick, defend, True)
    assert rules.deck == 24 and not rules.joker and rules.renege == "masked"
    return rules


def os_action(state: GameState, action: int) -> int:
    """The OpenSpiel action of one of our decisions (the alone flag is sent separately)."""
    a = state.table.actions[action]
    if a.kind == PASS:
        return OS_WITH_PARTNER if state.phase == Phase.DEFEND else OS_PASS
    if a.kind == ORDER:
        return OS_SUIT_BASE + state.upcard_suit
    if a.kind == NAME:
        return OS_SUIT_BASE + a.arg
    if a.kind == DEFEND:
        return OS_ALONE
    if a.kind in (DISCARD, PLAY):
        return to_os_card(a.arg)
    raise AssertionError(f"unexpected action {state.table.to_str(action)!r} in phase {state.phase.name}")


def random_deal(rng: random.Random) -> dict:
    cards = list(range(24))
    rng.shuffle(cards)
    return {"dealer": rng.randrange(4), "hands": [cards[5 * s : 5 * s + 5] for s in range(4)], "upcard": cards[20]}


def os_state_for(game, deal: dict):
    """An OpenSpiel state after its chance nodes, dealt exactly as ``deal``."""
    st = game.new_initial_state()
    dealer, hands = deal["dealer"], deal["hands"]
    st.apply_action(dealer)
    for k in range(20):  # OpenSpiel gives its k-th card to seat (dealer + k) % 4
        st.apply_action(to_os_card(hands[(dealer + k) % 4][k // 4]))
    st.apply_action(to_os_card(deal["upcard"]))
    # Check the deal OpenSpiel reports, rather than trusting the dealing order above.
    assert not st.is_chance_node()
    assert st.dealer() == dealer
    assert st.upcard() == to_os_card(deal["upcard"])
    holder = st.card_holder()
    for seat, hand in enumerate(hands):
        for card in hand:
            assert holder[to_os_card(card)] == seat, (seat, card)
    assert sum(h is None for h in holder) == 4
    return st


def choose(rng: random.Random, state: GameState, options: list[int]) -> int:
    """A random decision, biased to pass while calling so round 2 and throw-ins happen."""
    if state.phase in (Phase.CALL1, Phase.CALL2):
        pass_id = state.table.pass_id
        if pass_id in options and (len(options) == 1 or rng.random() < PASS_PROBABILITY):
            return pass_id
        options = [a for a in options if a != pass_id]
    return rng.choice(options)


def defenders_in_order(ours: GameState) -> list[int]:
    """The two defenders in table order from the dealer's left."""
    seats = [(ours.dealer + 1 + k) % 4 for k in range(4)]
    return [seat for seat in seats if team_of(seat) != team_of(ours.maker)]


def catch_up(ours: GameState, st, rng: random.Random, extra: dict, stats: Counter) -> None:
    """Make OpenSpiel's decisions that have no counterpart in our engine.

    These are the declarer's alone flag (we took it with the bid), the discard of a
    dealer who sits out, and OpenSpiel's defend-alone question against a maker who
    plays with a partner. ``extra`` records what was made this hand.
    """
    while not st.is_terminal():
        phase = st.current_phase()
        if phase == OS_PHASE.DISCARD and ours.phase != Phase.DISCARD:
            # Our dealer sits out (the partner ordered alone) and did not pick up.
            dealer = ours.dealer
            assert ours.out[dealer] and ours.maker == partner_of(dealer) and ours.maker_alone
            assert not ours.turned_down and not ours.upcard_taken
            assert ours.hands[dealer] == sorted(ours.initial_hands[dealer])
            assert st.current_player() == dealer
            assert sorted(st.legal_actions()) == sorted(to_os_card(c) for c in ours.hands[dealer])
            st.apply_action(rng.choice(st.legal_actions()))
            stats["os-only discard (dealer sits out)"] += 1
        elif phase == OS_PHASE.GO_ALONE and not extra["declared"]:
            assert ours.maker >= 0 and st.current_player() == ours.maker == st.declarer()
            assert sorted(st.legal_actions()) == [OS_ALONE, OS_WITH_PARTNER]
            st.apply_action(OS_ALONE if ours.maker_alone else OS_WITH_PARTNER)
            extra["declared"] = True
        elif phase == OS_PHASE.GO_ALONE and ours.phase != Phase.DEFEND:
            # OpenSpiel asks its defenders against a maker with a partner too; our
            # rules allow defending alone only against a lone maker, so they decline.
            assert ours.rules.defend_alone and not ours.maker_alone and ours.phase == Phase.PLAY
            asked = extra["os_only_defender_questions"]
            assert asked < 2 and st.current_player() == defenders_in_order(ours)[asked]
            assert sorted(st.legal_actions()) == [OS_ALONE, OS_WITH_PARTNER]
            st.apply_action(OS_WITH_PARTNER)
            extra["os_only_defender_questions"] = asked + 1
            stats["os-only defender question (maker has a partner)"] += 1
        else:
            break


def check_same_decision(ours: GameState, st) -> list[int]:
    """Assert both engines wait on the same seat with corresponding legal sets.

    Returns our legal actions that OpenSpiel also allows (all of them but the
    up-card discard).
    """
    assert not st.is_terminal() and not st.is_chance_node()
    assert st.current_phase() == PHASE_MAP[ours.phase], (st.current_phase(), ours.phase.name)
    assert st.current_player() == ours.current_player
    legal = ours.legal_actions()
    os_legal = sorted(st.legal_actions())
    mapped = sorted({os_action(ours, a) for a in legal})
    if ours.phase == Phase.DISCARD:
        # Ours: any of the six cards; OpenSpiel: the dealer's five original cards.
        up = to_os_card(ours.upcard)
        assert up in mapped and up not in os_legal
        assert os_legal == [c for c in mapped if c != up]
        return [a for a in legal if os_action(ours, a) != up]
    assert mapped == os_legal, ([ours.table.to_str(a) for a in legal], os_legal)
    if ours.phase in (Phase.CALL1, Phase.CALL2):
        # Each suit bid of OpenSpiel is our plain call and our alone call (lone_maker).
        assert len(legal) == len(os_legal) * 2 - (OS_PASS in os_legal)
    else:
        assert len(legal) == len(os_legal)
    return legal


def check_result(ours: GameState, st, stats: Counter) -> None:
    assert st.is_terminal()
    result = ours.hand_result
    points = result["points"]
    returns = st.returns()
    for p in range(4):
        mine = points[team_of(p)] - points[1 - team_of(p)]
        assert returns[p] == mine, (returns, points)
    if "thrown_in" in result:
        assert result["thrown_in"] == "all passed" and not ours.rules.stick_the_dealer
        assert st.num_passes() == 8 and returns == [0.0] * 4
        stats["thrown in"] += 1
        return
    assert st.declarer() == ours.maker
    assert int(st.trump_suit()) == ours.trump
    assert st.declarer_go_alone() == ours.maker_alone
    assert max(st.lone_defender(), -1) == ours.defender_alone  # OpenSpiel: -3 (invalid player) for nobody
    if ours.upcard_taken:
        assert st.discard() == to_os_card(ours.discarded)
    os_tricks = st.tricks()
    assert len(os_tricks) == len(ours.tricks) == 5
    won = [0, 0]
    for t, (winner, seats, cards) in zip(os_tricks, ours.tricks):
        assert t.leader() == seats[0]
        assert [from_os_card(c) for c in t.cards()] == cards
        assert t.winner() == winner
        won[team_of(t.winner())] += 1
    assert won == result["tricks"] == ours.tricks_won
    makers = team_of(ours.maker)
    made = won[makers]
    stats["round 2 call" if ours.turned_down else "round 1 order"] += 1
    stats["maker alone"] += ours.maker_alone
    stats["defender alone"] += ours.defender_alone >= 0
    stats["euchre"] += made < 3
    stats["lone defender euchre"] += made < 3 and ours.defender_alone >= 0
    stats["march alone"] += made == 5 and ours.maker_alone


def play_hand(game, rules: Rules, deal: dict, rng: random.Random, seed: int, stats: Counter) -> None:
    """Deal ``deal`` in both engines, play it out with shared random decisions, compare."""
    ours = GameState(rules, seed, deal=deal)
    st = os_state_for(game, deal)
    extra = {"declared": False, "os_only_defender_questions": 0}
    try:
        while not ours.hand_over:
            catch_up(ours, st, rng, extra, stats)
            options = check_same_decision(ours, st)
            action = choose(rng, ours, options)
            if ours.phase == Phase.DISCARD:
                stats["dealer discard"] += 1
            if ours.phase == Phase.CALL2 and ours.table.pass_id not in options:
                stats["stuck dealer names"] += 1
            st.apply_action(os_action(ours, action))
            ours.apply(action)
        catch_up(ours, st, rng, extra, stats)
        thrown_in = "thrown_in" in ours.hand_result
        assert extra["declared"] == (not thrown_in)
        if rules.defend_alone and not thrown_in and not ours.maker_alone:
            assert extra["os_only_defender_questions"] == 2
        else:
            assert extra["os_only_defender_questions"] == 0
        check_result(ours, st, stats)
    except AssertionError as err:
        ours_moves = [f"{seat}:{ours.table.to_str(a)}" for _, seat, a in ours.history]
        raise AssertionError(
            f"{err}\nour decisions (seat:action): {ours_moves}\n"
            f"OpenSpiel history (chance actions included): {st.history()}"
        ) from err


def test_card_and_seat_mapping():
    rules = make_rules(True, False)
    deck = rules.deck_spec
    assert sorted(to_os_card(c) for c in range(24)) == list(range(24))
    for c in range(24):
        assert from_os_card(to_os_card(c)) == c
        # OpenSpiel prints suit then rank ("HJ"); we print rank then suit ("JH").
        assert os_euchre.card_string(to_os_card(c))[::-1] == deck.name(c)
    # Both number seats clockwise from the same place: the first bidder is the
    # dealer's left, and each bid passes to seat + 1.
    game = pyspiel.load_game("euchre")
    rng = random.Random(7)
    for _ in range(8):
        deal = random_deal(rng)
        st = os_state_for(game, deal)
        ours = GameState(rules, 0, deal=deal)
        for k in range(4):
            assert st.current_player() == ours.current_player == (deal["dealer"] + 1 + k) % 4
            st.apply_action(OS_PASS)
            ours.apply_str("pass")


@pytest.mark.parametrize(
    ("stick", "defend"),
    list(SETTINGS),
    ids=[f"stick={s}-defend_alone={d}" for s, d in SETTINGS],
)
def test_differential_against_openspiel(stick: bool, defend: bool):
    rules = make_rules(stick, defend)
    game = pyspiel.load_game("euchre", {"stick_the_dealer": stick, "allow_lone_defender": defend})
    rng = random.Random(SEEDS[(stick, defend)])
    stats: Counter = Counter()
    for i in range(HANDS_PER_SETTING):
        deal = random_deal(rng)
        try:
            play_hand(game, rules, deal, rng, i, stats)
        except AssertionError as err:
            raise AssertionError(f"stick={stick} defend_alone={defend} hand {i} (deal {deal}) diverged: {err}") from err
    # Every mapped rule difference must actually have been exercised.
    assert stats["round 1 order"] > 100 and stats["round 2 call"] > 100
    assert stats["dealer discard"] > 100 and stats["os-only discard (dealer sits out)"] > 10
    assert stats["maker alone"] > 100 and stats["march alone"] > 10 and stats["euchre"] > 100
    if stick:
        assert stats["thrown in"] == 0 and stats["stuck dealer names"] > 20
    else:
        assert stats["thrown in"] > 20 and stats["stuck dealer names"] == 0
    if defend:
        assert stats["defender alone"] > 50 and stats["lone defender euchre"] > 10
    else:
        assert stats["defender alone"] == 0
