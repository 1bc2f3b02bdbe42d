/* water.c - the ripple simulation (rockpool(1) FRAME LOOP, rockpool-scene(5)).
 *
 * Two int16 buffers, `cur` (the state after the last step) and `prev` (the one before).
 * A step computes, for each cell, n = S(cur) - prev in int32 (S is the stencil), damps
 * it, saturates it to int16 and stores it over prev; then the buffers swap. This is
 * Hugo Elias' ProcessWater loop (seed 001) done per row, so rows never wrap into each
 * other (the applet's left/right bug, seed 002) unless `boundary wrap` is asked. */
#include "sim/water.h"

#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "base/cpu.h"
#include "sim/water_simd.h"

struct rp_water {
    rp_water_params p;
    int16_t *cur;
    int16_t *prev;
    int16_t *tmp;      /* the viscosity pass's output (viscosity_q16 only) */
    uint8_t *wall;     /* width*height, 1 = wall cell; NULL until a wall is added */
    int32_t *wall_idx; /* indices of wall cells, for re-zeroing after each step */
    size_t nwall;
    /* Cells a moving wall covers now (wall[i] bit 1; the walls' own cells are bit 0). */
    int32_t *move_idx;
    size_t nmove, move_cap;
    int32_t mur_q16; /* open boundary: Mur coefficient (c-1)/(c+1) in Q16 */
    rp_span_fn span; /* vector kernel for step_span, chosen per step; NULL = plain C */
    /* Per row of cur and of prev, an upper bound of mag(v) = v ^ (v >> 15) over the row
     * (v for v >= 0, -1 - v below): rows of small heights let the vector kernel take its
     * exact int16 path. They swap with the buffers; every write to a buffer keeps them
     * upper bounds (zeroing needs nothing: 0 is the least). */
    uint16_t *mag_cur, *mag_prev;
    /* Still rows: per row of cur, prev and tmp, 1 when every cell of the row is 0 (0 when
     * unknown). A row whose neighbourhood is still in both buffers stays still through a
     * step (S = 0, n = 0 - 0), so the step skips it; they swap with the buffers, every write
     * that may leave a nonzero cell clears its row's flag, and zeroing keeps them true. */
    uint8_t *still_cur, *still_prev, *still_tmp;
    /* Blocked steps (rp_water_steps): each band's halo rows, copied before the band's
     * steps, and their bounds; allocated at the first blocked call, grown when needed. */
    int16_t *halo;
    uint16_t *halo_mag;
    uint8_t *halo_still;
    size_t halo_rows;
};

/* mag(v) of the row bounds above: monotonic in |v|, and v ^ (v >> 15) is cheap in SIMD. */
static inline int mag_of(int32_t v)
{
    return v ^ (v >> 15);
}

static inline void fold_mag(uint16_t *mag, int32_t v)
{
    if (mag_of(v) > *mag)
        *mag = (uint16_t)mag_of(v);
}

/* Set the bounds and still flags of a whole buffer from its contents, a row at a time:
 * mag(v) grows with v above 0 and falls with it below, so the row's bound is mag of its
 * largest or its smallest cell, and the row is still when both are 0. Plain minimum and
 * maximum reductions, which the compiler turns into vector code. */
static void measure(const int16_t *buf, uint16_t *mag, uint8_t *still, int width, int height)
{
    for (int y = 0; y < height; y++) {
        const int16_t *row = buf + (size_t)y * width;
        int16_t lo = 0, hi = 0, lo16[16] = {0}, hi16[16] = {0};
        int x = 0;
        for (; x + 16 <= width; x += 16) /* a fixed trip count: vector code at -O2 */
            for (int i = 0; i < 16; i++) {
                lo16[i] = row[x + i] < lo16[i] ? row[x + i] : lo16[i];
                hi16[i] = row[x + i] > hi16[i] ? row[x + i] : hi16[i];
            }
        for (int i = 0; i < 16; i++) {
            lo = lo16[i] < lo ? lo16[i] : lo;
            hi = hi16[i] > hi ? hi16[i] : hi;
        }
        for (; x < width; x++) {
            lo = row[x] < lo ? row[x] : lo;
            hi = row[x] > hi ? row[x] : hi;
        }
        mag[y] = (uint16_t)(mag_of(hi) > mag_of(lo) ? mag_of(hi) : mag_of(lo));
        still[y] = (uint8_t)(lo == 0 && hi == 0);
    }
}

/* Whether every cell of a row is 0: 32 cells at a time (a fixed trip count, which the
 * compiler turns into vector code at -O2), stopping at the first block that is not. */
static int row_zero(const int16_t *row, int n)
{
    int x = 0;
    for (; x + 32 <= n; x += 32) {
        int16_t any[16] = {0};
        for (int i = 0; i < 16; i++)
            any[i] = (int16_t)(row[x + i] | row[x + 16 + i]);
        int16_t all = 0;
        for (int i = 0; i < 16; i++)
            all |= any[i];
        if (all)
            return 0;
    }
    int16_t all = 0;
    for (; x < n; x++)
        all |= row[x];
    return all == 0;
}

