/* output_backend.h - the contract between output.c and its backends (output_png.c,
 * output_video.c, output_y4m.c, output_hash.c), in the style of dav1d's
 * tools/output/muxer.h, and the file handling they share (files.c). Only src/output/
 * includes this file; everything else uses output.h.
 *
 * Every backend writes under a temporary name beside the final path and moves it into
 * place in close(); abort() removes what it wrote. The helpers below implement that
 * once for all backends. */
#ifndef RP_OUTPUT_BACKEND_H
#define RP_OUTPUT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "output/output.h"

typedef struct rp_output_backend {
    const char *name;       /* -f NAME */
    const char *extensions; /* comma-separated, lowercase, NULL for none */
    enum rp_format format;
    size_t priv_size; /* bytes of zeroed private state handed to every callback */
    int alpha;        /* takes RGBA frames (--alpha); a video backend's encoder may still
                       * refuse them in validate */
    /* Memory the backend holds per frame pixel (encoder frames, lookahead), for the
     * session's estimate: cell_bytes (0 = 6) plus thread_cell_bytes per encoder thread
     * (up to 16 threads). */
    int cell_bytes, thread_cell_bytes;
    /* More per frame pixel that depends on the run (the frame copies of the hash backends'
     * hasher, hash.h); may be NULL. opts has its size, pixel format and threads. */
    double (*run_cell_bytes)(const rp_output_spec *opts, int threads);
    /* Checks that need no file system access (codec, pixel format, size); may be NULL.
     * opts->format is resolved. Every function here fills err's code and message; its
     * bad_input is decided by the public call it is reached through (output.h). */
    int (*validate)(const rp_output_spec *opts, rp_error *err);
    /* Set up; on failure release everything and leave nothing on disk. opts is a copy
     * that stays valid until close/abort; opts->format is resolved. */
    int (*open)(void *priv, const rp_output_spec *opts, rp_error *err);
    int (*write)(void *priv, int64_t frame_index, const uint8_t *rgb, rp_error *err);
    /* Finish and move files to their final names; release everything, whatever the
     * result. */
    int (*close)(void *priv, rp_error *err);
    /* Remove temporary files and release everything. */
    void (*abort)(void *priv);
} rp_output_backend;

extern const rp_output_backend rp_output_png;
extern const rp_output_backend rp_output_mp4;
extern const rp_output_backend rp_output_mkv;
extern const rp_output_backend rp_output_mov;
extern const rp_output_backend rp_output_webm;
extern const rp_output_backend rp_output_gif;
extern const rp_output_backend rp_output_webp;
extern const rp_output_backend rp_output_y4m;
extern const rp_output_backend rp_output_framemd5;
extern const rp_output_backend rp_output_framehash;

/** Whether the video output of opts (its format resolved) encodes a pixel format that needs
 * even sides: 1 with what needs them in what ("H.264 with yuv420p"), else 0. */
int rp_video_even_sides(const rp_output_spec *opts, char *what, size_t len);

/** The encoder settings of the video output of opts (its format resolved), as rp_encoder_pick
 * chooses them and rp_encoder_settings reads them: RP_OK, or what the output's validation
 * refuses, the file aside (the choice, the encoder's trial open, the trial header). */
int rp_video_settings(const rp_output_spec *opts, rp_output_settings *st, rp_error *err);

/** The temporary name used for path: ".BASENAME.tmp-PID" in path's directory. Returns
 * RP_ERR_TOO_LARGE if it does not fit in len bytes. */
int rp_output_temp_name(const char *path, char *tmp, size_t len);

/** Where a file an output replaces waits until the run ends (kept aside, so that a run that
 * fails can put it back): ".BASENAME.old-PID" in path's directory. RP_ERR_TOO_LARGE if it
 * does not fit in len bytes. */
int rp_output_aside_name(const char *path, char *name, size_t len);

/** Remove a temporary file, only if it is a regular file: a device or FIFO written in
 * place (tmp == path) is never removed. */
void rp_output_unlink_tmp(const char *tmp);

/** Create tmp (a buffer of len bytes) for writing (O_EXCL; a stale file of the same name,
 * left by a killed process that had our pid, is replaced) and return its descriptor in *fd.
 * When another session of this process is writing tmp now (the same output), "-N" is added
 * to tmp's name, so that each writes its own file. RP_ERR_IO with a message naming path on
 * failure. */
int rp_output_temp_create(char *tmp, size_t len, const char *path, int *fd, rp_error *err);

