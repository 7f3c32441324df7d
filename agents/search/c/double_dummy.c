/* The double-dummy search of agents/search/double_dummy_compiled.py, in C: the module
 * euchre_env.agents.search._double_dummy and its one type, Solver.
 *
 * The same search as DoubleDummy's full solve (agents/search/double_dummy.py, the reference): fail-soft alpha-beta
 * over bitmasks, a transposition table at trick boundaries keyed on relative ranks, the equivalent-card reduction
 * and the move ordering. No rule is written here: which card belongs to which suit, which cards follow a suit led
 * and which card takes a trick from another come in the tables array that CompiledDoubleDummy builds from the
 * reference solver and euchre_env.game.cards; the seats' teams, the seats sitting out and who plays next come in a
 * settings array (layouts below, the same as the Python file's constants). Proven equal to the reference by
 * tests/differential/test_compiled_double_dummy_vs_double_dummy.py.
 *
 * A Solver owns its transposition table (zeroed memory: an empty slot is zero; freed with it) and a lock: the
 * search runs without the GIL, and two threads searching with one solver take turns (the table is not safe to share
 * while written).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define NUM_SUITS 4
#define NUM_SEATS 4
#define MAX_BITS 62 /* cards of a deck: the Python twin's limit (its int64 words, with room for a shift) */
#define MAX_LIVE 31 /* two bits a live card in the first word of a table key */
#define MAX_TABLE_BITS 30

/* layout of the tables array (int64): per bit its suit, per suit its mask and the cards that follow it when led,
 * per bit the cards that take a trick from it */
#define T_SUIT 0
#define T_SUIT_MASK 64
#define T_FOLLOW 68
#define T_BEATEN_BY 72
#define T_SIZE 136
/* layout of a search's settings (int64): maker team, active seats, out seats (bits), next active seat, team of seat */
#define C_MAKER 0
#define C_ACTIVE 1
#define C_OUT 2
#define C_NEXT 3
#define C_TEAM 7
#define C_SIZE 11

/* second word of a table entry: the key's live counts (6 bits a suit), leader (bits 24-25), out seats (26-29),
 * maker team (30), a flag that the slot is taken (31); then the bounds and the tricks left (for replacement) */
#define KEY_MASK UINT64_C(0xFFFFFFFF)
#define TAKEN (UINT64_C(1) << 31)
#define SH_LO 40
#define SH_HI 48
#define SH_LEFT 56
#define MUL_A UINT64_C(0x9E3779B97F4A7C15)
#define MUL_B UINT64_C(0xC2B2AE3D27D4EB4F)
#define BUCKET 4

/* Bit counts and indices. GCC's __builtin_popcountll is a call into libgcc unless the target has the instruction
 * (-mpopcnt, which the portable build does not assume): a call per count measured 4% of a search, so the count is
 * the inline bit-twiddling one there. The indices of the lowest and highest bit are single instructions everywhere
 * GCC or Clang builds; x is never 0 where an index is asked. */
static inline int popcount64(uint64_t x)
{
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}
#if defined(__GNUC__) || defined(__clang__)
#define LOW_INDEX(x) __builtin_ctzll(x)
#define HIGH_INDEX(x) (63 - __builtin_clzll(x))
#else /* portable versions (MSVC) */
static int high_index64(uint64_t x)
{
    int i = 0;
    while (x >>= 1)
        i++;
    return i;
}
#define LOW_INDEX(x) popcount64(((x) & (0 - (x))) - 1)
#define HIGH_INDEX(x) high_index64(x)
#endif
#define POPCOUNT(x) popcount64(x)
/* play is inlined into node (so that node alone recurses, one call a card) and into the root's loop */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE __forceinline
#else
#define ALWAYS_INLINE inline
#endif

/* The rules the search reads, copied from the tables array once (typed, so the search casts nothing). */
typedef struct {
    int suit[64];
    uint64_t suit_mask[NUM_SUITS], follow[NUM_SUITS], beaten_by[64];
    uint64_t above[64]; /* the cards of the bit's suit above it */
} Tables;

