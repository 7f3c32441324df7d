/* The compiled engine: the reference engine's rules (euchre_env/game/engine.py, scoring.py) and observers
   (euchre_env/views/observation.py, structured.py) on the arrays of euchre_env/compiled/layout.py, in C.

   The types every extension that steps games shares come first, then the functions. Every function is static:
   each extension that includes this header (the core, the rule-based agent's twin) compiles its own copy of the
   rules it calls. Proven equal to the reference engine by tests/differential/ (test_vector_euchre_vs_engine.py,
   test_compiled_game_vs_engine.py, through kernels_vs_engine.py).

   - Tables: the int64 tables of one rule set and observation (layout.Tables / tables.KernelTables), as
     pointers and row widths. Filled once per env from the Python bundle (arrays.h).
   - Games: a batch's state arrays (layout.GameArrays); Game: one game's rows of them (game_at(s, g)).
   - A mask is uint8 0/1 (NumPy bool and int8 masks alike).
   - Decision: an agent's compiled decision (its twin), as the env's whole single-seat step calls it, handed
     over in a PyCapsule named DECISION_CAPSULE by the agent's extension: the env never links the agent. */
#ifndef EUCHRE_ENGINE_H
#define EUCHRE_ENGINE_H

#include <stdint.h>
#include <string.h>

#include "layout.h"

typedef struct {
    const int64_t *opt, *tab, *akind, *aarg, *aalone, *eff, *power, *rank, *printed, *rnd, *off, *leader_at,
        *card_at, *rnd_off, *rnd_width, *col, *perms, *cands, *ncands, *to_abs;
    /* row widths of the 2-d tables, and the lengths a -1 index wraps around (NumPy's and Numba's indexing) */
    int64_t eff_c, power_r, power_c, card_at_c, col_c, perms_c, cands_c, to_abs_c, rank_n, printed_n;
    int64_t nids, tricks, rounds; /* cards ids, tricks a hand, calling rounds (from opt and the tables) */
    int64_t n_actions;            /* len(akind) */
    int64_t obs_size;             /* the observation the env returns: off[B_SIZE] or off[B_BASE_SIZE] */
    int64_t raw_size;             /* off[B_SIZE]: the scratch encoding's size */
    int structured;               /* the structured observation (else the absolute one) */
    int64_t identity;             /* the frame whose ids are the absolute ones */
} Tables;

typedef struct {
    int32_t *st;                 /* [games, NF] */
    int8_t *hands, *dealt;       /* [games, 4, nids] */
    int8_t *tc, *ts;             /* [games, tricks, 4] */
    int16_t *calls;              /* [games, rounds, 4] */
    int64_t n, nids, tricks, rounds;
} Games;

typedef struct {
    int32_t *st;                 /* [NF] */
    int8_t *hands, *dealt;       /* [4, nids] */
    int8_t *tc, *ts;             /* [tricks, 4] */
    int16_t *calls;              /* [rounds, 4] */
} Game;

static inline Game game_at(const Games *s, int64_t g)
{
    Game G;
    G.st = s->st + g * NF;
    G.hands = s->hands + g * 4 * s->nids;
    G.dealt = s->dealt + g * 4 * s->nids;
    G.tc = s->tc + g * s->tricks * 4;
    G.ts = s->ts + g * s->tricks * 4;
    G.calls = s->calls + g * s->rounds * 4;
    return G;
}

/* An agent's compiled decision: ``decide(policy, slice, s, g, mask)`` -> the absolute action id the agent takes
   for the seat to act in game g (mask: its legal actions, absolute ids), or a negative code (the agent's own:
   the driver stops that game and reports it). ``slice`` indexes the policy's per-thread scratch; slices are
   0 .. the count the policy was made for - 1. */
typedef int64_t (*decide_fn)(void *policy, int64_t slice, const Games *s, int64_t g, const uint8_t *mask);

typedef struct {
    decide_fn decide;
    void *policy;
} Decision;

#define DECISION_CAPSULE "euchre_env.decision"

/* ---- the functions below, the reference's methods they port (engine.py's and the observers', by name) ----
   static int32_t trick_winner(const Game *G, const Tables *t, int64_t k, int64_t ncards, int64_t trump);
   static void start_hand(Game *G, const int16_t *deal, int64_t width, int64_t upcard, const Tables *t);
   static void legal_mask(const Game *G, const Tables *t, uint8_t *mask);            (absolute ids, zeroed first)
   static int ace_no_face_eligible(const Game *G, int64_t seat, const Tables *t);
   static int apply(Game *G, int64_t action, const Tables *t);                        (1: the hand ended)
   static void encode(const Game *G, int64_t seat, const Tables *t, float *raw, int structured);
   static void decide(Game *G, float *obs, uint8_t *mask, float *raw, uint8_t *amask, const Tables *t,
                      int with_obs);                                                  (sets st[FRAME])
   static void encode_seat(const Game *G, int64_t seat, float *out, float *raw, const Tables *t);
   and likewise game/scoring.py's (score_hand, game_winner, finish_hand), game/deals.py's (shuffle, lay_out,
   deal_on), compiled/seeding.py's streams (stream_uniforms) and envs/episodes.py's hand_outcome.
*/

