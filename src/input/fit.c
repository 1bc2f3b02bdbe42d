/* fit.c - fit modes for backgrounds of another size (see fit.h): the crop and placement in
 * exact integer arithmetic, and the libswscale conversion that applies them. */
#include "input/fit.h"

#include <stdlib.h>
#include <string.h>

#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

#include "base/common.h"
#include "input/image.h"

struct rp_fit_scaler {
    struct SwsContext *sws;
    rp_rect crop, dst;      /* crop after chroma alignment */
    int dst_w, dst_h;       /* the whole frame */
    size_t plane_off[4][2]; /* per plane: bytes per pixel and log2 of the x subsampling */
    int plane_shift_y[4];
    int nb_planes, pal;
    uint8_t *tmp[4]; /* dst.w x dst.h RGB24, padded for libswscale's writers */
    int tmp_stride[4];
};

/* a / b rounded to nearest, halves up (a >= 0, b > 0, 2a + b without overflow). */
static int64_t div_round(int64_t a, int64_t b)
{
    return (2 * a + b) / (2 * b);
}

static int keep(int64_t v, int limit)
{
    return v < 1 ? 1 : v > limit ? limit : (int)v;
}

int rp_fit_rects(enum rp_fit fit, int src_w, int src_h, int sar_num, int sar_den, int dst_w,
                 int dst_h, rp_rect *crop, rp_rect *dst)
{
    int64_t src_aspect, dst_aspect; /* cross-multiplied display aspects */

    if (sar_num == 0 && sar_den == 0)
        sar_num = sar_den = 1;
    if (src_w < 1 || src_h < 1 || dst_w < 1 || dst_h < 1 || src_w > RP_MAX_SIDE ||
        src_h > RP_MAX_SIDE || dst_w > RP_MAX_SIDE || dst_h > RP_MAX_SIDE || sar_num < 1 ||
        sar_den < 1 || sar_num > RP_FIT_MAX_SAR || sar_den > RP_FIT_MAX_SAR ||
        (fit != RP_FIT_STRETCH && fit != RP_FIT_COVER && fit != RP_FIT_CONTAIN))
        return RP_ERR_INVALID;
    *crop = (rp_rect){0, 0, src_w, src_h};
    *dst = (rp_rect){0, 0, dst_w, dst_h};
    /* The source shows src_w * sar_num : src_h * sar_den; compare with dst_w : dst_h.
     * Every product is below 2^14 * 2^16 * 2^14 = 2^44. */
    src_aspect = (int64_t)src_w * sar_num * dst_h;
    dst_aspect = (int64_t)src_h * sar_den * dst_w;
    if (fit == RP_FIT_STRETCH || src_aspect == dst_aspect)
        return RP_OK;
    if (fit == RP_FIT_COVER) {
        if (src_aspect > dst_aspect) { /* source wider: keep its height, crop columns */
            crop->w =
                keep(div_round((int64_t)src_h * sar_den * dst_w, (int64_t)sar_num * dst_h), src_w);
            crop->x = (src_w - crop->w) / 2;
        } else {
            crop->h =
                keep(div_round((int64_t)src_w * sar_num * dst_h, (int64_t)sar_den * dst_w), src_h);
            crop->y = (src_h - crop->h) / 2;
        }
    } else {
        if (src_aspect > dst_aspect) { /* source wider: full frame width, fewer rows */
            dst->h =
                keep(div_round((int64_t)dst_w * src_h * sar_den, (int64_t)src_w * sar_num), dst_h);
            dst->y = (dst_h - dst->h) / 2;
        } else {
            dst->w =
                keep(div_round((int64_t)dst_h * src_w * sar_num, (int64_t)src_h * sar_den), dst_w);
            dst->x = (dst_w - dst->w) / 2;
        }
    }
    return RP_OK;
}

