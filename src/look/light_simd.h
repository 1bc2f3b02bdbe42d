/* light_simd.h - private to light.c and light_simd.c: the light's tables and per-frame
 * constants, and its table of vector kernels. The kernel computes exactly what light.c's plain
 * loop computes, byte for byte; the plain loop stays the reference and the fallback (other
 * architectures and compilers, -DRP_NO_SIMD, rp_simd_set(RP_SIMD_C)). */
#ifndef RP_LIGHT_SIMD_H
#define RP_LIGHT_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "look/light.h"

#define RP_LIGHT_ONE15 32768
#define RP_LIGHT_SLOPE_MAX 32767 /* |slope| < 8 in Q12 */

/* 1/sqrt(1 + t) for t = slope^2 in steps of 1/64 up to 128 (|slope| < 8 per axis). */
#define RP_LIGHT_RSQ_SHIFT 6
#define RP_LIGHT_RSQ_N (128 << RP_LIGHT_RSQ_SHIFT)
/* Tables over a Q12 argument 0..1. */
#define RP_LIGHT_UNIT_N 4096
/* x / (1 + x) for x in steps of 1/256 up to 16. */
#define RP_LIGHT_SOFT_N 4096
/* 1 / det for det in steps of 1/4096 up to 4 (the caustics' area ratio). */
#define RP_LIGHT_RECIP_N 16384

struct rp_light {
    rp_light_params p;
    int32_t lx, ly, lz; /* L, Q15 */
    int32_t hx, hy, hz; /* H, Q15 */
    int flat_a8;        /* the layer's alpha on still water (slopes and curvature 0) */
    /* Each table has two spare entries, so a kernel may read entries i and i + 1 of any
     * index the plain loop uses as one 32-bit load. */
    uint16_t rsq[RP_LIGHT_RSQ_N + 2];    /* Q15 */
    uint16_t glint[RP_LIGHT_UNIT_N + 2]; /* alpha by n.H (Q12), Q15 */
    uint16_t sky[RP_LIGHT_UNIT_N + 2];   /* alpha by n_z (Q12), Q15 */
    uint16_t soft[RP_LIGHT_SOFT_N + 2];  /* x / (1 + x), Q15 */
    /* The water model (light.c water_*): tables by |slope|^2 as rsq, by the glint's
     * distance from the mirror slope, and 1/det for the caustics. */
    int32_t wref[RP_LIGHT_RSQ_N + 2];     /* bed offset per unit slope and cell of depth, Q16 */
    uint16_t wsky[RP_LIGHT_RSQ_N + 2];    /* sky alpha, Q15 */
    uint16_t wglint[RP_LIGHT_SOFT_N + 2]; /* glint alpha by u = d^2 / sigma^2 (Q8), Q15 */
    int32_t wrecip[RP_LIGHT_RECIP_N + 1]; /* 1 / det by det (Q12), Q12 */
    int32_t mirror_x, mirror_y;           /* the slope of a normal that mirrors the sun, Q12 */
    int64_t glint_lim, glint_inv;         /* d^2 (Q24) beyond the table; u Q8 = d^2 * inv >> 32 */
    int64_t caus_a;                       /* depth * the sun's bed shift per unit slope, Q8 cells */
    int32_t tint[3];                      /* transmittance, Q16 */
    const uint8_t *sky_img;               /* rp_light_set_sky: RGB24, not owned; or NULL */
    int sky_w, sky_h;
};

/* Per-frame constants from the geometry (cheap; computed per call). */
struct rp_light_frame {
    int w, h;
    int sx_step, sy_step;     /* laplacian spacing, output pixels (about 2 cells) */
    int64_t scale_x, scale_y; /* Q16, clamped */
    int64_t t_lim;            /* |diff * scale| giving slope 16: clamp before scaling */
    int64_t mdiv;             /* slope Q12 = diff * scale * mdiv >> 32 */
    int64_t cxm, cym;         /* bed curvature Q12 = -(lap_sum * cm) >> 20 (water: Q16, >> 16) */
    int64_t cxym;             /* d2h/dxdy Q16 = (diagonal sum * cxym) >> 16 */
    int64_t dx, dy;           /* the water's bed offset: Q8 px = (s * g >> 8) * d >> 28 */
    int64_t rx, ry;           /* displacement Q8 px = -(slope * r) >> 28 */
    const uint8_t *sky;       /* the sky image when it is used for this frame, else NULL */
    int64_t kx, ky;           /* its reflection: displacement Q8 px = (slope * k) >> 28 */
    int64_t peak;             /* rp_light_geom.peak_q8 */
    /* look water's refraction: the slope over the footprint, +-fx_step, fy_step pixels
     * (light.h "WATER"): Q12 = clamp(sum, +-flim) * fk >> 32, clamped to +-SLOPE_MAX */
    int fx_step, fy_step;
    int64_t fkx, fky, flimx, flimy;
};

