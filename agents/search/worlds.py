"""Hidden worlds consistent with what one seat knows, drawn uniformly from an ``InfoState``.

A *world* gives every seat's current cards and the undealt/discarded pile. What the seat
knows and every world respects:

- its own cards, every card played (by whom), its own discard (dealer only);
- the suits each seat has shown void in by not following (``InfoState.voids``);
- the up-card: turned down (or left out when the dealer sits out) it is out of play; taken
  by the dealer it stays in the dealer's hand until played -- unless the dealer has shown
  void in its suit or has played out, in which case it was the dealer's discard. (That the dealer may have
  discarded it without showing it is ignored: the dealer's discard choice is a policy.)
- Bid Euchre's help exchange, for the bidder and the partner: ``given`` lies with the
  partner, ``given_back`` with the bidder until played;
- hand sizes (``InfoState.hand_sizes``, public: the dealer holds one more card while
  discarding, during the give-back the bidder one less and the partner one more).

Seats sitting out keep unknown cards (they are dealt like any other, and never play).
Nothing is inferred from calls or bids: every consistent assignment is equally likely.

Sampling is exact and uniform: unknown cards are grouped by effective suit; a dynamic
program counts, for every way of splitting each group's size among the seats allowed to
hold it (not void) and the pile, the number of card assignments (multinomials), then
draws the split group by group in proportion and deals each group's cards at random.
Physical copies of the double deck count as distinct cards (a deal's true probability).
If the voids cannot all hold (they are only suggestions under ``renege="penalize"``),
the sampler drops them.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from euchre_env.game.deals import scripted_deal
from euchre_env.game.phases import Phase
from euchre_env.game.seats import CARD_PLACES, NUM_SEATS, OUT_OF_PLAY, card_place, partner_of
from euchre_env.views.infostate import InfoState


@dataclass(frozen=True)
class World:
    hands: tuple[tuple[int, ...], ...]  # every seat's current cards (the observer's own included)
    pile: tuple[int, ...]  # undealt cards and the dealer's discard (turned-down up-card included)


class WorldSampler:
    """Draws :class:`World` s consistent with ``info`` (build once per decision, sample many)."""

    def __init__(self, info: InfoState) -> None:
        self.info = info
        rules = info.rules
        deck = rules.deck_spec
        me = info.seat
        if len(info.hand_sizes) != NUM_SEATS:
            raise ValueError(f"WorldSampler needs the InfoState's hand_sizes (one per seat), got {info.hand_sizes!r}: "
                             "build it with euchre_env.views.infostate.information_state()")
        sizes = list(info.hand_sizes)
        counts = [deck.copies] * deck.num_ids

        def take(card: int) -> None:
            if counts[card] <= 0:
                raise ValueError(f"card {deck.name(card)} is known in more places than the deck holds it")
            counts[card] -= 1

        for c in info.hand:
            take(c)
        for c in info.played:
            take(c)
        fixed: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        pile_fixed: list[int] = []
        if info.discarded is not None:
            take(info.discarded)
            pile_fixed.append(info.discarded)
        played = list(info.played)
        trump = info.trump
        suits = deck.effective_suits(trump)
        voids = info.voids if info.voids else tuple(frozenset() for _ in range(NUM_SEATS))
        if info.upcard is not None:
            up = info.upcard
            if not info.upcard_taken:
                take(up)
                pile_fixed.append(up)
            elif up in played or me == info.dealer:
                pass  # already counted: played, or in the dealer's own hand or discard
            else:
                take(up)
                if (trump >= 0 and suits[up] in voids[info.dealer]) or sizes[info.dealer] == 0:
                    pile_fixed.append(up)  # the dealer discarded it
                else:
                    fixed[info.dealer].append(up)
        if info.given is not None and info.bidder >= 0:
            partner = partner_of(info.bidder)
            for card, holder in ((info.given, partner), (info.given_back, info.bidder)):
                if card is None or holder == me:
                    continue
                if card in played and holder == info.bidder:
                    continue
                take(card)
                fixed[holder].append(card)
        self.fixed = fixed
        self.pile_fixed = pile_fixed
        unknown = [c for c in range(deck.num_ids) for _ in range(counts[c])]
        self.slots = [s for s in range(NUM_SEATS) if s != me]
        needs = [sizes[s] - len(fixed[s]) for s in self.slots]
        pile_need = len(unknown) - sum(needs)
        if min(needs, default=0) < 0 or pile_need < 0:
            raise ValueError(f"inconsistent information state: needs {needs}, pile {pile_need}, unknown {len(unknown)}")
        self.needs = (*needs, pile_need)
        groups: dict[int, list[int]] = {}
        for c in unknown:
            groups.setdefault(suits[c] if trump >= 0 else 0, []).append(c)
        self._suit_groups = groups
        self._group(voids)
        if self._count(0, self.needs) == 0:  # voids contradict each other (penalized renege): drop them
            self._group(tuple(frozenset() for _ in range(NUM_SEATS)))

    def _group(self, voids) -> None:
        """Merge the suits that the same slots may hold: ``groups[g]`` cards, ``allowed[g][k]`` for slot k.

        Slots are the other seats, then the pile. Fewer groups keep the counting cheap.
        """
        merged: dict[tuple[bool, ...], list[int]] = {}
        for key in sorted(self._suit_groups):
            pattern = (*(key not in voids[s] for s in self.slots), True)
            merged.setdefault(pattern, []).extend(self._suit_groups[key])
        self.allowed = [list(p) for p in merged]
        self.groups = list(merged.values())
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self._choice_memo: dict[tuple[int, tuple[int, ...]], tuple[list, list[int], int]] = {}

    def _splits(self, g: int, needs: tuple[int, ...]):
        """Every way to share group ``g``'s cards among the slots: (counts, multinomial)."""
        k = len(self.groups[g])
        allowed = self.allowed[g]
        slots = len(needs)

        def rec(i: int, left: int, acc: list[int]):
            if i == slots - 1:
                if left <= needs[i] and (left == 0 or allowed[i]):
                    yield [*acc, left]
                return
            top = min(left, needs[i]) if allowed[i] else 0
            for x in range(top + 1):
                yield from rec(i + 1, left - x, [*acc, x])

        for split in rec(0, k, []):
            ways, left = 1, k
            for x in split:
                ways *= comb(left, x)
                left -= x
            yield split, ways

    def _count(self, g: int, needs: tuple[int, ...]) -> int:
        if g == len(self.groups):
            return 1 if not any(needs) else 0
        key = (g, needs)
        got = self._memo.get(key)
        if got is None:
            got = 0
            for split, ways in self._splits(g, needs):
                got += ways * self._count(g + 1, tuple(n - x for n, x in zip(needs, split)))
            self._memo[key] = got
        return got

    def _choices(self, g: int, needs: tuple[int, ...]) -> tuple[list, list[int], int]:
        """Group ``g``'s splits that leave a consistent rest, each with its number of worlds, and their total:
        computed once per (group, needs) and kept, since a search draws hundreds of worlds from one sampler."""
        key = (g, needs)
        got = self._choice_memo.get(key)
        if got is None:
            options, weights = [], []
            for split, ways in self._splits(g, needs):
                rest = tuple(n - x for n, x in zip(needs, split))
                w = ways * self._count(g + 1, rest)
                if w:
                    options.append((split, rest))
                    weights.append(w)
            got = self._choice_memo[key] = (options, weights, sum(weights))
        return got

    def count(self) -> int:
        """Number of consistent assignments of the unknown cards (physical copies distinct)."""
        return self._count(0, self.needs)

    def sample(self, rng: np.random.Generator) -> World:
        info = self.info
        hands: list[list[int]] = [list(self.fixed[s]) for s in range(NUM_SEATS)]
        hands[info.seat] = list(info.hand)
        pile = list(self.pile_fixed)
        needs = self.needs
        for g, cards in enumerate(self.groups):
            options, weights, total = self._choices(g, needs)
            pick = int(rng.integers(total)) if total < (1 << 62) else int(rng.random() * total)
            i = 0
            while pick >= weights[i]:
                pick -= weights[i]
                i += 1
            split, needs = options[i]
            order = [cards[j] for j in rng.permutation(len(cards))]
            pos = 0
            for k, x in enumerate(split):
                dest = pile if k == len(self.slots) else hands[self.slots[k]]
                dest.extend(order[pos:pos + x])
                pos += x
        return World(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(pile)))


