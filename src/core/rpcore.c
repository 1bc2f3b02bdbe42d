/* rpcore.c - the public core API (include/rpcore.h) over the private engine (engine/engine.h):
 * settings merged as the program merges them, the engine started at the first frame, the
 * caller's background and pictures copied between its rows and the engine's packed ones,
 * the passes (look/aov.h) and checkpoints (sim/state.h) in memory. */
#include "rpcore.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "base/cpu.h"
#include "base/diag.h"
#include "base/mask.h"
#include "base/pool.h"
#include "look/aov.h"
#include "look/light.h"
#include "look/texture.h"
#include "scene/scene.h"
#include "scene/timeline.h"
#include "engine/engine.h"
#include "sim/obstacle.h"
#include "sim/state.h"

/* A public call's core and error: a NULL err takes a scratch one (the reason is dropped), a
 * NULL core is refused, RP_ERR_INVALID (bad input), nothing done, as dav1d's
 * validate_input_or_ret refuses one. */
#define CORE_ARGS(c, err)                                                                          \
    rp_error err##_scratch;                                                                        \
    if (!(err))                                                                                    \
        (err) = &err##_scratch;                                                                    \
    if (!(c))                                                                                      \
    return rp_error_set(err, RP_ERR_INVALID, 1, "%s: the core is NULL", __func__)

/* The same for a call that makes an object into *out (its own name, what): NULL out. */
#define OUT_ARGS(out, what, err)                                                                   \
    rp_error err##_scratch;                                                                        \
    if (!(err))                                                                                    \
        (err) = &err##_scratch;                                                                    \
    if (!(out))                                                                                    \
    return rp_error_set(err, RP_ERR_INVALID, 1, "%s: the %s pointer is NULL", __func__, what)

unsigned rp_core_version(void)
{
    return RP_CORE_VERSION;
}

int rp_scene_from_text(rp_scene **scene, const char *text, size_t len, const char *filename,
                       rp_error *err)
{
    OUT_ARGS(scene, "scene", err);
    *scene = NULL;
    if (!text) {
        text = rp_scene_builtin();
        len = strlen(text);
    }
    return rp_scene_parse(scene, text, len, filename ? filename : "<scene>", err);
}

int rp_settings_parse(rp_settings **settings, const char *text, const char *name, rp_error *err)
{
    rp_scene *scene = NULL;
    rp_scene_stats st;
    OUT_ARGS(settings, "settings", err);
    *settings = NULL;
    if (!text)
        return rp_error_set(err, RP_ERR_INVALID, 1, "no settings text");
    int r = rp_scene_parse(&scene, text, strlen(text), name ? name : "<settings>", err);
    if (r)
        return r;
    rp_scene_stats_get(scene, &st);
    if (st.drops || st.rains || st.strokes || st.walls) {
        rp_scene_free(&scene);
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s: settings only, not events",
                            name ? name : "<settings>");
    }
    if (!(*settings = malloc(sizeof **settings))) {
        rp_scene_free(&scene);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    **settings = *rp_scene_settings(scene);
    rp_scene_free(&scene);
    return RP_OK;
}

void rp_settings_free(rp_settings **settings)
{
    if (settings) {
        free(*settings);
        *settings = NULL;
    }
}

void rp_core_config_init(rp_core_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->threads = 1;
    cfg->background_format = RP_PIX_RGB24;
}

/* A wall mask the caller decoded: path is the timeline's (the scene's) string. */
typedef struct core_mask {
    const char *path;
    uint8_t *cells, *rgb;
    dev_t dev; /* the file (known: 1), so that spellings of one file share its pixels */
    ino_t ino;
    int known, owned; /* owned: cells and rgb are this entry's, not another spelling's */
} core_mask;

struct rp_core {
    const rp_scene *scene;
    rp_settings merged; /* the preset's, the scene's and the caller's, before resolving */
    int64_t max_memory;
    int image_w, image_h;    /* the caller's picture's size (rp_core_config) */
    int without_images;      /* a scene's background and sky images are left out */
    int allow_outside_paths; /* rp_core_config's */
    int checkpoint_images;   /* rp_core_config's */
    int stale;               /* the water is a refused checkpoint's: made again first */
    int inputs_known;        /* inputs holds the digest of the checkpoints' inputs */
    uint64_t inputs;
    rp_core_info info;
    int threads;
    rp_pool *pool;
    rp_engine *engine;
    int started; /* the engine's simulation and renderer exist */
    /* the caller's background (NULL: the built-in texture) */
    const uint8_t *bg_data;
    size_t bg_stride;
    enum rp_pixfmt bg_format;
    uint8_t *bg;        /* the background when it is copied: output-sized RGB24 */
    const uint8_t *bgp; /* the background as the engine reads it: bg, or the caller's own
                         * rows when they are packed RGB24 */
    int bg_texture;     /* bg holds the built-in texture */
    uint8_t *pix;       /* a picture rendered here before its rows go to the caller */
    uint16_t *pass;     /* a 16-bit pass, output-sized RGB48 */
    /* the frame and steps the engine last rendered (its heights_q8), or shown_k -1 */
    int64_t shown_k, shown_steps;
    rp_light *aov_light; /* the passes' light, made from the settings as --aov makes it */
    rp_light_surface *band;
    /* rp_core_set_light: per knob, whether set and its value */
    int light_set[4];
    int32_t light_value[4];
    /* rp_core_set_checkpoints: slot j holds the water after j * interval steps when
     * saved[j] (slots 0: none kept) */
    int64_t interval;
    int slots;
    int16_t *slot_heights;
    uint8_t *saved;
    int64_t budget; /* rp_core_set_step_budget's cells; 0: none */
    /* The water where a seek under the budget stopped (RP_ERR_AGAIN), at resume_at steps
     * (-1: none): a later call for a time at or past it goes on from there, so that calls
     * alternating between an early and a late time still reach the late one. */
    int16_t *resume;
    int64_t resume_at;
    volatile sig_atomic_t *stop; /* rp_core_config's */
    /* rp_core_set_images: the caller's decoder, and what it gave: per mask path its cells
     * (grid-sized, 1 = wall) and with `walls visible image` its picture; the sky */
    rp_core_image_fn image_fn;
    void *image_ctx;
    core_mask *masks;
    size_t nmasks;
    uint8_t *sky;
};

/* Whether rows rows of row bytes, stride bytes apart from data on, lie within the address
 * space: a stride of a negative value cast to size_t (a bottom-up picture's) would
 * otherwise wrap around and reach memory before data. */
static int picture_fits(const void *data, size_t stride, size_t row, int rows)
{
    if (rows <= 1)
        return (uintptr_t)data <= UINTPTR_MAX - row;
    if (stride > (SIZE_MAX - row) / (size_t)(rows - 1))
        return 0;
    return (uintptr_t)data <= UINTPTR_MAX - (stride * (size_t)(rows - 1) + row);
}

/* A background of fmt with rows of stride bytes, at the output's size. */
static int check_background(const uint8_t *data, size_t stride, enum rp_pixfmt fmt, int width,
                            int height, rp_error *err)
{
    if (!data)
        return RP_OK;
    if (fmt != RP_PIX_RGB24 && fmt != RP_PIX_RGBA)
        return rp_error_set(err, RP_ERR_INVALID, 1, "the background is neither RGB24 nor RGBA");
    size_t row = (size_t)width * (fmt == RP_PIX_RGBA ? 4 : 3);
    if (stride < row)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the background's stride %zu is shorter than a row of %d pixels",
                            stride, width);
    if (!picture_fits(data, stride, row, height))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the background's stride %zu is too large: its %d rows would run past "
                            "the end of memory (a negative stride?)",
                            stride, height);
    return RP_OK;
}

