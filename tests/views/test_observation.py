"""The observation is a perfect-recall information state with a documented named layout."""

from __future__ import annotations

import numpy as np
import pytest

import euchre_env
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules
from euchre_env.views.observation import Observer

CONFIGS = [
    ("knock", {}),
    ("multiplayer", {"joker": True}),
    ("classic", {"deck": 32, "rubber": True}),
    ("bid", {}),
    ("bid", {"joker": True, "ace_no_face": True}),
]
PRIVATE_PHASES = {Phase.DISCARD, Phase.GIVE, Phase.GIVE_BACK}


def info_state_key(s: GameState, seat: int) -> tuple:
    """What ``seat`` knows, written independently of the encoder.

    Seats are relative to the observer (the encoding is rotation-invariant by design).
    Private actions (the dealer's discard, the help exchange) are visible only to the
    seats that saw them.
    """
    rel = lambda x: (x - seat) % 4
    events = []
    for phase, who, action in s.history:
        sees = True
        if phase == Phase.DISCARD:
            sees = who == seat
        elif phase in (Phase.GIVE, Phase.GIVE_BACK):
            sees = seat in (s.bidder, (s.bidder + 2) % 4)
        events.append((int(phase), rel(who), action if sees else None))
    mine = seat % 2
    return (
        tuple(sorted(s.initial_hands[seat])),
        rel(s.dealer),
        s.upcard,
        s.upcard_suit if s.upcard == s.deck.joker_id else None,
        tuple(events),
        (s.scores[mine], s.scores[1 - mine]),
        (s.games_won[mine], s.games_won[1 - mine], s.rubber_points[mine], s.rubber_points[1 - mine]),
        int(s.phase),
    )


def _deal_variants(rules: Rules, rng: np.random.Generator, count: int) -> list[dict]:
    """One random deal and ``count`` variants that each swap two cards of it.

    Variants differ in hidden places (another hand, the kitty, the dealer's discard), which is
    where an encoder that loses private information would make two states collide.
    """
    deck = rules.deck_spec
    pack = [deck.name(c) for c in rng.permutation(deck.cards())]
    n = rules.hand_size
    dealer = int(rng.integers(4))
    extra = 1 if rules.is_bid and rules.joker else 0
    variants = []
    for v in range(count + 1):
        cards = list(pack)
        if v:
            i, j = rng.choice(len(cards), 2, replace=False)
            cards[i], cards[j] = cards[j], cards[i]
        hands = [cards[k * n:(k + 1) * n] for k in range(4)]
        if extra:
            hands[dealer].append(cards[4 * n])
        deal = {"dealer": dealer, "hands": hands}
        if not rules.is_bid:
            deal["upcard"] = cards[4 * n]
        variants.append(deal)
    return variants


def distinct_encodings(rules: Rules, encode, key, rounds: int, variants: int, continuations: int) -> int:
    """Random continuations of near-identical deals, every seat's ``encode(state, seat)`` checked against
    ``key(state, seat)``: equal keys encode alike, different keys differently. Returns the codes seen."""
    seen: dict[bytes, tuple] = {}
    keys: dict[tuple, bytes] = {}
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        for deal in _deal_variants(rules, rng, variants):
            for _ in range(continuations):
                s = GameState(rules, 0, deal=deal, scores=[int(rng.integers(0, 2)), 0])
                while not s.hand_over:
                    for seat in range(4):
                        code = encode(s, seat).tobytes()
                        k = key(s, seat)
                        assert seen.setdefault(code, k) == k, "two information states share an encoding"
                        assert keys.setdefault(k, code) == code, "one information state, two encodings"
                    legal = s.legal_actions()
                    s.apply(legal[rng.integers(len(legal))])
    return len(seen)


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS)
def test_different_information_states_never_share_an_encoding(preset, kwargs):
    """Random continuations of near-identical deals: close histories must stay apart."""
    rules = Rules.preset(preset, **kwargs)
    assert distinct_encodings(rules, Observer(rules).encode, info_state_key, 4, 30, 8) > 5000


KNOCK_HANDS = [["9C", "TC", "JC", "QC", "KC"], ["AC", "9D", "TD", "JD", "QD"],
               ["KD", "AD", "9H", "TH", "JH"], ["QH", "KH", "AH", "9S", "TS"]]


def test_private_cards_do_not_leak():
    """Swapping the hidden cards of the other seats leaves a seat's observation unchanged."""
    rules = Rules.preset("knock")
    observer = Observer(rules)
    base = {"dealer": 3, "hands": KNOCK_HANDS,
            "upcard": "JS"}
    swapped = {**base, "hands": [base["hands"][0], base["hands"][2], base["hands"][1], base["hands"][3]]}
    a, b = GameState(rules, 0, deal=base), GameState(rules, 0, deal=swapped)
    assert np.array_equal(observer.encode(a, 0), observer.encode(b, 0))
    assert not np.array_equal(observer.encode(a, 1), observer.encode(b, 1))


def test_dealer_discard_seen_by_dealer_only_and_lone_play_seen_by_leader():
    rules = Rules.preset("knock")
    observer = Observer(rules)
    deal = {"dealer": 0, "hands": KNOCK_HANDS,
            "upcard": "JS"}
    lay = observer.layout
    s = GameState(rules, 0, deal=deal)
    s.apply_str("pass")
    s.apply_str("pass")
    s.apply_str("order alone")  # seat 3 orders alone; seat 1 sits out; the dealer (seat 0) takes JS
    s.apply_str("discard 9C")
    off, size = lay["discard"]
    assert observer.encode(s, 0)[off:off + size].sum() == 1
    for seat in (1, 2, 3):
        assert observer.encode(s, seat)[off:off + size].sum() == 0
    # The opening leader (seat 2: seat 1 sits out) sees that the maker is alone.
    assert s.current_player == 2
    off, _ = lay["sitting_out"]
    assert observer.encode(s, 2)[off + 3] == 1  # seat 1 is relative seat 3 for seat 2
    off, _ = lay["maker"]
    assert observer.encode(s, 2)[off + 1] == 1  # the maker, seat 3, is seat 2's left opponent


@pytest.mark.parametrize("preset", euchre_env.PRESETS)
def test_layout_blocks_tile_the_vector(preset):
    env = euchre_env.raw_env(rules=preset)
    layout = env.observation_layout
    offset = 0
    for _, (start, size) in layout.items():
        assert start == offset and size > 0
        offset += size
    assert offset == env.observation_space("player_0")["observation"].shape[0]


def test_own_seat_is_distinguishable_at_first_bid():
    """OpenSpiel's tensor cannot tell the seats apart at the first bid; ours encodes the dealer relative to the
    observer, so the four seats' views differ beyond their hands."""
    env = euchre_env.raw_env(rules="knock")
    env.reset(seed=0)
    views = [env.observe(a)["observation"] for a in env.possible_agents]
    off, size = env.observation_layout["dealer"]
    assert len({v[off:off + size].tobytes() for v in views}) == 4
