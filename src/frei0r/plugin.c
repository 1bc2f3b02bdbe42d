/* plugin.c - rockpool as a frei0r filter (rockpool-frei0r(7)): the host's frame is the
 * background, the host's time picks the simulation's state, and the engine (engine/engine.h)
 * renders the frame exactly as the command line's frames are rendered. A thin adapter over
 * the core: no FFmpeg, no image decoding, no files but the scene.
 *
 * Each instance holds one engine, built from the parameters when they change, and
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
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/pool.h"
#include "scene/scene.h"
#include "engine/engine.h"

/* The parameters, in the order hosts address them. */
enum {
    P_SCENE,
    P_UNIT,
    P_LAYER,
    P_SEED, /* strings */
    P_STRINGS,
    P_ERRFRAME = P_STRINGS, /* a bool, then doubles (0..1) */
    P_DEPTH,
    P_AZIMUTH,
    P_ELEVATION,
    P_CAUSTICS,
    P_OFFSET,
    P_STRENGTH, /* a double that changes the water: the simulation is built again */
    P_COUNT
};

static const f0r_param_info_t param_info[P_COUNT] = {
    {"scene", F0R_PARAM_STRING, "scene file path; empty = the built-in rain"},
    {"time unit", F0R_PARAM_STRING, "unit of the host's time: s (default) or ms (FFmpeg)"},
    {"layer", F0R_PARAM_STRING,
     "render (the water over the frame, default) or light (the light layer alone, RGBA, "
     "straight alpha)"},
    {"seed", F0R_PARAM_STRING, "random seed, a decimal number; empty = the scene's"},
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
};

/* The doubles' ranges: a value v in (0, 1] is v x scale of the light's own unit (light.h),
 * rounded; 0 leaves the scene's (and its keys'). */
static const struct {
    enum rp_key_what what;
    double scale;
    int32_t min;
} light_param[] = {
    [P_DEPTH - P_DEPTH] = {RP_KEY_DEPTH, 64 * 256.0, 1},      /* depth_q8: 0..64 cells */
    [P_AZIMUTH - P_DEPTH] = {RP_KEY_AZIMUTH, 360000.0, 0},    /* mdeg: 0..360 degrees */
    [P_ELEVATION - P_DEPTH] = {RP_KEY_ELEVATION, 90000.0, 0}, /* mdeg: 0..90 degrees */
    [P_CAUSTICS - P_DEPTH] = {RP_KEY_CAUSTICS, 4 * 256.0, 0}, /* caustics_q8: 0..4 */
};

/* The time offset's scale: 1 is an hour. */
#define OFFSET_SCALE_S 3600.0

static const char *const param_default[P_STRINGS] = {"", "s", "render", ""};

/* Limits: checkpoints a run keeps (and the bytes they may take), and the memory a frame
 * size may ask for before the plugin refuses it. */
#define CHECKPOINTS_MAX 32
#define CHECKPOINT_BYTES_MAX ((size_t)256 << 20)
#define MEMORY_MAX ((double)((int64_t)2 << 30))

/* The smallest frame side the plugin renders (the smallest grid the simulation takes). */
#define FRAME_SIDE_MIN 16

/* The work one f0r_update may do: at most this many grid cells stepped (2^28: 1,165
 * steps of the 230,400-cell grid of a 1920x1080 scene, measured at 1.3 to 1.9 s a call on
 * a loaded 2-core machine), so a time far into a long scene does not block the host for
 * minutes; later calls carry on. */
#define STEP_CELLS_MAX ((int64_t)1 << 28)

/* Scene files are text; the plugin reads at most this much. */
#define SCENE_BYTES_MAX ((size_t)16 << 20)

