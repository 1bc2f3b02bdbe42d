/* rpweb.c - the playground's glue: rockpool's core (the sources of librpcore.a) compiled to
 * wasm32 with wasi-libc, driven by web/worker.js. Like tests/tools/rpcore.c it links the
 * core alone and merges the settings as the session does (the preset's defaults, the
 * scene's, then the run's: here the output size, as -s), so frame k's RGB24 bytes are the
 * bytes `rockpool SCENE -s WxH -f framemd5` hashes for frame k.
 *
 * One scene at a time. rpw_open parses and resolves a new scene; on failure the previous
 * one stays (the page keeps playing the last good water) and rpw_err_* tell why. Frames
 * are rendered in any order: a frame before the last one starts the simulation again.
 * Every exported int is 0 on success unless it says otherwise. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "look/texture.h"
#include "scene/scene.h"
#include "scene/timeline.h"
#include "engine/engine.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/* What the page holds at most: the scene's memory limit (as --max-memory) and the output
 * size (3840x2160's pixels; 4 GiB of wasm32 memory holds no more than a few frames of a
 * larger picture). */
#define WEB_MAX_MEMORY ((int64_t)1 << 30)
#define WEB_MAX_PIXELS ((int64_t)3840 * 2160)

static struct web {
    rp_scene *scene;
    rp_settings merged; /* what rp_engine_new was given, to start again */
    rp_engine *engine;
    int64_t done;      /* the last frame rendered, -1 for none */
    int width, height; /* output size */
    int img_w, img_h;  /* the background's size given to rpw_open */
    uint8_t *bg, *rgb, *rgba;
    rp_error err;
} web = {.done = -1};

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
EXPORT(rpw_bg_default) void rpw_bg_default(void);
EXPORT(rpw_render) uint8_t *rpw_render(int32_t k);
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

static void drop_run(void)
{
    rp_engine_free(&web.engine);
    rp_scene_free(&web.scene);
    free(web.bg);
    free(web.rgb);
    free(web.rgba);
    web.bg = web.rgb = web.rgba = NULL;
    web.done = -1;
}

/* Parse text (len bytes, named name in diagnostics) and resolve it at the output size
 * out_w x out_h (0x0: the scene's), given the background picture's size (0x0: none).
 * Returns 0, 2 for bad input (rpw_err_*), 1 for a runtime failure (out of memory). */
int32_t rpw_open(const char *text, int32_t len, const char *name, int32_t out_w, int32_t out_h,
                 int32_t img_w, int32_t img_h)
{
    rp_scene *scene = NULL;
    rp_engine *engine = NULL;
    rp_settings over, merged;
    uint8_t *bg = NULL, *rgb = NULL, *rgba = NULL;
    memset(&web.err, 0, sizeof web.err);
    if (len < 0 || out_w < 0 || out_h < 0 || out_w > RP_MAX_SIDE || out_h > RP_MAX_SIDE ||
        (out_w == 0) != (out_h == 0))
        return rp_error_set(&web.err, RP_ERR_INVALID, 1, "bad size %dx%d", (int)out_w, (int)out_h),
               2;
    int r = rp_scene_parse(&scene, text, (size_t)len, name, &web.err.diag);
    if (r) {
        web.err.code = r;
        web.err.has_diag = 1;
        web.err.bad_input = r != RP_ERR_NOMEM;
        rp_scene_free(&scene);
        return r == RP_ERR_NOMEM ? 1 : 2;
    }
    memset(&over, 0, sizeof over);
    if (out_w) {
        over.out_width = out_w;
        over.out_height = out_h;
        over.set |= RP_SET_OUTPUT_SIZE;
    }
    rp_settings_resolve(&merged, rp_scene_settings(scene), &over);
    if ((r = rp_engine_new(&engine, scene, &merged, img_w, img_h, WEB_MAX_MEMORY, NULL, &web.err)))
        goto fail;
    const rp_settings *s = rp_engine_settings(engine);
    if ((int64_t)s->out_width * s->out_height > WEB_MAX_PIXELS) {
        r = rp_error_set(&web.err, RP_ERR_TOO_LARGE, 1,
                         "the page renders at most 3840x2160 pixels, not %dx%d: choose a "
                         "smaller size (the command line renders any)",
                         s->out_width, s->out_height);
        goto fail;
    }
    const rp_item *mask = rp_timeline_first_mask(rp_engine_timeline(engine));
    if (mask) {
        r = rp_error_set(&web.err, RP_ERR_UNSUPPORTED, 1,
                         "the page cannot read wall masks (%s): use the command line",
                         mask->mask_path);
        goto fail;
    }
    size_t bytes = (size_t)s->out_width * (size_t)s->out_height * 3;
    bg = malloc(bytes);
    rgb = malloc(bytes);
    rgba = malloc(bytes / 3 * 4);
    if (!bg || !rgb || !rgba) {
        r = rp_error_set(&web.err, RP_ERR_NOMEM, 0, "out of memory for %dx%d frames", s->out_width,
                         s->out_height);
        goto fail;
    }
    if ((r = rp_engine_start(engine, NULL, NULL, NULL, &web.err)))
        goto fail;
    drop_run();
    web.scene = scene;
    web.merged = merged;
    web.img_w = img_w;
    web.img_h = img_h;
    web.engine = engine;
    web.width = s->out_width;
    web.height = s->out_height;
    web.bg = bg;
    web.rgb = rgb;
    web.rgba = rgba;
    rp_texture_default(bg, web.width, web.height);
    for (size_t i = 0; i < bytes / 3; i++) /* the alpha of the RGBA frame, set once */
        rgba[i * 4 + 3] = 255;
    return 0;

fail:
    free(bg);
    free(rgb);
    free(rgba);
    rp_engine_free(&engine);
    rp_scene_free(&scene);
    return web.err.bad_input ? 2 : 1;
}

