/* test_core.c - the core API (include/rpcore.h) through the header alone. The oracle of each
 * case is another path through the same API that must give the same bytes by its contract
 * (a run that never stopped for a checkpoint, a fresh core for going back, packed rows for
 * a stride, the frame's instant for its index, RGB24 for RGBA with the same colours), or a
 * value the contract spells out (h + 32768, refusals and their codes). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifndef __wasi__
#include <unistd.h> /* rmdir */
#endif

#include "rpcore.h"

/* 20 frames of drops and rain; with 30 fps and rate 90 three steps a frame. */
static const char scene_text[] = "size 64x40\n"
                                 "fps 30\n"
                                 "duration 20f\n"
                                 "seed 9\n"
                                 "at 0f drop 20 20 radius 4 height 3000\n"
                                 "at 0f..20f rain rate 60/s radius 2..4 height 500..2000\n"
                                 "at 6f wall rect 40 0 3 20\n";

/* A core of text over the settings in `lines` (NULL: none), at w x h (0x0: the scene's). */
static rp_core *open_text(rp_scene **scene, const char *text, const char *lines, int w, int h)
{
    rp_error err;
    rp_settings *over = NULL;
    rp_core_config cfg;
    rp_core *c = NULL;
    assert_int_equal(rp_scene_from_text(scene, text, strlen(text), "t.scene", &err), RP_OK);
    if (lines)
        assert_int_equal(rp_settings_parse(&over, lines, NULL, &err), RP_OK);
    rp_core_config_init(&cfg);
    cfg.over = over;
    cfg.width = w;
    cfg.height = h;
    assert_int_equal(rp_core_open(&c, *scene, &cfg, &err), RP_OK);
    rp_settings_free(&over); /* merged at open: not kept */
    return c;
}

/* A core of scene_text. */
static rp_core *open_core(rp_scene **scene, const char *lines, int w, int h)
{
    return open_text(scene, scene_text, lines, w, h);
}

static uint8_t *render(rp_core *c, int64_t k, enum rp_pass pass, size_t bpp)
{
    rp_core_info in;
    rp_error err;
    rp_core_get_info(c, &in);
    uint8_t *p = malloc((size_t)in.width * in.height * bpp);
    assert_non_null(p);
    assert_int_equal(rp_core_render(c, k, pass, p, (size_t)in.width * bpp, &err), RP_OK);
    return p;
}

/* Settings given one by one (rp_settings_set) are the settings the same values written as
 * scene lines give (rp_settings_parse): the same frames, and rp_settings_get_info says the
 * values the lines spell out. A refused value leaves the settings as they were. */
static void test_settings_set(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {{"seed", "5"},       {"strength", "0.5"},
                                           {"fps", "ntsc"},     {"frames", "12"},
                                           {"preset", "elias"}, {"size", "48x30"}};
    rp_settings *set = NULL, *lines = NULL;
    rp_settings_info info;
    rp_error err;
    assert_int_equal(rp_settings_new(&set, &err), RP_OK);
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        assert_int_equal(rp_settings_set(set, pairs[i][0], pairs[i][1], &err), RP_OK);
    rp_settings_get_info(set, &info);
    assert_int_equal(info.seed, 5);
    assert_int_equal(info.strength_milli, 500);
    assert_int_equal(info.fps, 30000);
    assert_int_equal(info.fps_den, 1001);
    assert_string_equal(info.preset, "elias");
    /* a later value replaces the earlier (one step a frame needs a whole rate) */
    assert_int_equal(rp_settings_set(set, "fps", "pal", &err), RP_OK);
    rp_settings_get_info(set, &info);
    assert_int_equal(info.fps, 25);
    assert_int_equal(info.fps_den, 1);
    /* trailing zeros past the third decimal, as a scene's strength takes them */
    assert_int_equal(rp_settings_set(set, "strength", "2.5000", &err), RP_OK);
    rp_settings_get_info(set, &info);
    assert_int_equal(info.strength_milli, 2500);
    assert_int_equal(rp_settings_set(set, "strength", "0.5", &err), RP_OK);
    assert_int_equal(info.out_width, 48);
    assert_int_equal(info.out_height, 30);

    /* the seed as the scene's seed line takes it too: hexadecimal after 0x (checked
     * against the decimal values) */
    static const char *const seeds[][2] = {{"0x2a", "42"},
                                           {"0XfF", "255"},
                                           {"+0x10", "16"},
                                           {"0xffffffffffffffff", "18446744073709551615"}};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        rp_settings_info hx, dec;
        assert_int_equal(rp_settings_set(set, "seed", seeds[i][0], &err), RP_OK);
        rp_settings_get_info(set, &hx);
        assert_int_equal(rp_settings_set(set, "seed", seeds[i][1], &err), RP_OK);
        rp_settings_get_info(set, &dec);
        assert_true(hx.seed == dec.seed);
    }
    assert_int_equal(rp_settings_set(set, "seed", "5", &err), RP_OK);

    /* refusals: bad input, no setting's name in the message, nothing changed */
    static const char *const bad[][2] = {{"seed", "-1"},
                                         {"seed", "0x"},
                                         {"seed", "0xg"},
                                         {"seed", "0x0x5"},
                                         {"seed", "+0x"},
                                         {"seed", "0x10000000000000000"},
                                         {"seed", "18446744073709551616"},
                                         {"seed", "1f"},
                                         {"seed", " 5"},
                                         {"strength", "4.001"},
                                         {"strength", "+1"},
                                         {"strength", "1."},
                                         {"strength", ".5"},
                                         {"fps", "0"},
                                         {"fps", "abc"},
                                         {"size", "0x5"},
                                         {"size", "64x"},
                                         {"frames", "1.5"},
                                         {"duration", "2 s"},
                                         {"preset", "seed"},
                                         {"fit", "fill"},
                                         {"depth", "3"},
                                         {"frames", "1.0"},
                                         {"frames", "1."},
                                         {"strength", "1.0005"},
                                         {"duration", "1000001s"},
                                         {"duration", "4294967296"},
                                         {"duration", "1000000.000001s"},
                                         {"duration", "100000001f"},
                                         {"frames", "100000001"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.code = RP_OK;
        assert_int_equal(rp_settings_set(set, bad[i][0], bad[i][1], &err), RP_ERR_INVALID);
        assert_true(err.bad_input && !err.has_diag && err.msg[0]);
    }
    /* the ranges said are the ones taken: 0 frames is no timeline, 1 frame and 1us are */
    assert_int_equal(rp_settings_set(set, "frames", "0", &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "0 is out of range (1..100000000)"));
    assert_int_equal(rp_settings_set(set, "duration", "1000001s", &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "out of range (1us..1000000s)"));
    assert_int_equal(rp_settings_set(set, "duration", "100000001f", &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "out of range (1f..100000000f)"));
    assert_int_equal(rp_settings_set(set, "frames", "1", &err), RP_OK);
    assert_int_equal(rp_settings_set(set, "duration", "1us", &err), RP_OK);
    assert_int_equal(rp_settings_set(set, "frames", "12", &err), RP_OK); /* as set above */
    rp_settings_get_info(set, &info);
    assert_int_equal(info.seed, 5);
    assert_int_equal(info.strength_milli, 500);
    assert_int_equal(info.out_width, 48);

    /* the same frames as the lines' (the seed presets take -s as the scene's size too) */
    assert_int_equal(rp_settings_parse(&lines,
                                       "seed 5\nstrength 0.5\nfps 25\nduration 12f\n"
                                       "preset elias\n",
                                       NULL, &err),
                     RP_OK);
    rp_scene *s1, *s2;
    rp_core *a, *b;
    rp_core_config cfg;
    assert_int_equal(rp_scene_from_text(&s1, scene_text, strlen(scene_text), "t.scene", &err),
                     RP_OK);
    assert_int_equal(rp_scene_from_text(&s2, scene_text, strlen(scene_text), "t.scene", &err),
                     RP_OK);
    rp_core_config_init(&cfg);
    cfg.over = set;
    assert_int_equal(rp_core_open(&a, s1, &cfg, &err), RP_OK);
    cfg.over = lines;
    cfg.width = 48;
    cfg.height = 30;
    assert_int_equal(rp_core_open(&b, s2, &cfg, &err), RP_OK);
    rp_core_info ia, ib;
    rp_core_get_info(a, &ia);
    rp_core_get_info(b, &ib);
    assert_int_equal(ia.width, 48);
    assert_int_equal(ia.frames, 12);
    assert_memory_equal(&ia, &ib, sizeof ia);
    for (int64_t k = 0; k < 12; k += 5) {
        uint8_t *pa = render(a, k, RP_PASS_RENDER, 3), *pb = render(b, k, RP_PASS_RENDER, 3);
        assert_memory_equal(pa, pb, (size_t)48 * 30 * 3);
        free(pa);
        free(pb);
    }
    rp_core_close(&a);
    rp_core_close(&b);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
    rp_settings_free(&set);
    rp_settings_free(&lines);
    assert_null(set);
}

/* rp_time_parse against values worked out by hand. */
static void test_time_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int bare_frames;
        int64_t value;
        int is_frames; /* -1: refused */
    } cases[] = {
        {"2s", 0, 2000000, 0},
        {"1.5s", 0, 1500000, 0},
        {"500ms", 0, 500000, 0},
        {"250us", 0, 250, 0},
        {"45f", 0, 45, 1},
        {"45", 1, 45, 1},
        {"45", 0, 45000000, 0},
        {"1:02.5", 0, 62500000, 0},
        {"1:00:01", 0, 3601000000, 0},
        {"0.000001", 0, 1, 0},
        {"1.5f", 0, 0, -1},
        {"0.0000001s", 0, 0, -1},
        {"1:60", 0, 0, -1},
        {"1:2:3:4", 0, 0, -1},
        {"1:00", 1, 60000000, 0}, /* --start 1:00: a time, not a frame */
        {"00:00:00.5", 1, 500000, 0},
        {"1:00f", 1, 0, -1},
        {"1:60", 1, 0, -1},
        {"", 0, 0, -1},
        {"s", 0, 0, -1},
        {"2 s", 0, 0, -1},
        {"1.5ms", 0, 1500, 0},
        {"0.5us", 0, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t v = -7;
        int f = -7;
        rp_error err;
        int r = rp_time_parse(cases[i].text, cases[i].bare_frames, &v, &f, &err);
        if (cases[i].is_frames < 0) {
            assert_int_equal(r, RP_ERR_INVALID);
            assert_true(err.bad_input);
        } else {
            assert_int_equal(r, RP_OK);
            assert_int_equal(v, cases[i].value);
            assert_int_equal(f, cases[i].is_frames);
        }
    }
}

