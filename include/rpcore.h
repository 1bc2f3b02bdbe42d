/* rpcore.h - the public API of librpcore, rockpool's core: scenes, settings and the
 * per-frame engine (the simulation, the walls and the look), with no files, no FFmpeg and
 * no other library but the C library and threads.
 *
 * The core renders into the caller's memory, in the manner of dav1d's open / get_picture /
 * close:
 *
 *     rp_scene *scene;  rp_scene_from_text(&scene, text, len, "rain.scene", &err);
 *     rp_core_config cfg;  rp_core_config_init(&cfg);  cfg.width = 640;  cfg.height = 360;
 *     rp_core *core;    rp_core_open(&core, scene, &cfg, &err);
 *     rp_core_info info;  rp_core_get_info(core, &info);
 *     for (k = 0; k < info.frames; k++)
 *         rp_core_render(core, k, RP_PASS_RENDER, rgb, 3 * info.width, &err);
 *     rp_core_close(&core);  rp_scene_free(&scene);
 *
 * The bytes of RP_PASS_RENDER are those `rockpool SCENE -f framemd5` hashes, on every
 * machine, thread count and vector level.
 *
 * Errors: every function that can fail returns RP_OK (0) or an enum rp_err code and fills
 * the caller's rp_error: the code, whose fault it was (bad_input), a one-line message and,
 * when the failure has a place in a scene, its file:line:col (diag). After a failed call an
 * object stays valid unless its function says otherwise. As dav1d validates its arguments,
 * a NULL pointer a call needs (the core, the scene, the settings, an output pointer, a
 * text) is RP_ERR_INVALID with bad_input set and nothing done (since 2.6.2); err may be
 * NULL everywhere (the reason is then dropped). The functions that return no error take a
 * NULL object as empty: zero counts, NULL pointers, a zeroed struct, nothing done.
 *
 * Threads: a core is driven by one thread at a time; its own worker threads (threads > 1;
 * when none can be made, the caller's thread renders alone) never call back into the
 * caller. Different cores are independent.
 *
 * Types are opaque except the few structs a caller fills or reads (rp_error, rp_diag,
 * rp_core_config, rp_core_info). include/rockpool.h, the full library's header (sessions,
 * files, encoders), includes this one. */
#ifndef RPCORE_H
#define RPCORE_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

/* The version of this API: a major change breaks callers, a minor one adds to it. */
#define RP_CORE_VERSION_MAJOR 2
#define RP_CORE_VERSION_MINOR 7
#define RP_CORE_VERSION_PATCH 0
#define RP_CORE_VERSION_INT(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define RP_CORE_VERSION                                                                            \
    RP_CORE_VERSION_INT(RP_CORE_VERSION_MAJOR, RP_CORE_VERSION_MINOR, RP_CORE_VERSION_PATCH)

/* RP_API marks the functions a shared build of the library exports. */
#ifndef RP_API
#if defined(_WIN32) && defined(RP_BUILDING_DLL)
#define RP_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define RP_API __attribute__((visibility("default")))
#else
#define RP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the library linked (RP_CORE_VERSION_INT of it): a caller built against
 * this header needs the same major version and at least its minor version. */
RP_API unsigned rp_core_version(void);

enum rp_err {
    RP_OK = 0,
    RP_ERR_NOMEM,       /* allocation failed */
    RP_ERR_INVALID,     /* an argument or parameter is out of range */
    RP_ERR_TOO_LARGE,   /* a size would overflow or exceeds a limit */
    RP_ERR_IO,          /* reading or writing a file failed (errno is kept) */
    RP_ERR_FORMAT,      /* an input file is malformed or of an unsupported kind */
    RP_ERR_ENCODER,     /* the video/PNG encoder or muxer failed */
    RP_ERR_UNSUPPORTED, /* the installed libraries lack a needed feature */
    RP_ERR_EXISTS,      /* the output exists and overwriting was not allowed */
    RP_ERR_INTERRUPTED, /* stopped by a signal */
    RP_ERR_MISMATCH,    /* a frame differs from the --verify manifest */
    RP_ERR_AGAIN        /* the work bound was reached first (rp_core_set_step_budget) */
};

/** A short lowercase phrase for an rp_err code; never NULL. */
RP_API const char *rp_strerror(int err);

/** Text for a message, as the messages of placed diagnostics say a path or a word: s's n
 * bytes into out, at most max bytes of them (out holds max + 1), cut at a character
 * boundary; a character that shows as nothing or as a space (controls, tabs, spaces other
 * than ' ', a byte order mark, zero-width and direction marks) as <U+XXXX>, an invalid byte
 * or a NUL as '?'. Returns how many bytes of s are shown (n when all are). A NULL s is
 * empty; a NULL out, nothing done (0). Since 2.7. */