int32_t rp_drop_value(const rp_drop *d, int64_t d2)
{
    int64_t r = d->radius;
    switch (d->shape) {
    case RP_SHAPE_DISC:
    case RP_SHAPE_SQUARE: return d->height;
    case RP_SHAPE_COSINE: {
        /* CodeProject seed 004: height * cos(d * pi / r) with d the distance truncated
         * to an integer, as its (long)Math.Sqrt(...) does. */
        if (r == 0)
            return d->height;
        int64_t dist = rp_isqrt64((uint64_t)d2);
        return (int32_t)(((int64_t)d->height * rp_cos_pi_q16(dist, r)) / 65536);
    }
    case RP_SHAPE_SPLASH: {
        /* Silverlight seed 003: height * (255 - 512 * (1 - d/r)) / 255, below the water
         * level at the centre and rising to +height at the rim. d/r in exact rationals
         * with d = floor(2^f * sqrt(d2)) / 2^f, f = 16 (8 for radii over 4096, so the
         * products stay inside int64). */
        int f = r <= 4096 ? 16 : 8;
        if (r == 0)
            return (int32_t)((int64_t)d->height * (255 - 512) / 255);
        int64_t dq = rp_isqrt64((uint64_t)d2 << (2 * f));
        int64_t rq = r << f;
        return (int32_t)((int64_t)d->height * (255 * rq - 512 * (rq - dq)) / (255 * rq));
    }
    case RP_SHAPE_SMOOTH: {
        /* A bump whose height and slope both reach zero at the rim, so a drop starts no
         * waves shorter than the grid can carry (they show as a crosshatch when lit). */
        if (r == 0)
            return d->height;
        int64_t r2 = r * r, e = r2 - d2;
        return (int32_t)((int64_t)d->height * e / r2 * e / r2);
    }
    }
    return 0;
}

/* Coefficient (c - 1) / (c + 1) of Mur's first-order absorbing boundary, Q16, for the
 * wave speed c (cells per step) each stencil gives: c^2 = 1/2 for `4`, 3/4 for `8`,
 * 3/8 for `iso` (the factor in front of the continuous Laplacian). */
static int32_t mur_coefficient(enum rp_stencil s)
{
    switch (s) {
    case RP_STENCIL_4: return -11244;   /* c = 0.70711 */
    case RP_STENCIL_8: return -4705;    /* c = 0.86603 */
    case RP_STENCIL_ISO: return -15754; /* c = 0.61237 */
    }
    return 0;
}

/* Zeroed memory on a cache-line boundary: with a width that is a multiple of 16 (such as
 * 1920), every row then starts on a vector boundary and the step's loads of the centre
 * column and its stores never straddle a cache line. Freed with free(). */
static void *zalloc_aligned(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = rounded >= bytes ? aligned_alloc(64, rounded) : NULL;
    if (p)
        memset(p, 0, rounded);
    return p;
}

int rp_water_new(rp_water **out, const rp_water_params *p)
{
    rp_water *w = NULL;
    size_t cells;

    *out = NULL;
    if (p->width < 1 || p->height < 1 || p->width > RP_MAX_SIDE || p->height > RP_MAX_SIDE)
        return RP_ERR_INVALID;
    if (p->stencil > RP_STENCIL_ISO || p->boundary > RP_BOUNDARY_WRAP)
        return RP_ERR_INVALID;
    if (p->damping_q16 < 0 || p->damping_q16 > 65536)
        return RP_ERR_INVALID;
    if (p->damping_q16 == 0 && (p->damping_shift < 1 || p->damping_shift > 30))
        return RP_ERR_INVALID;
    if (p->viscosity_q16 < 0 || p->viscosity_q16 > 16384)
        return RP_ERR_INVALID;
    if ((size_t)p->width > SIZE_MAX / (size_t)p->height / sizeof(int16_t))
        return RP_ERR_TOO_LARGE;
    cells = (size_t)p->width * (size_t)p->height;

    w = calloc(1, sizeof *w);
    if (!w)
        return RP_ERR_NOMEM;
    w->p = *p;
    w->mur_q16 = mur_coefficient(p->stencil);
    w->cur = zalloc_aligned(cells * sizeof(int16_t));
    w->prev = zalloc_aligned(cells * sizeof(int16_t));
    w->mag_cur = calloc((size_t)p->height, sizeof *w->mag_cur);
    w->mag_prev = calloc((size_t)p->height, sizeof *w->mag_prev);
    w->still_cur = malloc((size_t)p->height);
    w->still_prev = malloc((size_t)p->height);
    w->still_tmp = malloc((size_t)p->height);
    if (p->viscosity_q16 && !(w->tmp = zalloc_aligned(cells * sizeof(int16_t)))) {
        rp_water_free(&w);
        return RP_ERR_NOMEM;
    }
    if (!w->cur || !w->prev || !w->mag_cur || !w->mag_prev || !w->still_cur || !w->still_prev ||
        !w->still_tmp) {
        rp_water_free(&w);
        return RP_ERR_NOMEM;
    }
    /* every buffer starts still; tmp's rows are written before they are read */
    memset(w->still_cur, 1, (size_t)p->height);
    memset(w->still_prev, 1, (size_t)p->height);
    memset(w->still_tmp, 0, (size_t)p->height);
    *out = w;
    return RP_OK;
}

void rp_water_free(rp_water **pw)
{
    if (!pw || !*pw)
        return;
    rp_water *w = *pw;
    free(w->cur);
    free(w->prev);
    free(w->tmp);
    free(w->wall);
    free(w->wall_idx);
    free(w->move_idx);
    free(w->mag_cur);
    free(w->mag_prev);
    free(w->halo);
    free(w->halo_mag);
    free(w->halo_still);
    free(w->still_cur);
    free(w->still_prev);
    free(w->still_tmp);
    free(w);
    *pw = NULL;
}