/* The scene's text as given, and its wall masks each once in the order they first appear. */
static void test_scene_text_and_masks(void **state)
{
    (void)state;
    static const char text[] = "size 64x40\nduration 10f\nat 0f wall mask b.png\n"
                               "at 2f wall rect 1 1 4 4\nat 3f wall mask a.png\n"
                               "at 5f wall mask b.png\n";
    rp_scene *s;
    rp_error err;
    size_t len = 0, at = 0;
    assert_int_equal(rp_scene_from_text(&s, text, strlen(text), "m.scene", &err), RP_OK);
    assert_string_equal(rp_scene_text(s, &len), text);
    assert_int_equal(len, strlen(text));
    const char *p1 = rp_scene_next_mask_path(s, &at), *p2 = rp_scene_next_mask_path(s, &at);
    assert_non_null(p1);
    assert_non_null(p2);
    assert_string_equal(p1 + strlen(p1) - 5, "b.png");
    assert_string_equal(p2 + strlen(p2) - 5, "a.png");
    assert_null(rp_scene_next_mask_path(s, &at));
    rp_scene_free(&s);
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(rp_core_version(), RP_CORE_VERSION);
    assert_int_equal(RP_CORE_VERSION_INT(1, 2, 3), 0x010203);
}

/* A checkpoint saved at frame 8 and restored into another core gives the frames of the run
 * that never stopped; a damaged one is refused and leaves the core as it was. */
