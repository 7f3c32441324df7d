/* euchre_env.agents.neural._kernels: the networks' CPU kernels beside torch (agents/neural/cpu_kernels.py and
 * sparse_input.py wrap them and say what each computes and why it exists).
 *
 * Every kernel takes NumPy arrays (any object with the buffer protocol: C-contiguous, of the dtype and number of
 * dimensions it names) and ends with (lo, hi, c): it computes rows (or tasks) lo..hi with the GIL released, so
 * euchre_env.compiled.native.run_slices runs a batch's slices on threads; c (the slice's number) is unused, except
 * that c = -N runs lo..hi on N threads of the process's OpenMP team (team.h). A wrong argument raises one
 * ValueError naming the kernel and the argument. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* clang fuses a * b + c by default where the CPU can; GCC does not under -std=c99 */
#endif

#define LOG2E ((float)1.4426950408889634)
/* ln 2 in two parts (Cody and Waite): the first has few enough bits that k * LN2_HI is exact in float32, so the
 * remainder keeps its precision for the large k of the sampler's exponents (down to -87). */
#define LN2_HI 0.693359375f
#define LN2_LO ((float)(0.6931471805599453 - 0.693359375))
#define TANH_ONE_BITS 0x41200000u /* 10.0f: tanh(10) is 1.0 in float32, and exp(20) far from overflowing */
#define ROUNDING 12582912.0f /* 1.5 * 2^23: x + ROUNDING - ROUNDING is x rounded to an integer, for |x| < 2^22 */

static ALWAYS_INLINE float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static ALWAYS_INLINE uint32_t bits_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The kernels twice (rows.h): a copy for any CPU and, with GCC or clang on x86-64, one for AVX2 with FMA (eight
 * floats a vector rather than four, fmaf one instruction rather than a libm call), picked once at import: tanh
 * took 1.4 ms on 4,096 x 256 in the generic copy, 0.45 ms in this one. */
#define KERNEL(name) name##_generic
#define TARGET
#ifdef FP_FAST_FMAF /* fmaf is an instruction on every CPU of this target (e.g. ARM64) */
#define MADD(a, b, c) fmaf(a, b, c)
#else /* fmaf would be a libm call: the product rounded apart instead */
#define MADD(a, b, c) ((a) * (b) + (c))
#endif
#define FLOOR_IS_AN_INSTRUCTION 0 /* floorf: a libm call on x86-64's base instruction set */
#include "rows.h"
#undef KERNEL
#undef TARGET
#undef MADD
#undef FLOOR_IS_AN_INSTRUCTION

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define HAVE_AVX2_COPY 1
#define KERNEL(name) name##_avx2
#define TARGET __attribute__((target("avx2,fma")))
#define MADD(a, b, c) fmaf(a, b, c)
#define FLOOR_IS_AN_INSTRUCTION 1 /* SSE4.1's roundss */
#include "rows.h"
#undef KERNEL
#undef TARGET
#endif

static int use_avx2 = 0; /* set at import */
#ifdef HAVE_AVX2_COPY
#define DISPATCH(name) (use_avx2 ? name##_avx2 : name##_generic)
#else
#define DISPATCH(name) name##_generic
#endif

/* ---------------------------------------------------------------- arguments */

/* An array argument: its buffer, and whether it is held (released by release()). */
typedef struct {
    Py_buffer view;
    int held;
} Arg;

enum { MAX_ARGS = 10 };

typedef struct {
    const char *kernel;
    Arg args[MAX_ARGS];
    int count;
} Args;

/* The dtype of a buffer's format as a NumPy-like letter: 'f' float32, 'd' float64, 'H' uint16, 'i' int32,
 * 'q' int64, or 0. */
static char dtype_of(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN))
        f++;
    if (f[0] == 0 || f[1] != 0)
        return 0;
    switch (f[0]) {
    case 'f': return v->itemsize == 4 ? 'f' : 0;
    case 'd': return v->itemsize == 8 ? 'd' : 0;
    case 'H': return v->itemsize == 2 ? 'H' : 0;
    case 'i': case 'l': case 'q':
        return v->itemsize == 4 ? 'i' : v->itemsize == 8 ? 'q' : 0;
    default: return 0;
    }
}

