/* events.c - the timeline: turns a parsed scene's events into per-frame items for the
 * simulation (rockpool-scene(5) TIMELINE, RAIN and STROKES). Percent coordinates are resolved
 * against the final size, rain is drawn from the seeded SplitMix64 generator, strokes are sampled
 * into dabs, and the items are sorted by frame, then by statement order.
 *
 * Times are converted to exact ticks of 1/(fps * 1000000) s, so spans given in seconds,
 * milliseconds or frames mix without rounding. All arithmetic is integer (128-bit where
 * products can pass 2^63); the exact rules are the contract in rockpool-scene(5), which
 * tests/tools/rain_ref.py reproduces independently. */
#include "base/common.h"
#include "base/diag.h"
#include "scene/scene.h"
#include "scene/timeline.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICKS_PER_FRAME INT64_C(1000000)
#define PCT_FULL INT64_C(100000000) /* 100% in millionths of a percent */
#define GOLDEN UINT64_C(0x9E3779B97F4A7C15)

typedef unsigned __int128 u128;
typedef __int128 i128;

struct rp_timeline {
    rp_item *items;
    size_t n, cap;
    int64_t frames;
    rp_timeline_stats stats;
};

/* State of one rp_timeline_build call: the statement being expanded, for messages. */
typedef struct builder {
    rp_settings grid; /* a copy of the settings with the grid filled in, when they have none */
    int64_t clock;    /* items per second: the simulation rate, or fps for one step a frame */
    rp_timeline *tl;
    const rp_settings *final;
    rp_diag *diag;
    const rp_event *ev;
    volatile sig_atomic_t *stop; /* the caller's stop request (may be NULL) */
    const rp_scene *scene;
    size_t ev_index;
} builder;

