/* light_ref.h - for test_light.c: the plain C light of src/look/light.c as it was before the
 * vector kernels (commit cc4e731), verbatim but for names, so every path of the library
 * (plain C and each SIMD level) can be compared with it byte for byte. Include once. */
#ifndef RP_LIGHT_REF_H
#define RP_LIGHT_REF_H

#include <stdint.h>
#include <stdlib.h>

#include "base/common.h"
#include "look/light.h"
#include "sim/water.h"

#define ONE15 32768
#define SLOPE_MAX 32767 /* |slope| < 8 in Q12 */

/* 1/sqrt(1 + t) for t = slope^2 in steps of 1/64 up to 128 (|slope| < 8 per axis). */
#define RSQ_SHIFT 6
#define RSQ_N (128 << RSQ_SHIFT)
/* Tables over a Q12 argument 0..1. */
#define UNIT_N 4096
/* x / (1 + x) for x in steps of 1/256 up to 16. */
#define SOFT_N 4096

typedef struct ref_light ref_light;
struct ref_light {
    rp_light_params p;
    int32_t lx, ly, lz;    /* L, Q15 */
    int32_t hx, hy, hz;    /* H, Q15 */
    uint16_t rsq[RSQ_N + 2];    /* Q15 */
    uint16_t glint[UNIT_N + 2]; /* alpha by n.H (Q12), Q15 */
    uint16_t sky[UNIT_N + 2];   /* alpha by n_z (Q12), Q15 */
    uint16_t soft[SOFT_N + 2];  /* x / (1 + x), Q15 */
};

/* x^n for x in Q30 (0..1), by squaring, each product rounded: integer-only. */
static int64_t pow_q30(int64_t x, int n)
{
    int64_t r = (int64_t)1 << 30;
    const int64_t half = (int64_t)1 << 29;
    while (n) {
        if (n & 1)
            r = (r * x + half) >> 30;
        x = (x * x + half) >> 30;
        n >>= 1;
    }
    return r;
}

/* q / (1 + q) for q in Q30, as Q15. */
static uint16_t shoulder(int64_t q)
{
    return (uint16_t)(((q << 15) + (q + ((int64_t)1 << 30)) / 2) / (q + ((int64_t)1 << 30)));
}

/* cos and sin of millidegrees in Q16 (sin(a) = cos(a - 90 degrees); cos is even). */
static int32_t cos_md(int64_t md)
{
    return rp_cos_pi_q16(md < 0 ? -md : md, 180000);
}

static int32_t sin_md(int64_t md)
{
    return cos_md(md - 90000);
}

static void build(ref_light *l)
{
    const rp_light_params *p = &l->p;
    int64_t ce = cos_md(p->elevation_mdeg), se = sin_md(p->elevation_mdeg);
    int64_t ca = cos_md(p->azimuth_mdeg), sa = sin_md(p->azimuth_mdeg);
    /* Q16 products -> Q15 */
    l->lx = (int32_t)((ce * sa + (1 << 16)) >> 17);
    l->ly = (int32_t)(-((ce * ca + (1 << 16)) >> 17));
    l->lz = (int32_t)((se + 1) >> 1);
    int64_t vx = l->lx, vy = l->ly, vz = (int64_t)l->lz + ONE15;
    int64_t len = rp_isqrt64((uint64_t)(vx * vx + vy * vy + vz * vz)); /* Q15 */
    l->hx = (int32_t)((vx * ONE15 + len / 2) / len);
    l->hy = (int32_t)((vy * ONE15 + (vy < 0 ? -len / 2 : len / 2)) / len);
    l->hz = (int32_t)((vz * ONE15 + len / 2) / len);

    /* 1/sqrt(1 + i/64) = 8/sqrt(64 + i); s = sqrt(64 + i) * 2^20 */
    for (int i = 0; i < RSQ_N + 2; i++) {
        int64_t s = rp_isqrt64((uint64_t)(64 + i) << 40);
        l->rsq[i] = (uint16_t)((((int64_t)1 << 38) + s / 2) / s);
    }

    int64_t flat = pow_q30((int64_t)l->hz << 15, p->shininess);
    for (int i = 0; i < UNIT_N + 2; i++) {
        int64_t x = (int64_t)(i > UNIT_N ? UNIT_N : i) << 18; /* Q30 */
        int64_t d = pow_q30(x, p->shininess) - flat;
        l->glint[i] = shoulder(d > 0 ? (d * p->specular_q8) >> 8 : 0);

        /* Schlick: F0 + (1 - F0)(1 - n_z)^5, F0 = 0.02 */
        const int64_t f0 = 21474836; /* round(0.02 * 2^30) */
        int64_t f = f0 + ((((int64_t)1 << 30) - f0) * pow_q30(((int64_t)1 << 30) - x, 5) >> 30);
        int64_t a = (f * p->sky_q8) >> (8 + 15);
        l->sky[i] = (uint16_t)(a > ONE15 ? ONE15 : a);
    }
    for (int i = 0; i < SOFT_N + 2; i++)
        l->soft[i] = (uint16_t)(((int64_t)i * ONE15 + (i + 256) / 2) / (i + 256));
}

