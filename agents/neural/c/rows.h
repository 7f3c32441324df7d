/* The kernels' loops: a one-pass tanh from the exponential, bfloat16 as bits, the gradient before a tanh, the
 * sparse first layer's gather and weight gradient, the sampler (agents/neural/cpu_kernels.py and sparse_input.py
 * say what each computes).
 *
 * kernels.c includes this file once per instruction set: KERNEL(name) names the copy, TARGET is its function
 * attribute (nothing for the generic copy; AVX2 with FMA for the one picked at import on a CPU that has them) and
 * MADD(a, b, c) is a * b + c, fused (fmaf) in the AVX2 copy, rounded twice in the generic one where fmaf would be a
 * libm call. The build otherwise keeps C's float semantics (-std=c99 contracts no a * b + c by itself), so the
 * copies differ only where MADD is used (tanh's polynomial, the first layer's sums); tanh's gradient uses fmaf in
 * both (torch's bits), and the sampler rounds every operation apart in both (the Numba kernel's bits).
 *
 * Vectorisation: at -O2 GCC vectorises only a loop whose vector code replaces it whole (its "very cheap" cost
 * model: no remainder loop, no run-time alias check), so each loop over a row's width runs in blocks of BLOCK
 * columns (a multiple of every vector width: 16 bfloat16 bits fill an AVX2 register) and then a scalar remainder,
 * on restrict pointers. A choice between two floats is made on their bits (an integer min, a mask): GCC
 * vectorises no ?: on a float comparison that feeds more arithmetic, since the comparison may trap
 * (-ftrapping-math, its default). */

#define BLOCK 16

/* exp(x) + 1 for |x| <= 20 (exp within 1e-7, relative): 2^k times a degree-7 Taylor polynomial of exp(r),
 * r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2], k = x / ln 2 rounded to the nearest integer by adding and subtracting
 * 1.5 * 2^23, which also leaves k + 0x400000 in the sum's low bits: the scale's exponent is then one integer
 * addition, with no conversion (floorf would be a libm call on x86-64's base instruction set, and a conversion
 * and its correction four instructions more a vector). */
static ALWAYS_INLINE TARGET float KERNEL(exp_plus_one)(float x)
{
    float shifted = MADD(x, LOG2E, ROUNDING);
    float k = shifted - ROUNDING;
    float r = MADD(-k, LN2_LO, MADD(-k, LN2_HI, x)); /* k * LN2_HI is exact: fused or not, the same r */
    float p = (float)(1.0 / 5040);
    p = MADD(p, r, (float)(1.0 / 720));
    p = MADD(p, r, (float)(1.0 / 120));
    p = MADD(p, r, (float)(1.0 / 24));
    p = MADD(p, r, (float)(1.0 / 6));
    p = MADD(p, r, 0.5f);
    p = MADD(p, r, 1.0f);
    p = MADD(p, r, 1.0f);
    /* 2^k: the bits k + 127 << 23, from shifted's bits 0x4B400000 + k (the shift keeps only their low 9) */
    return MADD(p, float_from_bits((bits_from_float(shifted) + 127u) << 23), 1.0f);
}

/* tanh of a float32, within 2e-7 of torch's: 1 - 2 / (exp(2x) + 1), with x clamped to [-10, 10] (tanh(10) is
 * 1.0 in float32); a NaN stays a NaN. */
static ALWAYS_INLINE TARGET float KERNEL(tanh32)(float x)
{
    /* The clamp on the bits, as integers: |x| no larger than 10 is min(|x|'s bits, 10's bits) (the bits of
     * non-negative floats are in their order; a NaN's are above 10's), the sign put back. A vector instruction
     * each (the first comment above says why not float comparisons). */
    uint32_t bits = bits_from_float(x), magnitude = bits & 0x7FFFFFFFu;
    uint32_t clamped = magnitude < TANH_ONE_BITS ? magnitude : TANH_ONE_BITS;
    float c = float_from_bits(clamped | (bits & 0x80000000u));
    float y = 1.0f - 2.0f / KERNEL(exp_plus_one)(c + c);
    return float_from_bits(bits_from_float(y) | -(uint32_t)(x != x)); /* a NaN's ±1 made all ones: a NaN */
}

/* The bfloat16 nearest x (to nearest, ties to even: torch's conversion), as its 16 bits; a NaN stays a quiet NaN. */
static ALWAYS_INLINE TARGET uint16_t KERNEL(bf16)(float x)
{
    uint32_t u = bits_from_float(x);
    uint32_t nan = (u >> 16) | 0x40u, rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    uint32_t is_nan = -(uint32_t)(x != x);
    return (uint16_t)((nan & is_nan) | (rounded & ~is_nan));
}