static const char *dtype_name(char d)
{
    switch (d) {
    case 'f': return "float32";
    case 'd': return "float64";
    case 'H': return "uint16";
    case 'i': return "int32";
    case 'q': return "int64";
    default: return "?";
    }
}

static void release(Args *a)
{
    for (int i = 0; i < a->count; i++)
        if (a->args[i].held)
            PyBuffer_Release(&a->args[i].view);
    a->count = 0;
}

/* The buffer of obj: C-contiguous, of dtype d (or of d2 where d2 is not 0), with ndim dimensions, writable where
 * asked; NULL with a ValueError otherwise. None gives a buffer of no dimensions and no data where none_ok. */
static Py_buffer *array(Args *a, PyObject *obj, const char *name, char d, char d2, int ndim, int writable,
                        int none_ok)
{
    Arg *arg = &a->args[a->count++];
    arg->held = 0;
    if (obj == Py_None && none_ok) {
        memset(&arg->view, 0, sizeof arg->view);
        return &arg->view;
    }
    if (PyObject_GetBuffer(obj, &arg->view, PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Clear();
        goto bad;
    }
    arg->held = 1;
    char got = dtype_of(&arg->view);
    if ((got != d && (d2 == 0 || got != d2)) || arg->view.ndim != ndim || !PyBuffer_IsContiguous(&arg->view, 'C'))
        goto bad;
    return &arg->view;
bad:
    PyErr_Format(PyExc_ValueError, "%s: %s must be a C-contiguous%s %s%s%s array of %d dimension%s%s", a->kernel,
                 name, writable ? ", writable" : "", dtype_name(d), d2 ? " or " : "", d2 ? dtype_name(d2) : "", ndim,
                 ndim == 1 ? "" : "s", none_ok ? " (or None)" : "");
    return NULL;
}

static Py_ssize_t dim(const Py_buffer *v, int i)
{
    return v->ndim > i ? v->shape[i] : 0;
}

static int same_shape(const Py_buffer *a, const Py_buffer *b)
{
    return a->ndim == b->ndim && dim(a, 0) == dim(b, 0) && dim(a, 1) == dim(b, 1);
}

static PyObject *fail(Args *a, PyObject *type, const char *what)
{
    release(a);
    PyErr_Format(type, "%s: %s", a->kernel, what);
    return NULL;
}

#include "team.h"

/* The range lo..hi of n items from the last three arguments (lo, hi, c), and the threads to run it on: c < 0 asks
 * for -c threads of the process's OpenMP team (team.h), else the range is one slice, run here; -1 with an exception
 * if it is not one. */
static int range(Args *a, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t n, Py_ssize_t *lo, Py_ssize_t *hi,
                 int *threads)
{
    *lo = PyLong_AsSsize_t(args[nargs - 3]);
    *hi = PyLong_AsSsize_t(args[nargs - 2]);
    long c = PyLong_AsLong(args[nargs - 1]);
    if (PyErr_Occurred())
        return -1;
    *threads = c < 0 ? (int)(c < -1024 ? 1024 : -c) : 1;
    if (*lo < 0 || *hi > n || *lo > *hi) {
        PyErr_Format(PyExc_ValueError, "%s: rows %zd..%zd of %zd", a->kernel, *lo, *hi, n);
        return -1;
    }
    return 0;
}

#define START(name, n_args)                                                                        \
    Args a;                                                                                        \
    a.kernel = name;                                                                               \
    a.count = 0;                                                                                   \
    if (nargs != (n_args)) {                                                                       \
        PyErr_Format(PyExc_TypeError, "%s takes %d arguments (%zd given)", name, n_args, nargs);   \
        return NULL;                                                                               \
    }

#define NEED(x) \
    if (!(x))   \
        goto error;

/* ---------------------------------------------------------------- tanh */

typedef struct {
    const void *pre;
    int low_in;
    float *y;
    uint16_t *low;
    Py_ssize_t w;
} TanhRows;

static void tanh_rows_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const TanhRows *k = p;
    DISPATCH(tanh_rows)(k->pre, k->low_in, k->y, k->low, k->w, lo, hi);
}

