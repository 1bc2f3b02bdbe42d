/* main.c - wires the pipeline: options -> scene -> settings -> timeline -> simulate,
 * render, write. Only this file and cli.c print or exit.
 *
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or input, 130 SIGINT
 * (143 SIGTERM). Nothing is created before every input has been validated. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "image.h"
#include "output.h"
#include "pool.h"
#include "render.h"
#include "scene.h"
#include "state.h"
#include "texture.h"
#include "water.h"
#include "writer.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_SIGINT = 130, EXIT_SIGTERM = 143 };

/* A few seconds of rain, used when no SCENE is given. */
static const char default_scene[] = "# rockpool's built-in scene: a few seconds of rain\n"
                                    "duration 6s\n"
                                    "at 0s..6s rain rate 5/s radius 4..10 height 300..900\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void error(const char *fmt, ...)
{
    va_list ap;
    fputs("rockpool: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void warn_cb(void *ctx, const char *msg)
{
    const rp_cli *cli = ctx;
    if (!cli->quiet)
        fprintf(stderr, "rockpool: warning: %s\n", msg);
}

/* gcc-style diagnostic: "rockpool: FILE:LINE:COL: error: MSG", the line, a caret. */
static void print_diag(const rp_diag *d)
{
    if (d->line > 0)
        fprintf(stderr, "rockpool: %s:%d:%d: error: %s\n", d->file, d->line, d->col, d->msg);
    else
        fprintf(stderr, "rockpool: %s: error: %s\n", d->file, d->msg);
    if (d->line > 0 && d->source_line[0]) {
        int width = fprintf(stderr, " %5d | ", d->line) - 2;
        fprintf(stderr, "%s\n", d->source_line);
        fprintf(stderr, "%*s| ", width, "");
        for (int i = 1; i < d->col && d->source_line[i - 1]; i++)
            fputc(d->source_line[i - 1] == '\t' ? '\t' : ' ', stderr);
        fputs("^\n", stderr);
    }
}

/* Read a whole file (or stdin for "-") into memory. */
static int read_all(const char *path, char **text, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    size_t cap = 1 << 16, n = 0;
    char *buf = NULL;
    struct stat st;
    if (!f)
        return errno ? errno : EIO;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return EISDIR;
    }
    buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= ((size_t)64 << 20)) { /* scenes are text: 64 MiB is plenty */
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
        }
        buf = more;
        cap *= 2;
    }
    int failed = !buf || ferror(f);
    int err = errno ? errno : EIO;
    if (f != stdin)
        fclose(f);
    if (failed) {
        free(buf);
        return err;
    }
    *text = buf;
    *len = n;
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_summary(const rp_settings *s, int64_t frames, const rp_scene *scene,
                          const rp_timeline *tl)
{
    rp_scene_stats ss;
    rp_timeline_stats ts;
    rp_scene_stats_get(scene, &ss);
    rp_timeline_stats_get(tl, &ts);
    printf("size:       %dx%d\n", s->width, s->height);
    printf("fps:        %d\n", s->fps);
    printf("frames:     %" PRId64 " (%" PRId64 ".%03" PRId64 " s)\n", frames,
           frames / s->fps, frames % s->fps * 1000 / s->fps);
    printf("preset:     %s\n", rp_preset_name(s->preset));
    printf("background: %s\n", s->background[0] ? s->background : "(built-in texture)");
    printf("events:     %d drop, %d rain, %d stroke, %d wall\n", ss.drops, ss.rains, ss.strokes,
           ss.walls);
    printf("drops:      %zu in all (%zu from rain, %zu stroke dabs)\n", ts.drops, ts.rain_drops,
           ts.stroke_dabs);
    if (ts.after_end)
        printf("after end:  %zu items fall after the last frame and are left out\n",
               ts.after_end);
}

/* Wall masks, decoded once before any output exists (a bad mask fails the run before
 * anything is written) and found by path when their frame comes. */
typedef struct masks {
    size_t n;
    const char **paths;
    uint8_t **data;
} masks;

static const uint8_t *masks_find(const masks *m, const char *path)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->paths[i], path))
            return m->data[i];
    return NULL;
}

static void masks_free(masks *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->data[i]);
    free(m->paths);
    free(m->data);
    memset(m, 0, sizeof *m);
}

/* Decode every mask the frames 0..end-1 use. Returns 0, or an exit status after printing
 * why. */
