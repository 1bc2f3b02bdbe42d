/* sink_aov.c - --aov KIND PATH (rockpool(1) "ALPHA AND AOVS"): 16-bit PNG sequences of the
 * surface for compositing programs, written through the PNG backend (output_png.c), so
 * names, temporary files, renames and checks are those of a PNG sequence output.
 *
 *   height        output size, grey 16-bit: h + 32768 for each height h (int16), the
 *                 values --dump-heights writes; with render light the heights the light
 *                 interpolated to the output size (Q8, rounded), else the grid's own.
 *   normal        output size, RGB 16-bit: the unit normal of the slope the light uses
 *                 (light.h; rp_light_rows_surface) with x to the right, y up the frame and
 *                 z towards the viewer, each component n as round((n + 1) / 2 * 65535).
 *   displacement  output size, RGB 16-bit: an ST map (Nuke's STMap convention: s from the
 *                 left edge, t from the BOTTOM edge, both 0..1): for output pixel (x, y),
 *                 y counted down from the top, the background point the refraction samples,
 *                 (x + 0.5 + dx, y + 0.5 + dy) in pixels, as R = round(s * 65535) with
 *                 s = (x + 0.5 + dx) / W and G = round(t * 65535) with
 *                 t = 1 - (y + 0.5 + dy) / H; B = 0. Without refraction it is the identity map.
 *   caustics      output size, RGB 16-bit: per channel the gain (4096 = 1) by which look
 *                 water's bed multiplies the refracted background (the background sampled
 *                 through the displacement): the caustics' light, its ease near white and
 *                 the tint (rp_light_caustics), so plate * gain / 4096, the --alpha layer
 *                 over it, is the render (of the frame's background).
 *
 * The core renders each pass (rpcore.h's RP_PASS_HEIGHT, RP_PASS_NORMAL, ...) on the
 * session's thread into buffers that travel with the frame (rp_frame.aov); the writer
 * thread hands them to the PNG encoders here. Integers only: the files are the same on
 * every machine and thread count. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "base/diag.h"
#include "session/sink.h"

static const char *const aov_names[RP_AOV_KINDS] = {"height", "normal", "displacement", "caustics"};

int rp_aov_from_name(const char *name)
{
    for (int k = 0; k < RP_AOV_KINDS; k++)
        if (name && !strcmp(name, aov_names[k]))
            return k;
    return -1;
}

const char *rp_aov_name(enum rp_aov kind)
{
    return kind >= 0 && kind < RP_AOV_KINDS ? aov_names[kind] : "none";
}

const char *rp_aov_option(int kind)
{
    static const char *const opt[RP_AOV_KINDS] = {"--aov height", "--aov normal",
                                                  "--aov displacement", "--aov caustics"};
    static const char *const field[RP_AOV_KINDS] = {
        "rp_run.aov[RP_AOV_HEIGHT]", "rp_run.aov[RP_AOV_NORMAL]", "rp_run.aov[RP_AOV_DISPLACEMENT]",
        "rp_run.aov[RP_AOV_CAUSTICS]"};
    return kind >= 0 && kind < RP_AOV_KINDS ? rp_name(opt[kind], field[kind])
                                            : rp_name("--aov", "rp_run.aov");
}

typedef struct aov_sink {
    rp_output *out[RP_AOV_KINDS];
    rp_output_spec opts[RP_AOV_KINDS];
} aov_sink;

/* The PNG output of one kind: a copy of the run's output settings (first frame, count,
 * overwrite, level, threads, size) with the AOV's pattern and 16-bit layout. */
static void aov_opts(const rp_sink_cfg *cfg, int kind, rp_output_spec *o)
{
    *o = *cfg->out;
    o->path = cfg->aov[kind];
    o->format = RP_FORMAT_PNG;
    o->codec = o->encoder_preset = o->pix_fmt = o->hash_algo = o->audio_path = NULL;
    o->pixfmt = kind == RP_AOV_HEIGHT ? RP_PIX_GRAY16 : RP_PIX_RGB48;
}

