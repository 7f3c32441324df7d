/* euchre_core: a C twin of euchre_env/compiled/one_game.py (game_start, game_deal, game_step,
   game_encode_seats) and what they call in rules.py, scoring.py, observe.py and deal.py, on the same five
   buffers (st int32 [1, NF], s8 int8, s16 int16, f32 float32, T int64 packed tables) with the same layout.

   Prototype for a build-time / speed comparison (experiments/c_core/README.md). The constants come from
   layout.h, generated from euchre_env.compiled.layout by gen_layout.py.

   Semantics kept from Numba:
   - Python's floor modulo: x % 4 and x % 2 are written x & 3 and x & 1 (equal for negative x in two's complement;
     C's % is not);
   - negative indices wrap (Numba's arrays, like NumPy's): WRAP() where an index may be -1 by the tables;
   - mixed int / float arithmetic in float64, stored as float32 (the observation's divisions);
   - int8 / int16 stores truncate (Numba casts on store, as C does). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "layout.h"

#define WRAP(i, n) ((i) < 0 ? (i) + (n) : (i))
#define LEFT(s) (((s) + 1) & 3)
#define PARTNER(s) (((s) + 2) & 3)
#define MAX_DEAL_WIDTH 64

typedef struct {
    PyObject_HEAD
    Py_buffer buf[5]; /* st, s8, s16, f32, T: held (their exporters stay alive and unresized) */
    int nbuf;
    int32_t *st;
    Py_ssize_t nf;
    int8_t *hands, *dealt, *tc, *ts, *mask;
    Py_ssize_t nmask;
    int16_t *calls, *history;
    float *obs, *raw, *amask;
    Py_ssize_t nobs, nraw, namask;
    const int64_t *T;
    const int64_t *opt, *tab, *akind, *aarg, *aalone, *eff, *power, *rank, *printed, *rnd, *off, *leader_at,
        *card_at, *rnd_off, *rnd_width, *col, *perms, *cands, *ncands, *to_abs;
    int64_t eff_c, power_r, power_c, card_at_c, col_c, perms_c, cands_c, to_abs_c, rank_n, printed_n;
    int64_t nids, tricks, rounds;
    int structured;
} Game;

/* =============================================================================== rules.py: helpers */
static inline int32_t next_active(const int32_t *st, int32_t s)
{
    int32_t n = LEFT(s);
    while (st[OUT + n])
        n = LEFT(n);
    return n;
}

static inline int32_t active_seats(const int32_t *st)
{
    return 4 - st[OUT] - st[OUT + 1] - st[OUT + 2] - st[OUT + 3];
}

static inline void set_phase(int32_t *st, int32_t phase, int32_t seat)
{
    st[PH] = phase;
    st[CUR] = seat;
}

/* cards.trick_winner: seat taking trick k so far (the first of equal cards wins) */
static inline int32_t trick_winner(const Game *G, int64_t k, int64_t ncards, int32_t trump)
{
    const int8_t *tc = G->tc + k * 4;
    const int64_t *effrow = G->eff + (int64_t)(trump + 1) * G->eff_c;
    const int64_t *pw = G->power + (int64_t)WRAP(trump, G->power_r) * G->power_c;
    int8_t first = tc[0];
    int64_t led = effrow[first];
    int64_t best = 0, best_key = pw[first];
    for (int64_t j = 1; j < ncards; j++) {
        int8_t c = tc[j];
        int64_t s = effrow[c];
        if (s == trump || s == led) {
            int64_t key = pw[c];
            if (key > best_key) {
                best = j;
                best_key = key;
            }
        }
    }
    return G->ts[k * 4 + best];
}

/* =============================================================================== dealing */
static void start_hand(Game *G, const int16_t *deal, Py_ssize_t width, int64_t upcard)
{
    int32_t *st = G->st;
    const int64_t *opt = G->opt;
    int64_t nids = opt[O_NIDS];
    for (int p = 0; p < 4; p++) {
        int8_t *hand = G->hands + p * G->nids;
        for (int64_t c = 0; c < nids; c++)
            hand[c] = 0;
        for (Py_ssize_t j = 0; j < width; j++) {
            int16_t c = deal[p * width + j];
            if (c >= 0)
                hand[c] = (int8_t)(hand[c] + 1);
        }
        for (int64_t c = 0; c < nids; c++)
            G->dealt[p * G->nids + c] = hand[c];
        st[OUT + p] = 0;
    }
    for (int64_t i = 0; i < 4 * G->rounds; i++)
        G->calls[i] = -1;
    st[UP] = (int32_t)upcard;
    st[UPSUIT] = -1;
    st[UPTAKEN] = 0;
    st[TDOWN] = 0;
    st[TRUMP] = -1;
    st[MAKER] = -1;
    st[MALONE] = 0;
    st[DEFALONE] = -1;
    st[SPK] = 0;
    st[DISC] = -1;
    st[NTR] = 0;
    st[NCUR] = 0;
    st[TW] = 0;
    st[TW + 1] = 0;
    st[NREN] = 0;
    st[CONTRACT] = -1;
    st[BIDDER] = -1;
    st[GIVEN] = -1;
    st[GIVENBACK] = -1;
    st[THROWN] = 0;
    st[CLAIMANT] = -1;
    st[GWIN] = -1;
    int32_t dealer = st[DEALER];
    int32_t first = LEFT(dealer);
    if (opt[O_BID]) {
        if (opt[O_JOKER] >= 0)
            set_phase(st, DISCARD, dealer);
        else
            set_phase(st, AUCTION, first);
    } else if (upcard == opt[O_JOKER]) {
        set_phase(st, JOKER_SUIT, dealer);
    } else {
        st[UPSUIT] = (int32_t)G->printed[WRAP(upcard, G->printed_n)];
        set_phase(st, CALL1, first);
    }
}

