/* test_water.c - the simulation against independent oracles: plain transcriptions of
 * the seeds' loops (Elias' ProcessWater, CodeProject's 8-neighbour loop) without the
 * 1-D row wrap, grids computed by hand, and libm for the shape profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu.h"
#include "base/pool.h"
#include "threads.h"
#include "sim/water.h"
#include "sim/water_simd.h"

#define W 23
#define H 17

static rp_water *make(int w, int h, enum rp_stencil st, enum rp_boundary b, int shift, int32_t q)
{
    rp_water *water = NULL;
    rp_water_params p = {w, h, st, b, shift, q, 0};
    assert_int_equal(rp_water_new(&water, &p), RP_OK);
    return water;
}

/* Seed 001, ProcessWater, made 2-D so rows never wrap: dest = ((sum of 4) >> 1) - dest;
 * dest -= dest >> 5; for every non-edge element. */
static void elias_process_water(short src[H][W], short dest[H][W])
{
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            dest[y][x] =
                ((src[y][x - 1] + src[y][x + 1] + src[y - 1][x] + src[y + 1][x]) >> 1) - dest[y][x];
            dest[y][x] -= (dest[y][x] >> 5);
        }
}

/* Seed 004, CodeProject's loop over a jagged [x][y] array: 8 neighbours >> 2, >> 5 damping. */
static void codeproject_step(int cur[W][H], int next[W][H])
{
    for (int x = 1; x < W - 1; x++)
        for (int y = 1; y < H - 1; y++) {
            next[x][y] = ((cur[x - 1][y] + cur[x - 1][y - 1] + cur[x][y - 1] + cur[x + 1][y - 1] +
                           cur[x + 1][y] + cur[x + 1][y + 1] + cur[x][y + 1] + cur[x - 1][y + 1]) >>
                          2) -
                         next[x][y];
            next[x][y] -= (next[x][y] >> 5);
        }
}

