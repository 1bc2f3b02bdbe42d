/* settings.h - everything a run can be told, grouped by what it governs: the scene
 * (size, seed, background, drop defaults), time (frame rate, length), the simulation
 * (rp_water_params, handed to water.c as it is) and the look (rp_render_params, handed
 * to render.c as it is). Each setting is declared once: a field here, a bit in `set`, a
 * row in settings.c's field table (which makes merging generic) and its value in each
 * preset's row there. The scene language (scene.c) and the options (src/cli/cli.c) only
 * fill fields and set bits. */
#ifndef RP_SETTINGS_H
#define RP_SETTINGS_H

#include <stdint.h>

#include "render.h"
#include "water.h"

enum rp_preset {
    RP_PRESET_ROCKPOOL = 0,
    RP_PRESET_ELIAS,
    RP_PRESET_APPLET,
    RP_PRESET_SILVERLIGHT,
    RP_PRESET_CODEPROJECT,
};

/* Bits of rp_settings.set: which fields were given explicitly. */
enum {
    RP_SET_SIZE = 1u << 0,
    RP_SET_FPS = 1u << 1,
    RP_SET_DURATION = 1u << 2,
    RP_SET_SEED = 1u << 3,
    RP_SET_PRESET = 1u << 4,
    RP_SET_BACKGROUND = 1u << 5,
    RP_SET_DAMPING = 1u << 6,
    RP_SET_STENCIL = 1u << 7,
    RP_SET_BOUNDARY = 1u << 8,
    RP_SET_REFRACTION = 1u << 9,
    RP_SET_SHADING = 1u << 10,
    RP_SET_LIGHT = 1u << 11,
    RP_SET_RENDER = 1u << 12,
};

/** A time: microseconds, or a frame number when is_frames. */
typedef struct rp_time {
    int64_t value;
    int is_frames;
} rp_time;

/** The frame a time falls in at fps: [k/fps, (k+1)/fps) -> k (floor, integer-only). */
int64_t rp_time_frame(rp_time t, int fps);

/** Frames covered by a duration: ceil(t * fps), or the frame count itself. */
int64_t rp_time_frames(rp_time t, int fps);

/** Time: when frames are and how long the timeline is. */
typedef struct rp_time_settings {
    int fps;
    rp_time duration;
} rp_time_settings;

typedef struct rp_settings {
    unsigned set; /* RP_SET_* bits of the fields given explicitly */
    /* the scene */
    int width, height; /* the scene's size (and the output's) */
    uint64_t seed;
    enum rp_preset preset;
    char background[4096]; /* "" = built-in texture; resolved against the scene's dir */
    enum rp_shape shape;   /* drop shape when an event names none (preset's) */
    enum rp_mode mode;     /* drop mode when an event names none (preset's) */
    rp_time_settings time;
    /* The simulation; water.width and water.height (the grid) are derived from the size
     * when a run is resolved, never set by hand. */
    rp_water_params water;
    rp_render_params look;
} rp_settings;

/** Defaults of a preset (rockpool(1) PRESETS) and 640x480, 30 fps, 10 s, seed 0;
 * set = 0. */
void rp_settings_defaults(rp_settings *s, enum rp_preset preset);

/** Copy into dst every field src has explicitly set, and or its bits in. The preset bit
 * also brings the preset's drop shape and mode (they have no setting of their own); the
 * damping bit copies damping_shift and damping_q16 together. */
void rp_settings_merge(rp_settings *dst, const rp_settings *src);

/** Preset by name ("elias", ...), or -1. */
int rp_preset_from_name(const char *name);
const char *rp_preset_name(enum rp_preset p);

#endif
