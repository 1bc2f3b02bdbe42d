/* test_scene.c - unit tests of the scene language and the timeline (scene.h): every
 * setting and statement, the presets, exact error positions, the tests/bad/ crasher
 * scenes, the rain contract against golden drops computed independently by
 * tests/tools/rain_ref.py, time and percentage rules, and stroke continuity.
 *
 * Run from the repository root (tests/bad/ is read relative to it, or RP_TESTS_BAD_DIR). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "scene/timeline.h"

#ifndef RP_TESTS_BAD_DIR
#define RP_TESTS_BAD_DIR "tests/bad"
#endif

/* ---- helpers -------------------------------------------------------------------------- */

static rp_scene *parse_named(const char *text, const char *filename)
{
    rp_scene *sc = NULL;
    rp_error er;
    int ret = rp_scene_parse(&sc, text, strlen(text), filename, &er);

    if (ret != RP_OK)
        print_error("unexpected error: %d:%d: %s\n", er.diag.line, er.diag.col, er.diag.msg);
    assert_int_equal(ret, RP_OK);
    assert_non_null(sc);
    return sc;
}

static rp_scene *parse(const char *text)
{
    return parse_named(text, "test.scene");
}

/* Parse (and, if that succeeds, build over the scene's duration) and expect an error at
 * line:col whose message contains `fragment`. */
static void expect_error_len(const char *text, size_t len, int line, int col, const char *fragment)
{
    rp_scene *sc = NULL;
    rp_timeline *tl = NULL;
    rp_error er;
    int ret = rp_scene_parse(&sc, text, len, "bad.scene", &er);

    if (ret == RP_OK) {
        const rp_settings *s = rp_scene_settings(sc);
        ret = rp_timeline_build(&tl, sc, s, rp_time_frames(s->time.duration, s->time.fps), &er);
        assert_null(tl);
        rp_scene_free(&sc);
    } else {
        assert_null(sc);
    }
    assert_int_not_equal(ret, RP_OK);
    if (er.diag.line != line || er.diag.col != col || !strstr(er.diag.msg, fragment))
        print_error("got %d:%d: %s\nwant %d:%d: ...%s...\n", er.diag.line, er.diag.col, er.diag.msg,
                    line, col, fragment);
    assert_int_equal(er.diag.line, line);
    assert_int_equal(er.diag.col, col);
    assert_non_null(strstr(er.diag.msg, fragment));
}

static void expect_error(const char *text, int line, int col, const char *fragment)
{
    expect_error_len(text, strlen(text), line, col, fragment);
}

static rp_timeline *build(const rp_scene *sc, int64_t frames)
{
    rp_timeline *tl = NULL;
    rp_error er;
    int ret = rp_timeline_build(&tl, sc, rp_scene_settings(sc), frames, &er);

    if (ret != RP_OK)
        print_error("unexpected build error: %d:%d: %s\n", er.diag.line, er.diag.col, er.diag.msg);
    assert_int_equal(ret, RP_OK);
    return tl;
}

/* All items of a timeline in order, by walking its frames. */
static size_t collect(const rp_timeline *tl, rp_item *out, size_t cap)
{
    int64_t k;
    size_t total = 0, i, n;
    const rp_item *items;

    for (k = 0; k < rp_timeline_frames(tl); k++) {
        rp_timeline_frame(tl, k, &items, &n);
        for (i = 0; i < n; i++) {
            assert_int_equal(items[i].frame, k);
            if (total < cap)
                out[total] = items[i];
            total++;
        }
    }
    return total;
}

/* ---- settings and presets ------------------------------------------------------------- */

static void test_defaults(void **state)
{
    rp_settings s;
    (void)state;

    rp_settings_defaults(&s, RP_PRESET_ROCKPOOL);
    assert_int_equal(s.set, 0);
    assert_int_equal(s.width, 640);
    assert_int_equal(s.height, 480);
    assert_int_equal(s.time.fps, 30);
    assert_int_equal(s.time.duration.value, 10000000);
    assert_int_equal(s.time.duration.is_frames, 0);
    assert_int_equal(s.seed, 0);
    assert_string_equal(s.background, "");
    assert_int_equal(s.preset, RP_PRESET_ROCKPOOL);
    assert_int_equal(s.water.stencil, RP_STENCIL_ISO);
    assert_int_equal(s.water.damping_shift, 7);
    assert_int_equal(s.water.damping_q16, 0);
    assert_int_equal(s.look.mode, RP_RENDER_LIGHT); /* the house look */
    assert_int_equal(s.look.refraction, 2);
    assert_int_equal(s.look.light_x, 1);
    assert_int_equal(s.look.light_y, -1);
    assert_int_equal(s.look.shading, 4);
    assert_int_equal(s.shape, RP_SHAPE_SMOOTH);
    assert_int_equal(s.mode, RP_MODE_ADD);
    assert_int_equal(s.water.boundary, RP_BOUNDARY_WALL);
    assert_int_equal(s.time.fps_den, 1);
    assert_int_equal(s.time.rate, 0); /* derived from the speed when a run is resolved */
    assert_int_equal(s.sim.auto_grid, 1);
    assert_true(s.sim.speed > 0 && s.sim.speed_pct);
    assert_true(s.sim.fade_us > 0);

    rp_settings_defaults(&s, RP_PRESET_ELIAS);
    assert_int_equal(s.sim.auto_grid, 0);
    assert_int_equal(s.sim.speed, 0);
    assert_int_equal(s.sim.fade_us, 0);
    assert_int_equal(s.preset, RP_PRESET_ELIAS);
    assert_int_equal(s.water.stencil, RP_STENCIL_4);
    assert_int_equal(s.water.damping_shift, 5);
    assert_int_equal(s.water.damping_q16, 0);
    assert_int_equal(s.look.mode, RP_RENDER_OFFSET);
    assert_int_equal(s.look.refraction, 0);
    assert_int_equal(s.look.light_x, 1);
    assert_int_equal(s.look.light_y, 0);
    assert_int_equal(s.look.shading, 1);
    assert_int_equal(s.shape, RP_SHAPE_DISC);
    assert_int_equal(s.mode, RP_MODE_ADD);
    assert_int_equal(s.water.boundary, RP_BOUNDARY_WALL);
    assert_int_equal(s.width, 640);

    rp_settings_defaults(&s, RP_PRESET_APPLET);
    assert_int_equal(s.water.stencil, RP_STENCIL_4);
    assert_int_equal(s.water.damping_shift, 5);
    assert_int_equal(s.look.mode, RP_RENDER_LENS);
    assert_int_equal(s.look.shading, 0);
    assert_int_equal(s.shape, RP_SHAPE_SQUARE);
    assert_int_equal(s.mode, RP_MODE_ADD);
    assert_int_equal(s.water.boundary, RP_BOUNDARY_WALL);

    rp_settings_defaults(&s, RP_PRESET_SILVERLIGHT);
    assert_int_equal(s.water.stencil, RP_STENCIL_4);
    assert_int_equal(s.water.damping_shift, 0);
    assert_int_equal(s.water.damping_q16, 61604);
    assert_int_equal(s.look.mode, RP_RENDER_OFFSET);
    assert_int_equal(s.look.refraction, 0);
    assert_int_equal(s.look.light_x, 1);
    assert_int_equal(s.look.light_y, -1);
    assert_int_equal(s.look.shading, 2);
    assert_int_equal(s.shape, RP_SHAPE_SPLASH);
    assert_int_equal(s.mode, RP_MODE_ADD);

    rp_settings_defaults(&s, RP_PRESET_CODEPROJECT);
    assert_int_equal(s.water.stencil, RP_STENCIL_8);
    assert_int_equal(s.water.damping_shift, 5);
    assert_int_equal(s.look.mode, RP_RENDER_OFFSET);
    assert_int_equal(s.look.refraction, 3);
    assert_int_equal(s.look.shading, 0);
    assert_int_equal(s.shape, RP_SHAPE_COSINE);
    assert_int_equal(s.mode, RP_MODE_SET);
    assert_int_equal(s.water.boundary, RP_BOUNDARY_WALL);
}

static void test_preset_names(void **state)
{
    (void)state;
    assert_int_equal(rp_preset_from_name("rockpool"), RP_PRESET_ROCKPOOL);
    assert_int_equal(rp_preset_from_name("elias"), RP_PRESET_ELIAS);
    assert_int_equal(rp_preset_from_name("applet"), RP_PRESET_APPLET);
    assert_int_equal(rp_preset_from_name("silverlight"), RP_PRESET_SILVERLIGHT);
    assert_int_equal(rp_preset_from_name("codeproject"), RP_PRESET_CODEPROJECT);
    assert_int_equal(rp_preset_from_name("Elias"), -1);
    assert_int_equal(rp_preset_from_name(""), -1);
    assert_int_equal(rp_preset_from_name(NULL), -1);
    assert_string_equal(rp_preset_name(RP_PRESET_SILVERLIGHT), "silverlight");
    assert_string_equal(rp_preset_name(RP_PRESET_ROCKPOOL), "rockpool");
}

static void test_settings_parse(void **state)
{
    rp_scene *sc = parse("size 320x200\n"
                         "fps 24\n"
                         "duration 2.5s\n"
                         "seed 18446744073709551615\n"
                         "background water.png\n"
                         "damping shift 4\n"
                         "stencil 8\n"
                         "boundary wrap\n"
                         "refraction 15\n"
                         "shading 3\n"
                         "light -16 16\n"
                         "render lens\n");
    const rp_settings *s = rp_scene_settings(sc);
    (void)state;

    assert_int_equal(s->set, RP_SET_SIZE | RP_SET_FPS | RP_SET_DURATION | RP_SET_SEED |
                                 RP_SET_BACKGROUND | RP_SET_DAMPING | RP_SET_STENCIL |
                                 RP_SET_BOUNDARY | RP_SET_REFRACTION | RP_SET_SHADING |
                                 RP_SET_LIGHT | RP_SET_RENDER);
    assert_int_equal(s->width, 320);
    assert_int_equal(s->height, 200);
    assert_int_equal(s->time.fps, 24);
    assert_int_equal(s->time.duration.value, 2500000);
    assert_int_equal(s->time.duration.is_frames, 0);
    assert_true(s->seed == UINT64_MAX);
    assert_string_equal(s->background, "water.png");
    assert_int_equal(s->water.damping_shift, 4);
    assert_int_equal(s->water.damping_q16, 0);
    assert_int_equal(s->water.stencil, RP_STENCIL_8);
    assert_int_equal(s->water.boundary, RP_BOUNDARY_WRAP);
    assert_int_equal(s->look.refraction, 15);
    assert_int_equal(s->look.shading, 3);
    assert_int_equal(s->look.light_x, -16);
    assert_int_equal(s->look.light_y, 16);
    assert_int_equal(s->look.mode, RP_RENDER_LENS);
    /* Not set: the rockpool preset's. */
    assert_int_equal(s->preset, RP_PRESET_ROCKPOOL);
    assert_int_equal(s->shape, RP_SHAPE_SMOOTH);
    rp_scene_free(&sc);
    assert_null(sc);
}

