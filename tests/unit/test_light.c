/* test_light.c - the light model of light.h against a plain double-precision transcription
 * of its equations, FFmpeg's overlay blend (vf_overlay.c's FAST_DIV255 for packed RGB,
 * straight and premultiplied) for the layer equation, the premultiplying of --alpha's layer
 * for every (C, A), calm water, size independence on slopes worked out by hand,
 * row splits, a 3x3 ramp lit from either side worked by hand, and the parameter checks;
 * every code path (plain C, each SIMD level this machine has, the others forced off with
 * rp_simd_set) held to the double transcriptions within their argued tolerances and to the
 * plain C path byte for byte (the vector kernels must not change a byte: determinism, not
 * correctness), also through a sky image of one colour; a sky image reflected still and
 * on slopes worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "look/light.h"
#include "look/light_simd.h"
#include "base/cpu.h"

#define W 61
#define H 43

static int32_t field[H][W];
static uint8_t bg[H][W][3];

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

/* Smooth ripples (Q8) with amplitude amp height units and a photo-like background. */
static void fill(double amp, unsigned seed)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double r = hypot(x - 27.0, y - 19.0);
            field[y][x] = (int32_t)lrint(256 * amp * cos(r * 0.55) * exp(-r * 0.05));
            bg[y][x][0] = (uint8_t)(lcg(&seed) % 256);
            bg[y][x][1] = (uint8_t)(x * 4);
            bg[y][x][2] = (uint8_t)(255 - y * 5);
        }
}

/* The layer model (light.h) with the defaults it had as the only model, which the tests
 * below were written for (the water model's are in test_water_light). */
static void layer_defaults(rp_light_params *p)
{
    rp_light_defaults(p);
    p->model = RP_LIGHT_LAYER;
    p->height_scale = RP_LIGHT_LAYER_HEIGHT_SCALE;
    p->elevation_mdeg = 40000;
    p->caustics_q8 = 256;
}

static rp_light *make(const rp_light_params *p)
{
    rp_light *l = NULL;
    rp_error err;
    assert_int_equal(rp_light_new(&l, p, &err), RP_OK);
    return l;
}

/* ---- the oracle: light.h in doubles ---- */

static double hq(int x, int y)
{
    x = x < 0 ? 0 : x > W - 1 ? W - 1 : x;
    y = y < 0 ? 0 : y > H - 1 ? H - 1 : y;
    return field[y][x] / 256.0;
}

struct opx {
    double a;    /* 0..1 */
    double c[3]; /* straight colour */
    double sx, sy;
};

static void oracle(const rp_light_params *p, double scale, int x, int y, struct opx *o)
{
    double hs = p->height_scale;
    int xl = x > 0 ? x - 1 : 0, xr = x < W - 1 ? x + 1 : W - 1;
    int yu = y > 0 ? y - 1 : 0, yd = y < H - 1 ? y + 1 : H - 1;
    double sx = (hq(xr, y) - hq(xl, y)) / (xr - xl) * scale / hs;
    double sy = (hq(x, yd) - hq(x, yu)) / (yd - yu) * scale / hs;
    int s = (int)floor(2 * scale + 0.5);
    s = s < 1 ? 1 : s;
    double lap = (hq(x + s, y) + hq(x - s, y) + hq(x, y + s) + hq(x, y - s) - 4 * hq(x, y)) /
                 (s * s) * scale * scale;
    double curv = -lap / hs;
    double len = sqrt(1 + sx * sx + sy * sy);
    double nx = -sx / len, ny = -sy / len, nz = 1 / len;
    double az = p->azimuth_mdeg / 1000.0 * M_PI / 180, el = p->elevation_mdeg / 1000.0 * M_PI / 180;
    double lx = cos(el) * sin(az), ly = -cos(el) * cos(az), lz = sin(el);
    double hl = sqrt(lx * lx + ly * ly + (lz + 1) * (lz + 1));
    double hx = lx / hl, hy = ly / hl, hz = (lz + 1) / hl;
    double b =
        p->shade_q8 / 256.0 * (nx * lx + ny * ly + nz * lz - lz) + p->caustics_q8 / 256.0 * curv;
    double a_b = fabs(b) / (1 + fabs(b));
    double f = 0.02 + 0.98 * pow(1 - nz, 5);
    double a_s = fmin(1, p->sky_q8 / 256.0 * f);
    double ndoth = fmax(0, nx * hx + ny * hy + nz * hz);
    double q = p->specular_q8 / 256.0 * fmax(0, pow(ndoth, p->shininess) - pow(hz, p->shininess));
    double a_p = q / (1 + q);
    double A = 1 - (1 - a_b) * (1 - a_s) * (1 - a_p);
    o->a = A;
    o->sx = sx;
    o->sy = sy;
    for (int k = 0; k < 3; k++) {
        double pc =
            a_p * p->light_rgb[k] +
            (1 - a_p) * (a_s * p->sky_rgb[k] + (1 - a_s) * (b > 0 ? a_b * p->light_rgb[k] : 0));
        o->c[k] = A > 0 ? pc / A : 0;
    }
}

static double bg_at(double px, double py, int k)
{
    px = fmin(fmax(px, 0), W - 1);
    py = fmin(fmax(py, 0), H - 1);
    int ix = (int)floor(px), iy = (int)floor(py);
    int ix1 = ix < W - 1 ? ix + 1 : ix, iy1 = iy < H - 1 ? iy + 1 : iy;
    double fx = px - ix, fy = py - iy;
    return (bg[iy][ix][k] * (1 - fx) + bg[iy][ix1][k] * fx) * (1 - fy) +
           (bg[iy1][ix][k] * (1 - fx) + bg[iy1][ix1][k] * fx) * fy;
}

static void params_all_on(rp_light_params *p)
{
    layer_defaults(p);
    p->sky_q8 = 4 * 256;
    p->caustics_q8 = 2 * 256;
    p->specular_q8 = 3 * 256;
    p->shininess = 40;
    p->shade_q8 = 2 * 256;
    p->height_scale = 64;
    p->refraction_q8 = 5 * 256;
    p->azimuth_mdeg = 300500;
    p->elevation_mdeg = 35000;
}

static void check_oracle_level(const rp_light_params *p, int32_t scale_q16, double amp)
{
    fill(amp, 3);
    rp_light *l = make(p);
    rp_light_geom g = {W, H, scale_q16, scale_q16, 0, NULL};
    static uint8_t rgba[H][W][4], rgb[H][W][3];
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
    double scale = scale_q16 / 65536.0;
    int worst_a = 0, worst_c = 0, worst_out = 0, lit = 0;
    double bias_a = 0; /* the mean signed difference of A over lit pixels */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            struct opx o;
            oracle(p, scale, x, y, &o);
            int a8 = (int)lrint(255 * o.a);
            int da = abs(a8 - rgba[y][x][3]);
            bias_a += a8 > 0 ? rgba[y][x][3] - 255 * o.a : 0;
            worst_a = da > worst_a ? da : worst_a;
            lit += a8 > 0;
            for (int k = 0; k < 3; k++) {
                if (a8 >= 16) {
                    int dc = abs((int)lrint(o.c[k]) - rgba[y][x][k]);
                    worst_c = dc > worst_c ? dc : worst_c;
                }
                double r = p->refraction_q8 / 256.0;
                double t = bg_at(x - r * o.sx * scale, y - r * o.sy * scale, k);
                double out = t * (1 - o.a) + o.c[k] * o.a;
                int d = abs((int)lrint(out) - rgb[y][x][k]);
                worst_out = d > worst_out ? d : worst_out;
            }
        }
    bias_a /= lit > 0 ? lit : 1;
    print_message("scale %.3f: max |dA| %d, |dC| %d (A >= 16/255), |d out| %d, mean dA %+.3f; "
                  "%d lit pixels\n",
                  scale, worst_a, worst_c, worst_out, bias_a, lit);
    assert_true(lit > W * H / 4); /* the field really lights the frame */
    /* The tolerances, from light.h's fixed point (not from what passes):
     * A: the kernel's alpha is Q15 (slopes Q12, 1/sqrt(1 + s^2) from a table in 1/64 of
     *   s^2, the glint, sky and x / (1 + x) from tables over Q12 or 1/256 arguments, all
     *   linearly interpolated, three Q15 products truncated): tens of Q15 units off at
     *   most, under one 8-bit level (128 units). Both sides then round to 8 bits, and two
     *   values less than a level apart round at most 1 apart: 1 level.
     * C: the premultiplied colour carries the same sub-level error, and C is it divided
     *   by A; where A >= 16/255 that division multiplies an error of 1/8 level or less by
     *   at most 255/16 / 8 < 2, plus the rounding: 2 levels.
     * out: the composite's rounding (1) plus the refracted picture t, sampled at an offset
     *   truncated to 1/256 pixel: channel 0 is noise (up to 255 levels a pixel), so
     *   1/256 pixel moves it by up to 1 level: 2 levels. */
    assert_true(worst_a <= 1);
    /* The bound of 1 cannot tell rounding from truncating, which shifts every A down by
     * half a level. The mean can: the kernel rounds A to nearest from a Q15 value whose
     * error is a small fraction of a level, so over hundreds of lit pixels the mean of
     * (A - 255 * alpha) is that fraction's mean, well inside a quarter of a level; a
     * truncation (-0.5) or any constant offset of half a level or more is outside. */
    assert_true(fabs(bias_a) < 0.25);
    assert_true(worst_c <= 2);
    assert_true(worst_out <= 2);
    rp_light_free(&l);
}