static int ref_light_new(ref_light **out, const rp_light_params *p, char *err, size_t errlen)
{
    int ret = rp_light_check(p, err, errlen);
    *out = NULL;
    if (ret)
        return ret;
    ref_light *l = calloc(1, sizeof *l);
    if (!l)
        return RP_ERR_NOMEM;
    l->p = *p;
    build(l);
    *out = l;
    return RP_OK;
}

static void ref_light_free(ref_light **l)
{
    if (!l)
        return;
    free(*l);
    *l = NULL;
}

/* Per-frame constants from the geometry (cheap; computed per call). */
struct ref_frame {
    int w, h;
    int sx_step, sy_step;      /* laplacian spacing, output pixels (about 2 cells) */
    int64_t scale_x, scale_y;  /* Q16, clamped */
    int64_t t_lim;             /* |diff * scale| giving slope 16: clamp before scaling */
    int64_t mdiv;              /* slope Q12 = diff * scale * mdiv >> 32 */
    int64_t cxm, cym;          /* bed curvature Q12 = -(lap_sum * cm) >> 20 */
    int64_t rx, ry;            /* displacement Q8 px = -(slope * r) >> 28 */
};

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void frame_init(const ref_light *l, const rp_light_geom *g, struct ref_frame *f)
{
    int64_t hs = l->p.height_scale;
    f->w = g->width;
    f->h = g->height;
    f->scale_x = clamp64(g->scale_x_q16, 1024, (int64_t)256 << 16);
    f->scale_y = clamp64(g->scale_y_q16, 1024, (int64_t)256 << 16);
    f->sx_step = (int)((2 * f->scale_x + 32768) >> 16);
    f->sy_step = (int)((2 * f->scale_y + 32768) >> 16);
    if (f->sx_step < 1)
        f->sx_step = 1;
    if (f->sy_step < 1)
        f->sy_step = 1;
    /* slope = diff / 2 / 256 * scale / hs: Q12 = diff * scale_q16 / (8192 * hs) */
    f->t_lim = ((int64_t)1 << 29) * hs; /* slope 16: t / (2^25 * hs) = 16 */
    f->mdiv = (((int64_t)1 << 19) + hs / 2) / hs;
    /* curvature per cell^2 in slope units: lap_sum / step^2 * scale^2 / (256 * hs) */
    f->cxm = (f->scale_x * f->scale_x + (int64_t)f->sx_step * f->sx_step * 128 * hs) /
             ((int64_t)f->sx_step * f->sx_step * 256 * hs);
    f->cym = (f->scale_y * f->scale_y + (int64_t)f->sy_step * f->sy_step * 128 * hs) /
             ((int64_t)f->sy_step * f->sy_step * 256 * hs);
    f->rx = (int64_t)l->p.refraction_q8 * f->scale_x;
    f->ry = (int64_t)l->p.refraction_q8 * f->scale_y;
}

/* Slope (Q12) from a height difference across `span` pixels (2 inside, 1 at an edge). */
static inline int32_t slope_q12(const struct ref_frame *f, int64_t diff, int span, int64_t scale)
{
    if (span == 0)
        return 0;
    if (span == 1)
        diff *= 2;
    int64_t t = clamp64(diff * scale, -f->t_lim, f->t_lim);
    return (int32_t)clamp64((t * f->mdiv) >> 32, -SLOPE_MAX, SLOPE_MAX);
}