int rp_core_open(rp_core **out, const rp_scene *scene, const rp_core_config *cfg, rp_error *err)
{
    rp_core_config defaults;
    OUT_ARGS(out, "core", err);
    *out = NULL;
    if (!cfg) {
        rp_core_config_init(&defaults);
        cfg = &defaults;
    }
    if (!scene)
        return rp_error_set(err, RP_ERR_INVALID, 1, "no scene");
    if ((cfg->width || cfg->height) && (cfg->width < 1 || cfg->height < 1 ||
                                        cfg->width > RP_MAX_SIDE || cfg->height > RP_MAX_SIDE))
        return rp_error_set(err, RP_ERR_INVALID, 1, "the size %dx%d is outside 1..%d a side",
                            cfg->width, cfg->height, RP_MAX_SIDE);
    if (cfg->image_width < 0 || cfg->image_height < 0 || !cfg->image_width != !cfg->image_height)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the picture's size %dx%d: give both sides (1 or more) or neither",
                            cfg->image_width, cfg->image_height);
    if (cfg->footage_frames < 0 || cfg->footage_frames > RP_FRAMES_MAX)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "footage_frames %" PRId64 " is outside 0..%" PRId64 " (0: the scene's)",
                            cfg->footage_frames, RP_FRAMES_MAX);
    if (cfg->threads < 0 || cfg->threads > 256)
        return rp_error_set(err, RP_ERR_INVALID, 1, "threads %d is outside 0..256", cfg->threads);
    if (cfg->max_memory < 0) /* 0 is no limit; a negative one is no limit of any kind */
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "max_memory %" PRId64 " is negative (0: no limit)", cfg->max_memory);
    if (cfg->background && !cfg->width)
        return rp_error_set(err, RP_ERR_INVALID, 1, "a background needs the output size");
    if (check_background(cfg->background, cfg->background_stride, cfg->background_format,
                         cfg->width, cfg->height, err))
        return err->code;
    rp_core *c = calloc(1, sizeof *c);
    if (c)
        c->resume_at = -1;
    if (!c)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    c->scene = scene;
    c->threads = cfg->threads ? cfg->threads : rp_online_cpus();
    c->max_memory = cfg->max_memory > 0 ? cfg->max_memory : INT64_MAX;
    c->bg_data = cfg->background;
    c->bg_stride = cfg->background_stride;
    c->bg_format = cfg->background_format;
    c->image_w = cfg->image_width;
    c->image_h = cfg->image_height;
    c->without_images = cfg->without_images != 0;
    c->allow_outside_paths = cfg->allow_outside_paths != 0;
    c->checkpoint_images = cfg->checkpoint_images != 0;
    c->shown_k = -1;
    c->stop = cfg->stop;

    /* The settings as the program merges them: the preset's defaults, the scene's, the
     * caller's (whose preset wins), and the size as -s gives it. */
    rp_settings_resolve(&c->merged, rp_scene_settings(scene), cfg->over);
    if (cfg->width) {
        c->merged.out_width = cfg->width;
        c->merged.out_height = cfg->height;
        c->merged.set |= RP_SET_OUTPUT_SIZE;
    }
    /* a video background's length, where the scene gives none or asks for it */
    if (cfg->footage_frames &&
        (!(c->merged.set & RP_SET_DURATION) || c->merged.time.duration_background)) {
        c->merged.time.duration = (rp_time){cfg->footage_frames, 1};
        c->merged.set |= RP_SET_DURATION;
    }
    int r = rp_engine_new(&c->engine, scene, &c->merged, c->image_w, c->image_h, c->max_memory,
                          c->stop, err);
    if (r) {
        rp_core_close(&c);
        return r;
    }

    const rp_settings *s = rp_engine_settings(c->engine);
    const rp_clock *clock = rp_engine_clock(c->engine);
    rp_core_info *in = &c->info;
    in->width = s->out_width;
    in->height = s->out_height;
    in->grid_w = s->water.width;
    in->grid_h = s->water.height;
    in->frames = rp_engine_frames(c->engine);
    in->steps = rp_engine_items_length(c->engine);
    in->fps = clock->fps;
    in->fps_den = clock->fps_den;
    in->light = s->look.mode == RP_RENDER_LIGHT;
    in->needs_background = s->background[0] != '\0';
    in->needs_sky = s->sky_image[0] != '\0';
    size_t first = 0;
    in->needs_masks = rp_scene_next_mask(scene, &first) != NULL;
    *out = c;
    return RP_OK;
}

void rp_core_get_info(const rp_core *c, rp_core_info *info)
{
    if (info)
        *info = c ? c->info : (rp_core_info){0};
}

int rp_core_set_images(rp_core *c, rp_core_image_fn fn, void *ctx, rp_error *err)
{
    CORE_ARGS(c, err);
    if (c->started)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the images' decoder is set before the first frame");
    c->image_fn = fn;
    c->image_ctx = ctx;
    return RP_OK;
}

int rp_core_set_background(rp_core *c, const uint8_t *data, size_t stride, enum rp_pixfmt format,
                           rp_error *err)
{
    CORE_ARGS(c, err);
    if (check_background(data, stride, format, c->info.width, c->info.height, err))
        return err->code;
    c->bg_data = data;
    c->bg_stride = stride;
    c->bg_format = format;
    return RP_OK;
}

/* The pixels of the wall mask at path (rp_mask_fn), and its picture in *rgb. */
static const uint8_t *mask_of(void *ctx, const char *path, const uint8_t **rgb)
{
    const rp_core *c = ctx;
    for (size_t i = 0; i < c->nmasks; i++)
        if (!strcmp(c->masks[i].path, path)) {
            *rgb = c->masks[i].rgb;
            return c->masks[i].cells;
        }
    *rgb = NULL;
    return NULL;
}

/* Start engine e with the caller's masks and sky, and the shapes of its moving masks. */
static int start_engine(rp_core *c, rp_engine *e, rp_error *err)
{
    int r = rp_engine_start(e, c->pool, mask_of, c, err);
    if (!r && c->sky)
        rp_engine_set_sky(e, c->sky);
    if (!r && c->nmasks)
        r = rp_engine_shapes(e, err);
    return r;
}

/* A fresh engine of the core's settings, started when the core's is. */
static int new_engine(rp_core *c, rp_engine **e, rp_error *err)
{
    int r =
        rp_engine_new(e, c->scene, &c->merged, c->image_w, c->image_h, c->max_memory, c->stop, err);
    if (!r && c->started)
        r = start_engine(c, *e, err);
    if (r)
        rp_engine_free(e);
    return r;
}

/* err's reason (code) after prefix, placed at the statement at (NULL: the scene's name
 * alone). */
static int place_error(const rp_core *c, const rp_diag *at, const char *prefix, int code,
                       rp_error *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s%.900s", prefix, err->msg);
    if (code == RP_ERR_NOMEM)
        return rp_error_set(err, code, 0, "%s", msg);
    memset(&err->diag, 0, sizeof err->diag);
    if (at)
        err->diag = *at;
    else
        snprintf(err->diag.file, sizeof err->diag.file, "%s", rp_scene_name(c->scene));
    snprintf(err->diag.msg, sizeof err->diag.msg, "%.500s", msg);
    return rp_error_diag(err, code);
}

/* The error for an image the core cannot decode, at the statement that names it. */
static int image_error(const rp_core *c, const rp_diag *at, rp_error *err, const char *fmt,
                       const char *what, const char *path)
{
    rp_error_set(err, RP_ERR_UNSUPPORTED, 1, fmt, what, path);
    return place_error(c, at, "", RP_ERR_UNSUPPORTED, err);
}

/* The place of the wall mask path (NULL: any) in the first statement naming it, and its event
 * (NULL, and the scene's name alone, when none does). */
static const rp_event *mask_place(const rp_core *c, const char *path, rp_diag *at)
{
    size_t i = 0;
    const rp_event *ev;
    memset(at, 0, sizeof *at);
    snprintf(at->file, sizeof at->file, "%s", rp_scene_name(c->scene));
    while ((ev = rp_scene_next_mask(c->scene, &i)) && path && strcmp(ev->path, path))
        ;
    if (ev) {
        at->line = ev->line;
        at->col = ev->path_col;
        snprintf(at->source_line, sizeof at->source_line, "%.*s", (int)ev->text_len, ev->text);
    }
    return ev;
}

