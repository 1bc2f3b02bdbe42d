/* engine.c - the core of a run (see engine.h). */
#include "engine/engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mask.h"
#include "look/light.h"
#include "base/pool.h"
#include "look/render.h"
#include "look/upscale.h"
#include "sim/obstacle.h"

struct rp_engine {
    rp_settings s;
    rp_clock clock;
    int64_t frames;
    int64_t items; /* item indices the timeline holds */
    rp_timeline *tl;
    rp_pool *pool; /* not owned */
    rp_mask_fn masks;
    void *mask_ctx;
    rp_water *water;
    int64_t steps; /* steps done: items 0..steps-1 applied */
    /* render `light`: heights interpolated to the output size, then lit */
    rp_upscale *upscale;
    uint8_t *upscale_mem; /* rp_upscale_rows_s's scratch, one per pool thread */
    size_t upscale_each;
    rp_light *light;
    rp_light_geom geom;
    uint64_t *nonzero; /* geom.nonzero: where heights_q8 is not 0 (rp_light_nonzero_blocks) */
    int32_t *heights_q8;
    /* `walls visible`: per grid row its first and last wall cell (lo > hi: none), and per
     * output column its left tap (cell << 8 | weight of the right tap) */
    int32_t *wall_span;
    int32_t *wall_tap;
    int walls_changed; /* wall items applied since wall_span was last computed */
    int interrupted;   /* a step was stopped between its items: the water is not a step's */
    /* `walls visible image`: the colour of the walls at each output pixel (RGB24) */
    uint8_t *wall_img;
    /* `walls visible`: the cells of the masks (1 = wall), drawn by their coverage, and the
     * rectangles and circles, drawn as shapes (static obstacles that never move) */
    uint8_t *mask_cells;
    int any_mask;
    rp_obstacles *shapes;
    size_t nshapes;
    rp_obstacles *obstacles; /* walls moving along paths (obstacle.h) */
    const rp_scene *scene;
    /* keyed light (rockpool-scene(5) KEYS): the parameters the light was made with, and
     * the sky image to give a remade light */
    rp_light_params light_now;
    const uint8_t *sky_rgb;
    int64_t fade_steps; /* `key fade`: the half-life in steps the damping was made for */
    /* rp_engine_light_override: per entry of light_keys, whether set and its value */
    int light_over_set[6];
    int32_t light_over[6];
};

/* The light's keyable parameters, in the order of keyed_light's fields. */
static const enum rp_key_what light_keys[6] = {RP_KEY_AZIMUTH, RP_KEY_ELEVATION, RP_KEY_SUN,
                                               RP_KEY_DEPTH,   RP_KEY_CAUSTICS,  RP_KEY_SKY};

/* The light's parameters at frame k: the settings', with each keyed one at the frame's
 * instant (k * fps_den / fps s, exactly). Returns 1 when any is keyed. */
static int keyed_light(const rp_engine *e, int64_t k, rp_light_params *p)
{
    const enum rp_key_what *what = light_keys;
    int32_t *field[] = {&p->azimuth_mdeg, &p->elevation_mdeg, &p->sun_size_mdeg,
                        &p->depth_q8,     &p->caustics_q8,    &p->sky_q8};
    int any = 0;
    *p = e->s.light;
    for (int i = 0; i < 6; i++) {
        const rp_keys *keys = rp_scene_keys(e->scene, what[i]);
        if (!keys)
            continue;
        *field[i] = (int32_t)rp_keys_at(keys, k * e->s.time.fps_den * 1000000, e->s.time.fps);
        if (what[i] == RP_KEY_CAUSTICS) /* as the setting (rp_engine_new) */
            *field[i] = rp_strength_caustics(*field[i], e->s.strength_milli);
        any = 1;
    }
    for (int i = 0; i < 6; i++)
        if (e->light_over_set[i]) {
            *field[i] = e->light_over[i];
            any = 1;
        }
    return any;
}

/* Remake the light when a keyed parameter differs at frame k (its tables depend on them);
 * out of memory, the light stays as it was. */
static void update_light(rp_engine *e, int64_t k)
{
    rp_light_params p;
    if (!e->light)
        return;
    keyed_light(e, k, &p); /* also without keys: an override given back restores the light */
    if (!memcmp(&p, &e->light_now, sizeof p))
        return;
    rp_light *l = NULL;
    rp_error ignored;
    if (rp_light_new(&l, &p, &ignored))
        return;
    if (e->sky_rgb)
        rp_light_set_sky(l, e->sky_rgb, e->s.out_width, e->s.out_height);
    rp_light_free(&e->light);
    e->light = l;
    e->light_now = p;
}