static void test_elias_step_matches_seed_loop(void **state)
{
    (void)state;
    static short buf1[H][W], buf2[H][W];
    short(*cur)[W] = buf1, (*prev)[W] = buf2;
    memset(buf1, 0, sizeof buf1);
    memset(buf2, 0, sizeof buf2);
    rp_water *w = make(W, H, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
    rp_drop d1 = {7, 6, 0, 900, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_drop d2 = {15, 11, 0, -500, RP_SHAPE_DISC, RP_MODE_ADD};
    for (int step = 0; step < 60; step++) {
        if (step == 0) {
            rp_water_drop(w, &d1);
            cur[6][7] += 900;
        }
        if (step == 9) {
            rp_water_drop(w, &d2);
            cur[11][15] -= 500;
        }
        rp_water_step(w, NULL);
        elias_process_water(cur, prev);
        short(*t)[W] = cur;
        cur = prev;
        prev = t;
        assert_memory_equal(rp_water_heights(w), cur, sizeof buf1);
        assert_memory_equal(rp_water_prev(w), prev, sizeof buf1);
    }
    rp_water_free(&w);
    assert_null(w);
}

static void test_codeproject_step_matches_seed_loop(void **state)
{
    (void)state;
    static int a[W][H], b[W][H];
    int(*cur)[H] = a, (*next)[H] = b;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    rp_water *w = make(W, H, RP_STENCIL_8, RP_BOUNDARY_WALL, 5, 0);
    rp_drop d = {11, 8, 0, 3000, RP_SHAPE_DISC, RP_MODE_SET};
    rp_water_drop(w, &d);
    cur[11][8] = 3000;
    for (int step = 0; step < 40; step++) {
        rp_water_step(w, NULL);
        codeproject_step(cur, next);
        int(*t)[H] = cur;
        cur = next;
        next = t;
        const int16_t *h = rp_water_heights(w);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                assert_int_equal(h[y * W + x], cur[x][y]);
    }
    rp_water_free(&w);
}

/* One drop of 64 on a 5x5 grid, one step, by hand: the four neighbours get
 * (64 >> 1) - 0 = 32, damped 32 - (32 >> 5) = 31; the centre (0 >> 1) - 0 = 0. */
static void test_one_step_by_hand(void **state)
{
    (void)state;
    rp_water *w = make(5, 5, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
    rp_drop d = {2, 2, 0, 64, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &d);
    rp_water_step(w, NULL);
    const int16_t want[25] = {0,  0, 0, 0, 0,  0, 0, 31, 0, 0, 0, 31, 0,
                              31, 0, 0, 0, 31, 0, 0, 0,  0, 0, 0, 0};
    assert_memory_equal(rp_water_heights(w), want, sizeof want);
    assert_int_equal(rp_water_prev(w)[12], 64);
    /* Second step, centre: ((31*4) >> 1) - 64 = -2, damped: -2 - (-2 >> 5) = -1. */
    rp_water_step(w, NULL);
    assert_int_equal(rp_water_heights(w)[12], -1);
    rp_water_free(&w);
}

/* Factor damping, Q16 with truncation toward zero: 0.94 -> 61604. */
static void test_factor_damping_by_hand(void **state)
{
    (void)state;
    rp_water *w = make(5, 5, RP_STENCIL_4, RP_BOUNDARY_WALL, 0, 61604);
    rp_drop d = {2, 2, 0, 1001, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &d);
    rp_water_step(w, NULL);
    /* neighbour: 500 * 61604 / 65536 = 470.0 -> 470 */
    assert_int_equal(rp_water_heights(w)[7], 500 * 61604 / 65536);
    rp_drop neg = {1, 1, 0, -999, RP_SHAPE_DISC, RP_MODE_SET};
    rp_water_free(&w);
    w = make(3, 3, RP_STENCIL_4, RP_BOUNDARY_WRAP, 0, 61604);
    rp_water_drop(w, &neg);
    rp_water_step(w, NULL);
    /* wrap on 3x3: every neighbour of (1,1) counts it once: (-999 >> 1) = -500;
     * -500 * 61604 / 65536 = -470.01 -> -470 (toward zero, not -471) */
    assert_int_equal(rp_water_heights(w)[1], -470);
    rp_water_free(&w);
}

static int count_covered(const rp_water *w, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += rp_water_heights(w)[i] != 0;
    return c;
}

static void test_drop_shapes_cover(void **state)
{
    (void)state;
    rp_water *w = make(21, 21, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
    rp_drop disc = {10, 10, 2, 100, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &disc);
    assert_int_equal(count_covered(w, 441), 13); /* d2 <= 4: 1 + 4 + 4 + 4 */
    rp_water_free(&w);
    w = make(21, 21, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
    rp_drop sq = {10, 10, 2, 100, RP_SHAPE_SQUARE, RP_MODE_ADD};
    rp_water_drop(w, &sq);
    assert_int_equal(count_covered(w, 441), 25);
    /* Under boundary wall a drop at the corner leaves the edge cells at 0. */
    rp_drop corner = {0, 0, 3, 100, RP_SHAPE_SQUARE, RP_MODE_ADD};
    rp_water_drop(w, &corner);
    for (int x = 0; x < 21; x++)
        assert_int_equal(rp_water_heights(w)[x], 0);
    assert_int_equal(rp_water_heights(w)[22], 100);
    rp_water_free(&w);
}

static void test_cosine_profile_vs_libm(void **state)
{
    (void)state;
    for (int r = 1; r <= 40; r++)
        for (int64_t d2 = 0; d2 <= (int64_t)r * r; d2++) {
            rp_drop d = {0, 0, r, 1000, RP_SHAPE_COSINE, RP_MODE_SET};
            int dist = (int)floor(sqrt((double)d2));
            double want = 1000.0 * cos(dist * M_PI / r);
            int32_t got = rp_drop_value(&d, d2);
            assert_true(fabs(got - want) <= 1.0);
        }
    for (int64_t n = 0; n <= 4000; n++) {
        double want = cos(M_PI * n / 1000.0) * 65536.0;
        assert_true(fabs(rp_cos_pi_q16(n, 1000) - want) <= 2.0);
    }
}

static void test_splash_profile_vs_formula(void **state)
{
    (void)state;
    for (int r = 1; r <= 30; r++)
        for (int64_t d2 = 0; d2 <= (int64_t)r * r; d2++) {
            rp_drop d = {0, 0, r, 800, RP_SHAPE_SPLASH, RP_MODE_SET};
            double dist = sqrt((double)d2);
            double want = 800.0 * (255.0 - 512.0 * (1.0 - dist / r)) / 255.0;
            /* truncation of a value a hair above an integer may land one below it */
            assert_true(fabs(rp_drop_value(&d, d2) - want) < 1.01);
        }
    rp_drop c = {0, 0, 10, 255, RP_SHAPE_SPLASH, RP_MODE_SET};
    assert_int_equal(rp_drop_value(&c, 0), 255 - 512); /* below the level at the centre */
    assert_int_equal(rp_drop_value(&c, 100), 255);     /* +height at the rim */
}

static void test_isqrt(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 100000; v++) {
        uint64_t r = rp_isqrt64(v);
        assert_true(r * r <= v && (r + 1) * (r + 1) > v);
    }
    assert_int_equal(rp_isqrt64(UINT64_MAX), 4294967295u);
    /* around squares of every size, and any 64-bit value */
    uint64_t s = 12345;
    for (int i = 0; i < 300000; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t k = (s >> (31 + i % 33)) & 0xffffffffu, v = k * k + (uint64_t)(i % 3) - 1;
        if (i % 4 == 3)
            v = s;
        unsigned __int128 r = rp_isqrt64(v);
        if (!(r * r <= v && (r + 1) * (r + 1) > v))
            fail_msg("isqrt(%llu) = %llu", (unsigned long long)v, (unsigned long long)r);
    }
}

static void test_saturation(void **state)
{
    (void)state;
    rp_water *w = make(9, 9, RP_STENCIL_8, RP_BOUNDARY_WRAP, 5, 0);
    rp_drop up = {4, 4, 2, 30000, RP_SHAPE_SQUARE, RP_MODE_ADD};
    rp_water_drop(w, &up);
    rp_water_drop(w, &up);
    assert_int_equal(rp_water_heights(w)[4 * 9 + 4], 32767);
    rp_drop down = {1, 1, 0, -32768, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &down);
    rp_water_drop(w, &down);
    assert_int_equal(rp_water_heights(w)[10], -32768);
    /* Steps at the limits saturate instead of wrapping (and UBSan stays quiet). */
    for (int i = 0; i < 20; i++)
        rp_water_step(w, NULL);
    rp_drop set = {4, 4, 0, 70000, RP_SHAPE_DISC, RP_MODE_SET};
    rp_water_drop(w, &set);
    assert_int_equal(rp_water_heights(w)[40], 32767);
    rp_water_free(&w);
}

static int64_t energy(const int16_t *h, int w, int x0, int y0, int x1, int y1)
{
    int64_t e = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            e += (int64_t)h[y * w + x] * h[y * w + x];
    return e;
}

/* Waves leave an open boundary: after the ring has reached the edges and had time to come
 * back, the inner region holds far less energy than with reflecting walls. */
static void test_open_boundary_absorbs(void **state)
{
    (void)state;
    const int n = 121;
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++) {
        int64_t e[2];
        for (int b = 0; b < 2; b++) {
            rp_water *w = make(n, n, st, b ? RP_BOUNDARY_OPEN : RP_BOUNDARY_WALL, 9, 0);
            rp_drop d = {n / 2, n / 2, 6, 4000, RP_SHAPE_COSINE, RP_MODE_ADD};
            rp_water_drop(w, &d);
            for (int i = 0; i < 200; i++)
                rp_water_step(w, NULL);
            e[b] = energy(rp_water_heights(w), n, 20, 20, n - 20, n - 20);
            rp_water_free(&w);
        }
        print_message("stencil %d: energy back in the centre, wall %lld, open %lld\n", st,
                      (long long)e[0], (long long)e[1]);
        assert_true(e[1] * 4 < e[0]);
    }
}

static void test_wall_edges_stay_zero_and_wrap_crosses(void **state)
{
    (void)state;
    rp_water *w = make(30, 20, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
    rp_drop d = {2, 10, 3, 2000, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &d);
    for (int i = 0; i < 30; i++) {
        rp_water_step(w, NULL);
        const int16_t *h = rp_water_heights(w);
        for (int y = 0; y < 20; y++)
            assert_true(h[y * 30] == 0 && h[y * 30 + 29] == 0);
        for (int x = 0; x < 30; x++)
            assert_true(h[x] == 0 && h[19 * 30 + x] == 0);
    }
    rp_water_free(&w);
    /* wrap: a drop by the left edge disturbs the right edge within a few steps, and the
     * field stays symmetric about the drop's column (x = 0) across the seam. */
    w = make(30, 20, RP_STENCIL_4, RP_BOUNDARY_WRAP, 5, 0);
    rp_drop e = {0, 10, 0, 2000, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &e);
    for (int i = 0; i < 3; i++)
        rp_water_step(w, NULL);
    const int16_t *h = rp_water_heights(w);
    assert_int_not_equal(h[10 * 30 + 29], 0);
    for (int x = 1; x < 15; x++)
        assert_int_equal(h[10 * 30 + x], h[10 * 30 + 30 - x]);
    rp_water_free(&w);
    /* open (no wrap): a drop by the left edge never reaches the right edge early. */
    w = make(30, 20, RP_STENCIL_4, RP_BOUNDARY_OPEN, 5, 0);
    rp_water_drop(w, &e);
    for (int i = 0; i < 3; i++)
        rp_water_step(w, NULL);
    assert_int_equal(rp_water_heights(w)[10 * 30 + 29], 0);
    rp_water_free(&w);
}

static void test_wall_cells_held(void **state)
{
    (void)state;
    rp_water *w = make(40, 40, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 5, 0);
    rp_water_add_wall_rect(w, 20, 5, 3, 30);
    rp_water_add_wall_circle(w, 8, 8, 3);
    rp_drop d = {21, 20, 10, 3000, RP_SHAPE_DISC, RP_MODE_ADD};
    rp_water_drop(w, &d);
    for (int i = 0; i < 50; i++) {
        const int16_t *h = rp_water_heights(w);
        for (int y = 5; y < 35; y++)
            for (int x = 20; x < 23; x++)
                assert_int_equal(h[y * 40 + x], 0);
        assert_int_equal(h[8 * 40 + 8], 0);
        assert_int_equal(h[8 * 40 + 11], 0);
        rp_water_step(w, NULL);
    }
    rp_water_free(&w);
}

static void test_threads_do_not_change_heights(void **state)
{
    (void)state;
    const int w = 211, h = 157;
    int16_t *ref = NULL;
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
        for (int b = RP_BOUNDARY_WALL; b <= RP_BOUNDARY_WRAP; b++) {
            static const int counts[] = {1, 2, 7};
            for (int t = 0; t < 3; t++) {
                rp_pool *pool = pool_of(counts[t]);
                rp_water *water = make(w, h, st, b, 4, 0);
                for (int i = 0; i < 80; i++) {
                    rp_drop d = {(i * 37) % w,  (i * 53) % h,    5,
                                 1500 - 30 * i, RP_SHAPE_COSINE, RP_MODE_ADD};
                    rp_water_drop(water, &d);
                    rp_water_step(water, pool);
                }
                if (t == 0) {
                    ref = malloc(sizeof(int16_t) * w * h);
                    memcpy(ref, rp_water_heights(water), sizeof(int16_t) * w * h);
                } else {
                    assert_memory_equal(rp_water_heights(water), ref, sizeof(int16_t) * w * h);
                }
                rp_water_free(&water);
                rp_pool_free(&pool);
            }
            free(ref);
            ref = NULL;
        }
}

/* The rockpool step with viscosity against a plain transcription: the iso stencil and
 * the factor damping over the interior (edges held at 0), then every interior cell moved
 * towards its neighbours' mean, h + round(v (N + S + E + W - 4h) / 65536), from the new
 * heights before any of them moved; on 1, 2 and 7 threads. Then what it is for: a
 * checkerboard (the grid's own scale) loses 8 v of its height a step where a long wave
 * hardly changes. */
static void iso_visc_step(int16_t cur[H][W], int16_t prev[H][W], int32_t q, int32_t v)
{
    static int16_t nw[H][W];
    memset(nw, 0, sizeof nw);
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            int32_t sum = (4 * (cur[y][x - 1] + cur[y][x + 1] + cur[y - 1][x] + cur[y + 1][x]) +
                           cur[y - 1][x - 1] + cur[y - 1][x + 1] + cur[y + 1][x - 1] +
                           cur[y + 1][x + 1] + 12 * cur[y][x]) >>
                          4;
            int64_t n = (int64_t)(sum - prev[y][x]) * q / 65536;
            nw[y][x] = (int16_t)(n > 32767 ? 32767 : n < -32768 ? -32768 : n);
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int32_t h = nw[y][x];
            if (y > 0 && y < H - 1 && x > 0 && x < W - 1) {
                int32_t lap = nw[y - 1][x] + nw[y + 1][x] + nw[y][x - 1] + nw[y][x + 1] - 4 * h;
                h += (int32_t)floor((lap * (double)v + 32768) / 65536);
            }
            prev[y][x] = cur[y][x];
            cur[y][x] = (int16_t)h;
        }
}

static void test_viscosity_matches_transcription(void **state)
{
    (void)state;
    const int32_t q = 65000, v = 3000;
    static int16_t cur[H][W], prev[H][W];
    rp_water_params p = {W, H, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 0, q, v};
    static const int counts[] = {1, 2, 7};
    for (int t = 0; t < 3; t++) {
        rp_pool *pool = pool_of(counts[t]);
        rp_water *w = NULL;
        assert_int_equal(rp_water_new(&w, &p), RP_OK);
        memset(cur, 0, sizeof cur);
        memset(prev, 0, sizeof prev);
        for (int i = 0; i < 30; i++) {
            if (i % 7 == 0) {
                rp_drop d = {(i * 5) % (W - 4) + 2, (i * 3) % (H - 4) + 2, 3,
                             4000 - 200 * i,        RP_SHAPE_COSINE,       RP_MODE_ADD};
                rp_water_drop(w, &d);
                memcpy(cur, rp_water_heights(w), sizeof cur);
            }
            rp_water_step(w, pool);
            iso_visc_step(cur, prev, q, v);
            assert_memory_equal(rp_water_heights(w), cur, sizeof cur);
        }
        int moving = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                moving += cur[y][x] != 0;
        assert_true(moving > W * H / 2);
        rp_water_free(&w);
        rp_pool_free(&pool);
    }
}

/* One step of a 64x64 wrapped grid standing still at h (cur = prev), viscosity v: the new
 * height at (x, y). */
static int16_t one_step(const int16_t *h, int32_t v, int x, int y)
{
    rp_water_params p = {64, 64, RP_STENCIL_ISO, RP_BOUNDARY_WRAP, 0, 65536, v};
    rp_water *w = NULL;
    assert_int_equal(rp_water_new(&w, &p), RP_OK);
    rp_water_load(w, h, h);
    rp_water_step(w, NULL);
    int16_t r = rp_water_heights(w)[y * 64 + x];
    rp_water_free(&w);
    return r;
}

static void test_viscosity_damps_short_waves(void **state)
{
    (void)state;
    static int16_t chk[64 * 64], lng[64 * 64];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            chk[y * 64 + x] = (int16_t)(((x + y) & 1) ? -1000 : 1000);
            lng[y * 64 + x] = (int16_t)lround(10000 * cos(2 * M_PI * x / 32));
        }
    /* The checkerboard at 1000: the stencil gives (4 (-4000) + 4000 + 12000) / 16 = 0, less
     * prev, -1000; its neighbours +1000, so the pass adds round(8000 * 655 / 65536) = 80:
     * -920, 8 v of its height. A wave 32 cells long loses 4 v sin^2(pi / 32), 0.04%. */
    int16_t c0 = one_step(chk, 0, 5, 5), c1 = one_step(chk, 655, 5, 5);
    int16_t l0 = one_step(lng, 0, 32, 5), l1 = one_step(lng, 655, 32, 5); /* a crest */
    print_message("checkerboard %d -> %d, long wave %d -> %d\n", c0, c1, l0, l1);
    assert_int_equal(c0, -1000);
    assert_int_equal(c1, -920);
    assert_true(l1 < l0 && l1 >= l0 - 6); /* 0.04% of about 9900: 4 */
}

/* Radius of the leading wavefront in one direction: the largest r where |h| (bilinear)
 * reaches thr. Floating point only measures here. */
static double front(const int16_t *h, int n, double th, double thr)
{
    for (double r = n / 2 - 2; r > 0; r -= 0.25) {
        double x = n / 2 + r * cos(th), y = n / 2 + r * sin(th);
        int x0 = (int)floor(x), y0 = (int)floor(y);
        double fx = x - x0, fy = y - y0;
        const int16_t *p = h + y0 * n + x0;
        double v =
            (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[n] + fx * p[n + 1]);
        if (fabs(v) >= thr)
            return r;
    }
    return 0;
}

/* rockpool(1) FRAME LOOP, rockpool-scene(5): `iso` ripples are measurably rounder than stencil 4's.
 * One drop at the centre of 401x401, 150 steps; spread (max - min) / mean of the front over 360
 * directions must be under half of stencil 4's (bench/roundness prints the figures). */
static void test_iso_is_rounder(void **state)
{
    (void)state;
    const int n = 401;
    double spread[3] = {0, 0, 0};
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st += 2) {
        rp_water *w = make(n, n, st, RP_BOUNDARY_WALL, 5, 0);
        rp_drop d = {n / 2, n / 2, 3, 8000, RP_SHAPE_COSINE, RP_MODE_ADD};
        rp_water_drop(w, &d);
        for (int i = 0; i < 150; i++)
            rp_water_step(w, NULL);
        const int16_t *h = rp_water_heights(w);
        int peak = 0;
        for (int i = 0; i < n * n; i++)
            peak = abs(h[i]) > peak ? abs(h[i]) : peak;
        double mn = 1e9, mx = 0, sum = 0;
        for (int a = 0; a < 360; a++) {
            double r = front(h, n, a * M_PI / 180, 0.1 * peak);
            mn = r < mn ? r : mn;
            mx = r > mx ? r : mx;
            sum += r;
        }
        spread[st] = (mx - mn) / (sum / 360);
        rp_water_free(&w);
    }
    print_message("front spread: stencil 4 %.4f, iso %.4f\n", spread[RP_STENCIL_4],
                  spread[RP_STENCIL_ISO]);
    assert_true(spread[RP_STENCIL_4] > 0.02);
    assert_true(spread[RP_STENCIL_ISO] < spread[RP_STENCIL_4] / 2);
}

static void test_bad_params(void **state)
{
    (void)state;
    rp_water *w = (rp_water *)1;
    rp_water_params p = {0, 10, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0, 0};
    assert_int_equal(rp_water_new(&w, &p), RP_ERR_INVALID);
    assert_null(w);
    p.width = 16385;
    assert_int_equal(rp_water_new(&w, &p), RP_ERR_INVALID);
    p.width = 10;
    p.damping_shift = 0;
    assert_int_equal(rp_water_new(&w, &p), RP_ERR_INVALID);
    p.damping_q16 = 65537;
    assert_int_equal(rp_water_new(&w, &p), RP_ERR_INVALID);
    rp_water_free(NULL);
    rp_water_free(&w);
}

/* One step of `boundary wall` as the product's contract states it, written out plainly
 * for any size, stencil and damping: every interior cell becomes sat16(damp(S - prev)),
 * the edges stay 0; with viscosity v (0 = none) every interior cell then becomes
 * h + round(v (N + S + E + W - 4 h) / 65536) from the new heights before any moved; then
 * the buffers swap. */
static void plain_visc_step(int16_t *cur, int16_t *prev, int w, int h, enum rp_stencil st,
                            int shift, int32_t q, int32_t v)
{
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const int16_t *u = cur + (y - 1) * w, *m = cur + y * w, *d = cur + (y + 1) * w;
            int32_t s4 = m[x - 1] + m[x + 1] + u[x] + d[x];
            int32_t dg = u[x - 1] + u[x + 1] + d[x - 1] + d[x + 1];
            int32_t sum = st == RP_STENCIL_4   ? s4 >> 1
                          : st == RP_STENCIL_8 ? (s4 + dg) >> 2
                                               : (4 * s4 + dg + 12 * m[x]) >> 4;
            int64_t n = sum - prev[y * w + x];
            n = q ? n * q / 65536 : n - (n >> shift);
            prev[y * w + x] = (int16_t)(n > 32767 ? 32767 : n < -32768 ? -32768 : n);
        }
    if (v) {
        int16_t *nw = malloc(sizeof(int16_t) * w * h);
        memcpy(nw, prev, sizeof(int16_t) * w * h);
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++) {
                int32_t c = nw[y * w + x];
                int32_t lap = nw[(y - 1) * w + x] + nw[(y + 1) * w + x] + nw[y * w + x - 1] +
                              nw[y * w + x + 1] - 4 * c;
                prev[y * w + x] = (int16_t)(c + (int32_t)floor((lap * (double)v + 32768) / 65536));
            }
        free(nw);
    }
    for (int i = 0; i < w * h; i++) {
        int16_t t = cur[i];
        cur[i] = prev[i];
        prev[i] = t;
    }
}