/** Move tmp to path. Without overwrite an existing path is left alone and the result is
 * RP_ERR_EXISTS; tmp is removed on every failure. */
int rp_output_commit(const char *tmp, const char *path, int overwrite, rp_error *err);

/** write() all of buf to fd, retrying on EINTR and short writes. Returns 0 or an errno
 * value (EPIPE when the reader of a pipe went away). */
int rp_output_write_all(int fd, const void *buf, size_t len);

/** Close a descriptor we created, reporting a deferred write error (NFS, full disk) as
 * RP_ERR_IO naming path. fsync is not done: the rename gives atomicity, not durability. */
int rp_output_close_fd(int fd, const char *path, rp_error *err);

/** Format the PNG pattern's file name for one frame index. RP_ERR_INVALID if the pattern
 * is not a path with exactly one frame number (%d or %0Nd) in its last component,
 * RP_ERR_TOO_LARGE if the name does not fit. */
int rp_output_pattern_name(const char *pattern, int64_t index, char *name, size_t len,
                           rp_error *err);

/** A PNG sequence (or still) this process is about to write, claimed for the writer owner:
 * refused (RP_ERR_INVALID, bad input) when the pattern names a file a pattern another owner
 * holds names, as between the outputs of one run (rp_paths_check): PNG frames are moved into
 * place one by one, so two sessions writing one sequence at once would leave a mix of their
 * frames, and one failing would remove or restore frames of the other. what names the output
 * in the message. Released by rp_output_pattern_release(owner) (NULL or unclaimed: no-op). */
int rp_output_pattern_claim(const void *owner, const char *pattern, const char *what,
                            rp_error *err);
void rp_output_pattern_release(const void *owner);

/** The file-system checks of rp_output_validate (files.c): the parent directory exists,
 * and without overwrite nothing is replaced (for a PNG pattern, every frame's name; a
 * name without a conversion is refused for more than one frame). Nothing for stdout. */
int rp_output_check_files(const rp_output_spec *opts, enum rp_format format, rp_error *err);

/** Whether a path names stdout. */
int rp_output_is_stdout(const char *path);

/** A byte stream to stdout ("-") or to a file written under a temporary name and moved
 * into place by rp_output_stream_close(): the sink of the Y4M and framemd5 backends. */
typedef struct rp_output_stream {
    const rp_output_spec *opts;
    int fd;
    int to_stdout;
    int tmp_exists; /* tmp is a file of ours not yet moved into place */
    int fd_open;    /* fd is ours to close */
    char tmp[4096];
} rp_output_stream;

/** Open opts->path (stdout for "-"). On failure nothing is left on disk. */
int rp_output_stream_open(rp_output_stream *s, const rp_output_spec *opts, rp_error *err);

/** Write len bytes; RP_ERR_IO naming the path (or stdout) on failure. */
int rp_output_stream_put(rp_output_stream *s, const void *data, size_t len, rp_error *err);

/** Close the file, reporting a deferred write error; on failure the temporary file is
 * removed. Nothing for stdout. */
int rp_output_stream_finish(rp_output_stream *s, rp_error *err);

/** Move a finished file into place (nothing for stdout). */
int rp_output_stream_commit(rp_output_stream *s, rp_error *err);

/** rp_output_stream_finish, then rp_output_stream_commit. */
int rp_output_stream_close(rp_output_stream *s, rp_error *err);

/** Close and remove the temporary file, if any. Safe to call twice. */
void rp_output_stream_abort(rp_output_stream *s);

struct SwsContext;

/** sws_scale a packed RGB24 frame (rows of 3*width bytes, nothing after the last) into
 * dst. libswscale's SIMD row readers load up to a vector beyond the end of a row, which
 * is harmless inside the caller's buffer but not after its last row: that row is copied
 * into spare_row (3*width + 64 bytes) and converted as a second slice. The result is the
 * same as one call. dst must be padded and aligned as av_frame_get_buffer()/
 * av_image_alloc() make it. */
void rp_output_scale_rgb(struct SwsContext *sws, const uint8_t *rgb, int width, int height,
                         uint8_t *spare_row, uint8_t *const dst[4], const int dst_stride[4]);

/** The same for packed frames of bpp bytes a pixel (RGBA: 4). */
void rp_output_scale_px(struct SwsContext *sws, const uint8_t *px, int width, int height, int bpp,
                        uint8_t *spare_row, uint8_t *const dst[4], const int dst_stride[4]);

/** Silence FFmpeg's own logging, so only rockpool's messages reach stderr. */
void rp_output_quiet_ffmpeg(void);

#endif
