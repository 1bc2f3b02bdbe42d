/* test_upscale.c - the height resampler against small cases worked out by hand (one axis,
 * and a 2x2 grid to 4x4 whose every output, halves included, is worked in a comment),
 * against a double-precision transcription of upscale.h's geometry and kernel with a
 * bound argued from the fixed point's rounding steps, the identity case, and row-range
 * splits; every code path (plain C, each SIMD level this machine has, the others forced
 * off with rp_simd_set) is held to that oracle and to the plain C path byte for byte
 * (the vector passes must not change a byte: determinism, not correctness). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/cpu.h"
#include "look/upscale.h"

static int32_t *run(int gw, int gh, int ow, int oh, const int16_t *h)
{
    rp_upscale *u = NULL;
    assert_int_equal(rp_upscale_new(&u, gw, gh, ow, oh), RP_OK);
    int32_t *out = calloc((size_t)ow * oh, sizeof *out);
    assert_non_null(out);
    rp_upscale_rows(u, h, out, 0, oh);
    rp_upscale_free(&u);
    assert_null(u);
    return out;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

static void test_identity_exact(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {5, 3}, {64, 36}, {33, 70}};
    unsigned seed = 7;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        int16_t *g = malloc((size_t)w * h * sizeof *g);
        for (int i = 0; i < w * h; i++)
            g[i] = (int16_t)((int)(lcg(&seed) % 65536) - 32768);
        g[0] = INT16_MIN;
        g[w * h - 1] = INT16_MAX;
        int32_t *out = run(w, h, w, h, g);
        for (int i = 0; i < w * h; i++)
            assert_int_equal(out[i], g[i] * 256);
        free(out);
        free(g);
    }
}

/* Grid [0, 256] to 4 pixels: u = -0.25, 0.25, 0.75, 1.25. At u = 0.25 the Catmull-Rom
 * taps at distances 1.25, 0.25, 0.75, 1.75 are -0.0703125, 0.8671875, 0.2265625,
 * -0.0234375; cells -1 and 2 are the edge cells, so cell 1 weighs 0.203125: 52 units.
 * At u = -0.25 cell 1 weighs -0.0703125 (the lobe at the step): -18 units. */
static void test_hand_up(void **state)
{
    (void)state;
    int16_t g[2] = {0, 256};
    int32_t *out = run(2, 1, 4, 1, g);
    assert_int_equal(out[0], -18 * 256);
    assert_int_equal(out[1], 52 * 256);
    assert_int_equal(out[2], 204 * 256);
    assert_int_equal(out[3], 274 * 256);
    free(out);
    /* the same along y */
    out = run(1, 2, 1, 4, g);
    assert_int_equal(out[1], 52 * 256);
    assert_int_equal(out[3], 274 * 256);
    free(out);
}

/* Grid 4 -> 2: the kernel stretched by 2, u = 0.5 and 2.5. For u = 0.5 the taps at
 * j = -3..4 (t = |u - j| / 2) weigh, after dividing by their sum 2: cells <= 0 0.5,
 * cell 1 0.43359375, cell 2 0.11328125, cells >= 3 -0.046875. */
static void test_hand_down(void **state)
{
    (void)state;
    int16_t g[4] = {0, 256, 0, 0};
    int32_t *out = run(4, 1, 2, 1, g);
    assert_int_equal(out[0], 111 * 256);
    assert_int_equal(out[1], 29 * 256);
    free(out);
    int16_t f[4] = {256, 0, 0, 0};
    out = run(4, 1, 2, 1, f);
    assert_int_equal(out[0], 128 * 256);
    free(out);
}

/* A 2x2 grid to 4x4, by hand. Per axis (test_hand_up) output i weighs cell 1 by
 * w = -9/128, 26/128, 102/128, 137/128 (u = -0.25, 0.25, 0.75, 1.25; cell 0 takes the
 * rest), all exact in Q15. Grid [[0, 0], [0, 8]]: out(x, y) = 8 * wy * wx height units,
 * Q8 256 times that: a * b / 8 for a, b in -9, 26, 102, 137, rounded half up once:
 *          -9         26          102         137
 *   -9    81/8 = 10.125 -> 10    -234/8 = -29.25 -> -29
 *         -918/8 = -114.75 -> -115    -1233/8 = -154.125 -> -154
 *   26    676/8 = 84.5 -> 85 (half up)    2652/8 = 331.5 -> 332 (half up)
 *         3562/8 = 445.25 -> 445
 *   102   10404/8 = 1300.5 -> 1301 (half up)    13974/8 = 1746.75 -> 1747
 *   137   18769/8 = 2346.125 -> 2346
 * (the table is symmetric). Truncating, rounding halves to even or down, or a weight one
 * Q15 unit off each changes at least one of these. */