/* One search: its tables, settings, transposition table and the four hands (played in place, put back after). */
typedef struct {
    const Tables *t;
    int maker, active, next[NUM_SEATS], team[NUM_SEATS];
    uint64_t out;
    uint64_t *tt, tt_mask; /* two words a slot */
    uint64_t h[NUM_SEATS];
    uint8_t owner[64]; /* the seat holding each card: cards never change hands within a search */
} Search;

typedef struct {
    PyObject_HEAD
    Tables t;
    uint64_t *tt;
    uint64_t tt_mask;
    void *mapped; /* where the table was mapped (Linux, large tables), else NULL: it came from calloc */
    size_t mapped_bytes;
    PyThread_type_lock lock;
} Solver;

#define HUGE_PAGE ((size_t)1 << 21)

/* A zeroed table of 2**table_bits slots. On Linux a table of 2 MiB or more is mapped on a 2 MiB boundary and
 * marked for transparent huge pages (as NumPy marks its large arrays): the search reads slots at random all over
 * it, and in 4 KiB pages each page was faulted twice (first read: the zero page, first write: its own page) and
 * missed the TLB: a knock deal's first lead took 0.13-0.16 ms so, 0.09 ms in huge pages (0.06 ms with a 16 KiB
 * table). Elsewhere (or if the mapping fails), calloc. */
static int allocate_table(Solver *self, int table_bits)
{
    size_t bytes = ((size_t)1 << table_bits) * 2 * sizeof(uint64_t);
    self->mapped = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE) {
        void *base = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base != MAP_FAILED) {
            uintptr_t aligned = ((uintptr_t)base + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
            (void)madvise((void *)aligned, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
            self->mapped = base;
            self->mapped_bytes = bytes + HUGE_PAGE;
            self->tt = (uint64_t *)aligned;
            return 0;
        }
    }
#endif
    self->tt = (uint64_t *)calloc(bytes / sizeof(uint64_t), sizeof(uint64_t));
    return self->tt == NULL ? -1 : 0;
}

static void free_table(Solver *self)
{
#ifdef __linux__
    if (self->mapped != NULL) {
        munmap(self->mapped, self->mapped_bytes);
        self->mapped = NULL;
        self->tt = NULL;
        return;
    }
#endif
    free(self->tt);
    self->tt = NULL;
}

/* First slot of the key's bucket. The Python twin's int64 arithmetic: wrapping products (unsigned here, the same
 * bits) and an arithmetic shift right, written out so that it does not rest on how C shifts a negative value. */
static uint64_t slot_of(const Search *s, uint64_t ka, uint64_t kb)
{
    uint64_t x = (ka * MUL_A) ^ (kb * MUL_B);
    uint64_t sar = (x >> 31) | ((x >> 63) ? ~(UINT64_MAX >> 31) : 0);
    return (x ^ sar) & s->tt_mask;
}

/* Enter the bounds of key (ka, kb) in its bucket: its own slot, else an empty one, else the shallowest. */
static void store(Search *s, uint64_t ka, uint64_t kb, int lo, int hi, int left)
{
    uint64_t word = kb | (uint64_t)lo << SH_LO | (uint64_t)hi << SH_HI | (uint64_t)left << SH_LEFT;
    uint64_t first = slot_of(s, ka, kb), victim = first;
    int victim_left = 99;
    for (uint64_t j = 0; j < BUCKET; j++) {
        uint64_t i = (first + j) & s->tt_mask;
        uint64_t w = s->tt[2 * i + 1];
        if (w == 0 || (s->tt[2 * i] == ka && (w & KEY_MASK) == kb)) {
            victim = i;
            break;
        }
        if ((int)((w >> SH_LEFT) & 0x3F) < victim_left) {
            victim = i;
            victim_left = (int)((w >> SH_LEFT) & 0x3F);
        }
    }
    s->tt[2 * victim] = ka;
    s->tt[2 * victim + 1] = word;
}

static int node(Search *s, int seat, int count, int led, int win_bit, int win_seat, uint64_t alive, int alpha,
                int beta);

/* Makers' tricks from seat playing the card low of its hand as the count-th card of the trick on (fail-soft in
 * (alpha, beta); led, win_bit, win_seat: the suit led and the card taking the trick so far and its seat): the
 * trick's state after it, then the next seat's turn or, after the trick's last card, the next trick's boundary
 * with this trick counted. The one move of node and of card_values. */
