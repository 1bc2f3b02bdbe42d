/* test_session.c - the session API (include/rockpool.h) through the public header alone,
 * as a program embedding the library calls it: misuse (NULL pointers, calls out of order)
 * gets the error the header documents and leaves the session as it was; rp_run.max_memory
 * means what rp_core_config.max_memory means. The oracle of a frame is another path through
 * the API that must give the same bytes by its contract: a session that was not misused,
 * or the core's RP_PASS_RENDER of the same scene (rpcore.h: the bytes rockpool hashes). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "rockpool.h"
#include "tmpdir.h"

static const char scene_text[] = "size 96x64\n"
                                 "fps 30\n"
                                 "duration 12f\n"
                                 "at 0f drop 48 32 radius 6 height 2000\n"
                                 "at 5f drop 20 20 radius 3 height -1500\n";
#define FRAMES 12

static rp_scene *load(void)
{
    rp_scene *scene = NULL;
    rp_error err;
    assert_int_equal(rp_scene_from_text(&scene, scene_text, strlen(scene_text), "<t>", &err),
                     RP_OK);
    return scene;
}

/* A run with no file: the frames stay in memory. */
static rp_run memory_run(void)
{
    rp_run run;
    rp_run_init(&run);
    run.out.path = NULL;
    return run;
}

/* The MD5 of each frame a started session yields into hex[FRAMES], and the count. */
static int frames_of(rp_session *s, char hex[][33])
{
    const rp_frame *f;
    rp_error err;
    int n = 0, r;
    while (!(r = rp_session_next(s, &f, &err)) && f) {
        assert_true(n < FRAMES);
        rp_md5_hex(f->data, f->stride * (size_t)f->height, hex[n++]);
    }
    assert_int_equal(r, RP_OK);
    return n;
}

/* The frames of a session of the scene under run, opened, started and closed with no
 * misuse: the oracle. */
