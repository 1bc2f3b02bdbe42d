/* session.c - the render session (rockpool.h): settings resolved once, the timeline, the
 * simulation, the background source, wall masks, checkpoints, threads, the writer and the
 * sinks, and the frame loop of rockpool(1) "FRAME LOOP": for frame k, apply its events,
 * step, and render it when start <= k < end. */
#include "rockpool.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hash.h"
#include "image.h"
#include "pool.h"
#include "render.h"
#include "sink.h"
#include "source.h"
#include "state.h"
#include "water.h"
#include "writer.h"

/* A few seconds of rain, used when no scene is given. */
static const char default_scene[] = "# rockpool's built-in scene: a few seconds of rain\n"
                                    "duration 6s\n"
                                    "at 0s..6s rain rate 5/s radius 4..10 height 300..900\n";

/* Wall masks, decoded once per distinct file before any output exists, found by the path
 * spelling the timeline uses. Spellings of one file share its pixels. */
typedef struct mask {
    const char *path;
    dev_t dev;
    ino_t ino;
    uint8_t *data;
    int owned; /* data is this entry's (not another spelling's) */
} mask;

struct rp_session {
    const rp_scene *scene;
    const rp_run *run;
    rp_settings s;
    int64_t frames, start, end;
    int threads;
    double memory;
    rp_timeline *tl;
    rp_sinks sinks;
    rp_water *water;
    rp_pool *pool;
    rp_source *background;
    rp_writer *writer;
    rp_output_file *state_file;
    mask *masks;
    size_t nmasks;
    int64_t k;       /* the next frame to simulate */
    int64_t written; /* frames handed to the sinks */
    rp_frame frame;  /* the last frame handed out */
    int started;
};

void rp_run_init(rp_run *run)
{
    memset(run, 0, sizeof *run);
    rp_settings_defaults(&run->over, RP_PRESET_ROCKPOOL);
    run->over.set = 0;
    rp_output_opts_init(&run->out);
    run->out.path = "rockpool.mp4";
    run->end = -1;
    run->threads = 1;
    run->max_memory = (int64_t)4 << 30;
}

/* Read a whole file (or stdin for "-") into memory; scenes are text, 64 MiB at most. */
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
        if (cap >= ((size_t)64 << 20)) {
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *more = realloc(buf, cap * 2);
        if (!more)
            free(buf);
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

static int diag_error(rp_error *err, int code)
{
    err->code = code;
    err->bad_input = code != RP_ERR_NOMEM;
    err->has_diag = 1;
    snprintf(err->msg, sizeof err->msg, "%s", err->diag.msg);
    return code;
}

int rp_scene_load(rp_scene **scene, const char *path, rp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *scene = NULL;
    if (path) {
        int e = read_all(path, &text, &len);
        if (e)
            return rp_error_set(err, e == EINTR ? RP_ERR_INTERRUPTED : RP_ERR_IO, 1,
                                "%s: cannot read scene: %s", strcmp(path, "-") ? path : "stdin",
                                strerror(e));
    } else if (!(text = strdup(default_scene))) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    } else {
        len = strlen(text);
    }
    memset(&err->diag, 0, sizeof err->diag);
    const char *name = !path ? "<default>" : strcmp(path, "-") ? path : "<stdin>";
    int r = rp_scene_parse(scene, text, len, name, &err->diag);
    free(text);
    return r ? diag_error(err, r) : RP_OK;
}

/* ---- resolving a run ------------------------------------------------------------------- */

/* The final settings: the preset's defaults, then the scene's, then the run's; the
 * background image's size when no size is given. */