static ALWAYS_INLINE int play(Search *s, int seat, uint64_t hand, uint64_t low, int count, int led, int win_bit,
                              int win_seat, uint64_t alive, int alpha, int beta)
{
    const Tables *t = s->t;
    int bit = LOW_INDEX(low), n_led, n_bit, n_seat, v;
    if (count == 0) {
        n_led = t->suit[bit];
        n_bit = bit;
        n_seat = seat;
    } else if (t->beaten_by[win_bit] & low) {
        n_led = led;
        n_bit = bit;
        n_seat = seat;
    } else {
        n_led = led;
        n_bit = win_bit;
        n_seat = win_seat;
    }
    s->h[seat] = hand ^ low;
    if (count + 1 == s->active) {
        int base = s->team[n_seat] == s->maker ? 1 : 0;
        v = base + node(s, n_seat, 0, -1, 0, 0, 0, alpha - base, beta - base);
    } else {
        v = node(s, s->next[seat], count + 1, n_led, n_bit, n_seat, alive, alpha, beta);
    }
    s->h[seat] = hand;
    return v;
}

/* Makers' tricks from here (fail-soft in (alpha, beta)) with seat to play the count-th card of the trick (0: a
 * trick boundary, seat leads); led the suit led, win_bit / win_seat the card taking the trick so far and its seat,
 * alive the cards not in a finished trick. DoubleDummy's boundary and play. */
static int node(Search *s, int seat, int count, int led, int win_bit, int win_seat, uint64_t alive, int alpha,
                int beta)
{
    const Tables *t = s->t;
    uint64_t hand = s->h[seat], allowed, ka = 0, kb = 0;
    int lo = 0, hi = 0, left = 0;
    if (count == 0) { /* the reference's boundary: the transposition table */
        if (hand == 0)
            return 0;
        left = POPCOUNT(hand);
        alive = s->h[0] | s->h[1] | s->h[2] | s->h[3];
        kb = s->out << 26 | (uint64_t)s->maker << 30 | (uint64_t)seat << 24 | TAKEN;
        int shift = 0; /* each live card's seat, suit by suit, low cards first: the squeezed hands */
        for (int suit = 0; suit < NUM_SUITS; suit++) {
            uint64_t rest = alive & t->suit_mask[suit];
            int live = 0;
            while (rest != 0) {
                int b = LOW_INDEX(rest);
                rest &= rest - 1;
                ka |= (uint64_t)s->owner[b] << shift;
                shift += 2;
                live++;
            }
            kb |= (uint64_t)live << (6 * suit);
        }
        hi = left;
        uint64_t first = slot_of(s, ka, kb);
        for (uint64_t j = 0; j < BUCKET; j++) {
            uint64_t i = (first + j) & s->tt_mask;
            uint64_t w = s->tt[2 * i + 1];
            if (w == 0)
                break;
            if (s->tt[2 * i] == ka && (w & KEY_MASK) == kb) {
                lo = (int)((w >> SH_LO) & 0xFF);
                hi = (int)((w >> SH_HI) & 0xFF);
                break;
            }
        }
        if (lo >= beta)
            return lo;
        if (hi <= alpha)
            return hi;
        if (lo == hi)
            return lo;
        if (lo > alpha)
            alpha = lo;
        if (hi < beta)
            beta = hi;
        allowed = hand;
    } else {
        uint64_t follow = hand & t->follow[led];
        allowed = follow != 0 ? follow : hand;
    }
    uint64_t moves = 0, m = allowed;
    while (m != 0) { /* skip a card when the next higher live card of its suit is ours too */
        uint64_t low = m & (0 - m);
        m ^= low;
        uint64_t above = alive & t->above[LOW_INDEX(low)];
        if (above != 0 && (hand & (above & (0 - above))) != 0)
            continue;
        moves |= low;
    }
    int team = s->team[seat];
    uint64_t first_move = 0;
    if (count > 0 && s->team[win_seat] != team && (moves & (moves - 1)) != 0) {
        uint64_t takers = moves & t->beaten_by[win_bit]; /* the cheapest card taking the trick from the other side */
        first_move = takers & (0 - takers);
    }
    int maximize = team == s->maker;
    int best = maximize ? -1 : 1 << 20, a = alpha, b = beta;
    uint64_t rest = moves & ~first_move;
    for (;;) {
        uint64_t low;
        if (first_move != 0) {
            low = first_move;
            first_move = 0;
        } else if (rest == 0) {
            break;
        } else if (count == 0) { /* leading: high cards first */
            low = UINT64_C(1) << HIGH_INDEX(rest);
            rest ^= low;
        } else { /* following: low cards first */
            low = rest & (0 - rest);
            rest ^= low;
        }
        int v = play(s, seat, hand, low, count, led, win_bit, win_seat, alive, a, b);
        if (maximize) {
            if (v > best) {
                best = v;
                if (v > a)
                    a = v;
            }
        } else if (v < best) {
            best = v;
            if (v < b)
                b = v;
        }
        if (a >= b)
            break;
    }
    if (count == 0) {
        if (best <= alpha) {
            if (best < hi)
                hi = best;
        } else if (best >= beta) {
            if (best > lo)
                lo = best;
        } else {
            lo = hi = best;
        }
        store(s, ka, kb, lo, hi, left);
    }
    return best;
}

