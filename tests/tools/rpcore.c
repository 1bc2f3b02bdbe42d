/* rpcore.c - a test driver that links only rockpool's core: the scene parser and
 * timeline, the simulation, the renderer, the built-in texture and the thread pool. No
 * FFmpeg, no libpng, no zlib, no libm, so it runs under valgrind on any CPU (the full
 * program pulls in libraries that probe the CPU with instructions valgrind may not know)
 * and cross-builds statically for other architectures (tests/cross/run).
 *
 * Usage: rpcore [--preset NAME] [-s WxH] [-n FRAMES] [-j THREADS] [--seed N] [--plain-c]
 *               [--items] [SCENE]
 * Writes every frame's RGB24 bytes (width*height*3, rows top to bottom) to stdout, frame
 * after frame, exactly the bytes `rockpool -f framemd5` hashes. --plain-c caps the kernels
 * at the plain C loops (rp_simd_set). --items renders nothing: it prints the final settings
 * and the timeline as text (the same on every architecture).
 *
 * The settings are the preset's, then the scene's, then the options' (--preset brings the
 * preset's drop shape and mode, as a scene's `preset` line does), resolved and rendered by
 * the same engine the program's session drives (src/engine.h); -s is the output size as
 * for the program.
 * Scenes with a background or sky image or wall masks are refused (they need image decoding):
 * exit 2.
 * Exit status: 0 ok, 1 runtime failure, 2 bad usage or input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "sim/engine.h"
#include "base/pool.h"
#include "scene/scene.h"
#include "scene/timeline.h"
#include "base/cpu.h"
#include "look/texture.h"

static void usage(void)
{
    fputs("usage: rpcore [--preset NAME] [-s WxH] [-n FRAMES] [-j THREADS] [--seed N] "
          "[--plain-c] [--items] [SCENE]\n",
          stderr);
}

/* A decimal integer in lo..hi, the whole string. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, n = 0;
    char *buf = NULL;
    if (!f)
        return -1;
    for (;;) {
        char *more = realloc(buf, cap);
        if (!more) {
            free(buf);
            fclose(f);
            return -1;
        }
        buf = more;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

static void print_diag(const rp_diag *d, const char *file)
{
    fprintf(stderr, "rpcore: %s:%d:%d: error: %s\n", d->file[0] ? d->file : file, d->line, d->col,
            d->msg);
}

/* --items: the settings that decide pixels, the timeline's counts, its first items one a
 * line, and sums of the fields of the rest (printing a million items one a line takes
 * seconds under qemu). */
