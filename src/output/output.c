/* output.c - the output front end (rockpool(1) OUTPUT FILES): a const table of backends chosen
 * by -f NAME or by the path (like dav1d's tools/output/output.c), its dispatch, and
 * validation before anything is rendered. The file handling the backends share (temporary
 * names, the atomic rename, path checks) is files.c. */
#include "base/diag.h"
#include "output/output.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libavutil/md5.h>
#include <libswscale/swscale.h>

#include "base/common.h"
#include "output/output_backend.h"

static const rp_output_backend *const backends[] = {
    &rp_output_mp4, &rp_output_mkv,      &rp_output_mov,       &rp_output_webm, &rp_output_png,
    &rp_output_y4m, &rp_output_framemd5, &rp_output_framehash, &rp_output_gif,  &rp_output_webp,
    NULL,
};

struct rp_output {
    const rp_output_backend *backend;
    rp_output_spec opts; /* string members point at the copies below */
    char *path, *codec, *encoder_preset, *pix_fmt;
    int64_t frames;
    int64_t last_index;
    int failed; /* the rp_err of a failed write: further writes are refused */
    void *priv;
};

void rp_output_spec_init(rp_output_spec *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->format = RP_FORMAT_NONE;
    opts->width = 640;
    opts->height = 480;
    opts->fps = 30;
    opts->crf = 23;
    opts->png_level = -1;
    opts->threads = 1;
}

void rp_output_opts_init(rp_output_opts *opts)
{
    rp_output_spec spec;
    if (!opts)
        return;
    rp_output_spec_init(&spec);
    memset(opts, 0, sizeof *opts);
    opts->format = spec.format;
    opts->crf = spec.crf;
    opts->png_level = spec.png_level;
}

void rp_output_spec_from(rp_output_spec *opts, const rp_output_opts *user)
{
    rp_output_spec_init(opts);
    if (!user)
        return;
    opts->path = user->path;
    opts->format = user->format;
    opts->overwrite = user->overwrite;
    opts->codec = user->codec;
    opts->crf = user->crf;
    opts->crf_given = user->crf_given;
    opts->encoder_preset = user->encoder_preset;
    opts->bitrate = user->bitrate;
    opts->pix_fmt = user->pix_fmt;
    opts->png_level = user->png_level;
    opts->hash_algo = user->hash_algo;
    opts->quiet = user->quiet;
}

void rp_output_quiet_ffmpeg(void)
{
    av_log_set_level(AV_LOG_QUIET);
}

void rp_output_scale_px(struct SwsContext *sws, const uint8_t *px, int width, int height, int bpp,
                        uint8_t *spare_row, uint8_t *const dst[4], const int dst_stride[4])
{
    const int src_stride[4] = {bpp * width, 0, 0, 0};
    const uint8_t *src[4] = {px, NULL, NULL, NULL};
    size_t row = (size_t)width * (size_t)bpp;

    if (height > 1)
        sws_scale(sws, src, src_stride, 0, height - 1, dst, dst_stride);
    memcpy(spare_row, px + (size_t)(height - 1) * row, row);
    src[0] = spare_row;
    sws_scale(sws, src, src_stride, height - 1, 1, dst, dst_stride);
}

void rp_output_scale_rgb(struct SwsContext *sws, const uint8_t *rgb, int width, int height,
                         uint8_t *spare_row, uint8_t *const dst[4], const int dst_stride[4])
{
    rp_output_scale_px(sws, rgb, width, height, 3, spare_row, dst, dst_stride);
}

int rp_pixfmt_bytes(enum rp_pixfmt f)
{
    switch (f) {
    case RP_PIX_RGBA: return 4;
    case RP_PIX_GRAY16: return 2;
    case RP_PIX_RGB48: return 6;
    default: return 3;
    }
}

/* Which backends take which frame layouts (the video backends check their encoder's
 * alpha in their own validate). */
static int check_pixfmt(const rp_output_spec *opts, const rp_output_backend *b,
                        enum rp_format format, rp_error *err)
{
    switch (opts->pixfmt) {
    case RP_PIX_RGB24: return RP_OK;
    case RP_PIX_RGBA:
        if (!b->alpha) {
            char name[16];
            snprintf(name, sizeof name, "%s", rp_output_format_name(format));
            for (char *c = name; *c; c++)
                *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
            return rp_error_set(
                err, RP_ERR_INVALID, 1,
                "%s cannot carry alpha (%s): use a PNG pattern like f_%%05d.png (RGBA), "
                ".webm (VP9 yuva420p), .webp, or .mov (ProRes 4444, or %s qtrle)",
                name, rp_name("--alpha", "rp_run.alpha"), rp_name("-c", "rp_run.out.codec"));
        }
        return RP_OK;
    case RP_PIX_GRAY16:
    case RP_PIX_RGB48:
        if (format != RP_FORMAT_PNG) {
            return rp_error_set(err, RP_ERR_INVALID, 1, "16-bit frames go to PNG only, not %s",
                                rp_output_format_name(format));
        }
        return RP_OK;
    }
    return rp_error_set(err, RP_ERR_INVALID, 1, "unknown pixel layout %d", (int)opts->pixfmt);
}

