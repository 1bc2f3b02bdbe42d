/* render.h - height field + background texture -> RGB24 frame (rockpool(1) FRAME LOOP,
 * rockpool-scene(5)): `offset` refraction with shading (Elias, Silverlight, CodeProject) and `lens`
 * refraction (the Java applet). Integer-only; heights outside the grid read as 0 and
 * texture coordinates are clamped to the image. */
#ifndef RP_RENDER_H
#define RP_RENDER_H

#include <stdint.h>

#include "scene/params.h" /* rp_render_params */

typedef struct rp_pool rp_pool;

/** Render rows y0..y1-1 of a width x height frame. texture and rgb are RGB24,
 * width*height*3 bytes. */
void rp_render_rows(const rp_render_params *p, const int16_t *heights, int width, int height,
                    const uint8_t *texture, uint8_t *rgb, int y0, int y1);

/** Render the whole frame, split over the pool (NULL = one thread). */
void rp_render_frame(const rp_render_params *p, const int16_t *heights, int width, int height,
                     const uint8_t *texture, uint8_t *rgb, rp_pool *pool);

#endif
