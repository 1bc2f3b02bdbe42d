/* session.c - the render session (rockpool.h): settings resolved once, the timeline, the
 * simulation, the background source, wall masks, checkpoints, threads, the writer and the
 * sinks, and the frame loop of rockpool(1) "FRAME LOOP": for frame k, apply its events,
 * step, and render it when start <= k < end. */
#include "rockpool.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "input/fit.h"
#include "check/hash.h"
#include "check/manifest.h"
#include "input/audio_in.h"
#include "input/image.h"
#include "check/provenance.h"
#include "session/sink.h"
#include "input/source.h"
#include "session/writer.h"

struct rp_session {
    const rp_scene *scene;
    /* The caller's run and its settings, copied (own.over is over): the caller's structs
     * are never written. */
    rp_run own;
    const rp_run *run; /* &own */
    rp_settings *over;
    /* The encoded output: the caller's choices (run->out) and what the stream is (size,
     * rate, pixel format, tags, sound), which validate() fills in. The sinks read it. */
    rp_output_spec out;
    int bg_video; /* the background is a video (check_background) */
    /* The settings resolved, the timeline, the simulation and the look (rpcore.h). */
    rp_core *core;
    rp_core_info info;
    rp_settings_info s; /* the core's settings */
    int64_t frames, start, end;
    int threads;
    double memory;
    rp_sinks sinks;
    rp_source *background;
    rp_writer *writer;
    rp_output_file *state_file;
    int64_t k;                /* the next frame to show */
    int64_t written;          /* frames handed to the sinks */
    rp_frame frame;           /* the last frame handed out */
    rp_provenance provenance; /* the outputs' metadata: version, preset, seed, scene */
    const char *meta[2 * RP_PROVENANCE_MAX + 3]; /* provenance.kv and rockpool_job */
    int started;
    int failed; /* a call failed: only rp_session_abort and rp_session_free are valid */
    char verify_names[2 * RP_VERIFY_NAME_MAX]; /* --verify's (rp_sink_cfg names) */
};

/* A public call given a NULL pointer it needs, or a session in no state for it: refused
 * with RP_ERR_INVALID (bad_input), nothing done, as dav1d's validate_input_or_ret refuses
 * it. err NULL: the caller does not want the reason (scratch takes it). */
static rp_error *err_or(rp_error *err, rp_error *scratch)
{
    return err ? err : scratch;
}

static int null_arg(rp_error *err, const char *call, const char *what)
{
    return rp_error_set(err, RP_ERR_INVALID, 1, "%s: %s is NULL", call, what);
}

void rp_run_init(rp_run *run)
{
    if (!run)
        return;
    memset(run, 0, sizeof *run);
    run->over = NULL;
    rp_output_opts_init(&run->out);
    run->out.path = "rockpool.mp4";
    run->end = -1;
    run->threads = 1;
    run->max_memory = (int64_t)4 << 30;
}

/* The run's settings in messages: rockpool(1)'s options or rp_run's fields (rp_name). */
#define MAX_MEMORY rp_name("--max-memory", "rp_run.max_memory")
#define START rp_name("--start", "rp_run.start")
#define END rp_name("--end", "rp_run.end")
#define SAVE_STATE rp_name("--save-state", "rp_run.save_state")
#define LOAD_STATE rp_name("--load-state", "rp_run.load_state")
#define ALPHA rp_name("--alpha", "rp_run.alpha")

#define SCENE_MAX ((size_t)64 << 20) /* scenes are text: 64 MiB at most */

/* A scene that cannot be read: RP_ERR_IO (RP_ERR_INTERRUPTED for EINTR), naming it. */
static int read_fail(rp_error *err, const char *name, int e)
{
    return rp_error_set(err, e == EINTR ? RP_ERR_INTERRUPTED : RP_ERR_IO, e != EINTR,
                        "%s: cannot read scene: %s", name, strerror(e));
}

/* A scene over SCENE_MAX, whatever --max-memory says: RP_ERR_TOO_LARGE (exit 2). */
static int over_scene_max(rp_error *err, const char *name)
{
    return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                        "%s: the scene is over the 64 MiB a scene may hold (scenes are text; "
                        "a larger one is refused whatever %s says)",
                        name, MAX_MEMORY);
}

/* A scene over --max-memory before it is parsed: its text alone, bytes (0: more than the
 * limit, read from a stream). */
static int read_too_large(rp_error *err, const char *name, double bytes, int64_t max_bytes)
{
    char need[48], limit[48];
    rp_bytes_pair(bytes, (double)max_bytes, need, limit, sizeof need);
    if (!bytes)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "%s: the scene's text alone needs more memory than the limit of %s "
                            "(raise it with %s)",
                            name, limit, MAX_MEMORY);
    return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                        "%s: the scene's text alone needs %s, over the limit of %s (raise it "
                        "with %s)",
                        name, need, limit, MAX_MEMORY);
}

/* Read a whole scene file (or stdin for "-") into a malloc'd buffer with room for a NUL:
 * SCENE_MAX at most, and within max_bytes (0: no limit), which a regular file's size is
 * held against before it is read (one allocation of its size); a pipe's text stops being
 * read at the limit. */
static int read_scene(const char *path, int64_t max_bytes, char **text, size_t *len, rp_error *err)
{
    const char *name = strcmp(path, "-") ? path : "stdin";
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    size_t limit = SCENE_MAX, cap = (size_t)1 << 16, n = 0;
    struct stat st;
    int r = RP_OK;
    if (max_bytes > 0 && (uint64_t)max_bytes <= limit)
        limit = (size_t)max_bytes - 1; /* the NUL */
    if (!f)
        return read_fail(err, name, errno ? errno : EIO);
    if (fstat(fileno(f), &st) != 0)
        st.st_mode = 0; /* read as a stream */
    if (S_ISDIR(st.st_mode))
        r = read_fail(err, name, EISDIR);
    else if (S_ISREG(st.st_mode) && st.st_size > (off_t)SCENE_MAX)
        r = over_scene_max(err, name);
    else if (S_ISREG(st.st_mode) && (size_t)st.st_size > limit)
        r = read_too_large(err, name, (double)st.st_size + 1, max_bytes);
    else if (S_ISREG(st.st_mode))
        cap = (size_t)st.st_size + 1;
    char *buf = r ? NULL : malloc(cap);
    if (!r && !buf)
        r = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    while (!r) {
        /* A MiB at a time: a signal is handled between reads, not after the whole file */
        size_t want = cap - 1 - n < ((size_t)1 << 20) ? cap - 1 - n : (size_t)1 << 20;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got == want && n < cap - 1)
            continue;
        int c = n < cap - 1 ? EOF : getc(f); /* full: is there more? */
        if (c == EOF)
            break;
        ungetc(c, f);
        if (cap - 1 >= limit) {
            r = limit < SCENE_MAX ? read_too_large(err, name, 0, max_bytes)
                                  : over_scene_max(err, name);
            break;
        }
        size_t grown = cap - 1 > limit / 2 ? limit + 1 : 2 * cap;
        char *more = realloc(buf, grown);
        if (!more)
            r = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        else
            buf = more, cap = grown;
    }
    if (!r && ferror(f))
        r = read_fail(err, name, errno ? errno : EIO);
    if (f != stdin)
        fclose(f);
    if (r) {
        free(buf);
        return r;
    }
    *text = buf;
    *len = n;
    return RP_OK;
}

static int background_fail(const rp_session *se, int code, rp_error *err);

int rp_scene_load(rp_scene **scene, const char *path, rp_error *err)
{
    return rp_scene_load_max(scene, path, 0, err);
}

/* The name of a scene read from stdin ("-"), by which check_paths knows it. */
#define STDIN_NAME "<stdin>"

int rp_scene_load_max(rp_scene **scene, const char *path, int64_t max_memory, rp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int r;
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!scene)
        return null_arg(err, "rp_scene_load", "scene");
    *scene = NULL;
    if (max_memory < 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the memory limit %" PRId64 " is negative (0: no limit)", max_memory);
    if (path) {
        if ((r = read_scene(path, max_memory, &text, &len, err)))
            return r;
    } else if (!(text = strdup(rp_scene_builtin()))) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    } else {
        len = strlen(text);
    }
    const char *name = !path ? "<default>" : strcmp(path, "-") ? path : STDIN_NAME;
    return rp_scene_from_buffer(scene, text, len, name, max_memory, err); /* takes text */
}