static void plain_frames(rp_scene *scene, const rp_run *run, char hex[][33])
{
    rp_session *s = NULL;
    rp_error err;
    assert_int_equal(rp_session_new(&s, scene, run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    assert_int_equal(frames_of(s, hex), FRAMES);
    assert_int_equal(rp_session_close(&s, NULL, &err), RP_OK);
    assert_null(s);
}

static void refused(int r, const rp_error *err)
{
    assert_int_equal(r, RP_ERR_INVALID);
    assert_int_equal(err->code, RP_ERR_INVALID);
    assert_int_equal(err->bad_input, 1);
    assert_true(err->msg[0] != '\0');
}

/* Every session call given a NULL pointer it needs is RP_ERR_INVALID (bad input), not a
 * crash; err may be NULL; the calls that return no error take NULL as nothing to do. */
static void test_null_pointers(void **state)
{
    (void)state;
    rp_scene *scene = load();
    rp_run run = memory_run();
    rp_session *s = (rp_session *)&run;
    const rp_frame *f = (const rp_frame *)&run;
    rp_error err;
    rp_summary sum;

    memset(&err, 0, sizeof err);
    refused(rp_session_new(NULL, scene, &run, &err), &err);
    memset(&err, 0, sizeof err);
    refused(rp_session_new(&s, NULL, &run, &err), &err);
    assert_null(s);
    s = (rp_session *)&run;
    refused(rp_session_new(&s, scene, NULL, &err), &err);
    assert_null(s);
    assert_int_equal(rp_session_new(&s, NULL, &run, NULL), RP_ERR_INVALID);
    refused(rp_session_start(NULL, &err), &err);
    refused(rp_session_next(NULL, &f, &err), &err);
    assert_null(f);
    refused(rp_session_check(NULL, &err), &err);
    refused(rp_session_check_outputs(NULL, &err), &err);
    refused(rp_session_check_images(NULL, &err), &err);
    assert_int_equal(rp_session_close(NULL, NULL, NULL), RP_ERR_INVALID);
    int64_t frames = 99;
    refused(rp_session_close(&s, &frames, &err), &err); /* s is NULL now */
    assert_int_equal(frames, 0);
    memset(&sum, 0xff, sizeof sum);
    rp_session_summary(NULL, &sum);
    assert_int_equal(sum.frames, 0);
    assert_null(sum.settings);
    assert_int_equal(rp_session_written(NULL), 0);
    rp_scene *none = (rp_scene *)&run;
    refused(rp_scene_load(NULL, NULL, &err), &err);
    assert_int_equal(rp_scene_load(&none, NULL, NULL), RP_OK); /* the built-in scene */
    rp_scene_free(&none);
    rp_run_init(NULL);
    rp_output_opts_init(NULL);
    assert_int_equal(rp_output_format_of(NULL), RP_FORMAT_NONE);
    assert_int_equal(rp_output_uses_stdout(NULL), 0);
    assert_int_equal(rp_output_is_still(NULL), 0);
    assert_int_equal(rp_job_line_valid(NULL), 0);
    assert_int_equal(rp_hash_new(NULL, "md5"), RP_ERR_INVALID);
    /* hashes: a NULL context or buffer does nothing, a digest of no bytes is "" */
    char hex[RP_HASH_HEX_MAX] = "x", empty[33];
    assert_null(rp_hash_name(NULL));
    assert_int_equal(rp_hash_hex_len(NULL), 0);
    rp_hash_reset(NULL);
    rp_hash_update(NULL, (const uint8_t *)"abc", 3);
    rp_hash_final_hex(NULL, hex);
    assert_string_equal(hex, "");
    rp_hash_final_hex(NULL, NULL);
    rp_hash_hex(NULL, (const uint8_t *)"abc", 3, hex);
    assert_string_equal(hex, "");
    rp_hash_list(NULL, 64);
    rp_md5_hex((const uint8_t *)"", 0, empty);
    assert_string_equal(empty, "d41d8cd98f00b204e9800998ecf8427e"); /* RFC 1321's MD5("") */
    rp_md5_hex(NULL, 5, empty);
    assert_string_equal(empty, "");
    rp_md5_hex((const uint8_t *)"abc", 3, NULL);
    rp_hash *md5 = NULL;
    assert_int_equal(rp_hash_new(&md5, "md5"), RP_OK);
    rp_hash_update(md5, NULL, 7); /* nothing added */
    rp_hash_update(md5, (const uint8_t *)"abc", 3);
    rp_hash_final_hex(md5, hex);
    assert_string_equal(hex, "900150983cd24fb0d6963f7d28e17f72"); /* RFC 1321's MD5("abc") */
    rp_hash_hex(md5, NULL, 3, hex);
    assert_string_equal(hex, "");
    rp_hash_free(&md5);

    /* a session: a NULL frame pointer or summary is refused, the session is unharmed */
    char want[FRAMES][33], got[FRAMES][33];
    plain_frames(scene, &run, want);
    assert_int_equal(rp_session_new(&s, scene, &run, NULL), RP_OK);
    rp_session_summary(s, NULL);
    refused(rp_session_next(s, NULL, &err), &err);
    assert_int_equal(rp_session_start(s, NULL), RP_OK);
    refused(rp_session_next(s, NULL, &err), &err);
    assert_int_equal(rp_session_next(s, &f, NULL), RP_OK);
    assert_non_null(f);
    rp_md5_hex(f->data, f->stride * (size_t)f->height, got[0]);
    assert_int_equal(frames_of(s, got + 1), FRAMES - 1);
    assert_int_equal(rp_session_written(s), FRAMES);
    assert_int_equal(rp_session_close(&s, NULL, NULL), RP_OK);
    for (int k = 0; k < FRAMES; k++)
        assert_string_equal(got[k], want[k]);
    rp_scene_free(&scene);
}

/* The checks come before rp_session_start: after it they are refused and change nothing
 * (rp_session_check_images used to close the started session's background, and the next
 * frame crashed). rp_session_next before the start is refused too and changes nothing
 * (it failed the session, and the start was then refused). */
static void test_checks_after_start(void **state)
{
    (void)state;
    rp_scene *scene = load();
    rp_run run = memory_run();
    rp_session *s = NULL;
    rp_error err;
    char want[FRAMES][33], got[FRAMES][33];
    plain_frames(scene, &run, want);
    /* before the start, in order, they pass */
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_check(s, &err), RP_OK);
    assert_int_equal(rp_session_check_outputs(s, &err), RP_OK);
    assert_int_equal(rp_session_check_images(s, &err), RP_OK);
    const rp_frame *f = (const rp_frame *)&run;
    refused(rp_session_next(s, &f, &err), &err);
    assert_null(f);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    refused(rp_session_check_images(s, &err), &err);
    refused(rp_session_check_outputs(s, &err), &err);
    refused(rp_session_check(s, &err), &err);
    refused(rp_session_start(s, &err), &err);
    assert_int_equal(frames_of(s, got), FRAMES);
    assert_int_equal(rp_session_close(&s, NULL, &err), RP_OK);
    for (int k = 0; k < FRAMES; k++)
        assert_string_equal(got[k], want[k]);
    rp_scene_free(&scene);
}

/* rp_output_is_still, which the program asks of -o NAME.png (its own copy is gone): a path
 * with no '%' or only "%%" (a literal '%') names one still, any other '%' a pattern. */
static void test_output_is_still(void **state)
{
    (void)state;
    const struct {
        const char *path;
        int still;
    } cases[] = {{"still.png", 1},       {"100%%.png", 1}, {"a%%b%%c.png", 1},
                 {"f_%05d.png", 0},      {"f_%d.png", 0},  {"100%%_%d.png", 0},
                 {"dir%d/still.png", 0}, {"trailing%", 0}, {"", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (rp_output_is_still(cases[i].path) != cases[i].still)
            fail_msg("'%s': %d", cases[i].path, !cases[i].still);
}

/* A check that fails is a failed call (rockpool.h): only rp_session_abort and
 * rp_session_free may follow, rp_session_start and the checks are refused as after a failed
 * rp_session_start (the session was left as if the check had passed, and rp_session_start
 * checked again). */
static void test_failed_check_fails_session(void **state)
{
    (void)state;
    rp_scene *scene = load();
    rp_settings *over = NULL;
    rp_error err;
    assert_int_equal(rp_settings_new(&over, &err), RP_OK);
    assert_int_equal(rp_settings_set(over, "input", "/nonexistent/rockpool-bg.png", &err), RP_OK);
    for (int which = 0; which < 3; which++) {
        rp_run run = memory_run();
        if (which == 0)
            run.over = over; /* a background that is not there: rp_session_check */
        else if (which == 1)
            run.out.png_level = 10; /* rp_session_check_outputs */
        else
            run.load_state = "/nonexistent/rockpool.state"; /* rp_session_check_images */
        rp_session *s = NULL;
        assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
        int at = 0, r = rp_session_check(s, &err);
        if (!r && ++at)
            r = rp_session_check_outputs(s, &err);
        if (!r && ++at)
            r = rp_session_check_images(s, &err);
        assert_int_not_equal(r, RP_OK);
        assert_int_equal(at, which); /* the check meant failed */
        assert_int_equal(err.bad_input, 1);
        memset(&err, 0, sizeof err);
        refused(rp_session_start(s, &err), &err);
        if (!strstr(err.msg, "after a failed call"))
            fail_msg("check %d: rp_session_start said '%s'", which, err.msg);
        refused(rp_session_check(s, &err), &err);
        assert_non_null(strstr(err.msg, "after a failed call"));
        rp_session_free(&s);
    }
    rp_settings_free(&over);
    rp_scene_free(&scene);
}

/* A range without frames is refused by rp_session_new, as a range past the timeline is,
 * with no session made (it was taken, and refused only at rp_session_check_outputs or
 * rp_session_start); so is a timeline of no frames. */
static void test_empty_range_refused_at_new(void **state)
{
    (void)state;
    rp_scene *scene = load();
    const int64_t empty[][2] = {{0, 0}, {5, 5}, {FRAMES, FRAMES}};
    rp_error err;
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        rp_run run = memory_run();
        run.start = empty[i][0];
        run.end = empty[i][1];
        rp_session *s = (rp_session *)&run;
        memset(&err, 0, sizeof err);
        refused(rp_session_new(&s, scene, &run, &err), &err);
        assert_null(s);
        if (!strstr(err.msg, "the range has no frames"))
            fail_msg("%" PRId64 "..%" PRId64 ": '%s'", empty[i][0], empty[i][1], err.msg);
    }
    /* one frame is a range */
    rp_run one = memory_run();
    one.start = 5;
    one.end = 6;
    rp_session *s = NULL;
    assert_int_equal(rp_session_new(&s, scene, &one, &err), RP_OK);
    rp_session_free(&s);
    /* a timeline of no frames: "duration" 0, which rp_settings_set leaves to the run */
    rp_settings *over = NULL;
    assert_int_equal(rp_settings_new(&over, &err), RP_OK);
    assert_int_equal(rp_settings_set(over, "duration", "0", &err), RP_OK);
    rp_run none = memory_run();
    none.over = over;
    s = (rp_session *)&none;
    memset(&err, 0, sizeof err);
    refused(rp_session_new(&s, scene, &none, &err), &err);
    assert_null(s);
    assert_string_equal(err.msg, "the timeline has no frames");
    rp_settings_free(&over);
    rp_scene_free(&scene);
}

/* rp_run.max_memory 0 is no limit, as rp_core_config's (it was a limit of 0 bytes, and
 * every run was refused); a negative one is refused; a small one refuses the run. The
 * frames of a run without a limit are those of the 4 GiB default and the core's. */
static void test_max_memory_zero_is_no_limit(void **state)
{
    (void)state;
    rp_scene *scene = load();
    rp_run run = memory_run();
    rp_session *s = NULL;
    rp_error err;
    char want[FRAMES][33], got[FRAMES][33];
    plain_frames(scene, &run, want); /* the default, 4 GiB */

    run.max_memory = 0;
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_check(s, &err), RP_OK);
    assert_int_equal(rp_session_check_outputs(s, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    assert_int_equal(frames_of(s, got), FRAMES);
    assert_int_equal(rp_session_close(&s, NULL, &err), RP_OK);
    for (int k = 0; k < FRAMES; k++)
        assert_string_equal(got[k], want[k]);

    /* the encoder's numbers are checked as the command line reads them, with no video too */
    int bad_crf[] = {64, -2}, r_crf;
    for (int i = 0; i < 2; i++) {
        rp_run nums = memory_run();
        nums.out.crf = bad_crf[i];
        nums.out.crf_given = 1;
        assert_int_equal(rp_session_new(&s, scene, &nums, &err), RP_OK);
        r_crf = rp_session_check_outputs(s, &err);
        refused(r_crf, &err);
        rp_session_free(&s);
    }
    /* a format outside enum rp_format is named so, not taken for a path it cannot tell */
    rp_run fmt = memory_run();
    fmt.out.path = "never.mp4";
    fmt.out.format = (enum rp_format)77;
    assert_int_equal(rp_session_new(&s, scene, &fmt, &err), RP_OK);
    refused(rp_session_check_outputs(s, &err), &err);
    assert_non_null(strstr(err.msg, "enum rp_format"));
    rp_session_free(&s);
    rp_run nums = memory_run();
    nums.out.bitrate = -1;
    assert_int_equal(rp_session_new(&s, scene, &nums, &err), RP_OK);
    refused(rp_session_start(s, &err), &err);
    rp_session_free(&s);
    nums = memory_run();
    nums.out.png_level = 10;
    assert_int_equal(rp_session_new(&s, scene, &nums, &err), RP_OK);
    refused(rp_session_check_outputs(s, &err), &err);
    rp_session_free(&s);

    /* negative: refused, nothing opened */
    run.max_memory = -1;
    refused(rp_session_new(&s, scene, &run, &err), &err);
    assert_null(s);
    rp_scene *sc = NULL;
    refused(rp_scene_load_max(&sc, NULL, -1, &err), &err);
    assert_null(sc);
    assert_int_equal(rp_scene_load_max(&sc, NULL, 0, &err), RP_OK);
    rp_scene_free(&sc);

    /* a limit is still a limit: 1 MiB is below the estimate's fixed 32 MiB */
    run.max_memory = (int64_t)1 << 20;
    int r = rp_session_new(&s, scene, &run, &err);
    if (!r)
        r = rp_session_check_outputs(s, &err);
    assert_int_equal(r, RP_ERR_TOO_LARGE);
    assert_int_equal(err.bad_input, 1);
    rp_session_free(&s);

    /* the core: 0 is no limit there too, and its frames are the session's */
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    assert_int_equal(cfg.max_memory, 0);
    cfg.max_memory = -1; /* refused as the session refuses it (it was no limit) */
    rp_core *neg = (rp_core *)&cfg;
    assert_int_equal(rp_core_open(&neg, scene, &cfg, &err), RP_ERR_INVALID);
    assert_int_equal(err.bad_input, 1);
    assert_null(neg);
    cfg.max_memory = 0;
    rp_core *core = NULL;
    assert_int_equal(rp_core_open(&core, scene, &cfg, &err), RP_OK);
    rp_core_info info;
    rp_core_get_info(core, &info);
    assert_int_equal(info.frames, FRAMES);
    uint8_t *rgb = malloc((size_t)info.width * info.height * 3);
    assert_non_null(rgb);
    for (int k = 0; k < FRAMES; k++) {
        char hex[33];
        assert_int_equal(rp_core_render(core, k, RP_PASS_RENDER, rgb, (size_t)info.width * 3, &err),
                         RP_OK);
        rp_md5_hex(rgb, (size_t)info.width * info.height * 3, hex);
        assert_string_equal(hex, want[k]);
    }
    free(rgb);
    rp_core_close(&core);
    rp_scene_free(&scene);
}

/* The whole of a file, malloc'd, its length in *len. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    uint8_t *buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A session of the scene with `preset` writing path (Y4M), opened and started. */
static rp_session *writer(rp_scene *scene, rp_settings **over, const char *preset, const char *path)
{
    rp_run run;
    rp_session *s = NULL;
    rp_error err;
    char line[64];
    snprintf(line, sizeof line, "preset %s\n", preset);
    assert_int_equal(rp_settings_parse(over, line, NULL, &err), RP_OK);
    rp_run_init(&run);
    run.over = *over;
    run.out.path = path;
    run.out.overwrite = 1;
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    return s;
}

/* Drain a started session and close it: its status. */
static int finish(rp_session **s)
{
    const rp_frame *f;
    rp_error err;
    int r;
    while (!(r = rp_session_next(*s, &f, &err)) && f)
        ;
    if (r) {
        rp_session_abort(s);
        return r;
    }
    int64_t frames = 0;
    r = rp_session_close(s, &frames, &err);
    if (!r)
        assert_int_equal(frames, FRAMES);
    return r;
}

/* Two sessions of one process writing one output at once each write a whole file of their
 * own, and the last one closed is the file in place, byte for byte what it writes alone.
 * Both took the temporary name ".NAME.tmp-PID": the second took the first's file for a stale
 * one, removed it and made its own, the first then moved the second's unfinished file into
 * place and said it succeeded, and the second failed ("cannot finish"). */
static void test_two_sessions_one_output(void **state)
{
    const char *dir = *state;
    rp_scene *scene = load();
    rp_settings *o1 = NULL, *o2 = NULL, *o3 = NULL, *o4 = NULL;
    char *shared = strdup(join(dir, "same.y4m")), *alone_a = strdup(join(dir, "a.y4m"));
    char *alone_b = strdup(join(dir, "b.y4m"));
    assert_non_null(shared);
    rp_session *a = writer(scene, &o1, "rockpool", shared);
    rp_session *b = writer(scene, &o2, "elias", shared); /* both files open now */
    assert_int_equal(finish(&a), RP_OK);
    assert_int_equal(finish(&b), RP_OK);
    /* each alone, one after the other */
    rp_session *sa = writer(scene, &o3, "rockpool", alone_a);
    assert_int_equal(finish(&sa), RP_OK);
    rp_session *sb = writer(scene, &o4, "elias", alone_b);
    assert_int_equal(finish(&sb), RP_OK);
    size_t n_shared, n_a, n_b;
    uint8_t *got = slurp(shared, &n_shared), *want = slurp(alone_b, &n_b),
            *other = slurp(alone_a, &n_a);
    assert_int_equal(n_shared, n_b);
    assert_memory_equal(got, want, n_b);
    assert_true(n_a != n_b || memcmp(other, want, n_b)); /* the presets differ */
    /* and no temporary file is left */
    DIR *d = opendir(dir);
    struct dirent *e;
    assert_non_null(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            assert_true(e->d_name[0] != '.');
    closedir(d);
    free(got);
    free(want);
    free(other);
    free(shared);
    free(alone_a);
    free(alone_b);
    rp_settings_free(&o1);
    rp_settings_free(&o2);
    rp_settings_free(&o3);
    rp_settings_free(&o4);
    rp_scene_free(&scene);
}

/* A stop asked for before the run is RP_ERR_INTERRUPTED and nobody's bad input (the header:
 * bad_input 1 is bad usage or input): the session's and the core's (whose timeline build
 * said bad_input 1). */
static void test_stop_is_not_bad_input(void **state)
{
    (void)state;
    static volatile sig_atomic_t stop = SIGINT;
    rp_scene *scene = load();
    rp_run run = memory_run();
    rp_session *s = NULL;
    rp_error err;
    run.stop = &stop;
    int r = rp_session_new(&s, scene, &run, &err);
    if (!r)
        r = rp_session_start(s, &err);
    assert_int_equal(r, RP_ERR_INTERRUPTED);
    assert_int_equal(err.bad_input, 0);
    rp_session_free(&s);
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    cfg.stop = &stop;
    rp_core *core = NULL;
    assert_int_equal(rp_core_open(&core, scene, &cfg, &err), RP_ERR_INTERRUPTED);
    assert_int_equal(err.bad_input, 0);
    assert_null(core);
    rp_scene_free(&scene);
}

/* Whether path exists. */
static int exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The FRAME markers of a Y4M file (the header line first, then "FRAME\n" and the planes). */
static int y4m_frames(const char *path, size_t frame_bytes)
{
    size_t len, at;
    uint8_t *y4m = slurp(path, &len);
    int n = 0;
    assert_true(len > 10 && !memcmp(y4m, "YUV4MPEG2 ", 10));
    for (at = 0; at < len && y4m[at] != '\n'; at++)
        ;
    for (at++; at + 6 <= len; at += 6 + frame_bytes, n++)
        assert_memory_equal(y4m + at, "FRAME\n", 6);
    assert_int_equal(at, len);
    free(y4m);
    return n;
}

/* A session closed before its last frame keeps the frames written, as after a stop, but no
 * checkpoint (only a whole run writes one); closed before its first frame it keeps nothing
 * (a video of no frame; it kept an empty one and said RP_OK), RP_ERR_INTERRUPTED after a
 * stop and not bad input. A whole run writes the checkpoint: the control. */
static void test_close_early(void **state)
{
    const char *dir = *state;
    static volatile sig_atomic_t stop;
    rp_scene *scene = load();
    rp_run run = memory_run();
    rp_session *s = NULL;
    const rp_frame *f;
    rp_error err;
    char *out = strdup(join(dir, "o.y4m")), *st = strdup(join(dir, "o.state"));
    const size_t frame_bytes = 96 * 64 * 3 / 2; /* 4:2:0 */
    run.out.path = out;
    run.out.overwrite = 1;
    run.save_state = st;
    run.stop = &stop;

    /* 5 of 12 frames */
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    for (int k = 0; k < 5; k++) {
        assert_int_equal(rp_session_next(s, &f, &err), RP_OK);
        assert_non_null(f);
    }
    int64_t frames = -1;
    assert_int_equal(rp_session_close(&s, &frames, &err), RP_OK);
    assert_int_equal(frames, 5);
    assert_int_equal(y4m_frames(out, frame_bytes), 5);
    assert_false(exists(st));
    remove(out);

    /* none */
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    refused(rp_session_close(&s, &frames, &err), &err);
    assert_null(s);
    assert_false(exists(out));
    assert_false(exists(st));

    /* stopped before the first (the stop is seen between simulation steps: frames 0..5
     * are simulated before frame 6, the first written) */
    run.start = 6;
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    stop = SIGINT;
    assert_int_equal(rp_session_next(s, &f, &err), RP_OK);
    assert_null(f);
    assert_int_equal(rp_session_close(&s, &frames, &err), RP_ERR_INTERRUPTED);
    assert_int_equal(err.bad_input, 0);
    assert_false(exists(out));
    stop = 0;
    run.start = 0;

    /* stopped before frame 0, which needs no step: nothing is written either */
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    stop = SIGINT;
    assert_int_equal(rp_session_next(s, &f, &err), RP_OK);
    assert_null(f);
    assert_int_equal(rp_session_written(s), 0);
    assert_int_equal(rp_session_close(&s, &frames, &err), RP_ERR_INTERRUPTED);
    assert_false(exists(out));
    stop = 0;

    /* the whole run: all frames and the checkpoint */
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(s, &err), RP_OK);
    assert_int_equal(finish(&s), RP_OK);
    assert_int_equal(y4m_frames(out, frame_bytes), FRAMES);
    assert_true(exists(st));
    free(out);
    free(st);
    rp_scene_free(&scene);
}

/* rp_run.verify naming a manifest that cannot be opened: the message names it. rp_error's
 * msg stands alone where diag places nothing on a line; it said "cannot open: No such file
 * or directory", no file (the program prints diag.file before diag.msg, so it never showed
 * there). */
static void test_verify_message_names_manifest(void **state)
{
    const char *dir = *state;
    rp_scene *scene = load();
    char *missing = strdup(join(dir, "missing.framemd5"));
    assert_non_null(missing);
    rp_run run = memory_run();
    rp_session *s = NULL;
    rp_error err;
    run.verify = missing;
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    memset(&err, 0, sizeof err);
    assert_int_equal(rp_session_start(s, &err), RP_ERR_IO);
    assert_int_equal(err.bad_input, 1);
    char want[4200];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
    assert_string_equal(err.msg, want);
    rp_session_free(&s);
    free(missing);
    rp_scene_free(&scene);
}

/* The files in dir (not "." or ".."), and whether any is hidden (a temporary file). */
static int count_files(const char *dir, int *hidden)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    *hidden = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            n++;
            *hidden |= e->d_name[0] == '.';
        }
    closedir(d);
    return n;
}

/* Two sessions of one process writing one PNG sequence: the second's start is refused (bad
 * input, naming both patterns), creating nothing, and the first's frames are its own. PNG
 * frames are moved into place one by one, so both ran and the directory held a mix of the
 * two presets' frames (and a failed one would have removed or restored the other's). A
 * pattern naming the same files otherwise (f_%d.png meets f_%05d.png from frame 10000 on)
 * and a still among the frames are refused too; once the first is closed, or aborted, the
 * pattern is free again. */
static void test_two_sessions_one_png_sequence(void **state)
{
    const char *dir = *state;
    rp_scene *scene = load();
    rp_settings *o[6] = {NULL};
    char *seq = strdup(join(dir, "seq")), *alone = strdup(join(dir, "alone"));
    assert_non_null(seq);
    assert_non_null(alone);
    assert_int_equal(mkdir(seq, 0777), 0);
    assert_int_equal(mkdir(alone, 0777), 0);
    char pattern[4200], other[3][4200], apattern[4200];
    snprintf(pattern, sizeof pattern, "%s/f_%%05d.png", seq);
    snprintf(other[0], sizeof other[0], "%s/f_%%05d.png", seq);
    snprintf(other[1], sizeof other[1], "%s/f_%%d.png", seq);
    snprintf(other[2], sizeof other[2], "%s/../seq/f_00003.png", seq);
    snprintf(apattern, sizeof apattern, "%s/f_%%05d.png", alone);

    rp_session *a = writer(scene, &o[0], "rockpool", pattern);
    for (int i = 0; i < 3; i++) {
        rp_run run;
        rp_session *b = NULL;
        rp_error err;
        rp_settings *over = NULL;
        assert_int_equal(rp_settings_parse(&over, "preset elias\n", NULL, &err), RP_OK);
        rp_run_init(&run);
        run.over = over;
        run.out.path = other[i];
        run.out.overwrite = 1;
        if (i == 2) { /* a still: the one frame 3 */
            run.start = 3;
            run.end = 4;
        }
        assert_int_equal(rp_session_new(&b, scene, &run, &err), RP_OK);
        memset(&err, 0, sizeof err);
        assert_int_equal(rp_session_start(b, &err), RP_ERR_INVALID);
        assert_int_equal(err.bad_input, 1);
        assert_non_null(strstr(err.msg, other[i]));
        assert_non_null(strstr(err.msg, pattern));
        assert_non_null(strstr(err.msg, "another session"));
        rp_session_free(&b);
        rp_settings_free(&over);
    }
    assert_int_equal(finish(&a), RP_OK);
    rp_session *sa = writer(scene, &o[1], "rockpool", apattern); /* the same, alone */
    assert_int_equal(finish(&sa), RP_OK);
    int hidden;
    assert_int_equal(count_files(seq, &hidden), FRAMES);
    assert_false(hidden);
    for (int k = 0; k < FRAMES; k++) {
        char got_name[4200], want_name[4200];
        size_t n_got, n_want;
        snprintf(got_name, sizeof got_name, "%s/f_%05d.png", seq, k);
        snprintf(want_name, sizeof want_name, "%s/f_%05d.png", alone, k);
        uint8_t *got = slurp(got_name, &n_got), *want = slurp(want_name, &n_want);
        assert_int_equal(n_got, n_want);
        assert_memory_equal(got, want, n_want);
        free(got);
        free(want);
    }
    /* free again once closed, and once aborted */
    rp_session *c = writer(scene, &o[2], "elias", pattern);
    rp_session_abort(&c);
    rp_session *d = writer(scene, &o[3], "elias", pattern);
    assert_int_equal(finish(&d), RP_OK);
    free(seq);
    free(alone);
    for (int i = 0; i < 6; i++)
        rp_settings_free(&o[i]);
    rp_scene_free(&scene);
}

/* The message of a session refused at new or start (RP_OK if it started; then closed). */
static int refusal(rp_scene *scene, const rp_run *run, rp_error *err)
{
    rp_session *s = NULL;
    int r = rp_session_new(&s, scene, run, err);
    if (!r && !(r = rp_session_start(s, err))) {
        rp_session_abort(&s);
        return RP_OK;
    }
    rp_session_free(&s);
    return r;
}

/* Refusals of the run's settings name them as rp_run's fields, the API's terms, and no
 * option of the program ("rp_run.start 20 is past the last frame", not "--start 20"); after
 * rp_messages_name_options(1), what the program calls, they name its options as before.
 * They named the options whoever called. */
static void test_messages_name_fields(void **state)
{
    const char *dir = *state;
    rp_scene *scene = load();
    char stats[4200], mp4[4200], y4m[4200];
    snprintf(stats, sizeof stats, "%s/no/such/dir/s.csv", dir);
    snprintf(mp4, sizeof mp4, "%s/o.mp4", dir);
    snprintf(y4m, sizeof y4m, "%s/o.y4m", dir);
    struct {
        const char *field, *option; /* what the message names, each way */
        int what;
    } cases[] = {
        {"rp_run.start 20 is past the last frame", "--start 20 is past the last frame", 0},
        {"rp_run.start 5 is past rp_run.end 3", "--start 5 is past --end 3", 1},
        {"(raise it with rp_run.max_memory)", "(raise it with --max-memory)", 2},
        {"rp_run.stats: cannot write", "--stats: cannot write", 3},
        {"encoder mpeg4 has no constant rate factor (rp_run.out.crf 23): use "
         "rp_run.out.bitrate,",
         "encoder mpeg4 has no constant rate factor (--crf 23): use -b/--bitrate,", 4},
        {"rp_run.out.crf 30 and rp_run.out.bitrate 100000 both set",
         "--crf 30 and -b/--bitrate 100000 both set", 5},
        {"MP4 cannot carry alpha (rp_run.alpha)", "MP4 cannot carry alpha (--alpha)", 6},
        {"rp_run.out.pix_fmt yuv422p: a Y4M stream is", "--pix-fmt yuv422p: a Y4M stream is", 7},
        {"rp_run.over's size: H.264 with yuv420p needs an even width and height (got 65x49): "
         "use size 64x48 or rp_run.out.pix_fmt yuv444p",
         "-s: H.264 with yuv420p needs an even width and height (got 65x49): use -s 64x48 or "
         "--pix-fmt yuv444p",
         8},
        {"rp_run.job_id is not a job line (scene=HEX16,",
         "the job line is not one rockpool --job-id prints (scene=HEX16,", 9},
        /* an empty name is refused before the render, not found out at its rename */
        {"rp_run.stats: no output path", "--stats: no output path", 10},
        {"rp_run.save_state: no output path", "--save-state: no output path", 11},
        {"rp_run.dump_heights: no output path", "--dump-heights: no output path", 12},
    };
    rp_settings *odd = NULL;
    rp_error perr;
    assert_int_equal(rp_settings_parse(&odd, "size 65x49\n", NULL, &perr), RP_OK);
    for (int names = 0; names < 2; names++) {
        rp_messages_name_options(names);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            rp_run run = memory_run();
            rp_error err;
            switch (cases[i].what) {
            case 0: run.start = 20; break;
            case 1: run.start = 5, run.end = 3; break;
            case 2: run.max_memory = 1 << 20; break;
            case 3: run.stats = stats; break;
            case 4: run.out.path = mp4, run.out.codec = "mpeg4", run.out.crf_given = 1; break;
            case 5:
                run.out.path = mp4, run.out.crf = 30, run.out.crf_given = 1;
                run.out.bitrate = 100000;
                break;
            case 6: run.out.path = mp4, run.alpha = 1; break;
            case 7: run.out.path = y4m, run.out.pix_fmt = "yuv422p"; break;
            case 8: run.out.path = mp4, run.over = odd; break;
            case 9: run.job_id = "xx"; break;
            case 10: run.stats = ""; break;
            case 11: run.save_state = ""; break;
            case 12: run.dump_heights = ""; break;
            }
            memset(&err, 0, sizeof err);
            assert_int_not_equal(refusal(scene, &run, &err), RP_OK);
            const char *want = names ? cases[i].option : cases[i].field;
            if (!strstr(err.msg, want))
                fail_msg("case %zu, %s names: '%s' lacks '%s'", i, names ? "option" : "field",
                         err.msg, want);
            if (!names && strstr(err.msg, " --"))
                fail_msg("case %zu: '%s' names an option", i, err.msg);
        }
    }
    rp_messages_name_options(0);
    rp_settings_free(&odd);
    rp_scene_free(&scene);
}