RP_API size_t rp_text_show(const char *s, size_t n, char *out, size_t max);

/** A diagnostic: where (1-based; 0 = no position) and what. */
typedef struct rp_diag {
    char file[512];
    int line, col;
    char msg[512];
    char source_line[512]; /* the offending line's text, for a caret display; "" if none */
} rp_diag;

/** Why a call failed. msg is one line without a "rockpool: error: " prefix. When the
 * failure has a place in the scene (diag.line > 0) the message is diag.msg and diag
 * holds the file, line, column and source line for a caret display. */
typedef struct rp_error {
    int code;      /* enum rp_err */
    int bad_input; /* 1: bad usage or input (the program exits 2); 0: runtime failure (1) */
    int has_diag;  /* diag is set (a scene diagnostic, maybe positioned) */
    rp_diag diag;
    char msg[1024];
} rp_error;

/** A parsed scene (rockpool-scene(5)): opaque. */
typedef struct rp_scene rp_scene;

/** Parse a scene from len bytes of text (NULL: the built-in scene, a few seconds of rain).
 * filename names the scene in diagnostics and resolves the paths it names (`background`,
 * `sky`, `wall mask`) against its directory; NULL: "<scene>" and the current directory.
 * Reads no file. Errors: RP_ERR_INVALID with a positioned diagnostic (bad_input set), or
 * RP_ERR_NOMEM; *scene is NULL on failure. */
RP_API int rp_scene_from_text(rp_scene **scene, const char *text, size_t len, const char *filename,
                              rp_error *err);

/** Free and null the scene; NULL and a NULL *scene are no-ops. */
RP_API void rp_scene_free(rp_scene **scene);

/** Settings in the scene language's terms (preset, size, fps, fade, light, ...): opaque. */
typedef struct rp_settings rp_settings;

/** Parse settings written as scene lines ("preset elias\nfade 2s\n"; rockpool-scene(5)
 * SETTINGS), to put over a scene's (rp_core_config.over, rp_run.over). A line that is not a
 * setting (an event) is refused. Errors as rp_scene_from_text's, with name ("<settings>"
 * when NULL) as the file of diagnostics. */
RP_API int rp_settings_parse(rp_settings **settings, const char *text, const char *name,
                             rp_error *err);

/** Free and null settings from rp_settings_parse; NULL and a NULL *settings are no-ops. */
RP_API void rp_settings_free(rp_settings **settings);

/** Settings with nothing given: every value left to the scene's (and its preset's), to be
 * given one by one with rp_settings_set(). RP_ERR_NOMEM; *settings is NULL on failure. Free
 * them with rp_settings_free(). */
RP_API int rp_settings_new(rp_settings **settings, rp_error *err);

/** The timeline's length at most: RP_FRAMES_MAX frames ("frames", and "duration" given in
 * frames), RP_DURATION_MAX_US microseconds (1000000 s, "duration" as a time, as the scene's
 * `duration` statement takes it). */
#define RP_FRAMES_MAX INT64_C(100000000)
#define RP_DURATION_MAX_US INT64_C(1000000000000)

/** Give one setting by name, the value read from text as rockpool(1)'s option of that name
 * reads it (in the manner of x264_param_parse); a later call replaces an earlier one:
 *   "input"     the background image or video: a path, used as it is (not resolved against
 *               a scene's directory); "" is the built-in texture
 *   "size"      the output size, WIDTHxHEIGHT, 1..16384 a side (the scene's too for the seed
 *               presets)
 *   "preset"    rockpool, elias, applet, silverlight or codeproject, with its drop shape and
 *               mode
 *   "seed"      a whole number 0..2^64-1, decimal digits or hexadecimal ones after 0x or
 *               0X (a leading '+' allowed)
 *   "strength"  0 to 4 with at most 3 decimals
 *   "fit"       stretch, cover or contain
 *   "fps"       30, 30000/1001, 29.97, ntsc, pal, film, ... (above 0, at most 1000)
 *   "frames"    the timeline's length in frames, 1..100000000
 *   "duration"  the timeline's length as a time (rp_time_parse, a bare number is seconds):
 *               1us..1000000s as the scene's `duration`, or 1f..100000000f as "frames"
 *               (0 is refused when the run opens)
 * A NULL pointer is RP_ERR_INVALID. Errors: RP_ERR_INVALID with bad_input set
 * and a message that does not name the setting (the caller says where the value came from;
 * an unknown name gives "no setting is named 'NAME'"); the settings are then unchanged. */
