/* upscale.c - grid heights to output-size Q8 heights: separable Catmull-Rom in integers
 * (geometry, kernel and edges in upscale.h). Per axis, set-up builds each output's run of
 * taps (first cell, count, Q15 weights); a row is then one pass down the columns (the
 * output row's taps over whole grid rows, kept in Q15) and one pass along it. */
#include "look/upscale.h"

#include <stdlib.h>

#include "base/common.h"
#include "base/cpu.h"
#include "look/upscale_simd.h"

struct axis {
    int32_t *first;  /* per output: first grid cell of its taps */
    int32_t *count;  /* per output: number of taps */
    int32_t *offset; /* per output: index of its first weight in weights */
    int32_t *weights;
};

struct rp_upscale {
    int gw, gh, ow, oh;
    struct axis x, y;
    /* The x taps for the vector row pass, in groups of 8 outputs (upscale_simd.h), and
     * their weights; pairs: every y output's taps keep |column| small enough for
     * RP_UPSCALE_PAIRS (taps_fit16). */
    rp_upscale_group *groups;
    int32_t *pw;
    int pairs;
    int64_t peak_q8; /* rp_upscale_peak_q8() */
};

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b > a) ? q - 1 : q;
}

/* round(a / b) for b > 0, halves up. */
static int64_t round_div(int64_t a, int64_t b)
{
    return floor_div(2 * a + b, 2 * b);
}

/* Catmull-Rom at |t| = a (Q16), Q32:
 *   a < 1:  (3a^3 - 5a^2 + 2) / 2,   1 <= a < 2:  (-a^3 + 5a^2 - 8a + 4) / 2.
 * a^3 is Q48 (a < 2^17, so under 2^51); the sum is rounded to Q32 once. */
static int64_t catmull_rom_q32(int64_t a)
{
    const int64_t one48 = (int64_t)1 << 48;
    int64_t a2 = a * a;  /* Q32 */
    int64_t a3 = a2 * a; /* Q48 */
    int64_t k48;
    if (a >= ((int64_t)2 << 16))
        return 0;
    if (a < ((int64_t)1 << 16))
        k48 = 3 * a3 - 5 * (a2 << 16) + 2 * one48;
    else
        k48 = -a3 + 5 * (a2 << 16) - 8 * (a << 32) + 4 * one48;
    /* k48 / 2, then Q48 -> Q32, rounded */
    return (k48 + ((int64_t)1 << 16)) >> 17;
}

static void axis_free(struct axis *a)
{
    free(a->first);
    free(a->count);
    free(a->offset);
    free(a->weights);
}

