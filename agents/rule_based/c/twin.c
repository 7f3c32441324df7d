/* euchre_env.agents.rule_based._twin: the rule-based agent's decisions in C, on the compiled engine's arrays.

   Reference: RuleBasedAgent (agents/rule_based/agent.py: the rules of each phase and the card play) and the trick
   estimate of agents/rule_based/heuristics.py (trick_estimate, alone_losers, best_discard, upcard_value
   tabulated), one C function per Python function (the comment above each names it). It defines no rule of its own:
   a change to the agent goes into the Python first, and tests/differential/test_rule_based_batch_policy_vs_rule_based_agent.py
   (every decision with more than one legal action, in random and rule-driven games of every preset and main option
   set) then shows this file what to follow. Only the action is ported, not the reason strings of explain().

   What the seat knows is what its InfoState holds, read from the games' arrays (engine.h's Games): its own hand
   (no other seat's), the up-card and its fate, its own discard (the dealer), the help exchange (the bidder), the
   public calls, the cards played and the voids they show. Sums and comparisons of estimates are float64 in the
   Python's order (no fused multiply-add: see below), so that every threshold test comes out the same; ties go as
   Python's max / min with the same keys. The agent's tables and weights come from the Python agent
   (compiled.rule_tables: RuleTables), never retyped here; only alone_losers' numbers are inline, as there.

   The module offers one type, Policy(rule_tables, engine_tables, slices): the decision's tables and each slice's
   scratch (a slice: one thread's share of a batch). Its methods:
   - decide_games(arrays, games, out, lo, hi, c): for each i in lo..hi-1, game games[i]'s legal mask (engine.h's
     legal_mask into slice c's scratch) and the agent's action into out[i] (an absolute id, or a negative code:
     NO_ACTION, NOT_LEGAL, NO_RULE), with the GIL released;
   - decision(): a PyCapsule named DECISION_CAPSULE holding a Decision (engine.h) whose decide is this file's
     decision and whose policy is this object's state; the capsule's context is this Policy (a reference the
     capsule holds), so the state outlives every holder of the capsule. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arrays.h"

/* The estimates' sums must round as Python's do: one rounding a multiplication and one an addition. GCC in C99
   mode (setup.py's flags) and MSVC do not fuse a*b+c; clang would within an expression, unless told. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define NUM_SUITS 4

/* ids[]: the action table's blocks (-1: absent); compiled.rule_tables fills them in this order */
enum { A_PASS, A_ORDER, A_ORDER_ALONE, A_NAME, A_NAME_ALONE, A_DEFEND, A_DISCARD, A_PLAY, A_BID, A_NBIDS, A_GIVE,
       A_ANF, A_HELP, A_MOON, N_IDS };
/* iopt[]: integers of the rules and the agent */
enum { I_TRICKS, I_NIDS, I_COPIES, I_DEFEND_TRUMPS, N_IOPT };
/* w[]: the agent's float thresholds and the estimate's scalar weights */
enum { W_PARTNER, W_TARGET, W_ALONE_LOSERS, W_HELP_LOSERS, W_DEFEND_TRICKS, W_FORCED, W_FLOOR, W_LENGTH, W_SECOND,
       W_GUARDED, W_BARE, W_VOID, N_W };
/* what a decision may answer besides an action id (compiled.py turns them into exceptions) */
#define NO_ACTION (-1)
#define NOT_LEGAL (-2)
#define NO_RULE (-3)

/* walk() packs, per held card of a suit, the count of higher cards still out into one integer, KS_BITS each:
   a suit's ranking holds at most KS_MASK cards (checked when a Policy is made) */
#define KS_BITS 4
#define KS_MASK 15

/* The play rules read what the Python agent recomputes per card from per-suit rows, filled once a decision by
   play(): rows 0-3 the shown voids of seats 0-3, TOP_OUT the highest power among the cards still out (master()
   and safe() ask only whether some card out of a suit is higher), HELD the cards held of each suit. */
#define TOP_OUT 4
#define HELD 5
#define NUM_ROWS 6
#define NOTHING_OUT (-((int64_t)1 << 40)) /* TOP_OUT of a suit with no card out: below every power */

/* A suit or trump as an index: the Python's tables were read by Numba, whose index -1 (no trump) is the last
   entry; & 3 maps -1 to 3 and leaves 0..3 alone. No reachable decision indexes with -1; this keeps C in bounds. */
#define SX(x) ((x) & 3)

/* ---- the agent's tables (compiled.RuleTables), read-only once made ---- */
typedef struct {
    int64_t ids[N_IDS], iopt[N_IOPT];
    double w[N_W];
    const int64_t *level;   /* [actions]: plain bid level of each id (-1: not a plain bid) */
    const int64_t *eff;     /* [5, nids]: effective suits under trump - 1 .. 3 */
    const int64_t *power;   /* [4, nids] */
    const int64_t *ranking; /* [4, 4, width]: each suit's cards best first, one entry a copy, padded with -1 */
    const int64_t *rlen;    /* [4, 4] */
    const double *upval;    /* [4, nids]: upcard_value tabulated */
    const double *trump_value, *ace_value;
    int64_t nids, width, n_trump_value, n_actions;
} Rules;

/* one slice's scratch: card counts (hand, tmp, gone, nogone, the candidate cards) and a legal mask; nogone stays 0
   (the estimates' ``gone=()``) */
typedef struct {
    int64_t *hand, *tmp, *gone, *nogone, *cards;
    uint8_t *mask; /* [actions] */
} Scratch;

/* the decision's state (Decision.policy): the tables and every slice's scratch */
typedef struct {
    Rules r;
    Tables t;          /* the engine's, for legal_mask */
    int64_t slices;
    size_t stride;     /* bytes of scratch a slice (a multiple of 64: no two slices share a cache line) */
    unsigned char *scratch; /* 64-byte aligned, in ``memory`` */
    void *memory;
} RB;

static inline Scratch scratch_of(const RB *p, int64_t slice)
{
    Scratch s;
    int64_t n = p->r.nids;
    int64_t *base = (int64_t *)(p->scratch + (size_t)slice * p->stride);
    s.hand = base, s.tmp = base + n, s.gone = base + 2 * n, s.nogone = base + 3 * n, s.cards = base + 4 * n;
    s.mask = (uint8_t *)(base + 5 * n);
    return s;
}