int rp_output_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

static const rp_output_backend *backend_for(enum rp_format f)
{
    for (int i = 0; backends[i]; i++)
        if (backends[i]->format == f)
            return backends[i];
    return NULL;
}

/* Whether ext (no dot) is in a comma-separated list, ignoring case. */
static int ext_in_list(const char *ext, const char *list)
{
    size_t n = strlen(ext);

    while (list && *list) {
        const char *end = strchr(list, ',');
        size_t len = end ? (size_t)(end - list) : strlen(list);

        if (len == n && strncasecmp(ext, list, n) == 0)
            return 1;
        list = end ? end + 1 : NULL;
    }
    return 0;
}

enum rp_format rp_output_format_from_path(const char *path)
{
    const char *base, *dot;

    if (!path || !*path)
        return RP_FORMAT_NONE;
    if (rp_output_is_stdout(path))
        return RP_FORMAT_Y4M;
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1])
        return RP_FORMAT_NONE;
    for (int i = 0; backends[i]; i++)
        if (ext_in_list(dot + 1, backends[i]->extensions))
            return backends[i]->format;
    return RP_FORMAT_NONE;
}

enum rp_format rp_output_format_from_name(const char *name)
{
    if (!name)
        return RP_FORMAT_NONE;
    for (int i = 0; backends[i]; i++)
        if (strcmp(name, backends[i]->name) == 0)
            return backends[i]->format;
    return RP_FORMAT_NONE;
}

const char *rp_output_format_name(enum rp_format f)
{
    const rp_output_backend *b = backend_for(f);

    return b ? b->name : "none";
}

void rp_md5_hex(const uint8_t *data, size_t len, char hex[33])
{
    static const char digits[] = "0123456789abcdef";
    uint8_t md5[16];

    if (!hex)
        return;
    if (!data && len) { /* no bytes to hash: no digest */
        hex[0] = '\0';
        return;
    }
    av_md5_sum(md5, data, len);
    for (int i = 0; i < 16; i++) {
        hex[2 * i] = digits[md5[i] >> 4];
        hex[2 * i + 1] = digits[md5[i] & 15];
    }
    hex[32] = '\0';
}

static enum rp_format resolve_format(const rp_output_spec *opts)
{
    return opts->format != RP_FORMAT_NONE ? opts->format : rp_output_format_from_path(opts->path);
}

enum rp_format rp_output_spec_format(const rp_output_spec *opts)
{
    return resolve_format(opts);
}

enum rp_format rp_output_format_of(const rp_output_opts *opts)
{
    if (!opts)
        return RP_FORMAT_NONE;
    return opts->format != RP_FORMAT_NONE ? opts->format : rp_output_format_from_path(opts->path);
}

int rp_output_uses_stdout(const rp_output_opts *opts)
{
    return opts && opts->path && rp_output_leads_to_stdout(opts->path);
}

double rp_output_cell_bytes(const rp_output_spec *opts, int threads)
{
    rp_output_spec resolved = *opts;
    const rp_output_backend *b = backend_for(resolved.format = resolve_format(opts));
    if (!b)
        return 6;
    return (b->cell_bytes ? b->cell_bytes : 6) +
           (double)b->thread_cell_bytes * (threads > 16 ? 16 : threads) +
           (b->run_cell_bytes ? b->run_cell_bytes(&resolved, threads) : 0);
}

/* A failure's fault as the program tells it (bad input: exit status 2), set where a public
 * call returns: what the backends below say is decided here, by the call and the code. */
static int fault(rp_error *err, int code, int bad_input)
{
    if (code)
        err->bad_input = bad_input;
    return code;
}

/* The formats output_video.c writes (an encoder, a container). */
static int is_video(enum rp_format f)
{
    return f == RP_FORMAT_MP4 || f == RP_FORMAT_MKV || f == RP_FORMAT_MOV || f == RP_FORMAT_WEBM ||
           f == RP_FORMAT_GIF || f == RP_FORMAT_WEBP;
}

