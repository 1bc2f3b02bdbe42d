/* settings.h - everything a run can be told, grouped by what it governs: the scene
 * (size, seed, background, drop defaults), time (frame rate, length), the simulation
 * (rp_water_params, handed to water.c as it is) and the look (rp_render_params, handed
 * to render.c as it is). Each setting is declared once: a field here, a bit in `set`, a
 * row in settings.c's field table (which makes merging generic) and its value in each
 * preset's row there. The scene language (scene.c) and the options (src/cli/cli.c) only
 * fill fields and set bits. */
#ifndef RP_SETTINGS_H
#define RP_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "scene/params.h"

enum rp_preset {
    RP_PRESET_ROCKPOOL = 0,
    RP_PRESET_ELIAS,
    RP_PRESET_APPLET,
    RP_PRESET_SILVERLIGHT,
    RP_PRESET_CODEPROJECT,
};

/** How a background of another size is drawn (`fit`, rockpool-scene(5)); the geometry
 * is input/fit.h's. */
enum rp_fit {
    RP_FIT_STRETCH = 0, /* the whole source scaled to the whole frame (aspect not kept) */
    RP_FIT_COVER,       /* scaled to fill the frame, the excess cropped, centred */
    RP_FIT_CONTAIN,     /* scaled to fit inside the frame, the rest black, centred */
};

/** "stretch", "cover", "contain" -> *fit. Returns RP_OK or RP_ERR_INVALID. */
int rp_fit_from_name(const char *name, enum rp_fit *fit);
const char *rp_fit_name(enum rp_fit fit);

/** What a background shows past the clip's end. */
enum rp_video_end {
    RP_VIDEO_HOLD = 0, /* the last frame */
    RP_VIDEO_LOOP,     /* the clip again: time modulo the clip's duration */
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
    RP_SET_RATE = 1u << 13,
    RP_SET_GRID = 1u << 14,
    RP_SET_SPEED = 1u << 15,
    RP_SET_FADE = 1u << 16,
    RP_SET_PREROLL = 1u << 17,
    RP_SET_OUTPUT_SIZE = 1u << 18, /* -s: the output size (the scene's too for seed presets) */
    RP_SET_SPECULAR = 1u << 19,
    RP_SET_SKY = 1u << 20,
    RP_SET_CAUSTICS = 1u << 21,
    RP_SET_REFRACT_OFF = 1u << 22,
    RP_SET_FIT = 1u << 23,
    RP_SET_WALLS = 1u << 24,
    RP_SET_DEPTH = 1u << 25,
    RP_SET_SUN = 1u << 26,
    RP_SET_TINT = 1u << 27,
    RP_SET_LOOK = 1u << 28,
    RP_SET_STRENGTH = 1u << 29,
};

/** Number of RP_SET_ bits. */
#define RP_SET_BITS 30

/** `strength X` / --strength X (rockpool-scene(5)): every drop's, rain drop's, stroke's and
 * emitter's height times X, in thousandths, 0..RP_STRENGTH_MAX; 1000 (the default) leaves
 * the heights as written. */
#define RP_STRENGTH_MAX 4000

/** A time: microseconds, or a frame number when is_frames. */
typedef struct rp_time {
    int64_t value;
    int is_frames;
} rp_time;

/** The frame a time falls in at fps: [k/fps, (k+1)/fps) -> k (floor, integer-only). */
int64_t rp_time_frame(rp_time t, int fps);

/** Frames covered by a duration: ceil(t * fps), or the frame count itself. */
int64_t rp_time_frames(rp_time t, int fps);

/** Time: when frames are, how long the timeline is, and how the simulation's clock relates
 * to the frames (rockpool(1) TIME). */
typedef struct rp_time_settings {
    int fps;     /* frames per second are fps / fps_den (30000/1001 for ntsc) */
    int fps_den; /* >= 1 */
    rp_time duration;
    /* `duration background`: a video background's length is the timeline's; duration is
     * the length over a still or the built-in texture */
    int duration_background;
    int rate;        /* simulation steps per second of scene time; 0 = one step per frame */
    rp_time preroll; /* scene time simulated before frame 0 */
} rp_time_settings;

/** Highest frame rate. */
#define RP_FPS_MAX 1000

/** Most simulation steps per second, and per frame. */
#define RP_RATE_MAX 4000
#define RP_STEPS_PER_FRAME_MAX 200
/* Most cell steps of the preroll (steps before frame 0 times the grid's cells): about 80 s
 * at 12.5 Gcell/s, 24 minutes with the plain C step; beyond it the scene is refused rather
 * than simulated for hours before the first frame. */
#define RP_PREROLL_MAX_WORK 1e12

/** The simulation grid and the wave's speed and fading, beyond the stencil's own
 * parameters (rockpool-scene(5) grid, speed, fade). */