const rp_water_params *rp_water_params_of(const rp_water *w)
{
    return &w->p;
}

const int16_t *rp_water_heights(const rp_water *w)
{
    return w->cur;
}

const uint8_t *rp_water_still_rows(const rp_water *w)
{
    return w->still_cur;
}

const int16_t *rp_water_prev(const rp_water *w)
{
    return w->prev;
}

/* Zero every held cell of buf: wall cells, and the edges under `boundary wall`. */
static void hold(const rp_water *w, int16_t *buf)
{
    int W = w->p.width, H = w->p.height;
    for (size_t i = 0; i < w->nwall; i++)
        buf[w->wall_idx[i]] = 0;
    for (size_t i = 0; i < w->nmove; i++)
        buf[w->move_idx[i]] = 0;
    if (w->p.boundary == RP_BOUNDARY_WALL) {
        memset(buf, 0, (size_t)W * sizeof *buf);
        memset(buf + (size_t)(H - 1) * W, 0, (size_t)W * sizeof *buf);
        for (int y = 0; y < H; y++) {
            buf[(size_t)y * W] = 0;
            buf[(size_t)y * W + W - 1] = 0;
        }
    }
}

int rp_water_bounds_hold(const rp_water *w)
{
    for (int y = 0; y < w->p.height; y++) {
        const int16_t *c = w->cur + (size_t)y * w->p.width, *p = w->prev + (size_t)y * w->p.width;
        if ((w->still_cur[y] && !row_zero(c, w->p.width)) ||
            (w->still_prev[y] && !row_zero(p, w->p.width)))
            return 0;
    }
    for (int y = 0; y < w->p.height; y++)
        for (int x = 0; x < w->p.width; x++) {
            size_t i = (size_t)y * w->p.width + x;
            if (mag_of(w->cur[i]) > w->mag_cur[y] || mag_of(w->prev[i]) > w->mag_prev[y])
                return 0;
        }
    return 1;
}

void rp_water_load(rp_water *w, const int16_t *cur, const int16_t *prev)
{
    size_t cells = (size_t)w->p.width * (size_t)w->p.height;
    memcpy(w->cur, cur, cells * sizeof *cur);
    memcpy(w->prev, prev, cells * sizeof *prev);
    hold(w, w->cur);
    hold(w, w->prev);
    measure(w->cur, w->mag_cur, w->still_cur, w->p.width, w->p.height);
    measure(w->prev, w->mag_prev, w->still_prev, w->p.width, w->p.height);
}

static int is_held(const rp_water *w, int x, int y)
{
    if (w->p.boundary == RP_BOUNDARY_WALL &&
        (x == 0 || y == 0 || x == w->p.width - 1 || y == w->p.height - 1))
        return 1;
    return w->wall && w->wall[(size_t)y * w->p.width + x];
}

void rp_water_drop(rp_water *w, const rp_drop *d)
{
    int64_t r = d->radius < 0 ? 0 : d->radius;
    int64_t x0 = d->x - r, x1 = d->x + r, y0 = d->y - r, y1 = d->y + r;
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 > w->p.width - 1)
        x1 = w->p.width - 1;
    if (y1 > w->p.height - 1)
        y1 = w->p.height - 1;
    for (int64_t y = y0; y <= y1; y++) {
        int16_t *row = w->cur + (size_t)y * w->p.width;
        int64_t dy = y - d->y;
        for (int64_t x = x0; x <= x1; x++) {
            int64_t dx = x - d->x;
            int64_t d2 = dx * dx + dy * dy;
            if (d->shape != RP_SHAPE_SQUARE && d2 > r * r)
                continue;
            if (is_held(w, (int)x, (int)y))
                continue;
            int32_t v = rp_drop_value(d, d2);
            row[x] = d->mode == RP_MODE_SET ? rp_sat16(v) : rp_sat16((int32_t)row[x] + v);
            fold_mag(&w->mag_cur[y], row[x]);
            w->still_cur[y] = 0;
        }
    }
}

void rp_water_move_release(rp_water *w)
{
    for (size_t i = 0; i < w->nmove; i++)
        w->wall[w->move_idx[i]] &= (uint8_t)~2u;
    w->nmove = 0;
}

int rp_water_move_hold(rp_water *w, int x, int y, int32_t *cur)
{
    size_t i = (size_t)y * w->p.width + x;
    *cur = 0;
    if (!w->wall && rp_water_reserve_walls(w) != RP_OK)
        return RP_ERR_NOMEM;
    if (w->wall[i])
        return RP_OK; /* a wall, or covered already */
    if (w->nmove == w->move_cap) {
        size_t cap = w->move_cap ? 2 * w->move_cap : 1024;
        int32_t *m = realloc(w->move_idx, cap * sizeof *m);
        if (!m)
            return RP_ERR_NOMEM;
        w->move_idx = m;
        w->move_cap = cap;
    }
    w->wall[i] |= 2;
    w->move_idx[w->nmove++] = (int32_t)i;
    *cur = w->cur[i];
    w->cur[i] = 0;
    w->prev[i] = 0;
    return RP_OK;
}

int rp_water_is_held(const rp_water *w, int x, int y)
{
    return is_held(w, x, y);
}

