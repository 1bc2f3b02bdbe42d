/* output.h - one small interface over every way rockpool writes frames (rockpool(1)
 * OUTPUT FILES): PNG sequence (libdeflate), video (libavformat/libavcodec), Y4M on stdout,
 * FFmpeg framemd5 lines. Backends are chosen from a table by -f NAME or by the path.
 *
 * Files are written under a temporary name beside the final one and renamed by
 * rp_output_close(); rp_output_abort() removes them, so a failed run never leaves a
 * file that looks complete. */
#ifndef RP_OUTPUT_H
#define RP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "rockpool.h" /* enum rp_pixfmt, enum rp_format, rp_output_opts */

/** Bytes per pixel of a format (3, 4, 2, 6). */
int rp_pixfmt_bytes(enum rp_pixfmt f);

/** Everything a backend is opened with: what the caller chose (the fields of the public
 * rp_output_opts, copied by rp_output_spec_from()) and what the stream is (size, rate,
 * frames, pixel layout, tags, sound, threads: filled by the session from the scene and
 * the run). */
typedef struct rp_output_spec {
    const char *path;           /* file, PNG pattern with one %d or %0Nd, or "-" */
    enum rp_format format;      /* RP_FORMAT_NONE: from the path */
    int width, height;          /* frame size */
    int fps;                    /* frames per second are fps / fps_den, fps >= 1 */
    int64_t first_frame;        /* timeline index of the first frame that will be written */
    int64_t frame_count;        /* how many frames will be written (informational) */
    int overwrite;              /* replace existing files */
    const char *codec;          /* encoder name, NULL = default for the container */
    int crf;                    /* -1 = encoder default; without crf_given, 23 (FFmpeg's for
                                 * libx264) is each encoder's own default (default_crf) */
    const char *encoder_preset; /* NULL = encoder default */
    int64_t bitrate;            /* bits/s, 0 = unset (CRF mode) */
    const char *pix_fmt;        /* NULL = yuv420p (or what the encoder needs) */
    int png_level;              /* libdeflate level 0..9 (9: its 12), -1 = rockpool's own */
    int threads;                /* encoder threads for backends that can use them (PNG) */
    /* Called with a one-line warning (e.g. an encoder fallback); may be NULL. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    /* framehash's algorithm as hash.h names it (NULL = md5); read only in open(). */
    const char *hash_algo;
    int fps_den; /* >= 1 (1001 for the NTSC rates); 0 is read as 1 */
    /* Provenance, "key", "value", ..., NULL (provenance.h): PNG tEXt chunks and container
     * tags; never a date, so the same inputs give the same bytes. NULL = none. */
    const char *const *metadata;
    /* Audio carried into video outputs (mp4, mkv, mov, webm; the others ignore it): the
     * first audio stream of audio_path, from audio_offset seconds of that file for
     * audio_length seconds (rationals num/den, den > 0), placed at the output's start (a
     * sound that starts inside the span keeps its delay: re-encoded, after silence);
     * copied where the container takes its codec, else re-encoded (AAC for mp4/mov, Opus
     * for webm). NULL, or a file without audio: no audio stream. */
    const char *audio_path;
    int64_t audio_offset_num, audio_offset_den;
    int64_t audio_length_num, audio_length_den;
    /* The layout of the frames rp_output_write() is given (RP_PIX_RGB24 by default). RGBA
     * goes to PNG (colour type 6), WebM (VP9 yuva420p), MOV (ProRes 4444 or QuickTime
     * Animation), Matroska with an alpha-capable encoder, framemd5/framehash (the RGBA
     * bytes); GRAY16 and RGB48 to PNG only (16 bits a sample). Other pairs fail
     * validation with a message naming what works. */
    enum rp_pixfmt pixfmt;
    /* Silence the encoders' own loggers (libx265 and SVT-AV1 print to stderr themselves;
     * FFmpeg's log is always quiet): rockpool -q. Without it they print warnings only. */
    int quiet;
    /* crf was asked for (--crf): an encoder without a constant rate factor is then refused,
     * where the default crf becomes a quantiser of about the same quality. */
    int crf_given;
} rp_output_spec;

typedef struct rp_output rp_output;

/** Fill opts with defaults (no path, 640x480 at 30 fps, RGB24). */
void rp_output_spec_init(rp_output_spec *opts);

/** rp_output_spec_init, then the caller's choices from user (may be NULL). */
void rp_output_spec_from(rp_output_spec *opts, const rp_output_opts *user);

/** Check a path/format pair without touching the file system beyond stat(): pattern
 * well-formed for PNG, existing file without overwrite, missing directory. On failure
 * returns RP_ERR_INVALID / RP_ERR_EXISTS / RP_ERR_IO with a message in err, bad input
 * unless it is RP_ERR_NOMEM. */
int rp_output_validate(const rp_output_spec *opts, rp_error *err);

/** An encoder's and a pixel format's names (either NULL: not given), as a run that writes
 * no video still checks them: RP_OK, or RP_ERR_INVALID naming the one that names nothing. */
int rp_output_check_names(const char *codec, const char *pix_fmt, rp_error *err);

/** Whether the output of opts (its size aside) needs an even width and height: a video
 * whose encoder's pixel format halves the chroma. 1 with what needs them in what ("H.264
 * with yuv420p"), else 0 (other formats, and choices validation refuses anyway). */