int rp_output_settings_of(const rp_output_spec *opts, rp_output_settings *st, rp_error *err)
{
    rp_output_spec resolved = *opts;
    const rp_output_backend *b;
    const char *canonical;
    int ret;

    memset(st, 0, sizeof *st);
    st->crf = -1;
    resolved.format = st->format = resolve_format(opts);
    b = backend_for(resolved.format);
    if (is_video(resolved.format)) {
        ret = rp_video_settings(&resolved, st, err);
        if (ret)
            err->bad_input = ret != RP_ERR_UNSUPPORTED;
        return ret;
    }
    switch (resolved.format) {
    case RP_FORMAT_Y4M:
        /* 4:4:4 asked for, or for an odd size without a layout asked for (y4m_open) */
        if ((ret = b->validate(&resolved, err)))
            return fault(err, ret, 1);
        snprintf(st->pix_fmt, sizeof st->pix_fmt, "%s",
                 opts->pix_fmt                             ? opts->pix_fmt
                 : (opts->width % 2) || (opts->height % 2) ? "yuv444p"
                                                           : "yuv420p");
        return RP_OK;
    case RP_FORMAT_FRAMEHASH:
        if ((ret = b->validate(&resolved, err)))
            return fault(err, ret, 1);
        rp_hash_lookup(opts->hash_algo && *opts->hash_algo ? opts->hash_algo : RP_HASH_DEFAULT,
                       &canonical, NULL);
        snprintf(st->hash_algo, sizeof st->hash_algo, "%s", canonical);
        return RP_OK;
    default: return RP_OK;
    }
}

static int validate(const rp_output_spec *opts, rp_error *err)
{
    enum rp_format format = resolve_format(opts);
    const rp_output_backend *b = backend_for(format);
    rp_output_spec resolved = *opts;
    int ret;

    if (!opts->path || !*opts->path) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "no output path");
    }
    /* a caller's value outside the enum (RP_FORMAT_WEBP is its last) */
    if (opts->format < RP_FORMAT_NONE || opts->format > RP_FORMAT_WEBP)
        return rp_error_set(err, RP_ERR_INVALID, 1, "output format %d is none of enum rp_format",
                            (int)opts->format);
    if (!b) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "cannot tell the output format of '%s': use -f NAME, or a path ending "
                            "in .mp4, .m4v, .mkv, .mov, .webm, .gif, .webp, .y4m, .framemd5, "
                            ".framehash or .png (a still, or a pattern like f_%%05d.png)",
                            opts->path);
    }
    if (opts->width < 1 || opts->height < 1 || opts->width > RP_MAX_SIDE ||
        opts->height > RP_MAX_SIDE) {
        int code = opts->width > RP_MAX_SIDE || opts->height > RP_MAX_SIDE ? RP_ERR_TOO_LARGE
                                                                           : RP_ERR_INVALID;
        return rp_error_set(err, code, code == RP_ERR_INVALID,
                            "frame size %dx%d is out of range (1..%d per side)", opts->width,
                            opts->height, RP_MAX_SIDE);
    }
    if (opts->fps < 1 || opts->first_frame < 0) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "invalid frame rate %d or first frame %" PRId64,
                            opts->fps, opts->first_frame);
    }
    /* as the command line reads them (--crf 0..63; -1: the encoder's default) */
    if (opts->crf < -1 || opts->crf > 63)
        return rp_error_set(err, RP_ERR_INVALID, 1, "crf %d is out of range (0..63, -1)",
                            opts->crf);
    if (opts->bitrate < 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "bit rate %" PRId64 " is negative (0: unset, the crf decides)",
                            opts->bitrate);
    if (opts->png_level < -1 || opts->png_level > 9) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "PNG level %d is out of range (0..9)",
                            opts->png_level);
    }
    /* Matroska and WebM stream without seeking back (no index, no duration): a pipe takes
     * them; MP4 and MOV write their index last and move it to the front, GIF and WebP
     * too go back, PNG is files. */
    if (rp_output_is_stdout(opts->path) && format != RP_FORMAT_Y4M &&
        format != RP_FORMAT_FRAMEMD5 && format != RP_FORMAT_FRAMEHASH && format != RP_FORMAT_MKV &&
        format != RP_FORMAT_WEBM) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s output cannot go to stdout ('-'): use -f y4m, mkv, webm or "
                            "framemd5, or a file name",
                            b->name);
    }
    resolved.format = format;
    /* The encoder's options tune a video encoder: a PNG sequence, Y4M (but for its
     * --pix-fmt) and frame hashes have none and do not use them (a farm's options are the
     * same for every kind of output), but a name that names nothing is refused. */
    if (format == RP_FORMAT_PNG || format == RP_FORMAT_Y4M || format == RP_FORMAT_FRAMEMD5 ||
        format == RP_FORMAT_FRAMEHASH) {
        if ((ret = rp_output_check_names(opts->codec,
                                         format == RP_FORMAT_Y4M ? NULL : opts->pix_fmt, err)))
            return ret;
    }
    if ((ret = check_pixfmt(opts, b, format, err)))
        return ret;
    if (b->validate) {
        ret = b->validate(&resolved, err);
        if (ret)
            return ret;
    }
    return rp_output_check_files(opts, format, err);
}

