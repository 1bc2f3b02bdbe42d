/* bench_core.c - micro-benchmarks of the core library for `make bench` (bench/README.md).
 *
 * Measures, in one process so every figure shares the machine's state:
 * - the simulation step (rp_water_step) in cell-steps/s for each stencil, grid size and
 *   thread count, against a plain scalar transcription of Elias' ProcessWater loop
 *   (seed 001) compiled into this binary;
 * - memory bandwidth: memcpy, and a read 2 + write 1 stream (the step's pattern), over
 *   256 MiB buffers (DRAM) and over each grid's own working set (caches included);
 * - the step's memory traffic (3 * cells * 2 bytes per step) as a share of the stream
 *   bandwidth at the same working set and thread count: its memory-bound ceiling;
 * - the step of --preset elias (stencil 4, shift 5) at 1920x1080 at every SIMD level the
 *   CPU has (plain C, SSE2, AVX2, AVX-512), against the same seed loop;
 * - rendering (rp_render_frame) in pixels/s for `offset` and `lens`;
 * - RGB24 -> YUV 4:2:0 for the video encoder: rockpool's converter (yuv.h) against
 *   libswscale as the video output used it before (and as the ffmpeg program converts by
 *   default: bicubic, its SIMD paths).
 *
 * Each case is timed with CLOCK_MONOTONIC: calibrated to run at least MIN seconds, then
 * repeated RUNS times; the best run counts (noise only ever slows a run down).
 *
 * Output: one tab-separated row per figure on stdout, "measure<TAB>value<TAB>reference
 * <TAB>ratio", and "# title" lines between sections, which bench/run aligns into its
 * table; progress goes to stderr.
 * Build this file with -fno-tree-vectorize so the seed reference stays a scalar loop; the
 * library is compiled separately with its own flags.
 *
 * Usage: bench_core [-t MIN_SECONDS] [-r RUNS] [-q] [-s]   (-q: 640x480 and 1920x1080
 * only; -s: the per-level step lines only) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

#include <libdeflate.h>

#include "check/hash.h"
#include "check/md5x8.h"
#include "output/pngfilter.h"
#include "output/pngdeflate.h"
#include "base/pool.h"
#include "look/render.h"
#include "base/cpu.h"
#include "output/yuv.h"
#include "look/texture.h"
#include "sim/water.h"

#define BW_BYTES ((size_t)256 << 20) /* DRAM bandwidth buffers: far larger than any cache */

static double min_seconds = 0.3;
static int runs = 5;

/* Seconds on a clock: CLOCK_MONOTONIC for rates, CLOCK_PROCESS_CPUTIME_ID for CPU. */
static double clock_secs(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_secs(CLOCK_MONOTONIC);
}

/* A benchmark body: do `iters` units of work. Time it spends on set-up that is not the
 * work measured (putting the water back) it adds to `uncounted`, which rate() takes off. */
typedef void (*bench_fn)(void *ctx, long iters);
static double uncounted;

/* Units per second of fn: the iteration count is doubled until one call takes a quarter
 * of min_seconds (this doubles as warm-up), scaled to min_seconds, then the best of
 * `runs` calls is returned. */
static double rate(bench_fn fn, void *ctx)
{
    long iters = 1;
    double t;
    for (;;) {
        uncounted = 0;
        double t0 = now();
        fn(ctx, iters);
        t = now() - t0 - uncounted;
        if (t >= min_seconds / 4)
            break;
        iters *= 2;
    }
    iters = (long)(iters * (min_seconds / t)) + 1;
    double best = 0;
    for (int i = 0; i < runs; i++) {
        uncounted = 0;
        double t0 = now();
        fn(ctx, iters);
        t = now() - t0 - uncounted;
        if (iters / t > best)
            best = iters / t;
    }
    return best;
}

/* ---- the seed reference ------------------------------------------------------------ */

/* Elias' ProcessWater (seed 001), transcribed as plainly as possible: the same int16
 * buffers and the same two statements per cell, done per row over the interior so rows
 * do not wrap into each other (as rockpool's `boundary wall`). Kept out of line so the
 * compiler cannot fold it into the timing loop; this file is built with
 * -fno-tree-vectorize so it stays scalar. */
static __attribute__((noinline)) void seed_process_water(const int16_t *source, int16_t *dest,
                                                         int width, int height)
{
    for (int y = 1; y < height - 1; y++) {
        for (int x = 1; x < width - 1; x++) {
            int i = y * width + x;
            dest[i] = (int16_t)(((source[i - 1] + source[i + 1] + source[i - width] +
                                  source[i + width]) >>
                                 1) -
                                dest[i]);
            dest[i] -= dest[i] >> 5;
        }
    }
}