RP_API int rp_settings_set(rp_settings *settings, const char *name, const char *value,
                           rp_error *err);

/** Read a time as rockpool(1)'s options take it: "2s", "1.5s", "500ms", "250us", "45f"
 * (frames), FFmpeg's [HH:]MM:SS[.fraction]; a bare number is seconds, or a frame number when
 * bare_frames is set. RP_OK with *value in microseconds (*is_frames 0) or frames (*is_frames
 * 1), or RP_ERR_INVALID with bad_input set and a message that does not name the option
 * (or a NULL pointer). */
RP_API int rp_time_parse(const char *text, int bare_frames, int64_t *value, int *is_frames,
                         rp_error *err);

/** The values settings hold, for a display such as rockpool --check: what rp_core_info does
 * not say. Strings point into the settings (or are static) and live as long as they do. */
typedef struct rp_settings_info {
    int width, height;         /* the scene's size */
    int out_width, out_height; /* the output's (0x0: the scene's) */
    int fps, fps_den;          /* frames per second: fps / fps_den */
    const char *preset;        /* its name */
    uint64_t seed;
    int grid_w, grid_h;      /* the simulation's cells (0x0 until resolved) */
    int rate;                /* simulation steps a second; 0: one a frame */
    int32_t viscosity_q16;   /* the smoothing a step (65536 = 1); 0: none */
    const char *background;  /* its path; "": the built-in texture */
    const char *sky;         /* the sky image's path; "": none */
    int light;               /* 1: render `light` (the sky image is used) */
    int fit;                 /* 0 stretch, 1 cover, 2 contain */
    int32_t strength_milli;  /* heights times strength_milli / 1000 */
    int background_end;      /* 0: a video background holds its last frame; 1: it loops */
    int duration_background; /* the scene says `duration background` */
    int look_water;          /* render light's model is look water (its bed, caustics) */
    int walls_visible;       /* 0 hidden, 1 drawn in the wall colour, 2 in their images */
    double speed;            /* the waves' speed, scene pixels a second (0 until resolved) */
} rp_settings_info;

/** Fill info from settings: those a run resolved (rp_summary.settings in rockpool.h), or
 * any others (unresolved ones hold the defaults of the rockpool preset where not given). */
RP_API void rp_settings_get_info(const rp_settings *settings, rp_settings_info *info);

/** A copy of settings into *copy (free it with rp_settings_free). Errors: RP_ERR_NOMEM. */
RP_API int rp_settings_copy(rp_settings **copy, const rp_settings *settings, rp_error *err);

/** Whether the setting `name` was given: rp_settings_set's names, or the scene's keywords
 * "background" (rp_settings_set's "input"), "render" and "look". 1 or 0 (0 for an unknown
 * name). */
RP_API int rp_settings_given(const rp_settings *settings, const char *name);

/** The settings of scene with over (NULL: none) on top, merged as rp_core_open merges them,
 * before the size and the length are resolved (rp_core_settings has them resolved): to
 * decide what the caller gives rp_core_open (a background's size and length). Free them
 * with rp_settings_free. Errors: RP_ERR_NOMEM. */
RP_API int rp_settings_merged(rp_settings **merged, const rp_scene *scene, const rp_settings *over,
                              rp_error *err);

/** The scene's text as it was read (len bytes, NUL-terminated). */
RP_API const char *rp_scene_text(const rp_scene *scene, size_t *len);

/** The paths of the wall mask images a scene names, each once, in the order they first
 * appear: start with *at = 0 and call until NULL. */
RP_API const char *rp_scene_next_mask_path(const rp_scene *scene, size_t *at);

/** rp_scene_from_text of text the caller malloc'd (len + 1 bytes), which the scene takes
 * (it is freed with the scene, or at once when parsing fails): a large scene is not copied.
 * max_bytes (0: none) bounds what the scene holds (rp_scene_memory) while it is parsed, and
 * the first statement past it is refused, RP_ERR_TOO_LARGE with a diagnostic at its line; a
 * negative max_bytes is RP_ERR_INVALID (bad_input set), the text freed. */
RP_API int rp_scene_from_buffer(rp_scene **scene, char *text, size_t len, const char *filename,
                                int64_t max_bytes, rp_error *err);

/** The text of the built-in scene (a few seconds of rain), what rockpool renders when it
 * is given none. */
RP_API const char *rp_scene_builtin(void);