/* ------------------------------------------------------------------ arguments */

/* An int64 array of at least min_len items, one dimension, contiguous; else one clear exception. */
static int int64_buffer(PyObject *obj, const char *what, Py_ssize_t min_len, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (view->ndim != 1 || view->itemsize != 8 || !(strcmp(f, "l") == 0 || strcmp(f, "q") == 0) ||
        view->shape[0] < min_len) {
        PyErr_Format(PyExc_ValueError, "_double_dummy: %s must be a 1-d int64 array of at least %zd items "
                     "(got format %s, itemsize %zd, ndim %d)", what, min_len, view->format ? view->format : "B",
                     view->itemsize, view->ndim);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* A search of solver self under the settings cfg (an int64 array, the layout above) and the hands (a tuple of four
 * masks), each checked so that no bit or seat reaches past the tables. */
static int prepare(Solver *self, Search *s, PyObject *cfg, PyObject *hands)
{
    Py_buffer view;
    if (int64_buffer(cfg, "the settings", C_SIZE, &view) < 0)
        return -1;
    const int64_t *c = (const int64_t *)view.buf;
    int ok = (c[C_MAKER] == 0 || c[C_MAKER] == 1) && c[C_ACTIVE] >= 1 && c[C_ACTIVE] <= NUM_SEATS &&
             c[C_OUT] >= 0 && c[C_OUT] < (1 << NUM_SEATS);
    for (int seat = 0; seat < NUM_SEATS; seat++)
        ok = ok && c[C_NEXT + seat] >= 0 && c[C_NEXT + seat] < NUM_SEATS && (c[C_TEAM + seat] == 0 ||
                                                                             c[C_TEAM + seat] == 1);
    if (ok) {
        s->t = &self->t;
        s->maker = (int)c[C_MAKER];
        s->active = (int)c[C_ACTIVE];
        s->out = (uint64_t)c[C_OUT];
        for (int seat = 0; seat < NUM_SEATS; seat++) {
            s->next[seat] = (int)c[C_NEXT + seat];
            s->team[seat] = (int)c[C_TEAM + seat];
        }
        s->tt = self->tt;
        s->tt_mask = self->tt_mask;
    }
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "_double_dummy: the settings are out of range");
        return -1;
    }
    long long h[NUM_SEATS];
    if (!PyArg_ParseTuple(hands, "LLLL;_double_dummy: the hands must be a tuple of four int masks", &h[0], &h[1],
                          &h[2], &h[3]))
        return -1;
    for (int seat = 0; seat < NUM_SEATS; seat++) {
        if (h[seat] < 0 || (uint64_t)h[seat] >> MAX_BITS) {
            PyErr_SetString(PyExc_ValueError, "_double_dummy: a hand holds a card past the deck's 62 bits");
            return -1;
        }
        s->h[seat] = (uint64_t)h[seat];
    }
    memset(s->owner, 0, sizeof s->owner);
    for (int seat = NUM_SEATS - 1; seat >= 0; seat--) /* a card in two hands (never from Python): the first */
        for (uint64_t rest = s->h[seat]; rest != 0; rest &= rest - 1)
            s->owner[LOW_INDEX(rest)] = (uint8_t)seat;
    return 0;
}