static void test_settings_values(void **state)
{
    static const struct {
        const char *text;
        int stencil, boundary;
    } words[] = {
        {"stencil 4", RP_STENCIL_4, -1},         {"stencil 8", RP_STENCIL_8, -1},
        {"stencil iso", RP_STENCIL_ISO, -1},     {"boundary wall", -1, RP_BOUNDARY_WALL},
        {"boundary open", -1, RP_BOUNDARY_OPEN}, {"boundary wrap", -1, RP_BOUNDARY_WRAP},
    };
    size_t i;
    rp_scene *sc;
    const rp_settings *s;
    (void)state;

    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        sc = parse(words[i].text);
        s = rp_scene_settings(sc);
        if (words[i].stencil >= 0)
            assert_int_equal(s->water.stencil, words[i].stencil);
        if (words[i].boundary >= 0)
            assert_int_equal(s->water.boundary, words[i].boundary);
        rp_scene_free(&sc);
    }
    sc = parse("seed 0xDEADbeef\nduration 300f\nfps 1000\nsize 16384x1\nshading 0\n");
    s = rp_scene_settings(sc);
    assert_true(s->seed == 0xDEADBEEFu);
    assert_int_equal(s->time.duration.value, 300);
    assert_int_equal(s->time.duration.is_frames, 1);
    assert_int_equal(s->time.fps, 1000);
    assert_int_equal(s->width, 16384);
    assert_int_equal(s->height, 1);
    assert_int_equal(s->look.shading, 0);
    rp_scene_free(&sc);

    /* a scene's numbers may have a sign: the seed's and the frame rate's too */
    static const struct {
        const char *text;
        uint64_t seed;
        int fps, den;
    } signed_[] = {{"seed +0x2a\nfps +24\n", 42, 24, 1},
                   {"seed +7\nfps +30000/1001\n", 7, 30000, 1001}};
    for (i = 0; i < sizeof signed_ / sizeof signed_[0]; i++) {
        sc = parse(signed_[i].text);
        s = rp_scene_settings(sc);
        assert_true(s->seed == signed_[i].seed);
        assert_int_equal(s->time.fps, signed_[i].fps);
        assert_int_equal(s->time.fps_den, signed_[i].den);
        rp_scene_free(&sc);
    }

    sc = parse("duration 1500ms\nrender offset\n");
    s = rp_scene_settings(sc);
    assert_int_equal(s->time.duration.value, 1500000);
    assert_int_equal(s->look.mode, RP_RENDER_OFFSET);
    rp_scene_free(&sc);
}

/* A preset given in the scene sets the defaults of everything it does not set, wherever
 * the preset line is. */
static void test_preset_in_scene(void **state)
{
    rp_scene *sc = parse("refraction 1\npreset codeproject\n");
    const rp_settings *s = rp_scene_settings(sc);
    (void)state;

    assert_int_equal(s->preset, RP_PRESET_CODEPROJECT);
    assert_int_equal(s->water.stencil, RP_STENCIL_8);
    assert_int_equal(s->look.refraction, 1);
    assert_int_equal(s->shape, RP_SHAPE_COSINE);
    assert_int_equal(s->mode, RP_MODE_SET);
    assert_int_equal(s->set, RP_SET_REFRACTION | RP_SET_PRESET);
    rp_scene_free(&sc);
}

static void test_damping(void **state)
{
    static const struct {
        const char *text;
        int shift;
        int32_t q16;
    } cases[] = {
        {"damping 0.94", 0, 61604}, /* 61603.84 */
        {"damping 1", 0, 65536},
        {"damping 1.000", 0, 65536},
        {"damping 0.5", 0, 32768},
        {"damping .25", 0, 16384},
        {"damping 0.99999", 0, 65535},         /* 65535.34 */
        {"damping 0.0000077", 0, 1},           /* 0.5046... rounds up */
        {"damping 0.00000762939453125", 0, 1}, /* exactly 0.5: halves round up */
        {"damping shift 1", 1, 0},
        {"damping shift 30", 30, 0},
    };
    size_t i;
    int shift = -1;
    int32_t q = -1;
    (void)state;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rp_scene *sc = NULL;
        rp_error er;
        int ret = rp_scene_parse(&sc, cases[i].text, strlen(cases[i].text), NULL, &er);
        assert_int_equal(ret, RP_OK);
        assert_int_equal(rp_scene_settings(sc)->water.damping_shift, cases[i].shift);
        assert_int_equal(rp_scene_settings(sc)->water.damping_q16, cases[i].q16);
        assert_true(rp_scene_settings(sc)->set & RP_SET_DAMPING);
        rp_scene_free(&sc);
    }
    assert_int_equal(rp_damping_parse("0.94", &shift, &q), RP_OK);
    assert_int_equal(shift, 0);
    assert_int_equal(q, 61604);
    assert_int_equal(rp_damping_parse("shift 7", &shift, &q), RP_OK);
    assert_int_equal(shift, 7);
    assert_int_equal(q, 0);
    assert_int_equal(rp_damping_parse("shift 0", &shift, &q), RP_ERR_INVALID);
    assert_int_equal(rp_damping_parse("1.5", &shift, &q), RP_ERR_INVALID);
    assert_int_equal(rp_damping_parse("0", &shift, &q), RP_ERR_INVALID);
    assert_int_equal(rp_damping_parse("0.000001", &shift, &q), RP_ERR_INVALID);
    assert_int_equal(rp_damping_parse("abc", &shift, &q), RP_ERR_INVALID);
    assert_int_equal(rp_damping_parse("0.0000000000000000001", &shift, &q), RP_ERR_INVALID);
}

static void test_merge(void **state)
{
    rp_settings dst, src;
    (void)state;

    rp_settings_defaults(&dst, RP_PRESET_ROCKPOOL);
    rp_settings_defaults(&src, RP_PRESET_CODEPROJECT);
    src.set = RP_SET_FPS | RP_SET_PRESET | RP_SET_DAMPING;
    src.time.fps = 60;
    src.water.damping_shift = 0;
    src.water.damping_q16 = 1234;
    src.width = 1;
    rp_settings_merge(&dst, &src);
    assert_int_equal(dst.time.fps, 60);
    assert_int_equal(dst.preset, RP_PRESET_CODEPROJECT);
    assert_int_equal(dst.shape, RP_SHAPE_COSINE);
    assert_int_equal(dst.mode, RP_MODE_SET);
    assert_int_equal(dst.water.damping_shift, 0);
    assert_int_equal(dst.water.damping_q16, 1234);
    assert_int_equal(dst.width, 640); /* not set in src */
    assert_int_equal(dst.water.stencil, RP_STENCIL_ISO);
    assert_int_equal(dst.set, RP_SET_FPS | RP_SET_PRESET | RP_SET_DAMPING);
}

/* The wall masks a scene names, each file once, in the order first named. */
static void test_next_mask(void **state)
{
    (void)state;
    rp_scene *sc = parse("size 64x40\nat 0s wall mask a.png\nat 0s drop 1 1 radius 2 height 9\n"
                         "at 1s wall mask b.png\nat 2s wall mask a.png\n"
                         "at 2s wall rect 1 1 2 2\nat 3s wall mask c.png\n");
    size_t at = 0;
    const rp_event *ev;
    const char *want[] = {"a.png", "b.png", "c.png"};
    int n = 0;
    while ((ev = rp_scene_next_mask(sc, &at))) {
        assert_true(n < 3);
        assert_non_null(strstr(ev->path, want[n]));
        assert_int_equal(ev->line, n == 0 ? 2 : n == 1 ? 4 : 7);
        n++;
    }
    assert_int_equal(n, 3);
    rp_scene_free(&sc);
    sc = parse("size 64x40\nat 0s drop 1 1 radius 2 height 9\n");
    at = 0;
    assert_null(rp_scene_next_mask(sc, &at));
    rp_scene_free(&sc);
}

/* rp_timeline_span (and rp_timeline_frame, one frame's span) against a walk frame by frame
 * that searches nothing: for each frame, the items of the whole timeline whose frame it is,
 * in order. The same items in the same order for any span, on scenes with several timed
 * wall masks, rectangles, circles, a moving wall, drops and rain. */
static size_t walk_frames(const rp_timeline *tl, int64_t from, int64_t to, rp_item *out, size_t cap)
{
    size_t total = 0, all;
    const rp_item *items;
    rp_timeline_span(tl, 0, INT64_MAX, &items, &all); /* the whole array */
    for (size_t i = 0; i + 1 < all; i++)
        assert_true(items[i].frame <= items[i + 1].frame);
    for (int64_t k = from; k < to; k++) {
        size_t before = total, n;
        const rp_item *one;
        for (size_t i = 0; i < all; i++)
            if (items[i].frame == k) {
                assert_true(total < cap);
                out[total++] = items[i];
            }
        rp_timeline_frame(tl, k, &one, &n);
        assert_int_equal(n, total - before);
        if (n)
            assert_memory_equal(one, out + before, n * sizeof *one);
    }
    return total;
}