static void test_checkpoint(void **state)
{
    (void)state;
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *a = open_core(&s1, "rate 90\n", 0, 0), *b = open_core(&s2, "rate 90\n", 0, 0);
    uint8_t *f = render(a, 8, RP_PASS_RENDER, 3);
    free(f);
    size_t n = rp_core_checkpoint_size(a);
    assert_true(n > 64 * 40 * 4);
    uint8_t *ck = malloc(n);
    assert_int_equal(rp_core_checkpoint_save(a, ck, n - 1, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_checkpoint_save(a, ck, n, &err), RP_OK);
    /* checked, not loaded (--check --load-state): b is left as it was, not started */
    int64_t steps = -2;
    FILE *mf = fmemopen(ck, n, "rb");
    assert_int_equal(rp_core_checkpoint_check(b, mf, -1, &steps, &err), RP_OK);
    fclose(mf);
    assert_true(steps > 0);
    mf = fmemopen(ck, n, "rb");
    assert_int_equal(rp_core_checkpoint_check(b, mf, steps - 1, NULL, &err), RP_ERR_INVALID);
    fclose(mf);
    assert_null(rp_core_heights(b, NULL, NULL)); /* not started, so no water was loaded */
    ck[n / 2] ^= 1;                              /* a damaged checkpoint: its checksum differs */
    mf = fmemopen(ck, n, "rb");
    assert_int_equal(rp_core_checkpoint_check(b, mf, -1, &steps, &err), RP_ERR_FORMAT);
    fclose(mf);
    assert_int_equal(rp_core_checkpoint_load(b, ck, n, &err), RP_ERR_FORMAT);
    assert_int_equal(err.bad_input, 1);
    ck[n / 2] ^= 1;
    assert_int_equal(rp_core_checkpoint_load(b, ck, n, &err), RP_OK);
    for (int64_t k = 9; k < 20; k++) {
        uint8_t *fa = render(a, k, RP_PASS_RENDER, 3), *fb = render(b, k, RP_PASS_RENDER, 3);
        assert_memory_equal(fa, fb, 64 * 40 * 3);
        free(fa);
        free(fb);
    }
    /* another scene's settings: refused */
    rp_scene *s3;
    rp_core *other = open_core(&s3, "rate 90\nseed 10\n", 0, 0);
    assert_int_equal(rp_core_checkpoint_load(other, ck, n, &err), RP_ERR_INVALID);
    mf = fmemopen(ck, n, "rb");
    assert_int_equal(rp_core_checkpoint_check(other, mf, -1, NULL, &err), RP_ERR_INVALID);
    fclose(mf);
    /* the refused water is not left in `other` (its first load, read straight into its
     * water): its heights are at rest, and the checkpoint it saves is a fresh core's at
     * step 0, not a's water under its own scene's name */
    int gw, gh;
    const int16_t *h = rp_core_heights(other, &gw, &gh);
    assert_non_null(h);
    for (int i = 0; i < gw * gh; i++)
        assert_int_equal(h[i], 0);
    rp_scene *s4;
    rp_core *fresh = open_core(&s4, "rate 90\nseed 10\n", 0, 0);
    assert_int_equal(rp_core_start(fresh, &err), RP_OK);
    size_t n2 = rp_core_checkpoint_size(other);
    assert_int_equal(n2, rp_core_checkpoint_size(fresh));
    uint8_t *ck2 = malloc(n2), *ck3 = malloc(n2);
    assert_int_equal(rp_core_checkpoint_save(other, ck2, n2, &err), RP_OK);
    assert_int_equal(rp_core_checkpoint_save(fresh, ck3, n2, &err), RP_OK);
    assert_memory_equal(ck2, ck3, n2);
    free(ck2);
    free(ck3);
    rp_core_close(&fresh);
    rp_scene_free(&s4);
    free(ck);
    rp_core_close(&a);
    rp_core_close(&b);
    rp_core_close(&other);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
    rp_scene_free(&s3);
}

/* Misuse refused, nothing written: a stride whose rows would run past the end of the
 * address space (a negative stride cast to size_t, as a bottom-up picture's is, used to
 * wrap around and write the rows before the picture), for the picture and the caller's
 * background alike; a NULL checkpoint buffer and NULL settings text (which crashed). */
static void test_misuse_refused(void **state)
{
    (void)state;
    rp_scene *s1;
    rp_error err;
    rp_core *c = open_core(&s1, "rate 90\n", 48, 30);
    const size_t row = 48 * 3, span = 30 * row;
    /* the picture in the middle of a guarded block: rows written at dst - y * row by a
     * wrapped-around stride land in the guard before it */
    uint8_t *block = malloc(3 * span), *dst = block + span;
    memset(block, 0xaa, 3 * span);
    assert_int_equal(rp_core_render(c, 3, RP_PASS_RENDER, dst, (size_t)0 - row, &err),
                     RP_ERR_INVALID);
    assert_int_equal(err.bad_input, 1);
    assert_int_equal(rp_core_render(c, 3, RP_PASS_RENDER, dst, SIZE_MAX, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_render_at(c, 0, RP_PASS_RENDER, dst, (size_t)0 - row, &err),
                     RP_ERR_INVALID);
    const enum rp_pass passes[1] = {RP_PASS_RENDER};
    void *const dsts[1] = {dst};
    const size_t strides[1] = {(size_t)0 - row};
    assert_int_equal(rp_core_render_passes(c, 3, 1, passes, dsts, strides, &err), RP_ERR_INVALID);
    for (size_t i = 0; i < 3 * span; i++)
        if (block[i] != 0xaa)
            fail_msg("byte %zd of the picture's block was written", (ptrdiff_t)i - (ptrdiff_t)span);
    /* the caller's background: the same, at rp_core_set_background and rp_core_open */
    assert_int_equal(rp_core_set_background(c, dst, (size_t)0 - row, RP_PIX_RGB24, &err),
                     RP_ERR_INVALID);
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    cfg.width = 48;
    cfg.height = 30;
    cfg.background = dst;
    cfg.background_stride = (size_t)0 - row;
    rp_core *bg = NULL;
    assert_int_equal(rp_core_open(&bg, s1, &cfg, &err), RP_ERR_INVALID);
    assert_null(bg);
    /* a sane stride still renders */
    assert_int_equal(rp_core_render(c, 3, RP_PASS_RENDER, dst, row, &err), RP_OK);
    /* checkpoints: a NULL buffer is refused, not written to */
    size_t n = rp_core_checkpoint_size(c);
    assert_true(n > 0);
    assert_int_equal(rp_core_checkpoint_save(c, NULL, n, &err), RP_ERR_INVALID);
    assert_int_equal(err.bad_input, 1);
    /* settings: NULL text is refused */
    rp_settings *set = (rp_settings *)&err;
    assert_int_equal(rp_settings_parse(&set, NULL, NULL, &err), RP_ERR_INVALID);
    assert_null(set);
    free(block);
    rp_core_close(&c);
    rp_scene_free(&s1);
}

/* A NULL pointer a call needs is RP_ERR_INVALID with bad_input set, not a crash (rpcore.h
 * "Errors", since 2.6.2); err may be NULL; the calls that return no error take a NULL
 * object as empty. The core that saw the misuse still renders a fresh core's frame. */
static void refused_null(int r, const rp_error *err)
{
    assert_int_equal(r, RP_ERR_INVALID);
    assert_int_equal(err->code, RP_ERR_INVALID);
    assert_int_equal(err->bad_input, 1);
}

static void test_null_pointers(void **state)
{
    (void)state;
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *c = open_core(&s1, "rate 90\n", 48, 30), *fresh = open_core(&s2, "rate 90\n", 48, 30);
    uint8_t rgb[48 * 30 * 3];
    const enum rp_pass passes[1] = {RP_PASS_RENDER};
    void *const dsts[1] = {rgb};
    const size_t strides[1] = {48 * 3};
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    int64_t v;
    int is_frames;
    double bytes;
    size_t files;

    memset(&err, 0, sizeof err);
    refused_null(rp_core_open(NULL, s1, &cfg, &err), &err);
    refused_null(rp_core_render(NULL, 0, RP_PASS_RENDER, rgb, 48 * 3, &err), &err);
    refused_null(rp_core_render_at(NULL, 0, RP_PASS_RENDER, rgb, 48 * 3, &err), &err);
    refused_null(rp_core_render_passes(NULL, 0, 1, passes, dsts, strides, &err), &err);
    refused_null(rp_core_start(NULL, &err), &err);
    refused_null(rp_core_set_background(NULL, NULL, 0, RP_PIX_RGB24, &err), &err);
    refused_null(rp_core_set_images(NULL, NULL, NULL, &err), &err);
    refused_null(rp_core_set_light(NULL, RP_LIGHT_DEPTH, 1, 256, &err), &err);
    refused_null(rp_core_set_checkpoints(NULL, 1, 0, &err), &err);
    refused_null(rp_core_checkpoint_save(NULL, rgb, sizeof rgb, &err), &err);
    refused_null(rp_core_checkpoint_load(NULL, rgb, sizeof rgb, &err), &err);
    refused_null(rp_core_checkpoint_read(NULL, stdin, -1, &v, &err), &err);
    assert_int_equal(v, -1);
    refused_null(rp_core_checkpoint_read(c, NULL, -1, NULL, &err), &err);
    refused_null(rp_core_checkpoint_check(NULL, stdin, -1, &v, &err), &err);
    assert_int_equal(v, -1);
    refused_null(rp_core_checkpoint_check(c, NULL, -1, NULL, &err), &err);
    refused_null(rp_core_image_costs(NULL, NULL, NULL, &bytes, &files, &err), &err);
    refused_null(rp_core_image_costs(c, NULL, NULL, &bytes, &files, &err), &err);
    refused_null(rp_scene_from_text(NULL, "fps 30\n", 7, NULL, &err), &err);
    refused_null(rp_scene_from_buffer(NULL, strdup("fps 30\n"), 7, NULL, 0, &err), &err);
    refused_null(rp_settings_parse(NULL, "fps 30\n", NULL, &err), &err);
    refused_null(rp_settings_new(NULL, &err), &err);
    refused_null(rp_settings_set(NULL, "fps", "30", &err), &err);
    refused_null(rp_settings_copy(NULL, NULL, &err), &err);
    refused_null(rp_settings_merged(NULL, s1, NULL, &err), &err);
    refused_null(rp_time_parse(NULL, 0, &v, &is_frames, &err), &err);
    /* err NULL: the code alone */
    assert_int_equal(rp_core_render(NULL, 0, RP_PASS_RENDER, rgb, 48 * 3, NULL), RP_ERR_INVALID);
    assert_int_equal(rp_core_render(c, 999, RP_PASS_RENDER, rgb, 48 * 3, NULL), RP_ERR_INVALID);
    assert_int_equal(rp_time_parse("x", 0, &v, &is_frames, NULL), RP_ERR_INVALID);
    /* no error to return: NULL is empty */
    rp_core_info info;
    memset(&info, 0xff, sizeof info);
    rp_core_get_info(NULL, &info);
    assert_int_equal(info.frames, 0);
    assert_int_equal(info.width, 0);
    rp_core_get_info(c, NULL);
    rp_timeline_stats ts;
    memset(&ts, 0xff, sizeof ts);
    rp_core_timeline_stats(NULL, &ts);
    assert_int_equal(ts.drops, 0);
    rp_scene_stats ss;
    memset(&ss, 0xff, sizeof ss);
    rp_scene_stats_get(NULL, &ss);
    assert_int_equal(ss.drops, 0);
    int gw = 5, gh = 5;
    assert_null(rp_core_heights(NULL, &gw, &gh));
    assert_int_equal(gw, 0);
    assert_null(rp_core_settings(NULL));
    assert_int_equal(rp_core_checkpoint_size(NULL), 0);
    assert_int_equal(rp_core_frame_steps(NULL, 3), 0);
    assert_int_equal(rp_core_frame_drops(NULL, 3), 0);
    assert_int_equal(rp_core_steps(NULL), 0);
    assert_true(rp_core_memory(NULL, 0) == 0);
    assert_int_equal(rp_core_print_timeline(NULL, stdout), -1);
    assert_int_equal(rp_core_print_timeline(c, NULL), -1);
    rp_core_set_step_budget(NULL, 5);
    rp_core_config_init(NULL);
    size_t len = 7;
    assert_null(rp_scene_text(NULL, &len));
    assert_int_equal(len, 0);
    assert_non_null(rp_scene_text(s1, NULL));
    assert_string_equal(rp_scene_name(NULL), "<scene>");
    assert_null(rp_scene_file(NULL));
    assert_true(rp_scene_memory(NULL) == 0);
    assert_null(rp_scene_next_mask_path(NULL, &files));
    assert_null(rp_scene_next_mask_path(s1, NULL));
    assert_null(rp_scene_outside_path(NULL, 0));
    assert_null(rp_scene_background_at(NULL));
    assert_null(rp_scene_sky_at(NULL));
    assert_null(rp_scene_look_from(NULL, 0, NULL));
    assert_null(rp_scene_look_from(s1, 0, NULL));
    assert_int_equal(rp_settings_given(NULL, "fps"), 0);
    rp_settings_info si, want;
    rp_settings *none = NULL;
    assert_int_equal(rp_settings_new(&none, &err), RP_OK);
    rp_settings_get_info(none, &want);
    assert_int_equal(rp_settings_given(none, NULL), 0);
    rp_settings_free(&none);
    rp_settings_get_info(NULL, &si); /* settings with nothing given */
    assert_int_equal(si.fps, want.fps);
    assert_int_equal(si.width, want.width);
    assert_string_equal(si.preset, want.preset);
    rp_settings_get_info(NULL, NULL);
    /* after all that, c renders what a fresh core renders */
    uint8_t *a = render(c, 7, RP_PASS_RENDER, 3), *b = render(fresh, 7, RP_PASS_RENDER, 3);
    assert_memory_equal(a, b, sizeof rgb);
    free(a);
    free(b);
    rp_core_close(&c);
    rp_core_close(&fresh);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
}

/* An instant in the last frame's interval, past its instant, shows the last frame's water:
 * the timeline holds the steps up to the last frame's (simulating on to 1.9 s, 190 steps,
 * missed the drop at 1.5 s that no frame of 1 fps shows, and showed still water). */
static void test_render_at_last_interval(void **state)
{
    (void)state;
    static const char text[] =
        "preset elias\nsize 64x64\nrate 100\nduration 2s\nat 1.5s drop 50% 50% radius 8 "
        "height 3000\n";
    rp_scene *s;
    rp_settings *over;
    rp_error err;
    rp_core *c;
    rp_core_config cfg;
    rp_core_info info;
    assert_int_equal(rp_scene_from_text(&s, text, strlen(text), NULL, &err), RP_OK);
    assert_int_equal(rp_settings_parse(&over, "fps 1\n", NULL, &err), RP_OK);
    rp_core_config_init(&cfg);
    cfg.over = over;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    rp_core_get_info(c, &info);
    assert_int_equal(info.frames, 2);
    uint16_t *at = malloc(64 * 64 * 2), *last = malloc(64 * 64 * 2);
    assert_int_equal(rp_core_render_at(c, 1900000000, RP_PASS_HEIGHT, at, 128, &err), RP_OK);
    assert_int_equal(rp_core_steps(c), info.steps);
    assert_int_equal(rp_core_render(c, 1, RP_PASS_HEIGHT, last, 128, &err), RP_OK);
    assert_memory_equal(at, last, 64 * 64 * 2);
    free(at);
    free(last);
    rp_core_close(&c);
    rp_settings_free(&over);
    rp_scene_free(&s);
}

/* A frame's instant floored to the nanosecond (k * 1e9 * den / fps, as GStreamer forms its
 * times) is that frame, at 24, 30 and 30000/1001 fps with a simulation rate of its own:
 * found by a red team, a third of them fell in the frame before. A microsecond before the
 * instant is still the frame; 2 us before is not (at 30 fps, a step short). */
static void test_render_at_floored(void **state)
{
    (void)state;
    static const char *const rates[] = {"fps 24\nrate 90\n", "fps 30\nrate 90\n",
                                        "fps ntsc\nrate 90\n"};
    static const int64_t num[] = {24, 30, 30000}, den[] = {1, 1, 1001};
    rp_error err;
    for (int r = 0; r < 3; r++) {
        rp_scene *s1, *s2;
        rp_core *a = open_core(&s1, rates[r], 48, 30), *b = open_core(&s2, rates[r], 48, 30);
        rp_core_info info;
        rp_core_get_info(a, &info);
        uint16_t *at = malloc(48 * 30 * 2), *fr = malloc(48 * 30 * 2);
        for (int64_t k = 1; k < info.frames; k++) {
            int64_t ns = (int64_t)((__int128)k * 1000000000 * den[r] / num[r]);
            assert_int_equal(rp_core_render(a, k, RP_PASS_HEIGHT, fr, 96, &err), RP_OK);
            for (int64_t early = 0; early <= 1000; early += 999) {
                assert_int_equal(rp_core_render_at(b, ns - early, RP_PASS_HEIGHT, at, 96, &err),
                                 RP_OK);
                assert_memory_equal(at, fr, 48 * 30 * 2);
            }
            /* 2 us before at 30 fps (3 steps a frame): a step short of the frame's water */
            if (num[r] != 30)
                continue;
            assert_int_equal(rp_core_render_at(b, ns - 2000, RP_PASS_HEIGHT, at, 96, &err), RP_OK);
            assert_true(memcmp(at, fr, 48 * 30 * 2) != 0);
        }
        free(at);
        free(fr);
        rp_core_close(&a);
        rp_core_close(&b);
        rp_scene_free(&s1);
        rp_scene_free(&s2);
    }
}

/* Going back in time re-simulates: frame 4 after frame 15 is a fresh core's frame 4; a
 * frame at its instant is the frame; rows with a stride are the packed rows. */
static void test_order_instant_stride(void **state)
{
    (void)state;
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *a = open_core(&s1, "rate 90\n", 48, 30), *b = open_core(&s2, "rate 90\n", 48, 30);
    uint8_t *late = render(a, 15, RP_PASS_RENDER, 3), *back = render(a, 4, RP_PASS_RENDER, 3);
    uint8_t *fresh = render(b, 4, RP_PASS_RENDER, 3);
    assert_memory_equal(back, fresh, 48 * 30 * 3);
    /* frame 7's instant: 7/30 s = 233333333.3 ns, rounded down to the nanosecond */
    uint8_t *at = malloc(48 * 30 * 3), *strided = malloc(30 * (48 * 3 + 5));
    assert_int_equal(rp_core_render_at(b, 233333333, RP_PASS_RENDER, at, 48 * 3, &err), RP_OK);
    uint8_t *seven = render(a, 7, RP_PASS_RENDER, 3);
    assert_memory_equal(at, seven, 48 * 30 * 3);
    assert_int_equal(rp_core_render(b, 7, RP_PASS_RENDER, strided, 48 * 3 + 5, &err), RP_OK);
    for (int y = 0; y < 30; y++)
        assert_memory_equal(strided + (size_t)y * (48 * 3 + 5), seven + (size_t)y * 48 * 3, 48 * 3);
    assert_int_equal(rp_core_render(b, 7, RP_PASS_RENDER, strided, 48 * 3 - 1, &err),
                     RP_ERR_INVALID);
    assert_int_equal(rp_core_render(b, 20, RP_PASS_RENDER, at, 48 * 3, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_render_at(b, -1, RP_PASS_RENDER, at, 48 * 3, &err), RP_ERR_INVALID);
    free(late);
    free(back);
    free(fresh);
    free(at);
    free(strided);
    free(seven);
    rp_core_close(&a);
    rp_core_close(&b);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
}

/* The height pass of a seed preset is the grid's heights + 32768; the light passes are
 * refused there. */
static void test_height_pass(void **state)
{
    (void)state;
    rp_scene *s;
    rp_error err;
    int gw, gh;
    rp_core *c = open_core(&s, "preset elias\n", 0, 0);
    assert_null(rp_core_heights(c, &gw, &gh));
    uint16_t *h16 = (uint16_t *)render(c, 5, RP_PASS_HEIGHT, 2);
    const int16_t *h = rp_core_heights(c, &gw, &gh);
    assert_non_null(h);
    assert_int_equal(gw, 64);
    int moved = 0;
    for (int i = 0; i < gw * gh; i++) {
        assert_int_equal(h16[i], h[i] + 32768);
        moved |= h[i] != 0;
    }
    assert_true(moved);
    assert_int_equal(rp_core_render(c, 5, RP_PASS_LIGHT, h16, 64 * 4, &err), RP_ERR_INVALID);
    free(h16);
    rp_core_close(&c);
    rp_scene_free(&s);
}

/* A caller's background as RGBA (rows with a stride) renders as the same colours in RGB24;
 * changing its pixels changes the next frame; the layer passes and the surface passes of
 * render light come out: at frame 3, the ST map's identity and the caustics' gain 4096 (1)
 * where the water is at rest. */
/* The ST map's s of a pixel whose water is flat all over the refraction's footprint (depth
 * / 6 cells either side, rockpool-scene(5) `look water`; a window of +-R pixels of flat
 * normals holds it): (x + 0.5) / W * 65535, the pixel itself. One drop in a corner leaves
 * the rest flat. */
static void assert_st_identity_where_flat(void)
{
    enum { W = 160, H = 100, R = 40 };
    static const char one[] = "size 160x100\nduration 4f\nat 0f drop 6 6 radius 3 height 3000\n";
    rp_scene *s;
    rp_core *c = open_text(&s, one, NULL, 0, 0);
    uint16_t *st = (uint16_t *)render(c, 2, RP_PASS_DISPLACEMENT, 6);
    uint16_t *nm = (uint16_t *)render(c, 2, RP_PASS_NORMAL, 6);
    int flat = 0, curved = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int still = 1;
            for (int v = y - R; v <= y + R && still; v++)
                for (int u = x - R; u <= x + R && still; u++) {
                    size_t j = ((size_t)(v < 0    ? 0
                                         : v >= H ? H - 1
                                                  : v) *
                                    W +
                                (size_t)(u < 0    ? 0
                                         : u >= W ? W - 1
                                                  : u)) *
                               3;
                    still = nm[j] == 32768 && nm[j + 1] == 32768; /* normal (0, 0, 1) */
                }
            size_t i = ((size_t)y * W + x) * 3;
            curved += nm[i] != 32768;
            if (still) {
                flat++;
                assert_int_equal(st[i], (uint16_t)((2 * x + 1) * 65535 / (2 * W) +
                                                   ((2 * x + 1) * 65535 % (2 * W) >= W)));
            }
        }
    assert_true(flat > 0 && curved > 0);
    free(st);
    free(nm);
    rp_core_close(&c);
    rp_scene_free(&s);
}

static void test_background_and_passes(void **state)
{
    (void)state;
    enum { W = 40, H = 24 };
    rp_scene *s;
    rp_error err;
    rp_core_config cfg;
    rp_core *c1 = NULL, *c2 = NULL;
    static uint8_t rgb[H][W * 3], rgba[H][W * 4 + 8];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int i = 0; i < 3; i++) {
                rgb[y][3 * x + i] = (uint8_t)(x * 5 + y * 3 + i * 60);
                rgba[y][4 * x + i] = rgb[y][3 * x + i];
                rgba[y][4 * x + 3] = (uint8_t)(y * 7);
            }
    assert_int_equal(rp_scene_from_text(&s, scene_text, strlen(scene_text), NULL, &err), RP_OK);
    rp_core_config_init(&cfg);
    cfg.width = W;
    cfg.height = H;
    cfg.background = &rgb[0][0];
    cfg.background_stride = W * 3;
    assert_int_equal(rp_core_open(&c1, s, &cfg, &err), RP_OK);
    cfg.background = &rgba[0][0];
    cfg.background_stride = W * 4 + 8;
    cfg.background_format = RP_PIX_RGBA;
    cfg.threads = 3;
    assert_int_equal(rp_core_open(&c2, s, &cfg, &err), RP_OK);
    rp_core_info info;
    rp_core_get_info(c2, &info);
    assert_true(info.light);
    uint8_t *f1 = render(c1, 3, RP_PASS_RENDER, 3), *f2 = render(c2, 3, RP_PASS_RENDER, 3);
    assert_memory_equal(f1, f2, W * H * 3);
    rgba[10][4 * 10] ^= 0xff;
    uint8_t *f3 = render(c2, 3, RP_PASS_RENDER, 3);
    assert_memory_not_equal(f1, f3, W * H * 3);
    rgba[10][4 * 10] ^= 0xff;
    uint8_t *straight = render(c2, 3, RP_PASS_LIGHT, 4),
            *pre = render(c2, 3, RP_PASS_LIGHT_PREMULTIPLIED, 4);
    for (int i = 0; i < W * H; i++) /* premultiplied: round(C * A / 255) */
        for (int ch = 0; ch < 3; ch++)
            assert_int_equal(pre[4 * i + ch],
                             (straight[4 * i + ch] * straight[4 * i + 3] + 127) / 255);
    /* RGBA render: the render's colours with the background's alpha (opaque over RGB24),
     * also written over the background itself */
    uint8_t *q2 = render(c2, 3, RP_PASS_RENDER_RGBA, 4),
            *q1 = render(c1, 3, RP_PASS_RENDER_RGBA, 4);
    static uint8_t inplace[H][W * 4 + 8];
    memcpy(inplace, rgba, sizeof inplace);
    assert_int_equal(rp_core_set_background(c2, &inplace[0][0], W * 4 + 8, RP_PIX_RGBA, &err),
                     RP_OK);
    assert_int_equal(rp_core_render(c2, 3, RP_PASS_RENDER_RGBA, inplace, W * 4 + 8, &err), RP_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            assert_memory_equal(q2 + 4 * i, f1 + 3 * i, 3);
            assert_memory_equal(q1 + 4 * i, f1 + 3 * i, 3);
            assert_int_equal(q2[4 * i + 3], rgba[y][4 * x + 3]);
            assert_int_equal(q1[4 * i + 3], 255);
            assert_memory_equal(&inplace[y][4 * x], q2 + 4 * i, 4);
        }
    assert_int_equal(rp_core_set_background(c2, &rgba[0][0], W * 4 + 8, RP_PIX_RGBA, &err), RP_OK);
    free(q1);
    free(q2);
    uint16_t *st = (uint16_t *)render(c2, 3, RP_PASS_DISPLACEMENT, 6);
    uint16_t *ca = (uint16_t *)render(c2, 3, RP_PASS_CAUSTICS, 6);
    uint16_t *nm = (uint16_t *)render(c2, 3, RP_PASS_NORMAL, 6);
    for (size_t i = 0; i < (size_t)W * H; i++)
        assert_int_equal(st[3 * i + 2], 0);
    assert_st_identity_where_flat();
    /* the caustics: gain 4096 (1) in every channel where the water is flat over the
     * curvature's reach (its second differences 3 cells apart, 2 pixels at this size, each
     * smoothed across, so the square of 3 pixels about it), no tint in this scene; another
     * where the water is curved */
    int rest = 0, lit = 0;
    for (int y = 3; y < H - 3; y++)
        for (int x = 3; x < W - 3; x++) {
            size_t i = ((size_t)y * W + x) * 3;
            int still = 1;
            for (int dy = -3; dy <= 3; dy++)
                for (int dx = -3; dx <= 3; dx++) {
                    size_t j = ((size_t)(y + dy) * W + (size_t)(x + dx)) * 3;
                    still &= nm[j] == 32768 && nm[j + 1] == 32768;
                }
            if (still) {
                rest++;
                for (int ch = 0; ch < 3; ch++)
                    assert_int_equal(ca[i + ch], 4096);
            }
            lit += ca[i] != 4096;
        }
    assert_true(rest > 0 && lit > 0);
    free(f1);
    free(f2);
    free(f3);
    free(straight);
    free(pre);
    free(st);
    free(ca);
    free(nm);
    rp_core_close(&c1);
    rp_core_close(&c2);
    rp_scene_free(&s);
}

/* Refusals: a scene error with its place, events among settings, a background image. */
static void test_refusals(void **state)
{
    (void)state;
    rp_scene *s = NULL;
    rp_settings *over = NULL;
    rp_core *c = NULL;
    rp_error err;
    static const char bad[] = "size 64x40\nat 0f drop 1 1 radius 0 height 5\n";
    assert_int_equal(rp_scene_from_text(&s, bad, strlen(bad), "b.scene", &err), RP_ERR_INVALID);
    assert_null(s);
    assert_true(err.has_diag && err.bad_input);
    assert_string_equal(err.diag.file, "b.scene");
    assert_int_equal(err.diag.line, 2);
    assert_true(err.diag.col > 1);
    assert_int_equal(rp_settings_parse(&over, "at 0f drop 1 1\n", NULL, &err), RP_ERR_INVALID);
    static const char img[] = "size 64x40\nbackground pool.png\n";
    assert_int_equal(rp_scene_from_text(&s, img, strlen(img), "i.scene", &err), RP_OK);
    assert_int_equal(rp_core_open(&c, s, NULL, &err), RP_OK);
    rp_core_info info;
    rp_core_get_info(c, &info);
    assert_true(info.needs_background);
    assert_false(info.needs_masks);
    uint8_t px[64 * 40 * 3];
    assert_int_equal(rp_core_render(c, 0, RP_PASS_RENDER, px, 64 * 3, &err), RP_ERR_UNSUPPORTED);
    assert_int_equal(err.bad_input, 1);
    rp_core_close(&c);
    rp_scene_free(&s);
    /* a wall mask at a later frame, after other walls: the core says it needs it */
    static const char mask[] = "size 64x40\nduration 10f\nat 0f wall rect 1 1 4 4\n"
                               "at 7f wall mask island.png\n";
    assert_int_equal(rp_scene_from_text(&s, mask, strlen(mask), "m.scene", &err), RP_OK);
    assert_int_equal(rp_core_open(&c, s, NULL, &err), RP_OK);
    rp_core_get_info(c, &info);
    assert_true(info.needs_masks);
    assert_false(info.needs_background);
    rp_core_close(&c);
    rp_scene_free(&s);
}

/* threads 0 is one per usable CPU: the frames of one thread; outside 0..256 is refused. */
static void test_thread_counts(void **state)
{
    (void)state;
    rp_scene *s;
    rp_error err;
    rp_core_config cfg;
    rp_core *one = NULL, *all = NULL, *bad = NULL;
    assert_int_equal(rp_scene_from_text(&s, scene_text, strlen(scene_text), NULL, &err), RP_OK);
    rp_core_config_init(&cfg);
    assert_int_equal(rp_core_open(&one, s, &cfg, &err), RP_OK);
    cfg.threads = 0;
    assert_int_equal(rp_core_open(&all, s, &cfg, &err), RP_OK);
    cfg.threads = -1;
    assert_int_equal(rp_core_open(&bad, s, &cfg, &err), RP_ERR_INVALID);
    cfg.threads = 257;
    assert_int_equal(rp_core_open(&bad, s, &cfg, &err), RP_ERR_INVALID);
    for (int64_t k = 0; k < 20; k += 7) {
        uint8_t *a = render(one, k, RP_PASS_RENDER, 3), *b = render(all, k, RP_PASS_RENDER, 3);
        assert_memory_equal(a, b, 64 * 40 * 3);
        free(a);
        free(b);
    }
    rp_core_close(&one);
    rp_core_close(&all);
    rp_scene_free(&s);
}

/* A moving wall (a circle along a path) and a wall put up at frame 6: what a checkpoint
 * must restore besides the heights. */
static const char moving_text[] = "size 64x40\n"
                                  "fps 30\n"
                                  "duration 24f\n"
                                  "seed 3\n"
                                  "at 0f drop 20 20 radius 4 height 3000\n"
                                  "path boat smooth 95%,90% 60%,50% 10%,20%\n"
                                  "at 2f..24f wall circle along boat 6% push 80\n"
                                  "at 0f..24f rain rate 60/s radius 2..4 height 500..2000\n"
                                  "at 6f wall rect 40 0 3 20\n";

/* Checkpoints kept in memory: frames asked in any order (back past a checkpoint, forward
 * past several) are a fresh core's frames, with the moving wall where a run straight to
 * the frame leaves it. */
static void test_kept_checkpoints(void **state)
{
    (void)state;
    static const int64_t order[] = {0, 3, 9, 21, 23, 12, 5, 17, 2, 22, 8, 8, 0, 19};
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *a = open_text(&s1, moving_text, "rate 90\n", 0, 0);
    assert_int_equal(rp_core_set_checkpoints(a, -1, 1 << 20, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_set_checkpoints(a, 5, (size_t)1 << 20, &err), RP_OK);
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        rp_core *b = open_text(&s2, moving_text, "rate 90\n", 0, 0);
        uint8_t *fa = render(a, order[i], RP_PASS_RENDER, 3);
        uint8_t *fb = render(b, order[i], RP_PASS_RENDER, 3);
        assert_memory_equal(fa, fb, 64 * 40 * 3);
        int gw, gh;
        const int16_t *ha = rp_core_heights(a, &gw, &gh), *hb = rp_core_heights(b, NULL, NULL);
        assert_memory_equal(ha, hb, (size_t)gw * gh * sizeof *ha);
        free(fa);
        free(fb);
        rp_core_close(&b);
        rp_scene_free(&s2);
    }
    rp_core_close(&a);
    rp_scene_free(&s1);
}

/* Two cores of moving_text at rate 90, a under a budget of `steps` steps' cells a call. */
static void budget_pair(rp_scene **s1, rp_scene **s2, rp_core **a, rp_core **b, int steps)
{
    rp_core_info in;
    *a = open_text(s1, moving_text, "rate 90\n", 0, 0);
    *b = open_text(s2, moving_text, "rate 90\n", 0, 0);
    rp_core_get_info(*a, &in);
    rp_core_set_step_budget(*a, steps * (int64_t)in.grid_w * in.grid_h);
}

/* Under a step budget, calls that alternate between an early frame and a late one still
 * reach the late one: each call for it goes on from where the last one stopped (one
 * checkpoint kept, at step 0, so none lies between the two). Frame 1 is 3 steps at rate
 * 90, frame 10 is 30; the budget is 4 steps' cells, so the late frame takes 8 calls of its
 * own. Both frames are a fresh core's. */
static void test_step_budget_alternating(void **state)
{
    (void)state;
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *a, *b;
    budget_pair(&s1, &s2, &a, &b, 4);
    assert_int_equal(rp_core_set_checkpoints(a, 1, (size_t)1 << 30, &err), RP_OK);
    uint8_t *early = render(b, 1, RP_PASS_RENDER, 3), *late = render(b, 10, RP_PASS_RENDER, 3);
    uint8_t *f = malloc(64 * 40 * 3);
    int calls = 0, r;
    while ((r = rp_core_render(a, 10, RP_PASS_RENDER, f, 64 * 3, &err)) == RP_ERR_AGAIN) {
        assert_true(++calls < 20);
        assert_int_equal(rp_core_render(a, 1, RP_PASS_RENDER, f, 64 * 3, &err), RP_OK);
        assert_memory_equal(f, early, 64 * 40 * 3);
    }
    assert_int_equal(r, RP_OK);
    assert_int_equal(calls, 8 - 1);
    assert_memory_equal(f, late, 64 * 40 * 3);
    free(f);
    free(early);
    free(late);
    rp_core_close(&a);
    rp_core_close(&b);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
}

/* A step budget of two steps' cells a call: frame 10 (30 steps at rate 90) takes 15 calls,
 * the first 14 RP_ERR_AGAIN (a runtime condition, not bad input) writing nothing, and the
 * frame is a fresh core's; the budget lifted, a frame is one call. */
static void test_step_budget(void **state)
{
    (void)state;
    rp_scene *s1, *s2;
    rp_error err;
    rp_core *a, *b;
    budget_pair(&s1, &s2, &a, &b, 2);
    uint8_t *fa = malloc(64 * 40 * 3);
    int calls = 0, r;
    memset(fa, 0xa5, 64 * 40 * 3);
    while ((r = rp_core_render(a, 10, RP_PASS_RENDER, fa, 64 * 3, &err)) == RP_ERR_AGAIN) {
        assert_int_equal(err.bad_input, 0);
        assert_int_equal(fa[0], 0xa5);
        assert_true(++calls < 100);
    }
    assert_int_equal(r, RP_OK);
    assert_int_equal(calls, 15 - 1);
    uint8_t *fb = render(b, 10, RP_PASS_RENDER, 3);
    assert_memory_equal(fa, fb, 64 * 40 * 3);
    rp_core_set_step_budget(a, 0);
    free(fa);
    free(fb);
    fa = render(a, 23, RP_PASS_RENDER, 3);
    fb = render(b, 23, RP_PASS_RENDER, 3);
    assert_memory_equal(fa, fb, 64 * 40 * 3);
    free(fa);
    free(fb);
    rp_core_close(&a);
    rp_core_close(&b);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
}

/* The light's knobs are the scene's settings at those values: depth 3 cells, an azimuth of
 * 120 and an elevation of 30 degrees, and caustics 2 under strength 2 (divided by its
 * square, as the scene's are); given back, the scene's light again. Out of range:
 * refused, nothing changed. */
static void test_light_knobs(void **state)
{
    (void)state;
    static const char lit[] = "size 64x40\nfps 30\nduration 12f\nseed 5\npreset rockpool\n"
                              "at 0f drop 30 20 radius 5 height 6000\n"
                              "at 0f..12f rain rate 40/s radius 2..4 height 800..3000\n";
    rp_scene *s1, *s2, *s3;
    rp_error err;
    rp_core *a = open_text(&s1, lit, "strength 2\n", 64, 40);
    rp_core *b = open_text(&s2, lit, "strength 2\ndepth 3\nlight 120 30\ncaustics 2\n", 64, 40);
    rp_core *plain = open_text(&s3, lit, "strength 2\n", 64, 40);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_DEPTH, 1, 0, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_set_light(a, (enum rp_light_knob)4, 1, 1, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_ELEVATION, 1, 90001, &err), RP_ERR_INVALID);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_DEPTH, 1, 3 * 256, &err), RP_OK);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_AZIMUTH, 1, 120000, &err), RP_OK);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_ELEVATION, 1, 30000, &err), RP_OK);
    assert_int_equal(rp_core_set_light(a, RP_LIGHT_CAUSTICS, 1, 2 * 256, &err), RP_OK);
    for (int64_t k = 0; k < 12; k += 5) {
        uint8_t *fa = render(a, k, RP_PASS_RENDER, 3), *fb = render(b, k, RP_PASS_RENDER, 3);
        uint8_t *fp = render(plain, k, RP_PASS_RENDER, 3);
        assert_memory_equal(fa, fb, 64 * 40 * 3);
        if (k)
            assert_memory_not_equal(fa, fp, 64 * 40 * 3);
        free(fa);
        free(fb);
        free(fp);
    }
    for (int i = RP_LIGHT_DEPTH; i <= RP_LIGHT_CAUSTICS; i++)
        assert_int_equal(rp_core_set_light(a, (enum rp_light_knob)i, 0, 0, &err), RP_OK);
    uint8_t *fa = render(a, 11, RP_PASS_RENDER, 3), *fp = render(plain, 11, RP_PASS_RENDER, 3);
    assert_memory_equal(fa, fp, 64 * 40 * 3);
    free(fa);
    free(fp);
    rp_core_close(&a);
    rp_core_close(&b);
    rp_core_close(&plain);
    rp_scene_free(&s1);
    rp_scene_free(&s2);
    rp_scene_free(&s3);
}