/* check_oracle_level on every code path: each is held to the oracle itself. */
static void check_oracle(const rp_light_params *p, int32_t scale_q16, double amp)
{
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        assert_int_equal(rp_simd_set(level), level);
        check_oracle_level(p, scale_q16, amp);
    }
    rp_simd_set(-1);
}

static void test_oracle(void **state)
{
    (void)state;
    rp_light_params p;
    params_all_on(&p);
    check_oracle(&p, 65536, 40);
    check_oracle(&p, 3 * 65536, 15);
    check_oracle(&p, 144179, 20); /* 2.2 pixels per cell */
    check_oracle(&p, 40000, 60);  /* output smaller than the grid */
    layer_defaults(&p);
    check_oracle(&p, 2 * 65536, 15);
    p.refraction_q8 = 0;
    p.elevation_mdeg = 5000;
    p.shininess = 1024;
    p.specular_q8 = 64 * 256;
    check_oracle(&p, 65536, 30);
}

/* A 3x3 ramp lit by hand (layer model, shade only). Heights 49152 * x Q8 rise 192 height
 * units a pixel; at height_scale 256 and one pixel a cell that is slope s = (3/4, 0) everywhere
 * (the edge columns' one-sided differences give the same), so n = (-3/4, 0, 1) / (5/4) = (-0.6, 0,
 * 0.8). Light at elevation 45 degrees, c = cos 45 = sin 45 = 0.70710678:
 *  - from the right (azimuth 90): L = (c, 0, c), n.L = (-0.6 + 0.8) c = 0.2 c, so
 *    b = shade * (0.2 c - c) = -0.8 c * 5.3515625 (shade 1370/256) = -3.02730: black with
 *    alpha 3.02730 / 4.02730 = 0.751695, A = 255 * that = 191.68 -> 192 (truncated: 191);
 *    over a bed of 200 out = (200 * 63 + 0 * 192) / 255 = 49.41 -> 49;
 *  - from the left (azimuth -90): L = (-c, 0, c), n.L = (0.6 + 0.8) c = 1.4 c, b = 0.4 c *
 *    5.36328125 (shade 1373/256) = 1.51696: white with alpha 1.51696 / 2.51696 = 0.602697,
 *    A = 153.69 -> 154 (truncated: 153), C = 255; out = (200 * 101 + 255 * 154) / 255 =
 *    233.22 -> 233.
 * No curvature (a plane), no sky, glint or refraction. Every path, every pixel. */
static void test_hand_ramp(void **state)
{
    (void)state;
    static const struct {
        int32_t az, shade;
        uint8_t a, c, out;
    } want[] = {{90000, 1370, 192, 0, 49}, {-90000, 1373, 154, 255, 233}};
    int32_t f[3][3];
    uint8_t b[3][3][3], rgb[3][3][3], rgba[3][3][4];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            f[y][x] = 49152 * x;
            memset(b[y][x], 200, 3);
        }
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        rp_light_params p;
        layer_defaults(&p);
        p.height_scale = 256;
        p.azimuth_mdeg = want[i].az;
        p.elevation_mdeg = 45000;
        p.shade_q8 = want[i].shade;
        p.caustics_q8 = 0;
        p.specular_q8 = 0;
        p.sky_q8 = 0;
        p.refraction_q8 = 0;
        memset(p.light_rgb, 255, 3);
        rp_light *l = make(&p);
        rp_light_geom g = {3, 3, 65536, 65536, 0, NULL};
        for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
            assert_int_equal(rp_simd_set(level), level);
            rp_light_rows_rgb(l, &g, &f[0][0], &b[0][0][0], &rgb[0][0][0], 0, 3);
            rp_light_rows_rgba(l, &g, &f[0][0], &rgba[0][0][0], 0, 3);
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++)
                    for (int k = 0; k < 3; k++)
                        if (rgba[y][x][3] != want[i].a || rgba[y][x][k] != want[i].c ||
                            rgb[y][x][k] != want[i].out)
                            fail_msg("azimuth %d, level %d, (%d, %d): A %d C %d out %d, want "
                                     "%d %d %d",
                                     want[i].az / 1000, level, x, y, rgba[y][x][3], rgba[y][x][k],
                                     rgb[y][x][k], want[i].a, want[i].c, want[i].out);
        }
        rp_simd_set(-1);
        rp_light_free(&l);
    }
}

/* FFmpeg's overlay on packed RGB (libavfilter/vf_overlay.c, blend_image_packed_rgb):
 * d = FAST_DIV255(d * (255 - alpha) + s * alpha), FAST_DIV255(x) = ((x + 128) * 257) >> 16. */
/* The layer model without refraction over the test field: its RGBA layer (premultiplied
 * when asked) and its composite over bg. */
static void overlay_pair(int premultiplied, uint8_t rgba[H][W][4], uint8_t rgb[H][W][3])
{
    rp_light_params p;
    params_all_on(&p);
    p.refraction_q8 = 0;
    fill(30, 9);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 2 * 65536, 2 * 65536, 0, NULL};
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    if (premultiplied)
        rp_light_premultiply(&rgba[0][0][0], (size_t)W * H);
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
    rp_light_free(&l);
}

static void test_overlay_equation(void **state)
{
    (void)state;
    static uint8_t rgba[H][W][4], rgb[H][W][3];
    overlay_pair(0, rgba, rgb);
    int worst = 0, varies = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int a = rgba[y][x][3];
            varies |= a != rgba[0][0][3];
            for (int k = 0; k < 3; k++) {
                int v = bg[y][x][k] * (255 - a) + rgba[y][x][k] * a;
                int d = abs((((v + 128) * 257) >> 16) - rgb[y][x][k]);
                worst = d > worst ? d : worst;
            }
        }
    assert_true(varies);
    assert_true(worst <= 1);
}

/* rp_light_premultiply against round-half-up of the real quotient, (2 C A + 255) / 510 in
 * integers, for every (C, A) in each of the three colour places; alpha kept. */
static void test_premultiply_exhaustive(void **state)
{
    (void)state;
    static uint8_t px[256 * 256][4];
    for (int a = 0; a < 256; a++)
        for (int c = 0; c < 256; c++) {
            uint8_t *p = px[a * 256 + c];
            p[0] = (uint8_t)c;
            p[1] = (uint8_t)(255 - c);
            p[2] = (uint8_t)(c ^ 0x5a);
            p[3] = (uint8_t)a;
        }
    rp_light_premultiply(&px[0][0], 256 * 256);
    for (int a = 0; a < 256; a++)
        for (int c = 0; c < 256; c++) {
            const uint8_t *p = px[a * 256 + c];
            const int straight[3] = {c, 255 - c, c ^ 0x5a};
            for (int k = 0; k < 3; k++) {
                int want = (2 * straight[k] * a + 255) / 510;
                assert_int_equal(p[k], want);
                /* C A / 255 is never a half: the rounding direction cannot matter */
                assert_int_not_equal((2 * straight[k] * a) % 510, 255);
            }
            assert_int_equal(p[3], a);
        }
}

/* FFmpeg's overlay with alpha=premultiplied on packed RGB (vf_overlay.c):
 * d = FAST_DIV255(d * (255 - alpha)) + s, clipped to 255; with the premultiplied layer it
 * gives the composite within 1 level, like the straight overlay. */
static void test_overlay_premultiplied(void **state)
{
    (void)state;
    static uint8_t rgba[H][W][4], rgb[H][W][3];
    overlay_pair(1, rgba, rgb);
    int worst = 0, partial = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int a = rgba[y][x][3];
            partial += a > 0 && a < 255;
            for (int k = 0; k < 3; k++) {
                int v = ((bg[y][x][k] * (255 - a) + 128) * 257 >> 16) + rgba[y][x][k];
                int d = abs((v > 255 ? 255 : v) - rgb[y][x][k]);
                worst = d > worst ? d : worst;
            }
        }
    assert_true(partial > W * H / 4);
    assert_true(worst <= 1);
}