static void test_timeline_span(void **state)
{
    static const char *const scenes[] = {
        "size 64x40\nat 0s wall mask a.png\nat 0s drop 1 1 radius 2 height 9\n"
        "at 1s wall mask b.png\nat 2s wall mask a.png\nat 2s wall rect 1 1 2 2\n"
        "at 3s wall mask c.png\nat 3s wall mask masks/../a.png\nat 9s wall mask d.png\n",
        "size 80x60\nfps 24\nrate 50\nseed 3\nat 0.1s wall mask a.png\n"
        "at 0.5s wall circle 40 30 5\nat 1s wall mask b.png\nat 1.2s wall rect 0 0 9 9\n"
        "at 0.2s..3s rain rate 20/s radius 1..3 height 100..900\n"
        "at 2.5s wall mask c.png\nat 100f wall mask e.png\n",
        "size 128x72\nwalls visible\npath p 10%,10% 90%,50% 20%,90%\n"
        "at 0s wall mask a.png\nat 0.5s..3s wall circle along p 2% push 40\n"
        "at 1s..2s stroke 10%,10% -> 90%,90% radius 2 height 500\nat 1.5s wall mask b.png\n"
        "at 2s wall circle 50% 50% 4%\nat 2.9s wall mask a.png\n",
    };
    enum { CAP = 1 << 16 };
    rp_item *want = malloc(CAP * sizeof *want);
    (void)state;
    assert_non_null(want);
    for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; s++) {
        rp_scene *sc = parse(scenes[s]);
        for (int64_t frames = 0; frames <= 120; frames += 37) {
            rp_timeline *tl = build(sc, frames);
            const int64_t spans[][2] = {{0, frames},
                                        {-5, frames + 7},
                                        {INT64_MIN, INT64_MAX},
                                        {0, INT64_MAX},
                                        {3, 4},
                                        {frames / 2, frames},
                                        {frames / 3, 2 * frames / 3},
                                        {frames, frames},
                                        {frames - 1, frames},
                                        {5, 2},
                                        {frames + 1, frames + 9}};
            for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
                /* the reference walks the frames the timeline has (INT64 bounds clipped) */
                int64_t a = spans[i][0] < -10 ? -10 : spans[i][0];
                int64_t b = spans[i][1] > frames + 10 ? frames + 10 : spans[i][1];
                size_t n, m = walk_frames(tl, a, b, want, CAP);
                const rp_item *items;
                rp_timeline_span(tl, spans[i][0], spans[i][1], &items, &n);
                assert_int_equal(n, m);
                for (size_t j = 0; j < n; j++) {
                    assert_int_equal(items[j].frame, want[j].frame);
                    assert_int_equal(items[j].kind, want[j].kind);
                    assert_memory_equal(&items[j], &want[j], sizeof want[j]);
                }
            }
            if (frames == 111) { /* the scenes have walls, masks among them, in the span */
                const rp_item *items;
                size_t n, masks = 0;
                rp_timeline_span(tl, 0, frames, &items, &n);
                for (size_t j = 0; j < n; j++)
                    masks += rp_item_mask(&items[j]) != NULL;
                assert_true(masks >= 2);
            }
            rp_timeline_free(&tl);
        }
        rp_scene_free(&sc);
    }
    {
        const rp_item *items = (const rp_item *)1;
        size_t n = 1;
        rp_timeline_span(NULL, 0, 10, &items, &n);
        assert_null(items);
        assert_int_equal(n, 0);
    }
    free(want);
}

/* The run's settings: the preset's defaults (the run's preset, else the scene's, else
 * rockpool), the scene's fields, then the run's. */
static void test_resolve(void **state)
{
    rp_settings scene, over, out, elias, rockpool;
    (void)state;
    rp_settings_defaults(&elias, RP_PRESET_ELIAS);
    rp_settings_defaults(&rockpool, RP_PRESET_ROCKPOOL);
    memset(&scene, 0, sizeof scene);
    memset(&over, 0, sizeof over);
    scene.set = RP_SET_FPS | RP_SET_SEED;
    scene.time.fps = 24;
    scene.seed = 5;
    rp_settings_resolve(&out, &scene, NULL); /* no preset anywhere: rockpool's */
    assert_int_equal(out.preset, RP_PRESET_ROCKPOOL);
    assert_int_equal(out.water.damping_shift, rockpool.water.damping_shift);
    assert_int_equal(out.time.fps, 24);
    scene.set |= RP_SET_PRESET;
    scene.preset = RP_PRESET_ELIAS;
    over.set = RP_SET_SEED;
    over.seed = 9;
    rp_settings_resolve(&out, &scene, &over); /* the scene's preset, the run's seed */
    assert_int_equal(out.preset, RP_PRESET_ELIAS);
    assert_int_equal(out.water.stencil, elias.water.stencil);
    assert_int_equal(out.seed, 9);
    assert_int_equal(out.time.fps, 24);
    over.set |= RP_SET_PRESET;
    over.preset = RP_PRESET_ROCKPOOL;
    rp_settings_resolve(&out, &scene, &over); /* the run's preset wins */
    assert_int_equal(out.preset, RP_PRESET_ROCKPOOL);
    assert_int_equal(out.water.stencil, rockpool.water.stencil);
    assert_int_equal(out.time.fps, 24);
}

static void test_background_paths(void **state)
{
    rp_scene *sc;
    (void)state;

    sc = parse_named("background water.png\n", "examples/sub/rain.scene");
    assert_string_equal(rp_scene_settings(sc)->background, "examples/sub/water.png");
    rp_scene_free(&sc);
    sc = parse_named("background water.png\n", "/abs/rain.scene");
    assert_string_equal(rp_scene_settings(sc)->background, "/abs/water.png");
    rp_scene_free(&sc);
    sc = parse_named("background /tmp/water.png\n", "examples/rain.scene");
    assert_string_equal(rp_scene_settings(sc)->background, "/tmp/water.png");
    rp_scene_free(&sc);
    sc = parse_named("background water.png\n", "-");
    assert_string_equal(rp_scene_settings(sc)->background, "water.png");
    rp_scene_free(&sc);
    sc = parse_named("background water.png\n", NULL);
    assert_string_equal(rp_scene_settings(sc)->background, "water.png");
    rp_scene_free(&sc);
    sc = parse_named("background \"my #1 \\\"pool\\\".png\" # quoted\n", "d/x.scene");
    assert_string_equal(rp_scene_settings(sc)->background, "d/my #1 \"pool\".png");
    rp_scene_free(&sc);
    sc = parse_named("background ../bg.png\n", "rain.scene");
    assert_string_equal(rp_scene_settings(sc)->background, "../bg.png");
    rp_scene_free(&sc);
}

/* `sky PATH [STRENGTH]`: a path like background's (relative to the scene, quoted), with its
 * place kept for errors in the image; a bare 0x word is a colour, a mistyped one an error;
 * `walls visible image`. */
static void test_sky_image_and_walls(void **state)
{
    rp_scene *sc;
    const rp_settings *s;
    (void)state;

    sc = parse_named("size 64x48\n  sky clouds.png 2.5\n", "examples/sub/rain.scene");
    s = rp_scene_settings(sc);
    assert_string_equal(s->sky_image, "examples/sub/clouds.png");
    assert_int_equal(s->light.sky_q8, 640);
    assert_true(s->set & RP_SET_SKY);
    const rp_diag *at = rp_scene_sky_at(sc);
    assert_non_null(at);
    assert_string_equal(at->file, "examples/sub/rain.scene");
    assert_int_equal(at->line, 2);
    assert_int_equal(at->col, 7);
    assert_string_equal(at->source_line, "  sky clouds.png 2.5");
    rp_scene_free(&sc);
    sc = parse_named("sky \"0x123456.png\"\n", "d/x.scene");
    assert_string_equal(rp_scene_settings(sc)->sky_image, "d/0x123456.png");
    assert_int_equal(rp_scene_settings(sc)->light.sky_q8, 256);
    rp_scene_free(&sc);
    sc = parse("sky 0x102030 3\n");
    s = rp_scene_settings(sc);
    assert_string_equal(s->sky_image, "");
    assert_memory_equal(s->light.sky_rgb, "\x10\x20\x30", 3);
    assert_int_equal(s->light.sky_q8, 768);
    assert_null(rp_scene_sky_at(sc));
    rp_scene_free(&sc);
    expect_error("sky 0x12345\n", 1, 5, "expected a colour like 0xc8dcff");
    expect_error("sky clouds.png 17\n", 1, 16, "sky strength 17 is out of range");
    expect_error("sky\n", 1, 4, "expected a colour like #c8dcff or 0xc8dcff, or an image's path");

    sc = parse("walls visible image\n");
    assert_int_equal(rp_scene_settings(sc)->walls_visible, RP_WALLS_IMAGE);
    rp_scene_free(&sc);
    sc = parse("walls visible\n");
    assert_int_equal(rp_scene_settings(sc)->walls_visible, RP_WALLS_COLOUR);
    rp_scene_free(&sc);
    sc = parse("walls visible 0x010203\n");
    assert_int_equal(rp_scene_settings(sc)->walls_visible, RP_WALLS_COLOUR);
    assert_memory_equal(rp_scene_settings(sc)->wall_rgb, "\x01\x02\x03", 3);
    rp_scene_free(&sc);
    expect_error("walls hidden image\n", 1, 14, "unexpected 'image' after 'walls hidden'");
    expect_error("walls visible picture\n", 1, 15,
                 "expected a colour like #8a8578 or 0x8a8578, or 'image'");
}

/* ---- events --------------------------------------------------------------------------- */

static void test_drop_event(void **state)
{
    rp_scene *sc = parse("# a comment\n\n"
                         "at 0.5s  drop 320 240 radius 12 height 400\n"
                         "at 250ms drop 50% 12.5% radius 2048 height -32768 shape splash mode set\n"
                         "at 45f drop 0 0 mode add shape square height 32767 radius 1\n");
    const rp_event *e;
    rp_scene_stats st;
    (void)state;

    assert_int_equal(rp_scene_event_count(sc), 3);
    rp_scene_stats_get(sc, &st);
    assert_int_equal(st.drops, 3);
    assert_int_equal(st.rains, 0);
    e = rp_scene_event(sc, 0);
    assert_int_equal(e->kind, RP_EVENT_DROP);
    assert_int_equal(e->line, 3);
    assert_int_equal(e->col, 10);
    assert_int_equal(e->time_col, 4);
    assert_int_equal(e->is_span, 0);
    assert_int_equal(e->start.value, 500000);
    assert_int_equal(e->start.is_frames, 0);
    assert_int_equal(e->x.value, 320);
    assert_int_equal(e->x.is_percent, 0);
    assert_int_equal(e->y.value, 240);
    assert_int_equal(e->radius_lo, 12);
    assert_int_equal(e->height_lo, 400);
    assert_int_equal(e->shape, -1);
    assert_int_equal(e->mode, -1);

    e = rp_scene_event(sc, 1);
    assert_int_equal(e->start.value, 250000);
    assert_int_equal(e->x.is_percent, 1);
    assert_int_equal(e->x.value, 50000000);
    assert_int_equal(e->y.value, 12500000);
    assert_int_equal(e->radius_lo, 2048);
    assert_int_equal(e->height_lo, -32768);
    assert_int_equal(e->shape, RP_SHAPE_SPLASH);
    assert_int_equal(e->mode, RP_MODE_SET);

    e = rp_scene_event(sc, 2);
    assert_int_equal(e->start.value, 45);
    assert_int_equal(e->start.is_frames, 1);
    assert_int_equal(e->shape, RP_SHAPE_SQUARE);
    assert_int_equal(e->mode, RP_MODE_ADD);
    assert_int_equal(e->radius_lo, 1);
    assert_int_equal(e->height_lo, 32767);
    assert_null(rp_scene_event(sc, 3));
    rp_scene_free(&sc);
}

