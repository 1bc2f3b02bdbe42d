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
 * The frame loop is the one of src/main.c: the settings are the preset's, then the
 * scene's, then the options' (--preset brings the preset's drop shape and mode, as a
 * scene's `preset` line does); each frame applies its timeline items, steps, renders.
 * Scenes with a background image or wall masks are refused (they need image decoding):
 * exit 2.
 * Exit status: 0 ok, 1 runtime failure, 2 bad usage or input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pool.h"
#include "render.h"
#include "scene.h"
#include "simd.h"
#include "texture.h"
#include "water.h"

/* The same text as main.c's built-in scene (used when no SCENE is given). */
static const char default_scene[] = "# rockpool's built-in scene: a few seconds of rain\n"
                                    "duration 6s\n"
                                    "at 0s..6s rain rate 5/s radius 4..10 height 300..900\n";

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
    printf("size %dx%d fps %d frames %" PRId64 " seed %" PRIu64 " preset %d\n", s->width, s->height,
           s->fps, frames, s->seed, (int)s->preset);
    printf("stencil %d boundary %d damping %d/%d render %d refraction %d shading %d light "
           "%d,%d shape %d mode %d\n",
           (int)s->stencil, (int)s->boundary, s->damping_shift, (int)s->damping_q16, (int)s->render,
           s->refraction, s->shading, s->light_x, s->light_y, (int)s->shape, (int)s->mode);
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
            over.width = (int)w;
            over.height = (int)h;
            over.set |= RP_SET_SIZE;
            i++;
        } else if (!strcmp(a, "-n")) {
            if (parse_int(arg, 1, RP_TIME_MAX_FRAMES, &v))
                goto bad_usage;
            over.duration.value = v;
            over.duration.is_frames = 1;
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
        len = strlen(default_scene);
        text = malloc(len + 1);
        if (!text)
            return 1;
        memcpy(text, default_scene, len + 1);
    }

    int status = 1;
    rp_scene *scene = NULL;
    rp_timeline *tl = NULL;
    rp_water *water = NULL;
    rp_pool *pool = NULL;
    uint8_t *texture = NULL, *frame = NULL;
    rp_diag diag;
    memset(&diag, 0, sizeof diag);
    int r = rp_scene_parse(&scene, text, len, scene_path ? scene_path : "<default>", &diag);
    free(text);
    if (r) {
        print_diag(&diag, scene_path ? scene_path : "<default>");
        rp_scene_free(&scene);
        return r == RP_ERR_NOMEM ? 1 : 2;
    }

    /* The settings as main.c merges them: preset defaults, the scene's, the options'. */
    const rp_settings *ss = rp_scene_settings(scene);
    enum rp_preset preset = (over.set & RP_SET_PRESET)  ? over.preset
                            : (ss->set & RP_SET_PRESET) ? ss->preset
                                                        : RP_PRESET_ROCKPOOL;
    rp_settings s;
    rp_settings_defaults(&s, preset);
    rp_settings_merge(&s, ss);
    rp_settings_merge(&s, &over);
    s.preset = preset;
    if (s.background[0] && !items_only) {
        fprintf(stderr, "rpcore: the scene names a background image; rpcore has no image "
                        "decoder\n");
        status = 2;
        goto done;
    }
    int64_t frames = rp_time_frames(s.duration, s.fps);

    memset(&diag, 0, sizeof diag);
    r = rp_timeline_build(&tl, scene, &s, frames, &diag);
    if (r) {
        print_diag(&diag, scene_path ? scene_path : "<default>");
        status = r == RP_ERR_NOMEM ? 1 : 2;
        goto done;
    }
    if (items_only) {
        print_items(&s, tl, frames);
        status = fflush(stdout) ? 1 : 0;
        goto done;
    }
    for (int64_t k = 0; k < frames; k++) {
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

    size_t cells = (size_t)s.width * (size_t)s.height;
    texture = malloc(cells * 3);
    frame = malloc(cells * 3);
    if (!texture || !frame)
        goto done;
    rp_texture_default(texture, s.width, s.height);
    rp_water_params wp = {s.width, s.height, s.stencil, s.boundary, s.damping_shift, s.damping_q16};
    if (rp_water_new(&water, &wp) || (threads > 1 && rp_pool_new(&pool, (int)threads)))
        goto done;
    rp_timeline_stats ts;
    rp_timeline_stats_get(tl, &ts);
    if (ts.walls && rp_water_reserve_walls(water))
        goto done;
    if (plain_c)
        rp_simd_set(RP_SIMD_C);

    rp_render_params rparams = {s.render, s.refraction, s.light_x, s.light_y, s.shading};
    for (int64_t k = 0; k < frames; k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, k, &items, &n);
        for (size_t i = 0; i < n; i++) {
            const rp_item *it = &items[i];
            switch (it->kind) {
            case RP_ITEM_DROP: rp_water_drop(water, &it->drop); break;
            case RP_ITEM_WALL_RECT:
                rp_water_add_wall_rect(water, it->x, it->y, it->w, it->h);
                break;
            case RP_ITEM_WALL_CIRCLE: rp_water_add_wall_circle(water, it->x, it->y, it->r); break;
            case RP_ITEM_WALL_MASK: break; /* refused above */
            }
        }
        rp_water_step(water, pool);
        rp_render_frame(&rparams, rp_water_heights(water), s.width, s.height, texture, frame, pool);
        if (fwrite(frame, 1, cells * 3, stdout) != cells * 3) {
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
    rp_pool_free(&pool);
    rp_water_free(&water);
    rp_timeline_free(&tl);
    rp_scene_free(&scene);
    return status;

bad_usage:
    usage();
    return 2;
}
