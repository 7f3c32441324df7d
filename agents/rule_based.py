"""A rule-based Euchre player: the heuristics of a decent club player, for every preset.

``RuleBasedAgent`` reads only the seat's :class:`~euchre_env.infostate.InfoState` (its own
cards, the public calls and plays, its own discard or help exchange, the voids others have
shown) and the rule set's card tables. It never looks at a ``GameState``.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
from euchre_env.agents.base import require_information_state

from euchre_env.actions import BID, GIVE, HELP, MOON, PLAY, ActionTable
from euchre_env.cards import trick_winner
from euchre_env.engine import Phase
from euchre_env.infostate import InfoState
from euchre_env.rules import Rules

# ----------------------------------------------------------------------------- tuning
# Every estimate is in tricks. A held trump is worth TRUMP_VALUE[k] tricks, where k is the
# number of higher trumps neither held nor known gone (0: it is the best trump left).
TRUMP_VALUE = (1.0, 0.75, 0.5, 0.35, 0.25, 0.2)
TRUMP_FLOOR = 0.15
LENGTH_BONUS = 0.2  # per trump beyond the second: long trumps pull the others' and then win
ACE_VALUE = (0.8, 0.7, 0.5)  # best card of a side suit, by how many cards of that suit are held (1, 2, 3+)
SECOND_MASTER_VALUE = 0.45  # the king under one's own ace
GUARDED_KING_VALUE = 0.25  # second-best card of a side suit with a guard
BARE_KING_VALUE = 0.15
VOID_VALUE = 0.3  # a side-suit void when holding at least two trumps (a ruff)
PARTNER_SHARE = 0.18  # tricks expected from the partner, per trick of the hand
CALL_MARGIN = 0.5  # call when the team estimate reaches half the tricks plus this
ALONE_LOSERS = 0.5  # go alone (moon) when the expected losers stay at or under this
HELP_LOSERS = 1.5  # bid help: the partner's best trump covers about one loser
DEFEND_ALONE_TRICKS = 3.0  # own estimate needed to defend alone
DEFEND_ALONE_TRUMPS = 3
FORCED_ALONE_TRICKS = 3.2  # the dealer's partner who may only order alone: own estimate needed


def _upcard_value(order_index: int) -> float:
    """What the up-card adds to the dealer's side: a top trump plus a discarded loser."""
    if order_index <= 1:
        return 0.95
    if order_index <= 3:
        return 0.75
    return 0.5


class _Tables:
    """Per rule set: the action table and per-trump rankings of every effective suit."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deck = rules.deck_spec
        self.table = ActionTable(rules)
        self.copies = self.deck.copies
        self.n_ids = self.deck.num_ids
        self.suits = {t: self.deck.effective_suits(t) for t in range(-1, 4)}
        self.power = {t: self.deck.powers(t) for t in range(4)}
        # ranking[t][s]: card ids of effective suit s under trump t, best first, one entry per copy
        self.ranking: dict[int, dict[int, list[int]]] = {}
        for t in range(4):
            suits, power = self.suits[t], self.power[t]
            self.ranking[t] = {
                s: [c for c in sorted(range(self.n_ids), key=lambda c: -power[c]) if suits[c] == s
                    for _ in range(self.copies)]
                for s in range(4)
            }
        self.tricks = rules.tricks_per_hand
        self.partner_share = PARTNER_SHARE * self.tricks
        self.call_target = self.tricks / 2 + CALL_MARGIN


_TABLES: dict[Rules, _Tables] = {}


def _tables(rules: Rules) -> _Tables:
    tables = _TABLES.get(rules)
    if tables is None:
        tables = _TABLES[rules] = _Tables(rules)
    return tables


def _walk(ranking: list[int], held: Counter, gone: Counter):
    """(j, k, card) for each held card of a suit, best first: j-th held, k higher cards still out."""
    held = Counter(held)
    gone = Counter(gone)
    j = k = 0
    for c in ranking:
        if held[c] > 0:
            held[c] -= 1
            yield j, k, c
            j += 1
        elif gone[c] > 0:
            gone[c] -= 1
        else:
            k += 1


def _by_suit(T: _Tables, hand, trump: int) -> dict[int, Counter]:
    """The hand's cards grouped by effective suit under ``trump`` (with their counts)."""
    by_suit: dict[int, Counter] = {s: Counter() for s in range(4)}
    for c, n in Counter(hand).items():
        by_suit[T.suits[trump][c]][c] = n
    return by_suit


