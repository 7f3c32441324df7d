/* euchre_env.compiled._core: the compiled core, in C (the Python C API only), built by ``pip install``.

   - Batch(arrays, tables, deals=None, episodes=None): the games of a vector env (layout.GameArrays) under one
     rule set and observation (layout.Tables), with their deal buffers (layout.DealBuffers) and episode options
     (layout.Episodes) where the kernels deal on; it holds the arrays' views for its life, so a call parses only
     its own arguments. Its batch kernels (compiled/batch.py says how Python calls them) each take a range
     lo, hi of their games (and a slice index c, unused: each call allocates its own scratch) and release the
     GIL while they loop, so that native.run_slices runs slices of a batch on Python threads.
   - Game(arrays, tables, mask, obs, history): the AEC env's one game (compiled/game.py's CompiledGame), step
     a METH_O call.
   - the functions of no game state: random_actions, first_illegal, shuffled_deals, compact_sparse,
     stream_uniforms, seed_words, learner_decisions, account_hands.

   The rules, observers, dealing and scoring are engine.h's, shared with the agents' twins; proven equal to the
   reference engine by tests/differential/ (test_vector_euchre_vs_engine.py, test_compiled_game_vs_engine.py). */
#include "arrays.h" /* Python.h first, then engine.h and layout.h */

#include <stdlib.h>

#define ANY (-1)

/* ============================================================================================ arguments */
/* obj as an array into the next view of h (take's checks), then its shape: d0, d1, d2 (ANY: any) for its first
   ndim dimensions. Its data, or NULL with the exception set. */
static void *array_arg(Held *h, PyObject *obj, const char *name, char kind, Py_ssize_t itemsize, int ndim,
                       int writable, Py_ssize_t d0, Py_ssize_t d1, Py_ssize_t d2)
{
    if (h->n >= HELD_MAX) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays held");
        return NULL;
    }
    Py_buffer *v = &h->views[h->n];
    if (take(obj, v, name, kind, itemsize, ndim, writable) < 0)
        return NULL;
    h->n++;
    Py_ssize_t want[3] = {d0, d1, d2};
    for (int i = 0; i < ndim && i < 3; i++) {
        if (want[i] != ANY && v->shape[i] != want[i]) {
            PyErr_Format(PyExc_ValueError, "%s must have %zd %s along dimension %d, got %zd", name, want[i],
                         want[i] == 1 ? "entry" : "entries", i, v->shape[i]);
            return NULL;
        }
    }
    return v->buf;
}

/* the shape of the last array taken into h */
static Py_ssize_t last_dim(const Held *h, int dim)
{
    return h->views[h->n - 1].shape[dim];
}