void rp_water_add(rp_water *w, int x, int y, int32_t v)
{
    if (x < 0 || y < 0 || x >= w->p.width || y >= w->p.height || is_held(w, x, y))
        return;
    int16_t *c = &w->cur[(size_t)y * w->p.width + x];
    *c = rp_sat16((int32_t)*c + v);
    fold_mag(&w->mag_cur[y], *c);
    w->still_cur[y] = 0;
}

const uint8_t *rp_water_walls(const rp_water *w)
{
    return w->nwall ? w->wall : NULL;
}

int rp_water_reserve_walls(rp_water *w)
{
    size_t cells = (size_t)w->p.width * (size_t)w->p.height;
    if (w->wall)
        return RP_OK;
    w->wall = calloc(cells, 1);
    w->wall_idx = malloc(cells * sizeof *w->wall_idx);
    if (!w->wall || !w->wall_idx) {
        free(w->wall);
        free(w->wall_idx);
        w->wall = NULL;
        w->wall_idx = NULL;
        return RP_ERR_NOMEM;
    }
    return RP_OK;
}

static int add_wall_cell(rp_water *w, size_t i)
{
    if (!w->wall && rp_water_reserve_walls(w) != RP_OK)
        return RP_ERR_NOMEM;
    /* bit 0 alone: a cell a moving wall holds (bit 1) becomes wall too, and stays one when
     * the moving wall passes on, as it does when the walls are added again on still water
     * (a checkpoint's or a seek's replay) */
    if (!(w->wall[i] & 1)) {
        w->wall[i] |= 1;
        w->wall_idx[w->nwall++] = (int32_t)i;
        w->cur[i] = 0;
        w->prev[i] = 0;
    }
    return RP_OK;
}

void rp_water_add_walls(rp_water *w, const uint8_t *mask)
{
    size_t cells = (size_t)w->p.width * (size_t)w->p.height;
    for (size_t i = 0; i < cells; i++)
        if (mask[i] && add_wall_cell(w, i) != RP_OK)
            return;
}

void rp_water_add_wall_rect(rp_water *w, int x, int y, int width, int height)
{
    int x0 = rp_clampi(x, 0, w->p.width), y0 = rp_clampi(y, 0, w->p.height);
    int x1 = (int)rp_clampi((int)((int64_t)x + width > INT32_MAX ? INT32_MAX : x + width), 0,
                            w->p.width);
    int y1 = (int)rp_clampi((int)((int64_t)y + height > INT32_MAX ? INT32_MAX : y + height), 0,
                            w->p.height);
    for (int yy = y0; yy < y1; yy++)
        for (int xx = x0; xx < x1; xx++)
            if (add_wall_cell(w, (size_t)yy * w->p.width + xx) != RP_OK)
                return;
}

void rp_water_add_wall_circle(rp_water *w, int cx, int cy, int r)
{
    for (int y = rp_clampi(cy - r, 0, w->p.height); y <= cy + r && y < w->p.height; y++)
        for (int x = rp_clampi(cx - r, 0, w->p.width); x <= cx + r && x < w->p.width; x++) {
            int64_t dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy <= (int64_t)r * r &&
                add_wall_cell(w, (size_t)y * w->p.width + x) != RP_OK)
                return;
        }
}

/* ---- the step ---------------------------------------------------------------------- */

/* Stencil sum S for one cell, from its row above (u), own row (m), row below (d) and the
 * column indices left (l), centre (c), right (r). Always inlined with a constant stencil,
 * so the compiler specialises each loop. */
static inline __attribute__((always_inline)) int32_t stencil_sum(enum rp_stencil s,
                                                                 const int16_t *u, const int16_t *m,
                                                                 const int16_t *d, int l, int c,
                                                                 int r)
{
    switch (s) {
    case RP_STENCIL_4: return ((int32_t)m[l] + m[r] + u[c] + d[c]) >> 1;
    case RP_STENCIL_8: return ((int32_t)u[l] + u[c] + u[r] + m[l] + m[r] + d[l] + d[c] + d[r]) >> 2;
    case RP_STENCIL_ISO:
        return (4 * ((int32_t)m[l] + m[r] + u[c] + d[c]) + ((int32_t)u[l] + u[r] + d[l] + d[r]) +
                12 * (int32_t)m[c]) >>
               4;
    }
    return 0;
}

static inline __attribute__((always_inline)) int32_t damp(int32_t n, int shift, int32_t q16)
{
    if (q16)
        return (int32_t)(((int64_t)n * q16) / 65536); /* C division: toward zero */
    return n - (n >> shift);                          /* arithmetic shift (gcc, clang) */
}

/* One row, columns x0..x1-1, all of whose neighbours lie inside the row triple. */
static inline __attribute__((always_inline)) void step_span(enum rp_stencil s, int shift,
                                                            int32_t q16, const int16_t *restrict u,
                                                            const int16_t *restrict m,
                                                            const int16_t *restrict d,
                                                            int16_t *restrict out, int x0, int x1)
{
    for (int x = x0; x < x1; x++)
        out[x] = rp_sat16(damp(stencil_sum(s, u, m, d, x - 1, x, x + 1) - out[x], shift, q16));
}

/* Columns x0..x1-1 of one row (see step_span); in_mag bounds the mags of the cells read.
 * Returns a bound of the mags of the cells written (INT16_MAX when unknown). */