def estimate(T: _Tables, hand, trump: int, gone=()) -> float:
    """Tricks the hand should take with ``trump`` as trump (``gone``: cards known out of play)."""
    by_suit, gone = _by_suit(T, hand, trump), Counter(gone)
    value = 0.0
    n_trumps = 0
    for _, k, _c in _walk(T.ranking[trump][trump], by_suit[trump], gone):
        value += TRUMP_VALUE[k] if k < len(TRUMP_VALUE) else TRUMP_FLOOR
        n_trumps += 1
    value += LENGTH_BONUS * max(0, n_trumps - 2)
    voids = 0
    for s in range(4):
        if s == trump:
            continue
        length = sum(by_suit[s].values())
        if length == 0:
            voids += 1
            continue
        for j, k, _c in _walk(T.ranking[trump][s], by_suit[s], gone):
            if j == 0 and k == 0:
                value += ACE_VALUE[min(length, 3) - 1]
            elif j == 1 and k == 0:
                value += SECOND_MASTER_VALUE
            elif j == 0 and k == 1:
                value += GUARDED_KING_VALUE if length >= 2 else BARE_KING_VALUE
            else:
                break
    if n_trumps >= 2:
        value += VOID_VALUE * min(voids, n_trumps - 1)
    return value


def losers(T: _Tables, hand, trump: int, gone=()) -> tuple[float, int]:
    """Expected losing tricks playing alone with ``trump``, and the number of trumps held."""
    by_suit, gone = _by_suit(T, hand, trump), Counter(gone)
    trumps = list(_walk(T.ranking[trump][trump], by_suit[trump], gone))
    n_trumps = len(trumps)
    top_run = sum(1 for _, k, _c in trumps if k == 0)
    missing_above = trumps[-1][1] if trumps else 0
    lost = 0.8 * min(n_trumps - top_run, missing_above)
    for s in range(4):
        if s == trump:
            continue
        for j, k, _c in _walk(T.ranking[trump][s], by_suit[s], gone):
            lost += (0.15 if j == 0 else 0.35 * j) if k == 0 else 1.0
    return lost, n_trumps


def best_discard(T: _Tables, hand, trump: int) -> int:
    """The card to throw away: a lone side-suit loser (voiding its suit), else the lowest loser.

    Trumps and side-suit aces are kept; with nothing else, the lowest trump goes when three or
    more trumps remain, else the lowest ace.
    """
    suits, power = T.suits[trump], T.power[trump]
    side = [c for c in hand if suits[c] != trump]
    trumps = [c for c in hand if suits[c] == trump]
    if not side:
        return min(hand, key=lambda c: (power[c], c))
    length = Counter(suits[c] for c in side)
    aces = [c for c in side if c == T.ranking[trump][suits[c]][0]]
    low = [c for c in side if c not in aces]
    if low:
        return min(low, key=lambda c: (length[suits[c]], power[c], c))
    if len(trumps) >= 3:
        return min(trumps, key=lambda c: (power[c], c))
    return min(aces, key=lambda c: (-length[suits[c]], c))


