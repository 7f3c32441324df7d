/* NumPy arrays into the engine's structs, through the buffer protocol (no NumPy C API, so the extensions build
   against any NumPy): one array with its dtype and dimensions checked (take), the Tables bundle
   (layout.Tables) and the games' state (layout.GameArrays). A wrong array is one Python exception naming it,
   what it is and what was expected. The caller keeps the views (Held) for as long as it reads the pointers and
   releases them once (release). */
#ifndef EUCHRE_ARRAYS_H
#define EUCHRE_ARRAYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "engine.h"

/* kinds of element: a format character's class (NumPy's int64 is 'l' on Linux, 'q' on Windows) */
#define KIND_INT 'i'
#define KIND_UINT 'u'
#define KIND_FLOAT 'f'
#define KIND_BOOL 'b'

static char format_kind(const char *format)
{
    if (format == NULL)
        return KIND_UINT; /* plain bytes */
    while (*format == '<' || *format == '=' || *format == '@' || *format == '|')
        format++;
    switch (*format) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        return KIND_INT;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
        return KIND_UINT;
    case 'e': case 'f': case 'd':
        return KIND_FLOAT;
    case '?':
        return KIND_BOOL;
    default:
        return 0;
    }
}

static const char *kind_name(char kind)
{
    return kind == KIND_INT ? "int" : kind == KIND_UINT ? "uint" : kind == KIND_FLOAT ? "float" : "bool";
}

/* ``obj`` as a C-contiguous array of ``ndim`` dimensions (-1: any) of ``itemsize``-byte elements of ``kind``
   (KIND_BOOL also takes a 1-byte int: a mask of 0/1), writable if asked. 0, or -1 with the exception set. */
static int take(PyObject *obj, Py_buffer *view, const char *name, char kind, Py_ssize_t itemsize, int ndim,
                int writable)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a%s C-contiguous NumPy array, got %.80s", name,
                     writable ? " writable" : "", Py_TYPE(obj)->tp_name);
        return -1;
    }
    char got = format_kind(view->format);
    int kind_ok = got == kind || (kind == KIND_BOOL && (got == KIND_INT || got == KIND_UINT) && view->itemsize == 1);
    if (!kind_ok || view->itemsize != itemsize || (ndim >= 0 && view->ndim != ndim)) {
        PyErr_Format(PyExc_TypeError, "%s must be a %d-d %s%d array, got a %d-d array of format '%s' (%zd bytes)",
                     name, ndim, kind_name(kind), (int)(kind == KIND_BOOL ? 8 : 8 * itemsize), view->ndim,
                     view->format ? view->format : "B", view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* the Py_buffer views a struct's pointers read */
#define HELD_MAX 32
typedef struct {
    Py_buffer views[HELD_MAX];
    int n;
} Held;

static void release(Held *held)
{
    for (int i = 0; i < held->n; i++)
        PyBuffer_Release(&held->views[i]);
    held->n = 0;
}

/* item ``i`` of the tuple ``tup`` taken into the next view of ``held``; its data, or NULL with the exception */
static void *take_item(PyObject *tup, Py_ssize_t i, Held *held, const char *name, char kind, Py_ssize_t itemsize,
                       int ndim, int writable)
{
    if (held->n >= HELD_MAX) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays held");
        return NULL;
    }
    PyObject *item = PySequence_GetItem(tup, i);
    if (item == NULL)
        return NULL;
    Py_buffer *view = &held->views[held->n];
    int bad = take(item, view, name, kind, itemsize, ndim, writable);
    Py_DECREF(item);
    if (bad)
        return NULL;
    held->n++;
    return view->buf;
}

static Py_ssize_t held_shape(const Held *held, int back, int dim)
{
    return held->views[held->n - back].shape[dim];
}

static int64_t item_int(PyObject *tup, Py_ssize_t i, int *bad)
{
    PyObject *item = PySequence_GetItem(tup, i);
    if (item == NULL) {
        *bad = 1;
        return 0;
    }
    int64_t v = (int64_t)PyLong_AsLongLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred())
        *bad = 1;
    return v;
}