/* The bilinear tap of output pixel i of n along a grid side of g cells: the pixel centre
 * at (i + 0.5) * g / n - 0.5 cells, in 1/256 of a cell, clamped below at 0; returned as
 * cell << 8 | fraction. */
static int32_t wall_tap(int i, int g, int n)
{
    int64_t v = ((2 * (int64_t)i + 1) * g - n) * 128 / n;
    return v < 0 ? 0 : (int32_t)v;
}

int rp_engine_new(rp_engine **out, const rp_scene *scene, const rp_settings *merged, int image_w,
                  int image_h, int64_t max_memory, volatile sig_atomic_t *stop, rp_error *err)
{
    rp_engine *e = calloc(1, sizeof *e);
    int r;
    *out = NULL;
    if (!e)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    e->s = *merged;
    rp_settings *s = &e->s;
    if (rp_space_resolve(s, scene, image_w, image_h, err) ||
        rp_clock_resolve(s, scene, &e->clock, err))
        goto fail;
    /* `strength`: the heights scale as the timeline is built; the caustics with them */
    s->light.caustics_q8 = rp_strength_caustics(s->light.caustics_q8, s->strength_milli);
    /* Keys of the light need render light; depth and sun, its water model. */
    for (int w = RP_KEY_AZIMUTH; w <= RP_KEY_SKY; w++) {
        int water = w == RP_KEY_DEPTH || w == RP_KEY_SUN;
        if (rp_scene_keys(scene, (enum rp_key_what)w) &&
            (s->look.mode != RP_RENDER_LIGHT || (water && s->light.model != RP_LIGHT_WATER))) {
            static const char *const names[] = {"azimuth", "elevation", "sun",
                                                "depth",   "caustics",  "sky"};
            err->diag = *rp_scene_keys_at(scene, (enum rp_key_what)w);
            snprintf(err->diag.msg, sizeof err->diag.msg,
                     "key %s: keys of the light need render light%s (the rockpool preset)",
                     names[w], water ? " with look water" : "");
            err->code = RP_ERR_INVALID;
            err->bad_input = 1;
            err->has_diag = 1;
            snprintf(err->msg, sizeof err->msg, "%s", err->diag.msg);
            goto fail;
        }
    }
    /* Frames cover the duration: ceil(duration * fps), exactly for fps N/D. */
    e->frames = s->time.duration.is_frames
                    ? s->time.duration.value
                    : (int64_t)(((__int128)s->time.duration.value * s->time.fps +
                                 (__int128)s->time.fps_den * 1000000 - 1) /
                                ((__int128)s->time.fps_den * 1000000));
    /* The steps the last frame shows; with a rate of its own the timeline also holds the
     * items of the instant after the last step (they act on no frame, but inputs such as
     * masks are checked). */
    e->items = e->frames > 0 ? rp_clock_steps(&e->clock, e->frames - 1) : 0;
    e->items += e->clock.rate > 0 && e->frames > 0;
    rp_timeline_cost cost;
    /* Held beside the timeline: the scene, and the obstacles' table of a slot a statement */
    double held = rp_scene_memory(scene) + rp_obstacles_bytes(rp_scene_event_count(scene));
    if ((r = rp_timeline_check(scene, s, e->items, max_memory, held, &cost, err)) ||
        (r = rp_timeline_build_stop(&e->tl, scene, s, e->items, stop, err)))
        goto fail;
    e->scene = scene;
    if (rp_obstacles_new(&e->obstacles, rp_scene_event_count(scene))) {
        rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        goto fail;
    }
    *out = e;
    return RP_OK;
fail:
    rp_engine_free(&e);
    return err->code;
}

/* Render `light`: the interpolation from the grid to the output, the light's tables and
 * the output-sized heights they share. */