/* Still water: no light, no displacement; with sky on, a uniform Fresnel tint. */
static void test_calm(void **state)
{
    (void)state;
    rp_light_params p;
    params_all_on(&p);
    p.sky_q8 = 0;
    fill(0, 5);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 3 * 65536, 3 * 65536, 0, NULL};
    static uint8_t rgba[H][W][4], rgb[H][W][3];
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
    static const uint8_t zero[H][W][4];
    assert_memory_equal(rgba, zero, sizeof rgba);
    assert_memory_equal(rgb, bg, sizeof rgb);
    rp_light_free(&l);
    /* sky 10 x physical: F0 = 0.02 -> alpha 0.2 = 51/255 of the sky colour */
    p.sky_q8 = 10 * 256;
    l = make(&p);
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            assert_int_equal(rgba[y][x][3], 51);
            assert_memory_equal(rgba[y][x], p.sky_rgb, 3);
        }
    rp_light_free(&l);
}

/* A plane rising 6 height units per grid cell, rendered at 1, 2 and 3 pixels per cell:
 * every interior pixel has slope 6/hs in x, so the layer is the same at every size, and
 * the displacement in pixels grows with the scale. The background ramps R = 4x (in
 * output pixels), so bilinear sampling shows the displacement: R = 4 * (x - d). */
static void test_size_independent(void **state)
{
    (void)state;
    rp_light_params p;
    layer_defaults(&p);
    p.height_scale = 64;
    p.refraction_q8 = 2 * 256; /* 2 cells per unit slope: slope 6/64 -> 0.1875 cells */
    rp_light *l = make(&p);
    uint8_t ref[4] = {0};
    for (int s = 1; s <= 3; s++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                field[y][x] = 6 * 256 * x / s; /* 6/s units per pixel: exact for s | 6 */
                bg[y][x][0] = (uint8_t)(4 * x);
                bg[y][x][1] = bg[y][x][2] = 100;
            }
        rp_light_geom g = {W, H, s * 65536, s * 65536, 0, NULL};
        static uint8_t rgba[H][W][4], rgb[H][W][3];
        rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
        rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
        if (s == 1)
            memcpy(ref, rgba[20][30], 4);
        assert_true(ref[3] > 0);
        for (int y = 10; y < 30; y++)
            for (int x = 10; x < 50; x++)
                assert_memory_equal(rgba[y][x], ref, 4);
        /* displacement 0.1875 * s pixels towards -x: refracted R = 4 * (30 - 0.1875 s) */
        double t = 4 * (30 - 0.1875 * s);
        int a = ref[3];
        int want = (int)((lrint(t) * (255 - a) + ref[0] * a + 127) / 255);
        assert_true(abs(rgb[20][30][0] - want) <= 1);
    }
    rp_light_free(&l);
}

static void test_row_split(void **state)
{
    (void)state;
    rp_light_params p;
    params_all_on(&p);
    fill(25, 8);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 150000, 150000, 0, NULL};
    static uint8_t a[H][W][3], b[H][W][3], ca[H][W][4], cb[H][W][4];
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &a[0][0][0], 0, H);
    rp_light_rows_rgba(l, &g, &field[0][0], &ca[0][0][0], 0, H);
    unsigned seed = 4;
    for (int trial = 0; trial < 10; trial++) {
        memset(b, 0xa5, sizeof b);
        memset(cb, 0x5a, sizeof cb);
        for (int y = 0; y < H;) {
            int y1 = y + (int)(lcg(&seed) % 9);
            y1 = y1 > H ? H : y1;
            rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &b[0][0][0], y, y1);
            rp_light_rows_rgba(l, &g, &field[0][0], &cb[0][0][0], y, y1);
            y = y1;
        }
        assert_memory_equal(a, b, sizeof a);
        assert_memory_equal(ca, cb, sizeof ca);
    }
    rp_light_free(&l);
}

/* A steep bump at full glint strength: the highlight never reaches opaque white. */
static void test_no_white_disc(void **state)
{
    (void)state;
    rp_light_params p;
    layer_defaults(&p);
    fill(200, 2);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 65536, 65536, 0, NULL};
    static uint8_t rgba[H][W][4];
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    int top = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            top = rgba[y][x][3] > top ? rgba[y][x][3] : top;
    assert_true(top > 64);
    assert_true(top < 255);
    rp_light_free(&l);
}

static void expect_bad(rp_light_params *p, const char *want)
{
    rp_error err = {0};
    rp_light *l = (rp_light *)p;
    assert_int_equal(rp_light_new(&l, p, &err), RP_ERR_INVALID);
    assert_null(l);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
    layer_defaults(p);
}

static void test_ranges(void **state)
{
    (void)state;
    rp_light_params p;
    rp_error err;
    layer_defaults(&p);
    assert_int_equal(rp_light_check(&p, &err), RP_OK);
    p.elevation_mdeg = 95000;
    expect_bad(&p, "light elevation 95 is out of range (0 to 90 degrees)");
    p.elevation_mdeg = -500;
    expect_bad(&p, "light elevation -0.5 is out of range (0 to 90 degrees)");
    p.shininess = 0;
    expect_bad(&p, "specular shininess 0 is out of range (1 to 1024)");
    p.specular_q8 = 65 * 256;
    expect_bad(&p, "specular strength 65 is out of range (0 to 64)");
    p.caustics_q8 = -128;
    expect_bad(&p, "caustics strength -0.5 is out of range (0 to 64)");
    p.sky_q8 = 17 * 256;
    expect_bad(&p, "sky strength 17 is out of range (0 to 16)");
    p.height_scale = 0;
    expect_bad(&p, "height scale 0 is out of range (1 to 32767)");
    p.refraction_q8 = 65 * 256;
    expect_bad(&p, "refraction 65 is out of range (0 to 64");
    p.azimuth_mdeg = 400000;
    expect_bad(&p, "light azimuth 400 is out of range (-360 to 360 degrees)");
    /* the extremes work */
    p.elevation_mdeg = 90000;
    p.shininess = 1024;
    p.specular_q8 = 64 * 256;
    p.azimuth_mdeg = -360000;
    assert_int_equal(rp_light_check(&p, &err), RP_OK);
    rp_light_free(NULL);
}

/* ---- every path against the reference, byte for byte ---- */

enum kind {
    K_RIPPLES, /* smooth rings, amplitude amp height units */
    K_NOISE,   /* uniform noise +-amp: curvature and slopes at their clamps */
    K_ISLANDS, /* still water with a few ripple patches (the still-water path and its edges) */
    K_PLANE,   /* a plane falling to the bottom right: texels displaced past the last pixel */
    K_STEPS,   /* flat terraces with single-pixel steps of +-amp */
    K_FLAT,    /* all zero */
    K_COUNT
};

static void gen(int32_t *f, uint8_t *b, int w, int h, enum kind k, double amp, unsigned *seed)
{
    double cx = w * 0.4, cy = h * 0.55;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double r = hypot(x - cx, y - cy), v = 0;
            switch (k) {
            case K_RIPPLES: v = amp * cos(r * 0.45) * exp(-r * 0.02); break;
            case K_NOISE: v = amp * ((int)(lcg(seed) % 2001) - 1000) / 1000.0; break;
            case K_ISLANDS:
                v = (x / 9 + y / 5) % 4 == 0 ? amp * sin(x * 0.9) * cos(y * 0.7) : 0;
                break;
            case K_PLANE: v = -amp * (x + y) / 8.0; break;
            case K_STEPS: v = (x / 7 + y / 4) % 3 == 0 ? amp : (x / 11) % 2 ? -amp : 0; break;
            default: break;
            }
            f[(size_t)y * w + x] = (int32_t)lrint(256 * v);
            uint8_t *p = b + ((size_t)y * w + x) * 3;
            p[0] = (uint8_t)lcg(seed);
            p[1] = (uint8_t)(x * 7 + y);
            p[2] = (uint8_t)(255 - y * 3);
        }
}

/* Render rows 0..h-1 of rgb and rgba at the current level, in one call or split into
 * random runs of rows. */
static void render_split(const rp_light *l, const rp_light_geom *g, const int32_t *f,
                         const uint8_t *b, uint8_t *rgb, uint8_t *rgba, int split, unsigned *seed)
{
    for (int y = 0; y < g->height;) {
        int y1 = split ? y + 1 + (int)(lcg(seed) % 7) : g->height;
        y1 = y1 > g->height ? g->height : y1;
        rp_light_rows_rgb(l, g, f, b, rgb, y, y1);
        rp_light_rows_rgba(l, g, f, rgba, y, y1);
        y = y1;
    }
}

/* Render (w, h, scale) with every path and every row split style, with the sky colour and
 * with a sky image of that one colour (the plain loop reflecting it); compare with the
 * plain C path rendering it in one call with the sky colour. (That path's correctness is
 * the oracles' business: test_oracle, test_water_oracle, the hand cases.) */
