/* fit.c - fit modes for backgrounds of another size (see fit.h): the crop and placement in
 * exact integer arithmetic, and the libswscale conversion that applies them. */
#include "input/fit.h"

#include <stdio.h>
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
    int alpha;       /* the source has alpha: composited over black, as a still's is */
    uint8_t *tmp[4]; /* dst.w x dst.h RGB24 (RGBA with alpha), padded for libswscale */
    int tmp_stride[4];
    /* Limited-range YUV: libswscale scales to YUV 4:4:4 at the source's depth (yuv[], 8 or
     * 16 bits a sample) and the matrix below makes RGB in integers (yuv_rgb). */
    uint8_t *yuv[4];
    int yuv_stride[4];
    int depth; /* yuv[]'s bits a sample: 8, else 16-bit samples of 10, 12 or 16 bits */
    /* With alpha, yuv[3] holds it at that depth (YUVA 4:4:4). */
    int64_t cy, crv, cgu, cgv, cbu; /* Q16: 255/219 and the matrix's chroma terms, scaled */
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
    /* The RGB24 (RGBA with alpha) staging frame, rows padded to 64 bytes, plus
     * av_image_alloc's slack; and for limited-range YUV four 16-bit planes at most. */
    return ((int64_t)dst_w * 4 + 64) * dst_h + 64 + ((int64_t)dst_w * 2 + 64) * 4 * dst_h + 64;
}

/* Kr and Kb (x 10000) of a YUV matrix (AVColorSpace), or 0 where the integer path does not
 * convert it (libswscale does): BT.601 (also for unspecified, as the ffmpeg program reads
 * it), BT.709, BT.2020, SMPTE 240M, FCC. */
static int matrix_k(int colorspace, int *kr, int *kb)
{
    switch (colorspace) {
    case AVCOL_SPC_BT709: *kr = 2126, *kb = 722; return 1;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: *kr = 2627, *kb = 593; return 1;
    case AVCOL_SPC_SMPTE240M: *kr = 2120, *kb = 870; return 1;
    case AVCOL_SPC_FCC: *kr = 3000, *kb = 1100; return 1;
    case AVCOL_SPC_UNSPECIFIED:
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M: *kr = 2990, *kb = 1140; return 1;
    default: return 0;
    }
}

/* The name of a YUV matrix (AVColorSpace) that neither matrix_k nor libswscale converts
 * (libswscale would take it as BT.601 and give other colours without a word), or NULL. */
static const char *unconverted_matrix(int colorspace)
{
    switch (colorspace) {
    case AVCOL_SPC_YCGCO: return "YCgCo";
    case AVCOL_SPC_SMPTE2085: return "SMPTE ST 2085 (Y'D'zD'x)";
    case AVCOL_SPC_CHROMA_DERIVED_NCL:
    case AVCOL_SPC_CHROMA_DERIVED_CL: return "chroma-derived (ITU-T H.273)";
    case AVCOL_SPC_ICTCP: return "ICtCp";
    default: return NULL;
    }
}

/* RP_OK, or the refusal of a YUV picture whose matrix rockpool does not convert. */
static int refuse_matrix(const AVPixFmtDescriptor *desc, int colorspace, rp_error *err)
{
    const char *matrix = unconverted_matrix(colorspace);
    if (!matrix || (desc->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) ||
        desc->nb_components < 3)
        return RP_OK;
    return rp_error_set(err, RP_ERR_FORMAT, 1,
                        "its colours are %s, which rockpool does not convert to RGB (BT.601, "
                        "BT.709, BT.2020, SMPTE 240M and FCC it does)%s",
                        matrix,
                        colorspace == AVCOL_SPC_YCGCO
                            ? ": convert it first, e.g. ffmpeg -i IN -vf "
                              "colorspace=all=bt709:iall=bt709:ispace=ycgco -c:v ffv1 OUT.mkv"
                            : "");
}

/* The 4:4:4 format libswscale scales a YUV source of depth d into, at s->depth (set
 * here: 9 bits are kept in 10, 11 in 12, 14 in 16), with an alpha plane where s->alpha. */
static enum AVPixelFormat yuv_mid(rp_fit_scaler *s, int d)
{
    s->depth = d == 8 ? 8 : d <= 10 ? 10 : d <= 12 ? 12 : 16;
    if (!s->alpha)
        return s->depth == 8    ? AV_PIX_FMT_YUV444P
               : s->depth == 10 ? AV_PIX_FMT_YUV444P10
               : s->depth == 12 ? AV_PIX_FMT_YUV444P12
                                : AV_PIX_FMT_YUV444P16;
    return s->depth == 8    ? AV_PIX_FMT_YUVA444P
           : s->depth == 10 ? AV_PIX_FMT_YUVA444P10
           : s->depth == 12 ? AV_PIX_FMT_YUVA444P12
                            : AV_PIX_FMT_YUVA444P16;
}