static void plain_wall_step(int16_t *cur, int16_t *prev, int w, int h, enum rp_stencil st,
                            int shift, int32_t q)
{
    plain_visc_step(cur, prev, w, h, st, shift, q, 0);
}

/* rp_water_steps (rows advanced several steps in cache, in bands per thread) against the
 * plain step above, step by step: random grids (heights over the whole int16 range, so the
 * kernels' general path, and small ones), runs of 1 to 40 steps (across the block of 16)
 * with drops between them as the engine applies items between steps, on 1, 2, 3 and 5
 * threads and at every SIMD level this machine has; sizes down to fewer interior rows than
 * threads and rows narrower than a vector. */
static void test_blocked_steps_equal_plain(void **state)
{
    (void)state;
    static const int sizes[][2] = {{70, 45}, {37, 9}, {10, 5}, {129, 64}};
    static const int threads[] = {1, 2, 3, 5};
    uint32_t seed = 12345;
    for (int lv = RP_SIMD_C; lv <= rp_simd_supported(); lv++) {
        rp_simd_set(lv);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
                for (int t = 0; t < 4; t++) {
                    const int w = sizes[z][0], h = sizes[z][1];
                    const int32_t q = (st + t) % 3 == 0 ? 0 : (st + t) % 3 == 1 ? 60000 : 65536;
                    rp_pool *pool = pool_of(threads[t]);
                    rp_water *water = make(w, h, st, RP_BOUNDARY_WALL, 5, q);
                    int16_t *cur = malloc(sizeof(int16_t) * w * h);
                    int16_t *prev = malloc(sizeof(int16_t) * w * h);
                    int big = (lv + t) % 2;
                    for (int i = 0; i < w * h; i++) {
                        seed = seed * 1103515245u + 12345u;
                        cur[i] = (int16_t)(big ? (int32_t)(seed >> 16) - 32768
                                               : (int32_t)(seed >> 20) % 600 - 300);
                        seed = seed * 1103515245u + 12345u;
                        prev[i] = (int16_t)(big ? (int32_t)(seed >> 16) - 32768
                                                : (int32_t)(seed >> 20) % 600 - 300);
                    }
                    rp_water_load(water, cur, prev);
                    memcpy(cur, rp_water_heights(water), sizeof(int16_t) * w * h);
                    memcpy(prev, rp_water_prev(water), sizeof(int16_t) * w * h);
                    for (int run = 0; run < 8; run++) {
                        seed = seed * 1103515245u + 12345u;
                        int n = 1 + (int)(seed >> 16) % 40;
                        rp_water_steps(water, pool, n);
                        for (int i = 0; i < n; i++)
                            plain_wall_step(cur, prev, w, h, st, 5, q);
                        assert_memory_equal(rp_water_heights(water), cur, sizeof(int16_t) * w * h);
                        assert_memory_equal(rp_water_prev(water), prev, sizeof(int16_t) * w * h);
                        assert_true(rp_water_bounds_hold(water));
                        rp_drop d = {(int32_t)(seed >> 8) % w,
                                     (int32_t)(seed >> 4) % h,
                                     4,
                                     big ? 20000 : 900,
                                     RP_SHAPE_DISC,
                                     RP_MODE_ADD};
                        rp_water_drop(water, &d);
                        memcpy(cur, rp_water_heights(water), sizeof(int16_t) * w * h);
                    }
                    free(cur);
                    free(prev);
                    rp_water_free(&water);
                    rp_pool_free(&pool);
                }
    }
    rp_simd_set(-1);
}