static int aov_check(const rp_sink_cfg *cfg, rp_error *err)
{
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!cfg->aov[k])
            continue;
        /* 16-bit PNGs: a name that says another format (h_%05d.jpg) would mislead */
        const char *slash = strrchr(cfg->aov[k], '/');
        const char *dot = strrchr(slash ? slash : cfg->aov[k], '.');
        if (dot && !strchr(dot, '%') && strcasecmp(dot, ".png"))
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "%s: '%s' names %s files, but the AOVs are PNGs: end it in .png",
                                rp_aov_option(k), cfg->aov[k], dot);
        rp_output_spec o;
        aov_opts(cfg, k, &o);
        int r = rp_output_validate(&o, err);
        if (r)
            return rp_error_set(err, r, err->bad_input, "%s: %s", rp_aov_option(k), err->msg);
    }
    return RP_OK;
}

static void aov_abort(void *priv)
{
    aov_sink *a = priv;
    for (int k = 0; k < RP_AOV_KINDS; k++)
        rp_output_abort(&a->out[k]);
}

static int aov_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    aov_sink *a = priv;
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!cfg->aov[k])
            continue;
        aov_opts(cfg, k, &a->opts[k]);
        int r = rp_output_open(&a->out[k], &a->opts[k], err);
        if (r) {
            aov_abort(a);
            return rp_error_set(err, r, err->bad_input, "%s: %s", rp_aov_option(k), err->msg);
        }
    }
    return RP_OK;
}

static int aov_write(void *priv, const rp_frame *f, rp_error *err)
{
    aov_sink *a = priv;
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!a->out[k])
            continue;
        if (!f->aov[k])
            return rp_error_set(err, RP_ERR_INVALID, 0, "%s: the frame has no such pass",
                                rp_aov_option(k));
        int r = rp_output_write(a->out[k], f->index, (const uint8_t *)f->aov[k], err);
        if (r)
            return rp_error_set(err, r, err->bad_input, "%s: %s", rp_aov_option(k), err->msg);
    }
    return RP_OK;
}

/* Each PNG frame is renamed into place as it is written (as the PNG output does); finish
 * waits for the encoders. */
static int aov_finish(void *priv, rp_error *err)
{
    aov_sink *a = priv;
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        int r = rp_output_close(&a->out[k], err);
        if (r) {
            aov_abort(a);
            return rp_error_set(err, r, err->bad_input, "%s: %s", rp_aov_option(k), err->msg);
        }
    }
    return RP_OK;
}

static int aov_commit(void *priv, rp_error *err)
{
    (void)err;
    aov_abort(priv);
    return RP_OK;
}

/* Per kind its PNG encoders (the passes come with the frames: the session counts them). */
static double aov_memory(const rp_sink_cfg *cfg)
{
    double pixels = (double)cfg->out->width * cfg->out->height, per_pixel = 0;
    rp_output_spec png;
    rp_output_spec_init(&png);
    png.format = RP_FORMAT_PNG;
    for (int k = RP_AOV_NORMAL; k <= RP_AOV_CAUSTICS; k++)
        per_pixel += cfg->aov[k] ? 2 * rp_output_cell_bytes(&png, cfg->out->threads) : 0;
    per_pixel += cfg->aov[RP_AOV_HEIGHT] ? rp_output_cell_bytes(&png, cfg->out->threads) : 0;
    return pixels * per_pixel;
}

static int aov_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    int n = 0;
    for (int k = 0; k < RP_AOV_KINDS; k++)
        if (cfg->aov[k])
            uses[n++] = (rp_path_use){cfg->aov[k], rp_aov_option(k), 2};
    return n;
}

const rp_sink_kind rp_sink_aov = {
    .name = "--aov",
    .priv_size = sizeof(aov_sink),
    .wants_heights = 0,
    .check = aov_check,
    .open = aov_open,
    .write = aov_write,
    .finish = aov_finish,
    .commit = aov_commit,
    .abort = aov_abort,
    .memory = aov_memory,
    .paths = aov_paths,
};