/* Taps of every output along one axis: g grid cells, o outputs. */
static int axis_build(struct axis *a, int g, int o)
{
    /* Half-width of the support in cells: 2, or 2 * g / o when shrinking. */
    int64_t reach = g > o ? (2 * (int64_t)g + o - 1) / o : 2;
    int64_t span = 2 * reach + 3; /* candidate cells of one output before clamping */
    int64_t *k = NULL;
    a->first = malloc((size_t)o * sizeof *a->first);
    a->count = malloc((size_t)o * sizeof *a->count);
    a->offset = malloc((size_t)o * sizeof *a->offset);
    k = malloc((size_t)span * sizeof *k);
    /* at most min(span, g) distinct cells per output once clamped */
    int64_t per = span < g ? span : g;
    if ((uint64_t)per * (uint64_t)o > (uint64_t)INT32_MAX)
        goto fail;
    a->weights = malloc((size_t)(per * o) * sizeof *a->weights);
    if (!a->first || !a->count || !a->offset || !k || !a->weights)
        goto fail;

    int32_t used = 0;
    for (int i = 0; i < o; i++) {
        /* u = num / (2o); distances to cell j in the kernel's units: (num - 2oj) / den */
        int64_t num = (2 * (int64_t)i + 1) * g - o;
        int64_t den = g > o ? 2 * (int64_t)g : 2 * (int64_t)o;
        int64_t base = floor_div(num, 2 * (int64_t)o);
        int64_t lo = base - reach + 1, hi = base + reach; /* candidate cells lo..hi */
        if (g > o) {
            lo = base - reach - 1;
            hi = base + reach + 1;
        }
        int64_t first = lo < 0 ? 0 : lo > g - 1 ? g - 1 : lo;
        int64_t last = hi < 0 ? 0 : hi > g - 1 ? g - 1 : hi;
        int64_t n = last - first + 1, sum = 0;
        for (int64_t c = 0; c < n; c++)
            k[c] = 0;
        for (int64_t j = lo; j <= hi; j++) {
            int64_t d = num - 2 * (int64_t)o * j;
            int64_t t = round_div((d < 0 ? -d : d) << 16, den);
            int64_t v = catmull_rom_q32(t);
            int64_t cell = j < 0 ? 0 : j > g - 1 ? g - 1 : j;
            k[cell - first] += v;
            sum += v;
        }
        /* Q15 weights summing to exactly 32768; the rounding remainder goes to the
         * largest tap. sum > 0: the taps of a Catmull-Rom sample sum to ~1. */
        int64_t total = 0, big = 0;
        for (int64_t c = 0; c < n; c++) {
            int64_t w = round_div(k[c] * 32768, sum);
            k[c] = w;
            total += w;
            if ((k[c] < 0 ? -k[c] : k[c]) > (k[big] < 0 ? -k[big] : k[big]))
                big = c;
        }
        k[big] += 32768 - total;
        /* trim zero taps at both ends */
        while (n > 1 && k[0] == 0) {
            for (int64_t c = 1; c < n; c++)
                k[c - 1] = k[c];
            n--;
            first++;
        }
        while (n > 1 && k[n - 1] == 0)
            n--;
        a->first[i] = (int32_t)first;
        a->count[i] = (int32_t)n;
        a->offset[i] = used;
        for (int64_t c = 0; c < n; c++)
            a->weights[used + c] = (int32_t)k[c];
        used += (int32_t)n;
    }
    free(k);
    return RP_OK;
fail:
    free(k);
    axis_free(a);
    return RP_ERR_NOMEM;
}

/* The widest run of taps among outputs 8g..8g+7: at most the grid's width (a run of taps
 * lies inside the grid). */
static int group_ntap(const struct axis *a, int g)
{
    int n = 0;
    for (int x = g * 8; x < g * 8 + 8; x++)
        n = a->count[x] > n ? a->count[x] : n;
    return n;
}

/* The sum of |weight| over output i's taps, Q15. */
static int64_t abs_sum(const struct axis *a, int i)
{
    int64_t t = 0;
    for (int k = 0; k < a->count[i]; k++) {
        int32_t w = a->weights[a->offset[i] + k];
        t += w < 0 ? -w : w;
    }
    return t;
}

/* Whether output i's taps suit RP_UPSCALE_PAIRS, which sums cell halves (int16) times
 * negated int16 weights in int32 (upscale_simd.c): each weight in -32767..32768, and their
 * absolute sum at most 1.5 (Q15 49152), so every such sum stays within 32768 * 49152 < 2^31
 * - 2^22. Along y (any_range), the same bound keeps |column| <= 32768 * 49152, so its high
 * halves fit int16. Catmull-Rom's absolute sums are about 1.25 at most, so in practice this
 * fails only where edge cells gather over 1 (the first and last few outputs). */
static int taps_fit16(const struct axis *a, int i, int any_range)
{
    for (int k = 0; k < a->count[i] && !any_range; k++) {
        int32_t w = a->weights[a->offset[i] + k];
        if (w < -32767 || w > 32768)
            return 0;
    }
    return abs_sum(a, i) <= 49152;
}

