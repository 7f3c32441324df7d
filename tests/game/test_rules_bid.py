"""Scenario tests of the ``bid`` preset (Bid Euchre, source 001 FR; RULES.md "Preset bid").

One test (or one parametrized family) per rule. Every test scripts a deal card by card
(every card of the pack is dealt in Bid Euchre) and plays action strings through
``GameState``, or through the PettingZoo env at the end of the file; each action is checked
against the legal actions before it is applied, so a script also tests the mask at every step.

Seats run clockwise, seat 1 at seat 0's left; teams {0, 2} and {1, 3}. Unless a test says
otherwise seat 0 deals, so seat 1 speaks first in the auction.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import act, legal

import euchre_env
from euchre_env import GameState, Phase, Rules

# ============================================================================ helpers


def deal(hands, dealer=0) -> dict:
    """The ``deal`` dict of :class:`GameState` from four space-separated hands."""
    return {"dealer": dealer, "hands": [h.split() for h in hands]}


def game(hands, dealer=0, scores=None, seed=0, **options) -> GameState:
    """A fresh Bid Euchre game (with rule ``options``) whose first hand is ``hands``."""
    return GameState(Rules.preset("bid", **options), seed, deal=deal(hands, dealer), scores=scores)


def plays(*tricks: str) -> list[str]:
    """``"1:JH 2:9S 0:9C"`` trick strings -> ``"1:play JH"`` moves."""
    out = []
    for t in tricks:
        for move in t.split():
            seat, _, card = move.partition(":")
            out.append(f"{seat}:play {card}")
    return out


def play(state: GameState, *tricks: str) -> GameState:
    return act(state, *plays(*tricks))


def cards(state: GameState, seat: int) -> list[str]:
    """The cards seat ``seat`` holds, sorted by notation (duplicates kept)."""
    return sorted(state.deck.name(c) for c in state.hands[seat])


def trick(state: GameState, k: int) -> tuple[int, list[int], list[str]]:
    winner, seats, cs = state.tricks[k]
    return winner, list(seats), [state.deck.name(c) for c in cs]


def winners(state: GameState) -> list[int]:
    return [w for w, _, _ in state.tricks]


def words(text: str) -> list[str]:
    return text.split()


def sort_str(text: str) -> list[str]:
    return sorted(text.split())


# ============================================================================ deals
# TOP: seat 1 holds the six best hearts (JH JD AH KH QH TH); seat 3 holds 9H.
TOP = ("9C TC JC QC KC AC", "JH JD AH KH QH TH", "9S TS JS QS KS AS", "9D TD QD KD AD 9H")
# Hearts trump, seat 1 leading, all four seats playing: seat 1 takes all six.
TOP_PLAY = (
    "1:JH 2:9S 3:9H 0:9C",
    "1:JD 2:TS 3:9D 0:TC",
    "1:AH 2:JS 3:TD 0:JC",
    "1:KH 2:QS 3:QD 0:QC",
    "1:QH 2:KS 3:KD 0:KC",
    "1:TH 2:AS 3:AD 0:AC",
)


def alone(tricks, out_seat: int) -> tuple[str, ...]:
    """The same tricks with seat ``out_seat`` sitting out."""
    return tuple(" ".join(m for m in t.split() if not m.startswith(f"{out_seat}:")) for t in tricks)


# THREE: seat 1 holds three top hearts (JH JD AH) and three 9s; with hearts trump the bidding
# team takes exactly three tricks (seat 1's trumps) and seat 0 the last three with clubs.
THREE = ("QH KH AC KC QC JC", "JH JD AH 9C 9S 9D", "TH 9H AS KS QS JS", "TC TS TD AD KD QD")
THREE_PLAY = (
    "1:JH 2:9H 3:TC 0:QH",
    "1:JD 2:TH 3:TS 0:KH",
    "1:AH 2:JS 3:TD 0:JC",
    "1:9C 2:QS 3:QD 0:AC",
    "0:KC 1:9S 2:KS 3:KD",
    "0:QC 1:9D 2:AS 3:AD",
)
THREE_WINNERS = [1, 1, 1, 0, 0, 0]

# LEFT: the left bower JD sits with seat 0 (no other diamond, no heart); the right bower JH
# with seat 3. Seat 1 bids 3 and names hearts.
LEFT = ("JD 9C TC QC KC AC", "AD 9H TH QH KH AH", "9S TS JS QS KS AS", "JH 9D TD QD KD JC")


def auction_to_play(state: GameState, bidder: int, bid: str, trump: str) -> GameState:
    """Run the auction (``bidder`` says ``bid``, everyone else passes) and name trump."""
    first = (state.dealer + 1) % 4
    for k in range(4):
        seat = (first + k) % 4
        act(state, f"{seat}:{bid}" if seat == bidder else f"{seat}:pass")
        if bid == "bid moon" and seat == bidder:
            break
    return act(state, f"{bidder}:name {trump}")


# ============================================================================ deal
def test_preset_defaults():
    r = Rules.preset("bid")
    assert r.is_bid and r.game_target == 32 and r.hand_size == 6
    assert not (r.stick_the_dealer or r.ace_no_face or r.joker or r.double_deck or r.lone_maker)
    assert r.renege == "masked"


def test_random_deal_six_cards_each_all_24_dealt_no_upcard():
    state = GameState(Rules.preset("bid"), 11)
    assert [len(h) for h in state.hands] == [6, 6, 6, 6]
    assert sorted(c for h in state.hands for c in h) == list(range(24))
    assert state.upcard is None and state.kitty == []
    assert state.phase == Phase.AUCTION and state.current_player == (state.dealer + 1) % 4


def test_scripted_deal_must_deal_every_card():
    bad = list(TOP)
    bad[0] = "9C TC JC QC KC 9H"  # AC missing, 9H twice
    with pytest.raises(ValueError, match=r"AC|9H"):
        game(bad)  # AC missing and 9H dealt twice
    with pytest.raises(ValueError, match="upcard"):
        GameState(Rules.preset("bid"), 0, deal={**deal(TOP), "upcard": "9H"})


def test_bid_option_validation():
    with pytest.raises(ValueError, match="cannot be combined"):
        Rules.preset("bid", joker=True, double_deck=True)
    with pytest.raises(ValueError, match="deck"):
        Rules.preset("bid", deck=32)
    with pytest.raises(ValueError, match="lone_maker"):
        Rules.preset("bid", lone_maker=True)
    with pytest.raises(ValueError, match="renege"):
        Rules.preset("bid", renege="ignore")


# ============================================================================ auction
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_auction_starts_at_the_dealers_left_one_round_each_seat_once(dealer):
    state = game(TOP, dealer=dealer)
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    spoken = []
    for seat, bid in zip(order, ["bid 3", "pass", "bid 4", "pass"]):
        assert state.phase == Phase.AUCTION
        spoken.append(state.current_player)
        act(state, f"{seat}:{bid}")
    assert spoken == order
    # One round only: after the fourth speaker the auction is over, nobody speaks again.
    assert state.phase == Phase.NAME_TRUMP
    assert state.current_player == order[2] and state.bidder == order[2] and state.contract == 4
    assert [s for p, s, _ in state.history if p == Phase.AUCTION] == order


def test_first_speaker_may_pass_or_bid_three_to_moon():
    state = game(TOP)
    assert legal(state) == ["pass", "bid 3", "bid 4", "bid 5", "bid help", "bid moon"]
    for bad in ("bid 2", "bid 6", "bid 11"):  # six is bid only as help or moon
        with pytest.raises(ValueError, match="unknown action"):
            state.table.from_str(bad)


@pytest.mark.parametrize(
    ("standing", "remaining"),
    [
        ("bid 3", ["pass", "bid 4", "bid 5", "bid help", "bid moon"]),
        ("bid 4", ["pass", "bid 5", "bid help", "bid moon"]),
        ("bid 5", ["pass", "bid help", "bid moon"]),
        ("bid help", ["pass", "bid moon"]),
    ],
)
def test_each_bid_must_outrank_the_standing_bid(standing, remaining):
    state = act(game(TOP), f"1:{standing}")
    assert legal(state) == remaining
    act(state, "2:pass")
    assert legal(state) == remaining  # a pass does not lower the standing bid
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_str(standing)  # equal is not enough
    level = standing.split()[1]
    assert state.current_player == 3 and state.bidder == 1
    assert state.contract == (int(level) if level.isdigit() else level)


def test_partners_may_overbid_each_other():
    state = act(game(TOP), "1:bid 3", "2:pass", "3:bid 4", "0:pass")
    assert state.phase == Phase.NAME_TRUMP and state.bidder == 3 and state.contract == 4
    act(state, "3:name D")
    assert state.phase == Phase.PLAY and state.current_player == 3


def test_help_does_not_end_the_auction_and_moon_outranks_help():
    state = act(game(TOP), "1:bid help")
    assert state.phase == Phase.AUCTION and state.current_player == 2
    act(state, "2:bid moon")
    assert state.phase == Phase.NAME_TRUMP and state.bidder == 2 and state.contract == "moon"


def test_moon_ends_the_auction_at_once():
    state = act(game(TOP), "1:bid moon")
    assert state.phase == Phase.NAME_TRUMP and state.current_player == 1
    assert [s for p, s, _ in state.history if p == Phase.AUCTION] == [1]  # seats 2, 3, 0 never speak
    act(state, "1:name H")
    assert state.phase == Phase.PLAY and state.current_player == 1


def test_highest_bid_wins_and_its_bidder_names_any_suit():
    state = act(game(TOP), "1:bid 3", "2:bid 4", "3:pass", "0:pass")
    assert state.phase == Phase.NAME_TRUMP and state.current_player == 2
    assert legal(state) == ["name C", "name D", "name H", "name S"]
    act(state, "2:name S")
    assert state.trump == 3 and state.maker == 2
    # The winning bidder leads the first trick (not the dealer's left, seat 1).
    assert state.phase == Phase.PLAY and state.current_player == 2
    assert not any(state.out)


def test_all_pass_throws_the_hand_in_and_the_next_dealer_deals():
    state = act(game(TOP, scores=[5, 7]), "1:pass", "2:pass", "3:pass", "0:pass")
    assert state.phase == Phase.HAND_OVER
    r = state.hand_result
    assert r["thrown_in"] == "all passed" and r["points"] == [0, 0]
    assert r["bidder"] is None and r["contract"] is None and r["maker_team"] is None
    assert state.scores == [5, 7]
    state.next_hand()
    assert state.dealer == 1 and state.phase == Phase.AUCTION and state.current_player == 2
    assert [len(h) for h in state.hands] == [6, 6, 6, 6]
    assert sorted(c for h in state.hands for c in h) == list(range(24))  # a fresh deal of all 24


def test_without_stick_the_dealer_the_dealer_may_pass():
    state = act(game(TOP), "1:pass", "2:pass", "3:pass")
    assert "pass" in legal(state)


def test_stick_the_dealer_must_bid_after_three_passes():
    state = act(game(TOP, stick_the_dealer=True), "1:pass", "2:pass", "3:pass")
    assert legal(state) == ["bid 3", "bid 4", "bid 5", "bid help", "bid moon"]
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_str("pass")
    act(state, "0:bid 3", "0:name C")
    assert state.phase == Phase.PLAY and state.current_player == 0 and state.contract == 3


def test_stick_the_dealer_may_pass_over_a_standing_bid():
    state = act(game(TOP, stick_the_dealer=True), "1:pass", "2:bid 3", "3:pass")
    assert legal(state)[0] == "pass"
    act(state, "0:pass")
    assert state.phase == Phase.NAME_TRUMP and state.bidder == 2


# ============================================================================ help and moon
def test_help_bidder_gives_any_card_partner_gives_back_own_best_trump():
    # Seat 2 deals, so seat 3 speaks first and the first active seat at the dealer's left would be 0.
    state = auction_to_play(game(TOP, dealer=2), 1, "bid help", "H")
    assert state.phase == Phase.GIVE and state.current_player == 1
    assert sorted(legal(state)) == sorted(f"give {c}" for c in TOP[1].split())  # any of the six
    act(state, "1:give TH")
    assert state.phase == Phase.GIVE_BACK and state.current_player == 3
    assert "TH" in cards(state, 3)
    # The partner's best trump is taken from the partner's own cards (9H), not the TH just received.
    assert legal(state) == ["give 9H"]
    act(state, "3:give 9H")
    assert cards(state, 1) == sort_str("JH JD AH KH QH 9H")
    assert state.given == state.deck.parse("TH") and state.given_back == state.deck.parse("9H")
    assert state.out == [False, False, False, True]
    assert state.phase == Phase.PLAY and state.current_player == 1  # the bidder leads


def test_help_partner_without_trump_gives_any_own_card():
    state = auction_to_play(game(THREE), 1, "bid help", "H")  # seat 3: TC TS TD AD KD QD, no heart, no JD
    act(state, "1:give 9C")
    assert state.current_player == 3
    # Any of the partner's own six cards; the 9C just received is not handed straight back.
    assert sorted(legal(state)) == sorted(f"give {c}" for c in THREE[3].split())
    act(state, "3:give TC")
    assert cards(state, 1) == sort_str("JH JD AH TC 9S 9D")
    assert state.out[3] and state.phase == Phase.PLAY and state.current_player == 1


def test_help_partner_sits_out_and_is_skipped_the_bidder_leads():
    state = auction_to_play(game(TOP), 1, "bid help", "H")
    act(state, "1:give TH", "3:give 9H")
    help_play = list(alone(TOP_PLAY, 3))
    help_play[5] = "1:9H 2:AS 0:AC"
    play(state, *help_play)
    assert trick(state, 0)[1] == [1, 2, 0]  # the bidder leads, the partner (seat 3) is skipped
    assert all(3 not in seats and len(seats) == 3 for _, seats, _ in state.tricks)
    assert state.hand_result["tricks"] == [0, 6]
    assert state.hand_result["points"] == [0, 12]


def test_moon_partner_sits_out_no_exchange_bidder_leads():
    state = auction_to_play(game(TOP), 1, "bid moon", "H")
    # No GIVE / GIVE_BACK: straight to play, the bidder's partner out, the bidder on lead.
    assert state.phase == Phase.PLAY and state.current_player == 1
    assert state.out == [False, False, False, True]
    assert cards(state, 1) == sort_str(TOP[1]) and cards(state, 3) == sort_str(TOP[3])
    assert state.given is None and state.given_back is None
    play(state, *alone(TOP_PLAY, 3))
    assert all(seats == [1, 2, 0] for _, seats, _ in state.tricks)
    r = state.hand_result
    assert r["contract"] == "moon" and r["tricks"] == [0, 6] and r["points"] == [0, 24]
    assert state.scores == [0, 24]


# ============================================================================ left bower
@pytest.mark.parametrize(
    "hands",
    [
        # seat 3 holds the left bower JD and the ace of hearts: the left bower is the better trump
        ("9C TC JC QC KC AC", "JH KH QH TH 9H 9S", "TS JS QS KS AS 9D", "JD AH TD QD KD AD"),
        # seat 3's only "heart" is the left bower JD: it is a trump and must be given
        ("9C TC JC QC KC AC", "JH KH QH TH 9H 9S", "TS JS QS KS AS AH", "JD 9D TD QD KD AD"),
    ],
    ids=["left-over-ace", "left-only-trump"],
)
def test_left_bower_is_the_partners_best_trump_in_the_help_exchange(hands):
    state = auction_to_play(game(hands), 1, "bid help", "H")
    act(state, "1:give 9S")
    assert legal(state) == ["give JD"]
    act(state, "3:give JD")
    assert cards(state, 1) == sort_str("JH JD KH QH TH 9H")


def test_left_bower_is_trump_in_play():
    state = auction_to_play(game(LEFT), 1, "bid 3", "H")
    act(state, "1:play AD", "2:play 9S")
    # Diamonds led: seat 3 must follow with a real diamond (not JH); seat 0's JD is a heart,
    # so seat 0 has no diamond and may play anything.
    assert sorted(legal(state)) == sorted(["play 9D", "play TD", "play QD", "play KD"])
    act(state, "3:play 9D")
    assert sorted(legal(state)) == sorted(f"play {c}" for c in LEFT[0].split())
    act(state, "0:play 9C")
    act(state, "1:play 9H", "2:play TS")
    assert legal(state) == ["play JH"]  # hearts led: seat 3's only heart
    act(state, "3:play JH")
    assert legal(state) == ["play JD"]  # seat 0's left bower must follow hearts
    act(state, "0:play JD")
    assert trick(state, 1) == (3, [1, 2, 3, 0], ["9H", "TS", "JH", "JD"])  # right beats left
    play(
        state,
        "3:JC 0:AC 1:TH 2:JS",
        "1:AH 2:QS 3:TD 0:TC",
        "1:KH 2:KS 3:QD 0:QC",
        "1:QH 2:AS 3:KD 0:KC",
    )
    assert winners(state) == [1, 3, 1, 1, 1, 1]
    # A plain bid that takes all six scores six, one per trick (no bonus).
    assert state.hand_result["tricks"] == [0, 6] and state.hand_result["points"] == [0, 6]


# ============================================================================ scoring
@pytest.mark.parametrize(
    ("bid", "points"),
    [
        ("bid 3", [3, 3]),  # made exactly: each team one point per trick
        ("bid 4", [3, -4]),  # set: minus the bid; the defenders still score their tricks
        ("bid 5", [3, -5]),
    ],
)
def test_plain_bid_scoring(bid, points):
    state = auction_to_play(game(THREE, scores=[10, 10]), 1, bid, "H")
    play(state, *THREE_PLAY)
    assert winners(state) == THREE_WINNERS
    r = state.hand_result
    assert r["tricks"] == [3, 3] and r["points"] == points
    assert r["bidder"] == 1 and r["maker_team"] == 1 and r["contract"] == int(bid.split()[1])
    assert state.scores == [10 + points[0], 10 + points[1]]


def test_plain_bid_made_with_overtricks_scores_every_trick():
    state = auction_to_play(game(TOP), 1, "bid 5", "H")
    play(state, *TOP_PLAY)
    assert state.hand_result["points"] == [0, 6]


def test_bid_by_the_dealers_side_is_scored_for_team_0():
    # The THREE cards, but seat 2 bids 5 and names clubs (JC right bower with seat 0, JS left with seat 2).
    state = auction_to_play(game(THREE), 2, "bid 5", "C")
    assert state.current_player == 2  # the bidder leads
    play(
        state,
        "2:AS 3:TS 0:QH 1:9S",
        "2:KS 3:AD 0:KH 1:9D",
        "2:QS 3:KD 0:AC 1:9C",
        "0:JC 1:AH 2:JS 3:TC",  # seat 2's left bower and seat 3's TC must follow the club lead
        "0:KC 1:JH 2:TH 3:TD",
        "0:QC 1:JD 2:9H 3:QD",
    )
    assert winners(state) == [2, 2, 0, 0, 0, 0]
    r = state.hand_result
    assert (r["bidder"], r["contract"], r["maker_team"], r["trump"]) == (2, 5, 0, "C")
    assert r["tricks"] == [6, 0] and r["points"] == [6, 0]


def test_help_taking_all_six_scores_12():
    state = auction_to_play(game(TOP), 1, "bid help", "H")
    act(state, "1:give TH", "3:give 9H")
    help_play = list(alone(TOP_PLAY, 3))
    help_play[5] = "1:9H 2:AS 0:AC"
    play(state, *help_play)
    r = state.hand_result
    assert r["contract"] == "help" and r["points"] == [0, 12] and r["maker_alone"]


def test_help_short_scores_minus_six_defenders_score_tricks():
    state = auction_to_play(game(THREE), 1, "bid help", "H")
    act(state, "1:give 9C", "3:give TC")
    play(
        state,
        "1:JH 2:9H 0:QH",
        "1:JD 2:TH 0:KH",
        "1:AH 2:JS 0:JC",
        "1:TC 2:QS 0:AC",
        "0:KC 1:9S 2:KS",
        "0:QC 1:9D 2:AS",
    )
    r = state.hand_result
    assert r["tricks"] == [3, 3] and r["contract"] == "help" and r["points"] == [3, -6]


def test_moon_short_scores_minus_six_defenders_score_tricks():
    state = auction_to_play(game(THREE), 1, "bid moon", "H")
    play(state, *alone(THREE_PLAY, 3))
    assert winners(state) == THREE_WINNERS
    r = state.hand_result
    assert r["tricks"] == [3, 3] and r["contract"] == "moon" and r["points"] == [3, -6]


def test_hand_result_fields():
    state = auction_to_play(game(THREE), 1, "bid 4", "H")
    play(state, *THREE_PLAY)
    r = state.hand_result
    for key in ("bidder", "contract", "maker_team", "trump", "tricks", "points", "scores", "reneged"):
        assert key in r
    assert (r["bidder"], r["contract"], r["maker_team"], r["trump"]) == (1, 4, 1, "H")
    assert r["reneged"] == [] and "thrown_in" not in r


# ============================================================================ game to 32
@pytest.mark.parametrize(
    ("start", "end", "winner"),
    [
        ([29, 10], [32, 13], 0),  # reaching exactly 32 wins
        ([30, 31], [33, 34], 1),  # both reach 32+: the higher wins
        ([31, 30], [34, 33], 0),
    ],
)
def test_game_to_32(start, end, winner):
    state = auction_to_play(game(THREE, scores=start), 1, "bid 3", "H")
    play(state, *THREE_PLAY)
    assert state.scores == end
    assert state.phase == Phase.GAME_OVER and state.winner == winner
    assert state.hand_result["game_winner"] == winner
    with pytest.raises(ValueError):
        state.next_hand()


def test_game_goes_on_below_32():
    state = auction_to_play(game(THREE, scores=[28, 28]), 1, "bid 3", "H")
    play(state, *THREE_PLAY)
    assert state.scores == [31, 31] and state.phase == Phase.HAND_OVER and state.winner is None


def test_defenders_can_reach_32_on_their_tricks():
    state = auction_to_play(game(THREE, scores=[31, 0]), 1, "bid 4", "H")
    play(state, *THREE_PLAY)
    assert state.scores == [34, -4] and state.winner == 0


def test_equal_scores_past_32_play_another_hand():
    state = auction_to_play(game(THREE, scores=[30, 30]), 1, "bid 3", "H")
    play(state, *THREE_PLAY)
    assert state.scores == [33, 33]
    assert state.phase == Phase.HAND_OVER and state.winner is None and "game_winner" not in state.hand_result
    state.next_hand(deal(TOP, dealer=1))
    act(state, "2:pass", "3:pass", "0:pass", "1:bid 3", "1:name H")
    play(state, *TOP_PLAY)
    assert state.scores == [33, 39] and state.phase == Phase.GAME_OVER and state.winner == 1


# ============================================================================ ace no face
# ANF: seat 1 holds two aces and no J, Q, K; seats 2 and 0 hold an ace and faces; seat 3 no ace.
ANF = ("AS JH QH KH JS QS", "AC AD 9C TC 9D TD", "9H TH 9S TS AH KS", "JC QC KC JD QD KD")
# ANF2: seat 1 has neither ace nor face (not eligible), seat 2 four aces and two low cards.
ANF2 = ("JH QH KH JS QS KS", "9D TD 9H TH 9S TS", "AC AD AH AS 9C TC", "JC QC KC JD QD KD")


def test_ace_no_face_claim_throws_the_hand_in_and_the_deal_passes_left():
    state = game(ANF, scores=[4, 2], ace_no_face=True)
    assert legal(state) == ["pass", "ace no face", "bid 3", "bid 4", "bid 5", "bid help", "bid moon"]
    act(state, "1:ace no face")
    assert state.phase == Phase.HAND_OVER
    r = state.hand_result
    assert r["thrown_in"] == "ace no face" and r["claimant"] == 1 and r["points"] == [0, 0]
    assert r["bidder"] is None and r["contract"] is None
    assert state.scores == [4, 2]
    state.next_hand()
    assert state.dealer == 1 and state.phase == Phase.AUCTION and state.current_player == 2


def test_ace_no_face_needs_an_ace_and_no_face_card():
    state = game(ANF, ace_no_face=True)
    assert "ace no face" in legal(state)  # seat 1: AC AD 9C TC 9D TD
    act(state, "1:pass")
    assert "ace no face" not in legal(state)  # seat 2: an ace, but KS
    act(state, "2:pass")
    assert "ace no face" not in legal(state)  # seat 3: faces, no ace
    act(state, "3:pass")
    assert "ace no face" not in legal(state)  # seat 0: AS with faces
    state = game(ANF2, ace_no_face=True)
    assert "ace no face" not in legal(state)  # seat 1: no face, but no ace either


def test_ace_no_face_is_claimed_at_the_claimants_turn_even_after_a_bid():
    state = act(game(ANF2, ace_no_face=True), "1:bid 3")
    assert legal(state) == ["pass", "ace no face", "bid 4", "bid 5", "bid help", "bid moon"]
    act(state, "2:ace no face")
    assert state.hand_result["thrown_in"] == "ace no face" and state.hand_result["claimant"] == 2
    assert state.hand_result["points"] == [0, 0]


def test_ace_no_face_only_at_the_claimants_single_auction_turn():
    state = act(game(ANF, ace_no_face=True), "1:pass", "2:bid 3", "3:pass", "0:pass", "2:name C")
    # Seat 1 let its turn go: no claim later in the hand.
    assert state.phase == Phase.PLAY
    act(state, "2:play 9H", "3:play QD", "0:play JH")
    assert state.current_player == 1
    assert sorted(legal(state)) == sorted(f"play {c}" for c in ANF[1].split())  # plays only
    # A moon ends the auction before a later eligible seat (seat 2 of ANF2) can claim.
    state = act(game(ANF2, ace_no_face=True), "1:bid moon")
    assert state.phase == Phase.NAME_TRUMP and "ace no face" not in legal(state)


def test_ace_no_face_is_off_by_default():
    state = game(ANF)
    assert "ace no face" not in legal(state)
    with pytest.raises(ValueError, match="unknown action"):
        state.table.from_str("ace no face")


def test_ace_no_face_dealer_may_claim_even_with_stick_the_dealer():
    state = act(game(ANF, dealer=1, stick_the_dealer=True, ace_no_face=True), "2:pass", "3:pass", "0:pass")
    assert legal(state) == ["ace no face", "bid 3", "bid 4", "bid 5", "bid help", "bid moon"]
    act(state, "1:ace no face")
    assert state.hand_result["thrown_in"] == "ace no face"


# ============================================================================ joker
# JOKER: seat 0 deals seven; seat 2 holds the joker and spades, seat 1 the top hearts.
JOKER = ("9C TC JC QC KC AC 9D", "JH JD AH KH QH TH", "JO 9S TS JS QS KS", "AS TD QD KD AD 9H")
# JOKER_ANF: seat 1 holds the joker, an ace and 9s and 10s.
JOKER_ANF = ("JC QC KC JD QD KD AD", "JO AC 9C TC 9D TD", "AH 9H TH JH QH KH", "AS 9S TS JS QS KS")


def test_joker_25_cards_dealer_gets_seven_and_discards_before_the_auction():
    state = game(JOKER, joker=True)
    assert state.deck.size == 25 and [len(h) for h in state.hands] == [7, 6, 6, 6]
    assert state.phase == Phase.DISCARD and state.current_player == 0
    assert sorted(legal(state)) == sorted(f"discard {c}" for c in JOKER[0].split())
    act(state, "0:discard 9D")
    assert cards(state, 0) == sort_str("9C TC JC QC KC AC") and state.discarded == state.deck.parse("9D")
    assert state.phase == Phase.AUCTION and state.current_player == 1
    with pytest.raises(ValueError, match="needs 7"):
        game(TOP, joker=True)  # the dealer must get the 25th card


def test_joker_dealer_may_discard_the_joker():
    hands = ("9C TC JC QC KC AC JO", "JH JD AH KH QH TH", "9D 9S TS JS QS KS", "AS TD QD KD AD 9H")
    state = game(hands, joker=True)
    assert "discard JO" in legal(state)
    act(state, "0:discard JO")
    assert all("JO" not in cards(state, s) for s in range(4)) and state.phase == Phase.AUCTION


def test_joker_random_deal_gives_the_dealer_seven_every_hand():
    state = GameState(Rules.preset("bid", joker=True), 5)
    for _ in range(2):
        lens = [len(h) for h in state.hands]
        assert lens[state.dealer] == 7 and sum(lens) == 25 and state.phase == Phase.DISCARD
        act(state, f"{state.dealer}:{legal(state)[0]}")
        for _ in range(4):
            state.apply_str("pass")
        assert state.hand_result["thrown_in"] == "all passed"
        state.next_hand()


def test_joker_is_the_highest_trump_above_the_right_bower():
    state = act(game(JOKER, joker=True), "0:discard 9D")
    auction_to_play(state, 1, "bid 5", "H")
    act(state, "1:play JH")
    assert legal(state) == ["play JO"]  # the joker is seat 2's only trump: it must follow
    play(state, "2:JO 3:9H 0:9C")
    assert trick(state, 0)[0] == 2  # joker over the right bower
    act(state, "2:play 9S")
    assert legal(state) == ["play AS"]
    play(
        state,
        "3:AS 0:TC 1:TH",
        "1:JD 2:TS 3:TD 0:JC",
        "1:AH 2:JS 3:QD 0:QC",
        "1:KH 2:QS 3:KD 0:KC",
        "1:QH 2:KS 3:AD 0:AC",
    )
    assert winners(state) == [2, 1, 1, 1, 1, 1]
    assert state.hand_result["points"] == [1, 5]


def test_joker_led_leads_trump():
    hands = ("9C TC JC QC KC AC 9D", "JO JD AH KH QH TH", "JH 9S TS JS QS KS", "AS TD QD KD AD 9H")
    state = act(game(hands, joker=True), "0:discard 9D")
    auction_to_play(state, 1, "bid 4", "H")
    act(state, "1:play JO")
    assert legal(state) == ["play JH"]
    act(state, "2:play JH")
    assert legal(state) == ["play 9H"]
    play(state, "3:9H 0:9C")
    assert trick(state, 0)[0] == 1


def test_joker_does_not_follow_a_plain_suit():
    hands = ("9C TC JC QC KC AC 9D", "JH JD AH KH QH TH", "AS TD QD KD AD 9H", "JO 9S TS JS QS KS")
    state = act(game(hands, joker=True), "0:discard 9D")
    auction_to_play(state, 2, "bid 3", "H")
    act(state, "2:play AS")
    # Spades led: seat 3 must play a spade; the joker is a trump, not a spade.
    assert sorted(legal(state)) == sorted(["play 9S", "play TS", "play JS", "play QS", "play KS"])


def test_joker_is_the_partners_best_trump_in_the_help_exchange():
    hands = ("9C TC JC QC KC AC 9D", "JH JD AH KH QH TH", "AS TD QD KD AD 9H", "JO 9S TS JS QS KS")
    state = act(game(hands, joker=True), "0:discard 9D")
    auction_to_play(state, 1, "bid help", "H")
    act(state, "1:give TH")
    assert legal(state) == ["give JO"]
    act(state, "3:give JO")
    assert "JO" in cards(state, 1)


def test_joker_is_not_a_face_card_for_ace_no_face():
    state = act(game(JOKER_ANF, joker=True, ace_no_face=True), "0:discard AD")
    assert "ace no face" in legal(state)  # JO AC 9C TC 9D TD
    act(state, "1:ace no face")
    assert state.hand_result["thrown_in"] == "ace no face" and state.hand_result["claimant"] == 1


# The ace-no-face claim is judged on the hand as dealt (docs/RULES.md): for a joker dealer the
# seven cards before the discard. JOKER_FACE: the dealer holds KH, and its six others are an ace
# and low cards. JOKER_ACE: the dealer's seven hold one ace and no face card.
JOKER_FACE = ("AC 9C TC 9D TD 9H KH", "JC QC KC JD QD KD", "AD AH TH JH QH JO", "9S TS JS QS KS AS")
JOKER_ACE = ("AC 9C TC 9D TD 9H TH", "JC QC KC JD QD KD", "AD AH JH QH KH JO", "9S TS JS QS KS AS")


def test_ace_no_face_a_dealt_face_card_is_not_discarded_away():
    state = act(game(JOKER_FACE, joker=True, ace_no_face=True), "0:discard KH", "1:pass", "2:pass", "3:pass")
    assert cards(state, 0) == sort_str("AC 9C TC 9D TD 9H")  # what the dealer keeps would qualify
    assert state.current_player == 0 and "ace no face" not in legal(state)  # but KH was dealt


def test_ace_no_face_a_dealt_eligible_hand_stays_eligible_after_the_discard():
    state = act(game(JOKER_ACE, joker=True, ace_no_face=True), "0:discard AC", "1:pass", "2:pass", "3:pass")
    assert "AC" not in cards(state, 0)  # the dealer discarded its only ace
    assert "ace no face" in legal(state)
    act(state, "0:ace no face")
    assert state.hand_result["thrown_in"] == "ace no face" and state.hand_result["claimant"] == 0


# ============================================================================ house rule: minus target
def test_minus_target_loses_is_off_by_default_and_bid_only():
    assert Rules.preset("bid").minus_target_loses is False
    with pytest.raises(ValueError, match="'minus_target_loses': only available in Bid Euchre"):
        Rules.preset("classic", minus_target_loses=True)
    with pytest.raises(ValueError, match="'minus_target_loses' must be True or False, got 1"):
        Rules.preset("bid", minus_target_loses=1)


@pytest.mark.parametrize(("option", "over"), [(False, False), (True, True)])
def test_minus_target_loses_a_team_set_to_minus_32_loses(option, over):
    # Seat 1 bids 4 and takes 3: team 1 is set to -32, team 0 scores its 3 tricks.
    state = auction_to_play(game(THREE, scores=[0, -28], minus_target_loses=option), 1, "bid 4", "H")
    play(state, *THREE_PLAY)
    assert state.scores == [3, -32]
    assert (state.phase == Phase.GAME_OVER) is over
    assert state.winner == (0 if over else None) and state.hand_result.get("game_winner") == state.winner


def test_minus_target_loses_both_teams_at_once_the_lower_loses_equal_plays_on():
    from euchre_env.game.scoring import game_winner

    rules = Rules.preset("bid", minus_target_loses=True)
    assert game_winner(rules, [-33, -40]) == 0  # both past -32: the lower score loses
    assert game_winner(rules, [-35, -32]) == 1
    assert game_winner(rules, [-32, -32]) is None  # equal: another hand decides
    assert game_winner(rules, [40, -40]) == 0  # one team past 32, the other past -32
    assert game_winner(rules, [-31, 31]) is None
    assert game_winner(Rules.preset("bid"), [-33, -40]) is None  # without the option scores fall freely


# ============================================================================ scripted scores
@pytest.mark.parametrize("scores", [[31, 31], [32, 32], [40, 40], [-100, 31], [31, -5]])
def test_scripted_scores_that_leave_the_game_open_are_accepted(scores):
    assert game(TOP, scores=scores).scores == scores


@pytest.mark.parametrize(
    ("scores", "options", "allowed"),
    [
        ([32, 10], {}, "scores below game_target 32, or two equal scores"),
        ([5, 40], {}, "scores below game_target 32, or two equal scores"),
        ([-32, 0], {"minus_target_loses": True}, "scores below game_target 32 and above -32, or two equal scores"),
        ([33, 30], {"minus_target_loses": True}, "scores below game_target 32 and above -32"),
    ],
)
def test_scripted_scores_of_a_finished_game_are_refused(scores, options, allowed):
    with pytest.raises(ValueError, match=rf"^'scores' \[{scores[0]}, {scores[1]}\]: the game would already be over; "
                                         rf"allowed: {allowed}"):
        game(TOP, scores=scores, **options)
    assert game(TOP, scores=[-40, -40], minus_target_loses=True).scores == [-40, -40]  # a tie plays on


# ============================================================================ double deck
CLUBS12 = "9C 9C TC TC JC JC QC QC KC KC AC AC"
SPADES12 = "9S 9S TS TS JS JS QS QS KS KS AS AS"
# DD: seat 1 holds every heart but the two 9H, and both JD; seat 3 the other diamonds and 9H 9H.
DD = (CLUBS12, "JH JH JD JD AH AH KH KH QH QH TH TH", SPADES12, "9D 9D TD TD QD QD KD KD AD AD 9H 9H")
DD_TRUMPS = words("JH JH JD JD AH AH KH KH QH QH TH TH")


def dd_alone_tricks(trumps) -> list[str]:
    """Seat 1 leads ``trumps`` in order; seat 2 follows with spades, seat 0 with clubs; seat 3 out."""
    return [f"1:{t} 2:{s} 0:{c}" for t, s, c in zip(trumps, SPADES12.split(), CLUBS12.split())]


def test_double_deck_48_cards_12_each():
    state = GameState(Rules.preset("bid", double_deck=True), 3)
    assert state.deck.size == 48 and [len(h) for h in state.hands] == [12, 12, 12, 12]
    counts = Counter(c for h in state.hands for c in h)
    assert sorted(counts) == list(range(24)) and set(counts.values()) == {2}
    assert state.rules.tricks_per_hand == 12


def test_double_deck_plain_bids_run_from_3_to_11():
    state = game(DD, double_deck=True)
    assert legal(state) == ["pass", *[f"bid {n}" for n in range(3, 12)], "bid help", "bid moon"]
    with pytest.raises(ValueError, match="unknown action"):
        state.table.from_str("bid 12")
    act(state, "1:bid 10")
    assert legal(state) == ["pass", "bid 11", "bid help", "bid moon"]


def test_double_deck_moon_taking_all_twelve_scores_48():
    state = auction_to_play(game(DD, double_deck=True), 1, "bid moon", "H")
    play(state, *dd_alone_tricks(DD_TRUMPS))
    r = state.hand_result
    assert len(state.tricks) == 12 and r["tricks"] == [0, 12] and r["points"] == [0, 48]


def test_double_deck_help_taking_all_twelve_scores_24():
    state = auction_to_play(game(DD, double_deck=True), 1, "bid help", "H")
    act(state, "1:give TH")  # seat 1 holds two TH: one goes, one stays
    assert cards(state, 1).count("TH") == 1 and cards(state, 3).count("TH") == 1
    assert legal(state) == ["give 9H"]  # the partner's own best trump (two copies, listed once)
    act(state, "3:give 9H")
    assert cards(state, 3).count("9H") == 1
    play(state, *dd_alone_tricks([*DD_TRUMPS[:11], "9H"]))
    r = state.hand_result
    assert r["contract"] == "help" and r["tricks"] == [0, 12] and r["points"] == [0, 24]


def test_double_deck_moon_short_scores_minus_12():
    hands = (
        "9C TC TC JC JC QC QC KC KC AC AC TH",
        "JH JH JD JD AH AH KH KH QH QH TH 9C",
        SPADES12,
        DD[3],
    )
    state = auction_to_play(game(hands, double_deck=True), 1, "bid moon", "H")
    act(state, "1:play JH", "2:play 9S")
    assert legal(state) == ["play TH"]  # seat 0 must follow trump
    act(state, "0:play TH")
    clubs = words("9C TC TC JC JC QC QC KC KC AC AC")
    spades = SPADES12.split()[1:]
    trumps = words("JH JD JD AH AH KH KH QH QH TH 9C")
    play(state, *[f"1:{t} 2:{s} 0:{c}" for t, s, c in zip(trumps, spades, clubs)])
    assert winners(state) == [1] * 11 + [0]
    assert state.hand_result["points"] == [1, -12]


def test_double_deck_partner_gives_back_own_copy_of_the_received_card():
    hands = (CLUBS12, "JH JH JD JD AH AH KH KH QH QH TH 9H", SPADES12, "9D 9D TD TD QD QD KD KD AD AD 9H TH")
    state = auction_to_play(game(hands, double_deck=True), 1, "bid help", "H")
    act(state, "1:give TH")
    # Seat 3 now holds two TH; its own copy is its best trump, so a TH goes back.
    assert legal(state) == ["give TH"]
    act(state, "3:give TH")
    assert cards(state, 1).count("TH") == 1 and cards(state, 3).count("TH") == 1


# DD_SAME: seats 1 and 2 each hold one AS and one JH.
DD_SAME = (
    CLUBS12,
    "JH JD JD AH AH KH KH QH QH TH TH AS",
    "JH 9S 9S TS TS JS JS QS QS KS KS AS",
    "9D 9D TD TD QD QD KD KD AD AD 9H 9H",
)


def test_double_deck_identical_cards_first_played_wins_and_duplicates_act_once():
    state = auction_to_play(game(DD_SAME, double_deck=True), 1, "bid 11", "H")
    assert state.phase == Phase.PLAY and not any(state.out)
    act(state, "1:play AS")
    assert "play AS" in legal(state)
    play(state, "2:AS 3:9D 0:9C")
    assert trick(state, 0) == (1, [1, 2, 3, 0], ["AS", "AS", "9D", "9C"])  # the first AS wins
    # Seat 1 holds duplicates: each distinct card is one action.
    assert len(state.hands[1]) == 11 and len(legal(state)) == 6
    act(state, "1:play JH")
    assert legal(state) == ["play JH"]
    play(state, "2:JH 3:9H 0:9C")
    assert trick(state, 1)[0] == 1  # the first right bower wins
    play(state, "1:JD 2:9S 3:9H 0:TC")
    assert cards(state, 1).count("JD") == 1 and "play JD" in legal(state)
    play(state, "1:JD 2:9S 3:9D 0:TC")
    rest = words("AH AH KH KH QH QH TH TH")
    sp = words("TS TS JS JS QS QS KS KS")
    di = words("TD TD QD QD KD KD AD AD")
    cl = words("JC JC QC QC KC KC AC AC")
    play(state, *[f"1:{a} 2:{b} 3:{c} 0:{d}" for a, b, c, d in zip(rest, sp, di, cl)])
    r = state.hand_result
    assert r["contract"] == 11 and r["tricks"] == [0, 12] and r["points"] == [0, 12]


# ============================================================================ renege
def test_renege_is_masked_by_default():
    state = auction_to_play(game(THREE), 1, "bid 3", "H")
    act(state, "1:play JH")
    assert sorted(legal(state)) == ["play 9H", "play TH"]
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_str("play AS")
    assert state.current_player == 2 and len(state.trick) == 1 and "AS" in cards(state, 2)  # unchanged


def test_renege_penalize_any_card_and_minus_two():
    state = auction_to_play(game(THREE, renege="penalize"), 1, "bid 3", "H")
    act(state, "1:play JH")
    assert sorted(legal(state)) == sorted(f"play {c}" for c in THREE[2].split())  # any card
    play(
        state,
        "2:AS 3:TC 0:QH",  # seat 2 holds 9H TH: a renege; seat 3 has no heart: none
        "1:JD 2:9H 3:TS 0:KH",
        "1:AH 2:TH 3:TD 0:JC",
        "1:9C 2:QS 3:QD 0:AC",
        "0:KC 1:9S 2:KS 3:KD",
        "0:QC 1:9D 2:JS 3:AD",
    )
    r = state.hand_result
    assert r["reneged"] == [2] and r["tricks"] == [3, 3]
    assert r["points"] == [1, 3] and state.scores == [1, 3]


def test_renege_penalty_is_two_per_offending_team_per_hand():
    state = auction_to_play(game(THREE, renege="penalize"), 1, "bid 3", "H")
    play(
        state,
        "1:JH 2:AS 3:TC 0:QC",  # seat 2 and seat 0 both fail to follow hearts
        "1:JD 2:9H 3:TS 0:QH",
        "1:AH 2:TH 3:TD 0:KH",
        "1:9C 2:QS 3:QD 0:AC",
        "0:KC 1:9S 2:KS 3:KD",
        "0:JC 1:9D 2:JS 3:AD",
    )
    r = state.hand_result
    assert r["reneged"] == [2, 0] and r["tricks"] == [3, 3] and r["points"] == [1, 3]


def test_renege_judged_by_effective_suit_left_bower_included():
    state = auction_to_play(game(LEFT, renege="penalize"), 1, "bid 3", "H")
    play(state, "1:AD 2:9S 3:9D 0:9C")  # seat 0's JD is no diamond: no renege
    assert state.reneged == []
    play(state, "1:9H 2:TS 3:JH 0:TC")  # seat 0 holds JD, a heart: renege
    assert state.reneged == [0]
    play(state, "3:JC 0:AC 1:TH 2:JS", "1:AH 2:QS 3:TD 0:JD")
    assert trick(state, 3) == (0, [1, 2, 3, 0], ["AH", "QS", "TD", "JD"])  # the left bower beats the ace
    play(state, "0:QC 1:QH 2:KS 3:QD", "1:KH 2:AS 3:KD 0:KC")
    r = state.hand_result
    assert winners(state) == [1, 3, 1, 0, 1, 1]
    assert r["reneged"] == [0] and r["tricks"] == [1, 5] and r["points"] == [-1, 5]


# ============================================================================ environment
def env_act(env, *moves: str) -> None:
    for move in moves:
        seat, _, text = move.partition(":")
        assert env.agent_selection == f"player_{seat}", (move, env.agent_selection)
        action = env.str_to_action(text)
        assert env.observe(env.agent_selection)["action_mask"][action] == 1, (move, env.game.phase.name)
        env.step(action)


def test_env_hand_rewards_and_hand_result():
    env = euchre_env.raw_env(rules="bid")
    env.reset(seed=1, options={"deal": deal(THREE), "scores": [5, 7]})
    env_act(env, "1:bid 4", "2:pass", "3:pass", "0:pass", "1:name H", *plays(*THREE_PLAY))
    # Team 0 took 3 tricks (+3), team 1 bid 4 and took 3 (-4): rewards are the difference.
    assert env.rewards == {"player_0": 7.0, "player_1": -7.0, "player_2": 7.0, "player_3": -7.0}
    r = env.infos["player_0"]["hand_result"]
    assert r["bidder"] == 1 and r["contract"] == 4 and r["maker_team"] == 1
    assert r["points"] == [3, -4] and r["scores"] == [8, 3]
    assert env.infos["player_3"]["scores"] == [8, 3]
    # The episode goes on: the next hand is dealt by seat 1, seat 2 speaks first.
    assert not any(env.terminations.values())
    assert env.game.dealer == 1 and env.agent_selection == "player_2"
    assert env.game.phase == Phase.AUCTION


def test_env_help_exchange_mask_and_game_end():
    env = euchre_env.raw_env(rules="bid")
    env.reset(seed=2, options={"deal": deal(TOP), "scores": [0, 20]})
    env_act(env, "1:bid help", "2:pass", "3:pass", "0:pass", "1:name H", "1:give TH")
    mask = env.observe("player_3")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [env.str_to_action("give 9H")]
    assert not env.observe("player_1")["action_mask"].any()
    help_play = list(alone(TOP_PLAY, 3))
    help_play[5] = "1:9H 2:AS 0:AC"
    env_act(env, "3:give 9H", *plays(*help_play))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -12.0, "player_1": 12.0, "player_2": -12.0, "player_3": 12.0}
    r = env.infos["player_2"]["hand_result"]
    assert r["contract"] == "help" and r["scores"] == [0, 32] and r["game_winner"] == 1
    assert env.game.winner == 1


def test_env_all_pass_and_ace_no_face_give_zero_rewards():
    env = euchre_env.raw_env(rules="bid", ace_no_face=True, episode="hand")
    env.reset(seed=3, options={"deal": deal(ANF)})
    env_act(env, "1:ace no face")
    assert all(env.terminations.values()) and set(env.rewards.values()) == {0.0}
    assert env.infos["player_0"]["hand_result"]["thrown_in"] == "ace no face"
    env = euchre_env.raw_env(rules="bid")
    env.reset(seed=3, options={"deal": deal(TOP)})
    env_act(env, "1:pass", "2:pass", "3:pass", "0:pass")
    assert set(env.rewards.values()) == {0.0}
    assert env.infos["player_1"]["hand_result"]["thrown_in"] == "all passed"
    assert env.game.dealer == 1 and env.agent_selection == "player_2"


def test_env_joker_dealer_discards_first():
    env = euchre_env.raw_env(rules="bid", joker=True)
    env.reset(seed=4, options={"deal": deal(JOKER)})
    assert env.agent_selection == "player_0"
    env_act(env, "0:discard 9D", "1:bid 5", "2:pass", "3:pass", "0:pass", "1:name H")
    env_act(env, *plays("1:JH 2:JO 3:9H 0:9C"))
    assert env.game.tricks[0][0] == 2 and env.agent_selection == "player_2"
