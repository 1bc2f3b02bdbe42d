/* test_simd.c - rockpool's checkasm: every table of vector kernels (base/cpu.h) against
 * the plain C reference, byte for byte, at every level this CPU has.
 * - Which entries each level fills, for every table (on any CPU: the tables of levels the
 *   CPU lacks are filled too), so a kernel left out of its table fails here.
 * - The step: every stencil, damping and boundary over random fields that reach the int16
 *   limits and the edges of the kernels' small-height path, odd widths, drops and walls
 *   between steps, 1, 2 and 7 threads.
 * - The render: every mode and parameter kind.
 * - The light, the upscale, the YUV converter, the PNG filter and the MD5 of eight: each
 *   entry called directly where its arguments are plain (with guard bytes that must stay
 *   untouched), else through its module at every level against the C level.
 * The plain C paths themselves are checked against independent references in the modules'
 * own tests (test_water.c, test_render.c, test_light.c, test_upscale.c, test_yuv.c,
 * test_pngfilter.c, test_md5x8.c).
 * Built for wasm32 too (make web-tests, run under Node by tests/cli/web_units.sh), where
 * the 128-bit level is the step's SIMD128 kernels (src/wasm/): there the core's tables are
 * tested (the YUV, PNG and MD5 ones belong to the library outside the core, which the
 * playground does not build) and every thread count is the caller's thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __wasi__
#include <libavutil/md5.h>
#endif

#include "base/cpu.h"
#include "base/pool.h"
#ifndef __wasi__
#include "check/md5x8.h"
#include "check/md5x8_simd.h"
#endif
#include "look/light.h"
#include "look/light_simd.h"
#include "look/render.h"
#include "look/render_simd.h"
#include "look/texture.h"
#include "look/upscale.h"
#include "look/upscale_simd.h"
#ifndef __wasi__
#include "output/pngfilter.h"
#include "output/pngfilter_simd.h"
#include "output/yuv.h"
#include "output/yuv_simd.h"
#endif
#include "sim/water.h"
#include "sim/water_simd.h"
#include "x86/light_water.h"

#define STEPS 16

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Kinds of fields: the kernels take their int16 path only below 4096 (stencils 8, iso) or
 * 8192 (stencil 4), so values sit on both sides of those edges and at the int16 limits. */
enum field { F_LIMITS, F_SMALL8, F_SMALL4, F_EDGES, F_MIXED_ROWS, F_COUNT };

static int16_t pick(enum field f, uint32_t *s)
{
    static const int16_t limits[] = {-32768, 32767, -32767, 32766, 0};
    static const int16_t edges[] = {-4097, -4096, 4095, 4096, -8193, -8192, 8191, 8192, 0, -1};
    uint32_t r = next(s);
    switch (f) {
    case F_LIMITS: return r % 3 ? limits[r / 3 % 5] : (int16_t)(r % 65536 - 32768);
    case F_SMALL8: return r % 3 ? (r / 3 % 2 ? -4096 : 4095) : (int16_t)(r % 8192 - 4096);
    case F_SMALL4: return r % 3 ? (r / 3 % 2 ? -8192 : 8191) : (int16_t)(r % 16384 - 8192);
    case F_EDGES: return edges[r % 10];
    default: return 0;
    }
}

static void fill(int16_t *buf, int w, int h, enum field f, uint32_t *s)
{
    for (int y = 0; y < h; y++) {
        enum field row = f;
        if (f == F_MIXED_ROWS) /* whole rows of one kind, some still */
            row = (enum field)(next(s) % 5);
        for (int x = 0; x < w; x++)
            buf[(size_t)y * w + x] = row == F_MIXED_ROWS ? 0 : pick(row, s);
    }
}

struct step_case {
    int w, h;
    enum rp_stencil stencil;
    enum rp_boundary boundary;
    int shift;
    int32_t q16;
    enum field field;
    uint32_t seed;
};

/* Run a case at one SIMD level; record the heights after every step in snaps (record) or
 * compare them with it. */
static void run_steps(const struct step_case *c, int level, rp_pool *pool, int16_t *snaps,
                      int record)
{
    size_t cells = (size_t)c->w * c->h;
    uint32_t s = c->seed;
    int16_t *cur = malloc(cells * sizeof *cur), *prev = malloc(cells * sizeof *prev);
    rp_water *w = NULL;
    rp_water_params p = {c->w, c->h, c->stencil, c->boundary, c->shift, c->q16, 0};
    assert_non_null(cur);
    assert_non_null(prev);
    assert_int_equal(rp_water_new(&w, &p), RP_OK);
    assert_int_equal(rp_simd_set(level), level);
    fill(cur, c->w, c->h, c->field, &s);
    fill(prev, c->w, c->h, c->field, &s);
    rp_water_load(w, cur, prev);
    if (c->field == F_MIXED_ROWS && c->w > 4)
        rp_water_add_wall_rect(w, c->w / 3, 0, 2, c->h / 2 + 1);
    for (int i = 0; i < STEPS; i++) {
        if (i % 4 == 3) {
            /* A drop into a settled field: its rows must leave the small path. */
            rp_drop d = {(int32_t)(next(&s) % (uint32_t)c->w),
                         (int32_t)(next(&s) % (uint32_t)c->h),
                         (int32_t)(next(&s) % 4),
                         i == 3 ? 30000 : -700,
                         i == 7 ? RP_SHAPE_COSINE : RP_SHAPE_DISC,
                         i == 11 ? RP_MODE_SET : RP_MODE_ADD};
            rp_water_drop(w, &d);
            assert_true(rp_water_bounds_hold(w));
        }
        if (i == 9) {
            /* A checkpoint restore in the middle. */
            fill(cur, c->w, c->h, c->field, &s);
            fill(prev, c->w, c->h, F_SMALL8, &s);
            rp_water_load(w, cur, prev);
        }
        rp_water_step(w, pool);
        assert_true(rp_water_bounds_hold(w));
        int16_t *snap = snaps + (size_t)i * 2 * cells;
        if (record) {
            memcpy(snap, rp_water_heights(w), cells * sizeof *snap);
            memcpy(snap + cells, rp_water_prev(w), cells * sizeof *snap);
        } else {
            if (memcmp(snap, rp_water_heights(w), cells * sizeof *snap) ||
                memcmp(snap + cells, rp_water_prev(w), cells * sizeof *snap))
                print_error("step %d differs: %dx%d stencil %d boundary %d shift %d q16 %d "
                            "field %d level %d threads %d\n",
                            i, c->w, c->h, (int)c->stencil, (int)c->boundary, c->shift, (int)c->q16,
                            (int)c->field, level, rp_pool_threads(pool));
            assert_memory_equal(snap, rp_water_heights(w), cells * sizeof *snap);
            assert_memory_equal(snap + cells, rp_water_prev(w), cells * sizeof *snap);
        }
    }
    rp_water_free(&w);
    free(cur);
    free(prev);
    rp_simd_set(-1);
}

static rp_pool *pools[8]; /* index = thread count: 1, 2 and 7 */

static int setup(void **state)
{
    (void)state;
#ifdef __wasi__
    return 0; /* no threads: every pool is NULL, the caller's thread */
#endif
    if (rp_pool_new(&pools[1], 1) || rp_pool_new(&pools[2], 2) || rp_pool_new(&pools[7], 7))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rp_pool_free(&pools[1]);
    rp_pool_free(&pools[2]);
    rp_pool_free(&pools[7]);
    rp_simd_set(-1);
    return 0;
}

/* Compare every SIMD level the CPU has with the plain C path on one case; the thread count
 * cycles with `which` so all three are used across the cases (7 threads, the slowest to
 * start and stop on a small machine, least often). */
static void compare_case(const struct step_case *c, int which)
{
    static const int threads[32] = {[7] = 2, [15] = 1, [23] = 7, [31] = 2}; /* 0: no pool */
    size_t cells = (size_t)c->w * c->h;
    int16_t *snaps = malloc((size_t)STEPS * 2 * cells * sizeof *snaps);
    assert_non_null(snaps);
    run_steps(c, RP_SIMD_C, NULL, snaps, 1);
    for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++)
        run_steps(c, level, pools[threads[(which + level) % 32]], snaps, 0);
    free(snaps);
}