static PyObject *tanh_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("tanh_rows", 6)
    Py_buffer *pre, *y, *low;
    Py_ssize_t lo, hi;
    int threads;
    NEED(pre = array(&a, args[0], "pre", 'f', 'H', 2, 0, 0))
    NEED(y = array(&a, args[1], "y", 'f', 0, 2, 1, 0))
    NEED(low = array(&a, args[2], "low", 'H', 0, 2, 1, 1))
    if (!same_shape(pre, y) || (low->buf && !same_shape(pre, low)))
        return fail(&a, PyExc_ValueError, "pre, y and low must have one shape");
    NEED(range(&a, args, nargs, dim(pre, 0), &lo, &hi, &threads) == 0)
    TanhRows k = {pre->buf, dtype_of(pre) == 'H', y->buf, low->buf, dim(pre, 1)};
    Py_BEGIN_ALLOW_THREADS
    run_parts(tanh_rows_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const float *values;
    uint16_t *low;
    Py_ssize_t w;
} RoundRows;

static void round_rows_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const RoundRows *k = p;
    for (Py_ssize_t i = lo; i < hi; i++)
        DISPATCH(round_row)(k->values + i * k->w, k->low + i * k->w, k->w);
}

static PyObject *round_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("round_rows", 5)
    Py_buffer *values, *low;
    Py_ssize_t lo, hi;
    int threads;
    NEED(values = array(&a, args[0], "values", 'f', 0, 2, 0, 0))
    NEED(low = array(&a, args[1], "low", 'H', 0, 2, 1, 0))
    if (!same_shape(values, low))
        return fail(&a, PyExc_ValueError, "values and low must have one shape");
    NEED(range(&a, args, nargs, dim(values, 0), &lo, &hi, &threads) == 0)
    RoundRows k = {values->buf, low->buf, dim(values, 1)};
    Py_BEGIN_ALLOW_THREADS
    run_parts(round_rows_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const void *grad;
    int low_in;
    const float *y;
    float *out;
    uint16_t *low;
    Py_ssize_t w;
} TanhGradRows;

static void tanh_grad_rows_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const TanhGradRows *k = p;
    DISPATCH(tanh_grad_rows)(k->grad, k->low_in, k->y, k->out, k->low, k->w, lo, hi);
}

static PyObject *tanh_grad_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("tanh_grad_rows", 7)
    Py_buffer *grad, *y, *out, *low;
    Py_ssize_t lo, hi;
    int threads;
    NEED(grad = array(&a, args[0], "grad", 'f', 'H', 2, 0, 0))
    NEED(y = array(&a, args[1], "y", 'f', 0, 2, 0, 0))
    NEED(out = array(&a, args[2], "out", 'f', 0, 2, 1, 1))
    NEED(low = array(&a, args[3], "low", 'H', 0, 2, 1, 1))
    if ((out->buf == NULL) == (low->buf == NULL))
        return fail(&a, PyExc_ValueError, "one of out and low must be None, the other an array");
    if (!same_shape(grad, y) || !same_shape(grad, out->buf ? out : low))
        return fail(&a, PyExc_ValueError, "grad, y and the output must have one shape");
    NEED(range(&a, args, nargs, dim(grad, 0), &lo, &hi, &threads) == 0)
    TanhGradRows k = {grad->buf, dtype_of(grad) == 'H', y->buf, out->buf, low->buf, dim(grad, 1)};
    Py_BEGIN_ALLOW_THREADS
    run_parts(tanh_grad_rows_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

/* ---------------------------------------------------------------- sampling */

typedef struct {
    const float *logits;
    const double *u;
    int64_t *act;
    float *lp;
    Py_ssize_t width;
} SampleRows;

static void sample_rows_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const SampleRows *k = p;
    DISPATCH(sample_rows)(k->logits, k->u, k->act, k->lp, k->width, lo, hi);
}