typedef struct instance {
    pthread_mutex_t lock;
    unsigned width, height; /* the host's frame */
    char *param[P_STRINGS];
    /* string values replaced since the instance was made: a pointer f0r_get_param_value
     * handed out stays valid (a host may read on one thread while setting on another),
     * freed with the instance */
    struct retired {
        struct retired *next;
        char *value;
    } * retired;
    double num[P_COUNT - P_STRINGS]; /* the bool and the doubles */
    int stale;     /* the scene parameter changed since the scene was read: read it again */
    int stale_run; /* the seed or strength changed since the engine was built: build it again */
    int32_t strength_milli; /* the strength parameter in thousandths; -1: the scene's */
    int fps, fps_den;       /* the host's frame rate the engine is built at (0: the scene's) */
    rp_pool *pool;          /* a worker a CPU (NULL: this thread alone), made at the first build */
    /* the build: NULL engine when it failed (why in error) */
    rp_scene *scene;
    rp_engine *engine;
    char error[1600];
    int64_t frames; /* the scene's frames */
    rp_clock clock;
    int light;    /* render `light` (the light layer exists) */
    size_t cells; /* grid cells */
    /* checkpoints: slot j holds the water after j * interval steps when saved[j] */
    int64_t interval;
    int slots;
    int16_t *slot_heights; /* per slot: cur then prev, cells each */
    uint8_t *saved;
    uint8_t *bg, *rgb; /* the host frame as RGB24, the rendered frame */
    char said[1600];   /* the last message printed */
} instance;

