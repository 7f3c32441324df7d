"""The CFR bidding agent: calls from counterfactual-regret tables over an abstraction of the hand, card play by
PIMC.

    agent = make_agent("cfr:tables/knock_cfr.npz")        # PIMC with 50 worlds plays the cards
    agent = make_agent("cfr:20:tables/knock_cfr.npz")     # ... with 20

The tables come from ``euchre cfr`` (:mod:`euchre_env.training.cfr`): chance-sampled CFR over the calling
decisions of one hand (the turn-up family's calls, Bid Euchre's auction). This module is what the tables mean:
the abstraction, the abstract actions, the file format, and the agent that plays them.

**Decisions covered.** The turn-up family: round one (order up, alone or not, or pass), round two (name a suit,
alone or not, or pass; the stuck dealer cannot pass) and the defend-alone round. Bid Euchre: the auction (pass, a
plain bid, help, moon); the winning bidder then names the auction's candidate suit (below). Everything else is
played by PIMC: the dealer's discard, the joker's suit, the help exchange, every card.

**Abstraction.** An information set is a *context* and the hand's *features* with respect to one candidate
trump suit:

- contexts: round one by the seat's position after the dealer (first to speak .. the dealer) and the up-card's
  place in the trump ranking (top card, second, third, lower); round two by the position and whether the
  candidate is the turned-down suit's colour-mate; the defend-alone round by the defender's side of the maker
  (left or right). 4 x 4 + 4 x 2 + 2 = 26 contexts. The auction by the position and the standing bid: none,
  or the partner's or an opponent's 3, 4, 5 or more, or help (a moon ends the auction). 4 x 9 = 36 contexts.
- the candidate trump: the up-card's suit in round one; in round two the suit with the best trick estimate
  (the rule-based agent's :func:`~euchre_env.agents.rule_based.heuristics.trick_estimate`; ties to the lower
  suit), the turned-down suit excluded; the trump in the defend round; in the auction the suit with the best
  trick estimate, which the agent names if it wins the bid.
- features, in the canonical frame of that suit: the trick estimate in half tricks (0 to 5 and over: 11
  buckets), the number of trumps (0 to 5), which of the three highest trumps are held (8), and the side suits
  whose top card is held (0 to 3). The dealer in round one is judged on the hand it would keep: the up-card in,
  the rule-based agent's discard out.

**Abstract actions.** The turn-up family: ``pass``, ``call`` (order up / name the candidate / defend alone) and
``alone`` (order or name alone); a round-two call names the candidate suit only. The auction: ``pass``, the
three cheapest legal plain bids (in a single deck: every plain level), ``help`` and ``moon``. The tables never
claim an ace-no-face redeal (no abstract action does); the rule-based fallback may, at an information set
training never reached.

**Play.** At a covered decision the agent plays the abstract action of highest average strategy among the legal
ones (ties to the lower), mapped to the concrete action. An information set the training never reached falls
back to the rule-based agent (``fallbacks`` counts them).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from euchre_env.agents.base import require_information_state
from euchre_env.agents.rule_based.agent import RuleBasedAgent
from euchre_env.agents.rule_based.heuristics import best_discard, suit_tables, trick_estimate
from euchre_env.agents.search.pimc import PIMCAgent
from euchre_env.game.actions import HELP, MOON, action_table
from euchre_env.game.cards import NUM_SUITS, same_colour_suit
from euchre_env.game.phases import Phase
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, left_of, partner_of

FORMAT = "euchre-cfr-bidding"
VERSION = 1
ESTIMATE_BUCKETS, TRUMP_COUNTS, TOP_SETS, SIDE_TOPS = 11, 6, 8, 4
FEATURES = ESTIMATE_BUCKETS * TRUMP_COUNTS * TOP_SETS * SIDE_TOPS
# The turn-up family: its abstract actions (pass, call: order up or name the suit, call alone) and information sets.
NUM_ABSTRACT = 3
CALL1_CONTEXTS, CALL2_CONTEXTS, DEFEND_CONTEXTS = 16, 8, 2
CONTEXTS = CALL1_CONTEXTS + CALL2_CONTEXTS + DEFEND_CONTEXTS
NUM_INFOSETS = CONTEXTS * FEATURES
# Bid Euchre's auction: its abstract actions (pass, the three cheapest legal plain bids, help, moon) and
# information sets.
AUCTION_ABSTRACT = 6
PLAIN_CHOICES = 3  # the cheapest legal plain bids offered: 3, 4 and 5 with a single deck
STANDING_CLASSES = 9  # no bid yet; an opponent's 3, 4, 5+, help; the partner's 3, 4, 5+, help
AUCTION_INFOSETS = NUM_SEATS * STANDING_CLASSES * FEATURES
COVERED = (Phase.CALL1, Phase.CALL2, Phase.DEFEND, Phase.AUCTION)


def layout(rules: Rules) -> tuple[int, int]:
    """The tables' shape for ``rules``: (information sets, abstract actions)."""
    return (AUCTION_INFOSETS, AUCTION_ABSTRACT) if rules.is_bid else (NUM_INFOSETS, NUM_ABSTRACT)