/** The name diagnostics use: the file's path, "<stdin>" or "<scene>". */
RP_API const char *rp_scene_name(const rp_scene *scene);

/** The scene file's path, or NULL when the text came from stdin or memory. */
RP_API const char *rp_scene_file(const rp_scene *scene);

/** Bytes the scene holds: its text, its events and paths. */
RP_API double rp_scene_memory(const rp_scene *scene);

/** The first background (background nonzero) or other (wall mask, sky image) path of the
 * scene that reaches outside the scene's directory (an absolute path or a '..' component),
 * as a diagnostic at its line and column; NULL when there is none (rockpool(1)
 * --allow-outside-paths). */
RP_API const rp_diag *rp_scene_outside_path(const rp_scene *scene, int background);

/** Where the scene's `background PATH` names it, or NULL: file, line, column and the
 * line's text (the message is a placeholder for the caller's). */
RP_API const rp_diag *rp_scene_background_at(const rp_scene *scene);

/** Where the scene's `sky PATH` names its image (as rp_scene_background_at), or NULL. */
RP_API const rp_diag *rp_scene_sky_at(const rp_scene *scene);

/** The statement that chose the render mode (model 0: the last `render`, else the last
 * `preset`) or render light's model (model 1: the last `look`, else the last `preset`), as
 * rp_scene_sky_at gives it, or NULL when the defaults chose; *by_preset 1 when it is the
 * `preset` statement (a `render` or `look` statement wins over any preset, the command
 * line's too). */
RP_API const rp_diag *rp_scene_look_from(const rp_scene *scene, int model, int *by_preset);

/** Where the scene gives the setting whose statement begins with name ("size", "fps",
 * "grid", ...), for a refusal found once the run is resolved: *at as rp_scene_sky_at gives
 * it (file, line, the column of the statement's first value, the line's text; the message
 * is the caller's), and its line; 0, *at untouched, when the scene does not give it. Since
 * 2.5. */
RP_API int rp_scene_setting_place(const rp_scene *scene, const char *name, rp_diag *at);

/** Counts of a scene's event statements by kind, its `key` statements, its paths and the
 * walls that move along one (counted in walls too). */
typedef struct rp_scene_stats {
    int drops, rains, strokes, walls, emitters;
    int keys, paths, moving_walls;
} rp_scene_stats;
RP_API void rp_scene_stats_get(const rp_scene *scene, rp_scene_stats *stats);

/** Cap the vector kernels every core and session of the process uses at a level by name:
 * "c", "sse2", "avx2", "avx512" or "avx512icl" (AVX-512 with AVX512VBMI; in a WebAssembly
 * build "simd128" too, as "sse2"). The bytes
 * are the same at every level: for tests and benchmarks. RP_OK, or RP_ERR_INVALID for an
 * unknown name. */
RP_API int rp_simd_cap(const char *level);

/** How the bytes of a picture lie in memory: rows top row first, samples in the order
 * named. 16-bit samples are uint16_t in the machine's byte order. */
enum rp_pixfmt {
    RP_PIX_RGB24 = 0, /* R, G, B */
    RP_PIX_RGBA,      /* R, G, B, A */
    RP_PIX_GRAY16,    /* one 16-bit sample */
    RP_PIX_RGB48      /* three 16-bit samples */
};