/* =================================================================================================== the rules
   Ported from the Numba twin, which was proven equal to the reference engine, and kept bit-equal to it:
   - Python's floor modulo: x % 4 and x % 2 are written x & 3 and x & 1 (equal for negative x in two's complement,
     where C's % is not);
   - NumPy's and Numba's negative indices wrap: WRAP() where a table entry may be -1 (tab[T_PASS] and friends,
     printed[upcard], power[trump]);
   - mixed int / float arithmetic in float64, stored as float32 (the observation's divisions and increments);
   - int8 / int16 stores truncate, as Numba's casts on store do. */

#define WRAP(i, n) ((i) < 0 ? (i) + (n) : (i))
#if defined(_MSC_VER) /* MSVC's C spells C99's restrict its own way */
#define RESTRICT __restrict
#else
#define RESTRICT restrict
#endif
#define LEFT(s) (((s) + 1) & 3)
#define PARTNER(s) (((s) + 2) & 3)

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

/* cards.trick_winner: the seat taking trick k so far (the first of equal cards wins) */
static inline int32_t trick_winner(const Game *G, const Tables *t, int64_t k, int64_t ncards, int64_t trump)
{
    const int8_t *tc = G->tc + k * 4;
    const int64_t *effrow = t->eff + (trump + 1) * t->eff_c;
    const int64_t *pw = t->power + WRAP(trump, t->power_r) * t->power_c;
    int64_t led = effrow[tc[0]];
    int64_t best = 0, best_key = pw[tc[0]];
    for (int64_t j = 1; j < ncards; j++) {
        int64_t s = effrow[tc[j]];
        if (s == trump || s == led) {
            int64_t key = pw[tc[j]];
            if (key > best_key) {
                best = j;
                best_key = key;
            }
        }
    }
    return G->ts[k * 4 + best];
}

/* GameState._start_hand: deal [4, width] (-1 padded) its cards, upcard (-1: none); st[DEALER] set */
static void start_hand(Game *G, const int16_t *deal, int64_t width, int64_t upcard, const Tables *t)
{
    int32_t *st = G->st;
    const int64_t *opt = t->opt;
    int64_t nids = t->nids;
    for (int p = 0; p < 4; p++) {
        int8_t *hand = G->hands + p * nids;
        for (int64_t c = 0; c < nids; c++)
            hand[c] = 0;
        for (int64_t j = 0; j < width; j++) {
            int16_t c = deal[p * width + j];
            if (c >= 0)
                hand[c] = (int8_t)(hand[c] + 1);
        }
        memcpy(G->dealt + p * nids, hand, (size_t)nids);
        st[OUT + p] = 0;
    }
    for (int64_t i = 0; i < 4 * t->rounds; i++)
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
    if (opt[O_BID]) {
        if (opt[O_JOKER] >= 0)
            set_phase(st, DISCARD, dealer);
        else
            set_phase(st, AUCTION, LEFT(dealer));
    } else if (upcard == opt[O_JOKER]) {
        set_phase(st, JOKER_SUIT, dealer);
    } else {
        st[UPSUIT] = (int32_t)t->printed[WRAP(upcard, t->printed_n)];
        set_phase(st, CALL1, LEFT(dealer));
    }
}

/* GameState.ace_no_face_eligible: dealt at least one ace and no J, Q or K (the joker is no face) */
static int ace_no_face_eligible(const Game *G, int64_t seat, const Tables *t)
{
    const int64_t *opt = t->opt;
    const int8_t *dealt = G->dealt + WRAP(seat, 4) * t->nids;
    int ace = 0;
    for (int64_t c = 0; c < t->nids; c++) {
        if (dealt[c] > 0 && c != opt[O_JOKER]) {
            int64_t r = t->rank[c];
            if (r == opt[O_JACK] || r == opt[O_QUEEN] || r == opt[O_KING])
                return 0;
            if (r == opt[O_ACE])
                ace = 1;
        }
    }
    return ace;
}

/* engine._unique_ids(base, hand): the ids base + card of every card held (the block is this kind's alone) */
static inline void held_ids(const int8_t *hand, int64_t nids, int64_t base, uint8_t *mask)
{
    for (int64_t c = 0; c < nids; c++)
        mask[base + c] = hand[c] > 0;
}

