/* image.h - still images decoded through FFmpeg (libavformat/libavcodec) and
 * converted with libswscale: the background texture and wall masks. */
#ifndef RP_IMAGE_H
#define RP_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* Every function here fills err on failure: the code it returns, a reason naming the file,
 * and bad_input set unless the failure is RP_ERR_NOMEM. */

/** Read an image's size without decoding pixels. On failure returns RP_ERR_IO
 * (cannot open/read) or RP_ERR_FORMAT (not an image FFmpeg decodes), with a reason. */
int rp_image_probe(const char *path, int *width, int *height, rp_error *err);

/** Decode an image and scale it to width x height RGB24 (alpha composited over black).
 * *rgb is malloc'd (width*height*3); the caller frees it. */
int rp_image_load_rgb(const char *path, int width, int height, uint8_t **rgb, rp_error *err);

/** As rp_image_load_rgb, but RGBA as the file holds it (*rgba is width*height*4), not
 * composited: --verify-ref's difference image with --alpha compares these samples. */
int rp_image_load_rgba(const char *path, int width, int height, uint8_t **rgba, rp_error *err);

/** Decode a wall mask scaled to width x height: *mask[i] = 1 where the pixel (after
 * compositing over black) is a wall by rp_mask_is_wall (base/mask.h), else 0. *mask is malloc'd. */
int rp_image_load_mask(const char *path, int width, int height, uint8_t **mask, rp_error *err);

/** What loading path at width x height costs in memory at its peak, in bytes, found
 * without decoding pixels: the file (held whole), its metadata once decoded (ICC profiles,
 * text, EXIF), the decoded frame in the decoder's pixel format, the scaled copies (and the
 * mask when mask is nonzero), and a fixed allowance for FFmpeg's contexts. Every function
 * here refuses (RP_ERR_TOO_LARGE) an image whose metadata inflates past 16 MiB, a side
 * over RP_MAX_SIDE, or a frame over 2^26 pixels or 512 MiB, before allocating it. */
int rp_image_cost(const char *path, int width, int height, int mask, int64_t *bytes, rp_error *err);

/** rp_image_load_rgb and rp_image_load_mask spending at most max_bytes in all (as
 * rp_image_cost counts them; 0 = only the fixed limits): an image over it is refused
 * with RP_ERR_TOO_LARGE before its pixels are decoded. */
int rp_image_load_rgb_max(const char *path, int width, int height, int64_t max_bytes, uint8_t **rgb,
                          rp_error *err);
int rp_image_load_mask_max(const char *path, int width, int height, int64_t max_bytes,
                           uint8_t **mask, rp_error *err);

/** A wall mask's picture at width x height, RGB24, within max_bytes as rp_image_load_mask_max
 * counts a mask's decoding: for a decoder that thresholds the mask itself (rpcore.h's
 * rp_core_set_images). */
int rp_image_load_mask_rgb_max(const char *path, int width, int height, int64_t max_bytes,
                               uint8_t **rgb, rp_error *err);

#endif
