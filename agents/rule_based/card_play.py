"""The rule-based agent's card play compiled: :class:`~euchre_env.agents.rule_based.agent.RuleBasedAgent`'s lead and
follow rules ported to Numba over the engine's arrays, one function per function there (the docstring names it).

Reference: :mod:`euchre_env.agents.rule_based.agent` (its card play). Proven equal to it by
``tests/differential/test_rule_based_vector_vs_rule_based_agent.py`` (every play with more than one legal card, in
random and rule-driven games of every preset). :mod:`~euchre_env.agents.rule_based.decisions` calls :func:`play` for the
play phase. """

from __future__ import annotations

from euchre_env.agents.rule_based.estimates import A_PLAY, I_COPIES, I_NIDS, jit
from euchre_env.compiled.layout import BIDDER, CALL2, DEALER, DISC, GIVEN, MAKER, NCUR, NTR, OUT, PH, TRUMP, UP, UPTAKEN

# =============================================================================== agent.py: card play
# The play kernels read what the Python agent recomputes per card from two per-suit rows, filled once a
# decision by _play: the highest power among the cards still out (``master`` and ``safe`` ask only whether some
# card out of a suit is higher) and the cards held (``Counter(suits[c] for c in hand)``). Rows of ``suit_rows``:
# the shown voids of seats 0-3, then these two.
TOP_OUT, HELD = 4, 5
NOTHING_OUT = -(1 << 40)  # TOP_OUT of a suit with no card out: below every power


@jit(inline="always")
def _beats(card, winning, suits, pw, trump):
    """``cards.beats``: ``card`` played after ``winning`` takes the trick from it."""
    return (suits[card] == trump or suits[card] == suits[winning]) and pw[card] > pw[winning]


@jit(inline="always")
def _master(c, rows, suits, pw):
    """``_PlayContext.master``: no card still out is higher in ``c``'s suit."""
    return rows[TOP_OUT, suits[c]] <= pw[c]


@jit(inline="always")
def _safe(c, me, behind, rows, suits, pw, trump):
    """``_PlayContext.safe``: no opponent among the seats of the bit set ``behind`` can hold a card that beats
    ``c`` (as far as its shown voids tell): a higher card out of ``c``'s suit, or of trump."""
    for o in range(4):
        if not (behind >> o) & 1 or o % 2 == me % 2:
            continue
        s = suits[c]
        if not rows[o, s] and rows[TOP_OUT, s] > pw[c]:
            return False
        if trump >= 0 and trump != s and not rows[o, trump] and rows[TOP_OUT, trump] > pw[c]:
            return False
    return True


@jit(inline="always")
def _throw_less(a, b, rows, suits, pw, trump):
    """``_PlayContext.throw_key(a) < throw_key(b)``: side suits before trumps, non-masters first, low first."""
    ta, tb = suits[a] == trump, suits[b] == trump
    if ta != tb:
        return tb
    ma, mb = _master(a, rows, suits, pw), _master(b, rows, suits, pw)
    if ma != mb:
        return mb
    if pw[a] != pw[b]:
        return pw[a] < pw[b]
    return a < b