/* deals.deal_from_order: the pack in order dealt into cards [4, width]; returns the up-card */
static int64_t lay_out(const int64_t *order, int32_t dealer, int64_t tricks, int extra, int is_bid,
                       int16_t *cards, Py_ssize_t width)
{
    int32_t seat = dealer;
    int64_t pos = 0;
    for (int i = 0; i < 4; i++) {
        seat = LEFT(seat);
        for (int64_t j = 0; j < tricks; j++)
            cards[seat * width + j] = (int16_t)order[pos++];
    }
    if (extra)
        cards[WRAP(dealer, 4) * width + tricks] = (int16_t)order[pos++];
    return is_bid ? -1 : order[pos];
}

/* =============================================================================== legal actions */
static int ace_no_face_eligible(const Game *G, int32_t seat)
{
    const int64_t *opt = G->opt;
    const int8_t *dealt = G->dealt + seat * G->nids;
    int ace = 0;
    for (int64_t c = 0; c < opt[O_NIDS]; c++) {
        if (dealt[c] > 0 && c != opt[O_JOKER]) {
            int64_t r = G->rank[c];
            if (r == opt[O_JACK] || r == opt[O_QUEEN] || r == opt[O_KING])
                return 0;
            if (r == opt[O_ACE])
                ace = 1;
        }
    }
    return ace;
}

#define LM_NAME legal_mask_i8
#define LM_T int8_t
#define LM_HELD held_i8
#include "legal_mask.inc"
#define LM_NAME legal_mask_f32
#define LM_T float
#define LM_HELD held_f32
#include "legal_mask.inc"

/* =============================================================================== scoring.py */
static void score_hand(const int32_t *st, const int64_t *opt, int64_t *mp, int64_t *dp)
{
    int64_t tricks = opt[O_TRICKS];
    int64_t made = st[TW + (st[MAKER] & 1)];
    if (opt[O_BID]) {
        int64_t defenders = tricks - made;
        int64_t contract = st[CONTRACT];
        if (contract >= tricks) { /* help (2x) or moon (4x) */
            int64_t bonus = (contract == tricks ? 2 : 4) * tricks;
            *mp = made == tricks ? bonus : -tricks;
            *dp = defenders;
            return;
        }
        *mp = made >= contract ? made : -contract;
        *dp = defenders;
        return;
    }
    if (made < tricks / 2 + 1) { /* tricks > 0: C's / is Python's // */
        *mp = 0;
        *dp = st[DEFALONE] >= 0 ? 4 : 2;
        return;
    }
    *mp = made >= tricks ? (st[MALONE] ? 4 : 2) : 1;
    *dp = 0;
}

static int game_winner(int64_t s0, int64_t s1, const int64_t *opt)
{
    int64_t target = opt[O_TARGET];
    int64_t hi = s0 > s1 ? s0 : s1, lo = s0 < s1 ? s0 : s1;
    int ended = hi >= target || (opt[O_MINUS] && lo <= -target);
    if (!ended || s0 == s1)
        return -1;
    return s0 > s1 ? 0 : 1;
}

static int finish_hand(int32_t *st, const int64_t *opt, int32_t thrown, int32_t claimant)
{
    int64_t p0 = 0, p1 = 0;
    if (thrown == 0) {
        int64_t mp, dp;
        score_hand(st, opt, &mp, &dp);
        if (st[MAKER] & 1) {
            p0 = dp;
            p1 = mp;
        } else {
            p0 = mp;
            p1 = dp;
        }
    }
    int pen0 = 0, pen1 = 0;
    for (int32_t i = 0; i < st[NREN]; i++) {
        if (st[REN + i] & 1)
            pen1 = 1;
        else
            pen0 = 1;
    }
    p0 -= pen0 ? 2 : 0;
    p1 -= pen1 ? 2 : 0;
    st[SC] = (int32_t)(st[SC] + p0);
    st[SC + 1] = (int32_t)(st[SC + 1] + p1);
    st[RES_PTS] = (int32_t)p0;
    st[RES_PTS + 1] = (int32_t)p1;
    st[RES_SC] = st[SC];
    st[RES_SC + 1] = st[SC + 1];
    st[THROWN] = thrown;
    st[CLAIMANT] = claimant;
    st[PH] = HAND_OVER;
    st[CUR] = -1;
    int winner = game_winner(st[SC], st[SC + 1], opt);
    st[GWIN] = winner;
    if (winner < 0)
        return 1;
    if (!opt[O_RUBBER]) {
        st[WINNER] = winner;
        st[PH] = GAME_OVER;
        st[CUR] = -1;
        return 1;
    }
    int32_t loser_score = st[SC + 1 - winner];
    st[RP + winner] += loser_score <= 0 ? 3 : (loser_score <= 2 ? 2 : 1);
    st[GW + winner] += 1;
    if (st[GW + winner] == 2) {
        st[WINNER] = winner;
        st[RMARGIN] = st[RP + winner] + RUBBER_BONUS - st[RP + 1 - winner];
        st[PH] = GAME_OVER;
        st[CUR] = -1;
    } else {
        st[SC] = 0;
        st[SC + 1] = 0;
    }
    return 1;
}