static void check_paths(const rp_light_params *p, int w, int h, int32_t sxq, int32_t syq,
                        const int32_t *f, const uint8_t *b)
{
    rp_error err;
    rp_light *l = NULL;
    assert_int_equal(rp_light_new(&l, p, &err), RP_OK);
    rp_light_geom g = {w, h, sxq, syq, 0, NULL};
    size_t n = (size_t)w * h;
    /* half the renders state the field's peak, as the engine does: the kernels then skip
     * their check of the heights (unless the peak is beyond them) */
    int64_t peak = 1;
    for (size_t i = 0; i < n; i++)
        peak = llabs(f[i]) > peak ? llabs(f[i]) : peak;
    uint8_t *want3 = malloc(n * 3), *want4 = malloc(n * 4), *got3 = malloc(n * 3),
            *got4 = malloc(n * 4);
    assert_non_null(want3);
    assert_non_null(got4);
    unsigned seed = (unsigned)(w * 31 + h);
    assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
    render_split(l, &g, f, b, want3, want4, 0, &seed);
    uint8_t *sky = malloc(n * 3);
    assert_non_null(sky);
    for (size_t i = 0; i < n; i++)
        memcpy(sky + 3 * i, p->sky_rgb, 3);
    for (int pass = 0; pass < 2 * (rp_simd_supported() + 1); pass++) {
        int level = pass % (rp_simd_supported() + 1), image = pass > rp_simd_supported();
        assert_int_equal(rp_simd_set(level), level);
        if (image)
            rp_light_set_sky(l, sky, w, h);
        for (int split = 0; split < 2; split++) {
            if (level == RP_SIMD_C && !image && !split)
                continue; /* the reference's own call */
            g.peak_q8 = split ? peak : 0;
            memset(got3, 0xa5, n * 3);
            memset(got4, 0x5a, n * 4);
            render_split(l, &g, f, b, got3, got4, split, &seed);
            if (memcmp(got3, want3, n * 3) || memcmp(got4, want4, n * 4)) {
                size_t i = 0;
                while (i < n && !memcmp(got3 + 3 * i, want3 + 3 * i, 3) &&
                       !memcmp(got4 + 4 * i, want4 + 4 * i, 4))
                    i++;
                fail_msg("level %d%s, %dx%d scale %d/%d: pixel (%d, %d) differs: rgb %d %d %d "
                         "want %d %d %d, rgba %d %d %d %d want %d %d %d %d",
                         level, image ? " (sky image)" : "", w, h, sxq, syq, (int)(i % w),
                         (int)(i / w), got3[3 * i], got3[3 * i + 1], got3[3 * i + 2], want3[3 * i],
                         want3[3 * i + 1], want3[3 * i + 2], got4[4 * i], got4[4 * i + 1],
                         got4[4 * i + 2], got4[4 * i + 3], want4[4 * i], want4[4 * i + 1],
                         want4[4 * i + 2], want4[4 * i + 3]);
            }
        }
    }
    rp_simd_set(-1);
    free(sky);
    free(want3);
    free(want4);
    free(got3);
    free(got4);
    rp_light_free(&l);
}

static void vary_params(rp_light_params *p, int which)
{
    layer_defaults(p);
    switch (which) {
    case 0: break;
    case 1: params_all_on(p); break;
    case 2: /* sky on: still water is tinted, no still-water shortcut */
        p->sky_q8 = 10 * 256;
        p->refraction_q8 = 0;
        break;
    case 3: /* the strongest of everything */
        p->refraction_q8 = 64 * 256;
        p->caustics_q8 = 64 * 256;
        p->specular_q8 = 64 * 256;
        p->shade_q8 = 16 * 256;
        p->sky_q8 = 16 * 256;
        p->shininess = 1024;
        p->height_scale = 1;
        p->azimuth_mdeg = -359999;
        p->elevation_mdeg = 1000;
        break;
    case 4: /* gentle: large height scale, little of anything */
        p->height_scale = 32767;
        p->caustics_q8 = 1025;
        p->shade_q8 = 1;
        p->specular_q8 = 1;
        p->shininess = 1;
        p->elevation_mdeg = 90000;
        p->refraction_q8 = 1;
        break;
    case 5: /* caustics just at and above the kernel's curvature clamp switch */
        p->caustics_q8 = 1024;
        p->height_scale = 3;
        p->azimuth_mdeg = 90000;
        p->elevation_mdeg = 0;
        p->sky_q8 = 1;
        break;
    default: /* random */
    {
        unsigned s = (unsigned)which * 7919u;
        p->azimuth_mdeg = (int32_t)(lcg(&s) % 720001) - 360000;
        p->elevation_mdeg = (int32_t)(lcg(&s) % 90001);
        p->height_scale = 1 + (int32_t)(lcg(&s) % 600);
        p->refraction_q8 = (int32_t)(lcg(&s) % (64 * 256 + 1));
        p->shade_q8 = (int32_t)(lcg(&s) % (16 * 256 + 1));
        p->caustics_q8 = (int32_t)(lcg(&s) % (64 * 256 + 1));
        p->specular_q8 = (int32_t)(lcg(&s) % (64 * 256 + 1));
        p->shininess = 1 + (int32_t)(lcg(&s) % 1024);
        p->sky_q8 = lcg(&s) % 2 ? (int32_t)(lcg(&s) % (16 * 256 + 1)) : 0;
        for (int k = 0; k < 3; k++) {
            p->light_rgb[k] = (uint8_t)lcg(&s);
            p->sky_rgb[k] = (uint8_t)lcg(&s);
        }
    }
    }
}

static void test_paths_exact(void **state)
{
    (void)state;
    static const struct {
        int w, h;
        int32_t sx, sy;
    } geo[] = {
        {61, 43, 65536, 65536},     {97, 37, 3 * 65536, 3 * 65536}, {83, 29, 144179, 144179},
        {8, 6, 65536, 65536},       {7, 5, 65536, 65536},           {16, 4, 3 * 65536, 65536},
        {70, 40, 40000, 40000},     {64, 36, 1024, 1024},           {90, 31, 4 * 65536, 65536},
        {41, 41, 65536, 5 * 65536}, {17, 9, 2 * 65536, 2 * 65536},  {9, 3, 65536, 65536},
        {1, 1, 65536, 65536},       {1, 13, 65536, 65536},          {13, 1, 65536, 65536},
        {24, 2, 98304, 98304},      {40, 12, 256 << 16, 256 << 16}, {33, 20, 49151, 49152},
    };
    int cases = 0;
    unsigned seed = 99;
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        int w = geo[gi].w, h = geo[gi].h;
        int32_t *f = malloc((size_t)w * h * sizeof *f);
        uint8_t *b = malloc((size_t)w * h * 3);
        assert_non_null(f);
        assert_non_null(b);
        for (int k = 0; k < K_COUNT; k++) {
            static const double amps[] = {0.02, 0.7, 6, 60, 2000, 65000};
            for (size_t a = 0; a < sizeof amps / sizeof amps[0]; a++) {
                if (k == K_FLAT && a)
                    break;
                gen(f, b, w, h, (enum kind)k, amps[a], &seed);
                int which = (int)((gi * 7 + (size_t)k * 3 + a) % 12);
                rp_light_params p;
                vary_params(&p, which);
                check_paths(&p, w, h, geo[gi].sx, geo[gi].sy, f, b);
                cases++;
            }
        }
        free(f);
        free(b);
    }
    print_message("%d cases, levels 0..%d\n", cases, rp_simd_supported());
}

/* Heights at and beyond the kernels' int32 range (+-2^24 Q8) and the int32 limits. */
static void test_paths_extreme_heights(void **state)
{
    (void)state;
    const int w = 45, h = 21;
    static int32_t f[21][45];
    static uint8_t b[21][45][3];
    static const int32_t vals[] = {(1 << 24),     -(1 << 24), (1 << 24) + 1, INT32_MAX / 2,
                                   INT32_MIN / 2, 0,          255,           -256};
    unsigned seed = 5;
    for (int trial = 0; trial < 24; trial++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                unsigned r = lcg(&seed);
                int32_t v = vals[r % (trial < 8 ? 2 : 8)];
                f[y][x] = r % 3 ? v : (int32_t)(r % 4096) - 2048;
                b[y][x][0] = (uint8_t)r;
                b[y][x][1] = (uint8_t)(r >> 8);
                b[y][x][2] = (uint8_t)x;
            }
        rp_light_params p;
        vary_params(&p, trial % 7);
        check_paths(&p, w, h, 65536 + trial * 9000, 65536 + trial * 5000, &f[0][0], &b[0][0][0]);
    }
}

/* A look at 1920x1080 over real ripples: upscaled ring waves. */
static void test_paths_full_frame(void **state)
{
    (void)state;
    const int w = 640, h = 360;
    int32_t *f = malloc((size_t)w * h * sizeof *f);
    uint8_t *b = malloc((size_t)w * h * 3);
    unsigned seed = 17;
    gen(f, b, w, h, K_RIPPLES, 300, &seed);
    rp_light_params p;
    layer_defaults(&p);
    check_paths(&p, w, h, 3 * 65536, 3 * 65536, f, b);
    gen(f, b, w, h, K_ISLANDS, 100, &seed);
    check_paths(&p, w, h, 3 * 65536, 3 * 65536, f, b);
    free(f);
    free(b);
}