static int resolve_settings(rp_session *se, rp_error *err)
{
    const rp_settings *ss = rp_scene_settings(se->scene), *over = &se->run->over;
    enum rp_preset preset = (over->set & RP_SET_PRESET) ? over->preset
                            : (ss->set & RP_SET_PRESET) ? ss->preset
                                                        : RP_PRESET_ROCKPOOL;
    rp_settings *s = &se->s;
    rp_settings_defaults(s, preset);
    rp_settings_merge(s, ss);
    rp_settings_merge(s, over);
    s->preset = preset;
    if (s->background[0] && !(s->set & RP_SET_SIZE)) {
        int w, h;
        if (rp_image_probe(s->background, &w, &h, err->msg, sizeof err->msg))
            return rp_error_set(err, RP_ERR_FORMAT, 1, "%s", err->msg);
        if (w > RP_MAX_SIDE || h > RP_MAX_SIDE)
            return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                                "%s: image is %dx%d, over the %d per side limit: give --size",
                                s->background, w, h, RP_MAX_SIDE);
        s->width = w;
        s->height = h;
    }
    s->water.width = s->width; /* the grid is the output size (version 1) */
    s->water.height = s->height;
    se->frames = rp_time_frames(s->time.duration, s->time.fps);
    se->start = se->run->start;
    se->end = se->run->end < 0 ? se->frames : se->run->end;
    if (se->end > se->frames)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "--end %" PRId64 " is past the last frame (the timeline has %" PRId64
                            " frames)",
                            se->end, se->frames);
    if (se->start > se->end)
        return rp_error_set(err, RP_ERR_INVALID, 1, "--start %" PRId64 " is past --end %" PRId64,
                            se->start, se->end);
    return RP_OK;
}

/* What a run will hold in memory, roughly: two height buffers, the background, the
 * writer's frame slots (and height copies), wall bookkeeping and masks, the timeline, and
 * the output's own frames (rp_output_cell_bytes). An estimate to refuse absurd runs
 * before allocating. */
static double memory_estimate(const rp_session *se, size_t distinct_masks)
{
    double cells = (double)se->s.width * se->s.height;
    int heights = rp_sinks_want_heights(&se->sinks);
    double per_cell = 2 * 2 + 3 + 3 * RP_WRITER_SLOTS + (heights ? 2 * RP_WRITER_SLOTS + 2 : 0) +
                      5 + (double)distinct_masks;
    per_cell += se->run->out.path ? rp_output_cell_bytes(&se->run->out, se->threads) : 0;
    /* --hash and --verify hash on threads, with 2 frame copies per worker (hash.h). */
    int hashers = !!se->run->hash + !!se->run->verify;
    int workers = se->threads < RP_HASHER_MAX_THREADS ? se->threads : RP_HASHER_MAX_THREADS;
    per_cell += se->threads > 1 ? (double)hashers * 2 * workers * 3 : 0;
    rp_timeline_stats ts;
    rp_timeline_stats_get(se->tl, &ts);
    return cells * per_cell + (double)(ts.drops + ts.walls) * sizeof(rp_item) + (32 << 20);
}

/* Mask files the frames 0..end-1 use, counted once per file (not per spelling). */
static size_t count_masks(const rp_session *se)
{
    size_t n = 0, cap = 0;
    struct stat *seen = NULL;
    rp_timeline_stats ts;
    rp_timeline_stats_get(se->tl, &ts);
    for (int64_t k = 0; ts.walls && k < se->end; k++) {
        const rp_item *items;
        size_t count;
        rp_timeline_frame(se->tl, k, &items, &count);
        for (size_t i = 0; i < count; i++) {
            struct stat st;
            if (items[i].kind != RP_ITEM_WALL_MASK || stat(items[i].mask_path, &st) != 0)
                continue;
            size_t j = 0;
            while (j < n && !(seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino))
                j++;
            if (j < n)
                continue;
            if (n == cap) {
                struct stat *more = realloc(seen, (cap = cap ? 2 * cap : 8) * sizeof *seen);
                if (!more)
                    break;
                seen = more;
            }
            seen[n++] = st;
        }
    }
    free(seen);
    return n;
}

/* Drops started at timeline frame k (the stats sink's column; called on the writer
 * thread: the timeline does not change once built). */
