/* render_simd.h - private to render.c and the x86 kernels: the render's table of vector
 * kernels (see base/cpu.h). Each kernel computes exactly what render.c's plain loop
 * computes, byte for byte. */
#ifndef RP_RENDER_SIMD_H
#define RP_RENDER_SIMD_H

#include <stdint.h>

#include "look/render.h"

/** Render kernels for one row y of a w x h frame over pixels x0..x1-1, which must all be
 * interior (1 <= x0, x1 <= w - 1) for offset; h is the height field's row y (offset also
 * reads rows y-1 and y+1, so 1 <= y <= h-2). Return the first pixel not done (x0 <= r <=
 * x1); the caller renders r..x1-1 itself. */
typedef int (*rp_offset_row_fn)(const rp_render_params *p, const int16_t *row, int w, int h, int y,
                                const uint8_t *tex, uint8_t *out, int x0, int x1);
typedef int (*rp_lens_row_fn)(const int16_t *row, int w, int h, int y, const uint8_t *tex,
                              uint8_t *out, int x0, int x1);

/* The parameters the offset kernels take (shading by float division is exact while
 * |dx*lx + dy*ly| < 2^24): refraction 0..31, |light_x| + |light_y| <= 256, |shading| <
 * 2^24. A scene gives R 0..15, light -16..16 and shading 0..1024; outside these ranges the
 * plain loop keeps the exact C semantics alone. */
#define RP_RENDER_SIMD_LIGHT_SUM 256
#define RP_RENDER_SIMD_SHADING (1 << 24)

typedef struct rp_render_dsp {
    rp_offset_row_fn offset_row[2]; /* without shading, with it */
    rp_lens_row_fn lens_row;
} rp_render_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_render_dsp *rp_render_dsp_get(void);
const rp_render_dsp *rp_render_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/render_simd.c). */
void rp_render_dsp_init_x86(rp_render_dsp *c, int level);

#endif