/* rp_light_rows_surface on ramps worked out by hand: heights k*x/256 (Q8 k*x) have slope
 * k/65536 per cell at height_scale 256 and one pixel a cell, Q12 k/16; refraction r moves
 * the sample by -r * slope * scale pixels (Q8: -r*slope*256, floored), clamped at the
 * frame's edges; with refraction off nothing moves. Rows land at (y - y0) * width. */
static void test_surface(void **state)
{
    (void)state;
    rp_light_params p;
    layer_defaults(&p);
    p.height_scale = 256;
    p.refraction_q8 = 3 * 256;
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 65536, 65536, 0, NULL};
    static rp_light_surface s[3 * W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            field[y][x] = 4096 * x - 2048 * y;
    rp_light_rows_surface(l, &g, &field[0][0], s, 10, 13);
    for (int y = 10; y < 13; y++)
        for (int x = 1; x < W - 1; x++) {
            const rp_light_surface *o = &s[(y - 10) * W + x];
            assert_int_equal(o->sx, 256); /* 4096/16 */
            assert_int_equal(o->sy, -128);
            /* -3 * 1/16 px = -48/256; +3 * 1/32 px = +24/256 */
            assert_int_equal(o->dx, -48);
            assert_int_equal(o->dy, 24);
        }
    /* At the left edge the sample is clamped to x = 0. */
    rp_light_rows_surface(l, &g, &field[0][0], s, 0, 1);
    assert_int_equal(s[0].dx, 0);
    assert_int_equal(s[0].sx, 256); /* one-sided difference, doubled */
    /* Twice the pixels per cell: the same cell slope per pixel is twice the slope per cell,
     * and a cell spans two pixels of displacement. */
    g.scale_x_q16 = g.scale_y_q16 = 2 * 65536;
    rp_light_rows_surface(l, &g, &field[0][0], s, 20, 21);
    assert_int_equal(s[30].sx, 512);
    assert_int_equal(s[30].dx, -3 * 512 * 2 / 16); /* -r * slope * scale px, Q8 */
    rp_light_free(&l);
    /* Refraction off: slopes stay, nothing moves; flat water has no slope. */
    p.refraction_q8 = 0;
    l = make(&p);
    g.scale_x_q16 = g.scale_y_q16 = 65536;
    rp_light_rows_surface(l, &g, &field[0][0], s, 5, 6);
    assert_int_equal(s[7].sx, 256);
    assert_int_equal(s[7].dx, 0);
    assert_int_equal(s[7].dy, 0);
    memset(field, 0, sizeof field);
    rp_light_rows_surface(l, &g, &field[0][0], s, 5, 6);
    for (int x = 0; x < W; x++)
        assert_true(!s[x].sx && !s[x].sy && !s[x].dx && !s[x].dy);
    rp_light_free(&l);
}

/* Still water reflects a sky image unshifted: the layer's colour is the image's pixel,
 * its alpha the Fresnel tint of flat water (sky 10: 51/255). An image of another size
 * than the frame is not used, and NULL brings the colour back. */
static void test_sky_still(void **state)
{
    (void)state;
    rp_light_params p;
    params_all_on(&p);
    p.sky_q8 = 10 * 256;
    fill(0, 5);
    static uint8_t sky[H][W][3], rgba[H][W][4], want[H][W][4];
    unsigned seed = 12;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int k = 0; k < 3; k++)
                sky[y][x][k] = (uint8_t)lcg(&seed);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 3 * 65536, 3 * 65536, 0, NULL};
    rp_light_rows_rgba(l, &g, &field[0][0], &want[0][0][0], 0, H);
    rp_light_set_sky(l, &sky[0][0][0], W, H);
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            assert_int_equal(rgba[y][x][3], 51);
            assert_memory_equal(rgba[y][x], sky[y][x], 3);
        }
    rp_light_set_sky(l, &sky[0][0][0], W - 1, H);
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    assert_memory_equal(rgba, want, sizeof rgba);
    rp_light_set_sky(l, NULL, 0, 0);
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    assert_memory_equal(rgba, want, sizeof rgba);
    rp_light_free(&l);
}

/* The reflection moves the sky sample by +RP_LIGHT_SKY_REFLECT cells per unit slope, the
 * other way from the refraction. A plane rising (or falling) 6/s height units a pixel at s
 * pixels a cell has slope +-6/64 per cell at height scale 64; 8 cells per unit slope move
 * the sample +-0.75 s pixels (192 s / 256, exactly). The sky ramps R = 4x, so the reflected
 * red is 4x +- 3s; the layer there equals a light whose sky colour is that sample. */
static void test_sky_reflect(void **state)
{
    (void)state;
    assert_int_equal(RP_LIGHT_SKY_REFLECT, 8);
    rp_light_params p;
    params_all_on(&p);
    p.sky_q8 = 16 * 256;
    p.height_scale = 64;
    static uint8_t sky[H][W][3], rgba[H][W][4], one[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            sky[y][x][0] = (uint8_t)(4 * x);
            sky[y][x][1] = (uint8_t)(3 * y);
            sky[y][x][2] = 90;
        }
    for (int sign = -1; sign <= 1; sign += 2)
        for (int s = 1; s <= 3; s++) {
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    field[y][x] = sign * 6 * 256 * x / s;
            rp_light_geom g = {W, H, s * 65536, s * 65536, 0, NULL};
            rp_light *l = make(&p);
            rp_light_set_sky(l, &sky[0][0][0], W, H);
            rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
            rp_light_free(&l);
            for (int x = 10; x < 50; x += 3) {
                rp_light_params q = p;
                q.sky_rgb[0] = (uint8_t)(4 * x + sign * 3 * s);
                q.sky_rgb[1] = 3 * 20;
                q.sky_rgb[2] = 90;
                rp_light *c = make(&q);
                rp_light_rows_rgba(c, &g, &field[0][0], &one[0][0][0], 20, 21);
                rp_light_free(&c);
                assert_true(one[20][x][3] > 0);
                if (memcmp(rgba[20][x], one[20][x], 4))
                    fail_msg("sign %d scale %d x %d: %d %d %d %d want %d %d %d %d", sign, s, x,
                             rgba[20][x][0], rgba[20][x][1], rgba[20][x][2], rgba[20][x][3],
                             one[20][x][0], one[20][x][1], one[20][x][2], one[20][x][3]);
            }
        }
}

/* A sky image that varies (a ramp, noise, hard edges): every vector level and row split
 * reflects it exactly as the plain loop does, over every kind of field. */
static void test_sky_paths(void **state)
{
    (void)state;
    static const struct {
        int w, h;
        int32_t sx, sy;
    } geo[] = {{61, 43, 65536, 65536},   {97, 37, 3 * 65536, 3 * 65536},
               {83, 29, 144179, 144179}, {40, 12, 256 << 16, 256 << 16},
               {33, 20, 49151, 49152},   {17, 9, 2 * 65536, 65536}};
    unsigned seed = 4242;
    int cases = 0;
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        int w = geo[gi].w, h = geo[gi].h;
        size_t n = (size_t)w * h;
        int32_t *f = malloc(n * sizeof *f);
        uint8_t *b = malloc(n * 3), *sky = malloc(n * 3);
        uint8_t *want3 = malloc(n * 3), *want4 = malloc(n * 4), *got3 = malloc(n * 3),
                *got4 = malloc(n * 4);
        assert_non_null(f);
        assert_non_null(got4);
        for (size_t i = 0; i < n; i++) {
            int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
            sky[3 * i] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            sky[3 * i + 1] = (uint8_t)lcg(&seed);
            sky[3 * i + 2] = (x / 5 + y / 3) % 2 ? 250 : 5;
        }
        rp_light_geom g = {w, h, geo[gi].sx, geo[gi].sy, 0, NULL};
        for (int k = 0; k < K_COUNT; k++) {
            gen(f, b, w, h, (enum kind)k, k == K_FLAT ? 0 : 60, &seed);
            rp_light_params p;
            vary_params(&p, (int)(gi * 5 + (size_t)k) % 12);
            p.sky_q8 = 1 + (int32_t)(lcg(&seed) % (16 * 256));
            rp_light *l = make(&p);
            rp_light_set_sky(l, sky, w, h);
            assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
            render_split(l, &g, f, b, want3, want4, 0, &seed);
            for (int level = 1; level <= rp_simd_supported(); level++) {
                assert_int_equal(rp_simd_set(level), level);
                for (int split = 0; split < 2; split++) {
                    memset(got3, 0xa5, n * 3);
                    memset(got4, 0x5a, n * 4);
                    render_split(l, &g, f, b, got3, got4, split, &seed);
                    if (memcmp(got3, want3, n * 3) || memcmp(got4, want4, n * 4))
                        fail_msg("sky image, level %d split %d, %dx%d kind %d: differs from the "
                                 "plain loop",
                                 level, split, w, h, k);
                }
            }
            rp_simd_set(-1);
            rp_light_free(&l);
            cases++;
        }
        free(f);
        free(b);
        free(sky);
        free(want3);
        free(want4);
        free(got3);
        free(got4);
    }
    print_message("%d cases, levels 1..%d against the plain loop\n", cases, rp_simd_supported());
}