static int step_span_dispatch(const rp_water *w, const int16_t *u, const int16_t *m,
                              const int16_t *d, int16_t *out, int x0, int x1, int in_mag)
{
    int shift = w->p.damping_shift;
    int32_t q = w->p.damping_q16;
    int mag = 0;
    /* The vector kernel does the whole row (or nothing, for rows shorter than one vector);
     * the plain loop below is the reference it matches, and does what it leaves. */
    if (w->span && x1 > x0)
        x0 += w->span(u + x0, m + x0, d + x0, out + x0, x1 - x0, shift, q, in_mag, &mag);
    if (x0 >= x1)
        return mag;
        /* Specialise the hot loop for each stencil and damping kind. */
#define SPAN(S)                                                                                    \
    do {                                                                                           \
        if (q)                                                                                     \
            step_span(S, 0, q, u, m, d, out, x0, x1);                                              \
        else if (shift == 5)                                                                       \
            step_span(S, 5, 0, u, m, d, out, x0, x1);                                              \
        else                                                                                       \
            step_span(S, shift, 0, u, m, d, out, x0, x1);                                          \
    } while (0)
    switch (w->p.stencil) {
    case RP_STENCIL_4: SPAN(RP_STENCIL_4); break;
    case RP_STENCIL_8: SPAN(RP_STENCIL_8); break;
    case RP_STENCIL_ISO: SPAN(RP_STENCIL_ISO); break;
    }
#undef SPAN
    if (!w->span)
        return INT16_MAX; /* the plain C path does not track magnitudes */
    for (int x = x0; x < x1; x++)
        if (mag_of(out[x]) > mag)
            mag = mag_of(out[x]);
    return mag;
}

static inline int max4(int a, int b, int c, int d)
{
    int ab = a > b ? a : b, cd = c > d ? c : d;
    return ab > cd ? ab : cd;
}

/* One cell with explicit neighbour columns (the side columns under wrap). */
static void step_cell(const rp_water *w, const int16_t *u, const int16_t *m, const int16_t *d,
                      int16_t *out, int l, int c, int r)
{
    int32_t n = stencil_sum(w->p.stencil, u, m, d, l, c, r) - out[c];
    out[c] = rp_sat16(damp(n, w->p.damping_shift, w->p.damping_q16));
}

/* A row's still flag after a step wrote it: mag is what step_span_dispatch returned (0
 * when every cell is 0 or -1, INT16_MAX from the plain loop, which does not measure). */
static inline int still_after(int mag, const int16_t *row, int n)
{
    return (mag == 0 || mag == INT16_MAX) && row_zero(row, n);
}

/* Whether row y's new values are all 0 already: cur still at rows yu, y, yd (the rows the
 * stencil reads) and prev still at y (which the new values replace). */
static inline int still_around(const rp_water *w, int yu, int y, int yd)
{
    return w->still_cur[yu] && w->still_cur[y] && w->still_cur[yd] && w->still_prev[y];
}

/* Rows y0..y1-1 of the step (a pool job: each row writes only its own cells of prev and
 * reads only cur, so rows are independent and the thread count cannot matter). */
static void step_rows(void *ctx, int y0, int y1)
{
    const rp_water *w = ctx;
    int W = w->p.width, H = w->p.height;
    for (int y = y0; y < y1; y++) {
        const int16_t *m = w->cur + (size_t)y * W;
        int16_t *out = w->prev + (size_t)y * W;
        int mag = 0;
        if (w->p.boundary != RP_BOUNDARY_WRAP) {
            /* wall/open: interior cells only; open edges are done afterwards. Rows not
             * written keep their bound. */
            if (y > 0 && y < H - 1 && W >= 3 && !still_around(w, y - 1, y, y + 1)) {
                int in = max4(w->mag_cur[y - 1], w->mag_cur[y], w->mag_cur[y + 1], w->mag_prev[y]);
                mag = step_span_dispatch(w, m - W, m, m + W, out, 1, W - 1, in);
                w->mag_prev[y] = (uint16_t)mag;
                fold_mag(&w->mag_prev[y], out[0]);
                fold_mag(&w->mag_prev[y], out[W - 1]);
                w->still_prev[y] = (uint8_t)still_after(mag, out, W);
            }
            continue;
        }
        int yu = (y + H - 1) % H, yd = (y + 1) % H;
        if (still_around(w, yu, y, yd))
            continue;
        const int16_t *u = w->cur + (size_t)yu * W;
        const int16_t *d = w->cur + (size_t)yd * W;
        if (W >= 3)
            mag = step_span_dispatch(
                w, u, m, d, out, 1, W - 1,
                max4(w->mag_cur[yu], w->mag_cur[y], w->mag_cur[yd], w->mag_prev[y]));
        step_cell(w, u, m, d, out, W - 1, 0, 1 % W);
        if (W >= 2)
            step_cell(w, u, m, d, out, W - 2, W - 1, 0);
        w->mag_prev[y] = (uint16_t)mag;
        fold_mag(&w->mag_prev[y], out[0]);
        fold_mag(&w->mag_prev[y], out[W - 1]);
        w->still_prev[y] = (uint8_t)still_after(mag, out, W);
    }
}

/* Mur's first-order absorbing condition for one edge cell e whose inward neighbour is i:
 * new(e) = cur(i) + k * (new(i) - cur(e)), then damped like every cell. */