uint64_t rp_splitmix64(uint64_t *state)
{
    uint64_t z;

    *state += GOLDEN;
    z = *state;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A uniform integer in lo..hi (lo <= hi, hi - lo < 2^32): the top 32 bits of the next
 * value, scaled by multiplication (rockpool-scene(5), RAIN). */
static int64_t uniform(uint64_t *state, int64_t lo, int64_t hi)
{
    uint64_t top = rp_splitmix64(state) >> 32;
    return lo + (int64_t)((top * (uint64_t)(hi - lo + 1)) >> 32);
}

static int64_t clamp64(i128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* floor(a / b) for b > 0. */
static i128 floordiv(i128 a, i128 b)
{
    i128 q = a / b;
    if (a % b != 0 && a < 0)
        q--;
    return q;
}

int64_t rp_time_ticks(rp_time t, int fps)
{
    if (t.is_frames)
        return clamp64((i128)t.value * TICKS_PER_FRAME);
    return clamp64((i128)t.value * fps);
}

int64_t rp_time_frame(rp_time t, int fps)
{
    if (t.is_frames)
        return t.value;
    if (fps <= 0)
        return 0;
    return clamp64(floordiv((i128)t.value * fps, TICKS_PER_FRAME));
}

int64_t rp_time_frames(rp_time t, int fps)
{
    if (t.is_frames)
        return t.value;
    if (fps <= 0)
        return 0;
    return clamp64(-floordiv(-((i128)t.value * fps), TICKS_PER_FRAME));
}

/* Report an error at col of the current statement's line. */
#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif
static int fail(builder *b, int err, int col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static int fail(builder *b, int err, int col, const char *fmt, ...)
{
    va_list ap;
    rp_diag *d = b->diag;
    size_t n = 0;

    d->line = b->ev ? b->ev->line : 0;
    d->col = b->ev ? col : 0;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    if (b->ev) {
        /* The line is valid UTF-8 (it parsed): cut at a character boundary. */
        n = b->ev->text_len;
        if (n >= sizeof d->source_line) {
            n = sizeof d->source_line - 1;
            while (n > 0 && ((unsigned char)b->ev->text[n] & 0xC0) == 0x80)
                n--;
        }
        memcpy(d->source_line, b->ev->text, n);
    }
    d->source_line[n] = '\0';
    return err;
}

/* Append an item (frame < frames) or count it after the end. */
static int push(builder *b, const rp_item *it)
{
    rp_timeline *tl = b->tl;

    if (it->frame >= tl->frames) {
        tl->stats.after_end++;
        return RP_OK;
    }
    if ((tl->n & 0xffff) == 0 && b->stop && *b->stop)
        return fail(b, RP_ERR_INTERRUPTED, 0, "interrupted");
    if (tl->n == tl->cap) {
        size_t cap = tl->cap ? 2 * tl->cap : 256;
        rp_item *items;
        if (tl->n >= RP_TIMELINE_MAX_ITEMS)
            return fail(b, RP_ERR_TOO_LARGE, b->ev->col,
                        "the timeline would hold more than %zu items (drops, dabs and walls); "
                        "lower the rain rate or render fewer frames",
                        (size_t)RP_TIMELINE_MAX_ITEMS);
        if (cap > RP_TIMELINE_MAX_ITEMS)
            cap = RP_TIMELINE_MAX_ITEMS;
        items = realloc(tl->items, cap * sizeof *items);
        if (!items)
            return fail(b, RP_ERR_NOMEM, b->ev->col, "out of memory for the timeline");
        tl->items = items;
        tl->cap = cap;
    }
    tl->items[tl->n++] = *it;
    if (it->kind == RP_ITEM_DROP)
        tl->stats.drops++;
    else
        tl->stats.walls++;
    return RP_OK;
}

/* A coordinate against a side of `size` cells: pixels must lie on the grid; a percentage
 * p gives floor(size * p / 100), and exactly 100% gives size - 1. */
static int coord(builder *b, rp_coord c, int size, const char *what, int64_t *out)
{
    int64_t v;

    if (!c.is_percent) {
        v = c.value;
        if (v < 0 || v >= size)
            return fail(b, RP_ERR_INVALID, c.col, "%s %lld is off the grid (0..%d)", what,
                        (long long)v, size - 1);
    } else if (c.value >= PCT_FULL) {
        v = size - 1;
    } else {
        v = (int64_t)size * c.value / PCT_FULL;
    }
    *out = v;
    return RP_OK;
}

/* A length along a side of `size` cells: pixels, or floor(size * p / 100); at least 1. */
static int length(builder *b, rp_coord c, int size, const char *what, int64_t *out)
{
    int64_t v = c.is_percent ? (int64_t)size * c.value / PCT_FULL : c.value;

    if (v < 1)
        return fail(b, RP_ERR_INVALID, c.col, "%s %lld.%06lld%% of %d is less than one cell", what,
                    (long long)(c.value / 1000000), (long long)(c.value % 1000000), size);
    *out = v;
    return RP_OK;
}

/* A time in ticks of 1/(clock * 10^6) s: microseconds times the clock, or a frame number
 * of the output's fps / fps_den converted exactly (floor) when the clock is a rate of its
 * own; with one step a frame, a frame number is its item index times 10^6. */
static int64_t ticks(const builder *b, rp_time t)
{
    const rp_time_settings *ts = &b->final->time;
    if (!t.is_frames)
        return clamp64((i128)t.value * b->clock);
    if (ts->rate <= 0)
        return clamp64((i128)t.value * TICKS_PER_FRAME);
    return clamp64(floordiv((i128)t.value * TICKS_PER_FRAME * ts->rate * ts->fps_den, ts->fps));
}

/* The item index (frame or step) a time falls in. */
static int64_t index_of(const builder *b, rp_time t)
{
    return clamp64(floordiv(ticks(b, t), TICKS_PER_FRAME));
}

/* Scene coordinates to grid cells: the identity when the grid is the scene's size
 * (every seed preset), else floor(v * grid / size); lengths at least 1. */
static int32_t to_grid(int64_t v, int size, int grid)
{
    return (int32_t)(grid == size ? v : v * grid / size);
}

static int32_t to_grid_len(int64_t v, int size, int grid)
{
    int64_t g = grid == size ? v : (v * grid + size / 2) / size;
    return (int32_t)(g < 1 ? 1 : g);
}

/* A radius as written: scene pixels, or (radius_pct) millionths of a percent of the scene
 * width, at least one pixel. */
static int64_t radius_of(const builder *b, int64_t v)
{
    if (!b->ev->radius_pct)
        return v;
    v = (int64_t)b->final->width * v / PCT_FULL;
    return v < 1 ? 1 : v;
}

/* A drop's, rain's or stroke's radius given as a percentage is held, once it is pixels of
 * the final width, to the range a radius in pixels is (1..RP_RADIUS_MAX): "radius 50%" of
 * 16384 pixels is refused as "radius 8192" is. */
static int check_radius(builder *b)
{
    const rp_event *ev = b->ev;
    if (!ev->radius_pct ||
        (ev->kind != RP_EVENT_DROP && ev->kind != RP_EVENT_RAIN && ev->kind != RP_EVENT_STROKE))
        return RP_OK;
    for (int i = 1; i >= 0; i--) { /* the range's end first: the larger */
        int64_t v = i ? ev->radius_hi : ev->radius_lo, px = radius_of(b, v);
        char pct[32];
        int n;
        if (px <= RP_RADIUS_MAX)
            continue;
        /* the percentage as written, without trailing zeros */
        n = snprintf(pct, sizeof pct, "%lld.%06lld", (long long)(v / (PCT_FULL / 100)),
                     (long long)(v % (PCT_FULL / 100)));
        while (n > 0 && pct[n - 1] == '0')
            pct[--n] = '\0';
        if (n > 0 && pct[n - 1] == '.')
            pct[--n] = '\0';
        return fail(b, RP_ERR_INVALID, i ? ev->radius_hi_col : ev->radius_col,
                    "radius %s%% of the width %d is %lld pixels, out of range (1..%d)", pct,
                    b->final->width, (long long)px, RP_RADIUS_MAX);
    }
    return RP_OK;
}

/* The span's ticks, checked again now that fps is final (mixed units). */
static int span(builder *b, int64_t *a, int64_t *e)
{
    const rp_event *ev = b->ev;

    *a = ticks(b, ev->start);
    *e = ticks(b, ev->end);
    if (*e > *a)
        return RP_OK;
    char rate[64];
    rp_rate_text(b->final->time.fps, b->final->time.fps_den, rate, sizeof rate);
    return fail(b, RP_ERR_INVALID, ev->time_col,
                "reversed span '%.*s' at %s fps: the end must be after the start",
                (int)ev->time_len, ev->time_text, rate);
}

static int64_t key_gain(const builder *b, enum rp_key_what what, int64_t s);
static void span_steps(int64_t a, int64_t e, int64_t *k0, int64_t *k1);

static void drop_item(builder *b, rp_item *it, int64_t frame, int64_t x, int64_t y, int64_t r,
                      int64_t h)
{
    const rp_event *ev = b->ev;

    memset(it, 0, sizeof *it);
    it->frame = frame;
    it->kind = RP_ITEM_DROP;
    it->drop.x = to_grid(x, b->final->width, b->final->water.width);
    it->drop.y = to_grid(y, b->final->height, b->final->water.height);
    it->drop.radius = to_grid_len(r, b->final->width, b->final->water.width);
    /* `strength`: the height times strength_milli / 1000, rounded half away from zero (1000:
     * the height as written, to the byte). Not cut to int16: a height beyond it saturates
     * cell by cell where the drop's shape exceeds it (water.c), as a keyed height does at
     * strength 1, so the water grows with the strength on both sides of 1; kept within
     * int32 (the shape's products are 64-bit). */
    if (b->final->strength_milli != 1000) {
        int64_t m = h * b->final->strength_milli;
        h = (m < 0 ? -((-m + 500) / 1000) : (m + 500) / 1000);
    }
    h = h < INT32_MIN ? INT32_MIN : h > INT32_MAX ? INT32_MAX : h;
    it->drop.height = (int32_t)h;
    it->drop.shape = ev->shape < 0 ? b->final->shape : (enum rp_shape)ev->shape;
    it->drop.mode = ev->mode < 0 ? b->final->mode : (enum rp_mode)ev->mode;
}

static int expand_drop(builder *b)
{
    const rp_event *ev = b->ev;
    int64_t x = 0, y = 0;
    rp_item it;
    int ret;

    if ((ret = coord(b, ev->x, b->final->width, "x coordinate", &x)) ||
        (ret = coord(b, ev->y, b->final->height, "y coordinate", &y)))
        return ret;
    drop_item(b, &it, index_of(b, ev->start), x, y, radius_of(b, ev->radius_lo), ev->height_lo);
    return push(b, &it);
}

/* Rain over [A, B) at R = rate_milli / 1000 drops/s: N = floor((B - A) * R) drops; drop j
 * draws u (top 32 bits), x, y, radius, height in this order and falls at
 * t = A + (j * 2^32 + u) / (R * 2^32) seconds, in frame floor(t * fps), computed exactly:
 *   frame = floor((A_ticks * Rm * 2^32 + (j * 2^32 + u) * fps * 10^9) / (Rm * 2^32 * 10^6))
 * Frames grow with j, so the first drop after the last frame ends the loop. */
static int expand_rain(builder *b)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    int64_t a = 0, e = 0, j, count;
    uint64_t state = f->seed ^ (GOLDEN * (uint64_t)(ev->rain_index + 1));
    u128 rm = (u128)(uint64_t)ev->rate_milli, den, base;
    int ret;

    if ((ret = span(b, &a, &e)))
        return ret;
    count = (int64_t)((u128)(uint64_t)(e - a) * rm / ((u128)(uint64_t)b->clock * 1000000000u));
    den = (rm << 32) * TICKS_PER_FRAME;
    base = (u128)(uint64_t)a * (rm << 32);
    for (j = 0; j < count; j++) {
        uint64_t u = rp_splitmix64(&state) >> 32;
        int64_t x = uniform(&state, 0, f->width - 1);
        int64_t y = uniform(&state, 0, f->height - 1);
        int64_t r = radius_of(b, uniform(&state, ev->radius_lo, ev->radius_hi));
        int64_t h = uniform(&state, ev->height_lo, ev->height_hi);
        u128 num = base + (((u128)(uint64_t)j << 32) | u) * (uint64_t)b->clock * 1000000000u;
        int64_t frame = (int64_t)(num / den);
        rp_item it;

        if (frame >= b->tl->frames) {
            b->tl->stats.after_end += (size_t)(count - j);
            break;
        }
        if (rp_scene_keys(b->scene, RP_KEY_RAIN)) /* `key rain`: heights scaled at the step */
            h = (int64_t)floordiv((i128)h * key_gain(b, RP_KEY_RAIN, frame), 1000);
        if (rp_scene_keys(b->scene, RP_KEY_RAIN_RATE)) {
            /* `key rain-rate`: drop j falls when a draw of its own (not the sequence's, so
             * the drops that fall are those of the full rate) is below the share */
            uint64_t own = state ^ ((uint64_t)j * GOLDEN);
            if ((int64_t)(rp_splitmix64(&own) % 1000) >= key_gain(b, RP_KEY_RAIN_RATE, frame)) {
                continue;
            }
        }
        drop_item(b, &it, frame, x, y, r, h);
        if ((ret = push(b, &it)))
            return ret;
        b->tl->stats.rain_drops++;
    }
    return RP_OK;
}

/* A stroke from P0 to P1 over [A, B): frames k0 = floor(A) .. k1 = max(k0, ceil(B) - 1)
 * (n = k1 - k0 + 1 frames); S = max(n - 1, ceil(D / s)) segments, D = max(|dx|, |dy|),
 * s = max(1, radius); dab m = 0..S at P0 + floor(m * d / S) in frame
 * k0 + floor(m * (n - 1) / S). Every frame of the span gets a dab, and consecutive dabs
 * differ by at most s in x and in y. */
static int expand_stroke(builder *b)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    int64_t a = 0, e = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0, k0, k1, n, dx, dy, d, s, segs, m;
    int ret;

    if ((ret = span(b, &a, &e)) || (ret = coord(b, ev->x, f->width, "x coordinate", &x0)) ||
        (ret = coord(b, ev->y, f->height, "y coordinate", &y0)) ||
        (ret = coord(b, ev->x2, f->width, "x coordinate", &x1)) ||
        (ret = coord(b, ev->y2, f->height, "y coordinate", &y1)))
        return ret;
    k0 = a / TICKS_PER_FRAME;
    k1 = (e + TICKS_PER_FRAME - 1) / TICKS_PER_FRAME - 1;
    if (k1 < k0)
        k1 = k0;
    n = k1 - k0 + 1;
    dx = x1 - x0;
    dy = y1 - y0;
    d = dx < 0 ? -dx : dx;
    if ((dy < 0 ? -dy : dy) > d)
        d = dy < 0 ? -dy : dy;
    s = radius_of(b, ev->radius_lo);
    s = s > 1 ? s : 1;
    segs = (d + s - 1) / s;
    if (n - 1 > segs)
        segs = n - 1;
    for (m = 0; m <= segs; m++) {
        rp_item it;
        int64_t frame = k0, x = x0, y = y0;
        if (segs > 0) {
            frame = k0 + (int64_t)((i128)m * (n - 1) / segs);
            x = x0 + (int64_t)floordiv((i128)m * dx, segs);
            y = y0 + (int64_t)floordiv((i128)m * dy, segs);
        }
        if (frame >= b->tl->frames) {
            b->tl->stats.after_end += (size_t)(segs + 1 - m);
            break;
        }
        drop_item(b, &it, frame, x, y, radius_of(b, ev->radius_lo), ev->height_lo);
        if ((ret = push(b, &it)))
            return ret;
        b->tl->stats.stroke_dabs++;
    }
    return RP_OK;
}

static int expand_wall(builder *b)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    int64_t x = 0, y = 0, w = 0, h = 0;
    rp_item it;
    int ret;

    memset(&it, 0, sizeof it);
    it.frame = index_of(b, ev->start);
    if (ev->kind != RP_EVENT_WALL_MASK && ((ret = coord(b, ev->x, f->width, "x coordinate", &x)) ||
                                           (ret = coord(b, ev->y, f->height, "y coordinate", &y))))
        return ret;
    it.x = to_grid(x, f->width, f->water.width);
    it.y = to_grid(y, f->height, f->water.height);
    if (ev->kind == RP_EVENT_WALL_RECT) {
        if ((ret = length(b, ev->w, f->width, "wall width", &w)) ||
            (ret = length(b, ev->h, f->height, "wall height", &h)))
            return ret;
        if (x + w > f->width)
            return fail(b, RP_ERR_INVALID, ev->w.col,
                        "wall rect passes the right edge (x %lld + width %lld > %d)", (long long)x,
                        (long long)w, f->width);
        if (y + h > f->height)
            return fail(b, RP_ERR_INVALID, ev->h.col,
                        "wall rect passes the bottom edge (y %lld + height %lld > %d)",
                        (long long)y, (long long)h, f->height);
        it.kind = RP_ITEM_WALL_RECT;
        it.w = to_grid_len(w, f->width, f->water.width);
        it.h = to_grid_len(h, f->height, f->water.height);
    } else if (ev->kind == RP_EVENT_WALL_CIRCLE) {
        it.kind = RP_ITEM_WALL_CIRCLE;
        it.r = to_grid_len(radius_of(b, ev->radius_lo), f->width, f->water.width);
    } else {
        it.kind = RP_ITEM_WALL_MASK;
        it.mask_path = ev->path;
    }
    return push(b, &it);
}