static inline const int64_t *suits_of(const Rules *r, int64_t trump) { return r->eff + (trump + 1) * r->nids; }
static inline const int64_t *power_of(const Rules *r, int64_t trump) { return r->power + SX(trump) * r->nids; }
static inline const int64_t *ranking_of(const Rules *r, int64_t trump, int64_t s)
{
    return r->ranking + (SX(trump) * NUM_SUITS + SX(s)) * r->width;
}
static inline int64_t rlen_of(const Rules *r, int64_t trump, int64_t s) { return r->rlen[SX(trump) * NUM_SUITS + SX(s)]; }
static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* =============================================================================== heuristics.py: the estimate */
/* cards ``hand`` holds of effective suit ``s`` under ``trump`` (sum(_by_suit(...)[s].values())) */
static int64_t suit_length(const int64_t *hand, int64_t trump, int64_t s, const Rules *r)
{
    const int64_t *rk = ranking_of(r, trump, s);
    int64_t n = 0, prev = -1;
    for (int64_t i = 0, m = rlen_of(r, trump, s); i < m; i++) {
        int64_t c = rk[i];
        if (c != prev) {
            n += hand[c];
            prev = c;
        }
    }
    return n;
}

/* heuristics._walk: the number of cards ``hand`` holds of suit ``s`` under ``trump``, and in *ks, for the j-th of
   them (best first), the higher cards still out (neither held nor gone), KS_BITS a card. A card's copies are
   adjacent in the ranking (checked in compiled.py), so each run starts from the card's held and gone counts. */
static inline int64_t walk(const int64_t *hand, const int64_t *gone, int64_t trump, int64_t s, const Rules *r, uint64_t *ks)
{
    const int64_t *rk = ranking_of(r, trump, s);
    int64_t j = 0, k = 0, prev = -1, held = -1, out = -1;
    uint64_t packed = 0;
    for (int64_t i = 0, m = rlen_of(r, trump, s); i < m; i++) {
        int64_t c = rk[i];
        if (c != prev)
            prev = c, held = hand[c], out = gone[c];
        if (held > 0) {
            held--;
            packed |= (uint64_t)k << (KS_BITS * j);
            j++;
        } else if (out > 0) {
            out--;
        } else {
            k++;
        }
    }
    *ks = packed;
    return j;
}

/* the higher cards still out above the j-th held card of a walk */
static inline int64_t k_of(uint64_t ks, int64_t j) { return (int64_t)((ks >> (KS_BITS * j)) & KS_MASK); }

/* heuristics.trick_estimate: tricks ``hand`` should take with ``trump`` (hand, gone: copies of each card id) */
static double trick_estimate(const int64_t *hand, int64_t trump, const int64_t *gone, const Rules *r)
{
    const double *w = r->w;
    double value = 0.0;
    uint64_t ks;
    int64_t n_trumps = walk(hand, gone, trump, trump, r, &ks);
    for (int64_t j = 0; j < n_trumps; j++) {
        int64_t k = k_of(ks, j);
        value += k < r->n_trump_value ? r->trump_value[k] : w[W_FLOOR];
    }
    value += w[W_LENGTH] * (double)imax(0, n_trumps - 2);
    int64_t voids = 0;
    for (int64_t s = 0; s < NUM_SUITS; s++) {
        if (s == trump)
            continue;
        int64_t length = walk(hand, gone, trump, s, r, &ks);
        if (length == 0) {
            voids++;
            continue;
        }
        for (int64_t j = 0; j < length; j++) {
            int64_t k = k_of(ks, j);
            if (j == 0 && k == 0)
                value += r->ace_value[imin(length, 3) - 1];
            else if (j == 1 && k == 0)
                value += w[W_SECOND];
            else if (j == 0 && k == 1)
                value += length >= 2 ? w[W_GUARDED] : w[W_BARE];
            else
                break;
        }
    }
    if (n_trumps >= 2)
        value += w[W_VOID] * (double)imin(voids, n_trumps - 1);
    return value;
}

/* heuristics.alone_losers: the expected losing tricks playing ``hand`` alone with ``trump``; *n_trumps the trumps */
static double alone_losers(const int64_t *hand, int64_t trump, const int64_t *gone, const Rules *r, int64_t *n_trumps)
{
    uint64_t ks;
    int64_t n = walk(hand, gone, trump, trump, r, &ks);
    int64_t top_run = 0;
    for (int64_t j = 0; j < n; j++)
        top_run += k_of(ks, j) == 0;
    int64_t missing_above = n ? k_of(ks, n - 1) : 0;
    double lost = 0.8 * (double)imin(n - top_run, missing_above);
    for (int64_t s = 0; s < NUM_SUITS; s++) {
        if (s == trump)
            continue;
        int64_t held = walk(hand, gone, trump, s, r, &ks);
        for (int64_t j = 0; j < held; j++)
            lost += k_of(ks, j) == 0 ? (j == 0 ? 0.15 : 0.35 * (double)j) : 1.0;
    }
    *n_trumps = n;
    return lost;
}

/* heuristics.best_discard: the card of ``hand`` to throw away with ``trump`` as trump */
static int64_t best_discard(const int64_t *hand, int64_t trump, const Rules *r)
{
    const int64_t *suits = suits_of(r, trump), *pw = power_of(r, trump);
    int64_t nids = r->nids, n_trumps = 0, best = -1, best_len = 0;
    int side = 0;
    for (int64_t c = 0; c < nids; c++) {
        if (hand[c] > 0) {
            if (suits[c] == trump)
                n_trumps += hand[c];
            else
                side = 1;
        }
    }
    if (!side) { /* min(hand, key=(power, c)): ids ascending, so a strict < keeps the lowest id of a tie */
        for (int64_t c = 0; c < nids; c++)
            if (hand[c] > 0 && (best < 0 || pw[c] < pw[best]))
                best = c;
        return best;
    }
    for (int64_t c = 0; c < nids; c++) { /* the low side cards (not the best of their suit): (length, power, c) */
        if (hand[c] > 0 && suits[c] != trump && c != ranking_of(r, trump, suits[c])[0]) {
            int64_t length = suit_length(hand, trump, suits[c], r);
            if (best < 0 || length < best_len || (length == best_len && pw[c] < pw[best]))
                best = c, best_len = length;
        }
    }
    if (best >= 0)
        return best;
    if (n_trumps >= 3) {
        for (int64_t c = 0; c < nids; c++)
            if (hand[c] > 0 && suits[c] == trump && (best < 0 || pw[c] < pw[best]))
                best = c;
        return best;
    }
    for (int64_t c = 0; c < nids; c++) { /* side aces only: (-length, c) */
        if (hand[c] > 0 && suits[c] != trump) {
            int64_t length = suit_length(hand, trump, suits[c], r);
            if (best < 0 || length > best_len)
                best = c, best_len = length;
        }
    }
    return best;
}