/* The caller's decoding of path for use at w x h into a new RGB24 picture *out. */
static int decode(rp_core *c, const char *path, enum rp_image_use use, int w, int h, uint8_t **out,
                  rp_error *err)
{
    uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!rgb)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    err->msg[0] = '\0';
    int r = c->image_fn(c->image_ctx, path, use, w, h, rgb, err);
    if (r) {
        free(rgb);
        if (!err->msg[0])
            rp_error_set(err, r, r != RP_ERR_NOMEM, "cannot decode the image '%.200s'", path);
        return r;
    }
    *out = rgb;
    return RP_OK;
}

static void free_masks(rp_core *c)
{
    for (size_t i = 0; i < c->nmasks; i++)
        if (c->masks[i].owned) {
            free(c->masks[i].cells);
            free(c->masks[i].rgb);
        }
    free(c->masks);
    c->masks = NULL;
    c->nmasks = 0;
}

/* stat() of path: 0 and *st, or -1 with errno. The WebAssembly build asks no file system
 * (its page gives none, and wasi-libc's stat would import preopened directories): there
 * every path is a file of its own, which the caller's decoder reads or refuses. */
static int file_stat(const char *path, struct stat *st)
{
#ifdef __wasi__
    static ino_t next;
    memset(st, 0, sizeof *st);
    st->st_ino = ++next;
    (void)path;
    return 0;
#else
    return stat(path, st);
#endif
}

/* Every wall mask the timeline's frames use, decoded by the caller once per file (its
 * spellings share it, as rp_core_image_costs counts it): its cells, and its picture with
 * `walls visible image`. */
static int load_masks(rp_core *c, rp_error *err)
{
    const rp_settings *s = rp_engine_settings(c->engine);
    const rp_timeline *tl = rp_engine_timeline(c->engine);
    rp_timeline_stats ts;
    rp_timeline_stats_get(tl, &ts);
    const int picture = s->walls_visible == RP_WALLS_IMAGE && ts.walls;
    const size_t cells = (size_t)c->info.grid_w * (size_t)c->info.grid_h;
    const rp_item *items;
    size_t n;
    rp_timeline_span(tl, 0, rp_engine_items_length(c->engine), &items, &n);
    for (size_t i = 0; i < n; i++) {
        const char *path = rp_item_mask(&items[i]);
        const uint8_t *known;
        if (!path || mask_of(c, path, &known))
            continue;
        core_mask *more = realloc(c->masks, (c->nmasks + 1) * sizeof *more);
        if (!more)
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        c->masks = more;
        core_mask m = {.path = path, .owned = 1};
        struct stat st;
        if (file_stat(path, &st) == 0) {
            m.known = 1;
            m.dev = st.st_dev;
            m.ino = st.st_ino;
        }
        size_t same = 0; /* another spelling of the same file, decoded already */
        while (same < c->nmasks && !(m.known && c->masks[same].known &&
                                     c->masks[same].dev == m.dev && c->masks[same].ino == m.ino))
            same++;
        if (same < c->nmasks) {
            m.cells = c->masks[same].cells;
            m.rgb = c->masks[same].rgb;
            m.owned = 0;
            c->masks[c->nmasks++] = m;
            continue;
        }
        int r = decode(c, path, RP_IMAGE_WALL_MASK, c->info.grid_w, c->info.grid_h, &m.cells, err);
        for (size_t j = 0; !r && j < cells; j++) /* in place: cell j reads bytes 3j.. */
            m.cells[j] = (uint8_t)rp_mask_is_wall(m.cells + 3 * j);
        if (!r) { /* a byte a cell is kept */
            uint8_t *fit = realloc(m.cells, cells);
            m.cells = fit ? fit : m.cells;
        }
        if (!r && picture)
            r = decode(c, path, RP_IMAGE_WALL_PICTURE, c->info.width, c->info.height, &m.rgb, err);
        if (r) {
            free(m.cells);
            rp_diag at;
            mask_place(c, path, &at);
            return place_error(c, &at, "", r, err);
        }
        c->masks[c->nmasks++] = m;
    }
    return RP_OK;
}

#define IMAGE_NONE "the %s '%.200s' is an image, and the core decodes no images"

/* The workers, with SIGINT and SIGTERM blocked (wasm32 has neither threads nor signal
 * masks). */
static int new_pool(rp_core *c)
{
#ifdef __wasi__
    return rp_pool_new(&c->pool, c->threads);
#else
    sigset_t stop_set, old_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
    int r = rp_pool_new(&c->pool, c->threads);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    return r;
#endif
}

/* Before the first frame: refuse what needs an image the core cannot decode, then
 * allocate the simulation, the renderer and the buffers. The workers block SIGINT and
 * SIGTERM, so that the caller's handlers run on the caller's threads. */
static int start(rp_core *c, int frame, rp_error *err)
{
    const rp_core_info *in = &c->info;
    const rp_settings *s = rp_engine_settings(c->engine);
    /* the background is given frame by frame: its absence is refused at a frame */
    const int no_background = frame && in->needs_background && !c->bg_data && !c->without_images;
    if (c->started && !no_background)
        return RP_OK;
    if (no_background && c->started)
        return image_error(c, rp_scene_background_at(c->scene), err,
                           IMAGE_NONE ": give the background's pixels (rp_core_config)",
                           "background", s->background);
    const int sky = in->needs_sky && in->light && (c->image_fn || !c->without_images);
    if (c->image_fn && (in->needs_masks || sky) && !c->allow_outside_paths) {
        const rp_diag *outside = rp_scene_outside_path(c->scene, 0);
        if (outside) {
            err->diag = *outside;
            return rp_error_diag(err, RP_ERR_INVALID);
        }
    }
    if (in->needs_masks && !c->image_fn) {
        rp_diag at;
        const rp_event *ev = mask_place(c, NULL, &at);
        return image_error(c, &at, err, IMAGE_NONE ": decode it (rp_core_set_images)", "wall mask",
                           ev ? ev->path : "?");
    }
    if (no_background)
        return image_error(c, rp_scene_background_at(c->scene), err,
                           IMAGE_NONE ": give the background's pixels (rp_core_config)",
                           "background", s->background);
    if (sky && !c->image_fn)
        return image_error(c, rp_scene_sky_at(c->scene), err,
                           IMAGE_NONE ": decode it (rp_core_set_images)", "sky image",
                           s->sky_image);
    int r;
    if (c->image_fn && !c->nmasks && (r = load_masks(c, err))) {
        free_masks(c); /* a later call asks for every mask again */
        return r;
    }
    if (sky && !c->sky &&
        (r = decode(c, s->sky_image, RP_IMAGE_SKY, in->width, in->height, &c->sky, err)))
        return place_error(c, rp_scene_sky_at(c->scene), "sky image: ", r, err);
    if (c->threads > 1 && !c->pool && new_pool(c)) {
        c->pool = NULL; /* no threads to be had: the caller's thread alone (the same bytes) */
        c->threads = 1;
    }
    if ((r = start_engine(c, c->engine, err)))
        return r;
    c->started = 1;
    return RP_OK;
}

int rp_core_start(rp_core *c, rp_error *err)
{
    CORE_ARGS(c, err);
    return start(c, 0, err);
}

/* Rows y0..y1-1 of the caller's background into c->bg. */
static void background_rows(void *ctx, int y0, int y1)
{
    const rp_core *c = ctx;
    const size_t w = (size_t)c->info.width;
    for (int y = y0; y < y1; y++) {
        const uint8_t *restrict src = c->bg_data + (size_t)y * c->bg_stride;
        uint8_t *restrict dst = c->bg + (size_t)y * w * 3;
        if (c->bg_format == RP_PIX_RGB24) {
            memcpy(dst, src, w * 3);
            continue;
        }
        for (size_t x = 0; x < w; x++) {
            dst[3 * x] = src[4 * x];
            dst[3 * x + 1] = src[4 * x + 1];
            dst[3 * x + 2] = src[4 * x + 2];
        }
    }
}

/* The background of this frame into c->bg: the caller's rows (read now: they may have
 * changed since the last frame), else the built-in texture, drawn once. */