static void test_hand_2x2(void **state)
{
    (void)state;
    static const int32_t want[4][4] = {{10, -29, -115, -154},
                                       {-29, 85, 332, 445},
                                       {-115, 332, 1301, 1747},
                                       {-154, 445, 1747, 2346}};
    int16_t g[4] = {0, 0, 0, 8};
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        assert_int_equal(rp_simd_set(level), level);
        int32_t *out = run(2, 2, 4, 4, g);
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                if (out[y * 4 + x] != want[y][x])
                    fail_msg("level %d: output (%d, %d) is %d, want %d", level, x, y,
                             out[y * 4 + x], want[y][x]);
        free(out);
    }
    rp_simd_set(-1);
}

/* A constant grid stays constant at every size (weights sum to exactly 1). */
static void test_constant(void **state)
{
    (void)state;
    int16_t g[7 * 5];
    for (int i = 0; i < 35; i++)
        g[i] = -1234;
    static const int sizes[][2] = {{7, 5}, {21, 15}, {3, 2}, {1, 1}, {100, 9}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t *out = run(7, 5, sizes[s][0], sizes[s][1], g);
        for (int i = 0; i < sizes[s][0] * sizes[s][1]; i++)
            assert_int_equal(out[i], -1234 * 256);
        free(out);
    }
}

/* The oracle: upscale.h's geometry and kernel in doubles, written from the header alone.
 * Output i of o looks at grid position u = (i + 0.5) * g / o - 0.5; the Catmull-Rom
 * kernel (a = -1/2), stretched by r = g / o when o < g, weighs cell j by cr((u - j) / r);
 * taps past the grid join the edge cell; the weights are divided by their sum. */
static double cr(double t)
{
    t = fabs(t);
    if (t < 1)
        return (3 * t * t * t - 5 * t * t + 2) / 2;
    if (t < 2)
        return (-t * t * t + 5 * t * t - 8 * t + 4) / 2;
    return 0;
}

/* One axis: per output its cells first..first+count-1 and their weights, the number of
 * kernel taps before the edge cells merged them (raw), the sum of |weight| and the
 * kernel's unnormalised sum. */
struct oaxis {
    int *first, *count, *raw;
    double *w, *abs_sum, *ksum;
    int per;
};

static void oaxis_build(struct oaxis *a, int g, int o)
{
    double r = g > o ? (double)g / o : 1;
    a->per = (int)ceil(4 * r) + 4;
    a->per = a->per > g ? g : a->per;
    a->first = malloc((size_t)o * sizeof *a->first);
    a->count = malloc((size_t)o * sizeof *a->count);
    a->raw = malloc((size_t)o * sizeof *a->raw);
    a->w = calloc((size_t)o * a->per, sizeof *a->w);
    a->abs_sum = malloc((size_t)o * sizeof *a->abs_sum);
    a->ksum = malloc((size_t)o * sizeof *a->ksum);
    assert_non_null(a->w);
    assert_non_null(a->ksum);
    for (int i = 0; i < o; i++) {
        double u = (i + 0.5) * g / o - 0.5, sum = 0, *w = a->w + (size_t)i * a->per;
        int jlo = (int)floor(u - 2 * r), jhi = (int)ceil(u + 2 * r);
        int first = jlo < 0 ? 0 : jlo > g - 1 ? g - 1 : jlo;
        int last = jhi < 0 ? 0 : jhi > g - 1 ? g - 1 : jhi;
        assert_true(last - first + 1 <= a->per);
        a->raw[i] = 0;
        for (int j = jlo; j <= jhi; j++) {
            double k = cr((u - j) / r);
            int c = j < 0 ? 0 : j >= g ? g - 1 : j;
            w[c - first] += k;
            sum += k;
            a->raw[i] += k != 0;
        }
        a->abs_sum[i] = 0;
        for (int c = 0; c <= last - first; c++) {
            w[c] /= sum;
            a->abs_sum[i] += fabs(w[c]);
        }
        a->first[i] = first;
        a->count[i] = last - first + 1;
        a->ksum[i] = sum;
    }
}

static void oaxis_free(struct oaxis *a)
{
    free(a->first);
    free(a->count);
    free(a->raw);
    free(a->w);
    free(a->abs_sum);
    free(a->ksum);
}