/* ---- motion (rockpool-scene(5) PATHS, MOVING WALLS, EMITTERS) ---------------------------- */

/* The steps an event spans: k0 = floor(A) .. k1 = max(k0, ceil(B) - 1). */
static void span_steps(int64_t a, int64_t e, int64_t *k0, int64_t *k1)
{
    *k0 = a / TICKS_PER_FRAME;
    *k1 = (e + TICKS_PER_FRAME - 1) / TICKS_PER_FRAME - 1;
    if (*k1 < *k0)
        *k1 = *k0;
}

/* The path of b->ev over ticks a..e, in 1/256 grid cell: points resolved like every
 * coordinate, times from the path's `times` (offsets from a) or for constant speed. */
static int path_geo(builder *b, int64_t a, int64_t e, rp_path_geo *g)
{
    const rp_settings *f = b->final;
    const rp_path *p = rp_scene_path(b->scene, b->ev->along);
    memset(g, 0, sizeof *g);
    g->n = p->n;
    g->smooth = p->smooth;
    for (int i = 0; i < p->n; i++) {
        int64_t x = 0, y = 0;
        int ret;
        if ((ret = coord(b, p->x[i], f->width, "path x coordinate", &x)) ||
            (ret = coord(b, p->y[i], f->height, "path y coordinate", &y)))
            return ret;
        /* the pixel's centre, on the grid */
        g->x[i] = ((2 * x + 1) * 128) * f->water.width / f->width;
        g->y[i] = ((2 * y + 1) * 128) * f->water.height / f->height;
        if (p->has_times)
            g->t[i] = a + ticks(b, p->t[i]);
    }
    if (!p->has_times)
        rp_path_constant_speed(g, a, e);
    return RP_OK;
}