static size_t frame_drops(const void *ctx, int64_t k)
{
    const rp_item *items;
    size_t n, drops = 0;
    rp_timeline_frame(((const rp_session *)ctx)->tl, k, &items, &n);
    for (size_t i = 0; i < n; i++)
        drops += items[i].kind == RP_ITEM_DROP;
    return drops;
}

/* The sinks of the run: the encoded output, --hash lines, --dump-heights, --verify,
 * --stats. The encoded output comes first: sinks finish last-added first, so a --verify
 * difference found at the end still removes it. */
static int add_sinks(rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    rp_sink_cfg out = {.path = run->out.path, .overwrite = run->out.overwrite, .out = &run->out};
    rp_sink_cfg hash = {.stream = run->hash_to ? run->hash_to : stdout,
                        .hash_algo = run->hash_algo,
                        .threads = se->threads};
    rp_sink_cfg heights = {.path = run->dump_heights,
                           .overwrite = run->out.overwrite,
                           .cells = (size_t)se->s.width * (size_t)se->s.height};
    rp_sink_cfg verify = {.path = run->verify,
                          .out = &run->out,
                          .hash_algo = run->hash_algo,
                          .threads = se->threads,
                          .dir = run->verify_dir};
    rp_sink_cfg stats = {.path = run->stats,
                         .overwrite = run->out.overwrite,
                         .out = &run->out,
                         .drops = frame_drops,
                         .drops_ctx = se};
    if ((run->out.path && rp_sinks_add(&se->sinks, &rp_sink_output, &out)) ||
        (run->hash && rp_sinks_add(&se->sinks, &rp_sink_hash, &hash)) ||
        (run->dump_heights && rp_sinks_add(&se->sinks, &rp_sink_heights, &heights)) ||
        (run->stats && rp_sinks_add(&se->sinks, &rp_sink_stats, &stats)) ||
        (run->verify && rp_sinks_add(&se->sinks, &rp_sink_verify, &verify)))
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1, "too many outputs");
    return RP_OK;
}

/* Paths the run reads, and which option names each, for rp_paths_check. */
static int check_paths(const rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    rp_path_use uses[10];
    int n = 0;
    if (run->out.path)
        uses[n++] = (rp_path_use){run->out.path, "-o",
                                  rp_output_format_of(&run->out) == RP_FORMAT_PNG ? 2 : 1};
    if (run->dump_heights)
        uses[n++] = (rp_path_use){run->dump_heights, "--dump-heights", 1};
    if (run->stats)
        uses[n++] = (rp_path_use){run->stats, "--stats", 1};
    if (run->save_state)
        uses[n++] = (rp_path_use){run->save_state, "--save-state", 1};
    if (run->verify)
        uses[n++] = (rp_path_use){run->verify, "--verify", 0};
    if (run->load_state)
        uses[n++] = (rp_path_use){run->load_state, "--load-state", 0};
    if (se->s.background[0])
        uses[n++] = (rp_path_use){se->s.background, "the background", 0};
    const char *scene_file = rp_scene_file(se->scene);
    if (scene_file)
        uses[n++] = (rp_path_use){scene_file, "the scene", 0};
    int r = rp_paths_check(uses, n, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 1, "%s", err->msg) : RP_OK;
}

int rp_session_new(rp_session **out, const rp_scene *scene, const rp_run *run, rp_error *err)
{
    rp_session *se = calloc(1, sizeof *se);
    int r;
    *out = NULL;
    if (!se)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    se->scene = scene;
    se->run = run;
    se->threads = run->threads > 0 ? run->threads : 1;
    if ((r = resolve_settings(se, err)))
        goto fail;
    memset(&err->diag, 0, sizeof err->diag);
    if ((r = rp_timeline_build(&se->tl, scene, &se->s, se->frames, &err->diag))) {
        if (!err->diag.file[0])
            snprintf(err->diag.file, sizeof err->diag.file, "%s", rp_scene_name(scene));
        diag_error(err, r);
        goto fail;
    }
    if ((r = add_sinks(se, err)))
        goto fail;
    *out = se;
    return RP_OK;
fail:
    rp_session_free(&se);
    return r;
}