static PyObject *sample_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("sample_rows", 7)
    Py_buffer *logits, *uniforms, *actions, *log_probs;
    Py_ssize_t lo, hi;
    int threads;
    NEED(logits = array(&a, args[0], "logits", 'f', 0, 2, 0, 0))
    NEED(uniforms = array(&a, args[1], "uniforms", 'd', 0, 1, 0, 0))
    NEED(actions = array(&a, args[2], "actions", 'q', 0, 1, 1, 0))
    NEED(log_probs = array(&a, args[3], "log_probs", 'f', 0, 1, 1, 0))
    Py_ssize_t n = dim(logits, 0), width = dim(logits, 1);
    if (dim(uniforms, 0) != n || dim(actions, 0) != n || dim(log_probs, 0) != n)
        return fail(&a, PyExc_ValueError, "uniforms, actions and log_probs must have a value per row of logits");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    SampleRows k = {logits->buf, uniforms->buf, actions->buf, log_probs->buf, width};
    Py_BEGIN_ALLOW_THREADS
    run_parts(sample_rows_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

/* ---------------------------------------------------------------- sparse rows */

typedef struct {
    const float *x;
    int64_t *count;
    Py_ssize_t d;
} NonzeroCounts;

static void nonzero_counts_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const NonzeroCounts *k = p;
    for (Py_ssize_t i = lo; i < hi; i++)
        k->count[i + 1] = DISPATCH(count_nonzero)(k->x + i * k->d, k->d);
}

static PyObject *nonzero_counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("nonzero_counts", 5)
    Py_buffer *x, *ptr;
    Py_ssize_t lo, hi;
    int threads;
    NEED(x = array(&a, args[0], "x", 'f', 0, 2, 0, 0))
    NEED(ptr = array(&a, args[1], "ptr", 'q', 0, 1, 1, 0))
    Py_ssize_t n = dim(x, 0), d = dim(x, 1);
    if (dim(ptr, 0) != n + 1)
        return fail(&a, PyExc_ValueError, "ptr must have one more entry than x has rows");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    NonzeroCounts k = {x->buf, ptr->buf, d};
    Py_BEGIN_ALLOW_THREADS
    run_parts(nonzero_counts_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const float *x;
    const int64_t *ptr;
    int32_t *col;
    float *val;
    Py_ssize_t d;
} NonzeroEntries;

static void nonzero_entries_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const NonzeroEntries *k = p;
    for (Py_ssize_t i = lo; i < hi; i++) {
        const float *row = k->x + i * k->d;
        /* Every column is written at the next free place, which moves on past a non-zero one: no branch to
         * mispredict (2x faster than one at ~6% non-zero). The row's count (from nonzero_counts) ends the scan
         * at its last entry, so no write lands beyond the row's entries (another slice's). */
        for (int64_t q = k->ptr[i], end = k->ptr[i + 1], j = 0; q < end && j < k->d; j++) {
            float v = row[j];
            k->col[q] = (int32_t)j;
            k->val[q] = v;
            q += v != 0.0f;
        }
    }
}

static PyObject *nonzero_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("nonzero_entries", 7)
    Py_buffer *x, *ptr, *col, *val;
    Py_ssize_t lo, hi;
    int threads;
    NEED(x = array(&a, args[0], "x", 'f', 0, 2, 0, 0))
    NEED(ptr = array(&a, args[1], "ptr", 'q', 0, 1, 0, 0))
    NEED(col = array(&a, args[2], "col", 'i', 0, 1, 1, 0))
    NEED(val = array(&a, args[3], "val", 'f', 0, 1, 1, 0))
    Py_ssize_t n = dim(x, 0), d = dim(x, 1);
    const int64_t *p0 = ptr->buf;
    if (dim(ptr, 0) != n + 1 || dim(col, 0) != p0[n] || dim(val, 0) != p0[n]) /* || stops before p0[n] */
        return fail(&a, PyExc_ValueError, "ptr must have an entry per row and one, col and val ptr[-1] entries");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    NonzeroEntries k = {x->buf, p0, col->buf, val->buf, d};
    Py_BEGIN_ALLOW_THREADS
    run_parts(nonzero_entries_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

/* The entries of each row of ptr/col/val, their three arrays of one sparse matrix: ptr an int64 row start per
 * row and one, col int32, val float32, ptr[-1] entries each. */
static int entries(Args *a, PyObject *const *args, const char *names[3], Py_buffer **ptr, Py_buffer **col,
                   Py_buffer **val, int writable)
{
    if (!(*ptr = array(a, args[0], names[0], 'q', 0, 1, 0, 0)) ||
        !(*col = array(a, args[1], names[1], 'i', 0, 1, writable, 0)) ||
        !(*val = array(a, args[2], names[2], 'f', 0, 1, writable, 0)))
        return -1;
    Py_ssize_t m = dim(*ptr, 0);
    int64_t last = m ? ((const int64_t *)(*ptr)->buf)[m - 1] : -1;
    if (m < 1 || dim(*col, 0) != last || dim(*val, 0) != last) {
        PyErr_Format(PyExc_ValueError, "%s: %s must hold a row start per row and one, and %s and %s %s[-1] entries",
                     a->kernel, names[0], names[1], names[2], names[0]);
        return -1;
    }
    return 0;
}

typedef struct {
    const int64_t *ptr;
    const int32_t *col;
    const float *val;
    const float *weight_t;
    Py_ssize_t features;
    const float *bias;
    int tanh;
    float *out;
    uint16_t *low;
    Py_ssize_t w;
    Py_ssize_t *bad; /* a row whose entries fell outside the columns (any slice's), else -1 */
} GatherRows;

static void gather_rows_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const GatherRows *k = p;
    Py_ssize_t bad = DISPATCH(gather_rows)(k->ptr, k->col, k->val, k->weight_t, k->features, k->bias, k->tanh,
                                           k->out, k->low, k->w, lo, hi);
    if (bad >= 0)
#if defined(__GNUC__) || defined(__clang__)
        __atomic_store_n(k->bad, bad, __ATOMIC_RELAXED); /* slices of a team may both find one */
#else
        *k->bad = bad; /* no team without GCC or clang (team.h): one slice at a time */
#endif
}