/** The vector kernel for row y of a frame 8 or more pixels wide. With rgba non-NULL it
 * writes the layer (rp_light_rows_rgba), else the composite into rgb over bg
 * (rp_light_rows_rgb); both are whole frames. Returns the first pixel not done (0 <= r <=
 * w); the caller's plain loop does r..w-1. */
typedef int (*rp_light_row_fn)(const rp_light *l, const struct rp_light_frame *f,
                               const int32_t *heights, int y, const uint8_t *bg, uint8_t *rgb,
                               uint8_t *rgba);

/** Whether the row kernel is exact for rows y0..y1-1 of this frame (y0 < y1). The kernels
 * work in 32-bit lanes, exact while every height they read is within +-RP_LIGHT_SIMD_HMAX
 * (Q8; rp_upscale's heights stay within about 1.6 * 2^23) and the frame's constants fit;
 * the rows are read to check the heights unless the frame's peak (rp_light_geom.peak_q8)
 * is known and within it. */
#define RP_LIGHT_SIMD_HMAX (1 << 24)
typedef int (*rp_light_rows_ok_fn)(const struct rp_light_frame *f, const int32_t *heights, int y0,
                                   int y1);

/* ---- look water's kernels (look/light_water_body.h: at 8 and 16 pixels a vector in
 * src/x86/, at 4 in src/wasm/) ---- */

/* The widest laplacian or footprint spacing the kernels' edge copies hold (4K from a grid
 * of 180 cells and more; wider ones are left to the plain loop). */
#define RP_LIGHT_EDGE_PAD 64

/** i reflected about the frame's first and last pixel (the water's walls), then clamped
 * to 0..n-1: how the water model and its kernels read past the edges. */
