/* light.c - the house look: slopes, normals, the light layer (bed light, sky, glint)
 * and sub-pixel refraction, all in integers (the model is in light.h). Everything that
 * needs a root, a power or a division of the unit range comes from tables built at
 * set-up by integer code (rp_isqrt64, rp_cos_pi_q16, repeated multiplication), so the
 * pixels are the same on every machine. Alphas are Q15 (32768 = 1), slopes Q12. */
#include "look/light.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "look/light_simd.h"
#include "base/cpu.h"

#define ONE15 RP_LIGHT_ONE15
#define SLOPE_MAX RP_LIGHT_SLOPE_MAX
#define RSQ_N RP_LIGHT_RSQ_N
#define UNIT_N RP_LIGHT_UNIT_N
#define SOFT_N RP_LIGHT_SOFT_N
#define RECIP_N RP_LIGHT_RECIP_N

static int flat_alpha(const rp_light *l);

/* snprintf, cut to len (the callers' buffers hold any int64's text). */
static void text_to(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void text_to(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* v / div as a decimal with at most 3 places ("95", "0.5", "-12.25"). */
static void fixed_text(char *buf, size_t len, int64_t v, int64_t div)
{
    int64_t mag = v < 0 ? -v : v;
    int64_t frac = (mag % div) * 1000 / div;
    int places = 3;
    while (places > 0 && frac % 10 == 0) {
        frac /= 10;
        places--;
    }
    if (places)
        text_to(buf, len, "%s%lld.%0*lld", v < 0 ? "-" : "", (long long)(mag / div), places,
                (long long)frac);
    else
        text_to(buf, len, "%s%lld", v < 0 ? "-" : "", (long long)(mag / div));
}

static int out_of_range(rp_error *err, const char *what, int64_t v, int64_t div, int64_t lo,
                        int64_t hi, const char *unit)
{
    char val[32], from[32], to[32];
    fixed_text(val, sizeof val, v, div);
    fixed_text(from, sizeof from, lo, div);
    fixed_text(to, sizeof to, hi, div);
    return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s is out of range (%s to %s%s)", what, val,
                        from, to, unit);
}

int rp_light_check(const rp_light_params *p, rp_error *err)
{
    const struct {
        const char *what;
        int32_t v;
        int64_t div, lo, hi;
        const char *unit;
    } r[] = {
        {"light azimuth", p->azimuth_mdeg, 1000, -360000, 360000, " degrees"},
        {"light elevation", p->elevation_mdeg, 1000, 0, 90000, " degrees"},
        {"height scale", p->height_scale, 1, 1, 32767, ""},
        {"refraction", p->refraction_q8, 256, 0, 64 * 256, " cells per unit slope"},
        {"shading", p->shade_q8, 256, 0, 16 * 256, ""},
        {"caustics strength", p->caustics_q8, 256, 0, 64 * 256, ""},
        {"specular strength", p->specular_q8, 256, 0, 64 * 256, ""},
        {"specular shininess", p->shininess, 1, 1, 1024, ""},
        {"sky strength", p->sky_q8, 256, 0, 16 * 256, ""},
        {"light model", p->model, 1, RP_LIGHT_LAYER, RP_LIGHT_WATER, ""},
        {"depth", p->depth_q8, 256, 1, 256 * 256, " cells"},
        {"sun size", p->sun_size_mdeg, 1000, 100, 20000, " degrees"},
        {"sky flat", p->sky_flat, 1, 0, 1, ""},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (r[i].v < r[i].lo || r[i].v > r[i].hi)
            return out_of_range(err, r[i].what, r[i].v, r[i].div, r[i].lo, r[i].hi, r[i].unit);
    return RP_OK;
}

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

static void build(rp_light *l)
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

/* The water model's tables (light.h "WATER"), integer-only. Q30 throughout: the view ray
 * (0, 0, -1) meets a normal with cos i = n_z = 1 / sqrt(1 + r^2) and leaves it at cos t =
 * sqrt(1 - eta^2 (1 - cos^2 i)) below, eta = 3/4 (air to water, water's index 4/3). */
#define Q30 ((int64_t)1 << 30)

/* sqrt(v) in Q30 for v in Q30: isqrt(v << 30), with the shift cut by 2k and the root
 * scaled back by 2^k where v << 30 would pass 2^63 (steep slopes reach v = 2^37). */
static int64_t sqrt_q30(int64_t v)
{
    uint64_t u = (uint64_t)(v < 0 ? 0 : v);
    int shift = 30, k = 0;

    while (shift > 0 && (u >> (63 - shift)) != 0) {
        shift -= 2;
        k++;
    }
    return (int64_t)rp_isqrt64(u << shift) << k;
}

static int64_t div_q30(int64_t a, int64_t b)
{
    return b ? (a * Q30 + (b > 0 ? b / 2 : -b / 2)) / b : 0;
}

/* t^(depth / 64 cells), t in Q30 (0..1]: the exponent depth_q8 / 2^14 digit by digit, its
 * whole part as products and each of its 14 binary places as t's square root taken that
 * many times (integers only: the same bits everywhere). */
static int64_t pow_depth_q30(int64_t t, int32_t depth_q8)
{
    int64_t r = Q30, root = t;
    for (int i = 0; i < depth_q8 >> 14; i++)
        r = (r * t + Q30 / 2) >> 30;
    for (int k = 1; k <= 14; k++) {
        root = sqrt_q30(root);
        if ((depth_q8 >> (14 - k)) & 1)
            r = (r * root + Q30 / 2) >> 30;
    }
    return r;
}

static void build_water(rp_light *l)
{
    const rp_light_params *p = &l->p;
    const int64_t eta = 3 * Q30 / 4, eta2 = 9 * Q30 / 16;
    int64_t f_flat = 0;
    for (int i = 0; i < RSQ_N + 2; i++) {
        /* r^2 = i / 64 */
        int64_t nz = div_q30(Q30, sqrt_q30(Q30 + ((int64_t)i << 24)));
        int64_t ci = nz;
        int64_t ct = sqrt_q30(Q30 - (eta2 * (Q30 - ((ci * ci) >> 30)) >> 30));
        /* T = eta I + (eta ci - ct) n; its horizontal part over its depth, per unit slope */
        int64_t a = ((ct - ((eta * ci) >> 30)) * nz) >> 30;
        l->wref[i] = (int32_t)((div_q30(a, eta + a) + (1 << 13)) >> 14);
        /* Fresnel, unpolarised: n1 = 1, n2 = 4/3, as eta = n1 / n2 */
        int64_t rs = div_q30(((eta * ci) >> 30) - ct, ((eta * ci) >> 30) + ct);
        int64_t rp = div_q30(ci - ((eta * ct) >> 30), ci + ((eta * ct) >> 30));
        int64_t f = (((rs * rs) >> 30) + ((rp * rp) >> 30)) / 2;
        if (i == 0)
            f_flat = p->sky_flat ? 0 : f;
        int64_t al = ((f - f_flat) * p->sky_q8) >> (8 + 15);
        l->wsky[i] = (uint16_t)rp_clamp64(al, 0, ONE15);
    }

    /* The glint: the sun mirrored by normals whose slope is within sigma of the slope
     * that mirrors it exactly; sigma = a quarter of the sun's diameter (the normal turns
     * half as far as the reflection) per unit of angle of that normal, 1 / H_z^2. */
    l->mirror_x = l->hz ? (int32_t)(-((int64_t)l->hx * 4096) / l->hz) : 0;
    l->mirror_y = l->hz ? (int32_t)(-((int64_t)l->hy * 4096) / l->hz) : 0;
    int64_t hz2 = ((int64_t)l->hz * l->hz) >> 15; /* Q15 */
    int64_t sigma = (int64_t)p->sun_size_mdeg * 4096 * 355 / (4 * (int64_t)180000 * 113);
    sigma = hz2 ? sigma * ONE15 / hz2 : sigma; /* Q12 */
    if (sigma < 1)
        sigma = 1;
    int64_t s2 = sigma * sigma; /* Q24 */
    l->glint_lim = s2 * (SOFT_N >> 8);
    l->glint_inv = ((int64_t)256 << 32) / s2;
    /* exp(-u) in steps of 1/256 from e^(-1/256) by repeated multiplication; less its value
     * at flat water's distance so still water shows none */
    int64_t step = Q30, term = Q30, e1 = Q30; /* e^(-1/256) by its series */
    for (int k = 1; k < 8; k++) {
        term = -term / (256 * k);
        e1 += term;
    }
    int64_t d0 = (int64_t)l->mirror_x * l->mirror_x + (int64_t)l->mirror_y * l->mirror_y;
    int64_t u0 = d0 >= l->glint_lim ? SOFT_N : (d0 * l->glint_inv) >> 32;
    int64_t ex[SOFT_N + 2];
    for (int i = 0; i < SOFT_N + 2; i++) {
        ex[i] = i < SOFT_N ? step : 0;
        step = (step * e1 + Q30 / 2) >> 30;
    }
    for (int i = 0; i < SOFT_N + 2; i++) {
        int64_t g = ex[i] - ex[u0 < SOFT_N ? u0 : SOFT_N];
        g = g > 0 ? (g * p->specular_q8) >> 8 : 0;
        l->wglint[i] = (uint16_t)rp_clamp64(g >> 15, 0, ONE15);
    }

    /* caustics: a sun ray through a surface tilted by a small slope reaches the bed
     * depth * (1 - eta sin e / cos t) / cos^2 t further per unit slope, e the sun's
     * elevation and t its angle below the surface */
    int64_t se = (int64_t)l->lz << 15, ce2 = Q30 - ((se * se) >> 30);
    int64_t ctt = sqrt_q30(Q30 - ((eta2 * ce2) >> 30));
    int64_t k = div_q30(Q30 - div_q30((eta * se) >> 30, ctt), (ctt * ctt) >> 30);
    l->caus_a = ((int64_t)p->depth_q8 * k) >> 30;
    for (int i = 0; i < RECIP_N + 1; i++) {
        int64_t d = i < 256 ? 256 : i; /* det at least 1/16 */
        l->wrecip[i] = (int32_t)((((int64_t)1 << 24) + d / 2) / d);
    }
    /* the tint is what a white bed takes under 64 cells; under d cells, by Beer-Lambert,
     * its d / 64th power (at 64 cells exactly round(tint * 65536 / 255), as before) */
    for (int c = 0; c < 3; c++) {
        int64_t t = ((int64_t)p->tint_rgb[c] * Q30 + 127) / 255;
        l->tint[c] = (int32_t)((pow_depth_q30(t, p->depth_q8) + (1 << 13)) >> 14);
    }
}

int rp_light_new(rp_light **out, const rp_light_params *p, rp_error *err)
{
    int ret = rp_light_check(p, err);
    *out = NULL;
    if (ret)
        return ret;
    rp_light *l = calloc(1, sizeof *l);
    if (!l)
        return RP_ERR_NOMEM;
    l->p = *p;
    build(l);
    build_water(l);
    l->flat_a8 = flat_alpha(l);
    *out = l;
    return RP_OK;
}

void rp_light_set_sky(rp_light *l, const uint8_t *rgb, int width, int height)
{
    l->sky_img = rgb && width > 0 && height > 0 ? rgb : NULL;
    l->sky_w = l->sky_img ? width : 0;
    l->sky_h = l->sky_img ? height : 0;
}

void rp_light_free(rp_light **l)
{
    if (!l)
        return;
    free(*l);
    *l = NULL;
}

static void frame_init(const rp_light *l, const rp_light_geom *g, struct rp_light_frame *f)
{
    int64_t hs = l->p.height_scale;
    f->w = g->width;
    f->h = g->height;
    f->scale_x = rp_clamp64(g->scale_x_q16, 1024, (int64_t)256 << 16);
    f->scale_y = rp_clamp64(g->scale_y_q16, 1024, (int64_t)256 << 16);
    /* the curvature's spacing: about 2 cells (the water model: 3, which averages out the
     * grid's own height noise that the caustics would show) */
    int cells = l->p.model == RP_LIGHT_WATER ? 3 : 2;
    f->sx_step = (int)((cells * f->scale_x + 32768) >> 16);
    f->sy_step = (int)((cells * f->scale_y + 32768) >> 16);
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
    f->cxym = (f->scale_x * f->scale_y + (int64_t)f->sx_step * f->sy_step * 512 * hs) /
              ((int64_t)f->sx_step * f->sy_step * 1024 * hs);
    /* the refraction's footprint: depth / RP_LIGHT_FOOTPRINT cells either side, at least a
     * pixel; its slope is the Sobel sum over +-f pixels: 4 * 2f pixels of difference, so
     * slope_q12's factor over 4 f (light.h "WATER") */
    f->fx_step = (int)rp_clamp64(
        ((int64_t)l->p.depth_q8 * f->scale_x / RP_LIGHT_FOOTPRINT + ((int64_t)1 << 23)) >> 24, 1,
        1 << 16);
    f->fy_step = (int)rp_clamp64(
        ((int64_t)l->p.depth_q8 * f->scale_y / RP_LIGHT_FOOTPRINT + ((int64_t)1 << 23)) >> 24, 1,
        1 << 16);
    f->fkx = (f->scale_x * f->mdiv + 2 * f->fx_step) / (4 * f->fx_step);
    f->fky = (f->scale_y * f->mdiv + 2 * f->fy_step) / (4 * f->fy_step);
    f->flimx = rp_light_slope_lim(f->fkx);
    f->flimy = rp_light_slope_lim(f->fky);
    f->dx = l->p.refraction_q8 ? ((int64_t)l->p.depth_q8 * f->scale_x) >> 8 : 0;
    f->dy = l->p.refraction_q8 ? ((int64_t)l->p.depth_q8 * f->scale_y) >> 8 : 0;
    f->rx = (int64_t)l->p.refraction_q8 * f->scale_x;
    f->ry = (int64_t)l->p.refraction_q8 * f->scale_y;
    /* a sky of another size than the frame is not used; a sky of strength 0 shows none */
    f->sky = l->sky_img && l->sky_w == f->w && l->sky_h == f->h && l->p.sky_q8 ? l->sky_img : NULL;
    f->kx = (int64_t)RP_LIGHT_SKY_REFLECT * 256 * f->scale_x;
    f->ky = (int64_t)RP_LIGHT_SKY_REFLECT * 256 * f->scale_y;
    f->peak = g->peak_q8;
}

/* A w x h RGB24 picture at (px, py), Q8 pixels within the frame, bilinear. */
static inline __attribute__((always_inline)) void bilinear(const uint8_t *img, int w, int h,
                                                           int64_t px, int64_t py, int32_t t[3])
{
    int ix = (int)(px >> 8), iy = (int)(py >> 8);
    int32_t fx = (int32_t)(px & 255), fy = (int32_t)(py & 255);
    int ix1 = ix < w - 1 ? ix + 1 : ix, iy1 = iy < h - 1 ? iy + 1 : iy;
    const uint8_t *p00 = img + ((size_t)iy * w + ix) * 3;
    const uint8_t *p01 = img + ((size_t)iy * w + ix1) * 3;
    const uint8_t *p10 = img + ((size_t)iy1 * w + ix) * 3;
    const uint8_t *p11 = img + ((size_t)iy1 * w + ix1) * 3;
    for (int k = 0; k < 3; k++) {
        int32_t top = p00[k] * (256 - fx) + p01[k] * fx;
        int32_t bot = p10[k] * (256 - fx) + p11[k] * fx;
        t[k] = (top * (256 - fy) + bot * fy + 32768) >> 16;
    }
}

/* The reflected sky at (x, y) for slopes (sx, sy), Q12: the sky image at (x, y) + k * slope
 * * scale, clamped to the frame (light.h). */
static inline __attribute__((always_inline)) void
sky_px(const struct rp_light_frame *f, int x, int y, int32_t sx, int32_t sy, uint8_t rgb[3])
{
    const int64_t xmax = (int64_t)(f->w - 1) << 8, ymax = (int64_t)(f->h - 1) << 8;
    int64_t px = rp_clamp64(((int64_t)x << 8) + ((sx * f->kx) >> 28), 0, xmax);
    int64_t py = rp_clamp64(((int64_t)y << 8) + ((sy * f->ky) >> 28), 0, ymax);
    int32_t t[3];
    bilinear(f->sky, f->w, f->h, px, py, t);
    rgb[0] = (uint8_t)t[0];
    rgb[1] = (uint8_t)t[1];
    rgb[2] = (uint8_t)t[2];
}

/* Slope (Q12) from a height difference across `span` pixels (2 inside, 1 at an edge). */
static inline int32_t slope_q12(const struct rp_light_frame *f, int64_t diff, int span,
                                int64_t scale)
{
    if (span == 0)
        return 0;
    if (span == 1)
        diff *= 2;
    int64_t t = rp_clamp64(diff * scale, -f->t_lim, f->t_lim);
    return (int32_t)rp_clamp64((t * f->mdiv) >> 32, -SLOPE_MAX, SLOPE_MAX);
}

/* The refraction's slope (Q12) from a Sobel sum over the footprint (frame_init). */
static inline int32_t foot_q12(int64_t sum, int64_t k, int64_t lim)
{
    return (int32_t)rp_clamp64((rp_clamp64(sum, -lim, lim) * k) >> 32, -SLOPE_MAX, SLOPE_MAX);
}

/* The layer at one pixel: alpha A8 and straight colour c[3]; the slopes for refraction. */
struct px {
    uint8_t a;
    uint8_t c[3];
    int32_t sx, sy;
};

/* The layer's (C, A8) from the transparency t of the layers under the glint (Q15), the
 * sky's alpha a_s, the glint's transparency op and the light's weight w_light. */
static inline __attribute__((always_inline)) void compose(const rp_light *l, int32_t t, int32_t a_s,
                                                          int32_t op, int32_t w_light,
                                                          const uint8_t sky_rgb[3], struct px *o)
{
    t = (int32_t)(((int64_t)t * op) >> 15);
    int32_t A = ONE15 - t;
    int32_t w_sky = (int32_t)(((int64_t)a_s * op) >> 15);
    int32_t a8 = (A * 255 + 16384) >> 15;
    o->a = (uint8_t)a8;
    if (a8 == 0) {
        o->c[0] = o->c[1] = o->c[2] = 0;
        return;
    }
    /* 2^30 + A / 2 < 2^32: the 32-bit unsigned division gives the same quotient faster */
    int64_t inv = (uint32_t)((1u << 30) + (uint32_t)A / 2) / (uint32_t)A;
    for (int k = 0; k < 3; k++) {
        int64_t pc = (int64_t)w_light * l->p.light_rgb[k] + (int64_t)w_sky * sky_rgb[k];
        int64_t c = (pc * inv + ((int64_t)1 << 29)) >> 30;
        o->c[k] = (uint8_t)(c > 255 ? 255 : c);
    }
}

static inline __attribute__((always_inline)) void layer_px(const rp_light *l,
                                                           const struct rp_light_frame *f,
                                                           int32_t sx, int32_t sy, int32_t curv,
                                                           const uint8_t sky_rgb[3], struct px *o)
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
    int32_t ndoth =
        (int32_t)(((int64_t)nx * l->hx + (int64_t)ny * l->hy + (int64_t)nz * l->hz) >> 15);
    int32_t ndotl =
        (int32_t)(((int64_t)nx * l->lx + (int64_t)ny * l->ly + (int64_t)nz * l->lz) >> 15);
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
    int32_t w_light = a_p;
    if (b > 0)
        w_light += (int32_t)(((((int64_t)a_b * os) >> 15) * op) >> 15);
    o->sx = sx;
    o->sy = sy;
    compose(l, t, a_s, op, w_light, sky_rgb, o);
    (void)f;
}

/* The layer at (x, y): slopes by central differences, curvature over +-step pixels. */
static inline __attribute__((always_inline)) void pixel(const rp_light *l,
                                                        const struct rp_light_frame *f,
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
    curv = rp_clamp64(curv, -((int64_t)1 << 20), (int64_t)1 << 20);
    if (f->sky) {
        uint8_t sky[3];
        sky_px(f, x, y, sx, sy, sky);
        layer_px(l, f, sx, sy, (int32_t)curv, sky, o);
    } else {
        layer_px(l, f, sx, sy, (int32_t)curv, l->p.sky_rgb, o);
    }
}

/* The water model at (x, y) (light.h "WATER"). */
struct wpx {
    struct px o;    /* the sky and glint layer, and the slopes */
    int64_t qx, qy; /* the bed point seen, Q8 pixels within the frame */
    int32_t gain;   /* the bed's light, Q12 (4096: as lit under still water) */
};

static inline int32_t interp_rsq(const int32_t *tab, int64_t r2)
{
    int64_t i = r2 >> 18;
    if (i >= RSQ_N)
        return tab[RSQ_N];
    int32_t fr = (int32_t)((r2 >> 10) & 255);
    return tab[i] + (int32_t)(((int64_t)(tab[i + 1] - tab[i]) * fr) >> 8);
}

static inline int32_t interp_rsq_u16(const uint16_t *tab, int64_t r2)
{
    int64_t i = r2 >> 18;
    if (i >= RSQ_N)
        return tab[RSQ_N];
    int32_t fr = (int32_t)((r2 >> 10) & 255);
    return tab[i] + (((tab[i + 1] - tab[i]) * fr) >> 8);
}

static inline void water_rows_at(const struct rp_light_frame *f, const int32_t *hgt, int y,
                                 struct rp_light_wrows *r)
{
    const int w = f->w, h = f->h;
    r->u2 = hgt + (size_t)rp_light_mirror(y - f->sy_step, h) * w;
    r->u1 = hgt + (size_t)rp_light_mirror(y - 1, h) * w;
    r->m = hgt + (size_t)y * w;
    r->d1 = hgt + (size_t)rp_light_mirror(y + 1, h) * w;
    r->d2 = hgt + (size_t)rp_light_mirror(y + f->sy_step, h) * w;
    r->top = hgt;
    r->bottom = hgt + (size_t)(h - 1) * w;
    r->odd_u2 = y - f->sy_step < 0;
    r->odd_u1 = y - 1 < 0;
    r->odd_d1 = y + 1 > h - 1;
    r->odd_d2 = y + f->sy_step > h - 1;
    r->u3 = hgt + (size_t)rp_light_mirror(y - f->fy_step, h) * w;
    r->d3 = hgt + (size_t)rp_light_mirror(y + f->fy_step, h) * w;
    r->odd_u3 = y - f->fy_step < 0;
    r->odd_d3 = y + f->fy_step > h - 1;
    r->y = y;
}

/* The height at column x (-w < x < 2w) of a row the water reads, odd past every edge: row
 * itself, or 2 edge - row where the row lies past the top or bottom. */
static inline int64_t wat(const int32_t *row, const int32_t *edge, int odd, int x, int w)
{
    int64_t v = rp_light_odd(row, x, w);
    return odd ? 2 * rp_light_odd(edge, x, w) - v : v;
}

/* The heights at x -+ s of row m and at x, x -+ s of rows u and d (y -+ s), odd past
 * the frame's top or bottom where odd_u or odd_d is set (wat). */
struct wcross {
    int64_t l, r, u, d, ul, ur, dl, dr;
};

static inline __attribute__((always_inline)) void cross_at(const int32_t *m, const int32_t *u,
                                                           const int32_t *d, int odd_u, int odd_d,
                                                           const struct rp_light_wrows *rw, int x,
                                                           int s, int w, struct wcross *c)
{
    if (x - s >= 0 && x + s <= w - 1 && !(odd_u | odd_d)) {
        *c =
            (struct wcross){m[x - s], m[x + s], u[x], d[x], u[x - s], u[x + s], d[x - s], d[x + s]};
        return;
    }
    const int32_t *t = rw->top, *b = rw->bottom;
    *c = (struct wcross){rp_light_odd(m, x - s, w),  rp_light_odd(m, x + s, w),
                         wat(u, t, odd_u, x, w),     wat(d, b, odd_d, x, w),
                         wat(u, t, odd_u, x - s, w), wat(u, t, odd_u, x + s, w),
                         wat(d, b, odd_d, x - s, w), wat(d, b, odd_d, x + s, w)};
}

/* The heights water_px reads around pixel x of row r->y. */
struct wnear {
    int64_t c;        /* row y at x */
    struct wcross s1; /* at +-1 pixel: the slopes (no corners) */
    struct wcross s2; /* at +-sx_step, sy_step: the curvature */
    struct wcross fp; /* at +-fx_step, fy_step: the refraction's footprint */
};

static inline __attribute__((always_inline)) void
water_near(const struct rp_light_frame *f, const struct rp_light_wrows *r, int x, struct wnear *n)
{
    const int w = f->w;
    n->c = r->m[x];
    /* the corners at +-1 are not read: rows u1 and d1 are only read at x */
    if (x >= 1 && x <= w - 2 && !(r->odd_u1 | r->odd_d1)) {
        n->s1.l = r->m[x - 1];
        n->s1.r = r->m[x + 1];
        n->s1.u = r->u1[x];
        n->s1.d = r->d1[x];
    } else {
        n->s1.l = rp_light_odd(r->m, x - 1, w);
        n->s1.r = rp_light_odd(r->m, x + 1, w);
        n->s1.u = wat(r->u1, r->top, r->odd_u1, x, w);
        n->s1.d = wat(r->d1, r->bottom, r->odd_d1, x, w);
    }
    cross_at(r->m, r->u2, r->d2, r->odd_u2, r->odd_d2, r, x, f->sx_step, w, &n->s2);
    cross_at(r->m, r->u3, r->d3, r->odd_u3, r->odd_d3, r, x, f->fx_step, w, &n->fp);
}

/* The Sobel sums across a cross: 2 (r - l) + (ur - ul) + (dr - dl), and so down. */
static inline int64_t sobel_x(const struct wcross *c)
{
    return 2 * (c->r - c->l) + (c->ur - c->ul) + (c->dr - c->dl);
}

static inline int64_t sobel_y(const struct wcross *c)
{
    return 2 * (c->d - c->u) + (c->dl - c->ul) + (c->dr - c->ur);
}

/* A bed point past the frame's edge, q in Q8 pixels and max the last pixel: read mirrored
 * back about the edge (the picture continues as its own reflection, as the heights do),
 * then clamped, so refraction at the frame's edges shows no streaks of its edge pixels. */
static inline int64_t reflect_q8(int64_t q, int64_t max)
{
    q = q < 0 ? -q : q;
    q = q > max ? 2 * max - q : q;
    return rp_clamp64(q, 0, max);
}

/* The sun's glint on water of slopes sx, sy (Q12): its alpha, Q15, by the distance from the
 * slope that mirrors the sun. */
static inline __attribute__((always_inline)) int32_t glint_alpha(const rp_light *l, int32_t sx,
                                                                 int32_t sy)
{
    int64_t dgx = (int64_t)sx - l->mirror_x, dgy = (int64_t)sy - l->mirror_y;
    int64_t d2 = dgx * dgx + dgy * dgy;
    if (d2 >= l->glint_lim)
        return 0;
    int64_t u = (d2 * l->glint_inv) >> 24; /* Q16 */
    int32_t gi = (int32_t)(u >> 8), gf = (int32_t)(u & 255);
    return l->wglint[gi] + (((l->wglint[gi + 1] - l->wglint[gi]) * gf) >> 8);
}

static inline __attribute__((always_inline)) void water_px(const rp_light *l,
                                                           const struct rp_light_frame *f,
                                                           const struct rp_light_wrows *r, int x,
                                                           struct wpx *o)
{
    const int w = f->w, h = f->h, y = r->y;
    struct wnear n;
    water_near(f, r, x, &n);
    int32_t sx = slope_q12(f, n.s1.r - n.s1.l, 2, f->scale_x);
    int32_t sy = slope_q12(f, n.s1.d - n.s1.u, 2, f->scale_y);
    o->o.sx = sx;
    o->o.sy = sy;

    /* refraction: the bed point seen, depth * g(|s|^2) * s cells away, s the slope over the
     * footprint (Sobel: the difference across it, weighted 1 2 1 across it) */
    int32_t fx = foot_q12(sobel_x(&n.fp), f->fkx, f->flimx);
    int32_t fy = foot_q12(sobel_y(&n.fp), f->fky, f->flimy);
    int64_t f2 = (int64_t)fx * fx + (int64_t)fy * fy;
    const int64_t xmax = (int64_t)(w - 1) << 8, ymax = (int64_t)(h - 1) << 8;
    int32_t g = interp_rsq(l->wref, f2);
    const int64_t half = (int64_t)1 << 27;
    o->qx = reflect_q8(((int64_t)x << 8) + (((((int64_t)fx * g) >> 8) * f->dx + half) >> 28), xmax);
    o->qy = reflect_q8(((int64_t)y << 8) + (((((int64_t)fy * g) >> 8) * f->dy + half) >> 28), ymax);
    int64_t r2 = (int64_t)sx * sx + (int64_t)sy * sy;

    /* caustics: 1 / det(I + a * Hessian(h)), the area the sun's rays through this pixel's
     * surface spread over on the bed */
    const int64_t lim = (int64_t)16 << 12;
    /* the Hessian in Q16 (a reaches 40 cells and more: Q12 would lose a * 2^-12 a term);
     * hxx and hyy second differences smoothed across, 1 6 1 over 8 (the sums are 8 times
     * the difference): plain ones read a fresh drop's short rings steeper along the axes
     * than along the diagonals, and the drop's caustics came out as a rounded square */
    const int64_t corners = n.s2.ul + n.s2.ur + n.s2.dl + n.s2.dr, across = n.s2.l + n.s2.r,
                  along = n.s2.u + n.s2.d;
    int64_t hxx = (corners + 6 * across - 2 * along - 12 * n.c) * f->cxm >> 19;
    int64_t hyy = (corners + 6 * along - 2 * across - 12 * n.c) * f->cym >> 19;
    int64_t hxy = (n.s2.dr - n.s2.ur - n.s2.dl + n.s2.ul) * f->cxym >> 16;
    int64_t axx = rp_clamp64((l->caus_a * hxx) >> 12, -lim, lim);
    int64_t ayy = rp_clamp64((l->caus_a * hyy) >> 12, -lim, lim);
    int64_t axy = rp_clamp64((l->caus_a * hxy) >> 12, -lim, lim);
    int64_t det = (((4096 + axx) * (4096 + ayy)) >> 12) - ((axy * axy) >> 12);
    int32_t e = l->wrecip[rp_clamp64(det, 0, RECIP_N)];
    int64_t gain = 4096 + (((int64_t)(e - 4096) * l->p.caustics_q8) >> 8);
    o->gain = (int32_t)rp_clamp64(gain, 0, lim);

    /* sky (Fresnel, less flat water's) and the sun's glint */
    int32_t a_s = interp_rsq_u16(l->wsky, r2), a_p = glint_alpha(l, sx, sy);
    int32_t os = ONE15 - a_s, op = ONE15 - a_p;
    if (f->sky) {
        uint8_t sky[3];
        sky_px(f, x, y, sx, sy, sky);
        compose(l, os, a_s, op, a_p, sky, &o->o);
    } else {
        compose(l, os, a_s, op, a_p, l->p.sky_rgb, &o->o);
    }
}

/* The picture seen at a pixel in Q8 levels: the background at (qx, qy), Q8 pixels,
 * bilinear (exactly the pixel where the water is flat there). Kept to 1/256 of a level,
 * so the caustics' gain multiplies the picture, not its rounding. */
static inline __attribute__((always_inline)) void
plate_px(const uint8_t *bg, int w, int h, int64_t qx, int64_t qy, int x, int y, int32_t tq[3])
{
    if (qx == (int64_t)x << 8 && qy == (int64_t)y << 8) {
        const uint8_t *s = bg + ((size_t)y * w + x) * 3;
        tq[0] = s[0] << 8;
        tq[1] = s[1] << 8;
        tq[2] = s[2] << 8;
        return;
    }
    int ix = (int)(qx >> 8), iy = (int)(qy >> 8);
    int32_t fx = (int32_t)(qx & 255), fy = (int32_t)(qy & 255);
    int ix1 = ix < w - 1 ? ix + 1 : ix, iy1 = iy < h - 1 ? iy + 1 : iy;
    const uint8_t *p00 = bg + ((size_t)iy * w + ix) * 3, *p01 = bg + ((size_t)iy * w + ix1) * 3;
    const uint8_t *p10 = bg + ((size_t)iy1 * w + ix) * 3, *p11 = bg + ((size_t)iy1 * w + ix1) * 3;
    for (int k = 0; k < 3; k++) {
        int32_t top = p00[k] * (256 - fx) + p01[k] * fx;
        int32_t bot = p10[k] * (256 - fx) + p11[k] * fx;
        tq[k] = (top * (256 - fy) + bot * fy + 128) >> 8;
    }
}

/* A channel tq (Q8 levels) of the picture lit by the caustics' gain (Q12), in Q8 levels
 * before the tint: light added to a pixel may take at most L, a third of its headroom H
 * (less within 48 levels of white: H^3 / 6912), linearly up to L/2 and from there
 * approaching L smoothly (x -> L - L^2/4x, whose value and slope meet the line's), so
 * caustics do not burn bright parts of the picture to white. */
static inline __attribute__((always_inline)) int64_t lit_q8(int32_t tq, int32_t gain)
{
    int64_t v = ((int64_t)tq * gain) >> 12;
    if (v > tq) {
        int64_t add = v - tq, room = (255 << 8) - tq;
        int64_t lh = room < (48 << 8) ? room * room / (48 << 8) * room / (144 << 8) : room / 3;
        /* lh < 2^15 and 0 < add < 2^21 (gain <= 16): a 32-bit division, the same quotient */
        if (2 * add > lh)
            add = lh - (uint32_t)(lh * lh) / (uint32_t)(4 * add);
        v = tq + add;
    }
    return v;
}

/* The picture's channels tq (Q8 levels) lit by the caustics' gain (Q12), in Q8 levels before
 * the tint. Where the gain brightens (above 4096), the brightest channel follows lit_q8 and
 * the others are scaled by the same ratio (1 where it has no headroom left), so focused
 * light keeps the picture's hue: eased channel by channel, the darker channels gained the
 * most and rings of caustics over dark colours turned pale and grey. */
static inline __attribute__((always_inline)) void lit3_q8(const int32_t tq[3], int32_t gain,
                                                          int64_t v[3])
{
    int32_t mx = tq[0] > tq[1] ? tq[0] : tq[1];
    mx = mx > tq[2] ? mx : tq[2];
    if (gain <= 4096 || mx == 0) {
        for (int k = 0; k < 3; k++)
            v[k] = ((int64_t)tq[k] * gain) >> 12;
        return;
    }
    int64_t vm = lit_q8(mx, gain);
    for (int k = 0; k < 3; k++)
        v[k] = (int64_t)tq[k] * vm / mx;
}

/* The bed under the water at a pixel: the picture at the point seen, lit by the caustics'
 * gain and tinted. */
static inline __attribute__((always_inline)) void water_bed(const rp_light *l,
                                                            const struct rp_light_frame *f,
                                                            const struct wpx *o, int x, int y,
                                                            const uint8_t *bg, int32_t t[3])
{
    int64_t lit[3];
    plate_px(bg, f->w, f->h, o->qx, o->qy, x, y, t);
    lit3_q8(t, o->gain, lit);
    for (int k = 0; k < 3; k++) {
        int64_t v = (lit[k] * l->tint[k] + ((int64_t)1 << 23)) >> 24;
        t[k] = (int32_t)(v > 255 ? 255 : v);
    }
}

void rp_light_caustics(const rp_light *l, const uint8_t *bg, int w, int h, int x, int y,
                       const rp_light_surface *s, uint16_t gain[3])
{
    int32_t t[3];
    int64_t lit[3];
    plate_px(bg, w, h, ((int64_t)x << 8) + s->dx, ((int64_t)y << 8) + s->dy, x, y, t);
    lit3_q8(t, s->gain, lit);
    for (int k = 0; k < 3; k++) {
        /* bed / t = (lit * tint / 2^24) / (t / 2^8), as Q12 */
        int64_t g = t[k] ? (lit[k] * l->tint[k] + 8 * (int64_t)t[k]) / (16 * (int64_t)t[k])
                         : ((int64_t)s->gain * l->tint[k] + 32768) >> 16;
        gain[k] = (uint16_t)(g > 65535 ? 65535 : g);
    }
}

/* Pixels x0..x1-1 of row r->y of the composite. */
static void water_span_rgb(const rp_light *l, const struct rp_light_frame *f,
                           const struct rp_light_wrows *r, const uint8_t *bg, uint8_t *out, int x0,
                           int x1)
{
    for (int x = x0; x < x1; x++) {
        struct wpx o;
        int32_t t[3];
        water_px(l, f, r, x, &o);
        water_bed(l, f, &o, x, r->y, bg, t);
        int32_t a = o.o.a;
        /* with no layer the blend is (255 t + 127) / 255 = t */
        for (int k = 0; k < 3 && a == 0; k++)
            out[3 * x + k] = (uint8_t)t[k];
        for (int k = 0; k < 3 && a != 0; k++)
            out[3 * x + k] = (uint8_t)((t[k] * (255 - a) + o.o.c[k] * a + 127) / 255);
    }
}

/* Pixels x0..x1-1 of row r->y of the layer. */
static void water_span_rgba(const rp_light *l, const struct rp_light_frame *f,
                            const struct rp_light_wrows *r, uint8_t *out, int x0, int x1)
{
    for (int x = x0; x < x1; x++) {
        struct wpx o;
        water_px(l, f, r, x, &o);
        out[4 * x] = o.o.c[0];
        out[4 * x + 1] = o.o.c[1];
        out[4 * x + 2] = o.o.c[2];
        out[4 * x + 3] = o.o.a;
    }
}

static void light_dsp_fill(void *table, int level)
{
    rp_light_dsp_init_x86(table, level);
    rp_light_water_dsp_init_wasm(table, level);
}
RP_DSP_TABLES_FILLED_BY(light, light_dsp_fill)

/* The table's water kernel for these rows, or NULL: it does rows of 8 pixels or more. */
static rp_light_water_fn water_kernel(const rp_light *l, const struct rp_light_frame *f,
                                      const int32_t *heights, int y0, int y1)
{
    const rp_light_dsp *c = rp_light_dsp_get();
    if (f->w < 8 || y0 >= y1 || !c->water_row || !c->water_rows_ok(l, f, heights, y0, y1))
        return NULL;
    return c->water_row;
}

void rp_light_nonzero_blocks(const int32_t *row, int w, uint64_t *mask)
{
    for (int i = 0; i < RP_LIGHT_BLOCK_WORDS(w); i++)
        mask[i] = 0;
    for (int b = 0; 64 * b < w; b++) {
        const int32_t *p = row + 64 * b;
        int32_t any = 0;
        if (w - 64 * b >= 64) { /* a whole block: a fixed count the compiler vectorises */
            for (int i = 0; i < 64; i++)
                any |= p[i];
        } else {
            for (int i = 0; i < w - 64 * b; i++)
                any |= p[i];
        }
        if (any)
            mask[b / 64] |= (uint64_t)1 << (b % 64);
    }
}

/* Whether still water (every height a pixel reads 0) is the picture itself, byte for byte:
 * water_px gives no layer there (its alpha with both slopes 0 rounds to 0) and the bed at
 * the pixel, lit by the flat gain, which is 1 (4096) when the caustics' 1 / det of flat
 * water is 1, and no tint changes it back. (The vector kernels' flat_copy is the same
 * condition.) */
static int still_is_picture(const rp_light *l)
{
    int32_t a_s = interp_rsq_u16(l->wsky, 0), a_p = glint_alpha(l, 0, 0);
    struct px o;
    compose(l, ONE15 - a_s, a_s, ONE15 - a_p, a_p, l->p.sky_rgb, &o);
    int64_t g0 = 4096 + (((int64_t)(l->wrecip[4096] - 4096) * l->p.caustics_q8) >> 8);
    return o.a == 0 && g0 == 4096 && l->tint[0] == 65536 && l->tint[1] == 65536 &&
           l->tint[2] == 65536;
}

/* Pixels x0..x1-1 of one row of the composite (rgba NULL) or of the layer: the vector
 * kernel where there is one, the plain loop for the pixels it leaves. */
static void water_span(const rp_light *l, const struct rp_light_frame *f,
                       const struct rp_light_wrows *r, rp_light_water_fn kernel, const uint8_t *bg,
                       uint8_t *out, int rgba, int x0, int x1)
{
    int x = kernel ? kernel(l, f, r, x0, x1, bg, out, rgba) : x0;
    if (rgba)
        water_span_rgba(l, f, r, out, x, x1);
    else
        water_span_rgb(l, f, r, bg, out, x, x1);
}

/* The blocks of row y whose pixels read a height other than 0 (nz: rp_light_geom's
 * nonzero): those of every row the water reads for row y (water_rows_at's, and the top or
 * bottom row where it reads past them), and their neighbours, since a pixel reads at most
 * 64 pixels to either side (the caller checks the steps), mirrored within the first and
 * last block. */
static void live_blocks(const struct rp_light_frame *f, const uint64_t *nz, int y, uint64_t *live)
{
    const int h = f->h, words = RP_LIGHT_BLOCK_WORDS(f->w);
    const int dy[] = {0, -1, 1, -f->sy_step, f->sy_step, -f->fy_step, f->fy_step};
    for (int i = 0; i < words; i++)
        live[i] = 0;
    for (int k = 0; k < 7; k++) {
        int yy = y + dy[k];
        const uint64_t *rows[2] = {nz + (size_t)rp_light_mirror(yy, h) * words, NULL};
        if (yy < 0 || yy > h - 1) /* read as 2 edge - row */
            rows[1] = nz + (size_t)(yy < 0 ? 0 : h - 1) * words;
        for (int j = 0; j < 2 && rows[j]; j++)
            for (int i = 0; i < words; i++)
                live[i] |= rows[j][i];
    }
    uint64_t carry = 0; /* the last bit of the word before, for the shift left */
    for (int i = 0; i < words; i++) {
        uint64_t v = live[i], next = i + 1 < words ? live[i + 1] : 0;
        live[i] = v | v << 1 | carry | v >> 1 | next << 63;
        carry = v >> 63;
    }
}

/* Rows y0..y1-1 of the composite (rgba NULL) or of the layer. With the heights' nonzero
 * blocks (g->nonzero), still water that is the picture, and steps within a block, the
 * composite's blocks where every height read is 0 are the background's bytes, copied. */
static void water_rows(const rp_light *l, const rp_light_geom *g, const struct rp_light_frame *f,
                       const int32_t *heights, const uint8_t *bg, uint8_t *rgb, uint8_t *rgba,
                       int y0, int y1)
{
    rp_light_water_fn kernel = water_kernel(l, f, heights, y0, y1);
    const int w = f->w, rgb_ = rgba == NULL;
    enum { WORDS_MAX = 8 }; /* rows up to 32768 pixels */
    const int skip = g->nonzero && rgb_ && !f->sky && RP_LIGHT_BLOCK_WORDS(w) <= WORDS_MAX &&
                     f->sx_step <= 64 && f->fx_step <= 64 && still_is_picture(l);
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgba ? rgba + (size_t)y * w * 4 : rgb + (size_t)y * w * 3;
        struct rp_light_wrows r;
        water_rows_at(f, heights, y, &r);
        if (!skip) {
            water_span(l, f, &r, kernel, bg, out, !rgb_, 0, w);
            continue;
        }
        uint64_t live[WORDS_MAX];
        live_blocks(f, g->nonzero, y, live);
        for (int b = 0; 64 * b < w;) {
            int on = (int)(live[b / 64] >> (b % 64) & 1), e = b + 1;
            while (64 * e < w && (int)(live[e / 64] >> (e % 64) & 1) == on)
                e++;
            int x0 = 64 * b, x1 = 64 * e < w ? 64 * e : w;
            if (on)
                water_span(l, f, &r, kernel, bg, out, 0, x0, x1);
            else
                memcpy(out + 3 * (size_t)x0, bg + ((size_t)y * w + x0) * 3, 3 * (size_t)(x1 - x0));
            b = e;
        }
    }
}