/* ---- workloads --------------------------------------------------------------------- */

/* A small deterministic generator (LCG) for drop positions and sizes. */
static uint32_t lcg_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* `count` rain-like drops (radius 3..9, height 300..900, like examples/rain.scene), kept
 * clear of the edges. */
static void rain(rp_water *w, uint32_t *seed, int count, enum rp_shape shape)
{
    const rp_water_params *p = rp_water_params_of(w);
    for (int i = 0; i < count; i++) {
        rp_drop d;
        d.radius = 3 + (int32_t)(lcg_next(seed) % 7);
        d.x = 12 + (int32_t)(lcg_next(seed) % (uint32_t)(p->width - 24));
        d.y = 12 + (int32_t)(lcg_next(seed) % (uint32_t)(p->height - 24));
        d.height = 300 + (int32_t)(lcg_next(seed) % 601);
        d.shape = shape;
        d.mode = RP_MODE_ADD;
        rp_water_drop(w, &d);
    }
}

/* A water surface with some waves on it: drops, then a few steps to spread them. */
static rp_water *wavy_water(int width, int height, enum rp_stencil stencil, int shift, int steps)
{
    rp_water *w = NULL;
    rp_water_params p = {width, height, stencil, RP_BOUNDARY_WALL, shift, 0, 0};
    uint32_t seed = 7;
    if (rp_water_new(&w, &p))
        return NULL;
    for (int i = 0; i < steps; i++) {
        if (i % 2 == 0)
            rain(w, &seed, 1 + width * height / 500000, RP_SHAPE_DISC);
        rp_water_step(w, NULL);
    }
    return w;
}

struct step_case {
    rp_water *water;
    rp_pool *pool;
    int per_call; /* steps a call of rp_water_steps (as the engine hands them over) */
    /* When set, the water is put back to this state every 64 steps (the time not counted), so
     * it never goes still: still rows cost nothing, and the figure is the moving water's. */
    const int16_t *cur0, *prev0;
    long since;
};

static void run_step(void *ctx, long iters)
{
    struct step_case *c = ctx;
    for (long i = 0; i < iters; i++) {
        if (c->cur0 && c->since >= 64) {
            double t0 = now();
            rp_water_load(c->water, c->cur0, c->prev0);
            uncounted += now() - t0;
            c->since = 0;
        }
        rp_water_steps(c->water, c->pool, c->per_call);
        c->since += c->per_call;
    }
}

struct load_case {
    rp_water *water;
    const int16_t *cur, *prev;
};

static void run_load(void *ctx, long iters)
{
    struct load_case *c = ctx;
    for (long i = 0; i < iters; i++)
        rp_water_load(c->water, c->cur, c->prev);
}

struct seed_case {
    int16_t *cur, *prev;
    int width, height;
};

static void run_seed(void *ctx, long iters)
{
    struct seed_case *c = ctx;
    for (long i = 0; i < iters; i++) {
        seed_process_water(c->cur, c->prev, c->width, c->height);
        int16_t *t = c->cur;
        c->cur = c->prev;
        c->prev = t;
    }
}

/* Memory traffic: `copy` (memcpy, read 1 + write 1) and `stream` (a ^= b over 64-bit
 * lanes, read 2 + write 1 in place: the step's pattern, as the bound for it). Buffers are
 * a multiple of CHUNKS * 64 bytes, cut into CHUNKS pieces spread over the pool. */
#define CHUNKS 64

struct traffic_case {
    uint8_t *a, *b;
    size_t bytes; /* of each buffer */
    rp_pool *pool;
};

typedef uint64_t u64x2 __attribute__((vector_size(16), may_alias));

/* a ^= b, n a multiple of 64: explicit vectors (this file is built without the
 * auto-vectoriser), AVX2 where the CPU has it, as the library's kernels do. */
static void xor_generic(uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        for (int k = 0; k < 4; k++)
            ((u64x2 *)(a + i))[k] ^= ((const u64x2 *)(b + i))[k];
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
typedef uint64_t u64x4 __attribute__((vector_size(32), may_alias));

__attribute__((target("avx2"))) static void xor_avx2(uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i += 64) {
        ((u64x4 *)(a + i))[0] ^= ((const u64x4 *)(b + i))[0];
        ((u64x4 *)(a + i))[1] ^= ((const u64x4 *)(b + i))[1];
    }
}