/* Check the points of the scene's paths defined before line (every path that is left with
 * INT_MAX) against the final size, as path_geo resolves them, from path *next on: a path
 * no event uses is held to the grid as a used one is, and its error is at its own line. */
static int check_paths(builder *b, const rp_scene *scene, int line, int *next)
{
    const rp_event *ev = b->ev;
    const rp_path *p;
    int ret = RP_OK;
    for (; !ret && (p = rp_scene_path(scene, *next)) && p->line < line; ++*next) {
        /* the path's line as the statement at fault (fail() reports b->ev's) */
        rp_event at = {.line = p->line, .col = p->col, .text = p->text, .text_len = p->text_len};
        int64_t v;
        b->ev = &at;
        for (int i = 0; !ret && i < p->n; i++)
            if ((ret = coord(b, p->x[i], b->final->width, "path x coordinate", &v)) == RP_OK)
                ret = coord(b, p->y[i], b->final->height, "path y coordinate", &v);
    }
    b->ev = ev;
    return ret;
}

/* The time of step s (the instant its items apply) in ticks. */
static int64_t step_ticks(int64_t s)
{
    return s * TICKS_PER_FRAME;
}

/* A stroke along a path: on each step of the span a dab where the path is at that
 * instant, and between two steps' places as many more as keep consecutive dabs at most a
 * radius apart. */
static int expand_stroke_along(builder *b)
{
    const rp_settings *f = b->final;
    const rp_event *ev = b->ev;
    int64_t a = 0, e = 0, k0, k1, px = 0, py = 0;
    rp_path_geo g;
    int ret;
    if ((ret = span(b, &a, &e)) || (ret = path_geo(b, a, e, &g)))
        return ret;
    span_steps(a, e, &k0, &k1);
    int64_t r = radius_of(b, ev->radius_lo);
    int64_t rg = (int64_t)to_grid_len(r, f->width, f->water.width) << 8;
    for (int64_t s = k0; s <= k1 && s < b->tl->frames; s++) {
        int64_t x, y;
        rp_path_at(&g, step_ticks(s), &x, &y);
        int64_t dx = x - px, dy = y - py,
                d = (dx < 0 ? -dx : dx) > (dy < 0 ? -dy : dy) ? (dx < 0 ? -dx : dx)
                                                              : (dy < 0 ? -dy : dy);
        int64_t n = s == k0 ? 1 : (d + rg - 1) / (rg > 0 ? rg : 256);
        n = n < 1 ? 1 : n;
        for (int64_t j = 1; j <= n; j++) {
            int64_t qx = s == k0 ? x : px + (int64_t)floordiv((i128)dx * j, n);
            int64_t qy = s == k0 ? y : py + (int64_t)floordiv((i128)dy * j, n);
            rp_item it;
            /* drop_item takes scene pixels: back from the grid's 1/256 cells */
            drop_item(b, &it, s, (qx >> 8) * f->width / f->water.width,
                      (qy >> 8) * f->height / f->water.height, r, ev->height_lo);
            if ((ret = push(b, &it)))
                return ret;
            b->tl->stats.stroke_dabs++;
        }
        px = x;
        py = y;
    }
    return RP_OK;
}

/* A wall moving along a path: an obstacle item on each step of the span with where it is
 * and how far it moved, and one more after the span, when it leaves the water. */
static int expand_wall_along(builder *b)
{
    const rp_settings *f = b->final;
    const rp_event *ev = b->ev;
    int64_t a = 0, e = 0, k0, k1, px = 0, py = 0, w = 0, h = 0;
    rp_path_geo g;
    int ret;
    if ((ret = span(b, &a, &e)) || (ret = path_geo(b, a, e, &g)))
        return ret;
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    it.id = (int)b->ev_index;
    it.push = ev->push;
    it.circle = ev->kind == RP_EVENT_WALL_CIRCLE;
    it.mask_path = ev->kind == RP_EVENT_WALL_MASK ? ev->path : NULL;
    if (it.circle) {
        it.r = (int)(((int64_t)to_grid_len(radius_of(b, ev->radius_lo), f->width, f->water.width))
                     << 8);
    } else {
        if ((ret = length(b, ev->w, f->width, "wall width", &w)) ||
            (ret = length(b, ev->h, f->height, "wall height", &h)))
            return ret;
        it.w = (int)((w << 8) * f->water.width / f->width);
        it.h = (int)((h << 8) * f->water.height / f->height);
    }
    span_steps(a, e, &k0, &k1);
    for (int64_t s = k0; s <= k1 + 1 && s < b->tl->frames; s++) {
        int64_t x, y;
        rp_path_at(&g, step_ticks(s), &x, &y);
        it.frame = s;
        it.x = (int)x;
        it.y = (int)y;
        it.dx = s == k0 ? 0 : (int)(x - px);
        it.dy = s == k0 ? 0 : (int)(y - py);
        it.gone = s == k1 + 1;
        if ((ret = push(b, &it)))
            return ret;
        px = x;
        py = y;
    }
    return RP_OK;
}

/* The per-mille gain of key `what` at step s (1000 without keys). */
static int64_t key_gain(const builder *b, enum rp_key_what what, int64_t s)
{
    const rp_keys *k = rp_scene_keys(b->scene, what);
    return k ? rp_keys_at(k, s * 1000000, b->clock) : 1000;
}

/* The emitter's height at step s (ticks t from its start a, span a..e): amplitude *
 * envelope * sin(2 pi f t), the phase in Q32 of a turn taken exactly from the ticks. */