def world_deal(info: InfoState, world: World, rng: np.random.Generator) -> tuple[dict[str, Any], int | None]:
    """The hand as dealt in ``world`` (a ``GameState`` deal dict) and the dealer's discard, if made.

    The dealt hands are the current ones with the cards each seat has played, but for the dealer's up-card and
    discard. Not for Bid Euchre's help exchange (given and given back cards would move between hands).
    """
    rules = info.rules
    hands = [list(h) for h in world.hands]
    for seat, card in info.plays:
        hands[seat].append(card)
    dealer = info.dealer
    discard = None
    made_discard = info.phase != Phase.DISCARD and (info.upcard_taken or (rules.is_bid and rules.joker))
    if made_discard:
        if info.seat == dealer:
            discard = info.discarded
        elif info.upcard_taken and info.upcard not in hands[dealer]:
            discard = info.upcard
        else:
            pile = [c for c in world.pile if not (c == info.upcard and not info.upcard_taken)]
            discard = pile[int(rng.integers(len(pile)))]
        hands[dealer].append(discard)
    if info.upcard_taken:
        hands[dealer].remove(info.upcard)
    return scripted_deal(dealer, hands, info.upcard), discard


def world_places(world: World, seat: int, num_ids: int) -> np.ndarray:
    """``[num_ids, len(CARD_PLACES)]``: the copies of each card in each place of ``world`` seen from ``seat``'s
    chair (:data:`~euchre_env.game.seats.CARD_PLACES`; the seat's own hand counts in none)."""
    places = np.zeros((num_ids, len(CARD_PLACES)))
    for holder, hand in enumerate(world.hands):
        if holder != seat:
            for card in hand:
                places[card, card_place(holder, seat)] += 1
    for card in world.pile:
        places[card, OUT_OF_PLAY] += 1
    return places