static int fill_background(rp_core *c, rp_error *err)
{
    if (c->bg_data && c->bg_format == RP_PIX_RGB24 && c->bg_stride == (size_t)c->info.width * 3) {
        c->bgp = c->bg_data; /* read in place */
        c->bg_texture = 0;
        return RP_OK;
    }
    if (!c->bg && !(c->bg = malloc((size_t)c->info.width * (size_t)c->info.height * 3)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    c->bgp = c->bg;
    if (!c->bg_data) {
        if (!c->bg_texture)
            rp_texture_default(c->bg, c->info.width, c->info.height);
        c->bg_texture = 1;
        return RP_OK;
    }
    c->bg_texture = 0;
    rp_pool_run(c->pool, c->info.height, background_rows, c);
    return RP_OK;
}

/* RP_PASS_RENDER_RGBA: the render c->pix to RGBA rows, with the background's alpha. */
typedef struct rgba_job {
    const rp_core *c;
    uint8_t *dst;
    size_t stride;
} rgba_job;

static void rgba_rows(void *ctx, int y0, int y1)
{
    const rgba_job *j = ctx;
    const rp_core *c = j->c;
    const size_t w = (size_t)c->info.width;
    const int alpha = c->bg_data && c->bg_format == RP_PIX_RGBA;
    for (int y = y0; y < y1; y++) {
        const uint8_t *restrict rgb = c->pix + (size_t)y * w * 3;
        const uint8_t *a = alpha ? c->bg_data + (size_t)y * c->bg_stride + 3 : NULL;
        uint8_t *dst = j->dst + (size_t)y * j->stride; /* may be the background's row */
        for (size_t x = 0; x < w; x++) {
            uint8_t av = a ? a[4 * x] : 255; /* read before the pixel is written */
            dst[4 * x] = rgb[3 * x];
            dst[4 * x + 1] = rgb[3 * x + 1];
            dst[4 * x + 2] = rgb[3 * x + 2];
            dst[4 * x + 3] = av;
        }
    }
}

/* Bytes of a row of pass and the rows of its picture. */
static size_t pass_row(const rp_core *c, enum rp_pass pass, int *rows)
{
    int w = c->info.width;
    *rows = c->info.height;
    switch (pass) {
    case RP_PASS_RENDER: return (size_t)w * 3;
    case RP_PASS_RENDER_RGBA:
    case RP_PASS_LIGHT:
    case RP_PASS_LIGHT_PREMULTIPLIED: return (size_t)w * 4;
    case RP_PASS_HEIGHT:
        if (!c->info.light) {
            *rows = c->info.grid_h;
            return (size_t)c->info.grid_w * 2;
        }
        return (size_t)w * 2;
    case RP_PASS_NORMAL:
    case RP_PASS_DISPLACEMENT:
    case RP_PASS_CAUSTICS: return (size_t)w * 6;
    }
    return 0;
}

/* Rows of a packed picture into the caller's. */
static void copy_rows(void *dst, size_t stride, const void *src, size_t row, int rows)
{
    for (int y = 0; y < rows; y++)
        memcpy((uint8_t *)dst + (size_t)y * stride, (const uint8_t *)src + (size_t)y * row, row);
}

/* A scratch picture of the largest kind, RGB48 at the output size, at its first use. */
static void *scratch(rp_core *c, rp_error *err)
{
    size_t bytes = (size_t)c->info.width * (size_t)c->info.height * 6;
    if (!c->pass && !(c->pass = malloc(bytes)))
        rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    return c->pass;
}

/* The RGB24 picture c->pix, allocated at its first use. */
static uint8_t *pixels(rp_core *c, rp_error *err)
{
    if (!c->pix && !(c->pix = malloc((size_t)c->info.width * (size_t)c->info.height * 3)))
        rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    return c->pix;
}

/* The frame's render into c->pix, unless the engine rendered this frame at these steps last
 * (the passes of render light read the heights it interpolated then). */
static int ensure_shown(rp_core *c, int64_t k, rp_error *err)
{
    int64_t steps = rp_engine_steps(c->engine);
    if (c->shown_k == k && c->shown_steps == steps)
        return RP_OK;
    if (!pixels(c, err))
        return err->code;
    if (fill_background(c, err))
        return err->code;
    rp_engine_frame(c->engine, k, c->bgp, c->pix, NULL);
    c->shown_k = k;
    c->shown_steps = steps;
    return RP_OK;
}

/* Rows of the surface passes, on a pool thread with its own band. */
typedef struct surface_job {
    const rp_core *c;
    const rp_light_geom *geom;
    const int32_t *hq8;
    uint16_t *out[3]; /* normal, displacement, caustics: RGB48 rows packed, or NULL */
} surface_job;

static void surface_rows(void *ctx, int worker, int y0, int y1)
{
    const surface_job *j = ctx;
    const rp_core *c = j->c;
    rp_aov_surface_rows(c->aov_light, j->geom, j->hq8, c->bgp,
                        c->band + (size_t)worker * (size_t)c->info.width * RP_AOV_BAND, j->out[0],
                        j->out[1], j->out[2], y0, y1);
}

/* The surface passes of the frame the engine rendered last, out[i] for RP_PASS_NORMAL + i
 * (NULL: not wanted; packed rows), worked out once for all of them, rows shared among the
 * threads: a light made from the settings (as --aov makes its own), a band a thread. */
static int surface_passes(rp_core *c, uint16_t *const out[3], rp_error *err)
{
    const rp_settings *s = rp_engine_settings(c->engine);
    const size_t workers = c->pool ? (size_t)rp_pool_threads(c->pool) : 1;
    rp_light_geom geom;
    if (!c->aov_light) {
        int r = rp_light_new(&c->aov_light, &s->light, err);
        if (r)
            return r;
    }
    if (!c->band &&
        !(c->band = malloc(workers * (size_t)c->info.width * RP_AOV_BAND * sizeof *c->band)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    surface_job job = {c, &geom, rp_engine_heights_q8(c->engine, &geom), {out[0], out[1], out[2]}};
    if (out[2] && fill_background(c, err))
        return err->code;
    rp_pool_run_w(c->pool, c->info.height, surface_rows, &job);
    return RP_OK;
}

/* One surface pass into dst: in place when its rows are packed, else through scratch. */
static int surface_pass(rp_core *c, enum rp_pass pass, void *dst, size_t stride, rp_error *err)
{
    const size_t row = (size_t)c->info.width * 6;
    uint16_t *out[3] = {NULL, NULL, NULL};
    uint16_t *pic = stride == row ? dst : scratch(c, err);
    if (!pic)
        return err->code;
    out[pass - RP_PASS_NORMAL] = pic;
    int r = surface_passes(c, out, err);
    if (!r && pic != dst)
        copy_rows(dst, stride, pic, row, c->info.height);
    return r;
}

/* The caller's light knobs over the engine's light, for the next frame. */
static void apply_light(rp_core *c)
{
    static const enum rp_key_what what[4] = {RP_KEY_DEPTH, RP_KEY_AZIMUTH, RP_KEY_ELEVATION,
                                             RP_KEY_CAUSTICS};
    int32_t strength = rp_engine_settings(c->engine)->strength_milli;
    for (int i = 0; i < 4; i++) {
        int32_t v = c->light_value[i];
        if (i == RP_LIGHT_CAUSTICS) /* as the scene's caustics, under the run's strength */
            v = rp_strength_caustics(v, strength);
        rp_engine_light_override(c->engine, what[i], c->light_set[i], v);
    }
}

static int16_t *slot_at(rp_core *c, int64_t j)
{
    return (int16_t *)((uint8_t *)c->slot_heights +
                       (size_t)j * rp_engine_checkpoint_bytes(c->engine));
}

/* Simulate to `target` steps, keeping each checkpoint passed on the way. Returns 1 when
 * the caller's stop flag stopped it, else 0. */
static int advance(rp_core *c, int64_t target)
{
    rp_engine *e = c->engine;
    for (;;) {
        int64_t at = rp_engine_steps(e);
        if (!c->slots)
            return rp_engine_advance(e, target, c->stop);
        int64_t j = at / c->interval;
        if (at % c->interval == 0 && j < c->slots && !c->saved[j]) {
            rp_engine_checkpoint_save(e, slot_at(c, j), &at);
            c->saved[j] = 1;
        }
        if (at >= target)
            return 0;
        int64_t next = (j + 1) * c->interval;
        if (rp_engine_advance(e, next < target ? next : target, c->stop))
            return 1;
    }
}

/* The stop flag stopped the simulation: what was shown is no longer the water's. */
static int interrupted(rp_core *c, rp_error *err)
{
    c->shown_k = -1;
    return rp_error_set(err, RP_ERR_INTERRUPTED, 0, "interrupted");
}

/* Bring the water to `target` steps: from the nearest checkpoint kept at or before it when
 * that is ahead of the water or the water is past the target, else from the start when the
 * water is past it, else onwards; under a step budget at most its steps, then
 * RP_ERR_AGAIN. */
static int seek(rp_core *c, int64_t target, rp_error *err)
{
    int64_t at = rp_engine_steps(c->engine);
    int r;
    if (c->slots) {
        int64_t j = target / c->interval;
        if (j >= c->slots)
            j = c->slots - 1;
        while (j > 0 && !c->saved[j])
            j--;
        int64_t from = j * c->interval;
        /* where a budget-bound seek stopped, when that is nearer */
        if (c->resume_at >= 0 && c->resume_at <= target && c->resume_at > from &&
            (at > target || c->resume_at > at)) {
            if ((r = rp_engine_checkpoint_load(c->engine, c->resume, c->resume_at, err)))
                return r;
            c->shown_k = -1;
        } else if (c->saved[j] && (at > target || from > at)) {
            if ((r = rp_engine_checkpoint_load(c->engine, slot_at(c, j), from, err)))
                return r;
            c->shown_k = -1;
        }
    }
    /* back in time, or a refused checkpoint's water: from the start again */
    if (c->stale || rp_engine_steps(c->engine) > target) {
        rp_engine *fresh;
        if ((r = new_engine(c, &fresh, err)))
            return r;
        rp_engine_free(&c->engine);
        c->engine = fresh;
        c->shown_k = -1;
        c->stale = 0;
    }
    at = rp_engine_steps(c->engine);
    if (c->budget > 0) {
        int64_t most = c->budget / ((int64_t)c->info.grid_w * c->info.grid_h);
        if (most < 1)
            most = 1;
        if (target - at > most) {
            if (advance(c, at + most))
                return interrupted(c, err);
            if (c->slots &&
                (c->resume || (c->resume = malloc(rp_engine_checkpoint_bytes(c->engine))))) {
                rp_engine_checkpoint_save(c->engine, c->resume, &c->resume_at);
            }
            return rp_error_set(err, RP_ERR_AGAIN, 0,
                                "the water is at step %" PRId64 " of %" PRId64
                                ": the step budget is spent, call again",
                                rp_engine_steps(c->engine), target);
        }
    }
    return advance(c, target) ? interrupted(c, err) : RP_OK;
}

/* Before pass of frame k goes into dst: the pass and the picture checked, the core started,
 * the water at `steps` steps (at least frame k's), the caller's light knobs applied. *row
 * and *rows: the pass's picture. */
static int prepare(rp_core *c, int64_t steps, enum rp_pass pass, const void *dst, size_t stride,
                   size_t *row, int *rows, rp_error *err)
{
    int r;
    if (!(*row = pass_row(c, pass, rows)))
        return rp_error_set(err, RP_ERR_INVALID, 1, "pass %d is none of enum rp_pass", (int)pass);
    if (pass != RP_PASS_RENDER && pass != RP_PASS_RENDER_RGBA && pass != RP_PASS_HEIGHT &&
        !c->info.light)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "this pass needs render light: the seed presets' renders have none");
    if (!dst)
        return rp_error_set(err, RP_ERR_INVALID, 1, "the picture is NULL");
    if (stride < *row)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the picture's stride %zu is shorter than a row of %zu bytes", stride,
                            *row);
    if (!picture_fits(dst, stride, *row, *rows))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the picture's stride %zu is too large: its %d rows would run past the "
                            "end of memory (a negative stride?)",
                            stride, *rows);
    if ((r = start(c, 1, err)) || (r = seek(c, steps, err)))
        return r;
    apply_light(c);
    return RP_OK;
}

/* Frame k with the water after `steps` steps (at least frame k's). */
static int render(rp_core *c, int64_t k, int64_t steps, enum rp_pass pass, void *dst, size_t stride,
                  rp_error *err)
{
    int rows, r;
    size_t row;
    if ((r = prepare(c, steps, pass, dst, stride, &row, &rows, err)))
        return r;
    int packed = stride == row;
    switch (pass) {
    case RP_PASS_RENDER: {
        uint8_t *out = packed ? dst : pixels(c, err);
        if (!out || fill_background(c, err))
            return err->code;
        rp_engine_frame(c->engine, k, c->bgp, out, NULL);
        if (!packed)
            copy_rows(dst, stride, out, row, rows);
        break;
    }
    case RP_PASS_RENDER_RGBA: {
        rgba_job job = {c, dst, stride};
        if (!pixels(c, err) || fill_background(c, err))
            return err->code;
        rp_engine_frame(c->engine, k, c->bgp, c->pix, NULL);
        rp_pool_run(c->pool, rows, rgba_rows, &job);
        break;
    }
    case RP_PASS_LIGHT:
    case RP_PASS_LIGHT_PREMULTIPLIED: {
        uint8_t *out = packed ? dst : scratch(c, err);
        if (!out)
            return err->code;
        rp_engine_frame_layer(c->engine, k, out, pass == RP_PASS_LIGHT_PREMULTIPLIED, NULL);
        if (!packed)
            copy_rows(dst, stride, out, row, rows);
        break;
    }
    case RP_PASS_HEIGHT:
        if (c->info.light) {
            if ((r = ensure_shown(c, k, err)))
                return r;
            const int32_t *hq8 = rp_engine_heights_q8(c->engine, NULL);
            for (int y = 0; y < rows; y++)
                rp_aov_height(hq8 + (size_t)y * c->info.width, NULL, (size_t)c->info.width,
                              (uint16_t *)((uint8_t *)dst + (size_t)y * stride));
        } else {
            const int16_t *h = rp_engine_heights(c->engine);
            for (int y = 0; y < rows; y++)
                rp_aov_height(NULL, h + (size_t)y * c->info.grid_w, (size_t)c->info.grid_w,
                              (uint16_t *)((uint8_t *)dst + (size_t)y * stride));
        }
        return RP_OK;
    default:
        if ((r = ensure_shown(c, k, err)))
            return r;
        return surface_pass(c, pass, dst, stride, err);
    }
    /* the render and the layer interpolated this frame's heights too */
    c->shown_k = k;
    c->shown_steps = rp_engine_steps(c->engine);
    return RP_OK;
}

int rp_core_render(rp_core *c, int64_t frame, enum rp_pass pass, void *dst, size_t stride,
                   rp_error *err)
{
    CORE_ARGS(c, err);
    if (frame < 0 || frame >= c->info.frames)
        return rp_error_set(err, RP_ERR_INVALID, 1, "frame %" PRId64 " is outside 0..%" PRId64,
                            frame, c->info.frames - 1);
    return render(c, frame, rp_clock_steps(rp_engine_clock(c->engine), frame), pass, dst, stride,
                  err);
}

int rp_core_render_passes(rp_core *c, int64_t frame, int n, const enum rp_pass *passes,
                          void *const *dst, const size_t *stride, rp_error *err)
{
    CORE_ARGS(c, err);
    const size_t surface_row = (size_t)c->info.width * 6;
    uint16_t *out[3] = {NULL, NULL, NULL};
    int first = -1, r;
    if (frame < 0 || frame >= c->info.frames)
        return rp_error_set(err, RP_ERR_INVALID, 1, "frame %" PRId64 " is outside 0..%" PRId64,
                            frame, c->info.frames - 1);
    if (n < 0 || (n > 0 && (!passes || !dst || !stride)))
        return rp_error_set(err, RP_ERR_INVALID, 1, "%d passes%s", n,
                            n < 0 ? " is negative" : ", with no pass, picture or stride array");
    /* the surface passes with packed rows together, after the others */
    for (int i = 0; i < n; i++) {
        int s = passes[i] - RP_PASS_NORMAL;
        if (c->info.light && s >= 0 && s < 3 && dst[i] && stride[i] == surface_row && !out[s]) {
            out[s] = dst[i];
            first = first < 0 ? i : first;
        } else if ((r = rp_core_render(c, frame, passes[i], dst[i], stride[i], err))) {
            return r;
        }
    }
    if (first < 0)
        return RP_OK;
    size_t row;
    int rows;
    int64_t steps = rp_clock_steps(rp_engine_clock(c->engine), frame);
    if ((r = prepare(c, steps, passes[first], dst[first], stride[first], &row, &rows, err)) ||
        (r = ensure_shown(c, frame, err)))
        return r;
    return surface_passes(c, out, err);
}

/* How far before a frame's instant rp_core_render_at still takes that frame. */
#define RENDER_AT_SNAP_NS 1000

int rp_core_render_at(rp_core *c, int64_t ns, enum rp_pass pass, void *dst, size_t stride,
                      rp_error *err)
{
    CORE_ARGS(c, err);
    const rp_clock *clock = rp_engine_clock(c->engine);
    const __int128 second = 1000000000;
    /* the end: frames * fps_den / fps seconds; an instant at it shows the last frame */
    if (ns < 0 || (__int128)ns * clock->fps > (__int128)c->info.frames * clock->fps_den * second)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the instant %" PRId64 " ns is outside the timeline (0 to %" PRId64
                            " frame%s)",
                            ns, c->info.frames, c->info.frames == 1 ? "" : "s");
    /* 2 t + 1 in nanoseconds: the frame an instant rounded to the nanosecond falls in, and
     * the steps done by then, as the frei0r plugin takes them */
    __int128 tn2 = 2 * (__int128)ns + 1;
    int64_t k = (int64_t)(tn2 * clock->fps / (2 * clock->fps_den * second));
    if (k >= c->info.frames)
        k = c->info.frames - 1;
    int64_t steps = clock->rate ? clock->preroll + (int64_t)(tn2 * clock->rate / (2 * second))
                                : rp_clock_steps(clock, k);
    /* up to a microsecond before a frame's instant is that frame, as the plugin snaps a
     * host's time: a time floored to the nanosecond (GStreamer's, k * 1e9 * den / fps) is
     * up to 1 ns early, and fell in the frame before for a third of the frames */
    int64_t kn = (int64_t)(((__int128)ns + RENDER_AT_SNAP_NS) * clock->fps /
                           ((__int128)clock->fps_den * second));
    if (kn > k && kn < c->info.frames) {
        k = kn;
        steps = rp_clock_steps(clock, k);
    }
    /* the timeline holds the steps up to the last frame's: in that frame's interval, past
     * its instant, the water is the last frame's (simulated on, it would miss that
     * interval's drops, which no frame shows) */
    if (steps > c->info.steps)
        steps = c->info.steps;
    return render(c, k, steps, pass, dst, stride, err);
}

const int16_t *rp_core_heights(const rp_core *c, int *grid_w, int *grid_h)
{
    if (grid_w)
        *grid_w = c ? c->info.grid_w : 0;
    if (grid_h)
        *grid_h = c ? c->info.grid_h : 0;
    return c && c->started && !c->stale ? rp_engine_heights(c->engine) : NULL;
}

/* The digest of the inputs a checkpoint depends on: the scene's text and its wall masks,
 * and with checkpoint_images the background and sky files the settings name (else those
 * are the caller's). Worked out once: the files are read whole. */
static int inputs_digest(rp_core *c, uint64_t *digest, rp_error *err)
{
    const rp_settings *s = rp_engine_settings(c->engine);
    int r;
    if (!c->inputs_known &&
        (r = rp_state_inputs(c->scene, rp_engine_timeline(c->engine),
                             c->checkpoint_images ? s->background : NULL,
                             c->checkpoint_images ? s->sky_image : NULL, &c->inputs, err)))
        return r;
    c->inputs_known = 1;
    *digest = c->inputs;
    return RP_OK;
}

/* The checkpoint of the water now, malloc'd. */
static int encode(rp_core *c, uint8_t **buf, size_t *len, rp_error *err)
{
    uint64_t inputs;
    int64_t steps = rp_engine_steps(c->engine);
    if (!c->started)
        return rp_error_set(err, RP_ERR_INVALID, 1, "no frame rendered yet: no water to save");
    if (c->stale)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the water is a refused checkpoint's until a frame is rendered");
    if (inputs_digest(c, &inputs, err))
        return err->code;
    uint64_t key =
        rp_state_key(rp_engine_settings(c->engine), rp_engine_timeline(c->engine), steps);
    if (rp_state_encode(rp_engine_water(c->engine), steps, key, inputs, buf, len))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    return RP_OK;
}

size_t rp_core_checkpoint_size(const rp_core *c)
{
    uint8_t *buf;
    size_t len;
    rp_error err;
    if (!c)
        return 0;
    /* not const in effect: the inputs' digest is worked out once and kept */
    if (encode((rp_core *)(uintptr_t)c, &buf, &len, &err))
        return 0;
    free(buf);
    return len;
}

int rp_core_checkpoint_save(rp_core *c, void *dst, size_t size, rp_error *err)
{
    uint8_t *buf;
    size_t len;
    CORE_ARGS(c, err);
    if (!dst)
        return rp_error_set(err, RP_ERR_INVALID, 1, "the checkpoint's buffer is NULL");
    int r = encode(c, &buf, &len, err);
    if (r)
        return r;
    if (size < len) {
        free(buf);
        return rp_error_set(err, RP_ERR_INVALID, 1, "a checkpoint is %zu bytes, the buffer %zu",
                            len, size);
    }
    memcpy(dst, buf, len);
    free(buf);
    return RP_OK;
}

int rp_core_checkpoint_load(rp_core *c, const void *src, size_t size, rp_error *err)
{
    int64_t steps;
    CORE_ARGS(c, err);
    if (!src || !size)
        return rp_error_set(err, RP_ERR_FORMAT, 1, "the checkpoint is empty");
    FILE *f = fmemopen((void *)(uintptr_t)src, size, "rb");
    if (!f)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_core_checkpoint_read(c, f, -1, &steps, err);
    fclose(f);
    return r;
}

/* Whether a checkpoint read (r, what rp_state_read returned, with steps, key and inputs)
 * belongs to engine e of core c and is not past last_steps (-1: any). */
static int state_fits(rp_core *c, const rp_engine *e, int r, int64_t steps, uint64_t key,
                      uint64_t inputs, int64_t last_steps, rp_error *err)
{
    uint64_t want;
    if (r)
        return rp_error_set(err, r, r != RP_ERR_NOMEM, "%s", err->msg);
    if (last_steps >= 0 && steps > last_steps)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the checkpoint is at step %" PRId64 ", past step %" PRId64, steps,
                            last_steps);
    if (key != rp_state_key(rp_engine_settings(e), rp_engine_timeline(e), steps))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "state was saved from another scene or other settings");
    if ((r = inputs_digest(c, &want, err))) {
        err->bad_input = 1; /* an input the state was bound to is missing */
        return r;
    }
    if (inputs != want)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "state was saved with other inputs (the scene's text, a wall mask, "
                            "the background or the sky image differs)");
    return RP_OK;
}