static void test_rain_stroke_wall_events(void **state)
{
    rp_scene *sc = parse_named("at 2s..8s rain rate 6/s radius 3..9 height 150..500\n"
                               "at 0s..10f rain rate 0.5/s radius 4 height -5 shape disc\n"
                               "at 1s..3s stroke 40,400 -> 600,60 radius 5 height 300\n"
                               "at 0s wall rect 10 20 30% 40\n"
                               "at 1f wall circle 50% 50% 7\n"
                               "at 2ms wall mask masks/rocks.png\n",
                               "scenes/x.scene");
    const rp_event *e;
    rp_scene_stats st;
    (void)state;

    rp_scene_stats_get(sc, &st);
    assert_int_equal(st.drops, 0);
    assert_int_equal(st.rains, 2);
    assert_int_equal(st.strokes, 1);
    assert_int_equal(st.walls, 3);

    e = rp_scene_event(sc, 0);
    assert_int_equal(e->kind, RP_EVENT_RAIN);
    assert_int_equal(e->is_span, 1);
    assert_int_equal(e->start.value, 2000000);
    assert_int_equal(e->end.value, 8000000);
    assert_int_equal(e->rate_milli, 6000);
    assert_int_equal(e->radius_lo, 3);
    assert_int_equal(e->radius_hi, 9);
    assert_int_equal(e->height_lo, 150);
    assert_int_equal(e->height_hi, 500);
    assert_int_equal(e->rain_index, 0);

    e = rp_scene_event(sc, 1);
    assert_int_equal(e->rain_index, 1);
    assert_int_equal(e->rate_milli, 500);
    assert_int_equal(e->end.value, 10);
    assert_int_equal(e->end.is_frames, 1);
    assert_int_equal(e->radius_lo, 4);
    assert_int_equal(e->radius_hi, 4);
    assert_int_equal(e->height_lo, -5);
    assert_int_equal(e->height_hi, -5);
    assert_int_equal(e->shape, RP_SHAPE_DISC);

    e = rp_scene_event(sc, 2);
    assert_int_equal(e->kind, RP_EVENT_STROKE);
    assert_int_equal(e->x.value, 40);
    assert_int_equal(e->y.value, 400);
    assert_int_equal(e->x2.value, 600);
    assert_int_equal(e->y2.value, 60);
    assert_int_equal(e->x2.col, 28);
    assert_int_equal(e->y2.col, 32);
    assert_int_equal(e->radius_lo, 5);
    assert_int_equal(e->height_lo, 300);

    e = rp_scene_event(sc, 3);
    assert_int_equal(e->kind, RP_EVENT_WALL_RECT);
    assert_int_equal(e->x.value, 10);
    assert_int_equal(e->y.value, 20);
    assert_int_equal(e->w.is_percent, 1);
    assert_int_equal(e->w.value, 30000000);
    assert_int_equal(e->h.value, 40);

    e = rp_scene_event(sc, 4);
    assert_int_equal(e->kind, RP_EVENT_WALL_CIRCLE);
    assert_int_equal(e->start.value, 1);
    assert_int_equal(e->radius_lo, 7);

    e = rp_scene_event(sc, 5);
    assert_int_equal(e->kind, RP_EVENT_WALL_MASK);
    assert_int_equal(e->start.value, 2000);
    assert_string_equal(e->path, "scenes/masks/rocks.png");
    assert_int_equal(e->col, 8);       /* wall */
    assert_int_equal(e->path_col, 18); /* the path as written, where its file's errors point */
    rp_scene_free(&sc);
}

/* ---- times and percentages ------------------------------------------------------------ */

static void test_time_rules(void **state)
{
    rp_time t;
    rp_scene *sc;
    const rp_event *e;
    (void)state;

    t.is_frames = 0;
    t.value = 0;
    assert_int_equal(rp_time_frame(t, 30), 0);
    assert_int_equal(rp_time_frames(t, 30), 0);
    t.value = 33333; /* 0.99999 of a frame at 30 fps */
    assert_int_equal(rp_time_frame(t, 30), 0);
    assert_int_equal(rp_time_frames(t, 30), 1);
    t.value = 33334;
    assert_int_equal(rp_time_frame(t, 30), 1);
    t.value = 1000000;
    assert_int_equal(rp_time_frame(t, 30), 30);
    assert_int_equal(rp_time_frames(t, 30), 30);
    t.value = 1000001;
    assert_int_equal(rp_time_frames(t, 30), 31);
    t.value = 10000000;
    assert_int_equal(rp_time_frames(t, 30), 300);
    assert_int_equal(rp_time_frames(t, 24), 240);
    t.value = RP_TIME_MAX_US;
    assert_int_equal(rp_time_frame(t, RP_FPS_MAX), INT64_C(1000000000));
    assert_int_equal(rp_time_ticks(t, RP_FPS_MAX), INT64_C(1000000000000000));
    t.is_frames = 1;
    t.value = 45;
    assert_int_equal(rp_time_frame(t, 30), 45);
    assert_int_equal(rp_time_frames(t, 30), 45);
    assert_int_equal(rp_time_ticks(t, 30), 45000000);

    sc = parse("at 1.5s drop 1 1 radius 1 height 1\n"
               "at 0.000001s drop 1 1 radius 1 height 1\n"
               "at 250.125ms drop 1 1 radius 1 height 1\n"
               "at 1000000s drop 1 1 radius 1 height 1\n"
               "at 1000000000f drop 1 1 radius 1 height 1\n"
               "at 2.50s drop 1 1 radius 1 height 1\n"
               "at 10f..1s rain rate 1/s radius 1 height 1\n");
    assert_int_equal(rp_scene_event(sc, 0)->start.value, 1500000);
    assert_int_equal(rp_scene_event(sc, 1)->start.value, 1);
    assert_int_equal(rp_scene_event(sc, 2)->start.value, 250125);
    assert_int_equal(rp_scene_event(sc, 3)->start.value, INT64_C(1000000000000));
    assert_int_equal(rp_scene_event(sc, 4)->start.value, 1000000000);
    assert_int_equal(rp_scene_event(sc, 5)->start.value, 2500000);
    e = rp_scene_event(sc, 6);
    assert_int_equal(e->start.is_frames, 1);
    assert_int_equal(e->end.is_frames, 0);
    rp_scene_free(&sc);
}

static void test_drop_frames(void **state)
{
    rp_scene *sc = parse("fps 30\n"
                         "at 0.033333s drop 1 1 radius 1 height 1\n"  /* frame 0 */
                         "at 33.334ms drop 2 1 radius 1 height 1\n"   /* frame 1 */
                         "at 1s drop 3 1 radius 1 height 1\n"         /* frame 30 */
                         "at 2f drop 4 1 radius 1 height 1\n"         /* frame 2 */
                         "at 99.999ms drop 5 1 radius 1 height 1\n"); /* frame 2 */
    rp_timeline *tl = build(sc, 31);
    rp_item it[8];
    (void)state;

    assert_int_equal(collect(tl, it, 8), 5);
    assert_int_equal(it[0].frame, 0);
    assert_int_equal(it[0].drop.x, 1);
    assert_int_equal(it[1].frame, 1);
    assert_int_equal(it[1].drop.x, 2);
    assert_int_equal(it[2].frame, 2);
    assert_int_equal(it[2].drop.x, 4);
    assert_int_equal(it[3].frame, 2);
    assert_int_equal(it[3].drop.x, 5);
    assert_int_equal(it[4].frame, 30);
    assert_int_equal(it[4].drop.x, 3);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
}

static void test_percentages(void **state)
{
    rp_scene *sc = parse("size 640x480\n"
                         "at 0s drop 50% 50% radius 1 height 1\n"
                         "at 0s drop 100% 100% radius 1 height 1\n"
                         "at 0s drop 0% 0% radius 1 height 1\n"
                         "at 0s drop 33.3333% 99.999999% radius 1 height 1\n"
                         "at 0s drop 0.15625% 0.000001% radius 1 height 1\n");
    rp_timeline *tl = build(sc, 1);
    rp_item it[8];
    (void)state;

    assert_int_equal(collect(tl, it, 8), 5);
    assert_int_equal(it[0].drop.x, 320);
    assert_int_equal(it[0].drop.y, 240);
    assert_int_equal(it[1].drop.x, 639); /* exactly 100%: the last cell */
    assert_int_equal(it[1].drop.y, 479);
    assert_int_equal(it[2].drop.x, 0);
    assert_int_equal(it[2].drop.y, 0);
    assert_int_equal(it[3].drop.x, 213); /* floor(213.333...) */
    assert_int_equal(it[3].drop.y, 479); /* floor(479.99999) */
    assert_int_equal(it[4].drop.x, 1);   /* 640 * 0.15625 / 100 = 1 exactly */
    assert_int_equal(it[4].drop.y, 0);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);

    /* Resolved against the final size, not the scene's. */
    {
        rp_settings final;
        rp_error er;
        sc = parse("size 640x480\nat 0s drop 50% 100% radius 1 height 1\n");
        final = *rp_scene_settings(sc);
        final.width = 101;
        final.height = 7;
        assert_int_equal(rp_timeline_build(&tl, sc, &final, 1, &er), RP_OK);
        assert_int_equal(collect(tl, it, 8), 1);
        assert_int_equal(it[0].drop.x, 50);
        assert_int_equal(it[0].drop.y, 6);
        rp_timeline_free(&tl);
        rp_scene_free(&sc);
    }
}