static ALWAYS_INLINE TARGET float KERNEL(widen)(uint16_t b)
{
    return float_from_bits((uint32_t)b << 16);
}

/* The gradient before a tanh from the one after it: g (1 - t^2) with 1 - t^2 fused, as torch's tanh_backward
 * computes it on a CPU with FMA (bit for bit: tests/agents/test_cpu_kernels.py). */
static ALWAYS_INLINE TARGET float KERNEL(tanh_grad1)(float g, float t)
{
    return g * fmaf(-t, t, 1.0f);
}

/* out[h] = tanh(pre[h]) for the w columns of one row, pre float32 or bfloat16 bits. */
static TARGET void KERNEL(tanh_row_f32)(const float *restrict pre, float *restrict out, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            out[h + k] = KERNEL(tanh32)(pre[h + k]);
    for (; h < w; h++)
        out[h] = KERNEL(tanh32)(pre[h]);
}

static TARGET void KERNEL(tanh_row_bf16)(const uint16_t *restrict pre, float *restrict out, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            out[h + k] = KERNEL(tanh32)(KERNEL(widen)(pre[h + k]));
    for (; h < w; h++)
        out[h] = KERNEL(tanh32)(KERNEL(widen)(pre[h]));
}

/* low[h] = the bfloat16 bits of values[h]. */
static TARGET void KERNEL(round_row)(const float *restrict values, uint16_t *restrict low, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            low[h + k] = KERNEL(bf16)(values[h + k]);
    for (; h < w; h++)
        low[h] = KERNEL(bf16)(values[h]);
}

/* Rows lo..hi of y = tanh(pre) (pre: float32, or bfloat16 bits where low_in), and low = y as bfloat16 where
 * low is not NULL. */
static TARGET void KERNEL(tanh_rows)(const void *pre, int low_in, float *y, uint16_t *low, Py_ssize_t w,
                                     Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (low_in)
            KERNEL(tanh_row_bf16)((const uint16_t *)pre + i * w, y + i * w, w);
        else
            KERNEL(tanh_row_f32)((const float *)pre + i * w, y + i * w, w);
        if (low)
            KERNEL(round_row)(y + i * w, low + i * w, w);
    }
}

static TARGET void KERNEL(tanh_grad_row_f32)(const float *restrict g, const float *restrict t, float *restrict out,
                                             Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            out[h + k] = KERNEL(tanh_grad1)(g[h + k], t[h + k]);
    for (; h < w; h++)
        out[h] = KERNEL(tanh_grad1)(g[h], t[h]);
}

static TARGET void KERNEL(tanh_grad_row_bf16)(const uint16_t *restrict g, const float *restrict t,
                                              float *restrict out, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            out[h + k] = KERNEL(tanh_grad1)(KERNEL(widen)(g[h + k]), t[h + k]);
    for (; h < w; h++)
        out[h] = KERNEL(tanh_grad1)(KERNEL(widen)(g[h]), t[h]);
}

/* The same into bfloat16 bits. */
static TARGET void KERNEL(tanh_grad_row_f32_low)(const float *restrict g, const float *restrict t,
                                                 uint16_t *restrict low, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            low[h + k] = KERNEL(bf16)(KERNEL(tanh_grad1)(g[h + k], t[h + k]));
    for (; h < w; h++)
        low[h] = KERNEL(bf16)(KERNEL(tanh_grad1)(g[h], t[h]));
}

static TARGET void KERNEL(tanh_grad_row_bf16_low)(const uint16_t *restrict g, const float *restrict t,
                                                  uint16_t *restrict low, Py_ssize_t w)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= w; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            low[h + k] = KERNEL(bf16)(KERNEL(tanh_grad1)(KERNEL(widen)(g[h + k]), t[h + k]));
    for (; h < w; h++)
        low[h] = KERNEL(bf16)(KERNEL(tanh_grad1)(KERNEL(widen)(g[h]), t[h]));
}

/* Rows lo..hi of grad (1 - y^2) (grad: float32, or bfloat16 bits where low_in) into out (float32) where it is
 * not NULL, else into low (bfloat16 bits). */