/* ---- resolving a run ------------------------------------------------------------------- */

/* The background's size as the default output size: a picture larger than 3840x2160
 * (2160x3840 when it is portrait) is fitted inside it, aspect kept, each side rounded to
 * the nearest even number, so that a photograph gives a video players can play. */
static void playable_size(int *w, int *h)
{
    int64_t bw = *w, bh = *h, mw = bw >= bh ? 3840 : 2160, mh = bw >= bh ? 2160 : 3840;
    if (bw <= mw && bh <= mh)
        return;
    if (bw * mh >= bh * mw) { /* the width is the limit */
        *w = (int)mw;
        *h = (int)((bh * mw + bw) / (2 * bw) * 2);
    } else {
        *h = (int)mh;
        *w = (int)((bw * mh + bh) / (2 * bh) * 2);
    }
    *w = *w < 2 ? 2 : *w;
    *h = *h < 2 ? 2 : *h;
}

/* The background's size made encodable when no size was given: for an output whose pixel
 * format halves the chroma (H.264 with yuv420p, ...), each odd side one less (2 at least),
 * said in one warning. An odd size given with -s or the scene's `size` is the output's to
 * refuse. */
static void encodable_size(const rp_session *se, int *w, int *h)
{
    rp_output_spec o = se->out;
    char what[96], msg[320];

    if (!se->run->out.path || (!(*w & 1) && !(*h & 1)))
        return;
    o.pixfmt = se->run->alpha ? RP_PIX_RGBA : RP_PIX_RGB24;
    if (!rp_output_even_sides(&o, what, sizeof what))
        return;
    int ew = *w & 1 ? (*w > 1 ? *w - 1 : 2) : *w, eh = *h & 1 ? (*h > 1 ? *h - 1 : 2) : *h;
    snprintf(msg, sizeof msg,
             "the background's size, %dx%d, is odd and %s needs even sides: the output is "
             "%dx%d (-s sets another size)",
             *w, *h, what, ew, eh);
    if (se->run->warn)
        se->run->warn(se->run->warn_ctx, msg);
    *w = ew;
    *h = eh;
}

/* The scene's `duration` and its video background's length differ: one warning saying
 * which ends first and how to let the footage set the length (the video ends first only
 * for -i's, which has no hold or loop of its own: its last frame is held). */
static void length_differs(const rp_session *se, int64_t frames, int64_t bg_frames)
{
    char msg[320];
    double fps = (double)se->s.fps / (se->s.fps_den > 0 ? se->s.fps_den : 1);
    double t = (double)frames / fps, bg_t = (double)bg_frames / fps;

    if (frames < bg_frames)
        snprintf(msg, sizeof msg,
                 "the scene's duration (%" PRId64 " frames, %.2f s) ends before the background "
                 "video (%" PRId64 " frames, %.2f s): 'duration background' in the scene, or -t, "
                 "sets the length",
                 frames, t, bg_frames, bg_t);
    else
        snprintf(msg, sizeof msg,
                 "the background video (%" PRId64 " frames, %.2f s) ends before the scene's "
                 "duration (%" PRId64 " frames, %.2f s): its last frame is held to the end "
                 "('duration background' in the scene, or -t, sets the length; 'background "
                 "FILE loop' loops it)",
                 bg_frames, bg_t, frames, t);
    if (se->run->warn)
        se->run->warn(se->run->warn_ctx, msg);
}

/* What the background's frames are not (warnings; none without a warn callback): an
 * animated GIF drawn as a still, HDR video drawn by its coded values, interlaced video
 * drawn whole. */
static void background_warnings(rp_session *se, const char *background, const rp_source_info *bg)
{
    /* An animated GIF is read as a still (its first frame): said, as ffmpeg plays it. */
    if (background[0] && !bg->is_video && se->run->warn &&
        rp_video_in_is_animated_still(background)) {
        char msg[sizeof((rp_error *)0)->msg];
        snprintf(msg, sizeof msg,
                 "'%.200s' is an animated GIF: the background is its first frame alone (to "
                 "play it, make it a video first: ffmpeg -i in.gif -pix_fmt yuv420p clip.mp4)",
                 background);
        se->run->warn(se->run->warn_ctx, msg);
    }
    /* HDR footage (PQ, HLG: an iPhone's HDR video is HLG) is drawn by its coded values, as
     * ffmpeg converts it without a tone-mapping filter: said, with the conversion that maps
     * it to SDR first. */
    if (bg->is_video && bg->hdr && se->run->warn) {
        char msg[sizeof((rp_error *)0)->msg];
        snprintf(msg, sizeof msg,
                 "'%.200s' is HDR video, %s: its coded values are drawn as SDR, without tone "
                 "mapping, so its colours look flat and dim (to map it to SDR first: ffmpeg -i "
                 "IN -vf zscale=t=linear:npl=100,format=gbrpf32le,tonemap=hable,zscale=p=bt709:"
                 "t=bt709:m=bt709:r=tv,format=yuv420p OUT.mp4)",
                 background, bg->hdr);
        se->run->warn(se->run->warn_ctx, msg);
    }
    /* Interlaced footage is drawn a whole frame at a time, as ffmpeg converts it without a
     * deinterlacer: the water moves once a frame, over the fields' combing. */
    if (bg->is_video && bg->fields && se->run->warn) {
        char msg[sizeof((rp_error *)0)->msg];
        snprintf(msg, sizeof msg,
                 "'%.200s' is interlaced (%s): each frame is drawn whole, with its two fields' "
                 "combing where things move (to deinterlace it first: ffmpeg -i IN -vf "
                 "bwdif=mode=send_frame -c:v libx264 -crf 16 OUT.mp4)",
                 background, bg->fields);
        se->run->warn(se->run->warn_ctx, msg);
    }
}

/* The run's frame range (se->start, se->end) on the timeline of se->frames frames. */
static int resolve_range(rp_session *se, rp_error *err)
{
    /* rp_run's range as rockpool.h gives it: start >= 0, end -1 (the last frame) or >= 0 */
    if (se->run->start < 0)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %" PRId64 " is negative", START,
                            se->run->start);
    if (se->run->end < -1)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %" PRId64 " is negative (-1: the last frame)", END, se->run->end);
    se->start = se->run->start;
    se->end = se->run->end < 0 ? se->frames : se->run->end;
    if (se->end > se->frames)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %" PRId64 " is past the last frame (the timeline has %" PRId64
                            " frame%s)",
                            END, se->end, se->frames, se->frames == 1 ? "" : "s");
    /* Without --end (-to, -t, -frames:v) the end is the timeline's: a start at or past it is
     * said so, not as an --end the command line does not give. */
    if (se->run->end < 0 && se->start >= se->end && se->frames > 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %" PRId64 " is past the last frame (the timeline has %" PRId64
                            " frame%s, 0 to %" PRId64 ")",
                            START, se->start, se->frames, se->frames == 1 ? "" : "s",
                            se->frames - 1);
    if (se->start > se->end)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %" PRId64 " is past %s %" PRId64, START,
                            se->start, END, se->end);
    /* A range without frames would leave files no reader takes (a video without a frame):
     * refused here, before anything is checked or opened. */
    if (se->start == se->end && se->frames == 0)
        return rp_error_set(err, RP_ERR_INVALID, 1, "the timeline has no frames");
    if (se->start == se->end)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the range has no frames: %s and %s are both %" PRId64
                            " (%s A %s B writes A..B-1)",
                            START, END, se->start, START, END);
    return RP_OK;
}

/* The final settings: the preset's defaults, then the scene's, then the run's, resolved
 * by the engine (given the background image's size when no size is given); the frame
 * range. */
