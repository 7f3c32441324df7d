"""A rule-based Euchre player: the heuristics of a decent club player, for every preset.

``RuleBasedAgent`` reads only the seat's :class:`~euchre_env.views.infostate.InfoState` (its own
cards, the public calls and plays, its own discard or help exchange, the voids others have
shown) and the rule set's card tables. It never looks at a ``GameState``. What a hand is
worth comes from :mod:`euchre_env.agents.rule_based.heuristics` (the trick estimate); this module holds
the calling thresholds and the card-play rules built on it.

Compiled twin: :class:`euchre_env.agents.rule_based.compiled.RuleBasedBatchPolicy` (what ``batch_twin``
returns), over the C of ``agents/rule_based/c/twin.c``; its ``compiled_decision()`` is what
``SingleSeatVectorEnv``'s whole step, :mod:`euchre_env.envs.whole_step`, calls for the opponents' seats. Proven equal
by tests/differential/test_rule_based_batch_policy_vs_rule_based_agent.py (every decision), and in whole games by
tests/differential/test_batch_play_vs_match.py, tests/differential/test_single_seat_vector_vs_single_seat.py,
tests/differential/test_single_seat_step_vs_rounds.py and tests/differential/test_selfplay_twin_vs_mirrored_agent.py.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from euchre_env.agents.base import require_information_state
from euchre_env.agents.rule_based.heuristics import (
    alone_losers,
    best_discard,
    suit_tables,
    trick_estimate,
    upcard_value,
)
from euchre_env.game.actions import BID, GIVE, HELP, MOON, PLAY, action_table
from euchre_env.game.cards import NUM_SUITS, SUITS, Deck, beats, follow_suit, trick_winner
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NOBODY, NUM_SEATS, partner_of, same_team
from euchre_env.views.infostate import InfoState

# ----------------------------------------------------------------------------- calling thresholds
PARTNER_SHARE = 0.18  # tricks expected from the partner, per trick of the hand
CALL_MARGIN = 0.5  # call when the team estimate reaches half the tricks plus this
ALONE_LOSERS = 0.5  # go alone (moon) when the expected losers stay at or under this
HELP_LOSERS = 1.5  # bid help: the partner's best trump covers about one loser
DEFEND_ALONE_TRICKS = 3.0  # own estimate needed to defend alone
DEFEND_ALONE_TRUMPS = 3
FORCED_ALONE_TRICKS = 3.2  # the dealer's partner who may only order alone: own estimate needed


class _Setting:
    """Per rule set: the action table, the deck's suit tables and the calling target."""

    def __init__(self, rules: Rules) -> None:
        self.deck = rules.deck_spec
        self.cards = suit_tables(self.deck)
        self.table = action_table(rules)
        self.tricks = rules.tricks_per_hand
        self.partner_share = PARTNER_SHARE * self.tricks
        self.call_target = self.tricks / 2 + CALL_MARGIN


@cache
def _setting(rules: Rules) -> _Setting:
    return _Setting(rules)