void rp_session_summary(const rp_session *se, rp_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    sum->settings = &se->s;
    sum->frames = se->frames;
    sum->start = se->start;
    sum->end = se->end;
    rp_scene_stats_get(se->scene, &sum->scene);
    rp_timeline_stats_get(se->tl, &sum->timeline);
    sum->memory = se->memory;
}

/* Everything is checked before anything is created: the outputs, the paths against each
 * other and the inputs, the memory estimate. */
static int validate(rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    int r;
    rp_output_opts *o = (rp_output_opts *)&run->out;
    o->width = se->s.width;
    o->height = se->s.height;
    o->fps = se->s.time.fps;
    o->first_frame = se->start;
    o->frame_count = se->end - se->start;
    o->threads = se->threads;
    if (!o->warn) {
        o->warn = run->warn;
        o->warn_ctx = run->warn_ctx;
    }
    if (run->hash && !run->hash_to && run->out.path && rp_output_uses_stdout(&run->out))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "--hash prints to stdout, which the %s output already uses",
                            rp_output_format_name(rp_output_format_of(&run->out)));
    if ((r = rp_sinks_check(&se->sinks, err)))
        return r;
    if (run->save_state &&
        (r = rp_output_file_check(run->save_state, run->out.overwrite, err->msg, sizeof err->msg)))
        return rp_error_set(err, r, 1, "--save-state: %s", err->msg);
    if ((r = check_paths(se, err)))
        return r;
    se->memory = memory_estimate(se, count_masks(se));
    if (se->memory > (double)run->max_memory)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "a %dx%d run to %s needs about %.1f GiB of memory, over the limit of "
                            "%.1f GiB (raise it with --max-memory)",
                            se->s.width, se->s.height,
                            run->out.path ? rp_output_format_name(rp_output_format_of(&run->out))
                                          : "hashes",
                            se->memory / (1 << 30), (double)run->max_memory / (1 << 30));
    return RP_OK;
}

/* ---- inputs ---------------------------------------------------------------------------- */

static const uint8_t *mask_find(const rp_session *se, const char *path)
{
    for (size_t i = 0; i < se->nmasks; i++)
        if (!strcmp(se->masks[i].path, path))
            return se->masks[i].data;
    return NULL;
}

/* Decode every mask the frames 0..end-1 use, once per file. */
static int load_masks(rp_session *se, rp_error *err)
{
    for (int64_t k = 0; k < se->end; k++) {
        const rp_item *items;
        size_t n;
        rp_timeline_frame(se->tl, k, &items, &n);
        for (size_t i = 0; i < n; i++) {
            const char *path = items[i].mask_path;
            if (items[i].kind != RP_ITEM_WALL_MASK || mask_find(se, path))
                continue;
            mask *more = realloc(se->masks, (se->nmasks + 1) * sizeof *more);
            if (!more)
                return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
            se->masks = more;
            mask m = {.path = path};
            struct stat st;
            if (stat(path, &st) == 0) {
                m.dev = st.st_dev;
                m.ino = st.st_ino;
                for (size_t j = 0; j < se->nmasks && !m.data; j++)
                    if (se->masks[j].dev == st.st_dev && se->masks[j].ino == st.st_ino)
                        m.data = se->masks[j].data;
            }
            if (!m.data) {
                if (rp_image_load_mask(path, se->s.width, se->s.height, &m.data, err->msg,
                                       sizeof err->msg))
                    return rp_error_set(err, RP_ERR_FORMAT, 1, "%s", err->msg);
                m.owned = 1;
            }
            se->masks[se->nmasks++] = m;
        }
    }
    return RP_OK;
}