static void test_level_control(void **state)
{
    (void)state;
    int have = rp_simd_supported();
    assert_true(have >= RP_SIMD_C && have <= RP_SIMD_MAX);
    assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
    assert_int_equal(rp_simd_level(), RP_SIMD_C);
    assert_int_equal(rp_simd_set(-1), have);
    assert_int_equal(rp_simd_set(RP_SIMD_MAX), have);
    /* A cap below what the CPU has is what runs: each lower path can be forced. */
    for (int level = RP_SIMD_C; level <= have; level++) {
        assert_int_equal(rp_simd_set(level), level);
        assert_int_equal(rp_simd_level(), level);
    }
    assert_int_equal(rp_simd_set(RP_SIMD_MAX + 1), have);
    assert_int_equal(rp_simd_set(-1), have);
    print_message("simd: this CPU runs level %d (0 C, 1 SSE2 or SIMD128, 2 AVX2, 3 AVX-512)\n",
                  have);
}

/* The stencil sum and damping of one cell, transcribed from water.h's definitions. */
static int32_t ref_cell(enum rp_stencil s, const int16_t *u, const int16_t *m, const int16_t *d,
                        int x, int16_t prev, int shift, int32_t q16)
{
    int32_t sum, n;
    if (s == RP_STENCIL_4)
        sum = ((int32_t)m[x - 1] + m[x + 1] + u[x] + d[x]) >> 1;
    else if (s == RP_STENCIL_8)
        sum = ((int32_t)u[x - 1] + u[x] + u[x + 1] + m[x - 1] + m[x + 1] + d[x - 1] + d[x] +
               d[x + 1]) >>
              2;
    else
        sum = (4 * ((int32_t)m[x - 1] + m[x + 1] + u[x] + d[x]) +
               ((int32_t)u[x - 1] + u[x + 1] + d[x - 1] + d[x + 1]) + 12 * (int32_t)m[x]) >>
              4;
    n = sum - prev;
    n = q16 ? (int32_t)((int64_t)n * q16 / 65536) : n - (n >> shift);
    return n < INT16_MIN ? INT16_MIN : n > INT16_MAX ? INT16_MAX : n;
}

static int mag16(int16_t v)
{
    return v ^ (v >> 15);
}

/* Each kernel called directly on one row: every stencil, damping kind, SIMD level, row length
 * 1..80 and alignment of the row (0..31 cells past a 64-byte boundary, every alignment of
 * the widest, AVX-512, vector), on the small path
 * and the wide one. Against the transcription above, with guard cells on both sides that
 * must stay untouched, and the returned magnitude exact. The kernels' aligned main loop and
 * the first and last vectors stored after it are exercised at every offset. */
static void test_span_every_alignment(void **state)
{
    static const struct {
        int shift;
        int32_t q16;
    } damps[] = {{5, 0}, {1, 0}, {30, 0}, {5, 61604}, {5, 65536}, {5, 1}};
    enum { CELLS = 160 };
    int16_t *rows[5];
    uint32_t seed = 99;
    (void)state;

    for (int i = 0; i < 5; i++) {
        rows[i] = aligned_alloc(64, CELLS * sizeof(int16_t));
        assert_non_null(rows[i]);
    }
    for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++)
        for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
            for (size_t di = 0; di < sizeof damps / sizeof damps[0]; di++)
                for (int n = 1; n <= 80; n++)
                    for (int off = 0; off < 32; off++)
                        for (int wide = 0; wide < 2; wide++) {
                            enum rp_stencil sten = (enum rp_stencil)st;
                            enum field f = wide                   ? F_LIMITS
                                           : sten == RP_STENCIL_4 ? F_SMALL4
                                                                  : F_SMALL8;
                            int16_t *u = rows[0] + 16 + off, *m = rows[1] + 16 + off,
                                    *d = rows[2] + 16 + off, *out = rows[3] + 16 + off,
                                    *orig = rows[4] + 16 + off;
                            int in_mag = 0, mag = -1, want_mag = 0;
                            for (int k = 0; k < CELLS; k++) {
                                rows[0][k] = pick(f, &seed);
                                rows[1][k] = pick(f, &seed);
                                rows[2][k] = pick(f, &seed);
                                rows[3][k] = rows[4][k] = pick(f, &seed);
                            }
                            for (int x = -1; x <= n; x++) {
                                int a = mag16(u[x]), b = mag16(m[x]), c = mag16(d[x]);
                                int e = x >= 0 && x < n ? mag16(out[x]) : 0;
                                int mx = a > b ? a : b;
                                mx = mx > c ? mx : c;
                                mx = mx > e ? mx : e;
                                in_mag = mx > in_mag ? mx : in_mag;
                            }
                            int32_t q = damps[di].q16;
                            rp_span_fn fn =
                                rp_water_dsp_level(level)->span[sten][q == 0       ? RP_DAMP_SHIFT
                                                                      : q == 65536 ? RP_DAMP_NONE
                                                                                   : RP_DAMP_Q16];
                            assert_non_null(fn);
                            int k =
                                fn(u, m, d, out, n, damps[di].shift, damps[di].q16, in_mag, &mag);
                            assert_int_equal(k, n >= 8 ? n : 0);
                            for (int x = -16 - off; x < CELLS - 16 - off; x++) {
                                int16_t want = orig[x];
                                if (x >= 0 && x < k) {
                                    want = (int16_t)ref_cell(sten, u, m, d, x, orig[x],
                                                             damps[di].shift, damps[di].q16);
                                    want_mag = mag16(want) > want_mag ? mag16(want) : want_mag;
                                }
                                if (out[x] != want)
                                    fail_msg("level %d stencil %d damping %d n %d offset %d wide "
                                             "%d: cell %d is %d, want %d",
                                             level, st, (int)di, n, off, wide, x, out[x], want);
                            }
                            if (k)
                                assert_int_equal(mag, want_mag);
                        }
    for (int i = 0; i < 5; i++)
        free(rows[i]);
}

static void test_step_matches_plain_c(void **state)
{
    (void)state;
    static const int widths[] = {1, 2, 3, 10, 15, 16, 17, 18, 33, 34, 41, 1000};
    static const int heights[] = {1, 2, 3, 8};
    static const struct {
        int shift;
        int32_t q16;
    } damps[] = {{1, 0}, {5, 0}, {13, 0}, {30, 0}, {5, 61604}, {5, 65536}, {5, 1}, {5, 32769}};
    int which = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
            if (widths[wi] == 1000 && heights[hi] != 8)
                continue;
            for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
                for (int b = RP_BOUNDARY_WALL; b <= RP_BOUNDARY_WRAP; b++)
                    for (size_t di = 0; di < sizeof damps / sizeof damps[0]; di++)
                        for (int f = 0; f < F_COUNT; f++) {
                            struct step_case c = {widths[wi],          heights[hi],
                                                  (enum rp_stencil)st, (enum rp_boundary)b,
                                                  damps[di].shift,     damps[di].q16,
                                                  (enum field)f,       1234u + (uint32_t)which};
                            compare_case(&c, which++);
                        }
        }
}

/* A field built so a step's new edge cells (open: Mur's condition; wrap: the seam cells)
 * are large while the row's interior comes out small: the row's magnitude bound must still
 * cover the edges, or the next step would take the int16 path over them. */
static void test_step_edge_cells_bound_rows(void **state)
{
    (void)state;
    const int w = 40, h = 9;
    size_t cells = (size_t)w * h;
    int16_t *cur = malloc(cells * sizeof *cur), *prev = malloc(cells * sizeof *prev);
    int16_t *ref = malloc(6 * cells * sizeof *ref);
    assert_non_null(cur);
    assert_non_null(prev);
    assert_non_null(ref);
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
        for (int b = RP_BOUNDARY_WALL; b <= RP_BOUNDARY_WRAP; b++)
            for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
                rp_water *water = NULL;
                rp_water_params p = {w, h, (enum rp_stencil)st, (enum rp_boundary)b, 5, 0, 0};
                uint32_t s = 5;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        size_t i = (size_t)y * w + x;
                        cur[i] = (int16_t)(next(&s) % 200 - 100);
                        prev[i] = (int16_t)(next(&s) % 200 - 100);
                        if (x == 1 || x == w - 2)
                            cur[i] = x == 1 ? 30000 : -30000;
                        if (x == 2 || x == w - 3) /* cancels the interior's large sums */
                            prev[i] = x == 2 ? 15000 : -15000;
                    }
                assert_int_equal(rp_water_new(&water, &p), RP_OK);
                rp_simd_set(level);
                rp_water_load(water, cur, prev);
                for (int i = 0; i < 6; i++) {
                    rp_water_step(water, pools[2]);
                    assert_true(rp_water_bounds_hold(water));
                    if (level == RP_SIMD_C)
                        memcpy(ref + i * cells, rp_water_heights(water), cells * sizeof *ref);
                    else
                        assert_memory_equal(ref + i * cells, rp_water_heights(water),
                                            cells * sizeof *ref);
                }
                rp_water_free(&water);
                rp_simd_set(-1);
            }
    free(cur);
    free(prev);
    free(ref);
}