/* =============================================================================== agent.py: calling */
/* agent._dealer_hand into ``out``: the dealer's hand after picking up ``upcard`` and discarding */
static const int64_t *dealer_hand(const int64_t *hand, int64_t upcard, int64_t trump, const Rules *r, int64_t *out)
{
    memcpy(out, hand, (size_t)r->nids * sizeof(int64_t));
    out[upcard] += 1;
    out[best_discard(out, trump, r)] -= 1;
    return out;
}

/* agent._alone_ok: three or more trumps and at most ALONE_LOSERS expected losers */
static int alone_ok(const int64_t *hand, int64_t trump, const int64_t *gone, const Rules *r)
{
    int64_t n_trumps;
    double lost = alone_losers(hand, trump, gone, r, &n_trumps);
    return n_trumps >= 3 && lost <= r->w[W_ALONE_LOSERS];
}

/* agent._best_suit: the suit with the best estimate (its estimate in *value) of the suits x with options[x], or
   of all four with ``every``. Suits ascending with a strict > give ties to the lowest, as max with key -x does. */
static int64_t best_suit(const int64_t *hand, int every, const uint8_t *options, const int64_t *gone, const Rules *r,
                         double *value)
{
    int64_t best = -1;
    double best_value = 0.0;
    for (int64_t x = 0; x < NUM_SUITS; x++) {
        if (every || options[x]) {
            double v = trick_estimate(hand, x, gone, r);
            if (best < 0 || v > best_value)
                best = x, best_value = v;
        }
    }
    *value = best_value;
    return best;
}

/* ``a in legal`` for an id of the action table, -1 (a block the rules leave out) included */
static inline int on(const uint8_t *mask, int64_t a) { return a >= 0 && mask[a]; }

/* agent._call1: order the up-card's suit (alone or not) or pass */
static int64_t call1(const int32_t *st, int64_t seat, const int64_t *hand, const uint8_t *mask, const Rules *r,
                     const int64_t *nogone, int64_t *tmp)
{
    const int64_t *ids = r->ids;
    const double *w = r->w;
    int64_t trump = st[UPSUIT], upcard = st[UP], dealer = st[DEALER];
    double own;
    if (!on(mask, ids[A_ORDER])) { /* the dealer's partner must go alone to order */
        own = trick_estimate(hand, trump, nogone, r);
        if (on(mask, ids[A_ORDER_ALONE]) && (own >= w[W_FORCED] || alone_ok(hand, trump, nogone, r)))
            return ids[A_ORDER_ALONE];
        return ids[A_PASS];
    }
    const int64_t *h;
    if (seat == dealer) {
        h = dealer_hand(hand, upcard, trump, r, tmp);
        own = trick_estimate(h, trump, nogone, r);
    } else {
        h = hand;
        double up = r->upval[SX(trump) * r->nids + upcard];
        own = trick_estimate(h, trump, nogone, r) + (seat == (dealer + 2) % 4 ? up : -up);
    }
    if (on(mask, ids[A_ORDER_ALONE]) && alone_ok(h, trump, nogone, r))
        return ids[A_ORDER_ALONE];
    if (own + w[W_PARTNER] >= w[W_TARGET])
        return ids[A_ORDER];
    return ids[A_PASS];
}

/* agent._call2: name the best suit left (alone or not), or pass */
static int64_t call2(const int64_t *hand, const uint8_t *mask, const int64_t *gone, const Rules *r)
{
    const int64_t *ids = r->ids;
    double own;
    int64_t best = best_suit(hand, 0, mask + ids[A_NAME], gone, r, &own);
    if (ids[A_NAME_ALONE] >= 0 && mask[ids[A_NAME_ALONE] + best] && alone_ok(hand, best, gone, r))
        return ids[A_NAME_ALONE] + best;
    if (!mask[ids[A_PASS]]) /* the dealer is stuck */
        return ids[A_NAME] + best;
    if (own + r->w[W_PARTNER] >= r->w[W_TARGET])
        return ids[A_NAME] + best;
    return ids[A_PASS];
}

/* agent._defend: defend alone with enough trumps and tricks, else pass */
static int64_t defend(const int64_t *hand, int64_t trump, const uint8_t *mask, const int64_t *gone, const Rules *r)
{
    const int64_t *ids = r->ids, *suits = suits_of(r, trump);
    double own = trick_estimate(hand, trump, gone, r);
    int64_t n_trumps = 0;
    for (int64_t c = 0; c < r->nids; c++)
        if (suits[c] == trump)
            n_trumps += hand[c];
    if (on(mask, ids[A_DEFEND]) && n_trumps >= r->iopt[I_DEFEND_TRUMPS] && own >= r->w[W_DEFEND_TRICKS])
        return ids[A_DEFEND];
    return ids[A_PASS];
}

/* agent._discard: the best discard once trump is known; the joker dealer of Bid Euchre, before the auction, keeps
   the hand whose best suit is strongest (max by that estimate, then -power[0][c], then -c) */
static int64_t discard(const int64_t *hand, int64_t trump, const int64_t *nogone, int64_t *tmp, const Rules *r)
{
    if (trump >= 0)
        return r->ids[A_DISCARD] + best_discard(hand, trump, r);
    const int64_t *pw0 = power_of(r, 0);
    int64_t best = -1;
    double best_after = 0.0;
    for (int64_t c = 0; c < r->nids; c++) { /* sorted(set(hand)) */
        if (hand[c] == 0)
            continue;
        memcpy(tmp, hand, (size_t)r->nids * sizeof(int64_t));
        tmp[c] -= 1;
        double after = trick_estimate(tmp, 0, nogone, r);
        for (int64_t x = 1; x < NUM_SUITS; x++) {
            double v = trick_estimate(tmp, x, nogone, r);
            if (v > after)
                after = v;
        }
        /* a higher estimate, then a lower power[0], then (ids ascending, strict) the lower id */
        if (best < 0 || after > best_after || (after == best_after && pw0[c] < pw0[best]))
            best = c, best_after = after;
    }
    return r->ids[A_DISCARD] + best;
}

/* agent._joker_suit: the suit in which the hand, with the joker picked up and the best discard, is strongest
   (ties: the lowest suit) */