static PyObject *gather_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("gather_rows", 11)
    Py_buffer *ptr, *col, *val, *weight_t, *bias, *out, *low;
    Py_ssize_t lo, hi;
    int threads;
    static const char *names[3] = {"ptr", "col", "val"};
    NEED(entries(&a, args, names, &ptr, &col, &val, 0) == 0)
    NEED(weight_t = array(&a, args[3], "weight_t", 'f', 0, 2, 0, 0))
    NEED(bias = array(&a, args[4], "bias", 'f', 0, 1, 0, 0))
    int tanh = PyObject_IsTrue(args[5]);
    NEED(tanh >= 0)
    NEED(out = array(&a, args[6], "out", 'f', 0, 2, 1, 0))
    NEED(low = array(&a, args[7], "low", 'H', 0, 2, 1, 1))
    Py_ssize_t n = dim(out, 0), w = dim(out, 1);
    if (dim(ptr, 0) != n + 1 || dim(weight_t, 1) != w || dim(bias, 0) != w || (low->buf && !same_shape(out, low)))
        return fail(&a, PyExc_ValueError, "shapes: ptr [n + 1], weight_t [features, w], bias [w], out and low [n, w]");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    Py_ssize_t bad = -1;
    GatherRows k = {ptr->buf, col->buf, val->buf, weight_t->buf, dim(weight_t, 0), bias->buf, tanh, out->buf,
                    low->buf, w, &bad};
    Py_BEGIN_ALLOW_THREADS
    run_parts(gather_rows_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        release(&a);
        PyErr_Format(PyExc_IndexError, "gather_rows: row %zd's entries are not within 0..%zd columns", bad,
                     dim(weight_t, 0));
        return NULL;
    }
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const int64_t *ptr;
    const int32_t *col;
    const float *val;
    Py_ssize_t rows;
    const int64_t *bounds;
    const float *grad_out;
    float *grad_t;
    Py_ssize_t w;
} WeightGradT;

static void weight_grad_t_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const WeightGradT *k = p;
    DISPATCH(weight_grad_t)(k->ptr, k->col, k->val, k->rows, k->bounds, k->grad_out, k->grad_t, k->w, lo, hi);
}