/* Output x's weight at place p of its padded window starting at cell fp, or 0. */
static int32_t window_weight(const struct axis *a, int x, int fp, int p)
{
    int k = p - (a->first[x] - fp);
    return k >= 0 && k < a->count[x] ? a->weights[a->offset[x] + k] : 0;
}

/* Group grp (first output x0, grp->n its taps) as RP_UPSCALE_PAIRS, its windows at fp[],
 * each half's within 6 of lo[half]: the byte shuffle and the weight pairs into w. Returns
 * the weights' count. */
static int pairs_build(const struct axis *a, int x0, const int32_t fp[8], const int32_t lo[2],
                       rp_upscale_group *grp, int32_t *w)
{
    int npair = (grp->n + 1) / 2;
    grp->n = npair;
    grp->kind = RP_UPSCALE_PAIRS;
    grp->base = lo[0];
    grp->hi = lo[1] - lo[0];
    for (int j = 0; j < 8; j++) {
        /* lane j's int32 = the int16 halves of cells o and o + 1 of its 128-bit lane */
        int o = fp[j] - lo[j / 4];
        for (int b = 0; b < 4; b++)
            grp->pick[j * 4 + b] = (uint8_t)(2 * o + b);
        for (int s = 0; s < npair; s++) {
            /* (-w[2s], -w[2s + 1]) as int16, low first; the arithmetic avoids converting
             * out-of-range unsigned values */
            int32_t w0 = -window_weight(a, x0 + j, fp[j], 2 * s);
            int32_t w1 = -window_weight(a, x0 + j, fp[j], 2 * s + 1);
            w[s * 8 + j] = w1 * 65536 + (int32_t)((uint32_t)w0 & 0xffffu);
        }
    }
    return npair * 8;
}

/* Group g's windows (upscale_simd.h) and its weights into w (zeroed, room for 8 * ntap).
 * Each output's taps are moved, if need be, so its window of ntap cells ends inside the
 * grid. Returns the weights' count. */
static int group_build(const rp_upscale *u, int g, int ntap, rp_upscale_group *grp, int32_t *w)
{
    const struct axis *a = &u->x;
    int32_t fp[8], lo[2] = {INT32_MAX, INT32_MAX}, top[2] = {0, 0};
    int fit = u->pairs;
    for (int j = 0; j < 8; j++) {
        int x = g * 8 + j, h = j / 4;
        /* first runs need not be monotonic (zero taps trimmed), so take min and max */
        fp[j] = a->first[x] < u->gw - ntap ? a->first[x] : u->gw - ntap;
        lo[h] = fp[j] < lo[h] ? fp[j] : lo[h];
        top[h] = fp[j] > top[h] ? fp[j] : top[h];
        fit = fit && taps_fit16(a, x, 0);
    }
    int base = lo[0] < lo[1] ? lo[0] : lo[1], last = top[0] > top[1] ? top[0] : top[1];
    grp->base = base;
    grp->n = ntap;
    for (int j = 0; j < 8; j++)
        grp->rel[j] = fp[j] - base;
    /* pairs: a cell and the next within each 8-cell half, so offsets up to 6 */
    if (fit && top[0] - lo[0] <= 6 && top[1] - lo[1] <= 6) {
        int32_t one[2] = {base, base}; /* one load serves both halves when it can */
        return pairs_build(a, g * 8, fp, last - base <= 6 ? one : lo, grp, w);
    }
    grp->kind = last - base < 8    ? RP_UPSCALE_SPAN8
                : last - base < 16 ? RP_UPSCALE_SPAN16
                                   : RP_UPSCALE_SPANWIDE;
    for (int j = 0; j < 8; j++)
        for (int p = 0; p < ntap; p++)
            w[p * 8 + j] = window_weight(a, g * 8 + j, fp[j], p);
    return ntap * 8;
}

/* The x taps of the vector row pass (struct rp_upscale) for whole groups of 8 outputs, each
 * group padded to its own widest run of taps (not the row's: fewer multiplies where counts
 * vary, as they do when shrinking). */