static int64_t emit_height(const builder *b, int64_t s, int64_t a, int64_t e)
{
    const rp_event *ev = b->ev;
    int64_t t = step_ticks(s) - a;
    if (t < 0 || step_ticks(s) > e)
        return 0;
    u128 turns = ((u128)(uint64_t)ev->freq_milli * (uint64_t)t << 32) /
                 ((u128)1000 * (uint64_t)b->clock * TICKS_PER_FRAME);
    uint32_t phase = (uint32_t)turns;
    i128 v = (i128)ev->amplitude * rp_sin_q15(phase) * key_gain(b, RP_KEY_AMPLITUDE, s);
    i128 fade = (i128)ev->fade_us * b->clock, env_num = fade, env_den = fade;
    if (fade > 0) { /* a linear attack and release of `fade` */
        i128 left = e - step_ticks(s);
        env_num = t < left ? t : left;
        if (env_num > fade)
            env_num = fade;
    } else {
        env_num = env_den = 1;
    }
    return (int64_t)floordiv(v * env_num, (i128)32767 * 1000 * env_den);
}

/* An emitter: on each step of its span its cells set to its oscillation's height (a hard
 * source, a disc of its radius, like a piston), at the point, or along the line as discs
 * half a radius apart. */
static int expand_emit(builder *b)
{
    const rp_settings *f = b->final;
    const rp_event *ev = b->ev;
    int64_t a = 0, e = 0, k0, k1, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    int ret;
    if ((ret = span(b, &a, &e)) || (ret = coord(b, ev->x, f->width, "x coordinate", &x0)) ||
        (ret = coord(b, ev->y, f->height, "y coordinate", &y0)))
        return ret;
    x1 = x0;
    y1 = y0;
    if (ev->kind == RP_EVENT_EMIT_LINE &&
        ((ret = coord(b, ev->x2, f->width, "x coordinate", &x1)) ||
         (ret = coord(b, ev->y2, f->height, "y coordinate", &y1))))
        return ret;
    if ((i128)ev->freq_milli * 2 > (i128)b->clock * 1000)
        return fail(b, RP_ERR_INVALID, ev->freq_col,
                    "frequency %lld.%03lld Hz is above half the simulation's rate (%lld steps "
                    "a second): the highest it can be is %lld.%03lld Hz",
                    (long long)(ev->freq_milli / 1000), (long long)(ev->freq_milli % 1000),
                    (long long)b->clock, (long long)(b->clock * 500 / 1000),
                    (long long)(b->clock * 500 % 1000));
    int64_t r = ev->radius_lo, dx = x1 - x0, dy = y1 - y0;
    int64_t d =
        (dx < 0 ? -dx : dx) > (dy < 0 ? -dy : dy) ? (dx < 0 ? -dx : dx) : (dy < 0 ? -dy : dy);
    int64_t gap = r / 2 > 0 ? r / 2 : 1, n = d / gap + 1;
    span_steps(a, e, &k0, &k1);
    for (int64_t s = k0; s <= k1 && s < b->tl->frames; s++) {
        int64_t h = emit_height(b, s, a, e);
        for (int64_t j = 0; j < n; j++) {
            rp_item it;
            int64_t x = n > 1 ? x0 + (int64_t)floordiv((i128)dx * j, n - 1) : x0;
            int64_t y = n > 1 ? y0 + (int64_t)floordiv((i128)dy * j, n - 1) : y0;
            drop_item(b, &it, s, x, y, r, h);
            it.drop.shape = RP_SHAPE_DISC;
            it.drop.mode = RP_MODE_SET;
            if ((ret = push(b, &it)))
                return ret;
        }
    }
    return RP_OK;
}

/* Stable merge sort of the items by frame (statement order is generation order). */
static int sort_items(rp_item *items, rp_item *tmp, size_t n, volatile sig_atomic_t *stop)
{
    size_t width, i;

    for (width = 1; width < n; width *= 2) {
        if (stop && *stop)
            return RP_ERR_INTERRUPTED;
        for (i = 0; i < n; i += 2 * width) {
            size_t lo = i, mid = i + width, hi = i + 2 * width, p, q, o = i;
            if (mid >= n) {
                memcpy(tmp + lo, items + lo, (n - lo) * sizeof *items);
                continue;
            }
            if (hi > n)
                hi = n;
            p = lo;
            q = mid;
            while (p < mid && q < hi)
                tmp[o++] = items[q].frame < items[p].frame ? items[q++] : items[p++];
            while (p < mid)
                tmp[o++] = items[p++];
            while (q < hi)
                tmp[o++] = items[q++];
        }
        memcpy(items, tmp, n * sizeof *items);
    }
    return RP_OK;
}

static int sorted(const rp_item *items, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++)
        if (items[i].frame < items[i - 1].frame)
            return 0;
    return 1;
}

/* ---- cost, before building (rp_timeline_check) ------------------------------------------ */

/* Cells a drop of radius r touches on a w x h grid, at most: its square, clipped. */
static double drop_cells(int64_t r, int w, int h)
{
    int64_t side = 2 * (r < 0 ? 0 : r) + 1;
    return (double)(side < w ? side : w) * (double)(side < h ? side : h);
}

/* A coordinate resolved like coord() but never failing (off-grid values are clamped: the
 * build reports them). */
static int64_t coord_est(rp_coord c, int size)
{
    int64_t v = c.is_percent ? (c.value >= PCT_FULL ? size - 1 : (int64_t)size * c.value / PCT_FULL)
                             : c.value;
    return v < 0 ? 0 : v >= size ? size - 1 : v;
}

/* Cells a drop of radius r (scene pixels) touches on the grid, at most. */
static double grid_cells(const builder *b, int64_t r)
{
    const rp_settings *f = b->final;
    return drop_cells(to_grid_len(radius_of(b, r), f->width, f->water.width), f->water.width,
                      f->water.height);
}

/* The steps 0..frames-1 of the span of b->ev: *k0..*k1, or 0 when it starts after them. */
static int cost_steps(const builder *b, int64_t frames, int64_t *k0, int64_t *k1)
{
    span_steps(ticks(b, b->ev->start), ticks(b, b->ev->end), k0, k1);
    if (*k0 >= frames)
        return 0;
    *k1 = *k1 < frames ? *k1 : frames - 1;
    return 1;
}

static void rain_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    i128 a = ticks(b, ev->start), e = ticks(b, ev->end);
    i128 last = (i128)frames * TICKS_PER_FRAME; /* drops at or past it are left out */
    double mean = 0;
    if (e > last)
        e = last;
    if (e <= a || ev->rate_milli <= 0)
        return;
    /* floor((e - a) * rate / clock s), plus one for the drop the floor may add */
    *items = (double)((e - a) * ev->rate_milli / ((i128)b->clock * 1000000000)) + 1;
    /* the mean over at most 64 radii of the range */
    int64_t lo = ev->radius_lo, hi = ev->radius_hi, step = (hi - lo) / 64 + 1, n = 0;
    for (int64_t r = lo; r <= hi; r += step, n++)
        mean += grid_cells(b, r);
    *work = *items * mean / (double)(n ? n : 1);
}