/* Realistic use: rain on a mid-sized pool for many steps, where most rows stay on the small
 * path and rows near fresh drops do not; every thread count at every level. */
static void test_step_rain_all_threads(void **state)
{
    (void)state;
    const int w = 211, h = 157, steps = 120;
    size_t cells = (size_t)w * h;
    int16_t *ref = malloc(cells * sizeof *ref);
    assert_non_null(ref);
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++)
        for (int b = RP_BOUNDARY_WALL; b <= RP_BOUNDARY_WRAP; b++)
            for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++)
                for (int t = 0; t < 3; t++) {
                    static const int threads[] = {1, 2, 7};
                    rp_water *water = NULL;
                    rp_water_params p = {w,
                                         h,
                                         (enum rp_stencil)st,
                                         (enum rp_boundary)b,
                                         6,
                                         b == RP_BOUNDARY_OPEN ? 64880 : 0,
                                         st == RP_STENCIL_ISO ? 655 : 0};
                    uint32_t s = 99;
                    assert_int_equal(rp_water_new(&water, &p), RP_OK);
                    rp_simd_set(level);
                    for (int i = 0; i < steps; i++) {
                        rp_drop d = {(int32_t)(next(&s) % w),
                                     (int32_t)(next(&s) % h),
                                     3 + (int32_t)(next(&s) % 7),
                                     i % 40 == 0 ? 9000 : 300 + (int32_t)(next(&s) % 601),
                                     RP_SHAPE_COSINE,
                                     RP_MODE_ADD};
                        if (i % 3 == 0)
                            rp_water_drop(water, &d);
                        rp_water_step(water, pools[threads[t]]);
                    }
                    if (level == RP_SIMD_C && t == 0)
                        memcpy(ref, rp_water_heights(water), cells * sizeof *ref);
                    else
                        assert_memory_equal(ref, rp_water_heights(water), cells * sizeof *ref);
                    rp_water_free(&water);
                    rp_simd_set(-1);
                }
    free(ref);
}

/* Render one frame at the plain C level and at every vector level, with the first nthreads
 * of the thread counts 1, 2, 7; buffers are exactly w*h*3 bytes so a sanitizer sees any
 * read past the texture. */
static void compare_render_threads(const rp_render_params *p, const int16_t *hf, int w, int h,
                                   const uint8_t *tex, int nthreads)
{
    static const int threads[] = {1, 2, 7};
    size_t bytes = (size_t)w * h * 3;
    uint8_t *want = malloc(bytes), *got = malloc(bytes);
    assert_non_null(want);
    assert_non_null(got);
    rp_simd_set(RP_SIMD_C);
    rp_render_frame(p, hf, w, h, tex, want, NULL);
    for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++)
        for (int t = 0; t < nthreads; t++) {
            rp_simd_set(level);
            memset(got, 0xa5, bytes);
            rp_render_frame(p, hf, w, h, tex, got, pools[threads[t]]);
            if (memcmp(want, got, bytes))
                print_error("render differs: %dx%d mode %d R %d light %d,%d shading %d level %d "
                            "threads %d\n",
                            w, h, (int)p->mode, p->refraction, p->light_x, p->light_y, p->shading,
                            level, threads[t]);
            assert_memory_equal(want, got, bytes);
        }
    rp_simd_set(-1);
    free(want);
    free(got);
}

static void compare_render(const rp_render_params *p, const int16_t *hf, int w, int h,
                           const uint8_t *tex)
{
    compare_render_threads(p, hf, w, h, tex, 3);
}

static void test_render_matches_plain_c(void **state)
{
    (void)state;
    static const struct {
        int w, h;
    } sizes[] = {{1, 1}, {2, 3}, {3, 3}, {9, 4}, {10, 10}, {17, 5}, {33, 9}, {100, 37}, {1000, 6}};
    static const rp_render_params params[] = {
        {RP_RENDER_OFFSET, 0, 1, 0, 1},     {RP_RENDER_OFFSET, 0, 1, -1, 2},
        {RP_RENDER_OFFSET, 3, 0, 0, 0},     {RP_RENDER_OFFSET, 2, 1, -1, 4},
        {RP_RENDER_OFFSET, 1, -3, 2, -7},   {RP_RENDER_OFFSET, 15, -16, 16, 1024},
        {RP_RENDER_OFFSET, 5, 16, 16, -1},  {RP_RENDER_OFFSET, 0, 128, 128, 3},
        {RP_RENDER_OFFSET, 0, -200, 56, 1}, {RP_RENDER_OFFSET, 4, 300, 0, 9},
        {RP_RENDER_OFFSET, 31, 1, 1, 1},    {RP_RENDER_OFFSET, 0, 7, -5, 16777215},
        {RP_RENDER_OFFSET, 0, 1, 0, 0},     {RP_RENDER_LENS, 0, 0, 0, 0},
    };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int f = 0; f < F_COUNT; f++) {
            int w = sizes[si].w, h = sizes[si].h;
            size_t cells = (size_t)w * h;
            int16_t *hf = malloc(cells * sizeof *hf);
            uint8_t *tex = malloc(cells * 3);
            uint32_t s = 77u + (uint32_t)(si * 16 + f);
            assert_non_null(hf);
            assert_non_null(tex);
            fill(hf, w, h, (enum field)f, &s);
            for (size_t i = 0; i < cells * 3; i++)
                tex[i] = (uint8_t)next(&s);
            for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
                compare_render(&params[k], hf, w, h, tex);
            free(hf);
            free(tex);
        }
}

/* The vector shading divides in float, exact only while |dx*lx + dy*ly| < 2^24; beyond
 * that (a light no scene can set) the plain loop must do the row. Here dx = 56000 and
 * dy = 239 give 16800239 with light (300, 1): as a float that is 16800240 = 240 * 70001,
 * while the C quotient truncates to 239. */
static void test_render_shading_beyond_float(void **state)
{
    (void)state;
    const int w = 12, h = 5;
    int16_t hf[5 * 12] = {0};
    uint8_t tex[5 * 12 * 3];
    const rp_render_params p = {RP_RENDER_OFFSET, 15, 300, 1, 70001};
    memset(tex, 10, sizeof tex);
    hf[2 * w + 3] = 28000;
    hf[2 * w + 5] = -28000;
    hf[1 * w + 4] = 239;
    compare_render(&p, hf, w, h, tex);
}

/* Mostly still water, as on a typical frame: the kernels copy blocks of 8 and 16 pixels
 * whose offsets and shading are all 0 straight from the texture (and lens blocks whose
 * texels are their own), so these fields put small disturbances right at and next to the
 * edges of those blocks, the frame's first and last rows and columns, and the limits of
 * the calm test (dx >> R going from -1 to 0 to 1, |num| reaching |shading|, int16 extremes
 * whose differences saturate). */
enum calm_field { C_SPARSE, C_PLACED, C_RAMP, C_LIMITS, C_COUNT };