/* The matrix's terms in Q16 for samples of `depth` bits of limited range (Y 16..235, C
 * 16..240 at 8 bits, times 2^(depth - 8)): R = Y' + 2 (1 - Kr) Cr', G = Y' - 2 Kb (1 - Kb) /
 * Kg Cb' - 2 Kr (1 - Kr) / Kg Cr', B = Y' + 2 (1 - Kb) Cb', with Y' = (Y - 16) 255 / 219
 * and C' = (C - 128) 255 / 224, each term rounded once from its exact fraction. */
static void yuv_terms(rp_fit_scaler *s, int64_t kr, int64_t kb)
{
    const int64_t sc = (int64_t)1 << (s->depth - 8), kg = 10000 - kr - kb;
    s->cy = div_round(255 * 65536, 219 * sc);
    s->crv = div_round(2 * (10000 - kr) * 255 * 65536, 10000 * 224 * sc);
    s->cbu = div_round(2 * (10000 - kb) * 255 * 65536, 10000 * 224 * sc);
    s->cgu = div_round(2 * kb * (10000 - kb) * 255 * 65536, 10000 * kg * 224 * sc);
    s->cgv = div_round(2 * kr * (10000 - kr) * 255 * 65536, 10000 * kg * 224 * sc);
}

static inline uint8_t clamp255(int64_t v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* One pixel's RGB from its samples, their offsets taken off: Y - 16, U - 128, V - 128 (at
 * the depth's scale). */
static inline void yuv_px(const rp_fit_scaler *s, int64_t y, int64_t u, int64_t v, uint8_t *out)
{
    int64_t l = y * s->cy + 32768;
    out[0] = clamp255((l + s->crv * v) >> 16);
    out[1] = clamp255((l - s->cgu * u - s->cgv * v) >> 16);
    out[2] = clamp255((l + s->cbu * u) >> 16);
}

/* Row y of yuv[] (4:4:4) into RGB24 at out; with alpha, composited over black as a
 * still's is (image.c), at the alpha's depth: c * a / amax, rounded to nearest. */
static void yuv_rgb(const rp_fit_scaler *s, int y, uint8_t *out)
{
    const int64_t y0 = (int64_t)16 << (s->depth - 8), c0 = (int64_t)128 << (s->depth - 8);
    const uint8_t *p0 = s->yuv[0] + (size_t)y * s->yuv_stride[0];
    const uint8_t *p1 = s->yuv[1] + (size_t)y * s->yuv_stride[1];
    const uint8_t *p2 = s->yuv[2] + (size_t)y * s->yuv_stride[2];
    if (s->depth == 8) {
        for (int x = 0; x < s->dst.w; x++)
            yuv_px(s, p0[x] - y0, p1[x] - c0, p2[x] - c0, out + 3 * x);
    } else {
        const uint16_t *q0 = (const uint16_t *)p0, *q1 = (const uint16_t *)p1,
                       *q2 = (const uint16_t *)p2;
        for (int x = 0; x < s->dst.w; x++)
            yuv_px(s, q0[x] - y0, q1[x] - c0, q2[x] - c0, out + 3 * x);
    }
    if (!s->alpha)
        return;
    const uint8_t *pa = s->yuv[3] + (size_t)y * s->yuv_stride[3];
    const unsigned amax = (1u << s->depth) - 1;
    for (int x = 0; x < s->dst.w; x++) {
        unsigned a = s->depth == 8 ? pa[x] : ((const uint16_t *)pa)[x];
        for (int c = 0; c < 3; c++)
            out[3 * x + c] = (uint8_t)((out[3 * x + c] * a + amax / 2) / amax);
    }
}

void rp_fit_source_colors(struct SwsContext *sws, int pix_fmt, int colorspace, int color_range)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get((enum AVPixelFormat)pix_fmt);

    if (!sws || !desc || (desc->flags & AV_PIX_FMT_FLAG_RGB) || desc->nb_components < 3)
        return;
    /* The source's own matrix and range (yuvj formats are full range by name). */
    int full = color_range == AVCOL_RANGE_JPEG || strncmp(desc->name, "yuvj", 4) == 0;
    int *inv, *table, src_range, dst_range, brightness, contrast, saturation;

    if (sws_getColorspaceDetails(sws, &inv, &src_range, &table, &dst_range, &brightness, &contrast,
                                 &saturation) >= 0)
        sws_setColorspaceDetails(sws, sws_getCoefficients(colorspace), full, table, dst_range,
                                 brightness, contrast, saturation);
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
    if ((ret = refuse_matrix(desc, colorspace, err)))
        return ret;
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
    /* Limited-range YUV in integers: libswscale's accurate RGB conversion of it (FFmpeg
     * 5.1) comes out about 2 levels dark (a flat Y 126 gave 126, not 128), and its faster
     * one is not the same on every machine. The scaling and the chroma's interpolation
     * stay libswscale's, into 4:4:4 at the source's depth (YUVA with an alpha plane, which
     * is then composited over black, as a still image's alpha is). */
    int kr = 0, kb = 0;
    const int yuv = !(desc->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) &&
                    desc->nb_components >= 3 && color_range != AVCOL_RANGE_JPEG &&
                    strncmp(desc->name, "yuvj", 4) != 0 && desc->comp[0].depth >= 8 &&
                    desc->comp[0].depth <= 16 && matrix_k(colorspace, &kr, &kb);
    /* A palette may hold alpha too (FFmpeg flags pal8 so). */
    s->alpha = (desc->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
    enum AVPixelFormat mid = s->alpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24;
    if (yuv) {
        mid = yuv_mid(s, desc->comp[0].depth);
        yuv_terms(s, kr, kb);
        if (av_image_alloc(s->yuv, s->yuv_stride, s->dst.w, s->dst.h, mid, 64) < 0)
            s->yuv[0] = NULL;
    }
    s->sws = sws_getContext(s->crop.w, s->crop.h, (enum AVPixelFormat)pix_fmt, s->dst.w, s->dst.h,
                            mid, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    if (av_image_alloc(s->tmp, s->tmp_stride, s->dst.w, s->dst.h,
                       s->alpha && !yuv ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24, 64) < 0)
        s->tmp[0] = NULL;
    if (!s->sws) {
        /* The layout is one libswscale reads (checked above): it is the scale it refuses, a
         * side grown or shrunk by thousands of times (a 4000x2 strip covering 64x36). */
        char part[96] = "";
        if (s->crop.w != src_w || s->crop.h != src_h)
            snprintf(part, sizeof part, " (the %dx%d part fit %s keeps)", s->crop.w, s->crop.h,
                     rp_fit_name(fit));
        ret = rp_error_set(err, RP_ERR_FORMAT, 1,
                           "cannot scale a %dx%d %s picture%s to %dx%d (libswscale refuses so "
                           "far a scale): use a picture nearer that shape",
                           src_w, src_h, desc->name, part, s->dst.w, s->dst.h);
        rp_fit_scaler_free(&s);
        return ret;
    }
    if (!s->tmp[0] || (yuv && !s->yuv[0])) {
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        rp_fit_scaler_free(&s);
        return ret;
    }
    if (!yuv)
        rp_fit_source_colors(s->sws, pix_fmt, colorspace, color_range);
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
    if (sws_scale(s->sws, planes, strides, 0, s->crop.h, s->yuv[0] ? s->yuv : s->tmp,
                  s->yuv[0] ? s->yuv_stride : s->tmp_stride) != s->dst.h)
        return RP_ERR_FORMAT;
    if (s->yuv[0])
        for (int y = 0; y < s->dst.h; y++)
            yuv_rgb(s, y, s->tmp[0] + (size_t)y * s->tmp_stride[0]);
    for (int y = 0; y < s->dst_h; y++) {
        uint8_t *out = rgb + (size_t)y * row;

        if (y < s->dst.y || y >= s->dst.y + s->dst.h) {
            memset(out, 0, row);
            continue;
        }
        const uint8_t *in = s->tmp[0] + (size_t)(y - s->dst.y) * s->tmp_stride[0];
        memset(out, 0, (size_t)s->dst.x * 3);
        if (s->alpha && !s->yuv[0]) { /* RGBA over black, as image.c composites a still */
            uint8_t *o = out + (size_t)s->dst.x * 3;
            for (int x = 0; x < s->dst.w; x++, in += 4, o += 3) {
                unsigned a = in[3];
                for (int c = 0; c < 3; c++)
                    o[c] = (uint8_t)((in[c] * a + 127) / 255);
            }
        } else {
            memcpy(out + (size_t)s->dst.x * 3, in, (size_t)s->dst.w * 3);
        }
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
    av_freep(&(*ps)->yuv[0]);
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