/* ---- the water model: light.h "WATER" in doubles ---- */

static int mirror_i(int i, int n)
{
    i = i < 0 ? -i : i;
    i = i > n - 1 ? 2 * (n - 1) - i : i;
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

/* The heights continued past each edge as their point reflection about it: h(e - d) =
 * 2 h(e) - h(e + d) (light_simd.h struct rp_light_wrows). */
static double hm(int x, int y)
{
    if (y < 0 || y > H - 1) {
        int e = y < 0 ? 0 : H - 1;
        return 2 * hm(x, e) - hm(x, mirror_i(y, H));
    }
    if (x < 0 || x > W - 1) {
        int e = x < 0 ? 0 : W - 1;
        return 2 * hm(e, y) - hm(mirror_i(x, W), y);
    }
    return field[y][x] / 256.0;
}

/* The picture at (px, py), read past its edges as its mirror image (light.c reflect_q8). */
static double bg_mirrored(double px, double py, int k)
{
    px = fabs(px);
    px = px > W - 1 ? 2 * (W - 1) - px : px;
    py = fabs(py);
    py = py > H - 1 ? 2 * (H - 1) - py : py;
    return bg_at(px, py, k);
}

/* Unpolarised Fresnel reflectance of air to water for cos i, and cos t. */
static double fresnel(double ci, double *ct_out)
{
    const double eta = 0.75;
    double ct = sqrt(1 - eta * eta * (1 - ci * ci));
    double rs = (eta * ci - ct) / (eta * ci + ct), rp = (ci - eta * ct) / (ci + eta * ct);
    *ct_out = ct;
    return (rs * rs + rp * rp) / 2;
}

/* The water model's refraction table over every slope it holds, the steepest included
 * (r^2 up to 128, where the Q30 square roots' operands pass 2^63 unless scaled): the bed
 * offset per unit slope and cell of depth, a / (eta + a) in Q16 with a = (cos t - eta
 * cos i) n_z, within 2 units of doubles. */
static void test_water_tables(void **state)
{
    (void)state;
    rp_light_params p;
    rp_light_defaults(&p);
    rp_light *l = make(&p);
    int worst = 0;
    for (int i = 0; i < RP_LIGHT_RSQ_N + 2; i++) {
        double nz = 1 / sqrt(1 + i / 64.0), ct;
        fresnel(nz, &ct);
        double a = (ct - 0.75 * nz) * nz;
        int want = (int)lround(a / (0.75 + a) * 65536);
        int d = abs(l->wref[i] - want);
        if (d > worst)
            worst = d;
        if (d > 2)
            fail_msg("wref[%d] (r^2 = %g) = %d, doubles give %d", i, i / 64.0, l->wref[i], want);
    }
    assert_true(worst <= 2);
    rp_light_free(&l);
}

/* The composited output channel k at (x, y), and the layer's alpha (0..1). */
static double water_oracle(const rp_light_params *p, double scale, int x, int y, int k,
                           double *alpha)
{
    const double eta = 0.75, hs = p->height_scale, depth = p->depth_q8 / 256.0;
    double sx = (hm(x + 1, y) - hm(x - 1, y)) / 2 * scale / hs;
    double sy = (hm(x, y + 1) - hm(x, y - 1)) / 2 * scale / hs;
    double nz = 1 / sqrt(1 + sx * sx + sy * sy), ct, ct0;
    double f = fresnel(nz, &ct), f0 = fresnel(1, &ct0);
    /* the refraction's slope: the mean over the footprint, depth / RP_LIGHT_FOOTPRINT cells
     * (fp pixels) either side, the difference across it weighted 1 2 1 along it */
    int fp = (int)floor(depth / RP_LIGHT_FOOTPRINT * scale + 0.5);
    fp = fp < 1 ? 1 : fp;
    double dfx = 2 * (hm(x + fp, y) - hm(x - fp, y)) + hm(x + fp, y - fp) - hm(x - fp, y - fp) +
                 hm(x + fp, y + fp) - hm(x - fp, y + fp);
    double dfy = 2 * (hm(x, y + fp) - hm(x, y - fp)) + hm(x - fp, y + fp) - hm(x - fp, y - fp) +
                 hm(x + fp, y + fp) - hm(x + fp, y - fp);
    double fx = dfx / (8 * fp) * scale / hs, fy = dfy / (8 * fp) * scale / hs, ctf;
    double nzf = 1 / sqrt(1 + fx * fx + fy * fy);
    fresnel(nzf, &ctf);
    double A = ctf - eta * nzf, g = A * nzf / (eta + A * nzf);
    double qx = x + (p->refraction_q8 ? depth * g * fx * scale : 0);
    double qy = y + (p->refraction_q8 ? depth * g * fy * scale : 0);
    double t = bg_mirrored(qx, qy, k);

    int st = (int)floor(3 * scale + 0.5);
    st = st < 1 ? 1 : st;
    double c2 = scale * scale / (st * st * hs);
    /* the second differences smoothed across, 1 6 1 over 8 */
    double hxx = ((hm(x + st, y - st) + 6 * hm(x + st, y) + hm(x + st, y + st)) -
                  2 * (hm(x, y - st) + 6 * hm(x, y) + hm(x, y + st)) +
                  (hm(x - st, y - st) + 6 * hm(x - st, y) + hm(x - st, y + st))) /
                 8 * c2;
    double hyy = ((hm(x - st, y + st) + 6 * hm(x, y + st) + hm(x + st, y + st)) -
                  2 * (hm(x - st, y) + 6 * hm(x, y) + hm(x + st, y)) +
                  (hm(x - st, y - st) + 6 * hm(x, y - st) + hm(x + st, y - st))) /
                 8 * c2;
    double hxy =
        (hm(x + st, y + st) - hm(x + st, y - st) - hm(x - st, y + st) + hm(x - st, y - st)) / 4 *
        c2;
    double el = p->elevation_mdeg / 1000.0 * M_PI / 180;
    double cts = sqrt(1 - eta * eta * cos(el) * cos(el));
    double a = depth * (1 - eta * sin(el) / cts) / (cts * cts);
    double axx = fmin(fmax(a * hxx, -16), 16), ayy = fmin(fmax(a * hyy, -16), 16);
    double axy = fmin(fmax(a * hxy, -16), 16);
    double det = (1 + axx) * (1 + ayy) - axy * axy;
    double e = 1 / fmin(fmax(det, 1.0 / 16), 4);
    double gain = fmin(fmax(1 + p->caustics_q8 / 256.0 * (e - 1), 0), 16);
    /* where the gain brightens, the brightest channel is eased and the others follow its
     * ratio */
    double tm = fmax(fmax(bg_mirrored(qx, qy, 0), bg_mirrored(qx, qy, 1)), bg_mirrored(qx, qy, 2));
    double v = t * gain;
    if (gain > 1 && tm > 0) {
        double vm = tm * gain, room = 255 - tm;
        double lim = room < 48 ? room * room * room / 6912 : room / 3, add = vm - tm;
        vm = tm + (2 * add > lim ? lim - lim * lim / (4 * add) : add);
        v = t * vm / tm;
    }
    v *= pow(p->tint_rgb[k] / 255.0, depth / 64); /* Beer-Lambert: the tint is 64 cells' */
    double bed = fmin(v, 255);

    double a_s = p->sky_flat ? f : f - f0;
    a_s = fmin(fmax(a_s * p->sky_q8 / 256.0, 0), 1);
    double az = p->azimuth_mdeg / 1000.0 * M_PI / 180;
    double lx = cos(el) * sin(az), ly = -cos(el) * cos(az), lz = sin(el);
    double hl = sqrt(lx * lx + ly * ly + (lz + 1) * (lz + 1));
    double hx = lx / hl, hy = ly / hl, hz = (lz + 1) / hl;
    double mx = -hx / hz, my = -hy / hz;
    double sigma = p->sun_size_mdeg / 1000.0 / 4 * M_PI / 180 / (hz * hz);
    double u = ((sx - mx) * (sx - mx) + (sy - my) * (sy - my)) / (sigma * sigma);
    double u0 = (mx * mx + my * my) / (sigma * sigma);
    double a_p = u >= 16 ? 0 : exp(-u) - (u0 >= 16 ? 0 : exp(-u0));
    a_p = fmin(fmax(a_p * p->specular_q8 / 256.0, 0), 1);
    double al = 1 - (1 - a_s) * (1 - a_p);
    double c = al > 0 ? (a_p * p->light_rgb[k] + (1 - a_p) * a_s * p->sky_rgb[k]) / al : 0;
    *alpha = al;
    return bed * (1 - al) + c * al;
}

static void water_params(rp_light_params *p)
{
    rp_light_defaults(p);
    p->depth_q8 = 12 * 256;
    p->caustics_q8 = 256;
    p->sky_q8 = 16 * 256;
    p->specular_q8 = 3 * 256;
    p->sun_size_mdeg = 12000;
    p->azimuth_mdeg = 200000;
    p->elevation_mdeg = 55000;
    p->height_scale = 64;
    p->tint_rgb[0] = 200;
    p->tint_rgb[1] = 240;
    p->tint_rgb[2] = 255;
}

/* Every output byte within 1 level of the double transcription of light.h "WATER" (2 in
 * channel 0, the picture's noise, where the bed point's 1/256 pixel shows), with glints,
 * sky, caustics (focused and spread) and refraction all present. The same holds for the
 * fills of seeds 1 to 40 (checked once by hand; the Hessian in Q12, before, missed it by 2
 * at scale 0.61 with this one). */
static void check_water_oracle_level(const rp_light_params *p, int32_t scale_q16, double amp)
{
    fill(amp, 7);
    rp_light *l = make(p);
    rp_light_geom g = {W, H, scale_q16, scale_q16, 0, NULL};
    static uint8_t rgb[H][W][3];
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
    double scale = scale_q16 / 65536.0;
    double tint0 = pow(p->tint_rgb[0] / 255.0, p->depth_q8 / 256.0 / 64);
    int worst = 0, glints = 0, moved = 0;
    double bias = 0; /* the mean signed difference over every sample */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int k = 0; k < 3; k++) {
                double al;
                double want = water_oracle(p, scale, x, y, k, &al);
                bias += rgb[y][x][k] - want;
                int d = abs((int)lrint(want) - rgb[y][x][k]);
                /* channel 0 is noise (up to 100 levels a pixel): a bed point 1/256 pixel
                 * away moves it by up to a level, so it is held to 2, the rest to 1 */
                d = k == 0 && d <= 2 ? 0 : d;
                if (d > 1)
                    print_message("(%d, %d) %d: want %.3f got %d\n", x, y, k, want, rgb[y][x][k]);
                worst = d > worst ? d : worst;
                glints += k == 0 && al > 0.5;
                moved += k == 0 && abs(rgb[y][x][0] - (int)lrint(bg[y][x][0] * tint0)) > 1;
            }
    bias /= 3.0 * W * H;
    print_message("water, scale %.3f: max |d out| %d, mean d %+.3f; %d glint pixels, %d changed\n",
                  scale, worst, bias, glints, moved);
    assert_true(glints > 0);
    assert_true(moved > W * H / 2);
    /* 1 level: the kernel's sky and glint alphas are Q15 tables (by |s|^2 in 1/64, by u in
     * 1/256) interpolated, its gain Q12 and its bed point Q8 pixels; each is a fraction of a
     * level in the output before the final rounding, and values less than a level apart
     * round at most 1 apart. Channel 0 (noise) gets one level more for the 1/256 pixel of
     * the bed point, as above. A bound of 1 cannot tell rounding from truncating (half a
     * level down on average); the mean can: the kernel rounds to nearest and its errors
     * before that are a fraction of a level of either sign, so the mean signed difference
     * over the frame's samples stays well inside a quarter of a level. */
    assert_true(worst <= 1);
    assert_true(fabs(bias) < 0.25);
    rp_light_free(&l);
}