static void fill_calm(int16_t *hf, int w, int h, enum calm_field f, uint32_t *s)
{
    static const int16_t amps[] = {1, 2, 3, 4, 5, 8, 9, 17, 33, 40, 100, 16385};
    static const int16_t limits[] = {-32768, 32767, 16384, -16384, 16383, 1};
    for (int y = 0; y < h; y++) {
        int16_t amp = amps[next(s) % 12];
        int slope = (int)(next(s) % 7) - 3, spike = (int)(next(s) % (uint32_t)w);
        for (int x = 0; x < w; x++) {
            int16_t *c = &hf[(size_t)y * w + x];
            uint32_t r = next(s);
            switch (f) {
            case C_SPARSE: /* a few bumps of one size per row, the rest flat */
                *c = r % 13 ? 0 : (int16_t)((int)(r / 13 % (2u * amp + 1)) - amp);
                break;
            case C_PLACED: /* one bump per row, walking over the columns */
                *c = x == spike || x == (y * 5 + 1) % w ? amp : 0;
                break;
            case C_RAMP: /* dx = -2 * slope on whole rows, a flat or leftover height */
                *c = (int16_t)(y % 3 ? slope * x : (int)(r % 3));
                break;
            default: /* still, with neighbours at the int16 limits here and there */
                *c = r % 23 ? 0 : limits[r / 23 % 6];
                break;
            }
        }
    }
}

static void test_render_calm_blocks(void **state)
{
    (void)state;
    static const int rs[] = {0, 1, 2, 3, 4, 5, 14, 15};
    static const int shadings[] = {0, 1, 2, 4, -3};
    static const int lights[][2] = {{1, -1}, {1, 0}, {0, 0}, {-16, 16}, {3, 2}, {0, -1}};
    static const int heights[] = {1, 2, 3, 5, 9};
    for (int w = 1; w <= 41; w++) {
        int ww = w == 41 ? 1000 : w, h = heights[w % 5];
        size_t cells = (size_t)ww * h;
        int16_t *hf = malloc(cells * sizeof *hf);
        uint8_t *tex = malloc(cells * 3);
        assert_non_null(hf);
        assert_non_null(tex);
        for (int f = 0; f < C_COUNT; f++) {
            uint32_t s = 5u + (uint32_t)(w * 8 + f);
            fill_calm(hf, ww, h, (enum calm_field)f, &s);
            for (size_t i = 0; i < cells * 3; i++)
                tex[i] = (uint8_t)next(&s);
            for (int ri = 0; ri < 8; ri++)
                for (int si = 0; si < 5; si++) {
                    int li = (ri + si + w + f) % 6;
                    rp_render_params p = {RP_RENDER_OFFSET, rs[ri], lights[li][0], lights[li][1],
                                          shadings[si]};
                    /* Rows are independent: one thread covers the blocks (and is quick). */
                    compare_render_threads(&p, hf, ww, h, tex, 1);
                }
            const rp_render_params lens = {RP_RENDER_LENS, 0, 0, 0, 0};
            compare_render_threads(&lens, hf, ww, h, tex, 1);
        }
        free(hf);
        free(tex);
    }
}

/* A lens frame with large heights near the centre (texels their own although h != 0) and
 * still water elsewhere, 16-pixel blocks of zeros next to blocks with one bump. */
static void test_render_lens_centre(void **state)
{
    (void)state;
    const int w = 203, h = 41;
    int16_t *hf = calloc((size_t)w * h, sizeof *hf);
    uint8_t *tex = malloc((size_t)w * h * 3);
    uint32_t s = 11;
    assert_non_null(hf);
    assert_non_null(tex);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t r = next(&s);
            if ((x > w / 2 - 20 && x < w / 2 + 20) || r % 37 == 0)
                hf[(size_t)y * w + x] = (int16_t)((int)(r % 4001) - 2000);
        }
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        tex[i] = (uint8_t)next(&s);
    const rp_render_params lens = {RP_RENDER_LENS, 0, 0, 0, 0};
    compare_render(&lens, hf, w, h, tex);
    free(hf);
    free(tex);
}

/* The built-in texture under a field that has settled from rain (the usual picture). */
static void test_render_rain_frame(void **state)
{
    (void)state;
    const int w = 257, h = 131;
    rp_water *water = NULL;
    rp_water_params wp = {w, h, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 6, 0, 0};
    uint8_t *tex = malloc((size_t)w * h * 3);
    uint32_t s = 3;
    assert_non_null(tex);
    assert_int_equal(rp_water_new(&water, &wp), RP_OK);
    for (int i = 0; i < 200; i++) {
        rp_drop d = {
            (int32_t)(next(&s) % w),         (int32_t)(next(&s) % h), 3 + (int32_t)(next(&s) % 7),
            300 + (int32_t)(next(&s) % 601), RP_SHAPE_COSINE,         RP_MODE_ADD};
        if (i % 2 == 0)
            rp_water_drop(water, &d);
        rp_water_step(water, NULL);
    }
    rp_texture_default(tex, w, h);
    const rp_render_params params[3] = {{RP_RENDER_OFFSET, 2, 1, -1, 4},
                                        {RP_RENDER_OFFSET, 0, 1, 0, 1},
                                        {RP_RENDER_LENS, 0, 0, 0, 0}};
    for (int k = 0; k < 3; k++)
        compare_render(&params[k], rp_water_heights(water), w, h, tex);
    rp_water_free(&water);
    free(tex);
}

/* ---- which entries each table has at each level ---- */

#ifdef RP_HAVE_X86_KERNELS
#define X86 1
#else
#define X86 0
#endif
#ifdef RP_HAVE_WASM_KERNELS
#define WASM 1
#else
#define WASM 0
#endif

static void test_tables_filled(void **state)
{
    (void)state;
    for (int level = RP_SIMD_C; level <= RP_SIMD_MAX; level++) {
        int sse2 = X86 && level >= RP_SIMD_SSE2, avx2 = X86 && level >= RP_SIMD_AVX2;
        int simd128 = WASM && level >= RP_SIMD_128; /* the step's kernels alone */
        const rp_water_dsp *w = rp_water_dsp_level(level);
        for (int st = 0; st <= RP_STENCIL_ISO; st++)
            for (int k = 0; k < RP_DAMP_KINDS; k++)
                assert_int_equal(w->span[st][k] != NULL, sse2 || simd128);
        assert_int_equal(w->viscosity != NULL, avx2 || simd128);
        /* each level up to AVX-512 has step kernels of its own; AVX512ICL keeps AVX-512's
         * and has a look water kernel of its own */
        if (sse2 && level > RP_SIMD_SSE2 && level <= RP_SIMD_AVX512)
            assert_ptr_not_equal(w->span[RP_STENCIL_ISO][RP_DAMP_Q16],
                                 rp_water_dsp_level(level - 1)->span[RP_STENCIL_ISO][RP_DAMP_Q16]);
        if (X86 && level == RP_SIMD_AVX512ICL) {
            assert_ptr_equal(w->span[RP_STENCIL_ISO][RP_DAMP_Q16],
                             rp_water_dsp_level(level - 1)->span[RP_STENCIL_ISO][RP_DAMP_Q16]);
            assert_ptr_not_equal(rp_light_dsp_level(level)->water_row,
                                 rp_light_dsp_level(level - 1)->water_row);
        }
        const rp_render_dsp *r = rp_render_dsp_level(level);
        assert_int_equal(r->offset_row[0] != NULL, avx2);
        assert_int_equal(r->offset_row[1] != NULL, avx2);
        assert_int_equal(r->lens_row != NULL, avx2);
        const rp_light_dsp *l = rp_light_dsp_level(level);
        assert_int_equal(l->row != NULL, avx2);
        assert_int_equal(l->rows_ok != NULL, avx2);
        assert_int_equal(l->water_row != NULL, avx2 || simd128);
        assert_int_equal(l->water_rows_ok != NULL, avx2 || simd128);
        const rp_upscale_dsp *u = rp_upscale_dsp_level(level);
        assert_int_equal(u->col != NULL, avx2);
        assert_int_equal(u->row != NULL, avx2);
#ifndef __wasi__
        const rp_yuv_dsp *y = rp_yuv_dsp_level(level);
        assert_int_equal(y->yuv420_pair != NULL, avx2);
        assert_int_equal(y->yuv444_row != NULL, avx2);
        assert_int_equal(rp_png_dsp_level(level)->paeth != NULL, sse2);
        assert_int_equal(rp_md5x8_dsp_level(level)->md5x8 != NULL, avx2);
#endif
    }
    /* the level in effect picks its own table */
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        assert_int_equal(rp_simd_set(level), level);
#ifndef __wasi__
        assert_ptr_equal(rp_png_dsp_get(), rp_png_dsp_level(level));
#endif
        assert_ptr_equal(rp_water_dsp_get(), rp_water_dsp_level(level));
    }
    rp_simd_set(-1);
}