static int resolve_settings(rp_session *se, rp_error *err)
{
    rp_settings *merged;
    rp_settings_info s;
    int w = 0, h = 0, r;
    if ((r = rp_settings_merged(&merged, se->scene, se->over, err)))
        return r;
    rp_settings_get_info(merged, &s);
    int sized = rp_settings_given(merged, "size");
    int footage = !rp_settings_given(merged, "duration") || s.duration_background;
    int64_t bg_frames = 0;
    rp_source_info bg = {0};
    /* The background's size when no size is given; a video's length (the timeline's when
     * neither -n nor the scene's `duration TIME` is given, else compared with it). */
    if (s.background[0] && (!sized || rp_video_in_is_video(s.background)) &&
        (r = rp_source_probe(s.background, se->run->max_memory, &bg, err))) {
        rp_settings_free(&merged);
        return background_fail(se, r, err);
    }
    background_warnings(se, s.background, &bg);
    /* A video's display size (an anamorphic one can be over the limit) is checked only
     * where it becomes the run's size. */
    if (s.background[0] && !sized && (r = rp_source_size_usable(s.background, &bg, err))) {
        rp_settings_free(&merged);
        return background_fail(se, r, err);
    }
    rp_settings_free(&merged); /* s.background pointed into it: not used below */
    if (!sized && bg.width) {
        w = bg.width;
        h = bg.height;
        playable_size(&w, &h);
        encodable_size(se, &w, &h);
    }
    if (bg.is_video) {
        /* ceil(duration * fps) frames, exactly, as if -n had given them */
        __int128 n = (__int128)bg.duration_num * s.fps;
        __int128 d = (__int128)bg.duration_den * (s.fps_den > 0 ? s.fps_den : 1);
        __int128 frames = d > 0 ? (n + d - 1) / d : 0;
        bg_frames = frames > INT64_MAX ? INT64_MAX : (int64_t)frames;
    }
    rp_core_config cfg;
    rp_core_config_init(&cfg);
    cfg.over = se->over;
    cfg.threads = se->threads;
    cfg.max_memory = se->run->max_memory;
    cfg.image_width = w;
    cfg.image_height = h;
    cfg.stop = se->run->stop;
    cfg.allow_outside_paths = se->run->allow_outside_paths;
    cfg.footage_frames = bg.is_video ? bg_frames : 0;
    cfg.checkpoint_images = 1; /* --save-state binds the background and the sky too */
    if ((r = rp_core_open(&se->core, se->scene, &cfg, err)))
        return r;
    rp_core_get_info(se->core, &se->info);
    rp_settings_get_info(rp_core_settings(se->core), &se->s);
    se->frames = se->info.frames;
    if (bg.is_video && !footage && !rp_settings_given(se->over, "duration") &&
        (se->frames < bg_frames ||
         (se->frames > bg_frames && rp_settings_given(se->over, "background"))))
        length_differs(se, se->frames, bg_frames);
    return resolve_range(se, err);
}

/* Whether the run reflects a sky image (render light only; other renders do not use it). */
static int sky_used(const rp_session *se)
{
    return se->s.sky[0] && se->s.light;
}

/* The core's pass of each --aov kind, and its bytes a pixel. */
static const enum rp_pass aov_pass[RP_AOV_KINDS] = {
    [RP_AOV_HEIGHT] = RP_PASS_HEIGHT,
    [RP_AOV_NORMAL] = RP_PASS_NORMAL,
    [RP_AOV_DISPLACEMENT] = RP_PASS_DISPLACEMENT,
    [RP_AOV_CAUSTICS] = RP_PASS_CAUSTICS,
};

static size_t aov_bytes(int kind)
{
    return kind == RP_AOV_HEIGHT ? 2 : 6;
}

/* What a run will hold in memory, roughly: the core's (rp_core_memory: the height
 * buffers, walls, masks, the light's and the images' pixels, the scene and the timeline),
 * the background (a video's frame queue and decoder pictures too), the writer's frame slots
 * (and height copies), and the output's own frames (rp_output_cell_bytes). An estimate to
 * refuse absurd runs before allocating. */
static double memory_estimate(const rp_session *se, size_t distinct_masks)
{
    double cells = (double)se->s.grid_w * se->s.grid_h;
    double pixels = (double)se->s.out_width * se->s.out_height;
    /* per grid cell: height copies for the sinks */
    double per_cell = rp_sinks_want_heights(&se->sinks) ? 2 * RP_WRITER_SLOTS + 2 : 0;
    /* per output pixel: background 3, writer slots and their --aov passes */
    double per_pixel = 3 + (se->run->alpha ? 4 : 3) * RP_WRITER_SLOTS;
    for (int kind = 0; kind < RP_AOV_KINDS; kind++)
        per_pixel += se->run->aov[kind] ? (double)aov_bytes(kind) * RP_WRITER_SLOTS : 0;
    /* the sinks': the encoder's frames, hashers' copies, AOV frames, the --verify manifest
     * (sink.h memory) */
    return rp_core_memory(se->core, distinct_masks) + cells * per_cell + pixels * per_pixel +
           rp_sinks_memory(&se->sinks) + (double)rp_source_memory(se->background) + (32 << 20);
}

/* rp_core_image_costs' measure: rp_image_cost of a mask (at the grid) or a picture. */
static int image_cost(void *ctx, const char *path, enum rp_image_use use, int width, int height,
                      int64_t *bytes, rp_error *err)
{
    (void)ctx;
    return rp_image_cost(path, width, height, use == RP_IMAGE_WALL_MASK, bytes, err);
}

/* Drops started by timeline frame k (the stats sink's column; called on the writer thread:
 * the timeline does not change once built). */
static size_t frame_drops(const void *ctx, int64_t k)
{
    const rp_session *se = ctx;
    return rp_core_frame_drops(se->core, k);
}

/* The sinks of the run: the encoded output, --aov sequences, --hash lines, --dump-heights,
 * --verify, --stats. The encoded output comes first: sinks finish last-added first, so a
 * --verify difference found at the end still removes it. */
static int add_sinks(rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    rp_sink_cfg out = {.path = run->out.path, .overwrite = run->out.overwrite, .out = &se->out};
    rp_sink_cfg hash = {.out = &se->out,
                        .stream = run->hash_to ? run->hash_to : stdout,
                        .hash_algo = run->hash_algo,
                        .threads = se->threads};
    rp_sink_cfg heights = {.out = &se->out,
                           .path = run->dump_heights,
                           .overwrite = run->out.overwrite,
                           .cells = (size_t)se->s.grid_w * (size_t)se->s.grid_h};
    rp_sink_cfg aov = {.out = &se->out, .aov = run->aov};
    int aovs = 0;
    for (int k = 0; k < RP_AOV_KINDS; k++)
        aovs |= run->aov[k] != NULL;
    rp_sink_cfg verify = {.path = run->verify,
                          .out = &se->out,
                          .hash_algo = run->hash_algo,
                          .threads = se->threads,
                          .dir = run->verify_dir,
                          .part = run->start > 0 || run->end >= 0,
                          .ref = run->verify_ref,
                          .names = se->verify_names,
                          .memory_left = run->max_memory,
                          .stop = run->stop};
    rp_sink_cfg stats = {.path = run->stats,
                         .overwrite = run->out.overwrite,
                         .out = &se->out,
                         .drops = frame_drops,
                         .drops_ctx = se};
    if ((run->out.path && rp_sinks_add(&se->sinks, &rp_sink_output, &out)) ||
        (aovs && rp_sinks_add(&se->sinks, &rp_sink_aov, &aov)) ||
        (run->hash && rp_sinks_add(&se->sinks, &rp_sink_hash, &hash)) ||
        (run->dump_heights && rp_sinks_add(&se->sinks, &rp_sink_heights, &heights)) ||
        (run->stats && rp_sinks_add(&se->sinks, &rp_sink_stats, &stats)) ||
        (run->verify && rp_sinks_add(&se->sinks, &rp_sink_verify, &verify)))
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1, "too many outputs");
    return RP_OK;
}

/* Paths the run reads and writes, and which option names each, for rp_paths_check and
 * rp_fd_check: a list to free, with its length in *n, or NULL (out of memory). */
