"""The structured observation: invariant under the 8 colour-preserving suit relabellings, perfect recall
up to them, private, with a tiling layout and bounds; its frame maths maps actions both ways."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from euchre_env.game.deals import random_deal
from euchre_env.game.engine import GameState, Phase
from euchre_env.game.rules import Rules
from euchre_env.views.decision import legal_mask
from euchre_env.views.structured import StructuredObserver, colour_relabellings, suit_frames
from tests.views.test_observation import distinct_encodings, info_state_key

CONFIGS = [
    ("knock", {}),
    ("classic", {}),
    ("multiplayer", {}),
    ("bid", {}),
    ("knock", {"joker": True}),
    ("classic", {"deck": 32, "rubber": True}),
    ("multiplayer", {"joker": True, "deck": 32}),
    ("knock", {"dealer_partner_must_go_alone": True, "renege": "penalize"}),
    ("bid", {"joker": True, "ace_no_face": True}),
    ("bid", {"double_deck": True, "ace_no_face": True}),
]
IDS = [f"{p}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for p, kw in CONFIGS]


def _deal(rules: Rules, rng: np.random.Generator) -> dict:
    deal = random_deal(rules, rng, int(rng.integers(4)))
    deal.pop("kitty")
    return deal


def _relabel_deal(deal: dict, frame) -> dict:
    g = frame.card_to_canonical
    out = {"dealer": deal["dealer"], "hands": [[int(g[c]) for c in h] for h in deal["hands"]]}
    if "upcard" in deal:
        out["upcard"] = int(g[deal["upcard"]])
    return out


def _policy(vec: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic policy of the encoding alone: a legal id picked by a hash of the vector."""
    legal = np.flatnonzero(mask)
    return int(legal[int(hashlib.sha1(vec.tobytes()).hexdigest(), 16) % len(legal)])


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_relabelled_deals_encode_identically(preset, kwargs):
    """Same actions on a deal and on each of its 8 relabellings: encodings and canonical masks agree at every
    decision, and a policy of the encoding picks canonical ids that stand for the relabelled absolute actions."""
    rules = Rules.preset(preset, **kwargs)
    obs = StructuredObserver(rules)
    rng = np.random.default_rng(7)
    decisions = 0
    for _ in range(6):
        deal = _deal(rules, rng)
        scores = [int(rng.integers(0, 3)), int(rng.integers(0, 3))]
        moves = int(rng.integers(1 << 30))
        for g in colour_relabellings(rules):
            a = GameState(rules, 0, deal=deal, scores=scores)
            b = GameState(rules, 0, deal=_relabel_deal(deal, g), scores=scores)
            pick = np.random.default_rng(moves)
            while not a.hand_over:
                seat = a.current_player
                va, fa = obs.encode_with_frame(a, seat)
                vb, fb = obs.encode_with_frame(b, seat)
                assert np.array_equal(va, vb)
                ma, mb = fa.canonical_mask(legal_mask(a)), fb.canonical_mask(legal_mask(b))
                assert np.array_equal(ma, mb)
                other = (seat + 1 + decisions % 3) % 4  # a seat that does not act sees the same too
                assert np.array_equal(obs.encode(a, other), obs.encode(b, other))
                j = _policy(va, ma)
                # Several frames tie only at a symmetry of the seat's state; then any of them is as good.
                here = {int(g.action_to_canonical[f.to_absolute_action(j)]) for f in obs.canonical_frames(a, seat)}
                there = {f.to_absolute_action(j) for f in obs.canonical_frames(b, seat)}
                assert here == there
                assert fa in obs.canonical_frames(a, seat)
                legal = a.legal_actions()
                action = legal[pick.integers(len(legal))]
                a.apply(action)
                b.apply(g.to_canonical_action(action))
                decisions += 1
            assert a.hand_result["points"] == b.hand_result["points"]
    assert decisions > 300


def _orbit_key(s: GameState, seat: int, frames) -> tuple:
    """``info_state_key`` up to the colour-preserving relabellings: its smallest relabelled form."""
    hand, dealer, upcard, upcard_suit, events, scores, rubber, phase = info_state_key(s, seat)
    forms = []
    for g in frames:
        cards, acts = g.card_to_canonical, g.action_to_canonical
        forms.append((
            tuple(sorted(int(cards[c]) for c in hand)), dealer,
            -1 if upcard is None else int(cards[upcard]),
            -1 if upcard_suit is None or upcard_suit < 0 else g.slot[upcard_suit],
            tuple((p, w, -1 if a is None else int(acts[a])) for p, w, a in events),
            scores, rubber, phase,
        ))
    return min(forms)


