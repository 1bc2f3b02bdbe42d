/* output_y4m.c - YUV4MPEG2 backend, for pipes (`rockpool -o - | ffmpeg -i - ...`) and
 * .y4m files.
 *
 * The stream is always 4:4:4 ("C444"): it takes any frame size (no even-size rule),
 * keeps full chroma resolution, and a reader downsamples as it likes. The colours are
 * BT.601 limited range, as libswscale converts by default and as FFmpeg assumes for
 * Y4M; the XCOLORRANGE=LIMITED tag says so explicitly to FFmpeg. Conversion from RGB24
 * is libswscale with SWS_BITEXACT | SWS_ACCURATE_RND, so it is the same everywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

#include "common.h"
#include "output_backend.h"

#define FRAME_TAG "FRAME\n"

typedef struct y4m_out {
    const rp_output_opts *opts;
    struct SwsContext *sws;
    uint8_t *planes[4]; /* aligned and padded for libswscale, one allocation */
    int linesize[4];
    uint8_t *spare_row; /* see rp_output_scale_rgb */
    uint8_t *frame;     /* FRAME_TAG then the Y, U, V planes, packed */
    size_t frame_size;
    rp_output_stream out;
} y4m_out;

static void release(y4m_out *yo)
{
    rp_output_stream_abort(&yo->out);
    sws_freeContext(yo->sws);
    yo->sws = NULL;
    av_freep(&yo->planes[0]);
    av_freep(&yo->spare_row);
    free(yo->frame);
    yo->frame = NULL;
}

/* Set up the converter and frame buffer, create the temporary file (not for stdout) and
 * write the stream header. */
static int y4m_open(void *priv, const rp_output_opts *opts, char *err, size_t errlen)
{
    y4m_out *yo = priv;
    size_t plane = (size_t)opts->width * (size_t)opts->height;
    char header[128];
    int ret;

    yo->opts = opts;
    yo->sws = sws_getContext(opts->width, opts->height, AV_PIX_FMT_RGB24, opts->width, opts->height,
                             AV_PIX_FMT_YUV444P, SWS_BICUBIC | SWS_BITEXACT | SWS_ACCURATE_RND,
                             NULL, NULL, NULL);
    yo->frame_size = strlen(FRAME_TAG) + 3 * plane;
    yo->frame = malloc(yo->frame_size);
    yo->spare_row = av_mallocz((size_t)opts->width * 3 + 64);
    if (av_image_alloc(yo->planes, yo->linesize, opts->width, opts->height, AV_PIX_FMT_YUV444P,
                       64) < 0)
        yo->planes[0] = NULL;
    if (!yo->sws || !yo->frame || !yo->spare_row || !yo->planes[0]) {
        rp_errf(err, errlen, "cannot set up the Y4M converter for %dx%d", opts->width,
                       opts->height);
        ret = yo->sws ? RP_ERR_NOMEM : RP_ERR_UNSUPPORTED;
        goto fail;
    }
    memcpy(yo->frame, FRAME_TAG, strlen(FRAME_TAG));
    ret = rp_output_stream_open(&yo->out, opts, err, errlen);
    if (ret)
        goto fail;
    snprintf(header, sizeof(header), "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C444 XCOLORRANGE=LIMITED\n",
             opts->width, opts->height, opts->fps);
    ret = rp_output_stream_put(&yo->out, header, strlen(header), err, errlen);
    if (ret)
        goto fail;
    return RP_OK;

fail:
    release(yo);
    return ret;
}

static int y4m_write(void *priv, int64_t frame_index, const uint8_t *rgb, char *err, size_t errlen)
{
    y4m_out *yo = priv;
    int w = yo->opts->width, h = yo->opts->height;
    uint8_t *dst = yo->frame + strlen(FRAME_TAG);

    (void)frame_index;
    rp_output_scale_rgb(yo->sws, rgb, w, h, yo->spare_row, yo->planes, yo->linesize);
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < h; y++, dst += w)
            memcpy(dst, yo->planes[p] + (size_t)y * yo->linesize[p], (size_t)w);
    return rp_output_stream_put(&yo->out, yo->frame, yo->frame_size, err, errlen);
}

static int y4m_close(void *priv, char *err, size_t errlen)
{
    y4m_out *yo = priv;
    int ret = rp_output_stream_close(&yo->out, err, errlen);

    release(yo);
    return ret;
}

static void y4m_abort(void *priv)
{
    release(priv);
}

const rp_output_backend rp_output_y4m = {
    .name = "y4m",
    .extensions = "y4m",
    .format = RP_FORMAT_Y4M,
    .priv_size = sizeof(y4m_out),
    .open = y4m_open,
    .write = y4m_write,
    .close = y4m_close,
    .abort = y4m_abort,
};