int64_t rp_fit_scaler_bytes(int dst_w, int dst_h)
{
    /* The RGB24 staging frame, rows padded to 64 bytes, plus av_image_alloc's slack. */
    return ((int64_t)dst_w * 3 + 64) * dst_h + 64;
}

int rp_fit_scaler_new(rp_fit_scaler **pscaler, enum rp_fit fit, int src_w, int src_h, int pix_fmt,
                      int sar_num, int sar_den, int colorspace, int color_range, int dst_w,
                      int dst_h, rp_error *err)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get((enum AVPixelFormat)pix_fmt);
    rp_fit_scaler *s;
    int ret;

    *pscaler = NULL;
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM)) ||
        !sws_isSupportedInput((enum AVPixelFormat)pix_fmt)) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "pixel format %s cannot be converted to RGB",
                            desc ? desc->name : "(unknown)");
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    ret = rp_fit_rects(fit, src_w, src_h, sar_num, sar_den, dst_w, dst_h, &s->crop, &s->dst);
    if (ret) {
        free(s);
        return rp_error_set(err, ret, ret != RP_ERR_NOMEM,
                            "cannot fit a %dx%d picture (pixel aspect %d:%d) into %dx%d", src_w,
                            src_h, sar_num, sar_den, dst_w, dst_h);
    }
    s->dst_w = dst_w;
    s->dst_h = dst_h;
    s->pal = (desc->flags & AV_PIX_FMT_FLAG_PAL) != 0;
    s->crop.x &= ~((1 << desc->log2_chroma_w) - 1);
    s->crop.y &= ~((1 << desc->log2_chroma_h) - 1);
    s->nb_planes = av_pix_fmt_count_planes((enum AVPixelFormat)pix_fmt);
    for (int c = 0; c < desc->nb_components; c++) {
        const AVComponentDescriptor *comp = &desc->comp[c];
        int chroma =
            (c == 1 || c == 2) && !(desc->flags & AV_PIX_FMT_FLAG_RGB) && desc->nb_components >= 3;

        s->plane_off[comp->plane][0] = (size_t)comp->step;
        s->plane_off[comp->plane][1] = chroma ? desc->log2_chroma_w : 0;
        s->plane_shift_y[comp->plane] = chroma ? desc->log2_chroma_h : 0;
    }
    s->sws = sws_getContext(s->crop.w, s->crop.h, (enum AVPixelFormat)pix_fmt, s->dst.w, s->dst.h,
                            AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL,
                            NULL, NULL);
    if (av_image_alloc(s->tmp, s->tmp_stride, s->dst.w, s->dst.h, AV_PIX_FMT_RGB24, 64) < 0)
        s->tmp[0] = NULL;
    if (!s->sws || !s->tmp[0]) {
        ret = rp_error_set(err, s->sws ? RP_ERR_NOMEM : RP_ERR_FORMAT, !s->sws,
                           s->sws ? "out of memory" : "cannot convert %s to RGB", desc->name);
        rp_fit_scaler_free(&s);
        return ret;
    }
    if (!(desc->flags & AV_PIX_FMT_FLAG_RGB) && desc->nb_components >= 3) {
        /* The source's own matrix and range (yuvj formats are full range by name). */
        int full = color_range == AVCOL_RANGE_JPEG || strncmp(desc->name, "yuvj", 4) == 0;
        int *inv, *table, src_range, dst_range, brightness, contrast, saturation;

        if (sws_getColorspaceDetails(s->sws, &inv, &src_range, &table, &dst_range, &brightness,
                                     &contrast, &saturation) >= 0)
            sws_setColorspaceDetails(s->sws, sws_getCoefficients(colorspace), full, table,
                                     dst_range, brightness, contrast, saturation);
    }
    *pscaler = s;
    return RP_OK;
}