static void test_wall_items(void **state)
{
    rp_scene *sc = parse_named("size 200x100\nfps 10\n"
                               "at 0s wall rect 10 20 30% 80\n"
                               "at 1f wall circle 100% 100% 7\n"
                               "at 0.25s wall mask rocks.png\n"
                               "at 5s wall circle 1 1 0\n"
                               "at 0s wall rect 0 0 100% 100%\n",
                               "d/x.scene");
    rp_timeline *tl = build(sc, 20);
    rp_item it[8];
    rp_timeline_stats st;
    (void)state;

    assert_int_equal(collect(tl, it, 8), 4);
    assert_int_equal(it[0].kind, RP_ITEM_WALL_RECT);
    assert_int_equal(it[0].frame, 0);
    assert_int_equal(it[0].x, 10);
    assert_int_equal(it[0].y, 20);
    assert_int_equal(it[0].w, 60);
    assert_int_equal(it[0].h, 80);
    assert_int_equal(it[1].kind, RP_ITEM_WALL_RECT);
    assert_int_equal(it[1].w, 200);
    assert_int_equal(it[1].h, 100);
    assert_int_equal(it[2].kind, RP_ITEM_WALL_CIRCLE);
    assert_int_equal(it[2].frame, 1);
    assert_int_equal(it[2].x, 199);
    assert_int_equal(it[2].y, 99);
    assert_int_equal(it[2].r, 7);
    assert_int_equal(it[3].kind, RP_ITEM_WALL_MASK);
    assert_int_equal(it[3].frame, 2);
    assert_string_equal(it[3].mask_path, "d/rocks.png");
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.walls, 4);
    assert_int_equal(st.drops, 0);
    assert_int_equal(st.after_end, 1); /* the wall at 5 s = frame 50 */
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
}

/* ---- the timeline --------------------------------------------------------------------- */

static void test_timeline_order(void **state)
{
    rp_scene *sc = parse("fps 10\nseed 7\npreset elias\n"
                         "at 3f drop 1 1 radius 1 height 1\n"
                         "at 0s..1s stroke 0,0 -> 9,0 radius 1 height 2\n"
                         "at 3f drop 2 2 radius 1 height 3 shape cosine mode set\n"
                         "at 1s drop 3 3 radius 1 height 4\n"
                         "at 0f drop 4 4 radius 1 height 5\n");
    rp_timeline *tl = build(sc, 10);
    const rp_item *items;
    size_t n;
    rp_timeline_stats st;
    (void)state;

    /* Frame 3: the drop, the stroke's dab, the second drop, in statement order. */
    rp_timeline_frame(tl, 3, &items, &n);
    assert_int_equal(n, 3);
    assert_int_equal(items[0].drop.height, 1);
    assert_int_equal(items[0].drop.shape, RP_SHAPE_DISC); /* the preset's */
    assert_int_equal(items[0].drop.mode, RP_MODE_ADD);
    assert_int_equal(items[1].drop.height, 2);
    assert_int_equal(items[1].drop.x, 3);
    assert_int_equal(items[2].drop.height, 3);
    assert_int_equal(items[2].drop.shape, RP_SHAPE_COSINE);
    assert_int_equal(items[2].drop.mode, RP_MODE_SET);
    rp_timeline_frame(tl, 0, &items, &n);
    assert_int_equal(n, 2);
    assert_int_equal(items[0].drop.height, 2);
    assert_int_equal(items[1].drop.height, 5);
    rp_timeline_frame(tl, 10, &items, &n);
    assert_int_equal(n, 0);
    rp_timeline_frame(tl, -1, &items, &n);
    assert_int_equal(n, 0);
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.drops, 3 + 10);
    assert_int_equal(st.stroke_dabs, 10);
    assert_int_equal(st.rain_drops, 0);
    assert_int_equal(st.after_end, 1); /* the drop at 1 s = frame 10 */
    assert_int_equal(rp_timeline_frames(tl), 10);
    rp_timeline_free(&tl);
    assert_null(tl);
    rp_timeline_free(&tl);
    rp_timeline_free(NULL);

    /* The final settings' shape and mode apply to drops that name none. */
    {
        rp_settings final = *rp_scene_settings(sc);
        rp_error er;
        final.shape = RP_SHAPE_SPLASH;
        final.mode = RP_MODE_SET;
        assert_int_equal(rp_timeline_build(&tl, sc, &final, 4, &er), RP_OK);
        rp_timeline_frame(tl, 3, &items, &n);
        assert_int_equal(n, 3);
        assert_int_equal(items[0].drop.shape, RP_SHAPE_SPLASH);
        assert_int_equal(items[0].drop.mode, RP_MODE_SET);
        assert_int_equal(items[2].drop.shape, RP_SHAPE_COSINE);
        rp_timeline_free(&tl);
        /* An empty timeline. */
        assert_int_equal(rp_timeline_build(&tl, sc, &final, 0, &er), RP_OK);
        rp_timeline_frame(tl, 0, &items, &n);
        assert_int_equal(n, 0);
        rp_timeline_free(&tl);
        final.time.fps = 0;
        assert_int_equal(rp_timeline_build(&tl, sc, &final, 4, &er), RP_ERR_INVALID);
        assert_null(tl);
    }
    rp_scene_free(&sc);
    rp_scene_free(&sc);
    rp_scene_free(NULL);
}

/* ---- rain ----------------------------------------------------------------------------- */

typedef struct golden {
    int64_t frame;
    int x, y, r, h;
} golden;

static void check_rain(const char *text, int shape_filter, const golden *want, size_t n,
                       int64_t frames)
{
    rp_scene *sc = parse(text);
    rp_timeline *tl = build(sc, frames);
    rp_item *it = calloc(4096, sizeof *it);
    size_t total, i, k = 0;

    assert_non_null(it);
    total = collect(tl, it, 4096);
    for (i = 0; i < total && i < 4096 && k < n; i++) {
        if (shape_filter >= 0 && (int)it[i].drop.shape != shape_filter)
            continue;
        assert_int_equal(it[i].frame, want[k].frame);
        assert_int_equal(it[i].drop.x, want[k].x);
        assert_int_equal(it[i].drop.y, want[k].y);
        assert_int_equal(it[i].drop.radius, want[k].r);
        assert_int_equal(it[i].drop.height, want[k].h);
        k++;
    }
    assert_int_equal(k, n);
    free(it);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
}

/* Golden values: the output of tests/tools/rain_ref.py, an independent Python
 * implementation of the RAIN section of rockpool-scene(5) (exact fractions):
 *   rain_ref.py --seed 42 --index 0 --span 2s..8s --fps 30 --size 640x480 \
 *               --rate 6/s --radius 3..9 --height 150..500   (36 drops in the span) */
static const golden rain_a[] = {
    {60, 178, 165, 3, 454}, {66, 512, 163, 7, 221}, {72, 328, 249, 7, 221}, {75, 317, 44, 7, 486},
    {80, 383, 297, 3, 247}, {88, 502, 452, 7, 427}, {94, 414, 375, 7, 283}, {95, 170, 365, 3, 336},
};

/*   rain_ref.py --seed 0x123456789abcdef0 --index 1 --span 10f..1.5s --fps 24 \
 *               --size 321x123 --rate 12.5/s --radius 2..5 --height=-300..-100
 * (13 drops in the span). The scene has another rain before it (index 0) and explicit
 * drops around it, which must not change it. */
static const golden rain_b[] = {
    {11, 295, 40, 3, -115},  {12, 55, 110, 3, -257},  {15, 259, 110, 4, -269},
    {17, 183, 104, 2, -161}, {19, 107, 120, 3, -173}, {21, 204, 88, 2, -120},
    {22, 9, 42, 2, -159},    {25, 282, 54, 5, -205},
};

/*   rain_ref.py --seed 18446744073709551615 --index 2 --span 0.5ms..333.25ms --fps 60 \
 *               --size 7x5 --rate 99.999/s --radius 1..2048 --height=-32768..32767
 * (33 drops in the span). */
static const golden rain_c[] = {
    {0, 6, 3, 1831, 27039}, {0, 2, 3, 1689, 29007}, {1, 5, 0, 30, 20085},  {1, 6, 1, 1384, -6009},
    {2, 0, 2, 747, 11308},  {3, 1, 0, 1220, 22640}, {3, 5, 0, 294, 24107}, {4, 6, 2, 747, -28620},
};

static void test_rain_golden(void **state)
{
    (void)state;
    check_rain("seed 42\nat 2s..8s rain rate 6/s radius 3..9 height 150..500\n", -1, rain_a, 8,
               300);
    check_rain("seed 0x123456789abcdef0\nfps 24\nsize 321x123\n"
               "at 0s drop 1 1 radius 1 height 1 shape square\n"
               "at 0s..3s rain rate 5/s radius 1 height 1 shape square\n"
               "at 12f drop 1 1 radius 1 height 1 shape square\n"
               "at 10f..1.5s rain rate 12.5/s radius 2..5 height -300..-100 shape disc\n"
               "at 12f drop 1 1 radius 1 height 1 shape square\n",
               RP_SHAPE_DISC, rain_b, 8, 100);
    check_rain("seed 18446744073709551615\nfps 60\nsize 7x5\n"
               "at 0s..1s rain rate 1/s radius 1 height 1 shape square\n"
               "at 0s..1s rain rate 1/s radius 1 height 1 shape square\n"
               "at 0.5ms..333.25ms rain rate 99.999/s radius 1..2048 height -32768..32767 "
               "shape disc\n",
               RP_SHAPE_DISC, rain_c, 8, 100);
}

static void test_splitmix(void **state)
{
    /* Reference values of SplitMix64 seeded with 0 (the published test vector of
     * Vigna's splitmix64.c: 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f). */
    uint64_t s = 0;
    (void)state;
    assert_true(rp_splitmix64(&s) == UINT64_C(0xe220a8397b1dcdaf));
    assert_true(rp_splitmix64(&s) == UINT64_C(0x6e789e6aa1b965f4));
    assert_true(rp_splitmix64(&s) == UINT64_C(0x06c45d188009454f));
}