#define ITEMS_SHOWN 4000
static void print_items(const rp_settings *s, const rp_timeline *tl, int64_t frames)
{
    rp_timeline_stats ts;
    uint64_t shown = 0, sum[6] = {0};
    rp_timeline_stats_get(tl, &ts);
    printf("size %dx%d output %dx%d grid %dx%d fps %d/%d rate %d frames %" PRId64 " seed %" PRIu64
           " preset %d\n",
           s->width, s->height, s->out_width, s->out_height, s->water.width, s->water.height,
           s->time.fps, s->time.fps_den, s->time.rate, frames, s->seed, (int)s->preset);
    printf("stencil %d boundary %d damping %d/%d render %d refraction %d shading %d light "
           "%d,%d shape %d mode %d\n",
           (int)s->water.stencil, (int)s->water.boundary, s->water.damping_shift,
           (int)s->water.damping_q16, (int)s->look.mode, s->look.refraction, s->look.shading,
           s->look.light_x, s->look.light_y, (int)s->shape, (int)s->mode);
    printf("drops %zu rain %zu stroke %zu walls %zu after-end %zu\n", ts.drops, ts.rain_drops,
           ts.stroke_dabs, ts.walls, ts.after_end);
    for (int64_t k = 0; k < frames; k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, k, &items, &n);
        for (size_t i = 0; i < n; i++) {
            const rp_item *it = &items[i];
            const rp_drop *d = &it->drop;
            if (shown++ >= ITEMS_SHOWN) { /* unsigned sums: wrap-around is defined */
                sum[0] += (uint64_t)it->frame;
                sum[1] += (uint64_t)it->kind * 16 + (uint64_t)d->shape * 4 + (uint64_t)d->mode;
                sum[2] += (uint64_t)(int64_t)(it->kind == RP_ITEM_DROP ? d->x : it->x);
                sum[3] += (uint64_t)(int64_t)(it->kind == RP_ITEM_DROP ? d->y : it->y);
                sum[4] += (uint64_t)(int64_t)(it->kind == RP_ITEM_DROP ? d->radius : it->r);
                sum[5] += (uint64_t)(int64_t)(it->kind == RP_ITEM_DROP ? d->height : it->w);
                continue;
            }
            if (it->kind == RP_ITEM_DROP)
                printf("%" PRId64 " drop %d %d r %d h %d shape %d mode %d\n", it->frame, (int)d->x,
                       (int)d->y, (int)d->radius, (int)d->height, (int)d->shape, (int)d->mode);
            else
                printf("%" PRId64 " wall %d %d %d %d %d %d %s\n", it->frame, (int)it->kind, it->x,
                       it->y, it->w, it->h, it->r,
                       it->kind == RP_ITEM_WALL_MASK ? it->mask_path : "-");
        }
    }
    if (shown > ITEMS_SHOWN)
        printf("%" PRIu64 " more items, sums %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 " %" PRIu64 "\n",
               shown - ITEMS_SHOWN, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]);
}