int rp_fit_scaler_run(rp_fit_scaler *s, const uint8_t *const src[4], const int src_stride[4],
                      uint8_t *rgb)
{
    const uint8_t *planes[4] = {NULL, NULL, NULL, NULL};
    int strides[4] = {0, 0, 0, 0};
    size_t row = (size_t)s->dst_w * 3;

    for (int p = 0; p < 4 && src[p]; p++) {
        strides[p] = src_stride[p];
        if (p >= s->nb_planes || (s->pal && p == 1)) { /* a palette */
            planes[p] = src[p];
            continue;
        }
        planes[p] = src[p] + (ptrdiff_t)(s->crop.y >> s->plane_shift_y[p]) * src_stride[p] +
                    (ptrdiff_t)((size_t)(s->crop.x >> s->plane_off[p][1]) * s->plane_off[p][0]);
    }
    if (sws_scale(s->sws, planes, strides, 0, s->crop.h, s->tmp, s->tmp_stride) != s->dst.h)
        return RP_ERR_FORMAT;
    for (int y = 0; y < s->dst_h; y++) {
        uint8_t *out = rgb + (size_t)y * row;

        if (y < s->dst.y || y >= s->dst.y + s->dst.h) {
            memset(out, 0, row);
            continue;
        }
        memset(out, 0, (size_t)s->dst.x * 3);
        memcpy(out + (size_t)s->dst.x * 3, s->tmp[0] + (size_t)(y - s->dst.y) * s->tmp_stride[0],
               (size_t)s->dst.w * 3);
        memset(out + (size_t)(s->dst.x + s->dst.w) * 3, 0,
               (size_t)(s->dst_w - s->dst.x - s->dst.w) * 3);
    }
    return RP_OK;
}

void rp_fit_scaler_free(rp_fit_scaler **ps)
{
    if (!ps || !*ps)
        return;
    sws_freeContext((*ps)->sws);
    av_freep(&(*ps)->tmp[0]);
    free(*ps);
    *ps = NULL;
}

/* An iw x ih still is decoded once at the size that makes the kept part exactly the
 * frame's (cover) or the drawn part's (contain). */
int rp_fit_load_still(const char *path, enum rp_fit fit, int w, int h, uint8_t **rgb,
                      rp_rect *drawn, rp_error *err)
{
    int iw, ih;
    rp_rect crop, dst;
    uint8_t *img = NULL;
    if (fit == RP_FIT_STRETCH || rp_image_probe(path, &iw, &ih, err) ||
        rp_fit_rects(fit, iw, ih, 1, 1, w, h, &crop, &dst))
        return rp_image_load_rgb(path, w, h, rgb, err);
    /* the whole image at a scale where crop becomes dst */
    int64_t sw = ((int64_t)iw * dst.w + crop.w / 2) / crop.w;
    int64_t sh = ((int64_t)ih * dst.h + crop.h / 2) / crop.h;
    int64_t ox = ((int64_t)crop.x * sw + iw / 2) / iw, oy = ((int64_t)crop.y * sh + ih / 2) / ih;
    if (sw > 2 * RP_MAX_SIDE || sh > 2 * RP_MAX_SIDE)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "%s: a %dx%d image cannot cover %dx%d (it would be scaled to "
                            "%lldx%lld): use fit contain or stretch",
                            path, iw, ih, w, h, (long long)sw, (long long)sh);
    int r = rp_image_load_rgb(path, (int)sw, (int)sh, &img, err);
    if (r)
        return r;
    if (drawn)
        *drawn = dst;
    if (!(*rgb = calloc((size_t)w * (size_t)h, 3))) { /* black where nothing is drawn */
        free(img);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    for (int y = 0; y < dst.h; y++) {
        int64_t syy = oy + y < sh ? oy + y : sh - 1;
        int64_t n = dst.w < sw - ox ? dst.w : sw - ox;
        memcpy(*rgb + ((size_t)(dst.y + y) * w + (size_t)dst.x) * 3,
               img + ((size_t)syy * (size_t)sw + (size_t)ox) * 3, (size_t)n * 3);
    }
    free(img);
    return RP_OK;
}
