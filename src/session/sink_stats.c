/* sink_stats.c - the --stats sink (rockpool(1) --stats): one CSV line per written frame,
 * after the header line "frame,time,energy,peak,drops":
 *   frame   the timeline index
 *   time    frame / fps in seconds (fps a ratio: 30000/1001), 6 decimals (rounded to the nearest
 * microsecond) energy  the sum of h*h over every cell of the simulation grid (h its int16 height)
 *   peak    the largest |h| of the grid
 *   drops   drops started at this frame (the timeline's drop items of the frame)
 * Integers only, so the file is the same on every machine and thread count. Written like
 * every side file: under a temporary name, moved into place with the outputs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/sink.h"
#include "base/diag.h"

/* The run's setting in messages (rp_name). */
#define STATS rp_name("--stats", "rp_run.stats")

typedef struct stats_sink {
    rp_output_file *file;
    int fps, fps_den;
    size_t (*drops)(const void *ctx, int64_t frame);
    const void *drops_ctx;
} stats_sink;

static int stats_check(const rp_sink_cfg *cfg, rp_error *err)
{
    int r = rp_output_file_check(cfg->path, cfg->overwrite, err);
    return r ? rp_error_set(err, r, err->bad_input, "%s: %s", STATS, err->msg) : RP_OK;
}

static int put(stats_sink *s, const char *text, rp_error *err)
{
    return rp_output_file_write(s->file, text, strlen(text), err);
}

static int stats_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    stats_sink *s = priv;
    s->fps = cfg->out->fps > 0 ? cfg->out->fps : 1;
    s->fps_den = cfg->out->fps_den > 0 ? cfg->out->fps_den : 1;
    s->drops = cfg->drops;
    s->drops_ctx = cfg->drops_ctx;
    int r = rp_output_file_open(&s->file, cfg->path, cfg->overwrite, err);
    if (r)
        return rp_error_set(err, r, err->bad_input, "%s: %s", STATS, err->msg);
    /* A sink whose open fails is not aborted (rp_sinks_open): the file it made goes here. */
    if ((r = put(s, "frame,time,energy,peak,drops\n", err))) {
        rp_output_file_abort(&s->file);
        return rp_error_set(err, r, err->bad_input, "%s: %s", STATS, err->msg);
    }
    return RP_OK;
}

static int stats_write(void *priv, const rp_frame *f, rp_error *err)
{
    stats_sink *s = priv;
    size_t cells = (size_t)f->grid_w * (size_t)f->grid_h;
    uint64_t energy = 0;
    int peak = 0;
    for (size_t i = 0; i < cells; i++) {
        int h = f->heights[i];
        energy += (uint64_t)((int64_t)h * h);
        if (h < 0)
            h = -h;
        if (h > peak)
            peak = h;
    }
    /* Microseconds of k * fps_den / fps, rounded half up. */
    int64_t us = (f->index * 2000000 * s->fps_den + s->fps) / (2 * (int64_t)s->fps);
    char line[160];
    snprintf(line, sizeof line, "%" PRId64 ",%" PRId64 ".%06" PRId64 ",%" PRIu64 ",%d,%zu\n",
             f->index, us / 1000000, us % 1000000, energy, peak,
             s->drops ? s->drops(s->drops_ctx, f->index) : (size_t)0);
    return put(s, line, err);
}

static int stats_finish(void *priv, rp_error *err)
{
    stats_sink *s = priv;
    return rp_output_file_finish(s->file, err);
}

static int stats_commit(void *priv, rp_error *err)
{
    stats_sink *s = priv;
    return rp_output_file_commit(&s->file, err);
}

static void stats_abort(void *priv)
{
    stats_sink *s = priv;
    rp_output_file_abort(&s->file);
}

static int stats_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    uses[0] = (rp_path_use){cfg->path, STATS, 1};
    return 1;
}

const rp_sink_kind rp_sink_stats = {
    .name = "--stats",
    .priv_size = sizeof(stats_sink),
    .wants_heights = 1,
    .check = stats_check,
    .open = stats_open,
    .write = stats_write,
    .finish = stats_finish,
    .commit = stats_commit,
    .abort = stats_abort,
    .paths = stats_paths,
};
