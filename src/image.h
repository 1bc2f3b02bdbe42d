/* image.h - still images decoded through FFmpeg (libavformat/libavcodec) and
 * converted with libswscale: the background texture and wall masks. */
#ifndef RP_IMAGE_H
#define RP_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/** Read an image's size without decoding pixels. On failure returns RP_ERR_IO
 * (cannot open/read) or RP_ERR_FORMAT (not an image FFmpeg decodes), with a reason. */
int rp_image_probe(const char *path, int *width, int *height, char *err, size_t errlen);

/** Decode an image and scale it to width x height RGB24 (alpha composited over black).
 * *rgb is malloc'd (width*height*3); the caller frees it. */
int rp_image_load_rgb(const char *path, int width, int height, uint8_t **rgb, char *err,
                      size_t errlen);

/** Decode a wall mask scaled to width x height: *mask[i] = 1 where the pixel's luma
 * (after compositing over black) is >= 128, else 0. *mask is malloc'd. */
int rp_image_load_mask(const char *path, int width, int height, uint8_t **mask, char *err,
                       size_t errlen);

#endif