/* check_water_oracle_level on every code path. */
static void check_water_oracle(const rp_light_params *p, int32_t scale_q16, double amp)
{
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        assert_int_equal(rp_simd_set(level), level);
        check_water_oracle_level(p, scale_q16, amp);
    }
    rp_simd_set(-1);
}

static void test_water_oracle(void **state)
{
    (void)state;
    rp_light_params p;
    water_params(&p);
    check_water_oracle(&p, 65536, 40);
    check_water_oracle(&p, 3 * 65536, 12);
    check_water_oracle(&p, 144179, 20);
    p.sky_flat = 1;
    p.caustics_q8 = 3 * 256;
    check_water_oracle(&p, 40000, 60);
}

/* Still water is the picture (tinted where a tint is given), byte for byte, in the
 * composite; the layer is empty. */
static void test_water_still(void **state)
{
    (void)state;
    rp_light_params p;
    water_params(&p);
    p.tint_rgb[0] = p.tint_rgb[1] = p.tint_rgb[2] = 255;
    fill(0, 9);
    rp_light *l = make(&p);
    rp_light_geom g = {W, H, 3 * 65536, 3 * 65536, 0, NULL};
    static uint8_t rgb[H][W][3], rgba[H][W][4];
    rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
    rp_light_rows_rgba(l, &g, &field[0][0], &rgba[0][0][0], 0, H);
    assert_memory_equal(rgb, bg, sizeof rgb);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_int_equal(rgba[y][x][3], 0);
    rp_light_free(&l);
}

/* Still blocks (rp_light_geom.nonzero): where every height a pixel reads is 0 the composite
 * copies the picture. Fields of zero with a few blobs (single heights and small discs, some
 * at a block's edge or the frame's), at widths below, at and across blocks of 64, laplacian
 * and footprint steps up to 64 pixels, give the bytes of the render without the map, at
 * every vector level and row split; and with a tint (still water not the picture) the map
 * changes nothing either. Fails when the map's reach is one block short, or a row the light
 * reads (its footprint's, or the edge row it mirrors) is left out. */
static void test_water_still_blocks(void **state)
{
    (void)state;
    static const struct {
        int w, h;
        int32_t s; /* Q16 pixels a cell: the steps follow (sx_step about 2 cells) */
    } geo[] = {{200, 90, 3 * 65536}, {64, 40, 2 * 65536},   {130, 70, 9 * 65536},
               {40, 30, 65536},      {257, 33, 25 * 65536}, {129, 150, 32 * 65536}};
    unsigned seed = 77;
    int cases = 0, skipped = 0;
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        const int w = geo[gi].w, h = geo[gi].h, words = RP_LIGHT_BLOCK_WORDS(w);
        size_t n = (size_t)w * h;
        int32_t *f = calloc(n, sizeof *f);
        uint64_t *nz = malloc((size_t)h * words * sizeof *nz);
        uint8_t *b = malloc(n * 3), *want = malloc(n * 3), *got = malloc(n * 3);
        assert_true(f && nz && b && want && got);
        for (size_t i = 0; i < n * 3; i++)
            b[i] = (uint8_t)lcg(&seed);
        for (int t = 0; t < 8; t++) {
            for (size_t i = 0; i < n; i++)
                f[i] = 0;
            int blobs = 1 + t % 4;
            for (int k = 0; k < blobs; k++) {
                /* near a block's edge or the frame's, or anywhere */
                int x = (int)(lcg(&seed) % (unsigned)w), y = (int)(lcg(&seed) % (unsigned)h);
                if (k == 0 && t % 2)
                    x = (t / 2 % 2 ? 63 : 64) < w ? (t / 2 % 2 ? 63 : 64) : w - 1;
                if (k == 1)
                    y = t % 3 ? 0 : h - 1;
                int rad = t == 5 ? 0 : 1 + (int)(lcg(&seed) % 4);
                int32_t v = (int32_t)(lcg(&seed) % 4000) - 2000 + 1;
                for (int dy = -rad; dy <= rad; dy++)
                    for (int dx = -rad; dx <= rad; dx++)
                        if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h &&
                            dx * dx + dy * dy <= rad * rad)
                            f[(size_t)(y + dy) * w + x + dx] = v * 256;
            }
            for (int y = 0; y < h; y++)
                rp_light_nonzero_blocks(f + (size_t)y * w, w, nz + (size_t)y * words);
            for (int tint = 0; tint < 2; tint++) {
                rp_light_params p;
                water_params(&p);
                if (!tint)
                    p.tint_rgb[0] = p.tint_rgb[1] = p.tint_rgb[2] = 255;
                p.depth_q8 = (int32_t)(256 * (2 + lcg(&seed) % 60));
                rp_light *l = make(&p);
                rp_light_geom g = {w, h, geo[gi].s, geo[gi].s, 0, NULL};
                assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
                rp_light_rows_rgb(l, &g, f, b, want, 0, h);
                g.nonzero = nz;
                for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
                    assert_int_equal(rp_simd_set(level), level);
                    for (int split = 0; split < 2; split++) {
                        memset(got, 0xa5, n * 3);
                        int mid = split ? 1 + (int)(lcg(&seed) % (unsigned)(h - 1)) : h;
                        rp_light_rows_rgb(l, &g, f, b, got, 0, mid);
                        rp_light_rows_rgb(l, &g, f, b, got, mid, h);
                        if (memcmp(got, want, n * 3))
                            fail_msg("still blocks, %dx%d scale %d case %d tint %d level %d: "
                                     "differs from the render without them",
                                     w, h, (int)geo[gi].s, t, tint, level);
                    }
                }
                rp_simd_set(-1);
                /* the map is what decides: one that says every block is still gives the
                 * picture itself where still water is the picture (a scale whose steps
                 * stay within a block), and changes nothing under a tint */
                uint64_t *none = calloc((size_t)h * words, sizeof *none);
                assert_non_null(none);
                g.nonzero = none;
                rp_light_rows_rgb(l, &g, f, b, got, 0, h);
                if (tint)
                    assert_memory_equal(got, want, n * 3);
                else if (geo[gi].s <= 9 * 65536 && p.depth_q8 <= 30 * 256) {
                    assert_memory_equal(got, b, n * 3);
                    skipped++;
                }
                free(none);
                rp_light_free(&l);
                cases++;
            }
        }
        free(f);
        free(nz);
        free(b);
        free(want);
        free(got);
    }
    assert_true(skipped > 0);
    print_message("%d cases (%d with every block said still), levels 0..%d\n", cases, skipped,
                  rp_simd_supported());
}