@jit(inline="always")
def _play(s, g, seat, hand, mask, p, gone, cards, rows):
    """``rule_based._play``: the candidate cards (following suit even when reneging is allowed), the cards still
    out (no copy held or gone), the shown voids; then ``_PlayContext.follow`` or ``.lead``. ``s``: the games'
    GameArrays, ``p``: the decisions' RuleTables."""
    st, tc, ts = s.st, s.tc, s.ts
    ids, iopt, eff, power = p.ids, p.iopt, p.eff, p.power
    trump = st[g, TRUMP]
    suits, pw = eff[trump + 1], power[trump]
    nids = iopt[I_NIDS]
    ntr, ncur = st[g, NTR], st[g, NCUR]
    n = 0
    for c in range(nids):
        if mask[ids[A_PLAY] + c]:
            cards[n] = c
            n += 1
    if ncur > 0:  # cards.follow_suit
        led = suits[tc[g, ntr, 0]]
        m = 0
        for i in range(n):
            if suits[cards[i]] == led:
                cards[m] = cards[i]
                m += 1
        if m > 0:
            n = m
    _gone(st, tc, g, seat, gone)
    rows[:] = 0
    rows[TOP_OUT, :] = NOTHING_OUT
    for c in range(nids):
        x = suits[c]
        rows[HELD, x] += hand[c]
        if iopt[I_COPIES] - hand[c] - gone[c] > 0 and pw[c] > rows[TOP_OUT, x]:
            rows[TOP_OUT, x] = pw[c]
    active = 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]
    for k in range(ntr + 1):  # infostate.shown_voids
        count = active if k < ntr else ncur
        if count > 0:
            led = suits[tc[g, k, 0]]
            for j in range(1, count):
                if suits[tc[g, k, j]] != led:
                    rows[ts[g, k, j], led] = 1
    if ncur > 0:
        return ids[A_PLAY] + _follow(st, tc, ts, g, seat, cards, n, rows, suits, pw, trump)
    return ids[A_PLAY] + _lead(st, g, seat, cards, n, rows, suits, pw, trump)


@jit(inline="always")
def _lead(st, g, me, cards, n, rows, suits, pw, trump):
    """``_PlayContext.lead`` over ``cards[:n]`` (ids ascending)."""
    partner = (me + 2) % 4
    partner_in = st[g, OUT + partner] == 0
    top = low = -1  # trumps[0] and trumps[-1]: the highest and the lowest trump
    n_trumps = n_side = 0
    for i in range(n):
        c = cards[i]
        if suits[c] == trump:
            n_trumps += 1
            if top < 0 or pw[c] > pw[top]:
                top = c
            if low < 0 or pw[c] < pw[low]:
                low = c
        else:
            n_side += 1
    trumps_out = trump >= 0 and rows[TOP_OUT, trump] != NOTHING_OUT
    all_void = True  # every active opponent has shown void in trump
    for o in range(4):
        if o % 2 != me % 2 and st[g, OUT + o] == 0 and not rows[o, trump]:
            all_void = False
    opp_have_trump = trumps_out and not all_void
    maker = st[g, MAKER]
    we_made = maker >= 0 and maker % 2 == me % 2
    if we_made and n_trumps > 0 and opp_have_trump:
        if maker == me:
            if _master(top, rows, suits, pw):
                return top
            if n_trumps >= 3:
                return low
        elif partner_in:
            return top if _master(top, rows, suits, pw) else low
    best = -1  # the side-suit masters: min by (opponents shown void, cards held of the suit, -power, id)
    best_void = best_held = 0
    for i in range(n):
        c = cards[i]
        if suits[c] == trump or not _master(c, rows, suits, pw):
            continue
        shown_void = 0
        for o in range(4):
            if o % 2 != me % 2 and st[g, OUT + o] == 0 and rows[o, suits[c]]:
                shown_void += 1
        held = rows[HELD, suits[c]]
        if (best < 0 or shown_void < best_void or (shown_void == best_void and (
                held < best_held or (held == best_held and pw[c] > pw[best])))):
            best, best_void, best_held = c, shown_void, held
    if best >= 0:
        return best
    if n_trumps > 0 and _master(top, rows, suits, pw) and opp_have_trump and we_made:
        return top
    if n_side > 0:
        if partner_in:  # low in a suit the partner is void in and no opponent is: min by (power, id)
            for i in range(n):
                c = cards[i]
                if suits[c] == trump or not rows[partner, suits[c]]:
                    continue
                opp_void = False
                for o in range(4):
                    if o % 2 != me % 2 and st[g, OUT + o] == 0 and rows[o, suits[c]]:
                        opp_void = True
                if not opp_void and (best < 0 or pw[c] < pw[best]):
                    best = c
            if best >= 0:
                return best
        best_len = 0  # the lowest card of the shortest side suit: min by (cards held of the suit, power, id)
        for i in range(n):
            c = cards[i]
            if suits[c] == trump:
                continue
            length = rows[HELD, suits[c]]
            if best < 0 or length < best_len or (length == best_len and pw[c] < pw[best]):
                best, best_len = c, length
        return best
    return top if _master(top, rows, suits, pw) else low


