/* image.c - still images in (SPEC.md section 1, -i and `wall mask`): the file is opened
 * with libavformat (the image2 and image-pipe demuxers cover PNG, JPEG, BMP, WebP, TIFF,
 * ...), the first frame decoded with libavcodec, and libswscale converts it to RGBA at
 * the requested size; alpha is then composited over black with integer maths. Decoder
 * and scaler run with their bit-exact flags, so a given file gives the same pixels on
 * every machine. FFmpeg's own log is silenced: errors come back as text in err. */
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libswscale/swscale.h>

#include "common.h"

/* What the decoder's get_buffer2 callback saw. */
typedef struct image_dims {
    int probe_only; /* stop at the first buffer request: the size is known */
    int seen;       /* width/height are set */
    int width, height;
} image_dims;

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Called by the decoder once the image header is parsed, before any pixel memory exists:
 * records the size, and refuses the buffer when probing or when a side is over
 * RP_MAX_SIDE, so oversized images are never decoded. */
static int get_buffer(AVCodecContext *dec, AVFrame *frame, int flags)
{
    image_dims *d = dec->opaque;

    d->seen = 1;
    d->width = dec->width;
    d->height = dec->height;
    if (d->probe_only)
        return AVERROR_EXIT;
    if (d->width > RP_MAX_SIDE || d->height > RP_MAX_SIDE)
        return AVERROR(ERANGE);
    return avcodec_default_get_buffer2(dec, frame, flags);
}

/* Refuse anything that is not a readable regular file before FFmpeg sees it: a FIFO would
 * block, a directory or device makes no sense. */
static int check_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd;

    if (stat(path, &st) != 0) {
        errf(err, errlen, "cannot open image '%s': %s", path, strerror(errno));
        return RP_ERR_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        errf(err, errlen, "cannot open image '%s': it is a directory", path);
        return RP_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        errf(err, errlen, "cannot open image '%s': not a regular file", path);
        return RP_ERR_IO;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        errf(err, errlen, "cannot open image '%s': %s", path, strerror(errno));
        return RP_ERR_IO;
    }
    close(fd);
    return RP_OK;
}

/* Still-image demuxers: image2 (by extension) and the content-probed image pipes
 * (png_pipe, jpeg_pipe, webp_pipe, ...), plus GIF's first frame. */
static int is_image_demuxer(const char *name)
{
    size_t n = strlen(name);

    return strcmp(name, "image2") == 0 || strcmp(name, "gif") == 0 ||
           (n > 5 && strcmp(name + n - 5, "_pipe") == 0);
}

/* Open path, decode its first frame into *frame (unless dims->probe_only, which stops as
 * soon as the size is known). Returns RP_ERR_IO, RP_ERR_FORMAT, RP_ERR_TOO_LARGE or
 * RP_ERR_NOMEM with a reason in err. */
