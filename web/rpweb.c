/* rpweb.c - the playground's glue: rockpool's core (the sources of librpcore.a) compiled to
 * wasm32 with wasi-libc, driven by web/worker.js through the core API (include/rpcore.h)
 * alone, as examples/core_frames.c is: the settings are merged as the program merges them
 * (the preset's defaults, the scene's, then the output size, as -s), so frame k's RGB24
 * bytes are the bytes `rockpool SCENE -s WxH -f framemd5` hashes for frame k.
 *
 * One scene at a time. rpw_open parses and resolves a new scene; on failure the previous
 * one stays (the page keeps playing the last good water) and rpw_err_* tell why. Frames
 * are rendered in any order (the core simulates again from the start to go back). A scene
 * that names a background or sky image is previewed without it (the page says so); one
 * with wall masks is refused. Every exported int is 0 on success unless it says otherwise. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpcore.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* What the page holds at most: the scene's memory limit (as --max-memory) and the output
 * size (3840x2160's pixels; 4 GiB of wasm32 memory holds no more than a few frames of a
 * larger picture). */
#define WEB_MAX_MEMORY ((int64_t)1 << 30)
#define WEB_MAX_PIXELS ((int64_t)3840 * 2160)
/* Going back in time re-simulates from the nearest of at most WEB_CHECKPOINTS checkpoints
 * of the water (WEB_CHECKPOINT_BYTES in all), evenly spaced over the timeline, as the
 * frei0r plugin keeps them, rather than from the start. */
#define WEB_CHECKPOINTS 32
#define WEB_CHECKPOINT_BYTES ((size_t)256 << 20)

static struct web {
    rp_scene *scene;
    rp_core *core;
    rp_core_info info;
    uint8_t *bg, *rgb, *rgba;
    rp_error err;
    int again; /* the last rpw_render_some stopped at its budget */
    /* where the page drew its picture (fit contain leaves bars, which are not water:
     * black in every frame, as the command line clears them); the whole frame else */
    int drawn_x, drawn_y, drawn_w, drawn_h;
} web;

EXPORT(rpw_alloc) void *rpw_alloc(int32_t n);
EXPORT(rpw_free) void rpw_free(void *p);
EXPORT(rpw_open)
int32_t rpw_open(const char *text, int32_t len, const char *name, int32_t out_w, int32_t out_h,
                 int32_t img_w, int32_t img_h);
EXPORT(rpw_err_line) int32_t rpw_err_line(void);
EXPORT(rpw_err_col) int32_t rpw_err_col(void);
EXPORT(rpw_err_msg) const char *rpw_err_msg(void);
EXPORT(rpw_err_file) const char *rpw_err_file(void);
EXPORT(rpw_err_source) const char *rpw_err_source(void);
EXPORT(rpw_info) int32_t rpw_info(int32_t what);
EXPORT(rpw_bg) uint8_t *rpw_bg(void);
EXPORT(rpw_bg_use) int32_t rpw_bg_use(void);
EXPORT(rpw_bg_drawn) int32_t rpw_bg_drawn(int32_t x, int32_t y, int32_t w, int32_t h);
EXPORT(rpw_bg_default) void rpw_bg_default(void);
EXPORT(rpw_render) uint8_t *rpw_render(int32_t k);
EXPORT(rpw_render_some) uint8_t *rpw_render_some(int32_t k, int32_t cells);
EXPORT(rpw_again) int32_t rpw_again(void);
EXPORT(rpw_progress) int32_t rpw_progress(int32_t k);
EXPORT(rpw_rgba) uint8_t *rpw_rgba(void);

void *rpw_alloc(int32_t n)
{
    return n > 0 ? malloc((size_t)n) : NULL;
}

void rpw_free(void *p)
{
    free(p);
}

/* The error of the last failed rpw_open or rpw_render: line and column (0 when it has no
 * place), the message, the file name and the offending line's text. */
int32_t rpw_err_line(void)
{
    return web.err.has_diag ? web.err.diag.line : 0;
}

int32_t rpw_err_col(void)
{
    return web.err.has_diag ? web.err.diag.col : 0;
}

const char *rpw_err_msg(void)
{
    return web.err.has_diag ? web.err.diag.msg : web.err.msg;
}

const char *rpw_err_file(void)
{
    return web.err.has_diag ? web.err.diag.file : "";
}

const char *rpw_err_source(void)
{
    return web.err.has_diag ? web.err.diag.source_line : "";
}

/* A message of the page's own, as the core's are (a runtime failure unless bad_input). */
static int fail(int code, int bad_input, const char *msg)
{
    memset(&web.err, 0, sizeof web.err);
    web.err.code = code;
    web.err.bad_input = bad_input;
    strncpy(web.err.msg, msg, sizeof web.err.msg - 1);
    return code;
}

