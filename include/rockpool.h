/* rockpool.h - the public API of librockpool: a render session.
 *
 * A session is opened from a parsed scene and a run description (settings given by the
 * caller, the frames to write, the sinks to feed), then yields frame after frame and is
 * closed or aborted, in the manner of dav1d's open / get_picture / close:
 *
 *     rp_scene *scene;   rp_scene_load(&scene, "rain.scene", &err);
 *     rp_run run;        rp_run_init(&run);  run.out.path = "out.mp4";
 *     rp_session *s;     rp_session_new(&s, scene, &run, &err);   -- resolves, creates nothing
 *                        rp_session_start(s, &err);               -- checks, loads, opens sinks
 *     while (!(r = rp_session_next(s, &frame, &err)) && frame) { ... }
 *                        rp_session_close(&s, NULL, &err);        -- files moved into place
 *
 * The session owns everything a run holds: the timeline, the simulation, the background
 * source, wall masks, checkpoints, the thread pool, the writer thread and the sinks (the
 * encoded output, --hash lines, height dumps). It never prints or exits: problems come
 * back as an rp_error, warnings and progress through the callbacks in rp_run.
 *
 * Errors: every function that can fail returns RP_OK (0) or an enum rp_err code and
 * fills the caller's rp_error. rp_error.bad_input says whose fault it was: 1 for bad
 * usage or bad input (the program exits 2), 0 for a runtime failure (exit 1). After a
 * failed call (a failed check among them) the only valid calls are rp_session_abort() and
 * rp_session_free(): rp_session_start, rp_session_next, rp_session_close and the checks then
 * return RP_ERR_INVALID (rp_session_close aborting the session). A call refused before it
 * does anything is not a failed one: it is RP_ERR_INVALID with bad_input set and nothing
 * done, the session as it was (a started one goes on): a NULL pointer the call needs (the
 * session, the scene, the run, *frame's pointer), as dav1d refuses one; a check after
 * rp_session_start; a second rp_session_start; rp_session_next before it. err may be NULL
 * everywhere (the reason is then dropped). The functions that return no error take NULL
 * as nothing to do (or zero).
 *
 * Threads: one session is driven by one thread at a time. Its worker threads block
 * SIGINT and SIGTERM, so a handler installed by the program runs on the caller's thread;
 * the program asks the session to stop through rp_run.stop. Sessions are independent:
 * two that write one output at once each write a whole file of their own under a
 * temporary name (".NAME.tmp-PID", the second ".NAME.tmp-PID-N"), and the last one closed
 * is the file in place, as between two processes. PNG frames are moved into place one by
 * one, so there rp_session_start refuses (RP_ERR_INVALID, bad input) a PNG output or --aov
 * sequence naming a file that a PNG output of another session, started and not yet closed
 * or aborted, names.
 *
 * This header is the library's boundary: it includes only the C library's headers, and
 * its types are opaque (rp_scene, rp_settings, rp_session) except the few structs a caller
 * fills or reads (rp_run, rp_output_opts, rp_error, rp_frame, rp_summary,
 * rp_output_settings). What the output stream is (its size, rate, pixel layout, tags,
 * sound) the session derives; the caller says only what it wants (path, container, codec,
 * quality). */
#ifndef ROCKPOOL_H
#define ROCKPOOL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "rpcore.h" /* enum rp_err, rp_error, rp_scene, rp_settings, enum rp_pixfmt */