static int flat_alpha(const rp_light *l)
{
    struct px o;
    layer_px(l, NULL, 0, 0, 0, l->p.sky_rgb, &o);
    return o.a;
}

/* The table's kernel for these rows, or NULL: it does whole rows of 8 pixels or more. */
static rp_light_row_fn row_kernel(const struct rp_light_frame *f, const int32_t *heights, int y0,
                                  int y1)
{
    const rp_light_dsp *c = rp_light_dsp_get();
    if (f->w < 8 || y0 >= y1 || !c->row || !c->rows_ok(f, heights, y0, y1))
        return NULL;
    return c->row;
}

static inline __attribute__((always_inline)) void rgba_px(const rp_light *l,
                                                          const struct rp_light_frame *f,
                                                          const int32_t *heights, int x, int y,
                                                          uint8_t *out)
{
    struct px o;
    pixel(l, f, heights, x, y, &o);
    out[4 * x] = o.c[0];
    out[4 * x + 1] = o.c[1];
    out[4 * x + 2] = o.c[2];
    out[4 * x + 3] = o.a;
}

void rp_light_rows_rgba(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                        uint8_t *rgba, int y0, int y1)
{
    struct rp_light_frame f;
    frame_init(l, g, &f);
    if (l->p.model == RP_LIGHT_WATER) {
        water_rows(l, g, &f, heights, NULL, NULL, rgba, y0, y1);
        return;
    }
    rp_light_row_fn kernel = row_kernel(&f, heights, y0, y1);
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgba + (size_t)y * f.w * 4;
        int x = 0;
        if (kernel)
            x = kernel(l, &f, heights, y, NULL, NULL, rgba);
        for (; x < f.w; x++)
            rgba_px(l, &f, heights, x, y, out);
    }
}