/** How a core is opened. Fill with rp_core_config_init(), then set fields. */
typedef struct rp_core_config {
    /* Settings over the scene's (rp_settings_parse), or NULL. The settings are merged as the
     * program merges them: the preset's defaults, the scene's, then these. */
    const rp_settings *over;
    /* The output size in pixels (as rockpool -s), both or neither; 0x0: the scene's. */
    int width, height;
    /* Threads rendering each frame: 1 (the default) renders on the caller's thread, 0 one
     * per CPU the process may run on (its affinity mask and cgroup CPU quota; at most 64);
     * at most 256. The bytes are the same for every count. */
    int threads;
    /* Refuse scenes whose timeline would need more bytes than this; 0: no limit (negative:
     * rp_core_open refuses it, RP_ERR_INVALID). */
    int64_t max_memory;
    /* The background the water refracts: width x height pixels of RP_PIX_RGB24 or
     * RP_PIX_RGBA (alpha ignored), rows background_stride bytes apart. NULL: the scene's
     * built-in texture (what rockpool draws when the scene names no background). The core
     * does not copy it: it is read at every frame rendered, so the caller may change its
     * pixels between frames (a video), and it must stay valid while the core lives (or
     * until rp_core_set_background replaces it). */
    const uint8_t *background;
    size_t background_stride;
    enum rp_pixfmt background_format;
    /* The size of the picture the caller's background comes from, both or neither (0x0:
     * none): a scene that gives no size takes it, as rockpool takes a background image's. */
    int image_width, image_height;
    /* 1: a scene's background and sky images are not refused but left out (the built-in
     * texture, or the caller's background, and the sky colour): a preview, as the
     * playground shows. 0 (the default): such a scene's first rp_core_render fails (see
     * rp_core_open). */
    int without_images;
    /* A flag the caller sets (a signal handler, say) to stop early: rp_core_open's timeline
     * and rp_core_render's simulation then stop between two steps or two drops, and fail
     * with RP_ERR_INTERRUPTED (the core is left at some step: render again or close it).
     * NULL (the default): none. */
    volatile sig_atomic_t *stop;
    /* 1: the images the scene names may lie outside its folder (rockpool(1)
     * --allow-outside-paths); 0 (the default): a mask or sky path that leads out of it
     * (by "..", or absolute) is refused at the first frame when images are decoded
     * (rp_core_set_images). */
    int allow_outside_paths;
    /* 1: a checkpoint is bound to the contents of the background and sky image files the
     * settings name too (as rockpool --save-state binds them), besides the scene's text and
     * its wall masks; 0 (the default): to those alone (the caller gives the background). */
    int checkpoint_images;
    /* The frames of the caller's video background: the timeline's length when neither the
     * scene nor `over` gives a duration or the scene says `duration background`, as
     * rockpool(1) takes a video background's length, at most RP_FRAMES_MAX. 0 (the default):
     * none. */
    int64_t footage_frames;
} rp_core_config;

/** Defaults: no settings over the scene's, the scene's size, one thread, no memory limit,
 * the built-in texture, no picture's size, images refused. */
RP_API void rp_core_config_init(rp_core_config *cfg);

/** A core: the scene's settings resolved, its timeline, the simulation and the look. */
typedef struct rp_core rp_core;

/** Open a core for scene (which must outlive it): merge and resolve the settings, check the
 * timeline's cost, build the timeline. The simulation is allocated at the first frame.
 * Errors are bad input (RP_ERR_INVALID, RP_ERR_TOO_LARGE; a diagnostic when they have a
 * place in the scene) or RP_ERR_NOMEM; *core is NULL on failure. A scene that names
 * images (rp_core_info's needs_*) opens, and its first frame fails with
 * RP_ERR_UNSUPPORTED: a background image unless the caller gives the background's pixels
 * (or sets without_images); a sky image under render light (unless without_images) and
 * wall masks unless the caller decodes them (rp_core_set_images). */
RP_API int rp_core_open(rp_core **core, const rp_scene *scene, const rp_core_config *cfg,
                        rp_error *err);

/** What an open core renders. */
typedef struct rp_core_info {
    int width, height;    /* the output's pixels */
    int grid_w, grid_h;   /* the simulation's cells (rp_core_heights) */
    int64_t frames;       /* frames of the timeline: indices 0..frames-1 */
    int64_t steps;        /* simulation steps the timeline holds (the last frame shows) */
    int fps, fps_den;     /* frames per second: fps / fps_den */
    int light;            /* 1: render `light` (the rockpool preset): every pass exists */
    int needs_background; /* the scene names a background image: give it (config) */
    int needs_sky;        /* the scene names a sky image (render light reflects it) */
    int needs_masks;      /* the scene names wall masks (images): rp_core_set_images */
} rp_core_info;

RP_API void rp_core_get_info(const rp_core *core, rp_core_info *info);

/** The core's settings, resolved (rp_settings_get_info reads them). Valid while it lives. */
RP_API const rp_settings *rp_core_settings(const rp_core *core);

/** Counts of the timeline's items (the events expanded over the frames). */
typedef struct rp_timeline_stats {
    size_t drops;       /* drop items in total (explicit + rain + stroke dabs) */
    size_t rain_drops;  /* of which from rain */
    size_t stroke_dabs; /* of which from strokes */
    size_t walls;
    size_t after_end; /* items left out because they fall after the last frame */
} rp_timeline_stats;
RP_API void rp_core_timeline_stats(const rp_core *core, rp_timeline_stats *stats);

/** The simulation steps done when frame `frame` (0..frames-1) is shown (0..rp_core_info
 * steps); -1 for a frame outside the timeline (it had been extrapolated past either end). */
RP_API int64_t rp_core_frame_steps(const rp_core *core, int64_t frame);

/** The drops the steps of frame `frame` start (those after frame - 1's; 0 for a frame
 * outside the timeline). The timeline does
 * not change once built: this may be called from another thread while the core renders. */