int rp_core_checkpoint_read(rp_core *c, FILE *f, int64_t last_steps, int64_t *psteps, rp_error *err)
{
    rp_engine *fresh = NULL;
    int64_t steps = -1;
    uint64_t key, inputs;
    int r;
    int64_t ignored;
    if (!psteps)
        psteps = &ignored;
    *psteps = -1;
    CORE_ARGS(c, err);
    if (!f)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_core_checkpoint_read: the file is NULL");
    if ((r = start(c, 0, err)))
        return r;
    /* An engine that has taken no step (a run's start) takes the state itself, without a
     * second timeline; if the state is refused, its water is made again (stale). */
    const int direct = !c->stale && rp_engine_steps(c->engine) == 0;
    if (direct)
        fresh = c->engine;
    else if ((r = new_engine(c, &fresh, err)))
        return r;
    r = rp_state_read(f, rp_engine_water(fresh), &steps, &key, &inputs, err);
    if (!r)
        *psteps = steps;
    if ((r = state_fits(c, fresh, r, steps, key, inputs, last_steps, err))) {
        if (direct) {
            /* the refused water is not left in the core, where its heights and a checkpoint
             * saved next would show it: made again now, or (out of memory) at the next
             * frame, heights and checkpoints refused until then */
            rp_engine *again;
            rp_error ignore;
            if (new_engine(c, &again, &ignore)) {
                c->stale = 1;
            } else {
                rp_engine_free(&c->engine);
                c->engine = again;
            }
        } else {
            rp_engine_free(&fresh);
        }
        return r;
    }
    rp_engine_resume(fresh, steps);
    if (!direct) {
        rp_engine_free(&c->engine);
        c->engine = fresh;
    }
    c->shown_k = -1;
    return RP_OK;
}