static void test_rain_count_and_span(void **state)
{
    rp_scene *sc;
    rp_timeline *tl;
    rp_timeline_stats st;
    rp_item *it = calloc(2048, sizeof *it);
    size_t n, i;
    (void)state;

    assert_non_null(it);
    /* floor(6 s * 6/s) = 36 drops, all inside frames 60..239 at 30 fps. */
    sc = parse("at 2s..8s rain rate 6/s radius 3..9 height 150..500\n");
    tl = build(sc, 300);
    n = collect(tl, it, 2048);
    assert_int_equal(n, 36);
    for (i = 0; i < n; i++) {
        assert_true(it[i].frame >= 60 && it[i].frame < 240);
        assert_true(it[i].drop.radius >= 3 && it[i].drop.radius <= 9);
        assert_true(it[i].drop.height >= 150 && it[i].drop.height <= 500);
        assert_true(it[i].drop.x >= 0 && it[i].drop.x < 640);
        assert_true(it[i].drop.y >= 0 && it[i].drop.y < 480);
        if (i > 0)
            assert_true(it[i].frame >= it[i - 1].frame);
    }
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.rain_drops, 36);
    assert_int_equal(st.drops, 36);
    assert_int_equal(st.after_end, 0);
    rp_timeline_free(&tl);
    /* Cut short: the rest is counted after the end. */
    tl = build(sc, 150);
    n = collect(tl, it, 2048);
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(n + st.after_end, 36);
    assert_true(n > 0 && st.after_end > 0);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);

    /* A span in frames: 10f..40f at 30 fps is exactly 1 s: floor(1 s * 2.5/s) = 2 drops in
     * frames 10..39; at 10 fps it is 3 s: 7 drops in frames 10..39. */
    sc = parse("at 10f..40f rain rate 2.5/s radius 1 height 1\n");
    tl = build(sc, 100);
    n = collect(tl, it, 2048);
    assert_int_equal(n, 2);
    for (i = 0; i < n; i++)
        assert_true(it[i].frame >= 10 && it[i].frame < 40);
    rp_timeline_free(&tl);
    {
        rp_settings final = *rp_scene_settings(sc);
        rp_error er;
        final.time.fps = 10;
        assert_int_equal(rp_timeline_build(&tl, sc, &final, 100, &er), RP_OK);
        n = collect(tl, it, 2048);
        assert_int_equal(n, 7);
        for (i = 0; i < n; i++)
            assert_true(it[i].frame >= 10 && it[i].frame < 40);
        rp_timeline_free(&tl);
    }
    rp_scene_free(&sc);

    /* Rate 0.001/s over 999 s: no drop at all. */
    sc = parse("at 0s..999s rain rate 0.001/s radius 1 height 1\n");
    tl = build(sc, 100000);
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.rain_drops + st.after_end, 0);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);

    /* Huge rain over a long span with a short timeline: cheap, the rest after the end. */
    sc = parse("fps 1000\nat 0s..1000000s rain rate 100000/s radius 1 height 1\n");
    tl = build(sc, 2);
    rp_timeline_stats_get(tl, &st);
    assert_true(st.rain_drops > 150 && st.rain_drops < 250);
    assert_true(st.rain_drops + st.after_end == (size_t)100000000000);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
    free(it);
}

/* Adding explicit drops or other statements before a rain leaves it unchanged, and the
 * seed changes it. */
static void test_rain_stability(void **state)
{
    const char *a = "seed 5\nat 1s..3s rain rate 7/s radius 2..4 height 10..20\n";
    const char *b = "seed 5\nat 0s drop 1 1 radius 1 height 1\n# comment\n"
                    "at 1s..3s rain rate 7/s radius 2..4 height 10..20\n"
                    "at 1s..3s stroke 0,0 -> 5,5 radius 1 height 9\n";
    const char *c = "seed 6\nat 1s..3s rain rate 7/s radius 2..4 height 10..20\n";
    rp_scene *sa = parse(a), *sb = parse(b), *scc = parse(c);
    rp_timeline *ta = build(sa, 100), *tb = build(sb, 100), *tc = build(scc, 100);
    rp_item *ia = calloc(256, sizeof *ia), *ib = calloc(256, sizeof *ib);
    rp_item *ic = calloc(256, sizeof *ic);
    size_t na, nb, nc, i, k = 0, same = 0;
    (void)state;

    na = collect(ta, ia, 256);
    nb = collect(tb, ib, 256);
    nc = collect(tc, ic, 256);
    assert_int_equal(na, 14);
    assert_int_equal(nc, 14);
    for (i = 0; i < nb; i++) {
        if (ib[i].drop.height < 10 || ib[i].drop.height > 20)
            continue;
        assert_int_equal(ib[i].frame, ia[k].frame);
        assert_int_equal(ib[i].drop.x, ia[k].drop.x);
        assert_int_equal(ib[i].drop.y, ia[k].drop.y);
        assert_int_equal(ib[i].drop.radius, ia[k].drop.radius);
        assert_int_equal(ib[i].drop.height, ia[k].drop.height);
        k++;
    }
    assert_int_equal(k, na);
    for (i = 0; i < na; i++)
        same += ia[i].drop.x == ic[i].drop.x && ia[i].drop.y == ic[i].drop.y;
    assert_true(same < 3);
    free(ia);
    free(ib);
    free(ic);
    rp_timeline_free(&ta);
    rp_timeline_free(&tb);
    rp_timeline_free(&tc);
    rp_scene_free(&sa);
    rp_scene_free(&sb);
    rp_scene_free(&scc);
}

/* ---- strokes -------------------------------------------------------------------------- */

static void check_stroke(const char *text, int64_t frames, int x0, int y0, int x1, int y1,
                         int64_t k0, int64_t k1, int spacing)
{
    rp_scene *sc = parse(text);
    rp_timeline *tl = build(sc, frames);
    rp_item *it = calloc(100000, sizeof *it);
    size_t n, i;
    int64_t k;

    assert_non_null(it);
    n = collect(tl, it, 100000);
    assert_true(n >= 1 && n <= 100000);
    assert_int_equal(it[0].drop.x, x0);
    assert_int_equal(it[0].drop.y, y0);
    assert_int_equal(it[0].frame, k0);
    assert_int_equal(it[n - 1].drop.x, x1);
    assert_int_equal(it[n - 1].drop.y, y1);
    assert_int_equal(it[n - 1].frame, k1);
    for (i = 1; i < n; i++) {
        int dx = abs(it[i].drop.x - it[i - 1].drop.x);
        int dy = abs(it[i].drop.y - it[i - 1].drop.y);
        assert_true(dx <= spacing && dy <= spacing);
        assert_true(it[i].frame == it[i - 1].frame || it[i].frame == it[i - 1].frame + 1);
    }
    /* At least one dab in every frame of the span. */
    for (k = k0; k <= k1; k++) {
        const rp_item *items;
        size_t m;
        rp_timeline_frame(tl, k, &items, &m);
        assert_true(m >= 1);
    }
    free(it);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
}

static void test_stroke(void **state)
{
    (void)state;
    /* Fast: 560 x 340 px over 60 frames with radius 5: ceil(560/5) = 112 segments. */
    check_stroke("at 1s..3s stroke 40,400 -> 600,60 radius 5 height 300\n", 300, 40, 400, 600, 60,
                 30, 89, 5);
    /* Radius 1 and a diagonal: 8-connected steps. */
    check_stroke("fps 10\nat 0s..0.1s stroke 0,0 -> 99,37 radius 1 height 1\n", 10, 0, 0, 99, 37, 0,
                 0, 1);
    /* Backwards (negative deltas) over many frames: slow, one dab per frame. */
    check_stroke("at 0f..100f stroke 50,50 -> 10,45 radius 30 height 1\n", 200, 50, 50, 10, 45, 0,
                 99, 30);
    /* A point, not moving: one dab per frame. */
    check_stroke("at 5f..8f stroke 7,7 -> 7,7 radius 3 height 1\n", 20, 7, 7, 7, 7, 5, 7, 3);
    /* A span inside one frame: every dab in that frame. */
    check_stroke("fps 10\nat 0.01s..0.02s stroke 0,0 -> 100%,100% radius 100 height 1\n", 20, 0, 0,
                 639, 479, 0, 0, 100);
    /* Percent endpoints, a span not on frame boundaries: frames 3..6 (0.1 s..0.2 s). */
    check_stroke("fps 30\nat 0.1s..0.2s stroke 10%,10% -> 90%,10% radius 4 height 1\n", 100, 64, 48,
                 576, 48, 3, 5, 4);
}

static void test_stroke_exact(void **state)
{
    /* 3 frames, dx = 10, radius 4: S = max(2, ceil(10/4) = 3) = 3 segments, dabs at
     * x = 0 + floor(m*10/3) = 0, 3, 6, 10 in frames floor(m*2/3) = 0, 0, 1, 2. */
    rp_scene *sc = parse("at 0f..3f stroke 0,5 -> 10,5 radius 4 height 9\n");
    rp_timeline *tl = build(sc, 10);
    rp_item it[8];
    rp_timeline_stats st;
    (void)state;

    assert_int_equal(collect(tl, it, 8), 4);
    assert_int_equal(it[0].drop.x, 0);
    assert_int_equal(it[1].drop.x, 3);
    assert_int_equal(it[2].drop.x, 6);
    assert_int_equal(it[3].drop.x, 10);
    assert_int_equal(it[0].frame, 0);
    assert_int_equal(it[1].frame, 0);
    assert_int_equal(it[2].frame, 1);
    assert_int_equal(it[3].frame, 2);
    assert_int_equal(it[3].drop.y, 5);
    assert_int_equal(it[3].drop.height, 9);
    assert_int_equal(it[3].drop.radius, 4);
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.stroke_dabs, 4);
    rp_timeline_free(&tl);
    /* Negative direction rounds toward minus infinity: 10 - 0, 10 + floor(-10/3) = 6, 3, 0. */
    rp_scene_free(&sc);
    sc = parse("at 0f..3f stroke 10,5 -> 0,5 radius 4 height 9\n");
    tl = build(sc, 2);
    assert_int_equal(collect(tl, it, 8), 3);
    assert_int_equal(it[0].drop.x, 10);
    assert_int_equal(it[1].drop.x, 6);
    assert_int_equal(it[2].drop.x, 3);
    rp_timeline_stats_get(tl, &st);
    assert_int_equal(st.after_end, 1);
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
}

/* ---- text handling -------------------------------------------------------------------- */