/* =============================================================================== acting */
static void fix_trump(int32_t *st, int32_t seat, int64_t suit, int64_t alone)
{
    st[SPK] = 0;
    st[TRUMP] = (int32_t)suit;
    st[MAKER] = seat;
    st[MALONE] = (int32_t)alone;
    if (alone)
        st[OUT + PARTNER(seat)] = 1;
}

static int32_t next_defender(const int32_t *st, int32_t seat)
{
    while ((seat & 1) == (st[MAKER] & 1))
        seat = LEFT(seat);
    return seat;
}

static void start_play(int32_t *st)
{
    st[SPK] = 0;
    set_phase(st, PLAY, next_active(st, st[DEALER]));
}

static int after_trump_fixed(int32_t *st, const int64_t *opt)
{
    if (opt[O_DEFEND] && st[MALONE]) {
        set_phase(st, DEFEND, next_defender(st, LEFT(st[DEALER])));
        return 0;
    }
    start_play(st);
    return 0;
}

static inline int play(Game *G, int32_t seat, int64_t card)
{
    int32_t *st = G->st;
    const int64_t *opt = G->opt;
    int8_t *hand = G->hands + seat * G->nids;
    int32_t k = st[NTR];
    int32_t n = st[NCUR];
    int32_t trump = st[TRUMP];
    if (n > 0 && opt[O_PENALIZE]) {
        const int64_t *effrow = G->eff + (int64_t)(trump + 1) * G->eff_c;
        int64_t led = effrow[G->tc[k * 4]];
        if (effrow[card] != led) {
            int holds = 0, already = 0;
            for (int64_t c = 0; c < opt[O_NIDS]; c++)
                if (hand[c] > 0 && effrow[c] == led)
                    holds = 1;
            for (int32_t i = 0; i < st[NREN]; i++)
                if (st[REN + i] == seat)
                    already = 1;
            if (holds && !already) {
                st[REN + st[NREN]] = seat;
                st[NREN] += 1;
            }
        }
    }
    hand[card] = (int8_t)(hand[card] - 1);
    G->tc[k * 4 + n] = (int8_t)card;
    G->ts[k * 4 + n] = (int8_t)seat;
    n += 1;
    st[NCUR] = n;
    if (n < active_seats(st)) {
        set_phase(st, PLAY, next_active(st, seat));
        return 0;
    }
    int32_t winner = trick_winner(G, k, n, trump);
    st[TW + (winner & 1)] += 1;
    st[NTR] = k + 1;
    st[NCUR] = 0;
    if (k + 1 == opt[O_TRICKS])
        return finish_hand(st, opt, 0, -1);
    set_phase(st, PLAY, winner);
    return 0;
}