/* Apply one frame's items to the water; walls_only skips drops (checkpoint replay). */
static void apply_items(rp_session *se, int64_t k, int walls_only)
{
    const rp_item *items;
    size_t n;
    rp_timeline_frame(se->tl, k, &items, &n);
    for (size_t i = 0; i < n; i++) {
        const rp_item *it = &items[i];
        switch (it->kind) {
        case RP_ITEM_DROP:
            if (!walls_only)
                rp_water_drop(se->water, &it->drop);
            break;
        case RP_ITEM_WALL_RECT:
            rp_water_add_wall_rect(se->water, it->x, it->y, it->w, it->h);
            break;
        case RP_ITEM_WALL_CIRCLE: rp_water_add_wall_circle(se->water, it->x, it->y, it->r); break;
        case RP_ITEM_WALL_MASK: rp_water_add_walls(se->water, mask_find(se, it->mask_path)); break;
        }
    }
}

/* Start from a checkpoint: load it, check it belongs to this run and is not past
 * --start, replay the walls of the frames it skips. */
static int load_state(rp_session *se, rp_error *err)
{
    const char *path = se->run->load_state;
    uint64_t key;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rp_error_set(err, RP_ERR_IO, 1, "%s: cannot open state: %s", path, strerror(errno));
    int r = rp_state_read(f, se->water, &se->k, &key, err->msg, sizeof err->msg);
    fclose(f);
    if (r)
        return rp_error_set(err, r, r != RP_ERR_NOMEM, "%s: %s", path, err->msg);
    if (se->k > se->start)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s: state is at frame %" PRId64 ", after --start %" PRId64, path,
                            se->k, se->start);
    if (key != rp_state_key(&se->s, se->tl, se->k))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s: state was saved from another scene or other settings", path);
    for (int64_t k = 0; k < se->k; k++)
        apply_items(se, k, 1);
    return RP_OK;
}

/* Threads start with SIGINT/SIGTERM blocked, so the caller's thread takes them (a signal
 * landing in the writer would interrupt its writes with EINTR). */
static int start_threads(rp_session *se, rp_error *err)
{
    sigset_t stop_set, old_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
    int r = se->threads > 1 ? rp_pool_new(&se->pool, se->threads) : RP_OK;
    if (r) {
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
        return rp_error_set(err, r, 0, "cannot start %d threads", se->threads);
    }
    size_t cells = (size_t)se->s.width * (size_t)se->s.height;
    se->frame = (rp_frame){.width = se->s.width,
                           .height = se->s.height,
                           .stride = (size_t)se->s.width * 3,
                           .format = RP_PIX_RGB24,
                           .grid_w = se->s.width,
                           .grid_h = se->s.height};
    rp_writer_opts wo = {&se->sinks, se->frame, cells * 3,
                         rp_sinks_want_heights(&se->sinks) ? cells : 0, RP_WRITER_SLOTS};
    r = rp_writer_new(&se->writer, &wo);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    return r ? rp_error_set(err, r, 0, "cannot start the writer thread") : RP_OK;
}

int rp_session_start(rp_session *se, rp_error *err)
{
    const rp_settings *s = &se->s;
    int r;
    if ((r = validate(se, err)))
        return r;
    if ((r = rp_source_open(&se->background, s->background, s->width, s->height, err)))
        return r;
    if ((r = rp_water_new(&se->water, &s->water)))
        return rp_error_set(err, r, 0, "cannot set up a %dx%d simulation: %s", s->width, s->height,
                            rp_strerror(r));
    rp_timeline_stats ts;
    rp_timeline_stats_get(se->tl, &ts);
    if (ts.walls && rp_water_reserve_walls(se->water) != RP_OK)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    if ((r = load_masks(se, err)))
        return r;
    if (se->run->load_state && (r = load_state(se, err)))
        return r;
    if (se->run->stop && *se->run->stop)
        return rp_error_set(err, RP_ERR_INTERRUPTED, 0, "interrupted");
    if (se->run->save_state &&
        (r = rp_output_file_open(&se->state_file, se->run->save_state, se->run->out.overwrite,
                                 err->msg, sizeof err->msg)))
        return rp_error_set(err, r, 0, "--save-state: %s", err->msg);
    if ((r = rp_sinks_open(&se->sinks, err)))
        return r;
    if ((r = start_threads(se, err)))
        return r;
    se->started = 1;
    return RP_OK;
}