int rp_core_checkpoint_check(rp_core *c, FILE *f, int64_t last_steps, int64_t *psteps,
                             rp_error *err)
{
    rp_water *scratch = NULL;
    int64_t steps = -1, ignored;
    uint64_t key, inputs;
    if (!psteps)
        psteps = &ignored;
    *psteps = -1;
    CORE_ARGS(c, err);
    if (!f)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_core_checkpoint_check: the file is NULL");
    /* water of the core's size to read into: neither a second timeline nor the images */
    if (rp_water_new(&scratch, &rp_engine_settings(c->engine)->water))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_state_read(f, scratch, &steps, &key, &inputs, err);
    rp_water_free(&scratch);
    if (!r)
        *psteps = steps;
    return state_fits(c, c->engine, r, steps, key, inputs, last_steps, err);
}

int rp_core_set_light(rp_core *c, enum rp_light_knob knob, int set, int32_t value, rp_error *err)
{
    CORE_ARGS(c, err);
    static const struct {
        int32_t min, max;
        const char *name;
    } range[4] = {
        [RP_LIGHT_DEPTH] = {1, 256 * 256, "depth (1/256 cell)"},
        [RP_LIGHT_AZIMUTH] = {-360000, 360000, "azimuth (millidegrees)"},
        [RP_LIGHT_ELEVATION] = {0, 90000, "elevation (millidegrees)"},
        [RP_LIGHT_CAUSTICS] = {0, 64 * 256, "caustics (1/256)"},
    };
    if ((unsigned)knob >= 4)
        return rp_error_set(err, RP_ERR_INVALID, 1, "light knob %d is none of enum rp_light_knob",
                            (int)knob);
    if (set && (value < range[knob].min || value > range[knob].max))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the %s %" PRId32 " is outside %" PRId32 "..%" PRId32, range[knob].name,
                            value, range[knob].min, range[knob].max);
    c->light_set[knob] = set != 0;
    c->light_value[knob] = set ? value : 0;
    return RP_OK;
}