static int decode_first(const char *path, image_dims *dims, AVFrame **pframe, char *err,
                        size_t errlen)
{
    AVFormatContext *fc = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *pkt = NULL;
    AVFrame *frame = NULL;
    const AVCodec *codec = NULL;
    AVDictionary *fopts = NULL;
    char url[4200], msg[AV_ERROR_MAX_STRING_SIZE];
    int ret, index, flushing = 0;

    av_log_set_level(AV_LOG_QUIET);
    ret = check_file(path, err, errlen);
    if (ret)
        return ret;
    /* "file:" and the whitelist: a ':' in the name is never a protocol, and no other file
     * is opened; pattern_type none: a '%' in the name is not a sequence pattern. */
    snprintf(url, sizeof(url), "file:%s", path);
    av_dict_set(&fopts, "protocol_whitelist", "file", 0);
    av_dict_set(&fopts, "pattern_type", "none", 0);
    ret = avformat_open_input(&fc, url, NULL, &fopts);
    av_dict_free(&fopts);
    if (ret < 0) {
        errf(err, errlen, "'%s' is not an image FFmpeg can read", path);
        ret = ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT;
        goto fail;
    }
    if (!is_image_demuxer(fc->iformat->name)) {
        errf(err, errlen, "'%s' is not a still image (FFmpeg reads it as %s)", path,
             fc->iformat->long_name ? fc->iformat->long_name : fc->iformat->name);
        ret = RP_ERR_FORMAT;
        goto fail;
    }
    index = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (index < 0 || !codec) {
        errf(err, errlen, "'%s' holds no image FFmpeg can decode", path);
        ret = RP_ERR_FORMAT;
        goto fail;
    }
    dec = avcodec_alloc_context3(codec);
    pkt = av_packet_alloc();
    frame = av_frame_alloc();
    if (!dec || !pkt || !frame) {
        errf(err, errlen, "out of memory reading '%s'", path);
        ret = RP_ERR_NOMEM;
        goto fail;
    }
    ret = avcodec_parameters_to_context(dec, fc->streams[index]->codecpar);
    if (ret < 0)
        goto decode_error;
    dec->thread_count = 1; /* get_buffer runs on this thread */
    dec->flags |= AV_CODEC_FLAG_BITEXACT;
    dec->opaque = dims;
    dec->get_buffer2 = get_buffer;
    ret = avcodec_open2(dec, codec, NULL);
    if (ret < 0)
        goto decode_error;

    for (;;) {
        ret = avcodec_receive_frame(dec, frame);
        if (ret >= 0)
            break;
        if (ret != AVERROR(EAGAIN))
            goto decode_error;
        if (dims->seen && dims->probe_only)
            break;
        if (flushing) {
            ret = AVERROR_INVALIDDATA;
            goto decode_error;
        }
        ret = av_read_frame(fc, pkt);
        if (ret == AVERROR_EOF) {
            flushing = 1;
            ret = avcodec_send_packet(dec, NULL);
        } else if (ret < 0) {
            goto decode_error;
        } else {
            if (pkt->stream_index == index)
                ret = avcodec_send_packet(dec, pkt);
            av_packet_unref(pkt);
        }
        if (ret < 0 && ret != AVERROR(EAGAIN))
            goto decode_error;
    }
    if (dims->probe_only) {
        ret = RP_OK;
        goto fail;
    }
    if (frame->width > RP_MAX_SIDE || frame->height > RP_MAX_SIDE) {
        dims->width = frame->width;
        dims->height = frame->height;
        ret = AVERROR(ERANGE);
        goto decode_error;
    }
    *pframe = frame;
    frame = NULL;
    ret = RP_OK;
    goto fail;

decode_error:
    if (dims->seen && (dims->width > RP_MAX_SIDE || dims->height > RP_MAX_SIDE)) {
        errf(err, errlen, "image '%s' is %dx%d: at most %d pixels per side are accepted", path,
             dims->width, dims->height, RP_MAX_SIDE);
        ret = RP_ERR_TOO_LARGE;
    } else if (dims->seen && dims->probe_only) {
        ret = RP_OK;
    } else {
        av_strerror(ret, msg, sizeof(msg));
        /* FFmpeg refuses sizes past about 16k x 16k while parsing the header, before our
         * get_buffer sees them. */
        errf(err, errlen, "cannot decode image '%s' (%s): %s%s", path, codec->name, msg,
             dims->seen ? "" : " (corrupt, or over 16384 pixels per side?)");
        ret = ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT;
    }
fail:
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fc);
    return ret;
}

int rp_image_probe(const char *path, int *width, int *height, char *err, size_t errlen)
{
    image_dims dims = {.probe_only = 1};
    int ret = decode_first(path, &dims, NULL, err, errlen);

    if (ret)
        return ret;
    if (!dims.seen || dims.width < 1 || dims.height < 1) {
        errf(err, errlen, "cannot read the size of image '%s'", path);
        return RP_ERR_FORMAT;
    }
    if (dims.width > RP_MAX_SIDE || dims.height > RP_MAX_SIDE) {
        errf(err, errlen, "image '%s' is %dx%d: at most %d pixels per side are accepted", path,
             dims.width, dims.height, RP_MAX_SIDE);
        return RP_ERR_TOO_LARGE;
    }
    *width = dims.width;
    *height = dims.height;
    return RP_OK;
}