class RuleBasedAgent:
    """A deterministic rule-based player with the habits of a decent club Euchre player.

    It works in every preset (``knock``, ``classic``, ``multiplayer`` and ``bid``) and with every
    option (joker, 32-card deck, defend alone, dealer's partner must go alone, rubbers; ace no
    face, joker dealer discard, double deck, stick the dealer in Bid Euchre). It reads only
    ``info["information_state"]`` (create the env with ``info_state=True``), never the hidden
    cards, and always returns one of its ``legal_actions`` (a rule that proposed anything else
    would raise ``RuntimeError``: a bug to fix, never papered over). Ties go to the lowest card or suit;
    nothing is random (the seed is accepted for the common agent interface and ignored).

    **Hand strength.** Every call starts from an estimate, in tricks, of what the hand takes with
    a given trump suit (:func:`euchre_env.agents.rule_based.heuristics.trick_estimate`). The partner is
    assumed to bring about 0.18 tricks per trick of the hand (0.9 of 5).

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

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the agent is deterministic and keeps no state between decisions."""

    def batch_twin(self, rules: Rules) -> Any:
        """The compiled twin (:class:`~euchre_env.agents.rule_based.compiled.RuleBasedBatchPolicy`) where it covers
        ``rules`` and is built (:func:`~euchre_env.compiled.native.use_compiled`), else None. A subclass plays
        otherwise than this class, so it gets no twin unless it defines its own."""
        from euchre_env.agents.rule_based.compiled import EXTENSION, RuleBasedBatchPolicy, not_covered
        from euchre_env.compiled.native import use_compiled

        if type(self) is not RuleBasedAgent:
            return None
        missing = not_covered(rules)
        if missing:  # loudly: a slower agent for a reason the caller can read, never silently
            shown = ", ".join(f"{name}={getattr(rules, name)!r}" for name in missing)
            warnings.warn(f"the rule-based agent's compiled twin does not cover {shown} (its declaration in "
                          "euchre_env/game/rules.py says which values it covers): the Python agent plays", stacklevel=2)
            return None
        return RuleBasedBatchPolicy if use_compiled(EXTENSION) else None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return self.explain(observation, info)[0]

    def explain(self, observation: Any, info: dict[str, Any]) -> tuple[int, str]:
        """``(action, why)``: the action :meth:`act` takes and the rule that chose it, with its numbers."""
        s = require_information_state(info, "RuleBasedAgent")
        legal = list(s.legal_actions)
        if not legal:
            raise ValueError("RuleBasedAgent.act: no legal action (is it this seat's turn?)")
        if len(legal) == 1:
            return int(legal[0]), "the only legal action"
        T = _setting(s.rules)
        decide = _DECISIONS.get(s.phase)
        if decide is None:
            raise RuntimeError(f"RuleBasedAgent has no rule for phase {s.phase.name}")
        action, why = decide(T, s, legal)
        if action not in legal:  # a bug in the rules below: surface it rather than play something else
            shown = T.table.strings[action] if 0 <= action < len(T.table) else action
            raise RuntimeError(f"RuleBasedAgent chose {shown!r} in {s.phase.name}, which is not legal; "
                               f"legal: {', '.join(T.table.strings[a] for a in legal)}")
        return int(action), why


# ----------------------------------------------------------------------------- calling
def _gone(s: InfoState) -> list[int]:
    """Cards this seat knows are out of everyone's hand: played, own discard, a turned-down card."""
    gone = list(s.played)
    if s.discarded is not None:
        gone.append(s.discarded)
    if s.upcard is not None and not s.upcard_taken and (s.phase == Phase.CALL2 or s.trump >= 0):
        gone.append(s.upcard)
    if s.given is not None and s.seat == s.bidder:
        gone.append(s.given)  # the partner sits out holding it
    return gone


def _dealer_hand(deck: Deck, hand, upcard: int, trump: int) -> list[int]:
    """The dealer's hand after picking up ``upcard`` and making the best discard."""
    six = [*hand, upcard]
    six.remove(best_discard(deck, six, trump))
    return six


def _alone_ok(deck: Deck, hand, trump: int, gone=()) -> bool:
    lost, n_trumps = alone_losers(deck, hand, trump, gone)
    return n_trumps >= 3 and lost <= ALONE_LOSERS


def _best_suit(deck: Deck, hand, options, gone=()) -> int:
    """The suit of ``options`` with the best trick estimate (ties: the lowest suit)."""
    return max(options, key=lambda x: (trick_estimate(deck, hand, x, gone), -x))