/* GameState.apply for a legal action (absolute id); returns 1 if the hand ended */
static inline int apply(Game *G, int64_t action)
{
    int32_t *st = G->st;
    const int64_t *opt = G->opt;
    int32_t p = st[PH];
    int32_t seat = st[CUR];
    int64_t kind = G->akind[action];
    int64_t arg = G->aarg[action];
    int64_t r = G->rnd[p];
    if (r >= 0) /* a calling round: the observation records each seat's call */
        G->calls[r * 4 + seat] = (int16_t)action;
    if (p == PLAY)
        return play(G, seat, arg);
    if (p == CALL1) {
        if (kind == K_PASS) {
            st[SPK] += 1;
            if (st[SPK] == 4) {
                st[SPK] = 0;
                st[TDOWN] = 1;
                set_phase(st, CALL2, LEFT(st[DEALER]));
            } else {
                set_phase(st, CALL1, LEFT(seat));
            }
            return 0;
        }
        fix_trump(st, seat, st[UPSUIT], G->aalone[action]);
        int32_t dealer = st[DEALER];
        if (st[OUT + dealer])
            return after_trump_fixed(st, opt);
        int8_t *h = G->hands + dealer * G->nids + st[UP];
        *h = (int8_t)(*h + 1);
        st[UPTAKEN] = 1;
        set_phase(st, DISCARD, dealer);
        return 0;
    }
    if (p == CALL2) {
        if (kind == K_PASS) {
            st[SPK] += 1;
            if (st[SPK] == 4)
                return finish_hand(st, opt, 1, -1);
            set_phase(st, CALL2, LEFT(seat));
            return 0;
        }
        fix_trump(st, seat, arg, G->aalone[action]);
        return after_trump_fixed(st, opt);
    }
    if (p == DISCARD) {
        G->hands[seat * G->nids + arg] -= 1;
        st[DISC] = (int32_t)arg;
        if (opt[O_BID]) {
            set_phase(st, AUCTION, LEFT(st[DEALER]));
            return 0;
        }
        return after_trump_fixed(st, opt);
    }
    if (p == DEFEND) {
        if (kind == K_DEFEND) {
            st[DEFALONE] = seat;
            st[OUT + PARTNER(seat)] = 1;
            start_play(st);
            return 0;
        }
        st[SPK] += 1;
        if (st[SPK] == 2) {
            start_play(st);
            return 0;
        }
        set_phase(st, DEFEND, next_defender(st, LEFT(seat)));
        return 0;
    }
    if (p == JOKER_SUIT) {
        st[UPSUIT] = (int32_t)arg;
        set_phase(st, CALL1, LEFT(st[DEALER]));
        return 0;
    }
    if (p == AUCTION) {
        if (kind == K_ANF)
            return finish_hand(st, opt, 2, seat);
        if (kind == K_BID) {
            st[CONTRACT] = (int32_t)arg;
            st[BIDDER] = seat;
        }
        st[SPK] += 1;
        int64_t tricks = opt[O_TRICKS];
        if (st[CONTRACT] == tricks + 1 || st[SPK] == 4) { /* moon, or everyone has spoken */
            st[SPK] = 0;
            if (st[CONTRACT] < 0)
                return finish_hand(st, opt, 1, -1);
            st[MAKER] = st[BIDDER];
            st[MALONE] = st[CONTRACT] >= tricks ? 1 : 0; /* help and moon play without the partner */
            set_phase(st, NAME_TRUMP, st[BIDDER]);
            return 0;
        }
        set_phase(st, AUCTION, LEFT(seat));
        return 0;
    }
    if (p == NAME_TRUMP) {
        st[TRUMP] = (int32_t)arg;
        if (st[CONTRACT] == opt[O_TRICKS]) { /* help */
            set_phase(st, GIVE, seat);
        } else {
            if (st[CONTRACT] == opt[O_TRICKS] + 1) /* moon */
                st[OUT + PARTNER(seat)] = 1;
            set_phase(st, PLAY, seat);
        }
        return 0;
    }
    if (p == GIVE) {
        G->hands[seat * G->nids + arg] -= 1;
        G->hands[PARTNER(seat) * G->nids + arg] += 1;
        st[GIVEN] = (int32_t)arg;
        set_phase(st, GIVE_BACK, PARTNER(seat));
        return 0;
    }
    if (p == GIVE_BACK) {
        G->hands[seat * G->nids + arg] -= 1;
        G->hands[st[BIDDER] * G->nids + arg] += 1;
        st[GIVENBACK] = (int32_t)arg;
        st[OUT + seat] = 1;
        set_phase(st, PLAY, st[BIDDER]);
        return 0;
    }
    return 0;
}

/* =============================================================================== observe.py */
static inline double clip(double x)
{
    /* min(max(x, -SCORE_BOUND), SCORE_BOUND) as Python's max / min (the first of equals) */
    double lo = -SCORE_BOUND;
    double m = lo > x ? lo : x;
    return SCORE_BOUND < m ? SCORE_BOUND : m;
}

static inline void add1(float *x, double d)
{
    *x = (float)((double)*x + d); /* float32 += float64: computed in float64, stored as float32 */
}