static int64_t joker_suit(const int32_t *st, const int64_t *hand, const int64_t *nogone, int64_t *tmp, const Rules *r)
{
    int64_t best = -1;
    double best_value = 0.0;
    for (int64_t x = 0; x < NUM_SUITS; x++) {
        double v = trick_estimate(dealer_hand(hand, st[UP], x, r, tmp), x, nogone, r);
        if (best < 0 || v > best_value)
            best = x, best_value = v;
    }
    return r->ids[A_NAME] + best;
}

/* agent._auction: moon, help, the cheapest plain bid the hand is worth, ace no face, or pass */
static int64_t auction(const int32_t *st, int64_t seat, const int64_t *hand, const uint8_t *mask,
                       const int64_t *nogone, const Rules *r)
{
    const int64_t *ids = r->ids, *level_of = r->level;
    const double *w = r->w;
    double own;
    int64_t best = best_suit(hand, 1, NULL, nogone, r, &own);
    int64_t n_trumps;
    double lost = alone_losers(hand, best, nogone, r, &n_trumps);
    int enough_trumps = n_trumps >= (r->iopt[I_TRICKS] + 1) / 2; /* tricks > 0: C's / is Python's // */
    int partner_holds = st[CONTRACT] >= 0 && st[BIDDER] == (seat + 2) % 4;
    if (on(mask, ids[A_MOON]) && enough_trumps && lost <= w[W_ALONE_LOSERS])
        return ids[A_MOON];
    if (on(mask, ids[A_HELP]) && enough_trumps && lost <= w[W_HELP_LOSERS])
        return ids[A_HELP];
    int64_t level = (int64_t)floor(own + w[W_PARTNER]);
    int64_t cheapest = -1; /* the legal plain bid of the lowest level (plain[0]) */
    for (int64_t i = 0; i < ids[A_NBIDS]; i++) {
        int64_t a = ids[A_BID] + i;
        if (mask[a] && level_of[a] >= 0 && (cheapest < 0 || level_of[a] < level_of[cheapest]))
            cheapest = a;
    }
    if (!mask[ids[A_PASS]]) { /* stick the dealer: the cheapest bid, else min(legal) */
        if (cheapest >= 0)
            return cheapest;
        for (int64_t a = 0; a < r->n_actions; a++)
            if (mask[a])
                return a;
    }
    if (!partner_holds && cheapest >= 0 && level_of[cheapest] <= level)
        return cheapest;
    if (on(mask, ids[A_ANF]) && !partner_holds && (cheapest < 0 || level_of[cheapest] > level))
        return ids[A_ANF];
    return ids[A_PASS];
}

/* agent._give_back: the legal card of the highest power (ties: the lowest id) */
static int64_t give_back(int64_t trump, const uint8_t *mask, const Rules *r)
{
    const int64_t *pw = power_of(r, trump);
    int64_t base = r->ids[A_GIVE], best = -1;
    for (int64_t c = 0; c < r->nids; c++)
        if (mask[base + c] && (best < 0 || pw[c] > pw[best]))
            best = c;
    return base + best;
}

/* =============================================================================== agent.py: card play */
/* agent._gone into ``gone`` (copies per card id): played, own discard, a turned-down card, and for the help bidder
   the card its partner sits out with */
static const int64_t *gone_of(const Game *G, int64_t seat, const Rules *r, int64_t *gone)
{
    const int32_t *st = G->st;
    memset(gone, 0, (size_t)r->nids * sizeof(int64_t));
    int64_t ntr = st[NTR], ncur = st[NCUR];
    int64_t active = 4 - st[OUT] - st[OUT + 1] - st[OUT + 2] - st[OUT + 3];
    for (int64_t k = 0; k <= ntr; k++)
        for (int64_t j = 0, m = k < ntr ? active : ncur; j < m; j++)
            gone[G->tc[k * 4 + j]] += 1;
    if (st[DISC] >= 0 && seat == st[DEALER])
        gone[st[DISC]] += 1;
    if (st[UP] >= 0 && !st[UPTAKEN] && (st[PH] == CALL2 || st[TRUMP] >= 0))
        gone[st[UP]] += 1;
    if (st[GIVEN] >= 0 && seat == st[BIDDER])
        gone[st[GIVEN]] += 1;
    return gone;
}

/* cards.beats: ``card`` played after ``winning`` takes the trick from it */
static inline int beats(int64_t card, int64_t winning, const int64_t *suits, const int64_t *pw, int64_t trump)
{
    return (suits[card] == trump || suits[card] == suits[winning]) && pw[card] > pw[winning];
}

/* _PlayContext.master: no card still out is higher in c's suit */
static inline int master(int64_t c, const int64_t *rows, const int64_t *suits, const int64_t *pw)
{
    return rows[TOP_OUT * NUM_SUITS + SX(suits[c])] <= pw[c];
}

/* _PlayContext.safe: no opponent among the seats of the bit set ``behind`` can hold a card that beats c (as far as
   its shown voids tell): a higher card out of c's suit, or of trump */
static int safe(int64_t c, int64_t me, int64_t behind, const int64_t *rows, const int64_t *suits, const int64_t *pw,
                int64_t trump)
{
    int64_t s = SX(suits[c]);
    for (int64_t o = 0; o < 4; o++) {
        if (!((behind >> o) & 1) || o % 2 == me % 2)
            continue;
        if (!rows[o * NUM_SUITS + s] && rows[TOP_OUT * NUM_SUITS + s] > pw[c])
            return 0;
        if (trump >= 0 && trump != s && !rows[o * NUM_SUITS + trump] && rows[TOP_OUT * NUM_SUITS + trump] > pw[c])
            return 0;
    }
    return 1;
}

/* _PlayContext.throw_key(a) < throw_key(b): side suits before trumps, non-masters first, low first */
static int throw_less(int64_t a, int64_t b, const int64_t *rows, const int64_t *suits, const int64_t *pw,
                      int64_t trump)
{
    int ta = suits[a] == trump, tb = suits[b] == trump;
    if (ta != tb)
        return tb;
    int ma = master(a, rows, suits, pw), mb = master(b, rows, suits, pw);
    if (ma != mb)
        return mb;
    if (pw[a] != pw[b])
        return pw[a] < pw[b];
    return a < b;
}

/* an active opponent of ``me`` (seat o) has shown void in suit s */
static inline int opponent_void(const int32_t *st, int64_t me, int64_t o, const int64_t *rows, int64_t s)
{
    return o % 2 != me % 2 && st[OUT + o] == 0 && rows[o * NUM_SUITS + SX(s)];
}