/* ---- frames ---------------------------------------------------------------------------- */

int rp_session_next(rp_session *se, const rp_frame **frame, rp_error *err)
{
    *frame = NULL;
    while (se->k < se->end && !(se->run->stop && *se->run->stop)) {
        int64_t k = se->k++;
        apply_items(se, k, 0);
        rp_water_step(se->water, se->pool);
        if (k < se->start)
            continue;
        const int16_t *h = rp_water_heights(se->water);
        int16_t *heights_copy;
        uint8_t *pixels = rp_writer_acquire(se->writer, &heights_copy);
        if (!pixels) /* the writer failed: say why */
            return rp_writer_finish(&se->writer, err);
        rp_render_frame(&se->s.look, h, se->s.width, se->s.height,
                        rp_source_frame(se->background, k, se->s.time.fps), pixels, se->pool);
        if (heights_copy)
            memcpy(heights_copy, h, (size_t)se->s.width * se->s.height * sizeof *h);
        rp_writer_submit(se->writer, k);
        se->written++;
        se->frame.index = k;
        se->frame.data = pixels;
        se->frame.heights = heights_copy;
        *frame = &se->frame;
        return RP_OK;
    }
    return RP_OK;
}

int64_t rp_session_written(const rp_session *se)
{
    return se->written;
}

/* The checkpoint of frame k into its side file (moved into place with the outputs). */
static int write_state(rp_session *se, rp_error *err)
{
    uint8_t *buf;
    size_t len;
    if (rp_state_encode(se->water, se->end, rp_state_key(&se->s, se->tl, se->end), &buf, &len))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_output_file_write(se->state_file, buf, len, err->msg, sizeof err->msg);
    free(buf);
    if (!r)
        r = rp_output_file_finish(se->state_file, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

int rp_session_close(rp_session **ps, int64_t *frames, rp_error *err)
{
    rp_session *se = *ps;
    int r = rp_writer_finish(&se->writer, err);
    int stopped = se->run->stop && *se->run->stop;
    /* A checkpoint is only kept for a whole run. */
    if (!r && se->state_file && stopped)
        rp_output_file_abort(&se->state_file);
    if (!r && se->state_file)
        r = write_state(se, err);
    if (!r)
        r = rp_sinks_close(&se->sinks, frames, err);
    if (!r && (r = rp_output_file_commit(&se->state_file, err->msg, sizeof err->msg)))
        rp_error_set(err, r, 0, "%s", err->msg);
    if (r)
        rp_session_abort(ps);
    else
        rp_session_free(ps);
    return r;
}

void rp_session_abort(rp_session **ps)
{
    rp_session *se = ps ? *ps : NULL;
    rp_error ignored;
    if (!se)
        return;
    rp_writer_finish(&se->writer, &ignored);
    rp_sinks_abort(&se->sinks);
    rp_output_file_abort(&se->state_file);
    rp_session_free(ps);
}

void rp_session_free(rp_session **ps)
{
    rp_session *se = ps ? *ps : NULL;
    rp_error ignored;
    if (!se)
        return;
    rp_writer_finish(&se->writer, &ignored);
    rp_sinks_abort(&se->sinks);
    rp_output_file_abort(&se->state_file);
    for (size_t i = 0; i < se->nmasks; i++)
        if (se->masks[i].owned)
            free(se->masks[i].data);
    free(se->masks);
    rp_source_free(&se->background);
    rp_pool_free(&se->pool);
    rp_water_free(&se->water);
    rp_timeline_free(&se->tl);
    free(se);
    *ps = NULL;
}