/* A wall mask moving along a path is an image too: refused at its statement's line and
 * its path's column, naming the path; so is a sky image under render light. */
static void test_image_places(void **state)
{
    (void)state;
    static const char along[] = "size 64x40\nduration 10f\npath p linear 10%,10% 90%,90%\n"
                                "at 0f..10f wall mask along p 8 8 boat.png\n";
    static const char sky[] = "size 64x40\nduration 10f\npreset rockpool\nsky clouds.png 2\n";
    rp_scene *s;
    rp_error err;
    uint8_t px[64 * 40 * 3];
    rp_core *c = open_text(&s, along, NULL, 0, 0);
    rp_core_info info;
    rp_core_get_info(c, &info);
    assert_true(info.needs_masks);
    assert_int_equal(rp_core_render(c, 0, RP_PASS_RENDER, px, 64 * 3, &err), RP_ERR_UNSUPPORTED);
    assert_true(err.has_diag && err.bad_input);
    assert_int_equal(err.diag.line, 4);
    assert_int_equal(err.diag.col, 34); /* boat.png, not wall (12) */
    assert_non_null(strstr(err.diag.msg, "wall mask 'boat.png'"));
    rp_core_close(&c);
    rp_scene_free(&s);
    c = open_text(&s, sky, NULL, 0, 0);
    assert_int_equal(rp_core_render(c, 0, RP_PASS_RENDER, px, 64 * 3, &err), RP_ERR_UNSUPPORTED);
    assert_int_equal(err.diag.line, 4);
    assert_non_null(strstr(err.diag.msg, "sky image 'clouds.png'"));
    rp_core_close(&c);
    rp_scene_free(&s);
}