static int16_t mur(const rp_water *w, size_t e, size_t i)
{
    int64_t diff = (int64_t)w->prev[i] - w->cur[e];
    int32_t n = (int32_t)(w->cur[i] + ((diff * w->mur_q16 + 32768) >> 16));
    return rp_sat16(damp(n, w->p.damping_shift, w->p.damping_q16));
}

/* Edges of an open boundary, after every interior cell has its new value in prev. */
static void open_edges(rp_water *w)
{
    int W = w->p.width, H = w->p.height;
    size_t last = (size_t)(H - 1) * W;
    if (W < 3 || H < 3) {
        memset(w->prev, 0, (size_t)W * H * sizeof *w->prev);
        return;
    }
    /* The first and last rows are rewritten whole below: their bounds start afresh. */
    w->mag_prev[0] = 0;
    w->mag_prev[H - 1] = 0;
    for (int x = 1; x < W - 1; x++) {
        w->prev[x] = mur(w, x, x + (size_t)W);
        w->prev[last + x] = mur(w, last + x, last + x - W);
        fold_mag(&w->mag_prev[0], w->prev[x]);
        fold_mag(&w->mag_prev[H - 1], w->prev[last + x]);
    }
    for (int y = 1; y < H - 1; y++) {
        size_t row = (size_t)y * W;
        w->prev[row] = mur(w, row, row + 1);
        w->prev[row + W - 1] = mur(w, row + W - 1, row + W - 2);
        fold_mag(&w->mag_prev[y], w->prev[row]);
        fold_mag(&w->mag_prev[y], w->prev[row + W - 1]);
    }
    /* Corners follow their horizontal neighbour, which is already an edge value. */
    w->prev[0] = mur(w, 0, 1);
    w->prev[W - 1] = mur(w, W - 1, W - 2);
    w->prev[last] = mur(w, last, last + 1);
    w->prev[last + W - 1] = mur(w, last + W - 1, last + W - 2);
    fold_mag(&w->mag_prev[0], w->prev[0]);
    fold_mag(&w->mag_prev[0], w->prev[W - 1]);
    fold_mag(&w->mag_prev[H - 1], w->prev[last]);
    fold_mag(&w->mag_prev[H - 1], w->prev[last + W - 1]);
    for (int y = 0; y < H; y++) {
        const int16_t *r = w->prev + (size_t)y * W;
        if (y == 0 || y == H - 1 ? !row_zero(r, W) : r[0] || r[W - 1])
            w->still_prev[y] = 0;
    }
}

void rp_water_set_damping_q16(rp_water *w, int32_t q16)
{
    w->p.damping_shift = 0;
    w->p.damping_q16 = q16;
}

/* Rows y0..y1-1 of the viscosity pass: the new heights (prev) smoothed into tmp, interior
 * cells only (the edges are copied); each row reads prev and writes only its own row of
 * tmp, so rows are independent and the thread count cannot matter. */
static void viscosity_rows(void *ctx, int y0, int y1)
{
    const rp_water *w = ctx;
    const int W = w->p.width, H = w->p.height;
    const int32_t v = w->p.viscosity_q16;
    const rp_visc_fn kernel = rp_water_dsp_get()->viscosity;
    for (int y = y0; y < y1; y++) {
        const int16_t *m = w->prev + (size_t)y * W;
        int16_t *out = w->tmp + (size_t)y * W;
        if (y == 0 || y == H - 1 || W < 3) {
            memcpy(out, m, (size_t)W * sizeof *out);
            w->still_tmp[y] = w->still_prev[y];
            continue;
        }
        if (w->still_prev[y - 1] && w->still_prev[y] && w->still_prev[y + 1]) {
            if (!w->still_tmp[y])
                memset(out, 0, (size_t)W * sizeof *out);
            w->still_tmp[y] = 1;
            continue;
        }
        const int16_t *u = m - W, *d = m + W;
        out[0] = m[0];
        out[W - 1] = m[W - 1];
        int x = 1 + (kernel ? kernel(u + 1, m + 1, d + 1, out + 1, W - 2, v) : 0);
        for (; x < W - 1; x++) {
            int32_t lap = (int32_t)u[x] + d[x] + m[x - 1] + m[x + 1] - 4 * (int32_t)m[x];
            /* a convex mix of the cell and its neighbours (v <= 1/4): within their range */
            out[x] = (int16_t)(m[x] + (((int64_t)lap * v + 32768) >> 16));
        }
        w->still_tmp[y] = (uint8_t)row_zero(out, W);
    }
}

static void water_dsp_fill(void *table, int level)
{
    rp_water_dsp_init_x86(table, level);
    rp_water_dsp_init_wasm(table, level);
}
RP_DSP_TABLES_FILLED_BY(water, water_dsp_fill)

/* The table's kernel for this stencil and damping, or NULL (the plain loop steps alone). */
static rp_span_fn span_kernel(const rp_water_dsp *c, const rp_water_params *p)
{
    int32_t q16 = p->damping_q16;
    int kind = q16 == 0 ? RP_DAMP_SHIFT : q16 == 65536 ? RP_DAMP_NONE : RP_DAMP_Q16;
    if (p->stencil > RP_STENCIL_ISO || q16 < 0 || q16 > 65536 ||
        (kind == RP_DAMP_SHIFT && (p->damping_shift < 1 || p->damping_shift > 30)))
        return NULL;
    return c->span[p->stencil][kind];
}