def features(rules: Rules, hand: list[int], trump: int, tricks: float | None = None) -> int:
    """The feature index (0 .. FEATURES-1) of ``hand`` with ``trump`` as trump (see the module docstring);
    ``tricks``: the hand's trick estimate for ``trump`` when the caller has it already."""
    deck = rules.deck_spec
    T = suit_tables(deck)
    suits = T.suits[trump]
    if tricks is None:
        tricks = trick_estimate(deck, hand, trump)
    estimate = min(int(tricks * 2), ESTIMATE_BUCKETS - 1)
    trumps = min(sum(1 for c in hand if suits[c] == trump), TRUMP_COUNTS - 1)
    ranking = T.ranking[trump][trump]
    top = sum(1 << i for i, c in enumerate(dict.fromkeys(ranking[:3 * T.copies])) if c in hand)
    sides = sum(1 for s in range(NUM_SUITS) if s != trump and T.ranking[trump][s] and T.ranking[trump][s][0] in hand)
    return ((estimate * TRUMP_COUNTS + trumps) * TOP_SETS + min(top, TOP_SETS - 1)) * SIDE_TOPS + min(sides, 3)


def named_trump(rules: Rules, hand: list[int]) -> int:
    """The action naming trump after a won auction: the auction's candidate suit (:func:`auction_suit`)."""
    return action_table(rules).name_base + auction_suit(rules, hand)[0]


def _position(seat: int, dealer: int) -> int:
    """0 for the first seat to speak (left of the dealer) .. 3 for the dealer."""
    return (seat - left_of(dealer)) % NUM_SEATS


@dataclass(frozen=True)
class Decision:
    """A covered decision in the abstraction: its information set, its candidate suit and the concrete action
    of each abstract one, in the order the comments on NUM_ABSTRACT and AUCTION_ABSTRACT give (-1: not legal
    here)."""

    infoset: int
    suit: int
    concrete: tuple[int, ...]


def auction_suit(rules: Rules, hand: list[int]) -> tuple[int, float]:
    """The auction's candidate trump, the suit of best trick estimate (ties to the lower), and that estimate: the
    suit the agent names when it wins the bid."""
    return _auction_suit(rules.deck_spec, tuple(sorted(hand)))


@lru_cache(maxsize=4096)  # a hand is judged at each of its auction nodes and again when it names trump
def _auction_suit(deck: Any, hand: tuple[int, ...]) -> tuple[int, float]:
    tricks = [trick_estimate(deck, hand, s) for s in range(NUM_SUITS)]
    suit = max(range(NUM_SUITS), key=lambda s: (tricks[s], -s))
    return suit, tricks[suit]


def _standing(contract: int | str | None, bidder: int, seat: int) -> int:
    """The auction context's standing bid class (0 .. STANDING_CLASSES-1) as ``seat`` sees it."""
    if contract is None:
        return 0
    level = 3 if contract == HELP else min(int(contract), 5) - 3
    return 1 + level + (4 if bidder == partner_of(seat) else 0)