static void xor_bytes(uint8_t *a, const uint8_t *b, size_t n)
{
    static int avx2 = -1;
    if (avx2 < 0) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") != 0;
    }
    if (avx2)
        xor_avx2(a, b, n);
    else
        xor_generic(a, b, n);
}
#else
#define xor_bytes xor_generic
#endif

static void copy_chunks(void *ctx, int begin, int end)
{
    struct traffic_case *c = ctx;
    size_t per = c->bytes / CHUNKS;
    memcpy(c->a + per * begin, c->b + per * begin, per * (size_t)(end - begin));
}

static void stream_chunks(void *ctx, int begin, int end)
{
    struct traffic_case *c = ctx;
    size_t per = c->bytes / CHUNKS;
    xor_bytes(c->a + per * begin, c->b + per * begin, per * (size_t)(end - begin));
}

static void run_copy(void *ctx, long iters)
{
    struct traffic_case *c = ctx;
    for (long i = 0; i < iters; i++)
        rp_pool_run(c->pool, CHUNKS, copy_chunks, c);
}

static void run_stream(void *ctx, long iters)
{
    struct traffic_case *c = ctx;
    for (long i = 0; i < iters; i++)
        rp_pool_run(c->pool, CHUNKS, stream_chunks, c);
}

/* Two buffers of at least `bytes` each (rounded up to CHUNKS * 64), pages faulted in.
 * Returns 0, or -1 when out of memory. */
static int traffic_alloc(struct traffic_case *c, size_t bytes)
{
    const size_t unit = (size_t)CHUNKS * 64;
    c->bytes = (bytes + unit - 1) / unit * unit;
    c->a = aligned_alloc(64, c->bytes);
    c->b = aligned_alloc(64, c->bytes);
    if (!c->a || !c->b) {
        free(c->a);
        free(c->b);
        c->a = c->b = NULL;
        return -1;
    }
    memset(c->a, 1, c->bytes);
    memset(c->b, 2, c->bytes);
    return 0;
}

static void traffic_free(struct traffic_case *c)
{
    free(c->a);
    free(c->b);
    c->a = c->b = NULL;
}

struct render_case {
    rp_render_params params;
    const int16_t *heights;
    int width, height;
    const uint8_t *texture;
    uint8_t *rgb;
    rp_pool *pool;
};

static void run_render(void *ctx, long iters)
{
    struct render_case *c = ctx;
    for (long i = 0; i < iters; i++)
        rp_render_frame(&c->params, c->heights, c->width, c->height, c->texture, c->rgb, c->pool);
}

/* ---- output ------------------------------------------------------------------------ */

static void row(const char *measure, const char *value, const char *reference, const char *ratio)
{
    printf("%s\t%s\t%s\t%s\n", measure, value, reference, ratio);
    fflush(stdout);
}

/* "123.4 M/s"-style text for a rate. */
static const char *fmt_rate(char *buf, size_t n, double v, const char *unit)
{
    if (v >= 1e9)
        snprintf(buf, n, "%.2f G%s", v / 1e9, unit);
    else if (v >= 1e6)
        snprintf(buf, n, "%.1f M%s", v / 1e6, unit);
    else
        snprintf(buf, n, "%.1f %s", v, unit);
    return buf;
}

struct yuv_case {
    const uint8_t *rgb; /* padded by 64 bytes: libswscale may read past the last row */
    int width, height;
    uint8_t *planes[4];
    int stride[4];
    struct SwsContext *sws; /* NULL: rockpool's converter */
};

static void run_yuv(void *ctx, long iters)
{
    struct yuv_case *c = ctx;
    const uint8_t *src[4] = {c->rgb, NULL, NULL, NULL};
    const int src_stride[4] = {3 * c->width, 0, 0, 0};
    for (long i = 0; i < iters; i++) {
        if (c->sws)
            sws_scale(c->sws, src, src_stride, 0, c->height, c->planes, c->stride);
        else
            rp_yuv420_rows(c->rgb, c->width, c->planes, c->stride, 0, c->height);
    }
}