@pytest.mark.parametrize(("preset", "kwargs"), [CONFIGS[i] for i in (0, 2, 3, 4, 8, 9)],
                         ids=[IDS[i] for i in (0, 2, 3, 4, 8, 9)])
def test_different_information_states_never_share_an_encoding(preset, kwargs):
    """Random continuations of near-identical deals: states not related by a relabelling stay apart, and states
    that are (the same orbit) encode alike."""
    rules = Rules.preset(preset, **kwargs)
    frames = colour_relabellings(rules)
    key = lambda s, seat: _orbit_key(s, seat, frames)
    assert distinct_encodings(rules, StructuredObserver(rules).encode, key, 2, 12, 4) > 1000


def _replay(rules: Rules, deal: dict, history: list, swap: dict[int, int] | None = None) -> GameState | None:
    """``history``'s actions on ``deal`` (the dealer's discard renamed by ``swap``); None when one is illegal."""
    s = GameState(rules, 0, deal=deal)
    t = s.table
    for phase, _, action in history:
        if swap and phase == Phase.DISCARD:
            action = t.discard_base + swap.get(action - t.discard_base, action - t.discard_base)
        if action not in s.legal_actions():
            return None
        s.apply(action)
    return s


@pytest.mark.parametrize(("preset", "kwargs"), [CONFIGS[i] for i in (0, 2, 3, 8)],
                         ids=[IDS[i] for i in (0, 2, 3, 8)])
def test_hidden_cards_never_change_the_encoding(preset, kwargs):
    """Swap an unplayed card between two other hands, a hidden hand and the kitty, or the dealer's unseen
    discard with a kitty card: the seat's encoding is the same whenever the same history stays legal."""
    rules = Rules.preset(preset, **kwargs)
    obs = StructuredObserver(rules)
    rng = np.random.default_rng(3)
    checked = 0
    kinds: set[str] = set()
    for _ in range(150):
        full = random_deal(rules, rng, int(rng.integers(4)))
        kitty = full.pop("kitty")
        a = GameState(rules, 0, deal=full)
        for _ in range(int(rng.integers(0, 30))):
            if a.hand_over:
                break
            legal = a.legal_actions()
            a.apply(legal[rng.integers(len(legal))])
        seat = int(rng.integers(4))
        others = [s for s in range(4) if s != seat]
        hands = [list(h) for h in full["hands"]]
        played = [c for _, _, cards in a.tricks for c in cards] + a.trick
        x, y = (int(v) for v in rng.choice(others, 2, replace=False))
        kind = int(rng.integers(3)) if kitty else 0  # Bid Euchre deals every card: no kitty, no discard to hide
        swap = None
        if kind == 0:  # two other seats exchange a card neither has played
            i, j = int(rng.integers(len(hands[x]))), int(rng.integers(len(hands[y])))
            hands[x][i], hands[y][j] = hands[y][j], hands[x][i]
        else:  # an other seat's card and a kitty card exchange (or the unseen discard becomes a kitty card)
            k = int(rng.choice(kitty))
            if kind == 2 and a.discarded in hands[a.dealer] and a.dealer != seat:
                x, swap = a.dealer, {a.discarded: k}
                hands[x][hands[x].index(a.discarded)] = k
            else:
                hands[x][int(rng.integers(len(hands[x])))] = k
        moved = {c for h, h0 in zip(hands, full["hands"]) for c in set(h) ^ set(h0)}
        if moved & set(played):
            continue
        b = _replay(rules, dict(full, hands=hands), a.history, swap)
        if b is None or sorted(b.hands[seat]) != sorted(a.hands[seat]):
            continue
        assert np.array_equal(obs.encode(a, seat), obs.encode(b, seat))
        checked += 1
        kinds.add("discard" if swap else "hands" if kind == 0 else "kitty")
    assert checked > 40
    assert kinds == ({"hands"} if rules.is_bid else {"hands", "kitty", "discard"})