/* The Q15 weights' error on one axis, in Q15 units (LSB), summed over an output's taps:
 *  - the kernel is evaluated at distances rounded to 1/65536 (half of that at most), and
 *    |cr'| <= 25/18 (at t = 5/9), so each raw tap is off by at most 25/18 * 2^-17 plus its
 *    own Q32 rounding 2^-33; normalising by a sum that carries the same errors moves the
 *    weights, summed, by at most raw * e * (1 + sum|w|) / ksum, e that per-tap error;
 *  - each weight is then rounded to Q15 (0.5 LSB) and the remainder that makes them sum to
 *    32768 (at most count / 2 LSB) goes to one tap: count LSB over the taps.
 * Both are rounding steps of upscale.h's fixed point, none is a tuning margin. */
static double oaxis_err(const struct oaxis *a, int i)
{
    const double e = (25.0 / 18 * 0x1p-17 + 0x1p-33) * 32768;
    return a->count[i] + a->raw[i] * e * (1 + a->abs_sum[i]) / a->ksum[i];
}

/* rp_upscale's output (from run_level at the level set) against the oracle. The output is
 * the two passes' exact integer sum rounded once to Q8 (upscale.h), so it differs from the
 * oracle by that rounding (0.5) plus the weights' errors (dx, dy LSB of Q15 on each axis)
 * times the heights: |d| <= 0.5 + 256 * hmax * (dy * Sx + Sy * dx + dx * dy / 32768) /
 * 32768, Sx, Sy the sums of |weight|. Returns the largest |d| / bound (<= 1 passes). */
static double oracle_ratio(int gw, int gh, int ow, int oh, const int16_t *g, const int32_t *out,
                           double *worst_d)
{
    struct oaxis ax, ay;
    oaxis_build(&ax, gw, ow);
    oaxis_build(&ay, gh, oh);
    int hmax = 0;
    for (size_t i = 0; i < (size_t)gw * gh; i++)
        hmax = abs(g[i]) > hmax ? abs(g[i]) : hmax;
    double *col = malloc((size_t)gw * sizeof *col), worst = 0, wd = 0;
    assert_non_null(col);
    for (int y = 0; y < oh; y++) {
        for (int i = 0; i < gw; i++)
            col[i] = 0;
        for (int c = 0; c < ay.count[y]; c++) {
            double wy = ay.w[(size_t)y * ay.per + c];
            const int16_t *row = g + (size_t)(ay.first[y] + c) * gw;
            for (int i = 0; i < gw; i++)
                col[i] += wy * row[i];
        }
        double dy = oaxis_err(&ay, y);
        for (int x = 0; x < ow; x++) {
            double v = 0;
            for (int c = 0; c < ax.count[x]; c++)
                v += ax.w[(size_t)x * ax.per + c] * col[ax.first[x] + c];
            double dx = oaxis_err(&ax, x);
            double bound =
                0.5 +
                256.0 * hmax * (dy * ax.abs_sum[x] + ay.abs_sum[y] * dx + dx * dy / 32768) / 32768 +
                1e-6;
            double d = fabs(out[(size_t)y * ow + x] - 256 * v);
            worst = d / bound > worst ? d / bound : worst;
            wd = d > wd ? d : wd;
        }
    }
    free(col);
    oaxis_free(&ax);
    oaxis_free(&ay);
    *worst_d = wd;
    return worst;
}

static void check_oracle(int gw, int gh, int ow, int oh, unsigned seed, int amp)
{
    int16_t *g = malloc((size_t)gw * gh * sizeof *g);
    assert_non_null(g);
    for (int y = 0; y < gh; y++)
        for (int x = 0; x < gw; x++)
            /* smooth waves plus noise, like a rippled surface */
            g[y * gw + x] = (int16_t)((int)(amp * sin(x * 0.7 + y * 0.3) * cos(y * 0.45)) +
                                      (int)(lcg(&seed) % 201) - 100);
    int32_t *out = run(gw, gh, ow, oh, g);
    double d, ratio = oracle_ratio(gw, gh, ow, oh, g, out, &d);
    print_message("upscale %dx%d -> %dx%d: max |error| %.2f Q8, %.2f of its bound\n", gw, gh, ow,
                  oh, d, ratio);
    assert_true(ratio <= 1);
    free(out);
    free(g);
}

static void test_oracle(void **state)
{
    (void)state;
    check_oracle(16, 9, 48, 27, 1, 1500);  /* x3 */
    check_oracle(16, 9, 37, 23, 2, 1500);  /* odd ratio */
    check_oracle(20, 12, 20, 12, 3, 1500); /* identity */
    check_oracle(30, 18, 13, 7, 4, 1500);  /* smaller */
    check_oracle(9, 16, 64, 5, 5, 1500);   /* larger in x, smaller in y */
    check_oracle(7, 3, 1, 1, 6, 30000);    /* to one pixel */
}

