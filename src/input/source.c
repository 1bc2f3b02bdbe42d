/* source.c - backgrounds as sources (see source.h). */
#include "input/source.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
 * up), so that its pixels become square; the height as stored. A width past INT_MAX (a
 * sample aspect ratio of millions) is INT_MAX, which is over every limit. */
static int display_width(int w, int sar_num, int sar_den)
{
    if (sar_num <= 0 || sar_den <= 0)
        return w;
    int64_t d = ((int64_t)w * sar_num * 2 + sar_den) / (2 * (int64_t)sar_den);
    return d > INT_MAX ? INT_MAX : (int)d;
}

/* A path that names nothing is said as such, before it is taken for a video or an image
 * (a missing clip.mp4 is no image). */
static int present(const char *path, rp_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return RP_OK;
    int e = errno;
    /* frames_%04d.png, as ffmpeg reads an image sequence: a background is one file */
    const char *pc = strchr(path, '%');
    size_t digits = pc ? strspn(pc + 1, "0123456789") : 0;
    if (e == ENOENT && pc && pc[1 + digits] == 'd')
        return rp_error_set(err, RP_ERR_IO, 1,
                            "cannot open '%s': %s (a background is one file: to use an image "
                            "sequence, make it a video first, such as ffmpeg -framerate 25 -i "
                            "'%s' -c:v ffv1 clip.mkv, which keeps alpha)",
                            path, strerror(e), path);
    return rp_error_set(err, RP_ERR_IO, 1, "cannot open '%s': %s", path, strerror(e));
}

int rp_source_probe(const char *path, int64_t max_memory, rp_source_info *info, rp_error *err)
{
    memset(info, 0, sizeof *info);
    info->duration_den = 1;
    int missing = present(path, err);
    if (missing)
        return missing;
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
        info->hdr = rp_video_in_hdr(v);
        info->fields = rp_video_in_fields(v);
        rp_video_in_close(&v);
        info->width = display_width(info->width, sn, sd);
    } else if (rp_image_probe(path, &info->width, &info->height, err)) {
        err->bad_input = 1; /* out of memory too: the image is refused, whatever the reason */
        return err->code = RP_ERR_FORMAT;
    }
    return RP_OK;
}

int rp_source_size_usable(const char *path, const rp_source_info *info, rp_error *err)
{
    if (info->width > RP_MAX_SIDE || info->height > RP_MAX_SIDE)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "%s: %s is %dx%d, over the %d per side limit: give %s", path,
                            info->is_video ? "video" : "image", info->width, info->height,
                            RP_MAX_SIDE, rp_name("--size", "the size setting"));
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
    if (path && path[0] && (r = present(path, err))) {
        free(src);
        return r;
    }
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
        if ((r = rp_fit_load_still(path, (enum rp_fit)fit, width, height, &src->rgb, &src->drawn,
                                   err))) {
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
        return rp_error_set(err, r, err->bad_input, "reading the background for frame %lld: %s",
                            (long long)k, err->msg);
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