/* rp_core_set_images: what the decoder was asked, and whether it fails. */
typedef struct decoder {
    int calls;
    const char *fail_on; /* the path whose decoding fails, or NULL */
    enum rp_image_use use;
    int w, h;
    char path[64];
} decoder;

/* A wall mask whose left half is white (a wall), the right half black. */
static int decode_half(void *ctx, const char *path, enum rp_image_use use, int w, int h,
                       uint8_t *rgb, rp_error *err)
{
    decoder *d = ctx;
    d->calls++;
    d->use = use;
    d->w = w;
    d->h = h;
    snprintf(d->path, sizeof d->path, "%s", path);
    if (d->fail_on && !strcmp(path, d->fail_on)) {
        snprintf(err->msg, sizeof err->msg, "cannot open image '%s': broken", path);
        err->code = RP_ERR_IO;
        return RP_ERR_IO;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            memset(rgb + 3 * ((size_t)y * w + x), x < w / 2 ? 255 : 0, 3);
    return RP_OK;
}

/* A core of text whose images d decodes. */
static rp_core *open_decoded(rp_scene **scene, const char *text, decoder *d)
{
    rp_error err;
    rp_core *c = open_text(scene, text, NULL, 0, 0);
    assert_int_equal(rp_core_set_images(c, decode_half, d, &err), RP_OK);
    return c;
}

/* The caller decodes a wall mask: asked once at the grid's size, its white cells are walls
 * (height 0 under a drop's rings that fill the rest); a failure is placed at the mask's
 * statement; a path out of the scene's directory is refused before the decoder is asked;
 * the decoder is set before the first frame only. */
static void test_images_decoded(void **state)
{
    (void)state;
    static const char text[] = "size 64x40\nduration 40f\npreset elias\n"
                               "at 0f wall mask m.png\nat 0f drop 36 20 radius 4 height 3000\n";
    static const char outside[] = "size 64x40\nduration 8f\nat 0f wall mask ../m.png\n";
    static const char two[] = "size 64x40\nduration 8f\npreset elias\nat 0f wall mask m.png\n"
                              "at 2f wall mask b.png\n";
    rp_scene *s;
    rp_error err;
    decoder d = {0};
    rp_core *c = open_decoded(&s, text, &d);
    rp_core_info info;
    rp_core_get_info(c, &info);
    uint8_t *px = render(c, 39, RP_PASS_RENDER, 3);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.use, RP_IMAGE_WALL_MASK);
    assert_int_equal(d.w, info.grid_w);
    assert_int_equal(d.h, info.grid_h);
    assert_string_equal(d.path, "m.png");
    int gw, gh, moving = 0;
    const int16_t *hs = rp_core_heights(c, &gw, &gh);
    for (int y = 0; y < gh; y++)
        for (int x = 0; x < gw; x++) {
            if (x < gw / 2)
                assert_int_equal(hs[y * gw + x], 0);
            else
                moving += hs[y * gw + x] != 0;
        }
    assert_true(moving > gw * gh / 8);
    assert_int_equal(rp_core_set_images(c, decode_half, &d, &err), RP_ERR_INVALID);
    free(px);
    rp_core_close(&c);
    rp_scene_free(&s);

    d = (decoder){.fail_on = "m.png"};
    c = open_decoded(&s, text, &d);
    assert_int_equal(rp_core_start(c, &err), RP_ERR_IO);
    assert_true(err.has_diag && err.bad_input);
    assert_int_equal(err.diag.line, 4);
    assert_int_equal(err.diag.col, 17); /* m.png, not wall (7) */
    assert_non_null(strstr(err.diag.msg, "cannot open image 'm.png': broken"));
    rp_core_close(&c);
    rp_scene_free(&s);

    /* a zero-width space (U+200B) and an escape in the mask's path are said, not sent raw:
     * in the message and its diagnostic; the line's text keeps what the file holds */
    static const char hidden[] =
        "size 64x40\nduration 8f\nat 0f wall mask \"m\xE2\x80\x8B\x1B.png\"\n";
    d = (decoder){.fail_on = "m\xE2\x80\x8B\x1B.png"};
    c = open_decoded(&s, hidden, &d);
    assert_int_equal(rp_core_start(c, &err), RP_ERR_IO);
    assert_true(err.has_diag && err.diag.line == 3);
    assert_non_null(strstr(err.diag.msg, "cannot open image 'm<U+200B><U+001B>.png': broken"));
    assert_non_null(strstr(err.msg, "'m<U+200B><U+001B>.png'"));
    assert_null(strstr(err.msg, "\xE2\x80\x8B"));
    assert_non_null(strstr(err.diag.source_line, "m\xE2\x80\x8B"));
    rp_core_close(&c);
    rp_scene_free(&s);

    /* the second of two masks fails: a later start asks for both again */
    d = (decoder){.fail_on = "b.png"};
    c = open_decoded(&s, two, &d);
    assert_int_equal(rp_core_start(c, &err), RP_ERR_IO);
    assert_int_equal(err.diag.line, 5);
    d.fail_on = NULL;
    assert_int_equal(rp_core_start(c, &err), RP_OK);
    assert_int_equal(d.calls, 4);
    rp_core_close(&c);
    rp_scene_free(&s);

    d = (decoder){0};
    c = open_decoded(&s, outside, &d);
    assert_int_equal(rp_core_start(c, &err), RP_ERR_INVALID);
    assert_true(err.has_diag && err.diag.line == 3);
    assert_int_equal(d.calls, 0);
    rp_core_close(&c);
    rp_scene_free(&s);
}