/* RGB24 -> YUV420P of a rendered 1080p frame: rockpool's converter vs libswscale. */
static int bench_yuv(const uint8_t *rgb, int W, int H)
{
    char v[64], r[64], q[64];
    struct yuv_case c = {rgb, W, H, {NULL}, {0}, NULL};
    if (av_image_alloc(c.planes, c.stride, W, H, AV_PIX_FMT_YUV420P, 64) < 0)
        return -1;
    c.sws = sws_getContext(W, H, AV_PIX_FMT_RGB24, W, H, AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL,
                           NULL, NULL);
    if (!c.sws) {
        av_freep(&c.planes[0]);
        return -1;
    }
    printf("# RGB24 -> YUV 4:2:0 for the video encoder, one thread\n");
    double ref = rate(run_yuv, &c) * (double)W * H;
    sws_freeContext(c.sws);
    c.sws = NULL;
    double own = rate(run_yuv, &c) * (double)W * H;
    snprintf(q, sizeof q, "%.2f rockpool/libswscale speed", own / ref);
    char m[128];
    snprintf(m, sizeof m, "rp_yuv420_rows %dx%d vs sws_scale (bicubic)", W, H);
    row(m, fmt_rate(v, sizeof v, own, "px/s"), fmt_rate(r, sizeof r, ref, "px/s"), q);
    av_freep(&c.planes[0]);
    return 0;
}

/* Does the seed reference compute what rp_water_step computes for stencil 4, shift 5,
 * wall boundary? (It must, while no height saturates; else the speed ratio compares
 * different work.) */
static int seed_agrees(void)
{
    const int W = 320, H = 200, steps = 200;
    rp_water *w = wavy_water(W, H, RP_STENCIL_4, 5, 20);
    int ok = 0;
    if (!w)
        return 0;
    size_t cells = (size_t)W * H;
    struct seed_case s = {malloc(cells * 2), malloc(cells * 2), W, H};
    if (s.cur && s.prev) {
        memcpy(s.cur, rp_water_heights(w), cells * 2);
        memcpy(s.prev, rp_water_prev(w), cells * 2);
        struct step_case c = {w, NULL, 1, NULL, NULL, 0};
        run_step(&c, steps);
        run_seed(&s, steps);
        ok = !memcmp(s.cur, rp_water_heights(w), cells * 2) &&
             !memcmp(s.prev, rp_water_prev(w), cells * 2);
    }
    free(s.cur);
    free(s.prev);
    rp_water_free(&w);
    return ok;
}

/* The step of --preset elias (stencil 4, shift 5, wall) at 1920x1080 at each SIMD level
 * this CPU has, the higher levels forced off with rp_simd_set(), against the seed loop on
 * the same heights. Returns 0, or 1 when out of memory. */
static int step_levels(rp_pool **pools)
{
    static const char *names[] = {"plain C", "SSE2", "AVX2", "AVX-512"};
    enum { W = 1920, H = 1080 };
    size_t cells = (size_t)W * H;
    char m[160], v[64], r[64], q[96];
    rp_water *w = wavy_water(W, H, RP_STENCIL_4, 5, 50);
    struct seed_case s = {malloc(cells * 2), malloc(cells * 2), W, H};

    fprintf(stderr, "bench_core: step at each SIMD level\n");
    if (!w || !s.cur || !s.prev) {
        rp_water_free(&w);
        free(s.cur);
        free(s.prev);
        return 1;
    }
    memcpy(s.cur, rp_water_heights(w), cells * 2);
    memcpy(s.prev, rp_water_prev(w), cells * 2);
    int16_t *cur0 = malloc(cells * 2), *prev0 = malloc(cells * 2);
    if (!cur0 || !prev0) {
        rp_water_free(&w);
        free(s.cur);
        free(s.prev);
        free(cur0);
        free(prev0);
        return 1;
    }
    memcpy(cur0, s.cur, cells * 2);
    memcpy(prev0, s.prev, cells * 2);
    double seed_rate = rate(run_seed, &s) * (double)cells;
    free(s.cur);
    free(s.prev);
    printf(
        "# the step of --preset elias (stencil 4, shift 5) at %dx%d at each SIMD level:"
        " one step a call (a frame of one step) and 64 (steps without events between); the"
        " water put back to the same rain every 64 steps (not counted; its cost is the load row),"
        " so never still\n",
        W, H);
    snprintf(m, sizeof m, "step seed ProcessWater %dx%d (scalar, 1 thread)", W, H);
    row(m, fmt_rate(v, sizeof v, seed_rate, "cell/s"), "-", "-");
    static const int per[] = {1, 64};
    /* the step has no kernel above AVX-512 (AVX512ICL's is look water's) */
    int top = rp_simd_supported() < RP_SIMD_AVX512 ? rp_simd_supported() : RP_SIMD_AVX512;
    for (int level = RP_SIMD_C; level <= top; level++) {
        rp_simd_set(level);
        for (int pc = 0; pc < 2; pc++)
            for (int j = 1; j <= 2; j++) {
                struct step_case c = {w, pools[j], per[pc], cur0, prev0, 64};
                double cell_rate = rate(run_step, &c) * (double)cells * per[pc];
                snprintf(m, sizeof m, "step elias %dx%d %s -j %d, %d a call", W, H,
                         level < (int)(sizeof names / sizeof *names) ? names[level] : "?", j,
                         per[pc]);
                fmt_rate(v, sizeof v, cell_rate, "cell/s");
                fmt_rate(r, sizeof r, seed_rate, "cell/s");
                snprintf(q, sizeof q, "%.2f rockpool/seed speed", cell_rate / seed_rate);
                row(m, v, r, q);
            }
    }
    rp_simd_set(-1);
    /* What putting the water back costs (the steps' rows leave it out). */
    struct load_case lc = {w, cur0, prev0};
    double loads = rate(run_load, &lc);
    snprintf(m, sizeof m, "rp_water_load %dx%d (the water put back, both buffers)", W, H);
    snprintf(v, sizeof v, "%.2f ms", 1e3 / loads);
    row(m, v, "-", "-");
    rp_water_free(&w);
    free(cur0);
    free(prev0);
    /* 4K, at the best level, 64 steps a call */
    enum { W4 = 3840, H4 = 2160 };
    rp_water *w4 = wavy_water(W4, H4, RP_STENCIL_4, 5, 50);
    int16_t *c4 = malloc((size_t)W4 * H4 * 2), *p4 = malloc((size_t)W4 * H4 * 2);
    if (!w4 || !c4 || !p4) {
        rp_water_free(&w4);
        free(c4);
        free(p4);
        return 1;
    }
    memcpy(c4, rp_water_heights(w4), (size_t)W4 * H4 * 2);
    memcpy(p4, rp_water_prev(w4), (size_t)W4 * H4 * 2);
    for (int j = 1; j <= 2; j++) {
        struct step_case c = {w4, pools[j], 64, c4, p4, 64};
        double cell_rate = rate(run_step, &c) * (double)W4 * H4 * 64;
        snprintf(m, sizeof m, "step elias %dx%d -j %d, 64 a call", W4, H4, j);
        fmt_rate(v, sizeof v, cell_rate, "cell/s");
        fmt_rate(r, sizeof r, seed_rate, "cell/s");
        snprintf(q, sizeof q, "%.2f rockpool/seed (1080p) speed", cell_rate / seed_rate);
        row(m, v, r, q);
    }
    rp_water_free(&w4);
    free(c4);
    free(p4);
    return 0;
}