class RuleBasedAgent:
    """A deterministic rule-based player with the habits of a decent club Euchre player.

    It works in every preset (``knock``, ``classic``, ``multiplayer`` and ``bid``) and with every
    option (joker, 32-card deck, defend alone, dealer's partner must go alone, rubbers; ace no
    face, joker dealer discard, double deck, stick the dealer in Bid Euchre). It reads only
    ``info["information_state"]`` (create the env with ``info_state=True``), never the hidden
    cards, and always returns one of its ``legal_actions``. Ties go to the lowest card or suit;
    the seed is accepted for the common agent interface but nothing is random.

    **Hand strength.** Every call starts from an estimate, in tricks, of what the hand takes with
    a given trump suit. Each trump counts by how many higher trumps are still out (the best
    trump left, e.g. the right bower, is a trick; the left bower behind it almost one; small
    trumps a fraction), trumps beyond the second add length, side-suit aces count (less in long
    suits, which get trumped), a king under its ace or a guarded king a little, and each void
    side suit counts as a ruff when holding two or more trumps. The partner is assumed to bring
    about 0.18 tricks per trick of the hand (0.9 of 5).

    **Turn-up family, round 1.** Order up when own estimate + partner's share reaches half the
    tricks plus a margin (3.0 of 5). The up-card changes sides: ordering it up to an opponent
    dealer subtracts what it gives them (a bower most, then the ace or king, then a small trump),
    ordering it to the partner adds the same; the dealer evaluates the hand after picking it up
    and making the best discard. When the dealer's partner may only go alone, it orders alone
    only if its own hand (the up-card stays out) should take three tricks alone (an estimate of
    3.2) or passes the going-alone test below.

    **Round 2.** Name the suit with the best estimate (never the turned-down one, whose card is
    known out of play) if it reaches the same target; the dealer under stick the dealer names
    the best suit whatever it is worth.

    **Going alone** only with a near-certain march: three or more trumps, counting the expected
    losers (a side card that is not the best of its suit is a loser, a side ace a small risk,
    a trump under a missing higher one most of a loser) at no more than half a trick, e.g. both
    bowers and the ace of trump with two side aces, or four top trumps and a side ace.
    **Defending alone** (multiplayer) only with three or more trumps that should take three
    tricks on their own.

    **Dealer discard.** Keep trumps and aces; discard a lone low side card to void its suit,
    otherwise the lowest card of the shortest side suit. **Joker up-card:** the dealer names
    the suit in which the hand, with the joker picked up and the best discard, is strongest.

    **Bid Euchre.** The auction bids from the estimate for the best suit plus the partner's
    share (about 1.1 of 6 tricks): the cheapest legal bid up to that level (3, 4, 5, ...);
    ``bid moon`` when the hand alone should take every trick (the going-alone test above);
    ``bid help`` when it has about one loser more, which the partner's best trump covers. It
    never outbids its partner with a plain bid. A weak hand that is eligible calls ``ace no
    face`` (throwing in the deal) unless the partner holds the contract; under stick the
    dealer the forced dealer bids the cheapest level. The winner names the suit estimated
    best. Help exchange: the bidder gives its weakest card (as the dealer discard); the
    partner's give-back is its best trump (forced by the mask), otherwise its best card. The
    joker dealer's discard, before trump is known, keeps the hand whose best suit is strongest.

    **Card play** (the same in every preset; under ``renege="penalize"`` it still follows suit).
    Leading: the maker leads the best trump left (the right bower first) while opponents may
    still hold trumps, or a low trump when holding three or more; the maker's partner leads
    trump back to the maker (the best trump if it is the best left, else the lowest);
    otherwise the best card left of a side suit (aces), preferring suits the opponents have
    not shown void in, then a low card of a suit the partner has shown void in, then the
    lowest card of the shortest side suit. Following: when the partner is winning and no
    opponent still to play can beat the partner's card, play the lowest card and never trump
    it (throw off instead); second hand low (take the trick only with a card nobody behind can
    beat, or trump a side-suit card that would otherwise win); third hand high (when no
    winning card is safe, play the highest winner); last hand wins as cheaply as possible;
    when it cannot win, it throws off the lowest loser (side suits before trumps, aces last).
    """

    name = "rules"
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ entry point
    def act(self, observation: Any, info: dict[str, Any]) -> int:
        info_state = require_information_state(info, "RuleBasedAgent")
        legal = list(info_state.legal_actions)
        if not legal:
            raise ValueError("RuleBasedAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return int(legal[0])
        T = _tables(info_state.rules)
        action = self._choose(T, info_state, legal)
        return int(action) if action in legal else int(legal[0])

    def _choose(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        p = s.phase
        if p == Phase.PLAY:
            return self._play(T, s, legal)
        if p == Phase.CALL1:
            return self._call1(T, s, legal)
        if p == Phase.CALL2:
            return self._call2(T, s, legal)
        if p == Phase.DISCARD:
            if s.trump >= 0:
                return T.table.discard_base + best_discard(T, s.hand, s.trump)
            return T.table.discard_base + self._blind_discard(T, s.hand)
        if p == Phase.DEFEND:
            return self._defend(T, s, legal)
        if p == Phase.JOKER_SUIT:
            return T.table.name_base + self._joker_suit(T, s)
        if p == Phase.AUCTION:
            return self._auction(T, s, legal)
        if p == Phase.NAME_TRUMP:
            gone = self._gone(T, s)
            return T.table.name_base + max(range(4), key=lambda t: (estimate(T, s.hand, t, gone), -t))
        if p == Phase.GIVE:
            return T.table.give_base + best_discard(T, s.hand, s.trump)
        if p == Phase.GIVE_BACK:
            return self._give_back(T, s, legal)
        return legal[0]

    # ------------------------------------------------------------------ calling
    def _gone(self, T: _Tables, s: InfoState) -> list[int]:
        """Cards this seat knows are out of everyone's hand: played, own discard, a turned-down card."""
        gone = list(s.played)
        if s.discarded is not None:
            gone.append(s.discarded)
        if s.upcard is not None and not s.upcard_taken and (s.phase == Phase.CALL2 or s.trump >= 0):
            gone.append(s.upcard)
        if s.given is not None and s.seat == s.bidder:
            gone.append(s.given)  # the partner sits out holding it
        return gone

    def _dealer_hand(self, T: _Tables, hand, upcard: int, trump: int) -> list[int]:
        """The dealer's hand after picking up ``upcard`` and making the best discard."""
        six = [*hand, upcard]
        six.remove(best_discard(T, six, trump))
        return six

    def _alone_ok(self, T: _Tables, hand, trump: int, gone=()) -> bool:
        lost, n_trumps = losers(T, hand, trump, gone)
        return n_trumps >= 3 and lost <= ALONE_LOSERS

    def _call1(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        t = T.table
        trump = s.upcard_suit
        me, dealer = s.seat, s.dealer
        partner_of_dealer = me == (dealer + 2) % 4
        if t.order_id not in legal:  # the dealer's partner must go alone to order
            own = estimate(T, s.hand, trump)
            if t.order_alone_id in legal and (own >= FORCED_ALONE_TRICKS or self._alone_ok(T, s.hand, trump)):
                return t.order_alone_id
            return t.pass_id
        if me == dealer:
            hand = self._dealer_hand(T, s.hand, s.upcard, trump)
            own = estimate(T, hand, trump)
        else:
            hand = list(s.hand)
            own = estimate(T, hand, trump)
            idx = T.ranking[trump][trump].index(s.upcard) // T.copies
            own += _upcard_value(idx) if partner_of_dealer else -_upcard_value(idx)
        if t.order_alone_id in legal and self._alone_ok(T, hand, trump):
            return t.order_alone_id
        if own + T.partner_share >= T.call_target:
            return t.order_id
        return t.pass_id

    def _call2(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        t = T.table
        gone = self._gone(T, s)
        options = [x for x in range(4) if t.name_base + x in legal]
        best = max(options, key=lambda x: (estimate(T, s.hand, x, gone), -x))
        if t.name_alone_base >= 0 and t.name_alone_base + best in legal and self._alone_ok(T, s.hand, best, gone):
            return t.name_alone_base + best
        forced = t.pass_id not in legal
        if forced or estimate(T, s.hand, best, gone) + T.partner_share >= T.call_target:
            return t.name_base + best
        return t.pass_id

    def _defend(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        t = T.table
        gone = self._gone(T, s)
        own = estimate(T, s.hand, s.trump, gone)
        n_trumps = sum(1 for c in s.hand if T.suits[s.trump][c] == s.trump)
        if t.defend_id in legal and n_trumps >= DEFEND_ALONE_TRUMPS and own >= DEFEND_ALONE_TRICKS:
            return t.defend_id
        return t.pass_id

    def _joker_suit(self, T: _Tables, s: InfoState) -> int:
        def strength(x: int) -> float:
            return estimate(T, self._dealer_hand(T, s.hand, s.upcard, x), x)

        return max(range(4), key=lambda x: (strength(x), -x))

    def _blind_discard(self, T: _Tables, hand) -> int:
        """Joker dealer in Bid Euchre, before the auction: keep the hand with the strongest best suit."""
        power = T.power[0]

        def after(c: int) -> float:
            rest = list(hand)
            rest.remove(c)
            return max(estimate(T, rest, x) for x in range(4))

        return max(sorted(set(hand)), key=lambda c: (after(c), -power[c], -c))

    def _auction(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        t = T.table
        best = max(range(4), key=lambda x: (estimate(T, s.hand, x), -x))
        own = estimate(T, s.hand, best)
        lost, n_trumps = losers(T, s.hand, best)
        enough_trumps = n_trumps >= (T.tricks + 1) // 2
        partner_holds = s.contract is not None and s.bidder == (s.seat + 2) % 4
        bids = {t.actions[a].arg: a for a in legal if t.actions[a].kind == BID}
        if MOON in bids and enough_trumps and lost <= ALONE_LOSERS:
            return bids[MOON]
        if HELP in bids and enough_trumps and lost <= HELP_LOSERS:
            return bids[HELP]
        level = math.floor(own + T.partner_share)
        plain = sorted(lv for lv in bids if lv not in (HELP, MOON))
        if t.pass_id not in legal:  # stick the dealer: the cheapest bid
            return bids[plain[0]] if plain else min(legal)
        if not partner_holds and plain and plain[0] <= level:
            return bids[plain[0]]
        if t.ace_no_face_id in legal and not partner_holds and (not plain or plain[0] > level):
            return t.ace_no_face_id
        return t.pass_id

    def _give_back(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        t = T.table
        power = T.power[s.trump]
        cards = [t.actions[a].arg for a in legal if t.actions[a].kind == GIVE]
        return t.give_base + max(cards, key=lambda c: (power[c], -c))

    # ------------------------------------------------------------------ card play
    def _play(self, T: _Tables, s: InfoState, legal: list[int]) -> int:
        table = T.table
        trump = s.trump
        suits, power = T.suits[trump], T.power[trump]
        cards = sorted({table.actions[a].arg for a in legal if table.actions[a].kind == PLAY})
        hand = list(s.hand)
        if s.trick:
            led = suits[s.trick[0][1]]
            follow = [c for c in cards if suits[c] == led]
            if follow:
                cards = follow  # follow suit honestly even when reneging is possible
        # cards whose copies are not accounted for: in some other hand (or the undealt kitty)
        unseen = Counter({c: T.copies for c in range(T.n_ids)})
        unseen.subtract(hand)
        unseen.subtract(self._gone(T, s))
        out_cards = [c for c in range(T.n_ids) if unseen[c] > 0]
        me = s.seat
        partner = (me + 2) % 4
        ctx = _PlayContext(T, s, trump, suits, power, out_cards, me, partner)
        card = ctx.follow(cards, hand) if s.trick else ctx.lead(cards, hand)
        return table.play_base + card


class _PlayContext:
    """The card-play heuristics for one decision."""

    def __init__(self, T, s: InfoState, trump, suits, power, out_cards, me, partner) -> None:
        self.T, self.s, self.trump, self.suits, self.power = T, s, trump, suits, power
        self.out_cards = out_cards
        self.me, self.partner = me, partner
        self.active = [x for x in range(4) if not s.out[x]]
        self.opponents = [x for x in self.active if x % 2 != me % 2]

    # --- knowledge -------------------------------------------------------------
    def beats(self, x: int, c: int) -> bool:
        """Card ``x`` played after ``c`` takes it (``c`` being trump or of the suit led)."""
        sx, sc = self.suits[x], self.suits[c]
        if sx == sc:
            return self.power[x] > self.power[c]
        return sx == self.trump

    def master(self, c: int) -> bool:
        """No card still out is higher in ``c``'s suit."""
        return not any(self.suits[x] == self.suits[c] and self.power[x] > self.power[c] for x in self.out_cards)

    def safe(self, c: int, behind: list[int]) -> bool:
        """No opponent in ``behind`` can hold a card that beats ``c`` (as far as voids tell)."""
        for o in behind:
            if o % 2 == self.me % 2:
                continue
            voids = self.s.voids[o] if self.s.voids else frozenset()
            for x in self.out_cards:
                if self.suits[x] not in voids and self.beats(x, c):
                    return False
        return True

    def throw_key(self, c: int):
        """Order for throwing off: side suits before trumps, non-masters before masters, low first."""
        return (self.suits[c] == self.trump, self.master(c), self.power[c], c)

    # --- leading ---------------------------------------------------------------
    def lead(self, cards: list[int], hand: list[int]) -> int:
        s, trump, suits, power = self.s, self.trump, self.suits, self.power
        trumps = sorted((c for c in cards if suits[c] == trump), key=lambda c: -power[c])
        side = [c for c in cards if suits[c] != trump]
        trumps_out = any(suits[x] == trump for x in self.out_cards)
        opp_have_trump = trumps_out and not all(trump in (s.voids[o] if s.voids else ()) for o in self.opponents)
        we_made = s.maker >= 0 and s.maker % 2 == self.me % 2
        if we_made and trumps and opp_have_trump:
            if s.maker == self.me:
                if self.master(trumps[0]):
                    return trumps[0]
                if len(trumps) >= 3:
                    return trumps[-1]
            elif not s.out[self.partner]:
                return trumps[0] if self.master(trumps[0]) else trumps[-1]
        masters = [c for c in side if self.master(c)]
        if masters:
            def risk(c: int) -> tuple:
                shown_void = sum(1 for o in self.opponents if s.voids and suits[c] in s.voids[o])
                held = sum(1 for h in hand if suits[h] == suits[c])
                return (shown_void, held, -power[c], c)

            return min(masters, key=risk)
        if trumps and self.master(trumps[0]) and opp_have_trump and we_made:
            return trumps[0]
        if side:
            if s.voids and not s.out[self.partner]:
                feed = [c for c in side if suits[c] in s.voids[self.partner]
                        and not any(suits[c] in s.voids[o] for o in self.opponents)]
                if feed:
                    return min(feed, key=lambda c: (power[c], c))
            length = Counter(suits[c] for c in hand)
            return min(side, key=lambda c: (length[suits[c]], power[c], c))
        return trumps[0] if self.master(trumps[0]) else trumps[-1]

    # --- following -------------------------------------------------------------
    def follow(self, cards: list[int], hand: list[int]) -> int:
        s, T = self.s, self.T
        trick_cards = [c for _, c in s.trick]
        played = {x for x, _ in s.trick}
        behind = [x for x in self._order_after(self.me) if x not in played]
        win_idx = trick_winner(trick_cards, T.deck, self.trump)
        winner_seat, winning = s.trick[win_idx]
        winners = [c for c in cards if trick_winner([*trick_cards, c], T.deck, self.trump) == len(trick_cards)]
        low = min(cards, key=self.throw_key)
        led = self.suits[trick_cards[0]]
        if winner_seat == self.partner:
            if self.safe(winning, behind):
                return low
            # An opponent behind may still beat the partner: overtake only by following suit.
            cover = [c for c in winners if self.suits[c] == led and self.safe(c, behind)]
            return min(cover, key=lambda c: self.power[c]) if cover else low
        if not winners:
            return low
        safe_winners = [c for c in winners if self.safe(c, behind)]
        cheapest = min(safe_winners or winners, key=lambda c: (self.power[c], c))
        if self.partner in behind:
            # Second hand low, unless the winning card is one only this hand can beat (a king
            # led under one's ace, a side-suit ace one can trump): then take it cheaply.
            return cheapest if self.master(winning) else low
        if safe_winners:
            return cheapest  # win as cheaply as possible
        return max(winners, key=lambda c: (self.power[c], -c))  # third hand high

    def _order_after(self, seat: int) -> list[int]:
        """Active seats after ``seat`` in play order, up to the end of the trick."""
        out = []
        x = seat
        for _ in range(3):
            x = (x + 1) % 4
            if x in self.active and x != seat:
                out.append(x)
        return out


__all__ = ["RuleBasedAgent", "best_discard", "estimate", "losers"]
