/* output_hash.c - framemd5 backend: one line per frame in FFmpeg 5.1's framemd5 layout
 * for rawvideo rgb24 (libavformat/framehash.c), so the file diffs cleanly against
 * `ffmpeg -i frames/f_%05d.png -pix_fmt rgb24 -f framemd5 -`. dts and pts are the
 * frame's timeline index (rockpool(1) OUTPUT FILES), duration 1 in a 1/fps time base. To a file
 * through a temporary name, or to stdout for "-". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavformat/avformat.h>

#include "common.h"
#include "output_backend.h"

typedef struct hash_out {
    const rp_output_opts *opts;
    rp_output_stream out;
} hash_out;

/* Header as framehash.c writes it without -flags bitexact: the #software line carries
 * the libavformat version actually loaded, as the ffmpeg program built on it prints. */
static int hash_open(void *priv, const rp_output_opts *opts, char *err, size_t errlen)
{
    hash_out *ho = priv;
    unsigned v = avformat_version();
    char header[512];
    int ret;

    ho->opts = opts;
    ret = rp_output_stream_open(&ho->out, opts, err, errlen);
    if (ret)
        return ret;
    snprintf(header, sizeof(header),
             "#format: frame checksums\n"
             "#version: 2\n"
             "#hash: MD5\n"
             "#software: Lavf%u.%u.%u\n"
             "#tb 0: 1/%d\n"
             "#media_type 0: video\n"
             "#codec_id 0: rawvideo\n"
             "#dimensions 0: %dx%d\n"
             "#sar 0: 1/1\n"
             "#stream#, dts,        pts, duration,     size, hash\n",
             v >> 16, (v >> 8) & 255, v & 255, opts->fps, opts->width, opts->height);
    ret = rp_output_stream_put(&ho->out, header, strlen(header), err, errlen);
    if (ret)
        rp_output_stream_abort(&ho->out);
    return ret;
}

static int hash_write(void *priv, int64_t frame_index, const uint8_t *rgb, char *err, size_t errlen)
{
    hash_out *ho = priv;
    size_t size = (size_t)ho->opts->width * (size_t)ho->opts->height * 3;
    char hex[33], line[128];

    rp_md5_hex(rgb, size, hex);
    snprintf(line, sizeof(line), "0, %10" PRId64 ", %10" PRId64 ", %8d, %8zu, %s\n", frame_index,
             frame_index, 1, size, hex);
    return rp_output_stream_put(&ho->out, line, strlen(line), err, errlen);
}

static int hash_close(void *priv, char *err, size_t errlen)
{
    return rp_output_stream_close(&((hash_out *)priv)->out, err, errlen);
}

static void hash_abort(void *priv)
{
    rp_output_stream_abort(&((hash_out *)priv)->out);
}

const rp_output_backend rp_output_framemd5 = {
    .name = "framemd5",
    .extensions = "framemd5",
    .format = RP_FORMAT_FRAMEMD5,
    .priv_size = sizeof(hash_out),
    .open = hash_open,
    .write = hash_write,
    .close = hash_close,
    .abort = hash_abort,
};