/* Rows split in any way give the same bytes. */
static void test_row_split(void **state)
{
    (void)state;
    const int gw = 40, gh = 23, ow = 131, oh = 77;
    int16_t g[40 * 23];
    unsigned seed = 11;
    for (int i = 0; i < gw * gh; i++)
        g[i] = (int16_t)((int)(lcg(&seed) % 4001) - 2000);
    int32_t *whole = run(gw, gh, ow, oh, g);
    rp_upscale *u = NULL;
    assert_int_equal(rp_upscale_new(&u, gw, gh, ow, oh), RP_OK);
    int32_t *parts = malloc((size_t)ow * oh * sizeof *parts);
    for (int trial = 0; trial < 20; trial++) {
        memset(parts, 0x55, (size_t)ow * oh * sizeof *parts);
        int y = 0;
        while (y < oh) {
            int n = (int)(lcg(&seed) % 13);
            int y1 = y + n > oh ? oh : y + n;
            rp_upscale_rows(u, g, parts, y, y1);
            y = y1;
        }
        assert_memory_equal(whole, parts, (size_t)ow * oh * sizeof *parts);
    }
    rp_upscale_free(&u);
    free(parts);
    free(whole);
}

static void test_bad_sizes(void **state)
{
    (void)state;
    rp_upscale *u = (rp_upscale *)&u;
    assert_int_equal(rp_upscale_new(&u, 0, 5, 5, 5), RP_ERR_INVALID);
    assert_null(u);
    assert_int_equal(rp_upscale_new(&u, 5, 5, RP_MAX_SIDE + 1, 5), RP_ERR_INVALID);
    rp_upscale_free(&u);
    rp_upscale_free(NULL);
    assert_int_equal(rp_upscale_ratio_q16(640, 1920), 3 << 16);
    assert_int_equal(rp_upscale_ratio_q16(640, 320), 1 << 15);
}

/* Every path against the oracle (oracle_ratio's argued bound) and against the plain C
 * path byte for byte: sizes up, down, identity, odd ratios, one pixel, a wide grid; heights
 * smooth, random, and at the int16 limits (the largest sums). The second block reaches
 * each kind of the AVX2 passes (upscale_simd.c): row groups whose
 * cells fit one 8-cell load (1.5x and up: 1280 -> 1920, 3840), two (1920 -> 1280,
 * 1280 -> 1000, identity), int64 groups at the edges (weights over 1) and for wide windows
 * (1280 -> 500), widths not a multiple of 8 or 16, a grid narrower than the padding; column
 * rows in pairs, an odd count, weights of 32768 (y by 3), over 32 rows (100 -> 10). */