/* The open run: 0 output width, 1 height, 2 frames, 3 fps numerator, 4 denominator, 5 the
 * size's width (the grid's picture before -s), 6 its height, 7 the preset, 8 1 if the
 * render is `light`, 9 1 if the scene names a sky image the page does not read (render
 * light then reflects no sky picture), 10 1 if it names a background file (the page draws
 * its own); -1 with no run. */
int32_t rpw_info(int32_t what)
{
    if (!web.engine)
        return -1;
    const rp_settings *s = rp_engine_settings(web.engine);
    switch (what) {
    case 0: return s->out_width;
    case 1: return s->out_height;
    case 2:
        return (int32_t)(rp_engine_frames(web.engine) > INT32_MAX ? INT32_MAX
                                                                  : rp_engine_frames(web.engine));
    case 3: return s->time.fps;
    case 4: return s->time.fps_den;
    case 5: return s->width;
    case 6: return s->height;
    case 7: return (int32_t)s->preset;
    case 8: return s->look.mode == RP_RENDER_LIGHT;
    case 9: return s->sky_image[0] && s->look.mode == RP_RENDER_LIGHT;
    case 10: return s->background[0] != '\0';
    default: return -1;
    }
}

/* The background, output-sized RGB24: the built-in texture after rpw_open, which the page
 * may overwrite with a picture's pixels (rendered from the next frame on). */
uint8_t *rpw_bg(void)
{
    return web.bg;
}

void rpw_bg_default(void)
{
    if (web.bg)
        rp_texture_default(web.bg, web.width, web.height);
}

/* Render frame k (0 <= k < frames) into the RGB24 frame and return it; NULL with no run,
 * k out of range, or when starting again failed (rpw_err_*). */
uint8_t *rpw_render(int32_t k)
{
    if (!web.engine || k < 0 || k >= rp_engine_frames(web.engine))
        return NULL;
    if (k < web.done) { /* back in time: the simulation from its start */
        rp_engine *e = NULL;
        memset(&web.err, 0, sizeof web.err);
        if (rp_engine_new(&e, web.scene, &web.merged, web.img_w, web.img_h, WEB_MAX_MEMORY, NULL,
                          &web.err) ||
            rp_engine_start(e, NULL, NULL, NULL, &web.err)) {
            rp_engine_free(&e);
            return NULL;
        }
        rp_engine_free(&web.engine);
        web.engine = e;
    }
    rp_engine_frame(web.engine, k, web.bg, web.rgb, NULL);
    web.done = k;
    return web.rgb;
}

/* The last frame rendered as RGBA (opaque), for a canvas's ImageData. */
uint8_t *rpw_rgba(void)
{
    if (!web.rgba)
        return NULL;
    size_t n = (size_t)web.width * (size_t)web.height;
    for (size_t i = 0; i < n; i++)
        memcpy(web.rgba + i * 4, web.rgb + i * 3, 3);
    return web.rgba;
}

/* wasi-libc has no realpath (web/wasm-include/wasi_shim.h): nothing resolves. */
char *realpath(const char *path, char *resolved)
{
    (void)path, (void)resolved;
    errno = ENOENT;
    return NULL;
}
