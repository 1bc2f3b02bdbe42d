/* output_hash.c - framemd5 and framehash backends: one line per frame in FFmpeg 5.1's
 * layout for rawvideo rgb24, or rgba with --alpha (libavformat/hashenc.c and framehash.c:
 * the header is the same, each line's size is the frame's bytes), written as FFmpeg
 * writes it with -fflags +bitexact: no "#software" line carrying the library version, so
 * a golden file survives an FFmpeg upgrade. The file equals, byte for byte,
 *   ffmpeg -framerate FPS -i frames/f_%05d.png -pix_fmt rgb24 -fflags +bitexact \
 *          -f framemd5 -                                   (or -f framehash -hash ALGO)
 * (-pix_fmt rgba for an --alpha sequence)
 * (-fflags must come after -i: before it the flag applies to the input). dts and pts are
 * the frame's timeline index, duration 1 in a 1/fps time base. framehash takes the
 * algorithm of opts->hash_algo (hash.h names; md5 by default), framemd5 is always MD5.
 * Frames are hashed by rp_hasher: with opts->threads > 1 on worker threads, and MD5
 * eight frames at a time where the CPU has AVX2 (hash.h); the lines are always written in
 * frame order. To a file through a temporary name, or to stdout for
 * "-". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"
#include "check/hash.h"
#include "output/output_backend.h"

typedef struct hash_out {
    const rp_output_spec *opts;
    rp_output_stream out;
    rp_hasher *hasher;
    size_t frame_size;
    rp_error err; /* why the line writer failed, for the write() or close() that sees it */
} hash_out;

static const char *algo_of(const rp_output_spec *opts)
{
    if (opts->format == RP_FORMAT_FRAMEMD5 || !opts->hash_algo || !*opts->hash_algo)
        return RP_HASH_DEFAULT;
    return opts->hash_algo;
}

/* The hasher's frame copies, per frame pixel, for the session's memory estimate. */
static double hash_cell_bytes(const rp_output_spec *opts, int threads)
{
    size_t bpp = (size_t)rp_pixfmt_bytes(opts->pixfmt);
    size_t frame = (size_t)opts->width * (size_t)opts->height * bpp;

    return (double)rp_hasher_copies(algo_of(opts), frame, threads) * (double)bpp;
}

static int hash_validate(const rp_output_spec *opts, rp_error *err)
{
    const char *canonical;
    char names[512];

    if (opts->format == RP_FORMAT_FRAMEMD5) {
        if (opts->hash_algo && *opts->hash_algo &&
            (rp_hash_lookup(opts->hash_algo, &canonical, NULL) || strcmp(canonical, "MD5"))) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "framemd5 is always MD5; use -f framehash for hash algorithm '%s'",
                                opts->hash_algo);
        }
        return RP_OK;
    }
    if (rp_hash_lookup(algo_of(opts), NULL, NULL)) {
        rp_hash_list(names, sizeof(names));
        return rp_error_set(err, RP_ERR_INVALID, 1, "unknown hash algorithm '%s' (expected %s)",
                            opts->hash_algo, names);
    }
    return RP_OK;
}

/* The hasher's callback: one frame line, in frame order. */
static int put_line(void *priv, int64_t frame_index, const uint8_t *frame, const char *hex)
{
    hash_out *ho = priv;
    char line[128 + RP_HASH_HEX_MAX];

    (void)frame;
    snprintf(line, sizeof(line), "0, %10" PRId64 ", %10" PRId64 ", %8d, %8zu, %s\n", frame_index,
             frame_index, 1, ho->frame_size, hex);
    return rp_output_stream_put(&ho->out, line, strlen(line), &ho->err);
}

/* The header of libavformat's framehash muxer (format version 2) for one rawvideo
 * stream, without the #software line, as AVFMT_FLAG_BITEXACT leaves it. */