/* Observer.encode of seat (then with structured the structured observation's extra blocks) into raw */
static void encode(const Game *G, int32_t seat, float *raw, Py_ssize_t nraw, int structured)
{
    const int32_t *st = G->st;
    const int64_t *opt = G->opt, *off = G->off;
    const int8_t *tc = G->tc, *ts = G->ts;
    memset(raw, 0, (size_t)nraw * sizeof(float));
    int64_t nids = opt[O_NIDS];
    int32_t p = st[PH];
    raw[off[B_PHASE] + p] = 1.0f;
    raw[off[B_DEALER] + ((st[DEALER] - seat) & 3)] = 1.0f;
    if (p != HAND_OVER && p != GAME_OVER)
        raw[off[B_TO_ACT] + ((st[CUR] - seat) & 3)] = 1.0f;
    const int8_t *hand = G->hands + WRAP(seat, 4) * G->nids;
    for (int64_t c = 0; c < nids; c++)
        raw[off[B_HAND] + c] = (float)hand[c];
    for (int64_t r = 0; r < G->rounds; r++) {
        for (int w = 0; w < 4; w++) {
            int16_t a = G->calls[r * 4 + w];
            if (a >= 0)
                raw[G->rnd_off[r] + ((w - seat) & 3) * G->rnd_width[r] + G->col[r * G->col_c + a]] = 1.0f;
        }
    }
    int32_t up = st[UP];
    int32_t trump = st[TRUMP];
    if (up >= 0) {
        raw[off[B_UPCARD] + up] = 1.0f;
        if (st[UPSUIT] >= 0)
            raw[off[B_UPSUIT] + st[UPSUIT]] = 1.0f;
        if (st[UPTAKEN])
            raw[off[B_FATE]] = 1.0f;
        else if (st[TDOWN])
            raw[off[B_FATE] + 1] = 1.0f;
        else if (trump >= 0)
            raw[off[B_FATE] + 2] = 1.0f;
    }
    if (st[DISC] >= 0 && seat == st[DEALER])
        raw[off[B_DISCARD] + st[DISC]] = 1.0f;
    int32_t bidder = st[BIDDER];
    if (st[GIVEN] >= 0 && (seat == bidder || seat == PARTNER(bidder))) {
        raw[off[B_GIVEN] + st[GIVEN]] = 1.0f;
        if (st[GIVENBACK] >= 0)
            raw[off[B_GIVEN_BACK] + st[GIVENBACK]] = 1.0f;
    }
    if (trump >= 0)
        raw[off[B_TRUMP] + trump] = 1.0f;
    if (st[MAKER] >= 0)
        raw[off[B_MAKER] + ((st[MAKER] - seat) & 3)] = 1.0f;
    for (int q = 0; q < 4; q++)
        if (st[OUT + q])
            raw[off[B_OUT] + ((q - seat) & 3)] = 1.0f;
    int32_t ntr = st[NTR];
    int32_t ncur = st[NCUR];
    int32_t active = active_seats(st);
    int32_t nk = ntr + (ncur > 0 ? 1 : 0);
    for (int32_t k = 0; k < nk; k++) {
        int32_t cards = k < ntr ? active : ncur;
        raw[G->leader_at[k] + ((ts[k * 4] - seat) & 3)] = 1.0f;
        for (int32_t j = 0; j < cards; j++)
            raw[G->card_at[k * G->card_at_c + ((ts[k * 4 + j] - seat) & 3)] + tc[k * 4 + j]] = 1.0f;
    }
    int mine = seat & 1;
    double tricks = (double)opt[O_TRICKS];
    raw[off[B_TW]] = (float)((double)st[TW + mine] / tricks);
    raw[off[B_TW] + 1] = (float)((double)st[TW + 1 - mine] / tricks);
    double target = (double)opt[O_TARGET];
    raw[off[B_SCORES]] = (float)clip((double)st[SC + mine] / target);
    raw[off[B_SCORES] + 1] = (float)clip((double)st[SC + 1 - mine] / target);
    if (opt[O_RUBBER]) {
        raw[off[B_RUBBER]] = (float)((double)st[GW + mine] / 2.0);
        raw[off[B_RUBBER] + 1] = (float)((double)st[GW + 1 - mine] / 2.0);
        raw[off[B_RUBBER] + 2] = (float)((double)st[RP + mine] / 6.0);
        raw[off[B_RUBBER] + 3] = (float)((double)st[RP + 1 - mine] / 6.0);
    }
    if (!structured)
        return;
    /* ---- the structured observation's derived blocks, in absolute suits */
    const int64_t *effrow = G->eff + (int64_t)(trump + 1) * G->eff_c;
    if (ncur > 0) {
        for (int32_t j = 0; j < ncur; j++)
            raw[off[B_CT] + ((ts[ntr * 4 + j] - seat) & 3) * nids + tc[ntr * 4 + j]] = 1.0f;
        raw[off[B_LED] + effrow[tc[ntr * 4]]] = 1.0f;
        int w = (trick_winner(G, ntr, ncur, trump) - seat) & 3;
        raw[off[B_WINNING] + w] = 1.0f;
        if (w == 2)
            raw[off[B_PWIN]] = 1.0f;
    }
    int any_played = ntr > 0 || ncur > 0;
    int64_t copies = opt[O_COPIES];
    for (int64_t c = 0; c < nids; c++)
        raw[off[B_UNSEEN] + c] = (float)(copies - hand[c]);
    for (int32_t k = 0; k < nk; k++) {
        int32_t cards = k < ntr ? active : ncur;
        for (int32_t j = 0; j < cards; j++) {
            int8_t c = tc[k * 4 + j];
            add1(&raw[off[B_PLAYED] + c], 1.0);
            add1(&raw[off[B_UNSEEN] + c], -1.0);
        }
    }
    if (st[DISC] >= 0 && seat == st[DEALER])
        add1(&raw[off[B_UNSEEN] + st[DISC]], -1.0);
    if (up >= 0 && !st[UPTAKEN])
        add1(&raw[off[B_UNSEEN] + up], -1.0);
    if (any_played && trump >= 0) {
        for (int32_t k = 0; k < nk; k++) {
            int32_t cards = k < ntr ? active : ncur;
            int64_t led = effrow[tc[k * 4]];
            for (int32_t j = 1; j < cards; j++) {
                int32_t who = ts[k * 4 + j];
                if (who != seat && effrow[tc[k * 4 + j]] != led)
                    raw[off[B_VOIDS] + (((who - seat) & 3) - 1) * 4 + led] = 1.0f;
            }
        }
    }
    if (p == PLAY) {
        raw[off[B_TN] + ntr] = 1.0f;
        if (st[CUR] == seat && ncur == 0)
            raw[off[B_LEADS]] = 1.0f;
    }
}

