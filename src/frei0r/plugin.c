/* plugin.c - rockpool as a frei0r filter (rockpool-frei0r(7)): the host's frame is the
 * background, the host's time picks the simulation's state, and the core (include/rpcore.h,
 * its public API and nothing else) renders the frame exactly as the command line's frames
 * are rendered. A thin adapter: no files but the scene and the images it names, which
 * images.c decodes with the command line's own loaders.
 *
 * Each instance holds one core, opened from the parameters when they change, which keeps
 * checkpoints of the water in memory so that times may come in any order: a time before
 * the simulation's state, or past a checkpoint it has passed, restarts from the nearest
 * checkpoint at or before it. Every call takes the instance's lock, so a host may drive
 * one instance from several threads; instances share nothing.
 *
 * Anything wrong (a scene that does not parse, a parameter out of range, a time that is
 * not a number or outside the scene, a frame size the plugin refuses) gives the host's
 * frame back under magenta stripes (the error frame; unchanged with the errframe
 * parameter off) and one line on stderr, printed again only when the reason changes. */
#include <frei0r.h>

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpcore.h"
#include "frei0r/images.h"

/* The parameters, in the order hosts address them. */
enum {
    P_SCENE,
    P_UNIT,
    P_LAYER,
    P_SEED,     /* strings */
    P_ERRFRAME, /* a bool, then doubles (0..1) */
    P_DEPTH,
    P_AZIMUTH,
    P_ELEVATION,
    P_CAUSTICS,
    P_OFFSET,
    P_STRENGTH, /* a double that changes the water: the simulation is built again */
    P_RESOURCE, /* a string: the scene's path under the name MLT's XML reader resolves */
    P_COUNT
};

/* Where the strings and the numbers are kept: in->param[] holds the strings (0 to 3, then
 * the resource), in->num[] the bool and the doubles (4 to 10). */
#define S_RESOURCE 4
#define S_COUNT 5
#define IS_NUM(index) ((index) >= P_ERRFRAME && (index) < P_RESOURCE)
#define NUM(in, index) ((in)->num[(index)-P_ERRFRAME])
#define STR_SLOT(index) ((index) == P_RESOURCE ? S_RESOURCE : (index))

static const f0r_param_info_t param_info[P_COUNT] = {
    {"scene", F0R_PARAM_STRING,
     "scene file path, unless resource is set; both empty = the built-in rain"},
    {"time unit", F0R_PARAM_STRING, "unit of the host's time: s (default) or ms (FFmpeg)"},
    {"layer", F0R_PARAM_STRING,
     "render (the water over the frame, default) or light (the light layer alone, RGBA, "
     "straight alpha)"},
    {"seed", F0R_PARAM_STRING, "random seed, decimal or hexadecimal after 0x; empty = the scene's"},
    {"error frame", F0R_PARAM_BOOL,
     "on a failure, magenta stripes over the frame (default) rather than the frame unchanged"},
    {"depth", F0R_PARAM_DOUBLE, "water depth: 0 = the scene's, else x 64 grid cells"},
    {"azimuth", F0R_PARAM_DOUBLE, "sun azimuth: 0 = the scene's, else x 360 degrees"},
    {"elevation", F0R_PARAM_DOUBLE, "sun elevation: 0 = the scene's, else x 90 degrees"},
    {"caustics", F0R_PARAM_DOUBLE, "caustics strength: 0 = the scene's, else x 4"},
    {"time offset", F0R_PARAM_DOUBLE,
     "seconds subtracted from the host's time: x 3600 (a clip cut at 59 s: 59 / 3600)"},
    {"strength", F0R_PARAM_DOUBLE,
     "how strongly the water moves: 0 = the scene's, else x 4; a changed value replays the "
     "water from the start"},
    {"resource", F0R_PARAM_STRING,
     "scene file path as MLT projects keep it (MLT's XML reader makes a path relative to the "
     "project's folder absolute); when not empty, the scene, in place of the scene parameter"},
};

/* The doubles' ranges: a value v in (0, 1] is v x scale of the light's own unit (light.h),
 * rounded; 0 leaves the scene's (and its keys'). */
static const struct {
    enum rp_light_knob knob;
    double scale;
    int32_t min;
} light_param[] = {
    [P_DEPTH - P_DEPTH] = {RP_LIGHT_DEPTH, 64 * 256.0, 1},      /* 1/256 cell: 0..64 cells */
    [P_AZIMUTH - P_DEPTH] = {RP_LIGHT_AZIMUTH, 360000.0, 0},    /* mdeg: 0..360 degrees */
    [P_ELEVATION - P_DEPTH] = {RP_LIGHT_ELEVATION, 90000.0, 0}, /* mdeg: 0..90 degrees */
    [P_CAUSTICS - P_DEPTH] = {RP_LIGHT_CAUSTICS, 4 * 256.0, 0}, /* 1/256: 0..4 */
};

/* The time offset's scale: 1 is an hour. */
#define OFFSET_SCALE_S 3600.0
/* The latest scene time a frame is rendered at, in seconds (31 years). */
#define MAX_TIME_S 1e9

static const char *const param_default[S_COUNT] = {"", "s", "render", "", ""};

/* Limits: checkpoints a run keeps (and the bytes they may take), and the memory a frame
 * size may ask for before the plugin refuses it. */
#define CHECKPOINTS_MAX 32
#define CHECKPOINT_BYTES_MAX ((size_t)256 << 20)
#define MEMORY_MAX ((double)((int64_t)2 << 30))

/* The frame sides the plugin renders: from the smallest grid the simulation takes to the
 * largest side the core takes. */
#define FRAME_SIDE_MIN 16
#define FRAME_SIDE_MAX 16384

/* The strength parameter's scale, as the scene's `strength` (0 to 4, in thousandths). */
#define STRENGTH_MAX_MILLI 4000

/* The work one f0r_update may do: at most this many grid cells stepped (2^28: 1,165
 * steps of the 230,400-cell grid of a 1920x1080 scene, a second or two a call; the man
 * page's LIMITS has the figures), so a time far into a long scene does not block the host
 * for minutes; later calls carry on. */
#define STEP_CELLS_MAX ((int64_t)1 << 28)

/* A call for a frame at most this many after the last one asked for is in order (pace):
 * playing or rendering, MLT's workers each seeing every few frames, and one a while behind
 * the others, which go on up to MLT's buffer (25 frames by default) ahead of the output. */
#define IN_ORDER_FRAMES 64