static TARGET void KERNEL(tanh_grad_rows)(const void *grad, int low_in, const float *y, float *out, uint16_t *low,
                                          Py_ssize_t w, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        const float *t = y + i * w;
        if (out && low_in)
            KERNEL(tanh_grad_row_bf16)((const uint16_t *)grad + i * w, t, out + i * w, w);
        else if (out)
            KERNEL(tanh_grad_row_f32)((const float *)grad + i * w, t, out + i * w, w);
        else if (low_in)
            KERNEL(tanh_grad_row_bf16_low)((const uint16_t *)grad + i * w, t, low + i * w, w);
        else
            KERNEL(tanh_grad_row_f32_low)((const float *)grad + i * w, t, low + i * w, w);
    }
}

/* acc += v0 w0 + ... + v7 w7, added left to right for each column: eight entries a pass over the row (an eighth
 * of its loads and stores), and the same sums as one entry a pass. */
static TARGET void KERNEL(add_eight)(float *restrict acc, const float *const w[8], const float v[8], Py_ssize_t n)
{
    const float *restrict w0 = w[0], *restrict w1 = w[1], *restrict w2 = w[2], *restrict w3 = w[3];
    const float *restrict w4 = w[4], *restrict w5 = w[5], *restrict w6 = w[6], *restrict w7 = w[7];
    const float v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5], v6 = v[6], v7 = v[7];
    Py_ssize_t h = 0;
#define ADD_EIGHT(j) acc[j] = MADD(v7, w7[j], MADD(v6, w6[j], MADD(v5, w5[j], MADD(v4, w4[j], MADD(v3, w3[j], \
                              MADD(v2, w2[j], MADD(v1, w1[j], MADD(v0, w0[j], acc[j]))))))))
    for (; h + BLOCK <= n; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            ADD_EIGHT(h + k);
    for (; h < n; h++)
        ADD_EIGHT(h);
#undef ADD_EIGHT
}

/* acc += v w, column by column. */
static TARGET void KERNEL(add_one)(float *restrict acc, const float *restrict w, float v, Py_ssize_t n)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= n; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            acc[h + k] = MADD(v, w[h + k], acc[h + k]);
    for (; h < n; h++)
        acc[h] = MADD(v, w[h], acc[h]);
}

static TARGET void KERNEL(tanh_in_place)(float *restrict acc, Py_ssize_t n)
{
    Py_ssize_t h = 0;
    for (; h + BLOCK <= n; h += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            acc[h + k] = KERNEL(tanh32)(acc[h + k]);
    for (; h < n; h++)
        acc[h] = KERNEL(tanh32)(acc[h]);
}

/* Rows lo..hi of out = bias + the sum over each row's entries of value * weight_t[column] (added in the entries'
 * order), then its tanh where tanh, and low = the row as bfloat16 bits where low is not NULL. Returns the first
 * row (from lo) whose entries are malformed (a column outside [0, features), an end before its start), else -1;
 * the rows from it on are left unwritten. */
static TARGET Py_ssize_t KERNEL(gather_rows)(const int64_t *ptr, const int32_t *col, const float *val,
                                             const float *weight_t, Py_ssize_t features, const float *bias, int tanh,
                                             float *out, uint16_t *low, Py_ssize_t w, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        float *acc = out + i * w; /* summed in place, from the bias */
        int64_t p = ptr[i], end = ptr[i + 1];
        if (end < p)
            return i;
        for (int64_t q = p; q < end; q++)
            if (col[q] < 0 || col[q] >= features)
                return i;
        memcpy(acc, bias, (size_t)w * sizeof(float));
        for (; p + 8 <= end; p += 8) {
            const float *rows[8];
            for (int k = 0; k < 8; k++)
                rows[k] = weight_t + (Py_ssize_t)col[p + k] * w;
            KERNEL(add_eight)(acc, rows, val + p, w);
        }
        for (; p < end; p++)
            KERNEL(add_one)(acc, weight_t + (Py_ssize_t)col[p] * w, val[p], w);
        if (tanh)
            KERNEL(tanh_in_place)(acc, w);
        if (low)
            KERNEL(round_row)(acc, low + i * w, w);
    }
    return -1;
}

/* Tasks lo..hi of the weight gradient, transposed: grad_t[j] = the sum over the entries (i, j, v) of
 * v * grad_out[i], added in row order from 0. Task t owns the columns bounds[t]..bounds[t + 1] and scans every
 * row for them (the rows of grad_out are then read in order), so no two tasks write one row and the sums do not
 * depend on how the columns are cut. Entries outside [0, features) are skipped: gather_rows refused them first. */