static PyObject *weight_grad_t(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("weight_grad_t", 9)
    Py_buffer *ptr, *col, *val, *bounds, *grad_out, *grad_t;
    Py_ssize_t lo, hi;
    int threads;
    static const char *names[3] = {"ptr", "col", "val"};
    NEED(entries(&a, args, names, &ptr, &col, &val, 0) == 0)
    NEED(bounds = array(&a, args[3], "bounds", 'q', 0, 1, 0, 0))
    NEED(grad_out = array(&a, args[4], "grad_out", 'f', 0, 2, 0, 0))
    NEED(grad_t = array(&a, args[5], "grad_t", 'f', 0, 2, 1, 0))
    Py_ssize_t n = dim(grad_out, 0), w = dim(grad_out, 1), features = dim(grad_t, 0), tasks = dim(bounds, 0) - 1;
    if (dim(ptr, 0) != n + 1 || dim(grad_t, 1) != w || tasks < 0)
        return fail(&a, PyExc_ValueError, "shapes: ptr [n + 1], grad_out [n, w], grad_t [features, w]");
    const int64_t *b = bounds->buf;
    for (Py_ssize_t t = 0; t <= tasks; t++)
        if (b[t] < 0 || b[t] > features || (t && b[t] < b[t - 1]))
            return fail(&a, PyExc_ValueError, "bounds must rise from 0 to the number of features at most");
    NEED(range(&a, args, nargs, tasks, &lo, &hi, &threads) == 0)
    WeightGradT k = {ptr->buf, col->buf, val->buf, n, b, grad_out->buf, grad_t->buf, w};
    Py_BEGIN_ALLOW_THREADS
    run_parts(weight_grad_t_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

/* out_ptr for the rows `rows` of ptr, in that order (serial: a running sum). */
static PyObject *select_ptr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("select_ptr", 3)
    Py_buffer *ptr, *rows, *out_ptr;
    NEED(ptr = array(&a, args[0], "ptr", 'q', 0, 1, 0, 0))
    NEED(rows = array(&a, args[1], "rows", 'q', 0, 1, 0, 0))
    NEED(out_ptr = array(&a, args[2], "out_ptr", 'q', 0, 1, 1, 0))
    Py_ssize_t n = dim(rows, 0), m = dim(ptr, 0) - 1;
    if (dim(out_ptr, 0) != n + 1 || m < 0)
        return fail(&a, PyExc_ValueError, "out_ptr must have an entry per row and one");
    const int64_t *p = ptr->buf, *r = rows->buf;
    int64_t *o = out_ptr->buf;
    o[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (r[i] < 0 || r[i] >= m) {
            release(&a);
            PyErr_Format(PyExc_IndexError, "select_ptr: row index %lld out of range for %zd rows", (long long)r[i], m);
            return NULL;
        }
        o[i + 1] = o[i] + p[r[i] + 1] - p[r[i]];
    }
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const int64_t *ptr, *rows, *out_ptr;
    const int32_t *col;
    const float *val;
    int32_t *out_col;
    float *out_val;
} SelectEntries;

static void select_entries_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const SelectEntries *k = p;
    for (Py_ssize_t i = lo; i < hi; i++) {
        size_t count = (size_t)(k->out_ptr[i + 1] - k->out_ptr[i]);
        memcpy(k->out_col + k->out_ptr[i], k->col + k->ptr[k->rows[i]], count * sizeof(int32_t));
        memcpy(k->out_val + k->out_ptr[i], k->val + k->ptr[k->rows[i]], count * sizeof(float));
    }
}