/* A setting given over the scene (rp_run.over) that a scene's statement cannot take is named
 * as given, not as the program's option: "(preset elias, given over the scene)", not
 * "(--preset elias)", which the program still says. */
static void test_messages_name_settings_over(void **state)
{
    (void)state;
    static const char text[] = "size 64x48\ngrid 32x24\nfps 25\nduration 4f\n";
    rp_scene *scene = NULL;
    rp_settings *over = NULL;
    rp_error err;
    assert_int_equal(rp_scene_from_text(&scene, text, strlen(text), "<g>", &err), RP_OK);
    assert_int_equal(rp_settings_parse(&over, "preset elias\n", NULL, &err), RP_OK);
    for (int names = 0; names < 2; names++) {
        rp_messages_name_options(names);
        rp_run run = memory_run();
        run.over = over;
        memset(&err, 0, sizeof err);
        assert_int_not_equal(refusal(scene, &run, &err), RP_OK);
        const char *want = names ? "(--preset elias)" : "(preset elias, given over the scene)";
        if (!strstr(err.msg, want))
            fail_msg("'%s' lacks '%s'", err.msg, want);
        if (!names && strstr(err.msg, "--"))
            fail_msg("'%s' names an option", err.msg);
    }
    rp_messages_name_options(0);
    rp_settings_free(&over);
    rp_scene_free(&scene);
    /* a path outside the scene's directory: what allows it is rp_run's field (or an rp_core
     * caller's rp_core_config's) */
    static const char outside[] = "size 64x48\nbackground ../bg.png\nfps 25\nduration 4f\n";
    for (int names = 0; names < 2; names++) {
        rp_messages_name_options(names); /* before the scene is read, as rockpool.h says */
        assert_int_equal(
            rp_scene_from_text(&scene, outside, strlen(outside), "/tmp/d/o.scene", &err), RP_OK);
        rp_run run = memory_run();
        rp_session *s = NULL;
        memset(&err, 0, sizeof err);
        int r = rp_session_new(&s, scene, &run, &err);
        if (!r)
            r = rp_session_check(s, &err);
        assert_int_equal(r, RP_ERR_INVALID);
        const char *want = names ? "unless rockpool is run with --allow-outside-paths"
                                 : "unless the caller allows it (rp_run's or rp_core_config's "
                                   "allow_outside_paths)";
        if (!strstr(err.msg, want))
            fail_msg("'%s' lacks '%s'", err.msg, want);
        rp_session_free(&s);
        rp_scene_free(&scene);
    }
    rp_messages_name_options(0);
}