/* _PlayContext.lead over cards[:n] (ids ascending) */
static int64_t lead(const int32_t *st, int64_t me, const int64_t *cards, int64_t n, const int64_t *rows,
                    const int64_t *suits, const int64_t *pw, int64_t trump)
{
    int64_t partner = (me + 2) % 4;
    int partner_in = st[OUT + partner] == 0;
    int64_t top = -1, low = -1; /* trumps[0] and trumps[-1]: the highest and the lowest trump */
    int64_t n_trumps = 0, n_side = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = cards[i];
        if (suits[c] == trump) {
            n_trumps++;
            if (top < 0 || pw[c] > pw[top])
                top = c;
            if (low < 0 || pw[c] < pw[low])
                low = c;
        } else {
            n_side++;
        }
    }
    int trumps_out = trump >= 0 && rows[TOP_OUT * NUM_SUITS + trump] != NOTHING_OUT;
    int all_void = 1; /* every active opponent has shown void in trump */
    for (int64_t o = 0; o < 4; o++)
        if (o % 2 != me % 2 && st[OUT + o] == 0 && !rows[o * NUM_SUITS + SX(trump)])
            all_void = 0;
    int opp_have_trump = trumps_out && !all_void;
    int64_t maker = st[MAKER];
    int we_made = maker >= 0 && maker % 2 == me % 2;
    if (we_made && n_trumps > 0 && opp_have_trump) {
        if (maker == me) {
            if (master(top, rows, suits, pw))
                return top;
            if (n_trumps >= 3)
                return low;
        } else if (partner_in) {
            return master(top, rows, suits, pw) ? top : low;
        }
    }
    int64_t best = -1, best_void = 0, best_held = 0; /* side-suit masters: min by (shown voids, held, -power, id) */
    for (int64_t i = 0; i < n; i++) {
        int64_t c = cards[i];
        if (suits[c] == trump || !master(c, rows, suits, pw))
            continue;
        int64_t shown_void = 0;
        for (int64_t o = 0; o < 4; o++)
            shown_void += opponent_void(st, me, o, rows, suits[c]);
        int64_t held = rows[HELD * NUM_SUITS + SX(suits[c])];
        if (best < 0 || shown_void < best_void
            || (shown_void == best_void && (held < best_held || (held == best_held && pw[c] > pw[best]))))
            best = c, best_void = shown_void, best_held = held;
    }
    if (best >= 0)
        return best;
    if (n_trumps > 0 && master(top, rows, suits, pw) && opp_have_trump && we_made)
        return top;
    if (n_side > 0) {
        if (partner_in) { /* low in a suit the partner is void in and no opponent is: min by (power, id) */
            for (int64_t i = 0; i < n; i++) {
                int64_t c = cards[i];
                if (suits[c] == trump || !rows[partner * NUM_SUITS + SX(suits[c])])
                    continue;
                int opp_void = 0;
                for (int64_t o = 0; o < 4; o++)
                    opp_void |= opponent_void(st, me, o, rows, suits[c]);
                if (!opp_void && (best < 0 || pw[c] < pw[best]))
                    best = c;
            }
            if (best >= 0)
                return best;
        }
        int64_t best_len = 0; /* the lowest card of the shortest side suit: min by (held of its suit, power, id) */
        for (int64_t i = 0; i < n; i++) {
            int64_t c = cards[i];
            if (suits[c] == trump)
                continue;
            int64_t length = rows[HELD * NUM_SUITS + SX(suits[c])];
            if (best < 0 || length < best_len || (length == best_len && pw[c] < pw[best]))
                best = c, best_len = length;
        }
        return best;
    }
    return master(top, rows, suits, pw) ? top : low;
}

/* _PlayContext.follow over cards[:n] (ids ascending) */
static int64_t follow(const Game *G, int64_t me, const int64_t *cards, int64_t n, const int64_t *rows,
                      const int64_t *suits, const int64_t *pw, int64_t trump)
{
    const int32_t *st = G->st;
    int64_t ntr = st[NTR], ncur = st[NCUR];
    const int8_t *tc = G->tc + ntr * 4, *ts = G->ts + ntr * 4;
    int64_t partner = (me + 2) % 4;
    int64_t behind = 0; /* _order_after(me) less the seats that played, as a bit set (only membership is asked) */
    int partner_behind = 0;
    for (int64_t step = 1; step < 4; step++) {
        int64_t x = (me + step) % 4;
        if (st[OUT + x])
            continue;
        int played = 0;
        for (int64_t j = 0; j < ncur; j++)
            if (ts[j] == x)
                played = 1;
        if (!played) {
            behind |= (int64_t)1 << x;
            partner_behind = partner_behind || x == partner;
        }
    }
    int64_t w = 0; /* cards.trick_winner: the first of equal cards wins */
    for (int64_t j = 1; j < ncur; j++) {
        int64_t c = tc[j];
        if ((suits[c] == trump || suits[c] == suits[tc[0]]) && pw[c] > pw[tc[w]])
            w = j;
    }
    int64_t winner_seat = ts[w], winning = tc[w], led = suits[tc[0]];
    int64_t low = cards[0];
    for (int64_t i = 1; i < n; i++)
        if (throw_less(cards[i], low, rows, suits, pw, trump))
            low = cards[i];
    if (winner_seat == partner) {
        if (safe(winning, me, behind, rows, suits, pw, trump))
            return low;
        int64_t cover = -1; /* the lowest safe winner of the suit led */
        for (int64_t i = 0; i < n; i++) {
            int64_t c = cards[i];
            if (beats(c, winning, suits, pw, trump) && suits[c] == led && safe(c, me, behind, rows, suits, pw, trump)
                && (cover < 0 || pw[c] < pw[cover]))
                cover = c;
        }
        return cover >= 0 ? cover : low;
    }
    int64_t cheapest = -1, highest = -1; /* min(safe_winners or winners, key=(power, id)); max(winners, (power, -id)) */
    int cheapest_safe = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = cards[i];
        if (!beats(c, winning, suits, pw, trump))
            continue;
        if (highest < 0 || pw[c] > pw[highest])
            highest = c;
        int is_safe = safe(c, me, behind, rows, suits, pw, trump);
        if (cheapest < 0 || (is_safe && !cheapest_safe) || (is_safe == cheapest_safe && pw[c] < pw[cheapest]))
            cheapest = c, cheapest_safe = is_safe;
    }
    if (highest < 0) /* cannot win the trick */
        return low;
    if (partner_behind)
        return master(winning, rows, suits, pw) ? cheapest : low;
    if (cheapest_safe)
        return cheapest;
    return highest;
}