/* The bytes of a scene's path an error message shows at most (its end). */
#define PATH_SHOWN 200

/* Scene files are text; the plugin reads at most this much. */
#define SCENE_BYTES_MAX ((size_t)16 << 20)

/* The times of the previous calls an instance keeps: a rate is taken from times of whole
 * milliseconds when they all fit it (find_rate), up to this many. */
#define TIMES_KEPT 32

/* The replaced string values an instance keeps (struct retired). */
#define RETIRED_KEPT 64

typedef struct instance {
    pthread_mutex_t lock;
    unsigned width, height; /* the host's frame */
    char *param[S_COUNT];   /* the strings, by STR_SLOT */
    /* string values replaced lately, newest first: a pointer f0r_get_param_value handed
     * out stays valid (a host may read on one thread while setting on another) for the
     * next RETIRED_KEPT changes; older ones are freed, so a host that changes a string every
     * frame (MLT's keyframed seed) does not grow the instance without bound */
    struct retired {
        struct retired *next;
        char *value;
    } * retired;
    double num[P_RESOURCE - P_ERRFRAME]; /* the bool and the doubles, by NUM */
    int stale;     /* the scene's path changed since the scene was read: read it again */
    int stale_run; /* the seed or strength changed since the core was opened: open it again */
    int32_t strength_milli;       /* the strength parameter in thousandths; -1: the scene's */
    int fps, fps_den;             /* the host's frame rate the core is opened at (0: the scene's) */
    int scene_fps, scene_fps_den; /* the scene's own rate (0 until a core opened at it) */
    /* the build: NULL core when it failed (why in error) */
    rp_scene *scene;
    rp_core *core;
    rp_core_info info;
    char error[1600];
    uint8_t *black;  /* a black RGBA frame: the background when the host gives none */
    char said[1600]; /* the reason of the last message printed (say_as) */
    int warned_rate; /* warn_frame_locked has spoken */
    int warned_unit; /* warn_unit has spoken */
    /* the times of the previous calls in seconds (after unit and offset), the latest first,
     * -1 for none */
    double last_ts[TIMES_KEPT - 1];
    int ms_host;    /* the host's times are rounded to the millisecond (find_rate) */
    int64_t last_k; /* the frame the last call asked for, on the core's rate; -1: none yet */
} instance;

/* One line on stderr, unless its reason is the one said last by this instance: the
 * reason is the message itself, or for messages that name the frame's time or a value
 * that may change every frame (a time past the scene's end, a keyframed parameter out of
 * range), a key of what is wrong, so that a clip longer than the scene is said once, not
 * once a frame. */
static void say_as(instance *in, const char *reason, const char *msg)
{
    if (!strcmp(in->said, reason))
        return;
    snprintf(in->said, sizeof in->said, "%s", reason);
    fprintf(stderr, "rockpool frei0r: %s\n", msg);
}

static void say(instance *in, const char *msg)
{
    say_as(in, msg, msg);
}

int f0r_init(void)
{
    return 1;
}

void f0r_deinit(void)
{
}

void f0r_get_plugin_info(f0r_plugin_info_t *info)
{
    info->name = "rockpool";
    info->author = "rockpool";
    info->plugin_type = F0R_PLUGIN_TYPE_FILTER;
    info->color_model = F0R_COLOR_MODEL_RGBA8888;
    info->frei0r_version = FREI0R_MAJOR_VERSION;
    info->major_version = 0;
    info->minor_version = 2;
    info->num_params = P_COUNT;
    info->explanation = "water ripples over the frame, from a rockpool scene";
}

void f0r_get_param_info(f0r_param_info_t *info, int index)
{
    if (index >= 0 && index < P_COUNT)
        *info = param_info[index];
}

/* The run built from the scene: the core (with its checkpoints) and the frame buffers. */
static void release_run(instance *in)
{
    rp_core_close(&in->core);
    free(in->black);
    in->black = NULL;
}

static void release_build(instance *in)
{
    release_run(in);
    rp_scene_free(&in->scene);
}

f0r_instance_t f0r_construct(unsigned int width, unsigned int height)
{
    instance *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    /* Sizes the core cannot take are refused when a frame comes, not here: a host that
     * cannot construct an instance may give up on the whole graph. */
    in->width = width;
    in->height = height;
    in->stale = 1;
    NUM(in, P_ERRFRAME) = 1; /* the error frame on */
    in->strength_milli = -1;
    in->last_k = -1;
    for (int i = 0; i < TIMES_KEPT - 1; i++)
        in->last_ts[i] = -1;
    for (int i = 0; i < S_COUNT; i++)
        if (!(in->param[i] = strdup(param_default[i]))) {
            for (int j = 0; j < i; j++)
                free(in->param[j]);
            free(in);
            return NULL;
        }
    if (pthread_mutex_init(&in->lock, NULL)) {
        for (int i = 0; i < S_COUNT; i++)
            free(in->param[i]);
        free(in);
        return NULL;
    }
    return in;
}

/* Free the retired values from *r on. */
static void free_retired(struct retired **r)
{
    while (*r) {
        struct retired *old = *r;
        *r = old->next;
        free(old->value);
        free(old);
    }
}

/* Keep the RETIRED_KEPT newest retired values, freeing the rest. */
static void trim_retired(instance *in)
{
    struct retired **r = &in->retired;
    for (int k = 0; *r && k < RETIRED_KEPT; k++)
        r = &(*r)->next;
    free_retired(r);
}

void f0r_destruct(f0r_instance_t instance_)
{
    instance *in = instance_;
    if (!in)
        return;
    release_build(in);
    for (int i = 0; i < S_COUNT; i++)
        free(in->param[i]);
    free_retired(&in->retired);
    pthread_mutex_destroy(&in->lock);
    free(in);
}

/* The scene file's path: the resource parameter when it is not empty (MLT projects: its
 * reader makes a path there relative to the project's folder absolute), else the scene
 * parameter; empty for the built-in scene. */
static const char *scene_path(const instance *in)
{
    return in->param[S_RESOURCE][0] ? in->param[S_RESOURCE] : in->param[P_SCENE];
}

/* Parameters that decide the simulation mark the build stale only when their value
 * really changes: hosts send every parameter before every frame. */