static int hash_open(void *priv, const rp_output_spec *opts, rp_error *err)
{
    hash_out *ho = priv;
    char header[512];
    int ret;

    ho->opts = opts;
    ho->frame_size =
        (size_t)opts->width * (size_t)opts->height * (size_t)rp_pixfmt_bytes(opts->pixfmt);
    ret = hash_validate(opts, err);
    if (ret)
        return ret;
    ret = rp_hasher_new(&ho->hasher, algo_of(opts), ho->frame_size, opts->threads, put_line, ho);
    if (ret == RP_ERR_NOMEM) {
        return rp_error_set(err, ret, 0, "out of memory setting up hash '%s': %s", algo_of(opts),
                            rp_oom_hint());
    }
    if (ret) {
        return rp_error_set(err, ret, 0, "cannot set up hash '%s': %s", algo_of(opts),
                            rp_strerror(ret));
    }
    ret = rp_output_stream_open(&ho->out, opts, err);
    if (ret) {
        rp_hasher_free(&ho->hasher);
        return ret;
    }
    /* --job-id=LINE (checked: 94 characters, hex digits and names): the job, first */
    const char *job = NULL;
    for (const char *const *kv = opts->metadata; kv && kv[0] && kv[1]; kv += 2)
        if (!strcmp(kv[0], "rockpool_job"))
            job = kv[1];
    int at = job ? snprintf(header, sizeof(header), "#rockpool_job: %.100s\n", job) : 0;
    snprintf(header + at, sizeof(header) - (size_t)at,
             "#format: frame checksums\n"
             "#version: 2\n"
             "#hash: %s\n"
             "#tb 0: %d/%d\n"
             "#media_type 0: video\n"
             "#codec_id 0: rawvideo\n"
             "#dimensions 0: %dx%d\n"
             "#sar 0: 1/1\n"
             "#stream#, dts,        pts, duration,     size, hash\n",
             rp_hasher_name(ho->hasher), opts->fps_den > 0 ? opts->fps_den : 1, opts->fps,
             opts->width, opts->height);
    ret = rp_output_stream_put(&ho->out, header, strlen(header), err);
    if (ret) {
        rp_output_stream_abort(&ho->out);
        rp_hasher_free(&ho->hasher);
    }
    return ret;
}

static int hash_write(void *priv, int64_t frame_index, const uint8_t *rgb, rp_error *err)
{
    hash_out *ho = priv;
    int ret = rp_hasher_submit(ho->hasher, frame_index, rgb);

    if (ret) /* the message cut at 511 bytes */
        rp_error_set(err, ret, 0, "%.511s", ho->err.msg);
    return ret;
}

static int hash_close(void *priv, rp_error *err)
{
    hash_out *ho = priv;
    int ret = rp_hasher_flush(ho->hasher);

    rp_hasher_free(&ho->hasher);
    if (ret) {
        rp_error_set(err, ret, 0, "%.511s", ho->err.msg);
        rp_output_stream_abort(&ho->out);
        return ret;
    }
    return rp_output_stream_close(&ho->out, err);
}

static void hash_abort(void *priv)
{
    hash_out *ho = priv;

    rp_hasher_free(&ho->hasher);
    rp_output_stream_abort(&ho->out);
}

/* The two backends differ only in name and format (framemd5's algorithm is fixed). */
#define HASH_BACKEND(NAME, FORMAT)                                                                 \
    {                                                                                              \
        .name = NAME, .extensions = NAME, .format = FORMAT, .priv_size = sizeof(hash_out),         \
        .alpha = 1, .run_cell_bytes = hash_cell_bytes, .validate = hash_validate,                  \
        .open = hash_open, .write = hash_write, .close = hash_close, .abort = hash_abort,          \
    }

const rp_output_backend rp_output_framemd5 = HASH_BACKEND("framemd5", RP_FORMAT_FRAMEMD5);
const rp_output_backend rp_output_framehash = HASH_BACKEND("framehash", RP_FORMAT_FRAMEHASH);