RP_API size_t rp_core_frame_drops(const rp_core *core, int64_t frame);

/** The steps the water has taken (0 before the first frame). */
RP_API int64_t rp_core_steps(const rp_core *core);

/** Replace the background (as rp_core_config's fields; data NULL: the built-in texture)
 * for the frames rendered from now on. Errors: RP_ERR_INVALID for a format other than
 * RP_PIX_RGB24 or RP_PIX_RGBA or a stride shorter than a row (or whose rows would run past
 * the end of memory). */
RP_API int rp_core_set_background(rp_core *core, const uint8_t *data, size_t stride,
                                  enum rp_pixfmt format, rp_error *err);

/** What an image the scene names is wanted for (rp_core_image_fn). */
enum rp_image_use {
    /* `wall mask PATH`: stretched to the grid's size (rp_core_info grid_w x grid_h). The core
     * makes a cell a wall where its pixel's luma, (77 R + 150 G + 29 B + 128) >> 8, is at
     * least 128 (rockpool-scene(5)). */
    RP_IMAGE_WALL_MASK = 0,
    /* with `walls visible image`: the same mask's picture stretched to the output size,
     * the walls' colours */
    RP_IMAGE_WALL_PICTURE,
    /* `sky PATH` under render light: the sky at the output size, covering it (`fit cover`) */
    RP_IMAGE_SKY
};

/** Decode the still image at path (the scene's path, resolved against the scene file's
 * directory) for use into rgb: width x height RP_PIX_RGB24 pixels, rows packed, scaled as
 * rockpool scales it (FFmpeg's bicubic, bit-exact, alpha composited over black) for the
 * command line's frames. Return RP_OK, or an error code with its reason in err (its place
 * in the scene is added by the core). */
typedef int (*rp_core_image_fn)(void *ctx, const char *path, enum rp_image_use use, int width,
                                int height, uint8_t *rgb, rp_error *err);

/** Let fn decode the scene's wall masks and sky image (the core decodes no images) at the
 * first frame, each file once per use (spellings of one file, by its device and inode,
 * share it); fn NULL: refuse them (the default). A scene path that reaches outside the
 * scene file's directory (absolute, or with a '..') is refused at its statement, as
 * rockpool refuses it without --allow-outside-paths (unless allow_outside_paths), before
 * fn is asked. Call it before the first frame: afterwards it is RP_ERR_INVALID. */
RP_API int rp_core_set_images(rp_core *core, rp_core_image_fn fn, void *ctx, rp_error *err);

/** What decoding path for use at width x height would cost at its peak, in bytes, found
 * without decoding it (RP_ERR_* with a reason when it cannot be read or is too large). */
typedef int (*rp_core_cost_fn)(void *ctx, const char *path, enum rp_image_use use, int width,
                               int height, int64_t *bytes, rp_error *err);

/** Before any image is decoded: the wall masks the timeline uses, each file once (by its
 * device and inode, whatever the spelling), costed by fn; *bytes gets what they cost (and
 * the shapes of moving masks) added, *files the count of distinct mask files. A mask that
 * cannot be read, or one shape over the memory limit, is the error, at the statement that
 * names it. */
RP_API int rp_core_image_costs(const rp_core *core, rp_core_cost_fn fn, void *ctx, double *bytes,
                               size_t *files, rp_error *err);

/** The bytes the core will hold at its peak, roughly, given the count of distinct mask
 * files (rp_core_image_costs): the two height buffers, walls and masks per cell, the light's
 * per pixel, the sky and the walls' pictures, the scene and the timeline. The images'
 * decoding is rp_core_image_costs'; the caller's background and frames are the caller's. */
RP_API double rp_core_memory(const rp_core *core, size_t mask_files);

/** What rp_core_render writes. Every picture is at the output size (rp_core_info width x
 * height) except RP_PASS_HEIGHT at the grid's when the render is not `light`. */
enum rp_pass {
    RP_PASS_RENDER = 0, /* RP_PIX_RGB24: the frame, the water over the background */
    /* RP_PIX_RGBA: the light layer alone (render light): its composite over the background
     * is the render with refraction off (rockpool(1) --alpha). Straight alpha, or colours
     * premultiplied by alpha (round(C * A / 255), what --alpha writes). */
    RP_PASS_LIGHT,
    RP_PASS_LIGHT_PREMULTIPLIED,
    /* RP_PIX_GRAY16: the heights as --aov height writes them, h + 32768: with render light
     * interpolated to the output size, else the grid's own */
    RP_PASS_HEIGHT,
    /* RP_PIX_RGB48 (render light): --aov normal, displacement (an ST map) and caustics (the
     * gains on the refracted background), the values rockpool(1) "ALPHA AND AOVS" gives */
    RP_PASS_NORMAL,
    RP_PASS_DISPLACEMENT,
    RP_PASS_CAUSTICS,
    /* RP_PIX_RGBA: RP_PASS_RENDER's colours with the alpha of the caller's RGBA background
     * (255 over any other background): a frame given back to a host in its own layout.
     * dst may be the background itself. */
    RP_PASS_RENDER_RGBA
};