/* StructuredObserver.encode_with_frame: the lexicographically largest candidate frame's encoding into out */
static int64_t canonical(const Game *G, const float *raw, int64_t ref, float *out, Py_ssize_t size)
{
    int64_t row = ref + 1;
    const int64_t *cands = G->cands + row * G->cands_c;
    int64_t best = cands[0];
    for (int64_t i = 1; i < G->ncands[row]; i++) {
        int64_t f = cands[i];
        const int64_t *pf = G->perms + f * G->perms_c, *pb = G->perms + best * G->perms_c;
        for (Py_ssize_t j = 0; j < size; j++) {
            float x = raw[pf[j]], y = raw[pb[j]];
            if (x != y) {
                if (x > y)
                    best = f;
                break;
            }
        }
    }
    const int64_t *perm = G->perms + best * G->perms_c;
    for (Py_ssize_t j = 0; j < size; j++)
        out[j] = raw[perm[j]];
    return best;
}

static inline int64_t reference_suit(const Game *G)
{
    int32_t trump = G->st[TRUMP];
    return trump >= 0 ? trump : (!G->opt[O_BID] ? G->st[UPSUIT] : -1);
}

/* observe.decide with with_obs = True */
static inline void decide(Game *G)
{
    int32_t *st = G->st;
    int32_t seat = st[CUR];
    if (!G->structured) {
        legal_mask_i8(G, G->mask, G->nmask);
        st[FRAME] = 0;
        encode(G, seat, G->obs, G->nobs, 0);
        return;
    }
    legal_mask_f32(G, G->amask, G->namask);
    encode(G, seat, G->raw, G->nraw, 1);
    int64_t frame = canonical(G, G->raw, reference_suit(G), G->obs, G->nobs);
    st[FRAME] = (int32_t)frame;
    const int64_t *to_abs = G->to_abs + frame * G->to_abs_c;
    for (Py_ssize_t a = 0; a < G->nmask; a++)
        G->mask[a] = G->amask[to_abs[a]] > 0;
}