/* The larger of |x1 - x0| and |y1 - y0| of the event's two points, or their sum. */
static int64_t span_of_points(const builder *b, int sum)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    int64_t dx = coord_est(ev->x2, f->width) - coord_est(ev->x, f->width);
    int64_t dy = coord_est(ev->y2, f->height) - coord_est(ev->y, f->height);
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    return sum ? dx + dy : dx > dy ? dx : dy;
}

/* An emitter: a drop per dab per step, the dabs half a radius apart along a line. */
static void emit_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    int64_t k0, k1;
    if (!cost_steps(b, frames, &k0, &k1))
        return;
    int64_t d = ev->kind == RP_EVENT_EMIT_LINE ? span_of_points(b, 1) : 0;
    int64_t gap = ev->radius_lo / 2 > 0 ? ev->radius_lo / 2 : 1;
    *items = (double)(k1 - k0 + 1) * (double)(d / gap + 1);
    *work = *items * grid_cells(b, ev->radius_lo);
}

/* A moving wall's cell, per step, against a drop's: it is covered and then pushed in two
 * passes, each with a distance (an integer square root) or two, where a drop adds a value. */
#define OBSTACLE_CELL_WORK 64

/* A moving wall drawn with `walls visible`: its box at the output size (its contact line
 * 2 pixels out), on every frame of its span (steps 0..steps-1 of the clock). */
static double drawn_pixels(const builder *b, double steps, int64_t r)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    double ow = f->out_width > 0 ? f->out_width : f->width;
    double oh = f->out_height > 0 ? f->out_height : f->height;
    double bw = (double)(2 * r + 1) * ow / f->width + 5,
           bh = (double)(2 * r + 1) * oh / f->height + 5;
    if (ev->kind == RP_EVENT_WALL_RECT || ev->kind == RP_EVENT_WALL_MASK) {
        bw = (double)(coord_est(ev->w, f->width) + 1) * ow / f->width + 5;
        bh = (double)(coord_est(ev->h, f->height) + 1) * oh / f->height + 5;
    }
    if (!f->walls_visible || ev->kind == RP_EVENT_STROKE)
        return 0;
    /* with a rate of its own, fps / (fps_den rate) frames a step; otherwise a frame a step */
    double frames = f->time.rate > 0
                        ? steps * f->time.fps / ((double)f->time.fps_den * f->time.rate) + 1
                        : steps;
    return frames * (bw < ow ? bw : ow) * (bh < oh ? bh : oh);
}

/* Along a path: a dab or an obstacle per step (a stroke: more where the path outruns its
 * radius, bounded by the grid's size per step); an obstacle's cells and rim, weighted, and
 * the pixels it is drawn over on each frame. */
static void along_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    int64_t k0, k1;
    if (!cost_steps(b, frames, &k0, &k1))
        return;
    double steps = (double)(k1 - k0 + 2);
    int64_t r = ev->kind == RP_EVENT_WALL_RECT || ev->kind == RP_EVENT_WALL_MASK
                    ? coord_est(ev->w, f->width) + coord_est(ev->h, f->height)
                    : radius_of(b, ev->radius_lo);
    /* r is in scene pixels already: the box's cells as a drop's of radius 2 r + 8 pixels */
    double box = drop_cells(to_grid_len(2 * r + 8, f->width, f->water.width), f->water.width,
                            f->water.height);
    *items = ev->kind == RP_EVENT_STROKE ? 2 * steps + 64 : steps;
    *work = *items * box * (ev->kind == RP_EVENT_STROKE ? 1 : OBSTACLE_CELL_WORK) +
            drawn_pixels(b, steps, r);
}

/* A straight stroke: its dabs as expand_stroke counts them. */
static void stroke_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    int64_t a = ticks(b, ev->start), e = ticks(b, ev->end);
    int64_t k0 = a / TICKS_PER_FRAME, k1 = (e + TICKS_PER_FRAME - 1) / TICKS_PER_FRAME - 1;
    int64_t d = span_of_points(b, 0), s = radius_of(b, ev->radius_lo), segs;
    if (s < 1)
        s = 1;
    if (k0 >= frames)
        return;
    segs = (d + s - 1) / s;
    if (k1 < k0)
        k1 = k0;
    if (k1 - k0 > segs)
        segs = k1 - k0;
    /* the dabs expand_stroke keeps: dab m is at frame k0 + m (k1 - k0) / segs, and those
     * from the first at or after the last frame on are left out */
    int64_t kept = segs;
    if (k1 >= frames && k1 > k0) {
        i128 last = ((i128)(frames - k0) * segs - 1) / (k1 - k0);
        kept = last < segs ? (int64_t)last : segs;
    }
    *items = (double)kept + 1;
    *work = *items * grid_cells(b, ev->radius_lo);
}

/* A wall: the cells of its bounding box on the grid (a mask: every cell), and with `walls
 * visible image` as many output pixels again, scaled. */
static void wall_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    const rp_settings *f = b->final;
    double grid = (double)f->water.width * f->water.height, cells = grid;
    if (index_of(b, ev->start) >= frames)
        return;
    *items = 1;
    if (ev->kind == RP_EVENT_WALL_CIRCLE)
        cells = grid_cells(b, ev->radius_lo);
    else if (ev->kind == RP_EVENT_WALL_RECT)
        cells = grid * (double)(coord_est(ev->w, f->width) + 1) / f->width *
                (double)(coord_est(ev->h, f->height) + 1) / f->height;
    if (f->walls_visible == RP_WALLS_IMAGE)
        cells += cells * ((double)f->out_width * f->out_height / grid);
    *work = cells;
}

/* A drop's cost a cell against a disc's, by the shape it is drawn with: a cosine or a splash
 * takes an integer square root and a division a cell (sim/water.c rp_drop_value), 11 to 12
 * times a disc's time (rain of 325 drops over a 640x480 grid, one thread: disc 0.34 s,
 * smooth 0.42, square 0.38, cosine 3.85, splash 3.96). */
static double shape_weight(const builder *b)
{
    const rp_event *ev = b->ev;
    enum rp_shape shape = ev->shape < 0 ? b->final->shape : (enum rp_shape)ev->shape;
    return shape == RP_SHAPE_COSINE || shape == RP_SHAPE_SPLASH ? 12 : 1;
}

/* Items and work of the event b->ev over items 0..frames-1, as the build would make them. */
static void event_cost(const builder *b, int64_t frames, double *items, double *work)
{
    const rp_event *ev = b->ev;
    *items = 0;
    *work = 0;
    if (ev->along) {
        along_cost(b, frames, items, work);
        if (ev->kind == RP_EVENT_STROKE)
            *work *= shape_weight(b);
        return;
    }
    switch (ev->kind) {
    case RP_EVENT_DROP:
        if (index_of(b, ev->start) < frames) {
            *items = 1;
            *work = grid_cells(b, ev->radius_lo) * shape_weight(b);
        }
        break;
    case RP_EVENT_RAIN:
        rain_cost(b, frames, items, work);
        *work *= shape_weight(b);
        break;
    case RP_EVENT_EMIT_POINT:
    case RP_EVENT_EMIT_LINE: emit_cost(b, frames, items, work); break; /* discs */
    case RP_EVENT_STROKE:
        stroke_cost(b, frames, items, work);
        *work *= shape_weight(b);
        break;
    default: wall_cost(b, frames, items, work); break;
    }
}