static void test_text_handling(void **state)
{
    static const char crlf[] = "fps 25\r\n\r\n# comment\r\nat 1s drop 1 2 radius 3 height 4\r\n"
                               "size 10x10";
    static const char bom[] = "\xEF\xBB\xBF"
                              "fps 25\n";
    static const char utf8[] = "# ondes \xC3\xA9t\xC3\xA9 \xE2\x89\x88 \xF0\x9F\x8C\x8A\n"
                               "at 1s drop 1 1 radius 1 height 1 # \xC3\xA9\n";
    rp_scene *sc;
    rp_error er;
    (void)state;

    sc = parse(crlf);
    assert_int_equal(rp_scene_settings(sc)->time.fps, 25);
    assert_int_equal(rp_scene_settings(sc)->width, 10);
    assert_int_equal(rp_scene_event(sc, 0)->line, 4);
    assert_int_equal(rp_scene_event(sc, 0)->height_lo, 4);
    rp_scene_free(&sc);
    sc = parse(bom);
    assert_int_equal(rp_scene_settings(sc)->time.fps, 25);
    rp_scene_free(&sc);
    /* old Mac line ends (a CR alone) end lines too */
    sc = parse("fps 25\r\r# comment\rat 1s drop 1 2 radius 3 height 4\rsize 10x10\r");
    assert_int_equal(rp_scene_settings(sc)->time.fps, 25);
    assert_int_equal(rp_scene_settings(sc)->width, 10);
    assert_int_equal(rp_scene_event(sc, 0)->line, 4);
    assert_int_equal(rp_scene_event(sc, 0)->height_lo, 4);
    rp_scene_free(&sc);
    sc = parse(utf8);
    assert_int_equal(rp_scene_event_count(sc), 1);
    rp_scene_free(&sc);
    sc = parse("");
    assert_int_equal(rp_scene_event_count(sc), 0);
    assert_int_equal(rp_scene_settings(sc)->set, 0);
    rp_scene_free(&sc);
    sc = parse("\t fps\t30  # tabs\n   \n#\n");
    assert_int_equal(rp_scene_settings(sc)->time.fps, 30);
    rp_scene_free(&sc);
    /* Not NUL-terminated: only len bytes are read. */
    assert_int_equal(rp_scene_parse(&sc, "fps 25xyz", 6, "t", &er), RP_OK);
    assert_int_equal(rp_scene_settings(sc)->time.fps, 25);
    rp_scene_free(&sc);
    /* NULL diag is allowed. */
    assert_int_equal(rp_scene_parse(&sc, "fps 0", 5, "t", &er), RP_ERR_INVALID);
    assert_null(sc);

    /* Diagnostics carry the file and the line for a caret display. */
    assert_int_equal(rp_scene_parse(&sc, "fps 30\n  at 1s drpo\n", 19, "r/rain.scene", &er),
                     RP_ERR_INVALID);
    assert_string_equal(er.diag.file, "r/rain.scene");
    assert_string_equal(er.diag.source_line, "  at 1s drpo");
    assert_int_equal(er.diag.line, 2);
    assert_int_equal(er.diag.col, 9);
    assert_string_equal(er.diag.msg,
                        "unknown action 'drpo' (expected drop, rain, stroke, wall, emit)");
    /* the one error type: the code, bad input, and the diagnostic's message as the message */
    assert_int_equal(er.code, RP_ERR_INVALID);
    assert_int_equal(er.bad_input, 1);
    assert_int_equal(er.has_diag, 1);
    assert_string_equal(er.msg, er.diag.msg);
    assert_int_equal(rp_scene_parse(&sc, "fps", 3, "-", &er), RP_ERR_INVALID);
    assert_string_equal(er.diag.file, "<stdin>");
}

/* ---- errors --------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    static const char nul[] = "fps 30\nat 1s\0drop";
    static const char bad[] = "# ok\n# caf\xC3\xA9 \xC0\xAF\n";
    static const char surrogate[] = "# \xED\xA0\x80\n";
    (void)state;

    expect_error("at 1s drpo 5 5\n", 1, 7,
                 "unknown action 'drpo' (expected drop, rain, stroke, wall, emit)");
    expect_error("fps 30\n\nfps 31\n", 3, 1, "'fps' is already set on line 1");
    expect_error("preset elias\nlight 1 1\npreset applet\n", 3, 1,
                 "'preset' is already set on line 1");
    expect_error("at 1s drop 5 5 radius\n", 1, 22, "expected a number after 'radius'");
    expect_error("at 1s drop 5 5 radius x\n", 1, 23, "expected a number after 'radius', got 'x'");
    expect_error("at 1s drop 5 5 radius 0 height 1\n", 1, 23, "radius 0 is out of range (1..2048)");
    expect_error("at 1s drop 5 5 radius 2049 height 1\n", 1, 23, "radius 2049 is out of range");
    expect_error("at 1s drop 5 5 radius 1234567890123456789012345678901234567890 height 1\n", 1, 23,
                 "is out of range (1..2048)");
    expect_error("at 1s drop 5 5 radius 1.5 height 1\n", 1, 23, "is not a whole number");
    expect_error("at 1s drop 5 5 radius 3 height 32768\n", 1, 32,
                 "height 32768 is out of range (-32768..32767)");
    expect_error("at 1s drop 5 5 radius 3 height 3 frob\n", 1, 34, "unexpected 'frob'");
    expect_error("at 1s drop 5 5 radius 3 radius 3\n", 1, 25, "'radius' given twice");
    expect_error("at 1s drop 5 5 radius 3\n", 1, 24, "missing 'height'");
    expect_error("at 1s drop 5 5 height 3\n", 1, 24, "missing 'radius'");
    expect_error("at 1s drop 5\n", 1, 13, "expected a coordinate");
    expect_error("at 1s drop 5 5 radius 3 height 3 shape blob\n", 1, 40,
                 "unknown shape 'blob' (expected disc, cosine, splash, square or smooth)");
    expect_error("at 1s drop 5 5 radius 3 height 3 mode mul\n", 1, 39, "unknown mode 'mul'");
    expect_error("at 8s..2s rain rate 6/s radius 3 height 9\n", 1, 4, "reversed span '8s..2s'");
    expect_error("at 2s..2s rain rate 6/s radius 3 height 9\n", 1, 4, "reversed span");
    expect_error("fps 30\nat 1s..20f stroke 1,1 -> 5,5 radius 3 height 3\n", 2, 4,
                 "reversed span '1s..20f' at 30 fps");
    expect_error("at 1s..2s drop 5 5 radius 3 height 3\n", 1, 4, "drop takes a single time");
    expect_error("at 1s rain rate 5/s radius 3 height 3\n", 1, 4, "rain needs a span");
    expect_error("at 1s stroke 1,1 -> 2,2 radius 3 height 3\n", 1, 4, "stroke needs a span");
    expect_error("at 1s..2s rain radius 3 height 3\n", 1, 33, "missing 'rate N/s'");
    expect_error("at 1s..2s rain rate 0/s radius 3 height 3\n", 1, 21, "rate 0/s is out of range");
    expect_error("at 1s..2s rain rate 100001/s radius 3 height 3\n", 1, 21, "out of range");
    expect_error("at 1s..2s rain rate 6 radius 3 height 3\n", 1, 21, "expected a rate like 6/s");
    expect_error("at 1s..2s rain rate 6/s radius 9..3 height 3\n", 1, 32, "reversed range '9..3'");
    expect_error("at 1s..2s rain rate 6/s radius 3..3000 height 3\n", 1, 35,
                 "radius 3000 is out of range");
    expect_error("at 1s..2s stroke 1,1 5,5 radius 3 height 3\n", 1, 22,
                 "expected '->' after the start point, got '5,5'");
    expect_error("at 1s..2s stroke 1;1 -> 5,5 radius 3 height 3\n", 1, 18, "expected a point X,Y");
    expect_error("at 1s..2s stroke 1,-1 -> 5,5 radius 3 height 3\n", 1, 20,
                 "y coordinate -1 is off the grid");
    expect_error("at 5 drop 1 1 radius 1 height 1\n", 1, 4, "time '5' needs a unit");
    expect_error("at 5h drop 1 1 radius 1 height 1\n", 1, 4, "expected a time like 1.5s");
    expect_error("at 1.0000005s drop 1 1 radius 1 height 1\n", 1, 4, "finer than a microsecond");
    expect_error("at 1.5f drop 1 1 radius 1 height 1\n", 1, 4, "a frame number is a whole");
    expect_error("at -1s drop 1 1 radius 1 height 1\n", 1, 4, "time -1s is out of range");
    expect_error("at 1000001s drop 1 1 radius 1 height 1\n", 1, 4, "out of range (0s..1000000s)");
    expect_error("at 2s ..8s rain rate 1/s radius 1 height 1\n", 1, 7,
                 "write a span without spaces");
    expect_error("at 2s.. rain\n", 1, 8, "expected a time after '..'");
    expect_error("at\n", 1, 3, "expected a time");
    expect_error("at 1s\n", 1, 6, "expected an action");
    expect_error("at 1s wall rect 1 2 3\n", 1, 22, "expected a size in pixels");
    expect_error("at 1s wall rect 1 2 0 4\n", 1, 21, "wall width 0 is out of range (1..16384)");
    expect_error("at 1s wall square 1 2\n", 1, 12, "unknown wall 'square'");
    expect_error("at 1s wall circle 1 2 3 4\n", 1, 25, "unexpected '4'");
    expect_error("at 1s wall mask\n", 1, 16, "expected a path after 'mask'");
    expect_error("size 100x100\nat 1s wall rect 90 0 20 10\n", 2, 22,
                 "wall rect passes the right edge");
    expect_error("size 100x100\nat 1s wall rect 0 95 20 10\n", 2, 25,
                 "wall rect passes the bottom edge");
    expect_error("size 100x100\nat 1s drop 100 5 radius 3 height 9\n", 2, 12,
                 "x coordinate 100 is off the grid (0..99)");
    expect_error("size 100x100\nat 1s drop 5 100 radius 3 height 9\n", 2, 14,
                 "y coordinate 100 is off the grid (0..99)");
    expect_error("at 1s drop 16384 5 radius 3 height 9\n", 1, 12, "off the grid (0..16383)");
    /* a path's points are held to the grid at the path's line and column, whether an event
     * uses it or not (a used one was reported at its event's line, with the path's column) */
    expect_error("size 100x100\npath p 0,0 100,5\nat 0s..1s stroke along p radius 3 height 9\n", 2,
                 12, "path x coordinate 100 is off the grid (0..99)");
    expect_error("size 100x100\npath p 0,0 5,100\nat 0s drop 5 5 radius 3 height 9\n", 2, 14,
                 "path y coordinate 100 is off the grid (0..99)");
    expect_error("size 100x100\nat 0s drop 5 5 radius 3 height 9\npath p 0,0 5,100\n", 3, 14,
                 "path y coordinate 100 is off the grid (0..99)");
    /* the first error in the file is the one said: an event before the path */
    expect_error("size 100x100\nat 0s drop 100 5 radius 3 height 9\npath p 0,0 5,100\n", 2, 12,
                 "x coordinate 100 is off the grid");
    /* a radius in percent is held to the pixels' range once the width is known: 50% of
     * 16384 is 8192 pixels, refused as "radius 8192" is; 12.5% is 2048, the largest taken */
    expect_error("size 16384x64\nat 0s drop 5 5 radius 8192 height 100\n", 2, 23,
                 "radius 8192 is out of range (1..2048)");
    expect_error("size 16384x64\nat 0s drop 5 5 radius 50% height 100\n", 2, 23,
                 "radius 50% of the width 16384 is 8192 pixels, out of range (1..2048)");
    expect_error("size 16384x64\nat 0s drop 5 5 radius 12.51% height 100\n", 2, 23,
                 "radius 12.51% of the width 16384 is 2049 pixels, out of range (1..2048)");
    expect_error("size 16384x64\nat 0s..1s rain rate 1/s radius 1%..13% height 1..2\n", 2, 36,
                 "radius 13% of the width 16384 is 2129 pixels");
    expect_error("size 16384x64\nat 0s..1s stroke 1,1 -> 9,9 radius 20% height 3\n", 2, 36,
                 "radius 20% of the width 16384 is 3276 pixels");
    {
        rp_scene *sc = parse("size 16384x64\nat 0s drop 5 5 radius 12.501% height 100\n");
        rp_timeline *tl = build(sc, 1);
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, 0, &items, &n);
        assert_int_equal(n, 1);
        assert_int_equal(items[0].drop.radius, 2048); /* floor(16384 x 0.12501) */
        rp_timeline_free(&tl);
        rp_scene_free(&sc);
    }
    expect_error("at 1s drop 101% 5 radius 3 height 9\n", 1, 12,
                 "x coordinate 101% is out of range");
    expect_error("at 1s drop 50.0000001% 5 radius 3 height 9\n", 1, 12, "more than 6 decimals");
    expect_error("at 1s drop 5.5 5 radius 3 height 9\n", 1, 12, "not a whole number of pixels");
    expect_error("size 16385x480\n", 1, 6, "width 16385 is out of range (1..16384)");
    expect_error("size 640x0\n", 1, 10, "height 0 is out of range (1..16384)");
    expect_error("size 640*480\n", 1, 6, "expected a size like 640x480");
    expect_error("size\n", 1, 5, "expected a size like 640x480 after 'size'");
    expect_error("fps 0\n", 1, 5, "fps 0 is out of range (above 0, at most 1000)");
    expect_error("fps 1001\n", 1, 5, "fps 1001 is out of range (above 0, at most 1000)");
    expect_error("fps 30 frames\n", 1, 8, "unexpected 'frames'");
    expect_error("duration 0s\n", 1, 10, "duration 0s is empty");
    expect_error("duration 10\n", 1, 10, "needs a unit");
    expect_error("seed -1\n", 1, 6, "seed -1 is out of range");
    expect_error("seed 18446744073709551616\n", 1, 6, "is out of range");
    expect_error("seed 0x1ffffffffffffffff\n", 1, 6, "is out of range");
    expect_error("seed 12ab\n", 1, 6, "expected a number after 'seed'");
    expect_error("seed +-5\n", 1, 6, "expected a number after 'seed', got '+-5'");
    expect_error("fps +1001\n", 1, 5, "fps +1001 is out of range (above 0, at most 1000)");
    expect_error("fps +ntsc\n", 1, 5, "frame rate '+ntsc' is not a rate");
    expect_error("preset wave\n", 1, 8, "unknown preset 'wave'");
    expect_error("background\n", 1, 11, "expected a path after 'background'");
    expect_error("background \"abc\n", 1, 12, "unterminated quoted string");
    expect_error("background \"a\"b\n", 1, 15, "unexpected text after the closing quote");
    expect_error("background a b\n", 1, 14, "unexpected 'b'");
    expect_error("damping shift 31\n", 1, 15, "damping shift 31 is out of range (1..30)");
    expect_error("damping shift\n", 1, 14, "expected a number after 'shift'");
    expect_error("damping 1.5\n", 1, 9, "damping factor 1.5 is out of range");
    expect_error("damping 5\n", 1, 9, "for a shift write 'shift N'");
    expect_error("damping 0\n", 1, 9, "out of range");
    expect_error("damping 0.000001\n", 1, 9, "rounds to 0 in Q16");
    expect_error("damping strong\n", 1, 9, "expected 'shift N' or a factor like 0.94");
    expect_error("stencil 5\n", 1, 9, "unknown stencil '5' (expected 4, 8 or iso)");
    expect_error("boundary soft\n", 1, 10, "unknown boundary 'soft' (expected wall, open or wrap)");
    expect_error("refraction 16\n", 1, 12, "refraction 16 is out of range (0..15)");
    expect_error("shading -1\n", 1, 9, "shading -1 is out of range");
    expect_error("light 1\n", 1, 8, "expected a number after 'light'");
    expect_error("preset elias\nlight 1 17\n", 2, 9, "light y 17 is out of range (-16..16)");
    expect_error("light 1 17\npreset codeproject\n", 1, 9, "light y 17 is out of range (-16..16)");
    expect_error("light 315 95\n", 1, 11, "light elevation 95 is out of range (0 to 90 degrees)");
    expect_error("render light\nlight 400 40\n", 2, 7,
                 "light azimuth 400 is out of range (-360 to 360 degrees)");
    expect_error("render mirror\n", 1, 8,
                 "unknown render 'mirror' (expected offset, lens or light)");
    expect_error("rain 1\n", 1, 1, "unknown statement 'rain'");
    expect_error("# x\n   drop 1 1\n", 2, 4, "unknown statement 'drop'");
    expect_error_len(nul, sizeof nul - 1, 2, 6, "NUL byte");
    expect_error_len(bad, sizeof bad - 1, 2, 8, "invalid UTF-8 byte 0xc0");
    expect_error_len(surrogate, sizeof surrogate - 1, 1, 3, "invalid UTF-8 byte 0xed");
    /* Columns count characters, not bytes. */
    expect_error("at 1s drop 5 5 radius 3 height 3 \xC3\xA9t\xC3\xA9 x\n", 1, 34,
                 "unexpected '\xC3\xA9t\xC3\xA9'");
    expect_error("# \xE2\x89\x88\xE2\x89\x88\nfps 30 # ok\nat 1s drop \xE2\x89\x88 1\n", 3, 12,
                 "expected a number or a percentage");
    /* CRLF lines keep their columns. */
    expect_error("fps 30\r\nat 1s drop 5 5 radius 0 height 1\r\n", 2, 23, "radius 0");
    expect_error("fps 30\r\rat 1s drop 5 5 radius 0 height 1\r", 3, 23, "radius 0");
    /* A long token is shortened in the message. */
    expect_error("at 1s drop 5 5 radius 3 height 3 "
                 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\n",
                 1, 34, "unexpected 'abcdefghijklmnopqrstuvwxyzabcdefghijklmn...'");
}

