"""Double-dummy solver for the play phase: every hand open, perfect play by all seats.

``DoubleDummy(deck, trump)`` prepares the card tables of one trump suit (taken from
:class:`euchre_env.game.cards.Deck`); :meth:`DoubleDummy.card_values` then gives, for each legal
card of the seat to play, the number of the remaining tricks the makers' team takes when
that card is played and everybody plays perfectly afterwards. Scores follow from tricks
through :func:`euchre_env.game.engine.score_hand`: scoring is monotone in the makers' tricks,
so perfect play for tricks is perfect play for points (minimax commutes with a
non-decreasing map), and :func:`hand_value` turns tricks into a point difference.

Search: fail-soft alpha-beta over plain ints (a hand is a bitmask; bits are numbered so
that the cards of one effective suit are contiguous and ascend in power), a transposition
table at trick boundaries holding (lower, upper) bounds and keyed on relative ranks (the
hands with the played cards squeezed out, see :meth:`DoubleDummy._relative_key`),
equivalent-card reduction (a card is skipped when the next higher live card of its suit
is in the same hand: they win and lose exactly the same tricks), and move ordering
(leaders try high cards first; followers try first the cheapest card that takes the trick
from the other side, then low cards first). Which cards may be played comes from
:func:`euchre_env.game.cards.follow_suit` and who takes a trick from
:func:`euchre_env.game.cards.trick_winner`, so no rule is written here a second time.

``max_tricks`` limits the search to that many trick boundaries and then scores the
position with :meth:`DoubleDummy._estimate`: the remaining tricks shared out in proportion
to each team's trump count (:func:`euchre_env.agents.rule_based.heuristics.count_values`), the
fallback for the 12-card hands of the double deck, where an exact solve is too slow in Python.

Compiled twin: :class:`euchre_env.agents.search.double_dummy_compiled.CompiledDoubleDummy` (full solves, decks of one
copy of each card; PIMC's solver where it is built), proven equal by
tests/differential/test_compiled_double_dummy_vs_double_dummy.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from euchre_env.agents.rule_based.heuristics import count_values
from euchre_env.game.cards import NUM_SUITS, Deck, follow_suit, trick_winner
from euchre_env.game.engine import score_hand
from euchre_env.game.rules import Rules
from euchre_env.game.seats import NUM_SEATS, team_of

# team_of as a table: the search's inner loops index it rather than call a function
_TEAM = tuple(team_of(s) for s in range(NUM_SEATS))


class DoubleDummy:
    """Tables and a transposition table for one deck and trump suit (reuse it across positions)."""

    def __init__(self, deck: Deck, trump: int) -> None:
        self.deck = deck
        self.trump = trump
        suits = deck.effective_suits(trump)
        power = deck.powers(trump)
        self.suits = suits
        phys = sorted((suits[c], power[c], k, c) for c in range(deck.num_ids) for k in range(deck.copies))
        self.bit_card: tuple[int, ...] = tuple(c for _, _, _, c in phys)
        self.card_bits: dict[int, list[int]] = {}
        for b, c in enumerate(self.bit_card):
            self.card_bits.setdefault(c, []).append(b)
        self.bit_suit = tuple(suits[c] for c in self.bit_card)
        self.suit_mask = [0] * NUM_SUITS
        for b, s in enumerate(self.bit_suit):
            self.suit_mask[s] |= 1 << b
        self.slot_bits = max(bin(m).count("1") for m in self.suit_mask)  # the longest suit (trump)
        self.twin_mask = [0] * len(self.bit_card)
        for bits in self.card_bits.values():
            for b in bits:
                for o in bits:
                    if o != b:
                        self.twin_mask[b] |= 1 << o
        values = count_values(deck, trump)
        self.weight = tuple(values[c] for c in self.bit_card)  # per bit, for the depth-limit estimate
        self._legal: dict[tuple[int, int], int] = {}
        self.tt: dict[tuple, tuple[float, float]] = {}
        self._winners: dict[tuple[int, ...], int] = {}  # trick (bits in play order) -> index of the winner
        self._relative: dict[tuple[int, ...], tuple[int, ...]] = {}  # hands at a trick boundary -> _relative_key
        self.nodes = 0

    # ------------------------------------------------------------------ conversions
    def to_masks(self, groups: Sequence[Sequence[int]]) -> list[int]:
        """One bitmask per group of card ids; the copies of a card are shared out across all groups."""
        used = 0
        masks = []
        for cards in groups:
            mask = 0
            for c in cards:
                for b in self.card_bits[c]:
                    if not used >> b & 1:
                        used |= 1 << b
                        mask |= 1 << b
                        break
                else:
                    raise ValueError(f"card {self.deck.name(c)} appears more often than the deck holds it")
            masks.append(mask)
        return masks

    def _allowed(self, hand: int, led: int) -> int:
        """Bitmask of the cards of ``hand`` that may be played (``led`` -1: leading)."""
        key = (hand, led)
        got = self._legal.get(key)
        if got is None:
            bits = [b for b in range(len(self.bit_card)) if hand >> b & 1]
            ok = set(follow_suit([self.bit_card[b] for b in bits], None if led < 0 else led, self.suits))
            got = 0
            for b in bits:
                if self.bit_card[b] in ok:
                    got |= 1 << b
            self._legal[key] = got
        return got

    # ------------------------------------------------------------------ search
    def card_values(
        self,
        hands: Sequence[Sequence[int]],
        to_play: int,
        maker_team: int,
        trick: Sequence[tuple[int, int]] = (),
        out: Sequence[bool] = (False,) * NUM_SEATS,
        max_tricks: int | None = None,
    ) -> dict[int, float]:
        """Makers' tricks from now on (the trick in progress included) for each legal card of ``to_play``.

        ``hands`` are the cards each seat still holds (card ids), ``trick`` the (seat, card)
        pairs already played to the trick in progress, ``out`` the seats sitting out (their
        cards are ignored). Equivalent cards get the value of their representative.
        """
        groups = [() if out[s] else hands[s] for s in range(NUM_SEATS)]
        masks = self.to_masks([*groups, [c for _, c in trick]])
        trick_mask = masks.pop()
        t_seats = [s for s, _ in trick]
        t_bits = []
        for _, c in trick:  # the bits of the trick's cards, in play order
            b = next(b for b in self.card_bits[c] if trick_mask >> b & 1)
            trick_mask &= ~(1 << b)
            t_bits.append(b)
        return self._root(masks, to_play, maker_team, t_seats, t_bits, out, max_tricks)

    def value(
        self,
        hands: Sequence[Sequence[int]],
        leader: int,
        maker_team: int,
        out: Sequence[bool] = (False,) * NUM_SEATS,
        max_tricks: int | None = None,
    ) -> float:
        """Makers' tricks from a trick boundary (``leader`` to lead) under perfect play."""
        masks = self.to_masks([() if out[s] else hands[s] for s in range(NUM_SEATS)])
        search = self._make_search(maker_team, out, max_tricks)
        remaining = bin(masks[leader]).count("1")
        return search.boundary(masks, leader, -1.0, remaining + 1.0, 0)

    def value_at_thresholds(
        self,
        hands: Sequence[Sequence[int]],
        leader: int,
        maker_team: int,
        thresholds: Sequence[int],
        out: Sequence[bool] = (False,) * NUM_SEATS,
    ) -> int:
        """The largest of ``thresholds`` (ascending) the makers reach from a trick boundary, else 0.

        Null-window searches only: enough when scoring changes only at those trick counts
        (turn-up family: half the tricks, all the tricks), and much cheaper than an exact value.
        """
        masks = self.to_masks([() if out[s] else hands[s] for s in range(NUM_SEATS)])
        search = self._make_search(maker_team, out, None)
        reached = 0
        for k in thresholds:
            if search.boundary(masks, leader, k - 1.0, float(k), 0) < k:
                break
            reached = k
        return reached

    def _root(self, masks, to_play, maker_team, t_seats, t_bits, out, max_tricks):
        search = self._make_search(maker_team, out, max_tricks)
        hand = masks[to_play]
        led = self.bit_suit[t_bits[0]] if t_bits else -1
        allowed = self._allowed(hand, led)
        remaining = bin(hand).count("1")
        alive = masks[0] | masks[1] | masks[2] | masks[3]
        for b in t_bits:
            alive |= 1 << b
        values: dict[int, float] = {}
        for b in range(len(self.bit_card)):
            if not allowed >> b & 1:
                continue
            card = self.bit_card[b]
            if card in values:
                continue
            masks[to_play] = hand & ~(1 << b)
            t_seats.append(to_play)
            t_bits.append(b)
            values[card] = search(masks, t_seats, t_bits, to_play, -1, remaining + 1, 0, alive)
            t_seats.pop()
            t_bits.pop()
            masks[to_play] = hand
        return values

    def _winner(self, bits: tuple[int, ...]) -> int:
        """Index (play order) of the card of ``bits`` that takes the trick, or leads it so far."""
        i = self._winners.get(bits)
        if i is None:
            i = self._winners[bits] = trick_winner([self.bit_card[b] for b in bits], self.deck, self.trump)
        return i

    def _relative_key(self, masks: tuple[int, int, int, int]) -> tuple[int, ...]:
        """The four hands with the cards already played squeezed out, suit by suit.

        Two trick boundaries reached through different tricks are the same game when the
        live cards stand in the same order and belong to the same seats: only relative rank
        matters to who takes a trick. Keying the transposition table on this shape lets such
        positions share an entry (within one search and across the worlds of a decision).
        Each suit keeps its own slot (as wide as the longest suit), so the suits' live counts
        stay readable from the union. Not used for the double deck (which live cards are
        copies of each other is not visible in the squeezed shape) nor with ``max_tricks``
        (the estimate depends on the cards themselves).
        """
        alive = masks[0] | masks[1] | masks[2] | masks[3]
        squeezed = [0, 0, 0, 0]
        for slot, suit_bits in enumerate(self.suit_mask):
            rest = alive & suit_bits
            i = slot * self.slot_bits
            while rest:
                low = rest & -rest
                rest ^= low
                for s in range(NUM_SEATS):
                    if masks[s] & low:
                        squeezed[s] |= 1 << i
                        break
                i += 1
        key = self._relative[masks] = tuple(squeezed)
        return key

    def cached_positions(self) -> int:
        """Entries held by the solver's tables (callers drop a solver that grew too big)."""
        return len(self.tt) + len(self._relative)

    def _make_search(self, maker_team: int, out: Sequence[bool], max_tricks: int | None):
        """The recursive search for one maker team and set of seats sitting out."""
        nxt = [0] * NUM_SEATS
        for s in range(NUM_SEATS):
            n = (s + 1) % NUM_SEATS
            while out[n]:
                n = (n + 1) % NUM_SEATS
            nxt[s] = n
        n_active = NUM_SEATS - sum(bool(o) for o in out)
        bit_suit, suit_mask, twin_mask = self.bit_suit, self.suit_mask, self.twin_mask
        legal_cache, allowed_of = self._legal, self._allowed
        tt = self.tt
        winners, winner_of = self._winners, self._winner
        relative, relative_key = self._relative, self._relative_key
        out_key = tuple(bool(o) for o in out)
        limit = max_tricks if max_tricks is not None else 99
        exact_relative = max_tricks is None and self.deck.copies == 1
        estimate = self._estimate
        team = _TEAM

        def search(masks, t_seats, t_bits, last, alpha, beta, depth, alive):
            """Value after ``last`` played (the root's candidate cards)."""
            self.nodes += 1
            if len(t_bits) == n_active:
                return finish_trick(masks, t_seats, t_bits, alpha, beta, depth)
            return play(masks, t_seats, t_bits, nxt[last], alpha, beta, depth, alive)

        def finish_trick(masks, t_seats, t_bits, alpha, beta, depth):
            """Value once the trick ``t_bits`` is complete: its trick, then the rest from its winner's lead."""
            trick = tuple(t_bits)
            i = winners.get(trick)
            if i is None:
                i = winner_of(trick)
            base = 1.0 if team[t_seats[i]] == maker_team else 0.0
            return base + boundary(masks, t_seats[i], alpha - base, beta - base, depth + 1)

        def boundary(masks, leader, alpha, beta, depth):
            remaining = bin(masks[leader]).count("1")
            if remaining == 0:
                return 0.0
            if depth >= limit:
                return estimate(masks, maker_team, remaining)
            hands = (masks[0], masks[1], masks[2], masks[3])
            if exact_relative:
                key = (relative.get(hands) or relative_key(hands), leader, out_key, maker_team)
            else:
                key = (hands, leader, out_key, maker_team, depth)
            lo, hi = tt.get(key, (0.0, float(remaining)))
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            a = max(alpha, lo)
            b = min(beta, hi)
            v = play(masks, [], [], leader, a, b, depth, hands[0] | hands[1] | hands[2] | hands[3])
            if v <= a:
                hi = min(hi, v)
            elif v >= b:
                lo = max(lo, v)
            else:
                lo = hi = v
            tt[key] = (lo, hi)
            return v

        def play(masks, t_seats, t_bits, seat, alpha, beta, depth, alive):
            """Best value for ``seat`` to play next; ``alive``: cards not in a finished trick."""
            hand = masks[seat]
            led = bit_suit[t_bits[0]] if t_bits else -1
            allowed = legal_cache.get((hand, led))
            if allowed is None:
                allowed = allowed_of(hand, led)
            moves = []
            m = allowed
            while m:
                low = m & -m
                b = low.bit_length() - 1
                m ^= low
                # skip b when the next higher live card of its suit is ours too (and no twin elsewhere)
                above = alive & suit_mask[bit_suit[b]] & ~((low << 1) - 1)
                if above:
                    c = (above & -above)
                    if hand & c and not (alive & ~hand & (twin_mask[b] | twin_mask[c.bit_length() - 1])):
                        continue
                moves.append(b)
            if not t_bits:
                moves.reverse()  # leading: high cards first
            elif len(moves) > 1:
                # following (low cards first), but when the other side holds the trick so far,
                # first the cheapest card that takes it: the usual best reply, so an early cutoff
                trick = tuple(t_bits)
                i = winners.get(trick)
                if i is None:
                    i = winner_of(trick)
                if team[t_seats[i]] != team[seat]:
                    taker = len(t_bits)
                    for j, b in enumerate(moves):
                        with_b = (*trick, b)
                        w = winners.get(with_b)
                        if w is None:
                            w = winner_of(with_b)
                        if w == taker:
                            if j:
                                moves.insert(0, moves.pop(j))
                            break
            maximize = team[seat] == maker_team
            best = -1.0 if maximize else 1e9
            t_seats.append(seat)
            last_card = len(t_bits) + 1 == n_active
            for b in moves:
                self.nodes += 1
                masks[seat] = hand & ~(1 << b)
                t_bits.append(b)
                if last_card:
                    v = finish_trick(masks, t_seats, t_bits, alpha, beta, depth)
                else:
                    v = play(masks, t_seats, t_bits, nxt[seat], alpha, beta, depth, alive)
                t_bits.pop()
                if maximize:
                    if v > best:
                        best = v
                        if v > alpha:
                            alpha = v
                else:
                    if v < best:
                        best = v
                        if v < beta:
                            beta = v
                if alpha >= beta:
                    break
            masks[seat] = hand
            t_seats.pop()
            return best

        search.boundary = boundary
        return search

    def _estimate(self, masks, maker_team: int, remaining: int) -> float:
        """Heuristic share of the ``remaining`` tricks for the makers (depth-limited search only)."""
        w = self.weight
        score = [0.0, 0.0]
        for s in range(NUM_SEATS):
            m = masks[s]
            while m:
                low = m & -m
                score[_TEAM[s]] += w[low.bit_length() - 1]
                m ^= low
        total = score[0] + score[1]
        if total <= 0:
            return remaining / 2
        return remaining * score[maker_team] / total


def hand_value(
    rules: Rules,
    made: float,
    maker_team: int,
    team: int,
    contract: int | str | None = None,
    maker_alone: bool = False,
    defender_alone: bool = False,
) -> float:
    """Point difference (``team`` minus the other team) of a hand the makers end with ``made`` tricks.

    ``made`` may be fractional (a depth-limited estimate); it is then rounded for scoring.
    """
    tricks = round(made)
    tricks = max(0, min(rules.tricks_per_hand, tricks))
    mk, df = score_hand(rules, tricks, contract, maker_alone, defender_alone)
    diff = mk - df
    return float(diff if team == maker_team else -diff)