/* The viscosity pass over the new heights; each row's magnitude bound becomes the
 * largest of its own and its neighbours' (the mix stays within their range). */
static void viscosity(rp_water *w, rp_pool *pool)
{
    const int H = w->p.height;
    rp_pool_run(pool, H, viscosity_rows, w);
    int16_t *t = w->prev;
    w->prev = w->tmp;
    w->tmp = t;
    uint8_t *ts = w->still_prev;
    w->still_prev = w->still_tmp;
    w->still_tmp = ts;
    uint16_t above = w->mag_prev[0];
    for (int y = 1; y < H - 1; y++) {
        uint16_t own = w->mag_prev[y];
        uint16_t m = above > own ? above : own;
        w->mag_prev[y] = w->mag_prev[y + 1] > m ? w->mag_prev[y + 1] : m;
        above = own;
    }
}

/* The new heights (prev) become the current ones, with their bounds; held cells zeroed. */
static void swap_and_hold(rp_water *w)
{
    int16_t *t = w->cur;
    w->cur = w->prev;
    w->prev = t;
    uint16_t *tm = w->mag_cur;
    w->mag_cur = w->mag_prev;
    w->mag_prev = tm;
    uint8_t *ts = w->still_cur;
    w->still_cur = w->still_prev;
    w->still_prev = ts;
    hold(w, w->cur);
}

/* Grids of fewer cells step on the calling thread alone: a step of 32768 cells takes a few
 * microseconds, less than handing rows to the pool's threads and waiting for them (on a
 * busy machine, tens of microseconds a step: a preroll of a million steps on a 16x16 grid
 * took minutes with two threads and a fraction of a second with one). */
#define SHARE_CELLS 32768

static int share_cells = SHARE_CELLS;

void rp_water_set_share_cells(int cells)
{
    share_cells = cells < 0 ? SHARE_CELLS : cells;
}

static rp_pool *step_pool(const rp_water *w, rp_pool *pool)
{
    return (int64_t)w->p.width * w->p.height < share_cells ? NULL : pool;
}

void rp_water_step_unblocked(rp_water *w, rp_pool *pool)
{
    pool = step_pool(w, pool);
    w->span = span_kernel(rp_water_dsp_get(), &w->p);
    rp_pool_run(pool, w->p.height, step_rows, w);
    if (w->p.boundary == RP_BOUNDARY_OPEN)
        open_edges(w);
    if (w->p.viscosity_q16)
        viscosity(w, pool);
    swap_and_hold(w);
}

/* ---- blocked steps ------------------------------------------------------------------ */

/* k steps at once, each band of rows advanced k steps while its rows are in cache: a
 * wavefront in which, at position p, step s computes row p - (s - 1) (s = 1..k). Step s + 1
 * at row r overwrites the values of step s - 1 at r (the two buffers alternate), which step
 * s reads at rows r - 1..r + 1; at position p step s has done row r + 1 = p - (s - 1) just
 * before, and rows r - 1, r earlier, so nothing read later is overwritten. Each row is the
 * row of step_rows (the same kernel, inputs and bounds), so the heights and bounds are the
 * one-step loop's.
 *
 * Bands: rows [b0, b1) of the interior are a band's own; step s also computes the k - s
 * rows beyond each end (into the band's private halo, copied from the neighbours' rows
 * before any band starts), so a band never reads a row another band writes, and after k
 * steps its own rows hold what the whole grid's k steps give there. Rows 0 and H - 1 are
 * never written (under `boundary wall` they are held at 0, like the edge columns, which no
 * step writes), so holding them after every step changes nothing.
 *
 * Only `boundary wall` without wall cells, moving walls or viscosity (each needs the
 * whole grid between steps) is blocked; the others step one at a time. */
enum { BLOCK_STEPS = 16 };

struct band_job {
    rp_water *w;
    int k, nbands;
    int16_t *buf[2]; /* buf[0] holds time t (cur), buf[1] time t - 1 (prev) */
    uint16_t *mag[2];
    uint8_t *still[2];
};

/* A row of a band: its cells, bound and still flag. */
struct band_row {
    int16_t *cells;
    uint16_t *mag;
    uint8_t *still;
};

/* Band b's own interior rows [*b0, *b1) of nbands, and its extended rows [*e0, *e1). */
static void band_rows(const rp_water *w, int nbands, int k, int b, int *b0, int *b1, int *e0,
                      int *e1)
{
    int inner = w->p.height - 2;
    *b0 = 1 + (int)((int64_t)inner * b / nbands);
    *b1 = 1 + (int)((int64_t)inner * (b + 1) / nbands);
    *e0 = *b0 - k > 0 ? *b0 - k : 0;
    *e1 = *b1 + k < w->p.height ? *b1 + k : w->p.height;
}

/* Where row r of buffer i (with its bound and flag) lives for band b: its own rows in the
 * buffers, the halo's in the band's slot of w->halo (rows above, then below: 2k rows a
 * buffer). */
static inline struct band_row band_row(const struct band_job *j, int b, int b0, int b1, int e0,
                                       int i, int r)
{
    const rp_water *w = j->w;
    if (r >= b0 && r < b1)
        return (struct band_row){j->buf[i] + (size_t)r * w->p.width, &j->mag[i][r],
                                 &j->still[i][r]};
    size_t slot = ((size_t)b * 2 + (size_t)i) * 2 * (size_t)j->k;
    slot += r < b0 ? (size_t)(r - e0) : (size_t)j->k + (size_t)(r - b1);
    return (struct band_row){w->halo + slot * (size_t)w->p.width, &w->halo_mag[slot],
                             &w->halo_still[slot]};
}