static inline __attribute__((always_inline)) void rgb_px(const rp_light *l,
                                                         const struct rp_light_frame *f,
                                                         const int32_t *heights, int x, int y,
                                                         const uint8_t *bg, uint8_t *out)
{
    const int w = f->w, h = f->h;
    const int64_t xmax = (int64_t)(w - 1) << 8, ymax = (int64_t)(h - 1) << 8;
    struct px o;
    pixel(l, f, heights, x, y, &o);
    int32_t t[3];
    if (l->p.refraction_q8 == 0 || (o.sx == 0 && o.sy == 0)) {
        const uint8_t *s = bg + ((size_t)y * w + x) * 3;
        t[0] = s[0];
        t[1] = s[1];
        t[2] = s[2];
    } else {
        /* bilinear at (x, y) - r * slope * scale, Q8 pixels, clamped */
        int64_t px = rp_clamp64(((int64_t)x << 8) - ((o.sx * f->rx) >> 28), 0, xmax);
        int64_t py = rp_clamp64(((int64_t)y << 8) - ((o.sy * f->ry) >> 28), 0, ymax);
        bilinear(bg, w, h, px, py, t);
    }
    int32_t a = o.a;
    for (int k = 0; k < 3; k++)
        out[3 * x + k] = (uint8_t)((t[k] * (255 - a) + o.c[k] * a + 127) / 255);
}