/* ---- entries called directly ---- */

/* The viscosity entry against a plain transcription of the pass (64-bit product), over
 * the whole int16 range, small heights and extremes, v from 0 to 1/4, every length 0..40;
 * cells past the count it returns untouched. */
static void test_viscosity_entry(void **state)
{
    (void)state;
    uint32_t s = 77;
    static const int32_t vs[] = {0, 1, 4096, 9830, 16383, 16384};
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        rp_visc_fn k = rp_water_dsp_level(level)->viscosity;
        assert_int_equal(k != NULL,
                         (X86 && level >= RP_SIMD_AVX2) || (WASM && level >= RP_SIMD_128));
        if (!k)
            continue;
        for (int n = 0; n <= 40; n++)
            for (int t = 0; t < 6 * 4; t++) {
                int16_t u[42], m[42], d[42], out[42];
                int32_t v = vs[t % 6];
                for (int i = 0; i < n + 2; i++) {
                    int kind = t / 6;
                    for (int16_t *r = u; r; r = r == u ? m : r == m ? d : NULL)
                        r[i] = kind == 0   ? (int16_t)next(&s)
                               : kind == 1 ? (int16_t)((int32_t)(next(&s) % 201) - 100)
                               : kind == 2 ? (next(&s) & 1 ? 32767 : -32768)
                                           : (int16_t)(r == m ? 32767 : -32768);
                }
                for (int i = 0; i < 42; i++)
                    out[i] = (int16_t)(0x5a5a + i);
                int done = k(u + 1, m + 1, d + 1, out, n, v);
                for (int i = n; i < 42; i++) /* nothing past the row */
                    assert_int_equal(out[i], (int16_t)(0x5a5a + i));
                assert_true(done >= 0 && done <= n && done >= n - 7);
                for (int i = 0; i < n; i++) {
                    int32_t lap = u[i + 1] + d[i + 1] + m[i] + m[i + 2] - 4 * (int32_t)m[i + 1];
                    int64_t want = m[i + 1] + (((int64_t)lap * v + 32768) >> 16);
                    if (i < done && out[i] != want)
                        fail_msg("level %d, n %d, v %d, cell %d: %d, want %d", level, n, v, i,
                                 out[i], (int)want);
                    if (i >= done)
                        assert_int_equal(out[i], (int16_t)(0x5a5a + i));
                }
            }
    }
}

static void fill_bytes(uint8_t *p, size_t n, uint32_t *s)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(next(s) >> 3);
}

#ifndef __wasi__
/* The Paeth filter's entry from byte bpp on, against the C level's whole row, every length
 * 1..200 and bpp 1..8, the bytes past the row untouched. */
static void test_png_paeth_entry(void **state)
{
    (void)state;
    enum { N = 200, GUARD = 70 };
    uint8_t cur[N], prev[N], want[N + GUARD], got[N + GUARD];
    uint32_t seed = 5;
    const rp_png_dsp *c = rp_png_dsp_level(RP_SIMD_C);
    for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++) {
        rp_png_paeth_fn fn = rp_png_dsp_level(level)->paeth;
        assert_non_null(fn);
        for (int bpp = 1; bpp <= 8; bpp++)
            for (size_t n = (size_t)bpp; n <= N; n++) {
                fill_bytes(cur, N, &seed);
                fill_bytes(prev, N, &seed);
                memset(want, 0xee, sizeof want);
                memset(got, 0xee, sizeof got);
                rp_png_paeth_row_dsp(c, want, cur, prev, n, bpp);
                memcpy(got, want, (size_t)bpp);
                size_t k = fn(got, cur, prev, n, bpp, (size_t)bpp);
                assert_true(k <= n);
                memcpy(got + k, want + k, n - k); /* the plain loop's part */
                if (memcmp(got, want, sizeof got))
                    fail_msg("level %d bpp %d n %zu: bytes differ", level, bpp, n);
            }
    }
}

/* The converter's entries on rows of 1..70 pixels against the C level's rows, for both
 * matrices, the bytes past each row untouched. */
static void test_yuv_entries(void **state)
{
    (void)state;
    enum { W = 70, G = 24 };
    uint8_t a[W * 3], b[W * 3];
    uint8_t want[4][W + G], got[4][W + G];
    uint32_t seed = 8;
    const rp_yuv_matrix *ms[2] = {&rp_yuv_bt601, &rp_yuv_bt709};
    for (int level = RP_SIMD_AVX2; level <= rp_simd_supported(); level++) {
        const rp_yuv_dsp *d = rp_yuv_dsp_level(level);
        assert_non_null(d->yuv420_pair);
        for (int mi = 0; mi < 2; mi++)
            for (int w = 2; w <= W; w += 2) {
                fill_bytes(a, sizeof a, &seed);
                fill_bytes(b, sizeof b, &seed);
                uint8_t rgb[2 * W * 3];
                memcpy(rgb, a, (size_t)w * 3);
                memcpy(rgb + (size_t)w * 3, b, (size_t)w * 3);
                memset(want, 0xcd, sizeof want);
                memset(got, 0xcd, sizeof got);
                assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
                uint8_t *const dw[3] = {want[0], want[2], want[3]};
                const int stride[3] = {W + G, 0, 0};
                rp_yuv420_rows_m(ms[mi], rgb, w, dw, stride, 0, 2);
                rp_simd_set(-1);
                int k = d->yuv420_pair(ms[mi], a, b, w, got[0], got[1], got[2], got[3]);
                assert_true(k >= 0 && k <= w && k % 2 == 0);
                if (memcmp(got[0], want[0], (size_t)k) || memcmp(got[1], want[1], (size_t)k) ||
                    memcmp(got[2], want[2], (size_t)k / 2) ||
                    memcmp(got[3], want[3], (size_t)k / 2))
                    fail_msg("level %d 4:2:0 w %d: pixels differ", level, w);
                for (int i = k; i < W + G; i++)
                    assert_int_equal(got[0][i], 0xcd);
                for (int i = k / 2; i < W + G; i++)
                    assert_int_equal(got[2][i] | got[3][i] << 8, 0xcdcd);
                /* 4:4:4, one row */
                memset(want, 0xcd, sizeof want);
                memset(got, 0xcd, sizeof got);
                assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
                uint8_t *const d4[3] = {want[0], want[1], want[2]};
                rp_yuv444_rows_m(ms[mi], a, w, d4, stride, 0, 1);
                rp_simd_set(-1);
                k = d->yuv444_row(ms[mi], a, w, got[0], got[1], got[2]);
                assert_true(k >= 0 && k <= w);
                for (int p = 0; p < 3; p++) {
                    if (memcmp(got[p], want[p], (size_t)k))
                        fail_msg("level %d 4:4:4 w %d plane %d: pixels differ", level, w, p);
                    for (int i = k; i < W + G; i++)
                        assert_int_equal(got[p][i], 0xcd);
                }
            }
    }
}

/* The MD5 entry against libavutil's MD5 of each lane, every length 0..300 and a long one. */
static void test_md5x8_entry(void **state)
{
    (void)state;
    enum { LEN = 5000 };
    uint8_t *buf = malloc(8 * LEN);
    assert_non_null(buf);
    uint32_t seed = 3;
    fill_bytes(buf, 8 * LEN, &seed);
    for (int level = RP_SIMD_AVX2; level <= rp_simd_supported(); level++) {
        rp_md5x8_fn fn = rp_md5x8_dsp_level(level)->md5x8;
        assert_non_null(fn);
        for (size_t len = 0; len <= LEN; len = len < 300 ? len + 1 : LEN + 1) {
            const uint8_t *msg[8];
            uint8_t got[8][16], want[16];
            for (int i = 0; i < 8; i++)
                msg[i] = buf + (size_t)i * LEN + (LEN - len) * (size_t)(i % 2);
            fn(msg, len, got);
            for (int i = 0; i < 8; i++) {
                av_md5_sum(want, msg[i], len);
                if (memcmp(got[i], want, 16))
                    fail_msg("level %d len %zu lane %d: digest differs", level, len, i);
            }
        }
    }
    free(buf);
}
#endif /* __wasi__ */

/* The upscale's column entry against its definition (upscale_simd.h), for 1..5 taps of
 * any weight and int16 cells at the limits, the cells past n untouched. */