void f0r_set_param_value(f0r_instance_t instance_, f0r_param_t param, int index)
{
    instance *in = instance_;
    if (!in || index < 0 || index >= P_COUNT)
        return;
    if (IS_NUM(index)) { /* a bool is a double too (on from 0.5) */
        double v = param ? *(const double *)param : 0;
        /* a double is kept as sent, in range or not: one outside its range is refused
         * when a frame comes (bad_double), not clamped */
        if (index == P_ERRFRAME)
            v = v >= 0.5; /* NaN: off */
        /* the strength changes the water: the simulation is built again (from step 0) when
         * its value in thousandths, as the scene's `strength` takes it, changes; a value
         * out of range changes nothing until a good one comes */
        int strength = index == P_STRENGTH && v >= 0 && v <= 1;
        /* only then converted: another double (1e300, an infinity) does not fit an int */
        int32_t milli = strength && v > 0 ? (int32_t)(v * STRENGTH_MAX_MILLI + 0.5) : -1;
        pthread_mutex_lock(&in->lock);
        NUM(in, index) = v;
        if (strength && milli != in->strength_milli) {
            in->strength_milli = milli;
            in->stale_run = 1;
        }
        pthread_mutex_unlock(&in->lock);
        return;
    }
    const char *value = param ? *(const char *const *)param : NULL;
    if (!value)
        value = "";
    int slot = STR_SLOT(index);
    pthread_mutex_lock(&in->lock);
    if (strcmp(in->param[slot], value)) {
        char *copy = strdup(value);
        struct retired *old = copy ? malloc(sizeof *old) : NULL;
        if (old) {
            const char *path = scene_path(in);
            *old = (struct retired){in->retired, in->param[slot]};
            in->retired = old;
            in->param[slot] = copy;
            trim_retired(in);
            in->stale |= strcmp(path, scene_path(in)) != 0;
            in->stale_run |= index == P_SEED;
        } else {
            free(copy);
            say(in, "out of memory: a parameter keeps its old value");
        }
    }
    pthread_mutex_unlock(&in->lock);
}

void f0r_get_param_value(f0r_instance_t instance_, f0r_param_t param, int index)
{
    instance *in = instance_;
    if (!in || !param || index < 0 || index >= P_COUNT)
        return;
    pthread_mutex_lock(&in->lock);
    if (IS_NUM(index))
        *(double *)param = NUM(in, index);
    else
        *(const char **)param = in->param[STR_SLOT(index)];
    pthread_mutex_unlock(&in->lock);
}

/* The first double parameter outside its range, said in msg: depth to caustics and the
 * strength are 0..1, the time offset a number of hours (x 3600 s) from 0, past 1 too (a
 * clip cut from a recording over an hour long), up to MAX_TIME_S (a larger offset leaves
 * every host time before any scene). Returns 0 when all are in range. */
static int bad_double(const instance *in, char *msg, size_t msglen, const char **reason)
{
    for (int i = P_DEPTH; i <= P_STRENGTH; i++) {
        double v = NUM(in, i);
        if (i == P_OFFSET ? v >= 0 && v <= MAX_TIME_S / OFFSET_SCALE_S : v >= 0 && v <= 1)
            continue;
        snprintf(msg, msglen, "parameter '%s' is %g, %s: the frame is not rendered",
                 param_info[i].name, v,
                 i == P_OFFSET ? "not a number of hours (x 3600 s) from 0 to 277777"
                               : "outside 0..1 (0: the scene's)");
        *reason = param_info[i].name; /* a keyframed value may change every frame */
        return -1;
    }
    return 0;
}

/* ---- building a run ------------------------------------------------------------------- */