/* ---- MD5 alone: the bound of -f framemd5 ------------------------------------------- */

struct md5_case {
    rp_hash *h;
    const uint8_t *frame;
    size_t bytes;
};

static void run_md5(void *ctx, long iters)
{
    struct md5_case *c = ctx;
    char hex[RP_HASH_HEX_MAX];
    for (long i = 0; i < iters; i++) {
        rp_hash_reset(c->h);
        rp_hash_update(c->h, c->frame, c->bytes);
        rp_hash_final_hex(c->h, hex);
    }
}

/* Eight different frames (c->frame holds them one after another) in the 8 lanes of
 * rp_md5x8, as the hasher passes them: per call, 8 frames hashed, 8 frames of memory read. */
static void run_md5x8(void *ctx, long iters)
{
    struct md5_case *c = ctx;
    const uint8_t *msg[8];
    uint8_t digest[8][16];
    for (int i = 0; i < 8; i++)
        msg[i] = c->frame + (size_t)i * c->bytes;
    for (long i = 0; i < iters; i++)
        rp_md5x8(msg, c->bytes, digest);
}

/* Frames per second of MD5 over one WxH RGB24 frame on one thread, one frame at a time
 * (libavutil's MD5: on N cores no writer of one stream per frame passes N times this),
 * then 8 frames at a time in AVX2 lanes (md5x8.h, what rockpool's hasher uses there). */