static inline int rp_light_mirror(int i, int n)
{
    if (i < 0)
        i = -i;
    if (i > n - 1)
        i = 2 * (n - 1) - i;
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

/** The rows of heights a pixel of row y reads in the water model (light.c water_rows_at):
 * y - sy_step, y - 1, y, y + 1, y + sy_step and y -+ fy_step, mirrored about the frame's edges. The
 * surface continues past an edge as its point reflection, h(e - d) = 2 h(e) - h(e + d), so its
 * slope runs on across the edge and its curvature there is 0 (an even mirror would flatten the
 * slope to 0 on the edge and double its curvature: a lit line along the frame). A row past
 * the top or bottom is read as 2 top - u or 2 bottom - d where its odd_* flag is set. */
struct rp_light_wrows {
    const int32_t *u2, *u1, *m, *d1, *d2;
    const int32_t *u3, *d3;      /* rows y -+ fy_step (the refraction's footprint) */
    const int32_t *top, *bottom; /* rows 0 and h - 1 */
    int odd_u2, odd_u1, odd_d1, odd_d2, odd_u3, odd_d3;
    int y;
};

/** The least |d| with |floor(d * k / 2^32)| past the largest slope (k > 0: 2^47 / k rounded
 * up), at most 2^30: a difference may be clamped there before it is scaled by k. */
static inline int64_t rp_light_slope_lim(int64_t k)
{
    int64_t lim = k > 0 ? (((int64_t)1 << 47) + k - 1) / k : (int64_t)1 << 30;
    return lim > ((int64_t)1 << 30) ? (int64_t)1 << 30 : lim;
}

/** Column x (-w < x < 2w) of a row of heights, read past the row's ends as its point
 * reflection about the end pixel (see struct rp_light_wrows). */
static inline int64_t rp_light_odd(const int32_t *row, int x, int w)
{
    if (x < 0)
        return 2 * (int64_t)row[0] - row[rp_light_mirror(x, w)];
    if (x > w - 1)
        return 2 * (int64_t)row[w - 1] - row[rp_light_mirror(x, w)];
    return row[x];
}

/* For the kernels: a slope's factor K = scale * mdiv as hi * 2^32 + lo (lo signed): floor(d * K /
 * 2^32) = d * hi + floor(d * lo / 2^32), exact for |d| <= dlim; a larger |d| gives a slope beyond
 * +-SLOPE_MAX either way, so d is clamped to dlim. */
struct kslope {
    int32_t hi, lo, dlim;
};

static inline void kslope_init(struct kslope *k, int64_t K)
{
    int64_t lo = (int32_t)(uint32_t)((uint64_t)K & 0xffffffffu);
    k->lo = (int32_t)lo;
    k->hi = (int32_t)((K - lo) / ((int64_t)1 << 32));
    /* |d| * K >= 2^47 makes |floor| >= 2^15 > SLOPE_MAX */
    int64_t dlim = K > 0 ? (((int64_t)1 << 47) + K - 1) / K : (int64_t)1 << 30;
    k->dlim = (int32_t)(dlim > ((int64_t)1 << 30) ? (int64_t)1 << 30 : dlim);
}

/** look water's vector kernel for pixels x0..x1-1 of row r->y (x0 < x1, x1 at least the
 * kernel's vector width: 8 for frames 8 or more pixels wide): with rgba 0 the composite over
 * bg (RGB24, the whole frame) into out, row y of rp_light_rows_rgb's output; with rgba 1
 * the layer into out, row y of rp_light_rows_rgba's. It may write pixels before x0 again,
 * with the bytes they get anyway. Returns the first pixel not done (x0 <= r <= x1); the
 * caller's plain loop does r..x1-1. */
typedef int (*rp_light_water_fn)(const rp_light *l, const struct rp_light_frame *f,
                                 const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                                 uint8_t *out, int rgba);

/** Whether the water kernel is exact for rows y0..y1-1 of this frame (8 or more pixels wide,
 * y0 < y1): as rows_ok, and no sky image, parameters within its int32 bounds and a
 * laplacian spacing within its edge copies. */
typedef int (*rp_light_water_ok_fn)(const rp_light *l, const struct rp_light_frame *f,
                                    const int32_t *heights, int y0, int y1);

/* The light's table of vector kernels (see base/cpu.h): the layer model's and the water
 * model's, each with the check of whether it is exact for a band of rows. */
typedef struct rp_light_dsp {
    rp_light_row_fn row; /* look layer, frames 8 or more pixels wide */
    rp_light_rows_ok_fn rows_ok;
    rp_light_water_fn water_row; /* look water, frames 8 or more pixels wide */
    rp_light_water_ok_fn water_rows_ok;
} rp_light_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_light_dsp *rp_light_dsp_get(void);
const rp_light_dsp *rp_light_dsp_level(int level);

/** Fill the x86 entries for a level: the layer's (src/x86/light_simd.c), which calls
 * rp_light_water_dsp_init_x86 for the water's (src/x86/light_water_simd.c); or the
 * WebAssembly ones, the water's (src/wasm/light_water.c). Each is a no-op off its
 * architecture. */
void rp_light_dsp_init_x86(rp_light_dsp *c, int level);
void rp_light_water_dsp_init_x86(rp_light_dsp *c, int level);
void rp_light_water_dsp_init_wasm(rp_light_dsp *c, int level);

/* What every architecture's water kernels share (look/light_water_rows.c). */

/** Pixels x0..x1-1 of row r->y by the row kernel rv, which reads no row past the frame (r's odd_*
 * flags 0): rows within sy_step or fy_step of the top or bottom read rows past it, so only
 * those (u2, and u1 on row 0; d2, and d1 on the last row) are copied as 2 edge - row, about
 * 2 (sy_step + 1) rows a frame (rp_light_odd is linear, so the copies' own continuation past
 * the left and right ends is water_px's), or left to the plain loop (x0 returned) when a
 * copy cannot be made or passes +-RP_LIGHT_SIMD_HMAX. Returns what rv returns. */
int rp_light_water_row_by(rp_light_water_fn rv, const rp_light *l, const struct rp_light_frame *f,
                          const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                          uint8_t *out, int rgba);

/** rp_light_water_ok_fn for the kernels, with heights_ok(p, n) saying whether the n heights
 * at p are within +-RP_LIGHT_SIMD_HMAX: no sky image (the plain loop reflects it), spacings
 * within the edge copies, the int32 bounds the kernels' steps rely on (each holds for every
 * frame today; checked, not assumed), and the heights the rows read. */
int rp_light_water_rows_ok_by(int (*heights_ok)(const int32_t *p, size_t n), const rp_light *l,
                              const struct rp_light_frame *f, const int32_t *heights, int y0,
                              int y1);

#endif