static int start_light(rp_engine *e, rp_error *err)
{
    const rp_settings *s = &e->s;
    int r =
        rp_upscale_new(&e->upscale, s->water.width, s->water.height, s->out_width, s->out_height);
    if (r)
        return rp_error_set(err, r, r != RP_ERR_NOMEM, "cannot interpolate %dx%d to %dx%d",
                            s->water.width, s->water.height, s->out_width, s->out_height);
    if ((r = rp_light_new(&e->light, &s->light, err)))
        return r;
    e->light_now = s->light;
    e->heights_q8 = malloc((size_t)s->out_width * (size_t)s->out_height * sizeof(int32_t));
    /* where they are not 0, so the light copies the picture where the water is still */
    e->nonzero = malloc((size_t)RP_LIGHT_BLOCK_WORDS(s->out_width) * (size_t)s->out_height *
                        sizeof *e->nonzero);
    /* a scratch row for each thread of the pool (rounded to keep them apart in the cache) */
    e->upscale_each = (rp_upscale_scratch_bytes(e->upscale) + 63) & ~(size_t)63;
    e->upscale_mem = malloc(e->upscale_each * (size_t)rp_pool_threads(e->pool));
    if (!e->heights_q8 || !e->upscale_mem || !e->nonzero)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    e->geom = (rp_light_geom){s->out_width,
                              s->out_height,
                              rp_upscale_ratio_q16(s->water.width, s->out_width),
                              rp_upscale_ratio_q16(s->water.height, s->out_height),
                              rp_upscale_peak_q8(e->upscale),
                              e->nonzero};
    return RP_OK;
}

/* `walls visible`: room for the masks' cells and for every rectangle and circle of the
 * timeline as a shape. */
static size_t count_shapes(const rp_engine *e)
{
    size_t n = 0, count;
    const rp_item *items;
    rp_timeline_span(e->tl, 0, e->items, &items, &count);
    for (size_t i = 0; i < count; i++)
        n += items[i].kind == RP_ITEM_WALL_RECT || items[i].kind == RP_ITEM_WALL_CIRCLE;
    return n;
}

static int start_shapes(rp_engine *e)
{
    e->mask_cells = calloc((size_t)e->s.water.width * (size_t)e->s.water.height, 1);
    if (!e->mask_cells || rp_obstacles_new(&e->shapes, count_shapes(e)))
        return RP_ERR_NOMEM;
    return RP_OK;
}

/* A rectangle's or circle's item as a shape to draw: its cells' extent, in 1/256 cell (a
 * circle of radius R + 1/2 about its centre cell's centre, a rectangle over its cells). */
static void add_shape(rp_engine *e, const rp_item *it)
{
    rp_item s;
    memset(&s, 0, sizeof s);
    s.kind = RP_ITEM_OBSTACLE;
    s.id = (int)e->nshapes++;
    if (it->kind == RP_ITEM_WALL_CIRCLE) {
        s.circle = 1;
        s.x = it->x * 256 + 128;
        s.y = it->y * 256 + 128;
        s.r = it->r * 256 + 128;
    } else {
        s.x = it->x * 256 + it->w * 128;
        s.y = it->y * 256 + it->h * 128;
        s.w = it->w * 256;
        s.h = it->h * 256;
    }
    rp_obstacles_item(e->shapes, &s);
}

/* A still water of the settings, with room for the walls when the timeline has any. */
static int new_water(const rp_engine *e, rp_water **w)
{
    rp_timeline_stats ts;
    int r = rp_water_new(w, &e->s.water);
    if (r)
        return r;
    rp_timeline_stats_get(e->tl, &ts);
    if (ts.walls && rp_water_reserve_walls(*w) != RP_OK) {
        rp_water_free(w);
        return RP_ERR_NOMEM;
    }
    return RP_OK;
}

int rp_engine_start(rp_engine *e, rp_pool *pool, rp_mask_fn masks, void *mask_ctx, rp_error *err)
{
    const rp_settings *s = &e->s;
    int r;
    e->pool = pool;
    e->masks = masks;
    e->mask_ctx = mask_ctx;
    if ((r = new_water(e, &e->water)))
        return rp_error_set(err, r, 0, "cannot set up a %dx%d simulation: %s", s->water.width,
                            s->water.height, rp_strerror(r));
    rp_timeline_stats ts;
    rp_timeline_stats_get(e->tl, &ts);
    if (ts.walls && s->walls_visible &&
        (!(e->wall_span = malloc((size_t)s->water.height * 2 * sizeof *e->wall_span)) ||
         !(e->wall_tap = malloc((size_t)s->out_width * sizeof *e->wall_tap))))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    for (int x = 0; e->wall_tap && x < s->out_width; x++)
        e->wall_tap[x] = wall_tap(x, s->water.width, s->out_width);
    if (ts.walls && s->walls_visible && (r = start_shapes(e)))
        return rp_error_set(err, r, 0, "out of memory");
    e->walls_changed = 1; /* wall_span is computed before the first frame is drawn */
    if (ts.walls && s->walls_visible == RP_WALLS_IMAGE) {
        size_t pixels = (size_t)s->out_width * (size_t)s->out_height;
        if (!(e->wall_img = malloc(pixels * 3)))
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        for (size_t i = 0; i < pixels; i++)
            memcpy(e->wall_img + 3 * i, s->wall_rgb, 3);
    }
    if (s->look.mode == RP_RENDER_LIGHT && (r = start_light(e, err)))
        return r;
    return RP_OK;
}