/* Still blocks across the map's words (rows of more than 4096 pixels): a single height at
 * either side of a word's edge (pixels 4095 and 4096, 8191 and 8192) reaches the block on
 * the other side, in the other word. The render with the map gives the bytes of the render
 * without it, at every level; the pixels across the edge do change (so the test sees a
 * reach that stops at the word). Fails when live_blocks drops the carry of a word's last
 * bit into the next word, or the next word's first bit into this one. */
static void test_water_still_blocks_words(void **state)
{
    (void)state;
    enum { SW = 8250, SH = 4 };
    static const int at[] = {4095, 4096, 8191, 8192, 4031, 4160};
    static const struct {
        int32_t scale, depth_q8;
    } geo[] = {{65536, 12 * 256}, {3 * 65536, 128 * 256}}; /* footprints 2 and 64 pixels */
    const int words = RP_LIGHT_BLOCK_WORDS(SW);
    const size_t n = (size_t)SW * SH;
    int32_t *f = calloc(n, sizeof *f);
    uint64_t *nz = malloc((size_t)SH * words * sizeof *nz);
    uint8_t *b = malloc(n * 3), *want = malloc(n * 3), *got = malloc(n * 3);
    assert_true(f && nz && b && want && got);
    unsigned seed = 31;
    for (size_t i = 0; i < n * 3; i++)
        b[i] = (uint8_t)lcg(&seed);
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        rp_light_params p;
        water_params(&p);
        p.tint_rgb[0] = p.tint_rgb[1] = p.tint_rgb[2] = 255;
        p.depth_q8 = geo[gi].depth_q8;
        rp_light *l = make(&p);
        for (size_t ai = 0; ai < sizeof at / sizeof at[0]; ai++) {
            const int x = at[ai], y = (int)(ai % 2);
            memset(f, 0, n * sizeof *f);
            f[(size_t)y * SW + x] = 1500 * 256;
            for (int r = 0; r < SH; r++)
                rp_light_nonzero_blocks(f + (size_t)r * SW, SW, nz + (size_t)r * words);
            rp_light_geom g = {SW, SH, geo[gi].scale, geo[gi].scale, 0, NULL};
            assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
            rp_light_rows_rgb(l, &g, f, b, want, 0, SH);
            /* the block across a word's edge shows the height */
            if (x % 4096 == 0 || x % 4096 == 4095) {
                int x0 = x % 4096 == 0 ? x - 64 : x + 1;
                assert_true(memcmp(want + ((size_t)y * SW + x0) * 3, b + ((size_t)y * SW + x0) * 3,
                                   64 * 3) != 0);
            }
            g.nonzero = nz;
            for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
                assert_int_equal(rp_simd_set(level), level);
                memset(got, 0xa5, n * 3);
                rp_light_rows_rgb(l, &g, f, b, got, 0, SH);
                if (memcmp(got, want, n * 3))
                    fail_msg("still blocks, a height at %d,%d, scale %d level %d: differs from "
                             "the render without them",
                             x, y, (int)(geo[gi].scale >> 16), level);
            }
            rp_simd_set(-1);
        }
        rp_light_free(&l);
    }
    free(f);
    free(nz);
    free(b);
    free(want);
    free(got);
}

/* rp_light_nonzero_blocks against the definition: a block's bit is set when one of its
 * heights is not 0, for widths across one and two words, the bits past the row 0. */
static void test_nonzero_blocks(void **state)
{
    (void)state;
    static const int widths[] = {1, 63, 64, 65, 200, 4096, 4097, 9000};
    unsigned seed = 5;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        const int w = widths[wi], words = RP_LIGHT_BLOCK_WORDS(w);
        int32_t *row = calloc((size_t)w, sizeof *row);
        uint64_t mask[3] = {~0ull, ~0ull, ~0ull};
        assert_non_null(row);
        assert_int_equal(words, (w + 4095) / 4096);
        for (int k = 0; k < 5; k++)
            row[lcg(&seed) % (unsigned)w] = k % 2 ? -1 : (int32_t)(lcg(&seed) | 1);
        rp_light_nonzero_blocks(row, w, mask);
        for (int bl = 0; bl < 64 * words; bl++) {
            int any = 0;
            for (int x = 64 * bl; x < 64 * bl + 64 && x < w; x++)
                any |= row[x] != 0;
            assert_int_equal((int)(mask[bl / 64] >> (bl % 64) & 1), any);
        }
        free(row);
    }
}

/* The tint is the colour a white bed takes under 64 cells of water; under d cells its
 * d / 64th power (Beer-Lambert). Still water over the picture at several depths against
 * pow() in doubles: within 1 level, exact at 64 cells, and darker the deeper. */
static void test_tint_depth(void **state)
{
    (void)state;
    static const int32_t depths[] = {1, 16 * 256, 64 * 256, 100 * 256 + 77, 200 * 256, 256 * 256};
    static uint8_t rgb[H][W][3];
    int sum[6] = {0};
    rp_light_params p;
    rp_light_defaults(&p);
    p.tint_rgb[0] = 0xa8;
    p.tint_rgb[1] = 0xd8;
    p.tint_rgb[2] = 0xd0;
    fill(0, 9);
    for (int i = 0; i < 6; i++) {
        p.depth_q8 = depths[i];
        rp_light *l = make(&p);
        rp_light_geom g = {W, H, 65536, 65536, 0, NULL};
        rp_light_rows_rgb(l, &g, &field[0][0], &bg[0][0][0], &rgb[0][0][0], 0, H);
        int worst = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int k = 0; k < 3; k++) {
                    double t = pow(p.tint_rgb[k] / 255.0, depths[i] / 256.0 / 64);
                    int d = abs((int)lrint(bg[y][x][k] * t) - rgb[y][x][k]);
                    worst = d > worst ? d : worst;
                    sum[i] += rgb[y][x][k];
                    if (depths[i] == 64 * 256) /* the tint itself: t * tint / 255 rounded */
                        assert_int_equal(
                            rgb[y][x][k],
                            (bg[y][x][k] * ((p.tint_rgb[k] * 65536 + 127) / 255) + 32768) >> 16);
                }
        print_message("depth %.3f: max |d| %d, sum %d\n", depths[i] / 256.0, worst, sum[i]);
        assert_true(worst <= 1);
        assert_true(i == 0 || sum[i] < sum[i - 1]);
        rp_light_free(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_hand_ramp),
        cmocka_unit_test(test_water_tables),
        cmocka_unit_test(test_overlay_equation),
        cmocka_unit_test(test_premultiply_exhaustive),
        cmocka_unit_test(test_overlay_premultiplied),
        cmocka_unit_test(test_calm),
        cmocka_unit_test(test_size_independent),
        cmocka_unit_test(test_row_split),
        cmocka_unit_test(test_no_white_disc),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_paths_exact),
        cmocka_unit_test(test_paths_extreme_heights),
        cmocka_unit_test(test_paths_full_frame),
        cmocka_unit_test(test_surface),
        cmocka_unit_test(test_sky_still),
        cmocka_unit_test(test_sky_reflect),
        cmocka_unit_test(test_sky_paths),
        cmocka_unit_test(test_water_oracle),
        cmocka_unit_test(test_water_still),
        cmocka_unit_test(test_water_still_blocks),
        cmocka_unit_test(test_water_still_blocks_words),
        cmocka_unit_test(test_nonzero_blocks),
        cmocka_unit_test(test_tint_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