static int masks_load(masks *m, const rp_timeline *tl, int64_t end, const rp_settings *s)
{
    char err[1024];
    rp_timeline_stats ts;
    rp_timeline_stats_get(tl, &ts);
    for (int64_t k = 0; ts.walls && k < end; k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, k, &items, &n);
        for (size_t i = 0; i < n; i++) {
            if (items[i].kind != RP_ITEM_WALL_MASK || masks_find(m, items[i].mask_path))
                continue;
            uint8_t *mask = NULL;
            const char **paths = realloc(m->paths, (m->n + 1) * sizeof *paths);
            if (paths)
                m->paths = paths;
            uint8_t **data = realloc(m->data, (m->n + 1) * sizeof *data);
            if (data)
                m->data = data;
            if (!paths || !data) {
                error("out of memory");
                return EXIT_RUNTIME;
            }
            if (rp_image_load_mask(items[i].mask_path, s->width, s->height, &mask, err,
                                   sizeof err)) {
                error("%s", err);
                return EXIT_USAGE;
            }
            m->paths[m->n] = items[i].mask_path;
            m->data[m->n++] = mask;
        }
    }
    return 0;
}

/* Apply one frame's items to the water; walls_only skips drops (checkpoint replay). */
static void apply_items(rp_water *water, const rp_item *items, size_t n, int walls_only,
                        const masks *m)
{
    for (size_t i = 0; i < n; i++) {
        const rp_item *it = &items[i];
        switch (it->kind) {
        case RP_ITEM_DROP:
            if (!walls_only)
                rp_water_drop(water, &it->drop);
            break;
        case RP_ITEM_WALL_RECT: rp_water_add_wall_rect(water, it->x, it->y, it->w, it->h); break;
        case RP_ITEM_WALL_CIRCLE: rp_water_add_wall_circle(water, it->x, it->y, it->r); break;
        case RP_ITEM_WALL_MASK: rp_water_add_walls(water, masks_find(m, it->mask_path)); break;
        }
    }
}

/* Start from a checkpoint: load it, check it belongs to this run and is not past
 * --start, replay the walls of the frames it skips. Sets *k0. */