static void band_steps(void *ctx, int first, int last)
{
    const struct band_job *j = ctx;
    const rp_water *w = j->w;
    const int W = w->p.width, H = w->p.height, k = j->k;
    for (int b = first; b < last; b++) {
        int b0, b1, e0, e1;
        band_rows(w, j->nbands, k, b, &b0, &b1, &e0, &e1);
        for (int p = b0 - k + 1; p < b1 + k - 1; p++)
            for (int s = 1; s <= k; s++) {
                int r = p - (s - 1);
                /* step s: rows [b0 - (k - s), b1 + (k - s)) of the interior */
                if (r < b0 - (k - s) || r >= b1 + (k - s) || r < 1 || r > H - 2)
                    continue;
                int in = s & 1 ? 0 : 1, out = in ^ 1;
                struct band_row u = band_row(j, b, b0, b1, e0, in, r - 1);
                struct band_row m = band_row(j, b, b0, b1, e0, in, r);
                struct band_row d = band_row(j, b, b0, b1, e0, in, r + 1);
                struct band_row o = band_row(j, b, b0, b1, e0, out, r);
                if (*u.still && *m.still && *d.still && *o.still)
                    continue; /* still, and stays still */
                int mag = step_span_dispatch(w, u.cells, m.cells, d.cells, o.cells, 1, W - 1,
                                             max4(*u.mag, *m.mag, *d.mag, *o.mag));
                *o.mag = (uint16_t)mag;
                fold_mag(o.mag, o.cells[0]);
                fold_mag(o.mag, o.cells[W - 1]);
                *o.still = (uint8_t)still_after(mag, o.cells, W);
            }
        (void)e1;
    }
}

/* The halo rows of every band, from both buffers, before any band writes. */
static void copy_halos(const struct band_job *j)
{
    const rp_water *w = j->w;
    for (int b = 0; b < j->nbands; b++) {
        int b0, b1, e0, e1;
        band_rows(w, j->nbands, j->k, b, &b0, &b1, &e0, &e1);
        for (int i = 0; i < 2; i++)
            for (int r = e0; r < e1; r++) {
                if (r >= b0 && r < b1)
                    continue;
                struct band_row row = band_row(j, b, b0, b1, e0, i, r);
                memcpy(row.cells, j->buf[i] + (size_t)r * w->p.width,
                       (size_t)w->p.width * sizeof *row.cells);
                *row.mag = j->mag[i][r];
                *row.still = j->still[i][r];
            }
    }
}

static int blockable(const rp_water *w)
{
    return w->p.boundary == RP_BOUNDARY_WALL && !w->p.viscosity_q16 && !w->nwall && !w->nmove &&
           w->p.width >= 3 && w->p.height >= 3;
}

/* Room for nbands bands' halos of k rows; 0 when out of memory (then steps go one by one). */
static int reserve_halos(rp_water *w, int nbands, int k)
{
    size_t rows = (size_t)nbands * 2 * 2 * (size_t)k;
    if (rows <= w->halo_rows)
        return 1;
    int16_t *h = malloc(rows * (size_t)w->p.width * sizeof *h);
    uint16_t *m = malloc(rows * sizeof *m);
    uint8_t *st = malloc(rows);
    if (!h || !m || !st) {
        free(h);
        free(m);
        free(st);
        return 0;
    }
    free(w->halo);
    free(w->halo_mag);
    free(w->halo_still);
    w->halo = h;
    w->halo_mag = m;
    w->halo_still = st;
    w->halo_rows = rows;
    return 1;
}

/* A single step runs on the calling thread alone: it streams both buffers once, which binds
 * it to the cache's bandwidth, and a second thread shares that bandwidth instead of adding
 * to it while the hand-off and the rows passing between the cores' caches cost more than
 * it saves. Two steps or more are blocked and so are compute-bound; their bands go to
 * every thread. */
void rp_water_steps(rp_water *w, rp_pool *pool, int n)
{
    while (n > 0) {
        int k = n < BLOCK_STEPS ? n : BLOCK_STEPS;
        int nbands = k == 1 ? 1 : rp_pool_threads(step_pool(w, pool));
        if (nbands > w->p.height - 2)
            nbands = w->p.height - 2;
        if (!blockable(w) || !reserve_halos(w, nbands, BLOCK_STEPS)) {
            rp_water_step_unblocked(w, pool);
            n--;
            continue;
        }
        w->span = span_kernel(rp_water_dsp_get(), &w->p);
        struct band_job j = {w,
                             k,
                             nbands,
                             {w->cur, w->prev},
                             {w->mag_cur, w->mag_prev},
                             {w->still_cur, w->still_prev}};
        copy_halos(&j);
        if (nbands == 1)
            band_steps(&j, 0, 1); /* no hand-off: the pool's threads would only wake to wait */
        else
            rp_pool_run(pool, nbands, band_steps, &j);
        if (k & 1)
            swap_and_hold(w);
        else
            hold(w, w->cur);
        n -= k;
    }
}

void rp_water_step(rp_water *w, rp_pool *pool)
{
    rp_water_steps(w, pool, 1);
}