def paired_gains(per_world: np.ndarray, weight: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Each action's mean gain over the action of column ``base`` across the worlds (``per_world[w, a]``: action
    ``a``'s value in world ``w``, the same worlds for every action; ``weight``: the worlds' weights, summing to 1),
    and its standard error: the weighted spread of the paired differences, with ``1 / sum(w**2)`` worlds' worth of
    evidence. The gate of every search that keeps a default action unless another beats it by some standard
    errors (the guided and anchored searches, the local best response probe)."""
    diff = per_world - per_world[:, [base]]
    mean = weight @ diff
    return mean, np.sqrt(np.maximum(weight @ (diff - mean) ** 2, 0.0) * (weight @ weight))


def resample(weights: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices drawn in proportion to ``weights`` (summing to 1) with one uniform draw (systematic
    resampling: every item of weight above 1/n is kept, the rest in proportion)."""
    points = (rng.random() + np.arange(n)) / n
    return np.minimum(np.searchsorted(np.cumsum(weights), points), len(weights) - 1)


def decision_rng(seed: int | None, info: InfoState, exchange: bool = False) -> np.random.Generator:
    """A search's generator for the decision at ``info``: seeded from the agent's ``seed`` and what the seat knows
    (``exchange``: Bid Euchre's help cards too), so that the same decision draws the same worlds in any process,
    whatever was decided before it."""
    key = (info.seat, info.phase, info.dealer, info.hand, info.initial_hand, info.upcard, info.calls, info.discarded,
           *((info.given, info.given_back) if exchange else ()), info.tricks, info.trick, info.scores,
           info.rules.preset_name)
    return np.random.default_rng([0 if seed is None else int(seed) & 0xFFFFFFFF, zlib.crc32(repr(key).encode())])