static void test_upscale_col_entry(void **state)
{
    (void)state;
    enum { N = 90, ROWS = 5 };
    int16_t src[ROWS * N];
    int32_t column[N + 8], want;
    uint32_t seed = 12;
    for (int level = RP_SIMD_AVX2; level <= rp_simd_supported(); level++) {
        rp_upscale_col_fn fn = rp_upscale_dsp_level(level)->col;
        assert_non_null(fn);
        for (int ny = 1; ny <= ROWS; ny++)
            for (int n = 1; n <= N; n += 7) {
                int32_t wy[ROWS];
                for (int k = 0; k < ny; k++)
                    wy[k] = ny == 1 ? 32768 : (int32_t)(next(&seed) % 26000) - 13000;
                for (int i = 0; i < ROWS * N; i++)
                    src[i] = next(&seed) % 3 ? (int16_t)(int32_t)(next(&seed) % 65536 - 32768)
                                             : (i % 2 ? INT16_MIN : INT16_MAX);
                for (int i = 0; i < N + 8; i++)
                    column[i] = 0x5a5a5a5a;
                int k = fn(src, N, wy, ny, column, n);
                assert_true(k >= 0 && k <= n && k % 8 == 0);
                for (int x = 0; x < N + 8; x++) {
                    want = 0x5a5a5a5a;
                    if (x < k) {
                        want = 0;
                        for (int t = 0; t < ny; t++)
                            want += src[t * N + x] * wy[t];
                    }
                    if (column[x] != want)
                        fail_msg("level %d ny %d n %d: cell %d is %d, want %d", level, ny, n, x,
                                 column[x], want);
                }
            }
    }
}

/* ---- entries through their module, at every level against the C level ---- */

/* The upscale's row pass (its groups are built by set-up): whole resamples of random and
 * extreme grids up and down, at every level against the C level. */
static void test_upscale_levels(void **state)
{
    (void)state;
    static const int sizes[][4] = {{64, 36, 1920, 1080},
                                   {100, 60, 333, 187},
                                   {90, 50, 61, 37},
                                   {1280, 3, 640, 2},
                                   {33, 20, 34, 21}};
    uint32_t seed = 4;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int gw = sizes[s][0], gh = sizes[s][1], ow = sizes[s][2], oh = sizes[s][3];
        size_t gn = (size_t)gw * gh, on = (size_t)ow * oh;
        int16_t *g = malloc(gn * sizeof *g);
        int32_t *want = malloc(on * sizeof *want), *got = malloc(on * sizeof *got);
        assert_true(g && want && got);
        for (size_t i = 0; i < gn; i++)
            g[i] = i % 5 ? (int16_t)(int32_t)(next(&seed) % 65536 - 32768)
                         : (i % 2 ? INT16_MIN : INT16_MAX);
        rp_upscale *u = NULL;
        assert_int_equal(rp_upscale_new(&u, gw, gh, ow, oh), RP_OK);
        assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
        rp_upscale_rows(u, g, want, 0, oh);
        for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++) {
            assert_int_equal(rp_simd_set(level), level);
            memset(got, 0x55, on * sizeof *got);
            rp_upscale_rows(u, g, got, 0, oh);
            if (memcmp(got, want, on * sizeof *got))
                fail_msg("level %d %dx%d -> %dx%d: outputs differ", level, gw, gh, ow, oh);
        }
        rp_simd_set(-1);
        rp_upscale_free(&u);
        free(g);
        free(want);
        free(got);
    }
}

/* The light's row kernel and its bounds check: the layer (rgba) and the composite (rgb) of
 * rippled and extreme fields, with and without a stated peak, at every level against the
 * C level. */
static void test_light_levels(void **state)
{
    (void)state;
    enum { W = 77, H = 41 };
    static int32_t field[H * W];
    static uint8_t bg[H * W * 3], want3[H * W * 3], got3[H * W * 3], want4[H * W * 4],
        got4[H * W * 4];
    /* around the kernels' limit (RP_LIGHT_SIMD_HMAX) and far beyond it */
    static const int32_t extreme[] = {1 << 24,       -(1 << 24),    (1 << 24) + 1,
                                      INT32_MAX / 2, INT32_MIN / 2, 0};
    uint32_t seed = 6;
    fill_bytes(bg, sizeof bg, &seed);
    for (int model = 0; model < 2; model++)
        for (int kind = 0; kind < 3; kind++) {
            rp_light_params p;
            rp_light_defaults(&p);
            p.model = model ? RP_LIGHT_WATER : RP_LIGHT_LAYER;
            if (!model)
                p.height_scale = RP_LIGHT_LAYER_HEIGHT_SCALE;
            rp_light *l = NULL;
            rp_error err;
            assert_int_equal(rp_light_new(&l, &p, &err), RP_OK);
            int64_t peak = 1;
            for (int i = 0; i < H * W; i++) {
                int x = i % W, y = i / W;
                field[i] = kind == 0   ? (int32_t)(4000.0 * 256 * sin(x * 0.4) * cos(y * 0.3))
                           : kind == 1 ? extreme[next(&seed) % 6]
                                       : (int32_t)(next(&seed) % 20000) - 10000;
                peak = llabs(field[i]) > peak ? llabs(field[i]) : peak;
            }
            for (int stated = 0; stated < 2; stated++) {
                rp_light_geom g = {W, H, 2 * 65536, 2 * 65536, stated ? peak : 0, NULL};
                assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
                rp_light_rows_rgb(l, &g, field, bg, want3, 0, H);
                rp_light_rows_rgba(l, &g, field, want4, 0, H);
                for (int level = RP_SIMD_SSE2; level <= rp_simd_supported(); level++) {
                    assert_int_equal(rp_simd_set(level), level);
                    rp_light_rows_rgb(l, &g, field, bg, got3, 0, H);
                    rp_light_rows_rgba(l, &g, field, got4, 0, H);
                    if (memcmp(got3, want3, sizeof got3) || memcmp(got4, want4, sizeof got4))
                        fail_msg("level %d model %d field %d peak %d: pixels differ", level, model,
                                 kind, stated);
                }
            }
            rp_simd_set(-1);
            rp_light_free(&l);
        }
}

/* ---- look water's kernels (look/light_water_body.h) against its plain loop ---- */

/* Fields for the water light (Q8 heights): smooth rings, noise over the whole range the
 * kernel takes (+-RP_LIGHT_SIMD_HMAX), a checkerboard of its limits, steps, rows of still
 * water between rings, and noise just beyond the range (the kernel must step aside). */
enum wfield { W_RINGS, W_NOISE, W_LIMITS, W_STEPS, W_STILL_ROWS, W_BEYOND, W_COUNT };

static int32_t wheight(enum wfield f, int x, int y, uint32_t *s)
{
    const int32_t hm = RP_LIGHT_SIMD_HMAX;
    int dx = x - 23, dy = y - 11;
    /* a ring pattern in integers: a triangle wave of the squared distance */
    int32_t ring = (int32_t)((dx * dx + dy * dy) % 64) - 32;
    switch (f) {
    case W_RINGS: return ring * (int32_t)(2000 + next(s) % 64);
    case W_NOISE: return (int32_t)(next(s) % (2u * hm + 1)) - hm;
    case W_LIMITS: return (x + y) % 2 ? hm : -hm;
    case W_STEPS: return (x / 5 + y / 3) % 2 ? (int32_t)(next(s) % 40000) : -30000;
    case W_STILL_ROWS: return y % 7 < 3 ? 0 : ring * 700;
    default: return (int32_t)(next(s) % (2u * hm + 1)) - hm + (x == 7 && y == 3 ? hm + 1 : 0);
    }
}