static int load_state(const char *path, rp_water *water, const rp_settings *s,
                      const rp_timeline *tl, const masks *m, int64_t start, int64_t *k0)
{
    char err[512];
    uint64_t key;
    FILE *f = fopen(path, "rb");
    if (!f) {
        error("%s: cannot open state: %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    int r = rp_state_read(f, water, k0, &key, err, sizeof err);
    fclose(f);
    if (r) {
        error("%s: %s", path, err);
        return r == RP_ERR_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (*k0 > start) {
        error("%s: state is at frame %" PRId64 ", after --start %" PRId64, path, *k0, start);
        return EXIT_USAGE;
    }
    if (key != rp_state_key(s, tl, *k0)) {
        error("%s: state was saved from another scene or other settings", path);
        return EXIT_USAGE;
    }
    for (int64_t f2 = 0; f2 < *k0; f2++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, f2, &items, &n);
        apply_items(water, items, n, 1, m);
    }
    return 0;
}

/* Write the checkpoint of frame k into its side file (moved into place with the output). */
static int write_state(rp_output_file *f, const rp_water *water, int64_t k, uint64_t key)
{
    char err[1024];
    uint8_t *buf;
    size_t len;
    if (rp_state_encode(water, k, key, &buf, &len)) {
        error("out of memory");
        return EXIT_RUNTIME;
    }
    int r = rp_output_file_write(f, buf, len, err, sizeof err);
    free(buf);
    if (r) {
        error("%s", err);
        return EXIT_RUNTIME;
    }
    return 0;
}

/* FFmpeg -progress style block for batch drivers. */
static void progress_block(FILE *f, int64_t written, int fps, double speed, int end)
{
    if (!f)
        return;
    fprintf(f, "frame=%" PRId64 "\nfps=%.2f\nout_time_us=%" PRId64 "\nprogress=%s\n", written,
            speed, written * 1000000 / fps, end ? "end" : "continue");
    fflush(f);
}

/* What a run will hold in memory, roughly: two height buffers, the texture, the writer's
 * frame slots (and height copies), wall masks, the timeline, and the encoder's own frames
 * (x264's lookahead dominates). An estimate to refuse absurd runs before allocating. */
static double memory_estimate(const rp_settings *s, enum rp_format fmt, int dumping,
                              int threads, const rp_timeline *tl)
{
    double cells = (double)s->width * s->height;
    /* heights 2x2, texture 3, writer slots 3 each (+ height copies and LE scratch when
     * dumping), walls 5 */
    double per_cell = 2 * 2 + 3 + 3 * RP_WRITER_SLOTS + (dumping ? 2 * RP_WRITER_SLOTS + 2 : 0) + 5;
    if (fmt == RP_FORMAT_PNG) /* the PNG encoders' frames: two per thread, up to 16 */
        per_cell += 2 * 3 * (threads > 16 ? 16 : threads);
    int video = fmt == RP_FORMAT_MP4 || fmt == RP_FORMAT_MKV || fmt == RP_FORMAT_MOV ||
                fmt == RP_FORMAT_WEBM;
    per_cell += video ? 45 : 6;
    rp_timeline_stats ts;
    rp_timeline_stats_get(tl, &ts);
    return cells * per_cell + (double)(ts.drops + ts.walls) * sizeof(rp_item) + (32 << 20);
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int main(int argc, char **argv)
{
    rp_cli cli;
    char err[1024];
    rp_diag diag;
    char *text = NULL;
    size_t len = 0;
    rp_scene *scene = NULL;
    rp_timeline *tl = NULL;
    rp_water *water = NULL;
    rp_pool *pool = NULL;
    rp_output *out = NULL;
    uint8_t *texture = NULL;
    rp_writer *writer = NULL;
    rp_output_file *heights_dump = NULL, *state_file = NULL;
    FILE *progress = NULL;
    masks wall_masks = {0};
    int status = EXIT_RUNTIME, r;
    rp_settings s;

    if (rp_cli_parse(&cli, argc, argv, err, sizeof err)) {
        error("%s", err);
        return EXIT_USAGE;
    }
    if (cli.help) {
        rp_cli_usage(stdout);
        return 0;
    }
    if (cli.version) {
        printf("rockpool %s\n", RP_VERSION);
        return 0;
    }

    /* SIGINT/SIGTERM only set a flag: before the output exists the run stops with nothing
     * created; after, the output is finished properly and kept (SPEC.md section 5). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* 1. The scene. */
    const char *scene_name = cli.scene_path ? cli.scene_path : "<default>";
    if (cli.scene_path) {
        r = read_all(cli.scene_path, &text, &len);
        if (r && stop_signal)
            return stop_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
        if (r) {
            error("%s: cannot read scene: %s", strcmp(scene_name, "-") ? scene_name : "stdin",
                  strerror(r));
            return EXIT_USAGE;
        }
    } else {
        text = strdup(default_scene);
        len = text ? strlen(text) : 0;
        if (!text)
            return EXIT_RUNTIME;
    }
    memset(&diag, 0, sizeof diag);
    r = rp_scene_parse(&scene, text, len, strcmp(scene_name, "-") ? scene_name : "<stdin>", &diag);
    free(text);
    if (r) {
        print_diag(&diag);
        return r == RP_ERR_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }

    /* 2. Final settings: the preset's defaults, then the scene's, then the options'. */
    const rp_settings *ss = rp_scene_settings(scene);
    enum rp_preset preset = (cli.over.set & RP_SET_PRESET)   ? cli.over.preset
                            : (ss->set & RP_SET_PRESET)      ? ss->preset
                                                             : RP_PRESET_ROCKPOOL;
    rp_settings_defaults(&s, preset);
    rp_settings_merge(&s, ss);
    rp_settings_merge(&s, &cli.over);
    s.preset = preset;
    if (s.background[0] && !(s.set & RP_SET_SIZE)) {
        int w, h;
        if (rp_image_probe(s.background, &w, &h, err, sizeof err)) {
            error("%s", err);
            goto usage_fail;
        }
        if (w > RP_MAX_SIDE || h > RP_MAX_SIDE) {
            error("%s: image is %dx%d, over the %d per side limit: give --size", s.background, w,
                  h, RP_MAX_SIDE);
            goto usage_fail;
        }
        s.width = w;
        s.height = h;
    }
    int64_t frames = rp_time_frames(s.duration, s.fps);
    int64_t end = cli.end < 0 ? frames : cli.end;
    if (end > frames) {
        error("--end %" PRId64 " is past the last frame (the timeline has %" PRId64 " frames)",
              end, frames);
        goto usage_fail;
    }
    if (cli.start > end) {
        error("--start %" PRId64 " is past --end %" PRId64, cli.start, end);
        goto usage_fail;
    }

    /* 3. The timeline. */
    memset(&diag, 0, sizeof diag);
    r = rp_timeline_build(&tl, scene, &s, frames, &diag);
    if (r) {
        if (!diag.file[0])
            snprintf(diag.file, sizeof diag.file, "%s",
                     strcmp(scene_name, "-") ? scene_name : "<stdin>");
        print_diag(&diag);
        status = r == RP_ERR_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
        goto done;
    }
    if (cli.check) {
        print_summary(&s, frames, scene, tl);
        status = 0;
        goto done;
    }

    /* 4. Outputs are checked before anything is created. */
    cli.out.width = s.width;
    cli.out.height = s.height;
    cli.out.fps = s.fps;
    cli.out.first_frame = cli.start;
    cli.out.frame_count = end - cli.start;
    cli.out.warn = warn_cb;
    cli.out.warn_ctx = &cli;
    enum rp_format fmt =
        cli.out.format ? cli.out.format : rp_output_format_from_path(cli.out.path);
    if (cli.hash && (fmt == RP_FORMAT_Y4M || (fmt == RP_FORMAT_FRAMEMD5 &&
                                              !strcmp(cli.out.path, "-")))) {
        error("--hash prints to stdout, which the %s output already uses",
              rp_output_format_name(fmt));
        goto usage_fail;
    }
    if ((r = rp_output_validate(&cli.out, err, sizeof err))) {
        error("%s", err);
        goto usage_fail;
    }
    /* Side files are checked with the output, before anything is created. */
    const char *side[2] = {cli.dump_heights, cli.save_state};
    for (int i = 0; i < 2; i++)
        if (side[i] && rp_output_file_check(side[i], cli.out.overwrite, err, sizeof err)) {
            error("%s: %s", i ? "--save-state" : "--dump-heights", err);
            goto usage_fail;
        }
    int stdout_taken = fmt == RP_FORMAT_Y4M || cli.hash ||
                       (fmt == RP_FORMAT_FRAMEMD5 && !strcmp(cli.out.path, "-"));
    if (cli.progress_fd == STDOUT_FILENO && stdout_taken) {
        error("--progress-fd 1 would mix progress into the data on stdout");
        goto usage_fail;
    }

    int threads = cli.threads ? cli.threads : online_cpus();
    double need = memory_estimate(&s, fmt, cli.dump_heights != NULL, threads, tl);
    if (need > (double)cli.max_memory) {
        error("a %dx%d run to %s needs about %.1f GiB of memory, over the limit of %.1f GiB "
              "(raise it with --max-memory)",
              s.width, s.height, rp_output_format_name(fmt), need / (1 << 30),
              (double)cli.max_memory / (1 << 30));
        goto usage_fail;
    }

    /* 5. Set-up: texture, walls from masks, water, threads. */
    size_t cells = (size_t)s.width * (size_t)s.height;
    if (s.background[0]) {
        if (rp_image_load_rgb(s.background, s.width, s.height, &texture, err, sizeof err)) {
            error("%s", err);
            goto usage_fail;
        }
    } else {
        texture = malloc(cells * 3);
        if (!texture)
            goto nomem;
        rp_texture_default(texture, s.width, s.height);
    }
    rp_water_params wp = {s.width, s.height, s.stencil, s.boundary, s.damping_shift,
                          s.damping_q16};
    if ((r = rp_water_new(&water, &wp))) {
        error("cannot set up a %dx%d simulation: %s", s.width, s.height, rp_strerror(r));
        goto done;
    }
    cli.out.threads = threads;
    /* Threads start with SIGINT/SIGTERM blocked, so the main thread takes them (a signal
     * landing in the writer would interrupt its writes with EINTR). */
    sigset_t stop_set, old_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
    r = threads > 1 ? rp_pool_new(&pool, threads) : RP_OK;
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    if (r) {
        error("cannot start %d threads", threads);
        goto done;
    }
    if (cli.dump_heights &&
        rp_output_file_open(&heights_dump, cli.dump_heights, cli.out.overwrite, err, sizeof err)) {
        error("--dump-heights: %s", err);
        goto done;
    }
    if (cli.save_state &&
        rp_output_file_open(&state_file, cli.save_state, cli.out.overwrite, err, sizeof err)) {
        error("--save-state: %s", err);
        goto done;
    }
    rp_timeline_stats tstats;
    rp_timeline_stats_get(tl, &tstats);
    if (tstats.walls && rp_water_reserve_walls(water) != RP_OK)
        goto nomem;
    if ((r = masks_load(&wall_masks, tl, end, &s))) {
        status = r;
        goto done;
    }
    int64_t k0 = 0;
    if (cli.load_state &&
        (r = load_state(cli.load_state, water, &s, tl, &wall_masks, cli.start, &k0))) {
        status = r;
        goto done;
    }
    if (cli.progress_fd >= 0) {
        if (fcntl(cli.progress_fd, F_GETFD) == -1 ||
            !(progress = fdopen(dup(cli.progress_fd), "w"))) {
            error("--progress-fd %d: not an open descriptor", cli.progress_fd);
            status = EXIT_USAGE;
            goto done;
        }
    }
    if (stop_signal) {
        status = stop_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
        goto done;
    }
    if ((r = rp_output_open(&out, &cli.out, err, sizeof err))) {
        error("%s", err);
        status = r == RP_ERR_INVALID || r == RP_ERR_EXISTS ? EXIT_USAGE : EXIT_RUNTIME;
        goto done;
    }

    /* Frames go to a writer thread, so encoding overlaps simulating and rendering. */
    rp_writer_opts wo = {out, cells * 3, cells, cli.hash ? stdout : NULL, heights_dump,
                         RP_WRITER_SLOTS};
    pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
    r = rp_writer_new(&writer, &wo);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    if (r) {
        error("cannot start the writer thread");
        goto done;
    }


    rp_render_params rparams = {s.render, s.refraction, s.light_x, s.light_y, s.shading};
    int show_progress = !cli.quiet && (cli.progress || isatty(STDERR_FILENO));
    double t0 = now_seconds(), last_report = 0, last_block = 0;

    /* 6. The frame loop (SPEC.md section 3): events, step, render the written frames. */
    for (int64_t k = k0; k < end && !stop_signal; k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(tl, k, &items, &n);
        apply_items(water, items, n, 0, &wall_masks);
        rp_water_step(water, pool);
        if (k < cli.start)
            continue;
        const int16_t *h = rp_water_heights(water);
        int16_t *heights_copy;
        uint8_t *frame = rp_writer_acquire(writer, &heights_copy);
        if (!frame)
            break; /* the writer failed: rp_writer_finish says why */
        rp_render_frame(&rparams, h, s.width, s.height, texture, frame, pool);
        if (heights_copy)
            memcpy(heights_copy, h, cells * sizeof *h);
        rp_writer_submit(writer, k);
        if (progress) {
            double t = now_seconds();
            if (t - last_block >= 0.5) {
                int64_t written = k + 1 - cli.start;
                progress_block(progress, written, s.fps, written / (t - t0 + 1e-9), 0);
                last_block = t;
            }
        }
        if (show_progress) {
            double t = now_seconds();
            if (t - last_report >= 0.25 || k + 1 == end) {
                double fps = (double)(k + 1 - cli.start) / (t - t0 > 1e-9 ? t - t0 : 1e-9);
                fprintf(stderr, "\rframe %" PRId64 "/%" PRId64 "  %.1f fps  eta %.0f s   ", k + 1,
                        end, fps, (double)(end - k - 1) / (fps > 0 ? fps : 1));
                last_report = t;
            }
        }
    }
    if (show_progress)
        fputc('\n', stderr);
    if ((r = rp_writer_finish(&writer, err, sizeof err))) {
        error("%s", err);
        goto done;
    }
    if (fflush(stdout) != 0) {
        error("stdout: write failed: %s", strerror(errno));
        goto done;
    }

    /* Everything that can fail is done before the output is finished; then the output and
     * the side files are moved into place. A checkpoint is only kept for a whole run. */
    if (state_file && !stop_signal &&
        (r = write_state(state_file, water, end, rp_state_key(&s, tl, end)))) {
        status = r;
        goto done;
    }
    if (stop_signal)
        rp_output_file_abort(&state_file);
    if (rp_output_file_finish(heights_dump, err, sizeof err) ||
        rp_output_file_finish(state_file, err, sizeof err)) {
        error("%s", err);
        goto done;
    }
    int64_t written = rp_output_frames(out);
    if ((r = rp_output_close(&out, err, sizeof err))) {
        error("%s", err);
        goto done;
    }
    if (rp_output_file_commit(&heights_dump, err, sizeof err) ||
        rp_output_file_commit(&state_file, err, sizeof err)) {
        error("%s", err);
        goto done;
    }
    progress_block(progress, written, s.fps, written / (now_seconds() - t0 + 1e-9), 1);
    if (stop_signal) {
        fprintf(stderr, "rockpool: interrupted: %s holds %" PRId64 " frames\n", cli.out.path,
                written);
        status = stop_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
    } else {
        status = 0;
    }
    goto done;

nomem:
    error("out of memory");
    status = EXIT_RUNTIME;
    goto done;
usage_fail:
    status = EXIT_USAGE;
    goto done;
done:
    rp_writer_finish(&writer, err, sizeof err);
    masks_free(&wall_masks);
    if (progress)
        fclose(progress);
    rp_output_file_abort(&heights_dump);
    rp_output_file_abort(&state_file);
    rp_output_abort(&out);
    free(texture);
    rp_pool_free(&pool);
    rp_water_free(&water);
    rp_timeline_free(&tl);
    rp_scene_free(&scene);
    return status;
}