/** The light's settings a caller may put over the scene's (and its keys'), from the next
 * frame rendered on, as an editor's keyframes do (render light only; other renders ignore
 * them). Values in the light's own units, in the ranges the scene language takes
 * (rockpool-scene(5)): */
enum rp_light_knob {
    RP_LIGHT_DEPTH = 0, /* depth, 1/256 grid cell: 1..65536 (0.004 to 256 cells) */
    RP_LIGHT_AZIMUTH,   /* the sun's azimuth, millidegrees: -360000..360000 */
    RP_LIGHT_ELEVATION, /* the sun's elevation, millidegrees: 0..90000 */
    RP_LIGHT_CAUSTICS   /* caustics strength, 1/256: 0..16384 (0 to 64), under the
                            run's strength as the scene's caustics are */
};

/** Put value over the scene's knob (set nonzero), or give the knob back to the scene and
 * its keys (set 0; value ignored). Only the light is remade: the water is untouched, and
 * the frame rendered is the command line's with the scene's setting (or key) at value.
 * Errors: RP_ERR_INVALID for a knob or value out of range (nothing changed). */
RP_API int rp_core_set_light(rp_core *core, enum rp_light_knob knob, int set, int32_t value,
                             rp_error *err);

/** Keep up to count checkpoints of the water in memory (at most max_bytes in all; 0 and 0:
 * none, the default), evenly spaced over the timeline's steps from step 0 and saved as the
 * simulation passes them: going back in time then re-simulates from the nearest one at or
 * before the instant, not from the start. A checkpoint is the whole state (the water, with
 * the walls and moving walls replayed from the timeline): the bytes are those of a run
 * straight to the frame. Taking effect at once, it drops those kept before. Errors:
 * RP_ERR_INVALID (count outside 0..4096: nothing changed), RP_ERR_NOMEM (none kept). */
RP_API int rp_core_set_checkpoints(rp_core *core, int count, size_t max_bytes, rp_error *err);

/** Bound the simulation one render call may do to cells grid cells stepped (at least one
 * step a call; 0, the default: no bound), so a frame far ahead does not block the caller:
 * a call that reaches the bound first returns RP_ERR_AGAIN (bad_input 0) with nothing
 * written, and the next call for that frame (or a later one) carries on from there; with
 * checkpoints (rp_core_set_checkpoints), also after calls for earlier frames in between,
 * the water where the bound stopped a call being kept (one checkpoint's bytes more). */
RP_API void rp_core_set_step_budget(rp_core *core, int64_t cells);

/** Allocate the simulation and the renderer, and decode the scene's images
 * (rp_core_set_images), as the first frame does: their errors, those rp_core_render
 * gives for an image, come now, before any frame is asked for. A background image the
 * scene names is not one of them: its pixels are given frame by frame, and a frame asked
 * for without them is refused. Calling it again is a no-op once it has succeeded. */
RP_API int rp_core_start(rp_core *core, rp_error *err);

/** Render frame `frame` (0..frames-1) as pass into dst, rows stride bytes apart. The water
 * is simulated to the frame's instant, from where it is: rendering frames in order costs
 * one frame's steps each; going back re-simulates from the nearest checkpoint kept
 * (rp_core_set_checkpoints) or restored, else from the start. Rendering pass after pass of one
 * frame simulates it once. Errors: RP_ERR_INVALID (a frame outside the timeline, a stride shorter
 * than a row or so long that the rows would run past the end of memory, a negative one cast
 * to size_t among them, a NULL dst, a pass of render light asked of another render),
 * RP_ERR_UNSUPPORTED with bad_input set when the scene needs an image the core cannot decode
 * (rp_core_info; diag gives the statement that names it), RP_ERR_AGAIN under a step budget,
 * RP_ERR_NOMEM. */
RP_API int rp_core_render(rp_core *core, int64_t frame, enum rp_pass pass, void *dst, size_t stride,
                          rp_error *err);