static int pad_build(rp_upscale *u)
{
    int groups = u->ow / 8;
    size_t total = 0;
    if (!groups)
        return RP_OK;
    u->pairs = 1;
    for (int y = 0; y < u->oh; y++)
        u->pairs = u->pairs && taps_fit16(&u->y, y, 1);
    for (int g = 0; g < groups; g++)
        total += (size_t)group_ntap(&u->x, g) * 8; /* <= per * ow (axis_build): int32 */
    u->groups = malloc((size_t)groups * sizeof *u->groups);
    u->pw = calloc(total, sizeof *u->pw);
    if (!u->groups || !u->pw)
        return RP_ERR_NOMEM;
    int32_t used = 0;
    for (int g = 0; g < groups; g++) {
        u->groups[g].woff = used;
        used += group_build(u, g, group_ntap(&u->x, g), &u->groups[g], u->pw + used);
    }
    return RP_OK;
}

/* The largest sum of |weights| over an axis's outputs, Q15. */
static int64_t abs_sum_max(const struct axis *a, int n)
{
    int64_t m = 0;
    for (int i = 0; i < n; i++)
        m = abs_sum(a, i) > m ? abs_sum(a, i) : m;
    return m;
}

int rp_upscale_new(rp_upscale **out, int gw, int gh, int ow, int oh)
{
    rp_upscale *u;
    int ret;
    *out = NULL;
    if (gw < 1 || gh < 1 || ow < 1 || oh < 1 || gw > RP_MAX_SIDE || gh > RP_MAX_SIDE ||
        ow > RP_MAX_SIDE || oh > RP_MAX_SIDE)
        return RP_ERR_INVALID;
    u = calloc(1, sizeof *u);
    if (!u)
        return RP_ERR_NOMEM;
    u->gw = gw;
    u->gh = gh;
    u->ow = ow;
    u->oh = oh;
    ret = axis_build(&u->x, gw, ow);
    if (ret)
        goto fail;
    ret = axis_build(&u->y, gh, oh);
    if (ret)
        goto fail;
    /* |out| <= 32768 * sum|wy| * sum|wx| / 2^30 in height units, Q8: / 2^22, rounded up */
    u->peak_q8 = (32768 * abs_sum_max(&u->y, oh) * abs_sum_max(&u->x, ow) + ((1 << 22) - 1)) >> 22;
    ret = pad_build(u);
    if (ret)
        goto fail;
    *out = u;
    return RP_OK;
fail:
    rp_upscale_free(&u);
    return ret;
}

void rp_upscale_free(rp_upscale **u)
{
    if (!u || !*u)
        return;
    axis_free(&(*u)->x);
    axis_free(&(*u)->y);
    free((*u)->groups);
    free((*u)->pw);
    free(*u);
    *u = NULL;
}

/* rp_upscale_rows without memory for a column: each tap's column value computed where it
 * is used, the same integers in the same order (slow, for when malloc fails). */
static void rows_unbuffered(const rp_upscale *u, const int16_t *heights, int32_t *out, int y0,
                            int y1)
{
    for (int y = y0; y < y1; y++) {
        const int32_t *wy = u->y.weights + u->y.offset[y];
        const int16_t *src = heights + (size_t)u->y.first[y] * u->gw;
        int32_t *dst = out + (size_t)y * u->ow;
        for (int x = 0; x < u->ow; x++) {
            const int32_t *wx = u->x.weights + u->x.offset[x];
            int64_t acc = 0;
            for (int k = 0; k < u->x.count[x]; k++) {
                int c = u->x.first[x] + k;
                int32_t column = 0;
                if (c < u->gw)
                    for (int j = 0; j < u->y.count[y]; j++)
                        column += src[(size_t)j * u->gw + c] * wy[j];
                acc += (int64_t)column * wx[k];
            }
            dst[x] = (int32_t)((acc + ((int64_t)1 << 21)) >> 22);
        }
    }
}