/* One line on stderr, unless it is the one printed last by this instance. */
static void say(instance *in, const char *msg)
{
    if (!strcmp(in->said, msg))
        return;
    snprintf(in->said, sizeof in->said, "%s", msg);
    fprintf(stderr, "rockpool frei0r: %s\n", msg);
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

/* The run built from the scene: the engine, its checkpoints and the frame buffers. */
static void release_run(instance *in)
{
    rp_engine_free(&in->engine);
    free(in->slot_heights);
    free(in->saved);
    free(in->bg);
    free(in->rgb);
    in->slot_heights = NULL;
    in->saved = NULL;
    in->bg = in->rgb = NULL;
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
    in->num[0] = 1; /* the error frame on */
    in->strength_milli = -1;
    for (int i = 0; i < P_STRINGS; i++)
        if (!(in->param[i] = strdup(param_default[i]))) {
            for (int j = 0; j < i; j++)
                free(in->param[j]);
            free(in);
            return NULL;
        }
    if (pthread_mutex_init(&in->lock, NULL)) {
        for (int i = 0; i < P_STRINGS; i++)
            free(in->param[i]);
        free(in);
        return NULL;
    }
    return in;
}

void f0r_destruct(f0r_instance_t instance_)
{
    instance *in = instance_;
    if (!in)
        return;
    release_build(in);
    rp_pool_free(&in->pool);
    for (int i = 0; i < P_STRINGS; i++)
        free(in->param[i]);
    while (in->retired) {
        struct retired *r = in->retired;
        in->retired = r->next;
        free(r->value);
        free(r);
    }
    pthread_mutex_destroy(&in->lock);
    free(in);
}

/* Parameters that decide the simulation mark the build stale only when their value
 * really changes: hosts send every parameter before every frame. */
void f0r_set_param_value(f0r_instance_t instance_, f0r_param_t param, int index)
{
    instance *in = instance_;
    if (!in || index < 0 || index >= P_COUNT)
        return;
    if (index >= P_STRINGS) { /* a bool is a double too (on from 0.5) */
        double v = param ? *(const double *)param : 0;
        if (!(v >= 0)) /* NaN too */
            v = 0;
        if (index > P_ERRFRAME && v > 1)
            v = 1;
        /* the strength changes the water: the simulation is built again (from step 0) when
         * its value in thousandths, as the scene's `strength` takes it, changes */
        int32_t milli = v > 0 ? (int32_t)(v * RP_STRENGTH_MAX + 0.5) : -1;
        pthread_mutex_lock(&in->lock);
        in->num[index - P_STRINGS] = index == P_ERRFRAME ? v >= 0.5 : v;
        if (index == P_STRENGTH && milli != in->strength_milli) {
            in->strength_milli = milli;
            in->stale_run = 1;
        }
        pthread_mutex_unlock(&in->lock);
        return;
    }
    const char *value = param ? *(const char *const *)param : NULL;
    if (!value)
        value = "";
    pthread_mutex_lock(&in->lock);
    if (strcmp(in->param[index], value)) {
        char *copy = strdup(value);
        struct retired *old = copy ? malloc(sizeof *old) : NULL;
        if (old) {
            *old = (struct retired){in->retired, in->param[index]};
            in->retired = old;
            in->param[index] = copy;
            in->stale |= index == P_SCENE;
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
    if (index >= P_STRINGS)
        *(double *)param = in->num[index - P_STRINGS];
    else
        *(const char **)param = in->param[index];
    pthread_mutex_unlock(&in->lock);
}

/* ---- building a run ------------------------------------------------------------------- */

/* The scene's text: the file at path (at most SCENE_BYTES_MAX), or the built-in scene. */
static int read_scene(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    if (!path[0]) {
        *text = strdup(rp_scene_builtin());
        *len = *text ? strlen(*text) : 0;
        return *text ? RP_OK : RP_ERR_NOMEM;
    }
    /* O_NONBLOCK: a FIFO or device named as the scene must not block the host in open();
     * it is then refused as not a regular file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        rp_errf(err, errlen, "%s: cannot read scene: %s", path, strerror(errno));
        return RP_ERR_IO;
    }
    FILE *f = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > SCENE_BYTES_MAX ||
        !(f = fdopen(fd, "rb"))) {
        rp_errf(err, errlen, "%s: cannot read scene: not a regular file of at most %zu MiB", path,
                SCENE_BYTES_MAX >> 20);
        close(fd);
        return RP_ERR_IO;
    }
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    int bad = !buf || ferror(f) || n == cap;
    fclose(f);
    if (bad) {
        free(buf);
        rp_errf(err, errlen, "%s: cannot read scene%s", path,
                buf ? ": it changed while being read" : ": out of memory");
        return buf ? RP_ERR_IO : RP_ERR_NOMEM;
    }
    *text = buf;
    *len = n;
    return RP_OK;
}

/* The seed parameter: empty, or a decimal number that fits in 64 bits. */
static int parse_seed(const char *text, uint64_t *seed)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *seed = v;
    return 0;
}

/* The first statement of the scene that names a wall mask (`wall mask FILE`, `wall mask
 * along PATH W H FILE`): its path, resolved against the scene's directory by the parser,
 * and where it is in *at; NULL when none does. */
static const char *first_mask(const rp_scene *scene, rp_diag *at)
{
    size_t i = 0;
    const rp_event *ev = rp_scene_next_mask(scene, &i);
    if (!ev)
        return NULL;
    memset(at, 0, sizeof *at);
    snprintf(at->file, sizeof at->file, "%s", rp_scene_name(scene));
    at->line = ev->line;
    at->col = ev->col;
    return ev->path;
}

/* Settings as the command line merges them (the preset's defaults, the scene's, then the
 * options'), with the host's frame as `-i` and its size as `-s`. */
static int new_engine(instance *in, rp_engine **e, rp_error *err)
{
    rp_settings s;
    rp_settings_resolve(&s, rp_scene_settings(in->scene), NULL);
    s.out_width = (int)in->width;
    s.out_height = (int)in->height;
    s.set |= RP_SET_OUTPUT_SIZE;
    if (in->fps) { /* the host's rate, as -r */
        s.time.fps = in->fps;
        s.time.fps_den = in->fps_den;
        s.set |= RP_SET_FPS;
    }
    if (in->param[P_SEED][0]) {
        if (parse_seed(in->param[P_SEED], &s.seed))
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "seed '%.100s' is not a decimal number of at most 20 digits",
                                in->param[P_SEED]);
        s.set |= RP_SET_SEED;
    }
    if (in->strength_milli >= 0) { /* as --strength */
        s.strength_milli = in->strength_milli;
        s.set |= RP_SET_STRENGTH;
    }
    int r =
        rp_engine_new(e, in->scene, &s, s.out_width, s.out_height, (int64_t)MEMORY_MAX, NULL, err);
    if (r)
        return r;
    return rp_engine_start(*e, in->pool, NULL, NULL, err);
}

/* The instance's workers, one an online CPU, as the command line's default: they block
 * SIGINT and SIGTERM, so the host's handlers run on its own threads. Without them (one CPU,
 * or no threads to be had) the frames are rendered on the host's thread: the bytes are the
 * same either way. */
static void start_pool(instance *in)
{
    sigset_t stop_set, old_set;
    int cpus = rp_online_cpus();
    if (in->pool || cpus < 2)
        return;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
    if (rp_pool_new(&in->pool, cpus))
        in->pool = NULL;
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
}

/* A failed build: its reason in in->error, positioned like the command line's; the run
 * is released (the scene, read, is kept). */
static void build_failed(instance *in, const rp_error *err)
{
    if (err->has_diag && err->diag.line > 0)
        snprintf(in->error, sizeof in->error, "%s:%d:%d: error: %s", err->diag.file, err->diag.line,
                 err->diag.col, err->diag.msg);
    else if (err->has_diag && err->diag.file[0])
        snprintf(in->error, sizeof in->error, "%s: %s", err->diag.file, err->diag.msg);
    else
        snprintf(in->error, sizeof in->error, "%s", err->msg);
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
    const char *path = in->param[P_SCENE];
    release_build(in);
    in->stale = 0;
    in->stale_run = 1;
    in->fps = in->fps_den = 0;
    in->error[0] = '\0';
    memset(&err, 0, sizeof err);
    if (in->width < FRAME_SIDE_MIN || in->height < FRAME_SIDE_MIN || in->width > RP_MAX_SIDE ||
        in->height > RP_MAX_SIDE) {
        rp_error_set(&err, RP_ERR_INVALID, 1, "a frame of %ux%u is outside %d..%d pixels a side",
                     in->width, in->height, FRAME_SIDE_MIN, RP_MAX_SIDE);
        build_failed(in, &err);
        return;
    }
    int r = read_scene(path, &text, &len, err.msg, sizeof err.msg);
    if (r) {
        rp_error_set(&err, r, 1, "%s", r == RP_ERR_NOMEM ? "out of memory" : err.msg);
        build_failed(in, &err);
        return;
    }
    r = rp_scene_parse(&in->scene, text, len, path[0] ? path : "<default>", &err.diag);
    free(text);
    if (r) {
        err.has_diag = 1;
        rp_error_set(&err, r, 1, "%s", err.diag.msg);
        err.has_diag = 1;
        build_failed(in, &err);
        return;
    }
}

/* Resolve the scene at the host's size and rate, check what the plugin cannot do, and
 * allocate the engine, the checkpoints and the frame buffers. */
static void build_run(instance *in)
{
    rp_error err;
    int r;
    release_run(in);
    in->stale_run = 0;
    in->error[0] = '\0';
    memset(&err, 0, sizeof err);
    /* What a frame holds: the host frame and the render (RGB24), the light's heights at the
     * output size, the walls' colours; per cell the water (2x2 bytes) and walls (5). */
    double pixels = (double)in->width * in->height;
    if (pixels * (3 + 3 + 4 + 3) > MEMORY_MAX) {
        rp_error_set(&err, RP_ERR_TOO_LARGE, 1,
                     "a frame of %ux%u needs about %.1f GiB, over the plugin's limit of %.0f GiB",
                     in->width, in->height, pixels * 13 / (1 << 30), MEMORY_MAX / (1 << 30));
        build_failed(in, &err);
        return;
    }
    start_pool(in);
    if ((r = new_engine(in, &in->engine, &err))) {
        build_failed(in, &err);
        return;
    }
    const rp_settings *s = rp_engine_settings(in->engine);
    if (s->out_width != (int)in->width || s->out_height != (int)in->height) {
        /* -s always gives the output size; the frame buffers are the host's */
        rp_error_set(&err, RP_ERR_INVALID, 0, "the output is %dx%d, not the host's %ux%u",
                     s->out_width, s->out_height, in->width, in->height);
        build_failed(in, &err);
        return;
    }
    /* Images (rockpool-frei0r(7) ERRORS): refused where the scene names them. */
    rp_diag at;
    const char *mask = first_mask(in->scene, &at);
    const rp_diag *sky = rp_scene_sky_at(in->scene);
    if (mask || (s->sky_image[0] && s->look.mode == RP_RENDER_LIGHT)) {
        if (!mask) {
            if (sky)
                at = *sky;
            else
                memset(&at, 0, sizeof at);
        }
        snprintf(at.msg, sizeof at.msg,
                 "the %s '%.160s' is an image, and the plugin decodes no images (it links no "
                 "FFmpeg): %s, or render this scene with the command line; "
                 "rockpool-frei0r(7) ERRORS",
                 mask ? "wall mask" : "sky image", mask ? mask : s->sky_image,
                 mask ? "draw the walls with wall rect or wall circle"
                      : "give the sky as a colour (sky 0xRRGGBB)");
        rp_error_set(&err, RP_ERR_UNSUPPORTED, 1, "%s", at.msg);
        if (!at.file[0])
            snprintf(at.file, sizeof at.file, "%s", rp_scene_name(in->scene));
        err.diag = at;
        err.has_diag = 1;
        build_failed(in, &err);
        return;
    }
    in->light = s->look.mode == RP_RENDER_LIGHT;
    in->frames = rp_engine_frames(in->engine);
    in->clock = *rp_engine_clock(in->engine);
    in->cells = (size_t)s->water.width * (size_t)s->water.height;
    /* Checkpoints: at most CHECKPOINTS_MAX (and CHECKPOINT_BYTES_MAX), evenly spaced over
     * the steps of the scene, the first at step 0. */
    int64_t last = in->frames > 0 ? rp_clock_steps(&in->clock, in->frames - 1) : 0;
    size_t per_slot = rp_engine_checkpoint_bytes(in->engine);
    int64_t slots = (int64_t)(CHECKPOINT_BYTES_MAX / per_slot);
    slots = slots > CHECKPOINTS_MAX ? CHECKPOINTS_MAX : slots < 1 ? 1 : slots;
    in->interval = slots > 1 ? (last + slots - 2) / (slots - 1) : last + 1;
    if (in->interval < 1)
        in->interval = 1;
    in->slots = (int)(last / in->interval + 1);
    size_t pix = (size_t)in->width * (size_t)in->height;
    if (!(in->slot_heights = malloc(per_slot * (size_t)in->slots)) ||
        !(in->saved = calloc((size_t)in->slots, 1)) || !(in->bg = malloc(pix * 3)) ||
        !(in->rgb = malloc(pix * 3))) {
        rp_error_set(&err, RP_ERR_NOMEM, 0, "out of memory");
        build_failed(in, &err);
        return;
    }
}

/* ---- time ----------------------------------------------------------------------------- */

/* How near a host's time must be to an instant of a frame grid to be taken as it. Hosts
 * do not pass exact instants: GStreamer's timestamps are whole nanoseconds rounded down
 * (frame 2 at 30 fps is 66,666,666 ns), multifilesrc adds up such durations (frame 15 at
 * 0.499999995 s), FFmpeg's milliseconds are pts * time_base * 1000 in a double. A
 * microsecond is far above those errors and far below any frame's duration (1/1000 s at
 * RP_FPS_MAX). */
#define SNAP_S 1e-6

/* Frame rates a host's time is tried on when it is not on the engine's (the last host
 * rate found) or the scene's own: the rates editors and cameras use. */
static const int host_rates[][2] = {
    {24000, 1001}, {24, 1},        {25, 1},  {30000, 1001}, {30, 1},  {48, 1},
    {50, 1},       {60000, 1001},  {60, 1},  {72, 1},       {90, 1},  {96, 1},
    {100, 1},      {120000, 1001}, {120, 1}, {144, 1},      {240, 1},
};

/* Whether t seconds (t >= 0) is within SNAP_S of the instant k * d / n of a grid of rate
 * n / d; then *k is that frame. (No libm: the plugin links none.) */
static int on_grid(double t, int n, int d, int64_t *k)
{
    double f = t * n / d;
    if (!(f >= 0 && f < 9e15))
        return 0;
    int64_t kk = (int64_t)(f + 0.5);
    double off = t - (double)kk * d / n;
    if (off > SNAP_S || off < -SNAP_S)
        return 0;
    *k = kk;
    return 1;
}

/* The scene's own frame rate, merged as new_engine merges it. */
static void scene_rate(const instance *in, int *n, int *d)
{
    rp_settings s;
    rp_settings_resolve(&s, rp_scene_settings(in->scene), NULL);
    *n = s.time.fps;
    *d = s.time.fps_den;
}

/* The host's time t (seconds, after the unit) as a frame k of the engine's clock, the
 * engine rebuilt at the host's rate when that changed. The rate is the first of the
 * engine's, the scene's and host_rates on whose grid t lies within SNAP_S: a time that is
 * frame k of a rate R is then rendered as `rockpool -r R` renders frame k (its steps,
 * keys, emitters, moving walls and seed presets all at that exact instant). A time on no
 * such grid is read on the engine's rate, as the frame it falls in (floor, after
 * rounding to the nanosecond). Returns 0, 1 when the engine failed to build (its reason
 * in in->error), or -1 with the reason in msg. */
static int host_frame(instance *in, double t, int64_t *frame, char *msg, size_t msglen)
{
    int ms = !strcmp(in->param[P_UNIT], "ms");
    double ts = (ms ? t / 1000 : t) - in->num[P_OFFSET - P_STRINGS] * OFFSET_SCALE_S;
    int64_t k = 0;
    if (isfinite(t) && t < -1e15 && ms) {
        rp_errf(msg, msglen,
                "time %g ms is FFmpeg's 'no timestamp': FFmpeg 5.1 and older lose the time of "
                "frames whose width is not a multiple of 64 (vf_frei0r copies them); scale or "
                "pad the frames to a width that is a multiple of 64 before the filter (scale, "
                "pad), or try a newer FFmpeg",
                t);
        return -1;
    }
    if (!isfinite(t) || ts < 0 || ts > 1e9) {
        rp_errf(msg, msglen, "time %g %s is outside every scene: the frame is not rendered", t,
                ms ? "ms" : "s");
        return -1;
    }
    if (in->stale_run) /* a new seed: the scene as read, at the rate found last */
        build_run(in);
    if (!in->engine)
        return 1;
    int n = in->clock.fps, d = in->clock.fps_den;
    if (!on_grid(ts, n, d, &k)) {
        int sn, sd, found = 0;
        scene_rate(in, &sn, &sd);
        if (on_grid(ts, sn, sd, &k)) {
            n = sn, d = sd, found = 1;
        }
        for (size_t i = 0; !found && i < sizeof host_rates / sizeof host_rates[0]; i++)
            if (on_grid(ts, host_rates[i][0], host_rates[i][1], &k)) {
                n = host_rates[i][0], d = host_rates[i][1], found = 1;
            }
        if (found && (n != in->clock.fps || d != in->clock.fps_den)) {
            in->fps = n;
            in->fps_den = d;
            in->stale_run = 1;
        }
        if (in->stale_run)
            build_run(in);
        if (!in->engine)
            return 1;
        if (!found) { /* the frame t falls in, on the engine's rate */
            const rp_clock *c = &in->clock;
            __int128 tn2 = 2 * (__int128)(int64_t)(ts * 1e9 + 0.5) + 1;
            k = (int64_t)(tn2 * c->fps / ((__int128)2 * c->fps_den * 1000000000));
        }
    }
    if (k >= in->frames) {
        rp_errf(msg, msglen,
                "time %g %s is past the scene's end (%.6f s, its duration): the frame is not "
                "rendered",
                t, ms ? "ms" : "s", (double)in->frames * in->clock.fps_den / in->clock.fps);
        return -1;
    }
    *frame = k;
    return 0;
}

/* ---- checkpoints ---------------------------------------------------------------------- */

static int16_t *slot_at(instance *in, int64_t j)
{
    return in->slot_heights + (size_t)j * in->cells * 2;
}

/* Simulate to `target` steps, saving each checkpoint passed on the way. */
static void advance(instance *in, int64_t target)
{
    rp_engine *e = in->engine;
    for (;;) {
        int64_t at = rp_engine_steps(e), j = at / in->interval;
        if (at % in->interval == 0 && j < in->slots && !in->saved[j]) {
            rp_engine_checkpoint_save(e, slot_at(in, j), &at);
            in->saved[j] = 1;
        }
        if (at >= target)
            return;
        int64_t next = (j + 1) * in->interval;
        rp_engine_advance(e, next < target ? next : target, NULL);
    }
}

/* The steps one call may simulate: STEP_CELLS_MAX grid cells' worth, at least one. */
static int64_t steps_per_call(const instance *in)
{
    int64_t n = STEP_CELLS_MAX / (int64_t)in->cells;
    return n > 0 ? n : 1;
}

/* Bring the simulation to `target` steps, or STEP_CELLS_MAX / cells steps towards it
 * (then 1: a later call carries on from there, or from a checkpoint past it): from the nearest
 * saved checkpoint at or before it when that is ahead of the simulation or the simulation is past
 * the target, else onwards. A checkpoint is the engine's whole state (rp_engine_checkpoint_load:
 * the water, with the walls, masks and moving walls replayed from the timeline), so a seek gives
 * the bytes of a run straight to the target. */
static int seek(instance *in, int64_t target)
{
    int64_t at = rp_engine_steps(in->engine);
    int64_t j = target / in->interval;
    if (j >= in->slots)
        j = in->slots - 1;
    while (j > 0 && !in->saved[j])
        j--;
    int64_t from = j * in->interval;
    if (in->saved[j] && (at > target || from > at)) {
        rp_error err;
        if (rp_engine_checkpoint_load(in->engine, slot_at(in, j), from, &err))
            return -1;
    }
    at = rp_engine_steps(in->engine);
    int64_t most = steps_per_call(in);
    advance(in, target - at > most ? at + most : target);
    return rp_engine_steps(in->engine) < target;
}

/* ---- frames --------------------------------------------------------------------------- */

/* The host's RGBA8888 frame (R, G, B, A bytes in memory) to the engine's RGB24 background
 * and the render back, keeping the host's alpha; rows y0..y1-1, for the workers. */
typedef struct convert_job {
    instance *in;
    const uint8_t *src; /* the host's frame, or NULL: black, opaque */
    uint8_t *dst;
} convert_job;

static void to_rgb_rows(void *ctx, int y0, int y1)
{
    const convert_job *j = ctx;
    size_t w = j->in->width, i0 = (size_t)y0 * w, i1 = (size_t)y1 * w;
    uint8_t *restrict bg = j->in->bg;
    const uint8_t *restrict src = j->src;
    if (!src) {
        memset(bg + 3 * i0, 0, 3 * (i1 - i0));
        return;
    }
    for (size_t i = i0; i < i1; i++) {
        bg[3 * i] = src[4 * i];
        bg[3 * i + 1] = src[4 * i + 1];
        bg[3 * i + 2] = src[4 * i + 2];
    }
}

static void to_rgba_rows(void *ctx, int y0, int y1)
{
    const convert_job *j = ctx;
    size_t w = j->in->width, i0 = (size_t)y0 * w, i1 = (size_t)y1 * w;
    const uint8_t *restrict rgb = j->in->rgb;
    const uint8_t *src = j->src; /* may be dst itself: each alpha is read before written */
    uint8_t *dst = j->dst;
    for (size_t i = i0; i < i1; i++) {
        uint8_t a = src ? src[4 * i + 3] : 255;
        dst[4 * i] = rgb[3 * i];
        dst[4 * i + 1] = rgb[3 * i + 1];
        dst[4 * i + 2] = rgb[3 * i + 2];
        dst[4 * i + 3] = a;
    }
}

static void pass_through(const instance *in, const uint32_t *src, uint32_t *dst)
{
    size_t n = (size_t)in->width * (size_t)in->height;
    if (src && src != dst)
        memcpy(dst, src, n * sizeof *dst);
    else if (!src)
        memset(dst, 0, n * sizeof *dst);
}

/* The light's doubles over the scene, for this frame: the light is remade when they
 * change (as keys remake it), the simulation is not touched. */
static void apply_light(instance *in)
{
    for (int i = P_DEPTH; i <= P_CAUSTICS; i++) {
        double v = in->num[i - P_STRINGS];
        int32_t q = (int32_t)(v * light_param[i - P_DEPTH].scale + 0.5);
        if (q < light_param[i - P_DEPTH].min)
            q = light_param[i - P_DEPTH].min;
        if (i == P_CAUSTICS) /* as the scene's caustics, under the run's strength */
            q = rp_strength_caustics(q, rp_engine_settings(in->engine)->strength_milli);
        rp_engine_light_override(in->engine, light_param[i - P_DEPTH].what, v > 0, q);
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
    const char *unit = in->param[P_UNIT];
    if (!in->scene) {
        say(in, in->error);
    } else if (strcmp(unit, "s") && strcmp(unit, "ms")) {
        snprintf(msg, sizeof msg, "time unit '%.100s' is neither s nor ms", unit);
        say(in, msg);
    } else if (!layer && strcmp(in->param[P_LAYER], "render")) {
        snprintf(msg, sizeof msg, "layer '%.100s' is neither render nor light", in->param[P_LAYER]);
        say(in, msg);
    } else if ((r = host_frame(in, time, &k, msg, sizeof msg))) {
        say(in, r > 0 ? in->error : msg);
    } else if (layer && !in->light) {
        say(in, "layer light needs render light (the rockpool preset): the seed presets' "
                "renders have no light layer");
    } else if ((r = seek(in, rp_clock_steps(&in->clock, k)))) {
        if (r < 0)
            say(in, "out of memory: the frame is not rendered");
        else {
            snprintf(msg, sizeof msg,
                     "time %g %s: the simulation is still on its way there (at most %lld "
                     "steps a call, rockpool-frei0r(7) LIMITS): this frame is not rendered; "
                     "later calls carry on",
                     time, strcmp(unit, "ms") ? "s" : "ms", (long long)steps_per_call(in));
            say(in, msg);
        }
    } else if (apply_light(in), layer) {
        /* straight alpha, as frei0r hosts take RGBA8888 (MLT, FFmpeg's vf_frei0r, frei0r's
         * own mixers; frei0r's premultiply filter converts when a host needs it) */
        rp_engine_frame_layer(in->engine, k, (uint8_t *)outframe, 0, NULL);
        pthread_mutex_unlock(&in->lock);
        return;
    } else {
        convert_job job = {in, (const uint8_t *)inframe, (uint8_t *)outframe};
        rp_pool_run(in->pool, (int)in->height, to_rgb_rows, &job);
        rp_engine_frame(in->engine, k, in->bg, in->rgb, NULL);
        rp_pool_run(in->pool, (int)in->height, to_rgba_rows, &job);
        pthread_mutex_unlock(&in->lock);
        return;
    }
    if (in->num[0] >= 0.5)
        error_frame(in, inframe, outframe);
    else
        pass_through(in, inframe, outframe);
    pthread_mutex_unlock(&in->lock);
}