/* without_images: a scene's background image is left out (the built-in texture, as the
 * same scene without it draws), and a picture's size is the size of a scene that gives none;
 * a size that is half given is refused. */
static void test_without_images(void **state)
{
    (void)state;
    rp_scene *s = NULL, *plain = NULL;
    rp_core *c = NULL, *p = NULL;
    rp_core_config cfg;
    rp_core_info info;
    rp_error err;
    static const char img[] = "size 64x40\nduration 4f\nbackground pool.png\n"
                              "at 0f drop 20 20 radius 4 height 3000\n";
    static const char none[] = "size 64x40\nduration 4f\nat 0f drop 20 20 radius 4 height 3000\n";
    uint8_t a[64 * 40 * 3], b[64 * 40 * 3];
    assert_int_equal(rp_scene_from_text(&s, img, strlen(img), "i.scene", &err), RP_OK);
    assert_int_equal(rp_scene_from_text(&plain, none, strlen(none), "n.scene", &err), RP_OK);
    rp_core_config_init(&cfg);
    assert_int_equal(cfg.without_images, 0);
    cfg.without_images = 1;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    assert_int_equal(rp_core_open(&p, plain, NULL, &err), RP_OK);
    rp_core_get_info(c, &info);
    assert_true(info.needs_background); /* still said: the caller may tell its user */
    for (int k = 0; k < 4; k++) {
        assert_int_equal(rp_core_render(c, k, RP_PASS_RENDER, a, 64 * 3, &err), RP_OK);
        assert_int_equal(rp_core_render(p, k, RP_PASS_RENDER, b, 64 * 3, &err), RP_OK);
        assert_memory_equal(a, b, sizeof a);
    }
    rp_core_close(&c);
    rp_core_close(&p);
    rp_scene_free(&s);
    rp_scene_free(&plain);

    /* a sky image under render light: refused by default, left out (the sky colour) as asked */
    static const char sky[] = "size 64x40\nduration 2f\nsky clouds.png 4\n"
                              "at 0f drop 20 20 radius 4 height 3000\n";
    assert_int_equal(rp_scene_from_text(&s, sky, strlen(sky), "k.scene", &err), RP_OK);
    assert_int_equal(rp_core_open(&c, s, NULL, &err), RP_OK);
    rp_core_get_info(c, &info);
    assert_true(info.needs_sky && info.light);
    assert_int_equal(rp_core_render(c, 0, RP_PASS_RENDER, a, 64 * 3, &err), RP_ERR_UNSUPPORTED);
    rp_core_close(&c);
    rp_core_config_init(&cfg);
    cfg.without_images = 1;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    assert_int_equal(rp_core_render(c, 1, RP_PASS_RENDER, a, 64 * 3, &err), RP_OK);
    rp_core_close(&c);
    rp_scene_free(&s);

    static const char sizeless[] = "duration 2f\nbackground pool.png\n";
    assert_int_equal(rp_scene_from_text(&s, sizeless, strlen(sizeless), "s.scene", &err), RP_OK);
    rp_core_config_init(&cfg);
    cfg.image_width = 100;
    cfg.image_height = 60;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    rp_core_get_info(c, &info);
    assert_int_equal(info.width, 100);
    assert_int_equal(info.height, 60);
    rp_core_close(&c);
    cfg.image_height = 0;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_ERR_INVALID);
    assert_null(c);
    assert_true(err.bad_input);
    rp_scene_free(&s);
}