/* GameState._compute_legal as a 0/1 mask over the absolute ids (t->n_actions of them, zeroed first) */
static void legal_mask(const Game *G, const Tables *t, uint8_t *mask)
{
    const int32_t *st = G->st;
    const int64_t *opt = t->opt, *tab = t->tab;
    int64_t na = t->n_actions, nids = t->nids;
    memset(mask, 0, (size_t)na);
    int32_t p = st[PH];
    int32_t seat = st[CUR];
    const int8_t *hand = G->hands + WRAP(seat, 4) * nids;
    if (p == PLAY) {
        int64_t base = tab[T_PLAY];
        int32_t trump = st[TRUMP];
        if (st[NCUR] > 0 && !opt[O_RENEGE]) {
            const int64_t *effrow = t->eff + (int64_t)(trump + 1) * t->eff_c;
            int64_t led = effrow[G->tc[st[NTR] * 4]];
            int64_t follows = 0;
            for (int64_t c = 0; c < nids; c++) { /* branch-free: a held card's suit is as good as random */
                int f = (hand[c] > 0) & (effrow[c] == led);
                mask[base + c] = (uint8_t)f;
                follows += f;
            }
            if (follows)
                return;
        }
        held_ids(hand, nids, base, mask);
    } else if (p == CALL1) {
        mask[WRAP(tab[T_PASS], na)] = 1;
        if (opt[O_DEALER_PARTNER_MUST_GO_ALONE] && seat == PARTNER(st[DEALER])) {
            mask[WRAP(tab[T_ORDER_ALONE], na)] = 1;
            return;
        }
        mask[WRAP(tab[T_ORDER], na)] = 1;
        if (tab[T_ORDER_ALONE] >= 0)
            mask[tab[T_ORDER_ALONE]] = 1;
    } else if (p == CALL2) {
        if (!(seat == st[DEALER] && opt[O_STICK_THE_DEALER]))
            mask[WRAP(tab[T_PASS], na)] = 1;
        for (int u = 0; u < 4; u++) {
            if (u != st[UPSUIT]) {
                mask[tab[T_NAME] + u] = 1;
                if (tab[T_NAME_ALONE] >= 0)
                    mask[tab[T_NAME_ALONE] + u] = 1;
            }
        }
    } else if (p == DISCARD) {
        held_ids(hand, nids, tab[T_DISCARD], mask);
    } else if (p == DEFEND) {
        mask[WRAP(tab[T_PASS], na)] = 1;
        mask[WRAP(tab[T_DEFEND], na)] = 1;
    } else if (p == JOKER_SUIT || p == NAME_TRUMP) {
        for (int u = 0; u < 4; u++)
            mask[tab[T_NAME] + u] = 1;
    } else if (p == AUCTION) {
        if (!(opt[O_STICK_THE_DEALER] && seat == st[DEALER] && st[CONTRACT] < 0))
            mask[WRAP(tab[T_PASS], na)] = 1;
        if (tab[T_ANF] >= 0 && ace_no_face_eligible(G, seat, t))
            mask[tab[T_ANF]] = 1;
        int64_t floor_ = st[CONTRACT] >= 0 ? st[CONTRACT] : 0;
        for (int64_t i = 0; i < tab[T_NBIDS]; i++)
            if (t->aarg[tab[T_BID] + i] > floor_)
                mask[tab[T_BID] + i] = 1;
    } else if (p == GIVE) {
        held_ids(hand, nids, tab[T_GIVE], mask);
    } else if (p == GIVE_BACK) {
        int32_t given = st[GIVEN];
        int32_t trump = st[TRUMP];
        const int64_t *effrow = t->eff + (int64_t)(trump + 1) * t->eff_c;
        const int64_t *pw = t->power + WRAP(trump, t->power_r) * t->power_c;
        int64_t best = -1;
        for (int64_t c = 0; c < nids; c++) {
            int held = hand[c] - (c == given ? 1 : 0); /* the partner gives from its own cards */
            if (held > 0 && effrow[c] == trump && (best < 0 || pw[c] > pw[best]))
                best = c;
        }
        if (best >= 0) {
            mask[tab[T_GIVE] + best] = 1;
            return;
        }
        for (int64_t c = 0; c < nids; c++)
            if (hand[c] - (c == given ? 1 : 0) > 0)
                mask[tab[T_GIVE] + c] = 1;
    }
}

/* ------------------------------------------------------------------------------------------- game/scoring.py */
/* scoring.score_hand: the makers' and the defenders' points */
static void score_hand(const int32_t *st, const int64_t *opt, int64_t *mp, int64_t *dp)
{
    int64_t tricks = opt[O_TRICKS];
    int64_t made = st[TW + (st[MAKER] & 1)];
    if (opt[O_BID]) {
        int64_t contract = st[CONTRACT];
        *dp = tricks - made;
        if (contract >= tricks) /* help (2x) or moon (4x) */
            *mp = made == tricks ? (contract == tricks ? 2 : 4) * tricks : -tricks;
        else
            *mp = made >= contract ? made : -contract;
        return;
    }
    if (made < tricks / 2 + 1) { /* tricks > 0: C's / is Python's // here */
        *mp = 0;
        *dp = st[DEFALONE] >= 0 || (st[MALONE] && opt[O_EUCHRED_LONER_FOUR]) ? 4 : 2;
        return;
    }
    *mp = made >= tricks ? (st[MALONE] ? 4 : 2) : 1;
    *dp = 0;
}

/* the team that won the game at scores s0 / s1, -1: none yet */
static int game_winner(int64_t s0, int64_t s1, const int64_t *opt)
{
    int64_t target = opt[O_GAME_TARGET];
    int64_t hi = s0 > s1 ? s0 : s1, lo = s0 < s1 ? s0 : s1;
    int ended = hi >= target || (opt[O_MINUS_TARGET_LOSES] && lo <= -target);
    if (!ended || s0 == s1)
        return -1;
    return s0 > s1 ? 0 : 1;
}

