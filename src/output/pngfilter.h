/* pngfilter.h - PNG's Paeth row filter (PNG specification, section 9), for the PNG output.
 *
 * Filtering reads only the unfiltered bytes of the row and the row above, so every byte is
 * independent: an AVX2 loop (32 bytes at a time) and an SSE2 loop (16 bytes), from the
 * module's table of kernels (base/cpu.h), compute exactly what the plain loop does. */
#ifndef RP_PNGFILTER_H
#define RP_PNGFILTER_H

#include <stddef.h>
#include <stdint.h>

/** out[i] = cur[i] - PaethPredictor(a, b, c) (mod 256) for i in 0..n-1, with a = cur[i - bpp]
 * (0 for i < bpp), b = prev[i], c = prev[i - bpp] (0 for i < bpp). For the first row of an
 * image, pass a row of zeros as prev. bpp is the bytes per pixel, 1..8. */
void rp_png_paeth_row(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp);

/** The module's table of kernels for the level in effect: fetch it once per image and pass
 * it to rp_png_paeth_row_dsp() for each row. */
typedef struct rp_png_dsp rp_png_dsp;
const rp_png_dsp *rp_png_dsp_get(void);
void rp_png_paeth_row_dsp(const rp_png_dsp *dsp, uint8_t *out, const uint8_t *cur,
                          const uint8_t *prev, size_t n, int bpp);

#endif