int rp_output_even_sides(const rp_output_spec *opts, char *what, size_t len);

/** The settings opts resolve to (rockpool.h's rp_output_settings): for a video, the
 * encoder and what it is told (rp_video_settings); for Y4M, its layout; for framehash, the
 * algorithm's canonical name. RP_OK, or the refusal of a bad choice, as the render refuses it
 * though the file is not looked at (bad input; no default encoder installed:
 * RP_ERR_UNSUPPORTED). */
int rp_output_settings_of(const rp_output_spec *opts, rp_output_settings *st, rp_error *err);

/** Open the backend (create temp files, set up the encoder). On failure returns an
 * rp_err, writes a one-line reason into err, and leaves nothing on disk; bad input when
 * the code is RP_ERR_INVALID or RP_ERR_EXISTS (refused settings, a file in the way). */
int rp_output_open(rp_output **out, const rp_output_spec *opts, rp_error *err);

/** Write one frame (width*height pixels of opts->pixfmt, rows packed) whose timeline index
 * is frame_index. Frames arrive in increasing order. A failure here and in
 * rp_output_close is a runtime one (bad_input 0). */
int rp_output_write(rp_output *out, int64_t frame_index, const uint8_t *rgb, rp_error *err);

/** Finish (flush encoder, write trailer) and move every file to its final name; frees and
 * nulls *out, whatever the result. On failure nothing that looks complete is left. */
int rp_output_close(rp_output **out, rp_error *err);

/** Drop everything written (remove temp files); frees and nulls *out. */
void rp_output_abort(rp_output **out);

/** The format a spec resolves to (its format, else its path's). */
enum rp_format rp_output_spec_format(const rp_output_spec *opts);

/** Bytes the output's backend holds per frame pixel with threads encoder threads (the
 * backend table's figures), for memory estimates. */
double rp_output_cell_bytes(const rp_output_spec *opts, int threads);

/** Whether writing path writes where stdout goes: "-", or a name of the file stdout is
 * open on (/dev/stdout, /proc/self/fd/1, the file stdout is redirected to), /dev/null aside. */
int rp_output_leads_to_stdout(const char *path);

/** One path a run uses: what names it in messages ("-o", "--dump-heights", "the
 * background") and whether the run writes it. */
typedef struct rp_path_use {
    const char *path;
    const char *what;
    int is_output; /* 2: an output pattern (PNG sequence), compared by name only */
} rp_path_use;

/** Refuse two outputs that name the same file (also through links or other spellings) and
 * an output that would overwrite an input of the run. Devices and FIFOs are exempt; an
 * output "-" is checked by the file stdout is open on (rp_fd_check). RP_ERR_INVALID with a
 * message naming both uses. */
int rp_paths_check(const rp_path_use *uses, int n, rp_error *err);

/** Refuse writing to descriptor fd (what names the writer in the message: "standard output
 * (-o -)") when it is open on a regular file that is one of the inputs among
 * uses (the same st_dev and st_ino; an input "-" is stdin's file): data appended to the
 * scene or written over the background (>>, 1<>) would damage it. RP_ERR_INVALID, bad
 * input, naming the input; RP_OK for any other descriptor (a pipe, a terminal, a closed one). */
int rp_fd_check(int fd, const char *what, const rp_path_use *uses, int n, rp_error *err);

/** Number of frames written so far. */
int64_t rp_output_frames(const rp_output *out);

/** A side file (--dump-heights, --save-state) written like the outputs: under a temporary
 * name beside its path, moved into place only by rp_output_file_commit(), so a failed run
 * leaves nothing that looks complete. A device or FIFO is written in place. */
typedef struct rp_output_file rp_output_file;

/** Whether path can be written: its directory exists, it is not a directory, and without
 * overwrite it is not an existing file (RP_ERR_EXISTS). "-" is refused. */
int rp_output_file_check(const char *path, int overwrite, rp_error *err);

/** Check, then create the temporary file. */
int rp_output_file_open(rp_output_file **f, const char *path, int overwrite, rp_error *err);

int rp_output_file_write(rp_output_file *f, const void *data, size_t len, rp_error *err);

/** Close the temporary file, reporting deferred write errors (it is then removed). A NULL
 * f is a no-op. */
int rp_output_file_finish(rp_output_file *f, rp_error *err);

/** Finish if needed and move the file into place; frees and nulls *f whatever happens. */
int rp_output_file_commit(rp_output_file **f, rp_error *err);

/** Remove the temporary file; frees and nulls *f. NULL and a NULL *f are no-ops. */
void rp_output_file_abort(rp_output_file **f);

/** 1 if path is an existing file that is neither regular nor a directory (a device, a
 * FIFO) or any existing name in /dev or /proc, itself or through a link (/dev/stdin): such
 * names are written through in place, and nothing is ever written beside them. */
int rp_path_is_special(const char *path);

/** 1 if path, or the nearest directory above it that exists, is on one of the kernel's own
 * file systems (proc, sysfs, cgroup, debugfs, ...: Linux's statfs magic numbers), where no
 * output file can be made; place then says so ("on the kernel's proc file system (/proc),
 * which takes no output files"). 0 otherwise, and on systems other than Linux. */
int rp_path_kernel_fs(const char *path, char *place, size_t len);

#endif
