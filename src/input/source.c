/* source.c - backgrounds as sources (see source.h). */
#include "input/source.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/diag.h"
#include "input/fit.h"
#include "input/image.h"
#include "look/texture.h"

struct rp_source {
    int width, height;
    uint8_t *rgb;       /* the still picture, every frame */
    rp_video_in *video; /* or a video */
    rp_rect drawn;      /* where the picture is; the bars of fit contain outside */
};

/* A video's display size: the stored width times its sample aspect ratio (rounded, halves
 * up), so that its pixels become square; the height as stored. */
static int display_width(int w, int sar_num, int sar_den)
{
    if (sar_num <= 0 || sar_den <= 0)
        return w;
    return (int)(((int64_t)w * sar_num * 2 + sar_den) / (2 * (int64_t)sar_den));
}

int rp_source_probe(const char *path, int64_t max_memory, rp_source_info *info, rp_error *err)
{
    memset(info, 0, sizeof *info);
    info->duration_den = 1;
    if (rp_video_in_is_video(path)) {
        rp_video_in *v;
        rp_video_in_opts o;
        int sn, sd;
        rp_video_in_opts_init(&o);
        o.max_memory = max_memory;
        int r = rp_video_in_open(&v, path, 16, 16, &o, err);
        if (r)
            return r;
        info->is_video = 1;
        rp_video_in_info(v, &info->width, &info->height, &sn, &sd);
        rp_video_in_duration(v, &info->duration_num, &info->duration_den);
        rp_video_in_close(&v);
        info->width = display_width(info->width, sn, sd);
    } else if (rp_image_probe(path, &info->width, &info->height, err)) {
        err->bad_input = 1; /* out of memory too: the image is refused, whatever the reason */
        return err->code = RP_ERR_FORMAT;
    }
    if (info->width > RP_MAX_SIDE || info->height > RP_MAX_SIDE)
        return rp_error_set(
            err, RP_ERR_TOO_LARGE, 1, "%s: %s is %dx%d, over the %d per side limit: give --size",
            path, info->is_video ? "video" : "image", info->width, info->height, RP_MAX_SIDE);
    return RP_OK;
}

/* A still of iw x ih drawn at width x height with `fit`: decoded once at the size that
 * makes the kept part (fit.h) exactly the frame's (cover) or the drawn part's (contain). */
static int load_fitted(rp_source *src, const char *path, enum rp_fit fit, rp_error *err)
{
    int iw, ih, w = src->width, h = src->height;
    rp_rect crop, dst;
    uint8_t *img = NULL;
    if (fit == RP_FIT_STRETCH || rp_image_probe(path, &iw, &ih, err) ||
        rp_fit_rects(fit, iw, ih, 1, 1, w, h, &crop, &dst))
        return rp_image_load_rgb(path, w, h, &src->rgb, err);
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
    src->drawn = dst;
    if (!(src->rgb = calloc((size_t)w * (size_t)h, 3))) { /* black where nothing is drawn */
        free(img);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    for (int y = 0; y < dst.h; y++) {
        int64_t syy = oy + y < sh ? oy + y : sh - 1;
        int64_t n = dst.w < sw - ox ? dst.w : sw - ox;
        memcpy(src->rgb + ((size_t)(dst.y + y) * w + (size_t)dst.x) * 3,
               img + ((size_t)syy * (size_t)sw + (size_t)ox) * 3, (size_t)n * 3);
    }
    free(img);
    return RP_OK;
}

int rp_source_open(rp_source **out, const char *path, int width, int height, int fit, int end,
                   int64_t max_memory, rp_error *err)
{
    rp_source *src = calloc(1, sizeof *src);
    int r;
    *out = NULL;
    if (!src)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    src->width = width;
    src->height = height;
    src->drawn = (rp_rect){0, 0, width, height};
    if (path && path[0] && rp_video_in_is_video(path)) {
        rp_video_in_opts o;
        rp_video_in_opts_init(&o);
        o.fit = (enum rp_fit)fit;
        o.end = end == RP_VIDEO_LOOP ? RP_VIDEO_LOOP : RP_VIDEO_HOLD;
        o.max_memory = max_memory;
        if ((r = rp_video_in_open(&src->video, path, width, height, &o, err))) {
            free(src);
            return r;
        }
        int vw, vh, sn, sd;
        rp_rect crop, dst;
        rp_video_in_info(src->video, &vw, &vh, &sn, &sd);
        if (!rp_fit_rects((enum rp_fit)fit, vw, vh, sn, sd, width, height, &crop, &dst))
            src->drawn = dst;
    } else if (path && path[0]) {
        if ((r = load_fitted(src, path, (enum rp_fit)fit, err))) {
            free(src);
            return r;
        }
    } else {
        if (!(src->rgb = malloc((size_t)width * (size_t)height * 3))) {
            free(src);
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        rp_texture_default(src->rgb, width, height); /* 16 tiles across at any size */
    }
    *out = src;
    return RP_OK;
}

int rp_source_frame(rp_source *src, int64_t k, int fps, int fps_den, const uint8_t **rgb,
                    rp_error *err)
{
    if (!src->video) {
        *rgb = src->rgb;
        return RP_OK;
    }
    /* frame k is at k * fps_den / fps seconds, exactly */
    int r = rp_video_in_frame_at(src->video, k * (fps_den > 0 ? fps_den : 1), fps, rgb, err);
    if (r)
        return rp_error_set(err, r, err->bad_input, "background of frame %lld: %s", (long long)k,
                            err->msg);
    return RP_OK;
}

void rp_source_drawn(const rp_source *src, int *x, int *y, int *w, int *h)
{
    *x = src->drawn.x;
    *y = src->drawn.y;
    *w = src->drawn.w;
    *h = src->drawn.h;
}

int64_t rp_source_memory(const rp_source *src)
{
    return src && src->video ? rp_video_in_memory(src->video) : 0;
}

const rp_video_in *rp_source_video(const rp_source *src)
{
    return src ? src->video : NULL;
}

void rp_source_free(rp_source **src)
{
    if (!src || !*src)
        return;
    free((*src)->rgb);
    rp_video_in_close(&(*src)->video);
    free(*src);
    *src = NULL;
}