@pytest.mark.parametrize(("preset", "kwargs"), CONFIGS, ids=IDS)
def test_layout_tiles_the_vector_and_bounds_hold(preset, kwargs):
    rules = Rules.preset(preset, **kwargs)
    obs = StructuredObserver(rules)
    offset = 0
    for start, size in obs.layout.values():
        assert start == offset and size > 0
        offset += size
    assert offset == obs.size == obs.low.size == obs.high.size
    assert list(obs.layout)[:len(obs.base.layout)] == list(obs.base.layout)
    rng = np.random.default_rng(5)
    t0, _ = obs.layout["trump"]
    u0, _ = obs.layout["upcard_suit"] if not rules.is_bid else (None, None)
    for _ in range(20):
        s = GameState(rules, rng)
        while not s.hand_over:
            for seat in range(4):
                v = obs.encode(s, seat)
                assert (v >= obs.low).all() and (v <= obs.high).all()
                if s.trump >= 0:
                    assert v[t0] == 1  # trump is always slot 0
                elif u0 is not None and s.upcard_suit >= 0:
                    assert v[u0] == 1  # before trump: the suit offered is slot 0
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])


def test_derived_blocks_of_a_scripted_trick():
    rules = Rules.preset("knock")
    obs = StructuredObserver(rules)
    deal = {"dealer": 3, "upcard": "9S",
            "hands": [["AC", "KC", "QC", "JC", "TC"], ["9C", "9D", "TD", "JD", "QD"],
                      ["KD", "AD", "9H", "TH", "JH"], ["QH", "KH", "AH", "TS", "JS"]]}
    s = GameState(rules, 0, deal=deal)
    for text in ("order", "discard QH", "play AC", "play 9C", "play KD"):  # spades trump; seat 2 shows no club
        s.apply_str(text)
    v, frame = obs.encode_with_frame(s, 3)
    assert frame.order[:2] == (3, 0)  # spades, then clubs
    block = {name: v[o:o + n] for name, (o, n) in obs.layout.items()}
    canon = {c: int(frame.card_to_canonical[rules.deck_spec.parse(c)]) for c in ("AC", "9C", "KD", "QH", "9S")}
    assert block["led_suit"].tolist() == [0, 1, 0, 0]  # clubs led: slot 1
    assert block["winning"].tolist() == [0, 1, 0, 0] and block["partner_winning"][0] == 0  # seat 0 = left of 3
    assert block["current_trick"][1 * 24 + canon["AC"]] == 1 and block["current_trick"][3 * 24 + canon["KD"]] == 1
    assert block["leads"][0] == 0 and block["trick_number"].tolist() == [1, 0, 0, 0, 0]
    assert block["played"].sum() == 3
    # Unseen by the dealer (seat 3): 24 less its 5 cards, the 3 played and its own discard QH.
    assert block["unseen"].sum() == 24 - 5 - 3 - 1 and block["unseen"][canon["QH"]] == 0
    assert block["voids"].reshape(3, 4)[2].tolist() == [0, 1, 0, 0]  # seat 2, the dealer's right, showed no club
    other = obs.encode(s, 1)
    lo, n = obs.layout["unseen"]
    assert other[lo:lo + n].sum() == 24 - 4 - 3  # seat 1 holds 4; the dealer took 9S: unseen for seat 1


def test_frame_maths_round_trips():
    rules = Rules.preset("multiplayer", joker=True)
    for f in suit_frames(rules):
        ids = np.arange(f.action_to_canonical.size)
        assert (f.action_to_absolute[f.action_to_canonical] == ids).all()
        assert f.card_to_canonical[-1] == rules.deck_spec.joker_id  # the joker stays the joker
        mask = np.zeros(ids.size, np.int8)
        mask[[0, 5, 40]] = 1
        assert sorted(f.to_canonical_action(a) for a in (0, 5, 40)) == np.flatnonzero(f.canonical_mask(mask)).tolist()
    assert len({f.suit_order for f in suit_frames(rules)}) == 8
    assert colour_relabellings(rules)[0].suit_order == "CDHS"
    assert sorted(g.suit_order for g in colour_relabellings(rules)) == sorted(
        ["CDHS", "SDHC", "CHDS", "SHDC", "DCSH", "HCSD", "DSCH", "HSCD"])
