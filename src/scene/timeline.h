/* timeline.h - the timeline (events.c): a scene's events expanded for the final settings
 * into items per frame (drops, walls), with the rain drawn from its seeded generator and
 * strokes sampled; and what a timeline will cost, checked before it is built. */
#ifndef RP_TIMELINE_H
#define RP_TIMELINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "scene/scene.h"
#include "scene/settings.h"

enum rp_item_kind {
    RP_ITEM_DROP,
    RP_ITEM_WALL_RECT,
    RP_ITEM_WALL_CIRCLE,
    RP_ITEM_WALL_MASK,
    RP_ITEM_OBSTACLE, /* a wall moving along a path: where it is at this step */
};

/** One thing that happens at the start of a frame. */
typedef struct rp_item {
    int64_t frame;
    enum rp_item_kind kind;
    rp_drop drop;          /* RP_ITEM_DROP */
    int x, y, w, h, r;     /* walls: rect x y w h, circle x y r */
    const char *mask_path; /* RP_ITEM_WALL_MASK, or a mask obstacle; owned by the scene */
    /* RP_ITEM_OBSTACLE: x, y its centre and r its radius (circle) or w, h its size (rect,
     * or a mask: mask_path), in 1/256 grid cell; dx, dy how far it moved since its
     * previous step; push the height pushed per cell moved; id its event's index; gone:
     * it leaves the water */
    int id, dx, dy, push;
    unsigned char circle, gone;
} rp_item;

/** The wall mask an item reads (a still mask, or a mask moving along a path), or NULL. */
static inline const char *rp_item_mask(const rp_item *it)
{
    return it->kind == RP_ITEM_WALL_MASK || it->kind == RP_ITEM_OBSTACLE ? it->mask_path : NULL;
}

typedef struct rp_timeline rp_timeline;

/** Expand the scene's events for the final settings (size, fps, seed, preset shape and
 * mode) over frames 0..frames-1: percent coordinates resolved, rain drawn from the
 * seeded PRNG, strokes sampled. Items are ordered by frame, then by statement order.
 * Events after the last frame are left out (counted in rp_timeline_stats).
 * Errors (coordinates off the grid, ...) fill err with a diagnostic at the statement's
 * line and column (the scene's name alone when no statement is at fault). */
int rp_timeline_build(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                      int64_t frames, rp_error *err);

/** rp_timeline_build that gives up with RP_ERR_INTERRUPTED soon after *stop (may be NULL)
 * becomes nonzero: a timeline of millions of items takes seconds to build. */
int rp_timeline_build_stop(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                           int64_t frames, volatile sig_atomic_t *stop, rp_error *err);

void rp_timeline_free(rp_timeline **tl);

/** Items of frame k: *items points at n consecutive items (n may be 0). */
void rp_timeline_frame(const rp_timeline *tl, int64_t k, const rp_item **items, size_t *n);

/** Items of frames from..to-1 (of those in 0..frames-1): *items points at n consecutive
 * items, those rp_timeline_frame gives for each of the frames in turn. Two binary searches,
 * however many frames the span has: a walk over every item of the timeline is
 * rp_timeline_span(tl, 0, INT64_MAX, ...), its cost the items', not the frames'. */
void rp_timeline_span(const rp_timeline *tl, int64_t from, int64_t to, const rp_item **items,
                      size_t *n);

/* rp_timeline_stats: rockpool.h */
void rp_timeline_stats_get(const rp_timeline *tl, rp_timeline_stats *stats);

/** Most items a timeline may hold (about 1 GiB); beyond it rp_timeline_build fails with
 * RP_ERR_TOO_LARGE and a positioned message instead of exhausting memory. */
#define RP_TIMELINE_MAX_ITEMS ((size_t)1 << 24)

/** Most cells the drops of a timeline may touch in all (each drop its square clipped to the
 * grid; walls too, a moving wall every step and, drawn, its output pixels every frame): at
 * about 20 ns a cell, over half an hour of drawing; beyond it rp_timeline_check refuses the
 * scene. */
#define RP_TIMELINE_MAX_WORK 1e11

/** What a timeline will cost, estimated from the scene's events without building it. */
typedef struct rp_timeline_cost {
    double items; /* items it would hold (an upper bound: one more per rain) */
    double bytes; /* memory while building it: items, growth, sort */
    double work;  /* cells its drops touch */
} rp_timeline_cost;

/** Estimate the timeline rp_timeline_build would make, before allocating it, and refuse
 * (RP_ERR_TOO_LARGE, the diagnostic at the statement that adds most) more than
 * RP_TIMELINE_MAX_ITEMS items, more than max_bytes of memory (when > 0) with the held
 * bytes held beside it (the scene, the caller's tables per statement), or more than
 * RP_TIMELINE_MAX_WORK cells of drawing. */
int rp_timeline_check(const rp_scene *scene, const rp_settings *final, int64_t frames,
                      int64_t max_bytes, double held, rp_timeline_cost *cost, rp_error *err);

/** SplitMix64 (Steele, Lea, Flood 2014), the generator behind `rain` and part of the file
 * format's contract: state += 0x9E3779B97F4A7C15, then the two xor-shift-multiply rounds.
 * Advances *state and returns the next 64-bit value. */
uint64_t rp_splitmix64(uint64_t *state);

/** The timeline's first `wall mask` item (a file to read before the frames), or NULL. */
const rp_item *rp_timeline_first_mask(const rp_timeline *tl);

/** Number of frames the timeline was built for. */
int64_t rp_timeline_frames(const rp_timeline *tl);

#endif