/* Decode path and produce width x height RGB24 in a new buffer: libswscale to RGBA at the
 * target size (bicubic, bit-exact), then each channel composited over black as
 * (c * a + 127) / 255. */
static int load_rgb(const char *path, int width, int height, uint8_t **prgb, char *err,
                    size_t errlen)
{
    image_dims dims = {0};
    AVFrame *frame = NULL;
    struct SwsContext *sws = NULL;
    uint8_t *rgba[4] = {NULL}, *rgb = NULL;
    int rgba_stride[4];
    size_t pixels = (size_t)width * (size_t)height;
    int ret;

    *prgb = NULL;
    if (width < 1 || height < 1 || width > RP_MAX_SIDE || height > RP_MAX_SIDE) {
        errf(err, errlen, "cannot scale image '%s' to %dx%d", path, width, height);
        return RP_ERR_INVALID;
    }
    ret = decode_first(path, &dims, &frame, err, errlen);
    if (ret)
        return ret;
    sws = sws_getContext(frame->width, frame->height, frame->format, width, height, AV_PIX_FMT_RGBA,
                         SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    /* Aligned and padded: libswscale's SIMD writers store past a row's end. */
    if (av_image_alloc(rgba, rgba_stride, width, height, AV_PIX_FMT_RGBA, 64) < 0)
        rgba[0] = NULL;
    rgb = malloc(pixels * 3);
    if (!sws || !rgba[0] || !rgb) {
        errf(err, errlen,
             sws ? "out of memory reading image '%s'"
                 : "cannot convert image '%s' (unsupported pixel layout)",
             path);
        ret = sws ? RP_ERR_NOMEM : RP_ERR_FORMAT;
        goto fail;
    }
    sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, rgba,
              rgba_stride);
    for (int y = 0; y < height; y++) {
        const uint8_t *src = rgba[0] + (size_t)y * rgba_stride[0];
        uint8_t *dst = rgb + (size_t)y * width * 3;

        for (int x = 0; x < width; x++, src += 4, dst += 3) {
            unsigned a = src[3];

            for (int c = 0; c < 3; c++)
                dst[c] = (uint8_t)((src[c] * a + 127) / 255);
        }
    }
    *prgb = rgb;
    rgb = NULL;
    ret = RP_OK;

fail:
    free(rgb);
    av_freep(&rgba[0]);
    sws_freeContext(sws);
    av_frame_free(&frame);
    return ret;
}

int rp_image_load_rgb(const char *path, int width, int height, uint8_t **rgb, char *err,
                      size_t errlen)
{
    return load_rgb(path, width, height, rgb, err, errlen);
}

/* Luma is BT.601 in 8-bit fixed point, (77 R + 150 G + 29 B + 128) >> 8. */
int rp_image_load_mask(const char *path, int width, int height, uint8_t **mask, char *err,
                       size_t errlen)
{
    uint8_t *rgb, *cells;
    size_t pixels = (size_t)width * (size_t)height;
    int ret;

    *mask = NULL;
    ret = load_rgb(path, width, height, &rgb, err, errlen);
    if (ret)
        return ret;
    cells = malloc(pixels);
    if (!cells) {
        free(rgb);
        errf(err, errlen, "out of memory reading mask '%s'", path);
        return RP_ERR_NOMEM;
    }
    for (size_t i = 0; i < pixels; i++) {
        const uint8_t *p = rgb + 3 * i;

        cells[i] = ((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8) >= 128;
    }
    free(rgb);
    *mask = cells;
    return RP_OK;
}