static PyObject *select_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("select_entries", 10)
    Py_buffer *ptr, *col, *val, *rows, *out_ptr, *out_col, *out_val;
    Py_ssize_t lo, hi;
    int threads;
    static const char *names[3] = {"ptr", "col", "val"}, *out_names[3] = {"out_ptr", "out_col", "out_val"};
    NEED(entries(&a, args, names, &ptr, &col, &val, 0) == 0)
    NEED(rows = array(&a, args[3], "rows", 'q', 0, 1, 0, 0))
    NEED(entries(&a, args + 4, out_names, &out_ptr, &out_col, &out_val, 1) == 0)
    Py_ssize_t n = dim(rows, 0);
    if (dim(out_ptr, 0) != n + 1)
        return fail(&a, PyExc_ValueError, "out_ptr must have an entry per selected row and one");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    SelectEntries k = {ptr->buf, rows->buf, out_ptr->buf, col->buf, val->buf, out_col->buf, out_val->buf};
    Py_BEGIN_ALLOW_THREADS /* out_ptr came from select_ptr, which checked every row index */
    run_parts(select_entries_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

typedef struct {
    const int64_t *ptr_a, *ptr_b, *ptr;
    const int32_t *col_a, *col_b;
    const float *val_a, *val_b;
    int32_t *col;
    float *val;
    int32_t width_a;
} HstackEntries;

static void hstack_entries_part(const void *p, Py_ssize_t lo, Py_ssize_t hi)
{
    const HstackEntries *k = p;
    for (Py_ssize_t i = lo; i < hi; i++) { /* ptr = ptr_a + ptr_b: row i's entries of a, then of b */
        int64_t q = k->ptr[i];
        for (int64_t s = k->ptr_a[i]; s < k->ptr_a[i + 1]; s++, q++) {
            k->col[q] = k->col_a[s];
            k->val[q] = k->val_a[s];
        }
        for (int64_t s = k->ptr_b[i]; s < k->ptr_b[i + 1]; s++, q++) {
            k->col[q] = k->col_b[s] + k->width_a;
            k->val[q] = k->val_b[s];
        }
    }
}

static PyObject *hstack_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("hstack_entries", 13)
    Py_buffer *pa, *ca, *va, *pb, *cb, *vb, *p, *c, *v;
    Py_ssize_t lo, hi;
    int threads;
    static const char *na[3] = {"ptr_a", "col_a", "val_a"}, *nb[3] = {"ptr_b", "col_b", "val_b"},
                      *nout[3] = {"ptr", "col", "val"};
    NEED(entries(&a, args, na, &pa, &ca, &va, 0) == 0)
    int32_t width_a = (int32_t)PyLong_AsLong(args[3]);
    NEED(!PyErr_Occurred())
    NEED(entries(&a, args + 4, nb, &pb, &cb, &vb, 0) == 0)
    NEED(entries(&a, args + 7, nout, &p, &c, &v, 1) == 0)
    Py_ssize_t n = dim(pa, 0) - 1;
    if (dim(pb, 0) != n + 1 || dim(p, 0) != n + 1)
        return fail(&a, PyExc_ValueError, "ptr_a, ptr_b and ptr must have one length");
    NEED(range(&a, args, nargs, n, &lo, &hi, &threads) == 0)
    HstackEntries k = {pa->buf, pb->buf, p->buf, ca->buf, cb->buf, va->buf, vb->buf, c->buf, v->buf, width_a};
    Py_BEGIN_ALLOW_THREADS
    run_parts(hstack_entries_part, &k, lo, hi, threads);
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

/* ---------------------------------------------------------------- module */

static PyObject *team(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(team_found());
}

static PyObject *isa(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(use_avx2 ? "avx2" : "generic");
}

/* For tests and timings: both copies must give the same bits. */
static PyObject *set_isa(PyObject *self, PyObject *arg)
{
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (name == NULL) {
        PyErr_Clear();
        name = "";
    }
    int avx2 = strcmp(name, "avx2") == 0;
    if (!avx2 && strcmp(name, "generic") != 0) {
        PyErr_SetString(PyExc_ValueError, "set_isa: the copies are 'generic' and 'avx2'");
        return NULL;
    }
#ifdef HAVE_AVX2_COPY
    if (avx2 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
#else
    if (avx2) {
#endif
        PyErr_SetString(PyExc_ValueError, "set_isa: this CPU (or build) has no AVX2 with FMA");
        return NULL;
    }
    PyObject *previous = isa(self, NULL);
    use_avx2 = avx2;
    return previous;
}

/* ---------------------------------------------------------------- the trainer's advantages */

/* training/ppo.py's generalised advantage estimate: one backward pass over a rollout, whose successor links point
 * forward (so each successor is done before its predecessor). float32 throughout, as NumPy's loop with float32
 * scalars: no range (a decision depends on its successor), a few microseconds per thousand decisions. */
static PyObject *gae(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    START("gae", 6)
    Py_buffer *value, *reward, *nxt, *adv;
    NEED(value = array(&a, args[0], "value", 'f', 0, 1, 0, 0))
    NEED(reward = array(&a, args[1], "reward", 'f', 0, 1, 0, 0))
    NEED(nxt = array(&a, args[2], "nxt", 'q', 0, 1, 0, 0))
    double g = PyFloat_AsDouble(args[3]), gl = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred())
        goto error;
    NEED(adv = array(&a, args[5], "adv", 'f', 0, 1, 1, 0))
    Py_ssize_t n = dim(value, 0);
    if (dim(reward, 0) != n || dim(nxt, 0) != n || dim(adv, 0) != n)
        return fail(&a, PyExc_ValueError, "value, reward, nxt and adv must have one length");
    const float *v = value->buf, *r = reward->buf;
    const int64_t *next = nxt->buf;
    float *out = adv->buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (next[i] >= n || (next[i] >= 0 && next[i] <= i))
            return fail(&a, PyExc_ValueError, "a successor must come later in the rollout (or be -1)");
    const float gamma = (float)g, gamma_lam = (float)gl;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = n - 1; i >= 0; i--) {
        int64_t j = next[i];
        if (j >= 0) {
            float x = r[i] + gamma * v[j]; /* each product and sum rounded to float32, left to right */
            x = x - v[i];
            out[i] = x + gamma_lam * out[j];
        } else {
            out[i] = r[i] - v[i];
        }
    }
    Py_END_ALLOW_THREADS
    release(&a);
    Py_RETURN_NONE;
error:
    release(&a);
    return NULL;
}