/* The layer at one pixel: alpha A8 and straight colour c[3]; the slopes for refraction. */
struct px {
    uint8_t a;
    uint8_t c[3];
    int32_t sx, sy;
};

static inline __attribute__((always_inline)) void layer_px(const ref_light *l,
                                                           const struct ref_frame *f, int32_t sx,
                                                           int32_t sy, int32_t curv, struct px *o)
{
    int64_t r2 = (int64_t)sx * sx + (int64_t)sy * sy; /* Q24 */
    int32_t nz;
    int64_t i = r2 >> 18;
    if (i >= RSQ_N) {
        nz = l->rsq[RSQ_N];
    } else {
        int32_t fr = (int32_t)((r2 >> 10) & 255);
        nz = l->rsq[i] + (((l->rsq[i + 1] - l->rsq[i]) * fr) >> 8);
    }
    int32_t nx = -(int32_t)(((int64_t)sx * nz) >> 12);
    int32_t ny = -(int32_t)(((int64_t)sy * nz) >> 12);
    int32_t ndoth = (int32_t)(((int64_t)nx * l->hx + (int64_t)ny * l->hy + (int64_t)nz * l->hz) >> 15);
    int32_t ndotl = (int32_t)(((int64_t)nx * l->lx + (int64_t)ny * l->ly + (int64_t)nz * l->lz) >> 15);
    ndoth = ndoth < 0 ? 0 : ndoth > ONE15 ? ONE15 : ndoth;

    int32_t gi = ndoth >> 3, gf = ndoth & 7;
    int32_t a_p = l->glint[gi] + (((l->glint[gi + 1] - l->glint[gi]) * gf) >> 3);
    int32_t a_s = l->sky[nz >> 3];

    int64_t b = (((int64_t)l->p.shade_q8 * (ndotl - l->lz)) >> 11) +
                (((int64_t)l->p.caustics_q8 * curv) >> 8); /* Q12 */
    int64_t mag = b < 0 ? -b : b;
    int32_t a_b;
    if ((mag >> 4) >= SOFT_N) {
        a_b = l->soft[SOFT_N];
    } else {
        int32_t si = (int32_t)(mag >> 4), sf = (int32_t)(mag & 15);
        a_b = l->soft[si] + (((l->soft[si + 1] - l->soft[si]) * sf) >> 4);
    }

    /* over, bottom to top: bed, sky, glint */
    int32_t op = ONE15 - a_p, os = ONE15 - a_s, ob = ONE15 - a_b;
    int32_t t = (int32_t)(((int64_t)ob * os) >> 15);
    t = (int32_t)(((int64_t)t * op) >> 15);
    int32_t A = ONE15 - t;
    int32_t w_sky = (int32_t)(((int64_t)a_s * op) >> 15);
    int32_t w_light = a_p;
    if (b > 0)
        w_light += (int32_t)(((((int64_t)a_b * os) >> 15) * op) >> 15);
    int32_t a8 = (A * 255 + 16384) >> 15;
    o->a = (uint8_t)a8;
    o->sx = sx;
    o->sy = sy;
    if (a8 == 0) {
        o->c[0] = o->c[1] = o->c[2] = 0;
        return;
    }
    int64_t inv = (((int64_t)1 << 30) + A / 2) / A;
    for (int k = 0; k < 3; k++) {
        int64_t pc = (int64_t)w_light * l->p.light_rgb[k] + (int64_t)w_sky * l->p.sky_rgb[k];
        int64_t c = (pc * inv + ((int64_t)1 << 29)) >> 30;
        o->c[k] = (uint8_t)(c > 255 ? 255 : c);
    }
    (void)f;
}