static rp_path_use *run_paths(const rp_session *se, int *n)
{
    const rp_run *run = se->run;
    size_t masks = 0, at = 0;
    const char *path;
    while (rp_scene_next_mask_path(se->scene, &at))
        masks++;
    /* the scene's wall masks (each once), the sinks' files, then the run's own paths */
    rp_path_use *uses = malloc((masks + 5 + RP_SINK_PATHS * RP_SINKS_MAX) * sizeof *uses);
    *n = 0;
    if (!uses)
        return NULL;
    for (at = 0; (path = rp_scene_next_mask_path(se->scene, &at));)
        uses[(*n)++] = (rp_path_use){path, "a wall mask", 0};
    *n += rp_sinks_paths(&se->sinks, uses + *n); /* what the sinks write and read */
    if (run->save_state)
        uses[(*n)++] = (rp_path_use){run->save_state, SAVE_STATE, 1};
    if (run->load_state)
        uses[(*n)++] = (rp_path_use){run->load_state, LOAD_STATE, 0};
    if (se->s.background[0])
        uses[(*n)++] = (rp_path_use){se->s.background, "the background", 0};
    if (se->s.sky[0])
        uses[(*n)++] = (rp_path_use){se->s.sky, "the sky image", 0};
    const char *scene_file = rp_scene_file(se->scene);
    if (scene_file)
        uses[(*n)++] = (rp_path_use){scene_file, "the scene", 0};
    else if (!strcmp(rp_scene_name(se->scene), STDIN_NAME)) /* the file stdin is, if one is */
        uses[(*n)++] = (rp_path_use){"/dev/stdin", "the scene (read from stdin)", 0};
    return uses;
}

/* The paths the run uses, against each other and against where --hash prints. */
static int check_paths(const rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    int n;
    rp_path_use *uses = run_paths(se, &n);
    if (!uses)
        return rp_error_set(err, RP_ERR_NOMEM, 1, "out of memory");
    int r = rp_paths_check(uses, n, err);
    /* --hash prints to stdout: a file that is stdout by another name (/dev/stdout, or the
     * file stdout is redirected to) would take its lines in the middle of its data ("-"
     * for -o is refused with the output's format, below). */
    for (int i = 0; !r && run->hash && !run->hash_to && i < n; i++)
        if (uses[i].is_output && strcmp(uses[i].path, "-") &&
            rp_output_leads_to_stdout(uses[i].path))
            r = rp_error_set(err, RP_ERR_INVALID, 1,
                             "%s '%s' is stdout, where %s prints its lines: give it another file",
                             uses[i].what, uses[i].path, rp_name("--hash", "rp_run.hash"));
    /* Nor into an input that stdout (or hash_to) is open on (>> scene) */
    if (!r && run->hash) {
        char what[128];
        snprintf(what, sizeof what, "%s (%s)", run->hash_to ? "rp_run.hash_to" : "standard output",
                 rp_name("--hash", "rp_run.hash"));
        r = rp_fd_check(run->hash_to ? fileno(run->hash_to) : STDOUT_FILENO, what, uses, n, err);
    }
    free(uses);
    if (r)
        err->bad_input = 1; /* out of memory too, as ever */
    return r;
}

int rp_session_check_fd(const rp_session *s, int fd, const char *what, rp_error *err)
{
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!s || !what)
        return null_arg(err, "rp_session_check_fd", !s ? "the session" : "what");
    int n;
    rp_path_use *uses = run_paths(s, &n);
    if (!uses)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_fd_check(fd, what, uses, n, err);
    free(uses);
    return r;
}

int rp_session_new(rp_session **out, const rp_scene *scene, const rp_run *run, rp_error *err)
{
    rp_session *se;
    int r;
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!out)
        return null_arg(err, "rp_session_new", "the session pointer");
    *out = NULL;
    if (!scene || !run)
        return null_arg(err, "rp_session_new", !scene ? "the scene" : "the run");
    /* 0 is no limit, as rp_core_config's and rp_scene_load_max's */
    if (run->max_memory < 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "max_memory %" PRId64 " is negative (0: no limit)", run->max_memory);
    if (!(se = calloc(1, sizeof *se)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    se->scene = scene;
    se->own = *run;
    se->run = &se->own;
    if (!se->own.max_memory)
        se->own.max_memory = INT64_MAX;
    if ((r = run->over ? rp_settings_copy(&se->over, run->over, err)
                       : rp_settings_new(&se->over, err)))
        goto fail;
    se->own.over = se->over;
    rp_output_spec_from(&se->out, &run->out);
    if (run->threads < 0) { /* as the core refuses it: 0 is one per usable CPU */
        r = rp_error_set(err, RP_ERR_INVALID, 1, "threads %d is outside 0..256", run->threads);
        goto fail;
    }
    /* the job line goes into tags and a framemd5 file's first line: only its own form */
    if (run->job_id && !rp_job_line_valid(run->job_id)) {
        r = rp_error_set(err, RP_ERR_INVALID, 1,
                         "%s (scene=HEX16,inputs=HEX16,options=HEX16,build=HEX16)",
                         rp_name("the job line is not one rockpool --job-id prints",
                                 "rp_run.job_id is not a job line"));
        goto fail;
    }
    se->threads = run->threads > 0 ? run->threads : rp_online_cpus();
    /* A scene is data: paths in it stay inside its directory unless the run allows
     * more; a background given by the run itself replaces the scene's. */
    const rp_diag *outside = rp_scene_outside_path(scene, 0);
    if (!outside && !rp_settings_given(se->over, "background"))
        outside = rp_scene_outside_path(scene, 1);
    if (outside && !run->allow_outside_paths) {
        err->diag = *outside;
        r = rp_error_diag(err, RP_ERR_INVALID);
        goto fail;
    }
    if ((r = resolve_settings(se, err)))
        goto fail;
    if ((r = add_sinks(se, err)))
        goto fail;
    *out = se;
    return RP_OK;
fail:
    rp_session_free(&se);
    return r;
}

/* Whether an output of this format carries the background's sound (set_audio, and
 * rp_audio_out_open, which finds none in a video without an audio stream): a video
 * background with sound, a format that holds sound (not GIF or WebP), no --no-audio. A
 * background that cannot be read counts as none (the render says what is wrong). */
static int carries_sound(const rp_session *se, enum rp_format format)
{
    rp_source_info info;
    rp_audio_in *a = NULL;
    rp_error ignored;
    if (se->run->no_audio || !se->s.background[0] ||
        !(format == RP_FORMAT_MP4 || format == RP_FORMAT_MKV || format == RP_FORMAT_MOV ||
          format == RP_FORMAT_WEBM))
        return 0;
    if (rp_source_probe(se->s.background, se->run->max_memory, &info, &ignored) || !info.is_video)
        return 0;
    int sound = !rp_audio_in_open(&a, se->s.background, &ignored) && a;
    rp_audio_in_free(&a);
    return sound;
}

int rp_session_output_settings(const rp_session *se, rp_output_settings *out, rp_error *err)
{
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!se || !out)
        return null_arg(err, "rp_session_output_settings", !se ? "the session" : "out");
    /* the stream as validate() describes it to the output */
    rp_output_spec o = se->out;
    o.width = se->s.out_width;
    o.height = se->s.out_height;
    o.fps = se->s.fps;
    o.fps_den = se->s.fps_den;
    o.pixfmt = se->run->alpha ? RP_PIX_RGBA : RP_PIX_RGB24;
    if (!se->run->out.path) {
        memset(out, 0, sizeof *out);
        out->crf = -1;
        return RP_OK;
    }
    int r = rp_output_settings_of(&o, out, err);
    if (!r)
        out->audio = carries_sound(se, out->format);
    return r;
}

void rp_session_summary(const rp_session *se, rp_summary *sum)
{
    if (!sum)
        return;
    memset(sum, 0, sizeof *sum);
    if (!se)
        return;
    sum->settings = rp_core_settings(se->core);
    sum->frames = se->frames;
    sum->start = se->start;
    sum->end = se->end;
    rp_scene_stats_get(se->scene, &sum->scene);
    rp_core_timeline_stats(se->core, &sum->timeline);
    sum->memory = se->memory;
    sum->steps = se->info.steps;
    sum->speed = se->s.speed;
    sum->threads = se->threads;
}

/* num/den = n/d reduced; when that does not fit in 64 bits, the nearest lower fraction
 * with a denominator of 10^9 (a nanosecond, far below an audio sample). */
static void set_ratio(int64_t *num, int64_t *den, __int128 n, __int128 d)
{
    __int128 a = n, b = d;
    while (b) {
        __int128 t = a % b;
        a = b;
        b = t;
    }
    if (a > 1) {
        n /= a;
        d /= a;
    }
    if (n > INT64_MAX || d > INT64_MAX) {
        n = n * 1000000000 / d;
        d = 1000000000;
    }
    *num = (int64_t)n;
    *den = (int64_t)d;
}