static int bench_md5(const char *size)
{
    int w = 0, h = 0;
    if (sscanf(size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384) {
        fprintf(stderr, "bench_core: -m takes a size like 1920x1080\n");
        return 2;
    }
    struct md5_case c = {NULL, NULL, (size_t)w * h * 3};
    uint8_t *frame = malloc(8 * c.bytes); /* 8 frames for rp_md5x8; the first for one stream */
    if (!frame || rp_hash_new(&c.h, "md5")) {
        free(frame);
        fprintf(stderr, "bench_core: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < 8 * c.bytes; i++)
        frame[i] = (uint8_t)(i * 131 + (i >> 11));
    c.frame = frame;
    char m[96], v[64];
    snprintf(m, sizeof m, "md5 of one %dx%d RGB24 frame (rp_hash, 1 thread)", w, h);
    row(m, fmt_rate(v, sizeof v, rate(run_md5, &c), "frame/s"), "-", "-");
    if (rp_md5x8_available()) {
        snprintf(m, sizeof m, "md5 of 8 %dx%d RGB24 frames at once (rp_md5x8, 1 thread)", w, h);
        row(m, fmt_rate(v, sizeof v, 8 * rate(run_md5x8, &c), "frame/s"), "-", "-");
    }
    rp_hash_free(&c.h);
    free(frame);
    return 0;
}

/* ---- deflate alone: the bound of a PNG sequence ------------------------------------ */

/* The CPU a PNG writer cannot avoid on the raw RGB24 frames of `path` (WxH each): each
 * frame's rows Paeth-filtered as rockpool's PNG writer does, then compressed by libdeflate
 * at level 1, its fastest (the default of --png-level). Prints the CPU milliseconds a frame
 * of each and the compressed bytes. */
static int bench_deflate(const char *spec)
{
    int w = 0, h = 0, n = 0, status = 1;
    char path[4096];
    if (sscanf(spec, "%dx%d:%4095s", &w, &h, path) != 3 || w < 1 || h < 1 || w > 16384 ||
        h > 16384) {
        fprintf(stderr, "bench_core: -d takes WxH:FILE (raw RGB24 frames)\n");
        return 2;
    }
    size_t stride = (size_t)w * 3, raw = (size_t)h * (stride + 1);
    FILE *f = fopen(path, "rb");
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);
    uint8_t *frame = malloc(stride * (size_t)h), *rows = malloc(raw), *out = NULL;
    uint8_t *zeros = calloc(1, stride);
    size_t cap = z ? libdeflate_zlib_compress_bound(z, raw) : 0;
    out = cap ? malloc(cap) : NULL;
    size_t zcap = rp_pngz_bound(raw);
    uint8_t *zout = malloc(zcap);
    rp_pngz *pz = rp_pngz_new();
    if (!f || !z || !frame || !rows || !out || !zeros || !zout || !pz) {
        fprintf(stderr, "bench_core: cannot open %s or out of memory\n", path);
        goto done;
    }
    double t_filter = 0, t_deflate = 0, bytes = 0, t_pngz = 0, pngz_bytes = 0;
    while (fread(frame, stride, (size_t)h, f) == (size_t)h) {
        double t0 = clock_secs(CLOCK_PROCESS_CPUTIME_ID);
        for (int y = 0; y < h; y++) {
            uint8_t *r = rows + (size_t)y * (stride + 1);
            const uint8_t *cur = frame + (size_t)y * stride;
            r[0] = 4; /* Paeth */
            rp_png_paeth_row(r + 1, cur, y ? cur - stride : zeros, stride, 3);
        }
        double t1 = clock_secs(CLOCK_PROCESS_CPUTIME_ID);
        size_t len = libdeflate_zlib_compress(z, rows, raw, out, cap);
        double t2 = clock_secs(CLOCK_PROCESS_CPUTIME_ID);
        if (!len) {
            fprintf(stderr, "bench_core: libdeflate failed\n");
            goto done;
        }
        size_t zlen = rp_pngz_compress(pz, rows, stride + 1, (size_t)h, 3, zout, zcap);
        double t3 = clock_secs(CLOCK_PROCESS_CPUTIME_ID);
        if (!zlen) {
            fprintf(stderr, "bench_core: pngdeflate failed\n");
            goto done;
        }
        t_filter += t1 - t0;
        t_deflate += t2 - t1;
        t_pngz += t3 - t2;
        bytes += (double)len;
        pngz_bytes += (double)zlen;
        n++;
    }
    if (!n) {
        fprintf(stderr, "bench_core: %s holds no %dx%d frame\n", path, w, h);
        goto done;
    }
    printf("deflate\t%.2f ms\tfilter\t%.2f ms\tbytes\t%.0f\tframes\t%d\tpngdeflate\t%.2f ms\t"
           "bytes\t%.0f\n",
           1e3 * t_deflate / n, 1e3 * t_filter / n, bytes / n, n, 1e3 * t_pngz / n, pngz_bytes / n);
    status = 0;
done:
    if (f)
        fclose(f);
    if (z)
        libdeflate_free_compressor(z);
    free(frame);
    free(rows);
    free(out);
    free(zout);
    rp_pngz_free(&pz);
    free(zeros);
    return status;
}

int main(int argc, char **argv)
{
    static const struct {
        int w, h;
    } sizes[] = {{640, 480}, {1920, 1080}, {3840, 2160}};
    static const struct {
        enum rp_stencil s;
        const char *name;
    } stencils[] = {{RP_STENCIL_4, "4"}, {RP_STENCIL_8, "8"}, {RP_STENCIL_ISO, "iso"}};
    int nsizes = 3, opt, status = 1, levels_only = 0;
    rp_pool *pools[3] = {NULL, NULL, NULL}; /* index = thread count */
    struct traffic_case traffic = {NULL, NULL, 0, NULL};
    char m[160], v[64], r[64], q[96];

    const char *md5_size = NULL, *deflate_spec = NULL;
    while ((opt = getopt(argc, argv, "t:r:qsm:d:")) != -1) {
        switch (opt) {
        case 't': min_seconds = atof(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'q': nsizes = 2; break;
        case 's': levels_only = 1; break;
        case 'm': md5_size = optarg; break;
        case 'd': deflate_spec = optarg; break;
        default:
            fprintf(stderr, "usage: bench_core [-t MIN_SECONDS] [-r RUNS] [-q] [-s] [-m WxH] "
                            "[-d WxH:FILE]\n");
            return 2;
        }
    }
    if (min_seconds <= 0 || runs < 1) {
        fprintf(stderr, "bench_core: -t must be > 0 and -r >= 1\n");
        return 2;
    }
    if (md5_size)
        return bench_md5(md5_size);
    if (deflate_spec)
        return bench_deflate(deflate_spec);
    if (rp_pool_new(&pools[1], 1) || rp_pool_new(&pools[2], 2)) {
        fprintf(stderr, "bench_core: cannot start threads\n");
        goto done;
    }

    printf("# core library (bench_core, best of %d runs of >= %.2f s)\n", runs, min_seconds);
    if (levels_only) {
        status = step_levels(pools);
        goto done;
    }
    row("seed reference = rp_water_step (stencil 4, 320x200, 200 steps)",
        seed_agrees() ? "yes" : "NO", "-", "-");

    /* Memory bandwidth from DRAM: far larger buffers than any cache. */
    fprintf(stderr, "bench_core: memory bandwidth\n");
    printf("# memory bandwidth (bytes read + written per second)\n");
    if (traffic_alloc(&traffic, BW_BYTES)) {
        fprintf(stderr, "bench_core: out of memory\n");
        goto done;
    }
    for (int j = 1; j <= 2; j++) {
        traffic.pool = pools[j];
        double copy_bw = rate(run_copy, &traffic) * 2.0 * (double)traffic.bytes;
        double stream_bw = rate(run_stream, &traffic) * 3.0 * (double)traffic.bytes;
        snprintf(m, sizeof m, "memcpy 256 MiB -j %d (read 1 + write 1)", j);
        row(m, fmt_rate(v, sizeof v, copy_bw, "B/s"), "-", "-");
        snprintf(m, sizeof m, "stream a ^= b, 2 x 256 MiB -j %d (read 2 + write 1)", j);
        row(m, fmt_rate(v, sizeof v, stream_bw, "B/s"), "-", "-");
    }
    traffic_free(&traffic);

    /* The step. */
    printf("# simulation step: rp_water_step vs the seed's ProcessWater loop\n");
    for (int si = 0; si < nsizes; si++) {
        int W = sizes[si].w, H = sizes[si].h;
        size_t cells = (size_t)W * H;
        fprintf(stderr, "bench_core: step %dx%d\n", W, H);

        rp_water *ref_water = wavy_water(W, H, RP_STENCIL_4, 5, 50);
        struct seed_case s = {malloc(cells * 2), malloc(cells * 2), W, H};
        if (!ref_water || !s.cur || !s.prev) {
            fprintf(stderr, "bench_core: out of memory\n");
            rp_water_free(&ref_water);
            free(s.cur);
            free(s.prev);
            goto done;
        }
        memcpy(s.cur, rp_water_heights(ref_water), cells * 2);
        memcpy(s.prev, rp_water_prev(ref_water), cells * 2);
        rp_water_free(&ref_water);
        double seed_rate = rate(run_seed, &s) * (double)cells;
        free(s.cur);
        free(s.prev);
        snprintf(m, sizeof m, "step seed ProcessWater %dx%d (scalar, 1 thread)", W, H);
        row(m, fmt_rate(v, sizeof v, seed_rate, "cell/s"), "-", "-");

        /* The bound for this size: the step's traffic pattern over the grid's own
         * working set (two int16 buffers), so caches count as they do for the step. */
        double bound[3] = {0, 0, 0};
        if (traffic_alloc(&traffic, cells * 2)) {
            fprintf(stderr, "bench_core: out of memory\n");
            goto done;
        }
        for (int j = 1; j <= 2; j++) {
            traffic.pool = pools[j];
            bound[j] = rate(run_stream, &traffic) * 3.0 * (double)traffic.bytes;
            snprintf(m, sizeof m, "stream a ^= b, 2 x %dx%d int16 -j %d (the bound)", W, H, j);
            row(m, fmt_rate(v, sizeof v, bound[j], "B/s"), "-", "-");
        }
        traffic_free(&traffic);

        for (size_t k = 0; k < sizeof stencils / sizeof stencils[0]; k++) {
            rp_water *w = wavy_water(W, H, stencils[k].s, 5, 50);
            if (!w) {
                fprintf(stderr, "bench_core: out of memory\n");
                goto done;
            }
            for (int j = 1; j <= 2; j++) {
                struct step_case c = {w, pools[j], 1, NULL, NULL, 0};
                double cell_rate = rate(run_step, &c) * (double)cells;
                double bytes_rate = cell_rate * 6.0; /* read cur, read prev, write prev */
                snprintf(m, sizeof m, "step stencil %s %dx%d -j %d", stencils[k].name, W, H, j);
                fmt_rate(v, sizeof v, cell_rate, "cell/s");
                fmt_rate(r, sizeof r, seed_rate, "cell/s");
                snprintf(q, sizeof q, "%.2f rockpool/seed speed", cell_rate / seed_rate);
                row(m, v, r, q);
                snprintf(m, sizeof m, "  its traffic, 6 B/cell, vs the bound -j %d", j);
                fmt_rate(v, sizeof v, bytes_rate, "B/s");
                fmt_rate(r, sizeof r, bound[j], "B/s");
                snprintf(q, sizeof q, "%.2f of the bound", bytes_rate / bound[j]);
                row(m, v, r, q);
            }
            rp_water_free(&w);
        }
    }

    if (step_levels(pools)) {
        fprintf(stderr, "bench_core: out of memory\n");
        goto done;
    }

    /* Rendering a realistic field: rockpool's preset (iso, shift 6) after 300 steps of
     * rain, over the built-in texture. */
    {
        const int W = 1920, H = 1080;
        size_t px = (size_t)W * H;
        fprintf(stderr, "bench_core: render %dx%d\n", W, H);
        printf("# render: rp_render_frame, heights after 300 steps of rain\n");
        rp_water *w = NULL;
        rp_water_params wp = {W, H, RP_STENCIL_ISO, RP_BOUNDARY_WALL, 6, 0, 0};
        uint8_t *tex = malloc(px * 3), *rgb = malloc(px * 3 + 64); /* see struct yuv_case */
        uint32_t seed = 11;
        if (!tex || !rgb || rp_water_new(&w, &wp)) {
            fprintf(stderr, "bench_core: out of memory\n");
            free(tex);
            free(rgb);
            goto done;
        }
        for (int i = 0; i < 300; i++) {
            if (i % 2 == 0)
                rain(w, &seed, 1, RP_SHAPE_COSINE);
            rp_water_step(w, pools[2]);
        }
        rp_texture_default(tex, W, H);
        static const struct {
            rp_render_params p;
            const char *name;
        } modes[] = {{{RP_RENDER_OFFSET, 2, 1, -1, 4}, "offset (R 2, shading (dx-dy)/4)"},
                     {{RP_RENDER_LENS, 0, 0, 0, 0}, "lens"}};
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
            double one = 0;
            for (int j = 1; j <= 2; j++) {
                struct render_case c = {modes[k].p, rp_water_heights(w), W, H, tex, rgb, pools[j]};
                double px_rate = rate(run_render, &c) * (double)px;
                snprintf(m, sizeof m, "render %s %dx%d -j %d", modes[k].name, W, H, j);
                fmt_rate(v, sizeof v, px_rate, "px/s");
                if (j == 1) {
                    one = px_rate;
                    row(m, v, "-", "-");
                } else {
                    snprintf(q, sizeof q, "%.2f -j2/-j1 speed", px_rate / one);
                    row(m, v, fmt_rate(r, sizeof r, one, "px/s"), q);
                }
            }
        }
        /* The last render (lens) is a real frame for the converter. */
        int yuv_failed = bench_yuv(rgb, W, H);
        rp_water_free(&w);
        free(tex);
        free(rgb);
        if (yuv_failed) {
            fprintf(stderr, "bench_core: cannot set up the YUV conversion\n");
            goto done;
        }
    }
    status = 0;

done:
    rp_pool_free(&pools[1]);
    rp_pool_free(&pools[2]);
    traffic_free(&traffic);
    return status;
}