/* A video background's length (footage_frames) is the timeline's where the scene gives no
 * duration or says `duration background`, and not where it gives one. */
static void test_footage_frames(void **state)
{
    (void)state;
    static const char *const texts[3] = {"size 64x40\nfps 30\n",
                                         "size 64x40\nfps 30\nduration background\n",
                                         "size 64x40\nfps 30\nduration 2s\n"};
    static const int64_t want[3] = {45, 45, 60};
    for (int i = 0; i < 3; i++) {
        rp_scene *s;
        rp_error err;
        rp_core_config cfg;
        rp_core *c = NULL;
        rp_core_info info;
        assert_int_equal(rp_scene_from_text(&s, texts[i], strlen(texts[i]), NULL, &err), RP_OK);
        rp_core_config_init(&cfg);
        cfg.footage_frames = 45;
        assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
        rp_core_get_info(c, &info);
        assert_int_equal(info.frames, want[i]);
        rp_core_close(&c);
        cfg.footage_frames = -1;
        assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_ERR_INVALID);
        /* past RP_FRAMES_MAX (the steps of 2^62 frames wrapped, INT64_MAX overflowed) */
        cfg.footage_frames = RP_FRAMES_MAX + 1;
        assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_ERR_INVALID);
        cfg.footage_frames = INT64_MAX;
        assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_ERR_INVALID);
        rp_scene_free(&s);
    }
}

/* The stop flag set: a frame is refused with RP_ERR_INTERRUPTED; cleared, the core goes on
 * and frame 12 is a fresh core's frame 12. */
static void test_stop_flag(void **state)
{
    (void)state;
    static volatile sig_atomic_t stop;
    rp_scene *s, *s2;
    rp_error err;
    rp_core_config cfg;
    rp_core *c = NULL, *fresh = open_core(&s2, NULL, 0, 0);
    assert_int_equal(rp_scene_from_text(&s, scene_text, strlen(scene_text), NULL, &err), RP_OK);
    rp_core_config_init(&cfg);
    cfg.stop = &stop;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    uint8_t *a = render(c, 3, RP_PASS_RENDER, 3);
    stop = 1;
    assert_int_equal(rp_core_render(c, 12, RP_PASS_RENDER, a, 64 * 3, &err), RP_ERR_INTERRUPTED);
    stop = 0;
    free(a);
    a = render(c, 12, RP_PASS_RENDER, 3);
    uint8_t *b = render(fresh, 12, RP_PASS_RENDER, 3);
    assert_memory_equal(a, b, 64 * 40 * 3);
    free(a);
    free(b);
    rp_core_close(&c);
    rp_core_close(&fresh);
    rp_scene_free(&s);
    rp_scene_free(&s2);
}

/* Several passes at once (rp_core_render_passes) are the passes one by one, packed rows or
 * not, in any order. */
static void test_render_passes(void **state)
{
    (void)state;
    rp_scene *s, *s2;
    rp_error err;
    rp_core *c = open_core(&s, "preset rockpool\n", 0, 0), *one = open_core(&s2, NULL, 0, 0);
    enum { W = 64, H = 40 };
    static uint16_t n[H * W * 3], d[H * W * 3], cs[H * (W * 3 + 5)], h[H * W];
    const enum rp_pass passes[4] = {RP_PASS_CAUSTICS, RP_PASS_HEIGHT, RP_PASS_NORMAL,
                                    RP_PASS_DISPLACEMENT};
    void *const dst[4] = {cs, h, n, d};
    const size_t stride[4] = {(W * 3 + 5) * 2, W * 2, W * 6, W * 6};
    uint8_t *px = malloc(W * H * 3);
    assert_non_null(px);
    assert_int_equal(rp_core_render(c, 9, RP_PASS_RENDER, px, W * 3, &err), RP_OK);
    assert_int_equal(rp_core_render_passes(c, 9, 4, passes, dst, stride, &err), RP_OK);
    for (int i = 0; i < 4; i++) {
        uint8_t *want = malloc(stride[i] * H);
        assert_non_null(want);
        assert_int_equal(rp_core_render(one, 9, passes[i], want, stride[i], &err), RP_OK);
        for (int y = 0; y < H; y++) /* the rows, not the padding */
            assert_memory_equal((const uint8_t *)dst[i] + y * stride[i], want + y * stride[i],
                                passes[i] == RP_PASS_HEIGHT ? W * 2 : W * 6);
        free(want);
    }
    assert_int_equal(rp_core_render_passes(c, 20, 1, passes, dst, stride, &err), RP_ERR_INVALID);
    /* a negative count, and a picture of NULL, are refused and said as what they are */
    assert_int_equal(rp_core_render_passes(c, 9, -1, passes, dst, stride, &err), RP_ERR_INVALID);
    assert_true(err.bad_input);
    assert_int_equal(rp_core_render(c, 9, RP_PASS_RENDER, NULL, W * 3, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "NULL"));
    free(px);
    rp_core_close(&c);
    rp_core_close(&one);
    rp_scene_free(&s);
    rp_scene_free(&s2);
}

/* What a program learns before its first frame: the steps of each frame and the drops each
 * starts (hand-counted: the elias preset steps once a frame; drops at frames 0, 0 and 5), the
 * timeline's counts, the memory's share of each mask file (a byte a cell), the settings merged and
 * given, a copy of settings. */
static void test_setup_queries(void **state)
{
    (void)state;
    static const char text[] = "size 64x40\nfps 30\nduration 8f\npreset elias\n"
                               "at 0f drop 20 20 radius 4 height 3000\n"
                               "at 0f drop 40 20 radius 4 height 3000\n"
                               "at 5f drop 30 10 radius 3 height 2000\n";
    rp_scene *s;
    rp_core *c = open_text(&s, text, NULL, 0, 0);
    rp_core_info info;
    rp_timeline_stats ts;
    rp_core_get_info(c, &info);
    assert_int_equal(info.steps, 8);
    for (int64_t k = 0; k < 8; k++) {
        assert_int_equal(rp_core_frame_steps(c, k), k + 1);
        assert_int_equal(rp_core_frame_drops(c, k), k == 0 ? 2 : k == 5 ? 1 : 0);
    }
    /* outside the timeline: no steps (they had been extrapolated: 9 and 0) and no drops */
    assert_int_equal(rp_core_frame_steps(c, 8), -1);
    assert_int_equal(rp_core_frame_steps(c, -1), -1);
    assert_int_equal(rp_core_frame_drops(c, -1), 0);
    assert_int_equal(rp_core_frame_drops(c, 8), 0);
    rp_core_timeline_stats(c, &ts);
    assert_int_equal(ts.drops, 3);
    assert_int_equal(ts.walls, 0);
    assert_true(rp_core_memory(c, 0) > 64 * 40 * 9);
    assert_true(rp_core_memory(c, 2) - rp_core_memory(c, 0) == 2.0 * 64 * 40);
    assert_int_equal(rp_core_steps(c), 0);
    uint8_t *px = render(c, 4, RP_PASS_RENDER, 3);
    assert_int_equal(rp_core_steps(c), 5);
    free(px);

    rp_error err;
    rp_settings *over, *merged, *copy;
    rp_settings_info a, b;
    assert_int_equal(rp_settings_parse(&over, "fps 25\nseed 4\n", NULL, &err), RP_OK);
    assert_int_equal(rp_settings_merged(&merged, s, over, &err), RP_OK);
    rp_settings_get_info(merged, &a);
    assert_int_equal(a.fps, 25);
    assert_int_equal(a.width, 64);
    assert_true(rp_settings_given(merged, "duration") && rp_settings_given(merged, "size"));
    assert_true(rp_settings_given(over, "seed") && !rp_settings_given(over, "duration"));
    assert_false(rp_settings_given(over, "nosuch"));
    assert_int_equal(rp_settings_copy(&copy, merged, &err), RP_OK);
    rp_settings_get_info(copy, &b);
    assert_int_equal(b.fps, a.fps);
    assert_int_equal(b.seed, 4);
    assert_true(rp_settings_given(copy, "duration"));
    rp_settings_free(&copy);
    rp_settings_free(&merged);
    rp_settings_free(&over);
    rp_core_close(&c);
    rp_scene_free(&s);
}