/* A video background's sound goes into video outputs (rockpool(1) --no-audio): from the
 * time of the first written frame, as long as the frames written. */
static void set_audio(const rp_session *se, rp_output_spec *o)
{
    const rp_video_in *v = rp_source_video(se->background);
    int64_t on, od, fps = se->s.fps, fd = se->s.fps_den > 0 ? se->s.fps_den : 1;
    o->audio_path = NULL;
    if (!v || se->run->no_audio || fps < 1)
        return;
    rp_video_in_origin(v, &on, &od);
    o->audio_path = se->s.background;
    /* origin + start / fps = (on * fps + start * fd * od) / (od * fps) */
    set_ratio(&o->audio_offset_num, &o->audio_offset_den,
              (__int128)on * fps + (__int128)se->start * fd * od, (__int128)od * fps);
    set_ratio(&o->audio_length_num, &o->audio_length_den, (__int128)(se->end - se->start) * fd,
              fps);
}

/* The provenance's sound tag, for a video file (rp_provenance_add_sound): where the
 * background's sound lies on the clip's timeline (its file's times less the first frame's),
 * read from the file; "none" when it carries none. */
static void add_sound_tag(rp_session *se, const rp_output_spec *o)
{
    enum rp_format f = rp_output_format_of(&se->run->out);
    int64_t from = 0, to = 0, on, od;
    int has = 0;

    if (f != RP_FORMAT_MP4 && f != RP_FORMAT_MKV && f != RP_FORMAT_MOV && f != RP_FORMAT_WEBM)
        return;
    if (o->audio_path) {
        rp_audio_in *a = NULL;
        rp_error ignored;
        if (!rp_audio_in_open(&a, o->audio_path, &ignored) && a &&
            !rp_audio_in_extent(a, &from, &to)) {
            rp_video_in_origin(rp_source_video(se->background), &on, &od);
            int64_t origin = od > 0 ? av_rescale(on, 1000000, od) : 0;
            from -= origin;
            to -= origin;
            has = 1;
        }
        rp_audio_in_free(&a);
    }
    rp_provenance_add_sound(&se->provenance, has, from, to);
}

/* An error in the sky image (its message in err->msg), at the scene's `sky` statement. */
static int sky_fail(const rp_session *se, int code, rp_error *err)
{
    const rp_diag *at = rp_scene_sky_at(se->scene);
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    if (!at || code == RP_ERR_NOMEM)
        return rp_error_set(err, code, code != RP_ERR_NOMEM, "sky image: %s", msg);
    err->diag = *at;
    snprintf(err->diag.msg, sizeof err->diag.msg, "sky image: %.480s", msg);
    return rp_error_diag(err, code);
}

/* Bad input in the background, at the scene's `background` statement when the scene named
 * it (not -i); other failures as they are. */
static int background_fail(const rp_session *se, int code, rp_error *err)
{
    const rp_diag *at = rp_scene_background_at(se->scene);
    if (rp_settings_given(se->over, "background") || !at || !err->bad_input || err->has_diag)
        return code;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    err->diag = *at;
    snprintf(err->diag.msg, sizeof err->diag.msg, "%.500s", msg);
    return rp_error_diag(err, code);
}

/* The sky image is a still FFmpeg decodes, within the memory limit: *bytes is what
 * decoding it at the output size costs (rp_image_cost). Read before anything is created. */
static int check_sky(const rp_session *se, int64_t *bytes, rp_error *err)
{
    const char *path = se->s.sky;
    rp_source_info info;
    int r;
    *bytes = 0;
    if (!path[0])
        return RP_OK;
    if ((r = rp_source_probe(path, se->run->max_memory, &info, err)))
        return sky_fail(se, r, err);
    if (info.is_video) {
        rp_error_set(err, RP_ERR_INVALID, 1, "'%s' is a video: the sky is a still image", path);
        return sky_fail(se, RP_ERR_INVALID, err);
    }
    if ((r = rp_image_cost(path, se->s.out_width, se->s.out_height, 0, bytes, err)))
        return sky_fail(se, r, err);
    if ((double)*bytes > (double)se->run->max_memory) {
        rp_error_set(
            err, RP_ERR_TOO_LARGE, 1,
            "%s: decoding it needs about %.1f MiB, over the limit of %.1f MiB (raise it with "
            "%s)",
            path, (double)*bytes / (1 << 20), (double)se->run->max_memory / (1 << 20), MAX_MEMORY);
        return sky_fail(se, RP_ERR_TOO_LARGE, err);
    }
    return RP_OK;
}

/* The run's memory estimate (se->memory) is over --max-memory: what it needs, and what the
 * largest shares of it are for. */
static int memory_fail(const rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    char need[48], limit[48], share[160] = "";
    struct stat st;
    rp_bytes_pair(se->memory, (double)run->max_memory, need, limit, sizeof need);
    if (rp_source_memory(se->background))
        snprintf(share, sizeof share, " (%.0f MiB of it for the video background's decoder)",
                 (double)rp_source_memory(se->background) / (1 << 20));
    else if (run->verify && !stat(run->verify, &st) && S_ISREG(st.st_mode) &&
             (double)rp_manifest_memory(st.st_size) > se->memory / 4)
        snprintf(share, sizeof share, " (up to %.1f MiB of it to read the %s manifest of %.1f MiB)",
                 (double)rp_manifest_memory(st.st_size) / (1 << 20),
                 rp_name("--verify", "rp_run.verify"), (double)st.st_size / (1 << 20));
    return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                        "a %dx%d run to %s needs about %s of memory%s, over the limit of %s "
                        "(raise it with %s)",
                        se->s.out_width, se->s.out_height,
                        run->out.path ? rp_output_format_name(rp_output_format_of(&run->out))
                                      : "hashes",
                        need, share, limit, MAX_MEMORY);
}

/* --alpha and the --aov passes but height need render light, the caustics pass look water:
 * refused at the scene's statement that chose otherwise (rp_scene_look_from), unless the
 * command line chose (its --preset wins over the scene's `preset`, not over its `render`
 * or `look`). */
static int check_light_outputs(const rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    const char *pass = NULL;
    char msg[sizeof err->diag.msg];
    int model = 0;
    for (int k = RP_AOV_KINDS - 1; k > RP_AOV_HEIGHT; k--)
        pass = run->aov[k] ? rp_aov_name((enum rp_aov)k) : pass;
    if (run->alpha && !se->s.light)
        snprintf(msg, sizeof msg,
                 "%s needs render light (the rockpool preset): the seed "
                 "presets' renders have no light layer to separate from the "
                 "background",
                 ALPHA);
    else if (pass && !se->s.light)
        snprintf(msg, sizeof msg,
                 "%s needs render light (the rockpool preset); the seed "
                 "presets' renders have no light model (%s works)",
                 rp_aov_option(rp_aov_from_name(pass)), rp_aov_option(RP_AOV_HEIGHT));
    else if (run->aov[RP_AOV_CAUSTICS] && !se->s.look_water) {
        model = 1;
        snprintf(msg, sizeof msg,
                 "%s needs look water, whose bed the caustics "
                 "light (the other looks paint their light in the layer)",
                 rp_aov_option(RP_AOV_CAUSTICS));
    } else {
        return RP_OK;
    }
    int by_preset;
    const rp_diag *at = rp_scene_look_from(se->scene, model, &by_preset);
    int cli = (by_preset && rp_settings_given(se->over, "preset")) ||
              rp_settings_given(se->over, model ? "look" : "render");
    if (!at || cli)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s", msg);
    err->diag = *at;
    snprintf(err->diag.msg, sizeof err->diag.msg, "%s", msg);
    return rp_error_diag(err, RP_ERR_INVALID);
}

/* A refusal of the outputs (code, err) placed where the size it refuses was given, when
 * the size is what the output refused: odd, and the output's pixel format halves the chroma
 * (rp_output_even_sides), so that its encoder refuses the size (the main output is checked
 * first). At the scene's `size` statement, or named -s when -s gave it; any other refusal
 * is left as it is. Returns code. */