int rp_output_check_names(const char *codec, const char *pix_fmt, rp_error *err)
{
    const AVCodec *c = codec ? avcodec_find_encoder_by_name(codec) : NULL;
    if (codec && (!c || c->type != AVMEDIA_TYPE_VIDEO))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "unknown video encoder '%s' (see ffmpeg -encoders)", codec);
    if (pix_fmt && av_get_pix_fmt(pix_fmt) == AV_PIX_FMT_NONE)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "unknown pixel format '%s' (see ffmpeg -pix_fmts)", pix_fmt);
    return RP_OK;
}

int rp_output_validate(const rp_output_spec *opts, rp_error *err)
{
    int r = validate(opts, err);
    return fault(err, r, r != RP_ERR_NOMEM);
}

int rp_output_even_sides(const rp_output_spec *opts, char *what, size_t len)
{
    rp_output_spec resolved = *opts;

    resolved.format = resolve_format(opts);
    return is_video(resolved.format) && opts->path && rp_video_even_sides(&resolved, what, len);
}

/* Duplicate an optional string; *ok is cleared when allocation fails. */
static char *dup_opt(const char *s, int *ok)
{
    char *d;

    if (!s)
        return NULL;
    d = strdup(s);
    if (!d)
        *ok = 0;
    return d;
}

static void output_free(rp_output *out)
{
    free(out->priv);
    free(out->path);
    free(out->codec);
    free(out->encoder_preset);
    free(out->pix_fmt);
    free(out);
}

static int output_open(rp_output **pout, const rp_output_spec *opts, rp_error *err)
{
    rp_output *out = NULL;
    int ok = 1, ret;

    *pout = NULL;
    ret = validate(opts, err);
    if (ret)
        return ret;
    out = calloc(1, sizeof(*out));
    if (!out)
        goto fail;
    out->backend = backend_for(resolve_format(opts));
    out->opts = *opts;
    out->opts.format = out->backend->format;
    out->opts.path = out->path = dup_opt(opts->path, &ok);
    out->opts.codec = out->codec = dup_opt(opts->codec, &ok);
    out->opts.encoder_preset = out->encoder_preset = dup_opt(opts->encoder_preset, &ok);
    out->opts.pix_fmt = out->pix_fmt = dup_opt(opts->pix_fmt, &ok);
    out->priv = calloc(1, out->backend->priv_size ? out->backend->priv_size : 1);
    out->last_index = -1;
    if (!ok || !out->priv)
        goto fail;
    ret = out->backend->open(out->priv, &out->opts, err);
    if (ret) {
        output_free(out);
        return ret;
    }
    *pout = out;
    return RP_OK;

fail:
    if (out)
        output_free(out);
    return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory opening '%s'", opts->path);
}

int rp_output_open(rp_output **pout, const rp_output_spec *opts, rp_error *err)
{
    int r = output_open(pout, opts, err);
    return fault(err, r, r == RP_ERR_INVALID || r == RP_ERR_EXISTS);
}

int rp_output_write(rp_output *out, int64_t frame_index, const uint8_t *rgb, rp_error *err)
{
    int ret;

    if (out->failed) {
        return rp_error_set(err, out->failed, 0, "output '%s' already failed", out->opts.path);
    }
    if (frame_index <= out->last_index || frame_index < 0) {
        return rp_error_set(err, RP_ERR_INVALID, 0,
                            "frame %" PRId64 " arrived after frame %" PRId64, frame_index,
                            out->last_index);
    }
    ret = out->backend->write(out->priv, frame_index, rgb, err);
    if (ret) {
        out->failed = ret;
        return fault(err, ret, 0);
    }
    out->last_index = frame_index;
    out->frames++;
    return RP_OK;
}

int rp_output_close(rp_output **pout, rp_error *err)
{
    rp_output *out = *pout;
    int ret;

    if (!out)
        return RP_OK;
    *pout = NULL;
    if (out->failed) {
        ret = out->failed;
        rp_error_set(err, ret, 0, "output '%s' failed earlier; nothing more was written",
                     out->opts.path);
        out->backend->abort(out->priv);
        output_free(out);
        return ret;
    }
    ret = out->backend->close(out->priv, err);
    output_free(out);
    return fault(err, ret, 0);
}

void rp_output_abort(rp_output **pout)
{
    rp_output *out = *pout;

    if (!out)
        return;
    *pout = NULL;
    out->backend->abort(out->priv);
    output_free(out);
}

int64_t rp_output_frames(const rp_output *out)
{
    return out ? out->frames : 0;
}
