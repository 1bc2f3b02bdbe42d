/* yuv_simd.h - private to yuv.c and the x86 kernels: the converter's rounding offsets and
 * its table of vector kernels (see base/cpu.h). Each kernel computes exactly what yuv.c's
 * plain loops compute, byte for byte. */
#ifndef RP_YUV_SIMD_H
#define RP_YUV_SIMD_H

#include <stdint.h>

#include "output/yuv.h"

/* The offsets added before the shift: 16 or 128 and a half, at shift 15 (one pixel) or 17
 * (the sum of a 2x2 block). */
enum {
    RP_YUV_Y_ADD = (16 << 15) + (1 << 14),
    RP_YUV_C_ADD = (128 << 15) + (1 << 14),
    RP_YUV_C420_ADD = (128 << 17) + (1 << 16),
};

/** 4:2:0 from two RGB24 rows a and b of w pixels: luma rows ya and yb and chroma rows u
 * and v for pixels 0..k-1, k returned (a multiple of 16, or 0). */
typedef int (*rp_yuv420_pair_fn)(const rp_yuv_matrix *m, const uint8_t *a, const uint8_t *b, int w,
                                 uint8_t *ya, uint8_t *yb, uint8_t *u, uint8_t *v);
/** 4:4:4 from one RGB24 row of w pixels, for pixels 0..k-1, k returned. */
typedef int (*rp_yuv444_row_fn)(const rp_yuv_matrix *m, const uint8_t *a, int w, uint8_t *y,
                                uint8_t *u, uint8_t *v);

typedef struct rp_yuv_dsp {
    rp_yuv420_pair_fn yuv420_pair;
    rp_yuv444_row_fn yuv444_row;
} rp_yuv_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_yuv_dsp *rp_yuv_dsp_get(void);
const rp_yuv_dsp *rp_yuv_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/yuv_simd.c). */
void rp_yuv_dsp_init_x86(rp_yuv_dsp *c, int level);

#endif