int main(int argc, char **argv)
{
    const char *scene_path = NULL;
    rp_settings over;
    int64_t v, threads = 1;
    int plain_c = 0, items_only = 0;

    memset(&over, 0, sizeof over);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--preset")) {
            int p = arg ? rp_preset_from_name(arg) : -1;
            if (p < 0)
                goto bad_usage;
            /* As the scene's `preset` line: the preset brings its drop shape and mode. */
            rp_settings d;
            rp_settings_defaults(&d, (enum rp_preset)p);
            over.preset = d.preset;
            over.shape = d.shape;
            over.mode = d.mode;
            over.set |= RP_SET_PRESET;
            i++;
        } else if (!strcmp(a, "-s")) {
            int64_t w, h;
            const char *x = arg ? strchr(arg, 'x') : NULL;
            char wtext[16];
            if (!x || x - arg >= (long)sizeof wtext)
                goto bad_usage;
            memcpy(wtext, arg, (size_t)(x - arg));
            wtext[x - arg] = '\0';
            if (parse_int(wtext, 1, RP_MAX_SIDE, &w) || parse_int(x + 1, 1, RP_MAX_SIDE, &h))
                goto bad_usage;
            over.out_width = (int)w;
            over.out_height = (int)h;
            over.set |= RP_SET_OUTPUT_SIZE;
            i++;
        } else if (!strcmp(a, "-n")) {
            if (parse_int(arg, 1, RP_TIME_MAX_FRAMES, &v))
                goto bad_usage;
            over.time.duration.value = v;
            over.time.duration.is_frames = 1;
            over.set |= RP_SET_DURATION;
            i++;
        } else if (!strcmp(a, "-j")) {
            if (parse_int(arg, 1, 64, &threads))
                goto bad_usage;
            i++;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            if (!arg || *arg < '0' || *arg > '9')
                goto bad_usage;
            errno = 0;
            over.seed = strtoull(arg, &end, 10);
            if (errno || *end)
                goto bad_usage;
            over.set |= RP_SET_SEED;
            i++;
        } else if (!strcmp(a, "--plain-c")) {
            plain_c = 1;
        } else if (!strcmp(a, "--items")) {
            items_only = 1;
        } else if (a[0] == '-' && a[1]) {
            goto bad_usage;
        } else if (!scene_path) {
            scene_path = a;
        } else {
            goto bad_usage;
        }
    }

    char *text;
    size_t len;
    if (scene_path) {
        if (read_file(scene_path, &text, &len)) {
            fprintf(stderr, "rpcore: %s: cannot read scene\n", scene_path);
            return 2;
        }
    } else {
        len = strlen(rp_scene_builtin());
        text = malloc(len + 1);
        if (!text)
            return 1;
        memcpy(text, rp_scene_builtin(), len + 1);
    }

    int status = 1;
    rp_scene *scene = NULL;
    rp_engine *engine = NULL;
    rp_pool *pool = NULL;
    uint8_t *texture = NULL, *frame = NULL;
    rp_diag diag;
    rp_error err;
    memset(&diag, 0, sizeof diag);
    int r = rp_scene_parse(&scene, text, len, scene_path ? scene_path : "<default>", &diag);
    free(text);
    if (r) {
        print_diag(&diag, scene_path ? scene_path : "<default>");
        rp_scene_free(&scene);
        return r == RP_ERR_NOMEM ? 1 : 2;
    }

    /* The settings as the session merges them: preset defaults, the scene's, the options'. */
    const rp_settings *ss = rp_scene_settings(scene);
    enum rp_preset preset = (over.set & RP_SET_PRESET)  ? over.preset
                            : (ss->set & RP_SET_PRESET) ? ss->preset
                                                        : RP_PRESET_ROCKPOOL;
    rp_settings merged;
    rp_settings_defaults(&merged, preset);
    rp_settings_merge(&merged, ss);
    rp_settings_merge(&merged, &over);
    merged.preset = preset;
    if ((merged.background[0] || merged.sky_image[0]) && !items_only) {
        fprintf(stderr, "rpcore: the scene names a %s image; rpcore has no image decoder\n",
                merged.background[0] ? "background" : "sky");
        status = 2;
        goto done;
    }
    if ((r = rp_engine_new(&engine, scene, &merged, 0, 0, INT64_MAX, NULL, &err))) {
        if (err.has_diag)
            print_diag(&err.diag, scene_path ? scene_path : "<default>");
        else
            fprintf(stderr, "rpcore: error: %s\n", err.msg);
        status = err.bad_input ? 2 : 1;
        goto done;
    }
    const rp_settings *s = rp_engine_settings(engine);
    const rp_timeline *tl = rp_engine_timeline(engine);
    int64_t frames = rp_engine_frames(engine);
    if (items_only) {
        print_items(s, tl, rp_engine_items_length(engine));
        status = fflush(stdout) ? 1 : 0;
        goto done;
    }
    for (int64_t k = 0; k < rp_engine_items_length(engine); k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, k, &items, &n);
        for (size_t i = 0; i < n; i++)
            if (items[i].kind == RP_ITEM_WALL_MASK) {
                fprintf(stderr, "rpcore: the scene has a wall mask; rpcore has no image "
                                "decoder\n");
                status = 2;
                goto done;
            }
    }

    size_t pixels = (size_t)s->out_width * (size_t)s->out_height;
    texture = malloc(pixels * 3);
    frame = malloc(pixels * 3);
    if (!texture || !frame || (threads > 1 && rp_pool_new(&pool, (int)threads)) ||
        rp_engine_start(engine, pool, NULL, NULL, &err))
        goto done;
    rp_texture_default(texture, s->out_width, s->out_height);
    if (plain_c)
        rp_simd_set(RP_SIMD_C);
    for (int64_t k = 0; k < frames; k++) {
        rp_engine_frame(engine, k, texture, frame, NULL);
        if (fwrite(frame, 1, pixels * 3, stdout) != pixels * 3) {
            fprintf(stderr, "rpcore: stdout: write failed\n");
            goto done;
        }
    }
    if (fflush(stdout)) {
        fprintf(stderr, "rpcore: stdout: write failed\n");
        goto done;
    }
    status = 0;

done:
    free(frame);
    free(texture);
    rp_engine_free(&engine);
    rp_pool_free(&pool);
    rp_scene_free(&scene);
    return status;

bad_usage:
    usage();
    return 2;
}