size_t rp_upscale_scratch_bytes(const rp_upscale *u)
{
    return ((size_t)u->gw + RP_UPSCALE_PAD) * (sizeof(int32_t) + 2 * sizeof(int16_t));
}

void rp_upscale_rows(const rp_upscale *u, const int16_t *heights, int32_t *out, int y0, int y1)
{
    void *scratch = malloc(rp_upscale_scratch_bytes(u));
    if (!scratch) {
        rows_unbuffered(u, heights, out, y0, y1);
        return;
    }
    rp_upscale_rows_s(u, heights, out, y0, y1, scratch);
    free(scratch);
}

RP_DSP_TABLES(upscale)

void rp_upscale_rows_s(const rp_upscale *u, const int16_t *heights, int32_t *out, int y0, int y1,
                       void *mem)
{
    /* One output row down the columns, Q15: |sum| <= 32768 * 32768 * 1.25 < 2^31 (the
     * weights' absolute sum is at most 1.25 for Catmull-Rom, stretched or not), with the
     * vector row pass's 16-bit halves after it, in the caller's scratch: a few small stacks
     * (threads, ulimit -s) cannot hold a row of the widest grid. */
    const int gw = u->gw, ow = u->ow;
    size_t cells = (size_t)gw + RP_UPSCALE_PAD;
    int32_t *column = mem;
    int16_t *scratch = (int16_t *)(column + cells);
    /* the vector row pass reads (and ignores) cells past the grid */
    for (int x = gw; x < gw + RP_UPSCALE_PAD; x++)
        column[x] = 0;
    const rp_upscale_dsp *dsp = rp_upscale_dsp_get();
    rp_upscale_col_fn colf = dsp->col;
    rp_upscale_row_fn rowf = u->groups ? dsp->row : NULL;
    for (int y = y0; y < y1; y++) {
        const int32_t *wy = u->y.weights + u->y.offset[y];
        const int16_t *src = heights + (size_t)u->y.first[y] * gw;
        int ny = u->y.count[y];
        int x0 = colf ? colf(src, gw, wy, ny, column, gw) : 0;
        if (ny == 1 && wy[0] == 32768) {
            for (int x = x0; x < gw; x++)
                column[x] = (int32_t)src[x] * 32768;
        } else {
            for (int x = x0; x < gw; x++)
                column[x] = src[x] * wy[0];
            for (int k = 1; k < ny; k++) {
                const int16_t *row = src + (size_t)k * gw;
                int32_t w = wy[k];
                for (int x = x0; x < gw; x++)
                    column[x] += row[x] * w;
            }
        }
        int32_t *dst = out + (size_t)y * ow;
        x0 = rowf ? rowf(column, gw, u->groups, u->pw, dst, ow, scratch) : 0;
        for (int x = x0; x < ow; x++) {
            const int32_t *wx = u->x.weights + u->x.offset[x];
            const int32_t *c = column + u->x.first[x];
            int n = u->x.count[x];
            int64_t acc = 0;
            for (int k = 0; k < n; k++)
                acc += (int64_t)c[k] * wx[k];
            /* Q30 -> Q8, halves up (arithmetic shift: floor) */
            dst[x] = (int32_t)((acc + ((int64_t)1 << 21)) >> 22);
        }
    }
}

int rp_upscale_row_still(const rp_upscale *u, const uint8_t *still, int y)
{
    for (int k = 0; k < u->y.count[y]; k++)
        if (!still[u->y.first[y] + k])
            return 0;
    return 1;
}

int32_t rp_upscale_ratio_q16(int grid, int out)
{
    if (grid < 1)
        return 0;
    return (int32_t)((((int64_t)out << 16) + grid / 2) / grid);
}

int64_t rp_upscale_peak_q8(const rp_upscale *u)
{
    return u->peak_q8;
}