/* =============================================================================== the Python type */
static int get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *kinds, int writable,
                      const char *name)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *fmt = view->format ? view->format : "B";
    if (*fmt == '<' || *fmt == '=' || *fmt == '@')
        fmt++;
    if (view->itemsize != itemsize || !strchr(kinds, *fmt) || fmt[1] != '\0') {
        PyErr_Format(PyExc_TypeError, "%s: wrong dtype (format %s, itemsize %zd)", name, view->format,
                     view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static void Game_release(Game *self)
{
    for (int i = 0; i < self->nbuf; i++)
        PyBuffer_Release(&self->buf[i]);
    self->nbuf = 0;
}

static void Game_dealloc(Game *self)
{
    Game_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Game_init(Game *self, PyObject *args, PyObject *kwds)
{
    PyObject *o[5];
    static const char *names[] = {"st", "s8", "s16", "f32", "T"};
    static const Py_ssize_t sizes[] = {4, 1, 2, 4, 8};
    static const char *kinds[] = {"il", "b", "h", "f", "qlQ"};
    if (!PyArg_ParseTuple(args, "OOOOO:Game", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return -1;
    Game_release(self);
    for (int i = 0; i < 5; i++) {
        if (get_buffer(o[i], &self->buf[i], sizes[i], kinds[i], i < 4, names[i]) < 0) {
            Game_release(self);
            return -1;
        }
        self->nbuf = i + 1;
    }
    Py_buffer *b = self->buf;
    if (b[0].ndim != 2 || b[0].shape[0] < 1) {
        PyErr_SetString(PyExc_ValueError, "st: [1, NF] expected");
        Game_release(self);
        return -1;
    }
    const int64_t *T = self->T = (const int64_t *)b[4].buf;
    Py_ssize_t nT = b[4].len / 8;
    if (nT < P_HEADER) {
        PyErr_SetString(PyExc_ValueError, "T: too short");
        Game_release(self);
        return -1;
    }
    for (int i = 0; i < N_PACKED_TABLES; i++) {
        if (T[3 * i] < P_HEADER || T[3 * i] + T[3 * i + 1] * T[3 * i + 2] > nT) {
            PyErr_SetString(PyExc_ValueError, "T: a table out of range");
            Game_release(self);
            return -1;
        }
    }
#define TAB(i) (T + T[3 * (i)])
    self->opt = TAB(P_OPT);
    self->tab = TAB(P_TAB);
    self->akind = TAB(P_AKIND);
    self->aarg = TAB(P_AARG);
    self->aalone = TAB(P_AALONE);
    self->eff = TAB(P_EFF);
    self->power = TAB(P_POWER);
    self->rank = TAB(P_RANK);
    self->printed = TAB(P_PRINTED);
    self->rnd = TAB(P_RND);
    self->off = TAB(P_OFF);
    self->leader_at = TAB(P_LEADER_AT);
    self->card_at = TAB(P_CARD_AT);
    self->rnd_off = TAB(P_RND_OFF);
    self->rnd_width = TAB(P_RND_WIDTH);
    self->col = TAB(P_COL);
    self->perms = TAB(P_PERMS);
    self->cands = TAB(P_CANDS);
    self->ncands = TAB(P_NCANDS);
    self->to_abs = TAB(P_TO_ABS);
#undef TAB
    self->eff_c = T[3 * P_EFF + 2];
    self->power_r = T[3 * P_POWER + 1];
    self->power_c = T[3 * P_POWER + 2];
    self->card_at_c = T[3 * P_CARD_AT + 2];
    self->col_c = T[3 * P_COL + 2];
    self->perms_c = T[3 * P_PERMS + 2];
    self->cands_c = T[3 * P_CANDS + 2];
    self->to_abs_c = T[3 * P_TO_ABS + 2];
    self->rank_n = T[3 * P_RANK + 1] * T[3 * P_RANK + 2];
    self->printed_n = T[3 * P_PRINTED + 1] * T[3 * P_PRINTED + 2];
    self->structured = T[P_STRUCTURED] != 0;
    /* _unpack: the one game's views */
    int64_t n = self->nids = self->opt[O_NIDS], k = self->tricks = self->opt[O_TRICKS];
    int64_t h = 4 * n, t = 4 * k;
    int64_t rounds = self->rounds = T[3 * P_RND_OFF + 2];
    int64_t size = self->structured ? self->off[B_SIZE] : self->off[B_BASE_SIZE];
    int64_t rawsize = self->off[B_SIZE];
    self->st = (int32_t *)b[0].buf;
    self->nf = b[0].shape[1];
    int8_t *s8 = (int8_t *)b[1].buf;
    int16_t *s16 = (int16_t *)b[2].buf;
    float *f32 = (float *)b[3].buf;
    Py_ssize_t n8 = b[1].len, n16 = b[2].len / 2, n32 = b[3].len / 4;
    if (2 * h + 2 * t > n8 || 4 * rounds + 1 > n16 || size + rawsize > n32 || self->nf < NF) {
        PyErr_SetString(PyExc_ValueError, "a buffer is too short for these tables");
        Game_release(self);
        return -1;
    }
    self->hands = s8;
    self->dealt = s8 + h;
    self->tc = s8 + 2 * h;
    self->ts = s8 + 2 * h + t;
    self->mask = s8 + 2 * h + 2 * t;
    self->nmask = n8 - (2 * h + 2 * t);
    self->calls = s16;
    self->history = s16 + 4 * rounds;
    self->obs = f32;
    self->nobs = size;
    self->raw = f32 + size;
    self->nraw = rawsize;
    self->amask = f32 + size + rawsize;
    self->namask = n32 - size - rawsize;
    return 0;
}

static inline int game_start(Game *G, const int16_t *deal, Py_ssize_t width, int64_t upcard, int new_game,
                             int64_t score0, int64_t score1)
{
    int32_t *st = G->st;
    if (new_game) {
        int32_t dealer = st[DEALER];
        for (Py_ssize_t f = 0; f < G->nf; f++)
            st[f] = 0;
        st[DEALER] = dealer;
        st[WINNER] = -1;
        st[SC] = (int32_t)score0;
        st[SC + 1] = (int32_t)score1;
    }
    G->history[0] = 0;
    start_hand(G, deal, width, upcard);
    decide(G);
    return st[CUR];
}

static int ready(Game *self)
{
    if (self->nbuf == 5)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "Game not initialised");
    return 0;
}

/* start(deal, upcard, new_game, score0, score1): game_start (deal: int16 [4, width], -1 padded) */
static PyObject *Game_start(Game *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "start(deal, upcard, new_game, score0, score1)");
        return NULL;
    }
    if (!ready(self))
        return NULL;
    Py_buffer d;
    if (get_buffer(args[0], &d, 2, "h", 0, "deal") < 0)
        return NULL;
    if (d.ndim != 2 || d.shape[0] != 4) {
        PyBuffer_Release(&d);
        PyErr_SetString(PyExc_ValueError, "deal: [4, width] expected");
        return NULL;
    }
    long long upcard = PyLong_AsLongLong(args[1]);
    int new_game = PyObject_IsTrue(args[2]);
    long long s0 = PyLong_AsLongLong(args[3]), s1 = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred() || new_game < 0) {
        PyBuffer_Release(&d);
        return NULL;
    }
    int r = game_start(self, (const int16_t *)d.buf, d.shape[1], upcard, new_game, s0, s1);
    PyBuffer_Release(&d);
    return PyLong_FromLong(r);
}

/* deal(order, new_game, score0, score1): game_deal (order: the pack's card ids, int64) */
static PyObject *Game_deal(Game *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "deal(order, new_game, score0, score1)");
        return NULL;
    }
    if (!ready(self))
        return NULL;
    Py_buffer o;
    if (get_buffer(args[0], &o, 8, "qlQL", 0, "order") < 0)
        return NULL;
    int new_game = PyObject_IsTrue(args[1]);
    long long s0 = PyLong_AsLongLong(args[2]), s1 = PyLong_AsLongLong(args[3]);
    const int64_t *opt = self->opt;
    int64_t tricks = opt[O_TRICKS];
    int extra = opt[O_BID] != 0 && opt[O_JOKER] >= 0;
    int64_t width = tricks + extra;
    if (PyErr_Occurred() || new_game < 0 || width > MAX_DEAL_WIDTH || o.len / 8 < 4 * tricks + extra + (opt[O_BID] ? 0 : 1)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "deal: order too short or hands too wide");
        PyBuffer_Release(&o);
        return NULL;
    }
    int16_t cards[4 * MAX_DEAL_WIDTH];
    for (int64_t i = 0; i < 4 * width; i++)
        cards[i] = -1;
    int64_t upcard = lay_out((const int64_t *)o.buf, self->st[DEALER], tricks, extra, opt[O_BID] != 0, cards,
                             width);
    PyBuffer_Release(&o);
    return PyLong_FromLong(game_start(self, cards, width, upcard, new_game, s0, s1));
}