/* The water light's parameters: the defaults and the limits of each setting. */
static void water_params(rp_light_params *p, int v, uint32_t *s)
{
    rp_light_defaults(p);
    p->sky_q8 = 2 * 256;
    switch (v % 6) {
    case 1: /* strongest caustics and glint, deepest water, a tint, flat water's sky */
        p->depth_q8 = 256 * 256;
        p->caustics_q8 = 64 * 256;
        p->specular_q8 = 64 * 256;
        p->sky_q8 = 16 * 256;
        p->sky_flat = 1;
        p->tint_rgb[0] = 128, p->tint_rgb[1] = 192, p->tint_rgb[2] = 7;
        break;
    case 2: /* a low sun, a large one; no sky */
        p->elevation_mdeg = 0;
        p->sun_size_mdeg = 20000;
        p->sky_q8 = 0;
        p->caustics_q8 = 256;
        break;
    case 3: /* the sun overhead, the smallest; shallow water, no refraction */
        p->elevation_mdeg = 90000;
        p->sun_size_mdeg = 100;
        p->depth_q8 = 1;
        p->refraction_q8 = 0;
        break;
    case 4: /* random within the ranges */
        p->azimuth_mdeg = (int32_t)(next(s) % 720001) - 360000;
        p->elevation_mdeg = (int32_t)(next(s) % 90001);
        p->depth_q8 = 1 + (int32_t)(next(s) % (256 * 256));
        p->caustics_q8 = (int32_t)(next(s) % (64 * 256 + 1));
        p->specular_q8 = (int32_t)(next(s) % (64 * 256 + 1));
        p->sky_q8 = (int32_t)(next(s) % (16 * 256 + 1));
        p->sun_size_mdeg = 100 + (int32_t)(next(s) % 19901);
        p->height_scale = 1 + (int32_t)(next(s) % 32767);
        for (int c = 0; c < 3; c++) {
            p->tint_rgb[c] = (uint8_t)next(s);
            p->light_rgb[c] = (uint8_t)next(s);
            p->sky_rgb[c] = (uint8_t)next(s);
        }
        break;
    case 5: /* steep slopes from small heights */ p->height_scale = 1; break;
    default: break;
    }
}

/* One frame of the water light, composite and layer, at every level against level C, rows
 * split at random, with and without the field's peak stated. */
static void compare_water_light(const rp_light *l, const rp_light_geom *g0, const int32_t *f,
                                const uint8_t *bg, uint32_t *s, const char *what)
{
    const int w = g0->width, h = g0->height;
    size_t n = (size_t)w * h;
    uint8_t *want3 = malloc(n * 3), *want4 = malloc(n * 4), *got3 = malloc(n * 3),
            *got4 = malloc(n * 4);
    assert_non_null(want3);
    assert_non_null(want4);
    assert_non_null(got3);
    assert_non_null(got4);
    int64_t peak = 1;
    for (size_t i = 0; i < n; i++)
        peak = llabs(f[i]) > peak ? llabs(f[i]) : peak;
    rp_light_geom g = *g0;
    assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
    rp_light_rows_rgb(l, &g, f, bg, want3, 0, h);
    rp_light_rows_rgba(l, &g, f, want4, 0, h);
    for (int level = 1; level <= rp_simd_supported(); level++) {
        assert_int_equal(rp_simd_set(level), level);
        for (int stated = 0; stated < 2; stated++) {
            g.peak_q8 = stated ? peak : 0;
            memset(got3, 0xa5, n * 3);
            memset(got4, 0x5a, n * 4);
            for (int y = 0; y < h;) {
                int y1 = y + 1 + (int)(next(s) % 9);
                y1 = y1 > h ? h : y1;
                rp_light_rows_rgb(l, &g, f, bg, got3, y, y1);
                rp_light_rows_rgba(l, &g, f, got4, y, y1);
                y = y1;
            }
            size_t i = 0;
            while (i < n && !memcmp(got3 + 3 * i, want3 + 3 * i, 3) &&
                   !memcmp(got4 + 4 * i, want4 + 4 * i, 4))
                i++;
            if (i < n)
                fail_msg("water light %s, level %d, %dx%d, peak %s: pixel (%d, %d) rgb %d %d %d "
                         "want %d %d %d, rgba %d %d %d %d want %d %d %d %d",
                         what, level, w, h, stated ? "stated" : "0", (int)(i % w), (int)(i / w),
                         got3[3 * i], got3[3 * i + 1], got3[3 * i + 2], want3[3 * i],
                         want3[3 * i + 1], want3[3 * i + 2], got4[4 * i], got4[4 * i + 1],
                         got4[4 * i + 2], got4[4 * i + 3], want4[4 * i], want4[4 * i + 1],
                         want4[4 * i + 2], want4[4 * i + 3]);
        }
    }
    rp_simd_set(-1);
    free(want3);
    free(want4);
    free(got3);
    free(got4);
}

/* Every field kind, parameter set and geometry (odd widths, rows too short for a group, the
 * widest laplacian spacing, scales down to the clamp) at every level this machine has. */
static void test_light_water_matches_plain_c(void **state)
{
    (void)state;
    static const struct {
        int w, h;
        int32_t sx, sy;
    } geo[] = {{61, 43, 65536, 65536},          {97, 37, 3 * 65536, 3 * 65536},
               {83, 29, 144179, 100000},        {200, 24, 256 << 16, 256 << 16},
               {33, 20, 49151, 1024},           {17, 9, 2 * 65536, 65536},
               {150, 31, 6 * 65536, 4 * 65536}, {180, 14, 21 * 65536, 65536},
               {90, 11, 1398101, 65536},        {8, 12, 65536, 65536}};
    uint32_t s = 2929;
    int cases = 0;
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        int w = geo[gi].w, h = geo[gi].h;
        size_t n = (size_t)w * h;
        int32_t *f = malloc(n * sizeof *f);
        uint8_t *bg = malloc(n * 3);
        assert_non_null(f);
        assert_non_null(bg);
        for (size_t i = 0; i < n * 3; i++) {
            uint32_t r = next(&s);
            /* black, white and near-white (the caustics' ease) as well as any level */
            bg[i] = r % 4 == 0   ? 255
                    : r % 4 == 1 ? (uint8_t)(250 + r / 4 % 6)
                    : r % 4 == 2 ? 0
                                 : (uint8_t)(r >> 4);
        }
        rp_light_geom g = {w, h, geo[gi].sx, geo[gi].sy, 0, NULL};
        for (int k = 0; k < W_COUNT; k++) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    f[(size_t)y * w + x] = wheight((enum wfield)k, x, y, &s);
            for (int v = 0; v < 6; v++) {
                rp_light_params p;
                rp_error err;
                char what[64];
                water_params(&p, v, &s);
                rp_light *l = NULL;
                assert_int_equal(rp_light_new(&l, &p, &err), RP_OK);
                snprintf(what, sizeof what, "field %d params %d", k, v);
                compare_water_light(l, &g, f, bg, &s, what);
                rp_light_free(&l);
                cases++;
            }
        }
        free(f);
        free(bg);
    }
    print_message("%d cases, levels 1..%d against level 0\n", cases, rp_simd_supported());
}

/* The sky and glint layer over slopes that sweep finely through their whole range (bowls of
 * every steepness across long rows), under random light settings: the layer's opacity A
 * takes thousands of values here, where the kernels' quotients by A (compose()'s inv)
 * must be exact for every one (a quotient one off changes a level only now and then). Then
 * the caustics' light over bright pictures, where it eases towards white: curvature that
 * sweeps along each row (h = c d^3) under strong caustics, so the gain takes thousands of
 * values over every bright level (lit_q8's and lit3_q8's quotients). */
static void test_light_layer_every_opacity(void **state)
{
    (void)state;
    const int w = 1536, h = 24;
    size_t n = (size_t)w * h;
    int32_t *f = malloc(n * sizeof *f);
    uint8_t *bg = malloc(n * 3);
    assert_non_null(f);
    assert_non_null(bg);
    uint32_t s = 77;
    rp_light_geom g = {w, h, 65536, 65536, 0, NULL};
    for (int v = 0; v < 24; v++) {
        const int bowls = v < 12;
        for (size_t i = 0; i < n * 3; i++) {
            uint32_t r = next(&s);
            bg[i] = bowls ? (uint8_t)(r >> 8) : (uint8_t)(255 - (r >> 8) % (r % 3 ? 40 : 256));
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                /* bowls: c (x - w/2)^2, c growing row by row; else c (x - w/2)^3 / w (the
                 * curvature sweeps across each row); within the kernels' range */
                int64_t d = x - w / 2, c = 1 + (int64_t)y * (y + v % 12) * 3;
                int64_t hv = bowls ? c * d * d / 16 : c * d * d * d / (16 * w);
                hv = hv > RP_LIGHT_SIMD_HMAX ? RP_LIGHT_SIMD_HMAX : hv;
                f[(size_t)y * w + x] =
                    (int32_t)(hv < -RP_LIGHT_SIMD_HMAX ? -RP_LIGHT_SIMD_HMAX : hv);
            }
        rp_light_params p;
        rp_error err;
        char what[64];
        water_params(&p, 4, &s);
        p.sky_q8 = 256 + (int32_t)(next(&s) % (15 * 256));
        p.specular_q8 = 256 + (int32_t)(next(&s) % (63 * 256));
        if (!bowls)
            p.caustics_q8 = 4 * 256 + (int32_t)(next(&s) % (60 * 256));
        rp_light *l = NULL;
        assert_int_equal(rp_light_new(&l, &p, &err), RP_OK);
        snprintf(what, sizeof what, "%s %d", bowls ? "bowls" : "cubics", v);
        compare_water_light(l, &g, f, bg, &s, what);
        rp_light_free(&l);
    }
    free(f);
    free(bg);
}

