/* images.c - the scene's images for the frei0r plugin (see images.h): the command line's
 * own loaders (input/image.h, input/fit.h), so the plugin's frames are the command line's.
 * The one file of the plugin that reaches past the core's public API: decoding images is
 * the program's file layer, not the core's. */
#include "frei0r/images.h"

#include <stdlib.h>
#include <string.h>

#include "input/fit.h"
#include "input/image.h"

int rp_frei0r_image(void *ctx, const char *path, enum rp_image_use use, int width, int height,
                    uint8_t *rgb, rp_error *err)
{
    uint8_t *pix = NULL;
    (void)ctx;
    int r = use == RP_IMAGE_SKY
                ? rp_fit_load_still(path, RP_FIT_COVER, width, height, &pix, NULL, err)
                : rp_image_load_rgb(path, width, height, &pix, err);
    if (!r)
        memcpy(rgb, pix, (size_t)width * (size_t)height * 3);
    free(pix);
    return r;
}