def abstract_decision(rules: Rules, phase: Phase, seat: int, dealer: int, hand: list[int], upcard: int | None,
                      upcard_suit: int, trump: int, maker: int, legal: list[int], contract: int | str | None = None,
                      bidder: int = -1) -> Decision:
    """The abstraction of a decision of ``phase`` (one of :data:`COVERED`) for ``seat`` holding ``hand``
    (``contract`` and ``bidder``: the standing bid of an auction)."""
    t = action_table(rules)
    legal_set = set(legal)
    position = _position(seat, dealer)

    def concrete(*ids: int) -> tuple[int, ...]:
        return tuple(a if a in legal_set else -1 for a in ids)

    if phase == Phase.AUCTION:
        suit, tricks = auction_suit(rules, hand)
        context = position * STANDING_CLASSES + _standing(contract, bidder, seat)
        plain = [t.bid_base + i for i, level in enumerate(t.bid_levels)
                 if level not in (HELP, MOON) and t.bid_base + i in legal_set][:PLAIN_CHOICES]  # ascending levels
        help_id, moon_id = (t.bid_base + t.bid_levels.index(level) for level in (HELP, MOON))
        bids = (*plain, *[-1] * (PLAIN_CHOICES - len(plain)))
        return Decision(context * FEATURES + features(rules, hand, suit, tricks), suit,
                        (*concrete(t.pass_id), *bids, *concrete(help_id, moon_id)))

    if phase == Phase.CALL1:
        suit = upcard_suit
        ranking = suit_tables(rules.deck_spec).ranking[suit][suit]
        place = min(list(dict.fromkeys(ranking)).index(upcard), 3)
        kept = hand
        if seat == dealer:  # the hand it would keep: the up-card in, its discard out
            kept = [*hand, upcard]
            kept.remove(best_discard(rules.deck_spec, kept, suit))
        context = position * 4 + place
        return Decision(context * FEATURES + features(rules, kept, suit), suit,
                        concrete(t.pass_id, t.order_id, t.order_alone_id))
    if phase == Phase.CALL2:
        tricks = {s: trick_estimate(rules.deck_spec, hand, s) for s in range(NUM_SUITS) if s != upcard_suit}
        suit = max(tricks, key=lambda s: (tricks[s], -s))
        context = CALL1_CONTEXTS + position * 2 + int(suit == same_colour_suit(upcard_suit))
        alone = t.name_alone_base + suit if t.name_alone_base >= 0 else -1
        return Decision(context * FEATURES + features(rules, hand, suit, tricks[suit]), suit,
                        concrete(t.pass_id, t.name_base + suit, alone))
    if phase == Phase.DEFEND:
        context = CALL1_CONTEXTS + CALL2_CONTEXTS + int(seat == left_of(maker))
        return Decision(context * FEATURES + features(rules, hand, trump), trump, concrete(t.pass_id, t.defend_id, -1))
    raise ValueError(f"phase {phase.name} is not a calling decision of the abstraction")