static int int_arg(PyObject *obj, const char *name, int64_t *out)
{
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int bool_arg(PyObject *obj, int *out)
{
    int v = PyObject_IsTrue(obj);
    if (v < 0)
        return -1;
    *out = v;
    return 0;
}

static int arg_count(const char *signature, Py_ssize_t nargs, Py_ssize_t least, Py_ssize_t most)
{
    if (nargs >= least && nargs <= most)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s takes %zd to %zd arguments, got %zd", signature, least, most, nargs);
    return -1;
}

/* a kernel's optional trailing lo, hi (and c, read by nobody: every call allocates its own scratch) over count
   items: the range lo:hi, 0:count by default */
static int range_args(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at, int64_t count, int64_t *lo,
                      int64_t *hi)
{
    *lo = 0;
    *hi = count;
    if (nargs > at && int_arg(args[at], "lo", lo) < 0)
        return -1;
    if (nargs > at + 1 && int_arg(args[at + 1], "hi", hi) < 0)
        return -1;
    if (!(0 <= *lo && *lo <= *hi && *hi <= count)) {
        PyErr_Format(PyExc_ValueError, "the range %lld:%lld is not within 0:%lld", (long long)*lo, (long long)*hi,
                     (long long)count);
        return -1;
    }
    return 0;
}

/* every games[lo:hi] is a game 0 .. n - 1 */
static int check_games(const int64_t *games, int64_t lo, int64_t hi, int64_t n)
{
    for (int64_t i = lo; i < hi; i++) {
        if ((uint64_t)games[i] >= (uint64_t)n) {
            PyErr_Format(PyExc_IndexError, "games[%lld] = %lld is not a game 0..%lld", (long long)i,
                         (long long)games[i], (long long)(n - 1));
            return -1;
        }
    }
    return 0;
}

/* every actions[lo:hi] is an action id 0 .. na - 1 */
static int check_actions(const int64_t *actions, int64_t lo, int64_t hi, int64_t na)
{
    for (int64_t i = lo; i < hi; i++) {
        if ((uint64_t)actions[i] >= (uint64_t)na) {
            PyErr_Format(PyExc_IndexError, "actions[%lld] = %lld is not an action id 0..%lld", (long long)i,
                         (long long)actions[i], (long long)(na - 1));
            return -1;
        }
    }
    return 0;
}

/* ============================================================================================ scratch */
/* A call's scratch (one block): the structured encoding in absolute suits, the mask in absolute ids, a deal's
   uniforms and an observation row. Allocated with the GIL held (a failure is a MemoryError). */
typedef struct {
    float *raw;
    uint8_t *amask;
    double *u;
    float *row;
    void *block;
} Scratch;

static int scratch_new(Scratch *w, const Tables *t, int64_t uniforms, int64_t row)
{
    size_t raw = (size_t)t->raw_size * sizeof(float), u = (size_t)uniforms * sizeof(double);
    size_t r = (size_t)row * sizeof(float), amask = ((size_t)t->n_actions + 15) & ~(size_t)15;
    char *block = calloc(1, u + raw + r + amask + 16);
    if (block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    w->block = block;
    w->u = (double *)block; /* doubles first, then floats, then bytes: each aligned */
    w->raw = (float *)(block + u);
    w->row = (float *)(block + u + raw);
    w->amask = (uint8_t *)(block + u + raw + r);
    return 0;
}

/* ============================================================================================ Batch */
typedef struct {
    PyObject_HEAD
    Held held; /* the views t, s and d point into, held for the object's life */
    Tables t;
    Games s;
    Deals d;
    Episodes e;
    int has_deals, has_episodes;
} BatchObject;

static void Batch_dealloc(BatchObject *self)
{
    release(&self->held);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* the Tables of one rule set's bundle, checked against the games' arrays */
static int tables_fit(const Tables *t, const Games *s)
{
    if (t->nids != s->nids || t->tricks != s->tricks || t->rounds != s->rounds) {
        PyErr_Format(PyExc_ValueError, "the tables (%lld cards, %lld tricks, %lld calling rounds) do not fit the "
                     "games' arrays (%lld, %lld, %lld)", (long long)t->nids, (long long)t->tricks,
                     (long long)t->rounds, (long long)s->nids, (long long)s->tricks, (long long)s->rounds);
        return -1;
    }
    if (t->to_abs_c != t->n_actions || t->col_c != t->n_actions || t->perms_c < t->obs_size
            || t->eff_c != t->nids || t->power_c != t->nids || t->rank_n != t->nids || t->printed_n != t->nids
            || t->card_at_c != 4 || t->obs_size > t->raw_size) {
        PyErr_SetString(PyExc_ValueError, "the tables' shapes do not agree (tables.kernel_tables builds them)");
        return -1;
    }
    return 0;
}

static int deals_from(PyObject *bundle, BatchObject *self)
{
    Held *h = &self->held;
    const int64_t n = self->s.n;
    if (!PySequence_Check(bundle) || PySequence_Size(bundle) != 4) {
        PyErr_SetString(PyExc_TypeError, "deals must be a layout.DealBuffers bundle of 4 arrays");
        return -1;
    }
    PyObject *item[4];
    for (int i = 0; i < 4; i++)
        item[i] = PySequence_GetItem(bundle, i);
    int bad = 1;
    Deals *d = &self->d;
    if (!item[0] || !item[1] || !item[2] || !item[3])
        goto done;
    if (!(d->pack = array_arg(h, item[0], "pack", KIND_INT, 2, 1, 0, ANY, ANY, ANY)))
        goto done;
    d->npack = last_dim(h, 0);
    if (!(d->order = array_arg(h, item[1], "order", KIND_INT, 2, 2, 1, n, d->npack, ANY)))
        goto done;
    if (!(d->deal = array_arg(h, item[2], "deal", KIND_INT, 2, 3, 1, n, 4, ANY)))
        goto done;
    d->width = last_dim(h, 2);
    if (!(d->streams = array_arg(h, item[3], "streams", KIND_UINT, 8, 1, 1, n, ANY, ANY)))
        goto done;
    const int64_t *opt = self->t.opt;
    int extra = opt[O_BID] && opt[O_JOKER] >= 0, is_bid = opt[O_BID] != 0;
    if (d->width < self->t.tricks + extra || d->npack < 4 * self->t.tricks + extra + !is_bid) {
        PyErr_SetString(PyExc_ValueError, "the deal buffers are too small for these rules");
        goto done;
    }
    for (int64_t i = 0; i < d->npack; i++) {
        if ((uint64_t)d->pack[i] >= (uint64_t)self->t.nids) {
            PyErr_SetString(PyExc_ValueError, "pack: a card id out of range");
            goto done;
        }
    }
    bad = 0;
done:
    for (int i = 0; i < 4; i++)
        Py_XDECREF(item[i]);
    return bad ? -1 : 0;
}

static int episodes_from(PyObject *bundle, Episodes *e)
{
    if (!PySequence_Check(bundle) || PySequence_Size(bundle) != 4) {
        PyErr_SetString(PyExc_TypeError, "episodes must be a layout.Episodes bundle of 4 fields");
        return -1;
    }
    int bad = 0;
    e->hand = item_int(bundle, 0, &bad) != 0;
    e->max_hands = item_int(bundle, 1, &bad);
    e->win_reward = item_int(bundle, 2, &bad) != 0;
    e->with_obs = item_int(bundle, 3, &bad) != 0;
    return bad ? -1 : 0;
}

static PyObject *Batch_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"arrays", "tables", "deals", "episodes", NULL};
    PyObject *arrays, *tables, *deals = Py_None, *episodes = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OO:Batch", names, &arrays, &tables, &deals, &episodes))
        return NULL;
    BatchObject *self = (BatchObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    if (tables_from(tables, &self->t, &self->held) < 0 || games_from(arrays, &self->s, &self->held) < 0
            || tables_fit(&self->t, &self->s) < 0)
        goto fail;
    if (deals != Py_None) {
        if (deals_from(deals, self) < 0)
            goto fail;
        self->has_deals = 1;
    }
    if (episodes != Py_None) {
        if (episodes_from(episodes, &self->e) < 0)
            goto fail;
        self->has_episodes = 1;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* obs: [n, obs_size] float32 where observations are written, else [n, any] */
static float *obs_arg(Held *h, PyObject *obj, const BatchObject *self, int with_obs, int64_t *width)
{
    float *obs = array_arg(h, obj, "obs", KIND_FLOAT, 4, 2, 1, self->s.n, with_obs ? self->t.obs_size : ANY, ANY);
    if (obs != NULL)
        *width = last_dim(h, 1);
    return obs;
}

static uint8_t *mask_arg(Held *h, PyObject *obj, const BatchObject *self, Py_ssize_t rows)
{
    return array_arg(h, obj, "mask", KIND_BOOL, 1, 2, 1, rows, self->t.n_actions, ANY);
}

PyDoc_STRVAR(observe_games_doc,
"observe_games(games, obs, mask, with_obs, lo=0, hi=len(games), c=0)\n--\n\n"
"The observation (with with_obs) and mask of the seat to act in each of games[lo:hi] into obs[g] and mask[g],\n"
"in its frame (st[g, FRAME] set).");

static PyObject *Batch_observe_games(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, width = 0;
    int with_obs;
    PyObject *result = NULL;
    Scratch w = {0};
    if (arg_count("observe_games(games, obs, mask, with_obs, lo, hi, c)", nargs, 4, 7) < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL || bool_arg(args[3], &with_obs) < 0)
        goto done;
    int64_t k = last_dim(&h, 0);
    float *obs = obs_arg(&h, args[1], self, with_obs, &width);
    uint8_t *mask = obs ? mask_arg(&h, args[2], self, self->s.n) : NULL;
    if (mask == NULL || range_args(args, nargs, 4, k, &lo, &hi) < 0 || check_games(games, lo, hi, self->s.n) < 0
            || scratch_new(&w, &self->t, 0, 0) < 0)
        goto done;
    const Tables *t = &self->t;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = lo; i < hi; i++) {
        int64_t g = games[i];
        Game G = game_at(&self->s, g);
        decide(&G, obs + g * width, mask + g * t->n_actions, w.raw, w.amask, t, with_obs);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(w.block);
    release(&h);
    return result;
}

PyDoc_STRVAR(observe_games_sparse_doc,
"observe_games_sparse(games, mask, ptr, col, val, lo=0, hi=len(games), c=0)\n--\n\n"
"observe_games for a reader of non-zero entries (a network's first layer): the observation of the seat to act\n"
"in each of games[lo:hi] as compressed sparse rows, row i (game games[i]) being the columns\n"
"col[ptr[i]:ptr[i + 1]] in ascending order with the values val[...], and its mask in mask[i].\n\n"
"Each observation is encoded into a scratch row that stays in the cache and read back there (no dense batch is\n"
"written, copied and scanned again); the read skips 8 entries at a time while they are all zero and takes the\n"
"rest without a branch an entry. The range writes its entries from lo * width on (width: the observation's size\n"
"rounded up to a multiple of 8), room for every entry of its rows, so that slices run at once; compact_sparse\n"
"then moves the slices' entries together. col and val hold len(games) * width entries at least, ptr\n"
"len(games) + 1, mask len(games) rows.");

static PyObject *Batch_observe_games_sparse(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi;
    PyObject *result = NULL;
    Scratch w = {0};
    const Tables *t = &self->t;
    const int64_t width = (t->obs_size + 7) & ~(int64_t)7;
    if (arg_count("observe_games_sparse(games, mask, ptr, col, val, lo, hi, c)", nargs, 5, 8) < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL)
        goto done;
    int64_t k = last_dim(&h, 0);
    uint8_t *mask = mask_arg(&h, args[1], self, ANY); /* row i for games[i]: k rows at least */
    if (mask != NULL && last_dim(&h, 0) < k) {
        PyErr_SetString(PyExc_ValueError, "mask must have a row for each of games");
        goto done;
    }
    int64_t *ptr = mask ? array_arg(&h, args[2], "ptr", KIND_INT, 8, 1, 1, ANY, ANY, ANY) : NULL;
    if (ptr != NULL && last_dim(&h, 0) < k + 1) {
        PyErr_SetString(PyExc_ValueError, "ptr must hold len(games) + 1 entries");
        goto done;
    }
    int32_t *col = ptr ? array_arg(&h, args[3], "col", KIND_INT, 4, 1, 1, ANY, ANY, ANY) : NULL;
    if (col == NULL || last_dim(&h, 0) < k * width) {
        if (col != NULL)
            PyErr_Format(PyExc_ValueError, "col must hold len(games) * %lld entries", (long long)width);
        goto done;
    }
    float *val = array_arg(&h, args[4], "val", KIND_FLOAT, 4, 1, 1, ANY, ANY, ANY);
    if (val == NULL || last_dim(&h, 0) < k * width) {
        if (val != NULL)
            PyErr_Format(PyExc_ValueError, "val must hold len(games) * %lld entries", (long long)width);
        goto done;
    }
    if (range_args(args, nargs, 5, k, &lo, &hi) < 0 || check_games(games, lo, hi, self->s.n) < 0
            || scratch_new(&w, t, 0, width) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    float *row = w.row; /* zero beyond the observation: the padding is read as zeros */
    int64_t p = lo * width;
    if (lo == 0)
        ptr[0] = 0;
    for (int64_t i = lo; i < hi; i++) {
        Game G = game_at(&self->s, games[i]);
        decide(&G, row, mask + i * t->n_actions, w.raw, w.amask, t, 1);
        for (int64_t j0 = 0; j0 < width; j0 += 8) {
            uint64_t words[4];
            memcpy(words, row + j0, sizeof(words));
            if (words[0] | words[1] | words[2] | words[3]) {
                for (int64_t j = j0; j < j0 + 8; j++) {
                    float x = row[j];
                    col[p] = (int32_t)j;
                    val[p] = x;
                    p += x != 0.0f;
                }
            }
        }
        ptr[i + 1] = p;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(w.block);
    release(&h);
    return result;
}

PyDoc_STRVAR(step_all_doc,
"step_all(actions, ended, obs, mask, with_obs, lo=0, hi=num_games, c=0)\n--\n\n"
"Apply each game g's action actions[g] (an id in its decision's frame, legal) for g in lo:hi; ended[g]: the hand\n"
"ended. The games that go on get their next observation (with with_obs) and mask at once, while the game's\n"
"state is in the cache.");

static PyObject *Batch_step_all(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, width = 0, n = self->s.n;
    int with_obs;
    PyObject *result = NULL;
    Scratch w = {0};
    const Tables *t = &self->t;
    if (arg_count("step_all(actions, ended, obs, mask, with_obs, lo, hi, c)", nargs, 5, 8) < 0)
        return NULL;
    const int64_t *actions = array_arg(&h, args[0], "actions", KIND_INT, 8, 1, 0, n, ANY, ANY);
    uint8_t *ended = actions ? array_arg(&h, args[1], "ended", KIND_BOOL, 1, 1, 1, n, ANY, ANY) : NULL;
    if (ended == NULL || bool_arg(args[4], &with_obs) < 0)
        goto done;
    float *obs = obs_arg(&h, args[2], self, with_obs, &width);
    uint8_t *mask = obs ? mask_arg(&h, args[3], self, n) : NULL;
    if (mask == NULL || range_args(args, nargs, 5, n, &lo, &hi) < 0
            || check_actions(actions, lo, hi, t->n_actions) < 0 || scratch_new(&w, t, 0, 0) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t g = lo; g < hi; g++) {
        Game G = game_at(&self->s, g);
        int over = apply(&G, t->to_abs[G.st[FRAME] * t->to_abs_c + actions[g]], t);
        ended[g] = (uint8_t)over;
        if (!over)
            decide(&G, obs + g * width, mask + g * t->n_actions, w.raw, w.amask, t, with_obs);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(w.block);
    release(&h);
    return result;
}

PyDoc_STRVAR(step_games_doc,
"step_games(games, actions, ended, observe, obs, mask, with_obs, lo=0, hi=len(games), c=0)\n--\n\n"
"step_all for the games games[lo:hi] alone (actions[i] for games[i]; ended[i]); a game that goes on is observed\n"
"only for a seat that observe[g, seat] marks: any other seat to act gets its legal mask in absolute ids and the\n"
"frame tables.identity (whose ids are the absolute ones), not encoded.");

/* the next decision of a game that goes on: observed if observe marks its seat to act, else its absolute mask */
static inline void next_decision(Game *G, const uint8_t *observe_row, float *obs, uint8_t *mask, Scratch *w,
                                 const Tables *t, int with_obs)
{
    if (observe_row[G->st[CUR] & 3]) {
        decide(G, obs, mask, w->raw, w->amask, t, with_obs);
    } else {
        legal_mask(G, t, mask);
        G->st[FRAME] = (int32_t)t->identity;
    }
}

static PyObject *Batch_step_games(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, width = 0, n = self->s.n;
    int with_obs;
    PyObject *result = NULL;
    Scratch w = {0};
    const Tables *t = &self->t;
    if (arg_count("step_games(games, actions, ended, observe, obs, mask, with_obs, lo, hi, c)", nargs, 7, 10) < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL || bool_arg(args[6], &with_obs) < 0)
        goto done;
    int64_t k = last_dim(&h, 0);
    const int64_t *actions = array_arg(&h, args[1], "actions", KIND_INT, 8, 1, 0, k, ANY, ANY);
    uint8_t *ended = actions ? array_arg(&h, args[2], "ended", KIND_BOOL, 1, 1, 1, k, ANY, ANY) : NULL;
    const uint8_t *observe = ended ? array_arg(&h, args[3], "observe", KIND_BOOL, 1, 2, 0, n, 4, ANY) : NULL;
    float *obs = observe ? obs_arg(&h, args[4], self, with_obs, &width) : NULL;
    uint8_t *mask = obs ? mask_arg(&h, args[5], self, n) : NULL;
    if (mask == NULL || range_args(args, nargs, 7, k, &lo, &hi) < 0 || check_games(games, lo, hi, n) < 0
            || check_actions(actions, lo, hi, t->n_actions) < 0 || scratch_new(&w, t, 0, 0) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = lo; i < hi; i++) {
        int64_t g = games[i];
        Game G = game_at(&self->s, g);
        int over = apply(&G, t->to_abs[G.st[FRAME] * t->to_abs_c + actions[i]], t);
        ended[i] = (uint8_t)over;
        if (!over)
            next_decision(&G, observe + 4 * g, obs + g * width, mask + g * t->n_actions, &w, t, with_obs);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(w.block);
    release(&h);
    return result;
}

PyDoc_STRVAR(start_hands_doc,
"start_hands(games, cards, upcards, lo=0, hi=len(games), c=0)\n--\n\n"
"A new hand in each of games[lo:hi] (GameState._start_hand): cards[i] (int16 [4, width], -1 padded) and\n"
"upcards[i] (-1: none) for games[i], whose dealer st[g, DEALER] is set.");

static PyObject *Batch_start_hands(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi;
    PyObject *result = NULL;
    const Tables *t = &self->t;
    if (arg_count("start_hands(games, cards, upcards, lo, hi, c)", nargs, 3, 6) < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL)
        goto done;
    int64_t k = last_dim(&h, 0);
    const int16_t *cards = array_arg(&h, args[1], "cards", KIND_INT, 2, 3, 0, k, 4, ANY);
    if (cards == NULL)
        goto done;
    int64_t width = last_dim(&h, 2);
    const int32_t *upcards = array_arg(&h, args[2], "upcards", KIND_INT, 4, 1, 0, k, ANY, ANY);
    if (upcards == NULL || range_args(args, nargs, 3, k, &lo, &hi) < 0 || check_games(games, lo, hi, self->s.n) < 0)
        goto done;
    for (int64_t i = lo * 4 * width; i < hi * 4 * width; i++) {
        if (cards[i] >= t->nids) {
            PyErr_SetString(PyExc_ValueError, "cards: a card id out of range");
            goto done;
        }
    }
    for (int64_t i = lo; i < hi; i++) {
        if (upcards[i] < -1 || upcards[i] >= t->nids) {
            PyErr_SetString(PyExc_ValueError, "upcards: a card id out of range");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = lo; i < hi; i++) {
        Game G = game_at(&self->s, games[i]);
        start_hand(&G, cards + i * 4 * width, width, upcards[i], t);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

static int needs(const BatchObject *self, int deals, const char *what)
{
    if ((!deals || self->has_deals) && self->has_episodes)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: this Batch was made without its %s", what, deals ? "deals and episodes"
                 : "episodes");
    return -1;
}

PyDoc_STRVAR(hand_ends_doc,
"hand_ends(games, rewards, done, truncated, slot)\n--\n\n"
"The first pass of the end of the hands of games (they ended at this step), in order: each game's rewards\n"
"(team 0's, seats 0 and 2, from the episodes' options: episodes.hand_end_reward; the other team's the\n"
"opposite), done (the episode ended) and truncated (cut by max_hands); slot[i]: the row of the final\n"
"observations that the episode of games[i] takes when it ended (counting the episodes ended before), else -1.");

static PyObject *Batch_hand_ends(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    PyObject *result = NULL;
    int64_t n = self->s.n;
    if (arg_count("hand_ends(games, rewards, done, truncated, slot)", nargs, 5, 5) < 0
            || needs(self, 0, "hand_ends") < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL)
        goto done;
    int64_t k = last_dim(&h, 0);
    float *rewards = array_arg(&h, args[1], "rewards", KIND_FLOAT, 4, 2, 1, n, 4, ANY);
    uint8_t *is_done = rewards ? array_arg(&h, args[2], "done", KIND_BOOL, 1, 1, 1, n, ANY, ANY) : NULL;
    uint8_t *truncated = is_done ? array_arg(&h, args[3], "truncated", KIND_BOOL, 1, 1, 1, n, ANY, ANY) : NULL;
    int64_t *slot = truncated ? array_arg(&h, args[4], "slot", KIND_INT, 8, 1, 1, k, ANY, ANY) : NULL;
    if (slot == NULL || check_games(games, 0, k, n) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    int64_t m = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t g = games[i];
        double team0;
        int ended, cut;
        hand_outcome(self->s.st + g * NF, &self->e, &team0, &ended, &cut);
        float *r = rewards + 4 * g;
        r[0] = r[2] = (float)team0;
        r[1] = r[3] = (float)-team0;
        is_done[g] = (uint8_t)(ended || cut);
        truncated[g] = (uint8_t)cut;
        slot[i] = ended || cut ? m++ : -1;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(deal_on_games_doc,
"deal_on_games(games, slot, final, observe, obs, mask, lo=0, hi=len(games), c=0)\n--\n\n"
"The second pass of the end of the hands of games[lo:hi]: where slot[i] >= 0 (the episode ended) and the\n"
"episodes encode observations, the last observations of the seats observe[g] marks into final[slot[i], seat]\n"
"(the other rows are left as they were); then every game deals on (the next hand, or with slot[i] >= 0 a new\n"
"game) with uniforms from its own stream, and the new hand's first mask is written, with its observation if\n"
"observe marks the seat to act, else (as step_games leaves an unmarked seat) in absolute ids under the frame\n"
"tables.identity.");

static PyObject *Batch_deal_on_games(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, width = 0, n = self->s.n;
    PyObject *result = NULL;
    Scratch w = {0};
    const Tables *t = &self->t;
    if (arg_count("deal_on_games(games, slot, final, observe, obs, mask, lo, hi, c)", nargs, 6, 9) < 0
            || needs(self, 1, "deal_on_games") < 0)
        return NULL;
    const int with_obs = self->e.with_obs;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL)
        goto done;
    int64_t k = last_dim(&h, 0);
    const int64_t *slot = array_arg(&h, args[1], "slot", KIND_INT, 8, 1, 0, k, ANY, ANY);
    float *final = slot ? array_arg(&h, args[2], "final", KIND_FLOAT, 4, 3, 1, ANY, 4,
                                    with_obs ? t->obs_size : ANY) : NULL;
    if (final == NULL)
        goto done;
    int64_t rows = last_dim(&h, 0), final_width = last_dim(&h, 2);
    const uint8_t *observe = array_arg(&h, args[3], "observe", KIND_BOOL, 1, 2, 0, n, 4, ANY);
    float *obs = observe ? obs_arg(&h, args[4], self, with_obs, &width) : NULL;
    uint8_t *mask = obs ? mask_arg(&h, args[5], self, n) : NULL;
    if (mask == NULL || range_args(args, nargs, 6, k, &lo, &hi) < 0 || check_games(games, lo, hi, n) < 0
            || scratch_new(&w, t, self->d.npack + 1, 0) < 0)
        goto done;
    for (int64_t i = lo; i < hi; i++) {
        if (with_obs && slot[i] >= rows) {
            PyErr_Format(PyExc_IndexError, "slot[%lld] = %lld: final has %lld rows", (long long)i,
                         (long long)slot[i], (long long)rows);
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = lo; i < hi; i++) {
        int64_t g = games[i];
        Game G = game_at(&self->s, g);
        const uint8_t *marks = observe + 4 * g;
        if (slot[i] >= 0 && with_obs) {
            for (int seat = 0; seat < 4; seat++)
                if (marks[seat])
                    encode_seat(&G, seat, final + (slot[i] * 4 + seat) * final_width, w.raw, t);
        }
        stream_uniforms(self->d.streams + g, w.u, self->d.npack + 1);
        deal_on(&G, &self->d, g, slot[i] >= 0, w.u, t);
        next_decision(&G, marks, obs + g * width, mask + g * t->n_actions, &w, t, with_obs);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(w.block);
    release(&h);
    return result;
}

static PyObject *Batch_get_num_games(BatchObject *self, void *closure)
{
    return PyLong_FromLongLong(self->s.n);
}

static PyObject *Batch_get_obs_size(BatchObject *self, void *closure)
{
    return PyLong_FromLongLong(self->t.obs_size);
}

#include "whole_step.h" /* Batch.single_seat_step: the env's whole single-seat step, on the helpers above */

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

static PyMethodDef Batch_methods[] = {
    {"observe_games", FASTCALL(Batch_observe_games), observe_games_doc},
    {"observe_games_sparse", FASTCALL(Batch_observe_games_sparse), observe_games_sparse_doc},
    {"step_all", FASTCALL(Batch_step_all), step_all_doc},
    {"step_games", FASTCALL(Batch_step_games), step_games_doc},
    {"start_hands", FASTCALL(Batch_start_hands), start_hands_doc},
    {"hand_ends", FASTCALL(Batch_hand_ends), hand_ends_doc},
    {"deal_on_games", FASTCALL(Batch_deal_on_games), deal_on_games_doc},
    {"single_seat_step", FASTCALL(Batch_single_seat_step), single_seat_step_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Batch_getset[] = {
    {"num_games", (getter)Batch_get_num_games, NULL, "the games' count", NULL},
    {"obs_size", (getter)Batch_get_obs_size, NULL, "an observation's size under the tables", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Batch_doc,
"Batch(arrays, tables, deals=None, episodes=None)\n--\n\n"
"The batch kernels over the games arrays (layout.GameArrays) under tables (layout.Tables); deals\n"
"(layout.DealBuffers) and episodes (layout.Episodes) for the ends of hands. The arrays' views are held for the\n"
"object's life: the arrays must not be resized (NumPy refuses to while they are held).");

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "euchre_env.compiled._core.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Batch_doc,
    .tp_new = Batch_new,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
    .tp_getset = Batch_getset,
};

/* ============================================================================================ Game */
#define MAX_PACK 256

typedef struct {
    PyObject_HEAD
    Held held;
    Tables t;
    Games s;
    Game G;
    int8_t *mask;     /* [n_actions]: the decision's mask (int8 0/1) */
    float *obs;       /* [obs_size]: its observation */
    int16_t *history; /* the hand's actions (absolute ids): the count, then the ids */
    int64_t history_len;
    Scratch w;
} GameObject;

static void Game_dealloc(GameObject *self)
{
    release(&self->held);
    free(self->w.block);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Game_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"arrays", "tables", "mask", "obs", "history", NULL};
    PyObject *arrays, *tables, *mask, *obs, *history;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO:Game", names, &arrays, &tables, &mask, &obs, &history))
        return NULL;
    GameObject *self = (GameObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Held *h = &self->held;
    if (tables_from(tables, &self->t, h) < 0 || games_from(arrays, &self->s, h) < 0
            || tables_fit(&self->t, &self->s) < 0)
        goto fail;
    if (self->s.n != 1) {
        PyErr_SetString(PyExc_ValueError, "Game: the arrays of one game expected");
        goto fail;
    }
    self->G = game_at(&self->s, 0);
    if (!(self->mask = array_arg(h, mask, "mask", KIND_BOOL, 1, 1, 1, self->t.n_actions, ANY, ANY))
            || !(self->obs = array_arg(h, obs, "obs", KIND_FLOAT, 4, 1, 1, self->t.obs_size, ANY, ANY))
            || !(self->history = array_arg(h, history, "history", KIND_INT, 2, 1, 1, ANY, ANY, ANY)))
        goto fail;
    self->history_len = last_dim(h, 0);
    if (self->history_len < 1) {
        PyErr_SetString(PyExc_ValueError, "history: room for its count at least");
        goto fail;
    }
    if (scratch_new(&self->w, &self->t, 0, 0) < 0)
        goto fail;
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* a hand of the one game, then its first decision; with new_game a new game first, at score0 / score1 */
static int64_t game_start(GameObject *self, const int16_t *deal, int64_t width, int64_t upcard, int new_game,
                          int64_t score0, int64_t score1)
{
    int32_t *st = self->G.st;
    if (new_game) {
        int32_t dealer = st[DEALER];
        memset(st, 0, NF * sizeof(int32_t));
        st[DEALER] = dealer;
        st[WINNER] = -1;
        st[SC] = (int32_t)score0;
        st[SC + 1] = (int32_t)score1;
    }
    self->history[0] = 0;
    start_hand(&self->G, deal, width, upcard, &self->t);
    decide(&self->G, self->obs, (uint8_t *)self->mask, self->w.raw, self->w.amask, &self->t, 1);
    return st[CUR];
}

static int scores_args(PyObject *const *args, int *new_game, int64_t *s0, int64_t *s1)
{
    if (bool_arg(args[0], new_game) < 0 || int_arg(args[1], "score0", s0) < 0 || int_arg(args[2], "score1", s1) < 0)
        return -1;
    return 0;
}

static PyObject *Game_start(GameObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t upcard, s0, s1;
    int new_game;
    PyObject *result = NULL;
    if (arg_count("start(deal, upcard, new_game, score0, score1)", nargs, 5, 5) < 0)
        return NULL;
    const int16_t *deal = array_arg(&h, args[0], "deal", KIND_INT, 2, 2, 0, 4, ANY, ANY);
    if (deal == NULL || int_arg(args[1], "upcard", &upcard) < 0 || scores_args(args + 2, &new_game, &s0, &s1) < 0)
        goto done;
    int64_t width = last_dim(&h, 1);
    for (int64_t i = 0; i < 4 * width; i++) {
        if (deal[i] >= self->t.nids) {
            PyErr_SetString(PyExc_ValueError, "deal: a card id out of range");
            goto done;
        }
    }
    if (upcard < -1 || upcard >= self->t.nids) {
        PyErr_SetString(PyExc_ValueError, "upcard: a card id out of range");
        goto done;
    }
    result = PyLong_FromLongLong(game_start(self, deal, width, upcard, new_game, s0, s1));
done:
    release(&h);
    return result;
}

static PyObject *Game_deal(GameObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t s0, s1;
    int new_game;
    PyObject *result = NULL;
    const int64_t *opt = self->t.opt;
    if (arg_count("deal(order, new_game, score0, score1)", nargs, 4, 4) < 0)
        return NULL;
    const int64_t *order = array_arg(&h, args[0], "order", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (order == NULL || scores_args(args + 1, &new_game, &s0, &s1) < 0)
        goto done;
    int64_t npack = last_dim(&h, 0), tricks = self->t.tricks;
    int is_bid = opt[O_BID] != 0, extra = is_bid && opt[O_JOKER] >= 0;
    int64_t width = tricks + extra;
    if (npack > MAX_PACK || npack < 4 * tricks + extra + !is_bid) {
        PyErr_SetString(PyExc_ValueError, "order: not a pack of these rules");
        goto done;
    }
    int16_t pack[MAX_PACK], cards[4 * MAX_PACK];
    for (int64_t i = 0; i < npack; i++) {
        if ((uint64_t)order[i] >= (uint64_t)self->t.nids) {
            PyErr_SetString(PyExc_ValueError, "order: a card id out of range");
            goto done;
        }
        pack[i] = (int16_t)order[i];
    }
    for (int64_t i = 0; i < 4 * width; i++)
        cards[i] = -1;
    int64_t upcard = lay_out(pack, self->G.st[DEALER], tricks, extra, is_bid, cards, width);
    result = PyLong_FromLongLong(game_start(self, cards, width, upcard, new_game, s0, s1));
done:
    release(&h);
    return result;
}

/* step(action): apply action (an id in the decision's frame), then unless the hand ended decide the next seat's
   observation and mask. The seat to act, -1 if the hand ended, -2 (nothing changed) if the mask does not allow
   the action. The absolute id joins the history. */
static PyObject *Game_step(GameObject *self, PyObject *arg)
{
    long action = PyLong_AsLong(arg);
    if (action == -1 && PyErr_Occurred())
        return NULL;
    const Tables *t = &self->t;
    if (action < 0)
        action += (long)t->n_actions; /* a negative index wraps, as Numba's did */
    if (action < 0 || action >= t->n_actions) {
        PyErr_SetString(PyExc_IndexError, "action out of range");
        return NULL;
    }
    if (!self->mask[action])
        return PyLong_FromLong(-2);
    Game *G = &self->G;
    int64_t a = t->to_abs[G->st[FRAME] * t->to_abs_c + action];
    int16_t *history = self->history;
    if (history[0] + 1 < self->history_len) { /* a hand has fewer decisions than its room: never full */
        history[0] = (int16_t)(history[0] + 1);
        history[history[0]] = (int16_t)a;
    }
    if (apply(G, a, t))
        return PyLong_FromLong(-1);
    decide(G, self->obs, (uint8_t *)self->mask, self->w.raw, self->w.amask, t, 1);
    return PyLong_FromLong(G->st[CUR]);
}

static PyObject *Game_encode_seats(GameObject *self, PyObject *arg)
{
    Held h = {.n = 0};
    const Tables *t = &self->t;
    float *out = array_arg(&h, arg, "out", KIND_FLOAT, 4, 2, 1, 4, t->obs_size, ANY);
    if (out == NULL) {
        release(&h);
        return NULL;
    }
    for (int seat = 0; seat < 4; seat++)
        encode_seat(&self->G, seat, out + seat * t->obs_size, self->w.raw, t);
    release(&h);
    Py_RETURN_NONE;
}

static PyMethodDef Game_methods[] = {
    {"start", FASTCALL(Game_start),
     "start(deal, upcard, new_game, score0, score1) -> seat\n--\n\n"
     "A hand of the game from deal (int16 [4, width], -1 padded; st[0, DEALER] set) and upcard (-1: none), then\n"
     "its first decision; with new_game a new game first, at the scores score0 / score1. The seat to act."},
    {"deal", FASTCALL(Game_deal),
     "deal(order, new_game, score0, score1) -> seat\n--\n\n"
     "start with the pack in order (int64 card ids) dealt as deals.deal_from_order deals it."},
    {"step", (PyCFunction)Game_step, METH_O,
     "step(action) -> seat\n--\n\n"
     "Apply action (an id in the decision's frame), then unless the hand ended decide the next seat's\n"
     "observation and mask. The seat to act, -1 if the hand ended, -2 (nothing changed) if the mask does not\n"
     "allow the action. The absolute id joins the history."},
    {"encode_seats", (PyCFunction)Game_encode_seats, METH_O,
     "encode_seats(out)\n--\n\nThe observation of every seat now (as a decision shows it): out[seat], float32 "
     "[4, obs size]."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GameType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "euchre_env.compiled._core.Game",
    .tp_basicsize = sizeof(GameObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Game(arrays, tables, mask, obs, history)\n--\n\n"
              "One game (arrays: a layout.GameArrays of one game) under tables (layout.Tables): the AEC env's\n"
              "decisions (compiled.game.CompiledGame). mask (int8 [actions]), obs (float32 [obs size]) and history\n"
              "(int16: this hand's count of actions, then their absolute ids) are written at every step.",
    .tp_new = Game_new,
    .tp_dealloc = (destructor)Game_dealloc,
    .tp_methods = Game_methods,
};

/* ============================================================================================ functions */
/* the sum of eight 0/1 bytes: the top byte of the word times 0x0101010101010101 (no lane carries past 8) */
static inline int64_t byte_sum(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return (int64_t)((w * 0x0101010101010101ULL) >> 56);
}

PyDoc_STRVAR(random_actions_doc,
"random_actions(mask, u, out, lo=0, hi=len(mask), c=0)\n--\n\n"
"A uniformly random legal action for each row g in lo:hi of mask from the uniform u[g]: with k legal ids, the\n"
"int(u[g] * k)-th of them (for benchmarks and tests; every row allows one).");

static PyObject *core_random_actions(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi;
    PyObject *result = NULL;
    if (arg_count("random_actions(mask, u, out, lo, hi, c)", nargs, 3, 6) < 0)
        return NULL;
    const uint8_t *mask = array_arg(&h, args[0], "mask", KIND_BOOL, 1, 2, 0, ANY, ANY, ANY);
    if (mask == NULL)
        goto done;
    int64_t n = last_dim(&h, 0), na = last_dim(&h, 1);
    const double *u = array_arg(&h, args[1], "u", KIND_FLOAT, 8, 1, 0, n, ANY, ANY);
    int64_t *out = u ? array_arg(&h, args[2], "out", KIND_INT, 8, 1, 1, n, ANY, ANY) : NULL;
    if (out == NULL || range_args(args, nargs, 3, n, &lo, &hi) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    const int64_t words = na / 8;
    for (int64_t g = lo; g < hi; g++) {
        const uint8_t *row = mask + g * na;
        int64_t count = 0;
        for (int64_t i = 0; i < words; i++) /* eight 0/1 entries at a time */
            count += byte_sum(row + 8 * i);
        for (int64_t a = 8 * words; a < na; a++)
            count += row[a];
        int64_t pick = (int64_t)(u[g] * (double)count);
        /* The pick-th legal id (from 0) is the number of ids up to which at most pick are legal: whole words
           while they stay within pick, then the entries of the word that passes it (or of the tail), counted
           without a branch an entry (a branch on each legal id is a guess the predictor mostly loses); the
           entries after it add nothing. */
        int64_t seen = 0, a = 0;
        for (; a + 8 <= na; a += 8) {
            int64_t next = seen + byte_sum(row + a);
            if (next > pick)
                break;
            seen = next;
        }
        int64_t at = a;
        for (int64_t end = a + 8 < na ? a + 8 : na; a < end; a++) {
            seen += row[a];
            at += seen <= pick;
        }
        out[g] = at;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(first_illegal_doc,
"first_illegal(mask, actions) -> int\n--\n\n"
"The index of the first row whose action is not legal in its mask (out of range included); -1: all legal.");

static PyObject *core_first_illegal(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    PyObject *result = NULL;
    if (arg_count("first_illegal(mask, actions)", nargs, 2, 2) < 0)
        return NULL;
    const uint8_t *mask = array_arg(&h, args[0], "mask", KIND_BOOL, 1, 2, 0, ANY, ANY, ANY);
    if (mask == NULL)
        goto done;
    int64_t n = last_dim(&h, 0), na = last_dim(&h, 1);
    const int64_t *actions = array_arg(&h, args[1], "actions", KIND_INT, 8, 1, 0, n, ANY, ANY);
    if (actions == NULL)
        goto done;
    int64_t found = -1;
    for (int64_t g = 0; g < n; g++) {
        int64_t a = actions[g];
        if (a < 0 || a >= na || !mask[g * na + a]) {
            found = g;
            break;
        }
    }
    result = PyLong_FromLongLong(found);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(shuffled_deals_doc,
"shuffled_deals(u, pack, dealers, tricks, extra, is_bid, cards, upcards, lo=0, hi=len(u), c=0)\n--\n\n"
"Random deals in deals.random_deal's layout (blocks of tricks cards from the dealer's left, then with extra a\n"
"card more for the dealer, then the up-card unless is_bid), one per row i in lo:hi of u: the pack shuffled by\n"
"Fisher-Yates with the uniforms u[i]. cards: int16 [k, 4, tricks + extra] (written where dealt), upcards:\n"
"int32 [k].");

static PyObject *core_shuffled_deals(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, tricks;
    int extra, is_bid;
    PyObject *result = NULL;
    if (arg_count("shuffled_deals(u, pack, dealers, tricks, extra, is_bid, cards, upcards, lo, hi, c)", nargs, 8,
                  11) < 0)
        return NULL;
    const double *u = array_arg(&h, args[0], "u", KIND_FLOAT, 8, 2, 0, ANY, ANY, ANY);
    if (u == NULL)
        goto done;
    int64_t k = last_dim(&h, 0), nu = last_dim(&h, 1);
    const int16_t *pack = array_arg(&h, args[1], "pack", KIND_INT, 2, 1, 0, ANY, ANY, ANY);
    if (pack == NULL)
        goto done;
    int64_t npack = last_dim(&h, 0);
    const int64_t *dealers = array_arg(&h, args[2], "dealers", KIND_INT, 8, 1, 0, k, ANY, ANY);
    if (dealers == NULL || int_arg(args[3], "tricks", &tricks) < 0 || bool_arg(args[4], &extra) < 0
            || bool_arg(args[5], &is_bid) < 0)
        goto done;
    int16_t *cards = array_arg(&h, args[6], "cards", KIND_INT, 2, 3, 1, k, 4, ANY);
    if (cards == NULL)
        goto done;
    int64_t width = last_dim(&h, 2);
    int32_t *upcards = array_arg(&h, args[7], "upcards", KIND_INT, 4, 1, 1, k, ANY, ANY);
    if (upcards == NULL || range_args(args, nargs, 8, k, &lo, &hi) < 0)
        goto done;
    if (tricks < 0 || width < tricks + extra || npack > MAX_PACK || npack < 4 * tricks + extra + !is_bid
            || nu + 1 < npack) {
        PyErr_SetString(PyExc_ValueError, "shuffled_deals: the pack, the uniforms and the cards do not fit");
        goto done;
    }
    for (int64_t i = lo; i < hi; i++) {
        if ((uint64_t)dealers[i] > 3) {
            PyErr_SetString(PyExc_ValueError, "dealers: a seat 0..3 each");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    int16_t order[MAX_PACK];
    for (int64_t i = lo; i < hi; i++) {
        shuffle(u + i * nu, pack, npack, order);
        upcards[i] = (int32_t)lay_out(order, dealers[i], tricks, extra, is_bid, cards + i * 4 * width, width);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(compact_sparse_doc,
"compact_sparse(ptr, col, val, width, slices)\n--\n\n"
"After observe_games_sparse ran in slices (native.slice_bounds(len(ptr) - 1, slices), each writing its entries\n"
"from its first row times width on), the slices' entries moved together in order, and ptr made to match.");

static PyObject *core_compact_sparse(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t width, slices;
    PyObject *result = NULL;
    if (arg_count("compact_sparse(ptr, col, val, width, slices)", nargs, 5, 5) < 0)
        return NULL;
    int64_t *ptr = array_arg(&h, args[0], "ptr", KIND_INT, 8, 1, 1, ANY, ANY, ANY);
    if (ptr == NULL)
        goto done;
    int64_t n = last_dim(&h, 0) - 1;
    int32_t *col = array_arg(&h, args[1], "col", KIND_INT, 4, 1, 1, ANY, ANY, ANY);
    if (col == NULL)
        goto done;
    int64_t ncol = last_dim(&h, 0);
    float *val = array_arg(&h, args[2], "val", KIND_FLOAT, 4, 1, 1, ANY, ANY, ANY);
    if (val == NULL || int_arg(args[3], "width", &width) < 0 || int_arg(args[4], "slices", &slices) < 0)
        goto done;
    if (n < 0 || slices < 1 || width < 0 || ncol < n * width || last_dim(&h, 0) < n * width) {
        PyErr_SetString(PyExc_ValueError, "compact_sparse: the entries do not fit the rows");
        goto done;
    }
    for (int64_t c = 0; c < slices; c++) { /* each slice's rows end within its own room */
        int64_t lo = n * c / slices, hi = n * (c + 1) / slices;
        if (hi > lo && (ptr[hi] < lo * width || ptr[hi] > hi * width)) {
            PyErr_SetString(PyExc_ValueError, "compact_sparse: ptr does not hold slices' entries");
            goto done;
        }
    }
    ptr[0] = 0;
    int64_t end = 0;
    for (int64_t c = 0; c < slices; c++) { /* in order: a slice only moves down */
        int64_t lo = n * c / slices, hi = n * (c + 1) / slices;
        int64_t start = lo * width, count = hi > lo ? ptr[hi] - start : 0;
        memmove(col + end, col + start, (size_t)count * sizeof(int32_t));
        memmove(val + end, val + start, (size_t)count * sizeof(float));
        for (int64_t i = lo; i < hi; i++)
            ptr[i + 1] += end - start;
        end += count;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(stream_uniforms_doc,
"stream_uniforms(streams, g, out)\n--\n\n"
"out (float64): uniforms in [0, 1) drawn from game g's splitmix64 stream, whose state streams[g] (uint64) moves\n"
"on: the draws of a game's next deal.");

static PyObject *core_stream_uniforms(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t g;
    PyObject *result = NULL;
    if (arg_count("stream_uniforms(streams, g, out)", nargs, 3, 3) < 0)
        return NULL;
    uint64_t *streams = array_arg(&h, args[0], "streams", KIND_UINT, 8, 1, 1, ANY, ANY, ANY);
    if (streams == NULL || int_arg(args[1], "g", &g) < 0)
        goto done;
    if ((uint64_t)g >= (uint64_t)last_dim(&h, 0)) {
        PyErr_SetString(PyExc_IndexError, "g: not a game of streams");
        goto done;
    }
    double *out = array_arg(&h, args[2], "out", KIND_FLOAT, 8, 1, 1, ANY, ANY, ANY);
    if (out == NULL)
        goto done;
    stream_uniforms(streams + g, out, last_dim(&h, 0));
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(seed_words_doc,
"seed_words(seed) -> (w0, w1, w2, w3)\n--\n\n"
"The four 64-bit words np.random.SeedSequence(seed).generate_state(4, np.uint64) for a seed 0 .. 2**64 - 1.");

static PyObject *core_seed_words(PyObject *module, PyObject *arg)
{
    PyObject *index = PyNumber_Index(arg);
    if (index == NULL)
        return NULL;
    unsigned long long seed = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (seed == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    uint64_t w[4];
    seed_words((uint64_t)seed, w);
    return Py_BuildValue("(KKKK)", (unsigned long long)w[0], (unsigned long long)w[1], (unsigned long long)w[2],
                         (unsigned long long)w[3]);
}

PyDoc_STRVAR(learner_decisions_doc,
"learner_decisions(rewards, pending, decided)\n--\n\n"
"Every game's learner makes its decision of this step (every game was at a learner decision): its reward\n"
"starts with the points of the hands that ended before its first decision in the episode (pending), and its\n"
"episode has a decision (decided).");

static PyObject *core_learner_decisions(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    PyObject *result = NULL;
    if (arg_count("learner_decisions(rewards, pending, decided)", nargs, 3, 3) < 0)
        return NULL;
    float *rewards = array_arg(&h, args[0], "rewards", KIND_FLOAT, 4, 1, 1, ANY, ANY, ANY);
    if (rewards == NULL)
        goto done;
    int64_t n = last_dim(&h, 0);
    float *pending = array_arg(&h, args[1], "pending", KIND_FLOAT, 4, 1, 1, n, ANY, ANY);
    uint8_t *decided = pending ? array_arg(&h, args[2], "decided", KIND_BOOL, 1, 1, 1, n, ANY, ANY) : NULL;
    if (decided == NULL)
        goto done;
    for (int64_t g = 0; g < n; g++)
        learner_decides(g, rewards, pending, decided);
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

PyDoc_STRVAR(account_hands_doc,
"account_hands(games, gains, episode_over, cut, rewards, pending, decided, has_final, terminated, truncated,\n"
"codes)\n--\n\n"
"The hands of games ended, in turn: games[i]'s with gains[i] points for the learner's team (episode_over[i]:\n"
"its episode too, cut[i]: by max_hands), into the env's accounts (rewards, pending, decided: a row a game) and\n"
"the step's ends (has_final, terminated, truncated); codes[i]: HAND_ONLY, LEARNER_END or DEALT_AGAIN.");

static PyObject *core_account_hands(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    PyObject *result = NULL;
    static const char *names[] = {"rewards", "pending", "decided", "has_final", "terminated", "truncated"};
    void *per_game[6];
    if (arg_count("account_hands(games, gains, episode_over, cut, rewards, pending, decided, has_final, "
                  "terminated, truncated, codes)", nargs, 11, 11) < 0)
        return NULL;
    const int64_t *games = array_arg(&h, args[0], "games", KIND_INT, 8, 1, 0, ANY, ANY, ANY);
    if (games == NULL)
        goto done;
    int64_t k = last_dim(&h, 0);
    const float *gains = array_arg(&h, args[1], "gains", KIND_FLOAT, 4, 1, 0, k, ANY, ANY);
    const uint8_t *over = gains ? array_arg(&h, args[2], "episode_over", KIND_BOOL, 1, 1, 0, k, ANY, ANY) : NULL;
    const uint8_t *cut = over ? array_arg(&h, args[3], "cut", KIND_BOOL, 1, 1, 0, k, ANY, ANY) : NULL;
    if (cut == NULL)
        goto done;
    int64_t n = ANY;
    for (int i = 0; i < 6; i++) {
        per_game[i] = array_arg(&h, args[4 + i], names[i], i < 2 ? KIND_FLOAT : KIND_BOOL, i < 2 ? 4 : 1, 1, 1, n,
                                ANY, ANY);
        if (per_game[i] == NULL)
            goto done;
        n = last_dim(&h, 0);
    }
    int64_t *codes = array_arg(&h, args[10], "codes", KIND_INT, 8, 1, 1, k, ANY, ANY);
    if (codes == NULL || check_games(games, 0, k, n) < 0)
        goto done;
    for (int64_t i = 0; i < k; i++)
        codes[i] = account_hand(games[i], (double)gains[i], over[i], cut[i], per_game[0], per_game[1], per_game[2],
                                per_game[3], per_game[4], per_game[5]);
    result = Py_None;
    Py_INCREF(result);
done:
    release(&h);
    return result;
}

static PyMethodDef core_methods[] = {
    {"random_actions", FASTCALL(core_random_actions), random_actions_doc},
    {"first_illegal", FASTCALL(core_first_illegal), first_illegal_doc},
    {"shuffled_deals", FASTCALL(core_shuffled_deals), shuffled_deals_doc},
    {"compact_sparse", FASTCALL(core_compact_sparse), compact_sparse_doc},
    {"stream_uniforms", FASTCALL(core_stream_uniforms), stream_uniforms_doc},
    {"seed_words", (PyCFunction)core_seed_words, METH_O, seed_words_doc},
    {"learner_decisions", FASTCALL(core_learner_decisions), learner_decisions_doc},
    {"account_hands", FASTCALL(core_account_hands), account_hands_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core",
    "The compiled core of euchre_env, in C (euchre_env/compiled/c/core.c): the batch kernels (Batch), the AEC\n"
    "env's one game (Game) and the functions of no game state. Built by pip install.",
    -1, core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&BatchType) < 0 || PyType_Ready(&GameType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BatchType);
    Py_INCREF(&GameType);
    if (PyModule_AddObject(m, "Batch", (PyObject *)&BatchType) < 0
            || PyModule_AddObject(m, "Game", (PyObject *)&GameType) < 0
            || PyModule_AddIntConstant(m, "HAND_ONLY", HAND_ONLY) < 0
            || PyModule_AddIntConstant(m, "LEARNER_END", LEARNER_END) < 0
            || PyModule_AddIntConstant(m, "DEALT_AGAIN", DEALT_AGAIN) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