#ifdef __cplusplus
extern "C" {
#endif

/** Read and parse a scene file ("-" = stdin; NULL = the built-in scene, a few seconds of
 * rain). Errors: RP_ERR_IO / RP_ERR_INVALID with a message or a positioned diagnostic,
 * bad_input set (RP_ERR_NOMEM: runtime). *scene is NULL on failure. */
int rp_scene_load(rp_scene **scene, const char *path, rp_error *err);

/** rp_scene_load() within a memory limit (max_memory bytes, as rp_run.max_memory; 0: no
 * limit; negative: RP_ERR_INVALID): a file larger than it is refused before it is read, stdin stops
 * being read at it, and parsing stops at the first statement that would take the scene's text and
 * events past it. Those refusals are RP_ERR_TOO_LARGE with bad_input set. */
int rp_scene_load_max(rp_scene **scene, const char *path, int64_t max_memory, rp_error *err);

/** Output containers and files (rockpool(1) OUTPUT FILES). */
enum rp_format {
    RP_FORMAT_NONE = 0,
    RP_FORMAT_MP4,
    RP_FORMAT_MKV,
    RP_FORMAT_MOV,
    RP_FORMAT_WEBM,
    RP_FORMAT_PNG,
    RP_FORMAT_Y4M,
    RP_FORMAT_FRAMEMD5,
    RP_FORMAT_FRAMEHASH, /* framemd5's sibling with the hash of hash_algo */
    RP_FORMAT_GIF,       /* animated GIF: 256 colours of the first frame, dithered */
    RP_FORMAT_WEBP       /* animated WebP (libwebp) */
};

/** The encoded output as the caller chooses it. The stream itself (size, frame rate,
 * pixel layout, first frame, tags, sound) comes from the scene and the run. */
typedef struct rp_output_opts {
    const char *path;           /* file, PNG pattern with one %d or %0Nd, or "-" */
    enum rp_format format;      /* RP_FORMAT_NONE: from the path */
    int overwrite;              /* replace existing files */
    const char *codec;          /* encoder name, NULL = default for the container */
    int crf;                    /* 0..63, -1 = encoder default; without crf_given, 23 (FFmpeg's for
                                 * libx264) is each encoder's own default */
    int crf_given;              /* crf was asked for: an encoder without one is refused */
    const char *encoder_preset; /* NULL = encoder default */
    int64_t bitrate;            /* bits/s (>= 0), 0 = unset (CRF mode) */
    const char *pix_fmt;        /* NULL = yuv420p (or what the encoder needs) */
    int png_level;              /* libdeflate level 0..9 (9: its 12), -1 = rockpool's own */
    const char *hash_algo;      /* -f framehash's algorithm (hash names as --hash); NULL = md5 */
    int quiet;                  /* silence the encoders' own loggers (x265, SVT-AV1) */
} rp_output_opts;

/** Defaults: no path, the format from the path, crf 23, PNG level -1. */
void rp_output_opts_init(rp_output_opts *opts);

/** The format a path implies ("x.mp4" -> MP4, "f_%05d.png" -> PNG, "-" -> Y4M), or
 * RP_FORMAT_NONE; by name ("mp4", "png", "framemd5", ...); and a format's name. */
enum rp_format rp_output_format_from_path(const char *path);
enum rp_format rp_output_format_from_name(const char *name);
const char *rp_output_format_name(enum rp_format f);

/** The format opts resolve to (opts->format, else the path's), and whether it writes to
 * stdout: "-", or a name of the file stdout is open on (/dev/stdout), /dev/null aside. */
enum rp_format rp_output_format_of(const rp_output_opts *opts);
int rp_output_uses_stdout(const rp_output_opts *opts);

/** Whether a PNG path names one still: it has no conversion, only "%%" (a literal '%',
 * as in 100%%.png) if any '%' at all. A path with a '%' of any other kind is a pattern (0
 * for NULL). */
int rp_output_is_still(const char *path);

/** Hex MD5 of a buffer (33 bytes with the NUL), as FFmpeg's framemd5 prints it ("" for
 * NULL data of a nonzero length; nothing done for a NULL hex). */
void rp_md5_hex(const uint8_t *data, size_t len, char hex[33]);

/** Frame hashes chosen by name, as --hash-algo and -f framehash take them: FFmpeg's
 * libavutil hashes (MD5, CRC32, adler32, murmur3, SHA-1/2, RIPEMD) and XXH3, printed as
 * hex exactly as FFmpeg's framehash/framemd5 muxers print them. One rp_hash per thread;
 * the lookup functions are thread-safe. */
/** Longest hex digest plus its NUL (SHA512: 64 bytes). */
#define RP_HASH_HEX_MAX 129

/** The algorithm used when none is named. */
#define RP_HASH_DEFAULT "md5"

typedef struct rp_hash rp_hash;

/** Look an algorithm up by the name a user types: "md5", "crc32", "xxh3", or any of
 * libavutil's av_hash_names(), all ignoring case; NULL or "" means RP_HASH_DEFAULT.
 * On success *canonical (when not NULL) receives the name as a framehash "#hash:" header
 * spells it ("MD5", "CRC32", "adler32", "SHA256", "XXH3"; a static string) and *hex_len
 * (when not NULL) the number of hex digits of a digest. RP_ERR_INVALID for an unknown
 * name, RP_ERR_NOMEM if libavutil could not allocate its probe context. */
int rp_hash_lookup(const char *name, const char **canonical, int *hex_len);

/** The i-th known algorithm's canonical name (i from 0), NULL past the last: for
 * messages listing what --hash-algo accepts. */
const char *rp_hash_name_at(int i);

/** Write the known names, lowercase, separated by ", ", into buf (truncated to len). */
void rp_hash_list(char *buf, size_t len);

/** Allocate a context for an algorithm named as rp_hash_lookup() takes it; it starts
 * ready for rp_hash_update(). RP_ERR_INVALID for an unknown name or a NULL h, RP_ERR_NOMEM.
 * *h is NULL on failure. */
int rp_hash_new(rp_hash **h, const char *name);

/** Free a context and null *h. NULL and a NULL *h are no-ops. */
void rp_hash_free(rp_hash **h);

/** The canonical name ("MD5", "XXH3", ...) and hex digest length of a context (NULL and 0
 * for a NULL h; the calls below do nothing with a NULL h but write "" into hex). */
const char *rp_hash_name(const rp_hash *h);
int rp_hash_hex_len(const rp_hash *h);

/** Start a new digest (needed only after rp_hash_final_hex() or to drop data). */
void rp_hash_reset(rp_hash *h);

/** Add len bytes to the running digest (NULL data of a nonzero length: nothing added). */
void rp_hash_update(rp_hash *h, const uint8_t *data, size_t len);

/** Finish the digest into hex (rp_hash_hex_len(h) + 1 bytes, lowercase, NUL-terminated;
 * RP_HASH_HEX_MAX always suffices) and reset the context for the next one. */
void rp_hash_final_hex(rp_hash *h, char *hex);

/** Reset, update with one buffer, final: the hash of one frame ("" for NULL data of a
 * nonzero length). */
void rp_hash_hex(rp_hash *h, const uint8_t *data, size_t len, char *hex);

/** The kinds of --aov (rockpool(1) "ALPHA AND AOVS" gives their encodings). */
enum rp_aov {
    RP_AOV_HEIGHT = 0,
    RP_AOV_NORMAL,
    RP_AOV_DISPLACEMENT,
    RP_AOV_CAUSTICS,
    RP_AOV_KINDS
};

/** An AOV kind by name ("height", "normal", "displacement" or "caustics", as --aov takes
 * them), or -1; rp_aov_name: a kind's name ("none" for a value that is no kind). */
int rp_aov_from_name(const char *name);
const char *rp_aov_name(enum rp_aov kind);

/** A run: what the caller decides beyond the scene. Fill with rp_run_init(), then set
 * fields. Pointers must stay valid until the session is freed. */
typedef struct rp_run {
    const rp_settings *over; /* settings over the scene's (rp_settings_parse), or NULL */
    int64_t start, end;      /* write frames start..end-1 (start >= 0); end -1 = the last frame */
    rp_output_opts out;      /* the encoded output; out.path NULL = none */
    int threads;             /* worker threads, 1..256 (0 = one per usable CPU) */
    int64_t max_memory;      /* refuse runs estimated to need more bytes than this; 0: no
                              * limit (as rp_core_config's); negative: refused */
    int allow_outside_paths; /* the scene may name files outside its directory */
    int hash;                /* print "FRAME HASH" lines to hash_to */
    void *hash_to;           /* a FILE * for the hash lines (NULL = stdout) */
    /* The algorithm of --hash lines and --verify, as rp_hash_lookup() takes it (NULL: md5 for
     * --hash, the manifest's own for --verify). -f framehash reads out.hash_algo. */
    const char *hash_algo;
    /* Compare every written frame with this manifest: a framemd5/framehash
     * file or --hash lines. At the first difference the run fails with RP_ERR_MISMATCH,
     * having written that frame as PNG into verify_dir (NULL: the manifest's directory). */
    const char *verify;
    const char *verify_dir;
    /* The expected frames as a PNG pattern (f_%05d.png), or NULL: at a difference the
     * expected frame is read from it and a difference image is written beside the actual
     * frame (rockpool(1) --verify-ref). */
    const char *verify_ref;
    const char *stats;        /* per-frame statistics as CSV (rockpool(1) --stats), or NULL */
    const char *dump_heights; /* write each written frame's heights here, or NULL */
    const char *save_state;   /* write a checkpoint after the last frame, or NULL */
    const char *load_state;   /* start from a checkpoint, or NULL */
    int no_audio;             /* leave a video background's sound out of the output */
    /* --alpha: frames are the light layer alone, RGBA with premultiplied alpha (render
     * `light` only; rockpool(1) "ALPHA AND AOVS"): the output's pixel format follows. */
    int alpha;
    /* --aov KIND PATH: a 16-bit PNG sequence per kind (a pattern with one %d), or NULL. */
    const char *aov[RP_AOV_KINDS];
    /* Set asynchronously (a signal handler) to the signal number to stop the run: before
     * any file exists the session fails with RP_ERR_INTERRUPTED; after, the outputs are
     * finished and kept (the video plays up to the last frame), but not save_state's
     * checkpoint, which only a whole run writes. NULL = never. */
    volatile sig_atomic_t *stop;
    /* A one-line warning (an encoder fallback, ...). NULL = dropped. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    /* A farm job's identity line (rockpool --job-id), written into the outputs' tags as
     * rockpool_job so that a chunk says which job it belongs to; NULL = none. Anything but
     * a job line ("scene=HEX16,inputs=HEX16,options=HEX16,build=HEX16", lowercase hex) is
     * refused by rp_session_new (RP_ERR_INVALID). */
    const char *job_id;
} rp_run;

/** Defaults: no overrides, all frames, rockpool.mp4, one thread, 4 GiB limit. */
void rp_run_init(rp_run *run);

/** The length of a job line: "scene=", "inputs=", "options=" and "build=", each with 16
 * lowercase hex digits, joined by commas. */
#define RP_JOB_LINE_LEN 94

/** Whether text has the form of a job line, what rp_run.job_id takes (1 or 0; 0 for NULL). */
int rp_job_line_valid(const char *text);

typedef struct rp_session rp_session;

/** What --check prints: the final settings and the timeline's counts. */
typedef struct rp_summary {
    const rp_settings *settings; /* valid until the session is freed */
    int64_t frames;              /* timeline length */
    int64_t start, end;          /* frames to write */
    rp_scene_stats scene;
    rp_timeline_stats timeline;
    double memory; /* estimated peak bytes (0 until rp_session_check_outputs or start) */
    int64_t steps; /* simulation steps the last frame shows */
    double speed;  /* the waves' speed, scene pixels per second */
    int threads;   /* worker threads: run->threads, or one per CPU the process may run on */
} rp_summary;

/** One frame as the sinks see it: pixels (RP_PIX_RGB24, or RP_PIX_RGBA with --alpha:
 * enum rp_pixfmt above) and the simulation heights it was rendered from. */
typedef struct rp_frame {
    int64_t index;         /* timeline index */
    int width, height;     /* pixels */
    size_t stride;         /* bytes from one row to the next */
    enum rp_pixfmt format; /* RP_PIX_RGB24 or RP_PIX_RGBA */
    const uint8_t *data;
    const int16_t *heights; /* grid_w * grid_h heights, or NULL when no sink wants them */
    int grid_w, grid_h;
    /* The --aov passes of this frame (rpcore.h's RP_PASS_HEIGHT, RP_PASS_NORMAL,
     * RP_PASS_DISPLACEMENT, RP_PASS_CAUSTICS), width x height, rows packed, or NULL where
     * not asked for (rp_run.aov) */
    const uint16_t *aov[RP_AOV_KINDS];
} rp_frame;

/** Resolve the final settings (the preset's defaults, then the scene's, then run->over;
 * the background image's size when none is given), check the frame range and the run's
 * own fields (threads, job_id, max_memory), build the timeline within the memory limit.
 * A range without frames (start == end, or a timeline of none) is RP_ERR_INVALID with
 * bad_input set, as a range past the timeline is. Creates no file. The outputs (paths,
 * encoder settings) and the run's whole memory estimate are checked later, by
 * rp_session_check_outputs or rp_session_start.
 * The session copies *run (the strings it points to must outlive the session) and keeps a
 * pointer to scene, which must outlive it. */
int rp_session_new(rp_session **s, const rp_scene *scene, const rp_run *run, rp_error *err);

/** The resolved run, for --check (a NULL s: *sum zeroed). */
void rp_session_summary(const rp_session *s, rp_summary *sum);

/** The settings the session's output is written with once what was left out is resolved
 * as rp_session_start would resolve it: the encoder (-c, else the first of the container's
 * defaults FFmpeg has installed), its pixel format, preset, constant rate factor or
 * quantiser and bit rate; Y4M's layout; a framehash file's algorithm; whether the
 * background's sound is carried. An option given as
 * the value it would take anyway reads the same as leaving it out (rockpool --job-id
 * compares these). Fields that do not apply to the format are empty, -1 or 0. */
typedef struct rp_output_settings {
    enum rp_format format;   /* RP_FORMAT_NONE: the run has no output */
    char codec[64];          /* the video encoder ("libx264"); "" for PNG, Y4M, frame hashes */
    char pix_fmt[32];        /* the encoder's pixel format ("yuv420p"), or Y4M's; "" otherwise */
    char encoder_preset[64]; /* as given (a number preset as its value: libsvtav1's "04"
                              * is "4", libwebp's "photo" "2"), else the encoder's own
                              * default where it is known ("medium" for libx264 and
                              * libx265, "-1" for libsvtav1); "" otherwise */
    int crf;                 /* the constant rate factor the encoder is given, or -1 */
    int qscale;              /* the fixed quantiser of an encoder without one (mpeg4), or 0 */
    int64_t bitrate;         /* the target bit rate in bits/s, or 0 */
    char hash_algo[16];      /* a framehash file's algorithm ("MD5", "XXH3"); "" otherwise */
    int audio;               /* 1: the output carries the background video's sound (a video
                              * format that holds sound, a background with sound, and
                              * rp_run.no_audio not set), else 0 */
} rp_output_settings;

/** Fill *out with the output's resolved settings (a NULL s or out: RP_ERR_INVALID). Creates
 * nothing and opens no file. Errors are what rp_session_check_outputs refuses in these
 * settings (an encoder not installed or that the container cannot hold, a pixel format it
 * does not take, a size its subsampling cannot take): bad input, RP_ERR_UNSUPPORTED (not
 * bad input) when no default encoder is installed. */
int rp_session_output_settings(const rp_session *s, rp_output_settings *out, rp_error *err);

/** Open and check every input without decoding pixels or creating anything (--check):
 * the background (an image's headers and decoding cost, a video's streams) and every wall
 * mask the timeline uses. Errors are bad input. The checks come before rp_session_start:
 * after it they are RP_ERR_INVALID, nothing done (the session goes on); after a failed call
 * (a failed check too) they are RP_ERR_INVALID. */
int rp_session_check(rp_session *s, rp_error *err);

/** After rp_session_check: check every output as rp_session_start would (paths and patterns,
 * files that exist without overwrite, outputs over inputs, the encoder's settings, the
 * memory estimate) without creating anything. Errors are bad input. */
int rp_session_check_outputs(rp_session *s, rp_error *err);

/** Refuse a descriptor the caller will write during the run (progress on --progress-fd)
 * when it is open on a regular file that is an input of the run (the scene, the
 * background, a wall mask, the sky image, rp_run.load_state, rp_run.verify): what names it
 * in the message ("--progress-fd 3"). RP_ERR_INVALID, bad input; RP_OK for a pipe, a
 * terminal or any other file. */
int rp_session_check_fd(const rp_session *s, int fd, const char *what, rp_error *err);

/** After rp_session_check_outputs: decode every input as rp_session_start would before the
 * first frame, so that --check refuses what a render refuses: the background (a still
 * decoded whole; a video opened, its first frame decoded and the memory estimate checked
 * with its decoder), every wall mask the timeline uses (and its picture with `walls visible
 * image`) and, under render light, the sky image; each at the size the render decodes it,
 * an error placed as the render places it; and rp_run.load_state read as the render reads
 * it (into a simulation of its own: the session's is untouched). Creates nothing; the
 * pixels are dropped. Errors are bad input (out of memory aside). */
int rp_session_check_images(rp_session *s, rp_error *err);

/** Check the outputs and the memory estimate (as rp_session_check_outputs does), load the
 * background, masks and checkpoint, start the threads, open every sink (files are created
 * under temporary names). Fails with RP_ERR_INTERRUPTED, creating nothing, when run->stop
 * is already set (rp_session_new, building the timeline, may fail so first); a second call
 * is RP_ERR_INVALID, nothing done. */
int rp_session_start(rp_session *s, rp_error *err);

/** Advance to the next frame to write: apply events, step, render, hand the frame to the
 * sinks. *frame points at it until the next call (it is shared with the writer thread:
 * read only), or is NULL when the last frame has been written or run->stop was seen.
 * RP_ERR_INVALID (bad_input) before rp_session_start has succeeded (before it is called,
 * nothing done: the session may still start). */
int rp_session_next(rp_session *s, const rp_frame **frame, rp_error *err);

/** Frames handed to the sinks so far (0 for a NULL s): the next frame's index is
 * rp_summary.start plus it. */
int64_t rp_session_written(const rp_session *s);

/** Wait for the sinks, write the checkpoint, finish every sink and move every file into
 * place; frees the session and nulls *s whatever happens. On failure nothing that looks
 * complete is left. *frames (may be NULL) gets the frame count of the encoded output.
 * A NULL s or *s is RP_ERR_INVALID (bad_input), nothing done; a session never started
 * (or after a failed call) is RP_ERR_INVALID too, and aborted: nothing is written. Closed
 * before its last frame, a session keeps the frames written (the video cut short, as after
 * a stop) but writes no checkpoint; closed before its first, it keeps nothing and is
 * RP_ERR_INVALID (RP_ERR_INTERRUPTED, not bad input, after a stop). */
int rp_session_close(rp_session **s, int64_t *frames, rp_error *err);

/** Remove everything the session created and free it; NULL and a NULL *s are no-ops. */
void rp_session_abort(rp_session **s);

/** The same as rp_session_abort (a session never started has nothing to remove). */
void rp_session_free(rp_session **s);

/** Remove every temporary output file this process has open now (the ".NAME.tmp-PID"
 * siblings of its outputs), for a caller that must exit while a session cannot be stopped
 * (a library call that does not return) or is ending on a crash; finished outputs are
 * left alone. Takes no lock and calls only unlink: safe in a signal handler (a file being
 * registered at that moment may be missed). */
void rp_remove_temporary_files(void);

/** From now on, move no output into place: a file about to be (a video whose encoder is
 * still finishing, the next PNG frame, a side file) is removed instead, and its session
 * fails with RP_ERR_INTERRUPTED, so it leaves nothing (rp_session_abort's removal of what
 * was already in place). For a hang-up, which leaves nothing even once every frame is
 * rendered. Sets a flag and nothing else: safe in a signal handler; for the process, for
 * good. */
void rp_abandon_outputs(void);

/** How messages name the settings a caller gives through rp_run (and rp_output_opts):
 * as this header's fields ("rp_run.out.crf 99 is out of range", "rp_run.start 20 is past
 * the last frame"; the default), or, after a nonzero options, as rockpool(1)'s options
 * ("--crf", "--start"): for a program whose users give options, as rockpool does. For the
 * process: call it first, before reading a scene (whose diagnostics are worded then). */
void rp_messages_name_options(int options);

/** A number that changes whenever a temporary output file is created, grows, or is moved
 * into place or removed: a caller waiting for a stopped session to finish can tell one
 * that writes from one that hangs. */
uint64_t rp_temporary_files_activity(void);

#ifdef __cplusplus
}
#endif

#endif