/* Parse text (len bytes, named name in diagnostics) and resolve it at the output size
 * out_w x out_h (0x0: the scene's; out_w -2 or -4: half or a quarter of the scene's, each
 * side rounded to an even number, at least 2), given the background picture's size (0x0:
 * none). Returns 0, 2 for bad input (rpw_err_*), 1 for a runtime failure (out of memory). */
int32_t rpw_open(const char *text, int32_t len, const char *name, int32_t out_w, int32_t out_h,
                 int32_t img_w, int32_t img_h)
{
    rp_scene *scene = NULL;
    rp_core *core = NULL;
    rp_core_config cfg;
    rp_core_info info;
    uint8_t *bg = NULL, *rgb = NULL, *rgba = NULL;
    memset(&web.err, 0, sizeof web.err);
    if (len < 0)
        return fail(RP_ERR_INVALID, 1, "bad scene length"), 2;
    if (rp_scene_from_text(&scene, text, (size_t)len, name, &web.err))
        goto fail;
    rp_core_config_init(&cfg);
    cfg.width = out_w;
    cfg.height = out_h;
    cfg.image_width = img_w;
    cfg.image_height = img_h;
    cfg.max_memory = WEB_MAX_MEMORY;
    cfg.without_images = 1;
    if (out_w == -2 || out_w == -4) { /* the scene's size first (opening is light) */
        int d = -out_w;
        cfg.width = cfg.height = 0;
        if (rp_core_open(&core, scene, &cfg, &web.err))
            goto fail;
        rp_core_get_info(core, &info);
        rp_core_close(&core);
        cfg.width = (info.width + d) / (2 * d) * 2;
        cfg.height = (info.height + d) / (2 * d) * 2;
        cfg.width = cfg.width < 2 ? 2 : cfg.width;
        cfg.height = cfg.height < 2 ? 2 : cfg.height;
    }
    if (rp_core_open(&core, scene, &cfg, &web.err))
        goto fail;
    rp_core_get_info(core, &info);
    char msg[160];
    if ((int64_t)info.width * info.height > WEB_MAX_PIXELS) {
        snprintf(msg, sizeof msg,
                 "the page renders at most 3840x2160 pixels, not %dx%d: choose a smaller size "
                 "(the command line renders any)",
                 info.width, info.height);
        fail(RP_ERR_TOO_LARGE, 1, msg);
        goto fail;
    }
    if (info.needs_masks) {
        fail(RP_ERR_UNSUPPORTED, 1, "the page cannot read wall masks: use the command line");
        goto fail;
    }
    size_t bytes = (size_t)info.width * (size_t)info.height * 3;
    bg = malloc(bytes);
    rgb = malloc(bytes);
    rgba = malloc(bytes / 3 * 4);
    if (!bg || !rgb || !rgba) {
        snprintf(msg, sizeof msg, "out of memory for %dx%d frames", info.width, info.height);
        fail(RP_ERR_NOMEM, 0, msg);
        goto fail;
    }
    /* The first frame now, while the last good scene is still there: what fails when the
     * simulation starts (out of memory) keeps it playing. */
    if (info.frames > 0 &&
        rp_core_render(core, 0, RP_PASS_RENDER, rgb, (size_t)info.width * 3, &web.err))
        goto fail;
    /* none kept when they do not fit in memory: going back is then slower, not different */
    rp_core_set_checkpoints(core, WEB_CHECKPOINTS, WEB_CHECKPOINT_BYTES, NULL);
    rp_core_close(&web.core);
    rp_scene_free(&web.scene);
    free(web.bg);
    free(web.rgb);
    free(web.rgba);
    web.scene = scene;
    web.core = core;
    web.info = info;
    web.bg = bg;
    web.rgb = rgb;
    web.rgba = rgba;
    web.drawn_x = web.drawn_y = 0;
    web.drawn_w = info.width;
    web.drawn_h = info.height;
    for (size_t i = 0; i < bytes / 3; i++) /* the alpha of the RGBA frame, set once */
        rgba[i * 4 + 3] = 255;
    return 0;

fail:
    free(bg);
    free(rgb);
    free(rgba);
    rp_core_close(&core);
    rp_scene_free(&scene);
    return web.err.bad_input ? 2 : 1;
}

/* The open run: 0 output width, 1 height, 2 frames, 3 fps numerator, 4 denominator, 8 1 if
 * the render is `light`, 9 1 if the scene names a sky image the page does not read (render
 * light then reflects no sky picture), 10 1 if it names a background file (the page draws
 * its own), 11 how a picture of another aspect is fitted (0 stretch, 1 cover, 2 contain:
 * the scene's `fit`, else its preset's); -1 with no run or for another number. */