/* GameState._finish_hand and _check_game_end (thrown: 0 played, 1 all passed, 2 ace no face); returns 1 */
static int finish_hand(int32_t *st, const Tables *t, int32_t thrown, int32_t claimant)
{
    const int64_t *opt = t->opt;
    int64_t p0 = 0, p1 = 0;
    if (thrown == 0) {
        int64_t mp, dp;
        score_hand(st, opt, &mp, &dp);
        p0 = st[MAKER] & 1 ? dp : mp;
        p1 = st[MAKER] & 1 ? mp : dp;
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
    set_phase(st, HAND_OVER, -1);
    int winner = game_winner(st[SC], st[SC + 1], opt);
    st[GWIN] = winner;
    if (winner < 0)
        return 1;
    if (!opt[O_RUBBER]) {
        st[WINNER] = winner;
        set_phase(st, GAME_OVER, -1);
        return 1;
    }
    int32_t loser_score = st[SC + 1 - winner];
    st[RP + winner] += loser_score <= 0 ? 3 : (loser_score <= 2 ? 2 : 1);
    st[GW + winner] += 1;
    if (st[GW + winner] == 2) {
        st[WINNER] = winner;
        st[RMARGIN] = st[RP + winner] + RUBBER_BONUS - st[RP + 1 - winner];
        set_phase(st, GAME_OVER, -1);
    } else {
        st[SC] = 0;
        st[SC + 1] = 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------------ acting */
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
    if (opt[O_DEFEND_ALONE] && st[MALONE]) {
        set_phase(st, DEFEND, next_defender(st, LEFT(st[DEALER])));
        return 0;
    }
    start_play(st);
    return 0;
}

static inline int play_card(Game *G, int32_t seat, int64_t card, const Tables *t)
{
    int32_t *st = G->st;
    const int64_t *opt = t->opt;
    int8_t *hand = G->hands + seat * t->nids;
    int32_t k = st[NTR];
    int32_t n = st[NCUR];
    int32_t trump = st[TRUMP];
    if (n > 0 && opt[O_RENEGE]) {
        const int64_t *effrow = t->eff + (int64_t)(trump + 1) * t->eff_c;
        int64_t led = effrow[G->tc[k * 4]];
        if (effrow[card] != led) {
            int holds = 0, already = 0;
            for (int64_t c = 0; c < t->nids; c++)
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
    int32_t winner = trick_winner(G, t, k, n, trump);
    st[TW + (winner & 1)] += 1;
    st[NTR] = k + 1;
    st[NCUR] = 0;
    if (k + 1 == opt[O_TRICKS])
        return finish_hand(st, t, 0, -1);
    set_phase(st, PLAY, winner);
    return 0;
}

static inline void move_card(Game *G, const Tables *t, int64_t from, int64_t to, int64_t card)
{
    int8_t *a = G->hands + from * t->nids + card, *b = G->hands + to * t->nids + card;
    *a = (int8_t)(*a - 1);
    *b = (int8_t)(*b + 1);
}

/* GameState.apply for a legal action (absolute id); returns 1 if the hand ended */
static inline int apply(Game *G, int64_t action, const Tables *t)
{
    int32_t *st = G->st;
    const int64_t *opt = t->opt;
    int32_t p = st[PH];
    int32_t seat = st[CUR];
    int64_t kind = t->akind[action];
    int64_t arg = t->aarg[action];
    int64_t r = t->rnd[p];
    if (r >= 0) /* a calling round: the observation records each seat's call */
        G->calls[r * 4 + seat] = (int16_t)action;
    if (p == PLAY)
        return play_card(G, seat, arg, t);
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
        fix_trump(st, seat, st[UPSUIT], t->aalone[action]);
        int32_t dealer = st[DEALER];
        if (st[OUT + dealer])
            return after_trump_fixed(st, opt);
        int8_t *h = G->hands + dealer * t->nids + st[UP];
        *h = (int8_t)(*h + 1);
        st[UPTAKEN] = 1;
        set_phase(st, DISCARD, dealer);
        return 0;
    }
    if (p == CALL2) {
        if (kind == K_PASS) {
            st[SPK] += 1;
            if (st[SPK] == 4)
                return finish_hand(st, t, 1, -1);
            set_phase(st, CALL2, LEFT(seat));
            return 0;
        }
        fix_trump(st, seat, arg, t->aalone[action]);
        return after_trump_fixed(st, opt);
    }
    if (p == DISCARD) {
        int8_t *h = G->hands + seat * t->nids + arg;
        *h = (int8_t)(*h - 1);
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
            return finish_hand(st, t, 2, seat);
        if (kind == K_BID) {
            st[CONTRACT] = (int32_t)arg;
            st[BIDDER] = seat;
        }
        st[SPK] += 1;
        int64_t tricks = opt[O_TRICKS];
        if (st[CONTRACT] == tricks + 1 || st[SPK] == 4) { /* moon, or everyone has spoken */
            st[SPK] = 0;
            if (st[CONTRACT] < 0)
                return finish_hand(st, t, 1, -1);
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
        move_card(G, t, seat, PARTNER(seat), arg);
        st[GIVEN] = (int32_t)arg;
        set_phase(st, GIVE_BACK, PARTNER(seat));
        return 0;
    }
    if (p == GIVE_BACK) {
        move_card(G, t, seat, st[BIDDER], arg);
        st[GIVENBACK] = (int32_t)arg;
        st[OUT + seat] = 1;
        set_phase(st, PLAY, st[BIDDER]);
        return 0;
    }
    return 0;
}

/* ================================================================= views/observation.py, views/structured.py */
/* min(max(x, -SCORE_BOUND), SCORE_BOUND) as Python's max / min take it (the first of equals) */
static inline double clip_score(double x)
{
    double m = -SCORE_BOUND > x ? -SCORE_BOUND : x;
    return SCORE_BOUND < m ? SCORE_BOUND : m;
}

/* a float32 entry += a float64: computed in float64, stored as float32 (NumPy's in-place add) */
static inline void add_to(float *x, double d)
{
    *x = (float)((double)*x + d);
}

/* Observer.encode of seat (then with structured the structured observation's extra blocks, in absolute suits:
   StructuredObserver._absolute) into raw: off[B_SIZE] entries if structured, else off[B_BASE_SIZE] */
static void encode(const Game *G, int64_t seat, const Tables *t, float *raw, int structured)
{
    const int32_t *st = G->st;
    const int64_t *opt = t->opt, *off = t->off;
    const int8_t *tc = G->tc, *ts = G->ts;
    int64_t nids = t->nids;
    memset(raw, 0, (size_t)(structured ? off[B_SIZE] : off[B_BASE_SIZE]) * sizeof(float));
    int32_t p = st[PH];
    raw[off[B_PHASE] + p] = 1.0f;
    raw[off[B_DEALER] + ((st[DEALER] - seat) & 3)] = 1.0f;
    if (p != HAND_OVER && p != GAME_OVER)
        raw[off[B_TO_ACT] + ((st[CUR] - seat) & 3)] = 1.0f;
    const int8_t *hand = G->hands + WRAP(seat, 4) * nids;
    for (int64_t c = 0; c < nids; c++)
        raw[off[B_HAND] + c] = (float)hand[c];
    for (int64_t r = 0; r < t->rounds; r++) {
        for (int w = 0; w < 4; w++) {
            int16_t a = G->calls[r * 4 + w];
            if (a >= 0)
                raw[t->rnd_off[r] + ((w - seat) & 3) * t->rnd_width[r] + t->col[r * t->col_c + a]] = 1.0f;
        }
    }
    int32_t up = st[UP];
    int32_t trump = st[TRUMP];
    if (up >= 0) {
        raw[off[B_UPCARD] + up] = 1.0f;
        if (st[UPSUIT] >= 0)
            raw[off[B_UPCARD_SUIT] + st[UPSUIT]] = 1.0f;
        if (st[UPTAKEN])
            raw[off[B_UPCARD_FATE]] = 1.0f;
        else if (st[TDOWN])
            raw[off[B_UPCARD_FATE] + 1] = 1.0f;
        else if (trump >= 0)
            raw[off[B_UPCARD_FATE] + 2] = 1.0f;
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
            raw[off[B_SITTING_OUT] + ((q - seat) & 3)] = 1.0f;
    int32_t ntr = st[NTR];
    int32_t ncur = st[NCUR];
    int32_t active = active_seats(st);
    int32_t nk = ntr + (ncur > 0 ? 1 : 0);
    for (int32_t k = 0; k < nk; k++) {
        int32_t cards = k < ntr ? active : ncur;
        raw[t->leader_at[k] + ((ts[k * 4] - seat) & 3)] = 1.0f;
        for (int32_t j = 0; j < cards; j++)
            raw[t->card_at[k * t->card_at_c + ((ts[k * 4 + j] - seat) & 3)] + tc[k * 4 + j]] = 1.0f;
    }
    int64_t mine = seat & 1;
    double tricks = (double)opt[O_TRICKS];
    raw[off[B_TRICKS_WON]] = (float)((double)st[TW + mine] / tricks);
    raw[off[B_TRICKS_WON] + 1] = (float)((double)st[TW + 1 - mine] / tricks);
    double target = (double)opt[O_GAME_TARGET];
    raw[off[B_SCORES]] = (float)clip_score((double)st[SC + mine] / target);
    raw[off[B_SCORES] + 1] = (float)clip_score((double)st[SC + 1 - mine] / target);
    if (opt[O_RUBBER]) {
        raw[off[B_RUBBER]] = (float)((double)st[GW + mine] / 2.0);
        raw[off[B_RUBBER] + 1] = (float)((double)st[GW + 1 - mine] / 2.0);
        raw[off[B_RUBBER] + 2] = (float)((double)st[RP + mine] / 6.0);
        raw[off[B_RUBBER] + 3] = (float)((double)st[RP + 1 - mine] / 6.0);
    }
    if (!structured)
        return;
    /* ---- the structured observation's derived blocks, in absolute suits */
    const int64_t *effrow = t->eff + (int64_t)(trump + 1) * t->eff_c;
    if (ncur > 0) {
        for (int32_t j = 0; j < ncur; j++)
            raw[off[B_CURRENT_TRICK] + ((ts[ntr * 4 + j] - seat) & 3) * nids + tc[ntr * 4 + j]] = 1.0f;
        raw[off[B_LED_SUIT] + effrow[tc[ntr * 4]]] = 1.0f;
        int64_t w = (trick_winner(G, t, ntr, ncur, trump) - seat) & 3;
        raw[off[B_WINNING] + w] = 1.0f;
        if (w == 2)
            raw[off[B_PARTNER_WINNING]] = 1.0f;
    }
    int64_t copies = opt[O_COPIES];
    for (int64_t c = 0; c < nids; c++)
        raw[off[B_UNSEEN] + c] = (float)(copies - hand[c]);
    for (int32_t k = 0; k < nk; k++) {
        int32_t cards = k < ntr ? active : ncur;
        for (int32_t j = 0; j < cards; j++) {
            int8_t c = tc[k * 4 + j];
            add_to(&raw[off[B_PLAYED] + c], 1.0);
            add_to(&raw[off[B_UNSEEN] + c], -1.0);
        }
    }
    if (st[DISC] >= 0 && seat == st[DEALER])
        add_to(&raw[off[B_UNSEEN] + st[DISC]], -1.0);
    if (up >= 0 && !st[UPTAKEN])
        add_to(&raw[off[B_UNSEEN] + up], -1.0);
    if (nk > 0 && trump >= 0) {
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
        raw[off[B_TRICK_NUMBER] + ntr] = 1.0f;
        if (st[CUR] == seat && ncur == 0)
            raw[off[B_LEADS]] = 1.0f;
    }
}

/* StructuredObserver.encode_with_frame's choice: the candidate frame of reference suit ref whose encoding of raw
   (its first size entries) is lexicographically largest */
static int64_t choose_frame(const float *raw, const Tables *t, int64_t ref, int64_t size)
{
    int64_t row = ref + 1;
    const int64_t *cands = t->cands + row * t->cands_c;
    int64_t best = cands[0];
    for (int64_t i = 1; i < t->ncands[row]; i++) {
        int64_t f = cands[i];
        const int64_t *pf = t->perms + f * t->perms_c, *pb = t->perms + best * t->perms_c;
        for (int64_t j = 0; j < size; j++) {
            float x = raw[pf[j]], y = raw[pb[j]];
            if (x != y) {
                if (x > y)
                    best = f;
                break;
            }
        }
    }
    return best;
}

/* raw in frame f: out[j] = raw[perms[f, j]] for j < size. Gathered into a block on the stack (in the cache), then
   copied out whole: out is a row of a batch's observations, mostly not in the cache, and a float stored at a time
   there fills the store buffer with lines waiting on memory (the block: -18% of a structured observation's time
   against a store an entry, 4 KiB blocks beating 1 KiB ones; the gather four at a time: -12% more; 4,096 games of
   knock, in one process). restrict: the stores may not alias the frame's row, which the compiler would otherwise
   read again after each (the builds allow aliasing across types). */
#define FRAME_BLOCK 1024
static inline void in_frame(const float *RESTRICT raw, const Tables *t, int64_t f, float *RESTRICT out, int64_t size)
{
    const int64_t *RESTRICT perm = t->perms + f * t->perms_c;
    float block[FRAME_BLOCK];
    for (int64_t j = 0; j < size; j += FRAME_BLOCK) {
        int64_t m = size - j < FRAME_BLOCK ? size - j : FRAME_BLOCK, k = 0;
        const int64_t *RESTRICT p = perm + j;
        for (; k + 4 <= m; k += 4) { /* four loads in flight a turn, and a quarter of the loop's own work */
            float a = raw[p[k]], b = raw[p[k + 1]], c = raw[p[k + 2]], d = raw[p[k + 3]];
            block[k] = a;
            block[k + 1] = b;
            block[k + 2] = c;
            block[k + 3] = d;
        }
        for (; k < m; k++)
            block[k] = raw[p[k]];
        memcpy(out + j, block, (size_t)m * sizeof(float));
    }
}

/* StructuredObserver.encode_with_frame: the largest candidate frame's encoding of raw into out (t->obs_size
   entries); returns that frame */
static int64_t canonical(const float *raw, const Tables *t, int64_t ref, float *out)
{
    int64_t best = choose_frame(raw, t, ref, t->obs_size);
    in_frame(raw, t, best, out, t->obs_size);
    return best;
}

/* the suit a structured observation's frame is chosen around (StructuredObserver's reference) */
static inline int64_t reference_suit(const int32_t *st, const Tables *t)
{
    return st[TRUMP] >= 0 ? st[TRUMP] : (!t->opt[O_BID] ? st[UPSUIT] : -1);
}

/* The observation (with with_obs) and mask of the seat to act, in its frame; sets st[FRAME]. Scratch: raw (the
   structured encoding in absolute suits, t->raw_size) and amask (the mask in absolute ids, t->n_actions). */
static void decide(Game *G, float *obs, uint8_t *mask, float *raw, uint8_t *amask, const Tables *t, int with_obs)
{
    int32_t *st = G->st;
    int64_t seat = st[CUR];
    if (!t->structured) { /* absolute ids: the mask is written in place, no frame to map it through */
        legal_mask(G, t, mask);
        st[FRAME] = 0;
        if (with_obs) /* the absolute observation is the encoding itself */
            encode(G, seat, t, obs, 0);
        return;
    }
    legal_mask(G, t, amask);
    encode(G, seat, t, raw, 1); /* the frame is the encoding's: encoded even without with_obs */
    int64_t frame = choose_frame(raw, t, reference_suit(st, t), t->obs_size);
    if (with_obs)
        in_frame(raw, t, frame, obs, t->obs_size);
    st[FRAME] = (int32_t)frame;
    const int64_t *to_abs = t->to_abs + frame * t->to_abs_c;
    for (int64_t a = 0; a < t->n_actions; a++)
        mask[a] = amask[to_abs[a]] > 0;
}

/* The observation of any seat (final observations), as decide writes it; raw: scratch as there */
static void encode_seat(const Game *G, int64_t seat, float *out, float *raw, const Tables *t)
{
    if (t->structured) {
        encode(G, seat, t, raw, 1);
        canonical(raw, t, reference_suit(G->st, t), out);
    } else {
        encode(G, seat, t, out, 0);
    }
}

/* ======================================================================================== game/deals.py */
/* order: the cards of pack (n of them) shuffled by Fisher-Yates with the uniforms u[0 .. n - 2] */
static void shuffle(const double *u, const int16_t *pack, int64_t n, int16_t *order)
{
    memcpy(order, pack, (size_t)n * sizeof(int16_t));
    for (int64_t j = 0; j + 1 < n; j++) {
        int64_t r = j + (int64_t)(u[j] * (double)(n - j)); /* Python's int(): towards zero */
        if (r >= n) /* u < 1 never gets here: memory safety alone */
            r = n - 1;
        int16_t x = order[j];
        order[j] = order[r];
        order[r] = x;
    }
}

/* deals.deal_from_order: the pack in order dealt into cards [4, width] (blocks of tricks cards from the dealer's
   left, then with extra a card more for the dealer); returns the up-card (-1 when is_bid) */
static int64_t lay_out(const int16_t *order, int64_t dealer, int64_t tricks, int extra, int is_bid, int16_t *cards,
                       int64_t width)
{
    int64_t seat = dealer & 3, pos = 0;
    for (int i = 0; i < 4; i++) {
        seat = LEFT(seat);
        for (int64_t j = 0; j < tricks; j++)
            cards[seat * width + j] = order[pos++];
    }
    if (extra)
        cards[(dealer & 3) * width + tricks] = order[pos++];
    return is_bid ? -1 : order[pos];
}

/* What dealing on reads and writes: the pack and each game's scratch rows and stream (layout.DealBuffers). */
typedef struct {
    const int16_t *pack;
    int64_t npack;
    int16_t *order; /* [games, npack]: a shuffled pack */
    int16_t *deal;  /* [games, 4, width]: a deal laid out */
    int64_t width;
    uint64_t *streams; /* [games]: each game's stream state */
} Deals;

/* Game g's next deal once its hand is over: the next hand by the next dealer, or with new_episode a new game
   (scores 0) whose dealer is drawn from u[npack]; the pack shuffled with u (npack + 1 uniforms) */
static void deal_on(Game *G, const Deals *d, int64_t g, int new_episode, const double *u, const Tables *t)
{
    int32_t *st = G->st;
    const int64_t *opt = t->opt;
    if (new_episode) {
        for (int f = SC; f <= RMARGIN; f++) /* scores, hand number, games and rubber points, reneges, ... */
            st[f] = 0;
        st[WINNER] = -1;
        st[DEALER] = (int32_t)(u[d->npack] * 4.0); /* u < 1 */
    } else { /* the deal passes left */
        st[DEALER] = LEFT(st[DEALER]);
        st[HANDNO] += 1;
    }
    int16_t *order = d->order + g * d->npack, *deal = d->deal + g * 4 * d->width;
    shuffle(u, d->pack, d->npack, order);
    for (int64_t i = 0; i < 4 * d->width; i++)
        deal[i] = -1;
    int is_bid = opt[O_BID] != 0;
    int extra = is_bid && opt[O_JOKER] >= 0; /* Bid Euchre with the joker: the dealer takes the 25th card */
    int64_t upcard = lay_out(order, st[DEALER], opt[O_TRICKS], extra, is_bid, deal, d->width);
    start_hand(G, deal, d->width, upcard, t);
}

/* splitmix64 (Steele, Lea and Flood 2014): each game's own stream of uniforms for its next deals, so that a game's
   deals do not depend on which other games ended a hand at the same step or on how the games are sliced.
   out: count uniforms in [0, 1) from the stream whose state *state moves on. */
static inline void stream_uniforms(uint64_t *state, double *out, int64_t count)
{
    uint64_t x = *state;
    for (int64_t j = 0; j < count; j++) {
        x += 0x9E3779B97F4A7C15ULL;
        uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        out[j] = (double)(z >> 11) * (1.0 / 9007199254740992.0); /* 2 ** -53 */
    }
    *state = x;
}

/* ======================================================================================= compiled/seeding.py */
/* NumPy's SeedSequence (numpy/random/bit_generator.pyx): hashmix, mix, and generate_state(4, uint64) of a seed
   below 2**64 (one 32-bit word of entropy, two when the seed needs them; a pool of 4 words) */
#define SEED_U32 0xFFFFFFFFULL

static inline uint64_t seed_hashmix(uint64_t value, uint64_t *hash_const)
{
    value = (value ^ *hash_const) & SEED_U32;
    *hash_const = (*hash_const * 0x931E8875ULL) & SEED_U32;
    value = (value * *hash_const) & SEED_U32;
    return value ^ (value >> 16);
}

static inline uint64_t seed_mix(uint64_t x, uint64_t y)
{
    uint64_t result = (0xCA01F9DDULL * x - 0x4973F715ULL * y) & SEED_U32;
    return result ^ (result >> 16);
}

static void seed_words(uint64_t seed, uint64_t out[4])
{
    uint64_t h = 0x43B0D7E5ULL, pool[4];
    pool[0] = seed_hashmix(seed & SEED_U32, &h);
    pool[1] = seed_hashmix(seed >> 32, &h); /* 0 for a one-word seed: the pad SeedSequence hashes there too */
    pool[2] = seed_hashmix(0, &h);
    pool[3] = seed_hashmix(0, &h);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            if (src != dst)
                pool[dst] = seed_mix(pool[dst], seed_hashmix(pool[src], &h));
    h = 0x8B51F9DDULL;
    for (int i = 0; i < 8; i++) {
        uint64_t value = (pool[i % 4] ^ h) & SEED_U32;
        h = (h * 0x58F38DEDULL) & SEED_U32;
        value = (value * h) & SEED_U32;
        value ^= value >> 16;
        if (i % 2 == 0)
            out[i / 2] = value;
        else
            out[i / 2] |= value << 32;
    }
}

/* ============================================================================= the ends of hands (envs/episodes.py) */
/* The env's episode, reward and observation options, as numbers (layout.Episodes). */
typedef struct {
    int hand;          /* every hand is an episode */
    int64_t max_hands; /* hands after which an undecided game is cut (0: no limit) */
    int win_reward;    /* the reward is the game's result, not the hand's margin */
    int with_obs;      /* observations are encoded */
} Episodes;

/* What the hand a game just finished does (st: its row): *team0, team 0's reward (episodes.hand_end_reward: its
   margin, or with win_reward the game's result when the episode ends); *ended, the episode is over (every hand
   is one, or the game is decided); *cut, it is cut short by max_hands with the game undecided. */
static inline void hand_outcome(const int32_t *st, const Episodes *e, double *team0, int *ended, int *cut)
{
    int32_t margin = st[RES_PTS] - st[RES_PTS + 1]; /* team 0's */
    *ended = e->hand || st[PH] == GAME_OVER;
    *cut = !*ended && e->max_hands > 0 && st[HANDNO] + 1 >= e->max_hands;
    *team0 = (double)margin;
    if (e->win_reward) {
        if (!*ended) /* the game goes on, or was cut undecided: nobody won */
            *team0 = 0.0;
        else if (st[WINNER] >= 0)
            *team0 = st[WINNER] == 0 ? 1.0 : -1.0;
        else /* a single hand with no game winner yet: the sign of its margin */
            *team0 = (double)((margin > 0) - (margin < 0));
    }
}

/* ==================================================================== the learner's account (learner_account.py)
   A hand's points go into the learner's reward of this step once the learner has decided in the episode; before
   its first decision they wait in pending. An episode that ends is the learner's end only if it decided in it. */
#define HAND_ONLY 0   /* the hand ended, the episode goes on */
#define LEARNER_END 1 /* the learner's episode ended: its final observation is due */
#define DEALT_AGAIN 2 /* an episode without a learner decision ended: dealt again, not returned */

/* game g's learner makes its decision of this step: its reward starts with the pending points */
static inline void learner_decides(int64_t g, float *rewards, float *pending, uint8_t *decided)
{
    rewards[g] = pending[g];
    pending[g] = 0.0f;
    decided[g] = 1;
}

/* Game g's hand ended with gain points for the learner's team (episode_over: its episode too, cut: by max_hands);
   returns HAND_ONLY, LEARNER_END or DEALT_AGAIN. (A float32 += float64, computed in float64 and stored as float32,
   equals the float32 sum of two float32s: the Python rounds pass float32 gains, the whole step float64 ones.) */
static inline int account_hand(int64_t g, double gain, int episode_over, int cut, float *rewards, float *pending,
                               uint8_t *decided, uint8_t *has_final, uint8_t *terminated, uint8_t *truncated)
{
    if (decided[g])
        add_to(&rewards[g], gain);
    else
        add_to(&pending[g], gain);
    if (!episode_over)
        return HAND_ONLY;
    int code = DEALT_AGAIN;
    if (decided[g] && !has_final[g]) {
        has_final[g] = 1;
        terminated[g] = !cut;
        truncated[g] = (uint8_t)(cut != 0);
        code = LEARNER_END;
    }
    pending[g] = 0.0f;
    decided[g] = 0;
    return code;
}

#endif