typedef struct rp_sim_settings {
    int grid_w, grid_h; /* an explicit grid; 0 = none */
    int64_t grid_pct;   /* the grid as millionths of a percent of the scene size; 0 = none */
    int auto_grid;      /* no grid given: 1 = derived from the scene size alone (at most
                         * RP_AUTO_GRID_WIDTH wide), 0 = the output size (seed presets) */
    int64_t speed;      /* wave speed: milli scene pixels per second, or with speed_pct
                         * millionths of a percent of the scene width per second; 0 = none */
    int speed_pct;
    int64_t fade_us; /* amplitude half-life in microseconds; 0 = damping as given */
    /* short-wave damping (viscosity): billionths of (the grid's width)^2 per second, the
     * per-step smoothing water.h applies worked out from it and the rate (rp_clock_resolve),
     * so it is the same at every rate and grid; 0 = none */
    int64_t viscosity;
} rp_sim_settings;

/** Width of the grid the `rockpool` preset derives from a wider scene. */
#define RP_AUTO_GRID_WIDTH 640

/** The `rockpool` preset's wave speed (millionths of a percent of the scene width per
 * second: 15%/s) and amplitude half-life (microseconds). */
#define RP_ROCKPOOL_SPEED INT64_C(15000000)
#define RP_ROCKPOOL_FADE_US INT64_C(1500000)
/** The rockpool preset's viscosity: 4e-6 width^2/s, 0.01 a step on its usual 640-cell grid
 * at 164 steps a second: a wave of 4 cells loses 2% of its height a step, one of 20 cells
 * 0.1% (rockpool-scene(5) fade). */
#define RP_ROCKPOOL_VISCOSITY INT64_C(4000)

/** `walls hidden | visible [COLOUR] | visible image` (rockpool-scene(5)). */
enum rp_walls {
    RP_WALLS_HIDDEN = 0,
    RP_WALLS_COLOUR, /* every wall in wall_rgb */
    RP_WALLS_IMAGE,  /* walls of `wall mask` items in their image's pixels, the rest in wall_rgb */
};

typedef struct rp_settings {
    unsigned set;  /* RP_SET_* bits of the fields given explicitly */
    unsigned over; /* those of them the caller's settings gave over the scene's
                    * (rp_settings_resolve; the program's options): for messages that say
                    * where a value came from */
    /* the scene */
    int width, height; /* the scene's size (and the output's) */
    uint64_t seed;
    enum rp_preset preset;
    char background[4096];     /* "" = built-in texture; resolved against the scene's dir */
    int fit;                   /* enum rp_fit: a background of another aspect */
    int background_end;        /* enum rp_video_end: a video background past its end, hold
                                * or loop; given with the background */
    enum rp_shape shape;       /* drop shape when an event names none (preset's) */
    enum rp_mode mode;         /* drop mode when an event names none (preset's) */
    int32_t strength_milli;    /* heights times strength_milli / 1000 (RP_STRENGTH_MAX) */
    int out_width, out_height; /* the output size (-s); 0 = the scene's size */
    rp_time_settings time;
    /* The simulation; water.width and water.height (the grid) are derived from the size
     * and `sim` when a run is resolved, never set by hand. */
    rp_water_params water;
    rp_sim_settings sim;
    rp_render_params look;
    rp_light_params light; /* the look of render mode `light` */
    char sky_image[4096];  /* `sky PATH`: reflected instead of light.sky_rgb; "" = none;
                            * resolved against the scene's dir */
    int walls_visible;     /* enum rp_walls: how wall cells are drawn over the render */
    uint8_t wall_rgb[3];
} rp_settings;

/** Parse a frame rate as FFmpeg users write it: a whole number, a ratio ("30000/1001"), a
 * decimal ("29.97", "23.976" and "59.94" mean the NTSC ratios N*1000/1001; other decimals
 * are exact: "12.5" = 25/2) or a name (ntsc, pal, film, ntsc-film, qntsc, qpal, sntsc,
 * spal). At most RP_FPS_MAX. RP_OK with the reduced ratio, or RP_ERR_INVALID. */
int rp_fps_parse(const char *text, size_t len, int *num, int *den);

/** Defaults of a preset (rockpool(1) PRESETS) and 640x480, 30 fps, 10 s, seed 0;
 * set = 0. */
void rp_settings_defaults(rp_settings *s, enum rp_preset preset);

/** Copy into dst every field src has explicitly set, and or its bits in. The preset bit
 * also brings the preset's drop shape and mode (they have no setting of their own); the
 * damping bit copies damping_shift and damping_q16 together. */
void rp_settings_merge(rp_settings *dst, const rp_settings *src);

/** The settings a run renders with, as the program resolves them: the preset's defaults
 * (over's preset, else the scene's, else rockpool), then every field the scene sets, then
 * every field over sets (over may be NULL), whose bits out->over keeps. */
void rp_settings_resolve(rp_settings *out, const rp_settings *scene, const rp_settings *over);

/** The caustics' strength (Q8) a run at strength_milli lights with: caustics_q8 itself up
 * to strength 1, above it divided by the strength's square, rounded. The caustics' mean
 * brightening (1 / det less 1, averaged over the surface) grows with the square of the
 * slopes, so this keeps it, and the look's targets (no veil, no grain), as at strength 1. */
int32_t rp_strength_caustics(int32_t caustics_q8, int32_t strength_milli);

/** Preset by name ("elias", ...), or -1. */
int rp_preset_from_name(const char *name);
const char *rp_preset_name(enum rp_preset p);

#endif