static int place_size_error(const rp_session *se, int code, rp_error *err)
{
    char what[96], msg[sizeof err->diag.msg];
    int odd = (se->s.out_width & 1) || (se->s.out_height & 1);
    if (code != RP_ERR_INVALID || err->has_diag || !odd ||
        !rp_output_even_sides(&se->out, what, sizeof what))
        return code;
    if (rp_settings_given(se->over, "size"))
        return rp_error_set(err, code, 1, "%s: %.900s", rp_name("-s", "rp_run.over's size"),
                            err->msg);
    if (!rp_scene_setting_place(se->scene, "size", NULL))
        return code;
    snprintf(msg, sizeof msg, "%.500s", err->msg);
    rp_scene_setting_place(se->scene, "size", &err->diag);
    snprintf(err->diag.msg, sizeof err->diag.msg, "%s", msg);
    return rp_error_diag(err, code);
}

/* Everything is checked before anything is created: the outputs, the paths against each
 * other and the inputs, the memory estimate (the background is open: a video's decoder
 * says what it holds). */
static int validate(rp_session *se, rp_error *err)
{
    const rp_run *run = se->run;
    int r;
    rp_output_spec *o = &se->out;
    size_t scene_len = 0;
    const char *scene_text = rp_scene_text(se->scene, &scene_len);
    o->width = se->s.out_width;
    o->height = se->s.out_height;
    o->fps = se->s.fps;
    o->fps_den = se->s.fps_den;
    o->first_frame = se->start;
    o->frame_count = se->end - se->start;
    o->threads = se->threads;
    o->warn = run->warn;
    o->warn_ctx = run->warn_ctx;
    set_audio(se, o);
    if (rp_provenance_build(&se->provenance, RP_VERSION, se->s.preset, se->s.seed, scene_text,
                            scene_len) == RP_OK) {
        rp_provenance_add_frames(&se->provenance, se->start, se->end, se->frames);
        add_sound_tag(se, o);
        o->metadata = se->provenance.kv;
        /* --job-id=LINE: the farm job's identity, after the provenance's own tags */
        if (run->job_id) {
            size_t n = 0;
            for (; se->provenance.kv[n]; n++)
                se->meta[n] = se->provenance.kv[n];
            se->meta[n++] = "rockpool_job";
            se->meta[n++] = run->job_id;
            se->meta[n] = NULL;
            o->metadata = se->meta;
        }
    }
    o->pixfmt = run->alpha ? RP_PIX_RGBA : RP_PIX_RGB24;
    if ((r = check_light_outputs(se, err)))
        return r;
    /* no video: the encoder's options are not used, but their names and numbers are
     * checked as an output checks them (as the command line reads them, whatever -o) */
    if (!run->out.path && (r = rp_output_check_names(run->out.codec, run->out.pix_fmt, err)))
        return r;
    if (!run->out.path && (run->out.crf < -1 || run->out.crf > 63))
        return rp_error_set(err, RP_ERR_INVALID, 1, "crf %d is out of range (0..63, -1)",
                            run->out.crf);
    if (!run->out.path && run->out.bitrate < 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "bit rate %" PRId64 " is negative (0: unset, the crf decides)",
                            run->out.bitrate);
    if (!run->out.path && (run->out.png_level < -1 || run->out.png_level > 9))
        return rp_error_set(err, RP_ERR_INVALID, 1, "PNG level %d is out of range (0..9)",
                            run->out.png_level);
    if (run->hash && !run->hash_to && run->out.path && rp_output_uses_stdout(&run->out))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s prints to stdout, which the output '%s' already uses",
                            rp_name("--hash", "rp_run.hash"), run->out.path);
    /* Decoding the background, the sky and each mask counts too (rp_image_cost: metadata, the
     * decoded frame, the scaled copies), checked before any of them is decoded. */
    double images = 0;
    int64_t bytes = 0;
    /* the mask files the frames use, once per file (not per spelling); the first image
     * that cannot be read is the error */
    size_t masks = 0;
    if ((r = rp_core_image_costs(se->core, image_cost, NULL, &images, &masks, err)))
        return r;
    if (se->s.background[0] && !se->bg_video &&
        (r = rp_image_cost(se->s.background, se->s.out_width, se->s.out_height, 0, &bytes, err)))
        return r;
    images += (double)bytes;
    if ((r = check_sky(se, &bytes, err)))
        return r;
    images += sky_used(se) ? (double)bytes : 0;
    se->memory = memory_estimate(se, masks) + images;
    if (se->memory > (double)run->max_memory)
        return memory_fail(se, err);
    /* What the estimate leaves over is what a --verify manifest read from a pipe may take
     * (a file's share is in the estimate). */
    for (int i = 0; i < se->sinks.n; i++)
        se->sinks.cfg[i].memory_left = run->max_memory - (int64_t)se->memory;
    /* The outputs last: the encoder is tried with the run's settings (a throwaway open),
     * which only makes sense for a run that fits. */
    if ((r = rp_sinks_check(&se->sinks, err)))
        return place_size_error(se, r, err);
    if (run->save_state && (r = rp_output_file_check(run->save_state, run->out.overwrite, err)))
        return rp_error_set(err, r, err->bad_input, "%s: %s", SAVE_STATE, err->msg);
    if ((r = check_paths(se, err)))
        return r;
    return RP_OK;
}

/* ---- inputs ---------------------------------------------------------------------------- */

/* The scene's images for the core (rp_core_image_fn), decoded as they always were: a wall
 * mask within the memory limit as a mask, its picture, the sky fitted to cover. */
static int decode_image(void *ctx, const char *path, enum rp_image_use use, int width, int height,
                        uint8_t *rgb, rp_error *err)
{
    const rp_session *se = ctx;
    const int64_t max = se->run->max_memory;
    const uint8_t *frame = NULL;
    uint8_t *pix = NULL;
    rp_source *src = NULL;
    int r;
    if (use == RP_IMAGE_SKY) {
        if (!(r = rp_source_open(&src, path, width, height, RP_FIT_COVER, RP_VIDEO_HOLD, max, err)))
            r = rp_source_frame(src, 0, se->s.fps, se->s.fps_den, &frame, err);
    } else if (use == RP_IMAGE_WALL_MASK) {
        r = rp_image_load_mask_rgb_max(path, width, height, max, &pix, err);
        frame = pix;
    } else {
        r = rp_image_load_rgb_max(path, width, height, max, &pix, err);
        frame = pix;
    }
    if (!r)
        memcpy(rgb, frame, (size_t)width * (size_t)height * 3);
    free(pix);
    rp_source_free(&src);
    return r;
}

/* Start from a checkpoint: load it, check it is not past --start and belongs to this run
 * (the core replays the walls of the frames it skips). check: only whether it would load
 * (--check: the core untouched); a pipe or a FIFO can be read once, by the render, so a
 * check leaves it to the render (as --verify's manifest). */
static int load_state(rp_session *se, int check, rp_error *err)
{
    const char *path = se->run->load_state;
    /* The state must not be past frame --start's instant (with one step a frame the
     * state's step count is a frame number, and it must come before that frame's step). */
    int64_t last = rp_core_frame_steps(se->core, se->start) - (se->s.rate ? 0 : 1), steps;
    struct stat st;
    const int known = !stat(path, &st);
    if (known && S_ISDIR(st.st_mode)) /* it would open, and read as an empty file */
        return rp_error_set(err, RP_ERR_IO, 1, "%s: cannot open state: %s", path, strerror(EISDIR));
    if (check && known && !S_ISREG(st.st_mode))
        return RP_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rp_error_set(err, RP_ERR_IO, 1, "%s: cannot open state: %s", path, strerror(errno));
    int r = (check ? rp_core_checkpoint_check
                   : rp_core_checkpoint_read)(se->core, f, last < 0 ? 0 : last, &steps, err);
    fclose(f);
    if ((r || last < 0) && steps > last) {
        /* Say the first frame it can start (steps are no unit a user sees): the least k
         * whose last step, as above, is not before the state's (frame_steps grows with k). */
        int64_t lo = se->start, hi = se->frames;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (rp_core_frame_steps(se->core, mid) - (se->s.rate ? 0 : 1) >= steps)
                hi = mid;
            else
                lo = mid + 1;
        }
        char hint[96];
        if (lo < se->frames)
            snprintf(hint, sizeof hint, ": give %s %" PRId64 " or later", START, lo);
        else
            snprintf(hint, sizeof hint, ", past the timeline's last frame (%" PRId64 ")",
                     se->frames - 1);
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s: state is at %s %" PRId64 ", after %s %" PRId64 "%s", path,
                            se->s.rate ? "step" : "frame", steps, START, se->start, hint);
    }
    if (r)
        return rp_error_set(err, r, err->bad_input, "%s: %s", path, err->msg);
    return RP_OK;
}