static TARGET void KERNEL(weight_grad_t)(const int64_t *ptr, const int32_t *col, const float *val, Py_ssize_t rows,
                                         const int64_t *bounds, const float *grad_out, float *grad_t,
                                         Py_ssize_t w, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t t = lo; t < hi; t++) {
        int64_t first = bounds[t], last = bounds[t + 1];
        if (last > first)
            memset(grad_t + first * w, 0, (size_t)((last - first) * w) * sizeof(float));
        for (Py_ssize_t i = 0; i < rows; i++) {
            const float *g = grad_out + i * w;
            for (int64_t p = ptr[i]; p < ptr[i + 1]; p++) {
                int64_t j = col[p];
                if (j >= first && j < last)
                    KERNEL(add_one)(grad_t + j * w, g, val[p], w);
            }
        }
    }
}

/* exp(x) for -87 < x <= 0 (within 1e-7, relative): 2^k times a degree-7 Taylor polynomial of exp(r),
 * k = floor(x / ln 2 + 1/2), r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2]. The sampler's own, each operation rounded
 * apart: the draws and log-probabilities of the Numba kernel this replaced, bit for bit, in both copies
 * (exp_plus_one, for tanh, trades that for speed). */
static ALWAYS_INLINE TARGET float KERNEL(exp32)(float x)
{
    float t = x * LOG2E + 0.5f;
#if FLOOR_IS_AN_INSTRUCTION
    float k = floorf(t);
    int32_t ki = (int32_t)k;
#else /* floor(t) (|t| < 2^31): truncated toward zero, one less where that rounded up */
    int32_t ki = (int32_t)t;
    ki -= (float)ki > t;
    float k = (float)ki;
#endif
    float r = (x - k * LN2_HI) - k * LN2_LO;
    float p = (float)(1.0 / 5040);
    p = p * r + (float)(1.0 / 720);
    p = p * r + (float)(1.0 / 120);
    p = p * r + (float)(1.0 / 24);
    p = p * r + (float)(1.0 / 6);
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * float_from_bits((uint32_t)(ki + 127) << 23);
}

/* Rows lo..hi of the draws: for each row of logits, the action whose share of the softmax's running sum
 * (float64) first passes u[i], and its log-probability; -1 (and NaN) for a row with a NaN. */
static TARGET void KERNEL(sample_rows)(const float *logits, const double *u, int64_t *act, float *lp,
                                       Py_ssize_t width, Py_ssize_t lo, Py_ssize_t hi)
{
    for (Py_ssize_t i = lo; i < hi; i++) {
        const float *row = logits + i * width;
        int nan = width == 0;
        float top = width ? row[0] : 0.0f;
        for (Py_ssize_t j = 0; j < width; j++) {
            top = row[j] > top ? row[j] : top;
            nan |= row[j] != row[j];
        }
        if (nan) { /* no distribution to draw from: -1 (sample_actions says which row) */
            act[i] = -1;
            lp[i] = NAN;
            continue;
        }
        double total = 0.0; /* float64: the running sums compared with the uniform */
        for (Py_ssize_t j = 0; j < width; j++) {
            float z = row[j] - top;
            if (z > -87.0f) /* below, exp(z) is 0 in float32 (an illegal action's logit, -1e9) */
                total += KERNEL(exp32)(z);
        }
        double target = u[i] * total, running = 0.0;
        Py_ssize_t pick = -1;
        for (Py_ssize_t j = 0; j < width; j++) {
            float z = row[j] - top;
            if (z > -87.0f) {
                running += KERNEL(exp32)(z);
                pick = j; /* the last possible action: where rounding leaves the target above every sum */
                if (running > target)
                    break;
            }
        }
        act[i] = pick;
        /* no possible action (an infinite logit): -1 too, and the last logit's value as NumPy's row[-1] gave */
        lp[i] = (row[pick < 0 ? width - 1 : pick] - top) - (float)log(total);
    }
}

/* The non-zero entries of a row of d floats, counted in BLOCK lanes so that the loop is vectorised. */
static TARGET Py_ssize_t KERNEL(count_nonzero)(const float *restrict row, Py_ssize_t d)
{
    int32_t lanes[BLOCK] = {0};
    Py_ssize_t j = 0, c = 0;
    for (; j + BLOCK <= d; j += BLOCK)
        for (int k = 0; k < BLOCK; k++)
            lanes[k] += row[j + k] != 0.0f;
    for (int k = 0; k < BLOCK; k++)
        c += lanes[k];
    for (; j < d; j++)
        c += row[j] != 0.0f;
    return c;
}