/** n passes of frame `frame` at once: passes[i] into dst[i], rows stride[i] bytes apart, as
 * n calls of rp_core_render give them, but the surface passes (RP_PASS_NORMAL,
 * RP_PASS_DISPLACEMENT, RP_PASS_CAUSTICS) with packed rows are worked out together, once.
 * Errors as rp_core_render's, at the first pass that fails; RP_ERR_INVALID for n < 0. */
RP_API int rp_core_render_passes(rp_core *core, int64_t frame, int n, const enum rp_pass *passes,
                                 void *const *dst, const size_t *stride, rp_error *err);

/** Render the instant `ns` nanoseconds after the timeline's start, as the frei0r plugin
 * does: the water as it is after the steps up to that instant (with a simulation rate
 * above the frame rate, between two frames' states), the look and the walls of the frame
 * the instant falls in. At a frame's instant, or up to a microsecond before it (a time
 * floored to the nanosecond is up to 1 ns early), it is rp_core_render of that frame; past the
 * last frame's instant (in its interval, up to the timeline's end) the water is the last
 * frame's, whose steps the timeline holds. Errors as rp_core_render's; an instant before 0
 * or past the timeline's end is RP_ERR_INVALID. */
RP_API int rp_core_render_at(rp_core *core, int64_t ns, enum rp_pass pass, void *dst, size_t stride,
                             rp_error *err);

/** The height field after the last frame rendered: *grid_w x *grid_h int16 heights, rows
 * packed (0 is the water at rest). Valid until the next call on the core; NULL before the
 * core starts (its first frame, or rp_core_start), and when out of memory after a refused
 * checkpoint, until the next frame. */
RP_API const int16_t *rp_core_heights(const rp_core *core, int *grid_w, int *grid_h);

/** The bytes of a checkpoint of the water after the last frame rendered (rockpool's
 * --save-state file, the same format). */
RP_API size_t rp_core_checkpoint_size(const rp_core *core);

/** Write the checkpoint into dst (size bytes, at least rp_core_checkpoint_size). Errors:
 * RP_ERR_INVALID before the core starts (its first frame, or rp_core_start), when out of
 * memory after a refused checkpoint (until the next frame), or with too small (or a NULL)
 * buffer, RP_ERR_NOMEM. */
RP_API int rp_core_checkpoint_save(rp_core *core, void *dst, size_t size, rp_error *err);

/** Restore the water from a checkpoint (size bytes at src) saved by a core of the same
 * scene and settings (or by rockpool --save-state of the same scene without images): the
 * next frames rendered are those of a run that never stopped. Errors: RP_ERR_FORMAT (not a
 * checkpoint, damaged, another version, another grid size), RP_ERR_INVALID (another scene,
 * other settings or other inputs), RP_ERR_IO (an input it is bound to cannot be read), all
 * with bad_input set; the frames rendered next are then those of the core before. */
RP_API int rp_core_checkpoint_load(rp_core *core, const void *src, size_t size, rp_error *err);

/** rp_core_checkpoint_load of the checkpoint read from f (as far as it needs: a file that is
 * not a checkpoint is refused at its header, whatever its size), refusing one taken after
 * last_steps steps (-1: any) with RP_ERR_INVALID before its scene and inputs are compared.
 * *steps (may be NULL) is the checkpoint's steps once its header and buffers are read, else -1. */
RP_API int rp_core_checkpoint_read(rp_core *core, FILE *f, int64_t last_steps, int64_t *steps,
                                   rp_error *err);

/** What rp_core_checkpoint_read would refuse, without loading it: the checkpoint read from
 * f into scratch water and compared with the core's scene, settings and inputs, the core
 * itself unchanged (not started, its water untouched; rockpool --check --load-state).
 * The same errors and *steps. */
RP_API int rp_core_checkpoint_check(rp_core *core, FILE *f, int64_t last_steps, int64_t *steps,
                                    rp_error *err);

/** The resolved settings and the timeline as text (what tests/tools/rpcore --items
 * prints: the same on every architecture), for tests and debugging. Returns 0, or -1 when
 * writing to f fails. */
RP_API int rp_core_print_timeline(const rp_core *core, FILE *f);

/** Cap the vector kernels every core in the process uses at the plain C loops (plain
 * nonzero) or remove the cap (0); the bytes are the same either way. Call it between
 * frames, not while one renders on another thread. */
RP_API void rp_core_plain_c(int plain);

/** Free and null the core; NULL and a NULL *core are no-ops. */
RP_API void rp_core_close(rp_core **core);

#ifdef __cplusplus
}
#endif

#endif
