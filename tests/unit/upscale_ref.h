/* upscale_ref.h - for test_upscale.c: the plain C resampler of src/look/upscale.c as it was
 * before the vector passes (commit cc4e731), verbatim but for names, so every path of the
 * library (plain C and each SIMD level) can be compared with it byte for byte. Include
 * once. */
#ifndef RP_UPSCALE_REF_H
#define RP_UPSCALE_REF_H

#include <stdint.h>
#include <stdlib.h>

#include "base/common.h"

struct ref_axis {
    int32_t *first;  /* per output: first grid cell of its taps */
    int32_t *count;  /* per output: number of taps */
    int32_t *offset; /* per output: index of its first weight in weights */
    int32_t *weights;
};

typedef struct ref_upscale ref_upscale;
struct ref_upscale {
    int gw, gh, ow, oh;
    struct ref_axis x, y;
};

/* floor(a / b) for b > 0. */
static int64_t ref_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (q * b > a) ? q - 1 : q;
}

/* round(a / b) for b > 0, halves up. */
static int64_t ref_round_div(int64_t a, int64_t b)
{
    return ref_floor_div(2 * a + b, 2 * b);
}

/* Catmull-Rom at |t| = a (Q16), Q32:
 *   a < 1:  (3a^3 - 5a^2 + 2) / 2,   1 <= a < 2:  (-a^3 + 5a^2 - 8a + 4) / 2.
 * a^3 is Q48 (a < 2^17, so under 2^51); the sum is rounded to Q32 once. */
static int64_t ref_catmull_rom_q32(int64_t a)
{
    const int64_t one48 = (int64_t)1 << 48;
    int64_t a2 = a * a;      /* Q32 */
    int64_t a3 = a2 * a;     /* Q48 */
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

static void ref_axis_free(struct ref_axis *a)
{
    free(a->first);
    free(a->count);
    free(a->offset);
    free(a->weights);
}

/* Taps of every output along one axis: g grid cells, o outputs. */
static int ref_axis_build(struct ref_axis *a, int g, int o)
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
        int64_t base = ref_floor_div(num, 2 * (int64_t)o);
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
            int64_t t = ref_round_div((d < 0 ? -d : d) << 16, den);
            int64_t v = ref_catmull_rom_q32(t);
            int64_t cell = j < 0 ? 0 : j > g - 1 ? g - 1 : j;
            k[cell - first] += v;
            sum += v;
        }
        /* Q15 weights summing to exactly 32768; the rounding remainder goes to the
         * largest tap. sum > 0: the taps of a Catmull-Rom sample sum to ~1. */
        int64_t total = 0, big = 0;
        for (int64_t c = 0; c < n; c++) {
            int64_t w = ref_round_div(k[c] * 32768, sum);
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
    ref_axis_free(a);
    return RP_ERR_NOMEM;
}

static void ref_upscale_free(ref_upscale **u);

static int ref_upscale_new(ref_upscale **out, int gw, int gh, int ow, int oh)
{
    ref_upscale *u;
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
    ret = ref_axis_build(&u->x, gw, ow);
    if (ret)
        goto fail;
    ret = ref_axis_build(&u->y, gh, oh);
    if (ret)
        goto fail;
    *out = u;
    return RP_OK;
fail:
    ref_upscale_free(&u);
    return ret;
}

static void ref_upscale_free(ref_upscale **u)
{
    if (!u || !*u)
        return;
    ref_axis_free(&(*u)->x);
    ref_axis_free(&(*u)->y);
    free(*u);
    *u = NULL;
}

static void ref_upscale_rows(const ref_upscale *u, const int16_t *heights, int32_t *out, int y0, int y1)
{
    /* One output row down the columns, Q15: |sum| <= 32768 * 32768 * 1.25 < 2^31 (the
     * weights' absolute sum is at most 1.25 for Catmull-Rom, stretched or not). */
    int32_t column[RP_MAX_SIDE];
    const int gw = u->gw, ow = u->ow;
    for (int y = y0; y < y1; y++) {
        const int32_t *wy = u->y.weights + u->y.offset[y];
        const int16_t *src = heights + (size_t)u->y.first[y] * gw;
        int ny = u->y.count[y];
        if (ny == 1 && wy[0] == 32768) {
            for (int x = 0; x < gw; x++)
                column[x] = (int32_t)src[x] * 32768;
        } else {
            for (int x = 0; x < gw; x++)
                column[x] = src[x] * wy[0];
            for (int k = 1; k < ny; k++) {
                const int16_t *row = src + (size_t)k * gw;
                int32_t w = wy[k];
                for (int x = 0; x < gw; x++)
                    column[x] += row[x] * w;
            }
        }
        int32_t *dst = out + (size_t)y * ow;
        for (int x = 0; x < ow; x++) {
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

#endif