/* The statements' kinds, as the hints of the limits' messages name them. */
enum { KIND_DROP, KIND_RAIN, KIND_EMIT, KIND_STROKE, KIND_WALL, KINDS };

static int kind_of(const rp_event *ev)
{
    switch (ev->kind) {
    case RP_EVENT_DROP: return KIND_DROP;
    case RP_EVENT_RAIN: return KIND_RAIN;
    case RP_EVENT_EMIT_POINT:
    case RP_EVENT_EMIT_LINE: return KIND_EMIT;
    case RP_EVENT_STROKE: return KIND_STROKE;
    default: return KIND_WALL;
    }
}

/* What to change in a scene over a limit, for the kinds of statements it has, the largest
 * share first: "lower the rain rate, use fewer walls, shorten the span, render fewer frames"
 * for its items (work 0) or "lower the radius, the rain rate, the number of walls, ..."
 * for its work (work 1). Spans are named only when the scene has some. */
static void hint_text(const double share[KINDS], int spans, int work, char *out, size_t len)
{
    static const char *const items_of[KINDS] = {
        "use fewer drops", "lower the rain rate",
        "lower the step rate (rate: an emitter adds its items every step)",
        "use fewer or shorter strokes", "use fewer walls"};
    static const char *const work_of[KINDS] = {"the number of drops", "the rain rate",
                                               "the step rate (rate)", "the strokes' length",
                                               "the number of walls"};
    int done[KINDS] = {0};
    size_t n = (size_t)snprintf(out, len, "%s", work ? "lower the radius" : "");
    for (int round = 0; round < KINDS; round++) {
        int k = -1;
        for (int i = 0; i < KINDS; i++)
            if (!done[i] && share[i] > 0 && (k < 0 || share[i] > share[k]))
                k = i;
        if (k < 0)
            break;
        done[k] = 1;
        if (n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "",
                                  work ? work_of[k] : items_of[k]);
    }
    if (n < len)
        snprintf(out + n, len - n, "%s%s", n ? ", " : "",
                 spans ? "shorten the span or render fewer frames" : "render fewer frames");
}

/* Sum the items and work of every event over frames into cost, by kind into items_by and
 * work_by, and find the events with the most of each (top_items, top_work: theirs).
 * Returns whether any event that makes items spans time. */
static int sum_costs(builder *b, const rp_scene *scene, int64_t frames, rp_timeline_cost *cost,
                     double items_by[KINDS], double work_by[KINDS], const rp_event **most_items,
                     const rp_event **most_work, double *top_items, double *top_work)
{
    int spans = 0;
    for (size_t i = 0; i < rp_scene_event_count(scene); i++) {
        const rp_event *ev = rp_scene_event(scene, i);
        double items, work;
        b->ev = ev;
        event_cost(b, frames, &items, &work);
        cost->items += items;
        cost->work += work;
        items_by[kind_of(ev)] += items;
        work_by[kind_of(ev)] += work;
        spans |= ev->is_span && items > 0;
        if (items > *top_items) {
            *top_items = items;
            *most_items = ev;
        }
        if (work > *top_work) {
            *top_work = work;
            *most_work = ev;
        }
    }
    return spans;
}

/* A failure of the builder as err: the scene's name as the file when no statement was at
 * fault. */
static int timeline_error(const rp_scene *scene, rp_error *err, int r)
{
    if (!r)
        return RP_OK;
    if (!err->diag.file[0] && scene)
        snprintf(err->diag.file, sizeof err->diag.file, "%s", rp_scene_name(scene));
    return rp_error_diag(err, r);
}

static int timeline_check(const rp_scene *scene, const rp_settings *final, int64_t frames,
                          int64_t max_bytes, double held, rp_timeline_cost *cost, rp_diag *diag)
{
    builder b;
    const rp_event *most_items = NULL, *most_work = NULL;
    double items_by[KINDS] = {0}, work_by[KINDS] = {0}, top_items = 0, top_work = 0;
    char hint[320];

    memset(&b, 0, sizeof b);
    b.diag = diag;
    memset(cost, 0, sizeof *cost);
    if (final->time.fps < 1 || final->width < 1 || final->height < 1 || frames < 0)
        return RP_OK; /* rp_timeline_build says what is wrong */
    b.grid = *final;
    if (b.grid.water.width < 1 || b.grid.water.height < 1) { /* no grid: the scene's size */
        b.grid.water.width = final->width;
        b.grid.water.height = final->height;
    }
    b.final = &b.grid;
    b.clock = final->time.rate > 0 ? final->time.rate : final->time.fps;
    for (size_t i = 0; i < rp_scene_event_count(scene); i++) { /* before their costs */
        int r;
        b.ev = rp_scene_event(scene, i);
        if ((r = check_radius(&b)))
            return r;
    }
    int spans = sum_costs(&b, scene, frames, cost, items_by, work_by, &most_items, &most_work,
                          &top_items, &top_work);
    /* Items, the array's growth by doubling (old and new at once), the sort's copy. */
    cost->bytes = cost->items * (double)sizeof(rp_item) * 3;
    b.ev = most_items;
    hint_text(items_by, spans, 0, hint, sizeof hint);
    if (cost->items > (double)RP_TIMELINE_MAX_ITEMS)
        return fail(&b, RP_ERR_TOO_LARGE, most_items ? most_items->col : 0,
                    "the timeline would hold more than %zu items (drops, dabs and walls; about "
                    "%.0f, %.0f of them from this statement): %s",
                    (size_t)RP_TIMELINE_MAX_ITEMS, cost->items, top_items, hint);
    /* The scene is held while the timeline is built: the timeline has what it leaves. */
    if (max_bytes > 0 && cost->bytes + held > (double)max_bytes) {
        char beside[96] = "", need[48], limit[48];
        if (held >= (1 << 20))
            snprintf(beside, sizeof beside, " beside the %.0f MiB the scene's statements hold",
                     held / (1 << 20));
        rp_bytes_pair(cost->bytes, (double)max_bytes, need, limit, sizeof need);
        return fail(&b, RP_ERR_TOO_LARGE, most_items ? most_items->col : 0,
                    "the timeline of %.0f items would take %s%s, over %s (%s): %s, or "
                    "raise %s",
                    cost->items, need, beside, rp_name("--max-memory", "max_memory"), limit, hint,
                    rp_name("--max-memory", "max_memory"));
    }
    b.ev = most_work;
    hint_text(work_by, spans, 1, hint, sizeof hint);
    if (cost->work > RP_TIMELINE_MAX_WORK)
        return fail(&b, RP_ERR_TOO_LARGE, most_work ? most_work->col : 0,
                    "the drops and walls would touch about %.3g cells in all (%.3g from this "
                    "statement), over the limit of %.0e: %s",
                    cost->work, top_work, RP_TIMELINE_MAX_WORK, hint);
    return RP_OK;
}

