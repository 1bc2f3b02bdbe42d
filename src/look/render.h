/* render.h - height field + background texture -> RGB24 frame (rockpool(1) FRAME LOOP,
 * rockpool-scene(5)): `offset` refraction with shading (Elias, Silverlight, CodeProject) and `lens`
 * refraction (the Java applet). Integer-only; heights outside the grid read as 0 and
 * texture coordinates are clamped to the image. */
#ifndef RP_RENDER_H
#define RP_RENDER_H

#include <stdint.h>

typedef struct rp_pool rp_pool;

enum rp_render_mode {
    RP_RENDER_OFFSET, /* texel at (x + (dx >> R), y + (dy >> R)) plus shading */
    RP_RENDER_LENS,   /* texel at ((x - W/2)*(1024 - h)/1024 + W/2, ...) */
    RP_RENDER_LIGHT,  /* the house look: heights interpolated to the output size and lit as water
                       * (light.h); not handled by rp_render_rows */
};

typedef struct rp_render_params {
    enum rp_render_mode mode;
    int refraction;       /* R, 0..15 (offset only) */
    int light_x, light_y; /* shading = (dx*light_x + dy*light_y) / shading (C division) */
    int shading;          /* divisor, 0 = no shading */
} rp_render_params;

/** Render rows y0..y1-1 of a width x height frame. texture and rgb are RGB24,
 * width*height*3 bytes. */
void rp_render_rows(const rp_render_params *p, const int16_t *heights, int width, int height,
                    const uint8_t *texture, uint8_t *rgb, int y0, int y1);

/** Render the whole frame, split over the pool (NULL = one thread). */
void rp_render_frame(const rp_render_params *p, const int16_t *heights, int width, int height,
                     const uint8_t *texture, uint8_t *rgb, rp_pool *pool);

#endif