void rp_light_rows_rgb(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                       const uint8_t *bg, uint8_t *rgb, int y0, int y1)
{
    struct rp_light_frame f;
    frame_init(l, g, &f);
    if (l->p.model == RP_LIGHT_WATER) {
        water_rows(l, g, &f, heights, bg, rgb, NULL, y0, y1);
        return;
    }
    rp_light_row_fn kernel = row_kernel(&f, heights, y0, y1);
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgb + (size_t)y * f.w * 3;
        int x = 0;
        if (kernel)
            x = kernel(l, &f, heights, y, bg, rgb, NULL);
        for (; x < f.w; x++)
            rgb_px(l, &f, heights, x, y, bg, out);
    }
}

void rp_light_rows_surface(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                           rp_light_surface *out, int y0, int y1)
{
    struct rp_light_frame f;
    frame_init(l, g, &f);
    f.sky = NULL; /* the slopes and the refraction do not depend on the sky */
    const int64_t xmax = (int64_t)(f.w - 1) << 8, ymax = (int64_t)(f.h - 1) << 8;
    for (int y = y0; y < y1; y++) {
        rp_light_surface *row = out + (size_t)(y - y0) * f.w;
        struct rp_light_wrows r;
        water_rows_at(&f, heights, y, &r);
        for (int x = 0; x < f.w && l->p.model == RP_LIGHT_WATER; x++) {
            struct wpx o;
            water_px(l, &f, &r, x, &o);
            row[x].sx = o.o.sx;
            row[x].sy = o.o.sy;
            row[x].dx = (int32_t)(o.qx - ((int64_t)x << 8));
            row[x].dy = (int32_t)(o.qy - ((int64_t)y << 8));
            row[x].gain = o.gain;
        }
        for (int x = 0; x < f.w && l->p.model != RP_LIGHT_WATER; x++) {
            struct px o;
            pixel(l, &f, heights, x, y, &o);
            row[x].sx = o.sx;
            row[x].sy = o.sy;
            row[x].dx = row[x].dy = 0;
            row[x].gain = 4096;
            if (l->p.refraction_q8 != 0 && (o.sx != 0 || o.sy != 0)) {
                /* where rp_light_rows_rgb samples, less (x, y) */
                int64_t px = rp_clamp64(((int64_t)x << 8) - ((o.sx * f.rx) >> 28), 0, xmax);
                int64_t py = rp_clamp64(((int64_t)y << 8) - ((o.sy * f.ry) >> 28), 0, ymax);
                row[x].dx = (int32_t)(px - ((int64_t)x << 8));
                row[x].dy = (int32_t)(py - ((int64_t)y << 8));
            }
        }
    }
}

/* round(x / 255) for x = C * A <= 255 * 255: ((x + 128) * 257) >> 16, FFmpeg's FAST_DIV255
 * (vf_overlay.c); test_light checks it against (2x + 255) / 510 for every (C, A). */
void rp_light_premultiply(uint8_t *rgba, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t a = rgba[4 * i + 3];
        for (int c = 0; c < 3; c++)
            rgba[4 * i + c] = (uint8_t)(((rgba[4 * i + c] * a + 128) * 257) >> 16);
    }
}