/* rp_session_output_settings: what the render resolves, written by hand from FFmpeg's and
 * the encoders' documented defaults (libx264: preset medium, rockpool's crf 23; VP9: crf 31
 * by rockpool(1)); an option given as that value reads the same as leaving it out, one
 * that is not reads otherwise. */
static void settings_of(const rp_scene *scene, const rp_run *run, rp_output_settings *st)
{
    rp_session *s = NULL;
    rp_error err;
    assert_int_equal(rp_session_new(&s, scene, run, &err), RP_OK);
    memset(st, 0x55, sizeof *st);
    assert_int_equal(rp_session_output_settings(s, st, &err), RP_OK);
    rp_session_free(&s);
}

static void test_output_settings(void **state)
{
    (void)state;
    rp_scene *scene = load();
    rp_run run;
    rp_session *s = NULL;
    rp_output_settings a, b;
    rp_error err;

    rp_run_init(&run);
    run.out.path = "never-written.mp4";
    assert_int_equal(rp_session_output_settings(NULL, &a, &err), RP_ERR_INVALID);
    assert_true(err.bad_input);
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_output_settings(s, NULL, NULL), RP_ERR_INVALID);
    rp_session_free(&s);

    settings_of(scene, &run, &a);
    assert_int_equal(a.format, RP_FORMAT_MP4);
    assert_string_equal(a.codec, "libx264");
    assert_string_equal(a.pix_fmt, "yuv420p");
    assert_string_equal(a.encoder_preset, "medium");
    assert_int_equal(a.crf, 23);
    assert_int_equal(a.qscale, 0);
    assert_int_equal(a.bitrate, 0);
    assert_string_equal(a.hash_algo, "");
    run.out.codec = "libx264";
    run.out.crf = 23;
    run.out.crf_given = 1;
    run.out.encoder_preset = "medium";
    run.out.pix_fmt = "yuv420p";
    settings_of(scene, &run, &b);
    assert_memory_equal(&a, &b, sizeof a);
    run.out.crf = 24;
    settings_of(scene, &run, &b);
    assert_int_equal(b.crf, 24);
    run.out.crf_given = 0;
    run.out.bitrate = 300000; /* a bit rate, no crf */
    settings_of(scene, &run, &b);
    assert_int_equal(b.crf, -1);
    assert_int_equal(b.bitrate, 300000);

    rp_run_init(&run);
    run.out.path = "never-written.webm";
    settings_of(scene, &run, &a);
    assert_string_equal(a.codec, "libvpx-vp9");
    assert_int_equal(a.crf, 31);
    run.out.path = "never-written.mkv";
    run.out.codec = "mpeg4"; /* no crf: the default 23 is the quantiser (23 + 3) / 6 */
    settings_of(scene, &run, &a);
    assert_int_equal(a.crf, -1);
    assert_int_equal(a.qscale, 4);
    run.out.codec = "nosuch";
    assert_int_equal(rp_session_new(&s, scene, &run, &err), RP_OK);
    assert_int_equal(rp_session_output_settings(s, &a, &err), RP_ERR_INVALID);
    assert_true(err.bad_input);
    rp_session_free(&s);

    rp_run_init(&run);
    run.out.path = "never-written.framehash";
    run.out.hash_algo = "sha256";
    settings_of(scene, &run, &a);
    assert_string_equal(a.hash_algo, "SHA256");
    assert_string_equal(a.codec, "");
    assert_int_equal(a.crf, -1);
    run.out.path = NULL; /* no output */
    settings_of(scene, &run, &a);
    assert_int_equal(a.format, RP_FORMAT_NONE);
    assert_string_equal(a.codec, "");
    assert_string_equal(a.pix_fmt, "");
    rp_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_output_settings),
        cmocka_unit_test(test_checks_after_start),
        cmocka_unit_test(test_empty_range_refused_at_new),
        cmocka_unit_test(test_failed_check_fails_session),
        cmocka_unit_test(test_output_is_still),
        cmocka_unit_test(test_max_memory_zero_is_no_limit),
        cmocka_unit_test(test_stop_is_not_bad_input),
        cmocka_unit_test_setup_teardown(test_close_early, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_two_sessions_one_output, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_verify_message_names_manifest, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_two_sessions_one_png_sequence, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_messages_name_fields, make_dir, remove_dir),
        cmocka_unit_test(test_messages_name_settings_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