@jit(inline="always")
def _follow(st, tc, ts, g, me, cards, n, rows, suits, pw, trump):
    """``_PlayContext.follow`` over ``cards[:n]`` (ids ascending)."""
    ntr, ncur = st[g, NTR], st[g, NCUR]
    partner = (me + 2) % 4
    behind = 0  # _order_after(me) less the seats that played, as a bit set (only membership is asked)
    partner_behind = False
    for step in range(1, 4):
        x = (me + step) % 4
        if st[g, OUT + x]:
            continue
        played = False
        for j in range(ncur):
            if ts[g, ntr, j] == x:
                played = True
        if not played:
            behind |= 1 << x
            partner_behind = partner_behind or x == partner
    w = 0  # cards.trick_winner: the first of equal cards wins
    for j in range(1, ncur):
        c = tc[g, ntr, j]
        if (suits[c] == trump or suits[c] == suits[tc[g, ntr, 0]]) and pw[c] > pw[tc[g, ntr, w]]:
            w = j
    winner_seat, winning = ts[g, ntr, w], tc[g, ntr, w]
    led = suits[tc[g, ntr, 0]]
    low = cards[0]
    for i in range(1, n):
        if _throw_less(cards[i], low, rows, suits, pw, trump):
            low = cards[i]
    if winner_seat == partner:
        if _safe(winning, me, behind, rows, suits, pw, trump):
            return low
        cover = -1  # the lowest safe winner of the suit led
        for i in range(n):
            c = cards[i]
            if (_beats(c, winning, suits, pw, trump) and suits[c] == led
                    and _safe(c, me, behind, rows, suits, pw, trump)
                    and (cover < 0 or pw[c] < pw[cover])):
                cover = c
        return cover if cover >= 0 else low
    cheapest = -1  # min(safe_winners or winners, key=(power, id))
    cheapest_safe = False
    highest = -1  # max(winners, key=(power, -id))
    for i in range(n):
        c = cards[i]
        if not _beats(c, winning, suits, pw, trump):
            continue
        if highest < 0 or pw[c] > pw[highest]:
            highest = c
        is_safe = _safe(c, me, behind, rows, suits, pw, trump)
        if (cheapest < 0 or (is_safe and not cheapest_safe)
                or (is_safe == cheapest_safe and pw[c] < pw[cheapest])):
            cheapest, cheapest_safe = c, is_safe
    if highest < 0:  # cannot win the trick
        return low
    if partner_behind:
        return cheapest if _master(winning, rows, suits, pw) else low
    if cheapest_safe:
        return cheapest
    return highest


@jit(inline="always")
def _gone(st, tc, g, seat, gone):
    """``rule_based._gone`` into ``gone`` (copies per card id): played, own discard, a turned-down card, and for
    the help bidder the card its partner sits out with."""
    gone[:] = 0
    ntr, ncur = st[g, NTR], st[g, NCUR]
    active = 4 - st[g, OUT] - st[g, OUT + 1] - st[g, OUT + 2] - st[g, OUT + 3]
    for k in range(ntr + 1):
        for j in range(active if k < ntr else ncur):
            gone[tc[g, k, j]] += 1
    if st[g, DISC] >= 0 and seat == st[g, DEALER]:
        gone[st[g, DISC]] += 1
    if st[g, UP] >= 0 and not st[g, UPTAKEN] and (st[g, PH] == CALL2 or st[g, TRUMP] >= 0):
        gone[st[g, UP]] += 1
    if st[g, GIVEN] >= 0 and seat == st[g, BIDDER]:
        gone[st[g, GIVEN]] += 1
    return gone
