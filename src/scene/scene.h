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

#include "base/diag.h"
#include "rpcore.h" /* rp_scene, rp_scene_free(), rp_scene_stats, rp_error */
#include "scene/motion.h"
#include "scene/settings.h"

/** Parse "shift N" / "0.94" damping text into shift or Q16 (one of them nonzero). */
int rp_damping_parse(const char *text, int *shift, int32_t *q16);

/** Parse a scene. filename is used in diagnostics and to resolve `background`, `sky` and
 * `wall mask` paths relative to the scene's directory ("-" or NULL: the current
 * directory). Errors: RP_ERR_INVALID with err's diagnostic at the place (bad_input), or
 * RP_ERR_NOMEM. */
int rp_scene_parse(rp_scene **out, const char *text, size_t len, const char *filename,
                   rp_error *err);

/** rp_scene_parse() of text that is already malloc'd (len + 1 bytes, the last set to NUL
 * here), which becomes the scene's (and is freed on failure): no copy. max_bytes (0: no
 * limit) bounds what the scene holds (rp_scene_memory()) while it is parsed: the first
 * statement past it is refused, RP_ERR_TOO_LARGE, with the diagnostic at its line. */
int rp_scene_parse_owned(rp_scene **out, char *text, size_t len, const char *filename,
                         int64_t max_bytes, rp_error *err);

/** The settings the scene gave (its `set` bits say which). */
const rp_settings *rp_scene_settings(const rp_scene *scene);

/** Where the scene gives the setting of `bit` (one RP_SET_ bit), for an error found once a
 * run's settings are resolved: its line, and with at (may be NULL) a diagnostic without a
 * message there: the scene's name, the line, the column of the statement's keyword (value
 * 0) or of its first value (value 1), and the line's text. 0, at untouched, when the scene
 * does not give it. */
int rp_scene_setting_at(const rp_scene *scene, unsigned bit, int value, rp_diag *at);

/** Limits of the scene language (rockpool-scene(5)). */
#define RP_TIME_MAX_US INT64_C(1000000000000) /* 1,000,000 s */
#define RP_TIME_MAX_FRAMES INT64_C(1000000000)
#define RP_RADIUS_MAX 2048                   /* drop, rain and stroke radius: 1..2048 */
#define RP_RATE_MAX_MILLI INT64_C(100000000) /* rain: at most 100000 drops/s */

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
    RP_EVENT_EMIT_POINT, /* an oscillating source at a point */
    RP_EVENT_EMIT_LINE,  /* an oscillating source along a segment */
};

/** A coordinate or a length as written: pixels, or millionths of a percent of the size
 * (50% = 50000000), resolved against the final size by rp_timeline_build. */
typedef struct rp_coord {
    int64_t value;
    int is_percent;
    int col; /* column of the word, for diagnostics */
} rp_coord;

/** One event statement as parsed, before the final size and fps are known. */
typedef struct rp_event {
    enum rp_event_kind kind;
    int line, col; /* the statement's line; column of the action word */
    int time_col;  /* column of the time or span */
    int is_span;
    rp_time start, end;            /* `end` only for spans */
    rp_coord x, y;                 /* drop centre, stroke start, wall corner or centre */
    rp_coord x2, y2;               /* stroke end */
    rp_coord w, h;                 /* wall rect size */
    int32_t radius_lo, radius_hi;  /* lo == hi except for rain; wall circle radius */
    int radius_pct;                /* radii are millionths of a percent of the scene width */
    int radius_col, radius_hi_col; /* columns of the radius (of a range's end), percentages */
    int32_t height_lo, height_hi;  /* lo == hi except for rain */
    int shape, mode;               /* enum rp_shape / rp_mode, or -1 for the final settings' */
    int64_t rate_milli;            /* rain: drops per second * 1000 */
    int rain_index;                /* rain: 0-based index among the scene's rain statements */
    const char *path;              /* wall mask, resolved; owned by the scene */
    int path_col;                  /* column of the wall mask's path, for its file's errors */
    const char *text;              /* the statement's line (text_len bytes); owned by the scene */
    size_t text_len;
    const char *time_text; /* the time or span as written (time_len bytes) */
    size_t time_len;
    /* motion (rockpool-scene(5) PATHS, MOVING WALLS, EMITTERS) */
    int along; /* stroke or wall along path along - 1 (rp_scene_path); 0: none */
    int along_col;
    int32_t push;       /* moving wall: height units pushed per cell moved */
    int64_t freq_milli; /* emitter: oscillations per 1000 s */
    int freq_col;
    int32_t amplitude; /* emitter: peak height */
    int64_t fade_us;   /* emitter: attack and release, microseconds (0: none) */
} rp_event;

/** A named path as written: points (pixels or percent), a curve or straight segments, and
 * optional times (offsets from the start of each event that follows it). */
typedef struct rp_path {
    char name[64];
    int line, col;    /* where it is defined */
    const char *text; /* its line (text_len bytes); owned by the scene */
    size_t text_len;
    int smooth;
    int n;
    rp_coord x[RP_PATH_POINTS_MAX], y[RP_PATH_POINTS_MAX];
    int has_times;
    rp_time t[RP_PATH_POINTS_MAX]; /* microseconds */
} rp_path;

/** Path i (1-based, as rp_event.along holds it), or NULL. */
const rp_path *rp_scene_path(const rp_scene *scene, int i);

/** What a `key` statement animates (rockpool-scene(5) KEYS), and its values' units. */
enum rp_key_what {
    RP_KEY_AZIMUTH,   /* the light's azimuth, millidegrees */
    RP_KEY_ELEVATION, /* the light's elevation, millidegrees */
    RP_KEY_SUN,       /* the sun's size, millidegrees */
    RP_KEY_DEPTH,     /* depth, 1/256 grid cell */
    RP_KEY_CAUSTICS,  /* caustics strength, 1/256 */
    RP_KEY_SKY,       /* the sky's strength, 1/256 */
    RP_KEY_AMPLITUDE, /* every emitter's amplitude, per mille */
    RP_KEY_RAIN,      /* every rain drop's height, per mille */
    RP_KEY_RAIN_RATE, /* the share of rain drops that fall, per mille (0..1000) */
    RP_KEY_FADE,      /* the waves' half-life (fade), microseconds */
    RP_KEY_KINDS,
};

/** The keys of one setting (NULL when it has none), and where they were written. */
const rp_keys *rp_scene_keys(const rp_scene *scene, enum rp_key_what what);
const rp_diag *rp_scene_keys_at(const rp_scene *scene, enum rp_key_what what);

/** The scene's event statements in file order: count, and the i-th (NULL if out of
 * range). Pointers stay valid until rp_scene_free. */
size_t rp_scene_event_count(const rp_scene *scene);
const rp_event *rp_scene_event(const rp_scene *scene, size_t i);

/** The scene's wall masks, each file once: the first `wall mask` statement at or after
 * event *i whose path no statement before it names, *i moved past it; NULL when there is
 * none left. Start with *i = 0. */
const rp_event *rp_scene_next_mask(const rp_scene *scene, size_t *i);

#endif