int rp_timeline_check(const rp_scene *scene, const rp_settings *final, int64_t frames,
                      int64_t max_bytes, double held, rp_timeline_cost *cost, rp_error *err)
{
    memset(&err->diag, 0, sizeof err->diag);
    return timeline_error(scene, err,
                          timeline_check(scene, final, frames, max_bytes, held, cost, &err->diag));
}

static int timeline_build(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                          int64_t frames, volatile sig_atomic_t *stop, rp_diag *diag);

int rp_timeline_build(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                      int64_t frames, rp_error *err)
{
    return rp_timeline_build_stop(out, scene, final, frames, NULL, err);
}

int rp_timeline_build_stop(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                           int64_t frames, volatile sig_atomic_t *stop, rp_error *err)
{
    memset(&err->diag, 0, sizeof err->diag);
    return timeline_error(scene, err, timeline_build(out, scene, final, frames, stop, &err->diag));
}

/* The builder: its diagnostic in *diag (the statement's place when one is at fault). */
static int timeline_build(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                          int64_t frames, volatile sig_atomic_t *stop, rp_diag *diag)
{
    builder b;
    rp_timeline *tl;
    size_t i, count;
    int ret = RP_OK;

    diag->line = diag->col = 0;
    diag->msg[0] = diag->source_line[0] = '\0';
    memset(&b, 0, sizeof b);
    b.final = final;
    b.diag = diag;
    b.stop = stop;
    if (!out || !scene || !final)
        return fail(&b, RP_ERR_INVALID, 0, "no scene or settings");
    *out = NULL;
    if (final->width < 1 || final->width > RP_MAX_SIDE || final->height < 1 ||
        final->height > RP_MAX_SIDE)
        return fail(&b, RP_ERR_INVALID, 0, "size %dx%d is out of range (1..%d per side)",
                    final->width, final->height, RP_MAX_SIDE);
    if (final->time.fps < 1 || final->time.fps_den < 0 ||
        final->time.fps > (int64_t)RP_FPS_MAX * (final->time.fps_den > 1 ? final->time.fps_den : 1))
        return fail(&b, RP_ERR_INVALID, 0, "fps %d is out of range (1..%d)", final->time.fps,
                    RP_FPS_MAX);
    if (frames < 0)
        return fail(&b, RP_ERR_INVALID, 0, "negative frame count %lld", (long long)frames);
    if (final->time.rate < 0 || final->time.rate > RP_RATE_MAX || final->time.fps_den < 1)
        return fail(&b, RP_ERR_INVALID, 0, "rate %d is out of range (1..%d)", final->time.rate,
                    RP_RATE_MAX);
    if (final->water.width < 1 || final->water.height < 1) { /* no grid: the scene's size */
        b.grid = *final;
        b.grid.water.width = final->width;
        b.grid.water.height = final->height;
        b.final = &b.grid;
        final = &b.grid;
    }
    b.clock = final->time.rate > 0 ? final->time.rate : final->time.fps;
    tl = calloc(1, sizeof *tl);
    if (!tl)
        return fail(&b, RP_ERR_NOMEM, 0, "out of memory for the timeline");
    tl->frames = frames;
    b.tl = tl;
    count = rp_scene_event_count(scene);
    b.scene = scene;
    int path = 1;
    for (i = 0; i < count && ret == RP_OK; i++) {
        b.ev = rp_scene_event(scene, i);
        b.ev_index = i;
        if ((ret = check_paths(&b, scene, b.ev->line, &path)) || (ret = check_radius(&b)))
            break;
        switch (b.ev->kind) {
        case RP_EVENT_DROP: ret = expand_drop(&b); break;
        case RP_EVENT_RAIN: ret = expand_rain(&b); break;
        case RP_EVENT_STROKE:
            ret = b.ev->along ? expand_stroke_along(&b) : expand_stroke(&b);
            break;
        case RP_EVENT_EMIT_POINT:
        case RP_EVENT_EMIT_LINE: ret = expand_emit(&b); break;
        default: ret = b.ev->along ? expand_wall_along(&b) : expand_wall(&b); break;
        }
    }
    if (ret == RP_OK)
        ret = check_paths(&b, scene, INT_MAX, &path);
    if (ret == RP_OK && !sorted(tl->items, tl->n)) {
        rp_item *tmp = malloc(tl->n * sizeof *tmp);
        if (!tmp) {
            b.ev = NULL;
            ret = fail(&b, RP_ERR_NOMEM, 0, "out of memory for the timeline");
        } else {
            if (sort_items(tl->items, tmp, tl->n, stop)) {
                b.ev = NULL;
                ret = fail(&b, RP_ERR_INTERRUPTED, 0, "interrupted");
            }
            free(tmp);
        }
    }
    if (ret) {
        rp_timeline_free(&tl);
        return ret;
    }
    *out = tl;
    return RP_OK;
}

void rp_timeline_free(rp_timeline **tl)
{
    if (!tl || !*tl)
        return;
    free((*tl)->items);
    free(*tl);
    *tl = NULL;
}

/* Index of the first item whose frame is >= k (binary search). */
static size_t first_at(const rp_timeline *tl, int64_t k)
{
    size_t lo = 0, hi = tl->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->items[mid].frame < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void rp_timeline_frame(const rp_timeline *tl, int64_t k, const rp_item **items, size_t *n)
{
    if (k < 0 || k == INT64_MAX) { /* k + 1 must not overflow; no frame is there */
        *items = NULL;
        *n = 0;
        return;
    }
    rp_timeline_span(tl, k, k + 1, items, n);
}

void rp_timeline_span(const rp_timeline *tl, int64_t from, int64_t to, const rp_item **items,
                      size_t *n)
{
    size_t a, e;

    *items = NULL;
    *n = 0;
    if (from < 0)
        from = 0;
    if (tl && to > tl->frames)
        to = tl->frames;
    if (!tl || from >= to || tl->n == 0)
        return;
    a = first_at(tl, from);
    e = first_at(tl, to);
    *items = tl->items + a;
    *n = e - a;
}

void rp_timeline_stats_get(const rp_timeline *tl, rp_timeline_stats *stats)
{
    *stats = tl->stats;
}

const rp_item *rp_timeline_first_mask(const rp_timeline *tl)
{
    for (size_t i = 0; tl && i < tl->n; i++)
        if (tl->items[i].kind == RP_ITEM_WALL_MASK)
            return &tl->items[i];
    return NULL;
}

int64_t rp_timeline_frames(const rp_timeline *tl)
{
    return tl->frames;
}