static int check_seat(int seat, const char *what)
{
    if (seat < 0 || seat >= NUM_SEATS) {
        PyErr_Format(PyExc_ValueError, "_double_dummy: %s %d is not a seat", what, seat);
        return -1;
    }
    return 0;
}

static int check_live(const Search *s, uint64_t extra)
{
    if (POPCOUNT(s->h[0] | s->h[1] | s->h[2] | s->h[3] | extra) > MAX_LIVE) {
        PyErr_Format(PyExc_ValueError, "_double_dummy: more than %d cards in play", MAX_LIVE);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the Solver type */

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tables", "table_bits", NULL};
    PyObject *tables;
    int table_bits;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oi:Solver", kwlist, &tables, &table_bits))
        return NULL;
    if (table_bits < 0 || table_bits > MAX_TABLE_BITS) {
        PyErr_Format(PyExc_ValueError, "_double_dummy: table_bits must be in 0..%d", MAX_TABLE_BITS);
        return NULL;
    }
    Py_buffer view;
    if (int64_buffer(tables, "the tables", T_SIZE, &view) < 0)
        return NULL;
    const int64_t *tab = (const int64_t *)view.buf;
    Tables t;
    int ok = 1;
    for (int b = 0; b < 64; b++) {
        ok = ok && tab[T_SUIT + b] >= 0 && tab[T_SUIT + b] < NUM_SUITS && tab[T_BEATEN_BY + b] >= 0;
        t.suit[b] = (int)tab[T_SUIT + b];
        t.beaten_by[b] = (uint64_t)tab[T_BEATEN_BY + b];
    }
    for (int suit = 0; suit < NUM_SUITS; suit++) {
        ok = ok && tab[T_SUIT_MASK + suit] >= 0 && tab[T_FOLLOW + suit] >= 0;
        t.suit_mask[suit] = (uint64_t)tab[T_SUIT_MASK + suit];
        t.follow[suit] = (uint64_t)tab[T_FOLLOW + suit];
    }
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "_double_dummy: the tables are out of range");
        return NULL;
    }
    for (int b = 0; b < 64; b++) /* ~((low << 1) - 1) of the Python twin: the bits above b */
        t.above[b] = t.suit_mask[t.suit[b]] & ~(b == 63 ? UINT64_MAX : (UINT64_C(2) << b) - 1);
    Solver *self = (Solver *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->t = t;
    self->tt_mask = ((uint64_t)1 << table_bits) - 1;
    self->lock = PyThread_allocate_lock();
    if (allocate_table(self, table_bits) < 0 || self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void Solver_dealloc(Solver *self)
{
    free_table(self);
    if (self->lock != NULL)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(card_values_doc,
"card_values(settings, hands, to_play, trick_bits, trick_seats) -> list of (bit, value)\n\n"
"The makers' tricks from now on after to_play plays each legal bit of its hand (ascending bits; equivalent cards\n"
"get their representative's value), the trick in progress being trick_bits / trick_seats (tuples, in play order).\n"
"DoubleDummy._root.");

static PyObject *Solver_card_values(Solver *self, PyObject *args)
{
    PyObject *cfg, *hands, *t_bits_obj, *t_seats_obj;
    int to_play;
    if (!PyArg_ParseTuple(args, "OOiO!O!:card_values", &cfg, &hands, &to_play, &PyTuple_Type, &t_bits_obj,
                          &PyTuple_Type, &t_seats_obj))
        return NULL;
    Search s;
    if (prepare(self, &s, cfg, hands) < 0 || check_seat(to_play, "to_play") < 0)
        return NULL;
    Py_ssize_t n_trick = PyTuple_GET_SIZE(t_bits_obj);
    if (n_trick > NUM_SEATS || PyTuple_GET_SIZE(t_seats_obj) != n_trick) {
        PyErr_SetString(PyExc_ValueError, "_double_dummy: the trick's bits and seats differ in length or exceed "
                        "four cards");
        return NULL;
    }
    int t_bits[NUM_SEATS], t_seats[NUM_SEATS];
    uint64_t trick_mask = 0;
    for (Py_ssize_t i = 0; i < n_trick; i++) {
        long bit = PyLong_AsLong(PyTuple_GET_ITEM(t_bits_obj, i));
        long seat = PyLong_AsLong(PyTuple_GET_ITEM(t_seats_obj, i));
        if (PyErr_Occurred())
            return NULL;
        if (bit < 0 || bit >= MAX_BITS || seat < 0 || seat >= NUM_SEATS) {
            PyErr_SetString(PyExc_ValueError, "_double_dummy: a card of the trick is out of range");
            return NULL;
        }
        t_bits[i] = (int)bit;
        t_seats[i] = (int)seat;
        trick_mask |= UINT64_C(1) << bit;
    }
    if (check_live(&s, trick_mask) < 0)
        return NULL;
    const Tables *t = &self->t;
    uint64_t hand = s.h[to_play], alive = s.h[0] | s.h[1] | s.h[2] | s.h[3] | trick_mask, allowed = hand;
    int left = POPCOUNT(hand), led = -1, win_bit = 0, win_seat = 0;
    for (Py_ssize_t i = 0; i < n_trick; i++) {
        if (i == 0) {
            led = t->suit[t_bits[0]];
            win_bit = t_bits[0];
            win_seat = t_seats[0];
        } else if (t->beaten_by[win_bit] >> t_bits[i] & 1) {
            win_bit = t_bits[i];
            win_seat = t_seats[i];
        }
    }
    if (n_trick > 0 && (hand & t->follow[led]) != 0)
        allowed = hand & t->follow[led];
    int values[64];
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    uint64_t m = allowed;
    while (m != 0) {
        uint64_t low = m & (0 - m);
        m ^= low;
        values[LOW_INDEX(low)] = play(&s, to_play, hand, low, (int)n_trick, led, win_bit, win_seat, alive, -1,
                                      left + 1);
    }
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    PyObject *out = PyList_New(POPCOUNT(allowed));
    if (out == NULL)
        return NULL;
    Py_ssize_t k = 0;
    for (int bit = 0; bit < 64; bit++) {
        if (!(allowed >> bit & 1))
            continue;
        PyObject *pair = Py_BuildValue("(ii)", bit, values[bit]);
        if (pair == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k++, pair);
    }
    return out;
}

PyDoc_STRVAR(boundary_value_doc,
"boundary_value(settings, hands, leader, alpha, beta) -> int\n\n"
"The makers' tricks from a trick boundary, leader to lead (fail-soft in (alpha, beta)).");

static PyObject *Solver_boundary_value(Solver *self, PyObject *args)
{
    PyObject *cfg, *hands;
    int leader, alpha, beta, v;
    if (!PyArg_ParseTuple(args, "OOiii:boundary_value", &cfg, &hands, &leader, &alpha, &beta))
        return NULL;
    Search s;
    if (prepare(self, &s, cfg, hands) < 0 || check_seat(leader, "leader") < 0 || check_live(&s, 0) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    v = node(&s, leader, 0, -1, 0, 0, 0, alpha, beta);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(v);
}

static PyMethodDef Solver_methods[] = {
    {"card_values", (PyCFunction)Solver_card_values, METH_VARARGS, card_values_doc},
    {"boundary_value", (PyCFunction)Solver_boundary_value, METH_VARARGS, boundary_value_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Solver_doc,
"Solver(tables, table_bits)\n\n"
"The double-dummy search over one deck's tables (an int64 array: CompiledDoubleDummy's layout) with a\n"
"transposition table of 2**table_bits slots, kept across searches.");

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "euchre_env.agents.search._double_dummy.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Solver_doc,
    .tp_methods = Solver_methods,
    .tp_new = Solver_new,
};

PyDoc_STRVAR(module_doc,
"The double-dummy search of euchre_env.agents.search.double_dummy_compiled (CompiledDoubleDummy), in C.");

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_double_dummy", module_doc, -1, NULL};

PyMODINIT_FUNC PyInit__double_dummy(void)
{
    if (PyType_Ready(&SolverType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
