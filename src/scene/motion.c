/* motion.c - paths, the oscillator's sine and keys, in integers (motion.h). */
#include "scene/motion.h"

#include <pthread.h>

#include "base/common.h"

typedef __int128 i128;

/* floor(a / b), b > 0 */
static i128 floordiv(i128 a, i128 b)
{
    i128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t chord(int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    uint64_t dx = (uint64_t)(x1 > x0 ? x1 - x0 : x0 - x1),
             dy = (uint64_t)(y1 > y0 ? y1 - y0 : y0 - y1);
    return (int64_t)rp_isqrt64(dx * dx + dy * dy);
}

/* The Catmull-Rom point of segment i at u (Q16), rounded to nearest. */
static int64_t cr(const int64_t *v, int n, int i, int64_t u)
{
    const i128 U = 65536;
    i128 p0 = v[i > 0 ? i - 1 : 0], p1 = v[i], p2 = v[i + 1], p3 = v[i + 2 < n ? i + 2 : n - 1];
    i128 u2 = (i128)u * u, u3 = u2 * u;
    i128 num = 2 * p1 * U * U * U + (p2 - p0) * u * U * U +
               (2 * p0 - 5 * p1 + 4 * p2 - p3) * u2 * U + (3 * p1 - p0 - 3 * p2 + p3) * u3;
    i128 den = 2 * U * U * U;
    return (int64_t)floordiv(2 * num + den, 2 * den);
}

static void point_on(const rp_path_geo *p, int i, int64_t u, int64_t *x, int64_t *y)
{
    if (p->smooth) {
        *x = cr(p->x, p->n, i, u);
        *y = cr(p->y, p->n, i, u);
        return;
    }
    *x = p->x[i] + (int64_t)floordiv((i128)(p->x[i + 1] - p->x[i]) * u + 32768, 65536);
    *y = p->y[i] + (int64_t)floordiv((i128)(p->y[i + 1] - p->y[i]) * u + 32768, 65536);
}

int64_t rp_path_segment_length(const rp_path_geo *p, int i)
{
    if (!p->smooth)
        return chord(p->x[i], p->y[i], p->x[i + 1], p->y[i + 1]);
    int64_t len = 0, px = p->x[i], py = p->y[i];
    for (int k = 1; k <= 16; k++) {
        int64_t x, y;
        point_on(p, i, (int64_t)k << 12, &x, &y);
        len += chord(px, py, x, y);
        px = x;
        py = y;
    }
    return len;
}

void rp_path_constant_speed(rp_path_geo *p, int64_t t0, int64_t t1)
{
    int64_t cum[RP_PATH_POINTS_MAX], total = 0;
    cum[0] = 0;
    for (int i = 0; i + 1 < p->n; i++)
        cum[i + 1] = total += rp_path_segment_length(p, i);
    for (int i = 0; i < p->n; i++)
        p->t[i] = total > 0 ? t0 + (int64_t)((i128)(t1 - t0) * cum[i] / total)
                            : t0 + (int64_t)((i128)(t1 - t0) * i / (p->n - 1));
    /* points closer than a tick in time (a tiny segment) keep their order */
    for (int i = 1; i < p->n; i++)
        if (p->t[i] <= p->t[i - 1])
            p->t[i] = p->t[i - 1] + 1;
}

void rp_path_at(const rp_path_geo *p, int64_t t, int64_t *x, int64_t *y)
{
    if (t <= p->t[0]) {
        *x = p->x[0];
        *y = p->y[0];
        return;
    }
    if (t >= p->t[p->n - 1]) {
        *x = p->x[p->n - 1];
        *y = p->y[p->n - 1];
        return;
    }
    int i = 0;
    while (t >= p->t[i + 1])
        i++;
    int64_t u = (int64_t)((i128)(t - p->t[i]) * 65536 / (p->t[i + 1] - p->t[i]));
    point_on(p, i, u, x, y);
}

/* ---- the oscillator -------------------------------------------------------------------- */

#define QUARTER 1024
static int32_t sine[QUARTER + 2];
static pthread_once_t sine_once = PTHREAD_ONCE_INIT;

/* sin over a quarter turn in Q15, from its Taylor series in Q62 (to x^21, whose term is
 * below 2^-70 at pi/2): integer arithmetic, the same table everywhere. */
static void sine_build(void)
{
    const i128 half_pi = (i128)INT64_C(7244019458077122842); /* pi/2 in Q62 */
    for (int i = 0; i <= QUARTER; i++) {
        i128 x = half_pi * i / QUARTER, term = x, sum = x;
        for (int k = 1; k <= 10; k++) {
            term = -((term * x) >> 62) * x >> 62;
            term /= (2 * k) * (2 * k + 1);
            sum += term;
        }
        sine[i] = (int32_t)((sum * 32767 + ((i128)1 << 61)) >> 62);
    }
    sine[QUARTER + 1] = sine[QUARTER];
}

static int32_t quarter(uint32_t pos) /* pos 0..2^30 */
{
    uint32_t idx = pos >> 20, frac = (pos >> 4) & 0xffff;
    int32_t a = sine[idx], b = sine[idx + 1];
    return a + (int32_t)(((int64_t)(b - a) * frac + 32768) >> 16);
}

int32_t rp_sin_q15(uint32_t phase)
{
    pthread_once(&sine_once, sine_build);
    uint32_t q = phase >> 30, p = phase & 0x3fffffffu;
    switch (q) {
    case 0: return quarter(p);
    case 1: return quarter((1u << 30) - p);
    case 2: return -quarter(p);
    default: return -quarter((1u << 30) - p);
    }
}

/* ---- keys ------------------------------------------------------------------------------ */

int64_t rp_keys_at(const rp_keys *k, int64_t num, int64_t den)
{
    if ((i128)num <= (i128)k->t[0] * den)
        return k->v[0];
    if ((i128)num >= (i128)k->t[k->n - 1] * den)
        return k->v[k->n - 1];
    int i = 0;
    while ((i128)num >= (i128)k->t[i + 1] * den)
        i++;
    i128 u =
        ((i128)num - (i128)k->t[i] * den) * ((i128)1 << 32) / ((i128)(k->t[i + 1] - k->t[i]) * den);
    if (k->smooth) {
        i128 u2 = (u * u) >> 32, u3 = (u2 * u) >> 32;
        u = 3 * u2 - 2 * u3;
    }
    return k->v[i] + (int64_t)floordiv((i128)(k->v[i + 1] - k->v[i]) * u, (i128)1 << 32);
}