/* A loaded state's rows bounds and still flags come from the cells: rows all 0, all
 * negative (whose bound is the smallest cell's), all positive and mixed, at every vector
 * level, on one thread and on two. A row all negative taken as still, or bounded by its
 * largest cell, gives other heights than the plain step. */
static void test_load_measures_rows(void **state)
{
    (void)state;
    enum { LW = 67, LH = 9 };
    static const int16_t lo[LH] = {0, -32768, 1, -300, 0, -1, 0, -9000, 0};
    static const int16_t hi[LH] = {0, -2, 32767, 300, 0, -1, 0, -1, 5};
    int16_t cur[LW * LH], prev[LW * LH];
    for (int y = 0; y < LH; y++)
        for (int x = 0; x < LW; x++) {
            int span = hi[y] - lo[y] + 1;
            cur[y * LW + x] = (int16_t)(lo[y] + (x * 37 + y) % span);
            prev[y * LW + x] =
                (int16_t)(lo[(y + 3) % LH] + (x * 11) % (hi[(y + 3) % LH] - lo[(y + 3) % LH] + 1));
        }
    for (int lv = RP_SIMD_C; lv <= rp_simd_supported(); lv++)
        for (int t = 1; t <= 2; t++)
            for (int n = 1; n <= 3; n++) {
                rp_simd_set(lv);
                rp_pool *pool = pool_of(t);
                rp_water *water = make(LW, LH, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0);
                rp_water_load(water, cur, prev);
                assert_true(rp_water_bounds_hold(water));
                int16_t c[LW * LH], p[LW * LH];
                memcpy(c, rp_water_heights(water), sizeof c);
                memcpy(p, rp_water_prev(water), sizeof p);
                rp_water_steps(water, pool, n);
                for (int i = 0; i < n; i++)
                    plain_wall_step(c, p, LW, LH, RP_STENCIL_4, 5, 0);
                assert_memory_equal(rp_water_heights(water), c, sizeof c);
                assert_memory_equal(rp_water_prev(water), p, sizeof p);
                assert_true(rp_water_bounds_hold(water));
                rp_water_free(&water);
                rp_pool_free(&pool);
            }
    rp_simd_set(-1);
}

