/* output_hash.c - framemd5 backend: one line per frame in FFmpeg 5.1's framemd5 layout
 * for rawvideo rgb24 (libavformat/framehash.c), so the file diffs cleanly against
 * `ffmpeg -i frames/f_%05d.png -pix_fmt rgb24 -f framemd5 -`. dts and pts are the
 * frame's timeline index (SPEC.md section 5), duration 1 in a 1/fps time base. To a file
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
    int fd;
    int to_stdout;
    char tmp[4096];
    int tmp_exists;
} hash_out;

static int put(hash_out *ho, const char *text, char *err, size_t errlen)
{
    int e = rp_output_write_all(ho->fd, text, strlen(text));

    if (e) {
        rp_errf(err, errlen, "cannot write '%s': %s",
                       ho->to_stdout ? "stdout" : ho->opts->path, strerror(e));
        return RP_ERR_IO;
    }
    return RP_OK;
}

/* Header as framehash.c writes it without -flags bitexact: the #software line carries
 * the libavformat version actually loaded, as the ffmpeg program built on it prints. */
static int hash_open(void *priv, const rp_output_opts *opts, char *err, size_t errlen)
{
    hash_out *ho = priv;
    unsigned v = avformat_version();
    char header[512];
    int ret;

    ho->opts = opts;
    ho->fd = -1;
    ho->to_stdout = rp_output_is_stdout(opts->path);
    if (ho->to_stdout) {
        ho->fd = STDOUT_FILENO;
    } else {
        if (rp_output_temp_name(opts->path, ho->tmp, sizeof(ho->tmp))) {
            rp_errf(err, errlen, "the output path '%.64s...' is too long", opts->path);
            return RP_ERR_TOO_LARGE;
        }
        ret = rp_output_temp_create(ho->tmp, opts->path, &ho->fd, err, errlen);
        if (ret)
            return ret;
        ho->tmp_exists = 1;
    }
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
    ret = put(ho, header, err, errlen);
    if (ret)
        goto fail;
    return RP_OK;

fail:
    if (ho->tmp_exists) {
        close(ho->fd);
        rp_output_unlink_tmp(ho->tmp);
        ho->tmp_exists = 0;
    }
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
    return put(ho, line, err, errlen);
}

static int hash_close(void *priv, char *err, size_t errlen)
{
    hash_out *ho = priv;
    int ret;

    if (ho->to_stdout)
        return RP_OK;
    ho->tmp_exists = 0;
    ret = rp_output_close_fd(ho->fd, ho->opts->path, err, errlen);
    if (ret) {
        rp_output_unlink_tmp(ho->tmp);
        return ret;
    }
    return rp_output_commit(ho->tmp, ho->opts->path, ho->opts->overwrite, err, errlen);
}

static void hash_abort(void *priv)
{
    hash_out *ho = priv;

    if (ho->tmp_exists) {
        close(ho->fd);
        rp_output_unlink_tmp(ho->tmp);
        ho->tmp_exists = 0;
    }
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
