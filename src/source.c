/* source.c - backgrounds as sources (see source.h). */
#include "source.h"

#include <stdlib.h>

#include "engine.h"
#include "image.h"
#include "texture.h"

struct rp_source {
    int width, height;
    uint8_t *rgb; /* the still picture, every frame */
};

int rp_source_open(rp_source **out, const char *path, int width, int height, rp_error *err)
{
    rp_source *src = calloc(1, sizeof *src);
    *out = NULL;
    if (!src)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    src->width = width;
    src->height = height;
    if (path && path[0]) {
        if (rp_image_load_rgb(path, width, height, &src->rgb, err->msg, sizeof err->msg)) {
            free(src);
            return rp_error_set(err, RP_ERR_FORMAT, 1, "%s", err->msg);
        }
    } else {
        if (!(src->rgb = malloc((size_t)width * (size_t)height * 3))) {
            free(src);
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        rp_texture_default(src->rgb, width, height);
    }
    *out = src;
    return RP_OK;
}

const uint8_t *rp_source_frame(rp_source *src, int64_t k, int fps)
{
    (void)k;
    (void)fps;
    return src->rgb;
}

void rp_source_free(rp_source **src)
{
    if (!src || !*src)
        return;
    free((*src)->rgb);
    free(*src);
    *src = NULL;
}