/* agent._play: the candidate cards (following suit even where reneging is allowed), the cards still out (no copy
   held or gone), the shown voids; then _PlayContext.follow or .lead */
static int64_t play(const Game *G, int64_t seat, const uint8_t *mask, const Rules *r, const Scratch *sc)
{
    const int32_t *st = G->st;
    int64_t trump = st[TRUMP], nids = r->nids, base = r->ids[A_PLAY];
    const int64_t *suits = suits_of(r, trump), *pw = power_of(r, trump), *hand = sc->hand;
    int64_t *cards = sc->cards;
    int64_t rows[NUM_ROWS * NUM_SUITS]; /* a local: the compiler sees that no card count aliases it */
    int64_t ntr = st[NTR], ncur = st[NCUR];
    const int8_t *tc = G->tc, *ts = G->ts;
    int64_t n = 0;
    for (int64_t c = 0; c < nids; c++)
        if (mask[base + c])
            cards[n++] = c;
    if (ncur > 0) { /* cards.follow_suit */
        int64_t led = suits[tc[ntr * 4]], m = 0;
        for (int64_t i = 0; i < n; i++)
            if (suits[cards[i]] == led)
                cards[m++] = cards[i];
        if (m > 0)
            n = m;
    }
    const int64_t *gone = gone_of(G, seat, r, sc->gone);
    for (int64_t i = 0; i < NUM_ROWS * NUM_SUITS; i++)
        rows[i] = i / NUM_SUITS == TOP_OUT ? NOTHING_OUT : 0;
    for (int64_t c = 0; c < nids; c++) {
        int64_t x = SX(suits[c]);
        rows[HELD * NUM_SUITS + x] += hand[c];
        if (r->iopt[I_COPIES] - hand[c] - gone[c] > 0 && pw[c] > rows[TOP_OUT * NUM_SUITS + x])
            rows[TOP_OUT * NUM_SUITS + x] = pw[c];
    }
    int64_t active = 4 - st[OUT] - st[OUT + 1] - st[OUT + 2] - st[OUT + 3];
    for (int64_t k = 0; k <= ntr; k++) { /* infostate.shown_voids */
        int64_t count = k < ntr ? active : ncur;
        if (count > 0) {
            int64_t led = suits[tc[k * 4]];
            for (int64_t j = 1; j < count; j++)
                if (suits[tc[k * 4 + j]] != led)
                    rows[ts[k * 4 + j] * NUM_SUITS + SX(led)] = 1;
        }
    }
    if (ncur > 0)
        return base + follow(G, seat, cards, n, rows, suits, pw, trump);
    return base + lead(st, seat, cards, n, rows, suits, pw, trump);
}

/* =============================================================================== the decision */
/* The legal actions of ``mask`` counted up to 2 (a choice: the count is not needed further); *first the lowest
   (-1: none). Eight entries a word where they are all 0: a mask is mostly 0 and the play ids come last. */
static inline int64_t legal_count(const uint8_t *mask, int64_t n, int64_t *first)
{
    int64_t count = 0, a = 0;
    *first = -1;
    while (a < n) {
        if (a + 8 <= n) {
            uint64_t word;
            memcpy(&word, mask + a, 8);
            if (word == 0) {
                a += 8;
                continue;
            }
        }
        for (int64_t end = a + 8 < n ? a + 8 : n; a < end; a++) {
            if (mask[a]) {
                if (++count == 2)
                    return count;
                *first = a;
            }
        }
    }
    return count;
}

/* The action of game g's seat to act (absolute id; mask: its legal actions, absolute ids), or NO_ACTION (nothing
   legal), NOT_LEGAL (a rule chose an illegal action: a bug) or NO_RULE (a phase without a rule). engine.h's
   decide_fn: the env's whole step calls it through the capsule, decide_games below for a batch. */
static int64_t rb_decide(void *policy, int64_t slice, const Games *s, int64_t g, const uint8_t *mask)
{
    const RB *p = (const RB *)policy;
    const Rules *r = &p->r;
    const int64_t *ids = r->ids;
    int64_t n_actions = r->n_actions, first;
    if (legal_count(mask, n_actions, &first) <= 1) /* the only legal action (or none: NO_ACTION) */
        return first;
    Scratch sc = scratch_of(p, slice);
    Game G = game_at(s, g);
    const int32_t *st = G.st;
    int64_t seat = st[CUR], phase = st[PH], trump = st[TRUMP], nids = r->nids;
    const int8_t *own = G.hands + seat * s->nids;
    for (int64_t c = 0; c < nids; c++)
        sc.hand[c] = own[c];
    int64_t a;
    switch (phase) {
    case PLAY:
        a = play(&G, seat, mask, r, &sc);
        break;
    case CALL1:
        a = call1(st, seat, sc.hand, mask, r, sc.nogone, sc.tmp);
        break;
    case CALL2:
        a = call2(sc.hand, mask, gone_of(&G, seat, r, sc.gone), r);
        break;
    case DISCARD:
        a = discard(sc.hand, trump, sc.nogone, sc.tmp, r);
        break;
    case DEFEND:
        a = defend(sc.hand, trump, mask, gone_of(&G, seat, r, sc.gone), r);
        break;
    case JOKER_SUIT:
        a = joker_suit(st, sc.hand, sc.nogone, sc.tmp, r);
        break;
    case AUCTION:
        a = auction(st, seat, sc.hand, mask, sc.nogone, r);
        break;
    case NAME_TRUMP: { /* agent._name_trump */
        double value;
        a = ids[A_NAME] + best_suit(sc.hand, 1, NULL, gone_of(&G, seat, r, sc.gone), r, &value);
        break;
    }
    case GIVE: /* agent._give */
        a = ids[A_GIVE] + best_discard(sc.hand, trump, r);
        break;
    case GIVE_BACK:
        a = give_back(trump, mask, r);
        break;
    default:
        return NO_RULE;
    }
    return a >= 0 && a < n_actions && mask[a] ? a : NOT_LEGAL;
}

/* =============================================================================== the Policy type */
typedef struct {
    PyObject_HEAD
    RB rb;
    Decision decision; /* what decision()'s capsules point at: {rb_decide, &rb} */
    Held tables_held, rules_held;
    int ready;
} Policy;

