/* pngfilter_simd.h - private to pngfilter.c and the x86 kernels: the Paeth filter's table
 * of vector kernels (see base/cpu.h). Each kernel computes exactly what pngfilter.c's plain
 * loop computes, byte for byte. */
#ifndef RP_PNGFILTER_SIMD_H
#define RP_PNGFILTER_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "output/pngfilter.h"

/** Filtered bytes i0..k-1 of a row (rp_png_paeth_row), k returned; needs i0 >= bpp. */
typedef size_t (*rp_png_paeth_fn)(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                                  int bpp, size_t i0);

typedef struct rp_png_dsp {
    rp_png_paeth_fn paeth;
} rp_png_dsp;

/** The table for a given level (tests); rp_png_dsp_get() is in pngfilter.h. */
const rp_png_dsp *rp_png_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/pngfilter_simd.c). */
void rp_png_dsp_init_x86(rp_png_dsp *c, int level);

#endif
