/* sink_aov.c - --aov KIND PATH (rockpool(1) "ALPHA AND AOVS"): 16-bit PNG sequences of the
 * surface for compositing programs, written through the PNG backend (output_png.c), so
 * names, temporary files, renames and checks are those of a PNG sequence output.
 *
 *   height        grid size, grey 16-bit: h + 32768 for each grid height h (int16), the
 *                 values --dump-heights writes.
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
 *                 over it, is the render. It needs the frame's background, which the
 *                 frames carry for it.
 *
 * The frames arrive on the writer thread with the grid's heights and, with render light,
 * the heights the render interpolated to the output size (rp_frame.heights_q8: the
 * engine's, copied with the frame, so they are not interpolated a second time); normal,
 * displacement and caustics take the slopes from the light's own code. Every kind that
 * needs them needs render light (a grid of another size than the output too), so the
 * frames always carry them then. Integers
 * only: the files are the same on every machine and thread count. */
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/diag.h"
#include "look/aov.h"
#include "look/light.h"
#include "session/sink.h"
#include "look/upscale.h"

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

typedef struct aov_sink {
    rp_output *out[RP_AOV_KINDS];
    rp_output_spec opts[RP_AOV_KINDS];
    int gw, gh, ow, oh;
    uint16_t *buf[RP_AOV_KINDS]; /* one frame of each kind */
    /* normal and displacement */
    rp_upscale *upscale;
    rp_light *light;
    rp_light_geom geom;
    rp_light_surface *band;
} aov_sink;

/* The PNG output of one kind: a copy of the run's output settings (first frame, count,
 * overwrite, level, threads) with the AOV's pattern, size and 16-bit layout. */
static void aov_opts(const rp_sink_cfg *cfg, int kind, rp_output_spec *o)
{
    const rp_settings *s = cfg->settings;
    *o = *cfg->out;
    o->path = cfg->aov[kind];
    o->format = RP_FORMAT_PNG;
    o->codec = o->encoder_preset = o->pix_fmt = o->hash_algo = o->audio_path = NULL;
    o->pixfmt = kind == RP_AOV_HEIGHT ? RP_PIX_GRAY16 : RP_PIX_RGB48;
    o->width = s->out_width;
    o->height = s->out_height;
}

static int aov_check(const rp_sink_cfg *cfg, rp_error *err)
{
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!cfg->aov[k])
            continue;
        rp_output_spec o;
        aov_opts(cfg, k, &o);
        int r = rp_output_validate(&o, err);
        if (r)
            return rp_error_set(err, r, err->bad_input, "--aov %s: %s", aov_names[k], err->msg);
    }
    return RP_OK;
}

static void aov_abort(void *priv)
{
    aov_sink *a = priv;
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        rp_output_abort(&a->out[k]);
        free(a->buf[k]);
        a->buf[k] = NULL;
    }
    rp_upscale_free(&a->upscale);
    rp_light_free(&a->light);
    free(a->band);
    a->band = NULL;
}

/* Every kind but the height at the grid's own size reads the heights at the output size. */
static int aov_wants_heights_q8(const rp_sink_cfg *cfg)
{
    const rp_settings *s = cfg->settings;
    return cfg->aov[RP_AOV_NORMAL] || cfg->aov[RP_AOV_DISPLACEMENT] || cfg->aov[RP_AOV_CAUSTICS] ||
           (cfg->aov[RP_AOV_HEIGHT] &&
            (s->water.width != s->out_width || s->water.height != s->out_height));
}

static int aov_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    aov_sink *a = priv;
    const rp_settings *s = cfg->settings;
    int r = RP_OK;
    a->gw = s->water.width;
    a->gh = s->water.height;
    a->ow = s->out_width;
    a->oh = s->out_height;
    /* every AOV is at the output size: the heights the light interpolated (for height
     * alone only when the grid is another size), with their geometry */
    int surface =
        cfg->aov[RP_AOV_NORMAL] || cfg->aov[RP_AOV_DISPLACEMENT] || cfg->aov[RP_AOV_CAUSTICS];
    if (aov_wants_heights_q8(cfg)) {
        if ((r = rp_upscale_new(&a->upscale, a->gw, a->gh, a->ow, a->oh)) ||
            (surface && (r = rp_light_new(&a->light, &s->light, err))))
            goto fail;
        a->geom = (rp_light_geom){a->ow,
                                  a->oh,
                                  rp_upscale_ratio_q16(a->gw, a->ow),
                                  rp_upscale_ratio_q16(a->gh, a->oh),
                                  rp_upscale_peak_q8(a->upscale),
                                  NULL};
        a->band = malloc((size_t)a->ow * RP_AOV_BAND * sizeof *a->band);
        if (!a->band) {
            r = RP_ERR_NOMEM;
            goto fail;
        }
    }
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!cfg->aov[k])
            continue;
        aov_opts(cfg, k, &a->opts[k]);
        size_t n = (size_t)a->opts[k].width * (size_t)a->opts[k].height *
                   (size_t)(rp_pixfmt_bytes(a->opts[k].pixfmt) / 2);
        if (!(a->buf[k] = malloc(n * sizeof *a->buf[k]))) {
            r = RP_ERR_NOMEM;
            goto fail;
        }
        if ((r = rp_output_open(&a->out[k], &a->opts[k], err))) {
            aov_abort(a);
            return rp_error_set(err, r, err->bad_input, "--aov %s: %s", aov_names[k], err->msg);
        }
    }
    return RP_OK;