/* rule_tables (a compiled.RuleTables) into p->r; the array views go into ``held``. 0, or -1 with the exception. */
static int rules_from(PyObject *bundle, RB *p, Held *held)
{
    static const char *names[] = {"ids", "iopt", "level", "eff", "power", "ranking", "rlen", "upval", "w",
                                  "trump_value", "ace_value"};
    static const int dims[] = {1, 1, 1, 2, 2, 3, 2, 2, 1, 1, 1};
    static const char kinds[] = {KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_INT, KIND_FLOAT,
                                 KIND_FLOAT, KIND_FLOAT, KIND_FLOAT};
    const void *d[11];
    Py_ssize_t shape[11][3];
    Rules *r = &p->r;
    if (!PySequence_Check(bundle) || PySequence_Size(bundle) != 11) {
        PyErr_SetString(PyExc_TypeError, "rule_tables must be a RuleTables bundle of 11 arrays");
        return -1;
    }
    for (int i = 0; i < 11; i++) {
        d[i] = take_item(bundle, i, held, names[i], kinds[i], 8, dims[i], 0);
        if (d[i] == NULL)
            return -1;
        for (int k = 0; k < dims[i]; k++)
            shape[i][k] = held_shape(held, 1, k);
    }
    int64_t nids = p->t.nids, n_actions = p->t.n_actions;
    if (shape[0][0] != N_IDS || shape[1][0] != N_IOPT || shape[8][0] != N_W || shape[10][0] != 3) {
        PyErr_Format(PyExc_ValueError, "RuleTables: ids, iopt, w and ace_value must hold %d, %d, %d and 3 entries",
                     N_IDS, N_IOPT, N_W);
        return -1;
    }
    memcpy(r->ids, d[0], sizeof r->ids);
    memcpy(r->iopt, d[1], sizeof r->iopt);
    memcpy(r->w, d[8], sizeof r->w);
    r->level = d[2], r->eff = d[3], r->power = d[4], r->ranking = d[5], r->rlen = d[6], r->upval = d[7];
    r->trump_value = d[9], r->ace_value = d[10];
    r->nids = nids, r->n_actions = n_actions, r->width = shape[5][2], r->n_trump_value = shape[9][0];
    if (r->iopt[I_NIDS] != nids || shape[2][0] != n_actions || shape[3][0] != 5 || shape[3][1] != nids
        || shape[4][0] != 4 || shape[4][1] != nids || shape[5][0] != 4 || shape[5][1] != 4 || shape[6][0] != 4
        || shape[6][1] != 4 || shape[7][0] != 4 || shape[7][1] != nids) {
        PyErr_SetString(PyExc_ValueError, "RuleTables do not match the engine's tables (card ids, actions) or "
                                          "their shapes (eff [5, ids], power, upval [4, ids], ranking [4, 4, w], "
                                          "rlen [4, 4])");
        return -1;
    }
    /* what the decisions index without a check: in bounds, or the Policy is refused */
    for (int64_t i = 0; i < 16; i++) {
        if (r->rlen[i] < 0 || r->rlen[i] > r->width || r->rlen[i] > KS_MASK) {
            PyErr_Format(PyExc_ValueError, "RuleTables: a suit ranking of %lld cards (at most %d, and the width)",
                         (long long)r->rlen[i], KS_MASK);
            return -1;
        }
        for (int64_t j = 0; j < r->rlen[i]; j++) {
            if (r->ranking[i * r->width + j] < 0 || r->ranking[i * r->width + j] >= nids) {
                PyErr_SetString(PyExc_ValueError, "RuleTables: a ranking entry is not a card id");
                return -1;
            }
        }
    }
    for (int i = 0; i < N_IDS; i++) {
        if (i != A_NBIDS && (r->ids[i] < -1 || r->ids[i] >= n_actions)) {
            PyErr_Format(PyExc_ValueError, "RuleTables: ids[%d] = %lld is not an action id", i, (long long)r->ids[i]);
            return -1;
        }
    }
    int64_t blocks[] = {A_PASS, A_NAME, A_DISCARD, A_PLAY, A_GIVE};
    int64_t widths[] = {1, NUM_SUITS, nids, nids, nids};
    for (int i = 0; i < 5; i++) {
        int64_t b = r->ids[blocks[i]];
        if ((b >= 0 || blocks[i] == A_PASS) && (b < 0 || b + widths[i] > n_actions)) {
            PyErr_Format(PyExc_ValueError, "RuleTables: the block ids[%d] does not fit the action table",
                         (int)blocks[i]);
            return -1;
        }
    }
    if (r->ids[A_NBIDS] < 0 || (r->ids[A_NBIDS] > 0 && (r->ids[A_BID] < 0
                                                      || r->ids[A_BID] + r->ids[A_NBIDS] > n_actions))) {
        PyErr_SetString(PyExc_ValueError, "RuleTables: the bids do not fit the action table");
        return -1;
    }
    for (int64_t t = 0; t < 5; t++)
        for (int64_t c = 0; c < nids; c++)
            if (r->eff[t * nids + c] < -1 || r->eff[t * nids + c] >= NUM_SUITS) {
                PyErr_SetString(PyExc_ValueError, "RuleTables: an effective suit is not -1 .. 3");
                return -1;
            }
    return 0;
}

static void Policy_clear(Policy *self)
{
    if (self->ready) {
        release(&self->tables_held);
        release(&self->rules_held);
    }
    PyMem_Free(self->rb.memory);
    self->rb.memory = self->rb.scratch = NULL;
    self->ready = 0;
}