/* The layer at (x, y): slopes by central differences, curvature over +-step pixels. */
static inline __attribute__((always_inline)) void pixel(const ref_light *l,
                                                        const struct ref_frame *f,
                                                        const int32_t *hgt, int x, int y,
                                                        struct px *o)
{
    const int w = f->w, h = f->h;
    int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
    int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
    int xl2 = x - f->sx_step < 0 ? 0 : x - f->sx_step;
    int xr2 = x + f->sx_step > w - 1 ? w - 1 : x + f->sx_step;
    int yu2 = y - f->sy_step < 0 ? 0 : y - f->sy_step;
    int yd2 = y + f->sy_step > h - 1 ? h - 1 : y + f->sy_step;
    const int32_t *row = hgt + (size_t)y * w;
    int64_t c = row[x];
    int32_t sx = slope_q12(f, (int64_t)row[xr] - row[xl], xr - xl, f->scale_x);
    int32_t sy = slope_q12(f, (int64_t)hgt[(size_t)yd * w + x] - hgt[(size_t)yu * w + x], yd - yu,
                           f->scale_y);
    int64_t lx = (int64_t)row[xr2] + row[xl2] - 2 * c;
    int64_t ly = (int64_t)hgt[(size_t)yd2 * w + x] + hgt[(size_t)yu2 * w + x] - 2 * c;
    int64_t curv = -((lx * f->cxm + ly * f->cym) >> 20);
    curv = clamp64(curv, -((int64_t)1 << 20), (int64_t)1 << 20);
    layer_px(l, f, sx, sy, (int32_t)curv, o);
}

static void ref_light_rows_rgba(const ref_light *l, const rp_light_geom *g, const int32_t *heights,
                        uint8_t *rgba, int y0, int y1)
{
    struct ref_frame f;
    frame_init(l, g, &f);
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgba + (size_t)y * f.w * 4;
        for (int x = 0; x < f.w; x++) {
            struct px o;
            pixel(l, &f, heights, x, y, &o);
            out[4 * x] = o.c[0];
            out[4 * x + 1] = o.c[1];
            out[4 * x + 2] = o.c[2];
            out[4 * x + 3] = o.a;
        }
    }
}

static void ref_light_rows_rgb(const ref_light *l, const rp_light_geom *g, const int32_t *heights,
                       const uint8_t *bg, uint8_t *rgb, int y0, int y1)
{
    struct ref_frame f;
    frame_init(l, g, &f);
    const int w = f.w, h = f.h;
    const int64_t xmax = (int64_t)(w - 1) << 8, ymax = (int64_t)(h - 1) << 8;
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) {
            struct px o;
            pixel(l, &f, heights, x, y, &o);
            int32_t t[3];
            if (l->p.refraction_q8 == 0 || (o.sx == 0 && o.sy == 0)) {
                const uint8_t *s = bg + ((size_t)y * w + x) * 3;
                t[0] = s[0];
                t[1] = s[1];
                t[2] = s[2];
            } else {
                /* bilinear at (x, y) - r * slope * scale, Q8 pixels, clamped */
                int64_t px = clamp64(((int64_t)x << 8) - ((o.sx * f.rx) >> 28), 0, xmax);
                int64_t py = clamp64(((int64_t)y << 8) - ((o.sy * f.ry) >> 28), 0, ymax);
                int ix = (int)(px >> 8), iy = (int)(py >> 8);
                int32_t fx = (int32_t)(px & 255), fy = (int32_t)(py & 255);
                int ix1 = ix < w - 1 ? ix + 1 : ix, iy1 = iy < h - 1 ? iy + 1 : iy;
                const uint8_t *p00 = bg + ((size_t)iy * w + ix) * 3;
                const uint8_t *p01 = bg + ((size_t)iy * w + ix1) * 3;
                const uint8_t *p10 = bg + ((size_t)iy1 * w + ix) * 3;
                const uint8_t *p11 = bg + ((size_t)iy1 * w + ix1) * 3;
                for (int k = 0; k < 3; k++) {
                    int32_t top = p00[k] * (256 - fx) + p01[k] * fx;
                    int32_t bot = p10[k] * (256 - fx) + p11[k] * fx;
                    t[k] = (top * (256 - fy) + bot * fy + 32768) >> 16;
                }
            }
            int32_t a = o.a;
            for (int k = 0; k < 3; k++)
                out[3 * x + k] = (uint8_t)((t[k] * (255 - a) + o.c[k] * a + 127) / 255);
        }
    }
}

#endif