/* The kernel is there for a 1080p frame of the rockpool preset (so the test above compares
 * it, not the plain loop with itself), and steps aside for heights beyond its range. */
static void test_light_water_kernel_used(void **state)
{
    (void)state;
    rp_light_params p;
    rp_light_defaults(&p);
    rp_light *l = NULL;
    rp_error err;
    assert_int_equal(rp_light_new(&l, &p, &err), RP_OK);
    /* frame_init's values for 1920x1080 over a 640-cell grid */
    struct rp_light_frame f = {0};
    f.w = 64;
    f.h = 8;
    f.sx_step = f.sy_step = 9;
    f.scale_x = f.scale_y = 3 * 65536;
    f.mdiv = 256;
    f.cxm = f.cym = 4;
    f.cxym = 1;
    f.dx = f.dy = 12582912;
    int32_t heights[64 * 8] = {0};
    heights[100] = RP_LIGHT_SIMD_HMAX;
    /* the lowest level with the kernel: AVX2 on x86 (none at SSE2), SIMD128 on WebAssembly */
    const int level = WASM ? RP_SIMD_128 : RP_SIMD_AVX2;
    const rp_light_dsp *c = rp_light_dsp_level(level);
    if (!WASM)
        assert_null(rp_light_dsp_level(RP_SIMD_SSE2)->water_row);
    if (rp_simd_supported() >= level) { /* the check runs that level's code */
        assert_true(c->water_rows_ok(l, &f, heights, 0, 8));
        heights[100] = RP_LIGHT_SIMD_HMAX + 1;
        assert_false(c->water_rows_ok(l, &f, heights, 0, 8));
        f.peak = RP_LIGHT_SIMD_HMAX; /* a stated peak is trusted */
        assert_true(c->water_rows_ok(l, &f, heights, 0, 8));
    }
    /* the refraction table's bound the kernel's products rely on (g <= 1/4, Q16) */
    for (int i = 0; i < RP_LIGHT_RSQ_N + 2; i++)
        assert_true(l->wref[i] >= 0 && l->wref[i] <= 16384);
    rp_light_free(&l);
}

/* The 16-pixel kernels called directly (AVX-512, and with AVX512VBMI where the CPU has it)
 * give the 8-pixel kernel's bytes (which the test above holds to the plain loop), row by
 * row, composite and layer, over a frame whose width is not a multiple of 16: so each is
 * checked whichever entry the table picks. Steep heights, and gentle ones whose bed points
 * stay near their pixels (the VBMI kernel's byte permutes instead of gathers). */
static void test_light_water_avx512_direct(void **state)
{
    (void)state;
#ifdef RP_HAVE_X86_KERNELS
    if (rp_simd_supported() < RP_SIMD_AVX512) {
        print_message("no AVX-512 on this CPU: not run\n");
        return;
    }
    enum { W = 77, H = 40, ST = 3, FS = 5 };
    static int32_t hts[W * H];
    static uint8_t bg[W * H * 3], o8[W * 4], o16[W * 4], oicl[W * 4];
    uint32_t s = 4242;
    const int icl = rp_simd_supported() >= RP_SIMD_AVX512ICL;
    for (int i = 0; i < W * H * 3; i++)
        bg[i] = (uint8_t)(next(&s) >> 5);
    rp_light_params p;
    rp_light_defaults(&p);
    p.sky_q8 = 2 * 256;
    rp_light *l = NULL;
    rp_error err;
    assert_int_equal(rp_light_new(&l, &p, &err), RP_OK);
    struct rp_light_frame f = {0};
    f.w = W;
    f.h = H;
    f.sx_step = f.sy_step = ST;
    f.scale_x = f.scale_y = 3 * 65536;
    f.mdiv = 256;
    f.cxm = f.cym = 4;
    f.cxym = 1;
    f.dx = f.dy = 1 << 22;
    /* the refraction's footprint wider than the curvature's step */
    f.fx_step = f.fy_step = FS;
    f.fkx = f.fky = f.scale_x * f.mdiv / (4 * FS);
    f.flimx = f.flimy = rp_light_slope_lim(f.fkx);
    for (int amp = 40000; amp > 0; amp = amp > 300 ? 300 : amp > 20 ? 20 : amp > 2 ? 2 : 0) {
        /* noise, then gentle water: a slow ramp with a little noise on it */
        for (int i = 0; i < W * H; i++)
            hts[i] = amp == 40000 ? (int32_t)(next(&s) % (2u * amp + 1)) - amp
                                  : amp * (i % W + 2 * (i / W)) / 8 + (int32_t)(next(&s) % 41);
        int whole = 0;
        for (int y = FS; y < H - FS; y++) {
            struct rp_light_wrows r = {.u2 = hts + (y - ST) * W,
                                       .u1 = hts + (y - 1) * W,
                                       .m = hts + y * W,
                                       .d1 = hts + (y + 1) * W,
                                       .d2 = hts + (y + ST) * W,
                                       .u3 = hts + (y - FS) * W,
                                       .d3 = hts + (y + FS) * W,
                                       .top = hts,
                                       .bottom = hts + (H - 1) * W,
                                       .y = y};
            for (int rgba = 0; rgba < 2; rgba++) {
                memset(o8, 1, sizeof o8);
                memset(o16, 2, sizeof o16);
                int a = rp_light_water_row_avx2(l, &f, &r, 0, W, bg, o8, rgba);
                int b = rp_light_water_row_avx512(l, &f, &r, 0, W, bg, o16, rgba);
                int done = a < b ? a : b;
                whole += done == W;
                assert_memory_equal(o8, o16, (size_t)done * (rgba ? 4 : 3));
                if (icl) {
                    memset(oicl, 3, sizeof oicl);
                    int c = rp_light_water_row_avx512icl(l, &f, &r, 0, W, bg, oicl, rgba);
                    assert_int_equal(c, b);
                    assert_memory_equal(o16, oicl, (size_t)c * (rgba ? 4 : 3));
                }
            }
        }
        assert_true(whole > H - 2 * FS); /* most rows done whole by both */
    }
    if (!icl)
        print_message("no AVX512VBMI on this CPU: its kernel not run\n");
    rp_light_free(&l);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_control),
        cmocka_unit_test(test_tables_filled),
        cmocka_unit_test(test_span_every_alignment),
        cmocka_unit_test(test_step_matches_plain_c),
        cmocka_unit_test(test_step_edge_cells_bound_rows),
        cmocka_unit_test(test_step_rain_all_threads),
        cmocka_unit_test(test_render_matches_plain_c),
        cmocka_unit_test(test_render_shading_beyond_float),
        cmocka_unit_test(test_render_rain_frame),
        cmocka_unit_test(test_render_calm_blocks),
        cmocka_unit_test(test_render_lens_centre),
        cmocka_unit_test(test_light_levels),
        cmocka_unit_test(test_upscale_levels),
        cmocka_unit_test(test_upscale_col_entry),
        cmocka_unit_test(test_viscosity_entry),
#ifndef __wasi__
        cmocka_unit_test(test_yuv_entries),
        cmocka_unit_test(test_png_paeth_entry),
        cmocka_unit_test(test_md5x8_entry),
#endif
        cmocka_unit_test(test_light_water_matches_plain_c),
        cmocka_unit_test(test_light_layer_every_opacity),
        cmocka_unit_test(test_light_water_kernel_used),
        cmocka_unit_test(test_light_water_avx512_direct),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