# ------------------------------------------------------------------ the tables file
@dataclass
class Tables:
    """Cumulative regrets and average-strategy sums, ``float64`` of :func:`layout`'s shape each, and what made
    them."""

    rules: Rules
    regret: np.ndarray
    strategy: np.ndarray
    deals: int = 0  # deals trained on
    batches: int = 0  # batches done (each batch's deals are seeded by (seed, batch): a resumed run goes on exactly)
    seed: int = 0
    batch_size: int = 64

    @classmethod
    def empty(cls, rules: Rules, seed: int, batch_size: int) -> Tables:
        shape = layout(rules)
        return cls(rules, np.zeros(shape), np.zeros(shape), seed=seed, batch_size=batch_size)

    def average(self, infoset: int) -> np.ndarray | None:
        """The average strategy at ``infoset`` (None if training never reached it)."""
        total = self.strategy[infoset].sum()
        return None if total <= 0 else self.strategy[infoset] / total

    def reached(self) -> int:
        """How many information sets the training reached."""
        return int((self.strategy.sum(1) > 0).sum())

    def save(self, path: str) -> None:
        """Write the tables (``.npz``), atomically: an interrupted write leaves the previous file."""
        meta = {"format": FORMAT, "version": VERSION, "rules": self.rules.to_dict(), "deals": self.deals,
                "batches": self.batches, "seed": self.seed, "batch_size": self.batch_size,
                "infosets": self.regret.shape[0]}
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            np.savez_compressed(f, regret=self.regret, strategy=self.strategy, meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str) -> Tables:
        """The tables at ``path``; ValueError in one line for a missing, damaged or foreign file."""
        if not os.path.isfile(path):
            raise ValueError(f"no CFR tables file at {path!r} (train one with: euchre cfr --out {path})")
        expected = f"CFR tables are the .npz of plain arrays that euchre cfr --out {path} writes"

        def unreadable(exc: Exception) -> ValueError:
            return ValueError(f"{path!r} is not a readable CFR tables file ({type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:120]}); {expected}")

        try:
            with open(path, "rb") as f:
                raw = io.BytesIO(f.read())
        except OSError as exc:
            raise unreadable(exc) from None
        # np.load reads a lone .npy as an array (or a pickle, were it allowed): only an archive of named arrays is
        # tables, and anything else is refused before numpy parses it.
        if not zipfile.is_zipfile(raw):
            raise ValueError(f"{path!r} is not a readable CFR tables file (not an .npz archive); {expected}")
        try:
            data = np.load(raw, allow_pickle=False)
            meta = json.loads(str(data["meta"]))
            regret, strategy = data["regret"], data["strategy"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            if "allow_pickle" in str(exc):  # numpy's refusal of an object array, made before unpickling it
                raise ValueError(f"{path!r} holds a pickled object array, which can run code when read: refused, "
                                 f"nothing was run; {expected}") from None
            raise unreadable(exc) from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"{path!r} is not a CFR tables file of this project (format {meta.get('format')!r})"
                             if isinstance(meta, dict) else f"{path!r} is not a CFR tables file of this project")
        if meta.get("version") != VERSION:
            raise ValueError(f"{path!r} was written for another abstraction (version {meta.get('version')}; this "
                             f"one: version {VERSION}); train it again")
        try:
            rules = Rules.from_dict(meta["rules"])
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path!r}: its rules cannot be read ({exc})") from None
        shape = layout(rules)
        if meta.get("infosets") != shape[0]:
            raise ValueError(f"{path!r} was written for another abstraction ({meta.get('infosets')} information "
                             f"sets; this one: {shape[0]} for its rules); train it again")
        if regret.shape != shape or strategy.shape != shape:
            raise ValueError(f"{path!r}: tables of shape {regret.shape} / {strategy.shape}, expected {shape}")
        return cls(rules, regret.astype(np.float64), strategy.astype(np.float64), int(meta["deals"]),
                   int(meta["batches"]), int(meta["seed"]), int(meta["batch_size"]))


# ------------------------------------------------------------------ the agent
class CFRBiddingAgent:
    """Calls from CFR tables, everything else by PIMC; see the module docstring."""

    name = "cfr"
    needs_observation = False

    def __init__(self, tables: str | Tables, worlds: int = 50, seed: int | None = None,
                 name: str | None = None) -> None:
        self.source = tables if isinstance(tables, str) else "<tables>"
        self.tables = Tables.load(tables) if isinstance(tables, str) else tables
        self.rules = self.tables.rules
        self.pimc = PIMCAgent(seed=seed, worlds=worlds)
        self.fallback = RuleBasedAgent()
        self.fallbacks = 0  # covered decisions whose information set the training never reached
        if name is not None:
            self.name = name

    def reset(self, seed: int | None = None) -> None:
        self.pimc.reset(seed)

    def check_rules(self, rules: Rules) -> None:
        """ValueError unless the tables were trained for ``rules``."""
        if rules != self.rules:
            differ = [f"{k}={v!r} there, {getattr(rules, k)!r} here" for k, v in self.rules.to_dict().items()
                      if getattr(rules, k) != v and k != "preset_name"]
            if differ:
                raise ValueError(f"CFR tables {self.source!r} were trained for other rules: {', '.join(differ)}")

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        state = require_information_state(info, "CFRBiddingAgent")
        if state.phase == Phase.NAME_TRUMP:  # the suit its bid was judged on
            self.check_rules(state.rules)
            return named_trump(state.rules, list(state.hand))
        if state.phase not in COVERED or len(state.legal_actions) == 1:
            return self.pimc.act(observation, info)
        self.check_rules(state.rules)
        decision = abstract_decision(state.rules, state.phase, state.seat, state.dealer, list(state.hand),
                                     state.upcard, state.upcard_suit, state.trump, state.maker,
                                     list(state.legal_actions), state.contract, state.bidder)
        average = self.tables.average(decision.infoset)
        if average is None:
            self.fallbacks += 1
            return self.fallback.act(observation, info)
        legal = [a for a, concrete in enumerate(decision.concrete) if concrete >= 0]
        return decision.concrete[max(legal, key=lambda a: (average[a], -a))]