int rp_engine_shapes(rp_engine *e, rp_error *err)
{
    const rp_item *items;
    size_t n;
    rp_timeline_span(e->tl, 0, e->items, &items, &n);
    for (size_t i = 0; i < n; i++) {
        const rp_item *it = &items[i];
        const uint8_t *rgb;
        const uint8_t *mask = it->kind == RP_ITEM_OBSTACLE && it->mask_path && e->masks
                                  ? e->masks(e->mask_ctx, it->mask_path, &rgb)
                                  : NULL;
        if (mask && rp_obstacles_shape(e->obstacles, it, mask, e->s.water.width,
                                       e->s.water.height) != RP_OK)
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    return RP_OK;
}

void rp_engine_set_sky(rp_engine *e, const uint8_t *rgb)
{
    e->sky_rgb = rgb;
    if (e->light)
        rp_light_set_sky(e->light, rgb, e->s.out_width, e->s.out_height);
}

const rp_settings *rp_engine_settings(const rp_engine *e)
{
    return &e->s;
}

const rp_clock *rp_engine_clock(const rp_engine *e)
{
    return &e->clock;
}

const rp_timeline *rp_engine_timeline(const rp_engine *e)
{
    return e->tl;
}

int64_t rp_engine_frames(const rp_engine *e)
{
    return e->frames;
}

int64_t rp_engine_items_length(const rp_engine *e)
{
    return e->items;
}

rp_water *rp_engine_water(rp_engine *e)
{
    return e->water;
}

int64_t rp_engine_steps(const rp_engine *e)
{
    return e->steps;
}

const int16_t *rp_engine_heights(const rp_engine *e)
{
    return rp_water_heights(e->water);
}

const int32_t *rp_engine_heights_q8(const rp_engine *e, rp_light_geom *geom)
{
    if (!e->light)
        return NULL;
    if (geom)
        *geom = e->geom;
    return e->heights_q8;
}

/* `walls visible image`: a mask item's walls take its image's pixels (the output-sized
 * image's own walls, by the luma rule of rp_image_load_mask), over earlier items'. */
static void paint_walls(rp_engine *e, const uint8_t *rgb)
{
    size_t pixels = (size_t)e->s.out_width * (size_t)e->s.out_height;
    for (size_t i = 0; i < pixels; i++) {
        if (rp_mask_is_wall(rgb + 3 * i))
            memcpy(e->wall_img + 3 * i, rgb + 3 * i, 3);
    }
}

/* Output columns [*x0, *x1) (or rows, given the heights) whose bilinear taps (cells cx and
 * cx + 1), and so whose nearest cell, can reach cells lo..hi: a margin of two pixels
 * beyond the cells' own extent, which is conservative at any ratio (a pixel moves its taps
 * by gw / ow cells). */
static void wall_columns(int lo, int hi, int gw, int ow, int *x0, int *x1)
{
    int64_t a = (int64_t)(lo - 1) * ow / gw - 2, b = (int64_t)(hi + 2) * ow / gw + 3;
    *x0 = a < 0 ? 0 : (int)a;
    *x1 = b > ow ? ow : (int)b;
}

/* `walls visible`: a mask's wall cells join the cells drawn by their coverage. */
static void add_mask_cells(rp_engine *e, const uint8_t *mask)
{
    size_t cells = (size_t)e->s.water.width * (size_t)e->s.water.height;
    for (size_t i = 0; i < cells; i++)
        e->mask_cells[i] |= mask[i] != 0;
    e->any_mask = 1;
}

/* Apply the items of step k to the water; walls_only skips drops (checkpoint replay).
 * Returns 1 when *stop (may be NULL) became nonzero between two items: one item is at most
 * the grid's cells of drawing, so a step of many large drops or walls stops within it. */
static int apply_items(rp_engine *e, int64_t k, int walls_only, volatile sig_atomic_t *stop)
{
    const rp_item *items;
    size_t n;
    rp_timeline_frame(e->tl, k, &items, &n);
    for (size_t i = 0; i < n; i++) {
        const rp_item *it = &items[i];
        if (stop && *stop) {
            e->interrupted = 1;
            return 1;
        }
        e->walls_changed |= it->kind != RP_ITEM_DROP;
        switch (it->kind) {
        case RP_ITEM_DROP:
            if (!walls_only)
                rp_water_drop(e->water, &it->drop);
            break;
        case RP_ITEM_WALL_RECT:
            rp_water_add_wall_rect(e->water, it->x, it->y, it->w, it->h);
            if (e->shapes)
                add_shape(e, it);
            break;
        case RP_ITEM_WALL_CIRCLE:
            rp_water_add_wall_circle(e->water, it->x, it->y, it->r);
            if (e->shapes)
                add_shape(e, it);
            break;
        case RP_ITEM_OBSTACLE: rp_obstacles_item(e->obstacles, it); break;
        case RP_ITEM_WALL_MASK: {
            const uint8_t *rgb = NULL;
            const uint8_t *mask = e->masks ? e->masks(e->mask_ctx, it->mask_path, &rgb) : NULL;
            if (mask)
                rp_water_add_walls(e->water, mask);
            if (mask && e->mask_cells)
                add_mask_cells(e, mask);
            if (mask && rgb && e->wall_img)
                paint_walls(e, rgb);
            break;
        }
        }
    }
    /* a checkpoint's replay takes the moving walls where they are at its end (resume) */
    if (!walls_only && rp_obstacles_apply(e->obstacles, e->water, 1, stop) < 0) {
        e->interrupted = 1;
        return 1;
    }
    return 0;
}

void rp_engine_resume(rp_engine *e, int64_t steps)
{
    for (int64_t k = 0; k < steps; k++)
        apply_items(e, k, 1, NULL);
    rp_obstacles_apply(e->obstacles, e->water, 0, NULL);
    e->steps = steps;
}

/* The state rp_engine_start left: still water without walls (its damping the settings'),
 * no obstacle, shape or mask cell, the wall colour layer plain, step 0. What stays is
 * what no step changes: the timeline, the tables of the light (remade per frame from the
 * keys, rp_engine_frame) and the buffers. */
static int rewind_engine(rp_engine *e, rp_error *err)
{
    rp_water *w = NULL;
    rp_obstacles *o = NULL, *shapes = NULL;
    int r = new_water(e, &w);
    if (!r && rp_obstacles_new(&o, rp_scene_event_count(e->scene)))
        r = RP_ERR_NOMEM;
    if (!r && e->shapes && rp_obstacles_new(&shapes, count_shapes(e)))
        r = RP_ERR_NOMEM;
    if (r) {
        rp_water_free(&w);
        rp_obstacles_free(&o);
        rp_obstacles_free(&shapes);
        return rp_error_set(err, r, 0, "out of memory");
    }
    rp_water_free(&e->water);
    rp_obstacles_free(&e->obstacles);
    rp_obstacles_free(&e->shapes);
    e->water = w;
    e->obstacles = o;
    e->shapes = shapes;
    e->nshapes = 0;
    if (e->mask_cells)
        memset(e->mask_cells, 0, (size_t)e->s.water.width * (size_t)e->s.water.height);
    e->any_mask = 0;
    if (e->wall_img) {
        size_t pixels = (size_t)e->s.out_width * (size_t)e->s.out_height;
        for (size_t i = 0; i < pixels; i++)
            memcpy(e->wall_img + 3 * i, e->s.wall_rgb, 3);
    }
    e->walls_changed = 1;
    e->interrupted = 0;
    e->fade_steps = 0;
    e->steps = 0;
    /* the moving masks' shapes, as the session makes them before the first frame */
    return e->masks ? rp_engine_shapes(e, err) : RP_OK;
}

void rp_engine_light_override(rp_engine *e, enum rp_key_what what, int set, int32_t value)
{
    for (int i = 0; i < 6; i++)
        if (light_keys[i] == what) {
            e->light_over_set[i] = set != 0;
            e->light_over[i] = value;
        }
}

size_t rp_engine_checkpoint_bytes(const rp_engine *e)
{
    return (size_t)e->s.water.width * (size_t)e->s.water.height * 2 * sizeof(int16_t);
}

void rp_engine_checkpoint_save(const rp_engine *e, int16_t *buf, int64_t *steps)
{
    size_t cells = (size_t)e->s.water.width * (size_t)e->s.water.height;
    memcpy(buf, rp_water_heights(e->water), cells * sizeof *buf);
    memcpy(buf + cells, rp_water_prev(e->water), cells * sizeof *buf);
    *steps = e->steps;
}

int rp_engine_checkpoint_load(rp_engine *e, const int16_t *buf, int64_t steps, rp_error *err)
{
    int r = rewind_engine(e, err);
    if (r)
        return r;
    rp_water_load(e->water, buf, buf + (size_t)e->s.water.width * (size_t)e->s.water.height);
    rp_engine_resume(e, steps);
    return RP_OK;
}

/* `key fade`: the damping for step k, the half-life at its instant (k steps of the clock). */
static void keyed_fade(rp_engine *e, int64_t k)
{
    const rp_keys *keys = rp_scene_keys(e->scene, RP_KEY_FADE);
    if (!keys)
        return;
    int64_t cn = e->clock.rate ? e->clock.rate : e->clock.fps;
    int64_t cd = e->clock.rate ? 1 : e->clock.fps_den;
    int64_t us = rp_keys_at(keys, k * cd * 1000000, cn);
    int64_t n = (int64_t)((__int128)us * cn / ((__int128)cd * 1000000));
    if (n != e->fade_steps) {
        e->fade_steps = n;
        rp_water_set_damping_q16(e->water, rp_half_life_q16(n));
    }
}

/* Whether step k has no items (so apply_items does nothing for it). */
static int quiet_step(const rp_engine *e, int64_t k)
{
    const rp_item *items;
    size_t n;
    rp_timeline_frame(e->tl, k, &items, &n);
    return n == 0;
}

int rp_engine_advance(rp_engine *e, int64_t target, volatile sig_atomic_t *stop)
{
    while (e->steps < target) {
        if (e->interrupted || (stop && *stop) || apply_items(e, e->steps, 0, stop))
            return 1;
        keyed_fade(e, e->steps);
        /* The following steps with nothing to apply (no items, no keyed fade) go with this
         * one in one call, which advances rows several steps while they are in cache. */
        int n = 1;
        if (!rp_scene_keys(e->scene, RP_KEY_FADE))
            while (n < 64 && e->steps + n < target && quiet_step(e, e->steps + n))
                n++;
        e->steps += n;
        rp_water_steps(e->water, e->pool, n);
    }
    return e->interrupted;
}

/* `walls visible`: wall cells drawn over the frame, their coverage of each pixel taken
 * bilinearly from the grid (exact when the grid is the output size), in the wall colour or
 * the colour layer of `walls visible image`. Only the pixels near a row's runs of wall
 * cells are visited (wall_paint); span holds each grid row's first and last wall cell,
 * where the search for runs starts and ends. */

/* The first and last wall cell of each grid row (lo > hi for a row without walls). */
static void wall_spans(const uint8_t *walls, int gw, int gh, int32_t *span)
{
    for (int y = 0; y < gh; y++) {
        const uint8_t *r = walls + (size_t)y * gw;
        int lo = 0, hi = gw - 1;
        while (lo < gw && !(r[lo] & 1))
            lo++;
        while (hi > lo && !(r[hi] & 1))
            hi--;
        span[2 * y] = lo;
        span[2 * y + 1] = lo < gw ? hi : -1;
    }
}

/* Output row y, columns x0..x1-1, with the walls of grid rows r0 (weight 256 - fy) and r1
 * (fy) drawn over it. */
static void wall_run(const rp_engine *e, const uint8_t *r0, const uint8_t *r1, int fy, uint8_t *row,
                     int bpp, const uint8_t *img_row, int x0, int x1)
{
    const int32_t *tap = e->wall_tap;
    const int gw = e->s.water.width;
    const uint8_t *colour = e->s.wall_rgb;
    for (int x = x0; x < x1; x++) {
        int cx = tap[x] >> 8, fx = tap[x] & 255;
        int cx1 = cx + 1 < gw ? cx + 1 : gw - 1;
        uint8_t *p = row + (size_t)x * bpp;
        const uint8_t *wc = img_row ? img_row + (size_t)x * 3 : colour;
        if (r0[cx] & r0[cx1] & r1[cx] & r1[cx1] & 1) { /* a = 65536: the wall's own colour */
            p[0] = wc[0];
            p[1] = wc[1];
            p[2] = wc[2];
            if (bpp == 4)
                p[3] = 255;
            continue;
        }
        int32_t a = ((r0[cx] & 1) * (256 - fx) + (r0[cx1] & 1) * fx) * (256 - fy) +
                    ((r1[cx] & 1) * (256 - fx) + (r1[cx1] & 1) * fx) * fy; /* 0..65536 */
        if (a)
            rp_blend_px(p, bpp, wc, a);
    }
}

/* Rows y0..y1-1 of the frame rgb with the walls drawn over them: per row, each run of wall
 * cells in its two grid rows, over the columns that can reach it (wall_columns), each
 * column at most once. */
static void wall_paint(const rp_engine *e, const uint8_t *walls, uint8_t *rgb, int bpp, int y0,
                       int y1)
{
    const rp_settings *s = &e->s;
    const int32_t *span = e->wall_span;
    int gw = s->water.width, gh = s->water.height, ow = s->out_width, oh = s->out_height;
    for (int y = y0; y < y1; y++) {
        int32_t v = wall_tap(y, gh, oh);
        int cy = v >> 8, fy = v & 255;
        int cy1 = cy + 1 < gh ? cy + 1 : gh - 1;
        int lo0 = span[2 * cy], hi0 = span[2 * cy + 1];
        int lo1 = span[2 * cy1], hi1 = span[2 * cy1 + 1];
        int lo = lo0 < lo1 ? lo0 : lo1, hi = hi0 > hi1 ? hi0 : hi1;
        const uint8_t *r0 = walls + (size_t)cy * gw, *r1 = walls + (size_t)cy1 * gw;
        uint8_t *row = rgb + (size_t)y * ow * bpp;
        const uint8_t *img_row = e->wall_img ? e->wall_img + (size_t)y * ow * 3 : NULL;
        int done = 0; /* columns before this one are drawn */
        for (int c = lo; c <= hi;) {
            while (c <= hi && !((r0[c] | r1[c]) & 1))
                c++;
            if (c > hi)
                break;
            int c0 = c, x0, x1;
            while (c <= hi && ((r0[c] | r1[c]) & 1))
                c++;
            wall_columns(c0, c - 1, gw, ow, &x0, &x1);
            wall_run(e, r0, r1, fy, row, bpp, img_row, x0 > done ? x0 : done, x1);
            done = x1 > done ? x1 : done;
        }
    }
}

/* One frame's rows: the look, then (walls non-NULL) the walls over them while the rows are
 * still in this thread's cache. */
typedef struct frame_job {
    rp_engine *e;
    const uint8_t *bg; /* NULL: the light layer alone, RGBA */
    uint8_t *rgb;
    const uint8_t *walls; /* `walls visible`: the grid's wall cells, or NULL */
    int64_t k;            /* the frame */
    int premultiplied;    /* the layer's colour premultiplied by its alpha at the end */
} frame_job;

/* The rectangles and circles as shapes, then the moving walls where they are at the
 * frame's instant (obstacle.h). */
static void draw_obstacles(const frame_job *j, int y0, int y1)
{
    const rp_engine *e = j->e;
    const rp_light_params *l = e->light ? &e->light_now : &e->s.light; /* keyed: this frame's */
    int64_t num, den;
    int32_t sx, sy;
    rp_obstacles_sun(l->azimuth_mdeg, l->elevation_mdeg, &sx, &sy);
    if (e->s.look.mode != RP_RENDER_LIGHT) /* the seed presets' renders have no sun */
        sx = sy = 0;
    if (e->shapes)
        rp_obstacles_draw(e->shapes, 0, 1, e->s.water.width, e->s.water.height, e->s.out_width,
                          e->s.out_height, e->s.wall_rgb, sx, sy, j->rgb, j->bg ? 3 : 4, y0, y1);
    rp_obstacles_lead(j->k, e->clock.rate, e->clock.fps, e->clock.fps_den, &num, &den);
    rp_obstacles_draw(e->obstacles, num, den, e->s.water.width, e->s.water.height, e->s.out_width,
                      e->s.out_height, e->s.wall_rgb, sx, sy, j->rgb, j->bg ? 3 : 4, y0, y1);
}

static void upscale_rows(void *ctx, int worker, int y0, int y1)
{
    frame_job *j = ctx;
    rp_engine *e = j->e;
    const int w = e->s.out_width, words = RP_LIGHT_BLOCK_WORDS(w);
    const uint8_t *still = rp_water_still_rows(e->water);
    /* Runs of rows upscaled, each up to a row that reads only still grid rows: that one is 0
     * without the work. Each row is looked at once. */
    for (int y = y0; y < y1;) {
        int run = y;
        while (run < y1 && !rp_upscale_row_still(e->upscale, still, run))
            run++;
        if (run > y)
            rp_upscale_rows_s(e->upscale, rp_water_heights(e->water), e->heights_q8, y, run,
                              e->upscale_mem + (size_t)worker * e->upscale_each);
        for (; y < run; y++)
            rp_light_nonzero_blocks(e->heights_q8 + (size_t)y * w, w,
                                    e->nonzero + (size_t)y * words);
        if (run < y1) {
            memset(e->heights_q8 + (size_t)run * w, 0, (size_t)w * sizeof *e->heights_q8);
            memset(e->nonzero + (size_t)run * words, 0, (size_t)words * sizeof *e->nonzero);
            y = run + 1;
        }
    }
}

static void light_rows(void *ctx, int y0, int y1)
{
    frame_job *j = ctx;
    if (j->bg)
        rp_light_rows_rgb(j->e->light, &j->e->geom, j->e->heights_q8, j->bg, j->rgb, y0, y1);
    else
        rp_light_rows_rgba(j->e->light, &j->e->geom, j->e->heights_q8, j->rgb, y0, y1);
    int bpp = j->bg ? 3 : 4;
    if (j->walls)
        wall_paint(j->e, j->walls, j->rgb, bpp, y0, y1);
    if (j->e->s.walls_visible)
        draw_obstacles(j, y0, y1);
    /* last, so the walls are blended over the straight layer first (obstacle.h) */
    if (j->premultiplied)
        rp_light_premultiply(j->rgb + (size_t)y0 * j->e->s.out_width * 4,
                             (size_t)(y1 - y0) * j->e->s.out_width);
}

static void wall_rows(void *ctx, int y0, int y1)
{
    frame_job *j = ctx;
    if (j->walls)
        wall_paint(j->e, j->walls, j->rgb, 3, y0, y1);
    if (j->e->s.walls_visible)
        draw_obstacles(j, y0, y1);
}

/* `walls visible`: the grid's wall cells to draw (their row spans brought up to date), or
 * NULL. */
static const uint8_t *visible_walls(rp_engine *e)
{
    const rp_settings *s = &e->s;
    const uint8_t *walls = e->any_mask ? e->mask_cells : NULL;
    if (!s->walls_visible || !e->wall_span)
        return NULL;
    if (walls && e->walls_changed) {
        wall_spans(walls, s->water.width, s->water.height, e->wall_span);
        e->walls_changed = 0;
    }
    return walls;
}

int rp_engine_frame(rp_engine *e, int64_t k, const uint8_t *bg, uint8_t *pixels,
                    volatile sig_atomic_t *stop)
{
    const rp_settings *s = &e->s;
    if (rp_engine_advance(e, rp_clock_steps(&e->clock, k), stop))
        return 1;
    const uint8_t *walls = visible_walls(e);
    frame_job job = {e, bg, pixels, walls, k, 0};
    if (s->look.mode != RP_RENDER_LIGHT) {
        rp_render_frame(&s->look, rp_water_heights(e->water), s->out_width, s->out_height, bg,
                        pixels, e->pool);
        if (walls || (s->walls_visible && (rp_obstacles_any(e->obstacles) ||
                                           (e->shapes && rp_obstacles_any(e->shapes)))))
            rp_pool_run(e->pool, s->out_height, wall_rows, &job);
    } else {
        update_light(e, k);
        rp_pool_run_w(e->pool, s->out_height, upscale_rows, &job);
        rp_pool_run(e->pool, s->out_height, light_rows, &job);
    }
    return 0;
}

int rp_engine_frame_layer(rp_engine *e, int64_t k, uint8_t *rgba, int premultiplied,
                          volatile sig_atomic_t *stop)
{
    if (e->s.look.mode != RP_RENDER_LIGHT || !e->light)
        return RP_ERR_INVALID;
    if (rp_engine_advance(e, rp_clock_steps(&e->clock, k), stop))
        return 1;
    frame_job job = {e, NULL, rgba, visible_walls(e), k, premultiplied};
    update_light(e, k);
    rp_pool_run_w(e->pool, e->s.out_height, upscale_rows, &job);
    rp_pool_run(e->pool, e->s.out_height, light_rows, &job);
    return 0;
}

void rp_engine_free(rp_engine **pe)
{
    rp_engine *e = pe ? *pe : NULL;
    if (!e)
        return;
    rp_upscale_free(&e->upscale);
    free(e->upscale_mem);
    rp_light_free(&e->light);
    free(e->heights_q8);
    free(e->nonzero);
    free(e->wall_span);
    free(e->wall_tap);
    free(e->wall_img);
    free(e->mask_cells);
    rp_obstacles_free(&e->shapes);
    rp_water_free(&e->water);
    rp_timeline_free(&e->tl);
    rp_obstacles_free(&e->obstacles);
    free(e);
    *pe = NULL;
}