fail:
    aov_abort(a);
    if (r == RP_ERR_NOMEM)
        return rp_error_set(err, r, 0, "--aov: out of memory");
    return rp_error_set(err, r, r == RP_ERR_INVALID, "--aov: %s",
                        r == RP_ERR_INVALID ? err->msg : rp_strerror(r));
}

static int aov_write(void *priv, const rp_frame *f, rp_error *err)
{
    aov_sink *a = priv;
    const int32_t *hq8 = a->upscale ? f->heights_q8 : NULL; /* a->upscale: the geometry */
    if (a->upscale && !hq8)
        return rp_error_set(err, RP_ERR_INVALID, 0, "--aov: the frame has no output-sized heights");
    if (a->buf[RP_AOV_HEIGHT])
        rp_aov_height(hq8, f->heights, (size_t)a->ow * (size_t)a->oh, a->buf[RP_AOV_HEIGHT]);
    if (a->buf[RP_AOV_CAUSTICS] && !f->background)
        return rp_error_set(err, RP_ERR_INVALID, 0, "--aov caustics: the frame has no background");
    if (a->light)
        rp_aov_surface(a->light, &a->geom, hq8, f->background, a->band, a->buf[RP_AOV_NORMAL],
                       a->buf[RP_AOV_DISPLACEMENT], a->buf[RP_AOV_CAUSTICS]);
    for (int k = 0; k < RP_AOV_KINDS; k++) {
        if (!a->out[k])
            continue;
        int r = rp_output_write(a->out[k], f->index, (const uint8_t *)a->buf[k], err);
        if (r)
            return rp_error_set(err, r, err->bad_input, "--aov %s: %s", aov_names[k], err->msg);
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
            return rp_error_set(err, r, err->bad_input, "--aov %s: %s", aov_names[k], err->msg);
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

/* Q8 heights at the output size, and per kind a 16-bit frame and its PNG encoders. */
static double aov_memory(const rp_sink_cfg *cfg)
{
    double pixels = (double)cfg->out->width * cfg->out->height, per_pixel = 0;
    rp_output_spec png;
    rp_output_spec_init(&png);
    png.format = RP_FORMAT_PNG;
    for (int k = RP_AOV_NORMAL; k <= RP_AOV_CAUSTICS; k++)
        per_pixel += cfg->aov[k] ? 6 + 2 * rp_output_cell_bytes(&png, cfg->out->threads) : 0;
    /* height: a 16-bit grey frame and its encoder */
    per_pixel += cfg->aov[RP_AOV_HEIGHT] ? 2 + rp_output_cell_bytes(&png, cfg->out->threads) : 0;
    /* the interpolated heights come with the frames (the session counts them) */
    return pixels * per_pixel;
}

static int aov_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    static const char *const opt[RP_AOV_KINDS] = {"--aov height", "--aov normal",
                                                  "--aov displacement", "--aov caustics"};
    int n = 0;
    for (int k = 0; k < RP_AOV_KINDS; k++)
        if (cfg->aov[k])
            uses[n++] = (rp_path_use){cfg->aov[k], opt[k], 2};
    return n;
}

static int aov_wants_background(const rp_sink_cfg *cfg)
{
    return cfg->aov[RP_AOV_CAUSTICS] != NULL;
}

const rp_sink_kind rp_sink_aov = {
    .name = "--aov",
    .priv_size = sizeof(aov_sink),
    .wants_heights = 1,
    .wants_background = aov_wants_background,
    .wants_heights_q8 = aov_wants_heights_q8,
    .check = aov_check,
    .open = aov_open,
    .write = aov_write,
    .finish = aov_finish,
    .commit = aov_commit,
    .abort = aov_abort,
    .memory = aov_memory,
    .paths = aov_paths,
};