int rp_core_set_checkpoints(rp_core *c, int count, size_t max_bytes, rp_error *err)
{
    CORE_ARGS(c, err);
    if (count < 0 || count > 4096)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%d checkpoints: outside 0..4096", count);
    free(c->slot_heights);
    free(c->saved);
    c->slot_heights = NULL;
    c->saved = NULL;
    c->slots = 0;
    size_t per_slot = rp_engine_checkpoint_bytes(c->engine);
    int64_t slots = (int64_t)(max_bytes / per_slot);
    if (slots > count)
        slots = count;
    if (slots < 1)
        return RP_OK;
    /* evenly spaced over the steps of the timeline, the first at step 0 */
    int64_t last =
        c->info.frames > 0 ? rp_clock_steps(rp_engine_clock(c->engine), c->info.frames - 1) : 0;
    c->interval = slots > 1 ? (last + slots - 2) / (slots - 1) : last + 1;
    if (c->interval < 1)
        c->interval = 1;
    int n = (int)(last / c->interval + 1);
    if (!(c->slot_heights = malloc(per_slot * (size_t)n)) || !(c->saved = calloc((size_t)n, 1))) {
        free(c->slot_heights);
        c->slot_heights = NULL;
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    c->slots = n;
    return RP_OK;
}

void rp_core_set_step_budget(rp_core *c, int64_t cells)
{
    if (!c)
        return;
    c->budget = cells > 0 ? cells : 0;
}

/* The settings that decide pixels, the timeline's counts, its first items one a line, and
 * sums of the fields of the rest (printing a million items one a line takes seconds under
 * qemu). */
#define ITEMS_SHOWN 4000
int rp_core_print_timeline(const rp_core *c, FILE *f)
{
    if (!c || !f)
        return -1;
    const rp_settings *s = rp_engine_settings(c->engine);
    const rp_timeline *tl = rp_engine_timeline(c->engine);
    int64_t frames = rp_engine_items_length(c->engine);
    rp_timeline_stats ts;
    uint64_t shown = 0, sum[6] = {0};
    rp_timeline_stats_get(tl, &ts);
    fprintf(f,
            "size %dx%d output %dx%d grid %dx%d fps %d/%d rate %d frames %" PRId64 " seed %" PRIu64
            " preset %d\n",
            s->width, s->height, s->out_width, s->out_height, s->water.width, s->water.height,
            s->time.fps, s->time.fps_den, s->time.rate, frames, s->seed, (int)s->preset);
    fprintf(f,
            "stencil %d boundary %d damping %d/%d render %d refraction %d shading %d light "
            "%d,%d shape %d mode %d\n",
            (int)s->water.stencil, (int)s->water.boundary, s->water.damping_shift,
            (int)s->water.damping_q16, (int)s->look.mode, s->look.refraction, s->look.shading,
            s->look.light_x, s->look.light_y, (int)s->shape, (int)s->mode);
    fprintf(f, "drops %zu rain %zu stroke %zu walls %zu after-end %zu\n", ts.drops, ts.rain_drops,
            ts.stroke_dabs, ts.walls, ts.after_end);
    const rp_item *items;
    size_t n;
    rp_timeline_span(tl, 0, frames, &items, &n);
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
            fprintf(f, "%" PRId64 " drop %d %d r %d h %d shape %d mode %d\n", it->frame, (int)d->x,
                    (int)d->y, (int)d->radius, (int)d->height, (int)d->shape, (int)d->mode);
        else
            fprintf(f, "%" PRId64 " wall %d %d %d %d %d %d %s\n", it->frame, (int)it->kind, it->x,
                    it->y, it->w, it->h, it->r,
                    it->kind == RP_ITEM_WALL_MASK ? it->mask_path : "-");
    }
    if (shown > ITEMS_SHOWN)
        fprintf(f,
                "%" PRIu64 " more items, sums %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                " %" PRIu64 " %" PRIu64 "\n",
                shown - ITEMS_SHOWN, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]);
    return ferror(f) ? -1 : 0;
}

void rp_core_plain_c(int plain)
{
    rp_simd_set(plain ? RP_SIMD_C : -1);
}

void rp_core_close(rp_core **pc)
{
    rp_core *c = pc ? *pc : NULL;
    if (!c)
        return;
    rp_engine_free(&c->engine);
    rp_pool_free(&c->pool);
    rp_light_free(&c->aov_light);
    free(c->band);
    free(c->bg);
    free(c->pix);
    free(c->pass);
    free(c->slot_heights);
    free(c->saved);
    free(c->resume);
    free_masks(c);
    free(c->sky);
    free(c);
    *pc = NULL;
}

/* ---- the set-up a program does before its first frame ------------------------------------ */

int rp_scene_from_buffer(rp_scene **scene, char *text, size_t len, const char *filename,
                         int64_t max_bytes, rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!scene) {
        free(text); /* taken, as on any failure */
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "rp_scene_from_buffer: the scene pointer is NULL");
    }
    *scene = NULL;
    if (max_bytes < 0) { /* 0 is no limit; a negative one is no limit of any kind */
        free(text);
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "rp_scene_from_buffer: max_bytes %" PRId64 " is negative (0: no limit)",
                            max_bytes);
    }
    return rp_scene_parse_owned(scene, text, len, filename ? filename : "<scene>", max_bytes, err);
}

const rp_settings *rp_core_settings(const rp_core *c)
{
    if (!c)
        return NULL;
    return rp_engine_settings(c->engine);
}

