/* images.h - the scene's images for the frei0r plugin (rp_core_image_fn): decoded and
 * scaled by FFmpeg exactly as the command line decodes them. */
#ifndef RP_FREI0R_IMAGES_H
#define RP_FREI0R_IMAGES_H

#include "rpcore.h"

/** rp_core_set_images' decoder: ctx unused. A wall mask and its picture are stretched to
 * width x height, the sky drawn over it with fit cover, as rockpool(1) draws them. */
int rp_frei0r_image(void *ctx, const char *path, enum rp_image_use use, int width, int height,
                    uint8_t *rgb, rp_error *err);

#endif