/* Still rows: drops at one end of a tall grid, the rest still until the rings reach it and
 * still again after they die out (the factor damping truncates to 0), then a drop at the
 * other end: the step skips still rows, which must not change a cell. Every step against
 * the plain step above, with the rockpool preset's iso stencil, factor damping and
 * viscosity (and without), on 1 and 2 threads. */
static void test_still_rows_skipped_exactly(void **state)
{
    (void)state;
    const int w = 41, h = 150;
    for (int visc = 0; visc < 2; visc++)
        for (int t = 1; t <= 2; t++) {
            rp_pool *pool = pool_of(t);
            rp_water *water = NULL;
            rp_water_params p = {w, h, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 0, 62000, visc ? 3000 : 0};
            assert_int_equal(rp_water_new(&water, &p), RP_OK);
            int16_t *cur = calloc((size_t)w * h, sizeof *cur);
            int16_t *prev = calloc((size_t)w * h, sizeof *prev);
            for (int i = 0; i < 700; i++) {
                if (i == 0 || i == 400) {
                    rp_drop d = {20, i ? h - 8 : 6, 4, 3000, RP_SHAPE_SMOOTH, RP_MODE_ADD};
                    rp_water_drop(water, &d);
                    memcpy(cur, rp_water_heights(water), sizeof(int16_t) * w * h);
                }
                rp_water_steps(water, pool, 1 + i % 3);
                for (int k = 0; k < 1 + i % 3; k++)
                    plain_visc_step(cur, prev, w, h, RP_STENCIL_ISO, 0, 62000, visc ? 3000 : 0);
                assert_memory_equal(rp_water_heights(water), cur, sizeof(int16_t) * w * h);
                assert_true(rp_water_bounds_hold(water));
            }
            free(cur);
            free(prev);
            rp_water_free(&water);
            rp_pool_free(&pool);
        }
}