/* layout.Tables (in its field order) into ``t``; its views go into ``held``. 0, or -1 with the exception. */
static int tables_from(PyObject *bundle, Tables *t, Held *held)
{
    static const char *names[] = {"opt", "tab", "akind", "aarg", "aalone", "eff", "power", "rank", "printed", "rnd",
                                  "off", "leader_at", "card_at", "rnd_off", "rnd_width", "col", "perms", "cands",
                                  "ncands", "to_abs"};
    static const int dims[] = {1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 2, 1, 1, 2, 2, 2, 1, 2};
    const int64_t *p[20];
    Py_ssize_t rows[20], cols[20];
    int start = held->n;
    if (!PySequence_Check(bundle) || PySequence_Size(bundle) != 22) {
        PyErr_SetString(PyExc_TypeError, "tables must be a layout.Tables bundle of 22 fields");
        return -1;
    }
    for (int i = 0; i < 20; i++) {
        p[i] = take_item(bundle, i, held, names[i], KIND_INT, 8, dims[i], 0);
        if (p[i] == NULL)
            goto fail;
        rows[i] = held_shape(held, 1, 0);
        cols[i] = dims[i] == 2 ? held_shape(held, 1, 1) : 1;
    }
    t->opt = p[0], t->tab = p[1], t->akind = p[2], t->aarg = p[3], t->aalone = p[4], t->eff = p[5];
    t->power = p[6], t->rank = p[7], t->printed = p[8], t->rnd = p[9], t->off = p[10], t->leader_at = p[11];
    t->card_at = p[12], t->rnd_off = p[13], t->rnd_width = p[14], t->col = p[15], t->perms = p[16];
    t->cands = p[17], t->ncands = p[18], t->to_abs = p[19];
    t->eff_c = cols[5], t->power_r = rows[6], t->power_c = cols[6], t->card_at_c = cols[12], t->col_c = cols[15];
    t->perms_c = cols[16], t->cands_c = cols[17], t->to_abs_c = cols[19], t->rank_n = rows[7];
    t->printed_n = rows[8];
    t->nids = t->opt[O_NIDS], t->tricks = t->opt[O_TRICKS], t->rounds = rows[13];
    t->n_actions = rows[2];
    int bad = 0;
    t->structured = (int)item_int(bundle, 20, &bad);
    t->identity = item_int(bundle, 21, &bad);
    if (bad)
        goto fail;
    t->raw_size = t->off[B_SIZE];
    t->obs_size = t->structured ? t->off[B_SIZE] : t->off[B_BASE_SIZE];
    return 0;
fail:
    for (int i = start; i < held->n; i++)
        PyBuffer_Release(&held->views[i]);
    held->n = start;
    return -1;
}

/* layout.GameArrays into ``s`` (writable); its views go into ``held``. 0, or -1 with the exception. */
static int games_from(PyObject *arrays, Games *s, Held *held)
{
    int start = held->n;
    if (!PySequence_Check(arrays) || PySequence_Size(arrays) != 6) {
        PyErr_SetString(PyExc_TypeError, "arrays must be a layout.GameArrays bundle of 6 arrays");
        return -1;
    }
    s->st = take_item(arrays, 0, held, "st", KIND_INT, 4, 2, 1);
    if (s->st == NULL)
        goto fail;
    s->n = held_shape(held, 1, 0);
    if (held_shape(held, 1, 1) != NF) {
        PyErr_Format(PyExc_ValueError, "st must have %d fields a game", NF);
        goto fail;
    }
    s->hands = take_item(arrays, 1, held, "hands", KIND_INT, 1, 3, 1);
    if (s->hands == NULL)
        goto fail;
    s->nids = held_shape(held, 1, 2);
    s->dealt = take_item(arrays, 2, held, "dealt", KIND_INT, 1, 3, 1);
    if (s->dealt == NULL)
        goto fail;
    s->tc = take_item(arrays, 3, held, "tc", KIND_INT, 1, 3, 1);
    if (s->tc == NULL)
        goto fail;
    s->tricks = held_shape(held, 1, 1);
    s->ts = take_item(arrays, 4, held, "ts", KIND_INT, 1, 3, 1);
    if (s->ts == NULL)
        goto fail;
    s->calls = take_item(arrays, 5, held, "calls", KIND_INT, 2, 3, 1);
    if (s->calls == NULL)
        goto fail;
    s->rounds = held_shape(held, 1, 1);
    for (int i = start; i < held->n; i++) {
        if (held->views[i].shape[0] != s->n) {
            PyErr_SetString(PyExc_ValueError, "every array of GameArrays must have one row a game");
            goto fail;
        }
    }
    /* the rows' shapes: hands and dealt [n, 4, nids], tc and ts [n, tricks, 4], calls [n, rounds, 4] */
    const Py_buffer *v = held->views + start;
    if (v[1].shape[1] != 4 || v[2].shape[1] != 4 || v[2].shape[2] != s->nids || v[3].shape[2] != 4
            || v[4].shape[1] != s->tricks || v[4].shape[2] != 4 || v[5].shape[2] != 4) {
        PyErr_SetString(PyExc_ValueError, "GameArrays must be hands and dealt [games, 4, cards], tc and ts "
                        "[games, tricks, 4], calls [games, rounds, 4]");
        goto fail;
    }
    return 0;
fail:
    for (int i = start; i < held->n; i++)
        PyBuffer_Release(&held->views[i]);
    held->n = start;
    return -1;
}

#endif
