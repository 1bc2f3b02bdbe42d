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
 * The settings are the preset's, then the scene's, then the options' (--preset, -n and
 * --seed are given to the core as the scene lines `preset NAME`, `duration Nf` and
 * `seed N`), resolved and rendered by the same engine the program's session drives; -s is
 * the output size as for the program. The driver uses the public core API (rpcore.h)
 * alone.
 * Scenes with a background or sky image or wall masks are refused (they need image decoding):
 * exit 2.
 * Exit status: 0 ok, 1 runtime failure, 2 bad usage or input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcore.h"

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

/* A word of lowercase letters (a preset's name), so that it stays one scene line. */
static int is_word(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (*s < 'a' || *s > 'z')
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *scene_path = NULL;
    char lines[256] = ""; /* the options as scene lines: preset, duration, seed */
    size_t used = 0;
    int64_t v, threads = 1;
    int plain_c = 0, items_only = 0;
    rp_core_config cfg;

    rp_core_config_init(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
        int n = 0;
        if (!strcmp(a, "--preset")) {
            /* As the scene's `preset` line: the preset brings its drop shape and mode. */
            if (!is_word(arg) || strlen(arg) > 32)
                goto bad_usage;
            n = snprintf(lines + used, sizeof lines - used, "preset %s\n", arg);
            i++;
        } else if (!strcmp(a, "-s")) {
            int64_t w, h;
            const char *x = arg ? strchr(arg, 'x') : NULL;
            char wtext[16];
            if (!x || x - arg >= (long)sizeof wtext)
                goto bad_usage;
            memcpy(wtext, arg, (size_t)(x - arg));
            wtext[x - arg] = '\0';
            if (parse_int(wtext, 1, 16384, &w) || parse_int(x + 1, 1, 16384, &h))
                goto bad_usage;
            cfg.width = (int)w;
            cfg.height = (int)h;
            i++;
        } else if (!strcmp(a, "-n")) {
            if (parse_int(arg, 1, 1000000000, &v)) /* rockpool-scene(5)'s limit */
                goto bad_usage;
            n = snprintf(lines + used, sizeof lines - used, "duration %lldf\n", (long long)v);
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
            unsigned long long seed = strtoull(arg, &end, 10);
            if (errno || *end)
                goto bad_usage;
            n = snprintf(lines + used, sizeof lines - used, "seed %llu\n", seed);
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
        if (n < 0 || (size_t)n >= sizeof lines - used)
            goto bad_usage;
        used += (size_t)n;
    }

    rp_settings *over = NULL;
    rp_error err;
    if (used && rp_settings_parse(&over, lines, "<options>", &err)) {
        if (err.code == RP_ERR_NOMEM)
            return 1;
        goto bad_usage;
    }

    char *text = NULL;
    size_t len = 0;
    if (scene_path && read_file(scene_path, &text, &len)) {
        fprintf(stderr, "rpcore: %s: cannot read scene\n", scene_path);
        rp_settings_free(&over);
        return 2;
    }

    int status = 1;
    rp_scene *scene = NULL;
    rp_core *core = NULL;
    uint8_t *frame = NULL;
    const char *name = scene_path ? scene_path : "<default>";
    int r = rp_scene_from_text(&scene, text, len, name, &err); /* NULL text: the built-in */
    free(text);
    if (r) {
        print_diag(&err.diag, name);
        rp_settings_free(&over);
        return r == RP_ERR_NOMEM ? 1 : 2;
    }

    cfg.over = over;
    cfg.threads = (int)threads;
    if ((r = rp_core_open(&core, scene, &cfg, &err))) {
        if (err.has_diag)
            print_diag(&err.diag, name);
        else
            fprintf(stderr, "rpcore: error: %s\n", err.msg);
        status = err.bad_input ? 2 : 1;
        goto done;
    }
    rp_core_info info;
    rp_core_get_info(core, &info);
    if (items_only) {
        status = rp_core_print_timeline(core, stdout) || fflush(stdout) ? 1 : 0;
        goto done;
    }
    if (info.needs_background || info.needs_sky) {
        fprintf(stderr, "rpcore: the scene names a %s image; rpcore has no image decoder\n",
                info.needs_background ? "background" : "sky");
        status = 2;
        goto done;
    }
    if (info.needs_masks) {
        fprintf(stderr, "rpcore: the scene has a wall mask; rpcore has no image decoder\n");
        status = 2;
        goto done;
    }

    size_t row = (size_t)info.width * 3, bytes = row * (size_t)info.height;
    if (!(frame = malloc(bytes)))
        goto done;
    if (plain_c)
        rp_core_plain_c(1);
    for (int64_t k = 0; k < info.frames; k++) {
        if (rp_core_render(core, k, RP_PASS_RENDER, frame, row, &err)) {
            fprintf(stderr, "rpcore: error: %s\n", err.msg);
            goto done;
        }
        if (fwrite(frame, 1, bytes, stdout) != bytes) {
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
    rp_core_close(&core);
    rp_scene_free(&scene);
    rp_settings_free(&over);
    return status;

bad_usage:
    usage();
    return 2;
}