int32_t rpw_info(int32_t what)
{
    const rp_core_info *in = &web.info;
    if (!web.core)
        return -1;
    switch (what) {
    case 0: return in->width;
    case 1: return in->height;
    case 2: return (int32_t)(in->frames > INT32_MAX ? INT32_MAX : in->frames);
    case 3: return in->fps;
    case 4: return in->fps_den;
    case 8: return in->light;
    case 9: return in->needs_sky && in->light;
    case 10: return in->needs_background;
    case 11: {
        rp_settings_info si;
        rp_settings_get_info(rp_core_settings(web.core), &si);
        return si.fit;
    }
    default: return -1;
    }
}

/* The background's buffer, output-sized RGB24, for the page to fill with a picture's
 * pixels; then rpw_bg_use makes it the background (the core reads it at each frame from
 * the next one on). NULL with no run. */
uint8_t *rpw_bg(void)
{
    return web.core ? web.bg : NULL;
}

int32_t rpw_bg_use(void)
{
    if (!web.core)
        return 1;
    return rp_core_set_background(web.core, web.bg, (size_t)web.info.width * 3, RP_PIX_RGB24,
                                  &web.err)
               ? 2
               : 0;
}

/* Where the page drew the picture in the background's buffer (fit contain: the rest is
 * bars, cleared to black in every frame); the whole frame by default. 1 for a rectangle
 * outside the frame (nothing changed). */
int32_t rpw_bg_drawn(int32_t x, int32_t y, int32_t w, int32_t h)
{
    if (!web.core || x < 0 || y < 0 || w < 1 || h < 1 || x > web.info.width - w ||
        y > web.info.height - h)
        return 1;
    web.drawn_x = x;
    web.drawn_y = y;
    web.drawn_w = w;
    web.drawn_h = h;
    return 0;
}

/* The built-in texture again. */
void rpw_bg_default(void)
{
    if (web.core)
        rp_core_set_background(web.core, NULL, 0, RP_PIX_RGB24, &web.err);
    rpw_bg_drawn(0, 0, web.info.width, web.info.height);
}

/* The bars outside the drawn picture go back to black, as the command line's do. */
static void clear_bars(uint8_t *rgb)
{
    int fw = web.info.width, fh = web.info.height;
    if (web.drawn_x == 0 && web.drawn_y == 0 && web.drawn_w == fw && web.drawn_h == fh)
        return;
    for (int row = 0; row < fh; row++) {
        uint8_t *p = rgb + (size_t)row * fw * 3;
        if (row < web.drawn_y || row >= web.drawn_y + web.drawn_h) {
            memset(p, 0, (size_t)fw * 3);
            continue;
        }
        memset(p, 0, (size_t)web.drawn_x * 3);
        memset(p + (size_t)(web.drawn_x + web.drawn_w) * 3, 0,
               (size_t)(fw - web.drawn_x - web.drawn_w) * 3);
    }
}

/* Render frame k (0 <= k < frames) into the RGB24 frame and return it; NULL with no run,
 * or when the core refused (rpw_err_*: k out of range, out of memory). */
uint8_t *rpw_render(int32_t k)
{
    if (!web.core)
        return NULL;
    memset(&web.err, 0, sizeof web.err);
    if (rp_core_render(web.core, k, RP_PASS_RENDER, web.rgb, (size_t)web.info.width * 3, &web.err))
        return NULL;
    clear_bars(web.rgb);
    return web.rgb;
}

/* rpw_render with at most `cells` grid cells stepped (at least one step): a frame far from
 * the water's instant (a seek into a long scene) takes many calls, each short, so the
 * worker answers the page between them (an edit, another frame). NULL when the budget ran
 * out first (rpw_again 1: call again for this frame or a later one; the water carries on
 * from where it stopped) or the core refused (rpw_again 0, rpw_err_*). The bytes are
 * rpw_render's. */
uint8_t *rpw_render_some(int32_t k, int32_t cells)
{
    web.again = 0;
    if (!web.core)
        return NULL;
    rp_core_set_step_budget(web.core, cells > 0 ? cells : 1);
    uint8_t *p = rpw_render(k);
    rp_core_set_step_budget(web.core, 0);
    web.again = !p && web.err.code == RP_ERR_AGAIN;
    return p;
}

int32_t rpw_again(void)
{
    return web.again;
}

/* How far the water is on its way to frame k, in thousandths of frame k's steps (0..1000;
 * -1 with no run or for a frame outside the timeline). */
int32_t rpw_progress(int32_t k)
{
    if (!web.core)
        return -1;
    int64_t want = rp_core_frame_steps(web.core, k), at = rp_core_steps(web.core);
    if (want < 0)
        return -1;
    if (want == 0 || at >= want)
        return 1000;
    return (int32_t)(at * 1000 / want);
}

/* The last frame rendered as RGBA (opaque), for a canvas's ImageData. */
uint8_t *rpw_rgba(void)
{
    if (!web.rgba)
        return NULL;
    size_t n = (size_t)web.info.width * (size_t)web.info.height;
    for (size_t i = 0; i < n; i++)
        memcpy(web.rgba + i * 4, web.rgb + i * 3, 3);
    return web.rgba;
}