/* A grid under 32768 cells steps on the calling thread alone (a preroll of millions of steps
 * of a tiny grid paid the pool's hand-off on each), the same bytes; a larger one shares its
 * rows with the pool. Counted by the pool's jobs. */
static void test_small_grid_steps_alone(void **state)
{
    (void)state;
    rp_water_set_share_cells(-1);
    rp_pool *pool = pool_of(2);
    static const int sides[][2] = {{16, 16}, {181, 181}, {256, 128}, {640, 360}};
    for (int i = 0; i < 4; i++) {
        int gw = sides[i][0], gh = sides[i][1];
        rp_water_params p = {gw, gh, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 0, 65000, 655};
        rp_water *a = NULL, *b = NULL;
        assert_int_equal(rp_water_new(&a, &p), RP_OK);
        assert_int_equal(rp_water_new(&b, &p), RP_OK);
        rp_drop d = {gw / 2, gh / 2, 3, 3000, RP_SHAPE_DISC, RP_MODE_ADD};
        rp_water_drop(a, &d);
        rp_water_drop(b, &d);
        unsigned long jobs = rp_pool_jobs(pool);
        for (int k = 0; k < 20; k++) {
            rp_water_step(a, pool);
            rp_water_step(b, NULL);
        }
        if (gw * gh < 32768)
            assert_int_equal(rp_pool_jobs(pool), jobs);
        else /* a pool of one thread (WebAssembly has no threads) runs every job inline */
            assert_true(rp_pool_jobs(pool) > jobs || rp_pool_threads(pool) == 1);
        assert_memory_equal(rp_water_heights(a), rp_water_heights(b),
                            (size_t)gw * gh * sizeof(int16_t));
        rp_water_free(&a);
        rp_water_free(&b);
    }
    rp_pool_free(&pool);
    rp_water_set_share_cells(0);
}

int main(void)
{
    rp_water_set_share_cells(0); /* the small grids below exercise the threads */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elias_step_matches_seed_loop),
        cmocka_unit_test(test_codeproject_step_matches_seed_loop),
        cmocka_unit_test(test_one_step_by_hand),
        cmocka_unit_test(test_factor_damping_by_hand),
        cmocka_unit_test(test_drop_shapes_cover),
        cmocka_unit_test(test_cosine_profile_vs_libm),
        cmocka_unit_test(test_splash_profile_vs_formula),
        cmocka_unit_test(test_isqrt),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_open_boundary_absorbs),
        cmocka_unit_test(test_wall_edges_stay_zero_and_wrap_crosses),
        cmocka_unit_test(test_wall_cells_held),
        cmocka_unit_test(test_threads_do_not_change_heights),
        cmocka_unit_test(test_iso_is_rounder),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_viscosity_matches_transcription),
        cmocka_unit_test(test_viscosity_damps_short_waves),
        cmocka_unit_test(test_blocked_steps_equal_plain),
        cmocka_unit_test(test_load_measures_rows),
        cmocka_unit_test(test_still_rows_skipped_exactly),
        cmocka_unit_test(test_small_grid_steps_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