static void Policy_dealloc(Policy *self)
{
    Policy_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Policy_init(Policy *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rule_tables", "engine_tables", "slices", NULL};
    PyObject *rules, *tables;
    Py_ssize_t slices;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOn", kwlist, &rules, &tables, &slices))
        return -1;
    if (slices < 1) {
        PyErr_SetString(PyExc_ValueError, "slices must be at least 1");
        return -1;
    }
    if (self->ready) { /* a capsule may point at the state: it never changes once made */
        PyErr_SetString(PyExc_RuntimeError, "a Policy is initialized once");
        return -1;
    }
    memset(&self->rb, 0, sizeof self->rb);
    self->tables_held.n = self->rules_held.n = 0;
    self->ready = 1; /* from here the views are released on failure (Policy_clear) */
    if (tables_from(tables, &self->rb.t, &self->tables_held) < 0 || rules_from(rules, &self->rb, &self->rules_held) < 0)
        goto fail;
    RB *p = &self->rb;
    size_t bytes = (size_t)(5 * p->r.nids) * sizeof(int64_t) + (size_t)p->r.n_actions;
    p->stride = (bytes + 63) / 64 * 64;
    p->slices = slices;
    p->memory = PyMem_Calloc((size_t)slices * p->stride + 64, 1);
    if (p->memory == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    p->scratch = (unsigned char *)p->memory + (64 - (uintptr_t)p->memory % 64) % 64;
    self->decision.decide = rb_decide;
    self->decision.policy = p;
    return 0;
fail:
    Policy_clear(self);
    return -1;
}

static int ready(Policy *self)
{
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Policy was not initialized");
        return 0;
    }
    return 1;
}

/* ``obj``, a 1-d int64 array, into the next view of ``held``; its data, or NULL with the exception */
static void *take_held(PyObject *obj, Held *held, const char *name, int writable)
{
    if (take(obj, &held->views[held->n], name, KIND_INT, 8, 1, writable) < 0)
        return NULL;
    return held->views[held->n++].buf;
}

static PyObject *Policy_decide_games(Policy *self, PyObject *args)
{
    PyObject *arrays, *games_obj, *out_obj;
    Py_ssize_t lo, hi, c;
    if (!ready(self) || !PyArg_ParseTuple(args, "OOOnnn", &arrays, &games_obj, &out_obj, &lo, &hi, &c))
        return NULL;
    RB *p = &self->rb;
    if (c < 0 || c >= p->slices) {
        PyErr_Format(PyExc_ValueError, "slice %zd of a Policy made for %lld slices", c, (long long)p->slices);
        return NULL;
    }
    Held held = {.n = 0};
    Games s;
    if (games_from(arrays, &s, &held) < 0)
        return NULL;
    PyObject *result = NULL;
    const int64_t *games = take_held(games_obj, &held, "games", 0);
    if (games == NULL)
        goto done;
    Py_ssize_t n = held_shape(&held, 1, 0);
    int64_t *out = take_held(out_obj, &held, "out", 1);
    if (out == NULL)
        goto done;
    if (lo < 0 || hi < lo || hi > n || held_shape(&held, 1, 0) < hi) {
        PyErr_Format(PyExc_ValueError, "lo..hi = %zd..%zd is not a range of games[%zd] and out", lo, hi, n);
        goto done;
    }
    if (s.nids != p->r.nids || s.tricks != p->t.tricks || s.rounds != p->t.rounds) {
        PyErr_SetString(PyExc_ValueError, "the games' arrays are not of this Policy's rules");
        goto done;
    }
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    uint8_t *mask = scratch_of(p, c).mask;
    for (Py_ssize_t i = lo; i < hi; i++) {
        int64_t g = games[i];
        if (g < 0 || g >= s.n) {
            bad = i;
            break;
        }
        Game G = game_at(&s, g);
        legal_mask(&G, &p->t, mask);
        out[i] = rb_decide(p, c, &s, g, mask);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_IndexError, "games[%zd] = %lld is not a game of the %lld", bad, (long long)games[bad],
                     (long long)s.n);
        goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    release(&held);
    return result;
}

static void decision_destructor(PyObject *capsule)
{
    Py_XDECREF(PyCapsule_GetContext(capsule));
}

static PyObject *Policy_decision(Policy *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    PyObject *capsule = PyCapsule_New(&self->decision, DECISION_CAPSULE, decision_destructor);
    if (capsule == NULL)
        return NULL;
    /* The capsule holds a reference to this Policy (its context, dropped by the destructor): the Decision and the
       state it points at live as long as the capsule. */
    Py_INCREF(self);
    if (PyCapsule_SetContext(capsule, (PyObject *)self) < 0) {
        Py_DECREF(self);
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

static PyObject *Policy_get_slices(Policy *self, void *closure)
{
    return PyLong_FromLongLong(self->ready ? (long long)self->rb.slices : 0);
}

static PyMethodDef Policy_methods[] = {
    {"decide_games", (PyCFunction)Policy_decide_games, METH_VARARGS,
     "decide_games(arrays, games, out, lo, hi, c): for i in lo..hi-1, the agent's action for the seat to act in game "
     "games[i] of arrays (a layout.GameArrays) into out[i] (int64: an absolute id, or NO_ACTION, NOT_LEGAL, NO_RULE), "
     "from its legal mask; with slice c's scratch and the GIL released."},
    {"decision", (PyCFunction)Policy_decision, METH_NOARGS,
     "A PyCapsule named " DECISION_CAPSULE " holding this policy's Decision (engine.h); it keeps the policy alive."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Policy_getset[] = {
    {"slices", (getter)Policy_get_slices, NULL, "the slices the scratch serves (slice ids 0 .. slices - 1)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PolicyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "euchre_env.agents.rule_based._twin.Policy",
    .tp_basicsize = sizeof(Policy),
    .tp_dealloc = (destructor)Policy_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Policy(rule_tables, engine_tables, slices): the rule-based agent's decision for one rule set "
              "(compiled.RuleTables and the engine's layout.Tables), with the scratch of ``slices`` slices.",
    .tp_methods = Policy_methods,
    .tp_getset = Policy_getset,
    .tp_init = (initproc)Policy_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef twin_module = {
    PyModuleDef_HEAD_INIT, "_twin",
    "The rule-based agent's decisions in C (agents/rule_based/c/twin.c; reference: agent.py, heuristics.py).", -1,
    NULL,
};

PyMODINIT_FUNC PyInit__twin(void)
{
    if (PyType_Ready(&PolicyType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&twin_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PolicyType);
    if (PyModule_AddObject(m, "Policy", (PyObject *)&PolicyType) < 0) {
        Py_DECREF(&PolicyType);
        Py_DECREF(m);
        return NULL;
    }
    if ( PyModule_AddIntConstant(m, "NO_ACTION", NO_ACTION) < 0
        || PyModule_AddIntConstant(m, "NOT_LEGAL", NOT_LEGAL) < 0
        || PyModule_AddIntConstant(m, "NO_RULE", NO_RULE) < 0
        || PyModule_AddIntConstant(m, "N_IDS", N_IDS) < 0 || PyModule_AddIntConstant(m, "N_IOPT", N_IOPT) < 0
        || PyModule_AddIntConstant(m, "N_W", N_W) < 0 || PyModule_AddIntConstant(m, "KS_MASK", KS_MASK) < 0
        || PyModule_AddStringConstant(m, "DECISION_CAPSULE", DECISION_CAPSULE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