void rp_core_timeline_stats(const rp_core *c, rp_timeline_stats *stats)
{
    if (!stats)
        return;
    if (!c) {
        *stats = (rp_timeline_stats){0};
        return;
    }
    rp_timeline_stats_get(rp_engine_timeline(c->engine), stats);
}

int64_t rp_core_frame_steps(const rp_core *c, int64_t frame)
{
    if (!c)
        return 0;
    if (frame < 0 || frame >= c->info.frames)
        return -1;
    return rp_clock_steps(rp_engine_clock(c->engine), frame);
}

size_t rp_core_frame_drops(const rp_core *c, int64_t k)
{
    if (!c || k < 0 || k >= c->info.frames)
        return 0;
    const rp_clock *clock = rp_engine_clock(c->engine);
    const rp_timeline *tl = rp_engine_timeline(c->engine);
    int64_t from = k > 0 ? rp_clock_steps(clock, k - 1) : 0;
    int64_t to = rp_clock_steps(clock, k);
    size_t drops = 0, n;
    const rp_item *items;
    rp_timeline_span(tl, from, to, &items, &n);
    for (size_t i = 0; i < n; i++)
        drops += items[i].kind == RP_ITEM_DROP;
    return drops;
}

int64_t rp_core_steps(const rp_core *c)
{
    if (!c)
        return 0;
    return rp_engine_steps(c->engine);
}

/* Whether mask walls are drawn with their images' pixels (and the timeline has walls). */
static int walls_image(const rp_core *c)
{
    rp_timeline_stats ts;
    rp_timeline_stats_get(rp_engine_timeline(c->engine), &ts);
    return rp_engine_settings(c->engine)->walls_visible == RP_WALLS_IMAGE && ts.walls;
}

/* An error in the wall mask at path (its message in err->msg), placed in the statement that
 * names it: at the path, as the sky's are, or with at_size at the moving mask's width W. */
static int mask_fail(const rp_core *c, const char *path, int at_size, int code, rp_error *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    for (size_t i = 0; code != RP_ERR_NOMEM && i < rp_scene_event_count(c->scene); i++) {
        const rp_event *ev = rp_scene_event(c->scene, i);
        if (ev->kind != RP_EVENT_WALL_MASK || ev->path != path)
            continue;
        memset(&err->diag, 0, sizeof err->diag);
        snprintf(err->diag.file, sizeof err->diag.file, "%s", rp_scene_name(c->scene));
        err->diag.line = ev->line;
        err->diag.col = at_size ? ev->w.col : ev->path_col;
        size_t n = ev->text_len < sizeof err->diag.source_line - 1
                       ? ev->text_len
                       : sizeof err->diag.source_line - 1;
        while (n > 0 && n < ev->text_len && ((unsigned char)ev->text[n] & 0xC0) == 0x80)
            n--; /* cut at a character boundary */
        memcpy(err->diag.source_line, ev->text, n);
        snprintf(err->diag.msg, sizeof err->diag.msg, "%.480s", msg);
        return rp_error_diag(err, code);
    }
    return rp_error_set(err, code, code != RP_ERR_NOMEM, "%s", msg);
}

/* A wall mask moving along a path: the memory its shape takes while it is made, counted
 * once per event (shaped[id]); a shape alone over the limit is refused at its statement. */
static int shape_cost(const rp_core *c, const rp_item *it, uint8_t *shaped, double *cost,
                      rp_error *err, int *r)
{
    if (it->id < 0 || (size_t)it->id >= rp_scene_event_count(c->scene) || shaped[it->id])
        return 0;
    shaped[it->id] = 1;
    int64_t bytes = rp_obstacle_mask_bytes(it->w, it->h);
    *cost += (double)bytes;
    if (bytes <= c->max_memory)
        return 0;
    snprintf(err->msg, sizeof err->msg,
             "this moving wall mask's shape needs %.1f MiB, over the memory limit of %.1f MiB "
             "(make it smaller, or raise %s)",
             (double)bytes / (1 << 20), (double)c->max_memory / (1 << 20),
             rp_name("--max-memory", "max_memory"));
    *r = mask_fail(c, it->mask_path, 1, RP_ERR_TOO_LARGE, err);
    return 1;
}

int rp_core_image_costs(const rp_core *c, rp_core_cost_fn fn, void *ctx, double *cost,
                        size_t *files, rp_error *err)
{
    CORE_ARGS(c, err);
    if (!fn || !cost || !files)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_core_image_costs: %s is NULL",
                            !fn     ? "the cost function"
                            : !cost ? "the bytes"
                                    : "the files");
    const rp_settings *s = rp_engine_settings(c->engine);
    const rp_timeline *tl = rp_engine_timeline(c->engine);
    const int64_t length = rp_engine_items_length(c->engine);
    const int picture = walls_image(c);
    size_t n = 0, cap = 0;
    int r = RP_OK;
    struct stat *seen = NULL;
    uint8_t *shaped = calloc(rp_scene_event_count(c->scene) + 1, 1);
    *files = 0;
    if (!shaped)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    rp_timeline_stats ts;
    rp_timeline_stats_get(tl, &ts);
    /* Every item of frames 0..length-1 in turn, as a walk frame by frame would meet them,
     * but without visiting the frames: the cost is the items' (a timeline of 10^8 frames
     * with one wall is one item). */
    const rp_item *items = NULL;
    size_t count = 0;
    if (ts.walls)
        rp_timeline_span(tl, 0, length, &items, &count);
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (!rp_item_mask(&items[i]))
            continue;
        if (items[i].kind == RP_ITEM_OBSTACLE && shape_cost(c, &items[i], shaped, cost, err, &r))
            break;
        if (file_stat(items[i].mask_path, &st) != 0) {
            snprintf(err->msg, sizeof err->msg, "cannot read wall mask '%s': %s",
                     items[i].mask_path, strerror(errno));
            r = mask_fail(c, items[i].mask_path, 0, RP_ERR_IO, err);
            break;
        }
        size_t j = 0;
        while (j < n && !(seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino))
            j++;
        if (j < n)
            continue;
        if (n == cap) {
            struct stat *more = realloc(seen, (cap = cap ? 2 * cap : 8) * sizeof *seen);
            if (!more) {
                r = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
                break;
            }
            seen = more;
        }
        seen[n++] = st;
        int64_t bytes = 0, out_bytes = 0;
        if ((r = fn(ctx, items[i].mask_path, RP_IMAGE_WALL_MASK, s->water.width, s->water.height,
                    &bytes, err)) ||
            (picture && (r = fn(ctx, items[i].mask_path, RP_IMAGE_WALL_PICTURE, s->out_width,
                                s->out_height, &out_bytes, err)))) {
            mask_fail(c, items[i].mask_path, 0, r, err);
            break;
        }
        *cost += (double)bytes + (double)out_bytes;
    }
    free(seen);
    free(shaped);
    *files = n;
    return r;
}

double rp_core_memory(const rp_core *c, size_t mask_files)
{
    if (!c)
        return 0;
    const rp_settings *s = rp_engine_settings(c->engine);
    double cells = (double)s->water.width * s->water.height;
    double pixels = (double)s->out_width * s->out_height;
    int visible = s->walls_visible != RP_WALLS_HIDDEN;
    /* per grid cell: heights 2x2, walls 5 (and the masks' cells drawn, 1, when visible),
     * masks */
    double per_cell = 2 * 2 + 5 + visible + (double)mask_files;
    /* per output pixel: the light's heights 4; the sky image; `walls visible image`: the
     * walls' colours and each mask's image */
    double per_pixel = s->look.mode == RP_RENDER_LIGHT ? 4 : 0;
    per_pixel += s->sky_image[0] && s->look.mode == RP_RENDER_LIGHT ? 3 : 0;
    per_pixel += walls_image(c) ? 3 + 3 * (double)mask_files : 0;
    rp_timeline_stats ts;
    rp_timeline_stats_get(rp_engine_timeline(c->engine), &ts);
    /* the scene as read and parsed: its text and its events (and the engine's table) */
    double scene = rp_scene_memory(c->scene) + rp_obstacles_bytes(rp_scene_event_count(c->scene));
    return cells * per_cell + pixels * per_pixel + scene +
           (double)(ts.drops + ts.walls * (1 + visible)) * sizeof(rp_item);
}
