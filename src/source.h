/* source.h - the background a session renders over, as a source that yields the picture
 * of frame k at the render size: a still image (decoded once) or the built-in texture.
 * A moving background is one more kind of source. */
#ifndef RP_SOURCE_H
#define RP_SOURCE_H

#include <stdint.h>

#include "rockpool.h"

typedef struct rp_source rp_source;

/** Open the background at path ("" = the built-in texture) for width x height RGB24
 * frames, drawn with `fit` (enum rp_fit: stretch, cover, contain) when the aspects differ.
 * Errors: the image's own (bad_input), RP_ERR_NOMEM (runtime). */
int rp_source_open(rp_source **src, const char *path, int width, int height, int fit,
                   rp_error *err);

/** The picture of frame k at fps frames per second: width*height*3 bytes, valid until the
 * next call or rp_source_free. */
const uint8_t *rp_source_frame(rp_source *src, int64_t k, int fps);

/** Free and null the handle; NULL and a NULL *src are no-ops. */
void rp_source_free(rp_source **src);

#endif
