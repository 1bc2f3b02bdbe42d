/* output_y4m.c - YUV4MPEG2 backend, for pipes (`rockpool -o - | ffmpeg -i - ...`) and
 * .y4m files.
 *
 * The stream is 4:2:0 ("C420jpeg": chroma the mean of each 2x2 block, centred), what
 * encoders and players expect, so `rockpool -o - | ffmpeg -i - out.mp4` makes a yuv420p
 * file; --pix-fmt yuv444p keeps full chroma ("C444"). 4:2:0 needs an even width and
 * height: an odd size is written as 4:4:4, with a warning. The colours are
 * BT.601 limited range, as libswscale converts by default and as FFmpeg assumes for
 * Y4M; the XCOLORRANGE=LIMITED tag says so explicitly to FFmpeg. Conversion from RGB24
 * is rockpool's integer converter (yuv.h), so it is the same everywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/common.h"
#include "output/output_backend.h"
#include "output/yuv.h"

#define FRAME_TAG "FRAME\n"

typedef struct y4m_out {
    const rp_output_spec *opts;
    int full_chroma; /* 4:4:4, else 4:2:0 */
    uint8_t *frame;  /* FRAME_TAG then the Y, U, V planes, packed */
    size_t frame_size;
    rp_output_stream out;
} y4m_out;

static void release(y4m_out *yo)
{
    rp_output_stream_abort(&yo->out);
    free(yo->frame);
    yo->frame = NULL;
}

/* Set up the frame buffer, create the temporary file (not for stdout) and
 * write the stream header. */
static int y4m_open(void *priv, const rp_output_spec *opts, rp_error *err)
{
    y4m_out *yo = priv;
    size_t plane = (size_t)opts->width * (size_t)opts->height;
    char header[128];
    int ret;

    yo->opts = opts;
    yo->full_chroma = opts->pix_fmt && !strcmp(opts->pix_fmt, "yuv444p");
    if (!yo->full_chroma && (opts->width % 2 || opts->height % 2)) {
        yo->full_chroma = 1;
        if (opts->warn) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "%dx%d is odd: the Y4M stream is 4:4:4 (4:2:0 needs an "
                     "even width and height)",
                     opts->width, opts->height);
            opts->warn(opts->warn_ctx, msg);
        }
    }
    yo->frame_size = strlen(FRAME_TAG) + (yo->full_chroma ? 3 * plane : plane + plane / 2);
    yo->frame = malloc(yo->frame_size);
    if (!yo->frame) {
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for a %dx%d Y4M frame", opts->width,
                           opts->height);
        goto fail;
    }
    memcpy(yo->frame, FRAME_TAG, strlen(FRAME_TAG));
    ret = rp_output_stream_open(&yo->out, opts, err);
    if (ret)
        goto fail;
    snprintf(header, sizeof(header), "YUV4MPEG2 W%d H%d F%d:%d Ip A1:1 %s XCOLORRANGE=LIMITED\n",
             opts->width, opts->height, opts->fps, opts->fps_den > 0 ? opts->fps_den : 1,
             yo->full_chroma ? "C444" : "C420jpeg");
    ret = rp_output_stream_put(&yo->out, header, strlen(header), err);
    if (ret)
        goto fail;
    return RP_OK;

fail:
    release(yo);
    return ret;
}

static int y4m_write(void *priv, int64_t frame_index, const uint8_t *rgb, rp_error *err)
{
    y4m_out *yo = priv;
    int w = yo->opts->width, h = yo->opts->height;
    size_t plane = (size_t)w * (size_t)h;
    uint8_t *y = yo->frame + strlen(FRAME_TAG);

    (void)frame_index;
    if (yo->full_chroma) {
        uint8_t *const planes[3] = {y, y + plane, y + 2 * plane};
        const int stride[3] = {w, w, w};
        rp_yuv444_rows(rgb, w, planes, stride, 0, h);
    } else {
        uint8_t *const planes[3] = {y, y + plane, y + plane + plane / 4};
        const int stride[3] = {w, w / 2, w / 2};
        rp_yuv420_rows(rgb, w, planes, stride, 0, h);
    }
    return rp_output_stream_put(&yo->out, yo->frame, yo->frame_size, err);
}

static int y4m_close(void *priv, rp_error *err)
{
    y4m_out *yo = priv;
    int ret = rp_output_stream_close(&yo->out, err);

    release(yo);
    return ret;
}

static void y4m_abort(void *priv)
{
    release(priv);
}

/* The setting in messages (rp_name). */
#define PIX_FMT rp_name("--pix-fmt", "rp_run.out.pix_fmt")

static int y4m_validate(const rp_output_spec *opts, rp_error *err)
{
    if (opts->pix_fmt && strcmp(opts->pix_fmt, "yuv420p") && strcmp(opts->pix_fmt, "yuv444p")) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %s: a Y4M stream is yuv420p (the default) or yuv444p", PIX_FMT,
                            opts->pix_fmt);
    }
    /* An odd size is written 4:4:4 when no layout is asked for; 4:2:0 asked for is refused
     * rather than replaced. */
    if (opts->pix_fmt && !strcmp(opts->pix_fmt, "yuv420p") &&
        (opts->width % 2 || opts->height % 2)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s yuv420p: a Y4M stream of 4:2:0 needs an even width and "
                            "height (got %dx%d): use %s yuv444p, or an even size",
                            PIX_FMT, opts->width, opts->height, PIX_FMT);
    }
    return RP_OK;
}

const rp_output_backend rp_output_y4m = {
    .name = "y4m",
    .extensions = "y4m",
    .format = RP_FORMAT_Y4M,
    .priv_size = sizeof(y4m_out),
    .validate = y4m_validate,
    .open = y4m_open,
    .write = y4m_write,
    .close = y4m_close,
    .abort = y4m_abort,
};