/* A background the scene names is asked for at a frame, not at rp_core_start; a mask path
 * out of the scene's folder is refused unless allow_outside_paths. */
static void test_background_at_frame_and_outside(void **state)
{
    (void)state;
    static const char bg[] = "size 64x40\nduration 4f\nbackground b.png\n";
    static const char outside[] = "size 64x40\nduration 4f\nat 0f wall mask ../m.png\n";
    rp_scene *s;
    rp_error err;
    rp_core_config cfg;
    rp_core *c = open_text(&s, bg, NULL, 0, 0);
    assert_int_equal(rp_core_start(c, &err), RP_OK);
    uint8_t px[64 * 40 * 3];
    assert_int_equal(rp_core_render(c, 0, RP_PASS_RENDER, px, 64 * 3, &err), RP_ERR_UNSUPPORTED);
    rp_core_close(&c);
    rp_scene_free(&s);

    decoder d = {0};
    assert_int_equal(rp_scene_from_text(&s, outside, strlen(outside), "t.scene", &err), RP_OK);
    rp_core_config_init(&cfg);
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    assert_int_equal(rp_core_set_images(c, decode_half, &d, &err), RP_OK);
    assert_int_equal(rp_core_start(c, &err), RP_ERR_INVALID);
    assert_int_equal(d.calls, 0);
    rp_core_close(&c);
    cfg.allow_outside_paths = 1;
    assert_int_equal(rp_core_open(&c, s, &cfg, &err), RP_OK);
    assert_int_equal(rp_core_set_images(c, decode_half, &d, &err), RP_OK);
    assert_int_equal(rp_core_start(c, &err), RP_OK);
    assert_int_equal(d.calls, 1);
    rp_core_close(&c);
    rp_scene_free(&s);
}

#ifndef __wasi__
/* A measure of an image that counts its calls: 100 bytes a mask, 7 a picture. */
static int count_cost(void *ctx, const char *path, enum rp_image_use use, int w, int h,
                      int64_t *bytes, rp_error *err)
{
    (void)path;
    (void)w;
    (void)h;
    (void)err;
    (*(int *)ctx)++;
    *bytes = use == RP_IMAGE_WALL_MASK ? 100 : 7;
    return RP_OK;
}

/* The masks' costs before decoding: one file under two spellings is one file, costed once
 * at the grid's size (and its picture once with `walls visible image`), and decoded once;
 * a mask that is not there is RP_ERR_IO at its statement. */
static void test_image_costs(void **state)
{
    char dir[] = "/tmp/rp-core-XXXXXX", name[64], path[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.png", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("not decoded", f);
    fclose(f);
    snprintf(name, sizeof name, "%s/t.scene", dir);
    static const char text[] = "size 64x40\nduration 8f\n"
                               "at 0f wall mask m.png\nat 2f wall mask ./m.png\n";
    static const char image[] = "size 64x40\nduration 8f\nwalls visible image\n"
                                "at 0f wall mask m.png\nat 2f wall mask ./m.png\n";
    static const char missing[] = "size 64x40\nduration 8f\n"
                                  "at 0f wall mask m.png\nat 3f wall mask x.png\n";
    const char *const texts[3] = {text, image, missing};
    for (int i = 0; i < 3; i++) {
        rp_scene *s;
        rp_error err;
        rp_core *c = NULL;
        int calls = 0;
        double bytes = 0;
        size_t files = 9;
        assert_int_equal(rp_scene_from_text(&s, texts[i], strlen(texts[i]), name, &err), RP_OK);
        assert_int_equal(rp_core_open(&c, s, NULL, &err), RP_OK);
        int r = rp_core_image_costs(c, count_cost, &calls, &bytes, &files, &err);
        if (i < 2) {
            assert_int_equal(r, RP_OK);
            assert_int_equal(files, 1);
            assert_int_equal(calls, i == 0 ? 1 : 2);
            assert_true(bytes == (i == 0 ? 100 : 107));
        } else {
            assert_int_equal(r, RP_ERR_IO);
            assert_true(err.has_diag && err.bad_input);
            assert_int_equal(err.diag.line, 4);
        }
        rp_core_close(&c);
        rp_scene_free(&s);
    }
    /* decoded as costed: once for the file's two spellings */
    rp_scene *s;
    rp_error err;
    decoder d = {0};
    rp_core *c = NULL;
    assert_int_equal(rp_scene_from_text(&s, text, strlen(text), name, &err), RP_OK);
    assert_int_equal(rp_core_open(&c, s, NULL, &err), RP_OK);
    assert_int_equal(rp_core_set_images(c, decode_half, &d, &err), RP_OK);
    assert_int_equal(rp_core_start(c, &err), RP_OK);
    assert_int_equal(d.calls, 1);
    rp_core_close(&c);
    rp_scene_free(&s);
    remove(path);
    rmdir(dir);
    (void)state;
}
#endif

/* A scene from the caller's malloc'd buffer keeps that buffer as its text (no copy of a
 * large scene) and frees it; a refused one frees it at once (ASan's leak check holds both). */
static void test_scene_from_buffer(void **state)
{
    (void)state;
    static const char good[] = "size 64x40\nduration 4f\n", bad[] = "size 64x40\nradius\n";
    rp_scene *s;
    rp_error err;
    size_t len;
    char *buf = malloc(sizeof good);
    assert_non_null(buf);
    memcpy(buf, good, sizeof good);
    assert_int_equal(rp_scene_from_buffer(&s, buf, sizeof good - 1, "t.scene", 0, &err), RP_OK);
    assert_ptr_equal(rp_scene_text(s, &len), buf);
    assert_int_equal(len, sizeof good - 1);
    rp_scene_free(&s);
    buf = malloc(sizeof bad);
    assert_non_null(buf);
    memcpy(buf, bad, sizeof bad);
    assert_int_equal(rp_scene_from_buffer(&s, buf, sizeof bad - 1, "t.scene", 0, &err),
                     RP_ERR_INVALID);
    assert_null(s);
    assert_int_equal(err.diag.line, 2);
    /* a negative limit is a bad argument (it was taken as no limit), the buffer freed */
    buf = malloc(sizeof good);
    assert_non_null(buf);
    memcpy(buf, good, sizeof good);
    s = (rp_scene *)&err;
    memset(&err, 0, sizeof err);
    assert_int_equal(rp_scene_from_buffer(&s, buf, sizeof good - 1, "t.scene", -1, &err),
                     RP_ERR_INVALID);
    assert_null(s);
    assert_int_equal(err.bad_input, 1);
    assert_non_null(strstr(err.msg, "negative"));
}

/* rp_text_show through rpcore.h (the program says paths with it): what does not show is
 * <U+XXXX>, computed here by hand from the code points; an invalid byte and a NUL are '?';
 * a cut falls between characters; NULL is empty (s) or nothing (out). */
static void test_text_show(void **state)
{
    (void)state;
    char out[64];
    static const char in[] = "a\xE2\x80\x8B"  /* U+200B ZERO WIDTH SPACE */
                             "\x1B[31m\t"     /* ESC, TAB */
                             "\xC3\xA9\xFF"   /* e acute, shown; 0xFF, invalid */
                             "\xE2\x80\xAE."; /* U+202E RIGHT-TO-LEFT OVERRIDE */
    assert_int_equal(rp_text_show(in, sizeof in - 1, out, sizeof out - 1), sizeof in - 1);
    assert_string_equal(out, "a<U+200B><U+001B>[31m<U+0009>\xC3\xA9?<U+202E>.");
    static const char nul[] = {'x', '\0', 'y'};
    assert_int_equal(rp_text_show(nul, 3, out, sizeof out - 1), 3);
    assert_string_equal(out, "x?y");
    /* room for "a" and not for all of "<U+200B>": the cut comes before it */
    assert_int_equal(rp_text_show(in, sizeof in - 1, out, 5), 1);
    assert_string_equal(out, "a");
    assert_int_equal(rp_text_show(NULL, 5, out, sizeof out - 1), 0);
    assert_string_equal(out, "");
    assert_int_equal(rp_text_show("abc", 3, NULL, 10), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_text_show),
        cmocka_unit_test(test_settings_set),
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_scene_text_and_masks),
        cmocka_unit_test(test_checkpoint),
        cmocka_unit_test(test_order_instant_stride),
        cmocka_unit_test(test_height_pass),
        cmocka_unit_test(test_background_and_passes),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_without_images),
        cmocka_unit_test(test_thread_counts),
        cmocka_unit_test(test_kept_checkpoints),
        cmocka_unit_test(test_step_budget),
        cmocka_unit_test(test_step_budget_alternating),
        cmocka_unit_test(test_light_knobs),
        cmocka_unit_test(test_image_places),
        cmocka_unit_test(test_images_decoded),
        cmocka_unit_test(test_footage_frames),
        cmocka_unit_test(test_render_at_last_interval),
        cmocka_unit_test(test_render_at_floored),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_render_passes),
        cmocka_unit_test(test_setup_queries),
        cmocka_unit_test(test_misuse_refused),
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_background_at_frame_and_outside),
        cmocka_unit_test(test_scene_from_buffer),
#ifndef __wasi__
        cmocka_unit_test(test_image_costs),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