#define FAST(name, doc) {#name, (PyCFunction)(void (*)(void))name, METH_FASTCALL, doc}

static PyMethodDef methods[] = {
    FAST(tanh_rows, "tanh_rows(pre, y, low, lo, hi, c): rows lo..hi of y = tanh(pre) (pre float32 or bfloat16 "
                    "bits as uint16) and low = y as bfloat16 bits (low None: no copy)."),
    FAST(round_rows, "round_rows(values, low, lo, hi, c): rows lo..hi of low = values (float32) rounded to "
                     "bfloat16 (to nearest, ties to even), as bits."),
    FAST(tanh_grad_rows, "tanh_grad_rows(grad, y, out, low, lo, hi, c): rows lo..hi of grad * (1 - y^2) (grad "
                         "float32 or bfloat16 bits) into out (float32) or, out None, low (bfloat16 bits)."),
    FAST(sample_rows, "sample_rows(logits, uniforms, actions, log_probs, lo, hi, c): rows lo..hi's actions drawn by "
                      "the inverse of the softmax's CDF at uniforms[i], and their log-probabilities (-1: a NaN)."),
    FAST(nonzero_counts, "nonzero_counts(x, ptr, lo, hi, c): ptr[i + 1] = row i's non-zero entries, rows lo..hi."),
    FAST(nonzero_entries, "nonzero_entries(x, ptr, col, val, lo, hi, c): rows lo..hi's non-zero entries, from "
                          "ptr[i]: their column and value."),
    FAST(gather_rows, "gather_rows(ptr, col, val, weight_t, bias, tanh, out, low, lo, hi, c): rows lo..hi of "
                      "out = bias + entries x weight_t, then tanh where tanh, and low = out as bfloat16 bits."),
    FAST(weight_grad_t, "weight_grad_t(ptr, col, val, bounds, grad_out, grad_t, lo, hi, c): tasks lo..hi of the "
                        "transposed weight gradient, task t the rows bounds[t]..bounds[t + 1] of grad_t."),
    FAST(select_ptr, "select_ptr(ptr, rows, out_ptr): the row starts of the rows `rows` of ptr, in that order."),
    FAST(select_entries, "select_entries(ptr, col, val, rows, out_ptr, out_col, out_val, lo, hi, c): the entries "
                         "of rows[lo..hi] at out_ptr's starts."),
    FAST(hstack_entries, "hstack_entries(ptr_a, col_a, val_a, width_a, ptr_b, col_b, val_b, ptr, col, val, lo, "
                         "hi, c): rows lo..hi: a's entries, then b's with columns + width_a (ptr = ptr_a + ptr_b)."),
    FAST(gae, "gae(value, reward, nxt, gamma, gamma_lam, adv): the advantages of a rollout into adv (float32), one "
              "backward pass; nxt[i]: the decision's successor (later), or -1 at an episode's end."),
    {"team", team, METH_NOARGS, "team(): whether the process has an OpenMP team (torch's) to run slices on: then "
                                "c = -N runs lo..hi on N of its threads (team.h)."},
    {"isa", isa, METH_NOARGS, "isa(): the copy of the float kernels that runs, 'avx2' or 'generic'."},
    {"set_isa", set_isa, METH_O, "set_isa(name): run the copy 'avx2' or 'generic' (for tests: the same bits); "
                                 "returns the previous one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "The neural networks' CPU kernels (agents/neural/cpu_kernels.py, sparse_input.py): C, a slice of rows a call.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
#ifdef HAVE_AVX2_COPY
    __builtin_cpu_init();
    use_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return m;
}