def _call1(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    t, deck = T.table, T.deck
    trump = s.upcard_suit
    if t.order_id not in legal:  # the dealer's partner must go alone to order
        own = trick_estimate(deck, s.hand, trump)
        if t.order_alone_id in legal and (own >= FORCED_ALONE_TRICKS or _alone_ok(deck, s.hand, trump)):
            return t.order_alone_id, f"the dealer's partner may only order alone; the hand should take {own:.1f} tricks"
        return t.pass_id, (f"the dealer's partner may only order alone, and the hand should take only {own:.1f} "
                           f"tricks (needs {FORCED_ALONE_TRICKS})")
    if s.seat == s.dealer:
        hand = _dealer_hand(deck, s.hand, s.upcard, trump)
        own = trick_estimate(deck, hand, trump)
    else:
        hand = list(s.hand)
        up = upcard_value(deck, s.upcard, trump)
        own = trick_estimate(deck, hand, trump) + (up if s.seat == partner_of(s.dealer) else -up)
    if t.order_alone_id in legal and _alone_ok(deck, hand, trump):
        return t.order_alone_id, "a near-certain march: three or more trumps and at most half a trick of losers"
    team = f"the hand should take {own:.1f} tricks (the up-card counted), the partner {T.partner_share:.1f}"
    if own + T.partner_share >= T.call_target:
        return t.order_id, f"{team}: at least the {T.call_target:.1f} needed to call"
    return t.pass_id, f"{team}: under the {T.call_target:.1f} needed to call"


def _call2(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    t, deck = T.table, T.deck
    gone = _gone(s)
    best = _best_suit(deck, s.hand, [x for x in range(NUM_SUITS) if t.name_base + x in legal], gone)
    if t.name_alone_base >= 0 and t.name_alone_base + best in legal and _alone_ok(deck, s.hand, best, gone):
        return t.name_alone_base + best, "a near-certain march: three or more trumps and at most half a trick of losers"
    forced = t.pass_id not in legal
    own = trick_estimate(deck, s.hand, best, gone)
    team = (f"the best suit, {SUITS[best]}, should take {own:.1f} tricks, the partner {T.partner_share:.1f}")
    if forced:
        return t.name_base + best, "the dealer is stuck and must name a suit: the best one"
    if own + T.partner_share >= T.call_target:
        return t.name_base + best, f"{team}: at least the {T.call_target:.1f} needed to call"
    return t.pass_id, f"{team}: under the {T.call_target:.1f} needed to call"


def _defend(T: _Setting, s: InfoState, legal: list[int]) -> int:
    t = T.table
    own = trick_estimate(T.deck, s.hand, s.trump, _gone(s))
    n_trumps = sum(1 for c in s.hand if T.cards.suits[s.trump][c] == s.trump)
    facts = f"{n_trumps} trumps, the hand should take {own:.1f} tricks"
    if t.defend_id in legal and n_trumps >= DEFEND_ALONE_TRUMPS and own >= DEFEND_ALONE_TRICKS:
        return t.defend_id, f"{facts}: enough to defend alone"
    return t.pass_id, f"{facts}: defending alone needs {DEFEND_ALONE_TRUMPS} and {DEFEND_ALONE_TRICKS:.0f}"


def _discard(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    if s.trump >= 0:
        return (T.table.discard_base + best_discard(T.deck, s.hand, s.trump),
                "keep trumps and aces; void a short side suit, else the lowest card of the shortest side suit")
    # Joker dealer in Bid Euchre, before the auction: keep the hand with the strongest best suit.
    deck, power = T.deck, T.cards.power[0]

    def after(c: int) -> float:
        rest = list(s.hand)
        rest.remove(c)
        return max(trick_estimate(deck, rest, x) for x in range(NUM_SUITS))

    return (T.table.discard_base + max(sorted(set(s.hand)), key=lambda c: (after(c), -power[c], -c)),
            "trump is not known yet: keep the hand whose best suit is strongest")


def _joker_suit(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    deck = T.deck

    def strength(x: int) -> float:
        return trick_estimate(deck, _dealer_hand(deck, s.hand, s.upcard, x), x)

    return (T.table.name_base + max(range(NUM_SUITS), key=lambda x: (strength(x), -x)),
            "the suit in which the hand, with the joker picked up and the best discard, is strongest")


def _name_trump(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    return T.table.name_base + _best_suit(T.deck, s.hand, range(NUM_SUITS), _gone(s)), "the suit the hand is best in"


def _auction(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    t, deck = T.table, T.deck
    best = _best_suit(deck, s.hand, range(NUM_SUITS))
    own = trick_estimate(deck, s.hand, best)
    lost, n_trumps = alone_losers(deck, s.hand, best)
    enough_trumps = n_trumps >= (T.tricks + 1) // 2
    partner_holds = s.contract is not None and s.bidder == partner_of(s.seat)
    bids = {t.actions[a].arg: a for a in legal if t.actions[a].kind == BID}
    if MOON in bids and enough_trumps and lost <= ALONE_LOSERS:
        return bids[MOON], f"the hand alone should take every trick ({lost:.1f} expected losers)"
    if HELP in bids and enough_trumps and lost <= HELP_LOSERS:
        return bids[HELP], f"about one loser more than a moon ({lost:.1f}), which the partner's best trump covers"
    level = math.floor(own + T.partner_share)
    plain = sorted(lv for lv in bids if lv not in (HELP, MOON))
    worth = f"the hand should take {own:.1f} tricks in {SUITS[best]}, the partner {T.partner_share:.1f}: worth {level}"
    if t.pass_id not in legal:  # stick the dealer: the cheapest bid
        return (bids[plain[0]] if plain else min(legal)), "the dealer is stuck: the cheapest bid"
    if not partner_holds and plain and plain[0] <= level:
        return bids[plain[0]], f"{worth}: the cheapest bid up to that"
    if t.ace_no_face_id in legal and not partner_holds and (not plain or plain[0] > level):
        return t.ace_no_face_id, f"{worth}, under the cheapest bid: throw the deal in"
    if partner_holds:
        return t.pass_id, "the partner holds the contract: never outbid the partner"
    return t.pass_id, f"{worth}, under the cheapest bid"


def _give(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    return T.table.give_base + best_discard(T.deck, s.hand, s.trump), "the weakest card, as a dealer discards"


def _give_back(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    t = T.table
    power = T.cards.power[s.trump]
    cards = [t.actions[a].arg for a in legal if t.actions[a].kind == GIVE]
    return t.give_base + max(cards, key=lambda c: (power[c], -c)), "the best card (the best trump when holding one)"


# ----------------------------------------------------------------------------- card play
def _play(T: _Setting, s: InfoState, legal: list[int]) -> tuple[int, str]:
    table = T.table
    suits = T.cards.suits[s.trump]
    cards = sorted({table.actions[a].arg for a in legal if table.actions[a].kind == PLAY})
    hand = list(s.hand)
    if s.trick:  # follow suit honestly even when reneging is possible
        cards = follow_suit(cards, suits[s.trick[0][1]], suits)
    # cards whose copies are not accounted for: in some other hand (or the undealt kitty)
    unseen = Counter({c: T.cards.copies for c in range(T.cards.n_ids)})
    unseen.subtract(hand)
    unseen.subtract(_gone(s))
    out_cards = [c for c in range(T.cards.n_ids) if unseen[c] > 0]
    ctx = _PlayContext(T, s, out_cards)
    card, why = ctx.follow(cards) if s.trick else ctx.lead(cards, hand)
    return table.play_base + card, why


class _PlayContext:
    """The card-play heuristics for one decision."""

    def __init__(self, T: _Setting, s: InfoState, out_cards: list[int]) -> None:
        self.deck, self.s, self.trump = T.deck, s, s.trump
        self.suits, self.power = T.cards.suits[s.trump], T.cards.power[s.trump]
        self.out_cards = out_cards
        self.me, self.partner = s.seat, partner_of(s.seat)
        self.active = [x for x in range(NUM_SEATS) if not s.out[x]]
        self.opponents = [x for x in self.active if not same_team(x, self.me)]

    # --- knowledge -------------------------------------------------------------
    def master(self, c: int) -> bool:
        """No card still out is higher in ``c``'s suit."""
        return not any(self.suits[x] == self.suits[c] and self.power[x] > self.power[c] for x in self.out_cards)

    def safe(self, c: int, behind: list[int]) -> bool:
        """No opponent in ``behind`` can hold a card that beats ``c`` (as far as voids tell)."""
        for o in behind:
            if same_team(o, self.me):
                continue
            voids = self.s.voids[o] if self.s.voids else frozenset()
            for x in self.out_cards:
                if self.suits[x] not in voids and beats(x, c, self.deck, self.trump):
                    return False
        return True

    def throw_key(self, c: int) -> tuple:
        """Order for throwing off: side suits before trumps, non-masters before masters, low first."""
        return (self.suits[c] == self.trump, self.master(c), self.power[c], c)

    # --- leading ---------------------------------------------------------------
    def lead(self, cards: list[int], hand: list[int]) -> tuple[int, str]:
        s, trump, suits, power = self.s, self.trump, self.suits, self.power
        trumps = sorted((c for c in cards if suits[c] == trump), key=lambda c: -power[c])
        side = [c for c in cards if suits[c] != trump]
        trumps_out = any(suits[x] == trump for x in self.out_cards)
        opp_have_trump = trumps_out and not all(trump in (s.voids[o] if s.voids else ()) for o in self.opponents)
        we_made = s.maker != NOBODY and same_team(s.maker, self.me)
        if we_made and trumps and opp_have_trump:
            if s.maker == self.me:
                if self.master(trumps[0]):
                    return trumps[0], "the maker leads the best trump left to draw the opponents' trumps"
                if len(trumps) >= 3:
                    return trumps[-1], "the maker with three or more trumps leads a low one to draw trumps"
            elif not s.out[self.partner]:
                best = self.master(trumps[0])
                return (trumps[0] if best else trumps[-1]), "lead trump back to the partner who made it"
        masters = [c for c in side if self.master(c)]
        if masters:
            def risk(c: int) -> tuple:
                shown_void = sum(1 for o in self.opponents if s.voids and suits[c] in s.voids[o])
                held = sum(1 for h in hand if suits[h] == suits[c])
                return (shown_void, held, -power[c], c)

            return min(masters, key=risk), "the best card left in a side suit the opponents are least likely void in"
        if trumps and self.master(trumps[0]) and opp_have_trump and we_made:
            return trumps[0], "the best trump left, to draw the opponents' trumps"
        if side:
            if s.voids and not s.out[self.partner]:
                feed = [c for c in side if suits[c] in s.voids[self.partner]
                        and not any(suits[c] in s.voids[o] for o in self.opponents)]
                if feed:
                    return min(feed, key=lambda c: (power[c], c)), "low in a suit the partner is void in, to trump"
            length = Counter(suits[c] for c in hand)
            return min(side, key=lambda c: (length[suits[c]], power[c], c)), "the lowest card of the shortest side suit"
        best = self.master(trumps[0])
        return (trumps[0], "only trumps: the best one left") if best else (trumps[-1], "only trumps: the lowest")

    # --- following -------------------------------------------------------------
    def follow(self, cards: list[int]) -> tuple[int, str]:
        s = self.s
        played = {x for x, _ in s.trick}
        behind = [x for x in self._order_after(self.me) if x not in played]
        winner_seat, winning = s.trick[trick_winner([c for _, c in s.trick], self.deck, self.trump)]
        winners = [c for c in cards if beats(c, winning, self.deck, self.trump)]
        low = min(cards, key=self.throw_key)
        led = self.suits[s.trick[0][1]]
        if winner_seat == self.partner:
            if self.safe(winning, behind):
                return low, "the partner is winning and nobody behind can beat it: play low"
            # An opponent behind may still beat the partner: overtake only by following suit.
            cover = [c for c in winners if self.suits[c] == led and self.safe(c, behind)]
            if cover:
                return (min(cover, key=lambda c: self.power[c]),
                        "the partner's card may be beaten: overtake with the lowest safe card of the suit led")
            return low, "the partner is winning: play low and never trump it"
        if not winners:
            return low, "cannot win the trick: throw off the lowest loser"
        safe_winners = [c for c in winners if self.safe(c, behind)]
        cheapest = min(safe_winners or winners, key=lambda c: (self.power[c], c))
        if self.partner in behind:
            # Second hand low, unless the winning card is one only this hand can beat (a king
            # led under one's ace, a side-suit ace one can trump): then take it cheaply.
            if self.master(winning):
                return cheapest, "only this hand can beat the winning card: take it cheaply"
            return low, "second hand low: the partner plays after"
        if safe_winners:
            return cheapest, "win as cheaply as possible with a card nobody behind can beat"
        return max(winners, key=lambda c: (self.power[c], -c)), "no safe winner: third hand high"

    def _order_after(self, seat: int) -> list[int]:
        """Active seats after ``seat`` in play order, up to the end of the trick."""
        return [x for x in ((seat + k) % NUM_SEATS for k in range(1, NUM_SEATS)) if x in self.active]


_DECISIONS: dict[Phase, Callable[[_Setting, InfoState, list[int]], tuple[int, str]]] = {
    Phase.PLAY: _play, Phase.CALL1: _call1, Phase.CALL2: _call2, Phase.DISCARD: _discard, Phase.DEFEND: _defend,
    Phase.JOKER_SUIT: _joker_suit, Phase.AUCTION: _auction, Phase.NAME_TRUMP: _name_trump, Phase.GIVE: _give,
    Phase.GIVE_BACK: _give_back,
}

__all__ = ["RuleBasedAgent"]