/* Threads start with SIGINT/SIGTERM blocked, so the caller's thread takes them (a signal
 * landing in the writer would interrupt its writes with EINTR). */
static void block_stop_signals(sigset_t *old_set)
{
    sigset_t stop_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, old_set);
}

static int start_writer(rp_session *se, rp_error *err)
{
    sigset_t old_set;
    int r;
    const rp_settings_info *s = &se->s;
    size_t cells = (size_t)s->grid_w * (size_t)s->grid_h;
    size_t pixels = (size_t)s->out_width * (size_t)s->out_height;
    enum rp_pixfmt format = se->run->alpha ? RP_PIX_RGBA : RP_PIX_RGB24;
    size_t bpp = (size_t)rp_pixfmt_bytes(format);
    se->frame = (rp_frame){.width = s->out_width,
                           .height = s->out_height,
                           .stride = (size_t)s->out_width * bpp,
                           .format = format,
                           .grid_w = s->grid_w,
                           .grid_h = s->grid_h};
    rp_writer_opts wo = {.sinks = &se->sinks,
                         .frame = se->frame,
                         .frame_bytes = pixels * bpp,
                         .cells = rp_sinks_want_heights(&se->sinks) ? cells : 0,
                         .slots = RP_WRITER_SLOTS};
    for (int kind = 0; kind < RP_AOV_KINDS; kind++)
        wo.aov_bytes[kind] = se->run->aov[kind] ? pixels * aov_bytes(kind) : 0;
    block_stop_signals(&old_set);
    r = rp_writer_new(&se->writer, &wo);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    return r ? rp_error_set(err, r, 0,
                            "out of memory starting the writer thread and its frames: %s",
                            rp_oom_hint())
             : RP_OK;
}

/* A still background's decoding cost against the limit before it is decoded (a video's
 * decoder memory is known once it is open, and validate() counts it). */
static int check_background(rp_session *se, int *video, rp_error *err)
{
    rp_source_info info;
    int64_t bytes = 0;
    int r;
    *video = 0;
    if (!se->s.background[0])
        return RP_OK;
    if ((r = rp_source_probe(se->s.background, se->run->max_memory, &info, err)) &&
        (r = background_fail(se, r, err)))
        return r;
    if ((*video = se->bg_video = info.is_video))
        return RP_OK;
    if ((r = rp_image_cost(se->s.background, se->s.out_width, se->s.out_height, 0, &bytes, err)))
        return r;
    if ((double)bytes > (double)se->run->max_memory)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "%s: decoding it needs about %.1f MiB, over the limit of %.1f MiB "
                            "(raise it with %s)",
                            se->s.background, (double)bytes / (1 << 20),
                            (double)se->run->max_memory / (1 << 20), MAX_MEMORY);
    return RP_OK;
}

/* r, the result of a call past the refusals that do nothing: a failure fails the session
 * (rockpool.h: only rp_session_abort and rp_session_free may follow). */
static int failed_if(rp_session *se, int r)
{
    if (r)
        se->failed = 1;
    return r;
}

/* A check (rp_session_check, _check_outputs, _check_images: call) made with check. Refused,
 * doing nothing: no session, or one that has started (its background and sinks are open: a
 * check would close or redo them; the session goes on, as rockpool.h says) or failed. A check
 * that fails fails the session (failed_if). */
static int checked(rp_session *se, const char *call, int (*check)(rp_session *, rp_error *),
                   rp_error *err)
{
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!se)
        return null_arg(err, call, "the session");
    if (se->started || se->failed)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s", call,
                            se->failed ? "after a failed call (only rp_session_abort or "
                                         "rp_session_free may follow one)"
                                       : "of a session already started (checks come before "
                                         "rp_session_start)");
    return failed_if(se, check(se, err));
}

static int check_inputs(rp_session *se, rp_error *err)
{
    int video, r;
    double images = 0;
    int64_t sky_bytes;
    if ((r = check_background(se, &video, err)) || (r = check_sky(se, &sky_bytes, err)))
        return r;
    size_t masks;
    return rp_core_image_costs(se->core, image_cost, NULL, &images, &masks, err);
}

int rp_session_check(rp_session *se, rp_error *err)
{
    return checked(se, "rp_session_check", check_inputs, err);
}

int rp_session_check_outputs(rp_session *se, rp_error *err)
{
    return checked(se, "rp_session_check_outputs", validate, err);
}

/* The background opened as a render opens it (after check_background): a still decoded
 * whole, a video's decoder opened and its first frame decoded, and then the memory estimate
 * checked again with that decoder counted (a still's was checked before it was decoded). */
static int open_background(rp_session *se, rp_error *err)
{
    const rp_settings_info *s = &se->s;
    int r;
    if ((r = rp_source_open(&se->background, s->background, s->out_width, s->out_height, s->fit,
                            s->background_end, se->run->max_memory, err)))
        return background_fail(se, r, err);
    return se->bg_video ? validate(se, err) : RP_OK;
}

/* rp_core_image_costs' visit for rp_session_check_images: the wall mask decoded as the
 * render's first frame decodes it (decode_image, at the size and for the use the core asks),
 * then dropped; an image the decoder refuses without a reason gets the core's. */
static int decode_check(void *ctx, const char *path, enum rp_image_use use, int width, int height,
                        int64_t *bytes, rp_error *err)
{
    uint8_t *rgb = malloc((size_t)width * (size_t)height * 3);
    *bytes = 0;
    if (!rgb)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    err->msg[0] = '\0';
    int r = decode_image(ctx, path, use, width, height, rgb, err);
    free(rgb);
    if (r && !err->msg[0])
        rp_error_set(err, r, r != RP_ERR_NOMEM, "cannot decode the image '%.200s'", path);
    return r;
}

static int check_images(rp_session *se, rp_error *err)
{
    int r;
    const rp_settings_info *s = &se->s;
    if (!se->background && (r = open_background(se, err)))
        return r;
    /* the wall masks the timeline uses (and their pictures with `walls visible image`),
     * each file once, as the core decodes them: an error at the statement naming it */
    double ignored = 0;
    size_t masks = 0;
    if ((r = rp_core_image_costs(se->core, decode_check, se, &ignored, &masks, err)))
        return r;
    /* the sky, when the render reflects it, at the output size */
    if (sky_used(se)) {
        int64_t bytes;
        err->msg[0] = '\0';
        if ((r = decode_check(se, s->sky, RP_IMAGE_SKY, se->info.width, se->info.height, &bytes,
                              err)))
            return sky_fail(se, r, err);
    }
    rp_source_free(&se->background); /* a check keeps nothing open */
    return se->run->load_state ? load_state(se, 1, err) : RP_OK;
}

int rp_session_check_images(rp_session *se, rp_error *err)
{
    return checked(se, "rp_session_check_images", check_images, err);
}

static int start_session(rp_session *se, rp_error *err)
{
    int r, video;
    /* A still's cost is known before it is decoded, a video's decoder once it is open. */
    if ((r = check_background(se, &video, err)) || (!video && (r = validate(se, err))))
        return r;
    if ((r = open_background(se, err)))
        return r;
    if ((r = rp_core_set_images(se->core, decode_image, se, err)) ||
        (r = rp_core_start(se->core, err)))
        return r;
    if (se->run->load_state && (r = load_state(se, 0, err)))
        return r;
    if (se->run->stop && *se->run->stop)
        return rp_error_set(err, RP_ERR_INTERRUPTED, 0, "interrupted");
    if (se->run->save_state && (r = rp_output_file_open(&se->state_file, se->run->save_state,
                                                        se->run->out.overwrite, err)))
        return rp_error_set(err, r, err->bad_input, "%s: %s", SAVE_STATE, err->msg);
    if ((r = rp_sinks_open(&se->sinks, err)))
        return r;
    if ((r = start_writer(se, err)))
        return r;
    se->started = 1;
    return RP_OK;
}