/* Fill err as the core fills it: code, whose fault, and a message. Returns code. */
static int set_error(rp_error *err, int code, int bad_input, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int set_error(rp_error *err, int code, int bad_input, const char *fmt, ...)
{
    va_list ap;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->bad_input = bad_input;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

/* The scene's text: the file at path (at most SCENE_BYTES_MAX), or NULL text for the
 * built-in scene. */
static int read_scene(const char *path, char **text, size_t *len, rp_error *err)
{
    /* the path as the message shows it: its last PATH_SHOWN bytes (from a character's
     * first byte) after "...", so the reason after it is never cut off */
    size_t plen = strlen(path);
    const char *tail = plen > PATH_SHOWN ? path + plen - PATH_SHOWN : path;
    while (tail > path && (*tail & 0xc0) == 0x80)
        tail++;
    const char *dots = tail > path ? "..." : "";
    *text = NULL;
    *len = 0;
    if (!path[0])
        return RP_OK;
    /* O_NONBLOCK: a FIFO or device named as the scene must not block the host in open();
     * it is then refused as not a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        return set_error(err, RP_ERR_IO, 0, "%s%s: cannot read scene: %s", dots, tail,
                         strerror(errno));
    }
    FILE *f = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > SCENE_BYTES_MAX ||
        !(f = fdopen(fd, "rb"))) {
        close(fd);
        return set_error(err, RP_ERR_IO, 0,
                         "%s%s: cannot read scene: not a regular file of at most %zu MiB", dots,
                         tail, SCENE_BYTES_MAX >> 20);
    }
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    int bad = !buf || ferror(f) || n == cap;
    fclose(f);
    if (!buf)
        return set_error(err, RP_ERR_NOMEM, 0, "out of memory");
    if (bad) {
        free(buf);
        return set_error(err, RP_ERR_IO, 0, "%s%s: cannot read scene: it changed while being read",
                         dots, tail);
    }
    *text = buf;
    *len = n;
    return RP_OK;
}

/* Settings as the command line merges them (the preset's defaults, the scene's, then the
 * options'), with the host's frame as `-i` and its size as `-s`: the host's rate as -r,
 * the strength as --strength, written as scene lines, and the seed as --seed. */
static int open_core(instance *in, rp_error *err)
{
    char over[160] = "";
    size_t n = 0;
    rp_settings *settings = NULL;
    if (in->fps) /* the host's rate, as -r */
        n += (size_t)snprintf(over + n, sizeof over - n, "fps %d/%d\n", in->fps, in->fps_den);
    if (in->strength_milli >= 0) /* as --strength */
        n += (size_t)snprintf(over + n, sizeof over - n, "strength %d.%03d\n",
                              (int)(in->strength_milli / 1000), (int)(in->strength_milli % 1000));
    if (over[0] && rp_settings_parse(&settings, over, "<plugin>", err))
        return err->code;
    /* the seed as --seed takes it (decimal, or hexadecimal after 0x) */
    if (in->param[P_SEED][0] && ((!settings && rp_settings_new(&settings, err)) ||
                                 rp_settings_set(settings, "seed", in->param[P_SEED], err))) {
        rp_settings_free(&settings);
        if (err->code == RP_ERR_NOMEM)
            return err->code;
        return set_error(err, RP_ERR_INVALID, 1,
                         "seed '%.100s' is not a whole number 0..2^64-1 (decimal, or "
                         "hexadecimal after 0x)",
                         in->param[P_SEED]);
    }
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    cfg.over = settings;
    cfg.width = (int)in->width;
    cfg.height = (int)in->height;
    cfg.threads = 0; /* one per usable CPU, as the command line's default */
    cfg.max_memory = (int64_t)MEMORY_MAX;
    cfg.background = in->black;
    cfg.background_stride = (size_t)in->width * 4;
    cfg.background_format = RP_PIX_RGBA;
    int r = rp_core_open(&in->core, in->scene, &cfg, err);
    rp_settings_free(&settings);
    if (r)
        return r;
    rp_core_get_info(in->core, &in->info);
    /* The scene's wall masks and sky image, decoded by FFmpeg as the command line does. */
    if ((r = rp_core_set_images(in->core, rp_frei0r_image, NULL, err)))
        return r;
    /* Checkpoints: at most CHECKPOINTS_MAX (and CHECKPOINT_BYTES_MAX), evenly spaced over
     * the steps of the scene; a call simulates at most STEP_CELLS_MAX cells' worth. */
    if ((r = rp_core_set_checkpoints(in->core, CHECKPOINTS_MAX, CHECKPOINT_BYTES_MAX, err)))
        return r;
    rp_core_set_step_budget(in->core, STEP_CELLS_MAX);
    return RP_OK;
}

/* A failed build: its reason in in->error, positioned like the command line's, less the
 * library's hint that a caller may allow paths outside the scene's directory (this plugin
 * never does, and its user cannot); the run is released (the scene, read, is kept). */
static void build_failed(instance *in, const rp_error *err)
{
    if (err->has_diag && err->diag.line > 0)
        snprintf(in->error, sizeof in->error, "%s:%d:%d: error: %s", err->diag.file, err->diag.line,
                 err->diag.col, err->diag.msg);
    else if (err->has_diag && err->diag.file[0])
        snprintf(in->error, sizeof in->error, "%s: %s", err->diag.file, err->diag.msg);
    else
        snprintf(in->error, sizeof in->error, "%s", err->msg);
    char *hint = strstr(in->error, " unless the caller allows it (");
    if (hint)
        *hint = '\0';
    release_run(in);
}

/* Read and parse the scene (when the scene parameter changed: not for a new seed or host
 * rate, so an edited file is read again only when the path is sent anew with another
 * spelling or after another path). */
static void read_build(instance *in)
{
    rp_error err;
    char *text = NULL;
    size_t len = 0;
    const char *path = scene_path(in);
    release_build(in);
    in->stale = 0;
    in->stale_run = 1;
    in->fps = in->fps_den = 0;
    in->scene_fps = in->scene_fps_den = 0;
    in->error[0] = '\0';
    memset(&err, 0, sizeof err);
    if (in->width < FRAME_SIDE_MIN || in->height < FRAME_SIDE_MIN || in->width > FRAME_SIDE_MAX ||
        in->height > FRAME_SIDE_MAX) {
        set_error(&err, RP_ERR_INVALID, 1, "a frame of %ux%u is outside %d..%d pixels a side",
                  in->width, in->height, FRAME_SIDE_MIN, FRAME_SIDE_MAX);
        build_failed(in, &err);
        return;
    }
    if (read_scene(path, &text, &len, &err)) {
        build_failed(in, &err);
        return;
    }
    int r = rp_scene_from_text(&in->scene, text, len, path[0] ? path : "<default>", &err);
    free(text);
    if (r)
        build_failed(in, &err);
}

/* Open the core at the host's size and rate, check what the plugin cannot do, and
 * allocate the frame buffers. */
static void build_run(instance *in)
{
    rp_error err;
    release_run(in);
    in->stale_run = 0;
    in->error[0] = '\0';
    memset(&err, 0, sizeof err);
    /* What a frame holds: the host frame and the render (RGB24), the light's heights at the
     * output size, the walls' colours; per cell the water (2x2 bytes) and walls (5). */
    double pixels = (double)in->width * in->height;
    if (pixels * (3 + 3 + 4 + 3) > MEMORY_MAX) {
        set_error(&err, RP_ERR_TOO_LARGE, 1,
                  "a frame of %ux%u needs about %.1f GiB, over the plugin's limit of %.0f GiB",
                  in->width, in->height, pixels * 13 / (1 << 30), MEMORY_MAX / (1 << 30));
        build_failed(in, &err);
        return;
    }
    size_t pix = (size_t)in->width * (size_t)in->height;
    if (!(in->black = calloc(pix, 4))) {
        set_error(&err, RP_ERR_NOMEM, 0, "out of memory");
        build_failed(in, &err);
        return;
    }
    for (size_t i = 0; i < pix; i++) /* opaque */
        in->black[4 * i + 3] = 255;
    if (open_core(in, &err)) {
        build_failed(in, &err);
        return;
    }
    if (!in->fps) {
        in->scene_fps = in->info.fps;
        in->scene_fps_den = in->info.fps_den;
    }
    if (in->info.width != (int)in->width || in->info.height != (int)in->height) {
        /* -s always gives the output size; the frame buffers are the host's */
        set_error(&err, RP_ERR_INVALID, 0, "the output is %dx%d, not the host's %ux%u",
                  in->info.width, in->info.height, in->width, in->height);
        build_failed(in, &err);
        return;
    }
    /* The simulation, and the scene's images decoded now: a bad image is said at build,
     * once, at the statement naming it. */
    if (rp_core_start(in->core, &err))
        build_failed(in, &err);
}

/* ---- time ----------------------------------------------------------------------------- */

/* How near a host's time must be to an instant of a frame grid to be taken as it. Hosts
 * do not pass exact instants: GStreamer's timestamps are whole nanoseconds rounded down
 * (frame 2 at 30 fps is 66,666,666 ns), multifilesrc adds up such durations (frame 15 at
 * 0.499999995 s), FFmpeg's milliseconds are pts * time_base * 1000 in a double. A
 * microsecond is far above those errors and far below any frame's duration (1/1000 s at
 * RP_FPS_MAX). */
#define SNAP_S 1e-6

/* Frame rates a host's time is tried on when it is not on the core's (the last host
 * rate found) or the scene's own: the rates editors and cameras use. */
static const int host_rates[][2] = {
    {24000, 1001}, {24, 1},        {25, 1},  {30000, 1001}, {30, 1},  {48, 1},
    {50, 1},       {60000, 1001},  {60, 1},  {72, 1},       {90, 1},  {96, 1},
    {100, 1},      {120000, 1001}, {120, 1}, {144, 1},      {240, 1},
};

/* The highest rate learnt from the step between two calls (the core's own limit). */
#define STEP_RATE_MAX 1000

/* How near a time rounded to the millisecond is to its frame: half a millisecond, and
 * the microsecond of SNAP_S for the double it came in. */
#define MS_SNAP_S (0.5e-3 + SNAP_S)

/* Whether t seconds (t >= 0) is within snap seconds of the instant k * d / n of a grid
 * of rate n / d; then *k is that frame. (No libm: the plugin links none.) */
static int on_grid_within(double t, int n, int d, double snap, int64_t *k)
{
    double f = t * n / d;
    if (!(f >= 0 && f < 9e15))
        return 0;
    int64_t kk = (int64_t)(f + 0.5);
    double off = t - (double)kk * d / n;
    if (off > snap || off < -snap)
        return 0;
    *k = kk;
    return 1;
}

static int on_grid(double t, int n, int d, int64_t *k)
{
    return on_grid_within(t, n, d, SNAP_S, k);
}

/* Whether t seconds (t >= 0) is a whole number of milliseconds, within a nanosecond: a
 * Matroska or WebM timestamp (FFmpeg's pts x time_base x 1000, GStreamer's nanoseconds). */
static int whole_ms(double t)
{
    double f = t * 1000 - (double)(int64_t)(t * 1000 + 0.5);
    return t >= 0 && t < 9e12 && f > -1e-6 && f < 1e-6;
}

/* A scene that steps once a frame (the seed presets) at a host's rate other than its own:
 * the frames are `rockpool -r R`'s, but R is learnt from the times the host passes, and a
 * time on both grids (a whole second) is taken on the rate found so far. Said once. */
static void warn_frame_locked(instance *in, int n, int d)
{
    rp_settings_info si;
    char msg[400];
    rp_settings_get_info(rp_core_settings(in->core), &si);
    /* a host rate that is not whole (30000/1001) cannot run such a scene at all: the run
     * is refused with its own advice (rate N), and `fps 30000/1001` would be refused too;
     * nor can a scene rate that is not whole, so both print as whole numbers */
    if (si.rate || (n == in->scene_fps && d == in->scene_fps_den) || in->warned_rate || d != 1 ||
        in->scene_fps_den != 1)
        return;
    in->warned_rate = 1;
    snprintf(msg, sizeof msg,
             "the scene steps its water once a frame at %d fps and the host's frames are at %d "
             "fps: a time on both grids (a whole second) gets the steps of the rate seen before "
             "it, so a seek can show another frame than playback; give the scene `fps %d`",
             in->scene_fps, n, n);
    say(in, msg);
}

/* The least step forward between two calls' times, time unit ms, that a host passing
 * milliseconds gives: half a millisecond (2000 frames a second, twice the highest rate
 * rockpool takes). */
#define MS_STEP_MIN_S 0.5e-3

/* The least step forward between calls' times, time unit s, read as a host passing
 * milliseconds (FFmpeg): 5 s, a frame every 5 seconds; and the most, 2000 s (0.5 frames a
 * second in milliseconds). */
#define S_STEP_MIN_S 5.0
#define S_STEP_MAX_S 2000.0

/* Whether the three steps between this call's time and the three before lie within
 * S_STEP_MIN_S..S_STEP_MAX_S, the largest at most 1.5 times the least: playback in
 * milliseconds read as seconds, not a seek (one jump) or a scrub (uneven ones). */
static int steps_like_ms(const instance *in)
{
    double lo = S_STEP_MAX_S, hi = 0;
    for (int i = 0; i < 3; i++) {
        double step = in->last_ts[i] - in->last_ts[i + 1];
        if (in->last_ts[i + 1] < 0 || !(step >= S_STEP_MIN_S && step <= S_STEP_MAX_S))
            return 0;
        lo = step < lo ? step : lo;
        hi = step > hi ? step : hi;
    }
    return hi <= 1.5 * lo;
}

/* The time unit that does not fit the host, said once an instance; the frame is rendered as
 * read. Time unit ms in a host that passes seconds (MLT, GStreamer): its frames, 1/30 s
 * apart, are read 1/30 ms apart, so the water barely moves, and no time is out of range to
 * be refused: a step forward between this call's time and the one before under
 * MS_STEP_MIN_S says so. Time unit s in a host that passes milliseconds (FFmpeg): frames
 * 1/30 s apart are read 33 s apart, and over a long scene the water races through it until
 * a time is past its end: three even steps of S_STEP_MIN_S or more say so. */
static void warn_unit(instance *in)
{
    double step = in->last_ts[0] - in->last_ts[1];
    char msg[400];
    if (in->warned_unit || in->last_ts[1] < 0)
        return;
    if (!strcmp(in->param[P_UNIT], "ms") && step > 0 && step < MS_STEP_MIN_S)
        snprintf(msg, sizeof msg,
                 "time unit ms, but the host's times step by %.6g ms, over 2000 frames a second: "
                 "the water barely moves; a host that passes seconds (MLT, GStreamer) needs time "
                 "unit s",
                 step * 1000);
    else if (!strcmp(in->param[P_UNIT], "s") && steps_like_ms(in))
        snprintf(msg, sizeof msg,
                 "time unit s, but the host's times step by %.6g s, a frame every 5 seconds or "
                 "more: the water races through the scene; a host that passes milliseconds "
                 "(FFmpeg's frei0r filter) needs time unit ms (frei0r=rockpool:SCENE|ms)",
                 step);
    else
        return;
    in->warned_unit = 1;
    say(in, msg);
}

/* The rate whose grid holds ts (host_frame's rule, after the core's own rate): the scene's,
 * one of host_rates, one learnt from the step from the previous call's time (prev[0]), the
 * core's within MS_SNAP_S, one of which ts and the times before it (prev, the latest first,
 * -1 for none; those of whole milliseconds, up to TIMES_KEPT in all) are frames in order
 * within MS_SNAP_S, or at an instance's first call the lowest that holds it. Sets *n / *d (left as
 * the core's when none is found) and *k, ts's frame on it; returns 1 when found. */
static int find_rate(const instance *in, double ts, const double *prev, int *rn, int *rd,
                     int64_t *rk)
{
    double last_ts = prev[0];
    int n = *rn, d = *rd;
    int64_t k = 0;
    int sn = in->scene_fps, sd = in->scene_fps_den;
    /* a host whose times are rounded to the millisecond (ms_host) changes rate only on
     * frames in order (below): one that falls on an exact grid is no sign of its
     * rate (a clip of variable rate in Matroska: every time of whole tens of milliseconds
     * is on 100 fps's grid, which built the simulation again every few frames) */
    int found = in->ms_host && whole_ms(ts) ? -1 : 0;
    if (!found && sn && on_grid(ts, sn, sd, &k)) {
        n = sn, d = sd, found = 1;
    }
    for (size_t i = 0; !found && i < sizeof host_rates / sizeof host_rates[0]; i++)
        if (on_grid(ts, host_rates[i][0], host_rates[i][1], &k)) {
            n = host_rates[i][0], d = host_rates[i][1], found = 1;
        }
    /* a rate of no list (7, 14, 48000/1001 fps): one whose frame is the step from the
     * previous call's time, or a half, third or quarter of it (MLT's instances see
     * every Nth frame), a whole rate or N000/1001, when t is on its grid */
    double step = ts - last_ts;
    if (step < 0)
        step = -step;
    for (int m = 1; !found && last_ts >= 0 && step >= 0.5 / STEP_RATE_MAX && m <= 4; m++)
        for (int i = 0; !found && i < 2; i++) {
            int den = i ? 1001 : 1;
            int64_t frames, num = (int64_t)(m * den / step + 0.5);
            if (den == 1001) /* 24000/1001, 48000/1001, ...: N000, N a multiple of 6
                              * (91000/1001, 11 ms, would take any step of whole ms) */
                num = (num + 3000) / 6000 * 6000;
            if (num >= 1 && num <= (int64_t)STEP_RATE_MAX * den &&
                on_grid(step, (int)num, den, &frames) && frames == m &&
                on_grid(ts, (int)num, den, &k)) {
                n = (int)num, d = den, found = 1;
            }
        }
    /* a time rounded to the millisecond (Matroska and WebM timestamps: frame 4 at 30
     * fps is 0.133 s), on the core's rate: its nearest frame, when within half a
     * millisecond of it (a frame is at least a millisecond). No other rate is tried
     * at that distance: a clip of variable rate would rebuild the simulation again
     * and again. */
    if (found < 0)
        found = 0;
    if (!found && on_grid_within(ts, n, d, MS_SNAP_S, &k))
        found = 1;
    /* times rounded to the millisecond off the core's rate (a 30000/1001 Matroska clip
     * read at the scene's 30 fps: frame 7 comes as 0.234 s, 30 fps's 7 is 0.233 s): a rate
     * of which this time and every time before it of whole milliseconds (those kept, at
     * least one) are frames of it in order, each within half a millisecond. The scene's rate
     * first, then host_rates' whole rates, then their N000/1001 (the two agree to the
     * millisecond up to frame 15 or so: a 24 fps clip must not be taken for 24000/1001 at
     * its third frame). A clip of constant rate from its start has all its times on its
     * rate: it is found at its second frame (frame 1 of a 24 fps Matroska clip over a 30
     * fps scene, 0.042 s after 0 s) or where the rates part (the 30000/1001 clip's frame
     * 7). Every time kept, not the last three: a clip of variable rate near 30 fps falls on
     * 30000/1001's grid three times in a row now and then, and on 30's again later, each a
     * rebuild replaying the water from step 0 (3 in 1500 frames); no 32 in a row. Frames
     * in order, not one after the other: a clip with a frame dropped (0 s, then 24 fps's
     * frame 2) is found at once, not 31 frames later. */
    int have = 1;
    while (have < TIMES_KEPT && prev[have - 1] >= 0 && whole_ms(prev[have - 1]))
        have++;
    if (!found && whole_ms(ts) && have >= 2) {
        size_t nr = sizeof host_rates / sizeof host_rates[0];
        for (size_t i = 0; !found && i <= 2 * nr; i++) {
            int rn_ = i ? host_rates[(i - 1) % nr][0] : sn;
            int rd_ = i ? host_rates[(i - 1) % nr][1] : sd;
            int64_t kt, kl, kp;
            if (!rn_ || (i && (rd_ == 1) != (i <= nr)))
                continue;
            int all = on_grid_within(ts, rn_, rd_, MS_SNAP_S, &kt);
            /* frames in order, one or more apart (a frame dropped is no sign against it) */
            kl = kt;
            for (int j = 0; all && j < have - 1; j++, kl = kp)
                all = on_grid_within(prev[j], rn_, rd_, MS_SNAP_S, &kp) && kp < kl;
            if (all) {
                n = rn_, d = rd_, k = kt, found = 1;
            }
        }
    }
    /* the instance's first call (MLT's second instance starts at frame 1): no step to
     * learn from, so the lowest whole rate, then N000/1001 (N a multiple of 6), whose
     * grid holds t; only then: later calls learn from their step, and a time of a
     * variable rate is on some such grid nearly always (a rebuild every frame). Not a
     * time of whole milliseconds (FFmpeg seeking in a Matroska clip with -copyts):
     * its lowest rate is that of its milliseconds (12.345 s: 200 fps), not the host's. */
    for (int i = 0; !found && last_ts < 0 && !whole_ms(ts) && i < STEP_RATE_MAX + STEP_RATE_MAX / 6;
         i++) {
        int num = i < STEP_RATE_MAX ? i + 1 : (i - STEP_RATE_MAX + 1) * 6000;
        int den = i < STEP_RATE_MAX ? 1 : 1001;
        if (on_grid(ts, num, den, &k)) {
            n = num, d = den, found = 1;
        }
    }
    *rn = n;
    *rd = d;
    *rk = k;
    return found;
}

/* Whether the host's time t (in the unit, ms when ms) is a host's "no timestamp", said in
 * msg with what to do: FFmpeg's AV_NOPTS_VALUE x time base x 1000 (any time below -1e15 ms),
 * or GStreamer's GST_CLOCK_TIME_NONE, 2^64 - 1 ns, which its frei0r element passes as
 * (gdouble) GST_BUFFER_TIMESTAMP / GST_SECOND (gstfrei0rfilter.c), 18446744073.709553 s. */
static int no_timestamp(double t, int ms, char *msg, size_t msglen)
{
    if (isfinite(t) && t < -1e15 && ms) {
        snprintf(msg, msglen,
                 "time %g ms is FFmpeg's 'no timestamp': FFmpeg 5.1 and older lose the time of "
                 "frames whose width is not a multiple of 64 (vf_frei0r copies them); scale or "
                 "pad the frames to a width that is a multiple of 64 before the filter (scale, "
                 "pad), or try a newer FFmpeg",
                 t);
        return 1;
    }
    if (!ms && t == (double)UINT64_MAX / 1000000000) {
        snprintf(msg, msglen,
                 "time %g s is GStreamer's 'no timestamp' (GST_CLOCK_TIME_NONE): the buffers "
                 "reach the filter without a time, as from a source given no frame rate "
                 "(multifilesrc, appsrc); give the stream one (multifilesrc "
                 "caps=\"image/png,framerate=30/1\", or videorate and a framerate in the caps "
                 "after it): the frame is not rendered",
                 t);
        return 1;
    }
    return 0;
}

/* The host's time t (seconds, after the unit) as a frame k of the core's clock, the
 * core opened again at the host's rate when that changed. The rate is the first of the
 * core's, the scene's and host_rates on whose grid t lies within SNAP_S, else one learnt
 * from the step from the previous call (or, at the first call, the lowest that holds t):
 * a time that is frame k of a rate R is then rendered as `rockpool -r R` renders frame k
 * (its steps, keys, emitters, moving walls and seed presets all at that exact instant).
 * A time within MS_SNAP_S of the core's grid is its nearest frame (one of whole
 * milliseconds before any other rate is tried), and one of whole milliseconds is that of
 * a rate of which it and the times kept before it are frames in order. A time on no such
 * grid is read on the core's rate, as the frame it falls in (floor, after rounding
 * to the nanosecond). Returns 0, 1 when the core failed to open (its reason in
 * in->error), or -1 with the message in msg and its reason (say_as: the same for every
 * time) in *reason. */
static int host_frame(instance *in, double t, int64_t *frame, char *msg, size_t msglen,
                      const char **reason)
{
    int ms = !strcmp(in->param[P_UNIT], "ms");
    double ts = (ms ? t / 1000 : t) - NUM(in, P_OFFSET) * OFFSET_SCALE_S;
    int64_t k = 0;
    if (no_timestamp(t, ms, msg, msglen)) {
        *reason = "\1no timestamp";
        return -1;
    }
    /* within SNAP_S before 0 is frame 0: the offset's v x 3600 may pass the host's time by
     * a rounding error (59 / 3600 x 3600 is 59.00000000000001) */
    if (ts < 0 && ts > -SNAP_S)
        ts = 0;
    if (!isfinite(t) || ts < 0 || ts > MAX_TIME_S) {
        double off = NUM(in, P_OFFSET) * OFFSET_SCALE_S;
        char less[64] = "";
        if (off != 0) /* the offset took it there: say so */
            snprintf(less, sizeof less, " less the time offset's %.9g s", off);
        snprintf(msg, msglen, "time %g %s%s is outside every scene: the frame is not rendered", t,
                 ms ? "ms" : "s", less);
        *reason = "\1outside every scene";
        return -1;
    }
    if (in->stale_run) /* a new seed: the scene as read, at the rate found last */
        build_run(in);
    if (!in->core)
        return 1;
    double prev[TIMES_KEPT - 1];
    memcpy(prev, in->last_ts, sizeof prev);
    memmove(in->last_ts + 1, in->last_ts, (TIMES_KEPT - 2) * sizeof in->last_ts[0]);
    in->last_ts[0] = ts;
    int n = in->info.fps, d = in->info.fps_den;
    /* a time of whole milliseconds within half a millisecond of the core's grid is its
     * frame before any other rate is tried: a 30000/1001 Matroska clip's 0.100 s is its
     * frame 3 (0.1001 s), not 30 fps's frame 3, which would rebuild at 30 and back */
    if (!on_grid(ts, n, d, &k) && !(whole_ms(ts) && on_grid_within(ts, n, d, MS_SNAP_S, &k))) {
        int found = find_rate(in, ts, prev, &n, &d, &k);
        if (found && (n != in->info.fps || d != in->info.fps_den)) {
            in->fps = n;
            in->fps_den = d;
            in->stale_run = 1;
            warn_frame_locked(in, n, d);
        }
        if (in->stale_run)
            build_run(in);
        if (!in->core)
            return 1;
        if (!found) { /* the frame t falls in, on the core's rate */
            const rp_core_info *c = &in->info;
            __int128 tn2 = 2 * (__int128)(int64_t)(ts * 1e9 + 0.5) + 1;
            k = (int64_t)(tn2 * c->fps / ((__int128)2 * c->fps_den * 1000000000));
        }
    }
    /* a time of whole milliseconds off the instant of its frame (read at half a
     * millisecond, frames in order or in the frame it falls in) comes from a host that
     * rounds to the millisecond; one that is not whole milliseconds, from one that does
     * not (MLT, GStreamer's nanoseconds, FFmpeg over most containers) */
    if (!whole_ms(ts)) {
        in->ms_host = 0;
    } else {
        double off = ts - (double)k * in->info.fps_den / in->info.fps;
        if (off > SNAP_S || off < -SNAP_S)
            in->ms_host = 1;
    }
    if (k >= in->info.frames) {
        double end = (double)in->info.frames * in->info.fps_den / in->info.fps;
        /* a time in seconds over twice the scene's end that, read as milliseconds, falls in
         * the scene: in FFmpeg, the unit left at s (FFmpeg's second frame at 30 fps is
         * 33.3 s; a host passing seconds comes to the end first, and is not told) */
        int looks_ms = !ms && ts >= 2 * end && ts / 1000 < end;
        snprintf(msg, msglen,
                 "time %g %s is past the scene's end (%.6f s, its duration): the frame is not "
                 "rendered (said once; later frames past the end are not rendered either)%s",
                 t, ms ? "ms" : "s", end,
                 looks_ms ? "; in FFmpeg, whose filter passes milliseconds, give the time "
                            "unit ms (frei0r=rockpool:SCENE|ms)"
                          : "");
        *reason = "\1past the end";
        return -1;
    }
    *frame = k;
    return 0;
}

/* The steps one call may simulate: STEP_CELLS_MAX grid cells' worth, at least one. */
static int64_t steps_per_call(const instance *in)
{
    int64_t n = STEP_CELLS_MAX / ((int64_t)in->info.grid_w * in->info.grid_h);
    return n > 0 ? n : 1;
}

/* The work this call may do. A host that asks for frames in order (its first call, or a
 * frame at most IN_ORDER_FRAMES after the last one asked for: playing, rendering) gets its
 * frame whatever the simulation to it costs, so a render never holds an error frame where a
 * keyframed strength or seed replays the water from step 0; a jump (a scrub, a seek)
 * simulates at most STEP_CELLS_MAX cells' worth, and later calls carry on. */
static void pace(instance *in, int64_t k)
{
    int in_order = in->last_k < 0 || (k >= in->last_k && k - in->last_k <= IN_ORDER_FRAMES);
    rp_core_set_step_budget(in->core, in_order ? 0 : STEP_CELLS_MAX);
    in->last_k = k;
}

/* ---- frames --------------------------------------------------------------------------- */

/* The host's frame unchanged, or black, opaque, when it gave none. */
static void pass_through(const instance *in, const uint32_t *src, uint32_t *dst)
{
    size_t n = (size_t)in->width * (size_t)in->height;
    if (src && src != dst)
        memcpy(dst, src, n * sizeof *dst);
    else if (!src)
        for (size_t i = 0; i < n; i++) {
            uint8_t *p = (uint8_t *)&dst[i];
            p[0] = p[1] = p[2] = 0;
            p[3] = 255;
        }
}

/* The light's doubles over the scene, for this frame: the core remakes the light when
 * they change (as keys remake it), the simulation is not touched. */
static void apply_light(instance *in)
{
    for (int i = P_DEPTH; i <= P_CAUSTICS; i++) {
        double v = NUM(in, i);
        int32_t q = (int32_t)(v * light_param[i - P_DEPTH].scale + 0.5);
        if (q < light_param[i - P_DEPTH].min)
            q = light_param[i - P_DEPTH].min;
        rp_error err; /* in range: bad_double refused the frame otherwise */
        rp_core_set_light(in->core, light_param[i - P_DEPTH].knob, v > 0, q, &err);
    }
}

/* The error frame: the host's frame with magenta stripes over it, 8 pixels wide every
 * 32 along the diagonal (x + y), each half magenta (255, 0, 255) and half the frame's
 * pixel, rounded down; the alpha is the frame's. */
static void error_frame(const instance *in, const uint32_t *src, uint32_t *dst)
{
    const uint8_t *s8 = (const uint8_t *)src;
    uint8_t *d8 = (uint8_t *)dst;
    pass_through(in, src, dst);
    for (size_t y = 0; y < in->height; y++)
        for (size_t x = 0; x < in->width; x++) {
            if ((x + y) % 32 >= 8)
                continue;
            size_t i = 4 * (y * in->width + x);
            uint8_t r = s8 ? s8[i] : 0, g = s8 ? s8[i + 1] : 0, b = s8 ? s8[i + 2] : 0;
            d8[i] = (uint8_t)((255 + r) / 2);
            d8[i + 1] = (uint8_t)(g / 2);
            d8[i + 2] = (uint8_t)((255 + b) / 2);
        }
}

/* The core's background back on the instance's own black frame: the host's frame is not
 * the plugin's once the call returns. */
static void forget_frame(instance *in)
{
    rp_error err;
    if (in->core)
        rp_core_set_background(in->core, in->black, (size_t)in->width * 4, RP_PIX_RGBA, &err);
}

void f0r_update(f0r_instance_t instance_, double time, const uint32_t *inframe, uint32_t *outframe)
{
    instance *in = instance_;
    char msg[1024];
    if (!in || !outframe)
        return;
    pthread_mutex_lock(&in->lock);
    if (in->stale)
        read_build(in);
    int64_t k;
    int layer = !strcmp(in->param[P_LAYER], "light"), r;
    const char *reason = NULL;
    const char *unit = in->param[P_UNIT];
    rp_error err;
    if (!in->scene) {
        say(in, in->error);
    } else if (strcmp(unit, "s") && strcmp(unit, "ms")) {
        snprintf(msg, sizeof msg, "time unit '%.100s' is neither s nor ms", unit);
        say(in, msg);
    } else if (!layer && strcmp(in->param[P_LAYER], "render")) {
        snprintf(msg, sizeof msg, "layer '%.100s' is neither render nor light", in->param[P_LAYER]);
        say(in, msg);
    } else if (bad_double(in, msg, sizeof msg, &reason)) {
        say_as(in, reason, msg);
    } else if ((r = host_frame(in, time, &k, msg, sizeof msg, &reason))) {
        if (r > 0)
            say(in, in->error);
        else
            say_as(in, reason, msg);
    } else if (layer && !in->info.light) {
        say(in, "layer light needs render light (the rockpool preset): the seed presets' "
                "renders have no light layer");
    } else if (apply_light(in), pace(in, k),
               rp_core_set_background(in->core, inframe ? (const uint8_t *)inframe : in->black,
                                      (size_t)in->width * 4, RP_PIX_RGBA, &err) ||
                   rp_core_render(in->core, k, layer ? RP_PASS_LIGHT : RP_PASS_RENDER_RGBA,
                                  outframe, (size_t)in->width * 4, &err)) {
        if (err.code == RP_ERR_AGAIN) {
            snprintf(
                msg, sizeof msg,
                "time %g %s: the simulation is still on its way there (at most %lld "
                "steps a call on a jump, rockpool-frei0r(7) LIMITS): this frame is not rendered; "
                "later calls carry on",
                time, strcmp(unit, "ms") ? "s" : "ms", (long long)steps_per_call(in));
            say_as(in, "\1on its way", msg);
        } else {
            say(in,
                err.code == RP_ERR_NOMEM ? "out of memory: the frame is not rendered" : err.msg);
        }
    } else {
        /* the light layer is straight alpha, as frei0r hosts take RGBA8888 (MLT, FFmpeg's
         * vf_frei0r, frei0r's own mixers; frei0r's premultiply filter converts when a host
         * needs it); the render keeps the host's alpha */
        warn_unit(in);
        forget_frame(in);
        pthread_mutex_unlock(&in->lock);
        return;
    }
    forget_frame(in);
    if (NUM(in, P_ERRFRAME) >= 0.5)
        error_frame(in, inframe, outframe);
    else
        pass_through(in, inframe, outframe);
    pthread_mutex_unlock(&in->lock);
}