/* The item cap gives an error, not an exhausted memory (checked cheaply: a cap-sized
 * timeline is not built here; the bound is documented in scene.h). */
static void test_limits(void **state)
{
    (void)state;
    assert_true(RP_TIMELINE_MAX_ITEMS >= 1000000);
    assert_int_equal(RP_FPS_MAX, 1000);
    assert_int_equal(RP_RADIUS_MAX, 2048);
}

/* ---- tests/bad/ ----------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf) {
            buf[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every tests/bad/ file must fail (to parse, or to build over its duration) at the
 * position and with the message its first line announces: "# expect: LINE:COL text". */
static void test_bad_dir(void **state)
{
    DIR *dir = opendir(RP_TESTS_BAD_DIR);
    struct dirent *de;
    char *names[512];
    size_t count = 0, i;
    int failures = 0;
    (void)state;

    if (!dir)
        fail_msg("cannot open %s (run the tests from the repository root)", RP_TESTS_BAD_DIR);
    while ((de = readdir(dir)) && count < 512) {
        size_t n = strlen(de->d_name);
        if (n > 6 && strcmp(de->d_name + n - 6, ".scene") == 0)
            names[count++] = strdup(de->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], by_name);
    assert_true(count >= 25);
    for (i = 0; i < count; i++) {
        char path[1024], want[256];
        size_t len = 0, wl;
        int line = 0, col = 0, consumed = 0, ret;
        char *text;
        const char *nl;
        rp_scene *sc = NULL;
        rp_timeline *tl = NULL;
        rp_error er;

        snprintf(path, sizeof path, "%s/%s", RP_TESTS_BAD_DIR, names[i]);
        text = slurp(path, &len);
        assert_non_null(text);
        if (sscanf(text, "# expect: %d:%d %n", &line, &col, &consumed) != 2 || consumed == 0) {
            print_error("%s: first line is not '# expect: LINE:COL text'\n", path);
            failures++;
            free(text);
            continue;
        }
        nl = strchr(text + consumed, '\n');
        wl = nl ? (size_t)(nl - (text + consumed)) : strlen(text + consumed);
        if (wl > 0 && text[consumed + wl - 1] == '\r')
            wl--;
        if (wl >= sizeof want)
            wl = sizeof want - 1;
        memcpy(want, text + consumed, wl);
        want[wl] = '\0';

        ret = rp_scene_parse(&sc, text, len, path, &er);
        if (ret == RP_OK) {
            const rp_settings *s = rp_scene_settings(sc);
            ret = rp_timeline_build(&tl, sc, s, rp_time_frames(s->time.duration, s->time.fps), &er);
            rp_timeline_free(&tl);
            rp_scene_free(&sc);
        }
        if (ret == RP_OK || er.diag.line != line || er.diag.col != col ||
            !strstr(er.diag.msg, want) || strcmp(er.diag.file, path) != 0) {
            print_error("%s: want %d:%d '%s', got %s%d:%d '%s'\n", path, line, col, want,
                        ret == RP_OK ? "success, " : "", er.diag.line, er.diag.col, er.diag.msg);
            failures++;
        }
        free(text);
    }
    for (i = 0; i < count; i++)
        free(names[i]);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_preset_names),
        cmocka_unit_test(test_settings_parse),
        cmocka_unit_test(test_settings_values),
        cmocka_unit_test(test_preset_in_scene),
        cmocka_unit_test(test_damping),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_next_mask),
        cmocka_unit_test(test_background_paths),
        cmocka_unit_test(test_sky_image_and_walls),
        cmocka_unit_test(test_drop_event),
        cmocka_unit_test(test_rain_stroke_wall_events),
        cmocka_unit_test(test_time_rules),
        cmocka_unit_test(test_drop_frames),
        cmocka_unit_test(test_percentages),
        cmocka_unit_test(test_wall_items),
        cmocka_unit_test(test_timeline_order),
        cmocka_unit_test(test_splitmix),
        cmocka_unit_test(test_rain_golden),
        cmocka_unit_test(test_rain_count_and_span),
        cmocka_unit_test(test_rain_stability),
        cmocka_unit_test(test_stroke),
        cmocka_unit_test(test_stroke_exact),
        cmocka_unit_test(test_text_handling),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_timeline_span),
        cmocka_unit_test(test_bad_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