/* What a call after a failed one, or a second start, gets: an error, nothing done. */
static int misuse(const rp_session *se, const char *call, rp_error *err)
{
    return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s", call,
                        se->failed ? "after a failed call (only rp_session_abort or "
                                     "rp_session_free may follow one)"
                                   : "of a session already started");
}

int rp_session_start(rp_session *se, rp_error *err)
{
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!se)
        return null_arg(err, "rp_session_start", "the session");
    if (se->failed || se->started)
        return misuse(se, "rp_session_start", err);
    return failed_if(se, start_session(se, err));
}

/* ---- frames ---------------------------------------------------------------------------- */

/* The bars of fit contain are not water: whatever the render lit there goes back to the
 * pad colour, black (transparent in the --alpha light layer). */
static void clear_bars(const rp_session *se, uint8_t *pixels)
{
    int x, y, w, h, fw = se->frame.width, fh = se->frame.height;
    size_t bpp = (size_t)rp_pixfmt_bytes(se->frame.format), stride = se->frame.stride;
    rp_source_drawn(se->background, &x, &y, &w, &h);
    if (x == 0 && y == 0 && w == fw && h == fh)
        return;
    for (int row = 0; row < fh; row++) {
        uint8_t *p = pixels + (size_t)row * stride;
        if (row < y || row >= y + h) {
            memset(p, 0, (size_t)fw * bpp);
            continue;
        }
        memset(p, 0, (size_t)x * bpp);
        memset(p + (size_t)(x + w) * bpp, 0, (size_t)(fw - x - w) * bpp);
    }
}

static int next_frame(rp_session *se, const rp_frame **frame, rp_error *err);

int rp_session_next(rp_session *se, const rp_frame **frame, rp_error *err)
{
    rp_error scratch;
    err = err_or(err, &scratch);
    if (!frame)
        return null_arg(err, "rp_session_next", "the frame pointer");
    *frame = NULL;
    if (!se)
        return null_arg(err, "rp_session_next", "the session");
    if (se->failed)
        return misuse(se, "rp_session_next", err);
    if (!se->started) /* no background, writer or sinks yet: refused, nothing done */
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "rp_session_next before rp_session_start succeeded");
    return failed_if(se, next_frame(se, frame, err));
}

static int next_frame(rp_session *se, const rp_frame **frame, rp_error *err)
{
    if (se->k < se->start)
        se->k = se->start;
    if (se->k >= se->end)
        return RP_OK;
    /* a stop asked for is seen before the frame too, not only between its steps (a frame
     * that needs no step, such as frame 0, would be written after it) */
    if (se->run->stop && *se->run->stop)
        return RP_OK;
    int64_t k = se->k;
    const uint8_t *background;
    int r = rp_source_frame(se->background, k, se->s.fps, se->s.fps_den, &background, err);
    if (r)
        return r;
    int16_t *heights_copy;
    uint16_t *aov[RP_AOV_KINDS];
    uint8_t *pixels = rp_writer_acquire(se->writer, &heights_copy, aov);
    if (!pixels) /* the writer failed: say why */
        return rp_writer_finish(&se->writer, err);
    /* A stop request ends the run between steps: the slot is left unsubmitted. */
    if ((r = rp_core_set_background(se->core, background, (size_t)se->s.out_width * 3, RP_PIX_RGB24,
                                    err)) ||
        (r = rp_core_render(se->core, k,
                            se->run->alpha ? RP_PASS_LIGHT_PREMULTIPLIED : RP_PASS_RENDER, pixels,
                            se->frame.stride, err)))
        return r == RP_ERR_INTERRUPTED ? RP_OK : r;
    clear_bars(se, pixels);
    if (heights_copy)
        memcpy(heights_copy, rp_core_heights(se->core, NULL, NULL),
               (size_t)se->s.grid_w * se->s.grid_h * sizeof *heights_copy);
    /* the passes of the frame the core just rendered (it does not render it again) */
    enum rp_pass passes[RP_AOV_KINDS];
    void *dst[RP_AOV_KINDS];
    size_t strides[RP_AOV_KINDS];
    int n = 0;
    for (int kind = 0; kind < RP_AOV_KINDS; kind++)
        if (aov[kind]) {
            passes[n] = aov_pass[kind];
            dst[n] = aov[kind];
            strides[n++] = (size_t)se->s.out_width * aov_bytes(kind);
        }
    if (n && (r = rp_core_render_passes(se->core, k, n, passes, dst, strides, err)))
        return r;
    rp_writer_submit(se->writer, k);
    se->k++;
    se->written++;
    se->frame.index = k;
    se->frame.data = pixels;
    se->frame.heights = heights_copy;
    for (int kind = 0; kind < RP_AOV_KINDS; kind++)
        se->frame.aov[kind] = aov[kind];
    *frame = &se->frame;
    return RP_OK;
}

int64_t rp_session_written(const rp_session *se)
{
    return se ? se->written : 0;
}

/* The checkpoint of the last frame into its side file (moved into place with the
 * outputs). */
static int write_state(rp_session *se, rp_error *err)
{
    size_t len = rp_core_checkpoint_size(se->core);
    uint8_t *buf = len ? malloc(len) : NULL;
    int r = buf ? rp_core_checkpoint_save(se->core, buf, len, err)
                : rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    if (!r)
        r = rp_output_file_write(se->state_file, buf, len, err);
    free(buf);
    if (!r)
        r = rp_output_file_finish(se->state_file, err);
    return r;
}

int rp_session_close(rp_session **ps, int64_t *frames, rp_error *err)
{
    rp_session *se = ps ? *ps : NULL;
    rp_error scratch;
    err = err_or(err, &scratch);
    if (frames)
        *frames = 0;
    if (!se) /* as rp_session_abort and rp_session_free take it, but a close is not a success */
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_session_close of no session");
    /* never started, or a call failed: its files are not complete, and its sinks may not
     * be open; it is aborted (nothing is kept), as rp_session_abort would */
    if (!se->started || se->failed) {
        int r = se->failed ? misuse(se, "rp_session_close", err)
                           : rp_error_set(err, RP_ERR_INVALID, 1,
                                          "rp_session_close of a session never started: "
                                          "nothing written");
        rp_session_abort(ps);
        return r;
    }
    int stopped = se->run->stop && *se->run->stop;
    /* Closed (or stopped) before the first frame: a video of no frame would not play, and a
     * range without frames is refused before anything is made; nothing is kept, as the
     * program keeps nothing then. */
    if (!se->written) {
        int r = stopped ? rp_error_set(err, RP_ERR_INTERRUPTED, 0,
                                       "interrupted before the first frame: nothing written")
                        : rp_error_set(err, RP_ERR_INVALID, 1,
                                       "rp_session_close before the first frame: nothing "
                                       "written");
        rp_session_abort(ps);
        return r;
    }
    int r = rp_writer_finish(&se->writer, err);
    /* A checkpoint is only kept for a whole run: not after a stop, nor when the caller
     * closes the session before its last frame (the outputs are kept, cut short). */
    if (!r && se->state_file && (stopped || se->k < se->end))
        rp_output_file_abort(&se->state_file);
    if (!r && se->state_file)
        r = write_state(se, err);
    if (!r)
        r = rp_sinks_close(&se->sinks, frames, err);
    if (!r)
        r = rp_output_file_commit(&se->state_file, err);
    if (r)
        rp_session_abort(ps);
    else
        rp_session_free(ps);
    return r;
}

/* Freeing a session removes what it created (rp_session_free does both). */
void rp_session_abort(rp_session **ps)
{
    rp_session_free(ps);
}

void rp_session_free(rp_session **ps)
{
    rp_session *se = ps ? *ps : NULL;
    rp_error ignored;
    if (!se)
        return;
    rp_writer_finish(&se->writer, &ignored);
    rp_sinks_abort(&se->sinks);
    rp_output_file_abort(&se->state_file);
    rp_source_free(&se->background);
    rp_core_close(&se->core);
    rp_settings_free(&se->over);
    free(se);
    *ps = NULL;
}
