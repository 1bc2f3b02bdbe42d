/* scene.h - the scene language (rockpool-scene(5) LIMITS): text in, validated settings and
 * events out, with 1-based line/column diagnostics; and the timeline that turns
 * events (drops, rain, strokes, walls) into per-frame items for the simulation.
 *
 * No I/O: the caller reads the file (or stdin) and passes its text. */
#ifndef RP_SCENE_H
#define RP_SCENE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "scene/settings.h"

/** Parse "shift N" / "0.94" damping text into shift or Q16 (one of them nonzero). */
int rp_damping_parse(const char *text, int *shift, int32_t *q16);

/** A diagnostic: where (1-based; 0 = no position) and what. */
typedef struct rp_diag {
    char file[512];
    int line, col;
    char msg[512];
    char source_line[512]; /* the offending line's text, for a caret display; "" if none */
} rp_diag;

typedef struct rp_scene rp_scene;

/** Parse a scene. filename is used in diagnostics and to resolve `background`, `sky` and
 * `wall mask` paths relative to the scene's directory ("-" or NULL: the current
 * directory). On error returns RP_ERR_INVALID (or RP_ERR_NOMEM) and fills diag. */
int rp_scene_parse(rp_scene **out, const char *text, size_t len, const char *filename,
                   rp_diag *diag);

void rp_scene_free(rp_scene **scene);

/** The text of the built-in scene (a few seconds of rain), used when no scene is given. */
const char *rp_scene_builtin(void);

/** The name diagnostics use: the file's path, "<stdin>" or "<scene>". */
const char *rp_scene_name(const rp_scene *scene);

/** The scene file's path, or NULL when the text came from stdin or memory. */
const char *rp_scene_file(const rp_scene *scene);

/** The first background (background nonzero) or other (wall mask, sky image) path of the
 * scene that reaches outside the scene's directory (an absolute path or a '..' component),
 * as a diagnostic at its line and column; NULL when there is none. rp_session_new refuses
 * it unless the run allows outside paths (rockpool(1) --allow-outside-paths). */
const rp_diag *rp_scene_outside_path(const rp_scene *scene, int background);

/** Where the scene's `sky PATH` names its image (file, line, column and the line's text;
 * the message is a placeholder for the caller's), or NULL when it names none. */
const rp_diag *rp_scene_sky_at(const rp_scene *scene);

/** The scene's text as read (len bytes, NUL-terminated). */
const char *rp_scene_text(const rp_scene *scene, size_t *len);

/** The settings the scene gave (its `set` bits say which). */
const rp_settings *rp_scene_settings(const rp_scene *scene);

/** Counts of event statements by kind. */
typedef struct rp_scene_stats {
    int drops, rains, strokes, walls;
} rp_scene_stats;
void rp_scene_stats_get(const rp_scene *scene, rp_scene_stats *stats);

enum rp_item_kind {
    RP_ITEM_DROP,
    RP_ITEM_WALL_RECT,
    RP_ITEM_WALL_CIRCLE,
    RP_ITEM_WALL_MASK,
};

/** One thing that happens at the start of a frame. */
typedef struct rp_item {
    int64_t frame;
    enum rp_item_kind kind;
    rp_drop drop;             /* RP_ITEM_DROP */
    int x, y, w, h, r;        /* walls: rect x y w h, circle x y r */
    const char *mask_path;    /* RP_ITEM_WALL_MASK; owned by the scene */
} rp_item;

typedef struct rp_timeline rp_timeline;

/** Expand the scene's events for the final settings (size, fps, seed, preset shape and
 * mode) over frames 0..frames-1: percent coordinates resolved, rain drawn from the
 * seeded PRNG, strokes sampled. Items are ordered by frame, then by statement order.
 * Events after the last frame are left out (counted in rp_timeline_stats).
 * Errors (coordinates off the grid, ...) fill diag with the statement's line/column. */
int rp_timeline_build(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                      int64_t frames, rp_diag *diag);

/** rp_timeline_build that gives up with RP_ERR_INTERRUPTED soon after *stop (may be NULL)
 * becomes nonzero: a timeline of millions of items takes seconds to build. */
int rp_timeline_build_stop(rp_timeline **out, const rp_scene *scene, const rp_settings *final,
                           int64_t frames, volatile sig_atomic_t *stop, rp_diag *diag);

void rp_timeline_free(rp_timeline **tl);

/** Items of frame k: *items points at n consecutive items (n may be 0). */
void rp_timeline_frame(const rp_timeline *tl, int64_t k, const rp_item **items, size_t *n);

typedef struct rp_timeline_stats {
    size_t drops;        /* drop items in total (explicit + rain + stroke dabs) */
    size_t rain_drops;   /* of which from rain */
    size_t stroke_dabs;  /* of which from strokes */
    size_t walls;
    size_t after_end;    /* items left out because they fall after the last frame */
} rp_timeline_stats;
void rp_timeline_stats_get(const rp_timeline *tl, rp_timeline_stats *stats);