/* step(action): game_step. Returns the seat to act, -1 if the hand ended, -2 (nothing changed) if illegal. */
static PyObject *Game_step(Game *self, PyObject *arg)
{
    long action = PyLong_AsLong(arg);
    if (action == -1 && PyErr_Occurred())
        return NULL;
    if (!ready(self))
        return NULL;
    Py_ssize_t na = self->nmask;
    if (action < 0)
        action += na; /* Numba's negative index */
    if (action < 0 || action >= na || action >= self->to_abs_c) {
        PyErr_SetString(PyExc_IndexError, "action out of range");
        return NULL;
    }
    if (!self->mask[action])
        return PyLong_FromLong(-2);
    int32_t *st = self->st;
    int64_t a = self->to_abs[st[FRAME] * self->to_abs_c + action];
    int16_t *history = self->history;
    history[0] = (int16_t)(history[0] + 1);
    history[history[0]] = (int16_t)a;
    if (apply(self, a))
        return PyLong_FromLong(-1);
    decide(self);
    return PyLong_FromLong(st[CUR]);
}

/* encode_seats(out): game_encode_seats (out: float32 [4, obs size]) */
static PyObject *Game_encode_seats(Game *self, PyObject *arg)
{
    if (!ready(self))
        return NULL;
    Py_buffer o;
    if (get_buffer(arg, &o, 4, "f", 1, "out") < 0)
        return NULL;
    if (o.ndim != 2 || o.shape[0] < 4 || o.shape[1] < self->nobs) {
        PyBuffer_Release(&o);
        PyErr_SetString(PyExc_ValueError, "out: [4, obs size] expected");
        return NULL;
    }
    Py_ssize_t width = o.shape[1];
    float *out = (float *)o.buf;
    for (int seat = 0; seat < 4; seat++) {
        float *row = out + seat * width;
        if (self->structured) {
            encode(self, seat, self->raw, self->nraw, 1);
            canonical(self, self->raw, reference_suit(self), row, width);
        } else {
            encode(self, seat, row, width, 0);
        }
    }
    PyBuffer_Release(&o);
    Py_RETURN_NONE;
}

static PyMethodDef Game_methods[] = {
    {"start", (PyCFunction)(void (*)(void))Game_start, METH_FASTCALL,
     "start(deal, upcard, new_game, score0, score1) -> seat: one_game.game_start"},
    {"deal", (PyCFunction)(void (*)(void))Game_deal, METH_FASTCALL,
     "deal(order, new_game, score0, score1) -> seat: one_game.game_deal"},
    {"step", (PyCFunction)Game_step, METH_O, "step(action) -> seat / -1 / -2: one_game.game_step"},
    {"encode_seats", (PyCFunction)Game_encode_seats, METH_O, "encode_seats(out): one_game.game_encode_seats"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GameType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "euchre_core.Game",
    .tp_basicsize = sizeof(Game),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Game(st, s8, s16, f32, T): the one-game kernels of euchre_env.compiled.one_game on these buffers",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Game_init,
    .tp_dealloc = (destructor)Game_dealloc,
    .tp_methods = Game_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "euchre_core", "C twin of the one-game kernels", -1,
                                    NULL};

PyMODINIT_FUNC PyInit_euchre_core(void)
{
    if (PyType_Ready(&GameType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&GameType);
    if (PyModule_AddObject(m, "Game", (PyObject *)&GameType) < 0) {
        Py_DECREF(&GameType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