static void test_paths_exact(void **state)
{
    (void)state;
    static const int sizes[][4] = {
        {640, 360, 1920, 1080}, {640, 360, 1280, 720}, {100, 60, 333, 187}, {64, 36, 64, 36},
        {90, 50, 61, 37},       {300, 40, 17, 9},      {7, 5, 200, 3},      {1, 1, 40, 9},
        {33, 20, 34, 21},       {16, 9, 8, 8},         {5, 3, 9, 16},       {4000, 3, 41, 2},
        {23, 9, 15, 80},        {2, 2, 31, 31},        {160, 90, 1919, 3},  {12, 12, 250, 7},
        {1280, 4, 1920, 6},     {1280, 5, 3840, 7},    {640, 4, 1920, 9},   {1920, 9, 1280, 5},
        {1280, 3, 1000, 2},     {1280, 3, 500, 2},     {7, 5, 1000, 40},    {1283, 6, 1925, 11},
        {1290, 4, 1290, 12},    {15, 4, 100, 4},       {50, 100, 30, 10},   {40, 6, 41, 18},
        {1280, 3, 640, 2},      {1280, 3, 580, 2},
    };
    unsigned seed = 21;
    double worst = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int gw = sizes[s][0], gh = sizes[s][1], ow = sizes[s][2], oh = sizes[s][3];
        size_t gn = (size_t)gw * gh, on = (size_t)ow * oh;
        int16_t *g = malloc(gn * sizeof *g);
        int32_t *want = malloc(on * sizeof *want), *got = malloc(on * sizeof *got);
        assert_non_null(g);
        assert_non_null(want);
        assert_non_null(got);
        rp_upscale *u = NULL;
        assert_int_equal(rp_upscale_new(&u, gw, gh, ow, oh), RP_OK);
        for (int kind = 0; kind < 3; kind++) {
            for (size_t i = 0; i < gn; i++) {
                int x = (int)(i % gw), y = (int)(i / gw);
                unsigned v = lcg(&seed);
                g[i] = kind == 0   ? (int16_t)(3000 * sin(x * 0.3) * cos(y * 0.2))
                       : kind == 1 ? (int16_t)(v % 65536 - 32768)
                                   : (int16_t)((x + y) % 2 ? INT16_MIN : INT16_MAX);
            }
            for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
                assert_int_equal(rp_simd_set(level), level);
                int32_t *dst = level == RP_SIMD_C ? want : got;
                memset(dst, 0x55, on * sizeof *dst);
                for (int y = 0; y < oh;) {
                    int y1 = y + 1 + (int)(lcg(&seed) % 5);
                    y1 = y1 > oh ? oh : y1;
                    rp_upscale_rows(u, g, dst, y, y1);
                    y = y1;
                }
                if (level == RP_SIMD_C) {
                    double d, ratio = oracle_ratio(gw, gh, ow, oh, g, want, &d);
                    if (ratio > 1)
                        fail_msg("%dx%d -> %dx%d kind %d: |error| %.2f Q8 is %.2f times the "
                                 "bound",
                                 gw, gh, ow, oh, kind, d, ratio);
                    worst = ratio > worst ? ratio : worst;
                } else if (memcmp(got, want, on * sizeof *got)) {
                    size_t i = 0;
                    while (got[i] == want[i])
                        i++;
                    fail_msg("level %d, %dx%d -> %dx%d kind %d: output (%d, %d) is %d, plain C "
                             "%d",
                             level, gw, gh, ow, oh, kind, (int)(i % ow), (int)(i / ow), got[i],
                             want[i]);
                }
            }
            rp_simd_set(-1);
        }
        rp_upscale_free(&u);
        free(g);
        free(want);
        free(got);
    }
    print_message("%zu sizes, levels 0..%d: largest |error| %.2f of its bound\n",
                  sizeof sizes / sizeof sizes[0], rp_simd_supported(), worst);
}

/* rp_upscale_peak_q8 against the worst grids, found without knowing the weights: the
 * resampler is linear, so an impulse at each cell gives the sign of its weight at every
 * output; the grid of +-32767 with those signs is the largest any output can reach. The
 * largest |output| over those grids must not pass the peak and must come within rounding of
 * it (the peak is the product of the two axes' largest |weight| sums, which one output
 * attains). */
static void test_peak(void **state)
{
    (void)state;
    static const int geo[][4] = {
        {16, 12, 40, 30}, {40, 30, 16, 12}, {9, 7, 27, 21}, {12, 12, 12, 12}, {30, 8, 11, 29}};
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        int gw = geo[gi][0], gh = geo[gi][1], ow = geo[gi][2], oh = geo[gi][3];
        size_t ncell = (size_t)gw * gh, nout = (size_t)ow * oh;
        int8_t *sign = calloc(ncell * nout, 1);
        int16_t *g = calloc(ncell, sizeof *g);
        assert_non_null(sign);
        assert_non_null(g);
        for (size_t c = 0; c < ncell; c++) {
            g[c] = 32767;
            int32_t *o = run(gw, gh, ow, oh, g);
            for (size_t i = 0; i < nout; i++)
                sign[i * ncell + c] = (int8_t)(o[i] < 0 ? -1 : 1);
            free(o);
            g[c] = 0;
        }
        rp_upscale *u = NULL;
        assert_int_equal(rp_upscale_new(&u, gw, gh, ow, oh), RP_OK);
        int64_t peak = rp_upscale_peak_q8(u), worst = 0;
        rp_upscale_free(&u);
        for (size_t i = 0; i < nout; i++) {
            for (size_t c = 0; c < ncell; c++)
                g[c] = (int16_t)(32767 * sign[i * ncell + c]);
            int32_t *o = run(gw, gh, ow, oh, g);
            for (size_t j = 0; j < nout; j++)
                worst = llabs(o[j]) > worst ? llabs(o[j]) : worst;
            free(o);
        }
        /* 32768 against 32767 and the rounding of each product: within 1/1000 */
        if (worst > peak || worst < peak - peak / 1000 - 2)
            fail_msg("%dx%d -> %dx%d: largest output %lld, peak %lld", gw, gh, ow, oh,
                     (long long)worst, (long long)peak);
        assert_true(peak >= 32768 * 256);
        free(sign);
        free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_exact), cmocka_unit_test(test_hand_up),
        cmocka_unit_test(test_hand_down),      cmocka_unit_test(test_hand_2x2),
        cmocka_unit_test(test_constant),       cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_row_split),      cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_paths_exact),    cmocka_unit_test(test_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