/* Additions (issue 4). */

/** Limits of the scene language (rockpool-scene(5)). */
#define RP_TIME_MAX_US INT64_C(1000000000000) /* 1,000,000 s */
#define RP_TIME_MAX_FRAMES INT64_C(1000000000)
#define RP_RADIUS_MAX 2048                    /* drop, rain and stroke radius: 1..2048 */
#define RP_RATE_MAX_MILLI INT64_C(100000000)  /* rain: at most 100000 drops/s */

/** Most items a timeline may hold (about 1 GiB); beyond it rp_timeline_build fails with
 * RP_ERR_TOO_LARGE and a positioned message instead of exhausting memory. */
#define RP_TIMELINE_MAX_ITEMS ((size_t)1 << 24)

/** Most cells the drops and walls of a timeline may touch in all (each drop and wall its
 * bounding box clipped to the grid, a wall mask the whole grid): at about 20 ns a cell, over half an hour of drawing; beyond it rp_timeline_check
 * refuses the scene. */
#define RP_TIMELINE_MAX_WORK 1e11

/** What a timeline will cost, estimated from the scene's events without building it. */
typedef struct rp_timeline_cost {
    double items; /* items it would hold (an upper bound: one more per rain) */
    double bytes; /* memory while building it: items, growth, sort */
    double work;  /* cells its drops and walls touch */
} rp_timeline_cost;

/** Estimate the timeline rp_timeline_build would make, before allocating it, and refuse
 * (RP_ERR_TOO_LARGE, diag at the statement that adds most) more than
 * RP_TIMELINE_MAX_ITEMS items, more than max_bytes of memory (when > 0), or more than
 * RP_TIMELINE_MAX_WORK cells of drawing. */
int rp_timeline_check(const rp_scene *scene, const rp_settings *final, int64_t frames,
                      int64_t max_bytes, rp_timeline_cost *cost, rp_diag *diag);

/** SplitMix64 (Steele, Lea, Flood 2014), the generator behind `rain` and part of the file
 * format's contract: state += 0x9E3779B97F4A7C15, then the two xor-shift-multiply rounds.
 * Advances *state and returns the next 64-bit value. */
uint64_t rp_splitmix64(uint64_t *state);

/** A time as an exact count of ticks of 1/(fps * 1000000) s: microseconds * fps, or
 * frames * 1000000. Frame k covers ticks [k * 1000000, (k + 1) * 1000000). fps > 0. */
int64_t rp_time_ticks(rp_time t, int fps);

/** What an event statement does. */
enum rp_event_kind {
    RP_EVENT_DROP,
    RP_EVENT_RAIN,
    RP_EVENT_STROKE,
    RP_EVENT_WALL_RECT,
    RP_EVENT_WALL_CIRCLE,
    RP_EVENT_WALL_MASK,
};

/** A coordinate or a length as written: pixels, or millionths of a percent of the size
 * (50% = 50000000), resolved against the final size by rp_timeline_build. */
typedef struct rp_coord {
    int64_t value;
    int is_percent;
    int col;                    /* column of the word, for diagnostics */
} rp_coord;

/** One event statement as parsed, before the final size and fps are known. */
typedef struct rp_event {
    enum rp_event_kind kind;
    int line, col;              /* the statement's line; column of the action word */
    int time_col;               /* column of the time or span */
    int is_span;
    rp_time start, end;         /* `end` only for spans */
    rp_coord x, y;              /* drop centre, stroke start, wall corner or centre */
    rp_coord x2, y2;            /* stroke end */
    rp_coord w, h;              /* wall rect size */
    int32_t radius_lo, radius_hi; /* lo == hi except for rain; wall circle radius */
    int radius_pct;               /* radii are millionths of a percent of the scene width */
    int32_t height_lo, height_hi; /* lo == hi except for rain */
    int shape, mode;            /* enum rp_shape / rp_mode, or -1 for the final settings' */
    int64_t rate_milli;         /* rain: drops per second * 1000 */
    int rain_index;             /* rain: 0-based index among the scene's rain statements */
    const char *path;           /* wall mask, resolved; owned by the scene */
    const char *text;           /* the statement's line (text_len bytes); owned by the scene */
    size_t text_len;
    const char *time_text;      /* the time or span as written (time_len bytes) */
    size_t time_len;
} rp_event;

/** The scene's event statements in file order: count, and the i-th (NULL if out of
 * range). Pointers stay valid until rp_scene_free. */
size_t rp_scene_event_count(const rp_scene *scene);
const rp_event *rp_scene_event(const rp_scene *scene, size_t i);

/** Number of frames the timeline was built for. */
int64_t rp_timeline_frames(const rp_timeline *tl);

#endif
